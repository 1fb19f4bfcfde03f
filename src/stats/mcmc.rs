//! Convergence diagnostics of Markov chains: split R-hat and effective sample size, in the
//! rank-normalised forms of Vehtari, Gelman, Simpson, Carpenter and Bürkner (2021, "Rank-
//! normalization, folding, and localization: an improved R-hat", Bayesian Analysis), as the
//! R package `posterior` and ArviZ compute them.
//!
//! - [`split_rhat`]: every chain is split in halves (the middle draw dropped when the length
//!   is odd); `R = sqrt(((n - 1)/n W + B/n) / W)` with W the mean within-half variance and B
//!   `n` times the variance of the half means (Gelman et al., BDA3 §11.4).
//! - [`rhat`]: the larger of [`split_rhat`] on rank-normalised draws and on rank-normalised
//!   draws folded around the median (detects differences in scale too).
//! - [`ess`]: `M n / tau`, tau from the autocorrelations combined over chains and summed with
//!   Geyer's initial positive and monotone sequence (BDA3 §11.5; Stan's estimator);
//!   [`ess_bulk`]: the same on rank-normalised draws.
//!
//! Rules of thumb (Vehtari et al. 2021): R-hat below 1.01 and a bulk ESS of at least 100 per
//! chain.
//!
//! ```
//! use serpsim::stats::mcmc::split_rhat;
//! // Two chains stuck in different places: R-hat far above 1.
//! let a = [1.0, 2.0, 3.0, 4.0];
//! let b = [5.0, 6.0, 7.0, 8.0];
//! assert!(split_rhat(&[&a, &b]) > 3.0);
//! ```

use statrs::distribution::{ContinuousCDF, Normal};

/// Halves of every chain (odd lengths lose their middle draw).
fn split<'a>(chains: &[&'a [f64]]) -> Vec<&'a [f64]> {
    let mut out = Vec::with_capacity(2 * chains.len());
    for c in chains {
        let h = c.len() / 2;
        out.push(&c[..h]);
        out.push(&c[c.len() - h..]);
    }
    out
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

fn var(x: &[f64]) -> f64 {
    let m = mean(x);
    x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (x.len() as f64 - 1.0)
}

/// R-hat of chains of equal length without splitting (BDA3 eq. 11.4).
fn rhat_basic(chains: &[&[f64]]) -> f64 {
    let n = chains.iter().map(|c| c.len()).min().unwrap_or(0);
    if chains.len() < 2 || n < 2 {
        return f64::NAN;
    }
    let means: Vec<f64> = chains.iter().map(|c| mean(&c[..n])).collect();
    let w = mean(&chains.iter().map(|c| var(&c[..n])).collect::<Vec<_>>());
    let b = n as f64 * var(&means);
    let nf = n as f64;
    ((b / w + nf - 1.0) / nf).sqrt()
}

/// Split R-hat of the draws as they are (not rank-normalised). NaN for fewer than 4 draws
/// per chain or constant draws.
pub fn split_rhat(chains: &[&[f64]]) -> f64 {
    rhat_basic(&split(chains))
}

/// Normal scores of the pooled ranks: `Phi^-1((r - 3/8) / (S + 1/4))`, average ranks for ties
/// (Blom's offsets, as in Vehtari et al. 2021), in the chains' layout.
fn rank_normalise(chains: &[&[f64]]) -> Vec<Vec<f64>> {
    let all: Vec<f64> = chains.iter().flat_map(|c| c.iter().copied()).collect();
    let ranks = crate::stats::average_ranks(&all);
    let s = all.len() as f64;
    let normal = Normal::new(0.0, 1.0).expect("standard normal");
    let mut out = Vec::with_capacity(chains.len());
    let mut k = 0;
    for c in chains {
        out.push(ranks[k..k + c.len()].iter().map(|r| normal.inverse_cdf((r - 0.375) / (s + 0.25))).collect());
        k += c.len();
    }
    out
}

