//! Beta priors for probabilities counted in groups: the beta-binomial marginal likelihood and
//! the empirical-Bayes prior that maximises it (type-II maximum likelihood).
//!
//! A group `i` (a query-document pair, a rank) has `s_i` successes and `f_i` failures of one
//! probability `theta_i ~ Beta(alpha, beta)`. Integrating `theta_i` out,
//!
//! `P(s_i, f_i | alpha, beta) = C(s_i + f_i, s_i) B(alpha + s_i, beta + f_i) / B(alpha, beta)`,
//!
//! the beta-binomial distribution. [`fit_prior`] maximises the product over groups in
//! `(alpha, beta)` (Newton's method on `(ln alpha, ln beta)` with a line search), within
//! [`KAPPA_MIN`] <= alpha + beta <= [`KAPPA_MAX`]. Counts may be fractional; the binomial
//! coefficient does not depend on the prior and is left out of [`ln_marginal`].
//!
//! ```
//! use serpsim::stats::beta_binomial::{fit_prior, BetaPrior};
//! // Four groups: 1/4, 2/4, 3/4 and 4/4 successes.
//! let fit = fit_prior(&[(1.0, 3.0), (2.0, 2.0), (3.0, 1.0), (4.0, 0.0)]).unwrap();
//! assert!(fit.prior.mean() > 0.5 && fit.prior.mean() < 0.75);
//! assert_eq!(BetaPrior::UNIFORM.mean(), 0.5);
//! ```

use crate::error::{Error, Result};
use statrs::function::gamma::{digamma, ln_gamma};
use std::collections::HashMap;

/// Smallest prior concentration alpha + beta the fit may return.
pub const KAPPA_MIN: f64 = 1e-2;
/// Largest prior concentration alpha + beta the fit may return (the maximum moves to infinity
/// when the groups vary less than binomial noise: then every group gets the pooled mean).
pub const KAPPA_MAX: f64 = 1e4;

/// A Beta(alpha, beta) distribution used as a prior.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct BetaPrior {
    /// First shape (prior successes).
    pub alpha: f64,
    /// Second shape (prior failures).
    pub beta: f64,
}

impl BetaPrior {
    /// Beta(1, 1): PyClick's one pseudo-success in two pseudo-trials.
    pub const UNIFORM: BetaPrior = BetaPrior { alpha: 1.0, beta: 1.0 };

    /// A prior with finite positive shapes.
    pub fn new(alpha: f64, beta: f64) -> Result<Self> {
        if !(alpha > 0.0 && beta > 0.0 && alpha.is_finite() && beta.is_finite()) {
            return Err(Error::Invalid(format!("Beta({alpha}, {beta}): both shapes must be finite and > 0")));
        }
        Ok(BetaPrior { alpha, beta })
    }

    /// Prior mean alpha / (alpha + beta).
    pub fn mean(&self) -> f64 {
        self.alpha / (self.alpha + self.beta)
    }

    /// Concentration alpha + beta (prior sample size).
    pub fn concentration(&self) -> f64 {
        self.alpha + self.beta
    }
}

/// ln B(a, b).
#[inline]
pub fn ln_beta(a: f64, b: f64) -> f64 {
    ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b)
}

/// ln [B(alpha + s, beta + f) / B(alpha, beta)]: the log marginal likelihood of `s` successes
/// and `f` failures in a fixed order (without the binomial coefficient).
#[inline]
pub fn ln_marginal(prior: BetaPrior, s: f64, f: f64) -> f64 {
    if s == 0.0 && f == 0.0 {
        return 0.0;
    }
    ln_beta(prior.alpha + s, prior.beta + f) - ln_beta(prior.alpha, prior.beta)
}

/// ln P(K = k) for K ~ BetaBinomial(n, alpha, beta).
pub fn beta_binomial_ln_pmf(k: u64, n: u64, prior: BetaPrior) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    let (k, n) = (k as f64, n as f64);
    ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0) + ln_marginal(prior, k, n - k)
}

