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
        let r = serpsim(&["simulate", s, "--threads", threads, "--detail", "full", "--out", out], dir.path());
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    for f in [
        "summary.csv",
        "pooled.csv",
        "summary.json",
        "comparison.csv",
        "tests.csv",
        "verdict.csv",
        "gain_curves.csv",
        "budgets.csv",
        "budget_comparison.csv",
        "samples.csv",
        "distributions.svg",
        "gain_curves.svg",
        "differences.svg",
    ] {
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
    assert!(serpsim(&["simulate", s, "--seed", "1", "--out", "a", "--replicates", "500", "--detail", "full"], dir.path()).status.success());
    assert!(serpsim(&["simulate", s, "--seed", "2", "--out", "b", "--replicates", "500", "--detail", "full"], dir.path()).status.success());
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
    expect_error(dir.path(), &bad, &["profiles[0].continuation.p", "outside the range of a probability in [0, 1]"]);

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
    let summary = std::fs::read_to_string(dir.path().join("serpsim-out/pooled.csv")).unwrap();
    assert!(summary.contains("STANDARD") && summary.contains("ideal"));
    let svg = std::fs::read_to_string(dir.path().join("serpsim-out/distributions.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("patient"));
}

/// Reads a CSV into rows of (header -> value).
fn csv_rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let h: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    r.records().map(|rec| h.iter().cloned().zip(rec.unwrap().iter().map(str::to_string)).collect()).collect()
}

fn num(row: &std::collections::HashMap<String, String>, k: &str) -> f64 {
    row[k].parse().unwrap_or_else(|_| panic!("{k} = {}", row[k]))
}

/// The bundled TREC run against its own reversal (scores negated, so each topic's ranking is
/// reversed), on three of its topics (305-307, where the run ranks a relevant document first and
/// its reversal therefore ranks its worst documents first): the report must show the reversal worse on gain
/// (P(gain_A > gain_B) and the difference), must show the effort it saves next to it, not
/// instead of it, and must say that three topics do not generalise.
#[test]
fn trec_run_against_its_reversal_shows_gain_and_its_cost() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let three = |l: &&str| ["305", "306", "307"].contains(&l.split_whitespace().next().unwrap_or(""));
    let run: String = std::fs::read_to_string(root.join("study_logs/trec/results.test")).unwrap().lines().filter(three).map(|l| format!("{l}\n")).collect();
    let qrels: String = std::fs::read_to_string(root.join("study_logs/trec/qrels.test")).unwrap().lines().filter(three).map(|l| format!("{l}\n")).collect();
    write(dir.path(), "run3.txt", &run);
    write(dir.path(), "qrels3.txt", &qrels);
    let reversed: String = run
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let score: f64 = f[4].parse().unwrap();
            format!("{} {} {} {} {} REVERSED\n", f[0], f[1], f[2], f[3], -score)
        })
        .collect();
    write(dir.path(), "reversed.txt", &reversed);
    let scenario = format!(
        "name = 'reversal'\nseed = 4\nreplicates = 4000\n[collection]\nsource = 'trec'\nqrels = '{}'\nruns = ['{}', 'reversed.txt']\n\
         [[profiles]]\nname = 'patient'\ncontinuation = {{ model = 'rbp', p = 0.8 }}\nstopping = [{{ rule = 'contiguous_nonrelevant', n = 5 }}]\n\
         clicks = {{ click = [0.2, 0.9], stop = [0.0, 0.1], mark = [0.05, 0.9] }}\n",
        "qrels3.txt", "run3.txt"
    );
    let s = write(dir.path(), "s.toml", &scenario);
    let r = serpsim(&["simulate", s.to_str().unwrap(), "--out", "out"], dir.path());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let out = dir.path().join("out");
    let cmp = csv_rows(&out.join("comparison.csv"));
    let pooled = |m: &str| cmp.iter().find(|r| r["scope"] == "pooled" && r["measure"] == m).unwrap_or_else(|| panic!("no pooled {m}")).clone();
    let gain = pooled("gain");
    assert_eq!((gain["system_a"].as_str(), gain["system_b"].as_str()), ("STANDARD", "REVERSED"));
    assert!(num(&gain, "diff_mean") > 0.0, "the run finds more than its reversal: {gain:?}");
    // The reversal finds little here, so far more sessions favour the run than the reversal.
    assert!(num(&gain, "p_a_better") == num(&gain, "p_a_higher") && num(&gain, "p_a_higher") > num(&gain, "p_a_lower"), "{gain:?}");
    assert!(num(&gain, "diff_mean") - 1.96 * num(&gain, "diff_se") > 0.0, "{gain:?}");
    let effort = pooled("effort");
    assert_eq!(effort["better"], "lower");
    assert!(num(&effort, "p_a_better").is_finite() && num(&effort, "p_a_better") == num(&effort, "p_a_lower"), "{effort:?}");
    // Three topics: the verdict's interval generalises over topics and users, so it is wide,
    // and the verdict says that three topics do not generalise.
    let verdict = &csv_rows(&out.join("verdict.csv"))[0];
    assert_eq!(verdict["topics"], "3");
    assert!(verdict["verdict"].contains("only 3 topics"), "{verdict:?}");
    for m in ["gain", "effort", "time", "depth"] {
        for col in ["diff", "ci_topics_users_low", "ci_topics_users_high", "p_a_better_topics_users", "mc_se_users", "ci_users_only_low", "p_a_better_sessions"]
        {
            assert!(verdict.contains_key(&format!("{m}_{col}")), "{m}_{col}");
        }
    }
    // The users-only interval (topics held fixed) is far narrower than the one over topics.
    let width = |lo: &str, hi: &str| num(verdict, hi) - num(verdict, lo);
    assert!(width("gain_ci_users_only_low", "gain_ci_users_only_high") * 5.0 < width("gain_ci_topics_users_low", "gain_ci_topics_users_high"), "{verdict:?}");
    // The across-topic test has its own columns and warns: 3 topics cannot reach p < 0.05.
    let tests = csv_rows(&out.join("tests.csv"));
    let t = tests.iter().find(|r| r["measure"] == "gain").unwrap();
    assert_eq!((t["test"].as_str(), t["topics"].as_str()), ("wilcoxon_signed_rank", "3"));
    assert!(t["warning"].contains("only 3 topics"), "{t:?}");
    assert!(num(t, "p_value") > 0.0 && t["n"].parse::<usize>().is_ok());
}

