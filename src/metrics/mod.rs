//! Effectiveness metrics over ranked lists of grades.
//!
//! - [`trec_eval`]: every measure of trec_eval 10's `all_trec` set, computed as trec_eval does;
//! - [`qrels`], [`runs`]: judgements and runs read as trec_eval reads them (streamed, any
//!   compression, `-` for stdin);
//! - [`names`]: measure names (trec_eval's, ir_measures', serpsim's) into a [`MeasurePlan`];
//!   [`measures`]: the registry of ir_measures' and serpsim's measures, one declaration each;
//! - [`eval`]: per-topic evaluation and trec_eval's summaries; [`output`]: trec_eval's text,
//!   CSV and JSON; [`ci`]: bootstrap intervals and paired tests over topics;
//! - [`trec`]: P@k, R@k, AP, RR, R-prec, nDCG on plain grade lists (used by other modules);
//! - [`user_models`]: ERR, RBP, INSQ / INSQ' / INST with expected depth, RRT, ERRT, TBG;
//! - [`pres`]: PRES and PRES_est; [`cube`]: the Cube Test; [`novelty`]: Fujii and Ishikawa's utility;
//! - [`agreement`]: the exhaustive metric-disagreement study of Jones et al.
//!
//! The click-model metrics (rrMetric, EBU, ERR from click-model parameters) live in
//! `clickmodels::metrics`.

pub mod agreement;
pub mod ci;
pub mod cube;
pub mod eval;
pub mod intern;
pub mod lines;
pub mod measures;
pub mod names;
pub mod novelty;
pub mod output;
pub mod pres;
pub mod qrels;
pub mod runs;
pub mod trec;
pub mod trec_eval;
pub mod user_models;

pub use eval::{evaluate, EvalOptions, Evaluation};
pub use names::{parse_metric, MeasurePlan, Metric, MetricSpec};
pub use qrels::Judgements;
pub use runs::{RankedRun, RunOptions};

/// Rank-biased precision with persistence `p` over relevance degrees in [0, 1], and its
/// residual: the most the score could grow if every unjudged or unretrieved position below
/// the list were fully relevant.
pub fn rbp(relevance: &[f64], p: f64) -> (f64, f64) {
    let mut weight = 1.0 - p;
    let mut score = 0.0;
    for &r in relevance {
        score += weight * r;
        weight *= p;
    }
    (score, p.powi(relevance.len() as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rbp_closed_form() {
        let (s, res) = rbp(&[1.0, 0.0, 1.0], 0.5);
        assert!((s - (0.5 + 0.125)).abs() < 1e-12 && (res - 0.125).abs() < 1e-12);
    }
}
