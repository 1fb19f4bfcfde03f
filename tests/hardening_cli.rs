//! Hardening, end to end (issue 17): output sets are all-or-nothing under SIGKILL and SIGINT,
//! standard output that is closed or full never makes serpsim panic, and a full disk leaves the
//! previous output set intact.
//!
//! The expected behaviour is the contract stated in `src/output.rs` and docs/reliability.md:
//! after a kill at any moment the output directory holds the previous complete set or the new
//! one (checked here independently: every file listed in `manifest.json` has the SHA-256 the
//! manifest records, and the directory holds nothing else), and no temporary file remains after
//! the next run.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_serpsim"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn r(p: &str) -> String {
    root().join(p).display().to_string()
}

/// The seed recorded by a complete output set, or a description of what is wrong with it.
fn complete_set(dir: &Path) -> Result<u64, String> {
    let text = std::fs::read_to_string(dir.join("manifest.json")).map_err(|e| format!("no manifest: {e}"))?;
    let m: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("manifest: {e}"))?;
    let mut names = vec!["manifest.json".to_string()];
    for f in m["files"].as_array().ok_or("manifest without files")? {
        let name = f["name"].as_str().ok_or("file without name")?;
        let bytes = std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e}"))?;
        let sum: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        if sum != f["sha256"].as_str().unwrap_or("") {
            return Err(format!("{name}: checksum differs from the manifest (a file of another run)"));
        }
        names.push(name.split('/').next().unwrap().to_string());
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        let n = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !names.contains(&n) {
            return Err(format!("{n}: not part of the set"));
        }
    }
    m["seed"].as_u64().ok_or_else(|| "manifest without seed".to_string())
}

/// Entries beside `out` that belong to no complete set (staging directories, temporary files).
fn leftovers(out: &Path) -> Vec<String> {
    let name = out.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!(".{name}.serpsim-")))
        .collect()
}

fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: sending a signal to our own child process by its pid.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
}

