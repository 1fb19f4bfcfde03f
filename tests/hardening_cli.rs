//! Hardening, end to end (issue 17): output sets are all-or-nothing under SIGKILL and SIGINT,
//! standard output that is closed or full never makes serpsim panic, and a full disk leaves the
//! previous output set intact.
//!
//! The expected behaviour is the contract stated in `src/output.rs` and docs/reliability.md:
//! after a kill at any moment the output directory holds the previous complete set or the new
//! one (checked here independently: every file listed in `manifest.json` has the SHA-256 the
//! manifest records, and the directory holds nothing else), and no temporary file remains after
//! the next run.

mod common;

use common::{root, serpsim as bin};
use sha2::{Digest, Sha256};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

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

/// Starts `cmd`, sends it `sig` after `after`, and returns its exit status, its standard
/// error (checked to hold no panic) and its pid.
fn signalled(cmd: &mut Command, after: Duration, sig: i32) -> (ExitStatus, String, u32) {
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    std::thread::sleep(after);
    // SAFETY: sending a signal to our own child process by its pid.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    (status, err, child.id())
}

/// After Ctrl-C: exit code 130, `interrupted` on standard error, and no temporary file of the
/// interrupted process `pid` among `leftovers`.
fn check_interrupted(status: ExitStatus, err: &str, pid: u32, leftovers: Vec<String>) {
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    let own: Vec<String> = leftovers.iter().filter(|n| n.ends_with(&format!("-{pid}"))).cloned().collect();
    assert_eq!(own, Vec::<String>::new(), "child {pid}: Ctrl-C removes the run's own temporary files; every leftover: {leftovers:?}");
}

