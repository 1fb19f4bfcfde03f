//! Writing an [`Evaluation`]: trec_eval's text (byte for byte), CSV, JSON, the `--ci` table,
//! and system-ranking agreement and paired comparisons.

use super::ci::{CiSettings, Difference, MeanInterval};
use super::eval::Evaluation;
use super::trec_eval::{Aggregate, ValueKind};
use crate::stats::correlation::{kendall_tau_a, kendall_tau_b, pearson, spearman, tau_ap, tau_gap};
use crate::write::csv_field;
use serde::Serialize;
use std::fmt::Write;

/// A float as every CSV file of serpsim writes it ([`crate::write::fmt_f64`]): at most 10
/// significant digits (`0.416`, not `0.4160000000000001`), empty when undefined.
pub fn fmt_f64(v: f64) -> String {
    crate::write::fmt_f64(v)
}

/// Pretty-printed JSON with every float rounded to 10 significant digits
/// ([`crate::write::round_sig`]), as every JSON file of serpsim writes numbers (undefined
/// floats are already `null`, serde_json's rule). Keys keep their order: the text is rewritten
/// line by line, each line holding at most one number (`to_string_pretty`'s layout).
fn rounded_json<T: Serialize>(doc: &T) -> String {
    let text = serde_json::to_string_pretty(doc).expect("plain data serialises");
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let trimmed = line.trim_start();
        // The value: after `"key": ` in an object, the whole line in an array.
        let start = if trimmed.starts_with('"') { trimmed.find("\": ").map(|i| i + 3) } else { Some(0) };
        let indent = line.len() - trimmed.len();
        let rewritten = start.and_then(|i| {
            let rest = &trimmed[i..];
            let (number, comma) = rest.strip_suffix(',').map_or((rest, ""), |n| (n, ","));
            let x: f64 = number.parse().ok().filter(|_| number.contains(['.', 'e', 'E']))?;
            let y = serde_json::to_string(&crate::write::round_sig(x)).expect("a finite float serialises");
            Some(format!("{}{}{y}{comma}", &line[..indent], &trimmed[..i]))
        });
        out.push_str(rewritten.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

/// C's `printf("%6.4f", v)` (glibc): four decimals, right-aligned in six characters, `nan`,
/// `-nan` and `inf` spelled as glibc spells them.
pub fn c_fixed4(v: f64) -> String {
    let s = if v.is_nan() {
        if v.is_sign_negative() {
            "-nan".to_string()
        } else {
            "nan".to_string()
        }
    } else if v.is_infinite() {
        if v < 0.0 {
            "-inf".to_string()
        } else {
            "inf".to_string()
        }
    } else {
        format!("{v:.4}")
    };
    format!("{s:>6}")
}

/// C's `(long) v` printed with `%ld` (truncation towards zero).
fn c_long(v: f64) -> String {
    if v.is_nan() {
        "0".to_string()
    } else {
        format!("{}", v.trunc() as i64)
    }
}

fn trec_line(out: &mut String, name: &str, topic: &str, value: &str) {
    let _ = writeln!(out, "{name:<22}\t{topic}\t{value}");
}

/// trec_eval's output for every run: with `per_topic` (`-q`), each topic's lines (topics in
/// order, measures in order), then the summary lines (`runid`, `num_q` and the `all` values),
/// exactly as trec_eval 10 prints them (`%-22s\t%s\t%6.4f`, counts as integers, `relstring`
/// quoted). `summary` false is trec_eval's `-n`.
pub fn to_trec(e: &Evaluation, per_topic: bool, summary: bool) -> String {
    let mut out = String::new();
    for (r, run) in e.runs.iter().enumerate() {
        if per_topic {
            for (t, topic) in e.topics.iter().enumerate() {
                if !e.evaluated[r][t] {
                    continue;
                }
                for (c, col) in e.columns.iter().enumerate() {
                    if !col.per_topic {
                        continue;
                    }
                    match col.kind {
                        ValueKind::Text => {
                            let s = e.texts[r][c][t].as_deref().unwrap_or("");
                            trec_line(&mut out, &col.name, topic, &format!("'{s}'"));
                        }
                        ValueKind::Long => trec_line(&mut out, &col.name, topic, &c_long(e.values[r][c][t].unwrap_or(0.0))),
                        ValueKind::Double => trec_line(&mut out, &col.name, topic, &c_fixed4(e.values[r][c][t].unwrap_or(0.0))),
                    }
                }
            }
        }
        if !summary {
            continue;
        }
        for (c, col) in e.columns.iter().enumerate() {
            match col.aggregate {
                Aggregate::None => {}
                Aggregate::RunId => trec_line(&mut out, "runid", "all", run),
                _ => {
                    let v = e.summary(r, c);
                    let text = match col.kind {
                        ValueKind::Long => c_long(v),
                        _ => c_fixed4(v),
                    };
                    trec_line(&mut out, &col.name, "all", &text);
                }
            }
        }
    }
    out
}

/// Whether a column has a numeric summary.
fn numeric(e: &Evaluation, c: usize) -> bool {
    !matches!(e.columns[c].aggregate, Aggregate::None | Aggregate::RunId)
}

/// CSV with header `run,metric,topic,value`: per-topic rows (if asked) then `all` (the
/// summary trec_eval prints). `relstring` values are quoted strings; `runid` is left out (it
/// is the `run` column).
pub fn to_csv(e: &Evaluation, per_topic: bool) -> String {
    let mut out = String::from("run,metric,topic,value\n");
    for (r, run) in e.runs.iter().enumerate() {
        for (c, col) in e.columns.iter().enumerate() {
            if col.aggregate == Aggregate::RunId {
                continue;
            }
            if per_topic && col.per_topic {
                for (t, topic) in e.topics.iter().enumerate() {
                    let value = match col.kind {
                        ValueKind::Text => e.texts[r][c][t].as_deref().map(|s| csv_field(s).into_owned()),
                        _ => e.values[r][c][t].map(fmt_f64),
                    };
                    if let Some(v) = value {
                        let _ = writeln!(out, "{},{},{},{}", csv_field(run), csv_field(&col.name), csv_field(topic), v);
                    }
                }
            }
            if numeric(e, c) {
                let _ = writeln!(out, "{},{},all,{}", csv_field(run), csv_field(&col.name), fmt_f64(e.summary(r, c)));
            }
        }
    }
    out
}

#[derive(Serialize)]
struct JsonMetric<'a> {
    metric: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    all: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    per_topic: Option<Vec<(&'a str, serde_json::Value)>>,
}

#[derive(Serialize)]
struct JsonRun<'a> {
    run: &'a str,
    topics_evaluated: usize,
    dropped_topics: usize,
    metrics: Vec<JsonMetric<'a>>,
}

/// JSON: a list of runs, each with its measures' summaries (`all`, absent when not a number)
/// and, if asked, `[topic, value]` pairs.
pub fn to_json(e: &Evaluation, per_topic: bool) -> String {
    let runs: Vec<JsonRun> = e
        .runs
        .iter()
        .enumerate()
        .map(|(r, run)| JsonRun {
            run,
            topics_evaluated: e.topics_evaluated(r),
            dropped_topics: e.dropped_topics[r],
            metrics: e
                .columns
                .iter()
                .enumerate()
                .filter(|(_, col)| col.aggregate != Aggregate::RunId)
                .map(|(c, col)| JsonMetric {
                    metric: &col.name,
                    all: Some(e.summary(r, c)).filter(|v| numeric(e, c) && v.is_finite()),
                    per_topic: (per_topic && col.per_topic).then(|| {
                        e.topics
                            .iter()
                            .enumerate()
                            .filter_map(|(t, id)| {
                                let v = match col.kind {
                                    ValueKind::Text => e.texts[r][c][t].clone().map(serde_json::Value::from),
                                    _ => e.values[r][c][t].map(serde_json::Value::from),
                                };
                                v.map(|v| (id.as_str(), v))
                            })
                            .collect()
                    }),
                })
                .collect(),
        })
        .collect();
    rounded_json(&runs)
}

/// The `--ci` table as CSV: one row per run and measure (`kind` = `mean`) and one per pair of
/// runs and measure (`kind` = `difference`, a - b, with the paired test's p-value). Every row
/// states the interval method, level, resamples and seed, and the test.
pub fn ci_csv(means: &[MeanInterval], diffs: &[Difference], s: &CiSettings) -> String {
    let mut out = String::from("kind,run,run_b,measure,topics,estimate,ci_lower,ci_upper,level,ci_method,resamples,seed,test,p_value,test_resamples\n");
    for m in means {
        let _ = writeln!(
            out,
            "mean,{},,{},{},{},{},{},{},{},{},{},,,",
            csv_field(&m.run),
            csv_field(&m.measure),
            m.topics,
            fmt_f64(m.ci.estimate),
            fmt_f64(m.ci.lower),
            fmt_f64(m.ci.upper),
            fmt_f64(m.ci.level),
            m.ci.method.name(),
            m.ci.resamples,
            s.seed
        );
    }
    for d in diffs {
        let test = match (s.test, d.test.exact) {
            (super::ci::TestKind::Randomisation, true) => "randomisation (exact)",
            (super::ci::TestKind::Randomisation, false) => "randomisation",
            (super::ci::TestKind::Bootstrap, _) => "bootstrap",
        };
        let _ = writeln!(
            out,
            "difference,{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&d.run_a),
            csv_field(&d.run_b),
            csv_field(&d.measure),
            d.topics,
            fmt_f64(d.ci.estimate),
            fmt_f64(d.ci.lower),
            fmt_f64(d.ci.upper),
            fmt_f64(d.ci.level),
            d.ci.method.name(),
            d.ci.resamples,
            s.seed,
            test,
            fmt_p(d.test.p_value),
            d.test.resamples
        );
    }
    out
}

#[derive(Serialize)]
struct CiJson<'a> {
    interval: String,
    test: &'static str,
    settings: &'a CiSettings,
    means: &'a [MeanInterval],
    differences: &'a [Difference],
}

