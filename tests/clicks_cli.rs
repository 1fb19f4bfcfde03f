//! End-to-end tests of `serpsim clicks`.

mod common;

use common::{json_stdout, log_with_two_bad_lines, root, run_ok, serpsim as bin};
use std::path::PathBuf;

fn yandex() -> PathBuf {
    root().join("study_logs/clicks/synthetic_yandex_layout.txt")
}

#[test]
fn eval_prints_the_json_contract() {
    let v = json_stdout(bin().args(["clicks", "eval", "--model", "sdbn", "--train"]).arg(yandex()));
    assert_eq!(v["model"], "sdbn");
    // PyClick's SDBN on the bundled log, its split and its numbers (6 decimals):
    // `python3 analysis/clickmodels/pyclick_reference.py study_logs/clicks/synthetic_yandex_layout.txt`
    // (PyClick commit 98e7e46; see src/clickmodels/tests.rs).
    assert_eq!(v["train_sessions"], 22500);
    assert_eq!(v["test_sessions"], 7500);
    assert!((v["log_likelihood"].as_f64().unwrap() - -0.282214).abs() < 1e-6);
    assert!((v["perplexity"].as_f64().unwrap() - 1.326904).abs() < 1e-6);
    assert_eq!(v["perplexity_at_rank"].as_array().unwrap().len(), 10);
}

#[test]
fn eval_with_separate_test_file_and_fit_simulate_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.tsv");
    let test = dir.path().join("test.tsv");
    std::fs::write(&train, "session_id\tquery\tdocuments\tclicks\ns1\tq\ta,b,c\t1,0,0\ns2\tq\tb,a,c\t0,1,0\ns3\tr\tx,y\t0,0\n").unwrap();
    std::fs::write(&test, "t1\tq\ta,b,c\t1,0,0\nt2\tunseen\ta,b\t0,1\n").unwrap();
    let v = json_stdout(bin().args(["clicks", "eval", "--model", "dbn", "--gamma", "0.9", "--format", "tsv", "--train"]).arg(&train).arg("--test").arg(&test));
    assert_eq!((v["train_sessions"].as_u64(), v["test_sessions"].as_u64()), (Some(3), Some(1)));

    let model = dir.path().join("m.json");
    run_ok(bin().args(["clicks", "fit", "--model", "sdbn", "--format", "tsv", "--train"]).arg(&train).arg("--out").arg(&model));
    let sim = |threads: &str, name: &str| {
        let path = dir.path().join(name);
        run_ok(
            bin()
                .args(["clicks", "simulate", "--format", "tsv", "--replicates", "50", "--seed", "7", "--threads", threads, "--model-file"])
                .arg(&model)
                .arg("--serps")
                .arg(&test)
                .arg("--out")
                .arg(&path),
        );
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
    let out = run_ok(bin().args(["clicks", "fit", "--model", "cm", "--skip-bad-lines", "--out"]).arg(dir.path().join("m.json")).arg("--train").arg(&log));
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped 1 bad line"));
    let out = bin().args(["clicks", "eval", "--model", "nope", "--train"]).arg(&log).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown click model `nope`"));
}

