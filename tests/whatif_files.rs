//! Your own qrels and runs in one command (issue 40): `serpsim simulate --qrels Q --run A --run
//! B` runs the scenario `--print-scenario` writes, byte for byte; coverage is stated, recorded
//! and refused when it would mislead; the answer says whether user models agree and how many
//! topics would settle it.
//!
//! Every collection here is hand-made; the counts expected below are derived by hand from it
//! (comments say how).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn serpsim(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_serpsim")).args(args).current_dir(cwd).output().expect("serpsim runs")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Qrels judging topics 1-12; run A ranks topics 1-12 plus 13 (unjudged); run B ranks 1-11
/// (not 12). Each ranking has 6 documents `t-0`..`t-5`; `t-0`..`t-3` are judged (grades
/// 2, 1, 0, 1), `t-4` and `t-5` are not. A puts the judged documents first, B reversed.
fn collection(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let mut q = String::new();
    for t in 1..=12 {
        for (d, g) in [(0, 2), (1, 1), (2, 0), (3, 1)] {
            q += &format!("{t} 0 {t}-{d} {g}\n");
        }
    }
    let mut a = String::new();
    for t in 1..=13 {
        for d in 0..6 {
            a += &format!("{t} Q0 {t}-{d} {} {} A\n", d + 1, 10 - d);
        }
    }
    let mut b = String::new();
    for t in 1..=11 {
        for d in 0..6 {
            b += &format!("{t} Q0 {t}-{} {} {} B\n", 5 - d, d + 1, 10 - d);
        }
    }
    (write(dir, "qrels.txt", &q), write(dir, "a.run", &a), write(dir, "b.run", &b))
}

fn files_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

/// The one command and the scenario file it prints give byte-identical outputs (manifest
/// included); the printed answer is the same.
#[test]
fn one_command_equals_the_printed_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let (q, a, b) = collection(dir.path());
    let (q, a, b) = (q.to_str().unwrap(), a.to_str().unwrap(), b.to_str().unwrap());
    let r = serpsim(&["simulate", "--qrels", q, "--run", a, "--run", b, "--replicates", "200", "--out", "one", "--users", "robust"], dir.path());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let p = serpsim(&["simulate", "--qrels", q, "--run", a, "--run", b, "--users", "robust", "--print-scenario"], dir.path());
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    std::fs::create_dir(dir.path().join("keep")).unwrap();
    let kept = write(&dir.path().join("keep"), "whatif.toml", &String::from_utf8(p.stdout).unwrap());
    // Run from another folder: the scenario names its files by absolute path.
    let f = serpsim(&["simulate", kept.to_str().unwrap(), "--replicates", "200", "--out", "../file"], &dir.path().join("keep"));
    assert!(f.status.success(), "{}", String::from_utf8_lossy(&f.stderr));
    let (one, file) = (files_in(&dir.path().join("one")), files_in(&dir.path().join("file")));
    assert!(one.len() >= 10, "{:?}", one.iter().map(|f| &f.0).collect::<Vec<_>>());
    assert_eq!(one.iter().map(|f| &f.0).collect::<Vec<_>>(), file.iter().map(|f| &f.0).collect::<Vec<_>>());
    for (x, y) in one.iter().zip(&file) {
        assert!(x.1 == y.1, "{} differs between the one command and its scenario file", x.0);
    }
    let answer = |o: &Output| String::from_utf8_lossy(&o.stdout).lines().filter(|l| !l.starts_with("wrote ")).collect::<Vec<_>>().join("\n");
    assert_eq!(answer(&r), answer(&f));
    // Four user models, one line on whether they agree.
    let users = answer(&r).lines().filter(|l| l.starts_with("users: ")).count();
    assert_eq!(users, 1, "{}", answer(&r));
    assert!(answer(&r).contains("of 4 user models"), "{}", answer(&r));
    // No system was added: the only pair is A vs B.
    let verdict = std::fs::read_to_string(dir.path().join("one/verdict.csv")).unwrap();
    assert_eq!(verdict.lines().count(), 1 + 4, "{verdict}");
    assert!(verdict.lines().skip(1).all(|l| l.contains(",A,B,")), "{verdict}");
    assert!(verdict.lines().next().unwrap().contains("gain_topics_needed_80_power,gain_min_detectable_diff_topics"));
}

