//! tests.csv's Holm-adjusted p-values (`p_holm_t_topics`) against statsmodels, and its raw
//! paired t tests over topics (`p_value_t_topics`) against scipy.
//!
//! The run: tests/fixtures/holm/scenario.toml (three systems, two profiles, 8 synthetic topics:
//! six (profile, pair) comparisons per measure, the family Holm's method adjusts over). The
//! expected values: tests/fixtures/holm/expected.csv, written by make_fixture.py in the same
//! folder (statsmodels 0.15.0 `multipletests(p, method="holm")` on the raw p-values of this
//! very run; scipy 1.17.1 `ttest_rel` on the per-topic means of summary.csv).

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

fn num(s: &str) -> f64 {
    if s.is_empty() {
        f64::NAN
    } else {
        s.parse().unwrap()
    }
}

#[test]
fn holm_adjusted_p_values_match_statsmodels() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let r = Command::new(env!("CARGO_BIN_EXE_serpsim"))
        .args(["--quiet", "simulate", "tests/fixtures/holm/scenario.toml", "--detail", "full", "--threads", "1", "--out"])
        .arg(&out)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let expected = std::fs::read_to_string(root.join("tests/fixtures/holm/expected.csv")).unwrap();
    let mut want: HashMap<(String, String, String, String), (f64, f64, f64)> = HashMap::new();
    for line in expected.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        want.insert((c[0].into(), c[1].into(), c[2].into(), c[3].into()), (num(c[4]), num(c[5]), num(c[6])));
    }
    let tests = std::fs::read_to_string(out.join("tests.csv")).unwrap();
    let mut lines = tests.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let (raw, holm) = (col("p_value_t_topics"), col("p_holm_t_topics"));
    let (mut checked, mut adjusted_differs, mut scipy_checked) = (0, 0, 0);
    for line in lines {
        let c: Vec<&str> = line.split(',').collect();
        let key = (c[0].to_string(), c[1].to_string(), c[2].to_string(), c[3].to_string());
        let &(w_raw, w_holm, w_scipy) = want.get(&key).unwrap_or_else(|| panic!("{key:?} not in the fixture"));
        let (p, ph) = (num(c[raw]), num(c[holm]));
        let close = |a: f64, b: f64, tol: f64| (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol;
        assert!(close(p, w_raw, 1e-12), "{key:?}: raw p {p}, the fixture's run had {w_raw}");
        assert!(close(ph, w_holm, 1e-9), "{key:?}: Holm p {ph}, statsmodels {w_holm}");
        if !w_scipy.is_nan() {
            // summary.csv's means carry 10 significant digits: scipy's p agrees to ~1e-9.
            assert!(close(p, w_scipy, 1e-7), "{key:?}: t test p {p}, scipy.stats.ttest_rel {w_scipy}");
            scipy_checked += 1;
        }
        adjusted_differs += usize::from(w_holm != w_raw);
        checked += 1;
    }
    assert_eq!(checked, want.len(), "tests.csv has rows the fixture lacks or the other way round");
    // The fixture can tell a raw p-value from an adjusted one.
    assert!(adjusted_differs > 20 && scipy_checked > 20, "{adjusted_differs} adjusted, {scipy_checked} checked against scipy");
}
