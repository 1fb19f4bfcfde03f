//! Adjusted p-values for a family of tests (multiple comparisons).
//!
//! A run that compares many systems or profiles makes many tests at once; read one at a time
//! their p-values overstate the evidence. Two adjustments, each computed exactly as
//! `statsmodels.stats.multitest.multipletests` (0.15.0) computes it, so the numbers can be
//! checked against it (`tests/fixtures/stats/multitest.json`, written by
//! `analysis/stats/multitest_fixture.py`):
//!
//! - [`Method::Holm`] (Holm 1979, *A simple sequentially rejective multiple test procedure*,
//!   Scand. J. Statist. 6): the step-down Bonferroni adjustment. Controls the family-wise error
//!   rate (the chance of any false rejection in the family) under any dependence between tests.
//!   `multipletests(p, method="holm")`.
//! - [`Method::BenjaminiHochberg`] (Benjamini and Hochberg 1995, *Controlling the false
//!   discovery rate*, JRSS B 57): the step-up adjustment that controls the expected share of
//!   false rejections among the rejections, for independent or positively dependent tests.
//!   `multipletests(p, method="fdr_bh")`.
//!
//! With `m` tests and the p-values sorted `p_(1) <= ... <= p_(m)`:
//! Holm's `p~_(i) = min(1, max_{j <= i} (m - j + 1) p_(j))`;
//! BH's `p~_(i) = min(1, min_{j >= i} p_(j) m / j)`.
//! Tied p-values get equal adjusted values, so the order among ties does not matter.

use crate::error::{Error, Result};

/// Which adjustment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Holm's step-down Bonferroni (family-wise error rate).
    Holm,
    /// Benjamini–Hochberg (false discovery rate).
    BenjaminiHochberg,
}

/// Adjusted p-values of `p` (in the same order), the whole slice being one family.
///
/// Every value must lie in [0, 1]; NaN or a value outside is an error naming its position
/// (use [`adjust_finite`] where some tests could not be computed). An empty family gives an
/// empty result.
pub fn adjust(p: &[f64], method: Method) -> Result<Vec<f64>> {
    for (i, &v) in p.iter().enumerate() {
        if !(0.0..=1.0).contains(&v) {
            return Err(Error::Invalid(format!("multiple-comparison adjustment: p-value {} (position {}) is not in [0, 1]", v, i + 1)));
        }
    }
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    // Ties give equal adjusted values, so any order among them does; a stable sort keeps the
    // computation deterministic anyway.
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![0.0; m];
    match method {
        Method::Holm => {
            // statsmodels: maximum.accumulate(p_sorted * arange(m, 0, -1)), then clip at 1.
            let mut running = f64::NEG_INFINITY;
            for (rank, &i) in order.iter().enumerate() {
                let raw = p[i] * (m - rank) as f64;
                running = running.max(raw);
                adjusted[i] = running.min(1.0);
            }
        }
        Method::BenjaminiHochberg => {
            // statsmodels: p_sorted / (arange(1, m + 1) / m), reverse minimum.accumulate, clip.
            let mut running = f64::INFINITY;
            for (rank, &i) in order.iter().enumerate().rev() {
                let ecdf = (rank + 1) as f64 / m as f64;
                let raw = p[i] / ecdf;
                running = running.min(raw);
                adjusted[i] = running.min(1.0);
            }
        }
    }
    Ok(adjusted)
}

/// Adjusted p-values where some tests have no p-value (NaN: too few pairs, no variation).
/// The family is the tests that have one; the others stay NaN. Equal to `multipletests` on
/// the non-NaN values. Values outside [0, 1] are still an error.
pub fn adjust_finite(p: &[f64], method: Method) -> Result<Vec<f64>> {
    let present: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    let values: Vec<f64> = present.iter().map(|&i| p[i]).collect();
    let adjusted = adjust(&values, method)?;
    let mut out = vec![f64::NAN; p.len()];
    for (k, &i) in present.iter().enumerate() {
        out[i] = adjusted[k];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn fixture() -> Value {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/stats/multitest.json");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn floats(v: &Value) -> Vec<f64> {
        v.as_array().expect("array").iter().map(|x| x.as_f64().expect("number")).collect()
    }

    /// Every case of the statsmodels fixture, both methods, to 1e-12.
    #[test]
    fn matches_statsmodels_multipletests() {
        let fx = fixture();
        let cases = fx["cases"].as_array().expect("cases");
        assert!(cases.len() >= 6, "fixture has {} cases", cases.len());
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let p = floats(&case["p"]);
            for (method, key) in [(Method::Holm, "holm"), (Method::BenjaminiHochberg, "fdr_bh")] {
                // Expected values: statsmodels 0.15.0 multipletests(p, method=key), see the
                // fixture's "command" and "statsmodels" fields.
                let expected = floats(&case[key]);
                let got = adjust(&p, method).unwrap();
                assert_eq!(got.len(), expected.len(), "{name} {key}");
                for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
                    assert!((g - e).abs() <= 1e-12, "{name} {key}[{i}]: {g} vs statsmodels {e}");
                }
            }
        }
    }

    /// Hand derivation: p = (0.01, 0.04, 0.03, 0.5), m = 4.
    /// Holm, sorted 0.01, 0.03, 0.04, 0.5 times 4, 3, 2, 1 = 0.04, 0.09, 0.08, 0.5, running max
    /// 0.04, 0.09, 0.09, 0.5. BH: 0.01*4/1 = 0.04, 0.03*4/2 = 0.06, 0.04*4/3 = 0.0533.., 0.5,
    /// running min from the top 0.04, 0.0533.., 0.0533.., 0.5.
    #[test]
    fn hand_example() {
        let p = [0.01, 0.04, 0.03, 0.5];
        let holm = adjust(&p, Method::Holm).unwrap();
        for (g, e) in holm.iter().zip([0.04, 0.09, 0.09, 0.5]) {
            assert!((g - e).abs() < 1e-15, "{holm:?}");
        }
        let bh = adjust(&p, Method::BenjaminiHochberg).unwrap();
        for (g, e) in bh.iter().zip([0.04, 0.16 / 3.0, 0.16 / 3.0, 0.5]) {
            assert!((g - e).abs() < 1e-15, "{bh:?}");
        }
    }

    #[test]
    fn nan_and_out_of_range() {
        let err = adjust(&[0.1, f64::NAN], Method::Holm).unwrap_err().to_string();
        assert!(err.contains("position 2"), "{err}");
        let err = adjust(&[1.5], Method::BenjaminiHochberg).unwrap_err().to_string();
        assert!(err.contains("not in [0, 1]"), "{err}");
        // NaN left out of the family: the family is (0.01, 0.04), Holm 0.02, 0.04.
        let got = adjust_finite(&[0.04, f64::NAN, 0.01], Method::Holm).unwrap();
        assert!((got[0] - 0.04).abs() < 1e-15 && got[1].is_nan() && (got[2] - 0.02).abs() < 1e-15, "{got:?}");
        assert!(adjust(&[], Method::Holm).unwrap().is_empty());
    }
}
