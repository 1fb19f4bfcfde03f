//! The one report every front end writes: summaries of every measure, paired comparisons of
//! systems on every measure, across-topic tests, a verdict table that shows benefits and costs
//! side by side, gain over time and effort with bands, gain at fixed budgets, plots, and (on
//! request) every session. `[output] detail` (`--detail`) decides how much: `summary` (the
//! default) writes what a reader uses, `full` adds per-topic rows of every measure and
//! histograms. Every table is written from the struct that holds its rows
//! ([`crate::write::RecordWriter`]), so CSV files and `summary.json` have the same columns and
//! the one number format of [`crate::write::fmt_f64`] (undefined values are empty cells).
//!
//! | file | content |
//! |---|---|
//! | `verdict.csv` | per profile and pair: which measures favour A, which B, with every measure's difference and interval |
//! | `comparison.csv` | per profile, system pair (and with `full`, topic) and measure: means, difference with se and quantiles, P(A higher/tie/lower), P(A better) |
//! | `tests.csv` | across-topic Wilcoxon signed-rank test of per-topic means per measure: test, statistic, n, p, warning |
//! | `pooled.csv` | per system, profile and measure over all topics: n, mean, sd, se, min, quantiles, max, `exact` |
//! | `gain_curves.csv` | mean gain by time and by effort per system and profile: Monte-Carlo se (`se_users`) and the 95 % interval over topics and users (`lo_topics_users`, `hi_topics_users`) |
//! | `budgets.csv`, `budget_comparison.csv` | gain by fixed time and effort budgets, per system, and paired differences |
//! | `summary.csv` | with `full`: the statistics of `pooled.csv` per topic |
//! | `summary.json` | settings, warnings, coverage of TREC runs by their qrels, and the verdict and tests tables as lists of flat records (with `full`: every table, and histograms) |
//! | `answer.txt` | the short answer the command line prints |
//! | `distributions.svg`, `gain_curves.svg` | ECDFs; gain over time and effort with 95 % bands over topics and users |
//! | `differences.svg` | forest plot per profile and pair: each topic's gain difference A - B with its interval over users, sorted, and the mean over topics with its interval over topics and users |
//! | `samples.csv` | every session (with `[output] samples = true`), streamed to disk |
//!
//! This module only renders a run's summary ([`RunSummary`]); [`crate::run`] runs the engine
//! and calls [`write_report`].

mod files;
mod plot;
pub mod verdict;

use crate::write::{RecordWriter, TableFormat};
pub use files::StagedOutput;
pub use verdict::{answer, summary_warnings, topic_tests, verdict, Role, TopicTest, Verdict, VerdictMeasure};

use crate::collection::coverage::Coverage;
use crate::error::{Error, Result};
use crate::scenario::{Detail, Scenario};
use crate::simulate::summary::{DiffSummary, PairSummary};
use crate::simulate::{RunSummary, MEASURES};
use serde::Serialize;

/// What a written report says besides its files: the short answer and every warning.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// The short answer (also `answer.txt`).
    pub answer: String,
    /// Warnings of the scenario and of the summary (also in `manifest.json`).
    pub warnings: Vec<String>,
    /// The coverage line of TREC qrels and runs ([`Coverage::line`]), for stderr.
    pub coverage: Option<String>,
}

/// Writes the report of `summary` (a run of `scenario`; `warnings` are the loaded scenario's)
/// into `staged` and records its warnings in the manifest.
/// `coverage` (TREC qrels and runs) goes into `summary.json` and its depth warning into the
/// warnings.
pub fn write_report(
    scenario: &Scenario,
    warnings: &[String],
    staged: &mut StagedOutput,
    summary: &RunSummary,
    coverage: Option<&Coverage>,
) -> Result<Rendered> {
    let mut warnings = warnings.to_vec();
    warnings.extend(coverage.and_then(Coverage::depth_warning));
    let mut report = Report::of(&scenario.name, scenario.seed, scenario.replicates, scenario.output.detail, summary, &warnings);
    report.coverage = coverage;
    report.write(staged, scenario.output.plot, scenario.output.histogram_bins)?;
    for w in &report.warnings {
        staged.warn(w.clone());
    }
    Ok(Rendered { answer: report.answer, warnings: report.warnings, coverage: coverage.map(Coverage::line) })
}