#[test]
fn streamed_fit_writes_the_same_model() {
    let dir = tempfile::tempdir().unwrap();
    let fit = |extra: &[&str], name: &str| {
        let out_path = dir.path().join(name);
        run_ok(bin().args(["clicks", "fit", "--model", "dbn", "--iterations", "3"]).args(extra).arg("--train").arg(yandex()).arg("--out").arg(&out_path));
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
    run_ok(
        bin()
            .args(["clicks", "fit", "--model", "cm", "--format", "tsv", "--prior", "uniform", "--draws", "7", "--train"])
            .arg(&train)
            .arg("--out")
            .arg(dir.path().join("m.json"))
            .arg("--posterior")
            .arg(&post),
    );
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
    let v = json_stdout(
        bin()
            .args(["--quiet", "clicks", "validate", "--model", "pbm", "--split", "interleaved", "--bootstrap", "20", "--train"])
            .arg(yandex())
            .arg("--out")
            .arg(&out_dir),
    );
    // Every fourth of the 30,000 sessions tests (7,500); all their queries are in training
    // (every query has at least 27 sessions: analysis/validation/count_orderings.py).
    assert_eq!(v["test_sessions"], 7500);
    assert_eq!(v["train_sessions"], 30000 - 7500);
    for f in ["distances.csv", "system.csv", "validation.json", "validation.svg", "manifest.json"] {
        assert!(out_dir.join(f).exists(), "{f}");
    }
    let csv = std::fs::read_to_string(out_dir.join("distances.csv")).unwrap();
    assert!(csv.lines().any(|l| l.starts_with("pbm,abandonment,")), "{csv}");
    // A bad split name is refused before anything is written.
    let again = bin()
        .args(["clicks", "validate", "--model", "pbm", "--split", "random", "--train"])
        .arg(yandex())
        .arg("--out")
        .arg(dir.path().join("x"))
        .output()
        .unwrap();
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

/// SimEval-IR sessions: the bundled log (Yandex sample layout) converted to `InteractionSession` JSONL fits the same
/// model as the original (every query, document and click survives), and `clicks validate`
/// reports SimEval-IR's measures (`simeval.csv` and the printed JSON) on it.
#[test]
fn simeval_sessions_convert_fit_and_validate() {
    let dir = tempfile::tempdir().unwrap();
    let jl = dir.path().join("sample.simeval.jsonl");
    run_ok(bin().args(["--quiet", "clicks", "convert", "--to", "simeval", "--in"]).arg(yandex()).arg("--out").arg(&jl));
    // One line per impression (30,000: analysis/validation/count_orderings.py, str.split);
    // the first impression's query is the file's first field (`head -c 7`).
    let text = std::fs::read_to_string(&jl).unwrap();
    assert_eq!(text.lines().count(), 30000);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["events"][0]["type"], "query_issued");
    assert_eq!(first["events"][0]["query"], "17514_0");
    let mut models = Vec::new();
    for (format, path) in [("yandex", yandex()), ("simeval", jl.clone()), ("auto", jl.clone())] {
        let m = dir.path().join(format!("{format}.json"));
        let out = bin().args(["--quiet", "clicks", "fit", "--model", "sdbn", "--format", format, "--train"]).arg(&path).arg("--out").arg(&m).output().unwrap();
        assert!(out.status.success(), "{format}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&m).unwrap()).unwrap();
        models.push(v["pairs"].clone());
    }
    assert!(models[0].as_array().is_some_and(|p| !p.is_empty()));
    assert_eq!(models[0], models[1]);
    assert_eq!(models[0], models[2]);

    let out_dir = dir.path().join("val");
    let v = json_stdout(
        bin()
            .args(["--quiet", "clicks", "validate", "--model", "pbm", "--format", "simeval", "--split", "interleaved", "--bootstrap", "20", "--train"])
            .arg(&jl)
            .arg("--out")
            .arg(&out_dir),
    );
    let rows = v["simeval"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["measure"].as_str().unwrap()).collect();
    assert_eq!(names, ["click_depth_distance", "session_length_ks", "inter_event_time_ks", "action_type_distance"]);
    // Session length pools sessions: the 7,500 test sessions (every fourth of 30,000) against
    // the simulated ones.
    assert_eq!(rows[1]["n_real"], 7500);
    assert_eq!(rows[1]["n_simulated"], v["simulated_sessions"]);
    let depth = rows[0]["statistic"].as_f64().unwrap();
    assert!(depth > 0.0 && depth < std::f64::consts::LN_2.sqrt(), "{depth}");
    // The log has no times (as the real Yandex sample): no inter-event comparison, and the reason says so.
    assert!(rows[2]["statistic"].is_null());
    assert!(rows[2]["note"].as_str().unwrap().contains("no event times"), "{}", rows[2]);
    let csv = std::fs::read_to_string(out_dir.join("simeval.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "measure,simeval_name,pooled_over,n_real,n_simulated,statistic,p_value,real_mean,simulated_mean,note");
    assert_eq!(lines.len(), 5);
    assert!(lines[2].starts_with("session_length_ks,session_length_distribution,sessions,7500,"), "{}", lines[2]);
}

/// Fits `model` on the bundled log with the given extra arguments and threads; the model file's bytes.
fn fit_bytes(dir: &std::path::Path, model: &str, extra: &[&str], threads: usize) -> Vec<u8> {
    let out_path = dir.join(format!("{model}-{}-{threads}.json", extra.join("_").replace('-', "")));
    run_ok(bin().args(["clicks", "fit", "--model", model, "--threads", &threads.to_string(), "--train"]).arg(yandex()).args(extra).arg("--out").arg(&out_path));
    std::fs::read(&out_path).unwrap()
}

#[test]
fn em_model_files_are_byte_identical_at_any_thread_count() {
    // The E-step sums are exact fixed-point sums (src/clickmodels/estep.rs), so splitting a
    // pass into parts on 1, 2 or 3 threads (the parts also differ: four per thread) must give
    // the same file, bit for bit: streamed (text byte ranges) and in memory (session ranges),
    // for every model fitted from E-step statistics, with fixed passes (plain EM) and with the
    // default tolerance (SQUAREM, whose decisions also depend on the exact log-likelihood).
    let dir = tempfile::tempdir().unwrap();
    for model in ["dbn", "ubm", "ccm", "pbm", "sdbn"] {
        for extra in [&["--tolerance", "0", "--iterations", "8"][..], &["--in-memory", "--tolerance", "0", "--iterations", "8"], &[]] {
            let one = fit_bytes(dir.path(), model, extra, 1);
            for threads in [2, 3] {
                assert!(fit_bytes(dir.path(), model, extra, threads) == one, "{model} {extra:?}: --threads {threads} differs from --threads 1");
            }
        }
    }
}

#[test]
fn a_bad_line_deep_in_a_parallel_first_pass_is_named_by_its_line_number() {
    // 20,000 lines of about 20 bytes: the streamed DBN fit cuts the file into byte ranges of
    // at least 64 KiB parsed in parallel, so lines 15,000 and 17,000 lie in a later part,
    // whose line numbers are counted only on error. The numbers are known by construction.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("big.txt");
    std::fs::write(&log, log_with_two_bad_lines()).unwrap();
    let model = dir.path().join("m.json");
    for threads in ["1", "2"] {
        let out = bin().args(["clicks", "fit", "--model", "dbn", "--threads", threads, "--out"]).arg(&model).arg("--train").arg(&log).output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("big.txt:15000:") && err.contains("TAB"), "{err}");
        let out = bin()
            .args(["clicks", "fit", "--model", "dbn", "--skip-bad-lines", "--threads", threads, "--out"])
            .arg(&model)
            .arg("--train")
            .arg(&log)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.contains("skipped 2 bad line(s); first: ") && err.contains("big.txt:15000:"), "{err}");
        assert!(err.contains("on 19998 sessions"), "{err}");
    }
}

#[test]
fn validate_orderings_on_the_bundled_log_writes_the_tables_whatever_the_thread_count() {
    // 899 distinct orderings of 150 query ids in 30,000 sessions; 85 queries have two or more,
    // with 834 orderings and 27,664 sessions: counted independently of serpsim by
    // `python3 analysis/validation/count_orderings.py study_logs/clicks/synthetic_yandex_layout.txt` (str.split).
    let dir = tempfile::tempdir().unwrap();
    let run = |threads: &str, out: &str| {
        let o = bin()
            .args([
                "clicks",
                "validate",
                "--split",
                "orderings",
                "--model",
                "sdbn,rctr,dctr",
                "--bootstrap",
                "50",
                "--replicates",
                "100",
                "--threads",
                threads,
                "--train",
            ])
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
    assert!(one.contains("834 held-out orderings of 85 queries (27664 sessions), 5 folds"), "{one}");
    // The shift comparison's answer follows the orderings answer.
    assert!(one.contains("\nRobustness under a ranking change: "), "{one}");
    for f in ["errors.csv", "ranks.csv", "pairs.csv", "calibration.csv", "orderings.json", "shift.csv", "comparisons.csv"] {
        let (a, b) = (std::fs::read(dir.path().join("a").join(f)).unwrap(), std::fs::read(dir.path().join("b").join(f)).unwrap());
        assert!(a == b, "{f} differs between 1 and 2 threads");
    }
    let errors = std::fs::read_to_string(dir.path().join("a/errors.csv")).unwrap();
    // 3 models x 5 measures and a header.
    assert_eq!(errors.lines().count(), 16);
    assert!(errors.lines().any(|l| l.starts_with("rctr,baseline,ctr_mae,")));
    // The rank-only baseline predicts the same click rates for every ordering of a query: by
    // construction it ties every pair (sign accuracy 1/2, probability 1/2, Brier 1/4, AUC 1/2,
    // never confident) whatever the data.
    let pairs = std::fs::read_to_string(dir.path().join("a/pairs.csv")).unwrap();
    let rctr: Vec<&str> = pairs.lines().filter(|l| l.starts_with("rctr,")).collect();
    assert_eq!(rctr.len(), 3, "{pairs}");
    for l in rctr {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(
            (f[4], f[5], f[6], f[7], f[8], f[9], f[11], f[12], f[15], f[16]),
            ("0.5", "0.5", "0.5", "0.25", "0.25", "0.25", "true", "0.5", "0", "0"),
            "{l}"
        );
    }
    let shift = std::fs::read_to_string(dir.path().join("a/shift.csv")).unwrap();
    // 3 models and a header; intervals say they are over queries.
    assert_eq!(shift.lines().count(), 4);
    assert!(shift.starts_with("model,ll_seen,ll_seen_lower_over_queries,ll_seen_upper_over_queries,ll_unseen,"), "{shift}");
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
    // (+1/2); with Grotov et al.'s settings every method must stay with A and switch from B
    // (hand derivation in src/baraco/real/tests.rs).
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
    let o = bin()
        .args(["clicks", "validate-switches", "--paper", "--samples", "200", "--bootstrap", "50", "--train"])
        .arg(&log)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = std::fs::read_to_string(dir.path().join("out/summary.csv")).unwrap();
    // Per method: 2 pairs, 1 switch, no abstention, no unsafe (share 0 over the one query),
    // no clearly unsafe, the one clearly-safe pair switched (share 1), no missed switch,
    // agreement 1; BARACO's P(safe) ranks the safe pair above the unsafe one (AUC 1).
    assert!(summary.contains("\nbaraco,2,1,0,0,0,0,0,0,0,0,0,1,1,1,1,0,1,1,1,1,1,1,"), "{summary}");
    for m in ["em_plugin", "mt"] {
        assert!(summary.contains(&format!("\n{m},2,1,0,0,0,0,0,0,0,0,0,1,1,1,1,0,1,1,1,,,,,,\n")), "{summary}");
    }
    // Always switching goes once to the clearly worse candidate (share 1/2); never switching
    // misses the one safe switch.
    assert!(summary.contains("\nalways_switch,2,2,0,1,0.5,0.5,0.5,1,0.5,0.5,0.5,1,1,1,1,0,0.5,0.5,0.5,,,,,,\n"), "{summary}");
    assert!(summary.contains("\nnever_switch,2,0,0,0,,,,0,,,,0,0,0,0,1,0.5,0.5,0.5,,,,,,\n"), "{summary}");
    let decisions = std::fs::read_to_string(dir.path().join("out/decisions.csv")).unwrap();
    assert_eq!(decisions.lines().count(), 3);
    // The real outcome per pair: -1/2 and +1/2, standard error 0 (no spread), classes.
    assert!(decisions.contains(",-0.5,0,clearly_worse,"), "{decisions}");
    assert!(decisions.contains(",0.5,0,clearly_not_worse,"), "{decisions}");
    // The default (cross-fitted) settings need other queries and say so.
    let o = bin().args(["clicks", "validate-switches", "--samples", "50", "--train"]).arg(&log).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("only query"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// First-click RR of a session line's clicks, from the line alone (an implementation apart
/// from serpsim's: the rank of the first clicked document in the list).
fn first_click_rr(line: &str) -> f64 {
    let (_, rest) = line.split_once('\t').unwrap();
    let (docs, clicks) = rest.split_once(" : ").unwrap();
    let docs: Vec<&str> = docs.split(',').collect();
    let first = clicks.split(" , ").filter(|c| !c.trim().is_empty()).filter_map(|c| docs.iter().position(|d| *d == c.trim())).min();
    first.map_or(0.0, |r| 1.0 / (r + 1) as f64)
}

#[test]
fn validate_switches_cross_fitted_values() {
    // Eight queries, three orderings each (the same three documents in three orders), 60
    // sessions per ordering from a seeded LCG: document d_k is clicked with probability
    // (k + 1) / 4 when examined, users read down until the first click. The real outcomes
    // are recomputed here from the log lines (`first_click_rr`) and must equal serpsim's.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.txt");
    let mut state: u64 = 42;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let orders = [[0usize, 1, 2], [2, 1, 0], [1, 2, 0]];
    let mut lines = Vec::new();
    for q in 0..8 {
        for order in &orders {
            let docs: Vec<String> = order.iter().map(|d| format!("d{d}")).collect();
            for _ in 0..60 {
                let click = order.iter().position(|&d| next() < (d + 1) as f64 / 4.0);
                let c = click.map_or(String::new(), |r| docs[r].clone());
                lines.push(format!("q{q}\t{} : {c}", docs.join(",")));
            }
        }
    }
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let out = dir.path().join("out");
    let o = bin()
        .args(["clicks", "validate-switches", "--samples", "100", "--bootstrap", "100", "--prior", "uniform", "--error-min-sessions", "20", "--train"])
        .arg(&log)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    // The printed answer names the reference policies, the AUC and the abstentions.
    for want in ["48 ordered pairs of orderings of 8 queries", "Reference policies: always switch", "AUC", "cannot tell from this log"] {
        assert!(stdout.contains(want), "{want}: {stdout}");
    }
    // Per ordering: mean and sample variance of the first-click RR, by hand from the lines.
    let mut per: Vec<Vec<f64>> = vec![Vec::new(); 24];
    for (i, l) in lines.iter().enumerate() {
        per[i / 60].push(first_click_rr(l));
    }
    let mv = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        (m, v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64)
    };
    let decisions = std::fs::read_to_string(out.join("decisions.csv")).unwrap();
    let mut rows = decisions.lines();
    let head: Vec<&str> = rows.next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (mut worse, mut n) = (0, 0);
    for r in rows {
        let f: Vec<&str> = r.split(',').collect();
        let (p, c): (usize, usize) = (f[col("production")].parse().unwrap(), f[col("candidate")].parse().unwrap());
        let ((mp, vp), (mc, vc)) = (mv(&per[p]), mv(&per[c]));
        let real: f64 = f[col("real_first_click_rr_advantage")].parse().unwrap();
        let se: f64 = f[col("real_se_over_sessions")].parse().unwrap();
        assert!((real - (mc - mp)).abs() < 1e-9, "{r}");
        assert!((se - (vp / 60.0 + vc / 60.0).sqrt()).abs() < 1e-9, "{r}");
        worse += usize::from(mc - mp < -0.01);
        n += 1;
        let p_safe: f64 = f[col("p_safe")].parse().unwrap();
        assert!((0.0..=1.0).contains(&p_safe));
    }
    assert_eq!(n, 48);
    // Always switching goes to every really worse candidate.
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let always = summary.lines().find(|l| l.starts_with("always_switch,")).unwrap();
    let f: Vec<&str> = always.split(',').collect();
    assert_eq!((f[1], f[2], f[4].parse::<usize>().unwrap()), ("48", "48", worse), "{always}");
}
