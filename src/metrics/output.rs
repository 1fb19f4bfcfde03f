//! Writing an [`Evaluation`]: CSV, JSON, trec_eval's three columns, and system-ranking agreement.

use super::eval::Evaluation;
use crate::report::csv_field;
use crate::stats::correlation::{kendall_tau_a, kendall_tau_b, pearson, spearman, tau_ap, tau_gap};
use serde::Serialize;
use std::fmt::Write;

/// A float as text: shortest round-trip decimal, in exponent form when very small or large.
pub fn fmt_f64(v: f64) -> String {
    if v != 0.0 && v.is_finite() && (v.abs() < 1e-5 || v.abs() >= 1e15) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// CSV with header `run,metric,topic,value`; per-topic rows (if asked) then `all` (the mean).
pub fn to_csv(e: &Evaluation, per_topic: bool) -> String {
    let mut out = String::from("run,metric,topic,value\n");
    for (r, run) in e.runs.iter().enumerate() {
        for (m, metric) in e.metrics.iter().enumerate() {
            if per_topic {
                for (t, topic) in e.topics.iter().enumerate() {
                    if let Some(v) = e.values[r][m][t] {
                        let _ = writeln!(out, "{},{},{},{}", csv_field(run), csv_field(metric), csv_field(topic), fmt_f64(v));
                    }
                }
            }
            let _ = writeln!(out, "{},{},all,{}", csv_field(run), csv_field(metric), fmt_f64(e.aggregate(r, m)));
        }
    }
    out
}

#[derive(Serialize)]
struct JsonMetric<'a> {
    metric: &'a str,
    all: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    per_topic: Option<Vec<(&'a str, f64)>>,
}

#[derive(Serialize)]
struct JsonRun<'a> {
    run: &'a str,
    topics_evaluated: usize,
    dropped_topics: usize,
    metrics: Vec<JsonMetric<'a>>,
}

/// JSON: a list of runs, each with its metrics' means (`all`, null when no topic was
/// evaluated) and, if asked, `[topic, value]` pairs.
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
                .metrics
                .iter()
                .enumerate()
                .map(|(m, metric)| JsonMetric {
                    metric,
                    all: Some(e.aggregate(r, m)).filter(|v| v.is_finite()),
                    per_topic: per_topic.then(|| {
                        e.topics
                            .iter()
                            .enumerate()
                            .filter_map(|(t, id)| e.values[r][m][t].map(|v| (id.as_str(), v)))
                            .collect()
                    }),
                })
                .collect(),
        })
        .collect();
    serde_json::to_string_pretty(&runs).expect("plain data serialises") + "\n"
}

fn trec_line(out: &mut String, measure: &str, topic: &str, v: f64, count: bool) {
    if count {
        let _ = writeln!(out, "{measure:<22}\t{topic}\t{}", v.round() as i64);
    } else {
        let _ = writeln!(out, "{measure:<22}\t{topic}\t{v:.4}");
    }
}

/// trec_eval's output: `measure<TAB>topic<TAB>value`, 4 decimals (counts as integers);
/// per run, the per-topic lines (if asked, topic by topic), then `runid all NAME`,
/// `num_q all N` and the `all` lines.
pub fn to_trec(e: &Evaluation, per_topic: bool) -> String {
    let mut out = String::new();
    for (r, run) in e.runs.iter().enumerate() {
        if per_topic {
            for (t, topic) in e.topics.iter().enumerate() {
                for (m, metric) in e.metrics.iter().enumerate() {
                    if let Some(v) = e.values[r][m][t] {
                        trec_line(&mut out, metric, topic, v, e.is_count[m]);
                    }
                }
            }
        }
        let _ = writeln!(out, "{:<22}\tall\t{run}", "runid");
        let _ = writeln!(out, "{:<22}\tall\t{}", "num_q", e.topics_evaluated(r));
        for (m, metric) in e.metrics.iter().enumerate() {
            trec_line(&mut out, metric, "all", e.aggregate(r, m), e.is_count[m]);
        }
    }
    out
}

/// Agreement between the system rankings two metrics induce (run means).
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

/// Correlations between the run rankings of every ordered pair of metrics (needs >= 2 runs).
pub fn ranking_agreement(e: &Evaluation) -> Vec<RankingAgreement> {
    let means: Vec<Vec<f64>> = (0..e.metrics.len()).map(|m| (0..e.runs.len()).map(|r| e.mean(r, m)).collect()).collect();
    let mut rows = Vec::new();
    for a in 0..e.metrics.len() {
        for b in 0..e.metrics.len() {
            if a == b {
                continue;
            }
            let (x, y) = (&means[a], &means[b]);
            rows.push(RankingAgreement {
                metric_a: e.metrics[a].clone(),
                metric_b: e.metrics[b].clone(),
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
/// from the stream `(seed, [metric, a, b])`) for every metric and pair of runs.
/// Pairs with fewer than 2 common topics are left out.
pub fn paired_comparisons(e: &Evaluation, seed: u64, resamples: usize) -> Vec<PairedComparison> {
    use crate::stats::{bootstrap_ci, paired_t_test, wilcoxon_signed_rank};
    let mut rows = Vec::new();
    for (m, metric) in e.metrics.iter().enumerate() {
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
                    metric: metric.clone(),
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
