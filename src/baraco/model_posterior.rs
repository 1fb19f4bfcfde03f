//! BARACO on the posterior of any latent-variable click model (DBN, UBM, PBM, CCM): joint
//! posterior draws from the click-model Gibbs sampler (`clickmodels::gibbs`), under Beta(1, 1)
//! or empirical-Bayes priors fitted to the log, replace Algorithm 1's per-pair posteriors.
//!
//! Each kept sweep of the sampler is one joint draw of every parameter of the model; a pair
//! the log never showed has no data, so its draws come from the (fitted) prior. The metric of
//! a ranking under a draw is the model's own reciprocal-rank metric (its expectation under
//! that draw's user, [`model_metric`]):
//!
//! - **DBN**: rrMetric (Grotov et al. Eq. 3; Chapelle et al. 2009's ERR with r = a s), the
//!   expected reciprocal rank of the satisfying click; or DCG with gain a s ([`SwitchMetric`]).
//! - **UBM, PBM**: these users are never satisfied, so the metric is the expected reciprocal
//!   rank of the *first* click ("Max Reciprocal Rank", Radlinski, Kurup and Joachims,
//!   CIKM 2008, §4: 1/r for the highest click, 0 without clicks). Before the first click the
//!   examination of rank i is e_i (PBM) or e(i, no click above) (UBM), so
//!   `sum_i c_i / i prod_{j<i} (1 - c_j)` with `c_i = e_i a_i`.
//! - **CCM**: the same first-click metric under CCM's user: rank 1 is examined, and after a
//!   result without a click the user goes on with tau1, so
//!   `sum_i a_i / i prod_{j<i} (1 - a_j) tau1`.
//!
//! P(safe) and E[M_c - M_p] are then Algorithms 2 and 3 over the draws ([`compare_model`]).

use super::decide::{answers, Answer, Config, EvalLists};
use super::log::{ProductionLog, Ranking};
use super::metrics::SwitchMetric;
use crate::clickmodels::gibbs::{sample_with_queries, GibbsConfig, GibbsModel, LatentSettings, SampledTable};
use crate::clickmodels::prior::PriorScope;
use crate::clickmodels::ubm::ubm_cell;
use crate::clickmodels::{registry, ModelKind};
use crate::error::{Error, Result};

/// The click model whose posterior BARACO uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum PosteriorModel {
    /// DBN with the continuation gamma fixed.
    Dbn,
    /// UBM, examination of rank 1 with no click above pinned to 1.
    Ubm,
    /// PBM, examination of rank 1 pinned to 1.
    Pbm,
    /// CCM (PyClick's parameterisation).
    Ccm,
}

impl PosteriorModel {
    /// Parses `dbn`, `ubm`, `pbm` or `ccm`.
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "dbn" => Some(PosteriorModel::Dbn),
            "ubm" => Some(PosteriorModel::Ubm),
            "pbm" => Some(PosteriorModel::Pbm),
            "ccm" => Some(PosteriorModel::Ccm),
            _ => None,
        }
    }
    /// Name as printed.
    pub fn name(self) -> &'static str {
        match self {
            PosteriorModel::Dbn => "DBN",
            PosteriorModel::Ubm => "UBM",
            PosteriorModel::Pbm => "PBM",
            PosteriorModel::Ccm => "CCM",
        }
    }
    /// The click model's sampler: DBN with gamma fixed at `gamma`, UBM and PBM with the top
    /// examination pinned to 1.
    fn sampler(self, gamma: f64) -> Result<Box<dyn GibbsModel>> {
        let kind = match self {
            PosteriorModel::Dbn => ModelKind::Dbn,
            PosteriorModel::Ubm => ModelKind::Ubm,
            PosteriorModel::Pbm => ModelKind::Pbm,
            PosteriorModel::Ccm => ModelKind::Ccm,
        };
        registry::sampler(kind, &LatentSettings { gamma: Some(gamma), top_examination: Some(1.0) })
    }
}

