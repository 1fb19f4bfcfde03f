//! Uncertainty over topics for `serpsim eval --ci`: bootstrap confidence intervals of each
//! run's mean per measure, and paired tests with intervals of the mean difference between runs.
//!
//! The statistics are [`crate::stats::bootstrap`] and [`crate::stats::randomisation`]. Topics
//! are the resampling unit: the per-topic values of the topics a run was evaluated on (both runs,
//! for a pair). Measures summarised by a mean are covered; for `gm_map` and `gm_bpref` the
//! interval is computed on the per-topic logarithms and mapped back with `exp` (the geometric
//! mean's interval; percentile and BCa intervals do not depend on monotone transformations).
//! Counts (`num_ret`, ...) get none.
//!
//! **Determinism.** Each interval and test draws from its own stream
//! `rng::stream(seed, [kind, hash(run), hash(measure)])`, so the output is the same whatever
//! the thread count, and adding a measure or run does not change the others' intervals.

use super::eval::Evaluation;
use super::trec_eval::Aggregate;
use crate::rng::{hash_str, stream};
use crate::stats::bootstrap::{mean_ci, paired_bootstrap_test, CiMethod, MeanCi, PairedTest};
use crate::stats::randomisation::randomisation_test;
use rayon::prelude::*;
use serde::Serialize;

/// Which paired test compares two runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TestKind {
    /// Fisher's randomisation test (sign flips), exact when 2^n <= resamples.
    Randomisation,
    /// Sakai's studentised paired bootstrap test.
    Bootstrap,
}

impl TestKind {
    /// Description printed in the output.
    pub fn describe(self) -> &'static str {
        match self {
            TestKind::Randomisation => "paired randomisation test (sign flips of per-topic differences), two-sided",
            TestKind::Bootstrap => "paired bootstrap test (Sakai 2006, studentised, shifted differences), two-sided",
        }
    }
}

/// Settings of `--ci`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CiSettings {
    /// Interval method.
    pub method: CiMethod,
    /// Confidence level.
    pub level: f64,
    /// Bootstrap resamples (and random sign vectors).
    pub resamples: usize,
    /// Seed.
    pub seed: u64,
    /// Paired test between runs.
    pub test: TestKind,
}

impl Default for CiSettings {
    fn default() -> Self {
        CiSettings { method: CiMethod::Bca, level: 0.95, resamples: 10_000, seed: 1, test: TestKind::Randomisation }
    }
}

/// A run's mean on one measure with its interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeanInterval {
    /// Run name.
    pub run: String,
    /// Measure (column name).
    pub measure: String,
    /// Topics resampled.
    pub topics: usize,
    /// The interval (for geometric means: back on the original scale).
    pub ci: MeanCi,
}

/// Two runs compared on one measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    /// Measure (column name).
    pub measure: String,
    /// First run.
    pub run_a: String,
    /// Second run.
    pub run_b: String,
    /// Topics both runs were evaluated on.
    pub topics: usize,
    /// Interval of the mean of `a - b` per topic.
    pub ci: MeanCi,
    /// The paired test.
    pub test: PairedTest,
}

fn covered(a: Aggregate) -> Option<bool> {
    match a {
        Aggregate::Mean => Some(false),
        Aggregate::GeoMean => Some(true),
        _ => None,
    }
}

/// Intervals of every run's mean on every mean-summarised measure (at least two topics).
pub fn mean_intervals(e: &Evaluation, s: &CiSettings) -> Vec<MeanInterval> {
    let tasks: Vec<(usize, usize, bool)> = (0..e.runs.len())
        .flat_map(|r| (0..e.columns.len()).filter_map(move |c| covered(e.columns[c].aggregate).map(|g| (r, c, g))))
        .collect();
    tasks
        .par_iter()
        .filter_map(|&(r, c, geometric)| {
            let x = e.topic_values(r, c);
            if x.len() < 2 {
                return None;
            }
            let mut rng = stream(s.seed, &[0, hash_str(&e.runs[r]), hash_str(&e.columns[c].name)]);
            let mut ci = mean_ci(&x, s.level, s.resamples, s.method, &mut rng);
            if geometric {
                ci.estimate = ci.estimate.exp();
                ci.lower = ci.lower.exp();
                ci.upper = ci.upper.exp();
            }
            Some(MeanInterval { run: e.runs[r].clone(), measure: e.columns[c].name.clone(), topics: x.len(), ci })
        })
        .collect()
}

/// Every pair of runs on every mean-summarised measure, over the topics both were evaluated on
/// (pairs with fewer than two common topics are left out).
pub fn differences(e: &Evaluation, s: &CiSettings) -> Vec<Difference> {
    let mut tasks = Vec::new();
    for c in 0..e.columns.len() {
        if covered(e.columns[c].aggregate).is_none() {
            continue;
        }
        for a in 0..e.runs.len() {
            for b in a + 1..e.runs.len() {
                tasks.push((c, a, b));
            }
        }
    }
    tasks
        .par_iter()
        .filter_map(|&(c, a, b)| {
            let (x, y): (Vec<f64>, Vec<f64>) =
                e.values[a][c].iter().zip(&e.values[b][c]).filter_map(|(x, y)| Some(((*x)?, (*y)?))).unzip();
            if x.len() < 2 {
                return None;
            }
            let key = [hash_str(&e.runs[a]), hash_str(&e.runs[b]), hash_str(&e.columns[c].name)];
            let d: Vec<f64> = x.iter().zip(&y).map(|(p, q)| p - q).collect();
            let ci = mean_ci(&d, s.level, s.resamples, s.method, &mut stream(s.seed, &[1, key[0], key[1], key[2]]));
            let mut rng = stream(s.seed, &[2, key[0], key[1], key[2]]);
            let test = match s.test {
                TestKind::Randomisation => randomisation_test(&x, &y, s.resamples, &mut rng),
                TestKind::Bootstrap => paired_bootstrap_test(&x, &y, s.resamples, &mut rng),
            };
            Some(Difference {
                measure: e.columns[c].name.clone(),
                run_a: e.runs[a].clone(),
                run_b: e.runs[b].clone(),
                topics: x.len(),
                ci,
                test,
            })
        })
        .collect()
}
