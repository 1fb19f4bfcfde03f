//! End-to-end tests of `serpsim clicks`.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_serpsim"))
}

fn yandex() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("study_logs/clicks/yandex_sample_train.txt")
}

#[test]
fn eval_prints_the_json_contract() {
    let out = bin().args(["clicks", "eval", "--model", "sdbn", "--train"]).arg(yandex()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["model"], "sdbn");
    assert_eq!(v["train_sessions"], 26298);
    assert_eq!(v["test_sessions"], 7167);
    assert!((v["log_likelihood"].as_f64().unwrap() - -0.285353).abs() < 1e-4);
    assert!((v["perplexity"].as_f64().unwrap() - 1.325411).abs() < 1e-4);
    assert_eq!(v["perplexity_at_rank"].as_array().unwrap().len(), 10);
}

#[test]
fn eval_with_separate_test_file_and_fit_simulate_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.tsv");
    let test = dir.path().join("test.tsv");
    std::fs::write(&train, "session_id\tquery\tdocuments\tclicks\ns1\tq\ta,b,c\t1,0,0\ns2\tq\tb,a,c\t0,1,0\ns3\tr\tx,y\t0,0\n").unwrap();
    std::fs::write(&test, "t1\tq\ta,b,c\t1,0,0\nt2\tunseen\ta,b\t0,1\n").unwrap();
    let out = bin()
        .args(["clicks", "eval", "--model", "dbn", "--gamma", "0.9", "--format", "tsv", "--train"])
        .arg(&train)
        .arg("--test")
        .arg(&test)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["train_sessions"].as_u64(), v["test_sessions"].as_u64()), (Some(3), Some(1)));

    let model = dir.path().join("m.json");
    let out = bin().args(["clicks", "fit", "--model", "sdbn", "--format", "tsv", "--train"]).arg(&train).arg("--out").arg(&model).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let sim = |threads: &str, name: &str| {
        let path = dir.path().join(name);
        let out = bin()
            .args(["clicks", "simulate", "--format", "tsv", "--replicates", "50", "--seed", "7", "--threads", threads, "--model-file"])
            .arg(&model)
            .arg("--serps")
            .arg(&test)
            .arg("--out")
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::read_to_string(path).unwrap()
    };
    let (a, b) = (sim("1", "a.tsv"), sim("2", "b.tsv"));
    assert_eq!(a, b, "simulation depends on the thread count");
    assert_eq!(a.lines().count(), 1 + 2 * 50);
    assert!(a.lines().nth(1).unwrap().starts_with("1-1\tq\ta,b,c\t"));
}

#[test]
fn malformed_yandex_line_is_reported_with_its_number() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("bad.txt");
    std::fs::write(&log, "q\ta,b : a; q\tb,a :\nq a,b : a\nq\ta,b :\n").unwrap();
    let out = bin().args(["clicks", "eval", "--model", "cm", "--train"]).arg(&log).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt:2:") && err.contains("TAB"), "{err}");
    let out = bin().args(["clicks", "fit", "--model", "cm", "--skip-bad-lines", "--out"]).arg(dir.path().join("m.json")).arg("--train").arg(&log).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped 1 bad line"));
    let out = bin().args(["clicks", "eval", "--model", "nope", "--train"]).arg(&log).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown click model `nope`"));
}

#[test]
fn streamed_fit_writes_the_same_model() {
    let dir = tempfile::tempdir().unwrap();
    let fit = |extra: &[&str], name: &str| {
        let out_path = dir.path().join(name);
        let out = bin()
            .args(["clicks", "fit", "--model", "dbn", "--iterations", "3"])
            .args(extra)
            .arg("--train")
            .arg(yandex())
            .arg("--out")
            .arg(&out_path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::read_to_string(out_path).unwrap()
    };
    let (mem, streamed) = (fit(&["--in-memory"], "mem.json"), fit(&[], "stream.json"));
    assert_eq!(mem, streamed);
    let v: serde_json::Value = serde_json::from_str(&mem).unwrap();
    assert_eq!(v["model"], "dbn");
    assert!(v["pairs"].as_array().unwrap().len() > 1000);
}