/// The `--ci` results as JSON, with the methods described in words.
pub fn ci_json(means: &[MeanInterval], diffs: &[Difference], s: &CiSettings) -> String {
    let interval = format!(
        "{} bootstrap interval of the mean over topics, {} %, {} resamples, seed {} (scipy.stats.bootstrap definitions)",
        match s.method {
            crate::stats::bootstrap::CiMethod::Percentile => "percentile",
            crate::stats::bootstrap::CiMethod::Basic => "basic (reverse percentile)",
            crate::stats::bootstrap::CiMethod::Bca => "BCa",
        },
        fmt_f64(s.level * 100.0),
        s.resamples,
        s.seed
    );
    let doc = CiJson { interval, test: s.test.describe(), settings: s, means, differences: diffs };
    let text = rounded_json(&doc);
    // p-values in scientific notation (JSON numbers may have an exponent).
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.lines() {
        let trimmed = line.trim_start();
        match trimmed.strip_prefix("\"p_value\": ") {
            Some(rest) => {
                let (number, comma) = rest.strip_suffix(',').map_or((rest, ""), |n| (n, ","));
                let p: f64 = number.parse().expect("serde_json wrote a number");
                let _ = writeln!(out, "{}\"p_value\": {}{comma}", &line[..line.len() - trimmed.len()], fmt_p(p));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// A p-value in scientific notation with 4 significant digits (`3.125e-2`), which pandas, numpy
/// and JSON parsers read as a number.
pub fn fmt_p(p: f64) -> String {
    format!("{p:.3e}")
}

/// Agreement between the system rankings two metrics induce (run summaries).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankingAgreement {
    /// Reference metric (the "truth" of tau_AP and tau_GAP).
    pub metric_a: String,
    /// Compared metric (the "prediction").
    pub metric_b: String,
    /// Kendall tau-a.
    pub kendall_tau_a: f64,
    /// Kendall tau-b.
    pub kendall_tau_b: f64,
    /// tau_AP of b's ranking against a's scores.
    pub tau_ap: f64,
    /// tau_GAP of b's ranking against a's scores.
    pub tau_gap: f64,
    /// Spearman's rho.
    pub spearman: f64,
    /// Pearson's r.
    pub pearson: f64,
}

/// Correlations between the run rankings of every ordered pair of numeric measures (needs >= 2 runs).
pub fn ranking_agreement(e: &Evaluation) -> Vec<RankingAgreement> {
    let cols: Vec<usize> = (0..e.columns.len()).filter(|&c| numeric(e, c) && e.columns[c].aggregate != Aggregate::NumQ).collect();
    let means: Vec<Vec<f64>> = cols.iter().map(|&c| (0..e.runs.len()).map(|r| e.summary(r, c)).collect()).collect();
    let mut rows = Vec::new();
    for (a, &ca) in cols.iter().enumerate() {
        for (b, &cb) in cols.iter().enumerate() {
            if a == b {
                continue;
            }
            let (x, y) = (&means[a], &means[b]);
            rows.push(RankingAgreement {
                metric_a: e.columns[ca].name.clone(),
                metric_b: e.columns[cb].name.clone(),
                kendall_tau_a: kendall_tau_a(x, y),
                kendall_tau_b: kendall_tau_b(x, y),
                tau_ap: tau_ap(x, y),
                tau_gap: tau_gap(x, y),
                spearman: spearman(x, y),
                pearson: pearson(x, y),
            });
        }
    }
    rows
}

/// [`ranking_agreement`] as CSV.
pub fn agreement_csv(rows: &[RankingAgreement]) -> String {
    let mut out = String::from("metric_a,metric_b,kendall_tau_a,kendall_tau_b,tau_ap,tau_gap,spearman,pearson\n");
    for r in rows {
        let nums = [r.kendall_tau_a, r.kendall_tau_b, r.tau_ap, r.tau_gap, r.spearman, r.pearson].map(fmt_f64);
        let _ = writeln!(out, "{},{},{}", csv_field(&r.metric_a), csv_field(&r.metric_b), nums.join(","));
    }
    out
}

/// Paired comparison of two runs on one metric, over the topics both were scored on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedComparison {
    /// Metric label.
    pub metric: String,
    /// First run.
    pub run_a: String,
    /// Second run.
    pub run_b: String,
    /// Topics compared.
    pub topics: usize,
    /// Mean of a - b.
    pub mean_difference: f64,
    /// Two-sided paired t-test p-value.
    pub t_test_p: f64,
    /// Two-sided Wilcoxon signed-rank p-value.
    pub wilcoxon_p: f64,
    /// Lower end of the 95 % bootstrap percentile interval of the mean difference.
    pub bootstrap_lower: f64,
    /// Upper end.
    pub bootstrap_upper: f64,
}

/// Paired t-test, Wilcoxon signed-rank test and a 95 % bootstrap CI (`resamples` resamples
/// from the stream `(seed, [metric, a, b])`) for every mean-summarised metric and pair of runs.
/// Pairs with fewer than 2 common topics are left out.
pub fn paired_comparisons(e: &Evaluation, seed: u64, resamples: usize) -> Vec<PairedComparison> {
    use crate::stats::{bootstrap_ci, paired_t_test, wilcoxon_signed_rank};
    let mut rows = Vec::new();
    for (m, col) in e.columns.iter().enumerate() {
        if col.aggregate != Aggregate::Mean {
            continue;
        }
        for a in 0..e.runs.len() {
            for b in a + 1..e.runs.len() {
                let (x, y): (Vec<f64>, Vec<f64>) = e.values[a][m]
                    .iter()
                    .zip(&e.values[b][m])
                    .filter_map(|(x, y)| Some(((*x)?, (*y)?)))
                    .filter(|(x, y)| x.is_finite() && y.is_finite())
                    .unzip();
                if x.len() < 2 {
                    continue;
                }
                let mut rng = crate::rng::stream(seed, &[m as u64, a as u64, b as u64]);
                let ci = bootstrap_ci(&x, &y, 0.95, resamples, &mut rng);
                rows.push(PairedComparison {
                    metric: col.name.clone(),
                    run_a: e.runs[a].clone(),
                    run_b: e.runs[b].clone(),
                    topics: x.len(),
                    mean_difference: ci.estimate,
                    t_test_p: paired_t_test(&x, &y).p_value,
                    wilcoxon_p: wilcoxon_signed_rank(&x, &y).p_value,
                    bootstrap_lower: ci.lower,
                    bootstrap_upper: ci.upper,
                });
            }
        }
    }
    rows
}

/// [`paired_comparisons`] as CSV.
pub fn comparisons_csv(rows: &[PairedComparison]) -> String {
    let mut out = String::from("metric,run_a,run_b,topics,mean_difference,t_test_p,wilcoxon_p,bootstrap_lower,bootstrap_upper\n");
    for r in rows {
        let nums = [r.mean_difference, r.t_test_p, r.wilcoxon_p, r.bootstrap_lower, r.bootstrap_upper].map(fmt_f64);
        let _ = writeln!(out, "{},{},{},{},{}", csv_field(&r.metric), csv_field(&r.run_a), csv_field(&r.run_b), r.topics, nums.join(","));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_values_in_scientific_notation_read_back_as_numbers() {
        // Hand-checked: 4 significant digits, Rust's `e` exponent, which Python's float() and
        // JSON accept.
        for (p, text) in [(1.0, "1.000e0"), (0.03125, "3.125e-2"), (1.0 / 2001.0, "4.998e-4"), (0.0, "0.000e0")] {
            assert_eq!(fmt_p(p), text);
            let back: f64 = text.parse().unwrap();
            assert!((back - p).abs() <= 5e-4 * p.abs() + 1e-300);
            assert_eq!(serde_json::from_str::<f64>(text).unwrap(), back);
        }
    }

    #[test]
    fn c_formatting() {
        // glibc printf("%6.4f"): 0.03125 -> 0.0312 (round half to even on the exact binary
        // value), -0.0 -> -0.0000, 0.0/0.0 -> -nan on x86-64, large values not truncated.
        assert_eq!(c_fixed4(0.03125), "0.0312");
        assert_eq!(c_fixed4(-0.0), "-0.0000");
        assert_eq!(c_fixed4(-412.66666666), "-412.6667");
        assert_eq!(c_fixed4(-f64::NAN), "  -nan");
        assert_eq!(c_fixed4(f64::INFINITY), "   inf");
        assert_eq!(c_long(1500.0), "1500");
        assert_eq!(c_long(2.9), "2");
    }
}
