//! Posteriors of every click model: per parameter the posterior mean, sd and an equal-tailed
//! credible interval, with posterior draws on request.
//!
//! - **Conjugate** (CM, DCM, SDBN, GCTR, RCTR, DCTR): these models are fitted by counting
//!   successes and failures of each parameter with nothing hidden, so the posterior of an
//!   entry with `s` successes in `n` trials under a Beta(alpha, beta) prior is exactly
//!   Beta(alpha + s, beta + n - s). Under Beta(1, 1) its mean is the fitted value
//!   (1 + s) / (2 + n). Intervals from the inverse regularised incomplete Beta function
//!   ([`crate::stats::beta_quantile`]), once per distinct (alpha, beta). The counts are the
//!   fit's own ([`count_tables`]): [`fit_with_posterior`] gives model and posterior from one pass.
//! - **Sampled** (DBN, CCM, UBM, PBM; SDBN and DCM with `exact`): Gibbs sampling with data
//!   augmentation ([`super::gibbs`]), several chains, with split R-hat and bulk effective
//!   sample size per parameter ([`crate::stats::mcmc`]).
//!
//! Which tables a counting model has and which sampler a model uses come from its registry
//! entry ([`super::registry::PosteriorSpec`]); this module names no model.
//!
//! Priors ([`PriorScope`]): Beta(1, 1) or empirical-Bayes priors fitted by marginal likelihood
//! ([`super::prior`]). With a fitted prior, a pair never seen in training gets the prior mean
//! ([`Posterior::point_model`]).
//!
//! ```
//! use serpsim::clickmodels::posterior::{posterior, PosteriorConfig};
//! use serpsim::clickmodels::ModelKind;
//! use serpsim::logs::{Format, LogData};
//! let data = LogData::parse("q\ta,b : a; q\ta,b :\n", Format::Yandex, "x", false).unwrap();
//! let post = posterior(ModelKind::Cm, &data.log, data.vocab.pair_count(), &PosteriorConfig::default(), &|_| {}).unwrap();
//! // Pair (q, a): 1 click in 2 trials, Beta(1 + 1, 1 + 1): mean 1/2.
//! assert_eq!(post.params[0].mean[0], 0.5);
//! ```

use super::gibbs::{sample, GibbsConfig, LatentSettings, Sampled};
use super::prior::{pair_queries, Axis, PriorScope, TablePrior};
use super::table::ParamTable;
use super::{count_tables, model_from_tables, registry, ClickModel, Counts, Gamma, ModelKind};
use crate::error::{Error, Result};
use crate::logs::{ClickLog, Vocab};
use crate::stats::beta_binomial::BetaPrior;
use crate::stats::beta_quantile::BetaQuantile;
use rand_distr::{Beta, Distribution};
use rayon::prelude::*;
use serde_json::{json, Value};

/// R-hat above this flags a parameter (Vehtari et al. 2021).
pub const RHAT_MAX: f64 = 1.01;
/// Bulk ESS below this many per chain flags a parameter (Vehtari et al. 2021).
pub const ESS_PER_CHAIN_MIN: f64 = 100.0;

/// How to compute a posterior.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PosteriorConfig {
    /// Prior scope (default: uniform, Beta(1, 1)).
    pub prior: PriorScope,
    /// Credible level of the intervals (default 0.9).
    pub level: f64,
    /// Sampler settings (DBN, CCM, UBM, PBM).
    pub sampler: GibbsConfig,
    /// Draws kept per parameter in the output (0: none).
    pub keep_draws: usize,
    /// DBN continuation: fitted (sampled) or fixed.
    pub gamma: Gamma,
    /// UBM/PBM: examination of rank 1 pinned at this value (None: free, unidentified scale).
    pub top_examination: Option<f64>,
    /// SDBN and DCM: sample the exact posterior (a user may go on after the last click and
    /// examine the results below without clicking) instead of the conjugate posterior of the
    /// counting likelihood, which assumes the user stops at the last click.
    pub exact: bool,
}

impl Default for PosteriorConfig {
    fn default() -> Self {
        PosteriorConfig {
            prior: PriorScope::Uniform,
            level: 0.9,
            sampler: GibbsConfig::default(),
            keep_draws: 0,
            gamma: Gamma::Fitted,
            top_examination: Some(1.0),
            exact: false,
        }
    }
}

