//! The variance of a model's error beyond sampling noise, learned from natural experiments.
//!
//! A model predicts a difference `d_hat`; the observed difference `d_obs` carries sampling
//! noise of variance `se^2`, and the prediction its own posterior variance `v` (0 for a point
//! estimate). If the model were right, `E[(d_obs - d_hat)^2] = se^2 + v`. What is left over is the
//! model's error: with residual `r = d_obs - d_hat`, `E[r^2] = tau^2(x) + se^2 + v` where
//! `tau^2(x) = max(0, coef . x)` depends on features `x` of the comparison (the first feature is
//! an intercept, 1). [`ModelError::fit`] fits `coef >= 0` to `z = r^2 - se^2 - v` by weighted
//! least squares, weights `1 / (se^2 + v + tau^2)^2` (the inverse variance of `r^2` for a normal
//! `r`: `Var(r^2) = 2 sigma^4`), iterated until the coefficients settle — a method-of-moments
//! estimator in the manner of DerSimonian and Laird's between-study variance, with covariates
//! (a meta-regression). Assumptions: model errors are independent of each other given `x`,
//! normal, and independent of the sampling noise.

use serde::Serialize;

/// Number of features (the first is the intercept).
pub const NF: usize = 3;

/// One natural experiment for [`ModelError::fit`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorSample {
    /// Observed minus predicted difference.
    pub residual: f64,
    /// Sampling variance of the observed difference plus posterior variance of the prediction.
    pub noise: f64,
    /// Features ([`FEATURES`]).
    pub x: [f64; NF],
}

/// The fitted model-error variance `tau^2(x) = max(0, coef . x)` (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ModelError {
    /// Coefficients, in [`FEATURES`] order, all >= 0.
    pub coef: [f64; NF],
    /// Natural experiments it was fitted on.
    pub samples: usize,
}

impl ModelError {
    /// No model error (the model taken as true, as in Grotov et al.).
    pub const NONE: ModelError = ModelError { coef: [0.0; NF], samples: 0 };

    /// `tau^2` at features `x`.
    pub fn variance(&self, x: &[f64; NF]) -> f64 {
        self.coef.iter().zip(x).map(|(c, v)| c * v).sum::<f64>().max(0.0)
    }

    /// Fits the coefficients (module docs). No sample gives [`ModelError::NONE`].
    pub fn fit(samples: &[ErrorSample]) -> ModelError {
        let good: Vec<&ErrorSample> = samples.iter().filter(|s| s.residual.is_finite() && s.noise.is_finite() && s.noise >= 0.0).collect();
        if good.is_empty() {
            return ModelError::NONE;
        }
        let z: Vec<f64> = good.iter().map(|s| s.residual * s.residual - s.noise).collect();
        let start = (z.iter().sum::<f64>() / z.len() as f64).max(0.0);
        let mut coef = [start, 0.0, 0.0];
        for _ in 0..100 {
            let w: Vec<f64> = good
                .iter()
                .map(|s| {
                    let t = s.noise + coef.iter().zip(&s.x).map(|(c, v)| c * v).sum::<f64>().max(0.0);
                    // A floor keeps a noise-free sample from taking all the weight.
                    1.0 / (t.max(1e-8) * t.max(1e-8))
                })
                .collect();
            let next = nnls(&good.iter().map(|s| s.x).collect::<Vec<_>>(), &z, &w);
            let change = next.iter().zip(&coef).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            coef = next;
            if change < 1e-14 {
                break;
            }
        }
        ModelError { coef, samples: good.len() }
    }
}

