//! Quantiles of the Beta distribution (the inverse of the regularised incomplete Beta function
//! I_x(a, b)), for the credible intervals of conjugate posteriors.
//!
//! One evaluation of I_x(a, b) at the start, then the rest of the way from the Taylor series of
//! the density there ([`local_root`]: the density's derivatives follow from a first-order
//! linear ODE, so the series costs a few multiplications a term and no transcendental
//! function), solved to a fraction of an ulp. Only when the start is too far for that series
//! to converge does Halley's method on I_x(a, b) - p take steps, kept inside a shrinking
//! bracket (bisection when a step leaves it). I_x(a, b) comes from its continued fraction
//! (modified Lentz), evaluated in the tail where it converges (x below (a + 1) / (a + b + 2),
//! else 1 - I_{1-x}(b, a) compared with 1 - p, so both tails keep their relative accuracy).
//! The start is Carter's (1947) approximation for a, b >= 1 (as in AS 109) and the power-law
//! tails of Numerical Recipes (3rd ed., §6.14) otherwise. ln B(a, b) is computed once per distribution
//! ([`BetaQuantile::new`]) and serves both ends of an interval; for large shapes it is built
//! from Stirling remainders rather than differences of ln Γ values near 10^6, which would
//! lose ten digits.

use statrs::function::gamma::ln_gamma;

/// Relative size of the last Halley step at which the iteration stops. Halley converges
/// cubically, so the error left after a step of relative size 1e-8 is of order 1e-24 times a
/// constant of the shape: below the rounding of I_x itself.
const STEP_TOL: f64 = 1e-8;
/// Iteration caps (never reached on well-formed input; bisection guarantees progress).
const MAX_STEPS: usize = 200;
const MAX_TERMS: usize = 100_000;
/// Floor of the Lentz denominators.
const TINY: f64 = 1e-300;

/// A Beta(a, b) distribution prepared for quantiles: ln B(a, b) computed once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BetaQuantile {
    a: f64,
    b: f64,
    ln_beta: f64,
}

impl BetaQuantile {
    /// Beta(a, b); `a` and `b` must be positive and finite (checked by the caller: posterior
    /// shapes are a prior's plus counts).
    pub fn new(a: f64, b: f64) -> Self {
        debug_assert!(a > 0.0 && b > 0.0 && a.is_finite() && b.is_finite());
        BetaQuantile { a, b, ln_beta: ln_beta(a, b) }
    }

    /// The regularised incomplete Beta function I_x(a, b).
    pub fn cdf(&self, x: f64) -> f64 {
        if !(x > 0.0) {
            return 0.0;
        }
        if !(x < 1.0) {
            return 1.0;
        }
        let (upper, v) = self.tail(x, self.front(x));
        if upper {
            1.0 - v
        } else {
            v
        }
    }

    /// x^a (1 - x)^b / B(a, b).
    #[inline]
    fn front(&self, x: f64) -> f64 {
        (self.a * x.ln() + self.b * (-x).ln_1p() - self.ln_beta).exp()
    }

    /// The tail of I_x(a, b) that its continued fraction gives accurately: (false, I_x(a, b))
    /// for x below (a + 1) / (a + b + 2), else (true, 1 - I_x(a, b)).
    #[inline]
    fn tail(&self, x: f64, front: f64) -> (bool, f64) {
        let (a, b) = (self.a, self.b);
        if x < (a + 1.0) / (a + b + 2.0) {
            (false, front * continued_fraction(a, b, x) / a)
        } else {
            (true, front * continued_fraction(b, a, 1.0 - x) / b)
        }
    }

    /// The p-quantile: x with I_x(a, b) = p (0 for p <= 0, 1 for p >= 1).
    pub fn quantile(&self, p: f64) -> f64 {
        if !(p > 0.0) {
            return 0.0;
        }
        if !(p < 1.0) {
            return 1.0;
        }
        let (a, b) = (self.a, self.b);
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        let mut x = start(a, b, p, self.ln_beta).clamp(f64::MIN_POSITIVE, 1.0 - f64::EPSILON / 2.0);
        for _ in 0..MAX_STEPS {
            let front = self.front(x);
            let err = match self.tail(x, front) {
                (false, v) => v - p,
                (true, v) => (1.0 - p) - v,
            };
            if err == 0.0 {
                return x;
            }
            if err > 0.0 {
                hi = x;
            } else {
                lo = x;
            }
            // Near the root, the rest of the way from the density's Taylor series at x, with no
            // further evaluation of I.
            if let Some(t) = local_root(a, b, x, -err / front) {
                let y = x + t;
                if y > lo && y < hi {
                    return y;
                }
            }
            // Newton step err / density, density = front / (x (1 - x)); Halley's correction
            // uses density' / density = (a - 1) / x - (b - 1) / (1 - x).
            let newton = err * x * (1.0 - x) / front;
            let curve = newton * ((a - 1.0) / x - (b - 1.0) / (1.0 - x));
            let step = if newton.is_finite() { newton / (1.0 - 0.5 * curve.min(1.0)) } else { f64::NAN };
            if step.abs() <= STEP_TOL * x.min(1.0 - x) {
                return (x - step).clamp(lo, hi);
            }
            let mut next = x - step;
            if !(next > lo && next < hi) {
                // Outside the bracket: bisect (geometrically near 0, where quantiles of small
                // shapes live on a log scale).
                next = if lo == 0.0 && hi < 0.5 { hi * 0.5 } else { 0.5 * (lo + hi) };
            }
            x = next;
        }
        x
    }

