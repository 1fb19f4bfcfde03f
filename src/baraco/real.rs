//! Ranker-switch safety on real outcomes: BARACO's decisions on pairs of logged orderings,
//! checked against what the candidate ordering's real users did.
//!
//! For every query and every ordered pair (production P, candidate C) of two distinct
//! orderings of it (the same shown result list, see
//! [`crate::clickmodels::orderings`]) with at least `min_sessions` sessions each:
//!
//! 1. Decide from P's sessions only: BARACO (Algorithm 1 posteriors with DBN continuation
//!    `gamma`, Algorithm 2: switch when P(M_C + epsilon >= M_P) >= 1 - delta, M the RR metric
//!    of the satisfying click over the top `depth`), the EM plug-in (DBN EM point estimates,
//!    switch when the estimated M_C - M_P >= -epsilon) and Manual Thresholding (the same point
//!    estimates with C's documents unseen in P's sessions condensed away, switch when the
//!    estimated difference exceeds `mt_margin`), as in the LETOR study ([`super::harness`]).
//! 2. The real outcome: the mean reciprocal rank of the first click (0 without a click) over
//!    C's sessions minus that over P's sessions, with its standard error over sessions. The
//!    candidate is *really worse* when that difference is below -epsilon.
//!
//! An *unsafe switch* switched to a really worse candidate; a *missed safe switch* stayed
//! with P although C was not really worse. The observed difference carries sampling noise
//! (its standard error is reported per pair and its median in the summary); a pair counts as
//! *clearly worse* when the difference is below -epsilon by more than 1.96 standard errors.
//! BARACO's metric (RR of the satisfying click under a DBN) is not the real metric (RR of the
//! first click); both reward attractive, satisfying documents near the top.

use super::decide::{compare, point_metric, Config};
use super::log::{ClickLog as BLog, Ranking};
use super::metrics::{Metric, Unseen};
use super::posterior::compute_posteriors;
use crate::clickmodels::orderings::group_orderings;
use crate::error::{Error, Result};
use crate::logs::{ClickLog, Vocab};
use rayon::prelude::*;
use serde::Serialize;

/// Settings of the real-outcome check.
#[derive(Debug, Clone, PartialEq)]
pub struct RealConfig {
    /// Sessions both orderings of a pair need.
    pub min_sessions: usize,
    /// How much worse the candidate may be.
    pub epsilon: f64,
    /// BARACO switches when P(safe) >= 1 - delta.
    pub delta: f64,
    /// BARACO's joint samples.
    pub samples: usize,
    /// Ranks the BARACO metric looks at.
    pub depth: usize,
    /// DBN continuation of BARACO and of the EM point estimates.
    pub gamma: f64,
    /// EM iterations of the plug-in and MT.
    pub em_iterations: usize,
    /// MT: switch when the estimated difference exceeds this margin.
    pub mt_margin: f64,
    /// Seed of BARACO's sampling.
    pub seed: u64,
}

impl Default for RealConfig {
    fn default() -> Self {
        RealConfig { min_sessions: 50, epsilon: 0.01, delta: 0.05, samples: 1000, depth: 10, gamma: super::DEFAULT_GAMMA, em_iterations: 50, mt_margin: 0.0, seed: 1 }
    }
}

/// One ordered pair of orderings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairDecision {
    /// Query id.
    pub query: String,
    /// Index of the production ordering (first appearance order in the log).
    pub production: usize,
    /// Index of the candidate ordering.
    pub candidate: usize,
    /// Sessions of the production ordering.
    pub production_sessions: usize,
    /// Sessions of the candidate ordering.
    pub candidate_sessions: usize,
    /// Share of the candidate's top `depth` never shown in the production sessions.
    pub unseen_share: f64,
    /// BARACO's P(M_C + epsilon >= M_P | production sessions).
    pub p_safe: f64,
    /// BARACO's expected M_C - M_P.
    pub baraco_diff: f64,
    /// EM plug-in estimate of M_C - M_P (unseen documents at 0.5).
    pub em_diff: f64,
    /// MT estimate of M_C - M_P (unseen documents condensed away).
    pub mt_diff: f64,
    /// BARACO switched.
    pub baraco_switch: bool,
    /// EM plug-in switched.
    pub em_switch: bool,
    /// MT switched.
    pub mt_switch: bool,
    /// Real: mean first-click RR of C's sessions minus P's.
    pub real_diff: f64,
    /// Its standard error over sessions.
    pub real_se: f64,
}

impl PairDecision {
    /// The candidate was really worse by more than epsilon.
    pub fn really_worse(&self, epsilon: f64) -> bool {
        self.real_diff < -epsilon
    }
}

/// Counts of one method.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodSummary {
    /// `baraco`, `em_plugin` or `mt`.
    pub method: &'static str,
    /// Ordered pairs decided.
    pub pairs: usize,
    /// Switches.
    pub switches: usize,
    /// Switches to a really worse candidate.
    pub unsafe_switches: usize,
    /// Switches to a clearly worse candidate (below -epsilon by more than 1.96 SE).
    pub clearly_unsafe_switches: usize,
    /// Stays although the candidate was not really worse.
    pub missed_safe_switches: usize,
    /// Share of pairs decided as the real outcome says (switch iff not really worse).
    pub agreement: f64,
}

