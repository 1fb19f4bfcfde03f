//! End-to-end tests of the click-log readers through `serpsim clicks`: every layout, gzip,
//! standard input (also with `--stream`, which must not block on a pipe), and the errors.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_serpsim"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn with_stdin(mut c: Command, stdin: &[u8]) -> Output {
    let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    // Write from a thread: the child may read slowly or stop early.
    let t = std::thread::spawn(move || {
        let _ = pipe.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    t.join().unwrap();
    out
}

fn fit(format: &str, train: &str, stream: bool, dir: &std::path::Path, name: &str) -> Command {
    let mut c = bin();
    c.args(["clicks", "fit", "--model", "sdbn", "--format", format, "--train", train, "--out"]).arg(dir.join(name));
    // Streaming is the default; `--in-memory` loads the log first.
    c.arg(if stream { "--stream" } else { "--in-memory" });
    c
}

fn model(dir: &std::path::Path, name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
}

/// The same model from the file, its gzip copy on standard input, and standard input with
/// `--stream` (a pipe cannot be re-read: the sessions are kept in memory, with a warning).
#[test]
fn every_layout_reads_the_same_from_file_gzip_stdin_and_streamed_stdin() {
    let dir = tempfile::tempdir().unwrap();
    for (format, file) in [
        ("ncm", "study_logs/clicks/ncm_handmade_train.txt"),
        ("yandex-rpc", "tests/fixtures/clicklogs/rpc_handmade.txt"),
        ("auto", "tests/fixtures/clicklogs/rpc_handmade.txt"),
        ("yandex", "study_logs/clicks/synthetic_yandex_layout.txt"),
    ] {
        let path = root().join(file);
        let bytes = std::fs::read(&path).unwrap();
        let out = fit(format, path.to_str().unwrap(), false, dir.path(), "file.json").output().unwrap();
        assert!(out.status.success(), "{format}: {}", String::from_utf8_lossy(&out.stderr));
        let reference = model(dir.path(), "file.json");
        for (stream, input) in [(false, gzip(&bytes)), (true, bytes.clone()), (true, gzip(&bytes))] {
            let out = with_stdin(fit(format, "-", stream, dir.path(), "stdin.json"), &input);
            assert!(out.status.success(), "{format} stream={stream}: {}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(model(dir.path(), "stdin.json"), reference, "{format} stream={stream}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(err.contains("kept in memory"), stream, "{format}: {err}");
        }
    }
}

/// tests/fixtures/clicklogs/rpc_handmade.txt holds one click on a URL that is not on its
/// session's latest SERP (u9): the user is told.
#[test]
fn unmatched_relevance_prediction_clicks_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = root().join("tests/fixtures/clicklogs/rpc_handmade.txt");
    let out = fit("yandex-rpc", file.to_str().unwrap(), false, dir.path(), "m.json").output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ignored 1 click(s) on URLs that are not on the session's latest result page"), "{err}");
    assert!(err.contains("fitted sdbn on 3 sessions"), "{err}");
}

#[test]
fn empty_and_malformed_logs_fail_without_writing_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 5] = [
        ("yandex", b"", "<stdin>: no sessions (the log is empty"),
        ("ncm", b"1\t2\t[3, 4]\t[1, 1]\t[0, 1]\n1\t2\t[3, 4]\t[1, 1]\t[0]\n", "<stdin>:2: 2 documents but 1 click flags"),
        ("yandex", b"1\t2\t[3, 4]\t[1, 1]\t[0, 1]\n", "<stdin>:1: impression 1: no `:`"),
        ("yandex-rpc", b"7\t0\tQ\t1\t2\tu1\n7\t1\tC\tu1\n7\t0\tC\tu1\n", "<stdin>:3: time 0 is earlier"),
        ("auto", b"a b c\n", "<stdin>:1: cannot detect the log format"),
    ];
    for (format, input, what) in cases {
        for stream in [false, true] {
            let out = with_stdin(fit(format, "-", stream, dir.path(), "m.json"), input);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{format}: {err}");
            assert!(err.contains(what), "{format} stream={stream}: {err}");
            assert!(!dir.path().join("m.json").exists());
        }
    }
    // The wrong explicit format says what the file looks like.
    let ncm = root().join("study_logs/clicks/ncm_handmade_train.txt");
    let out = fit("yandex", ncm.to_str().unwrap(), false, dir.path(), "m.json").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("looks like the `ncm` format (--format ncm)"));
    let out = fit("bracketed:query=2", ncm.to_str().unwrap(), false, dir.path(), "m.json").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("the column of `documents` is required"));
}

#[test]
fn skip_bad_lines_also_skips_invalid_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = bin();
    c.args(["clicks", "fit", "--model", "sdbn", "--skip-bad-lines", "--train", "-", "--out"]).arg(dir.path().join("m.json"));
    let out = with_stdin(c, b"q\ta,b : a\nq\ta,\xffb : b\nq\tb,a :\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("skipped 1 bad line(s); first: <stdin>:2: invalid UTF-8 (byte 0xff at column 5)"), "{err}");
    assert!(err.contains("fitted sdbn on 2 sessions"), "{err}");
}