/// Runs `args` (with `--seed SEED --out OUT` appended) to completion.
fn run_to_end(args: &[String], seed: u64, out: &Path) {
    let o = bin().args(args).args(["--seed", &seed.to_string(), "--quiet", "--out"]).arg(out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Kills a run over a previous complete set at several moments, with SIGKILL and SIGINT, and
/// checks the all-or-nothing property after each kill and the cleanup by the next run.
fn kill_at_several_points(args: &[String]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    run_to_end(args, 1, &out);
    assert_eq!(complete_set(&out), Ok(1));
    // How long a whole run takes here, so the kills fall early, midway and late in it.
    let t0 = std::time::Instant::now();
    run_to_end(args, 2, &out);
    let whole = t0.elapsed();
    assert_eq!(complete_set(&out), Ok(2));
    let mut seen_old = false;
    let mut seed = 2;
    for (sig, fraction) in [
        (libc::SIGKILL, 0.1),
        (libc::SIGINT, 0.3),
        (libc::SIGKILL, 0.5),
        (libc::SIGINT, 0.7),
        (libc::SIGKILL, 0.95),
        (libc::SIGINT, 0.95),
    ] {
        let before = seed;
        seed += 1;
        let mut child = bin()
            .args(args)
            .args(["--seed", &seed.to_string(), "--quiet", "--out"])
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(whole.mul_f64(fraction));
        signal(&child, sig);
        let status = child.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert!(!err.contains("panicked"), "{err}");
        let got = complete_set(&out).unwrap_or_else(|e| panic!("signal {sig} at {fraction}: {e}"));
        if status.success() {
            // The run ended before the signal arrived: the new set.
            assert_eq!(got, seed);
        } else {
            assert!(got == before || got == seed, "signal {sig} at {fraction}: set of seed {got}");
            if sig == libc::SIGINT {
                assert_eq!(status.code(), Some(130), "{err}");
                assert!(err.contains("interrupted"), "{err}");
                // Ctrl-C cleans up this run's files at once. (Leftovers of the run killed
                // before it are removed by the next run that gets as far as opening its
                // output, which an early Ctrl-C may have prevented: seen at load 6.)
                let pid = child.id();
                let own: Vec<String> = leftovers(&out).into_iter().filter(|n| n.ends_with(&format!("-{pid}"))).collect();
                assert_eq!(own, Vec::<String>::new(), "child {pid}; every leftover: {:?}", leftovers(&out));
            }
        }
        seen_old |= got == before;
        seed = got;
    }
    // At least one kill landed before the commit (otherwise the test checked nothing).
    assert!(seen_old, "every run finished before its signal; the kill points are too late");
    run_to_end(args, 99, &out);
    assert_eq!(complete_set(&out), Ok(99));
    assert_eq!(leftovers(&out), Vec::<String>::new(), "the next run removes what killed runs left");
}

#[test]
fn killed_simulate_leaves_the_old_or_the_new_set() {
    kill_at_several_points(&["simulate".into(), "--replicates".into(), "40000".into(), "--samples".into()]);
}

const SWEEP: &str = r#"
name = "kill-sweep"
seed = 3
replicates = 400
[collection]
source = "synthetic_queries"
strategies = ["qs1", "qs13"]
[collection.generator]
topics = 3
docs_per_topic = 200
relevant_per_topic = 30
queries_per_strategy = 8
list_length = 60
[[profiles]]
name = "searcher"
continuation = { model = "rbp", p = 1.0 }
clicks = { click = [0.39, 0.64], stop = [0.0], mark = [0.27, 0.77] }
gain = { model = "binary", credit_on = "mark" }
budget = { seconds = 1200.0 }
stopping = [{ rule = "fixed_depth", n = 1 }]
[[sweep]]
key = "stopping[0]"
values = [{ rule = "fixed_depth" }, { rule = "total_nonrelevant", basis = "snippet" }, { rule = "contiguous_nonrelevant", basis = "snippet" }]
[[sweep]]
key = "stopping[0].n"
values = [1, 3, 10, 20]
"#;

#[test]
fn killed_sessions_sweep_leaves_the_old_or_the_new_set() {
    let dir = tempfile::tempdir().unwrap();
    let scen = dir.path().join("sweep.toml");
    std::fs::write(&scen, SWEEP).unwrap();
    kill_at_several_points(&["sessions".into(), "sweep".into(), scen.display().to_string()]);
}

/// Every subcommand that writes to standard output, with arguments that make it succeed.
fn stdout_commands(tmp: &Path) -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let fix = |p: &str| r(&format!("tests/fixtures/{p}"));
    vec![
        s(&["eval", &r("study_logs/trec/qrels.test"), &r("study_logs/trec/results.test"), "-m", "map", "-q"]),
        s(&["study", "summary", &r("study_logs/gaze/bino_1000hz.asc")]),
        s(&["study", "events", &r("study_logs/gaze/bino_1000hz.asc")]),
        s(&["study", "words", &r("study_logs/gaze/fixation_report_reading.csv")]),
        s(&["clicks", "eval", "--model", "sdbn", "--train", &r("study_logs/clicks/synthetic_yandex_layout.txt")]),
        s(&["simulate", "--replicates", "200", "--out", &tmp.join("sim").display().to_string()]),
        s(&[
            "compare-rankers", "--log", &fix("baraco/log.tsv"), "--production", &fix("baraco/production.tsv"),
            "--candidates", &fix("baraco/candidates.tsv"), "--samples", "400",
        ]),
        s(&[
            "streams", "msu", "--topics", &fix("streams/topics.tsv"), "--nuggets", &fix("streams/nuggets.tsv"),
            "--matches", &fix("streams/matches.tsv"), "--updates", &fix("streams/example.tsv"), "--users", "50",
        ]),
        s(&["wordnet", "lch", "dog", "cat"]),
        s(&["completions", "bash"]),
        s(&["manpage"]),
        s(&["--help"]),
        s(&["--version"]),
    ]
}

/// `> /dev/full`: exit code 1 and `error: cannot write to standard output`, no panic.
#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    for args in stdout_commands(tmp.path()) {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full exists on Linux");
        let o = bin().args(&args).stdout(full).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        // `--help` and `--version` are printed by clap, which ignores write errors.
        if !args[0].starts_with("--") {
            assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains("error: cannot write to standard output: No space left on device"), "{args:?}: {err}");
        }
    }
}

/// `| head -0`: the reader is gone before serpsim writes. The process ends quietly (by SIGPIPE,
/// as Unix tools do) or with an error, never with a panic.
#[test]
fn a_closed_stdout_pipe_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    for args in stdout_commands(tmp.path()) {
        let mut child = bin().args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        let by_sigpipe = o.status.signal() == Some(libc::SIGPIPE);
        assert!(by_sigpipe || o.status.code().is_some(), "{args:?}: {:?}", o.status);
        if !by_sigpipe && !o.status.success() {
            assert!(err.starts_with("error: ") || args[0].starts_with("--"), "{args:?}: {err}");
        }
    }
}

