//! End-to-end tests of `serpsim study ...`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_serpsim"))
}

fn gaze(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/gaze").join(name)
}

#[test]
fn summary_prints_the_documented_json() {
    let out = bin().args(["study", "summary"]).arg(gaze("eyelink_monocular_example.asc")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Counts by grep: 16 sample lines, 2 EFIX, 1 ESACC, 0 EBLINK, 102 MSG.
    assert_eq!(v, serde_json::json!({"samples": 16, "fixations": 2, "saccades": 1, "blinks": 0, "messages": 102}));
    let out = bin().args(["study", "summary"]).arg(gaze("eyelink_binocular_example.asc")).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["left"], serde_json::json!({"samples": 368, "fixations": 2, "saccades": 1, "blinks": 1}));
    assert_eq!(v["right"], serde_json::json!({"samples": 368, "fixations": 2, "saccades": 1, "blinks": 1}));
    assert_eq!(v["messages"], 109);
}

#[test]
fn summary_of_a_truncated_file_fails_with_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(gaze("eyelink_monocular_no_dummy_example.asc")).unwrap();
    let cut = text.len() - 10;
    let path = dir.path().join("cut.asc");
    std::fs::write(&path, &text[..cut]).unwrap();
    let lines = text[..cut].lines().count();
    let out = bin().args(["study", "summary"]).arg(&path).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("cut.asc:{lines}:")) && err.contains("truncated"), "{err}");
}

/// Synthetic study → annotate (ASC files through the parser, I-DT, AOIs) → fit → the fitted
/// scenario runs in `serpsim simulate`.
#[test]
fn synthetic_study_fits_a_scenario_that_simulates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |args: &[&str]| {
        let out = bin().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out
    };
    let s = |p: &Path| p.to_str().unwrap().to_string();
    run(&["study", "synth", "--participants", "4", "--seed", "3", "--out", &s(d)]);
    let annotated = d.join("annotated.jsonl");
    run(&["study", "annotate", &s(&d.join("log.jsonl")), "--gaze-dir", &s(&d.join("gaze")), "--cursor-dir", &s(&d.join("cursor")), "--out", &s(&annotated)]);
    let text = std::fs::read_to_string(&annotated).unwrap();
    assert!(text.contains("\"event\":\"fixation\"") && text.contains("\"event\":\"hover\""));
    let fit = d.join("fit");
    run(&["study", "fit", &s(&annotated), "--qrels", &s(&d.join("qrels.txt")), "--out", &s(&fit)]);
    let out = run(&["simulate", &s(&fit.join("fitted.toml")), "--replicates", "50", "--out", &s(&d.join("sim"))]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("summary.csv"));
    let summary = std::fs::read_to_string(d.join("sim/summary.csv")).unwrap();
    assert!(summary.lines().count() > 1);
    let out = run(&["study", "attention", &s(&annotated), "--out", &s(&d.join("att"))]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("row,non_query,query\n"));
}

/// Per-word D(w) on the real Data Viewer report equals the sum of Data Viewer's own dwell
/// times (CURRENT_FIX_INTEREST_AREA_DWELL_TIME) over the word's interest areas.
#[test]
fn words_on_the_real_fixation_report_match_data_viewer_dwell_times() {
    let out = bin().args(["study", "words"]).arg(gaze("18sat_fixfinal.csv")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut got = std::collections::BTreeMap::new();
    for line in text.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        got.insert(c[1].to_string(), (c[2].parse::<u32>().unwrap(), c[3].parse::<f64>().unwrap()));
    }
    // Independent reading of the raw CSV.
    let mut rdr = csv::Reader::from_path(gaze("18sat_fixfinal.csv")).unwrap();
    let h = rdr.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (id, label, dwell) = (col("CURRENT_FIX_INTEREST_AREA_ID"), col("CURRENT_FIX_INTEREST_AREA_LABEL"), col("CURRENT_FIX_INTEREST_AREA_DWELL_TIME"));
    let mut per_ia = std::collections::BTreeMap::new();
    let mut count = std::collections::BTreeMap::<String, u32>::new();
    for r in rdr.records() {
        let r = r.unwrap();
        if r[id].trim().is_empty() || r[id].trim() == "." {
            continue;
        }
        let w = r[label].trim().trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        per_ia.insert(r[id].to_string(), (w.clone(), r[dwell].parse::<f64>().unwrap()));
        *count.entry(w).or_default() += 1;
    }
    let mut expected = std::collections::BTreeMap::<String, f64>::new();
    for (w, d) in per_ia.values() {
        *expected.entry(w.clone()).or_default() += d;
    }
    assert_eq!(got.len(), expected.len());
    for (w, d) in &expected {
        assert_eq!(got[w], (count[w], *d), "{w}");
    }
}
