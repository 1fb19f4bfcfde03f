//! Bootstrap confidence intervals of a mean, with the definitions of `scipy.stats.bootstrap`
//! (SciPy 1.17): percentile, basic (reverse percentile) and BCa (bias-corrected and
//! accelerated, Efron and Tibshirani 1993, 14.3 and Eq. 15.36), and the paired bootstrap test
//! of a mean difference (Sakai 2006: studentised, on differences shifted to mean 0). The paired
//! randomisation test is in [`super::randomisation`].
//!
//! - Resamples: `resamples` samples of the n values with replacement; the statistic is their
//!   mean. Quantiles are linear interpolation between order statistics (type 7, SciPy's
//!   `stats.quantile` default and NumPy's `percentile`).
//! - BCa: `z0 = Phi^-1((#{t* < t} + #{t* <= t}) / 2B)`; the acceleration from the jackknife,
//!   `a = (1/6) sum U^3 / (sum U^2)^(3/2)`, `U_i = (n - 1)(mean of jackknife means - t_(i))`;
//!   levels `Phi(z0 + (z0 + z)/(1 - a (z0 + z)))` for `z = Phi^-1(alpha)` and `Phi^-1(1 - alpha)`.
//! - A sample whose values are all equal has a one-point bootstrap distribution: the interval
//!   is that point (SciPy returns NaN for BCa there and warns).
//!
//! Everything draws from the `rng` passed in: give each interval its own
//! [`crate::rng::stream`] and the output does not depend on threads.

use super::summary::{mean, quantile_sorted, sd};
use rand::Rng;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

/// How the interval is read off the bootstrap distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CiMethod {
    /// Quantiles alpha/2 and 1 - alpha/2 of the bootstrap means.
    Percentile,
    /// Reverse percentile: `2 t - q(1 - alpha/2)`, `2 t - q(alpha/2)`.
    Basic,
    /// Bias-corrected and accelerated.
    Bca,
}

impl CiMethod {
    /// Name as printed (`percentile`, `basic`, `bca`).
    pub fn name(self) -> &'static str {
        match self {
            CiMethod::Percentile => "percentile",
            CiMethod::Basic => "basic",
            CiMethod::Bca => "bca",
        }
    }
}

/// A bootstrap confidence interval of a mean.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeanCi {
    /// The sample mean.
    pub estimate: f64,
    /// Lower end.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
    /// Method.
    pub method: CiMethod,
    /// Number of resamples.
    pub resamples: usize,
    /// Standard deviation of the bootstrap means (the bootstrap standard error).
    pub standard_error: f64,
}

fn normal() -> Normal {
    Normal::new(0.0, 1.0).expect("standard normal")
}