    /// The equal-tailed interval at `level`: quantiles (1 - level) / 2 and (1 + level) / 2.
    pub fn interval(&self, level: f64) -> (f64, f64) {
        let q = (1.0 - level) / 2.0;
        (self.quantile(q), self.quantile(1.0 - q))
    }
}

/// The continued fraction of I_x(a, b) (without its front factor x^a (1 - x)^b / (a B)), by the
/// modified Lentz method; converges quickly for x below (a + 1) / (a + b + 2).
fn continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    let floor = |v: f64| if v.abs() < TINY { TINY } else { v };
    let mut c = 1.0;
    let mut d = 1.0 / floor(1.0 - (a + b) * x / (a + 1.0));
    let mut h = d;
    for m in 1..=MAX_TERMS {
        let m = m as f64;
        let m2 = 2.0 * m;
        // Even term d_{2m}, then odd term d_{2m+1}.
        for num in [m * (b - m) * x / ((a - 1.0 + m2) * (a + m2)), -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2))] {
            d = 1.0 / floor(1.0 + num * d);
            c = floor(1.0 + num / c);
            h *= d * c;
        }
        if (d * c - 1.0).abs() <= f64::EPSILON {
            break;
        }
    }
    h
}

/// Terms of the local series at most (beyond, the start was too far: Halley goes on).
const SERIES_TERMS: usize = 40;
/// Size (in units of u = t / (x (1 - x))) of the first neglected terms of the local series,
/// and of the last Newton correction: 2^-57, so the step t is exact to a fraction of an ulp of
/// min(x, 1 - x) >= x (1 - x).
const SERIES_TOL: f64 = 6.938_893_903_907_228e-18;

/// The step t with I_{x+t}(a, b) = I_x(a, b) + w x^a (1 - x)^b / B(a, b), from the Taylor
/// series of the density at x; None when the series does not converge fast enough over the
/// step (the caller takes a Halley step and evaluates I again).
///
/// The density f satisfies x (1 - x) f' = ((a - 1) - (a + b - 2) x) f. With t = x (1 - x) u
/// and f(x + t) = f(x) sum_k d_k u^k, matching powers of u gives d_0 = 1 and
/// d_{k+1} = ((r - (1 - 2x) k) d_k + (k - 1 - (a + b - 2)) x (1 - x) d_{k-1}) / (k + 1),
/// r = (a - 1) - (a + b - 2) x; since f(x) x (1 - x) = x^a (1 - x)^b / B, the step solves
/// P(u) = sum_k d_k u^(k+1) / (k + 1) = w: Newton on the polynomial from the third-order
/// reversion u = w - c1 w^2 + (2 c1^2 - c2) w^3 (c_k = d_k / (k + 1)). Accepted only if, over
/// |u| <= 2 |w|, two successive terms fall below SERIES_TOL, no term exceeds 4 |u| (no
/// cancellation) and the root stays within that radius.
fn local_root(a: f64, b: f64, x: f64, w: f64) -> Option<f64> {
    if !(w.is_finite()) {
        return None;
    }
    let q = x * (1.0 - x);
    let (r, q1, n2) = ((a - 1.0) - (a + b - 2.0) * x, 1.0 - 2.0 * x, a + b - 2.0);
    let radius = 2.0 * w.abs();
    // Coefficients c_k = d_k / (k + 1) of P.
    let mut c = [0.0f64; SERIES_TERMS];
    let (mut prev, mut d) = (0.0, 1.0);
    let mut pow = radius;
    let mut len = 0;
    let mut small = 0;
    for k in 0..SERIES_TERMS {
        let kf = k as f64;
        c[k] = d * RECIPROCALS[k];
        let term = (c[k] * pow).abs();
        if term > 4.0 * radius {
            return None;
        }
        len = k + 1;
        small = if term <= SERIES_TOL { small + 1 } else { 0 };
        if small == 2 {
            break;
        }
        let next = ((r - q1 * kf) * d + (kf - 1.0 - n2) * q * prev) * RECIPROCALS[k];
        (prev, d) = (d, next);
        pow *= radius;
    }
    if small < 2 {
        return None;
    }
    let c = &c[..len];
    let (c1, c2) = (c.get(1).copied().unwrap_or(0.0), c.get(2).copied().unwrap_or(0.0));
    let mut u = w * (1.0 - w * (c1 - w * (2.0 * c1 * c1 - c2)));
    for _ in 0..8 {
        if !(u.abs() <= radius) {
            return None;
        }
        let (mut pv, mut dv) = (0.0, 0.0);
        for (k, &ck) in c.iter().enumerate().rev() {
            pv = pv * u + ck;
            dv = dv * u + ck * (k as f64 + 1.0);
        }
        pv *= u;
        if !(dv > 0.0) {
            return None;
        }
        let du = (pv - w) / dv;
        u -= du;
        if du.abs() <= SERIES_TOL.max(2.0 * f64::EPSILON * u.abs()) {
            return (u.abs() <= radius).then_some(u * q);
        }
    }
    None
}