/// The combined scenario of simulations/combined.toml at small size: every output exists, the
/// outputs do not depend on the thread count, and the sessions are consistent.
#[test]
fn combined_scenario_runs_consistently() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenario = root.join("simulations/combined.toml");
    let s = scenario.to_str().unwrap();
    for (threads, out) in [("1", "o1"), ("2", "o2")] {
        let r = serpsim(&["simulate", s, "--replicates", "60", "--threads", threads, "--out", out, "--samples", "--detail", "full"], dir.path());
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    for f in [
        "summary.csv",
        "pooled.csv",
        "comparison.csv",
        "tests.csv",
        "verdict.csv",
        "gain_curves.csv",
        "budgets.csv",
        "budget_comparison.csv",
        "summary.json",
        "samples.csv",
        "distributions.svg",
        "gain_curves.svg",
    ] {
        let a = std::fs::read(dir.path().join("o1").join(f)).unwrap();
        assert!(!a.is_empty(), "{f} is empty");
        assert!(a == std::fs::read(dir.path().join("o2").join(f)).unwrap(), "{f} differs between --threads 1 and 2");
    }
    let out = dir.path().join("o1");
    // 60 users x 36 topics x 2 rankers.
    let samples = csv_rows(&out.join("samples.csv"));
    assert_eq!(samples.len(), 60 * 36 * 2);
    let mut switches = 0.0;
    for r in &samples {
        let (time, queries) = (num(r, "time"), num(r, "queries"));
        // The hard budget: no action that would exceed 300 s is taken (so also never more than
        // the budget plus one action).
        assert!(time <= 300.0 + 1e-9, "{r:?}");
        assert!((1.0..=3.0).contains(&queries), "three query variants at most: {r:?}");
        assert!(num(r, "relevant_found") <= num(r, "clicks") && num(r, "clicks") <= num(r, "depth"), "{r:?}");
        assert!(num(r, "adjusted_time") <= time + 1e-9);
        switches += num(r, "switches");
    }
    assert!(switches > 0.0, "users switch to facets");
    let pooled = csv_rows(&out.join("pooled.csv"));
    assert!(pooled.iter().any(|r| r["system"] == "bm25") && pooled.iter().any(|r| r["system"] == "lmir-jm"));
    let cmp = csv_rows(&out.join("comparison.csv"));
    assert!(cmp.iter().any(|r| r["scope"] == "pooled" && r["measure"] == "gain" && r["system_a"] == "bm25" && r["system_b"] == "lmir-jm"));
    let curves = csv_rows(&out.join("gain_curves.csv"));
    let last = curves.iter().filter(|r| r["axis"] == "time").map(|r| num(r, "x")).fold(0.0, f64::max);
    assert_eq!(last, 300.0, "the gain-over-time curve spans the budget");
    let budgets = csv_rows(&out.join("budget_comparison.csv"));
    assert!(budgets.iter().any(|r| r["budget"] == "300" && r["system_b"] == "lmir-jm"));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert!(json["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("click model")), "coverage of the DBN is reported");
}

#[test]
fn files_of_the_wrong_kind_say_what_they_look_like() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = root.join("simulations/combined/dbn.json");
    let r = serpsim(&["simulate", model.to_str().unwrap()], dir.path());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success() && err.contains("click-model file"), "{err}");
    let old = write(dir.path(), "old.toml", "name = \"x\"\n[queries]\nsource = \"synthetic\"\n[session.searcher]\nclick = [0.3, 0.6]\n");
    let r = serpsim(&["simulate", old.to_str().unwrap()], dir.path());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success() && err.contains("old `serpsim sessions` scenario") && err.contains("docs/scenarios.md"), "{err}");
}