/// Trigamma function psi'(x) for x > 0: recurrence up to x >= 10, then the asymptotic series
/// 1/x + 1/(2x^2) + 1/(6x^3) - 1/(30x^5) + 1/(42x^7) - 1/(30x^9) (next term 5/(66x^11) < 1e-12).
pub fn trigamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < 10.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    acc + 1.0 / x + z / 2.0 + z / x * (1.0 / 6.0 - z * (1.0 / 30.0 - z * (1.0 / 42.0 - z / 30.0)))
}

/// The empirical-Bayes prior of a set of groups.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PriorFit {
    /// The maximising prior.
    pub prior: BetaPrior,
    /// Sum over groups of [`ln_marginal`] at the maximum.
    pub ln_marginal: f64,
    /// Groups with at least one observation (the others do not inform the prior).
    pub groups: usize,
    /// The maximum lies on the bound alpha + beta = [`KAPPA_MAX`] or [`KAPPA_MIN`].
    pub at_bound: bool,
}

/// Distinct (s, f) with their multiplicities: many groups share counts, which makes the
/// fit's cost depend on the number of distinct count pairs, not of groups.
fn distinct(counts: &[(f64, f64)]) -> Vec<(f64, f64, f64)> {
    let mut m: HashMap<(u64, u64), f64> = HashMap::new();
    for &(s, f) in counts {
        if s + f > 0.0 {
            *m.entry((s.to_bits(), f.to_bits())).or_insert(0.0) += 1.0;
        }
    }
    let mut v: Vec<(f64, f64, f64)> = m.into_iter().map(|((s, f), w)| (f64::from_bits(s), f64::from_bits(f), w)).collect();
    // A fixed order, so the sum (and the fit) does not depend on hashing.
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    v
}

fn objective(d: &[(f64, f64, f64)], a: f64, b: f64) -> f64 {
    let base = ln_beta(a, b);
    d.iter().map(|&(s, f, w)| w * (ln_beta(a + s, b + f) - base)).sum()
}