/// Everything the report writes.
#[derive(Debug, Clone)]
pub struct Report<'a> {
    /// Scenario name.
    pub scenario: &'a str,
    /// Master seed.
    pub seed: u64,
    /// Users per profile.
    pub users: u64,
    /// Warnings of the run: the loaded scenario's, then the summary's ([`summary_warnings`]).
    pub warnings: Vec<String>,
    /// Measures and their units and directions.
    pub measures: &'static [crate::simulate::MeasureInfo],
    /// The summaries.
    pub summary: &'a RunSummary,
    /// Across-topic tests.
    pub tests: Vec<TopicTest>,
    /// Verdicts.
    pub verdicts: Vec<Verdict>,
    /// How much to write.
    pub detail: Detail,
    /// The short answer (`answer.txt`, printed by the command line).
    pub answer: String,
    /// What TREC qrels and runs cover of each other (`summary.json`'s `coverage`).
    pub coverage: Option<&'a Coverage>,
}

/// A row of `summary.csv` (per topic) and `pooled.csv` (over topics): one measure of one cell.
#[derive(Serialize)]
struct StatsRow<'r> {
    #[serde(skip_serializing_if = "Option::is_none")]
    topic: Option<Option<&'r str>>,
    system: &'r str,
    profile: &'r str,
    measure: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    unit: Option<&'static str>,
    #[serde(flatten)]
    stats: &'r crate::stats::StreamSummary,
}

/// A row of `comparison.csv` and `budget_comparison.csv`: one paired difference.
#[derive(Serialize)]
struct DiffRow<'r> {
    profile: &'r str,
    system_a: &'r str,
    system_b: &'r str,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    topic: Option<Option<&'r str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    axis: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    budget: Option<f64>,
    #[serde(flatten)]
    diff: &'r DiffSummary,
}

/// A row of `gain_curves.csv`: `se_users` is the Monte-Carlo error (users only, topics
/// fixed); `lo_topics_users`, `hi_topics_users` the 95 % interval over topics and users (empty
/// below 2 topics).
#[derive(Serialize)]
struct CurveRow<'r> {
    system: &'r str,
    profile: &'r str,
    axis: &'static str,
    x: f64,
    mean_gain: f64,
    se_users: f64,
    topics: usize,
    lo_topics_users: f64,
    hi_topics_users: f64,
}

/// A row of `budgets.csv`.
#[derive(Serialize)]
struct BudgetRow<'r> {
    system: &'r str,
    profile: &'r str,
    axis: &'static str,
    budget: f64,
    mean_gain: f64,
    se: f64,
}

/// A row of the `histograms` table of `summary.json` (with `detail = "full"`).
#[derive(Serialize)]
struct HistogramRow<'r> {
    system: &'r str,
    profile: &'r str,
    measure: &'static str,
    bin: usize,
    low: f64,
    high: f64,
    count: u64,
}

/// The rows of one table.
type Rows<'r> = Box<dyn Fn(&mut RecordWriter) -> std::io::Result<()> + 'r>;

/// One table of the report: its CSV file (if any), whether `summary.json` holds it, its rows.
struct Table<'r> {
    name: &'static str,
    csv: Option<&'static str>,
    json: bool,
    rows: Rows<'r>,
}

impl<'a> Report<'a> {
    /// The report of a run named `scenario` with `seed` and `users` per profile; `warnings` are
    /// the scenario's, the summary's are added. (The answer names no output path, so that the
    /// files do not depend on where they are written.)
    pub fn of(scenario: &'a str, seed: u64, users: u64, detail: Detail, summary: &'a RunSummary, warnings: &[String]) -> Self {
        let mut warnings = warnings.to_vec();
        warnings.extend(summary_warnings(summary));
        let verdicts: Vec<Verdict> = summary.pooled_pairs.iter().map(verdict).collect();
        let answer = answer(scenario, users, &verdicts, &warnings);
        Report { scenario, seed, users, warnings, measures: &MEASURES, tests: topic_tests(summary), verdicts, summary, detail, answer, coverage: None }
    }

