//! End-to-end tests of `serpsim compare-rankers`.

use std::process::Command;

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/baraco/");

fn serpsim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_serpsim")).args(args).output().expect("runs")
}

fn base(out: &str) -> Vec<String> {
    [
        "compare-rankers",
        "--log",
        &format!("{FIX}log.tsv"),
        "--production",
        &format!("{FIX}production.tsv"),
        "--candidates",
        &format!("{FIX}candidates.tsv"),
        "--samples",
        "400",
        "--out",
        out,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn csv_answers_every_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    let args = base(out.to_str().unwrap());
    let o = serpsim(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(text.lines().next().unwrap(), "candidate,p_safe,expected_diff,switch,unseen_share");
    assert_eq!(rows.len(), 5);
    let row = |name: &str| rows.iter().find(|r| r[0] == name).unwrap().clone();
    let (better, worse, same, unseen) = (row("better"), row("worse"), row("same"), row("unseen"));
    assert!(better[2].parse::<f64>().unwrap() > 0.0 && better[3] == "true", "{better:?}");
    assert!(worse[2].parse::<f64>().unwrap() < 0.0 && worse[3] == "false", "{worse:?}");
    assert_eq!(same[1], "1");
    // A candidate ranking a document absent from the log still gets an answer.
    // 1/7 by hand; the CSV holds 10 significant digits (README's number rule): 0.1428571429.
    assert!((unseen[4].parse::<f64>().unwrap() - 1.0 / 7.0).abs() < 1e-10, "{unseen:?}");
    let p: f64 = unseen[1].parse().unwrap();
    assert!((0.0..=1.0).contains(&p));
    assert!(String::from_utf8_lossy(&o.stderr).contains("absent from the log"));
}

#[test]
fn json_and_roc_with_truth() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let roc = dir.path().join("roc.svg");
    let mut args = base(out.to_str().unwrap());
    args.extend(["--out-format", "json", "--truth", &format!("{FIX}qrels.txt"), "--roc", roc.to_str().unwrap(), "--threads", "1"].map(String::from));
    let o = serpsim(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let c = v["candidates"].as_array().unwrap();
    assert_eq!(c.len(), 5);
    let worse = c.iter().find(|x| x["candidate"] == "worse").unwrap();
    assert_eq!(worse["truly_safe"], false);
    assert!(worse["true_diff"].as_f64().unwrap() < -0.1);
    assert!(std::fs::read_to_string(&roc).unwrap().contains("<svg"));
    // Same seed, other thread count: byte-identical output.
    let out2 = dir.path().join("out2.json");
    let args2: Vec<String> = args
        .iter()
        .map(|a| {
            if a == out.to_str().unwrap() {
                out2.to_str().unwrap().to_string()
            } else if a == "1" {
                "2".into()
            } else {
                a.clone()
            }
        })
        .collect();
    assert!(serpsim(&args2.iter().map(|s| s.as_str()).collect::<Vec<_>>()).status.success());
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&out2).unwrap());
}

#[test]
fn malformed_files_give_located_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.csv");
    let mut args = base(out.to_str().unwrap());
    args[2] = format!("{FIX}bad_log.tsv");
    let o = serpsim(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("bad_log.tsv:2:") && e.contains("`yes`"), "{e}");
    let mut args = base(out.to_str().unwrap());
    args[6] = format!("{FIX}bad_candidates.tsv");
    let o = serpsim(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("bad_candidates.tsv:2:") && e.contains("tab-separated"), "{e}");
    let mut args = base(out.to_str().unwrap());
    args.extend(["--delta", "2"].map(String::from));
    let e = String::from_utf8_lossy(&serpsim(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>()).stderr).to_string();
    assert!(e.contains("delta"), "{e}");
}

