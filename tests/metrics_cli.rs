//! End-to-end tests of `serpsim eval`.

use std::process::Command;

fn serpsim(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_serpsim")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn trec_format_prints_three_columns_like_trec_eval() {
    let (ok, out, err) = serpsim(&[
        "eval", "study_logs/trec/qrels.test", "study_logs/trec/results.test",
        "-m", "map", "P_5", "num_ret", "--format", "trec", "--per-topic",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert!(lines.iter().all(|l| l.len() == 3), "{out}");
    // pytrec_eval on the same files (study_logs/metrics/trec_parity.json): map all = 0.17854506.
    let map_all = lines.iter().find(|l| l[0].trim() == "map" && l[1] == "all").unwrap();
    assert_eq!(map_all[2], "0.1785");
    // Counts are summed over topics, as trec_eval does: 3 topics x 500 documents.
    let num_ret = lines.iter().find(|l| l[0].trim() == "num_ret" && l[1] == "all").unwrap();
    assert_eq!(num_ret[2], "1500");
    assert!(lines.iter().any(|l| l[0].trim() == "P_5" && l[1] == "302"));
}

#[test]
fn csv_json_and_agreement() {
    let dir = tempfile::tempdir().unwrap();
    let run2 = dir.path().join("run2.txt");
    // A second run: the first with scores negated (reversed ranking), tag `REVERSED`.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/study_logs/trec/results.test")).unwrap();
    let reversed: String = text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            format!("{} Q0 {} {} {} REVERSED\n", f[0], f[2], f[3], -f[4].parse::<f64>().unwrap())
        })
        .collect();
    std::fs::write(&run2, reversed).unwrap();
    let agree = dir.path().join("agree.csv");
    let compare = dir.path().join("compare.csv");
    let (ok, out, err) = serpsim(&[
        "eval", "study_logs/trec/qrels.test", "study_logs/trec/results.test", run2.to_str().unwrap(),
        "-m", "map", "ndcg@10", "--agreement", agree.to_str().unwrap(), "--compare", compare.to_str().unwrap(),
        "--resamples", "500",
    ]);
    assert!(ok, "{err}");
    assert!(out.starts_with("run,metric,topic,value\n"));
    assert_eq!(out.lines().count(), 5, "{out}");
    let agreement = std::fs::read_to_string(&agree).unwrap();
    assert!(agreement.starts_with("metric_a,metric_b,kendall_tau_a"), "{agreement}");
    let compare = std::fs::read_to_string(&compare).unwrap();
    assert_eq!(compare.lines().count(), 3, "{compare}");
    let row: Vec<&str> = compare.lines().nth(1).unwrap().split(',').collect();
    assert_eq!((row[0], row[1], row[2], row[3]), ("map", "STANDARD", "REVERSED", "3"));
    // The bootstrap interval brackets the mean difference.
    let (d, lo, hi): (f64, f64, f64) = (row[4].parse().unwrap(), row[7].parse().unwrap(), row[8].parse().unwrap());
    assert!(lo <= d && d <= hi && d > 0.0, "{compare}");
    let (ok, out, _) = serpsim(&["eval", "study_logs/trec/qrels.test", "study_logs/trec/results.test", "-m", "rr", "--format", "json"]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!((v[0]["metrics"][0]["all"].as_f64().unwrap() - 0.4064327485380117).abs() < 1e-12);
}

#[test]
fn malformed_lines_are_reported_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad_run = dir.path().join("bad.run");
    std::fs::write(&bad_run, "301 Q0 a 1 1.0 r\n301 Q0 b 2 high r\n").unwrap();
    let (ok, _, err) = serpsim(&["eval", "study_logs/trec/qrels.test", bad_run.to_str().unwrap(), "-m", "map"]);
    assert!(!ok);
    assert!(err.contains("bad.run:2:") && err.contains("not a number"), "{err}");
    let bad_qrels = dir.path().join("bad.qrels");
    std::fs::write(&bad_qrels, "301 0 a 1\n301 0 b 1\n301 0 c\n").unwrap();
    let (ok, _, err) = serpsim(&["eval", bad_qrels.to_str().unwrap(), "study_logs/trec/results.test", "-m", "map"]);
    assert!(!ok);
    assert!(err.contains("bad.qrels:3:"), "{err}");
    let sub = dir.path().join("sub.txt");
    std::fs::write(&sub, "301 s1 a 1\n999 s1 a 1\n").unwrap();
    let (ok, _, err) = serpsim(&["eval", "study_logs/trec/qrels.test", "study_logs/trec/results.test", "-m", "ct", "--subtopics", sub.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("sub.txt:2:") && err.contains("999"), "{err}");
    let (ok, _, err) = serpsim(&["eval", "study_logs/trec/qrels.test", "study_logs/trec/results.test", "-m", "ndcg:discount=cosine"]);
    assert!(!ok && err.contains("discount"), "{err}");
}

#[test]
fn cube_test_and_novelty_end_to_end() {
    // The hand-worked Cube Test toy of src/metrics/cube.rs (Eq. 11 0.25, Eq. 13 0.3021 with
    // unit time), and the novelty utility of two runs that find the one relevant document at
    // ranks 1 and 3 of N = 4: ln(1 / 0.5) and ln(0.5 / 1).
    let dir = tempfile::tempdir().unwrap();
    let w = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let q = w("q.txt", "1 0 d1 1\n1 0 d2 0\n");
    let a = w("a.txt", "1 Q0 d1 1 4 A\n1 Q0 d2 2 3 A\n1 Q0 d3 3 2 A\n1 Q0 d4 4 1 A\n");
    let b = w("b.txt", "1 Q0 d4 1 4 B\n1 Q0 d3 2 3 B\n1 Q0 d1 3 2 B\n");
    let s = w("s.txt", "1 c1 d1 1\n1 c2 d2 2\n1 c1 d3 2\n1 c1 d4 1\n");
    let (ok, out, err) = serpsim(&[
        "eval", &q, &a, &b, "-m", "ct:time=t,eq=11", "ct:time=t", "novelty@4", "--subtopics", &s, "--format", "json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let all = |run: usize, m: usize| v[run]["metrics"][m]["all"].as_f64().unwrap();
    assert!((all(0, 0) - 0.25).abs() < 1e-12);
    assert!((all(0, 1) - 0.3020833333333333).abs() < 1e-12);
    assert!((all(0, 2) - 2f64.ln()).abs() < 1e-12);
    assert!((all(1, 2) + 2f64.ln()).abs() < 1e-12);
}

#[test]
fn click_model_metrics_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = dir.path().join("q.txt");
    let run = dir.path().join("r.txt");
    std::fs::write(&qrels, "1 0 a 0\n1 0 b 1\n").unwrap();
    std::fs::write(&run, "1 Q0 a 1 2.0 R\n1 Q0 b 2 1.0 R\n").unwrap();
    let (ok, out, err) = serpsim(&[
        "eval", qrels.to_str().unwrap(), run.to_str().unwrap(), "-m", "rrmetric", "ebu:user=navigational,gamma=0.9",
        "rrmetric:user=perfect", "--format", "trec",
    ]);
    assert!(ok, "{err}");
    let value = |name: &str| -> f64 {
        out.lines().map(|l| l.split('\t').collect::<Vec<_>>()).find(|l| l[0].trim() == name && l[1] == "all").unwrap()[2].parse().unwrap()
    };
    // Navigational (Grotov Table 1): a = (0.05, 0.95), s = (0.2, 0.9).
    // rrMetric = 0.05 * 0.2 + (1 - 0.01) * 0.95 * 0.9 / 2 = 0.433225.
    assert!((value("rrmetric") - 0.4332).abs() < 1e-4, "{out}");
    // EBU = 0 + 0.9 * (1 - 0.05 * 0.2) * 0.95 * 1 = 0.84645.
    assert!((value("ebu:user=navigational,gamma=0.9") - 0.8465).abs() < 1e-4, "{out}");
    // The perfect user is never satisfied (P(s) = 0), so rrMetric is 0.
    assert_eq!(value("rrmetric:user=perfect"), 0.0);
    let (ok, _, err) = serpsim(&["eval", qrels.to_str().unwrap(), run.to_str().unwrap(), "-m", "rrmetric:user=lazy"]);
    assert!(!ok && err.contains("user"), "{err}");
}
