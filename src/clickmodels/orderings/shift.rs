//! Robustness under a ranking change: a click model's log-likelihood and perplexity on
//! held-out sessions of orderings it was trained on ("seen", before the shift) against
//! sessions of orderings it never saw ("unseen", after the shift), in the published format
//! of Deffayet, Renders & de Rijke, "Evaluating the Robustness of Click Models to Policy
//! Distributional Shift" (ACM TOIS 2023).
//!
//! Orderings and folds are those of [`validate_orderings`](super::validate_orderings): every
//! query with at least two orderings has them dealt into `folds` folds ([`assign_folds`]);
//! single-ordering queries always train and are never scored. Of every ordering of a
//! multi-ordering query, the `⌊n / 5⌋` of its `n` sessions with the smallest key
//! `rng::derive_key(seed, [5, session index])` are the *seen test share* (orderings with fewer
//! than five sessions have none); they never train. Fold `f`'s model is fitted on every other
//! session whose ordering is not in fold `f` and scores
//!
//! - *unseen*: every session of fold `f`'s orderings, and
//! - *seen*: the seen test share of every ordering not in fold `f`,
//!
//! so a seen session is scored by each of the `folds - 1` models that trained on its
//! ordering's other sessions and an unseen one by the one model that never saw its ordering.
//! Only queries with at least one seen test session are compared (the same queries on both
//! sides, so the difference is paired).
//!
//! Log-likelihood and perplexity are [`evaluate`](crate::clickmodels::eval::evaluate)'s (PyClick's)
//! on the pooled scored sessions of each side: log-likelihood, the mean over scored sessions
//! of the mean over ranks of ln P(c_r | clicks above); perplexity at rank r,
//! `2^(-(1/|S_r|) sum log2 P(c_r))` from full click probabilities, averaged over ranks
//! 1..min(10, longest list). Both are ratios of per-query sums, so their 95 % intervals are
//! percentile bootstraps over *queries*: each resample draws the compared queries with
//! replacement (stream `(seed, 4, b)`), adds up the drawn queries' sums (a query drawn twice
//! counts twice) and recomputes the ratios; the differences unseen − seen are paired over the
//! same resamples. Deterministic whatever the thread count. Every model is fitted as `clicks fit`
//! fits it; `dctr` is PyClick's smoothed DCTR here, not the held-out baseline
//! [`DocumentOrRank`](super::DocumentOrRank) of `validate_orderings`, whose plain click rates of
//! 0 or 1 would give a log-likelihood of minus infinity.

use super::{assign_folds, group_orderings, OrderingsConfig};
use crate::clickmodels::eval::{session_log_likelihood, RANK_MAX};
use crate::clickmodels::{ClickModel, ExactSum, ModelConfig, PROB_MIN};
use crate::error::{Error, Result};
use crate::logs::{ClickLog, SessionRef};
use crate::stats::distance::percentile_interval;
use rand::Rng;
use rayon::prelude::*;
use serde::Serialize;

/// One in `SEEN_SHARE_DIVISOR` sessions of each ordering (rounded down) is a seen test
/// session, withheld from training.
pub const SEEN_SHARE_DIVISOR: usize = 5;

/// [`evaluate`](crate::clickmodels::eval::evaluate)'s sums over some scored sessions: adding
/// two gives the sums of their union, and the ratios are the scores of that union.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Sums {
    /// Sum over sessions of the mean over ranks of ln P(c_r | clicks above) (exact, so the
    /// order of addition does not matter).
    ll: ExactSum,
    /// Scored sessions (empty ones included, as `evaluate` counts them).
    sessions: usize,
    /// Longest list.
    max_len: usize,
    /// Per rank: sum of log2 P(c_r observed) from full click probabilities.
    log2: [f64; RANK_MAX],
    /// Per rank: sessions that reach it.
    count: [usize; RANK_MAX],
}

impl Sums {
    /// Adds one session scored by `model`, as `evaluate` does.
    pub(crate) fn add(&mut self, model: &dyn ClickModel, s: SessionRef<'_>, probs: &mut Vec<f64>) {
        self.sessions += 1;
        self.max_len = self.max_len.max(s.pairs.len());
        if s.pairs.is_empty() {
            return;
        }
        self.ll.add(session_log_likelihood(model, s, probs));
        model.click_probs(s.pairs, probs);
        for (r, (&p, &c)) in probs.iter().zip(s.clicks).enumerate().take(RANK_MAX) {
            let q = if c { p } else { 1.0 - p };
            self.log2[r] += q.max(PROB_MIN).log2();
            self.count[r] += 1;
        }
    }

