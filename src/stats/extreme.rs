//! Carterette's (2015) extreme-value check: if N systems of equal true effectiveness report
//! means drawn from `Normal(mu, s)` (s = standard deviation of the means, i.e. the standard
//! error over topics), how large is the best of them expected to be, and how low could the
//! true mean behind an observed best result be?
//!
//! The paper estimates these by sampling; here they are exact: the maximum of N iid normals has
//! CDF `Phi((x - mu)/s)^N`, the minimum `1 - (1 - Phi((x - mu)/s))^N`.

use statrs::distribution::{Continuous, ContinuousCDF, Normal};

fn std_normal() -> Normal {
    Normal::new(0.0, 1.0).expect("standard normal")
}

/// Expected maximum of `n` iid `Normal(mu, s)` draws (numerical integration, error < 1e-9 s).
pub fn expected_maximum(mu: f64, s: f64, n: usize) -> f64 {
    assert!(n >= 1 && s >= 0.0);
    let z = std_normal();
    // E[max] = integral of x n phi(x) Phi(x)^(n-1) over the real line, Simpson on [-12, 12].
    let steps = 24_000;
    let h = 24.0 / steps as f64;
    let f = |x: f64| x * n as f64 * z.pdf(x) * z.cdf(x).powi(n as i32 - 1);
    let mut sum = f(-12.0) + f(12.0);
    for i in 1..steps {
        let x = -12.0 + i as f64 * h;
        sum += f(x) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    mu + s * sum * h / 3.0
}

/// The q-quantile of the maximum of `n` draws: `mu + s Phi^-1(q^(1/n))`.
pub fn maximum_quantile(mu: f64, s: f64, n: usize, q: f64) -> f64 {
    mu + s * std_normal().inverse_cdf(q.powf(1.0 / n as f64))
}

/// The q-quantile of the minimum of `n` draws: `mu + s Phi^-1(1 - (1 - q)^(1/n))`.
pub fn minimum_quantile(mu: f64, s: f64, n: usize, q: f64) -> f64 {
    mu + s * std_normal().inverse_cdf(1.0 - (1.0 - q).powf(1.0 / n as f64))
}

/// Carterette's bound for an observed best result `best` among `n`: the lowest population
/// mean `mu*` for which `best` sits at the `q` quantile of the maximum (q = 0.8 in the paper),
/// and the `1 - q` quantile of the minimum under `mu*`: any mean between the two could have come
/// from a system as good as the best.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExtremeBound {
    /// Population mean that produces `best` as its q-quantile maximum.
    pub mean: f64,
    /// Lower end of the interval of non-extreme values under that mean.
    pub lower: f64,
    /// The observed best result (upper end).
    pub upper: f64,
}

/// See [`ExtremeBound`].
pub fn extreme_bound(best: f64, s: f64, n: usize, q: f64) -> ExtremeBound {
    let mean = best - s * std_normal().inverse_cdf(q.powf(1.0 / n as f64));
    ExtremeBound { mean, lower: minimum_quantile(mean, s, n, 1.0 - q), upper: best }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carterette_figure1_and_trec7() {
        // Figure 1: 100 draws, mean 0.20, sd 0.027: mean of the maxima 0.267 (by sampling).
        assert!((expected_maximum(0.2, 0.027, 100) - 0.267).abs() < 0.001);
        // One draw: the mean itself.
        assert!((expected_maximum(0.3, 0.05, 1) - 0.3).abs() < 1e-9);
        // Two draws: mu + s / sqrt(pi).
        assert!((expected_maximum(0.0, 1.0, 2) - 1.0 / std::f64::consts::PI.sqrt()).abs() < 1e-9);
        // TREC-7: N = 103, mu 0.2, s = 0.08 / sqrt(50). 95% point of the maximum "about 0.2375".
        let s = 0.08 / 50f64.sqrt();
        assert!((maximum_quantile(0.2, s, 103, 0.95) - 0.2375).abs() < 0.001);
        // Best automatic run 0.303: mu* 0.2705 and lower bound 0.2378 (paper, by sampling);
        // exact values 0.27072 and 0.23844.
        let b = extreme_bound(0.303, s, 103, 0.8);
        assert!((b.mean - 0.2705).abs() < 0.0005, "{b:?}");
        assert!((b.lower - 0.2378).abs() < 0.001, "{b:?}");
        // 5% point of the minimum "0.1625".
        assert!((minimum_quantile(0.2, s, 103, 0.05) - 0.1625).abs() < 0.001);
    }
}
