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