/// How the posterior draws are made.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ModelPosteriorConfig {
    /// Click model.
    pub model: PosteriorModel,
    /// Prior of the per-pair and per-rank tables: Beta(1, 1), or fitted (one Beta per table,
    /// or per query for per-pair tables).
    pub scope: PriorScope,
    /// DBN continuation (DBN only).
    pub gamma: f64,
    /// Independent chains; the K draws are split evenly between them.
    pub chains: usize,
    /// Sweeps discarded per chain.
    pub warmup: usize,
    /// Sweeps per kept draw.
    pub thin: usize,
    /// Seed of the sampler.
    pub seed: u64,
}

impl Default for ModelPosteriorConfig {
    fn default() -> Self {
        ModelPosteriorConfig { model: PosteriorModel::Dbn, scope: PriorScope::Global, gamma: super::DEFAULT_GAMMA, chains: 4, warmup: 500, thin: 1, seed: 1 }
    }
}

/// K joint posterior draws of a click model's parameters, entry-major (entry i's draws at
/// `i * k .. (i + 1) * k`).
#[derive(Debug, Clone)]
pub struct ModelDraws {
    /// Model.
    pub model: PosteriorModel,
    /// Draws per parameter.
    pub k: usize,
    /// Attractiveness per pair.
    pub attractiveness: Vec<f32>,
    /// DBN: satisfaction per pair. UBM: examination of rank r with no click above. PBM:
    /// examination of rank r. CCM: tau1 (one entry).
    pub second: Vec<f32>,
    /// Fitted (or uniform) global priors of the attractiveness table and of the second table
    /// (Beta(1, 1) for CCM's tau1, which is not fitted).
    pub priors: ((f64, f64), (f64, f64)),
}

impl ModelDraws {
    /// Draws `k` joint samples of the model's parameters from `log` (every registered pair
    /// gets draws; unseen ones from the prior). Deterministic for a seed whatever the threads.
    pub fn sample(log: &ProductionLog, cfg: &ModelPosteriorConfig, k: usize) -> Result<Self> {
        if k == 0 || cfg.chains == 0 {
            return Err(Error::config("baraco", if k == 0 { "samples" } else { "chains" }, "must be at least 1"));
        }
        if log.is_empty() {
            return Err(Error::Invalid("the click log has no sessions to sample a posterior from".into()));
        }
        let per_chain = k.div_ceil(cfg.chains);
        let gcfg = GibbsConfig { chains: cfg.chains, warmup: cfg.warmup, draws: per_chain, thin: cfg.thin, seed: cfg.seed, prior_rounds: 20, prior_sweeps: 5 };
        // Every registered pair's query, so that documents never shown take their query's prior.
        let queries: Vec<u32> = log.pairs.iter().map(|&(q, _)| q).collect();
        let sampled = sample_with_queries(&*cfg.model.sampler(cfg.gamma)?, &log.to_logs(), log.pairs.len(), cfg.scope, &gcfg, Some(&queries), &|_| {})?;
        let table = |name: &str| -> Result<&SampledTable> {
            sampled.tables.iter().find(|t| t.name == name).ok_or_else(|| Error::Invalid(format!("{} sampler has no `{name}` table", cfg.model.name())))
        };
        let per = cfg.chains * per_chain;
        // The first k draws of every entry (chains in order).
        let first_k = |t: &SampledTable, entries: &mut dyn Iterator<Item = usize>| -> Vec<f32> {
            entries.flat_map(|i| t.draws[i * per..i * per + k].iter().copied()).collect()
        };
        let a = table("attractiveness")?;
        let second_name = match cfg.model {
            PosteriorModel::Dbn => "satisfaction",
            PosteriorModel::Ubm | PosteriorModel::Pbm => "examination",
            PosteriorModel::Ccm => "tau1",
        };
        let t2 = table(second_name)?;
        let second = match cfg.model {
            PosteriorModel::Ubm => {
                let depth = ((((8 * t2.len() + 1) as f64).sqrt() as usize) - 1) / 2;
                first_k(t2, &mut (0..depth).map(|r| ubm_cell(r, 0)))
            }
            _ => first_k(t2, &mut (0..t2.len())),
        };
        let g = |t: &SampledTable| (t.prior.global.alpha, t.prior.global.beta);
        Ok(ModelDraws { model: cfg.model, k, attractiveness: first_k(a, &mut (0..a.len())), second, priors: (g(a), g(t2)) })
    }

