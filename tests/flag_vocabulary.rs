//! One flag vocabulary across the CLI (issue 43, item 5; docs/cli.md): the input log is `--log`,
//! `--format` is always the input's format (an output format is `--out-format`), `--samples` is
//! always a number of Monte-Carlo or posterior draws, and every `--out` has `-o`. The old
//! spellings (`--train`, `--serps`, `--in`, `--to`, `eval --format`, `simulate --samples`, `sublists
//! gen-log --log`) stay as hidden aliases, so scripts written for them keep working.
//!
//! The first test reads the help of every subcommand (walked from `serpsim --help`), so a new
//! command that breaks the vocabulary fails it; the second checks that an old spelling gives the
//! same output as the new one.

mod common;

use common::{root, run_ok, serpsim as bin};

fn help(path: &[String]) -> String {
    let o = bin().args(path).arg("--help").output().unwrap();
    assert!(o.status.success(), "serpsim {} --help failed", path.join(" "));
    String::from_utf8(o.stdout).unwrap()
}

/// The subcommands listed under `Commands:` of a help text (without `help`).
fn subcommands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("Commands:") {
            inside = true;
            continue;
        }
        if inside {
            if !line.starts_with("  ") {
                break;
            }
            // A command line is indented by two spaces; wrapped description lines by more.
            if line.as_bytes().get(2).is_some_and(|b| *b != b' ') {
                let name = line.split_whitespace().next().unwrap();
                if name != "help" {
                    out.push(name.to_string());
                }
            }
        }
    }
    out
}

/// Every leaf command's path and help text.
fn leaves(path: Vec<String>, out: &mut Vec<(String, String)>) {
    let text = help(&path);
    let subs = subcommands(&text);
    if subs.is_empty() {
        out.push((path.join(" "), text));
    }
    for s in subs {
        let mut p = path.clone();
        p.push(s);
        leaves(p, out);
    }
}

/// The option lines of a help text: `(short, long, rest of the line)`.
fn options(text: &str) -> Vec<(Option<char>, String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let (short, rest) =
            if t.starts_with('-') && t.as_bytes().get(1).is_some_and(|b| *b != b'-') { (t.chars().nth(1), t.get(4..).unwrap_or("")) } else { (None, t) };
        if let Some(r) = rest.strip_prefix("--") {
            let name: String = r.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
            out.push((short, name.clone(), r[name.len()..].to_string()));
        }
    }
    out
}

#[test]
fn every_command_speaks_the_one_vocabulary() {
    let mut all = Vec::new();
    leaves(Vec::new(), &mut all);
    // The walk reached the commands this test is about (a broken walk would pass vacuously).
    let names: Vec<&str> = all.iter().map(|(p, _)| p.as_str()).collect();
    for must in ["clicks fit", "clicks convert", "eval", "simulate", "compare-rankers", "sublists gen-log", "study synth"] {
        assert!(names.contains(&must), "{must} not reached: {names:?}");
    }
    let mut problems = Vec::new();
    for (path, text) in &all {
        for (short, long, rest) in options(text) {
            match long.as_str() {
                "train" | "serps" | "in" | "to" | "input" => problems.push(format!("{path}: --{long} (the input log is --log; output format --out-format)")),
                "out" if short != Some('o') => problems.push(format!("{path}: --out without -o")),
                "samples" if !rest.trim_start().starts_with('<') => {
                    problems.push(format!("{path}: --samples is a switch (--samples counts draws; write per-session rows with --write-samples)"))
                }
                _ => {}
            }
        }
        // `--format` names the input's format: its description never says "Output format".
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next() {
            if line.trim_start().starts_with("--format") {
                let desc = lines.peek().map(|l| l.trim()).unwrap_or("");
                if desc.starts_with("Output format") {
                    problems.push(format!("{path}: --format is an output format (use --out-format)"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn old_spellings_are_hidden_aliases_with_the_same_output() {
    let dir = tempfile::tempdir().unwrap();
    let log = root().join("study_logs/clicks/synthetic_yandex_layout.txt");
    let fit = |flag: &str, out_flag: &str, name: &str| {
        let out = dir.path().join(name);
        run_ok(bin().args(["--quiet", "clicks", "fit", "--model", "sdbn", flag]).arg(&log).arg(out_flag).arg(&out));
        std::fs::read(out).unwrap()
    };
    assert_eq!(fit("--train", "--out", "a.json"), fit("--log", "-o", "b.json"));

    let q = root().join("study_logs/trec/qrels.test");
    let r = root().join("study_logs/trec/results.test");
    let eval = |flag: &str| run_ok(bin().args(["eval", "-m", "map", flag, "trec"]).arg(&q).arg(&r)).stdout;
    let (old, new) = (eval("--format"), eval("--out-format"));
    assert!(String::from_utf8_lossy(&new).starts_with("map"), "trec layout expected");
    assert_eq!(old, new);

    let sim = |flag: &str, name: &str| {
        let out = dir.path().join(name);
        run_ok(bin().args(["simulate", "--quiet", "--replicates", "20", flag, "-o"]).arg(&out));
        std::fs::read(out.join("samples.csv")).unwrap()
    };
    assert_eq!(sim("--samples", "s1"), sim("--write-samples", "s2"));
}