    /// Adds the sums of other sessions.
    pub(crate) fn merge(&mut self, o: &Sums) {
        self.ll.merge(o.ll);
        self.sessions += o.sessions;
        self.max_len = self.max_len.max(o.max_len);
        for r in 0..RANK_MAX {
            self.log2[r] += o.log2[r];
            self.count[r] += o.count[r];
        }
    }

    /// Mean over sessions of the per-session log-likelihood (NaN without sessions).
    pub(crate) fn log_likelihood(&self) -> f64 {
        if self.sessions == 0 {
            return f64::NAN;
        }
        self.ll.value() / self.sessions as f64
    }

    /// Mean over ranks 1..min(10, longest list) of the perplexity at each rank (NaN without
    /// sessions).
    pub(crate) fn perplexity(&self) -> f64 {
        let ranks = self.max_len.min(RANK_MAX);
        if self.sessions == 0 || ranks == 0 {
            return f64::NAN;
        }
        (0..ranks).map(|r| 2f64.powf(-self.log2[r] / self.count[r].max(1) as f64)).sum::<f64>() / ranks as f64
    }
}

/// The four statistics of one model on a set of queries, from its per-query sums.
/// `seen[q]`, `unseen[q]`: query `q`'s sums; `draws`: the queries, with repetition.
pub(crate) fn statistics(seen: &[Sums], unseen: &[Sums], draws: &mut dyn Iterator<Item = usize>) -> [f64; 4] {
    let (mut s, mut u) = (Sums::default(), Sums::default());
    for q in draws {
        s.merge(&seen[q]);
        u.merge(&unseen[q]);
    }
    [s.log_likelihood(), u.log_likelihood(), s.perplexity(), u.perplexity()]
}

/// Bootstrap replicates over queries: `out[b][m]` is [`statistics`] of model `m` on the
/// queries drawn by resample `b` (stream `(seed, 4, b)`, one uniform draw per query).
pub(crate) fn bootstrap_over_queries(per_model: &[(Vec<Sums>, Vec<Sums>)], queries: usize, resamples: usize, seed: u64) -> Vec<Vec<[f64; 4]>> {
    (0..resamples)
        .into_par_iter()
        .map(|b| {
            let mut rng = crate::rng::stream(seed, &[4, b as u64]);
            let idx: Vec<usize> = (0..queries).map(|_| rng.random_range(0..queries)).collect();
            per_model.iter().map(|(s, u)| statistics(s, u, &mut idx.iter().copied())).collect()
        })
        .collect()
}

/// One model's scores before and after the shift, each with its interval over queries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShiftRow {
    /// Model name.
    pub model: String,
    /// Log-likelihood per session on seen orderings' held-out sessions.
    pub ll_seen: f64,
    /// Lower end of its percentile bootstrap interval over queries.
    pub ll_seen_lower_over_queries: f64,
    /// Upper end.
    pub ll_seen_upper_over_queries: f64,
    /// Log-likelihood per session on orderings never seen in training.
    pub ll_unseen: f64,
    /// Lower end of its interval over queries.
    pub ll_unseen_lower_over_queries: f64,
    /// Upper end.
    pub ll_unseen_upper_over_queries: f64,
    /// `ll_unseen - ll_seen`.
    pub ll_unseen_minus_seen: f64,
    /// Lower end of its paired interval over queries.
    pub ll_unseen_minus_seen_lower_over_queries: f64,
    /// Upper end.
    pub ll_unseen_minus_seen_upper_over_queries: f64,
    /// Perplexity on seen orderings' held-out sessions.
    pub perplexity_seen: f64,
    /// Lower end of its interval over queries.
    pub perplexity_seen_lower_over_queries: f64,
    /// Upper end.
    pub perplexity_seen_upper_over_queries: f64,
    /// Perplexity on orderings never seen in training.
    pub perplexity_unseen: f64,
    /// Lower end of its interval over queries.
    pub perplexity_unseen_lower_over_queries: f64,
    /// Upper end.
    pub perplexity_unseen_upper_over_queries: f64,
    /// `perplexity_unseen - perplexity_seen`.
    pub perplexity_unseen_minus_seen: f64,
    /// Lower end of its paired interval over queries.
    pub perplexity_unseen_minus_seen_lower_over_queries: f64,
    /// Upper end.
    pub perplexity_unseen_minus_seen_upper_over_queries: f64,
}

