//! End-to-end tests of `serpsim streams msu` and `serpsim streams run` (the engine's stream path).

use std::path::{Path, PathBuf};
use std::process::Command;

fn serpsim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_serpsim"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> String {
    root().join("tests/fixtures/streams").join(name).display().to_string()
}

fn msu(threads: &str, extra: &[&str]) -> std::process::Output {
    let mut c = serpsim();
    c.args(["streams", "msu", "--topics", &fixture("topics.tsv"), "--nuggets", &fixture("nuggets.tsv")]);
    c.args(["--matches", &fixture("matches.tsv"), "--updates", &fixture("example.tsv"), "--updates", &fixture("empty.tsv")]);
    c.args(["--threads", threads]).args(extra);
    c.output().unwrap()
}

fn run(scenario: &Path, out: &Path, threads: &str) -> std::process::Output {
    serpsim().args(["streams", "run"]).arg(scenario).arg("--out").arg(out).args(["--threads", threads]).output().unwrap()
}

/// `streams msu` and `streams run` give byte-identical output for 1 and 2 threads, with users
/// spread over many units (3,000 users: 32 units of 94).
#[test]
fn output_does_not_depend_on_threads() {
    let a = msu("1", &["--users", "3000", "--seed", "9"]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, msu("2", &["--users", "3000", "--seed", "9"]).stdout);
    let dir = tempfile::tempdir().unwrap();
    let scen = root().join("simulations/streams/bopha.toml");
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    for (out, t) in [(&one, "1"), (&two, "2")] {
        let o = run(&scen, out, t);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    for f in ["msu.csv", "summary.json", "verdict.csv", "comparison.csv", "pooled.csv"] {
        let a = std::fs::read(one.join(f)).unwrap();
        assert!(!a.is_empty(), "{f}");
        assert_eq!(a, std::fs::read(two.join(f)).unwrap(), "{f} differs between 1 and 2 threads");
    }
}

/// The scenario form of `streams msu` (simulations/streams/bopha.toml: the flags' defaults
/// written as distributions, same seed and users) gives the very same MSU lines: both are one
/// configuration of the engine. The report compares the two systems: `example` finds nuggets
/// and `empty` (no updates) none, so gain favours `example`.
#[test]
fn scenario_equals_the_flags() {
    let flags = msu("2", &[]);
    assert!(flags.status.success(), "{}", String::from_utf8_lossy(&flags.stderr));
    let flags = String::from_utf8(flags.stdout).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let o = run(&root().join("simulations/streams/bopha.toml"), dir.path(), "2");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(dir.path().join("msu.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("profile,system,users,msu,sd,se"));
    let scenario: Vec<&str> = lines.map(|l| l.strip_prefix("reasonable,").unwrap()).collect();
    assert_eq!(scenario, flags.lines().skip(1).collect::<Vec<_>>());
    assert!(scenario[1].starts_with("empty,1000,0,"));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap()).unwrap();
    let v = &report["tables"]["verdict"];
    assert_eq!(v[0]["system_a"], "example");
    // `favours_a` is one cell: the measures joined by spaces.
    assert!(v[0]["favours_a"].as_str().unwrap().split(' ').any(|m| m == "gain"), "{}", v[0]["verdict"]);
}

/// Bad scenarios: unknown keys and bad values name the key.
#[test]
fn bad_scenarios_name_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("simulations/streams/bopha.toml"))
        .unwrap()
        .replace("../../tests/fixtures/streams/", &format!("{}/", root().join("tests/fixtures/streams").display()));
    for (from, to, needle) in [
        ("lateness = 0.5", "lateness = 1.5", "lateness"),
        ("lateness = 0.5", "latenes = 0.5", "latenes"),
        ("mean = 120, sd = 60", "mean = 0.5, sd = 60", "duration.mean"),
        ("users = 1000", "users = 0", "users"),
    ] {
        let f = dir.path().join("s.toml");
        std::fs::write(&f, text.replace(from, to)).unwrap();
        let o = run(&f, &dir.path().join("out"), "1");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(needle), "{to}: {err}");
    }
}

/// `serpsim simulate` runs a stream scenario through the same front end as `streams run`: the
/// same files, byte for byte (the manifest names the command, so it is left out).
#[test]
fn simulate_runs_stream_scenarios() {
    let dir = tempfile::tempdir().unwrap();
    let scen = root().join("simulations/streams/bopha.toml");
    let (a, b) = (dir.path().join("run"), dir.path().join("simulate"));
    let o = run(&scen, &a, "2");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(env!("CARGO_BIN_EXE_serpsim"))
        .args(["simulate", scen.to_str().unwrap(), "--out", b.to_str().unwrap(), "--threads", "1"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["msu.csv", "summary.json", "verdict.csv"] {
        assert_eq!(std::fs::read(a.join(f)).unwrap(), std::fs::read(b.join(f)).unwrap(), "{f}");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_serpsim"))
        .args(["simulate", scen.to_str().unwrap(), "--samples", "--out", dir.path().join("x").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--write-samples is not available for stream scenarios"));
}