/// Signals and moments (fractions of a whole run) of the kill tests: early, midway and late.
const KILL_POINTS: [(i32, f64); 6] =
    [(libc::SIGKILL, 0.1), (libc::SIGINT, 0.3), (libc::SIGKILL, 0.5), (libc::SIGINT, 0.7), (libc::SIGKILL, 0.95), (libc::SIGINT, 0.95)];

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
    for (sig, fraction) in KILL_POINTS {
        let before = seed;
        seed += 1;
        let mut run = bin();
        run.args(args).args(["--seed", &seed.to_string(), "--quiet", "--out"]).arg(&out);
        let (status, err, pid) = signalled(&mut run, whole.mul_f64(fraction), sig);
        let got = complete_set(&out).unwrap_or_else(|e| panic!("signal {sig} at {fraction}: {e}"));
        if status.success() {
            // The run ended before the signal arrived: the new set.
            assert_eq!(got, seed);
        } else {
            assert!(got == before || got == seed, "signal {sig} at {fraction}: set of seed {got}");
            if sig == libc::SIGINT {
                // Ctrl-C cleans up this run's files at once. (Leftovers of the run killed
                // before it are removed by the next run that gets as far as opening its
                // output, which an early Ctrl-C may have prevented: seen at load 6.)
                check_interrupted(status, &err, pid, leftovers(&out));
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

/// The sweep the kill and full-disk tests run: three stopping rules at four depths, 400 users.
fn sweep() -> String {
    common::sessions_sweep(
        "kill-sweep",
        400,
        r#"{ rule = "fixed_depth" }, { rule = "total_nonrelevant", basis = "snippet" }, { rule = "contiguous_nonrelevant", basis = "snippet" }"#,
        "[1, 3, 10, 20]",
    )
}

#[test]
fn killed_sessions_sweep_leaves_the_old_or_the_new_set() {
    let dir = tempfile::tempdir().unwrap();
    let scen = dir.path().join("sweep.toml");
    std::fs::write(&scen, sweep()).unwrap();
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
            "compare-rankers",
            "--log",
            &fix("baraco/log.tsv"),
            "--production",
            &fix("baraco/production.tsv"),
            "--candidates",
            &fix("baraco/candidates.tsv"),
            "--samples",
            "400",
        ]),
        s(&[
            "streams",
            "msu",
            "--topics",
            &fix("streams/topics.tsv"),
            "--nuggets",
            &fix("streams/nuggets.tsv"),
            "--matches",
            &fix("streams/matches.tsv"),
            "--updates",
            &fix("streams/example.tsv"),
            "--users",
            "50",
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
        assert!(o.status.success(), "the full-disk test needs to mount a tmpfs (run the tests as root, as CI does): {}", String::from_utf8_lossy(&o.stderr));
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
    std::fs::write(scen.path().join("sweep.toml"), sweep()).unwrap();
    let sweep = scen.path().join("sweep.toml").display().to_string();
    std::fs::write(scen.path().join("pairs.tsv"), "dog\tcat\ncar\tbus\n").unwrap();
    let pairs = scen.path().join("pairs.tsv").display().to_string();
    let (topics, nuggets, matches, updates) = (fix("streams/topics.tsv"), fix("streams/nuggets.tsv"), fix("streams/matches.tsv"), fix("streams/example.tsv"));
    // (command, output name): `OUT` is replaced by the output path on the full disk.
    let commands: Vec<(Vec<&str>, &str)> = vec![
        (vec!["simulate", "--replicates", "300", "--samples", "--out", "OUT"], "sim"),
        (vec!["sessions", "sweep", &sweep, "--replicates", "30", "--out", "OUT"], "sweep"),
        (vec!["clicks", "fit", "--model", "dbn", "--iterations", "3", "--train", &yandex, "--out", "OUT"], "m.json"),
        (vec!["clicks", "simulate", "--model-file", "MODEL", "--serps", &yandex, "--replicates", "3", "--out", "OUT"], "sim.tsv"),
        (vec!["eval", &qrels, &run, "-m", "map", "-q", "--out", "OUT"], "eval.txt"),
        (vec!["study", "events", &asc, "--out", "OUT"], "events.csv"),
        (vec!["compare-rankers", "--log", "LOG", "--production", "PROD", "--candidates", "CAND", "--samples", "400", "--out", "OUT"], "baraco.csv"),
        (vec!["clicks", "validate", "--model", "sdbn", "--train", &yandex, "--out", "OUT"], "validation"),
        (vec!["suggest", "generate", "--sessions", "20", "--out", "OUT"], "suggest"),
        (vec!["wordnet", "lch", "--pairs", &pairs, "--out", "OUT"], "lch.tsv"),
        (
            vec!["streams", "msu", "--topics", &topics, "--nuggets", &nuggets, "--matches", &matches, "--updates", &updates, "--users", "50", "--out", "OUT"],
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

/// A scenario with a synthetic collection, small enough to run; `{collection}`, `{profile}`
/// and `{extra}` receive the knob under test.
const BOUNDED_SCENARIO: &str = r#"
name = "bounds"
seed = 1
replicates = 10
[collection]
source = "synthetic"
topics = 3
docs_per_topic = 50
relevant_share = 0.1
systems = [{ name = "a", ndcg = [0.2, 0.6] }]
{collection}
[[profiles]]
name = "p"
continuation = { model = "rbp", p = 0.8 }
clicks = { click = [0.3, 0.7], stop = [0.0], mark = [0.1, 0.8] }
{profile}
[output]
plot = false
{extra}
"#;

/// The session generator's scenario (`sessions run`), with `{generator}` receiving the knob.
const BOUNDED_SESSIONS: &str = r#"
name = "bounds"
seed = 1
replicates = 10
[collection]
source = "synthetic_queries"
strategies = ["qs1"]
[collection.generator]
topics = 2
docs_per_topic = 100
relevant_per_topic = 10
queries_per_strategy = 2
list_length = 20
{generator}
[[profiles]]
name = "p"
continuation = { model = "rbp", p = 1.0 }
clicks = { click = [0.39, 0.64], stop = [0.0], mark = [0.27, 0.77] }
stopping = [{ rule = "fixed_depth", n = 3 }]
"#;

/// Every size, count and magnitude knob above its upper bound (src/limits.rs, listed in
/// docs/reliability.md "Bounds"): exit code 1 at once (no hang, no abort, no panic) with an
/// error that names the option or key, the value and the bound. The expected texts are the
/// bounds as documented (hand-written from docs/reliability.md, not taken from a run).
#[test]
fn every_knob_has_an_upper_bound() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    let write = |n: &str, text: &str| {
        std::fs::write(dir.path().join(n), text).unwrap();
        d(n)
    };
    let qrels = write("qrels", "1 0 a 1\n1 0 b 0\n2 0 a 1\n");
    let run = write("run", "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 a 1 1.0 r\n");
    // A click log in the TSV session layout with 101 SERPs (for the session total of clicks simulate).
    let mut log = String::from("session_id\tquery\tdocuments\tclicks\n");
    for i in 0..101 {
        log += &format!("{i}\tq{}\td1,d2,d3\t{},0,1\n", i % 3, i % 2);
    }
    let log = write("log.tsv", &log);
    let model = d("model.json");
    let o = bin().args(["clicks", "fit", "--model", "sdbn", "--format", "tsv", "--train", &log, "--out", &model]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A mini WordNet whose index.noun claims 2^32 synsets for its first lemma.
    let wn = dir.path().join("wn");
    std::fs::create_dir(&wn).unwrap();
    for f in std::fs::read_dir(root().join("tests/fixtures/wordnet/mini")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, wn.join(f.file_name().unwrap())).unwrap();
    }
    let index = std::fs::read_to_string(wn.join("index.noun")).unwrap();
    let mut done = false;
    let index: String = index
        .lines()
        .map(|l| {
            if done || l.starts_with(' ') || l.trim().is_empty() {
                return format!("{l}\n");
            }
            done = true;
            let mut t: Vec<&str> = l.split(' ').collect();
            t[2] = "4294967296";
            t.join(" ") + "\n"
        })
        .collect();
    std::fs::write(wn.join("index.noun"), index).unwrap();
    // A scenario with `collection`, `profile` and `extra` inserted and each (from, to) replaced.
    let scen = |i: usize, collection: &str, profile: &str, extra: &str, swap: &[(&str, &str)]| {
        let mut text = BOUNDED_SCENARIO.replace("{collection}", collection).replace("{profile}", profile).replace("{extra}", extra);
        for (a, b) in swap {
            assert!(text.contains(a));
            text = text.replace(a, b);
        }
        write(&format!("s{i}.toml"), &text)
    };
    let sessions = |i: usize, from: &str, to: &str| {
        assert!(BOUNDED_SESSIONS.contains(from));
        write(&format!("g{i}.toml"), &BOUNDED_SESSIONS.replace("{generator}", "").replace(from, to))
    };
    let out = d("out");
    let fix = |p: &str| r(&format!("tests/fixtures/{p}"));
    let (blog, prod, cand) = (fix("baraco/log.tsv"), fix("baraco/production.tsv"), fix("baraco/candidates.tsv"));
    let study_cfg = |i: usize, line: &str| write(&format!("study{i}.toml"), &format!("{line}\n"));

    // (arguments, texts the error must contain: the knob, the value, the bound)
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let cases: Vec<(Vec<String>, Vec<&str>)> = vec![
        (s(&["eval", &qrels, &run, "--compare", &d("c.csv"), "--resamples", "1000001"]), vec!["--resamples", "1000001", "upper bound of 1000000"]),
        (
            s(&["compare-rankers", "--log", &blog, "--production", &prod, "--candidates", &cand, "--samples", "10000001"]),
            vec!["--samples", "10000001", "upper bound of 10000000"],
        ),
        (
            s(&["compare-rankers", "--log", &blog, "--production", &prod, "--candidates", &cand, "--depth", "1001"]),
            vec!["--depth", "1001", "upper bound of 1000"],
        ),
        (
            s(&["clicks", "validate-switches", "--train", &log, "--format", "tsv", "--samples", "18446744073709551615"]),
            vec!["--samples", "18446744073709551615", "upper bound of 10000000"],
        ),
        (
            s(&["clicks", "fit", "--model", "dbn", "--format", "tsv", "--train", &log, "--iterations", "1000001", "--out", &d("m2.json")]),
            vec!["--iterations", "1000001", "upper bound of 1000000"],
        ),
        (
            s(&[
                "clicks",
                "fit",
                "--model",
                "dbn",
                "--format",
                "tsv",
                "--train",
                &log,
                "--posterior",
                &d("p.json"),
                "--samples",
                "4294967296",
                "--out",
                &d("m2.json"),
            ]),
            vec!["--samples", "4294967296", "upper bound of 10000000"],
        ),
        (
            s(&[
                "clicks",
                "fit",
                "--model",
                "dbn",
                "--format",
                "tsv",
                "--train",
                &log,
                "--posterior",
                &d("p.json"),
                "--chains",
                "1025",
                "--out",
                &d("m2.json"),
            ]),
            vec!["--chains", "1025", "upper bound of 1024"],
        ),
        (
            s(&[
                "clicks",
                "fit",
                "--model",
                "dbn",
                "--format",
                "tsv",
                "--train",
                &log,
                "--posterior",
                &d("p.json"),
                "--chains",
                "1000",
                "--samples",
                "10001",
                "--out",
                &d("m2.json"),
            ]),
            vec!["chains * draws", "10001000", "upper bound of 10000000"],
        ),
        (
            s(&["clicks", "validate", "--model", "sdbn", "--format", "tsv", "--train", &log, "--bootstrap", "1000001"]),
            vec!["bootstrap", "1000001", "upper bound of 1000000"],
        ),
        (
            s(&["clicks", "validate", "--model", "sdbn", "--format", "tsv", "--train", &log, "--replicates", "1000001"]),
            vec!["replicates", "1000001", "upper bound of 1000000"],
        ),
        (
            s(&["clicks", "simulate", "--model-file", &model, "--serps", &log, "--format", "tsv", "--replicates", "4294967296", "--out", &d("sim.tsv")]),
            vec!["--replicates", "4294967296", "upper bound of 1000000"],
        ),
        // 101 SERPs x 1,000,000 replicates = 101,000,000 sessions > 100,000,000.
        (
            s(&["clicks", "simulate", "--model-file", &model, "--serps", &log, "--format", "tsv", "--replicates", "1000000", "--out", &d("sim.tsv")]),
            vec!["--replicates * SERPs", "101000000", "upper bound of 100000000"],
        ),
        (s(&["clicks", "generate", "--sessions", "1000000001", "--out", &d("g.txt")]), vec!["--sessions", "1000000001", "upper bound of 1000000000"]),
        (s(&["clicks", "generate", "--queries", "100000001", "--out", &d("g.txt")]), vec!["--queries", "100000001", "upper bound of 100000000"]),
        (s(&["clicks", "generate", "--candidates", "101", "--out", &d("g.txt")]), vec!["--candidates", "101", "upper bound of 100"]),
        (
            s(&["clicks", "generate", "--queries", "50000000", "--candidates", "100", "--out", &d("g.txt")]),
            vec!["--queries * --candidates", "5000000000", "upper bound of 2000000000"],
        ),
        (s(&["study", "validate", &log, "--qrels", &qrels, "--bootstrap", "1000001"]), vec!["--bootstrap", "1000001", "upper bound of 1000000"]),
        (
            s(&[
                "clicks",
                "fit",
                "--model",
                "dbn",
                "--format",
                "tsv",
                "--train",
                &log,
                "--qrels",
                &qrels,
                "--grade-bootstrap",
                "1000001",
                "--out",
                &d("m2.json"),
            ]),
            vec!["--grade-bootstrap", "1000001", "upper bound of 1000000"],
        ),
        (s(&["study", "synth", "--config", &study_cfg(1, "queries = 100001"), "--out", &out]), vec!["queries", "100001", "upper bound of 100000"]),
        (s(&["study", "synth", "--config", &study_cfg(2, "max_pages = 1001"), "--out", &out]), vec!["max_pages", "1001", "upper bound of 1000"]),
        (
            s(&["study", "synth", "--config", &study_cfg(3, "participants = 1000\ntasks = 1000\nqueries = 100"), "--out", &out]),
            vec!["participants * tasks * queries", "100000000", "upper bound of 10000000"],
        ),
        (s(&["suggest", "generate", "--config", &study_cfg(4, "segments = 10001"), "--out", &out]), vec!["segments", "10001", "upper bound of 10000"]),
        (s(&["suggest", "generate", "--sessions", "10000001", "--out", &out]), vec!["sessions", "10000001", "upper bound of 10000000"]),
        (
            s(&["suggest", "generate", "--config", &study_cfg(5, "sessions = 100000\nqueries = 10\nsegments = 100"), "--out", &out]),
            vec!["sessions * queries * segments", "100000000", "upper bound of 10000000"],
        ),
        // Issue 42: every generator knob, and the products that size memory or the output
        // (bounds from docs/reliability.md's table; estimates checked by their unit tests).
        (
            s(&["study", "synth", "--config", &study_cfg(6, "sample_rate_hz = 9223372036854775807"), "--out", &out]),
            // The TOML integer 2^63 - 1 read as an f64 (2^63) and printed with Rust's shortest
            // round-trip digits: 9223372036854776000.
            vec!["sample_rate_hz", "9223372036854776000", "upper bound of 10000"],
        ),
        (s(&["study", "synth", "--config", &study_cfg(7, "sample_rate_hz = 1e6"), "--out", &out]), vec!["sample_rate_hz", "1000000", "upper bound of 10000"]),
        (
            s(&["study", "synth", "--config", &study_cfg(8, "sample_rate_hz = 10000\nserp_look_ms = 1000000"), "--out", &out]),
            vec!["sample_rate_hz * session length", "gaze samples per session", "GB)", "upper bound of 10000000"],
        ),
        (
            s(&[
                "study",
                "synth",
                "--config",
                &study_cfg(9, "participants = 2000\ntasks = 1\nqueries = 1\nmax_pages = 1\npage_size = 1\ntokens_per_result = 1\nsample_rate_hz = 10000\nserp_look_ms = 100000"),
                "--out",
                &out,
            ]),
            vec!["participants * tasks", "gaze samples of the whole study", "GB)", "upper bound of 1000000000"],
        ),
        (
            s(&[
                "study",
                "synth",
                "--config",
                &study_cfg(10, "participants = 1\ntasks = 1\nqueries = 100\nmax_pages = 100\ndocument_ms = 1000000000\nclick = [1.0, 1.0]"),
                "--out",
                &out,
            ]),
            vec!["ms of a session's clock", "upper bound of 100000000000"],
        ),
        (
            s(&["study", "synth", "--config", &study_cfg(11, "participants = 1000\ntasks = 100\nqueries = 10\nmax_pages = 10"), "--out", &out]),
            vec!["tokens_per_result + 1", "AOI boxes", "upper bound of 10000000"],
        ),
        (s(&["study", "synth", "--config", &study_cfg(12, "mean_extra_ms = 1e10"), "--out", &out]), vec!["mean_extra_ms", "10000000000", "upper bound of 1e9"]),
        (
            s(&["study", "synth", "--config", &study_cfg(13, "query_duration_factor = 1e10"), "--out", &out]),
            vec!["query_duration_factor", "10000000000", "upper bound of 1e9"],
        ),
        (
            s(&["clicks", "generate", "--sessions", "1000000000", "--serp-len", "21", "--candidates", "21", "--out", &d("g.txt")]),
            vec!["--sessions * --serp-len", "21000000000 results", "GB)", "upper bound of 20000000000"],
        ),
        (
            s(&["suggest", "generate", "--config", &study_cfg(14, "sessions = 100000\nqueries = 10\ncandidates = 11\nsegments = 1"), "--out", &out]),
            vec!["sessions * queries * candidates", "11000000", "upper bound of 10000000"],
        ),
        (s(&["sublists", "gen-log", "--log", &d("gl.csv"), "--rlr-instances", "100000000000"]), vec!["--rlr-instances", "100000000000", "upper bound of 1000000"]),
        (s(&["sublists", "gen-log", "--log", &d("gl.csv"), "--basic-instances", "1000001"]), vec!["--basic-instances", "1000001", "upper bound of 1000000"]),
        (
            s(&["sublists", "gen-log", "--log", &d("gl.csv"), "--rlr-instances", "1000000", "--basic-instances", "1000000"]),
            vec!["topics * (--rlr-instances + --basic-instances)", "events of the log", "upper bound of 50000000"],
        ),
        (s(&["sublists", "gen-log", "--log", &d("gl.csv"), "--lambda-sigma", "1e9"]), vec!["--lambda-sigma", "1000000000", "upper bound of 10"]),
        (s(&["sublists", "gen-log", "--log", &d("gl.csv"), "--lambda", "1e10"]), vec!["--lambda", "10000000000", "upper bound of 1e9"]),
        (s(&["wordnet", "lch", "dog", "cat", "--wordnet", &wn.display().to_string()]), vec!["index.noun:", "synset_cnt 4294967296", "upper bound of"]),
        (
            s(&["simulate", &scen(1, "", "", "", &[]), "--replicates", "1000000001", "--out", &out]),
            vec!["--replicates", "1000000001", "upper bound of 1000000000"],
        ),
        (
            s(&["simulate", &scen(11, "", "", "", &[("replicates = 10", "replicates = 1000000001")]), "--out", &out]),
            vec!["replicates", "1000000001", "upper bound of 1000000000"],
        ),
        (
            s(&["simulate", &scen(2, "", "", "", &[("topics = 3", "topics = 9223372036854775807")]), "--out", &out]),
            vec!["collection.topics", "9223372036854775807", "upper bound of 100000"],
        ),
        (
            s(&["simulate", &scen(3, "", "", "", &[("docs_per_topic = 50", "docs_per_topic = 1000001")]), "--out", &out]),
            vec!["collection.docs_per_topic", "1000001", "upper bound of 1000000"],
        ),
        (
            s(&["simulate", &scen(4, "", "", "", &[("topics = 3", "topics = 1000"), ("docs_per_topic = 50", "docs_per_topic = 1000000")]), "--out", &out]),
            vec!["collection.topics * collection.docs_per_topic", "1000000000", "upper bound of 100000000"],
        ),
        (
            s(&["simulate", &scen(5, "categories = 10001\nlabels_per_doc = 1", "", "", &[]), "--out", &out]),
            vec!["collection.categories", "10001", "upper bound of 10000"],
        ),
        (s(&["simulate", &scen(6, "", "", "histogram_bins = 10001", &[]), "--out", &out]), vec!["output.histogram_bins", "10001", "upper bound of 10000"]),
        (
            s(&["simulate", &scen(7, "", "effort = { read_document = 1e308 }", "", &[]), "--out", &out]),
            vec!["profiles[0].effort.read_document", "100000000000000000000", "[0, 1e9]"],
        ),
        (
            s(&["simulate", &scen(8, "", "time = { examine_snippet = 1e10 }", "", &[]), "--out", &out]),
            vec!["profiles[0].time.examine_snippet", "10000000000", "[0, 1e9]"],
        ),
        (
            s(&["simulate", &scen(9, "", "gain = { model = \"graded\", gains = [0.0, 1e308] }", "", &[]), "--out", &out]),
            vec!["profiles[0].gain.gains[1]", "100000000000000000000", "[0, 1e9]"],
        ),
        (
            s(&["simulate", &scen(10, "", "time = { read_document = { dist = \"lognormal\", mean = 1e300, sd = 1.0 } }", "", &[]), "--out", &out]),
            vec!["profiles[0].time.read_document", "mean", "upper bound of 1e9"],
        ),
        (
            s(&["sessions", "run", &sessions(1, "docs_per_topic = 100", "docs_per_topic = 1000001"), "--out", &out]),
            vec!["collection.generator.docs_per_topic", "1000001", "upper bound of 1000000"],
        ),
        (
            s(&["sessions", "run", &sessions(2, "queries_per_strategy = 2", "queries_per_strategy = 10001"), "--out", &out]),
            vec!["collection.generator.queries_per_strategy", "10001", "upper bound of 10000"],
        ),
        (
            s(&["sessions", "run", &sessions(3, "topics = 2\n", "topics = 9223372036854775807\n"), "--out", &out]),
            vec!["collection.generator.topics", "9223372036854775807", "upper bound of 100000"],
        ),
    ];
    for (args, wanted) in cases {
        let t0 = std::time::Instant::now();
        let o = bin().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        for w in wanted {
            assert!(err.contains(w), "{args:?}: `{w}` missing from: {err}");
        }
        assert!(t0.elapsed().as_secs() < 30, "{args:?}: took {:?}", t0.elapsed());
    }
}

/// Entries beside each of `outputs` that belong to no output: this run's or a killed run's
/// temporary files (`.NAME.serpsim-tmp-PID`) and those of earlier versions (`.NAME.tmpPID`).
fn file_leftovers(outputs: &[PathBuf]) -> Vec<String> {
    let mut v = Vec::new();
    for out in outputs {
        let name = out.file_name().unwrap().to_string_lossy().into_owned();
        for e in std::fs::read_dir(out.parent().unwrap()).unwrap() {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            if n.starts_with(&format!(".{name}.")) {
                v.push(n);
            }
        }
    }
    v.sort();
    v.dedup();
    v
}

/// The bytes of every output (None where absent).
fn contents(outputs: &[PathBuf]) -> Vec<Option<Vec<u8>>> {
    outputs.iter().map(|p| std::fs::read(p).ok()).collect()
}

/// Kills a command that writes the separate files `outputs` (one set: `args(variant)` for
/// variants 0 and 1 give different bytes in every file) at several moments, with SIGKILL and
/// SIGINT. After each kill the files are the complete set of variant 0 or of variant 1, never a
/// mix; after Ctrl-C no file of the interrupted run is left; the next complete run leaves no
/// temporary file, also removing one of an earlier serpsim version (`.NAME.tmpPID`).
fn kill_file_set_at_several_points(args: &dyn Fn(usize) -> Vec<String>, outputs: &[PathBuf]) {
    let run_to_end = |variant: usize| {
        let o = bin().args(args(variant)).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        contents(outputs)
    };
    let sets = [
        run_to_end(0),
        {
            let t0 = std::time::Instant::now();
            let set = run_to_end(1);
            (set, t0.elapsed())
        }
        .0,
    ];
    // Time a whole run again (the second one above also served to build set 1).
    let t0 = std::time::Instant::now();
    assert_eq!(run_to_end(1), sets[1]);
    let whole = t0.elapsed();
    for (a, b) in sets[0].iter().zip(&sets[1]) {
        assert!(a.is_some() && a != b, "every file must differ between the variants, or a mix could not be seen");
    }
    let mut state = 1;
    let mut seen_old = false;
    for (sig, fraction) in KILL_POINTS.into_iter().chain([(libc::SIGKILL, 0.99), (libc::SIGINT, 0.99)]) {
        let next = 1 - state;
        let (status, err, pid) = signalled(bin().args(args(next)), whole.mul_f64(fraction), sig);
        let now = contents(outputs);
        let got = sets.iter().position(|s| *s == now).unwrap_or_else(|| panic!("signal {sig} at {fraction}: a mix of two runs' files"));
        if status.success() {
            assert_eq!(got, next, "the run ended before the signal: its set");
        } else if sig == libc::SIGINT {
            check_interrupted(status, &err, pid, file_leftovers(outputs));
        }
        seen_old |= got == state && !status.success();
        state = got;
    }
    assert!(seen_old, "every run finished before its signal; the kill points are too late");
    // A temporary file of an earlier serpsim version, of a process that no longer runs.
    let legacy = outputs[0].parent().unwrap().join(format!(".{}.tmp999999999", outputs[0].file_name().unwrap().to_string_lossy()));
    std::fs::write(&legacy, "x").unwrap();
    assert_eq!(run_to_end(0), sets[0]);
    assert_eq!(file_leftovers(outputs), Vec::<String>::new(), "the next run removes what killed runs left");
}

#[test]
fn killed_clicks_simulate_leaves_the_old_or_the_new_file() {
    let dir = tempfile::tempdir().unwrap();
    // 2,000 SERPs of 10 documents (TSV session layout), simulated 150 times each.
    let mut log = String::from("session_id\tquery\tdocuments\tclicks\n");
    for i in 0..2000 {
        let docs: Vec<String> = (0..10).map(|k| format!("d{}", (i * 7 + k * 13) % 500)).collect();
        log += &format!("{i}\tq{}\t{}\t{}\n", i % 50, docs.join(","), ["0"; 10].join(","));
    }
    let serps = dir.path().join("serps.tsv");
    std::fs::write(&serps, log).unwrap();
    let model = dir.path().join("m.json");
    let o = bin().args(["clicks", "fit", "--model", "sdbn", "--format", "tsv", "--train"]).arg(&serps).arg("--out").arg(&model).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = dir.path().join("sim.tsv");
    let args = |variant: usize| -> Vec<String> {
        let mut a: Vec<String> = ["clicks", "simulate", "--format", "tsv", "--replicates", "150", "--quiet"].iter().map(|s| s.to_string()).collect();
        a.extend(["--model-file".into(), model.display().to_string(), "--serps".into(), serps.display().to_string()]);
        a.extend(["--seed".into(), (variant + 1).to_string(), "--out".into(), out.display().to_string()]);
        a
    };
    kill_file_set_at_several_points(&args, std::slice::from_ref(&out));
}

#[test]
fn killed_eval_with_compare_and_agreement_leaves_one_set() {
    let dir = tempfile::tempdir().unwrap();
    // 300 topics, three runs of 100 documents; grades and scores from a fixed hash.
    let h = |a: u64, b: u64| (a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)).rotate_left(17) % 1000;
    let mut qrels = String::new();
    for t in 0..300u64 {
        for d in 0..100u64 {
            qrels += &format!("{t} 0 d{d} {}\n", u64::from(h(t, d) < 150) + u64::from(h(t, d) < 50));
        }
    }
    std::fs::write(dir.path().join("qrels"), qrels).unwrap();
    let mut runs = Vec::new();
    for r in 0..3u64 {
        let mut run = String::new();
        for t in 0..300u64 {
            let mut docs: Vec<(u64, u64)> = (0..100u64).map(|d| (h(t * 7 + r, d + 1000) + 200 * u64::from(h(t, d) < 150) * r, d)).collect();
            docs.sort_by(|a, b| b.cmp(a));
            for (rank, (score, d)) in docs.iter().enumerate() {
                run += &format!("{t} Q0 d{d} {} {score} run{r}\n", rank + 1);
            }
        }
        let p = dir.path().join(format!("run{r}"));
        std::fs::write(&p, run).unwrap();
        runs.push(p.display().to_string());
    }
    let outs = [dir.path().join("eval.csv"), dir.path().join("compare.csv"), dir.path().join("agreement.csv")];
    let args = |variant: usize| -> Vec<String> {
        let measures: &[&str] = if variant == 0 { &["-m", "map", "-m", "P.10", "-m", "ndcg"] } else { &["-m", "map", "-m", "P.5", "-m", "recip_rank"] };
        let mut a = vec!["eval".to_string(), dir.path().join("qrels").display().to_string()];
        a.extend(runs.iter().cloned());
        a.extend(measures.iter().map(|s| s.to_string()));
        a.extend(["--resamples".into(), "20000".into(), "--threads".into(), "1".into()]);
        a.extend(["-o".into(), outs[0].display().to_string(), "--compare".into(), outs[1].display().to_string()]);
        a.extend(["--agreement".into(), outs[2].display().to_string()]);
        a
    };
    kill_file_set_at_several_points(&args, &outs);
}

/// Spill files of the parse-once store (`.serpsim-sessions-PID-N.bin`) under `tmp`.
fn spill_files(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.starts_with(".serpsim-sessions-")).collect()
}

#[test]
fn a_killed_fit_that_spills_leaves_no_spill_file() {
    // Issue 42: a SIGKILLed `clicks fit` whose kept sessions went to the spill file left
    // `.serpsim-sessions-PID-N.bin` in TMPDIR for good. A project-made log (`clicks
    // generate`), a budget of 0 (every session spilled), no sharding, many EM passes: the fit
    // is killed once its spill file is open (seen in /proc/PID/fd), and TMPDIR must then hold
    // no spill file.
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let log = dir.path().join("log.txt").display().to_string();
    let o = bin().args(["--quiet", "clicks", "generate", "--sessions", "300000", "--queries", "2000", "--docs", "20000", "--out", &log]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let model = dir.path().join("m.json").display().to_string();
    let args = [
        "--quiet",
        "clicks",
        "fit",
        "--model",
        "dbn",
        "--train",
        &log,
        "--memory-budget",
        "0",
        "--shards",
        "0",
        "--iterations",
        "1000",
        "--tolerance",
        "0",
        "--out",
        &model,
    ];
    let mut child = bin().args(args).env("TMPDIR", &tmp).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let fd_dir = PathBuf::from(format!("/proc/{}/fd", child.id()));
    let t0 = std::time::Instant::now();
    let spilling = loop {
        let open = std::fs::read_dir(&fd_dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| std::fs::read_link(e.path()).is_ok_and(|t| t.to_string_lossy().contains(".serpsim-sessions-")));
        if open || t0.elapsed() > Duration::from_secs(60) || child.try_wait().unwrap().is_some() {
            break open;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // SAFETY: sending a signal to our own child process by its pid.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGKILL);
    }
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(spilling, "the fit never opened a spill file (exit {status:?}): {err}");
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{err}");
    assert_eq!(spill_files(&tmp), Vec::<String>::new(), "a killed fit left its spill file");
    // A spill file left by a process that no longer runs (a kill between creating and
    // unlinking it, or an earlier version) is removed by the next fit that keeps sessions.
    let stale = tmp.join(format!(".serpsim-sessions-{}-0.bin", child.id()));
    std::fs::write(&stale, b"left by a killed run").unwrap();
    let o = bin()
        .args(["--quiet", "clicks", "fit", "--model", "dbn", "--train", &log, "--memory-budget", "0", "--shards", "0", "--iterations", "2", "--out", &model])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(spill_files(&tmp), Vec::<String>::new(), "the stale spill file was not removed");
}
