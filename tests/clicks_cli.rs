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

#[test]
fn fit_posterior_writes_conjugate_records_with_draws() {
    // CM on a hand-made log: pair (q, a) is examined in both sessions (clicked in s1, first
    // result and unclicked in s2), so with s = 1 success in n = 2 trials under Beta(1, 1) its
    // posterior is Beta(2, 2) (hand derivation): mean 1/2, sd sqrt(2*2 / (4^2 * 5)) = 0.2236;
    // the 90 % interval of Beta(2, 2) is [0.1354, 0.8646] (scipy.stats.beta(2, 2).ppf([0.05, 0.95])).
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.tsv");
    std::fs::write(&train, "s1\tq\ta,b\t1,0\ns2\tq\ta,b\t0,1\n").unwrap();
    let post = dir.path().join("post.json");
    let out = bin()
        .args(["clicks", "fit", "--model", "cm", "--format", "tsv", "--prior", "uniform", "--draws", "7", "--train"])
        .arg(&train)
        .arg("--out")
        .arg(dir.path().join("m.json"))
        .arg("--posterior")
        .arg(&post)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&post).unwrap()).unwrap();
    let rec = v.as_array().unwrap().iter().find(|r| r["document"] == "a").unwrap();
    assert_eq!(rec["parameter"], "attractiveness");
    assert!((rec["mean"].as_f64().unwrap() - 0.5).abs() < 1e-12, "{rec}");
    assert!((rec["sd"].as_f64().unwrap() - 0.223607).abs() < 1e-5, "{rec}");
    assert!((rec["lower"].as_f64().unwrap() - 0.135350).abs() < 1e-4, "{rec}");
    assert!((rec["upper"].as_f64().unwrap() - 0.864650).abs() < 1e-4, "{rec}");
    assert_eq!(rec["draws"].as_array().unwrap().len(), 7);
}

#[test]
fn validate_writes_a_complete_output_set() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("val");
    let out = bin()
        .args(["--quiet", "clicks", "validate", "--model", "pbm", "--split", "interleaved", "--bootstrap", "20", "--train"])
        .arg(yandex())
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Every fourth of the 35,064 sessions tests (8,766); all their queries are in training.
    assert_eq!(v["test_sessions"], 8766);
    assert_eq!(v["train_sessions"], 35064 - 8766);
    for f in ["distances.csv", "system.csv", "validation.json", "validation.svg", "manifest.json"] {
        assert!(out_dir.join(f).exists(), "{f}");
    }
    let csv = std::fs::read_to_string(out_dir.join("distances.csv")).unwrap();
    assert!(csv.lines().any(|l| l.starts_with("pbm,abandonment,")), "{csv}");
    // A bad split name is refused before anything is written.
    let again = bin().args(["clicks", "validate", "--model", "pbm", "--split", "random", "--train"]).arg(yandex()).arg("--out").arg(dir.path().join("x")).output().unwrap();
    assert!(!again.status.success());
    assert!(!dir.path().join("x").exists());
}

