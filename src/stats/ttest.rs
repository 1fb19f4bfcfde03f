//! Student's paired t-test (two-sided), as R's `t.test(x, y, paired = TRUE)`.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Result of a paired t-test.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PairedT {
    /// Mean of the differences x - y.
    pub mean_difference: f64,
    /// t statistic.
    pub t: f64,
    /// Degrees of freedom (n - 1).
    pub df: f64,
    /// Two-sided p-value; 1 when every difference is zero, NaN for fewer than two pairs.
    pub p_value: f64,
}

/// Paired t-test of `x` against `y` (equal lengths).
pub fn paired_t_test(x: &[f64], y: &[f64]) -> PairedT {
    assert_eq!(x.len(), y.len(), "paired samples must have equal length");
    let d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    let n = d.len() as f64;
    let m = if d.is_empty() { f64::NAN } else { super::mean(&d) };
    if d.len() < 2 {
        return PairedT { mean_difference: m, t: f64::NAN, df: n - 1.0, p_value: f64::NAN };
    }
    let se = super::sd(&d) / n.sqrt();
    if se == 0.0 {
        let p = if m == 0.0 { 1.0 } else { 0.0 };
        return PairedT { mean_difference: m, t: if m == 0.0 { 0.0 } else { m.signum() * f64::INFINITY }, df: n - 1.0, p_value: p };
    }
    let t = m / se;
    let dist = StudentsT::new(0.0, 1.0, n - 1.0).expect("df >= 1");
    let p = 2.0 * (1.0 - dist.cdf(t.abs()));
    PairedT { mean_difference: m, t, df: n - 1.0, p_value: p.min(1.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_r() {
        // R: t.test(c(3,4,5,6,7), c(2,2,2,2,2), paired = TRUE): t = 4.2426, df = 4, p = 0.01324
        let r = paired_t_test(&[3.0, 4.0, 5.0, 6.0, 7.0], &[2.0; 5]);
        assert!((r.t - 4.242640687).abs() < 1e-6, "{r:?}");
        assert_eq!(r.df, 4.0);
        assert!((r.p_value - 0.01324).abs() < 5e-5, "{r:?}");
        assert_eq!(paired_t_test(&[1.0, 2.0], &[1.0, 2.0]).p_value, 1.0);
    }
}