/// A small tmpfs mounted for one test and removed after it.
struct Tmpfs(PathBuf, #[allow(dead_code)] tempfile::TempDir);

impl Tmpfs {
    fn mount(bytes: usize) -> Tmpfs {
        let holder = tempfile::tempdir().unwrap();
        let at = holder.path().join("disk");
        std::fs::create_dir(&at).unwrap();
        let o = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(&at)
            .output()
            .expect("`mount` is needed to test a full disk");
        assert!(
            o.status.success(),
            "the full-disk test needs to mount a tmpfs (run the tests as root, as CI does): {}",
            String::from_utf8_lossy(&o.stderr)
        );
        Tmpfs(at, holder)
    }

    /// Fills the file system up to the last byte.
    fn fill(&self) {
        use std::io::Write;
        let mut f = std::fs::File::create(self.0.join("filler")).unwrap();
        let block = vec![0u8; 4096];
        while f.write_all(&block).is_ok() {}
        let _ = f.write_all(&[0]);
        let _ = f.sync_all();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().unwrap() != "filler" {
                v.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    v.sort();
    v
}

/// With the disk full, every writing command exits 1 with the reason and leaves the previous
/// output (set or file) byte for byte as it was, with no temporary file.
#[test]
fn a_full_disk_keeps_the_previous_output() {
    let fix = |p: &str| r(&format!("tests/fixtures/{p}"));
    let qrels = r("study_logs/trec/qrels.test");
    let run = r("study_logs/trec/results.test");
    let yandex = r("study_logs/clicks/synthetic_yandex_layout.txt");
    let asc = r("study_logs/gaze/bino_1000hz.asc");
    let scen = tempfile::tempdir().unwrap();
    std::fs::write(scen.path().join("sweep.toml"), SWEEP).unwrap();
    let sweep = scen.path().join("sweep.toml").display().to_string();
    std::fs::write(scen.path().join("pairs.tsv"), "dog\tcat\ncar\tbus\n").unwrap();
    let pairs = scen.path().join("pairs.tsv").display().to_string();
    let (topics, nuggets, matches, updates) =
        (fix("streams/topics.tsv"), fix("streams/nuggets.tsv"), fix("streams/matches.tsv"), fix("streams/example.tsv"));
    // (command, output name): `OUT` is replaced by the output path on the full disk.
    let commands: Vec<(Vec<&str>, &str)> = vec![
        (vec!["simulate", "--replicates", "300", "--samples", "--out", "OUT"], "sim"),
        (vec!["sessions", "sweep", &sweep, "--replicates", "30", "--out", "OUT"], "sweep"),
        (vec!["clicks", "fit", "--model", "dbn", "--iterations", "3", "--train", &yandex, "--out", "OUT"], "m.json"),
        (vec!["clicks", "simulate", "--model-file", "MODEL", "--serps", &yandex, "--replicates", "3", "--out", "OUT"], "sim.tsv"),
        (vec!["eval", &qrels, &run, "-m", "map", "-q", "--out", "OUT"], "eval.txt"),
        (vec!["study", "events", &asc, "--out", "OUT"], "events.csv"),
        (
            vec![
                "compare-rankers", "--log", "LOG", "--production", "PROD", "--candidates", "CAND", "--samples", "400", "--out",
                "OUT",
            ],
            "baraco.csv",
        ),
        (vec!["clicks", "validate", "--model", "sdbn", "--train", &yandex, "--out", "OUT"], "validation"),
        (vec!["suggest", "generate", "--sessions", "20", "--out", "OUT"], "suggest"),
        (vec!["wordnet", "lch", "--pairs", &pairs, "--out", "OUT"], "lch.tsv"),
        (
            vec![
                "streams", "msu", "--topics", &topics, "--nuggets", &nuggets, "--matches", &matches, "--updates", &updates,
                "--users", "50", "--out", "OUT",
            ],
            "msu.csv",
        ),
    ];
    let log = fix("baraco/log.tsv");
    let prod = fix("baraco/production.tsv");
    let cand = fix("baraco/candidates.tsv");
    let model_dir = tempfile::tempdir().unwrap();
    let model = model_dir.path().join("m.json");
    let o = bin().args(["clicks", "fit", "--model", "sdbn", "--train", &yandex, "--out"]).arg(&model).output().unwrap();
    assert!(o.status.success());
    let model = model.display().to_string();
    for (args, name) in commands {
        let disk = Tmpfs::mount(32 << 20);
        let out = disk.0.join(name).display().to_string();
        let args: Vec<&str> = args
            .iter()
            .map(|a| match *a {
                "OUT" => out.as_str(),
                "MODEL" => model.as_str(),
                "LOG" => log.as_str(),
                "PROD" => prod.as_str(),
                "CAND" => cand.as_str(),
                x => x,
            })
            .collect();
        let first = bin().args(&args).output().unwrap();
        assert!(first.status.success(), "{args:?}: {}", String::from_utf8_lossy(&first.stderr));
        let before = snapshot(&disk.0);
        assert!(!before.is_empty());
        disk.fill();
        let o = bin().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("No space left on device"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(snapshot(&disk.0), before, "{args:?}: the previous output changed");
        assert_eq!(leftovers(Path::new(&out)), Vec::<String>::new(), "{args:?}");
    }
}