impl PosteriorConfig {
    /// Whether [`posterior`] of `kind` runs the Gibbs sampler (EM models, and SDBN and DCM with
    /// `exact`); the other models' posteriors are conjugate, from counts.
    pub fn sampled(&self, kind: ModelKind) -> bool {
        kind.is_em() || (self.exact && kind.spec().posterior.sampler.is_some())
    }

    /// The sweeps [`posterior`] of `kind` reports to its `progress`, in all: the Monte-Carlo
    /// EM of a fitted prior (`prior_rounds`, at least 1, times `prior_sweeps`) and then every
    /// chain's warm-up and draws (times `thin`); `None` when nothing is sampled. A progress
    /// total from here is never passed by the count.
    pub fn sweeps(&self, kind: ModelKind) -> Option<u64> {
        let g = &self.sampler;
        let mcem = if self.prior.is_fitted() { g.prior_rounds.max(1) * g.prior_sweeps } else { 0 };
        self.sampled(kind).then(|| (mcem + g.chains * (g.warmup + g.draws * g.thin)) as u64)
    }
}

/// How a posterior was obtained.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// Exact Beta posteriors of counts.
    Conjugate,
    /// Gibbs sampling with these settings.
    Gibbs(GibbsConfig),
}

/// Posterior of one parameter table.
#[derive(Debug, Clone)]
pub struct ParamPosterior {
    /// Parameter name as in model files.
    pub name: &'static str,
    /// What the entries are indexed by.
    pub axis: Axis,
    /// The prior.
    pub prior: TablePrior,
    /// Posterior mean per entry.
    pub mean: Vec<f64>,
    /// Posterior sd per entry.
    pub sd: Vec<f64>,
    /// Lower end of the equal-tailed credible interval.
    pub lower: Vec<f64>,
    /// Upper end of the equal-tailed credible interval.
    pub upper: Vec<f64>,
    /// Successes: observed (conjugate) or posterior mean including hidden ones (sampled).
    pub successes: Vec<f64>,
    /// Trials, likewise.
    pub trials: Vec<f64>,
    /// Entries held at a fixed value (not estimated).
    pub pinned: Vec<Option<f64>>,
    /// Rank-normalised split R-hat per entry (sampled only; empty for conjugate).
    pub rhat: Vec<f64>,
    /// Bulk effective sample size per entry (sampled only).
    pub ess: Vec<f64>,
    /// Kept draws per entry (only with `keep_draws > 0`).
    pub draws: Vec<Vec<f32>>,
}

/// The posterior of a model.
#[derive(Debug, Clone)]
pub struct Posterior {
    /// Which model.
    pub model: ModelKind,
    /// How it was computed.
    pub method: Method,
    /// Credible level.
    pub level: f64,
    /// Tables in the model's order.
    pub params: Vec<ParamPosterior>,
    /// Query of each pair index (`u32::MAX` for pairs not in the log); empty for conjugate
    /// posteriors unless the prior is per query (the only use of the map).
    pub pair_query: Vec<u32>,
    /// Sessions used.
    pub sessions: usize,
}

/// Names and axes of the tables of a counting model, in [`count_tables`]'s order (its
/// registry entry's [`PosteriorSpec::counted`](super::registry::PosteriorSpec::counted)).
fn counted_tables(kind: ModelKind) -> &'static [(&'static str, Axis)] {
    kind.spec().posterior.counted
}

/// Equal-tailed intervals of Beta(a, b) at `level`, written to `lower` and `upper` for every
/// shape pair; each distinct pair computed once (sparse counts repeat the same pairs), found by
/// sorting the pairs' bit patterns (deterministic, no hashing).
fn beta_intervals(shapes: &[(f64, f64)], level: f64, lower: &mut [f64], upper: &mut [f64]) {
    let mut order: Vec<(u64, u64, u32)> = shapes.iter().enumerate().map(|(i, &(a, b))| (a.to_bits(), b.to_bits(), i as u32)).collect();
    order.sort_unstable();
    // Runs of equal shapes: (start in `order`, end).
    let mut runs = Vec::new();
    let mut start = 0;
    for i in 1..=order.len() {
        if i == order.len() || (order[i].0, order[i].1) != (order[start].0, order[start].1) {
            runs.push((start, i));
            start = i;
        }
    }
    let computed: Vec<(f64, f64)> =
        runs.par_iter().with_min_len(64).map(|&(s, _)| BetaQuantile::new(f64::from_bits(order[s].0), f64::from_bits(order[s].1)).interval(level)).collect();
    for (&(s, e), &(lo, hi)) in runs.iter().zip(&computed) {
        for &(_, _, i) in &order[s..e] {
            lower[i as usize] = lo;
            upper[i as usize] = hi;
        }
    }
}