/// Everything the shift comparison reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShiftValidation {
    /// Folds.
    pub folds: usize,
    /// Queries compared (a held-out ordering and at least one seen test session).
    pub queries: usize,
    /// Seen test sessions (each scored by `folds - 1` models).
    pub seen_sessions: usize,
    /// Sessions of orderings never seen in training (each scored once).
    pub unseen_sessions: usize,
    /// Bootstrap resamples over queries.
    pub bootstrap: usize,
    /// Interval level.
    pub level: f64,
    /// One row per model, in the order of the configuration.
    pub rows: Vec<ShiftRow>,
    /// The answer in sentences.
    pub answer: Vec<String>,
}

/// Runs the comparison (see the module docs) with `cfg`'s models, folds, seed, EM settings,
/// bootstrap resamples and level.
///
/// ```
/// use serpsim::clickmodels::orderings::{shift::shift_robustness, OrderingsConfig};
/// use serpsim::clickmodels::ModelKind;
/// use serpsim::logs::ClickLog;
/// let mut log = ClickLog::new();
/// for i in 0..20 {
///     log.push(0, &[0, 1], &[i % 3 == 0, i % 4 == 0]);
///     log.push(0, &[1, 0], &[i % 4 == 0, false]);
/// }
/// let cfg = OrderingsConfig { models: vec![ModelKind::Dctr], folds: 2, bootstrap: 50, ..Default::default() };
/// let v = shift_robustness(&log, &cfg).unwrap();
/// assert_eq!((v.queries, v.seen_sessions, v.unseen_sessions), (1, 8, 40));
/// ```
pub fn shift_robustness(log: &ClickLog, cfg: &OrderingsConfig) -> Result<ShiftValidation> {
    cfg.validate()?;
    let mut ords = group_orderings(log);
    assign_folds(&mut ords, cfg.folds, cfg.seed);
    if ords.iter().all(|o| o.fold.is_none()) {
        return Err(Error::Invalid("no query of the log was shown in two or more distinct orderings: nothing to hold out".into()));
    }
    // Per session: the fold of its ordering and whether it is a seen test session.
    let mut fold = vec![None; log.len()];
    let mut seen = vec![false; log.len()];
    for o in &ords {
        for &i in &o.sessions {
            fold[i] = o.fold;
        }
        if o.fold.is_some() {
            let mut by_key: Vec<(u64, usize)> = o.sessions.iter().map(|&i| (crate::rng::derive_key(cfg.seed, &[5, i as u64]), i)).collect();
            by_key.sort_unstable();
            for &(_, i) in by_key.iter().take(o.sessions.len() / SEEN_SHARE_DIVISOR) {
                seen[i] = true;
            }
        }
    }
    // Compared queries, in order of first appearance, and each session's position among them.
    let mut qpos: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    for i in (0..log.len()).filter(|&i| seen[i]) {
        let n = qpos.len();
        qpos.entry(log.queries[i]).or_insert(n);
    }
    let nq = qpos.len();
    let compared: Vec<Option<usize>> = (0..log.len()).map(|i| if fold[i].is_some() { qpos.get(&log.queries[i]).copied() } else { None }).collect();
    let seen_sessions = seen.iter().filter(|&&s| s).count();
    let unseen_sessions = compared.iter().filter(|q| q.is_some()).count();
    let nm = cfg.models.len();
    let mut per_model: Vec<(Vec<Sums>, Vec<Sums>)> = vec![(vec![Sums::default(); nq], vec![Sums::default(); nq]); nm];
    if nq > 0 {
        let jobs: Vec<(usize, usize)> = (0..cfg.folds).flat_map(|f| (0..nm).map(move |m| (f, m))).collect();
        let scored: Vec<Option<(Vec<Sums>, Vec<Sums>)>> = jobs
            .par_iter()
            .map(|&(f, m)| -> Result<Option<(Vec<Sums>, Vec<Sums>)>> {
                let unseen_idx: Vec<usize> = (0..log.len()).filter(|&i| fold[i] == Some(f) && compared[i].is_some()).collect();
                let seen_idx: Vec<usize> = (0..log.len()).filter(|&i| seen[i] && fold[i] != Some(f)).collect();
                if unseen_idx.is_empty() && seen_idx.is_empty() {
                    return Ok(None);
                }
                let train = log.subset((0..log.len()).filter(|&i| fold[i] != Some(f) && !seen[i]));
                if train.is_empty() {
                    return Err(Error::Invalid(format!("fold {f} has no training sessions left after holding out its orderings and the seen test share")));
                }
                let model = ModelConfig::new(cfg.models[m], cfg.em).fit(&mut &train)?;
                let (mut s, mut u) = (vec![Sums::default(); nq], vec![Sums::default(); nq]);
                let mut probs = Vec::new();
                for i in seen_idx {
                    s[compared[i].expect("a seen session's query is compared")].add(model.as_ref(), log.session(i), &mut probs);
                }
                for i in unseen_idx {
                    u[compared[i].expect("filtered")].add(model.as_ref(), log.session(i), &mut probs);
                }
                Ok(Some((s, u)))
            })
            .collect::<Result<_>>()?;
        // Folds merged in fold order: the f64 sums do not depend on the thread count.
        for (&(_, m), v) in jobs.iter().zip(&scored) {
            if let Some((s, u)) = v {
                for q in 0..nq {
                    per_model[m].0[q].merge(&s[q]);
                    per_model[m].1[q].merge(&u[q]);
                }
            }
        }
    }
    let boots = if nq > 0 { bootstrap_over_queries(&per_model, nq, cfg.bootstrap, cfg.seed) } else { Vec::new() };
    let interval = |f: &dyn Fn(&[f64; 4]) -> f64, m: usize| -> (f64, f64) {
        let v: Vec<f64> = boots.iter().map(|b| f(&b[m])).collect();
        percentile_interval(&v, cfg.level)
    };
    let mut rows = Vec::new();
    if nq > 0 {
        for (m, kind) in cfg.models.iter().enumerate() {
            let p = statistics(&per_model[m].0, &per_model[m].1, &mut (0..nq));
            let i = |k: usize| interval(&|b| b[k], m);
            let (ls, lu, ps, pu) = (i(0), i(1), i(2), i(3));
            let dl = interval(&|b| b[1] - b[0], m);
            let dp = interval(&|b| b[3] - b[2], m);
            rows.push(ShiftRow {
                model: kind.name().to_string(),
                ll_seen: p[0],
                ll_seen_lower_over_queries: ls.0,
                ll_seen_upper_over_queries: ls.1,
                ll_unseen: p[1],
                ll_unseen_lower_over_queries: lu.0,
                ll_unseen_upper_over_queries: lu.1,
                ll_unseen_minus_seen: p[1] - p[0],
                ll_unseen_minus_seen_lower_over_queries: dl.0,
                ll_unseen_minus_seen_upper_over_queries: dl.1,
                perplexity_seen: p[2],
                perplexity_seen_lower_over_queries: ps.0,
                perplexity_seen_upper_over_queries: ps.1,
                perplexity_unseen: p[3],
                perplexity_unseen_lower_over_queries: pu.0,
                perplexity_unseen_upper_over_queries: pu.1,
                perplexity_unseen_minus_seen: p[3] - p[2],
                perplexity_unseen_minus_seen_lower_over_queries: dp.0,
                perplexity_unseen_minus_seen_upper_over_queries: dp.1,
            });
        }
    }
    let mut v =
        ShiftValidation { folds: cfg.folds, queries: nq, seen_sessions, unseen_sessions, bootstrap: cfg.bootstrap, level: cfg.level, rows, answer: Vec::new() };
    v.answer = v.sentences();
    Ok(v)
}