/// The means of `resamples` bootstrap resamples of `x`, sorted ascending.
pub fn bootstrap_means<R: Rng>(x: &[f64], resamples: usize, rng: &mut R) -> Vec<f64> {
    let n = x.len();
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| {
            let mut s = 0.0;
            for _ in 0..n {
                s += x[rng.random_range(0..n)];
            }
            s / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    means
}

/// The BCa quantile levels `(alpha_1, alpha_2)` for sorted bootstrap means `boot` of `x`.
pub fn bca_levels(x: &[f64], boot: &[f64], alpha: f64) -> (f64, f64) {
    let n = x.len();
    let t = mean(x);
    let below = boot.partition_point(|&v| v < t);
    let at_or_below = boot.partition_point(|&v| v <= t);
    let p = (below + at_or_below) as f64 / (2 * boot.len()) as f64;
    let nd = normal();
    let z0 = nd.inverse_cdf(p);
    // Jackknife means and the acceleration.
    let total: f64 = x.iter().sum();
    let jack: Vec<f64> = x.iter().map(|&xi| (total - xi) / (n - 1) as f64).collect();
    let jack_mean = mean(&jack);
    let nf = n as f64;
    let u: Vec<f64> = jack.iter().map(|&j| (nf - 1.0) * (jack_mean - j)).collect();
    let num: f64 = u.iter().map(|v| v.powi(3)).sum::<f64>() / nf.powi(3);
    let den: f64 = u.iter().map(|v| v * v).sum::<f64>() / nf.powi(2);
    let a = num / den.powf(1.5) / 6.0;
    let z_alpha = nd.inverse_cdf(alpha);
    let level = |z: f64| {
        let s = z0 + z;
        nd.cdf(z0 + s / (1.0 - a * s))
    };
    (level(z_alpha), level(-z_alpha))
}

/// Bootstrap confidence interval of the mean of `x` (at least two values) at `level`.
///
/// ```
/// use serpsim::stats::bootstrap::{mean_ci, CiMethod};
/// let x = [0.1, 0.4, 0.35, 0.8, 0.2, 0.55, 0.3, 0.6];
/// let ci = mean_ci(&x, 0.95, 2000, CiMethod::Bca, &mut serpsim::rng::stream(1, &[0]));
/// assert!(ci.lower < ci.estimate && ci.estimate < ci.upper);
/// ```
pub fn mean_ci<R: Rng>(x: &[f64], level: f64, resamples: usize, method: CiMethod, rng: &mut R) -> MeanCi {
    assert!(x.len() >= 2, "a bootstrap interval needs at least two values");
    assert!(level > 0.0 && level < 1.0 && resamples > 0);
    let estimate = mean(x);
    let boot = bootstrap_means(x, resamples, rng);
    let standard_error = sd(&boot);
    let alpha = (1.0 - level) / 2.0;
    let degenerate = x.iter().all(|&v| v == x[0]);
    let (lower, upper) = if degenerate {
        (estimate, estimate)
    } else {
        match method {
            CiMethod::Percentile => (quantile_sorted(&boot, alpha), quantile_sorted(&boot, 1.0 - alpha)),
            CiMethod::Basic => (2.0 * estimate - quantile_sorted(&boot, 1.0 - alpha), 2.0 * estimate - quantile_sorted(&boot, alpha)),
            CiMethod::Bca => {
                let (a1, a2) = bca_levels(x, &boot, alpha);
                if a1.is_nan() || a2.is_nan() {
                    (f64::NAN, f64::NAN)
                } else {
                    (quantile_sorted(&boot, a1), quantile_sorted(&boot, a2))
                }
            }
        }
    };
    MeanCi { estimate, lower, upper, level, method, resamples, standard_error }
}

/// Result of a paired test of two systems over the same topics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedTest {
    /// Mean of `x - y`.
    pub mean_difference: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Resamples (or sign vectors) used; for an exact randomisation test, 2^n.
    pub resamples: usize,
    /// Whether every sign vector was enumerated (exact randomisation test).
    pub exact: bool,
}

fn studentised(z: &[f64]) -> f64 {
    let s = sd(z);
    if s == 0.0 {
        return if mean(z) == 0.0 { 0.0 } else { f64::INFINITY };
    }
    mean(z) / (s / (z.len() as f64).sqrt())
}