/// Rank-normalised split R-hat: the larger of the bulk and the folded (tail) values.
pub fn rhat(chains: &[&[f64]]) -> f64 {
    let z = rank_normalise(chains);
    let zr: Vec<&[f64]> = z.iter().map(|c| c.as_slice()).collect();
    let bulk = split_rhat(&zr);
    let mut all: Vec<f64> = chains.iter().flat_map(|c| c.iter().copied()).collect();
    all.sort_by(f64::total_cmp);
    let med = crate::stats::quantile_sorted(&all, 0.5);
    let folded: Vec<Vec<f64>> = chains.iter().map(|c| c.iter().map(|x| (x - med).abs()).collect()).collect();
    let fr: Vec<&[f64]> = folded.iter().map(|c| c.as_slice()).collect();
    let fz = rank_normalise(&fr);
    let fzr: Vec<&[f64]> = fz.iter().map(|c| c.as_slice()).collect();
    let tail = split_rhat(&fzr);
    if bulk.is_nan() || tail.is_nan() {
        return f64::NAN;
    }
    bulk.max(tail)
}

/// Effective sample size of the draws as they are (split chains, Geyer's initial monotone
/// sequence, capped at `S log10(S)` for S draws as Stan does). NaN for fewer than 4 draws
/// per chain or constant draws.
pub fn ess(chains: &[&[f64]]) -> f64 {
    ess_of(&split(chains))
}

/// Bulk effective sample size: [`ess`] of the rank-normalised draws.
pub fn ess_bulk(chains: &[&[f64]]) -> f64 {
    let z = rank_normalise(chains);
    let zr: Vec<&[f64]> = z.iter().map(|c| c.as_slice()).collect();
    ess(&zr)
}