impl ShiftValidation {
    fn sentences(&self) -> Vec<String> {
        if self.queries == 0 {
            return vec![format!(
                "Robustness under a ranking change: no query has a seen test session (one in {SEEN_SHARE_DIVISOR} sessions of an ordering with at least {SEEN_SHARE_DIVISOR}), so seen and unseen orderings are not compared."
            )];
        }
        let pct = (self.level * 100.0).round();
        let mut out = vec![format!(
            "Robustness under a ranking change: {} queries, {} held-out sessions of orderings seen in training (each scored by the {} folds' models that trained on their ordering) against {} sessions of orderings never seen in training; {pct} % intervals over queries.",
            self.queries,
            self.seen_sessions,
            self.folds - 1,
            self.unseen_sessions
        )];
        if let Some(best) = self.rows.iter().filter(|r| r.ll_unseen.is_finite()).max_by(|a, b| a.ll_unseen.total_cmp(&b.ll_unseen)) {
            let verb = |d: f64, up: &'static str, down: &'static str| if d < 0.0 { down } else { up };
            out.push(format!(
                "On orderings never seen in training, {}'s log-likelihood per session {} from {:.4} [{:.4}, {:.4}] to {:.4} [{:.4}, {:.4}] (difference {:+.4} [{:+.4}, {:+.4}]) and its perplexity {} from {:.4} [{:.4}, {:.4}] to {:.4} [{:.4}, {:.4}] (difference {:+.4} [{:+.4}, {:+.4}]) (the highest point log-likelihood on unseen orderings; models are not compared pairwise here, so none is called best).",
                best.model,
                verb(best.ll_unseen_minus_seen, "rises", "falls"),
                best.ll_seen,
                best.ll_seen_lower_over_queries,
                best.ll_seen_upper_over_queries,
                best.ll_unseen,
                best.ll_unseen_lower_over_queries,
                best.ll_unseen_upper_over_queries,
                best.ll_unseen_minus_seen,
                best.ll_unseen_minus_seen_lower_over_queries,
                best.ll_unseen_minus_seen_upper_over_queries,
                verb(best.perplexity_unseen_minus_seen, "rises", "falls"),
                best.perplexity_seen,
                best.perplexity_seen_lower_over_queries,
                best.perplexity_seen_upper_over_queries,
                best.perplexity_unseen,
                best.perplexity_unseen_lower_over_queries,
                best.perplexity_unseen_upper_over_queries,
                best.perplexity_unseen_minus_seen,
                best.perplexity_unseen_minus_seen_lower_over_queries,
                best.perplexity_unseen_minus_seen_upper_over_queries,
            ));
        }
        let names = |f: &dyn Fn(&ShiftRow) -> bool| -> String {
            let v: Vec<&str> = self.rows.iter().filter(|r| f(r)).map(|r| r.model.as_str()).collect();
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(", ")
            }
        };
        out.push(format!(
            "Log-likelihood lower on unseen orderings (interval of unseen - seen below 0): {}; higher (above 0): {}; perplexity higher on unseen orderings: {}.",
            names(&|r| r.ll_unseen_minus_seen_upper_over_queries < 0.0),
            names(&|r| r.ll_unseen_minus_seen_lower_over_queries > 0.0),
            names(&|r| r.perplexity_unseen_minus_seen_lower_over_queries > 0.0),
        ));
        out
    }

    /// The answer in sentences.
    pub fn answer(&self) -> &[String] {
        &self.answer
    }

    /// `shift.csv`: one row per model; every interval is a percentile bootstrap over queries.
    pub fn write_csv(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            w,
            "model,ll_seen,ll_seen_lower_over_queries,ll_seen_upper_over_queries,ll_unseen,ll_unseen_lower_over_queries,ll_unseen_upper_over_queries,ll_unseen_minus_seen,ll_unseen_minus_seen_lower_over_queries,ll_unseen_minus_seen_upper_over_queries,perplexity_seen,perplexity_seen_lower_over_queries,perplexity_seen_upper_over_queries,perplexity_unseen,perplexity_unseen_lower_over_queries,perplexity_unseen_upper_over_queries,perplexity_unseen_minus_seen,perplexity_unseen_minus_seen_lower_over_queries,perplexity_unseen_minus_seen_upper_over_queries"
        )?;
        let num = crate::write::fmt_f64;
        for r in &self.rows {
            let x = [
                r.ll_seen,
                r.ll_seen_lower_over_queries,
                r.ll_seen_upper_over_queries,
                r.ll_unseen,
                r.ll_unseen_lower_over_queries,
                r.ll_unseen_upper_over_queries,
                r.ll_unseen_minus_seen,
                r.ll_unseen_minus_seen_lower_over_queries,
                r.ll_unseen_minus_seen_upper_over_queries,
                r.perplexity_seen,
                r.perplexity_seen_lower_over_queries,
                r.perplexity_seen_upper_over_queries,
                r.perplexity_unseen,
                r.perplexity_unseen_lower_over_queries,
                r.perplexity_unseen_upper_over_queries,
                r.perplexity_unseen_minus_seen,
                r.perplexity_unseen_minus_seen_lower_over_queries,
                r.perplexity_unseen_minus_seen_upper_over_queries,
            ];
            let cells: Vec<String> = x.iter().map(|&v| num(v)).collect();
            writeln!(w, "{},{}", r.model, cells.join(","))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
