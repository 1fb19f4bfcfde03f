//! Same inputs, seed and options give byte-identical output whatever `--threads` and `--out`
//! are (issue 29, item 4): every seeded command that writes files runs twice, with
//! `--threads 1` into one path and `--threads 2` into another, and the two outputs (every
//! file of an output folder, `manifest.json` included) must be equal byte for byte.
//!
//! The expected value is the first run itself: the property is equality, so no number from
//! the code under test is written down here.
//!
//! Covered (from `serpsim --help`): simulate, sessions run, sessions sweep, sublists sweep,
//! sublists when, streams run, clicks fit, clicks simulate, clicks validate (75-25 split and
//! `--split orderings`), study synth, study validate, suggest generate (no `--threads`: only
//! `--out` differs), compare-rankers, eval `--ci`. Not covered: clicks validate-switches (about
//! a minute on the smallest bundled log that has 50 sessions per ordering; its manifest goes
//! through the same `output::recorded_args` as clicks validate), sublists gen-log and fit (their
//! `--out`/`--threads` handling is another item of issue 29).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p).display().to_string()
}

fn serpsim(args: &[String]) {
    let out = Command::new(env!("CARGO_BIN_EXE_serpsim")).arg("--quiet").args(args).output().expect("runs");
    assert!(out.status.success(), "serpsim {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
}

/// Every file under `p` (or `p` itself when it is a file), by relative path.
fn files(p: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    if p.is_file() {
        m.insert(String::new(), std::fs::read(p).unwrap());
        return m;
    }
    let mut stack = vec![p.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap().path();
            if e.is_dir() {
                stack.push(e);
            } else {
                m.insert(e.strip_prefix(p).unwrap().display().to_string(), std::fs::read(&e).unwrap());
            }
        }
    }
    m
}

struct Case {
    name: &'static str,
    /// Arguments before `--threads` and `--out`.
    args: Vec<String>,
    /// Whether the command takes `--threads`.
    threads: bool,
    /// The output option (`--out`, or `-o` for eval).
    out_flag: &'static str,
    /// A file name for commands that write one file (the path then differs in its folder).
    file: Option<&'static str>,
}

fn case(name: &'static str, args: &[&str], threads: bool, file: Option<&'static str>) -> Case {
    Case { name, args: args.iter().map(|s| s.to_string()).collect(), threads, out_flag: "--out", file }
}

/// Runs `c` with `threads` into a path under `dir` and returns that path.
fn run(c: &Case, threads: &str, dir: &Path) -> PathBuf {
    let out = match c.file {
        Some(f) => {
            std::fs::create_dir_all(dir).unwrap();
            dir.join(f)
        }
        None => dir.join(format!("{}-out", c.name.replace(' ', "-"))),
    };
    let mut args = c.args.clone();
    if c.threads {
        args.extend(["--threads".to_string(), threads.to_string()]);
    }
    args.extend([c.out_flag.to_string(), out.display().to_string()]);
    serpsim(&args);
    out
}