/// Weighted least squares of `z` on `x` with every coefficient >= 0, by trying every subset of
/// free coefficients (2^NF of them) and keeping the feasible one with the least weighted error.
fn nnls(x: &[[f64; NF]], z: &[f64], w: &[f64]) -> [f64; NF] {
    let mut best = ([0.0; NF], z.iter().zip(w).map(|(z, w)| w * z * z).sum::<f64>());
    for mask in 1u32..(1 << NF) {
        let free: Vec<usize> = (0..NF).filter(|&j| mask & (1 << j) != 0).collect();
        let k = free.len();
        let mut a = vec![vec![0.0; k + 1]; k];
        for ((xi, &zi), &wi) in x.iter().zip(z).zip(w) {
            for (r, &jr) in free.iter().enumerate() {
                for (c, &jc) in free.iter().enumerate() {
                    a[r][c] += wi * xi[jr] * xi[jc];
                }
                a[r][k] += wi * xi[jr] * zi;
            }
        }
        let Some(sol) = solve(a) else { continue };
        if sol.iter().any(|&v| v < 0.0 || !v.is_finite()) {
            continue;
        }
        let mut coef = [0.0; NF];
        for (&j, &v) in free.iter().zip(&sol) {
            coef[j] = v;
        }
        let sse: f64 = x.iter().zip(z).zip(w).map(|((xi, &zi), &wi)| wi * (zi - coef.iter().zip(xi).map(|(c, v)| c * v).sum::<f64>()).powi(2)).sum();
        if sse < best.1 {
            best = (coef, sse);
        }
    }
    best.0
}

/// Solves the augmented system `a` (k rows of k + 1) by Gaussian elimination with partial
/// pivoting; None when singular.
fn solve(mut a: Vec<Vec<f64>>) -> Option<Vec<f64>> {
    let k = a.len();
    for col in 0..k {
        let piv = (col..k).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        let scale = a.iter().map(|r| r[col].abs()).fold(0.0, f64::max);
        if a[piv][col].abs() <= 1e-12 * scale.max(1e-300) {
            return None;
        }
        a.swap(col, piv);
        for r in 0..k {
            if r != col {
                let f = a[r][col] / a[col][col];
                for c in col..=k {
                    a[r][c] -= f * a[col][c];
                }
            }
        }
    }
    Some((0..k).map(|r| a[r][k] / a[r][r]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_distr::{Distribution, Normal};

    /// Residuals drawn with a planted `tau^2(x) = 0.004 + 0.02 u` (u uniform in [0, 1]) plus
    /// sampling noise of known variance: the fit recovers the planted coefficients within
    /// their Monte-Carlo error (hand derivation: with 4,000 samples, the weighted mean of
    /// `z` has a standard error of about `sqrt(2) (tau^2 + se^2) / sqrt(n)` = 0.0004 at the
    /// typical `tau^2 + se^2` = 0.02; the slope's about three times that).
    #[test]
    fn recovers_a_planted_variance_function() {
        let mut rng = crate::rng::stream(5, &[1]);
        let mut samples = Vec::new();
        for i in 0..4000 {
            let u = (i % 100) as f64 / 99.0;
            let se2 = 0.002 + 0.004 * ((i / 100) % 4) as f64;
            let tau2 = 0.004 + 0.02 * u;
            let r = Normal::new(0.0, (tau2 + se2).sqrt()).unwrap().sample(&mut rng);
            samples.push(ErrorSample { residual: r, noise: se2, x: [1.0, u, 0.0] });
        }
        let fit = ModelError::fit(&samples);
        assert!((fit.coef[0] - 0.004).abs() < 0.002, "{fit:?}");
        assert!((fit.coef[1] - 0.02).abs() < 0.005, "{fit:?}");
        assert!(fit.coef[2] < 0.002, "{fit:?}");
        // Without a planted error the fit finds (almost) none: the sampling noise is subtracted.
        let null: Vec<ErrorSample> = samples
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let r = Normal::new(0.0, s.noise.sqrt()).unwrap().sample(&mut crate::rng::stream(6, &[i as u64]));
                ErrorSample { residual: r, ..*s }
            })
            .collect();
        let fit = ModelError::fit(&null);
        assert!(fit.variance(&[1.0, 0.5, 0.0]) < 0.001, "{fit:?}");
        assert_eq!(ModelError::fit(&[]), ModelError::NONE);
    }
}
