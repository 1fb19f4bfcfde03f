//! Effectiveness metrics over ranked lists of grades.
//!
//! - [`trec_eval`]: every measure of trec_eval 10's `all_trec` set, computed as trec_eval does;
//! - [`qrels`], [`runs`]: judgements and runs read as trec_eval reads them (streamed, any
//!   compression, `-` for stdin);
//! - [`names`]: measure names (trec_eval's, ir_measures', serpsim's) into a [`MeasurePlan`];
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
pub use names::{parse_metric, Metric, MetricSpec, MeasurePlan};
pub use qrels::Judgements;
pub use runs::{RankedRun, RunOptions};
/// Gain of a grade for nDCG: the grade itself if positive, else 0 (trec_eval's convention).
pub fn linear_gain(grade: i32) -> f64 {
    grade.max(0) as f64
}

/// DCG@k with the log2(i + 1) discount (rank i from 1) and linear gains.
pub fn dcg_at(grades: &[i32], k: usize) -> f64 {
    grades.iter().take(k).enumerate().map(|(i, &g)| linear_gain(g) / ((i + 2) as f64).log2()).sum()
}

/// nDCG@k: DCG of `ranked` over DCG of the ideal ordering of `judged` (all judged grades).
/// Returns 0 when the topic has no relevant document.
pub fn ndcg_at(ranked: &[i32], judged: &[i32], k: usize) -> f64 {
    let mut ideal: Vec<i32> = judged.iter().copied().filter(|&g| g > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg = dcg_at(&ideal, k);
    if idcg == 0.0 {
        0.0
    } else {
        dcg_at(ranked, k) / idcg
    }
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
    fn ndcg_of_ideal_is_one_and_rbp_closed_form() {
        assert!((ndcg_at(&[2, 1, 0], &[0, 1, 2], 10) - 1.0).abs() < 1e-12);
        let expect = (1.0 / 2f64.log2() + 2.0 / 4f64.log2()) / (2.0 + 1.0 / 3f64.log2());
        assert!((ndcg_at(&[1, 0, 2], &[2, 1, 0], 10) - expect).abs() < 1e-12);
        let (s, res) = rbp(&[1.0, 0.0, 1.0], 0.5);
        assert!((s - (0.5 + 0.125)).abs() < 1e-12 && (res - 0.125).abs() < 1e-12);
    }
}
