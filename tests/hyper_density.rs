//! The hierarchical prior's log-density (src/clickmodels/hyper.rs, `Hyper::ln_density`)
//! against an independent SciPy computation.
//!
//! Expected values: `tests/fixtures/clickmodels/hyper_density.json`, written by
//! `python3 analysis/clickmodels/hyper/density_fixture.py` (Python 3.11.7, SciPy 1.17.1,
//! NumPy 2.4.6) as Σ scipy.stats.beta.logpdf(theta_i; alpha, beta) + ln alpha + ln beta -
//! 5/2 ln(alpha + beta), the density of (logit mu, ln kappa) under the hyper-prior of
//! Gelman et al., BDA3 §5.3, with no constant dropped.
//!
//! Tolerance 1e-12 relative: the two sides sum the same terms in different forms (Rust:
//! n ln Γ terms from statrs plus sufficient statistics; SciPy: per-entry logpdf), which differ
//! by rounding only; the worst case seen is 1.0e-13 (200 entries, Beta(1, 1), where statrs'
//! ln Γ(2) is not exactly 0). A hyper-prior exponent off by one moves every value by
//! |e| >= 0.3 here (checked once: -1.5 e instead of -0.5 e fails this test).

use serde_json::Value;
use serpsim::clickmodels::hyper::{Hyper, Stats};

#[test]
fn ln_density_matches_scipy() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/clickmodels/hyper_density.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let f: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cases = f["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 35);
    let mut worst = 0.0f64;
    for c in cases {
        let name = c["thetas"].as_str().unwrap();
        let thetas: Vec<f64> = f["thetas"][name].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        let (l, e) = (c["l"].as_f64().unwrap(), c["e"].as_f64().unwrap());
        let want = c["ln_density"].as_f64().unwrap();
        let got = Hyper { l, e }.ln_density(&Stats::of(thetas.iter().copied()));
        let rel = (got - want).abs() / want.abs();
        worst = worst.max(rel);
        eprintln!("{name} l={l} e={e}: {got} vs {want}, rel {rel:.2e}");
    }
    eprintln!("worst {worst:.2e}");
    assert!(worst <= 1e-12, "worst relative difference {worst:.2e}");
}
