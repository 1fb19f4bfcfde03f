//! Evaluation of click models on test sessions, with PyClick's definitions
//! (Dupret & Piwowarski 2008):
//!
//! - log-likelihood: mean over sessions of the mean over ranks of ln P(c_r | clicks above r);
//! - perplexity at rank r: 2^(-(1/|S|) sum_s log2 P(c_r observed)) from full click
//!   probabilities; overall perplexity: the mean over ranks 1..10;
//! - conditional perplexity: the same with conditional probabilities;
//! - CTR prediction error: RMSE between predicted and observed click-through rate at rank 1
//!   per (query, document at rank 1), weighted by sessions.
//!
//! Probabilities of observed events are floored at [`PROB_MIN`].

use super::{ClickModel, ExactSum, PROB_MIN};
use crate::error::{Error, Result};
use crate::logs::ClickLog;
use crate::logs::SessionRef;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Ranks averaged into the overall perplexity.
pub const RANK_MAX: usize = 10;

/// A train/test split.
#[derive(Debug, Clone)]
pub struct Split {
    /// Training sessions.
    pub train: ClickLog,
    /// Test sessions whose query occurs in training.
    pub test: ClickLog,
}

/// Test sessions whose query occurs in `train`, in order.
pub fn restrict_to_train_queries(train: &ClickLog, test: &ClickLog) -> ClickLog {
    let seen: HashSet<u32> = train.queries.iter().copied().collect();
    test.subset((0..test.len()).filter(|&i| seen.contains(&test.queries[i])))
}

/// PyClick's protocol: the first floor(75 %) of sessions in file order train, the rest,
/// restricted to queries seen in training, test.
pub fn split_75_25(log: &ClickLog) -> Split {
    let n_train = log.len() * 3 / 4;
    let train = log.subset(0..n_train);
    let rest = log.subset(n_train..log.len());
    let test = restrict_to_train_queries(&train, &rest);
    Split { train, test }
}

/// Scores of a model on test sessions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scores {
    /// Mean over sessions of the mean over ranks of ln P(c_r | clicks above).
    pub log_likelihood: f64,
    /// Mean of `perplexity_at_rank` (ranks 1..10).
    pub perplexity: f64,
    /// Perplexity at ranks 1..min(10, longest SERP).
    pub perplexity_at_rank: Vec<f64>,
    /// Conditional perplexity (mean over ranks 1..10).
    pub conditional_perplexity: f64,
    /// Conditional perplexity at each rank.
    pub conditional_perplexity_at_rank: Vec<f64>,
    /// CTR prediction error at rank 1 (weighted RMSE).
    pub ctr_rmse: f64,
}

/// Mean over ranks of ln P(c_r | clicks above r) of one non-empty session (the observed
/// probabilities, floored at [`PROB_MIN`], are left in `probs`).
pub fn session_log_likelihood(model: &dyn ClickModel, s: SessionRef<'_>, probs: &mut Vec<f64>) -> f64 {
    model.observed_probs(s, probs);
    let mut sum = 0.0;
    for p in probs.iter() {
        sum += p.max(PROB_MIN).ln();
    }
    sum / probs.len() as f64
}

/// Evaluates `model` on `test`.
pub fn evaluate(model: &dyn ClickModel, test: &ClickLog) -> Result<Scores> {
    evaluate_stream(model, &mut |f| {
        test.iter().for_each(|s| f(s));
        Ok(())
    })
}

/// Evaluates `model` on the sessions `replay` hands out, in order, in one pass (a test log
/// streamed from a file or from stored sessions: memory by pairs, not sessions). The same
/// numbers as [`evaluate`] on a log of those sessions.
pub fn evaluate_stream(model: &dyn ClickModel, replay: &mut dyn FnMut(&mut dyn FnMut(SessionRef<'_>)) -> Result<()>) -> Result<Scores> {
    // Exact (order-independent) sum, so a sharded evaluation gives the same bits.
    let mut ll = ExactSum::default();
    // Accumulated at every rank up to RANK_MAX and cut to the longest SERP at the end:
    // ranks beyond it are never touched.
    let (mut full, mut cond, mut count) = (vec![0.0; RANK_MAX], vec![0.0; RANK_MAX], vec![0usize; RANK_MAX]);
    let (mut sessions, mut max_len) = (0usize, 0usize);
    let mut probs = Vec::new();
    let mut ctr: HashMap<u32, (f64, f64, f64)> = HashMap::new();
    replay(&mut |s| {
        sessions += 1;
        max_len = max_len.max(s.pairs.len());
        if s.pairs.is_empty() {
            return;
        }
        ll.add(session_log_likelihood(model, s, &mut probs));
        for (r, &p) in probs.iter().enumerate().take(RANK_MAX) {
            cond[r] += p.max(PROB_MIN).log2();
        }
        model.click_probs(s.pairs, &mut probs);
        for (r, (&p, &c)) in probs.iter().zip(s.clicks).enumerate().take(RANK_MAX) {
            let q = if c { p } else { 1.0 - p };
            full[r] += q.max(PROB_MIN).log2();
            count[r] += 1;
        }
        let e = ctr.entry(s.pairs[0]).or_insert((0.0, 0.0, 0.0));
        e.0 += 1.0;
        e.1 += f64::from(u8::from(s.clicks[0]));
        e.2 += probs[0];
    })?;
    if sessions == 0 {
        return Err(Error::Invalid("no test sessions to evaluate on (are the test queries seen in training?)".into()));
    }
    let ranks = max_len.min(RANK_MAX);
    full.truncate(ranks);
    cond.truncate(ranks);
    count.truncate(ranks);
    let per_rank = |acc: &[f64]| -> Vec<f64> { acc.iter().zip(&count).map(|(&x, &n)| 2f64.powf(-x / n.max(1) as f64)).collect() };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let perplexity_at_rank = per_rank(&full);
    let conditional_perplexity_at_rank = per_rank(&cond);
    let mut groups: Vec<(f64, f64, f64)> = ctr.into_values().collect();
    groups.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let (mut se, mut w) = (0.0, 0.0);
    for (n, clicks, pred) in groups {
        se += n * (pred / n - clicks / n).powi(2);
        w += n;
    }
    Ok(Scores {
        log_likelihood: ll.value() / sessions as f64,
        perplexity: mean(&perplexity_at_rank),
        perplexity_at_rank,
        conditional_perplexity: mean(&conditional_perplexity_at_rank),
        conditional_perplexity_at_rank,
        ctr_rmse: (se / w).sqrt(),
    })
}