/// Fits Beta(alpha, beta) to groups `(successes, failures)` by maximising the beta-binomial
/// marginal likelihood. Fails when no group has an observation or a count is negative or not
/// finite.
///
/// Method: Newton's method on (ln alpha, ln beta) with the exact gradient (digamma) and
/// Hessian (trigamma), halving the step until the likelihood increases, from the pooled mean
/// with concentration 2; stops when the gradient norm is below 1e-9 per group or after 200
/// steps. The result is clamped to the concentration bounds.
pub fn fit_prior(counts: &[(f64, f64)]) -> Result<PriorFit> {
    if let Some(&(s, f)) = counts.iter().find(|(s, f)| !(s.is_finite() && f.is_finite() && *s >= 0.0 && *f >= 0.0)) {
        return Err(Error::Invalid(format!("prior fit: counts must be finite and >= 0, got ({s}, {f})")));
    }
    let d = distinct(counts);
    let groups: f64 = d.iter().map(|x| x.2).sum();
    if d.is_empty() {
        return Err(Error::Invalid("prior fit: no group has an observation".into()));
    }
    let (ts, tf) = d.iter().fold((0.0, 0.0), |(a, b), &(s, f, w)| (a + w * s, b + w * f));
    let mu = ((ts + 0.5) / (ts + tf + 1.0)).clamp(1e-6, 1.0 - 1e-6);
    // Variables x = ln alpha, y = ln beta.
    let (mut x, mut y) = ((2.0 * mu).ln(), (2.0 * (1.0 - mu)).ln());
    let clamp = |x: f64, y: f64| -> (f64, f64) {
        let (a, b) = (x.exp(), y.exp());
        let k = a + b;
        let target = k.clamp(KAPPA_MIN, KAPPA_MAX);
        if (target - k).abs() > 0.0 {
            let m = a / k;
            (((target * m).max(1e-300)).ln(), ((target * (1.0 - m)).max(1e-300)).ln())
        } else {
            (x, y)
        }
    };
    let mut value = objective(&d, x.exp(), y.exp());
    for _ in 0..200 {
        let (a, b) = (x.exp(), y.exp());
        let (pab, pa, pb) = (digamma(a + b), digamma(a), digamma(b));
        let (tab, ta, tb) = (trigamma(a + b), trigamma(a), trigamma(b));
        let (mut ga, mut gb, mut haa, mut hbb, mut hab) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for &(s, f, w) in &d {
            let n = s + f;
            let dn = digamma(a + b + n);
            let tn = trigamma(a + b + n);
            ga += w * (digamma(a + s) - dn - pa + pab);
            gb += w * (digamma(b + f) - dn - pb + pab);
            haa += w * (trigamma(a + s) - tn - ta + tab);
            hbb += w * (trigamma(b + f) - tn - tb + tab);
            hab += w * (-tn + tab);
        }
        // Chain rule to (x, y): d/dx = a d/da; d2/dx2 = a^2 d2/da2 + a d/da.
        let (gx, gy) = (a * ga, b * gb);
        let (hxx, hyy, hxy) = (a * a * haa + gx, b * b * hbb + gy, a * b * hab);
        if (gx * gx + gy * gy).sqrt() < 1e-9 * groups.max(1.0) {
            break;
        }
        // Newton direction when the Hessian is negative definite, else gradient ascent.
        let det = hxx * hyy - hxy * hxy;
        let (mut dx, mut dy) = if hxx < 0.0 && det > 0.0 { (-(hyy * gx - hxy * gy) / det, -(hxx * gy - hxy * gx) / det) } else { (gx / groups, gy / groups) };
        let len = (dx * dx + dy * dy).sqrt();
        if len > 2.0 {
            dx *= 2.0 / len;
            dy *= 2.0 / len;
        }
        let mut step = 1.0;
        let mut moved = false;
        for _ in 0..60 {
            let (nx, ny) = clamp(x + step * dx, y + step * dy);
            let v = objective(&d, nx.exp(), ny.exp());
            if v > value {
                let small = (nx - x).abs() + (ny - y).abs() < 1e-12;
                (x, y, value) = (nx, ny, v);
                moved = !small;
                break;
            }
            step *= 0.5;
        }
        if !moved {
            break;
        }
    }
    let (a, b) = (x.exp(), y.exp());
    let k = a + b;
    Ok(PriorFit {
        prior: BetaPrior { alpha: a, beta: b },
        ln_marginal: value,
        groups: groups as usize,
        at_bound: k >= KAPPA_MAX * (1.0 - 1e-9) || k <= KAPPA_MIN * (1.0 + 1e-9),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marginal_closed_forms() {
        // Hand derivation: B(a+1, b) / B(a, b) = a / (a + b); one success under Beta(2, 3)
        // has marginal probability 2/5. Two trials, one success, in a fixed order:
        // B(a+1, b+1) / B(a, b) = a b / ((a + b)(a + b + 1)) = 6 / 30 = 0.2.
        let p = BetaPrior::new(2.0, 3.0).unwrap();
        assert!((ln_marginal(p, 1.0, 0.0) - (0.4f64).ln()).abs() < 1e-12);
        assert!((ln_marginal(p, 1.0, 1.0) - (0.2f64).ln()).abs() < 1e-12);
        // The pmf adds C(2, 1) = 2: P(K = 1 | n = 2) = 0.4; the three values sum to 1:
        // P(0) = b (b+1) / ((a+b)(a+b+1)) = 12/30, P(2) = a (a+1) / 30 = 6/30.
        let pmf: Vec<f64> = (0..=2).map(|k| beta_binomial_ln_pmf(k, 2, p).exp()).collect();
        for (got, want) in pmf.iter().zip([0.4, 0.4, 0.2]) {
            assert!((got - want).abs() < 1e-12, "{pmf:?}");
        }
        assert_eq!(ln_marginal(p, 0.0, 0.0), 0.0);
        assert_eq!(beta_binomial_ln_pmf(3, 2, p), f64::NEG_INFINITY);
    }

    #[test]
    fn trigamma_reference_values() {
        // psi'(1) = pi^2 / 6; psi'(1/2) = pi^2 / 2; psi'(x) ~ 1/x for large x:
        // psi'(100) = 0.010050166663333571 (Abramowitz & Stegun 6.4.12 series).
        let pi2 = std::f64::consts::PI.powi(2);
        assert!((trigamma(1.0) - pi2 / 6.0).abs() < 1e-11);
        assert!((trigamma(0.5) - pi2 / 2.0).abs() < 1e-10);
        assert!((trigamma(100.0) - 0.010050166663333571).abs() < 1e-14);
    }

    /// The fitted maximum against a brute-force grid over (mean, concentration) of the same
    /// likelihood (whose terms are checked against closed forms above).
    #[test]
    fn fit_is_the_grid_maximum() {
        let counts = [(1.0, 3.0), (2.0, 2.0), (3.0, 1.0), (4.0, 0.0), (0.0, 4.0), (2.0, 6.0), (5.0, 1.0), (0.0, 0.0)];
        let fit = fit_prior(&counts).unwrap();
        assert_eq!(fit.groups, 7);
        assert!(!fit.at_bound);
        let d = distinct(&counts);
        let mut best = (f64::NEG_INFINITY, 0.0, 0.0);
        for i in 1..400 {
            let m = i as f64 / 400.0;
            for j in 0..400 {
                let k = (0.05f64).ln() + j as f64 * ((100.0f64).ln() - (0.05f64).ln()) / 399.0;
                let k = k.exp();
                let v = objective(&d, m * k, (1.0 - m) * k);
                if v > best.0 {
                    best = (v, m * k, (1.0 - m) * k);
                }
            }
        }
        assert!(fit.ln_marginal >= best.0 - 1e-9, "{fit:?} vs grid {best:?}");
        assert!((fit.prior.mean() - best.1 / (best.1 + best.2)).abs() < 0.01, "{fit:?} vs {best:?}");
    }

    #[test]
    fn recovers_a_beta_prior_from_binomial_groups() {
        // 4,000 groups of 20 trials with theta ~ Beta(2, 5) (mean 2/7, concentration 7).
        // A group's share s/n has variance m(1-m)/n (1 + (n-1)/(k+1)) = 0.0344, so the pooled
        // mean has sd sqrt(0.0344 / 4000) = 0.0029: the 0.02 tolerance is 7 sd. The
        // concentration is the harder parameter; 0.2 on ln k is a 22 % relative error.
        use rand::Rng;
        use rand_distr::{Beta, Distribution};
        let mut rng = crate::rng::stream(42, &[]);
        let truth = Beta::new(2.0, 5.0).unwrap();
        let counts: Vec<(f64, f64)> = (0..4000)
            .map(|_| {
                let t = truth.sample(&mut rng);
                let s = (0..20).filter(|_| rng.random::<f64>() < t).count() as f64;
                (s, 20.0 - s)
            })
            .collect();
        let fit = fit_prior(&counts).unwrap();
        assert!((fit.prior.mean() - 2.0 / 7.0).abs() < 0.02, "{fit:?}");
        assert!((fit.prior.concentration().ln() - 7f64.ln()).abs() < 0.2, "{fit:?}");
    }

    #[test]
    fn no_spread_goes_to_the_bound_and_bad_input_fails() {
        // Every group 5 of 10: less spread than binomial noise, the maximum is at infinity.
        let fit = fit_prior(&vec![(5.0, 5.0); 50]).unwrap();
        assert!(fit.at_bound && (fit.prior.concentration() - KAPPA_MAX).abs() < 1e-6 * KAPPA_MAX, "{fit:?}");
        assert!((fit.prior.mean() - 0.5).abs() < 1e-6);
        assert!(fit_prior(&[(0.0, 0.0)]).is_err());
        assert!(fit_prior(&[(-1.0, 2.0)]).unwrap_err().to_string().contains(">= 0"));
        assert!(BetaPrior::new(0.0, 1.0).is_err());
    }
}
