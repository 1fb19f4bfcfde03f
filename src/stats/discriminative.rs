//! Discriminative power with Sakai's paired bootstrap test (Sakai 2006): for every pair of
//! systems, the achieved significance level (ASL) of the studentised mean difference under
//! bootstrap resamples of topics centred on the null hypothesis; the discriminative power is
//! the share of pairs with ASL < alpha.

use super::summary::{mean, sd};
use rand::Rng;
use serde::Serialize;

/// Result for one system pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairAsl {
    /// First system (index into the score matrix).
    pub a: usize,
    /// Second system.
    pub b: usize,
    /// Mean of `a - b` over topics.
    pub mean_difference: f64,
    /// Achieved significance level (1 when every difference is 0).
    pub asl: f64,
}

/// Discriminative power of one metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiscriminativePower {
    /// Every pair's ASL.
    pub pairs: Vec<PairAsl>,
    /// Share of pairs with ASL < alpha.
    pub power: f64,
    /// Significance level.
    pub alpha: f64,
}

fn studentised(z: &[f64]) -> f64 {
    let s = sd(z);
    if s == 0.0 {
        return if mean(z) == 0.0 { 0.0 } else { f64::INFINITY };
    }
    mean(z) / (s / (z.len() as f64).sqrt())
}

/// Sakai's paired bootstrap test over `scores[system][topic]`. The same `resamples` topic
/// resamples (from `rng`) are shared by every pair.
pub fn discriminative_power<R: Rng>(scores: &[Vec<f64>], alpha: f64, resamples: usize, rng: &mut R) -> DiscriminativePower {
    let n = scores.first().map_or(0, |s| s.len());
    assert!(n >= 2 && scores.iter().all(|s| s.len() == n), "every system needs the same >= 2 topics");
    let samples: Vec<Vec<usize>> = (0..resamples).map(|_| (0..n).map(|_| rng.random_range(0..n)).collect()).collect();
    let mut pairs = Vec::new();
    for a in 0..scores.len() {
        for b in a + 1..scores.len() {
            let z: Vec<f64> = scores[a].iter().zip(&scores[b]).map(|(x, y)| x - y).collect();
            let observed = studentised(&z).abs();
            let m = mean(&z);
            let asl = if sd(&z) == 0.0 && m == 0.0 {
                1.0
            } else {
                let w: Vec<f64> = z.iter().map(|v| v - m).collect();
                let mut buf = vec![0.0; n];
                let hits = samples
                    .iter()
                    .filter(|idx| {
                        for (k, &i) in idx.iter().enumerate() {
                            buf[k] = w[i];
                        }
                        studentised(&buf).abs() >= observed
                    })
                    .count();
                hits as f64 / resamples as f64
            };
            pairs.push(PairAsl { a, b, mean_difference: m, asl });
        }
    }
    let power = if pairs.is_empty() { 0.0 } else { pairs.iter().filter(|p| p.asl < alpha).count() as f64 / pairs.len() as f64 };
    DiscriminativePower { pairs, power, alpha }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_distr::{Distribution, Normal};

    #[test]
    fn asl_matches_exhaustive_bootstrap() {
        // Four topic differences; the exact ASL enumerates all 4^4 = 256 equally likely topic
        // resamples of the centred differences and counts |t*| >= |t|: 80 of 256 = 0.3125,
        // computed independently with Python 3.11 (itertools.product over range(4), repeat=4;
        // statistics.stdev; a zero-sd resample counts as |t*| = inf unless its mean is 0).
        let a = vec![0.8, 0.4, 0.7, 0.55];
        let b = vec![0.5, 0.5, 0.5, 0.5];
        let resamples = 40_000;
        let d = discriminative_power(&[a, b], 0.05, resamples, &mut crate::rng::stream(5, &[1]));
        let exact = 80.0 / 256.0;
        // Monte-Carlo sd of a proportion over 40,000 resamples; 4 sd.
        let tol = 4.0 * (exact * (1.0 - exact) / resamples as f64).sqrt();
        assert!((d.pairs[0].asl - exact).abs() < tol, "ASL {} vs exact {exact} (tol {tol})", d.pairs[0].asl);
        assert!((d.pairs[0].mean_difference - 0.1125).abs() < 1e-12); // (0.3 - 0.1 + 0.2 + 0.05) / 4
        assert_eq!(d.power, 0.0, "ASL 0.31 is not below alpha 0.05");
    }

    #[test]
    fn clear_differences_and_identical_systems() {
        let mut g = crate::rng::stream(5, &[0]);
        let noise = Normal::new(0.0, 0.1).unwrap();
        let base: Vec<f64> = (0..50).map(|_| noise.sample(&mut g) + 0.5).collect();
        let far: Vec<f64> = base.iter().map(|b| b + 0.3 + noise.sample(&mut g) * 0.2).collect();
        // A shift of 0.3 with noise sd 0.02 gives |t| near 100: no centred resample reaches it.
        let d = discriminative_power(&[base.clone(), far], 0.05, 3000, &mut crate::rng::stream(5, &[1]));
        assert_eq!(d.pairs[0].asl, 0.0);
        assert_eq!(d.power, 1.0);
        let same = discriminative_power(&[base.clone(), base], 0.05, 100, &mut crate::rng::stream(5, &[1]));
        assert_eq!(same.pairs[0].asl, 1.0);
    }
}