/// 1 / (k + 1) for k below [`SERIES_TERMS`].
const RECIPROCALS: [f64; SERIES_TERMS] = {
    let mut r = [0.0; SERIES_TERMS];
    let mut k = 0;
    while k < SERIES_TERMS {
        r[k] = 1.0 / (k as f64 + 1.0);
        k += 1;
    }
    r
};

/// Starting value of the quantile iteration.
fn start(a: f64, b: f64, p: f64, ln_beta: f64) -> f64 {
    if a >= 1.0 && b >= 1.0 {
        // Carter (1947) via a normal quantile (Hastings' approximation), as in AS 109.
        let pp = if p < 0.5 { p } else { 1.0 - p };
        let t = (-2.0 * pp.ln()).sqrt();
        let mut z = (2.30753 + t * 0.27061) / (1.0 + t * (0.99229 + t * 0.04481)) - t;
        // z is the upper-tail normal quantile of pp; Carter's x falls as w grows.
        if p < 0.5 {
            z = -z;
        }
        let r = (z * z - 3.0) / 6.0;
        let (s, u) = (1.0 / (2.0 * a - 1.0), 1.0 / (2.0 * b - 1.0));
        let h = 2.0 / (s + u);
        let w = z * (h + r).sqrt() / h - (u - s) * (r + 5.0 / 6.0 - 2.0 / (3.0 * h));
        a / (a + b * (2.0 * w).exp())
    } else {
        // Power laws of the two tails: I_x ~ x^a / (a B) near 0, 1 - I_x ~ (1 - x)^b / (b B)
        // near 1, joined at the mean's weights.
        let n = a + b;
        let lower = (a * (a / n).ln() - ln_beta).exp() / a;
        let upper = (b * (b / n).ln() - ln_beta).exp() / b;
        let w = lower + upper;
        if p < lower / w {
            ((p * w / lower).ln() / a + (a / n).ln()).exp()
        } else {
            1.0 - (((1.0 - p) * w / upper).ln() / b + (b / n).ln()).exp()
        }
    }
}

/// ln Γ(x) - ((x - 1/2) ln x - x + ln √(2π)) for x >= 10: the Stirling series to the term in
/// x^-13 (Bernoulli numbers B2..B14), whose next term is below 4e-17 at x = 10.
fn stirling_remainder(x: f64) -> f64 {
    let y = 1.0 / (x * x);
    (1.0 / 12.0 + y * (-1.0 / 360.0 + y * (1.0 / 1260.0 + y * (-1.0 / 1680.0 + y * (1.0 / 1188.0 + y * (-691.0 / 360360.0 + y / 156.0)))))) / x
}

/// ln B(a, b) = ln Γ(a) + ln Γ(b) - ln Γ(a + b). With p = min(a, b), q = max(a, b),
/// s = a + b and r the Stirling remainder, Stirling's formula gives
/// ln B = (p - 1/2) ln(p/s) + (q - 1/2) ln(q/s) - ln(s)/2 + ln √(2π) + r(p) + r(q) - r(s)
/// for p >= 10, and ln Γ(p) + (q - 1/2) ln(q/s) - p ln s + p + r(q) - r(s) for q >= 10, where
/// no large terms cancel.
pub fn ln_beta(a: f64, b: f64) -> f64 {
    const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;
    let (p, q) = if a < b { (a, b) } else { (b, a) };
    let s = p + q;
    if p >= 10.0 {
        (p - 0.5) * (p / s).ln() + (q - 0.5) * (-p / s).ln_1p() - 0.5 * s.ln() + LN_SQRT_2PI + stirling_remainder(p) + stirling_remainder(q)
            - stirling_remainder(s)
    } else if q >= 10.0 {
        ln_gamma(p) + (q - 0.5) * (-p / s).ln_1p() - p * s.ln() + p + stirling_remainder(q) - stirling_remainder(s)
    } else {
        ln_gamma(p) + ln_gamma(q) - ln_gamma(s)
    }
}

#[cfg(test)]
mod tests;