#[test]
fn seeded_commands_give_identical_output_whatever_threads_and_out() {
    let tmp = tempfile::tempdir().unwrap();
    let t = |p: &str| tmp.path().join(p).display().to_string();
    let yandex = root("study_logs/clicks/synthetic_yandex_layout.txt");
    // Inputs made by the project: a fitted model and a synthetic study.
    let sv = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    serpsim(&sv(&["clicks", "fit", "--model", "dbn", "--iterations", "5", "--train", &yandex, "--out", &t("dbn.json")]));
    serpsim(&sv(&["study", "synth", "--participants", "2", "--seed", "1", "--out", &t("synth")]));
    let (log, qrels) = (t("synth/log.jsonl"), t("synth/qrels.txt"));
    let baraco = |f: &str| root(&format!("tests/fixtures/baraco/{f}"));
    let (blog, bprod, bcand) = (baraco("log.tsv"), baraco("production.tsv"), baraco("candidates.tsv"));
    let (tq, tr) = (root("study_logs/trec/qrels.test"), root("study_logs/trec/results.test"));
    let (sweep, maxwell, bopha) =
        (root("tests/fixtures/sessions/multitest_sweep.toml"), root("simulations/sessions/maxwell2015.toml"), root("simulations/streams/bopha.toml"));
    let dbn = t("dbn.json");
    let mut cases = vec![
        case("simulate", &["simulate", "--replicates", "20", "--seed", "3"], true, None),
        case("sessions run", &["sessions", "run", &maxwell, "--replicates", "5", "--seed", "3"], true, None),
        case("sessions sweep", &["sessions", "sweep", &sweep, "--replicates", "10", "--seed", "3"], true, None),
        case("sublists sweep", &["sublists", "sweep", "--replicates", "10", "--seed", "3"], true, None),
        case("sublists when", &["sublists", "when", "--replicates", "10", "--seed", "3"], true, None),
        case("streams run", &["streams", "run", &bopha, "--users", "20", "--seed", "3"], true, None),
        case("clicks fit", &["clicks", "fit", "--model", "dbn", "--iterations", "5", "--train", &yandex], true, Some("model.json")),
        case("clicks simulate", &["clicks", "simulate", "--model-file", &dbn, "--serps", &yandex, "--seed", "2"], true, Some("sim.tsv")),
        case("clicks validate 75-25", &["clicks", "validate", "--model", "pbm", "--bootstrap", "20", "--replicates", "2", "--train", &yandex], true, None),
        case(
            "clicks validate orderings",
            &["clicks", "validate", "--split", "orderings", "--model", "sdbn,rctr", "--bootstrap", "20", "--replicates", "20", "--train", &yandex],
            true,
            None,
        ),
        case("study synth", &["study", "synth", "--participants", "2", "--seed", "4"], false, None),
        case("study validate", &["study", "validate", &log, "--qrels", &qrels, "--replicates", "20", "--bootstrap", "20", "--seed", "2"], true, None),
        case("suggest generate", &["suggest", "generate", "--sessions", "20", "--seed", "1"], false, None),
        case(
            "compare-rankers",
            &["compare-rankers", "--log", &blog, "--production", &bprod, "--candidates", &bcand, "--samples", "100", "--seed", "2"],
            true,
            Some("safe.csv"),
        ),
        case("eval ci", &["eval", &tq, &tr, "--ci", "--resamples", "200", "--seed", "2"], true, Some("eval.csv")),
    ];
    cases.last_mut().unwrap().out_flag = "-o";
    let mut differences = Vec::new();
    for c in &cases {
        let a = files(&run(c, "1", &tmp.path().join("a")));
        let b = files(&run(c, "2", &tmp.path().join("b/deeper")));
        assert!(!a.is_empty(), "{}: wrote nothing", c.name);
        if c.file.is_none() {
            assert!(a.contains_key("manifest.json"), "{}: no manifest.json", c.name);
        }
        let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
        if names(&a) != names(&b) {
            differences.push(format!("{}: files {:?} vs {:?}", c.name, names(&a), names(&b)));
            continue;
        }
        for (k, v) in &a {
            if &b[k] != v {
                differences.push(format!("{}: {} differs", c.name, if k.is_empty() { "the output file" } else { k }));
            }
        }
    }
    assert!(differences.is_empty(), "not byte-identical across --threads 1/2 and two --out paths:\n{}", differences.join("\n"));
}

fn refused(args: &[&str], input: &Path) {
    let before = std::fs::read(input).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_serpsim")).args(args).output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "serpsim {}: accepted an input as output", args.join(" "));
    assert!(err.contains("the output path is also an input"), "serpsim {}: {err}", args.join(" "));
    assert_eq!(std::fs::read(input).unwrap(), before, "serpsim {}: the input changed", args.join(" "));
}

#[test]
fn an_output_path_that_is_an_input_is_refused_before_writing() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = |from: &str, to: &str| {
        let p = tmp.path().join(to);
        std::fs::copy(root(from), &p).unwrap();
        p
    };
    let q = copy("study_logs/trec/qrels.test", "qrels");
    let r = copy("study_logs/trec/results.test", "run");
    let s = |p: &Path| p.display().to_string();
    // The same file by another spelling.
    let q_again = tmp.path().join("sub/../qrels");
    std::fs::create_dir(tmp.path().join("sub")).unwrap();
    refused(&["eval", &s(&q), &s(&r), "-o", &s(&q)], &q);
    refused(&["eval", &s(&q), &s(&r), "-o", &s(&q_again)], &q);
    refused(&["eval", &s(&q), &s(&r), "--out", &s(&r)], &r);
    // A hand-written click log (tsv layout: session, query, documents, clicks).
    let log = tmp.path().join("clicks.tsv");
    std::fs::write(&log, "s1\tq\ta,b,c\t1,0,0\ns2\tq\tb,a,c\t0,1,0\ns3\tr\tx,y\t0,0\n").unwrap();
    refused(&["clicks", "fit", "--model", "sdbn", "--format", "tsv", "--train", &s(&log), "--out", &s(&log)], &log);
    refused(&["clicks", "convert", "--in", &s(&log), "--out", &s(&log), "--to", "tsv"], &log);
    let model = tmp.path().join("m.json");
    let fit = Command::new(env!("CARGO_BIN_EXE_serpsim"))
        .args(["--quiet", "clicks", "fit", "--model", "sdbn", "--format", "tsv", "--train", &s(&log), "--out", &s(&model)])
        .output()
        .unwrap();
    assert!(fit.status.success(), "{}", String::from_utf8_lossy(&fit.stderr));
    refused(&["clicks", "simulate", "--model-file", &s(&model), "--serps", &s(&log), "--format", "tsv", "--out", &s(&log)], &log);
    refused(&["clicks", "simulate", "--model-file", &s(&model), "--serps", &s(&log), "--format", "tsv", "--out", &s(&model)], &model);
    let asc = copy("study_logs/gaze/mono_1000hz.asc", "gaze.asc");
    refused(&["study", "events", &s(&asc), "--out", &s(&asc)], &asc);
    // An output directory is replaced as a whole: one that holds an input is refused too.
    refused(&["clicks", "validate", "--model", "pbm", "--format", "tsv", "--train", &s(&log), "--out", &s(tmp.path())], &log);
}
