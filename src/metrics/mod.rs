//! Effectiveness metrics over ranked lists of grades.
//!
//! - [`trec_eval`]: every measure of trec_eval 10's `all_trec` set, computed as trec_eval does;
//! - [`qrels`], [`runs`]: judgements and runs read as trec_eval reads them (streamed, any
//!   compression, `-` for stdin);
//! - [`names`]: measure names (trec_eval's, ir_measures', serpsim's) into a [`MeasurePlan`];
//!   [`measures`]: the parser of ir_measures' and serpsim's measures over [`REGISTRY`], one
//!   declaration each in a file `measure_<name>.rs` (types: [`measure_def`]);
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
pub(crate) mod cube;
pub mod eval;
pub mod intern;
pub mod lines;
pub(crate) mod measure_def;
pub mod measures;
pub mod names;
pub mod novelty;
pub mod output;
pub(crate) mod pres;
pub mod qrels;
pub mod runs;
pub mod trec;
pub mod trec_eval;
pub(crate) mod user_models;

pub use eval::{evaluate, EvalOptions, Evaluation};
pub use names::{parse_metric, MeasurePlan, Metric, MetricSpec};
pub use qrels::Judgements;
pub use runs::{RankedRun, RunOptions};

/// Declares the measure files and the registry in one list: each name is a file
/// `src/metrics/<name>.rs` with a `pub(super) static MEASURES: &[MeasureDef]`. The files sit
/// in this folder, beside the modules they use (no `measures/` child folder: the folders of
/// `metrics` would import each other, which `tests/layers.rs` refuses).
macro_rules! registry {
    ($($m:ident),* $(,)?) => {
        $(mod $m;)*
        /// Every registered measure, file by file, in suggestion order (a tie goes to the
        /// earlier name); read through [`measures`].
        pub static REGISTRY: &[&[measure_def::MeasureDef]] = &[$($m::MEASURES),*];
    };
}

// A new measure: its file, and its name on one line here.
registry! {
    measure_ir_aliases,
    measure_ndcg,
    measure_rbp,
    measure_err,
    measure_rbp_tail,
    measure_ins,
    measure_rrt,
    measure_errt,
    measure_tbg,
    measure_pres,
    measure_ct,
    measure_novelty_utility,
    measure_click,
    measure_judged,
}

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