/// The verdict's gain interval on the bundled 50-topic scenario equals an independent NumPy /
/// SciPy computation from the same sessions (`analysis/stats/synthetic_interval.py`, fixture
/// `tests/fixtures/simulate/synthetic_interval.json`, SciPy 1.17.1): the t interval over topics
/// to 1e-9, and a two-stage bootstrap (topics, then users within topics) within a tenth of the
/// half-width (the two methods differ by Monte-Carlo and small-sample terms only).
#[test]
fn synthetic_interval_matches_an_independent_computation() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenario = root.join("simulations/synthetic.toml");
    let r = serpsim(&["simulate", scenario.to_str().unwrap(), "--replicates", "200", "--seed", "7", "--out", "out", "--quiet"], dir.path());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/fixtures/simulate/synthetic_interval.json")).unwrap()).unwrap();
    let verdicts = csv_rows(&dir.path().join("out/verdict.csv"));
    assert_eq!(verdicts.len(), 2);
    for v in &verdicts {
        let f = &fixture["profiles"][v["profile"].as_str()];
        let x = |k: &str| f[k].as_f64().unwrap_or_else(|| panic!("{k}"));
        let (lo, hi) = (num(v, "gain_ci_topics_users_low"), num(v, "gain_ci_topics_users_high"));
        assert_eq!(v["topics"], "50");
        assert!((num(v, "gain_diff") - x("mean")).abs() < 1e-9, "{v:?}");
        assert!((lo - x("t_lo")).abs() < 1e-9 && (hi - x("t_hi")).abs() < 1e-9, "{lo} {hi} vs {f}");
        // p-values are written with 4 significant digits (`fmt_p`).
        assert!((num(v, "gain_p_value_topics") - x("p_value")).abs() < 5e-4 * x("p_value"), "{v:?}");
        let half = (hi - lo) / 2.0;
        assert!((lo - x("boot_lo")).abs() < 0.1 * half && (hi - x("boot_hi")).abs() < 0.1 * half, "{lo} {hi} vs bootstrap {f}");
    }
}