    /// Ranks with an examination draw (UBM, PBM); unlimited for DBN and CCM.
    pub fn max_depth(&self) -> usize {
        match self.model {
            PosteriorModel::Ubm | PosteriorModel::Pbm => self.second.len() / self.k,
            PosteriorModel::Dbn | PosteriorModel::Ccm => usize::MAX,
        }
    }
}

/// The model's metric of one ranked list (pairs in rank order) under draw `j` (see the module
/// docs). `metric` chooses between rrMetric and DCG for DBN; the other models have only
/// their first-click metric ([`Metric::RrMetric`]).
pub fn model_metric(d: &ModelDraws, metric: SwitchMetric, j: usize, list: impl Iterator<Item = u32>) -> f64 {
    let k = d.k;
    let a = |p: u32| d.attractiveness[p as usize * k + j] as f64;
    match d.model {
        PosteriorModel::Dbn => metric.value(list.map(|p| (a(p), d.second[p as usize * k + j] as f64))),
        PosteriorModel::Ubm | PosteriorModel::Pbm => first_click_rr(list.enumerate().map(|(r, p)| (d.second[r * k + j] as f64 * a(p), 1.0))),
        PosteriorModel::Ccm => {
            let tau1 = d.second[j] as f64;
            first_click_rr(list.map(|p| (a(p), tau1)))
        }
    }
}

/// Expected reciprocal rank of the first click: `(c_i, t_i)` per rank are the click
/// probability of a result reached without a click above, and the probability of going on
/// after it was passed without a click; `sum_i c_i / i prod_{j<i} (1 - c_j) t_j`.
pub fn first_click_rr(ranks: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (mut m, mut reach) = (0.0, 1.0);
    for (i, (c, t)) in ranks.enumerate() {
        m += reach * c / (i + 1) as f64;
        reach *= (1.0 - c) * t;
    }
    m
}