/// Coverage counts on stderr and in summary.json, by hand from [`collection`]: the runs rank
/// topics 1-13 (13), judged 1-12 (12): 1 unjudged (13, A's). Every run ranks 1-11 (11). B does
/// not rank judged topic 12, which A ranks. Judged@10 of A: per topic 4 judged of the top 10
/// (6 retrieved; k = 10 is the denominator) = 0.4; of B the same 0.4. With users who examine 6
/// or more results, Judged@k at k >= 6 is 4 / k < 0.9: a warning names both systems.
#[test]
fn coverage_is_counted_stated_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (q, a, b) = collection(dir.path());
    let r = serpsim(
        &[
            "simulate",
            "--qrels",
            q.to_str().unwrap(),
            "--run",
            a.to_str().unwrap(),
            "--run",
            b.to_str().unwrap(),
            "--replicates",
            "100",
            "--out",
            "o",
            "--profile",
            "pbm",
        ],
        dir.path(),
    );
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    assert!(err.contains("coverage: 12 judged topics, 11 ranked by every run, 1 run topics unjudged"), "{err}");
    assert!(err.contains("warning: the qrels judge 12 of the 13 topics the runs rank: 1 topic without judgements left out (per run: A 1)"), "{err}");
    assert!(err.contains("warning: run B does not rank 1 judged topic that another run ranks"), "{err}");
    assert!(err.contains("count as non-relevant: A judged@"), "{err}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("o/summary.json")).unwrap()).unwrap();
    let c = &json["coverage"];
    assert_eq!(c["judged_topics"], 12);
    assert_eq!(c["run_topics"], 13);
    assert_eq!(c["unjudged_run_topics"], 1);
    assert_eq!(c["judged_topics_without_runs"], 0);
    assert_eq!(c["topics_every_run_ranks"], 11);
    assert_eq!(c["systems"][0]["system"], "A");
    assert_eq!(c["systems"][0]["unjudged_topics"], 1);
    assert_eq!(c["systems"][0]["judged_at_10"], 0.4);
    assert_eq!(c["systems"][1]["judged_topics_not_ranked"], 1);
    assert_eq!(c["systems"][1]["judged_at_10"], 0.4);
    // Judged@k of A at the depth users reach: A's first 4 results are its 4 judged ones, so
    // min(k, 4) / k, which is 4 / k for k >= 4 (the PBM user reaches rank 6 in 1/6 of sessions).
    let k = c["systems"][0]["depth_k"].as_u64().unwrap() as f64;
    assert_eq!(c["systems"][0]["judged_at_k"].as_f64().unwrap(), serpsim::write::round_sig(4.0 / k));
    let warnings: Vec<String> = json["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string()).collect();
    assert!(warnings.iter().any(|w| w.contains("1 topic without judgements left out")), "{warnings:?}");
    // The answer ends its warnings with them too.
    let answer = std::fs::read_to_string(dir.path().join("o/answer.txt")).unwrap();
    assert!(answer.contains("warning: the qrels judge 12 of the 13 topics"), "{answer}");
}

/// More than half of the runs' topics unjudged is refused with the counts (qrels for topics
/// 1-3 of 13: 10 unjudged > 6.5) unless allowed; a run with no judged topic is refused.
#[test]
fn misleading_comparisons_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, a, b) = collection(dir.path());
    let few = write(dir.path(), "few.txt", "1 0 1-0 2\n2 0 2-0 1\n3 0 3-0 1\n");
    let args = |extra: &[&str]| {
        let mut v =
            vec!["simulate", "--qrels", few.to_str().unwrap(), "--run", a.to_str().unwrap(), "--run", b.to_str().unwrap(), "--replicates", "50", "--out", "o"];
        v.extend_from_slice(extra);
        v.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        serpsim(&a.iter().map(String::as_str).collect::<Vec<_>>(), dir.path())
    };
    let r = run(&[]);
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("the qrels judge 3 of the 13 topics the runs rank (10 unjudged, more than half)"), "{err}");
    assert!(err.contains("--allow-partial-judgements"), "{err}");
    assert!(!dir.path().join("o").exists(), "a refused run writes nothing");
    let r = run(&["--allow-partial-judgements"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("o/summary.json")).unwrap()).unwrap();
    assert_eq!(json["coverage"]["unjudged_run_topics"], 10);
    assert_eq!(json["coverage"]["allow_partial_judgements"], true);
    // The same switch on a scenario file.
    let p = serpsim(&args(&["--print-scenario"]).iter().map(String::as_str).collect::<Vec<_>>(), dir.path());
    let s = write(dir.path(), "s.toml", &String::from_utf8(p.stdout).unwrap());
    let r = serpsim(&["simulate", s.to_str().unwrap(), "--replicates", "50", "--out", "o2"], dir.path());
    assert!(!r.status.success());
    let r = serpsim(&["simulate", s.to_str().unwrap(), "--replicates", "50", "--out", "o2", "--allow-partial-judgements"], dir.path());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // A run none of whose topics is judged.
    let other = write(dir.path(), "other.run", "99 Q0 x 1 1.0 Z\n");
    let r = serpsim(&["simulate", "--qrels", few.to_str().unwrap(), "--run", other.to_str().unwrap(), "--allow-partial-judgements", "--out", "o3"], dir.path());
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("run `Z` has no judged topic: none of its 1 topics is in the qrels"), "{err}");
}

/// `--topics` restricts both the qrels and the runs; an unknown topic is an error; the
/// printed scenario names the topics; `--profile` takes a built-in name only if it exists.
#[test]
fn topics_and_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let (q, a, b) = collection(dir.path());
    let base = ["simulate", "--qrels", q.to_str().unwrap(), "--run", a.to_str().unwrap(), "--run", b.to_str().unwrap()];
    let with = |extra: &[&str]| serpsim(&[&base[..], extra].concat(), dir.path());
    let r = with(&["--topics", "1,2,3,4,5", "--replicates", "50", "--out", "o", "--profile", "dbn"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("o/summary.json")).unwrap()).unwrap();
    assert_eq!(json["coverage"]["run_topics"], 5);
    assert_eq!(json["coverage"]["unjudged_run_topics"], 0);
    let p = with(&["--topics", "1,2", "--print-scenario"]);
    assert!(String::from_utf8_lossy(&p.stdout).contains("topics = [\"1\", \"2\"]"));
    let r = with(&["--topics", "1,77"]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("topic `77`"), "{}", String::from_utf8_lossy(&r.stderr));
    let r = with(&["--profile", "nobody", "--print-scenario"]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("no built-in user `nobody`"));
}
