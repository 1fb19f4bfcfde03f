//! End-to-end tests of `serpsim wordnet lch` and `serpsim suggest`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_serpsim"))
}

fn mini() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wordnet/mini")
}

fn real_wordnet_or_skip(test: &str) -> bool {
    let ok = Path::new("/usr/share/wordnet/data.noun").is_file() || std::env::var_os("WNHOME").is_some();
    if !ok {
        assert!(
            !std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0"),
            "CI: real WordNet is required for {test}: apt-get install wordnet-base"
        );
        eprintln!("NOTICE: skipping {test}: no WordNet (apt-get install wordnet-base or set WNHOME)");
    }
    ok
}

#[test]
fn lch_prints_the_number() {
    let out = bin().args(["wordnet", "lch", "dogs", "cat", "--wordnet"]).arg(mini()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: f64 = String::from_utf8(out.stdout).unwrap().trim().parse().unwrap();
    assert!((v - (8.0f64 / 3.0).ln()).abs() < 1e-12, "{v}");
    let out = bin().args(["wordnet", "lch", "ran", "walk", "--pos", "v", "--wordnet"]).arg(mini()).output().unwrap();
    let v: f64 = String::from_utf8(out.stdout).unwrap().trim().parse().unwrap();
    assert!((v - 2f64.ln()).abs() < 1e-12, "{v}");
}

#[test]
fn lch_errors_are_clear() {
    let out = bin().args(["wordnet", "lch", "unicorn", "cat", "--wordnet"]).arg(mini()).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("`unicorn` has no noun synset"));
    let dir = tempfile::tempdir().unwrap();
    let out = bin().args(["wordnet", "lch", "dog", "cat"]).env("WNHOME", dir.path()).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("apt-get install wordnet-base") && err.contains("WNHOME"), "{err}");
}

#[test]
fn glf_and_tam_on_a_hand_made_log() {
    // Session a: the user fixated "tree" (accepted, engine rank 2). Session b: nothing attended
    // (ties keep the engine's order: accepted at rank 1). API RR 0.5, 1; GLF and TAM RR 1, 1.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    let sug = dir.path().join("sug.jsonl");
    std::fs::write(
        &log,
        concat!(
            r#"{"id":"a","query":"plant","segments":[{"text":"the tree grows","fixations":2},{"text":"a cat sleeps","fixations":0}],"attention":[{"word":"tree","count":2,"duration_ms":400}]}"#,
            "\n",
            r#"{"id":"b","query":"plant","segments":[{"text":"nothing here"}]}"#,
            "\n"
        ),
    )
    .unwrap();
    std::fs::write(
        &sug,
        concat!(
            r#"{"id":"a","suggestions":["plant cat","plant tree"],"accepted":"plant tree"}"#,
            "\n",
            r#"{"id":"b","suggestions":["plant tree","plant cat"],"accepted":"plant tree"}"#,
            "\n"
        ),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = bin()
        .args(["suggest", "--model", "tam", "--alpha", "0.5", "--log"])
        .arg(&log)
        .arg("--suggestions")
        .arg(&sug)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("| API output |  | 0.7500 | 0.1250 |"), "{table}");
    assert!(table.contains("| alpha=0.5 | 1.0000 | 0.0000 |"), "{table}");
    let rr = std::fs::read_to_string(out_dir.join("rr.csv")).unwrap();
    assert_eq!(rr, "session,API,TAM\na,0.5,1\nb,1,1\n");
    let out = bin().args(["suggest", "--model", "glf", "--log"]).arg(&log).arg("--suggestions").arg(&sug).output().unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().contains("| Gaze-Length-Filter (GLF) |  | 1.0000 |"));
    let out = bin().args(["suggest", "--model", "tam-r", "--weights", "0.5,0.5,0.5", "--log"]).arg(&log).arg("--suggestions").arg(&sug).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("must be 1"));
}

#[test]
fn generate_then_evaluate_on_real_wordnet() {
    if !real_wordnet_or_skip("generate_then_evaluate_on_real_wordnet") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, seed) in [("a", "1"), ("b", "2")] {
        let out = bin().args(["suggest", "generate", "--sessions", "40", "--seed", seed, "--out"]).arg(d.join(name)).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let again = d.join("a2");
    bin().args(["suggest", "generate", "--sessions", "40", "--seed", "1", "--out"]).arg(&again).output().unwrap();
    assert_eq!(std::fs::read(d.join("a/log.jsonl")).unwrap(), std::fs::read(again.join("log.jsonl")).unwrap());
    let out = bin()
        .args(["suggest", "--log"])
        .arg(d.join("a/log.jsonl"))
        .arg("--suggestions")
        .arg(d.join("a/suggestions.jsonl"))
        .arg("--tune-log")
        .arg(d.join("b/log.jsonl"))
        .arg("--tune-suggestions")
        .arg(d.join("b/suggestions.jsonl"))
        .arg("--out")
        .arg(d.join("eval"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8(out.stdout).unwrap();
    for row in ["API output", "GLF", "TAM)", "TAM-R"] {
        assert!(table.contains(row), "{table}");
    }
    assert_eq!(std::fs::read_to_string(d.join("eval/sweep.csv")).unwrap().lines().count(), 67);
}