/// Wording: a system that finds less and costs less is described as costing less "because it
/// finds less", never as cheaper or better on cost, in verdict.csv and on screen. On the
/// synthetic scenario the poor ranker's patient users stop earlier (10 non-relevant results
/// come sooner), so it costs less time and effort and finds less.
#[test]
fn finding_less_is_not_called_cheaper() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenario = root.join("simulations/synthetic.toml");
    let r = serpsim(&["simulate", scenario.to_str().unwrap(), "--replicates", "200", "--out", "out"], dir.path());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let screen = String::from_utf8(r.stdout).unwrap();
    let v = csv_rows(&dir.path().join("out/verdict.csv"));
    let ss2 = v.iter().find(|r| r["profile"] == "ss2-searcher").unwrap();
    assert!(ss2["favours_a"].split(' ').any(|m| m == "gain") && ss2["favours_b"].split(' ').any(|m| m == "time"), "{ss2:?}");
    for text in [ss2["verdict"].as_str(), ss2["headline"].as_str(), screen.as_str()] {
        assert!(text.contains("poor costs less") && text.contains("because it finds less"), "{text}");
        for bad in ["poor is cheaper", "poor is better", "trade-off", "poor also costs less"] {
            assert!(!text.contains(bad), "{bad} in {text}");
        }
    }
    // The answer fits on one screen and is the file answer.txt.
    assert!(screen.lines().count() <= 25, "{screen}");
    let answer = std::fs::read_to_string(dir.path().join("out/answer.txt")).unwrap();
    assert!(screen.starts_with(&answer), "{screen}\n---\n{answer}");
}

/// `serpsim simulate` on the default scenario prints at most 25 lines that state the answer;
/// `--quiet` leaves only the line that says where the files are.
#[test]
fn default_run_prints_the_answer_on_one_screen() {
    let dir = tempfile::tempdir().unwrap();
    let r = serpsim(&["simulate", "--replicates", "500", "--out", "out"], dir.path());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let screen = String::from_utf8(r.stdout).unwrap();
    assert!(screen.lines().count() <= 25, "{screen}");
    // 50 topics: the bundled collection (analysis/metrics/make_trec_collection.py, topics 301-350).
    for needle in ["gain A-B", "95 % interval", "P(A better)", "over topics and users", "simulation error", "default: 50 topics x 500"] {
        assert!(screen.contains(needle), "{needle} missing from\n{screen}");
    }
    let q = serpsim(&["--quiet", "simulate", "--replicates", "500", "--out", "out2"], dir.path());
    assert!(q.status.success());
    assert_eq!(String::from_utf8(q.stdout).unwrap().lines().count(), 1);
}

/// Deterministic users (clicks 0 or 1, continuation 1, a deterministic stopping rule): every
/// user on a topic does the same thing, and the run says so with the number of distinct
/// sessions: 2 topics x 2 systems x 1 profile = 4 (by hand), not 4 x 3000.
#[test]
fn deterministic_users_are_reported_with_their_distinct_sessions() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let s = SCENARIO
        .replace("continuation = { model = \"rbp\", p = 0.7 }", "stopping = [{ rule = \"contiguous_nonrelevant\", n = 1 }]")
        .replace("clicks = { click = [0.3, 0.9], stop = [0.0, 0.2], mark = [0.0, 1.0] }", "clicks = { click = [0.0, 1.0], stop = [0.0], mark = [0.0, 1.0] }");
    let path = write(dir.path(), "det.toml", &s);
    let r = serpsim(&["simulate", path.to_str().unwrap(), "--out", "out"], dir.path());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(stderr.contains("deterministic") && stderr.contains("4 distinct sessions") && stderr.contains("not 12000"), "{stderr}");
    let manifest = std::fs::read_to_string(dir.path().join("out/manifest.json")).unwrap();
    assert!(manifest.contains("4 distinct sessions"), "{manifest}");
}