/// Mean, sd and interval of draws (type-7 quantiles).
fn summarise(mut v: Vec<f64>, level: f64) -> (f64, f64, f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let sd = (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
    v.sort_by(f64::total_cmp);
    let q = (1.0 - level) / 2.0;
    (m, sd, crate::stats::quantile_sorted(&v, q), crate::stats::quantile_sorted(&v, 1.0 - q))
}

/// `k` draws spread evenly over `all` (chain by chain).
fn keep_evenly(all: &[f32], k: usize) -> Vec<f32> {
    if k == 0 || all.is_empty() {
        return Vec::new();
    }
    let k = k.min(all.len());
    (0..k).map(|j| all[j * all.len() / k]).collect()
}

/// Computes the posterior of `kind` on `log`, whose pair indices run below `pairs` (the
/// vocabulary size). `progress` receives sampler sweeps as they finish.
pub fn posterior(kind: ModelKind, log: &ClickLog, pairs: usize, cfg: &PosteriorConfig, progress: &(dyn Fn(u64) + Sync)) -> Result<Posterior> {
    check(cfg, log)?;
    let pairs = pairs.max(log.pairs.iter().map(|&p| p as usize + 1).max().unwrap_or(0));
    if cfg.sampled(kind) {
        let gamma = match cfg.gamma {
            Gamma::Fitted => None,
            Gamma::Fixed(g) => Some(g),
        };
        let sampler = registry::sampler(kind, &LatentSettings { gamma, top_examination: cfg.top_examination })?;
        let s = sample(&*sampler, log, pairs, cfg.prior, &cfg.sampler, progress)?;
        return Ok(from_sampled(kind, s, cfg));
    }
    let tables = count_tables(kind, &mut &*log)?;
    conjugate(kind, &tables, log, pairs, cfg)
}

/// A counting model (CM, DCM, SDBN, GCTR, RCTR, DCTR) fitted on `log` together with its
/// conjugate posterior, from one counting pass. The model is the usual fit under Beta(1, 1)
/// (the same as [`ModelConfig::fit`](super::ModelConfig::fit)) and the posterior means under a
/// fitted prior ([`Posterior::point_model`]).
pub fn fit_with_posterior(kind: ModelKind, log: &ClickLog, pairs: usize, cfg: &PosteriorConfig) -> Result<(Box<dyn ClickModel>, Posterior)> {
    if kind.is_em() || cfg.exact {
        return Err(Error::Invalid(format!("{kind}: the conjugate posterior is for counting models without --exact; use `posterior`")));
    }
    check(cfg, log)?;
    let tables = count_tables(kind, &mut &*log)?;
    // The pair tables are as long as the log's highest pair index plus one (`count_tables` sizes
    // them so, `Counts` grows past it): their length covers every pair of the log without
    // scanning the log again.
    let counted = counted_tables(kind).iter().zip(&tables).filter(|((_, axis), _)| *axis == Axis::Pair);
    let pairs = pairs.max(counted.map(|(_, c)| c.len()).max().unwrap_or(0));
    let post = conjugate(kind, &tables, log, pairs, cfg)?;
    let model = if cfg.prior == PriorScope::Uniform { model_from_tables(kind, &tables) } else { post.point_model() };
    Ok((model, post))
}

/// Checks the level and that there are sessions.
fn check(cfg: &PosteriorConfig, log: &ClickLog) -> Result<()> {
    if !(cfg.level > 0.0 && cfg.level < 1.0) {
        return Err(Error::config("posterior", "level", format!("{} is not in (0, 1)", cfg.level)));
    }
    if log.is_empty() {
        return Err(Error::Invalid("no sessions: nothing to fit".into()));
    }
    Ok(())
}

/// The conjugate posterior from the fit's counts ([`count_tables`]): Beta(alpha + s,
/// beta + n - s) per entry; pair tables span `pairs`, rank tables the longest SERP. The map
/// from pairs to queries ([`Posterior::pair_query`]) is built only for per-query priors.
fn conjugate(kind: ModelKind, tables: &[Counts], log: &ClickLog, pairs: usize, cfg: &PosteriorConfig) -> Result<Posterior> {
    let pair_query = if cfg.prior == PriorScope::Query { pair_queries(log, pairs) } else { Vec::new() };
    let mut params = Vec::with_capacity(tables.len());
    for (ti, (&(name, axis), counts)) in counted_tables(kind).iter().zip(tables).enumerate() {
        let len = match axis {
            Axis::Pair => pairs,
            Axis::Rank => log.max_len(),
            _ => 1,
        };
        let (mut successes, mut trials) = (Vec::with_capacity(len), Vec::with_capacity(len));
        for i in 0..len {
            let (s, n) = counts.sums(i);
            successes.push(s);
            trials.push(n);
        }
        let prior = if cfg.prior == PriorScope::Uniform || axis == Axis::Scalar {
            TablePrior::uniform()
        } else {
            let sf: Vec<(f64, f64)> = successes.iter().zip(&trials).map(|(&s, &n)| (s, n - s)).collect();
            TablePrior::fit(cfg.prior, axis, &sf, if axis == Axis::Pair { &pair_query } else { &[] })?
        };
        let (mut mean, mut sd, mut shapes) = (Vec::with_capacity(len), Vec::with_capacity(len), Vec::with_capacity(len));
        for (i, (&s, &n)) in successes.iter().zip(&trials).enumerate() {
            let pr = if axis == Axis::Pair { prior.of(i, &pair_query) } else { prior.global };
            let (a, b) = (pr.alpha + s, pr.beta + (n - s));
            let t = a + b;
            mean.push(a / t);
            sd.push((a * b / (t * t * (t + 1.0))).sqrt());
            shapes.push((a, b));
        }
        let (mut lower, mut upper) = (vec![0.0; len], vec![0.0; len]);
        beta_intervals(&shapes, cfg.level, &mut lower, &mut upper);
        let draws = if cfg.keep_draws > 0 {
            shapes
                .par_iter()
                .enumerate()
                .map(|(i, &(a, b))| {
                    let mut rng = crate::rng::stream(cfg.sampler.seed, &[ti as u64, i as u64]);
                    let d = Beta::new(a, b).expect("positive shapes");
                    (0..cfg.keep_draws).map(|_| d.sample(&mut rng) as f32).collect()
                })
                .collect()
        } else {
            Vec::new()
        };
        params.push(ParamPosterior {
            name,
            axis,
            prior,
            mean,
            sd,
            lower,
            upper,
            successes,
            trials,
            pinned: vec![None; len],
            rhat: Vec::new(),
            ess: Vec::new(),
            draws,
        });
    }
    Ok(Posterior { model: kind, method: Method::Conjugate, level: cfg.level, params, pair_query, sessions: log.len() })
}

fn from_sampled(kind: ModelKind, s: Sampled, cfg: &PosteriorConfig) -> Posterior {
    let chains = s.config.chains;
    let params = s
        .tables
        .into_iter()
        .map(|t| {
            let rows: Vec<(f64, f64, f64, f64, f64, f64, Vec<f32>)> = (0..t.len())
                .into_par_iter()
                .map(|i| {
                    if let Some(v) = t.pinned[i] {
                        return (v, 0.0, v, v, f64::NAN, f64::NAN, Vec::new());
                    }
                    let ch = t.chains(i, chains);
                    let f: Vec<Vec<f64>> = ch.iter().map(|c| c.iter().map(|&x| x as f64).collect()).collect();
                    let refs: Vec<&[f64]> = f.iter().map(|c| c.as_slice()).collect();
                    let (m, sd, lo, hi) = summarise(f.concat(), cfg.level);
                    let all: Vec<f32> = ch.concat();
                    (m, sd, lo, hi, crate::stats::mcmc::rhat(&refs), crate::stats::mcmc::ess_bulk(&refs), keep_evenly(&all, cfg.keep_draws))
                })
                .collect();
            let mut p = ParamPosterior {
                name: t.name,
                axis: t.axis,
                prior: t.prior,
                mean: Vec::new(),
                sd: Vec::new(),
                lower: Vec::new(),
                upper: Vec::new(),
                successes: t.successes,
                trials: t.trials,
                pinned: t.pinned,
                rhat: Vec::new(),
                ess: Vec::new(),
                draws: Vec::new(),
            };
            for (m, sd, lo, hi, r, e, d) in rows {
                p.mean.push(m);
                p.sd.push(sd);
                p.lower.push(lo);
                p.upper.push(hi);
                p.rhat.push(r);
                p.ess.push(e);
                if cfg.keep_draws > 0 {
                    p.draws.push(d);
                }
            }
            p
        })
        .collect();
    Posterior { model: kind, method: Method::Gibbs(s.config), level: cfg.level, params, pair_query: s.pair_query, sessions: s.sessions }
}

/// Convergence summary of a sampled posterior.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Diagnostics {
    /// Largest R-hat over estimated parameters.
    pub max_rhat: f64,
    /// Smallest bulk ESS.
    pub min_ess: f64,
    /// Parameters with R-hat > [`RHAT_MAX`] or bulk ESS < [`ESS_PER_CHAIN_MIN`] per chain.
    pub flagged: usize,
    /// Parameters checked.
    pub checked: usize,
}