#[test]
fn validate_with_query_priors_and_test_only_documents() {
    // Test SERPs show documents (z, y) that training never showed. Their pairs have no query
    // in the training log; the per-query prior once sized a table by that missing query's
    // index (u32::MAX) and aborted on a 103 GB allocation.
    let dir = tempfile::tempdir().unwrap();
    let (train, test) = (dir.path().join("train.txt"), dir.path().join("test.txt"));
    std::fs::write(&train, "q1\ta,b,c : a\nq1\ta,b,c : b\nq1\tb,a,c :\nq1\tc,a,b : a\nq2\td,e : d\nq2\te,d : e\nq2\td,e :\nq2\te,d : d\n").unwrap();
    std::fs::write(&test, "q1\tz,a,b : z\nq2\td,y : y\n").unwrap();
    for model in ["sdbn", "dbn"] {
        let out = bin()
            .args(["--quiet", "clicks", "validate", "--model", model, "--prior", "query", "--bootstrap", "20", "--train"])
            .arg(&train)
            .arg("--test")
            .arg(&test)
            .arg("--out")
            .arg(dir.path().join(model))
            .output()
            .unwrap();
        assert!(out.status.success(), "{model}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((v["train_sessions"].as_u64(), v["test_sessions"].as_u64()), (Some(8), Some(2)), "{model}");
    }
}

#[test]
fn validate_orderings_on_the_yandex_sample_writes_the_tables_whatever_the_thread_count() {
    // 951 distinct orderings of 20 query ids in 35,064 sessions, every query with two or more:
    // counted independently of serpsim by analysis/validation/count_orderings.py (str.split).
    let dir = tempfile::tempdir().unwrap();
    let run = |threads: &str, out: &str| {
        let o = bin()
            .args(["clicks", "validate", "--split", "orderings", "--model", "sdbn,rctr,dctr", "--bootstrap", "50", "--replicates", "100", "--threads", threads, "--train"])
            .arg(yandex())
            .arg("--out")
            .arg(dir.path().join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let (one, two) = (run("1", "a"), run("2", "b"));
    assert_eq!(one, two);
    assert!(one.starts_with("model,role,ctr_mae_over_orderings,lower,upper\nsdbn,model,"), "{one}");
    assert!(one.contains("951 held-out orderings of 20 queries (35064 sessions), 5 folds"), "{one}");
    for f in ["errors.csv", "ranks.csv", "pairs.csv", "calibration.csv", "orderings.json"] {
        let (a, b) = (std::fs::read(dir.path().join("a").join(f)).unwrap(), std::fs::read(dir.path().join("b").join(f)).unwrap());
        assert!(a == b, "{f} differs between 1 and 2 threads");
    }
    let errors = std::fs::read_to_string(dir.path().join("a/errors.csv")).unwrap();
    // 3 models x 5 measures and a header.
    assert_eq!(errors.lines().count(), 16);
    assert!(errors.lines().any(|l| l.starts_with("rctr,baseline,ctr_mae,")));
}

#[test]
fn validate_orderings_refuses_bad_settings_with_clear_errors() {
    let cases: [(&[&str], &str); 3] = [
        (&["--model", "dbn", "--folds", "1"], "key `folds`: must be at least 2"),
        (&["--model", "dbn", "--prior", "global"], "--prior, --gamma and --top-examination are not supported"),
        (&["--model", "dbn,nope"], "unknown click model `nope`"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["clicks", "validate", "--split", "orderings"];
        args.extend_from_slice(extra);
        let o = bin().args(&args).arg("--train").arg(yandex()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
    }
}

#[test]
fn validate_switches_on_a_hand_made_log() {
    // Ordering A [good, bad] and B [bad, good], 60 sessions each, `good` clicked in every one:
    // first-click RR 1 on A and 1/2 on B. Switching A -> B is really worse (-1/2), B -> A better
    // (+1/2); every method must stay with A and switch from B (hand derivation in
    // src/baraco/real.rs).
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.txt");
    let mut text = String::new();
    for _ in 0..60 {
        text.push_str("q\tgood,bad : good\n");
    }
    for _ in 0..60 {
        text.push_str("q\tbad,good : good\n");
    }
    std::fs::write(&log, text).unwrap();
    let o = bin().args(["clicks", "validate-switches", "--samples", "200", "--train"]).arg(&log).arg("--out").arg(dir.path().join("out")).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = std::fs::read_to_string(dir.path().join("out/summary.csv")).unwrap();
    for m in ["baraco", "em_plugin", "mt"] {
        assert!(summary.contains(&format!("\n{m},2,1,0,0,0,1\n")), "{summary}");
    }
    let decisions = std::fs::read_to_string(dir.path().join("out/decisions.csv")).unwrap();
    assert_eq!(decisions.lines().count(), 3);
}