/// Algorithms 2 and 3 for every candidate against `production` from the model's joint
/// posterior draws (the first `cfg.samples` of them). `cfg.sampler` and `cfg.seed` are not
/// used (the draws are made by [`ModelDraws::sample`]).
pub fn compare_model(log: &ProductionLog, draws: &ModelDraws, production: &Ranking, candidates: &[Ranking], cfg: &Config) -> Result<Vec<Answer>> {
    cfg.validate()?;
    let npairs = log.pairs.len();
    if draws.attractiveness.len() != npairs * draws.k {
        return Err(Error::Invalid(format!("posterior draws cover {} pairs but the log has {npairs}", draws.attractiveness.len() / draws.k.max(1))));
    }
    if cfg.samples > draws.k {
        return Err(Error::config("baraco", "samples", format!("{} asked but the posterior has {} draws", cfg.samples, draws.k)));
    }
    if draws.model != PosteriorModel::Dbn && cfg.metric != SwitchMetric::RrMetric {
        return Err(Error::config("baraco", "metric", format!("only rrmetric (the first-click reciprocal rank) is defined for {}", draws.model.name())));
    }
    let ev = EvalLists::new(log, production, candidates, cfg.depth);
    let longest = ev.lists.iter().flatten().map(|(_, l)| l.len()).max().unwrap_or(0);
    if longest > draws.max_depth() {
        return Err(Error::config(
            "baraco",
            "depth",
            format!(
                "rankings evaluated to rank {longest}, beyond the {} ranks the log shows ({} examination is known there only)",
                draws.max_depth(),
                draws.model.name()
            ),
        ));
    }
    let per_k = ev.per_draw(cfg.samples, |j, l| model_metric(draws, cfg.metric, j, l.iter().map(|&i| ev.used[i as usize])));
    Ok(answers(log, &per_k, candidates, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baraco::{compare, compute_posteriors};

    /// One query, SERP [d1, d2]: 4 sessions click both, 6 click d2 only; plus `d3`, never shown.
    /// Under the DBN every observation is conjugate here (the last click is at the bottom, so
    /// nothing below it is hidden): a1 ~ Beta(1 + 4, 1 + 6), s1 ~ Beta(1, 1 + 4) (clicked and
    /// went on), a2 ~ Beta(1 + 10, 1), s2 ~ Beta(1, 1) (a last click at the bottom says nothing
    /// about satisfaction).
    fn swap_log() -> (ProductionLog, Ranking, Ranking, Ranking) {
        let mut log = ProductionLog::new();
        let q = log.query_id("q");
        let (d1, d2, d3) = (log.pair_id(q, "d1"), log.pair_id(q, "d2"), log.pair_id(q, "d3"));
        for i in 0..10 {
            log.push_session(q, &[d1, d2], &[i < 4, true]).unwrap();
        }
        let r = |name: &str, l: Vec<u32>| Ranking { name: name.into(), lists: vec![l] };
        (log, r("p", vec![d1, d2]), r("swap", vec![d2, d1]), r("unseen", vec![d3, d1]))
    }

    fn dbn_cfg(scope: PriorScope) -> ModelPosteriorConfig {
        // Thinned: s2's data-augmentation chain has lag-1 autocorrelation about 10/12.
        ModelPosteriorConfig { model: PosteriorModel::Dbn, scope, gamma: 0.9, chains: 2, warmup: 200, thin: 10, seed: 7 }
    }

    #[test]
    fn dbn_draws_agree_with_hand_derivation_and_algorithm_1() {
        let (log, p, swap, _) = swap_log();
        let k = 20_000;
        let draws = ModelDraws::sample(&log, &dbn_cfg(PriorScope::Uniform), k).unwrap();
        let cfg = Config { samples: k, ..Config::default() };
        let got = compare_model(&log, &draws, &p, std::slice::from_ref(&swap), &cfg).unwrap();
        // rrMetric of [x, y] is r_x + (1 - r_x) r_y / 2, so swapping gives (r2 - r1) / 2 with
        // r = a s, and by independence E[diff] = (E a2 E s2 - E a1 E s1) / 2
        // = (11/12 * 1/2 - 5/12 * 1/6) / 2 = 7/36.
        let want = 7.0 / 36.0;
        // Per-draw sd of the difference is about 0.14; with thinning 10 the effective sample
        // size is above 0.7 K, so the Monte-Carlo sd is about 0.0012: 4 sd = 0.005.
        assert!((got[0].expected_diff - want).abs() < 0.005, "{} vs {want}", got[0].expected_diff);
        assert!(got[0].p_safe > 0.9, "{:?}", got[0]);
        // Algorithm 1 (exact here: nothing below a last click) with its own independent draws.
        let post = compute_posteriors(&log, 0.9).unwrap();
        let alg1 = compare(&log, &post, &p, std::slice::from_ref(&swap), &cfg).unwrap();
        assert!((alg1[0].expected_diff - want).abs() < 0.005, "{:?}", alg1[0]);
        // P(safe) is about 0.95: the sd of the difference of the two estimates is
        // sqrt(0.05 * 0.95 * (1 / 14,000 + 1 / 20,000)) = 0.0024; 4 sd = 0.01.
        assert!((got[0].p_safe - alg1[0].p_safe).abs() < 0.01, "{} vs {}", got[0].p_safe, alg1[0].p_safe);
        // The other way round the sign flips.
        let back = compare_model(&log, &draws, &swap, std::slice::from_ref(&p), &cfg).unwrap();
        assert!((back[0].expected_diff + want).abs() < 0.005 && back[0].p_safe < 0.1, "{:?}", back[0]);
    }

    #[test]
    fn unseen_documents_draw_from_the_fitted_prior() {
        let (log, _, _, unseen) = swap_log();
        let k = 4000;
        let draws = ModelDraws::sample(&log, &dbn_cfg(PriorScope::Global), k).unwrap();
        let d3 = unseen.lists[0][0] as usize;
        let ((aa, ab), (sa, sb)) = draws.priors;
        assert!(aa != 1.0 || ab != 1.0, "prior was not fitted: {:?}", draws.priors);
        for (table, (alpha, beta)) in [(&draws.attractiveness, (aa, ab)), (&draws.second, (sa, sb))] {
            let x = &table[d3 * k..(d3 + 1) * k];
            let m = x.iter().map(|&v| v as f64).sum::<f64>() / k as f64;
            // Independent draws from Beta(alpha, beta): mean alpha / (alpha + beta), sd of the
            // Monte-Carlo mean at most 0.5 / sqrt(k) = 0.008; 4 sd.
            let want = alpha / (alpha + beta);
            assert!((m - want).abs() < 0.032, "{m} vs {want} ({alpha}, {beta})");
        }
    }

    #[test]
    fn unseen_documents_draw_from_their_query_prior() {
        // Two queries with four shown documents each and one never shown. In 1 ("lo") or 9
        // ("hi") of every 10 sessions the first three results are clicked, all of them or all
        // but one (in turn), so those documents are clicked in about 7 % or 68 % of their
        // impressions. With
        // per-query priors the unseen document of "hi" is drawn from a prior whose mean lies
        // well above that of "lo"'s (0.3 is half the difference of those click rates); under
        // the global prior both are drawn from the same Beta. (Before, per-query priors
        // were refused for logs with unseen documents.)
        let mut log = ProductionLog::new();
        let mut unseen = Vec::new();
        for (name, clicked) in [("lo", 0.1), ("hi", 0.9)] {
            let q = log.query_id(name);
            let docs: Vec<u32> = (0..4).map(|d| log.pair_id(q, &format!("{name}{d}"))).collect();
            unseen.push(log.pair_id(q, &format!("{name}-new")) as usize);
            for i in 0..40 {
                let c = (i % 10) as f64 / 10.0 < clicked;
                let clicks = [c && i % 4 != 3, c && i % 4 != 2, c && i % 4 != 1, i % 37 == 0];
                log.push_session(q, &docs, &clicks).unwrap();
            }
        }
        let k = 4000;
        let mean_a = |d: &ModelDraws, p: usize| d.attractiveness[p * k..(p + 1) * k].iter().map(|&v| v as f64).sum::<f64>() / k as f64;
        let per_query = ModelDraws::sample(&log, &dbn_cfg(PriorScope::Query), k).unwrap();
        let (lo, hi) = (mean_a(&per_query, unseen[0]), mean_a(&per_query, unseen[1]));
        assert!(hi - lo > 0.3, "per-query priors: unseen lo {lo}, hi {hi}");
        let global = ModelDraws::sample(&log, &dbn_cfg(PriorScope::Global), k).unwrap();
        let (glo, ghi) = (mean_a(&global, unseen[0]), mean_a(&global, unseen[1]));
        // Same Beta for both: the Monte-Carlo sd of each mean is at most 0.5 / sqrt(k) = 0.008.
        assert!((ghi - glo).abs() < 0.045, "global prior: unseen lo {glo}, hi {ghi}");
    }

    #[test]
    fn first_click_rr_by_hand() {
        // c = (0.5, 0.4, 1): 0.5 + 0.5 * 0.4 / 2 + 0.5 * 0.6 * 1 / 3 = 0.7.
        assert!((first_click_rr([(0.5, 1.0), (0.4, 1.0), (1.0, 1.0)].into_iter()) - 0.7).abs() < 1e-15);
        // CCM, tau1 = 0.8, a = (0.5, 0.5): 0.5 + 0.5 * 0.8 * 0.5 / 2 = 0.6.
        assert!((first_click_rr([(0.5, 0.8), (0.5, 0.8)].into_iter()) - 0.6).abs() < 1e-15);
    }

    #[test]
    fn every_model_prefers_the_often_clicked_document_on_top() {
        // SERP [d1, d2, d3]: d1 is clicked in 4 of 40 sessions, d2 in 24, d3 in 8 of the 12
        // sessions without a click above it and never after a click on d2. Under every model
        // d2's attractiveness is at least 0.6 (its examination is at most 1) and d1's about
        // 0.1; under the DBN d2 also satisfies (the attractive d3 is never clicked after it).
        // Putting d2 first raises the reciprocal rank of the first (or satisfying) click.
        let mut log = ProductionLog::new();
        let q = log.query_id("q");
        let (d1, d2, d3) = (log.pair_id(q, "d1"), log.pair_id(q, "d2"), log.pair_id(q, "d3"));
        for i in 0..40 {
            log.push_session(q, &[d1, d2, d3], &[i < 4, i >= 16, (4..12).contains(&i)]).unwrap();
        }
        let p = Ranking { name: "p".into(), lists: vec![vec![d1, d2, d3]] };
        let c = Ranking { name: "c".into(), lists: vec![vec![d2, d1, d3]] };
        let cfg = Config { samples: 2000, ..Config::default() };
        for model in [PosteriorModel::Dbn, PosteriorModel::Ubm, PosteriorModel::Pbm, PosteriorModel::Ccm] {
            let mcfg = ModelPosteriorConfig { model, scope: PriorScope::Uniform, ..ModelPosteriorConfig::default() };
            let draws = ModelDraws::sample(&log, &mcfg, cfg.samples).unwrap();
            let up = compare_model(&log, &draws, &p, std::slice::from_ref(&c), &cfg).unwrap();
            let down = compare_model(&log, &draws, &c, std::slice::from_ref(&p), &cfg).unwrap();
            assert!(up[0].expected_diff > 0.05 && up[0].p_safe > 0.9, "{model:?} {:?}", up[0]);
            assert!(down[0].expected_diff < -0.05 && down[0].p_safe < 0.1, "{model:?} {:?}", down[0]);
            assert!((up[0].expected_diff + down[0].expected_diff).abs() < 1e-12);
            // Same answers whatever the thread count.
            let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            let again = pool.install(|| {
                let d = ModelDraws::sample(&log, &mcfg, cfg.samples).unwrap();
                compare_model(&log, &d, &p, std::slice::from_ref(&c), &cfg).unwrap()
            });
            assert_eq!(again, up, "{model:?}");
        }
    }

    #[test]
    fn unusable_settings_are_errors() {
        let (log, p, swap, _) = swap_log();
        let mcfg = ModelPosteriorConfig { model: PosteriorModel::Ubm, ..ModelPosteriorConfig::default() };
        let draws = ModelDraws::sample(&log, &mcfg, 100).unwrap();
        let one = std::slice::from_ref(&swap);
        let long = Ranking { name: "long".into(), lists: vec![vec![swap.lists[0][0], swap.lists[0][1], 2]] };
        let e = compare_model(&log, &draws, &p, &[long], &Config { samples: 100, ..Config::default() }).unwrap_err().to_string();
        assert!(e.contains("depth") && e.contains("rank 3") && e.contains("2 ranks"), "{e}");
        let e =
            compare_model(&log, &draws, &p, one, &Config { samples: 100, depth: 2, metric: SwitchMetric::Dcg, ..Config::default() }).unwrap_err().to_string();
        assert!(e.contains("metric"), "{e}");
        let e = compare_model(&log, &draws, &p, one, &Config { samples: 101, depth: 2, ..Config::default() }).unwrap_err().to_string();
        assert!(e.contains("samples"), "{e}");
        let e = ModelDraws::sample(&log, &mcfg, 0).unwrap_err().to_string();
        assert!(e.contains("samples"), "{e}");
    }
}
