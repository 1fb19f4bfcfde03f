//! Pearson's product-moment correlation with its t-test.

use crate::error::{Error, Result};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// A Pearson correlation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pearson {
    /// r.
    pub r: f64,
    /// Pairs.
    pub n: usize,
    /// Two-sided p-value of t = r sqrt((n - 2) / (1 - r^2)) on n - 2 degrees of freedom
    /// (as R's `cor.test`); NaN for n < 3.
    pub p: f64,
}

/// Pearson's r of paired samples. Errors on unequal lengths, fewer than 2 pairs, non-finite
/// values, or a constant sample.
///
/// ```
/// let p = serpsim::stats::pearson::pearson(&[1.0, 2.0, 3.0, 4.0], &[2.0, 4.0, 6.0, 8.5]).unwrap();
/// assert!(p.r > 0.99);
/// ```
pub fn pearson(x: &[f64], y: &[f64]) -> Result<Pearson> {
    if x.len() != y.len() || x.len() < 2 {
        return Err(Error::Invalid(format!("Pearson: need two equal-length samples of at least 2 values (got {} and {})", x.len(), y.len())));
    }
    if x.iter().chain(y).any(|v| !v.is_finite()) {
        return Err(Error::Invalid("Pearson: values must be finite".into()));
    }
    let n = x.len();
    let (mx, my) = (crate::stats::mean(x), crate::stats::mean(y));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        return Err(Error::Invalid("Pearson: a sample is constant".into()));
    }
    let r = (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0);
    let p = if n < 3 {
        f64::NAN
    } else if r.abs() == 1.0 {
        0.0
    } else {
        let df = (n - 2) as f64;
        let t = r * (df / (1.0 - r * r)).sqrt();
        2.0 * StudentsT::new(0.0, 1.0, df).map(|d| d.sf(t.abs())).unwrap_or(f64::NAN)
    };
    Ok(Pearson { r, n, p })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_r_cor_test() {
        // R: cor.test(c(1,2,3,4,5), c(2,1,4,3,5)) -> r = 0.8, t = 2.3094, p = 0.1041
        let p = pearson(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 1.0, 4.0, 3.0, 5.0]).unwrap();
        assert!((p.r - 0.8).abs() < 1e-12);
        // t = 0.8 * sqrt(3 / 0.36) = 2.309401; two-sided p from t(3).
        assert!((p.p - 0.104088).abs() < 1e-5, "{}", p.p);
        assert!(pearson(&[1.0, 1.0], &[1.0, 2.0]).is_err());
    }
}
