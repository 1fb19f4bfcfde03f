//! Numbers and counts as serpsim prints them (issue 40): budgets in labels from their decimal
//! value, `serpsim eval` under the 10-significant-digit rule, and the posterior's progress
//! never counting past its total.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

fn serpsim(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_serpsim")).args(args).current_dir(cwd).output().expect("serpsim runs")
}

/// Significant digits of a decimal number as written (`0.4160000000000001` has 16).
fn significant_digits(token: &str) -> usize {
    let mantissa = token.split(['e', 'E']).next().unwrap_or("");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let trimmed = digits.trim_start_matches('0');
    // Trailing zeros of an integer part are not significant to this rule either.
    let trimmed = if mantissa.contains('.') { trimmed } else { trimmed.trim_end_matches('0') };
    trimmed.len()
}

/// Every number in `text` (a token of digits, dots, signs and exponent).
fn numbers(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-'))
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()) && t.parse::<f64>().is_ok())
        .collect()
}

const QRELS: &str = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n";
const RUN_A: &str = "1 Q0 a 1 3.0 A\n1 Q0 b 2 2.0 A\n1 Q0 c 3 1.0 A\n2 Q0 e 1 2.0 A\n2 Q0 d 2 1.0 A\n";
const RUN_B: &str = "1 Q0 b 1 3.0 B\n1 Q0 c 2 2.0 B\n1 Q0 a 3 1.0 B\n2 Q0 d 1 2.0 B\n2 Q0 e 2 1.0 B\n";

#[test]
fn budget_labels_read_as_their_decimal_value() {
    // A 61-point time grid to 500 s: step 500 / 60 = 8.333333333333334 in f64, so the grid's
    // largest point is 8.333333333333334 * 60 = 500.00000000000006 and the default budgets
    // (a quarter, a half and all of it) are 125.00000000000001, 250.00000000000003 and
    // 500.00000000000006 (worked out with Python's floats: `500/60*60/4`). At 10 significant
    // digits (README, "Numbers in every CSV and JSON file") they read 125, 250 and 500.
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("qrels.txt", QRELS), ("run_a.txt", RUN_A), ("run_b.txt", RUN_B)] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let scenario = r#"
name = "budgets"
seed = 3
replicates = 50
[collection]
source = "trec"
qrels = "qrels.txt"
runs = ["run_a.txt", "run_b.txt"]
[[profiles]]
name = "u"
continuation = { model = "rbp", p = 0.7 }
[report]
time_grid = { max = 500, points = 61 }
effort_grid = { max = 500, points = 61 }
"#;
    std::fs::write(dir.path().join("s.toml"), scenario).unwrap();
    let r = serpsim(&["simulate", "s.toml", "--out", "o", "--threads", "1"], dir.path());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let verdict = std::fs::read_to_string(dir.path().join("o/verdict.csv")).unwrap();
    for label in ["gain_by_125s", "gain_by_250s", "gain_by_500s", "gain_by_effort_125", "gain_by_effort_250", "gain_by_effort_500"] {
        assert!(verdict.contains(label), "{label} missing from verdict.csv:\n{verdict}");
    }
    for file in ["verdict.csv", "tests.csv", "answer.txt", "summary.json"] {
        let Ok(text) = std::fs::read_to_string(dir.path().join("o").join(file)) else { continue };
        assert!(!text.contains("00000000000"), "{file} has a raw float: {text}");
    }
}