fn ess_of(chains: &[&[f64]]) -> f64 {
    let m = chains.len();
    let n = chains.iter().map(|c| c.len()).min().unwrap_or(0);
    if m == 0 || n < 4 {
        return f64::NAN;
    }
    let nf = n as f64;
    let centred: Vec<Vec<f64>> = chains
        .iter()
        .map(|c| {
            let mu = mean(&c[..n]);
            c[..n].iter().map(|x| x - mu).collect()
        })
        .collect();
    // Biased autocovariance at lag t (divided by n), averaged over chains.
    let acov = |t: usize| -> f64 { centred.iter().map(|c| c[..n - t].iter().zip(&c[t..]).map(|(a, b)| a * b).sum::<f64>() / nf).sum::<f64>() / m as f64 };
    let mean_var = acov(0) * nf / (nf - 1.0);
    let means: Vec<f64> = chains.iter().map(|c| mean(&c[..n])).collect();
    let mut var_plus = mean_var * (nf - 1.0) / nf;
    if m > 1 {
        var_plus += var(&means);
    }
    if !(var_plus > 0.0) {
        return f64::NAN;
    }
    let rho = |t: usize| 1.0 - (mean_var - acov(t)) / var_plus;
    let mut r = vec![0.0; n];
    r[0] = 1.0;
    let (mut even, mut odd) = (1.0, rho(1));
    r[1] = odd;
    let mut t = 0;
    while t + 5 < n && even + odd > 0.0 {
        t += 2;
        even = rho(t);
        odd = if t + 1 < n { rho(t + 1) } else { 0.0 };
        if even + odd >= 0.0 {
            r[t] = even;
            if t + 1 < n {
                r[t + 1] = odd;
            }
        }
    }
    let max_t = t;
    if even > 0.0 && max_t < n {
        r[max_t] = even;
    }
    // Initial monotone sequence.
    let mut t = 0;
    while t + 4 <= max_t {
        t += 2;
        if r[t] + r[t + 1] > r[t - 2] + r[t - 1] {
            r[t] = (r[t - 2] + r[t - 1]) / 2.0;
            r[t + 1] = r[t];
        }
    }
    let s = (m * n) as f64;
    let tau = (-1.0 + 2.0 * r[..max_t].iter().sum::<f64>() + r[max_t]).max(1.0 / s.log10());
    s / tau
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_distr::{Distribution, Normal as RNormal};

    #[test]
    fn split_rhat_by_hand() {
        // Chains [1,2,3,4] and [5,6,7,8] split into [1,2] [3,4] [5,6] [7,8]: half means
        // 1.5, 3.5, 5.5, 7.5 (sample variance 20/3), n = 2, so B = 2 * 20/3 = 40/3; every
        // half has variance 1/2, so W = 1/2. R = sqrt(((n-1)/n W + B/n) / W)
        // = sqrt((1/4 + 20/3) / (1/2)) = sqrt(83/6) = 3.7193.
        let r = split_rhat(&[&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0]]);
        assert!((r - (83.0f64 / 6.0).sqrt()).abs() < 1e-12, "{r}");
        // Odd lengths drop the middle draw: [1,2,9,3,4] is split like [1,2,3,4].
        let r2 = split_rhat(&[&[1.0, 2.0, 9.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0]]);
        assert_eq!(r, r2);
    }

    /// AR(1) chains x_t = rho x_{t-1} + e_t have integrated autocorrelation time
    /// (1 + rho) / (1 - rho) (closed form), so ESS = S (1 - rho) / (1 + rho).
    #[test]
    fn ess_of_ar1_chains_matches_the_closed_form() {
        let normal = RNormal::new(0.0, 1.0).unwrap();
        for (rho, k) in [(0.0, 0u64), (0.5, 1), (0.9, 2)] {
            let chains: Vec<Vec<f64>> = (0..4u64)
                .map(|c| {
                    let mut rng = crate::rng::stream(7, &[k, c]);
                    let mut x = normal.sample(&mut rng) / (1.0f64 - rho * rho).sqrt();
                    (0..50_000)
                        .map(|_| {
                            x = rho * x + normal.sample(&mut rng);
                            x
                        })
                        .collect()
                })
                .collect();
            let refs: Vec<&[f64]> = chains.iter().map(|c| c.as_slice()).collect();
            let want = 200_000.0 * (1.0 - rho) / (1.0 + rho);
            // Relative sd of an integrated autocorrelation time estimated with a window of
            // M lags from S draws: sqrt(2 (2M + 1) / S) (Madras & Sokal 1988). Geyer's rule
            // stops where the autocorrelations reach their noise level, about 60 lags for
            // rho = 0.9 here: sqrt(2 * 121 / 200,000) = 0.035, so 12 % is 3.4 sd (more for
            // the smaller rho).
            for got in [ess(&refs), ess_bulk(&refs)] {
                assert!((got / want - 1.0).abs() < 0.12, "rho {rho}: ESS {got} vs {want}");
            }
            // Mixed chains: R-hat near 1 (its excess is O(1/n)).
            assert!(rhat(&refs) < 1.005, "rho {rho}: {}", rhat(&refs));
        }
    }

    #[test]
    fn rhat_flags_chains_that_do_not_mix() {
        // Four iid normal chains; one shifted by two sd (a chain stuck in another mode: the
        // half means then have variance about 4 * 3/16 * 8/7 = 0.86, so R is about
        // sqrt(1 + 0.86) = 1.36 by the formula above); and
        // four chains with equal means but one with twice the scale (caught by folding).
        let normal = RNormal::new(0.0, 1.0).unwrap();
        let make = |shift: f64, scale: f64, c: u64| -> Vec<f64> {
            let mut rng = crate::rng::stream(9, &[c]);
            (0..1000).map(|_| shift + scale * normal.sample(&mut rng)).collect()
        };
        let ok: Vec<Vec<f64>> = (0..4).map(|c| make(0.0, 1.0, c)).collect();
        let shifted: Vec<Vec<f64>> = (0..4).map(|c| make(if c == 3 { 2.0 } else { 0.0 }, 1.0, c)).collect();
        let scaled: Vec<Vec<f64>> = (0..4).map(|c| make(0.0, if c == 3 { 2.0 } else { 1.0 }, c)).collect();
        let r = |v: &Vec<Vec<f64>>| rhat(&v.iter().map(|c| c.as_slice()).collect::<Vec<_>>());
        assert!(r(&ok) < 1.01, "{}", r(&ok));
        assert!(r(&shifted) > 1.1, "{}", r(&shifted));
        assert!(r(&scaled) > 1.05, "{}", r(&scaled));
        // Plain split R-hat misses the scale difference that folding catches.
        let plain = split_rhat(&scaled.iter().map(|c| c.as_slice()).collect::<Vec<_>>());
        assert!(plain < 1.02, "{plain}");
        assert!(ess(&[&[1.0, 1.0, 1.0, 1.0, 1.0]]).is_nan());
    }
}