/// Sakai's paired bootstrap test (Sakai 2006, after Efron and Tibshirani 16.4): the share of
/// `resamples` resamples of the differences, shifted to mean 0, whose studentised mean is at
/// least as far from 0 as the observed one (the achieved significance level).
pub fn paired_bootstrap_test<R: Rng>(x: &[f64], y: &[f64], resamples: usize, rng: &mut R) -> PairedTest {
    assert!(x.len() == y.len() && x.len() >= 2, "paired samples of equal length >= 2");
    let z: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    let n = z.len();
    let m = mean(&z);
    let observed = studentised(&z).abs();
    if sd(&z) == 0.0 && m == 0.0 {
        return PairedTest { mean_difference: m, p_value: 1.0, resamples, exact: false };
    }
    let w: Vec<f64> = z.iter().map(|v| v - m).collect();
    let mut buf = vec![0.0; n];
    let mut hits = 0usize;
    for _ in 0..resamples {
        for b in buf.iter_mut() {
            *b = w[rng.random_range(0..n)];
        }
        if studentised(&buf).abs() >= observed * (1.0 - 1e-12) {
            hits += 1;
        }
    }
    PairedTest { mean_difference: m, p_value: hits as f64 / resamples as f64, resamples, exact: false }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_interval_of_a_normal_sample_is_near_the_normal_interval() {
        // 400 values: the 95 % percentile interval should be mean +- 1.96 sd / sqrt(n) to a
        // few percent of its half-width (the bootstrap distribution of a mean of 400 is close
        // to normal; Monte-Carlo error with 20,000 resamples is about 2 % of the half-width).
        use rand_distr::{Distribution, Normal as N};
        let mut g = crate::rng::stream(3, &[1]);
        let d = N::new(0.3, 0.2).unwrap();
        let x: Vec<f64> = (0..400).map(|_| d.sample(&mut g)).collect();
        let half = 1.96 * sd(&x) / 20.0;
        for method in [CiMethod::Percentile, CiMethod::Basic, CiMethod::Bca] {
            let ci = mean_ci(&x, 0.95, 20_000, method, &mut crate::rng::stream(3, &[2]));
            assert!((ci.lower - (mean(&x) - half)).abs() < 0.06 * half, "{method:?} {ci:?}");
            assert!((ci.upper - (mean(&x) + half)).abs() < 0.06 * half, "{method:?} {ci:?}");
            assert!((ci.standard_error - sd(&x) / 20.0).abs() < 0.03 * sd(&x) / 20.0, "{ci:?}");
        }
    }

    #[test]
    fn bca_levels_by_hand() {
        // Symmetric data and a bootstrap distribution with half its mass below the mean:
        // z0 = 0 and a = 0 (sum of cubed deviations is 0), so the levels are alpha, 1 - alpha.
        let x = [1.0, 2.0, 3.0, 4.0];
        let boot = [1.0, 2.0, 3.0, 4.0];
        let (a1, a2) = bca_levels(&x, &boot, 0.025);
        // (statrs's inverse normal CDF is accurate to about 1e-11.)
        assert!((a1 - 0.025).abs() < 1e-9 && (a2 - 0.975).abs() < 1e-9, "{a1} {a2}");
        // Skewed data: a = sum d^3 / (6 (sum d^2)^1.5) with d = x - mean for the mean statistic.
        // x = 0, 0, 0, 4: d = -1, -1, -1, 3; sum d^3 = 24, sum d^2 = 12: a = 24 / (6 * 41.569) = 0.096225.
        // With boot = x (t = 1: 3 below, 3 at or below of 4), p = 6/8, z0 = 0.67449;
        // alpha_1 = Phi(z0 + s/(1 - a s)), s = z0 - 1.959964 = -1.285474: Phi(-0.469479) = 0.319363
        // (scipy.stats.norm, by hand: 0.31936285729406855).
        let (a1, _) = bca_levels(&[0.0, 0.0, 0.0, 4.0], &[0.0, 0.0, 0.0, 4.0], 0.025);
        assert!((a1 - 0.31936285729406855).abs() < 1e-9, "{a1}");
    }

    #[test]
    fn constant_sample_gives_a_point() {
        let ci = mean_ci(&[0.5; 6], 0.9, 100, CiMethod::Bca, &mut crate::rng::stream(1, &[0]));
        assert_eq!((ci.lower, ci.upper, ci.estimate), (0.5, 0.5, 0.5));
    }

    #[test]
    fn paired_bootstrap_test_is_one_without_differences() {
        let x = [0.1, 0.2, 0.3];
        assert_eq!(paired_bootstrap_test(&x, &x, 100, &mut crate::rng::stream(1, &[0])).p_value, 1.0);
        let t = paired_bootstrap_test(&[1.0, 2.0, 3.0, 4.0, 5.0], &[0.0; 5], 2000, &mut crate::rng::stream(1, &[0]));
        assert!(t.p_value < 0.05, "{t:?}");
    }
}