impl Posterior {
    /// R-hat and ESS over every estimated parameter (None for conjugate posteriors).
    pub fn diagnostics(&self) -> Option<Diagnostics> {
        let Method::Gibbs(g) = self.method else { return None };
        let ess_min = ESS_PER_CHAIN_MIN * g.chains as f64;
        let mut d = Diagnostics { max_rhat: f64::NAN, min_ess: f64::NAN, flagged: 0, checked: 0 };
        for p in &self.params {
            for i in 0..p.mean.len() {
                if p.pinned[i].is_some() {
                    continue;
                }
                let (r, e) = (p.rhat[i], p.ess[i]);
                d.checked += 1;
                d.max_rhat = d.max_rhat.max(r);
                d.min_ess = d.min_ess.min(e);
                if !(r <= RHAT_MAX) || !(e >= ess_min) {
                    d.flagged += 1;
                }
            }
        }
        Some(d)
    }

    /// The table of `name`.
    pub fn param(&self, name: &str) -> Option<&ParamPosterior> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Posterior means as a model file table; pairs beyond the tables take the prior means
    /// when a prior was fitted.
    pub fn point_table(&self) -> ParamTable {
        let mut t = ParamTable::new(self.model);
        for p in &self.params {
            match p.axis {
                Axis::Pair => t = t.pair(p.name, &p.mean),
                Axis::Rank => t = t.rank(p.name, &p.mean),
                Axis::Scalar => t = t.scalar(p.name, p.mean[0]),
                Axis::Matrix => {
                    let mut rows = Vec::new();
                    let mut r = 0;
                    while r * (r + 1) / 2 < p.mean.len() {
                        rows.push(p.mean[r * (r + 1) / 2..((r + 1) * (r + 2) / 2).min(p.mean.len())].to_vec());
                        r += 1;
                    }
                    t = t.matrix(p.name, &rows);
                }
            }
            if p.axis == Axis::Pair && p.prior.scope != PriorScope::Uniform {
                t.unseen.push((p.name.to_string(), p.prior.global.mean()));
            }
        }
        t
    }

