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
        test.iter().for_each(f);
        Ok(())
    })
}

/// Evaluates `model` on the sessions `replay` hands out, in order, in one pass (a test log
/// streamed from a file or from stored sessions: memory by pairs, not sessions). The same
/// numbers as [`evaluate`] on a log of those sessions.
pub fn evaluate_stream(model: &dyn ClickModel, replay: &mut dyn FnMut(&mut dyn FnMut(SessionRef<'_>)) -> Result<()>) -> Result<Scores> {
    let mut sums = EvalSums::default();
    let mut probs = Vec::new();
    replay(&mut |s| sums.add(model, s, 1, u64::from(s.pairs.first().copied().unwrap_or(0)), &mut probs))?;
    sums.scores()
}

/// The sums behind [`Scores`], exact (fixed point, [`ExactSum`]), so that an evaluation split
/// into parts (the shards of a sharded fit, each with its own pair numbers) and merged gives
/// the same bits, whatever the order of the sessions and parts.
#[derive(Debug, Clone, Default)]
pub struct EvalSums {
    ll: ExactSum,
    // Accumulated at every rank up to RANK_MAX and cut to the longest SERP at the end:
    // ranks beyond it are never touched.
    full: [ExactSum; RANK_MAX],
    cond: [ExactSum; RANK_MAX],
    count: [u64; RANK_MAX],
    sessions: u64,
    max_len: usize,
    /// Per rank-1 result (a key the caller makes unique): sessions, clicks, predicted clicks.
    ctr: HashMap<u64, (u64, u64, ExactSum)>,
}

impl EvalSums {
    /// Adds one session counted `weight` times; `first` names its rank-1 result (the CTR
    /// groups; unique across the parts that are merged).
    pub fn add(&mut self, model: &dyn ClickModel, s: SessionRef<'_>, weight: u64, first: u64, probs: &mut Vec<f64>) {
        let w = i128::from(weight);
        self.sessions += weight;
        self.max_len = self.max_len.max(s.pairs.len());
        if s.pairs.is_empty() {
            return;
        }
        self.ll.0 += super::estep::to_fixed(session_log_likelihood(model, s, probs)) * w;
        for (r, &p) in probs.iter().enumerate().take(RANK_MAX) {
            self.cond[r].0 += super::estep::to_fixed(p.max(PROB_MIN).log2()) * w;
        }
        model.click_probs(s.pairs, probs);
        for (r, (&p, &c)) in probs.iter().zip(s.clicks).enumerate().take(RANK_MAX) {
            let q = if c { p } else { 1.0 - p };
            self.full[r].0 += super::estep::to_fixed(q.max(PROB_MIN).log2()) * w;
            self.count[r] += weight;
        }
        let e = self.ctr.entry(first).or_insert((0, 0, ExactSum::default()));
        e.0 += weight;
        e.1 += weight * u64::from(s.clicks[0]);
        e.2 .0 += super::estep::to_fixed(probs[0]) * w;
    }

    /// Adds the sums of other sessions (their CTR keys distinct from these).
    pub fn merge(&mut self, other: EvalSums) {
        self.ll.merge(other.ll);
        for r in 0..RANK_MAX {
            self.full[r].merge(other.full[r]);
            self.cond[r].merge(other.cond[r]);
            self.count[r] += other.count[r];
        }
        self.sessions += other.sessions;
        self.max_len = self.max_len.max(other.max_len);
        for (k, v) in other.ctr {
            let e = self.ctr.entry(k).or_insert((0, 0, ExactSum::default()));
            e.0 += v.0;
            e.1 += v.1;
            e.2.merge(v.2);
        }
    }

    /// Sessions added.
    pub fn sessions(&self) -> u64 {
        self.sessions
    }

    /// The scores.
    pub fn scores(&self) -> Result<Scores> {
        if self.sessions == 0 {
            return Err(Error::Invalid("no test sessions to evaluate on (are the test queries seen in training?)".into()));
        }
        let ranks = self.max_len.min(RANK_MAX);
        let count = &self.count[..ranks];
        let per_rank = |acc: &[ExactSum]| -> Vec<f64> { acc[..ranks].iter().zip(count).map(|(x, &n)| 2f64.powf(-x.value() / n.max(1) as f64)).collect() };
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let perplexity_at_rank = per_rank(&self.full);
        let conditional_perplexity_at_rank = per_rank(&self.cond);
        let mut groups: Vec<(f64, f64, f64)> = self.ctr.values().map(|&(n, c, p)| (n as f64, c as f64, p.value())).collect();
        groups.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        let (mut se, mut w) = (0.0, 0.0);
        for (n, clicks, pred) in groups {
            se += n * (pred / n - clicks / n).powi(2);
            w += n;
        }
        Ok(Scores {
            log_likelihood: self.ll.value() / self.sessions as f64,
            perplexity: mean(&perplexity_at_rank),
            perplexity_at_rank,
            conditional_perplexity: mean(&conditional_perplexity_at_rank),
            conditional_perplexity_at_rank,
            ctr_rmse: (se / w).sqrt(),
        })
    }
}