#[test]
fn weights_with_letor_features() {
    let dir = tempfile::tempdir().unwrap();
    let p = |f: &str| dir.path().join(f).to_str().unwrap().to_string();
    // Feature 1 ranks A first, feature 2 ranks B first.
    std::fs::write(p("f.txt"), "1 qid:7 1:0.9 2:0.1 #docid = A\n0 qid:7 1:0.1 2:0.9 #docid = B\n0 qid:7 1:0.5 2:0.5 #docid = C\n").unwrap();
    let mut log = String::new();
    for _ in 0..50 {
        log.push_str("7\tA C B\t1 0 0\n");
    }
    std::fs::write(p("log.tsv"), log).unwrap();
    std::fs::write(p("prod.w"), "prod 1 0\n").unwrap();
    std::fs::write(p("cand.w"), "same 2 0\nflip 0 1\n").unwrap();
    let o = serpsim(&[
        "compare-rankers",
        "--log",
        &p("log.tsv"),
        "--production",
        &p("prod.w"),
        "--candidates",
        &p("cand.w"),
        "--features",
        &p("f.txt"),
        "--samples",
        "300",
        "--out",
        &p("o.csv"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(p("o.csv")).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0][0], "same");
    assert_eq!(rows[0][1], "1");
    assert_eq!(rows[1][0], "flip");
    assert!(rows[1][2].parse::<f64>().unwrap() < -0.1 && rows[1][3] == "false", "{:?}", rows[1]);
    // A weights file with a bad number is located.
    std::fs::write(p("bad.w"), "prod 1 zero\n").unwrap();
    let o = serpsim(&["compare-rankers", "--log", &p("log.tsv"), "--production", &p("bad.w"), "--candidates", &p("cand.w"), "--features", &p("f.txt")]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("bad.w:1:") && e.contains("`zero`"), "{e}");
}

#[test]
fn samplers_agree_on_the_decision() {
    // The thinned MH sampler and the default inverse-CDF sampler reach the same decisions on
    // the fixture; an unknown sampler name is rejected with the accepted ones listed.
    let dir = tempfile::tempdir().unwrap();
    let mut decisions = Vec::new();
    for sampler in ["inverse-cdf", "mh-thinned"] {
        let out = dir.path().join(format!("{sampler}.csv"));
        let mut args = base(out.to_str().unwrap());
        args.extend(["--sampler", sampler].map(String::from));
        let o = serpsim(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&out).unwrap();
        let switch: Vec<String> = text.lines().skip(1).map(|l| l.split(',').nth(3).unwrap().to_string()).collect();
        decisions.push(switch);
    }
    assert_eq!(decisions[0], decisions[1]);
    let out = dir.path().join("bad.csv");
    let mut args = base(out.to_str().unwrap());
    args.extend(["--sampler", "gibbs"].map(String::from));
    let o = serpsim(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("mh-thinned"));
    assert!(!out.exists());
}

#[test]
fn click_model_posteriors_agree_on_the_obvious_candidates() {
    // b is clicked in most q1 sessions and x in every q2 session: under every model putting b
    // first (`better`) raises the metric, and burying x (`worse`) lowers it.
    let dir = tempfile::tempdir().unwrap();
    for model in ["dbn", "ubm", "pbm", "ccm"] {
        let out = dir.path().join(format!("{model}.json"));
        let mut args = base(out.to_str().unwrap());
        args.extend(["--out-format", "json", "--posterior-model", model, "--posterior-prior", "uniform"].map(String::from));
        let o = serpsim(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        assert!(o.status.success(), "{model}: {}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(v["posterior_model"], model);
        let c = v["candidates"].as_array().unwrap();
        let get = |name: &str| c.iter().find(|x| x["candidate"] == name).unwrap().clone();
        assert!(get("better")["expected_diff"].as_f64().unwrap() > 0.0 && get("better")["switch"] == true, "{model}: {c:?}");
        assert!(get("worse")["expected_diff"].as_f64().unwrap() < 0.0 && get("worse")["switch"] == false, "{model}: {c:?}");
        assert_eq!(get("same")["p_safe"], 1.0);
    }
    let mut args = base(dir.path().join("x.csv").to_str().unwrap());
    args.extend(["--posterior-model", "xbm"].map(String::from));
    let o = serpsim(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--posterior-model: `xbm`"));
}

/// Issue 43, item 3: `compare-rankers` reads its log through the click-log reader of `clicks
/// fit`, so a log in a layout BARACO's own reader refused (the Yandex sample layout, JSONL,
/// gzip, Parquet) gives the decision of the same sessions in BARACO's layout. The other
/// layouts are written here from `log.tsv` line by line (by hand rules of docs/clickmodels.md:
/// Yandex `query<TAB>d1,d2,... : clicked1,clicked2`, JSONL `{"query", "documents",
/// "clicks"}`); the expected output is the run on `log.tsv` itself, whose decision the other
/// tests of this file check. Checked to fail: with `ProductionLog::read` reading every log as
/// `baraco` (its old reader's layout), the Yandex and JSONL runs fail.
#[test]
fn any_click_log_layout_gives_the_decision_of_the_baraco_layout() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!("{FIX}log.tsv")).unwrap();
    let (mut yandex, mut jsonl) = (String::new(), String::new());
    for line in text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let docs: Vec<&str> = f[1].split_whitespace().collect();
        let clicks: Vec<&str> = f[2].split_whitespace().collect();
        let clicked: Vec<&str> = docs.iter().zip(&clicks).filter(|(_, c)| **c == "1").map(|(d, _)| *d).collect();
        yandex.push_str(&format!("{}\t{} : {}\n", f[0], docs.join(","), clicked.join(",")));
        jsonl.push_str(&format!("{{\"query\":\"{}\",\"documents\":{:?},\"clicks\":[{}]}}\n", f[0], docs, clicks.join(",")));
    }
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    };
    let yandex_path = write("log.yandex", yandex.as_bytes());
    let jsonl_path = write("log.jsonl", jsonl.as_bytes());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(yandex.as_bytes()).unwrap();
    let gz_path = write("log.yandex.gz", &gz.finish().unwrap());
    let parquet = dir.path().join("log.parquet");
    let o = serpsim(&["clicks", "convert", "--in", &format!("{FIX}log.tsv"), "--out", parquet.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = |log: &str, extra: &[&str], name: &str| -> Vec<u8> {
        let out = dir.path().join(name);
        let mut args = base(out.to_str().unwrap());
        args[2] = log.to_string();
        args.extend(extra.iter().map(|s| s.to_string()));
        let o = serpsim(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        assert!(o.status.success(), "{log} {extra:?}: {}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(&out).unwrap()
    };
    let want = run(&format!("{FIX}log.tsv"), &[], "baraco.csv");
    assert_eq!(run(&format!("{FIX}log.tsv"), &["--log-format", "baraco"], "named.csv"), want);
    for (log, extra) in [
        (&yandex_path, &[][..]),
        (&yandex_path, &["--log-format", "yandex"][..]),
        (&jsonl_path, &[][..]),
        (&gz_path, &[][..]),
        (&parquet.to_str().unwrap().to_string(), &[][..]),
    ] {
        let got = run(log, extra, "other.csv");
        assert!(got == want, "{log} {extra:?}: another decision:\n{}\nwant:\n{}", String::from_utf8_lossy(&got), String::from_utf8_lossy(&want));
    }
    // A log that fits no format names the option of this command.
    let bad = write("bad.txt", b"a b c\n");
    let mut args = base(dir.path().join("x.csv").to_str().unwrap());
    args[2] = bad;
    let e = String::from_utf8_lossy(&serpsim(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>()).stderr).to_string();
    assert!(e.contains("bad.txt:1: cannot detect the log format") && e.contains("give --format"), "{e}");
    // `--format json` meant the output format before the one flag vocabulary (docs/cli.md): it is
    // refused with the new spelling, never read as a log format.
    let mut args = base(dir.path().join("y.csv").to_str().unwrap());
    args.extend(["--format".to_string(), "json".to_string()]);
    let o = serpsim(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    let e = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(!o.status.success() && e.contains("`json` is an output format: give --out-format json"), "{e}");
}
