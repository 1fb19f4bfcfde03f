//! Power of the paired t test over topics: how many topics would settle a comparison, and the
//! smallest difference a number of topics can detect.
//!
//! The test is the two-sided paired t test of the per-topic mean differences at level `alpha`
//! (the test of `tests.csv` and of the verdict's interval). With `n` topics and standardised
//! effect `d` (d_z = mean / sd of the per-topic differences), the statistic follows a
//! noncentral t with `n - 1` degrees of freedom and noncentrality `d sqrt(n)`, so
//!
//! ```text
//! power(d, n) = P(T' >= t_{1-alpha/2, n-1}) + P(T' <= t_{alpha/2, n-1}),  T' ~ t'(n - 1, d sqrt n)
//! ```
//!
//! as in Cohen (1988, ch. 2) and statsmodels' `TTestPower` (which `tests/fixtures/power/`
//! checks against). [`topics_needed`] solves for `n` (continuous, as statsmodels' `solve_power`
//! returns it; a count of topics is its ceiling), [`detectable_effect`] for `d`.
//!
//! The noncentral t distribution function is Lenth's algorithm AS 243 (Applied Statistics 38,
//! 1989) with Guenther's twin series, the form R's `pnt` uses: a Poisson mixture of incomplete
//! beta functions, summed to an error bound of 1e-12.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
use statrs::function::beta::beta_reg;
use statrs::function::gamma::ln_gamma;

/// The level of the test the verdict uses.
pub const ALPHA: f64 = 0.05;
/// The power a "topics needed" figure is for.
pub const POWER: f64 = 0.8;

fn std_normal_cdf(x: f64) -> f64 {
    Normal::new(0.0, 1.0).expect("standard normal").cdf(x)
}

/// P(T <= t) for T noncentral t with `df` degrees of freedom and noncentrality `ncp`
/// (AS 243). NaN for `df <= 0` or non-finite arguments other than infinite `t`.
pub fn noncentral_t_cdf(t: f64, df: f64, ncp: f64) -> f64 {
    if !(df > 0.0) || t.is_nan() || !ncp.is_finite() {
        return f64::NAN;
    }
    if t == f64::INFINITY {
        return 1.0;
    }
    if t == f64::NEG_INFINITY {
        return 0.0;
    }
    if ncp == 0.0 {
        return StudentsT::new(0.0, 1.0, df).map_or(f64::NAN, |d| d.cdf(t));
    }
    // The lower tail at t < 0 is the upper tail at -t of the mirrored distribution.
    let (negdel, tt, del) = if t >= 0.0 { (false, t, ncp) } else { (true, -t, -ncp) };
    if df > 4e5 || del * del > 2.0 * std::f64::consts::LN_2 * 1021.0 {
        // Abramowitz and Stegun 26.7.10: a normal approximation where the series underflows.
        let s = 1.0 / (4.0 * df);
        let z = (tt * (1.0 - s) - del) / (1.0 + tt * tt * 2.0 * s).sqrt();
        let lower = std_normal_cdf(z);
        return if negdel { 1.0 - lower } else { lower };
    }
    let x = tt * tt / (tt * tt + df);
    let mut tnc = 0.0;
    if x > 0.0 {
        let lambda = del * del;
        let mut p = 0.5 * (-0.5 * lambda).exp();
        if p == 0.0 {
            return if negdel { 1.0 } else { 0.0 };
        }
        let mut q = (2.0 / std::f64::consts::PI).sqrt() * p * del;
        let mut s = 0.5 - p;
        if s < 1e-7 {
            s = -0.5 * (-0.5 * lambda).exp_m1();
        }
        let mut a = 0.5;
        let b = 0.5 * df;
        let rxb = (df / (tt * tt + df)).powf(b);
        let albeta = 0.5 * std::f64::consts::PI.ln() + ln_gamma(b) - ln_gamma(0.5 + b);
        let mut xodd = beta_reg(a, b, x);
        let mut godd = 2.0 * rxb * (a * x.ln() - albeta).exp();
        let bx = b * x;
        let mut xeven = if bx < f64::EPSILON { bx } else { 1.0 - rxb };
        let mut geven = bx * rxb;
        tnc = p * xodd + q * xeven;
        for it in 1..=1000 {
            a += 1.0;
            xodd -= godd;
            xeven -= geven;
            godd *= x * (a + b - 1.0) / a;
            geven *= x * (a + b - 0.5) / (a + 0.5);
            p *= lambda / (2 * it) as f64;
            q *= lambda / (2 * it + 1) as f64;
            tnc += p * xodd + q * xeven;
            s -= p;
            if s < -1e-10 || (s <= 0.0 && it > 1) {
                break;
            }
            if (2.0 * s * (xodd - godd)).abs() < 1e-12 {
                break;
            }
        }
    }
    tnc += std_normal_cdf(-del);
    let upper_of_mirror = tnc.min(1.0);
    // `tnc` is P(T <= tt) of t'(df, del); for t < 0 the wanted lower tail is its complement.
    if negdel {
        1.0 - upper_of_mirror
    } else {
        upper_of_mirror
    }
}

