//! The report sized for people (issue 26): every command that writes the common report accepts
//! `--detail summary|full`, and no CSV file any of them writes holds `NaN` or infinity text
//! (undefined values are empty cells). Small project-made inputs only.

mod common;

use common::root;
use std::path::{Path, PathBuf};

fn serpsim(args: &[&str], cwd: &Path) -> std::process::Output {
    common::serpsim().args(args).current_dir(cwd).output().expect("run serpsim")
}

fn ok(args: &[&str], cwd: &Path) {
    let o = serpsim(args, cwd);
    assert!(o.status.success(), "serpsim {}: {}", args.join(" "), String::from_utf8_lossy(&o.stderr));
}

/// Every CSV file under `dir` (recursively).
fn csv_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(csv_files(&p));
        } else if p.extension().is_some_and(|x| x == "csv") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Cells of a CSV line (RFC 4180 quoting).
fn cells(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// No cell of any CSV under `dir` is NaN or infinite text; returns the files checked.
fn assert_no_nan_text(dir: &Path) -> usize {
    let files = csv_files(dir);
    assert!(!files.is_empty(), "no CSV under {}", dir.display());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(!text.contains("NaN"), "{} holds `NaN`", f.display());
        for (i, line) in text.lines().enumerate() {
            for cell in cells(line) {
                let c = cell.trim().trim_start_matches(['+', '-']).to_ascii_lowercase();
                assert!(!matches!(c.as_str(), "nan" | "inf" | "infinity"), "{}:{}: cell `{cell}`", f.display(), i + 1);
            }
        }
    }
    files.len()
}

/// Every report-writing command on small inputs, at both detail levels: no NaN or infinity
/// text in any CSV. Checked to fail: with `fmt_f64` printing NaN as `NaN` (the old
/// behaviour) this test fails on `pooled.csv` (quantiles of empty budget sketches).
#[test]
fn no_csv_holds_nan_or_infinity_text() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = root();
    let sweep = d.join("sweep.toml");
    std::fs::write(
        &sweep,
        common::sessions_sweep("small", 20, r#"{ rule = "fixed_depth" }, { rule = "contiguous_nonrelevant", basis = "snippet" }"#, "[1, 3]"),
    )
    .unwrap();
    let combined = r.join("simulations/combined.toml");
    let bopha = r.join("simulations/streams/bopha.toml");
    let sublists = std::fs::read_to_string(r.join("simulations/sublists/default.toml"))
        .unwrap()
        .replace("topics = 50", "topics = 4")
        .replace("docs_per_topic = 400", "docs_per_topic = 100")
        .replace("replicates = 1000", "replicates = 20")
        .replace("relevant_share = 0.06", "relevant_share = 0.1");
    let sublists_path = d.join("sublists.toml");
    std::fs::write(&sublists_path, sublists).unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let runs: Vec<Vec<String>> = vec![
        vec!["simulate".into(), "--replicates".into(), "40".into(), "--samples".into()],
        vec!["simulate".into(), s(&combined), "--replicates".into(), "10".into()],
        vec!["sessions".into(), "run".into(), s(&sweep)],
        vec!["sessions".into(), "sweep".into(), s(&sweep)],
        vec!["sublists".into(), "sweep".into(), s(&sublists_path)],
        vec!["streams".into(), "run".into(), s(&bopha), "--users".into(), "200".into()],
    ];
    let mut checked = 0;
    for (i, args) in runs.iter().enumerate() {
        for detail in ["summary", "full"] {
            let out = d.join(format!("out{i}-{detail}"));
            let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
            a.extend(["--detail", detail, "--quiet", "--out", out.to_str().unwrap()]);
            ok(&a, d);
            checked += assert_no_nan_text(&out);
        }
    }
    // `streams msu` writes its CSV to stdout.
    let f = |n: &str| s(&r.join("tests/fixtures/streams").join(n));
    let o = serpsim(
        &[
            "streams",
            "msu",
            "--topics",
            &f("topics.tsv"),
            "--nuggets",
            &f("nuggets.tsv"),
            "--matches",
            &f("matches.tsv"),
            "--updates",
            &f("example.tsv"),
            "--updates",
            &f("empty.tsv"),
            "--users",
            "100",
        ],
        d,
    );
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(!text.to_ascii_lowercase().contains("nan") && !text.contains("inf"), "{text}");
    assert!(checked >= 40, "{checked} CSV files checked");
}