/// A hand-made click log over its own queries (`lq1`, `lq2`) and documents (`x0`..`x3`): 40
/// sessions, four rotations of the documents; `x0` and `x1` are clicked when shown at ranks 1-2.
/// With its labels: x0 grade 2, x1 grade 1, x2 and x3 grade 0.
fn portable_log(dir: &Path) {
    let mut log = String::from("session_id\tquery\tdocuments\tclicks\n");
    for i in 0..40 {
        let docs: Vec<String> = (0..4).map(|r| format!("x{}", (r + i) % 4)).collect();
        let clicks: Vec<&str> = docs.iter().enumerate().map(|(r, d)| if r < 2 && (d == "x0" || d == "x1") { "1" } else { "0" }).collect();
        log.push_str(&format!("s{i}\tlq{}\t{}\t{}\n", i % 2 + 1, docs.join(","), clicks.join(",")));
    }
    write(dir, "log.tsv", &log);
    let mut qrels = String::new();
    for q in ["lq1", "lq2"] {
        for (d, g) in [("x0", 2), ("x1", 1), ("x2", 0), ("x3", 0)] {
            qrels.push_str(&format!("{q} 0 {d} {g}\n"));
        }
    }
    write(dir, "log_qrels.txt", &qrels);
}

/// Reads a model file as JSON.
fn model_json(dir: &Path, name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
}

