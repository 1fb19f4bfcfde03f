//! End-to-end tests of `serpsim wordnet lch` and `serpsim suggest`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_serpsim"))
}

fn mini() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wordnet/mini")
}

/// A missing real WordNet fails the test (scripts/test.sh installs `wordnet-base`).
fn require_real_wordnet(test: &str) {
    let ok = Path::new("/usr/share/wordnet/data.noun").is_file() || std::env::var_os("WNHOME").is_some();
    assert!(ok, "real WordNet is required for {test}: apt-get install wordnet-base (scripts/test.sh does) or set WNHOME");
}

#[test]
fn lch_prints_the_number_labelled() {
    // One labelled row, the layout of `--pairs`: header, then word1, word2, pos and the score
    // (hand derivation on the mini WordNet: lch(dogs, cat) = ln(8/3), lch(ran, walk) = ln 2).
    let row = |args: &[&str]| {
        let out = bin().args(args).arg("--wordnet").arg(mini()).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(lines[0], "word1\tword2\tpos\tlch");
        let f: Vec<&str> = lines[1].split('\t').collect();
        (f[0].to_string(), f[1].to_string(), f[2].to_string(), f[3].parse::<f64>().unwrap())
    };
    let (w1, w2, pos, v) = row(&["wordnet", "lch", "dogs", "cat"]);
    assert_eq!((w1.as_str(), w2.as_str(), pos.as_str()), ("dogs", "cat", "n"));
    assert!((v - (8.0f64 / 3.0).ln()).abs() < 1e-12, "{v}");
    let (_, _, pos, v) = row(&["wordnet", "lch", "ran", "walk", "--pos", "v"]);
    assert_eq!(pos, "v");
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
    require_real_wordnet("generate_then_evaluate_on_real_wordnet");
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

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn run_with_stdin(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child =
        bin().args(args).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// `wordnet lch|path --pairs`: expected rows from the mini WordNet's hand-computed path
/// lengths (src/wordnet/tests.rs): dog-cat p = 2, ran-walk (verbs) p = 2, rex-cat p = 3;
/// LCH = ln(2D / (p + 1)) with 2D = 8 (nouns) and 6 (verbs); path = 1 / (p + 1).
#[test]
fn pairs_from_stdin_gzip_and_file_give_the_same_tsv() {
    let pairs = b"dog\tcat\nran\twalk\tv\nrex\tcat\n";
    let want_lch = format!("word1\tword2\tpos\tlch\ndog\tcat\tn\t{}\nran\twalk\tv\t{}\nrex\tcat\tn\t{}\n", (8.0f64 / 3.0).ln(), 2f64.ln(), 2f64.ln());
    let mini = mini();
    let mini = mini.to_str().unwrap();
    let out = run_with_stdin(&["wordnet", "lch", "--pairs", "-", "--wordnet", mini], pairs);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want_lch);
    let out = run_with_stdin(&["wordnet", "lch", "--pairs", "-", "--wordnet", mini], &gzip(pairs));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want_lch);
    let out = run_with_stdin(&["wordnet", "path", "--pairs", "-", "--wordnet", mini], pairs);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "word1\tword2\tpos\tpath\ndog\tcat\tn\t0.3333333333333333\nran\twalk\tv\t0.3333333333333333\nrex\tcat\tn\t0.25\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pairs.tsv.gz");
    std::fs::write(&file, gzip(pairs)).unwrap();
    let res = dir.path().join("scores.tsv");
    let out = bin().args(["wordnet", "lch", "--wordnet", mini, "--pairs"]).arg(&file).arg("--out").arg(&res).output().unwrap();
    assert!(out.status.success() && out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&res).unwrap(), want_lch);
}

#[test]
fn pairs_errors_leave_no_output() {
    let mini = mini();
    let mini = mini.to_str().unwrap();
    // A bad line late in the input: nothing is written to standard output.
    let out = run_with_stdin(&["wordnet", "lch", "--pairs", "-", "--wordnet", mini], b"dog\tcat\ndog\tcat\tadj\n");
    assert!(!out.status.success() && out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("<stdin>:2: part of speech `adj`"), "{}", String::from_utf8_lossy(&out.stderr));
    // ... nor to --out, whose previous content stays.
    let dir = tempfile::tempdir().unwrap();
    let res = dir.path().join("scores.tsv");
    std::fs::write(&res, "previous\n").unwrap();
    let bad = dir.path().join("bad.tsv");
    std::fs::write(&bad, "dog\tcat\nonly-one-field\n").unwrap();
    let out = bin().args(["wordnet", "lch", "--wordnet", mini, "--pairs"]).arg(&bad).arg("--out").arg(&res).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.tsv:2: expected at least 2 TAB-separated fields"));
    assert_eq!(std::fs::read_to_string(&res).unwrap(), "previous\n");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no temporary file left");
    // Words and --pairs together are refused; --out needs --pairs.
    let out = bin().args(["wordnet", "lch", "dog", "cat", "--pairs", "x.tsv"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin().args(["wordnet", "lch", "dog", "cat", "--out", "x.tsv"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn suggest_refuses_options_it_would_ignore_and_reads_gzip_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl.gz");
    let sug = dir.path().join("sug.jsonl");
    let log_text = concat!(
        r#"{"id":"a","query":"plant","segments":[{"text":"the tree grows","fixations":2},{"text":"a cat sleeps","fixations":0}],"attention":[{"word":"tree","count":2,"duration_ms":400}]}"#,
        "\r\n"
    );
    std::fs::write(&log, gzip(log_text.as_bytes())).unwrap();
    std::fs::write(&sug, "\u{feff}{\"id\":\"a\",\"suggestions\":[\"plant cat\",\"plant tree\"],\"accepted\":\"plant tree\"}\n").unwrap();
    let args = |extra: &[&str]| {
        let mut c = bin();
        c.args(["suggest", "--log"]).arg(&log).arg("--suggestions").arg(&sug).args(extra);
        c.output().unwrap()
    };
    // GLF on the gzip log (CRLF) and the BOM suggestions: session a of
    // glf_and_tam_on_a_hand_made_log ("tree" attended, accepted at engine rank 2: GLF RR 1).
    let out = args(&["--model", "glf"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout).unwrap().contains("| Gaze-Length-Filter (GLF) |  | 1.0000 |"));
    for (extra, what) in [
        (&["--model", "glf", "--alpha", "0.5"][..], "--alpha applies to TAM only"),
        (&["--model", "tam", "--weights", "0.3,0.5,0.2"][..], "--weights applies to TAM-R only"),
        (&["--model", "glf", "--wordnet", "/nonexistent"][..], "--wordnet is used by TAM-R only"),
        (&["--model", "tam", "--alpha", "0.5", "--tune-log", "a", "--tune-suggestions", "b"][..], "--tune-log has no effect"),
        (&["--model", "glf", "--level", "1.5"][..], "--level 1.5 must be in (0, 1)"),
    ] {
        let out = args(extra);
        assert!(!out.status.success(), "{extra:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(what), "{extra:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // The log from standard input.
    let mut c = bin();
    c.args(["suggest", "--model", "glf", "--log", "-", "--suggestions"]).arg(&sug);
    let out = {
        use std::io::Write;
        let mut child = c.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
        child.stdin.take().unwrap().write_all(log_text.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout).unwrap().contains("| Gaze-Length-Filter (GLF) |  | 1.0000 |"));
}