    /// The tables of the report at its detail level, in the order of `summary.json`.
    fn tables(&self, bins: usize) -> Vec<Table<'_>> {
        let s = self.summary;
        let full = self.detail == Detail::Full;
        let mut t: Vec<Table<'_>> = Vec::new();
        t.push(Table {
            name: "measures",
            csv: None,
            json: true,
            rows: Box::new(move |w| {
                for m in self.measures {
                    w.row(m)?;
                }
                Ok(())
            }),
        });
        let has_pairs = !s.pooled_pairs.is_empty();
        if has_pairs {
            t.push(Table {
                name: "verdict",
                csv: Some("verdict.csv"),
                json: true,
                rows: Box::new(move |w| {
                    for v in &self.verdicts {
                        w.row(v)?;
                    }
                    Ok(())
                }),
            });
            t.push(Table {
                name: "comparison",
                csv: Some("comparison.csv"),
                json: full,
                rows: Box::new(move |w| {
                    let per_topic: &[PairSummary] = if full { &s.pairs } else { &[] };
                    for p in per_topic.iter().chain(&s.pooled_pairs) {
                        let scope = if p.topic.is_some() { "topic" } else { "pooled" };
                        for d in &p.measures {
                            let row = DiffRow {
                                profile: &p.profile,
                                system_a: &p.system_a,
                                system_b: &p.system_b,
                                scope: Some(scope),
                                topic: Some(p.topic.as_deref()),
                                axis: None,
                                budget: None,
                                diff: d,
                            };
                            w.row(&row)?;
                        }
                    }
                    Ok(())
                }),
            });
            t.push(Table {
                name: "tests",
                csv: Some("tests.csv"),
                json: true,
                rows: Box::new(move |w| {
                    for x in &self.tests {
                        w.row(x)?;
                    }
                    Ok(())
                }),
            });
        }
        t.push(Table {
            name: "pooled",
            csv: Some("pooled.csv"),
            json: full,
            rows: Box::new(move |w| {
                for p in &s.pooled {
                    let c = &p.summary;
                    for (m, st) in c.measures.iter().enumerate() {
                        w.row(&StatsRow {
                            topic: None,
                            system: &c.system,
                            profile: &c.profile,
                            measure: MEASURES[m].name,
                            unit: Some(MEASURES[m].unit),
                            stats: st,
                        })?;
                    }
                }
                Ok(())
            }),
        });
        t.push(Table {
            name: "budgets",
            csv: Some("budgets.csv"),
            json: full,
            rows: Box::new(move |w| {
                for p in &s.pooled {
                    let c = &p.summary;
                    for (axis, list) in [("time", &c.time_budgets), ("effort", &c.effort_budgets)] {
                        for &(budget, mean_gain, se) in list.iter() {
                            w.row(&BudgetRow { system: &c.system, profile: &c.profile, axis, budget, mean_gain, se })?;
                        }
                    }
                }
                Ok(())
            }),
        });
        if has_pairs {
            t.push(Table {
                name: "budget_comparison",
                csv: Some("budget_comparison.csv"),
                json: full,
                rows: Box::new(move |w| {
                    for p in &s.pooled_pairs {
                        for (axis, list, budgets) in [("time", &p.time_budgets, &s.time_budgets), ("effort", &p.effort_budgets, &s.effort_budgets)] {
                            for (d, &b) in list.iter().zip(budgets.iter()) {
                                let row = DiffRow {
                                    profile: &p.profile,
                                    system_a: &p.system_a,
                                    system_b: &p.system_b,
                                    scope: None,
                                    topic: None,
                                    axis: Some(axis),
                                    budget: Some(b),
                                    diff: d,
                                };
                                w.row(&row)?;
                            }
                        }
                    }
                    Ok(())
                }),
            });
        }
        t.push(Table {
            name: "gain_curves",
            csv: Some("gain_curves.csv"),
            json: full,
            rows: Box::new(move |w| {
                for p in &s.pooled {
                    for (axis, c) in [("time", &p.time_curve), ("effort", &p.effort_curve)] {
                        for k in 0..c.x.len() {
                            let row = CurveRow {
                                system: &p.summary.system,
                                profile: &p.summary.profile,
                                axis,
                                x: c.x[k],
                                mean_gain: c.mean[k],
                                se_users: c.se[k],
                                topics: c.topics,
                                lo_topics_users: c.lo[k],
                                hi_topics_users: c.hi[k],
                            };
                            w.row(&row)?;
                        }
                    }
                }
                Ok(())
            }),
        });
        if full {
            t.push(Table {
                name: "summary",
                csv: Some("summary.csv"),
                json: true,
                rows: Box::new(move |w| {
                    for c in &s.cells {
                        for (m, st) in c.measures.iter().enumerate() {
                            w.row(&StatsRow {
                                topic: Some(c.topic.as_deref()),
                                system: &c.system,
                                profile: &c.profile,
                                measure: MEASURES[m].name,
                                unit: None,
                                stats: st,
                            })?;
                        }
                    }
                    Ok(())
                }),
            });
            t.push(Table {
                name: "histograms",
                csv: None,
                json: true,
                rows: Box::new(move |w| {
                    for p in &s.pooled {
                        for (m, d) in p.distributions.iter().enumerate() {
                            for (bin, (low, high, count)) in histogram(d, bins).into_iter().enumerate() {
                                w.row(&HistogramRow {
                                    system: &p.summary.system,
                                    profile: &p.summary.profile,
                                    measure: MEASURES[m].name,
                                    bin,
                                    low,
                                    high,
                                    count,
                                })?;
                            }
                        }
                    }
                    Ok(())
                }),
            });
        }
        t
    }

    /// Writes every file into `out`: the CSV tables of its detail level, `summary.json` (the
    /// run's settings and warnings and its tables as lists of flat records, the columns of the
    /// CSV files) and the plots.
    pub fn write(&self, out: &mut StagedOutput, plot: bool, bins: usize) -> Result<()> {
        let tables = self.tables(bins);
        // Columns: the widest row's (a pooled comparison has the over-topics inference that a
        // per-topic one leaves undefined).
        let mut columns = Vec::with_capacity(tables.len());
        for t in &tables {
            let mut schema = RecordWriter::schema();
            (t.rows)(&mut schema).map_err(|e| Error::Invalid(format!("{}: {e}", t.name)))?;
            columns.push(schema.columns().map(<[String]>::to_vec).unwrap_or_default());
        }
        for (t, cols) in tables.iter().zip(&columns) {
            if let Some(file) = t.csv {
                out.write_with(file, |w| {
                    let mut rw = RecordWriter::with_columns(w, TableFormat::Csv, cols.clone());
                    (t.rows)(&mut rw)?;
                    rw.finish().map(|_| ())
                })?;
            }
        }
        out.write_with("summary.json", |w| {
            let text = |v: &dyn erased::Json| v.json();
            writeln!(w, "{{")?;
            writeln!(w, "\"scenario\": {},", text(&self.scenario))?;
            writeln!(w, "\"seed\": {},", self.seed)?;
            writeln!(w, "\"users\": {},", self.users)?;
            writeln!(w, "\"detail\": {},", text(&self.detail.name()))?;
            writeln!(w, "\"warnings\": {},", text(&self.warnings))?;
            if let Some(c) = self.coverage {
                writeln!(w, "\"coverage\": {},", text(c))?;
            }
            writeln!(w, "\"tables\": {{")?;
            let json: Vec<(&Table, &Vec<String>)> = tables.iter().zip(&columns).filter(|(t, _)| t.json).collect();
            for (i, (t, cols)) in json.iter().enumerate() {
                write!(w, "{}: ", text(&t.name))?;
                let mut rw = RecordWriter::with_columns(w, TableFormat::Json, cols.to_vec());
                (t.rows)(&mut rw)?;
                rw.finish()?;
                writeln!(w, "{}", if i + 1 < json.len() { "," } else { "" })?;
            }
            writeln!(w, "}}")?;
            writeln!(w, "}}")
        })?;
        out.write("answer.txt", self.answer.as_bytes())?;
        if plot {
            let rows = (self.detail != Detail::Full).then_some(plot::MAX_PROFILE_ROWS);
            out.write("distributions.svg", plot::ecdf_svg(self.summary, rows)?.as_bytes())?;
            out.write("gain_curves.svg", plot::curves_svg(self.summary, rows)?.as_bytes())?;
            if let Some(svg) = plot::differences_svg(self.summary)? {
                out.write("differences.svg", svg.as_bytes())?;
            }
        }
        Ok(())
    }
}

/// Small values as JSON text (serde_json cannot fail on these).
mod erased {
    pub trait Json {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize + ?Sized> Json for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap_or_else(|_| "null".into())
        }
    }
}

/// Equal-width histogram of sorted `(value, count)` pairs over [min, max]: `(low, high,
/// count)` per bin; one bin when every value is the same.
fn histogram(entries: &[(f64, u64)], bins: usize) -> Vec<(f64, f64, u64)> {
    let (Some(first), Some(last)) = (entries.first(), entries.last()) else { return Vec::new() };
    let (lo, hi) = (first.0, last.0);
    if lo == hi {
        let n: u64 = entries.iter().map(|e| e.1).sum();
        return vec![(lo, hi, n)];
    }
    let width = (hi - lo) / bins as f64;
    let edge = |i: usize| if i == bins { hi } else { lo + width * i as f64 };
    let mut counts = vec![0u64; bins];
    for &(x, c) in entries {
        counts[(((x - lo) / width) as usize).min(bins - 1)] += c;
    }
    counts.into_iter().enumerate().map(|(i, c)| (edge(i), edge(i + 1), c)).collect()
}