/// Power of the two-sided paired t test at level `alpha` with `n` pairs (continuous, >= 2)
/// and standardised effect `d`.
pub fn ttest_power(d: f64, n: f64, alpha: f64) -> f64 {
    if !(n >= 2.0) || !d.is_finite() || !(alpha > 0.0 && alpha < 1.0) {
        return f64::NAN;
    }
    let df = n - 1.0;
    let Ok(t) = StudentsT::new(0.0, 1.0, df) else {
        return f64::NAN;
    };
    let upper = t.inverse_cdf(1.0 - alpha / 2.0);
    let lower = t.inverse_cdf(alpha / 2.0);
    let nc = d * n.sqrt();
    (1.0 - noncentral_t_cdf(upper, df, nc)) + noncentral_t_cdf(lower, df, nc)
}

/// Solves `f(x) = 0` for increasing `f` on `[lo, hi]` by bisection to a relative width of
/// 1e-12; `None` when `f(hi) < 0`.
fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> Option<f64> {
    if f(hi) < 0.0 {
        return None;
    }
    if f(lo) >= 0.0 {
        return Some(lo);
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-12 * hi {
            break;
        }
    }
    Some(0.5 * (lo + hi))
}

/// Most topics [`topics_needed`] searches: beyond, a difference is called undetectable.
pub const MAX_TOPICS: f64 = 1e7;

/// The number of pairs (topics, continuous) at which the two-sided paired t test at level
/// `alpha` detects standardised effect `d` with probability `power`: what statsmodels'
/// `TTestPower().solve_power(effect_size=d, alpha=alpha, power=power)` returns. `None` for a
/// zero or undefined effect, or one that needs more than [`MAX_TOPICS`].
pub fn topics_needed(d: f64, alpha: f64, power: f64) -> Option<f64> {
    let d = d.abs();
    if !(d > 0.0 && d.is_finite()) || !(power > alpha && power < 1.0) {
        return None;
    }
    bisect(|n| ttest_power(d, n, alpha) - power, 2.0, MAX_TOPICS)
}

/// The smallest standardised effect (d_z > 0) that `n` pairs detect with probability `power`
/// in the two-sided paired t test at level `alpha` (statsmodels' `solve_power` for
/// `effect_size`). `None` below 2 pairs.
pub fn detectable_effect(n: f64, alpha: f64, power: f64) -> Option<f64> {
    if !(n >= 2.0) || !(power > alpha && power < 1.0) {
        return None;
    }
    bisect(|d| ttest_power(d, n, alpha) - power, 0.0, 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values of the fixture `tests/fixtures/power/statsmodels_ttest_power.csv`, written by
    /// `python3 tests/fixtures/power/make.py` (statsmodels 0.15.0, scipy 1.17.1; the command and
    /// versions are in the file's header): an independent implementation (scipy's noncentral t,
    /// from Boost).
    fn fixture() -> Vec<(String, f64, f64, f64)> {
        let text = include_str!("../../tests/fixtures/power/statsmodels_ttest_power.csv");
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("kind"))
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[0].to_string(), f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn power_and_solutions_match_statsmodels() {
        let rows = fixture();
        assert!(rows.len() >= 20, "fixture rows: {}", rows.len());
        for (kind, a, b, expected) in rows {
            let (got, tol) = match kind.as_str() {
                // power(effect a, nobs b)
                "power" => (ttest_power(a, b, ALPHA), 1e-9),
                // nobs for effect a at power b
                "nobs" => (topics_needed(a, ALPHA, b).unwrap(), 1e-6 * expected),
                // effect for nobs a at power b
                // effect for nobs a at power b: brentq to 1e-15 on statsmodels' power
                "effect" => (detectable_effect(a, ALPHA, b).unwrap(), 1e-8 * expected),
                // noncentral t cdf at t = a with df 9 and ncp = b (scipy.stats.nct.cdf)
                "nct_cdf_df9" => (noncentral_t_cdf(a, 9.0, b), 1e-10),
                k => panic!("unknown kind {k}"),
            };
            assert!((got - expected).abs() <= tol, "{kind}({a}, {b}): {got} against statsmodels {expected}");
        }
    }

    /// Hand-checkable edges: a zero effect has power alpha (the test's size), needs no finite
    /// number of topics, and more topics never lower the power.
    #[test]
    fn edges() {
        assert!((ttest_power(0.0, 20.0, 0.05) - 0.05).abs() < 1e-12);
        assert_eq!(topics_needed(0.0, 0.05, 0.8), None);
        assert_eq!(topics_needed(f64::NAN, 0.05, 0.8), None);
        assert_eq!(detectable_effect(1.0, 0.05, 0.8), None);
        let mut last = 0.0;
        for n in 2..200 {
            let p = ttest_power(0.3, n as f64, 0.05);
            assert!(p >= last - 1e-12, "power fell at n = {n}");
            last = p;
        }
    }
}