#[test]
fn eval_numbers_have_at_most_ten_significant_digits() {
    // The bundled trec_eval test files: map of STANDARD is 0.4311579402275017 as an f64 (the
    // old CSV printed it so), 0.4311579402 at 10 significant digits (README's rule).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (q, r) = ("study_logs/trec/qrels.test", "study_logs/trec/results.test");
    for format in ["csv", "json"] {
        let out = serpsim(&["eval", q, r, "-q", "--format", format], root);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        for n in numbers(&text) {
            assert!(significant_digits(n) <= 10, "{format}: {n} has more than 10 significant digits");
        }
        assert!(text.contains("0.4311579402"), "{format}: map of STANDARD missing:\n{}", &text[..text.len().min(2000)]);
    }
    // --format trec keeps trec_eval's layout: `%6.4f` (four decimals) for every real value.
    let out = serpsim(&["eval", q, r, "--format", "trec"], root);
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        let value = line.rsplit('\t').next().unwrap();
        if value.contains('.') && value.trim().parse::<f64>().is_ok() {
            assert_eq!(value.trim().split('.').nth(1).unwrap().len(), 4, "{line}");
        }
    }
    // --ci (CSV and JSON) too.
    for format in ["csv", "json"] {
        let out = serpsim(&["eval", q, r, "--ci", "-m", "map", "--resamples", "200", "--format", format], root);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        for n in numbers(&text) {
            assert!(significant_digits(n) <= 10, "--ci {format}: {n} has more than 10 significant digits");
        }
    }
}

#[test]
fn significant_digits_counts_as_written() {
    // Hand-counted.
    assert_eq!(significant_digits("0.4160000000000001"), 16);
    assert_eq!(significant_digits("0.416"), 3);
    assert_eq!(significant_digits("125"), 3);
    assert_eq!(significant_digits("1.5e-7"), 2);
}

#[test]
fn posterior_progress_reaches_its_total_and_never_passes_it() {
    use serpsim::clickmodels::gibbs::GibbsConfig;
    use serpsim::clickmodels::posterior::{posterior, PosteriorConfig};
    use serpsim::clickmodels::prior::PriorScope;
    use serpsim::clickmodels::ModelKind;
    use serpsim::logs::{Format, LogData};
    let mut text = String::new();
    for q in 0..6 {
        for rep in 0..4 {
            let clicked = if (q + rep) % 3 == 0 { "d1" } else { "" };
            text.push_str(&format!("q{q}\td0,d1,d2 : {clicked}\n"));
        }
    }
    let data = LogData::parse(&text, Format::Yandex, "x", false).unwrap();
    let sampler = GibbsConfig { chains: 2, warmup: 30, draws: 50, thin: 2, seed: 1, prior_rounds: 3, prior_sweeps: 4 };
    // Sweeps by hand from the sampler's loops (src/clickmodels/gibbs.rs `sample_with_queries`):
    // a fitted prior first runs max(prior_rounds, 1) * prior_sweeps Monte-Carlo EM sweeps, then
    // each chain warmup + draws * thin sweeps: 3 * 4 + 2 * (30 + 50 * 2) = 272. Without a fitted
    // prior, 260; with prior_rounds 0 the sampler still runs one round: 4 + 260 = 264. The
    // Python job's old total left the 12 EM sweeps out (260), and its count passed it.
    for (prior, rounds, expected) in [(PriorScope::Global, 3, 272), (PriorScope::Uniform, 3, 260), (PriorScope::Global, 0, 264)] {
        let cfg = PosteriorConfig { prior, sampler: GibbsConfig { prior_rounds: rounds, ..sampler }, ..PosteriorConfig::default() };
        assert_eq!(cfg.sweeps(ModelKind::Pbm), Some(expected), "{prior:?}, {rounds} rounds");
        let done = AtomicU64::new(0);
        let max_seen = AtomicU64::new(0);
        posterior(ModelKind::Pbm, &data.log, data.vocab.pair_count(), &cfg, &|n| {
            let d = done.fetch_add(n, Ordering::Relaxed) + n;
            max_seen.fetch_max(d, Ordering::Relaxed);
        })
        .unwrap();
        assert!(max_seen.load(Ordering::Relaxed) <= expected, "{prior:?}: counted past the total");
        assert_eq!(done.load(Ordering::Relaxed), expected, "{prior:?}, {rounds} rounds: the count ends at its total");
    }
    // A conjugate posterior (CM) samples nothing: no total, no count.
    let cfg = PosteriorConfig { prior: PriorScope::Global, ..PosteriorConfig::default() };
    assert_eq!(cfg.sweeps(ModelKind::Cm), None);
}
