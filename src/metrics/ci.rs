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
    let tasks: Vec<(usize, usize, bool)> =
        (0..e.runs.len()).flat_map(|r| (0..e.columns.len()).filter_map(move |c| covered(e.columns[c].aggregate).map(|g| (r, c, g)))).collect();
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
            let (x, y): (Vec<f64>, Vec<f64>) = e.values[a][c].iter().zip(&e.values[b][c]).filter_map(|(x, y)| Some(((*x)?, (*y)?))).unzip();
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
            Some(Difference { measure: e.columns[c].name.clone(), run_a: e.runs[a].clone(), run_b: e.runs[b].clone(), topics: x.len(), ci, test })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mean and standard deviation.
    fn mean_sd(x: &[f64]) -> (f64, f64) {
        (crate::stats::summary::mean(x), crate::stats::summary::sd(x))
    }

    /// scipy.stats.bootstrap (SciPy 1.17.1, `analysis/metrics/ci_scipy.py`,
    /// `tests/fixtures/metrics_ci/scipy_bootstrap.json`) against `stats::bootstrap::mean_ci`
    /// on the same per-topic values: trec_eval 10's values for 8 measures on the bundled pair of
    /// runs over 50 graded topics (`tests/fixtures/trec_eval/run.synth_a.gz`, `run.synth_b`),
    /// run A's mean and the paired differences A - B (16 cases), percentile and BCa, 95 %,
    /// 10,000 resamples.
    ///
    /// Tolerance, from the Monte-Carlo error. Both tools estimate the same ideal bootstrap
    /// endpoint from B = 10,000 random resamples, so each estimate scatters around it with a
    /// Monte-Carlo standard deviation s that depends on the data, the method and the endpoint.
    /// s is measured here: the endpoint is recomputed with R = 40 independent seeds and s is the
    /// standard deviation of those 40 values. scipy's endpoint is one draw with the same B and
    /// method, so scipy minus the mean of our 40 has standard deviation s * sqrt(1 + 1/R); the
    /// test allows 4 of those (a false alarm has probability about 6e-5 per endpoint, 3e-3 over
    /// the 64 endpoints). Checked by breaking the code: resample means divided by n - 1 instead
    /// of n (a 2 % scale error) fails it (map's percentile lower end 0.3382 vs scipy's 0.3321,
    /// tolerance 0.0010); a 4 % error in the BCa acceleration does not (on these data the
    /// acceleration moves the endpoints by less than the Monte-Carlo error), and is caught by
    /// `stats::bootstrap::tests::bca_levels_by_hand` instead.
    #[test]
    fn intervals_agree_with_scipy_bootstrap_to_monte_carlo_error() {
        let doc: serde_json::Value = serde_json::from_str(include_str!("../../tests/fixtures/metrics_ci/scipy_bootstrap.json")).unwrap();
        assert_eq!(doc["scipy"], "1.17.1");
        let b = doc["resamples"].as_u64().unwrap() as usize;
        let level = doc["level"].as_f64().unwrap();
        let repeats = 40u64;
        let mut worst: f64 = 0.0;
        for case in doc["cases"].as_array().unwrap() {
            let x: Vec<f64> = case["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
            let label = format!("{} {}", case["measure"], case["kind"]);
            for (method, key) in [(CiMethod::Percentile, "percentile"), (CiMethod::Bca, "bca")] {
                let scipy = [case[key][0].as_f64().unwrap(), case[key][1].as_f64().unwrap()];
                let ours: Vec<MeanCi> = (0..repeats).map(|s| mean_ci(&x, level, b, method, &mut stream(99, &[s]))).collect();
                for (end, want) in scipy.iter().enumerate() {
                    let v: Vec<f64> = ours.iter().map(|c| if end == 0 { c.lower } else { c.upper }).collect();
                    let (m, s) = mean_sd(&v);
                    let tol = 4.0 * s * (1.0 + 1.0 / repeats as f64).sqrt();
                    assert!(s > 0.0, "{label} {key}: no Monte-Carlo spread");
                    assert!((m - want).abs() <= tol, "{label} {key} end {end}: ours {m} (MC sd {s}), scipy {want}, tolerance {tol}");
                    worst = worst.max((m - want).abs() / (s * (1.0 + 1.0 / repeats as f64).sqrt()));
                }
            }
        }
        // The largest deviation, in Monte-Carlo standard deviations, is printed for the record.
        println!("largest |ours - scipy| / MC sd: {worst:.2}");
    }

    #[test]
    fn fixture_values_are_trec_evals() {
        // The scipy fixture's inputs are trec_eval's printed per-topic values.
        let doc: serde_json::Value = serde_json::from_str(include_str!("../../tests/fixtures/metrics_ci/scipy_bootstrap.json")).unwrap();
        let a = include_str!("../../tests/fixtures/trec_eval/out/all_trec_q_synth_a.txt");
        let b = include_str!("../../tests/fixtures/trec_eval/out/all_trec_q_synth_b.txt");
        let value = |out: &str, m: &str, t: &str| -> f64 {
            let prefix = format!("{m:<22}\t{t}\t");
            out.lines().find_map(|l| l.strip_prefix(prefix.as_str())).unwrap_or_else(|| panic!("{m} {t}")).parse().unwrap()
        };
        let mut checked = 0;
        for case in doc["cases"].as_array().unwrap() {
            let m = case["measure"].as_str().unwrap();
            for (t, v) in case["topics"].as_array().unwrap().iter().zip(case["values"].as_array().unwrap()) {
                let t = t.as_str().unwrap();
                let want = if case["kind"] == "mean" { value(a, m, t) } else { value(a, m, t) - value(b, m, t) };
                assert!((v.as_f64().unwrap() - want).abs() < 1e-12, "{m} {t}");
                checked += 1;
            }
        }
        assert_eq!(checked, 16 * 50);
    }
}
