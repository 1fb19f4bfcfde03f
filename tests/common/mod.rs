//! Helpers shared by the command-line tests (`mod common;` in each): the binary, paths in the
//! checkout, a run that must succeed, and the small sessions sweep several tests run.
#![allow(dead_code)] // each test file uses a part

use std::path::PathBuf;
use std::process::{Command, Output};

/// The `serpsim` binary built for these tests.
pub fn serpsim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_serpsim"))
}

/// The root of the checkout.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `tests/fixtures/P`, as an argument.
pub fn fixture(p: &str) -> String {
    root().join("tests/fixtures").join(p).display().to_string()
}

/// Runs `cmd`; fails the test with its standard error unless it succeeds.
pub fn run_ok(cmd: &mut Command) -> Output {
    let o = cmd.output().expect("run serpsim");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

/// Runs `cmd`, which must succeed, and parses its standard output as JSON.
pub fn json_stdout(cmd: &mut Command) -> serde_json::Value {
    serde_json::from_slice(&run_ok(cmd).stdout).expect("JSON on standard output")
}

/// A `sessions sweep` scenario on a small synthetic query collection (3 topics, 2 query
/// strategies): `replicates` users, the first stopping rule swept over `rules` (TOML inline
/// tables) and its depth `n` over `depths` (a TOML list).
pub fn sessions_sweep(name: &str, replicates: u32, rules: &str, depths: &str) -> String {
    r#"
name = "{name}"
seed = 3
replicates = {replicates}
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
values = [{rules}]
[[sweep]]
key = "stopping[0].n"
values = {depths}
"#
    .replace("{name}", name)
    .replace("{replicates}", &replicates.to_string())
    .replace("{rules}", rules)
    .replace("{depths}", depths)
}

/// 20,000 click-log lines of about 20 bytes (Yandex-like text layout) whose lines 15,000 and
/// 17,000 are bad (space-separated, no tab): deep enough to lie in a later part of a parallel
/// read. The line numbers are known by construction.
pub fn log_with_two_bad_lines() -> String {
    let mut text = String::new();
    for i in 1..=20_000 {
        if i == 15_000 || i == 17_000 {
            text.push_str("q1 d1,d2 : d1\n");
        } else {
            text.push_str(&format!("q{}\td{},d{} : d{}\n", i % 50, i % 7, i % 7 + 1, i % 7));
        }
    }
    text
}