/// `--detail summary` (the default) leaves out per-topic rows and histograms; `--detail full`
/// and `[output] detail = "full"` write them; bad values are refused with the key or flag.
#[test]
fn detail_levels_decide_what_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&["simulate", "--replicates", "30", "--quiet", "--out", "small"], d);
    ok(&["simulate", "--replicates", "30", "--quiet", "--detail", "full", "--out", "full"], d);
    assert!(!d.join("small/summary.csv").exists());
    assert!(d.join("full/summary.csv").exists());
    let scopes = |p: &str| -> std::collections::BTreeSet<String> {
        let text = std::fs::read_to_string(d.join(p).join("comparison.csv")).unwrap();
        let header = cells(text.lines().next().unwrap());
        let k = header.iter().position(|h| h == "scope").unwrap();
        text.lines().skip(1).map(|l| cells(l)[k].clone()).collect()
    };
    assert_eq!(scopes("small"), ["pooled".to_string()].into());
    assert_eq!(scopes("full"), ["pooled".to_string(), "topic".to_string()].into());
    let json = |p: &str| -> serde_json::Value { serde_json::from_slice(&std::fs::read(d.join(p).join("summary.json")).unwrap()).unwrap() };
    let (small, full) = (json("small"), json("full"));
    assert_eq!(small["detail"], "summary");
    let names = |v: &serde_json::Value| -> Vec<String> { v["tables"].as_object().unwrap().keys().cloned().collect() };
    assert!(!names(&small).contains(&"histograms".to_string()) && names(&full).contains(&"histograms".to_string()));
    // Every table is a list of flat records (no nested objects or lists).
    for t in full["tables"].as_object().unwrap().values() {
        for rec in t.as_array().unwrap() {
            assert!(rec.as_object().unwrap().values().all(|v| !v.is_object() && !v.is_array()), "{rec}");
        }
    }
    // The same pooled rows in both.
    assert_eq!(std::fs::read(d.join("small/pooled.csv")).unwrap(), std::fs::read(d.join("full/pooled.csv")).unwrap());
    // A scenario key does what the flag does.
    let scenario = default_scenario_with_detail("full");
    std::fs::write(d.join("s.toml"), &scenario).unwrap();
    ok(&["simulate", "s.toml", "--replicates", "30", "--quiet", "--out", "by-key"], d);
    assert!(d.join("by-key/summary.csv").exists());
    std::fs::write(d.join("bad.toml"), scenario.replace("\"full\"", "\"everything\"")).unwrap();
    let o = serpsim(&["simulate", "bad.toml", "--quiet", "--out", "bad"], d);
    let err = String::from_utf8_lossy(&o.stderr);
    // The value, the allowed values and the line of `detail = "everything"` in bad.toml.
    assert!(
        !o.status.success() && err.contains("everything") && err.contains("`summary` or `full`") && err.contains("bad.toml") && err.contains("line 32"),
        "{err}"
    );
    let o = serpsim(&["simulate", "--detail", "everything", "--quiet", "--out", "bad"], d);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("--detail") && err.contains("everything"), "{err}");
    assert!(!d.join("bad").exists());
}

/// The embedded default scenario's text (simulations/default.toml, whose data are embedded)
/// with `detail` in its `[output]` table.
fn default_scenario_with_detail(detail: &str) -> String {
    let text = std::fs::read_to_string(root().join("simulations/default.toml")).unwrap();
    assert!(text.contains("\n[output]\n"), "simulations/default.toml has no [output] table");
    text.replace("\n[output]\n", &format!("\n[output]\ndetail = \"{detail}\"\n"))
}