/// Everything the check reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RealValidation {
    /// Epsilon used.
    pub epsilon: f64,
    /// Ordered pairs whose candidate was really worse.
    pub really_worse: usize,
    /// Median standard error of the real differences.
    pub median_real_se: f64,
    /// Per pair.
    pub decisions: Vec<PairDecision>,
    /// Per method.
    pub summary: Vec<MethodSummary>,
}

/// Mean first-click RR and its variance over the sessions of one ordering.
fn first_click_rr(log: &ClickLog, sessions: &[usize]) -> (f64, f64) {
    let v: Vec<f64> = sessions
        .iter()
        .map(|&i| log.session(i).clicks.iter().position(|&c| c).map_or(0.0, |r| 1.0 / (r + 1) as f64))
        .collect();
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 { v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (m, var)
}

/// Runs the check on `log` (with its vocabulary, for query names). See the module docs.
pub fn validate_real(log: &ClickLog, vocab: &Vocab, cfg: &RealConfig) -> Result<RealValidation> {
    if cfg.min_sessions == 0 {
        return Err(Error::config("baraco validate", "min_sessions", "must be at least 1"));
    }
    if !(cfg.gamma >= 0.0 && cfg.gamma <= 1.0) {
        return Err(Error::config("baraco validate", "gamma", "must be in [0, 1]"));
    }
    let bcfg = Config { epsilon: cfg.epsilon, delta: cfg.delta, samples: cfg.samples, depth: cfg.depth, metric: Metric::RrMetric, seed: cfg.seed, ..Config::default() };
    bcfg.validate()?;
    crate::limits::check_usize("baraco validate", "em_iterations", cfg.em_iterations, crate::limits::MAX_ITERATIONS, "EM passes")?;
    let ords = group_orderings(log);
    let big: Vec<usize> = (0..ords.len()).filter(|&i| ords[i].sessions.len() >= cfg.min_sessions).collect();
    let mut pairs = Vec::new();
    for &p in &big {
        for &c in &big {
            if p != c && ords[p].query == ords[c].query {
                pairs.push((p, c));
            }
        }
    }
    if pairs.is_empty() {
        return Err(Error::Invalid(format!("no query has two orderings with at least {} sessions each", cfg.min_sessions)));
    }
    let decisions: Vec<PairDecision> = pairs
        .par_iter()
        .map(|&(p, c)| -> Result<PairDecision> {
            // The production ordering's sessions as a BARACO log over pair ids.
            let mut b = BLog::new();
            let q = b.query_id("q");
            let prod: Vec<u32> = ords[p].pairs.iter().map(|&x| b.pair_id(q, &x.to_string())).collect();
            for &i in &ords[p].sessions {
                b.push_session(q, &prod, log.session(i).clicks).map_err(|e| Error::Invalid(format!("ordering {p}: {e}")))?;
            }
            let cand: Vec<u32> = ords[c].pairs.iter().map(|&x| b.pair_id(q, &x.to_string())).collect();
            let production = Ranking { name: "production".into(), lists: vec![prod] };
            let candidate = Ranking { name: "candidate".into(), lists: vec![cand] };
            let post = compute_posteriors(&b, cfg.gamma)?;
            let pair_seed = crate::rng::derive_key(cfg.seed, &[p as u64, c as u64]);
            let answer = compare(&b, &post, &production, std::slice::from_ref(&candidate), &Config { seed: pair_seed, ..bcfg })?.remove(0);
            let (ea, es) = super::harness::dbn_em(&b, cfg.gamma, cfg.em_iterations)?;
            let pm = |r: &Ranking, u: Unseen| point_metric(&b, r, &ea, &es, Metric::RrMetric, cfg.depth, u);
            let em_diff = pm(&candidate, Unseen::Prior) - pm(&production, Unseen::Prior);
            let mt_diff = pm(&candidate, Unseen::Condense) - pm(&production, Unseen::Condense);
            let (mp, vp) = first_click_rr(log, &ords[p].sessions);
            let (mc, vc) = first_click_rr(log, &ords[c].sessions);
            let (np, nc) = (ords[p].sessions.len(), ords[c].sessions.len());
            Ok(PairDecision {
                query: vocab.queries.get(ords[p].query as usize).cloned().unwrap_or_else(|| ords[p].query.to_string()),
                production: p,
                candidate: c,
                production_sessions: np,
                candidate_sessions: nc,
                unseen_share: answer.unseen_share,
                p_safe: answer.p_safe,
                baraco_diff: answer.expected_diff,
                em_diff,
                mt_diff,
                baraco_switch: answer.switch,
                em_switch: em_diff >= -cfg.epsilon,
                mt_switch: mt_diff > cfg.mt_margin,
                real_diff: mc - mp,
                real_se: (vp / np as f64 + vc / nc as f64).sqrt(),
            })
        })
        .collect::<Result<_>>()?;
    let eps = cfg.epsilon;
    let summary = [("baraco", 0), ("em_plugin", 1), ("mt", 2)]
        .into_iter()
        .map(|(method, k)| {
            let sw = |d: &PairDecision| [d.baraco_switch, d.em_switch, d.mt_switch][k];
            let worse = |d: &PairDecision| d.really_worse(eps);
            let n = decisions.len();
            MethodSummary {
                method,
                pairs: n,
                switches: decisions.iter().filter(|d| sw(d)).count(),
                unsafe_switches: decisions.iter().filter(|d| sw(d) && worse(d)).count(),
                clearly_unsafe_switches: decisions.iter().filter(|d| sw(d) && d.real_diff + eps < -1.96 * d.real_se).count(),
                missed_safe_switches: decisions.iter().filter(|d| !sw(d) && !worse(d)).count(),
                agreement: decisions.iter().filter(|d| sw(d) != worse(d)).count() as f64 / n as f64,
            }
        })
        .collect();
    let mut se: Vec<f64> = decisions.iter().map(|d| d.real_se).collect();
    se.sort_by(f64::total_cmp);
    Ok(RealValidation {
        epsilon: eps,
        really_worse: decisions.iter().filter(|d| d.really_worse(eps)).count(),
        median_real_se: se[se.len() / 2],
        decisions,
        summary,
    })
}

impl RealValidation {
    /// `decisions.csv`: one row per ordered pair.
    pub fn write_decisions(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(w, "query,production,candidate,production_sessions,candidate_sessions,unseen_share,p_safe,baraco_diff,em_diff,mt_diff,baraco_switch,em_switch,mt_switch,real_first_click_rr_diff,real_se_over_sessions")?;
        for d in &self.decisions {
            writeln!(
                w,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                d.query,
                d.production,
                d.candidate,
                d.production_sessions,
                d.candidate_sessions,
                crate::write::fmt_f64(d.unseen_share),
                crate::write::fmt_f64(d.p_safe),
                crate::write::fmt_f64(d.baraco_diff),
                crate::write::fmt_f64(d.em_diff),
                crate::write::fmt_f64(d.mt_diff),
                d.baraco_switch,
                d.em_switch,
                d.mt_switch,
                crate::write::fmt_f64(d.real_diff),
                crate::write::fmt_f64(d.real_se)
            )?;
        }
        Ok(())
    }

    /// `summary.csv`: one row per method.
    pub fn write_summary(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(w, "method,ordered_pairs,switches,unsafe_switches,clearly_unsafe_switches,missed_safe_switches,agreement_over_pairs")?;
        for s in &self.summary {
            writeln!(w, "{},{},{},{},{},{},{}", s.method, s.pairs, s.switches, s.unsafe_switches, s.clearly_unsafe_switches, s.missed_safe_switches, crate::write::fmt_f64(s.agreement))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::{Format, LogData};

    #[test]
    fn decisions_against_hand_made_outcomes() {
        // Query q: ordering A [good, bad] and B [bad, good], 60 sessions each. `good` is
        // clicked in every session (and nothing else): A's first-click RR is 1, B's is 1/2.
        // From A's sessions, good is attractive and satisfying, bad never clicked, so every
        // method must keep A (B is really worse: -1/2) and switch from B to A (+1/2).
        let mut text = String::new();
        for _ in 0..60 {
            text.push_str("q\tgood,bad : good\n");
        }
        for _ in 0..60 {
            text.push_str("q\tbad,good : good\n");
        }
        let data = LogData::parse(&text, Format::Yandex, "hand", false).unwrap();
        let v = validate_real(&data.log, &data.vocab, &RealConfig { samples: 200, ..Default::default() }).unwrap();
        assert_eq!(v.decisions.len(), 2);
        let (a_to_b, b_to_a) = (&v.decisions[0], &v.decisions[1]);
        assert_eq!((a_to_b.production, a_to_b.candidate), (0, 1));
        assert_eq!(a_to_b.real_diff, -0.5);
        assert_eq!(b_to_a.real_diff, 0.5);
        // Every session of an ordering has the same RR: no sampling spread.
        assert_eq!(a_to_b.real_se, 0.0);
        assert!(!a_to_b.baraco_switch && !a_to_b.em_switch && !a_to_b.mt_switch, "{a_to_b:?}");
        assert!(b_to_a.baraco_switch && b_to_a.em_switch && b_to_a.mt_switch, "{b_to_a:?}");
        assert_eq!(v.really_worse, 1);
        for s in &v.summary {
            assert_eq!((s.pairs, s.switches, s.unsafe_switches, s.missed_safe_switches, s.agreement), (2, 1, 0, 0, 1.0), "{s:?}");
        }
        // Too few sessions: a clear error.
        let e = validate_real(&data.log, &data.vocab, &RealConfig { min_sessions: 61, ..Default::default() }).unwrap_err().to_string();
        assert!(e.contains("at least 61 sessions"), "{e}");
    }
}