    /// The model with posterior means (for simulation and prediction).
    pub fn point_model(&self) -> Box<dyn ClickModel> {
        self.point_table().into_model("posterior").expect("posterior means are probabilities")
    }

    /// The model with posterior means, its per-pair tables extended to the pairs of
    /// `pair_query` (pair index -> query index, e.g. from a vocabulary that grew when test
    /// sessions were read): unseen pairs of a known query take that query's prior mean, others
    /// the table-wide prior mean.
    pub fn point_model_for(&self, pair_query: &[u32]) -> Box<dyn ClickModel> {
        let mut t = self.point_table();
        for (name, v) in t.pairs.iter_mut() {
            let Some(p) = self.param(name) else { continue };
            let n0 = v.len();
            for (i, &q) in pair_query.iter().enumerate().skip(n0) {
                let _ = i;
                v.push(p.prior.of_query(if q == u32::MAX { None } else { Some(q) }).mean());
            }
        }
        t.into_model("posterior").expect("posterior means are probabilities")
    }

    /// One record per estimated entry, for `pandas.read_json(path)` (a list of flat objects
    /// with the same keys; missing values are null).
    pub fn records(&self, vocab: &Vocab) -> Vec<Value> {
        let mut out = Vec::new();
        for p in &self.params {
            let n = if p.axis == Axis::Pair { p.mean.len().min(vocab.pair_count()) } else { p.mean.len() };
            let mut row_of_cell = Vec::new();
            if p.axis == Axis::Matrix {
                let mut r = 0;
                while row_of_cell.len() < p.mean.len() {
                    for j in 0..=r {
                        row_of_cell.push((r, j));
                    }
                    r += 1;
                }
            }
            for i in 0..n {
                let (query, doc, rank, prev): (Value, Value, Value, Value) = match p.axis {
                    Axis::Pair => {
                        let (q, d) = vocab.pairs[i];
                        (json!(vocab.queries[q as usize]), json!(vocab.docs[d as usize]), Value::Null, Value::Null)
                    }
                    Axis::Rank => (Value::Null, Value::Null, json!(i + 1), Value::Null),
                    Axis::Matrix => {
                        let (r, j) = row_of_cell[i];
                        (Value::Null, Value::Null, json!(r + 1), json!(j))
                    }
                    Axis::Scalar => (Value::Null, Value::Null, Value::Null, Value::Null),
                };
                let pr: BetaPrior = if p.axis == Axis::Pair { p.prior.of(i, &self.pair_query) } else { p.prior.global };
                let opt = |v: &Vec<f64>| v.get(i).copied().map_or(Value::Null, |x| json!(x));
                let mut rec = json!({
                    "parameter": p.name,
                    "query": query,
                    "document": doc,
                    "rank": rank,
                    "previous_click": prev,
                    "mean": p.mean[i],
                    "sd": p.sd[i],
                    "lower": p.lower[i],
                    "upper": p.upper[i],
                    "level": self.level,
                    "prior_alpha": if p.pinned[i].is_some() { Value::Null } else { json!(pr.alpha) },
                    "prior_beta": if p.pinned[i].is_some() { Value::Null } else { json!(pr.beta) },
                    "successes": p.successes[i],
                    "trials": p.trials[i],
                    "rhat": opt(&p.rhat),
                    "ess": opt(&p.ess),
                    "pinned": p.pinned[i].is_some(),
                });
                if !p.draws.is_empty() {
                    rec["draws"] = json!(p.draws[i].iter().map(|&x| x as f64).collect::<Vec<f64>>());
                }
                out.push(rec);
            }
        }
        out
    }

    /// Human-readable lines: priors and diagnostics.
    pub fn summary_lines(&self) -> Vec<String> {
        let mut v = Vec::new();
        for p in &self.params {
            if p.axis != Axis::Scalar {
                v.push(format!("prior of {}: {}", p.name, p.prior.describe()));
            }
        }
        match (self.method, self.diagnostics()) {
            (Method::Gibbs(g), Some(d)) => v.push(format!(
                "Gibbs sampler: {} chains x {} draws (warm-up {}, thin {}); max R-hat {:.4}, min bulk ESS {:.0}; {} of {} parameters flagged (R-hat > {RHAT_MAX} or ESS < {:.0})",
                g.chains,
                g.draws,
                g.warmup,
                g.thin,
                d.max_rhat,
                d.min_ess,
                d.flagged,
                d.checked,
                ESS_PER_CHAIN_MIN * g.chains as f64
            )),
            _ => v.push("conjugate Beta posteriors (exact)".into()),
        }
        v
    }
}

pub mod calibration;
pub mod fit;
mod model;
pub use model::model_and_posterior;

#[cfg(test)]
mod tests;