#[test]
fn clicks_fit_qrels_writes_grade_values_with_intervals_over_queries() {
    // Two queries of 10 sessions each, three documents per query: grade 2 (x0, y0), grade 1
    // (x1, y1), grade 0 (x2, y2). Clicks per query (grade 2, 1, 0): lq1 8, 3, 0; lq2 2, 5, 1.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut log = String::from("session_id\tquery\tdocuments\tclicks\n");
    let mut tied = log.clone();
    let grades = [2, 1, 0];
    for (q, docs, clicked) in [("lq1", ["x0", "x1", "x2"], [8, 3, 0]), ("lq2", ["y0", "y1", "y2"], [2, 5, 1])] {
        for i in 0..10 {
            let c: Vec<&str> = clicked.iter().map(|&n| if i < n { "1" } else { "0" }).collect();
            log.push_str(&format!("{q}-{i}\t{q}\t{}\t{}\n", docs.join(","), c.join(",")));
            // The tied log, by hand: one query, every document replaced by its grade.
            tied.push_str(&format!("{q}-{i}\tall\t{}\t{}\n", grades.map(|g| format!("g{g}")).join(","), c.join(",")));
        }
    }
    write(d, "log.tsv", &log);
    write(d, "tied.tsv", &tied);
    let qrels: String = ["lq1 0 x0 2", "lq1 0 x1 1", "lq1 0 x2 0", "lq2 0 y0 2", "lq2 0 y1 1", "lq2 0 y2 0"].map(|l| format!("{l}\n")).concat();
    write(d, "qrels.txt", &qrels);
    let fit = |model: &str, train: &str, out: &str, extra: &[&str]| {
        let mut args = vec!["clicks", "fit", "--model", model, "--format", "tsv", "--train", train, "--out", out];
        args.extend_from_slice(extra);
        let r = serpsim(&args, d);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        String::from_utf8_lossy(&r.stderr).to_string()
    };

    // DCTR: a grade's value is (1 + clicks) / (2 + impressions) (the counting fit's Beta(1, 1)
    // posterior mean, docs/clickmodels.md). Whole log, grade 2: (1 + 10) / (2 + 20) = 0.5.
    // A resample of the two queries is lq1 twice, lq2 twice (1/4 each, far above 2.5 %) or
    // one of each, so with 200 resamples the 95 % interval runs from the lq2-twice value to
    // the lq1-twice one: grade 2 [(1 + 4) / 22, (1 + 16) / 22], grade 1 [(1 + 6) / 22,
    // (1 + 10) / 22], grade 0 [(1 + 0) / 22, (1 + 2) / 22] (by hand).
    let stderr = fit("dctr", "log.tsv", "dctr.json", &["--qrels", "qrels.txt"]);
    assert!(stderr.contains("95 % interval over queries: 200 bootstrap resamples of the log's 2 queries"), "{stderr}");
    assert!(stderr.contains("grade 2: ctr 0.5000 [0.2273, 0.7727] (20 impressions)"), "{stderr}");
    let m = model_json(d, "dctr.json");
    let want = [(0, 2.0 / 22.0, 1.0 / 22.0, 3.0 / 22.0), (1, 9.0 / 22.0, 7.0 / 22.0, 11.0 / 22.0), (2, 0.5, 5.0 / 22.0, 17.0 / 22.0)];
    let rows = m["grades"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for (row, (g, v, lo, hi)) in rows.iter().zip(want) {
        assert_eq!(row["grade"], g);
        assert_eq!(row["impressions"], 20);
        assert_eq!(row["interval_resamples"], 200);
        for (key, x) in [("ctr", v), ("ctr_lower", lo), ("ctr_upper", hi)] {
            assert!((row[key].as_f64().unwrap() - x).abs() < 1e-12, "grade {g} {key}: {} vs {x}", row[key]);
        }
    }
    let gf = &m["grade_fit"];
    assert_eq!((gf["interval_over"].as_str(), gf["interval_level"].as_f64(), gf["bootstrap_resamples"].as_u64()), (Some("queries"), Some(0.95), Some(200)));
    // --grade-bootstrap 0: the values without intervals; it needs --qrels.
    fit("dctr", "log.tsv", "dctr0.json", &["--qrels", "qrels.txt", "--grade-bootstrap", "0"]);
    let m0 = model_json(d, "dctr0.json");
    assert!(m0["grades"][2].get("ctr_lower").is_none() && m0["grade_fit"].get("interval_over").is_none(), "{m0}");
    assert_eq!(m0["grades"][2]["ctr"], m["grades"][2]["ctr"]);
    let r = serpsim(&["clicks", "fit", "--model", "dctr", "--format", "tsv", "--train", "log.tsv", "--out", "x.json", "--grade-bootstrap", "5"], d);
    assert!(!r.status.success() && String::from_utf8_lossy(&r.stderr).contains("--qrels"));

    // DBN: the file's grade values and `grade_fit` gamma are those of the tied log fitted on
    // its own (the hand-made tied.tsv, fitted by the same command), not the per-pair fit's.
    fit("dbn", "log.tsv", "dbn1.json", &["--qrels", "qrels.txt", "--threads", "1"]);
    fit("dbn", "log.tsv", "dbn2.json", &["--qrels", "qrels.txt", "--threads", "2"]);
    assert_eq!(std::fs::read(d.join("dbn1.json")).unwrap(), std::fs::read(d.join("dbn2.json")).unwrap(), "the model file depends on --threads");
    fit("dbn", "tied.tsv", "tied.json", &["--in-memory"]);
    let (m, t) = (model_json(d, "dbn1.json"), model_json(d, "tied.json"));
    let gamma = m["grade_fit"]["scalars"]["gamma"].as_f64().unwrap();
    let tied_gamma = t["scalars"]["gamma"].as_f64().unwrap();
    assert!((gamma - tied_gamma).abs() < 1e-9, "grade_fit gamma {gamma}, tied log's gamma {tied_gamma}");
    let (lo, hi) = (m["grade_fit"]["scalars_lower"]["gamma"].as_f64().unwrap(), m["grade_fit"]["scalars_upper"]["gamma"].as_f64().unwrap());
    assert!(lo <= gamma && gamma <= hi, "gamma {gamma} [{lo}, {hi}]");
    for row in m["grades"].as_array().unwrap() {
        let doc = format!("g{}", row["grade"]);
        let pair = t["pairs"].as_array().unwrap().iter().find(|p| p[1] == doc.as_str()).unwrap();
        assert!((row["attractiveness"].as_f64().unwrap() - pair[2].as_f64().unwrap()).abs() < 1e-9, "{row} vs {pair}");
        assert!((row["satisfaction"].as_f64().unwrap() - pair[3].as_f64().unwrap()).abs() < 1e-9, "{row} vs {pair}");
    }
}

#[test]
fn a_fitted_click_model_drives_a_collection_it_does_not_cover() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    portable_log(dir.path());
    let fit = |extra: &[&str], out: &str| {
        let mut args = vec!["clicks", "fit", "--model", "dbn", "--format", "tsv", "--train", "log.tsv", "--out", out];
        args.extend_from_slice(extra);
        let r = serpsim(&args, dir.path());
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        String::from_utf8_lossy(&r.stderr).to_string()
    };
    fit(&[], "m.json");
    let stderr = fit(&["--qrels", "log_qrels.txt"], "mg.json");
    assert!(stderr.contains("grade 2: attractiveness"), "{stderr}");
    let model_bytes = std::fs::read(dir.path().join("m.json")).unwrap();
    let scenario = |model: &str, unseen: &str| {
        format!(
            "name = \"portable\"\nseed = 3\nreplicates = 200\n[collection]\nsource = \"trec\"\nqrels = \"qrels.txt\"\nruns = [\"run_a.txt\", \"run_b.txt\"]\n[[profiles]]\nname = \"u\"\nclick_model = {{ file = \"{model}\"{unseen} }}\n"
        )
    };
    // No stated mapping: refused, and the error lists the choices.
    write(dir.path(), "none.toml", &scenario("m.json", ""));
    let r = serpsim(&["simulate", "none.toml", "--out", "o0"], dir.path());
    assert!(!r.status.success());
    let e = String::from_utf8_lossy(&r.stderr);
    for choice in ["knows none", "unseen = \"quantile\"", "--qrels", "unseen = \"grade\"", "unseen = \"prior\""] {
        assert!(e.contains(choice), "{choice}: {e}");
    }
    // Quantile matching, chosen in the scenario: runs, the warning names the assumption, in the
    // terminal and in summary.json.
    write(dir.path(), "q.toml", &scenario("m.json", ", unseen = \"quantile\""));
    let r = serpsim(&["simulate", "q.toml", "--out", "oq"], dir.path());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let e = String::from_utf8_lossy(&r.stderr);
    assert!(
        e.contains("warning:")
            && e.contains("quantile matching (assumed: attractiveness and satisfaction rise with the relevance grade")
            && e.contains("100.0 % unseen"),
        "{e}"
    );
    let summary = std::fs::read_to_string(dir.path().join("oq/summary.json")).unwrap();
    assert!(summary.contains("quantile matching"), "summary.json has no warning about the mapping");
    // A model file with labels (`clicks fit --qrels`) maps by them without being told.
    write(dir.path(), "g.toml", &scenario("mg.json", ""));
    let r = serpsim(&["simulate", "g.toml", "--out", "og"], dir.path());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(String::from_utf8_lossy(&r.stderr).contains("fitted on the log's own relevance labels"), "{}", String::from_utf8_lossy(&r.stderr));
    // The model file was used as fitted, never edited.
    assert_eq!(std::fs::read(dir.path().join("m.json")).unwrap(), model_bytes);
}
