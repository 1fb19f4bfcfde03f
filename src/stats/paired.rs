//! Paired comparisons of two systems over the same topics: the paired t-test and bootstrap
//! confidence intervals of the mean difference. (Wilcoxon's signed-rank test is in
//! [`super::wilcoxon`].)

use super::summary::{mean, quantile_sorted, sd};
use rand::Rng;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Result of a two-sided paired t-test of `x - y`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairedT {
    /// Mean difference.
    pub mean_difference: f64,
    /// t statistic (NaN when the differences have zero variance).
    pub t: f64,
    /// Degrees of freedom, n - 1.
    pub df: f64,
    /// Two-sided p-value (1 when every difference is 0, 0 when they are equal and non-zero).
    pub p_value: f64,
}

/// Two-sided paired t-test, as R's `t.test(x, y, paired = TRUE)`. Fewer than two pairs give
/// NaN for t and the p-value. Panics if the samples differ in length (a caller bug).
pub fn paired_t_test(x: &[f64], y: &[f64]) -> PairedT {
    assert_eq!(x.len(), y.len(), "paired samples must have equal length");
    let d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    let n = d.len() as f64;
    let df = n - 1.0;
    if d.len() < 2 {
        let m = if d.is_empty() { f64::NAN } else { d[0] };
        return PairedT { mean_difference: m, t: f64::NAN, df, p_value: f64::NAN };
    }
    let m = mean(&d);
    let s = sd(&d);
    if s == 0.0 {
        let p = if m == 0.0 { 1.0 } else { 0.0 };
        return PairedT { mean_difference: m, t: f64::NAN, df, p_value: p };
    }
    let t = m / (s / n.sqrt());
    let dist = StudentsT::new(0.0, 1.0, df).expect("df > 0");
    let p = (2.0 * dist.cdf(-t.abs())).min(1.0);
    PairedT { mean_difference: m, t, df, p_value: p }
}

/// A bootstrap percentile confidence interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BootstrapCi {
    /// The observed mean difference.
    pub estimate: f64,
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
}

/// Percentile bootstrap CI of the mean of `x - y` with `resamples` resamples of topics,
/// drawn from `rng` (pass a [`crate::rng::stream`] for reproducible output).
pub fn bootstrap_ci<R: Rng>(x: &[f64], y: &[f64], level: f64, resamples: usize, rng: &mut R) -> BootstrapCi {
    assert!(x.len() == y.len() && !x.is_empty(), "bootstrap needs two equal, non-empty samples");
    assert!(level > 0.0 && level < 1.0 && resamples > 0);
    let d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    let n = d.len();
    let mut means: Vec<f64> = (0..resamples).map(|_| (0..n).map(|_| d[rng.random_range(0..n)]).sum::<f64>() / n as f64).collect();
    means.sort_by(f64::total_cmp);
    let alpha = (1.0 - level) / 2.0;
    BootstrapCi { estimate: mean(&d), lower: quantile_sorted(&means, alpha), upper: quantile_sorted(&means, 1.0 - alpha), level }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_test_matches_r() {
        // R: t.test(c(3,4,5,6,7), c(2,2,2,2,2), paired = TRUE): t = 4.2426, df = 4, p = 0.01324
        let r = paired_t_test(&[3.0, 4.0, 5.0, 6.0, 7.0], &[2.0; 5]);
        assert!((r.t - 4.242640687).abs() < 1e-6, "{r:?}");
        assert_eq!(r.df, 4.0);
        assert!((r.p_value - 0.01324).abs() < 5e-5, "{r:?}");
        assert_eq!(paired_t_test(&[1.0, 2.0], &[1.0, 2.0]).p_value, 1.0);
        assert!(paired_t_test(&[1.0], &[0.0]).p_value.is_nan());
    }

    #[test]
    fn t_test_matches_scipy() {
        // scipy.stats.ttest_rel(a, b): t = 2.028130776747907, p = 0.08889362502152519.
        let a = [0.31, 0.45, 0.12, 0.5, 0.33, 0.29, 0.41];
        let b = [0.28, 0.40, 0.15, 0.41, 0.30, 0.30, 0.35];
        let r = paired_t_test(&a, &b);
        assert!((r.t - 2.028130776747907).abs() < 1e-10, "{r:?}");
        assert!((r.p_value - 0.08889362502152519).abs() < 1e-8, "{r:?}");
        assert_eq!(paired_t_test(&a, &a).p_value, 1.0);
    }

    #[test]
    fn bootstrap_ci_is_close_to_the_normal_interval() {
        // 400 differences from a seeded normal: the 95% percentile interval should be
        // mean +- 1.96 sd / sqrt(n) to within a few percent of its width.
        use rand_distr::{Distribution, Normal};
        let mut g = crate::rng::stream(11, &[1]);
        let normal = Normal::new(0.1, 0.2).unwrap();
        let x: Vec<f64> = (0..400).map(|_| normal.sample(&mut g)).collect();
        let y = vec![0.0; 400];
        let ci = bootstrap_ci(&x, &y, 0.95, 4000, &mut crate::rng::stream(11, &[2]));
        let half = 1.96 * sd(&x) / 20.0;
        assert!((ci.lower - (mean(&x) - half)).abs() < 0.1 * half, "{ci:?}");
        assert!((ci.upper - (mean(&x) + half)).abs() < 0.1 * half, "{ci:?}");
        let same = bootstrap_ci(&x, &y, 0.95, 4000, &mut crate::rng::stream(11, &[2]));
        assert_eq!(ci, same);
    }
}
