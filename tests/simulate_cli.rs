//! End-to-end tests of `serpsim simulate`.

use std::path::Path;
use std::process::Command;

fn serpsim(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_serpsim")).args(args).current_dir(cwd).output().expect("serpsim runs")
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const SCENARIO: &str = r#"
name = "cli-test"
seed = 3
replicates = 3000
[collection]
source = "trec"
qrels = "qrels.txt"
runs = ["run_a.txt", "run_b.txt"]
[[profiles]]
name = "u"
continuation = { model = "rbp", p = 0.7 }
clicks = { click = [0.3, 0.9], stop = [0.0, 0.2], mark = [0.0, 1.0] }
[output]
samples = true
"#;

const QRELS: &str = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n";
const RUN_A: &str = "1 Q0 a 1 3.0 A\n1 Q0 b 2 2.0 A\n1 Q0 c 3 1.0 A\n2 Q0 e 1 2.0 A\n2 Q0 d 2 1.0 A\n";
const RUN_B: &str = "1 Q0 b 1 3.0 B\n1 Q0 c 2 2.0 B\n1 Q0 a 3 1.0 B\n2 Q0 d 1 2.0 B\n2 Q0 e 2 1.0 B\n";

fn project(dir: &Path) -> std::path::PathBuf {
    write(dir, "qrels.txt", QRELS);
    write(dir, "run_a.txt", RUN_A);
    write(dir, "run_b.txt", RUN_B);
    write(dir, "s.toml", SCENARIO)
}

#[test]
fn thread_count_gives_byte_identical_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = project(dir.path());
    let s = scenario.to_str().unwrap();
    for (threads, out) in [("1", "o1"), ("2", "o2")] {
        let r = serpsim(&["simulate", s, "--threads", threads, "--out", out], dir.path());
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    for f in ["summary.csv", "summary.json", "comparison.csv", "samples.csv", "distributions.svg"] {
        let a = std::fs::read(dir.path().join("o1").join(f)).unwrap();
        let b = std::fs::read(dir.path().join("o2").join(f)).unwrap();
        assert!(!a.is_empty());
        assert!(a == b, "{f} differs between --threads 1 and --threads 2");
    }
    let samples = std::fs::read_to_string(dir.path().join("o1/samples.csv")).unwrap();
    assert_eq!(samples.lines().count(), 1 + 2 * 2 * 3000);
}

#[test]
fn seed_changes_results_and_replicates_override() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = project(dir.path());
    let s = scenario.to_str().unwrap();
    assert!(serpsim(&["simulate", s, "--seed", "1", "--out", "a", "--replicates", "500"], dir.path()).status.success());
    assert!(serpsim(&["simulate", s, "--seed", "2", "--out", "b", "--replicates", "500"], dir.path()).status.success());
    let a = std::fs::read_to_string(dir.path().join("a/summary.csv")).unwrap();
    let b = std::fs::read_to_string(dir.path().join("b/summary.csv")).unwrap();
    assert_ne!(a, b);
    assert!(a.lines().nth(1).unwrap().contains(",500,"), "{a}");
}

fn expect_error(dir: &Path, scenario: &Path, needles: &[&str]) {
    let r = serpsim(&["simulate", scenario.to_str().unwrap(), "--out", "err-out"], dir);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success(), "should fail");
    assert!(!err.contains("panicked"), "panic: {err}");
    for n in needles {
        assert!(err.contains(n), "expected `{n}` in: {err}");
    }
    assert!(!dir.join("err-out").exists(), "no output may be written on error");
}

#[test]
fn malformed_inputs_name_file_and_line_or_key() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = project(dir.path());
    write(dir.path(), "run_b.txt", "1 Q0 b 1 3.0 B\n1 Q0 c 2 high B\n");
    expect_error(dir.path(), &scenario, &["run_b.txt:2:", "score"]);

    project(dir.path());
    write(dir.path(), "qrels.txt", "1 0 a 1\n1 0 b\n");
    expect_error(dir.path(), &scenario, &["qrels.txt:2:", "4 fields"]);

    project(dir.path());
    let bad = write(dir.path(), "bad_key.toml", &SCENARIO.replace("seed = 3", "seed = 3\nrepliactes = 4"));
    expect_error(dir.path(), &bad, &["repliactes"]);

    let bad = write(dir.path(), "bad_p.toml", &SCENARIO.replace("p = 0.7", "p = 1.7"));
    expect_error(dir.path(), &bad, &["profiles[0].continuation.p", "outside [0, 1]"]);

    let bad = write(dir.path(), "nan_p.toml", &SCENARIO.replace("click = [0.3, 0.9]", "click = [0.3, nan]"));
    expect_error(dir.path(), &bad, &["profiles[0].clicks.click[1]", "NaN"]);

    let bad = write(dir.path(), "empty.toml", &SCENARIO.replace("click = [0.3, 0.9]", "click = []"));
    expect_error(dir.path(), &bad, &["profiles[0].clicks.click", "at least one"]);

    let r = serpsim(&["simulate", "missing.toml"], dir.path());
    assert!(!r.status.success() && String::from_utf8_lossy(&r.stderr).contains("missing.toml"));
}

#[test]
fn default_scenario_runs_without_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let r = serpsim(&["simulate", "--replicates", "200"], dir.path());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let summary = std::fs::read_to_string(dir.path().join("serpsim-out/summary.csv")).unwrap();
    assert!(summary.contains("STANDARD") && summary.contains("ideal"));
    let svg = std::fs::read_to_string(dir.path().join("serpsim-out/distributions.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("patient"));
}
