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
//! | `summary.json` | settings, warnings and the verdict and tests tables as lists of flat records (with `full`: every table, and histograms) |
//! | `answer.txt` | the short answer the command line prints |
//! | `distributions.svg`, `gain_curves.svg` | ECDFs; gain over time and effort with 95 % bands over topics and users |
//! | `differences.svg` | forest plot per profile and pair: each topic's gain difference A - B with its interval over users, sorted, and the mean over topics with its interval over topics and users |
//! | `samples.csv` | every session (with `[output] samples = true`), streamed to disk |

mod files;
mod plot;
pub mod calibration;
pub mod verdict;

use crate::write::{Format, RecordWriter};
pub use files::Staged;
pub use verdict::{answer, summary_warnings, topic_tests, verdict, Role, TopicTest, Verdict, VerdictMeasure};

use crate::error::{Error, Result};
use crate::scenario::{Detail, Loaded, Scenario, ScenarioRun};
use crate::simulate::summary::{DiffSummary, Grid, PairSummary};
use crate::simulate::{Plan, ReportSink, RunSummary, SinkConfig, MEASURES};
use crate::stats::Sketch;
use serde::Serialize;

/// The first of `1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k` at or above `x`.
pub fn nice_ceil(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(x.log10().floor());
    for m in [1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0] {
        if m * p >= x * (1.0 - 1e-12) {
            return m * p;
        }
    }
    10.0 * p
}

/// Collects time and effort of every session (for the pilot).
struct Pilot(std::sync::Mutex<(Sketch, Sketch)>);

impl crate::simulate::Sink for Pilot {
    type Acc = (Sketch, Sketch);
    fn start(&self, _: &crate::simulate::Unit) -> Self::Acc {
        (Sketch::default(), Sketch::default())
    }
    fn record(&self, acc: &mut Self::Acc, r: &crate::simulate::Record) {
        for o in r.outcomes.iter().flatten() {
            acc.0.add(o.time);
            acc.1.add(o.effort);
        }
    }
    fn finish(&self, _: &crate::simulate::Unit, acc: Self::Acc) -> Result<()> {
        let mut g = self.0.lock().expect("no panics while locked");
        g.0.merge(&acc.0);
        g.1.merge(&acc.1);
        Ok(())
    }
}

/// The largest hard budget of the profiles on one axis, if every profile has a fixed one.
fn budget_max(loaded: &Loaded, effort: bool) -> Option<f64> {
    let mut max: f64 = 0.0;
    for p in &loaded.prepared {
        let b = if effort { &p.profile.budget.effort } else { &p.profile.budget.seconds };
        max = max.max(b.as_ref()?.fixed()?);
    }
    (max > 0.0 && max.is_finite()).then_some(max)
}

/// Most sessions a pilot simulates (users x topics x systems x profiles).
pub const PILOT_SESSIONS: u64 = 100_000;

/// Users of the pilot: the run's first users, at most 500, and no more than keep the pilot
/// within [`PILOT_SESSIONS`] sessions over `cells` (topic, system, profile) cells (at least one
/// user). A 99th percentile from 100,000 sessions is well determined, and a sweep of many
/// profiles no longer simulates its whole run twice.
pub fn pilot_users(replicates: u64, cells: u64) -> u64 {
    replicates.min(500).min((PILOT_SESSIONS / cells.max(1)).max(1))
}

/// The grids and budgets of the report: from `[report]`, else the profiles' budgets, else a
/// pilot of the run's first users ([`pilot_users`]; deterministic: the same users as the run).
pub fn grids(scenario: &Scenario, loaded: &Loaded) -> Result<(Grid, Grid, Vec<f64>, Vec<f64>)> {
    let spec = &scenario.report;
    let need_pilot = (spec.time_grid.is_none() && budget_max(loaded, false).is_none())
        || (spec.effort_grid.is_none() && budget_max(loaded, true).is_none());
    let (mut t99, mut e99) = (1.0, 1.0);
    if need_pilot {
        let cells = (loaded.prepared.len() * loaded.world.topics.len() * loaded.world.systems.len()).max(1) as u64;
        let plan = Plan { world: &loaded.world, profiles: &loaded.prepared, users: pilot_users(scenario.replicates, cells), seed: scenario.seed, block: None };
        let pilot = Pilot(std::sync::Mutex::new((Sketch::default(), Sketch::default())));
        crate::simulate::run(&plan, &pilot, &|_, _| {})?;
        let (t, e) = pilot.0.into_inner().expect("no panics while locked");
        t99 = nice_ceil(t.quantile(0.99));
        e99 = nice_ceil(e.quantile(0.99));
    }
    let time = match spec.time_grid {
        Some(g) => Grid::to(g.max, g.points),
        None => Grid::to(budget_max(loaded, false).unwrap_or(t99), 61),
    };
    let effort = match spec.effort_grid {
        Some(g) => Grid::to(g.max, g.points),
        None => Grid::to(budget_max(loaded, true).unwrap_or(e99), 61),
    };
    let default_budgets = |g: &Grid| vec![g.max() / 4.0, g.max() / 2.0, g.max()];
    let tb = spec.time_budgets.clone().unwrap_or_else(|| default_budgets(&time));
    let eb = spec.effort_budgets.clone().unwrap_or_else(|| default_budgets(&effort));
    Ok((time, effort, tb, eb))
}

/// Simulates a loaded scenario and writes its report into `[output] dir`.
pub fn run_and_write(scenario: &Scenario, loaded: &Loaded, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<ScenarioRun> {
    let mut staged = stage(scenario, "simulate")?;
    let (summary, rendered) = run_into(scenario, loaded, &mut staged, progress)?;
    let written = staged.commit()?;
    Ok(ScenarioRun { written, summary, answer: rendered.answer, warnings: rendered.warnings })
}

/// Stages the output directory of `scenario` for `command`; the manifest records the seed and
/// the hash of the scenario as run (after command-line overrides), with `[output] dir` left
/// empty: where the output goes does not change it, so the manifest does not depend on it.
pub fn stage(scenario: &Scenario, command: &str) -> Result<Staged> {
    let mut hashed = scenario.clone();
    hashed.output.dir = std::path::PathBuf::new();
    // The manifest hashes this text: a scenario that cannot be written back is an error, not the
    // hash of an empty text.
    let text = toml::to_string(&hashed).map_err(|e| Error::Invalid(format!("scenario `{}`: cannot write it for the manifest's hash: {e}", scenario.name)))?;
    Staged::begin(&scenario.output.dir, command, Some(&text), Some(scenario.seed))
}

/// The report sink's settings for `scenario`: grids and budgets (from a deterministic pilot
/// where the scenario does not give them), quantiles per topic or pooled, the compared pairs,
/// and where to stream samples (`samples`).
pub fn sink_config(scenario: &Scenario, loaded: &Loaded, samples: Option<std::path::PathBuf>) -> Result<SinkConfig> {
    let (time_grid, effort_grid, time_budgets, effort_budgets) = grids(scenario, loaded)?;
    let cells = loaded.prepared.len() * loaded.world.topics.len() * loaded.world.systems.len();
    let per_topic = scenario.report.per_topic_quantiles.unwrap_or(cells <= 5000);
    Ok(SinkConfig { per_topic_sketches: per_topic, time_grid, effort_grid, time_budgets, effort_budgets, pairs: loaded.pairs.clone(), samples })
}

fn plan<'a>(scenario: &Scenario, loaded: &'a Loaded) -> Plan<'a> {
    Plan { world: &loaded.world, profiles: &loaded.prepared, users: scenario.replicates, seed: scenario.seed, block: None }
}

fn sink<'a>(scenario: &Scenario, loaded: &'a Loaded, samples: Option<std::path::PathBuf>) -> Result<ReportSink<'a>> {
    let names: Vec<String> = loaded.prepared.iter().map(|p| p.profile.name.clone()).collect();
    ReportSink::new(&loaded.world, names, sink_config(scenario, loaded, samples)?)
}

/// Simulates a loaded scenario and writes its report into `staged` (the caller commits).
pub fn run_into(scenario: &Scenario, loaded: &Loaded, staged: &mut Staged, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<(RunSummary, Rendered)> {
    let (summary, rendered, _) = run_into_with(scenario, loaded, staged, progress, NoSink)?;
    Ok((summary, rendered))
}

/// A sink that keeps nothing.
struct NoSink;

impl crate::simulate::Sink for NoSink {
    type Acc = ();
    fn start(&self, _: &crate::simulate::Unit) {}
    fn record(&self, _: &mut (), _: &crate::simulate::Record) {}
    fn finish(&self, _: &crate::simulate::Unit, _: ()) -> Result<()> {
        Ok(())
    }
}

/// [`run_into`], feeding `extra` the same sessions in the same pass (the sessions sweep's
/// tables): one simulation instead of two. Returns `extra` after the run.
pub fn run_into_with<S: crate::simulate::Sink>(
    scenario: &Scenario,
    loaded: &Loaded,
    staged: &mut Staged,
    progress: &(dyn Fn(u64, u64) + Sync),
    extra: S,
) -> Result<(RunSummary, Rendered, S)> {
    let parts = scenario.output.samples.then(|| staged.staging_path("samples.parts"));
    let sink = sink(scenario, loaded, parts.clone())?;
    let plan = plan(scenario, loaded);
    let both = (sink, extra);
    crate::simulate::run(&plan, &both, progress)?;
    let (sink, extra) = both;
    let summary = sink.finish_summary();
    if let Some(dir) = &parts {
        let units = crate::simulate::engine::units(&plan).len();
        staged.write_with("samples.csv", |w| {
            writeln!(w, "{}", ReportSink::samples_header())?;
            for u in 0..units {
                let part = ReportSink::part_file(dir, u);
                let mut f = std::fs::File::open(&part)?;
                std::io::copy(&mut f, w)?;
                std::fs::remove_file(&part)?;
            }
            Ok(())
        })?;
        std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let rendered = write_report(scenario, loaded, staged, &summary)?;
    Ok((summary, rendered, extra))
}

/// What a written report says besides its files: the short answer and every warning.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// The short answer (also `answer.txt`).
    pub answer: String,
    /// Warnings of the scenario and of the summary (also in `manifest.json`).
    pub warnings: Vec<String>,
}

fn write_report(scenario: &Scenario, loaded: &Loaded, staged: &mut Staged, summary: &RunSummary) -> Result<Rendered> {
    let report = Report::new(scenario, summary, &loaded.warnings);
    report.write(staged, scenario.output.plot, scenario.output.histogram_bins)?;
    for w in &report.warnings {
        staged.warn(w.clone());
    }
    Ok(Rendered { answer: report.answer, warnings: report.warnings })
}

/// The number of units of work of `scenario` (see [`crate::simulate::engine::units`]): the
/// pieces a distributed run shards.
pub fn unit_count(scenario: &Scenario, loaded: &Loaded) -> usize {
    crate::simulate::engine::units(&plan(scenario, loaded)).len()
}

/// Runs the units `range` of `scenario` (one shard of a distributed run) and returns the
/// report sink's state ([`ReportSink::state`]). Shards that together cover every unit, merged
/// by [`write_sharded`], give the report [`run_and_write`] writes. Samples are not collected.
pub fn run_shard(scenario: &Scenario, loaded: &Loaded, range: std::ops::Range<usize>, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<Vec<u8>> {
    let sink = sink(scenario, loaded, None)?;
    crate::simulate::engine::run_units(&plan(scenario, loaded), &sink, range, progress)?;
    Ok(sink.state())
}

/// Merges the states of shards ([`run_shard`]) and writes the report into `[output] dir`, as
/// [`run_and_write`] does for one process. Refuses a scenario that asks for samples (a
/// sharded run does not collect them).
pub fn write_sharded(scenario: &Scenario, loaded: &Loaded, states: &[Vec<u8>]) -> Result<ScenarioRun> {
    if scenario.output.samples {
        return Err(Error::Invalid("a sharded run does not collect per-session samples: set `[output] samples = false`".into()));
    }
    let sink = sink(scenario, loaded, None)?;
    for s in states {
        sink.merge_state(s)?;
    }
    let mut staged = stage(scenario, "simulate")?;
    let summary = sink.finish_summary();
    let rendered = write_report(scenario, loaded, &mut staged, &summary)?;
    let written = staged.commit()?;
    Ok(ScenarioRun { written, summary, answer: rendered.answer, warnings: rendered.warnings })
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
    /// The report of a run.
    pub fn new(scenario: &'a Scenario, summary: &'a RunSummary, warnings: &[String]) -> Self {
        Self::of(&scenario.name, scenario.seed, scenario.replicates, scenario.output.detail, summary, warnings)
    }

    /// The report of a run named `scenario` with `seed` and `users` per profile; `warnings` are
    /// the scenario's, the summary's are added. (The answer names no output path, so that the
    /// files do not depend on where they are written.)
    pub fn of(scenario: &'a str, seed: u64, users: u64, detail: Detail, summary: &'a RunSummary, warnings: &[String]) -> Self {
        let mut warnings = warnings.to_vec();
        warnings.extend(summary_warnings(summary));
        let verdicts: Vec<Verdict> = summary.pooled_pairs.iter().map(verdict).collect();
        let answer = answer(scenario, users, &verdicts, &warnings);
        Report { scenario, seed, users, warnings, measures: &MEASURES, tests: topic_tests(summary), verdicts, summary, detail, answer }
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
                        w.row(&StatsRow { topic: None, system: &c.system, profile: &c.profile, measure: MEASURES[m].name, unit: Some(MEASURES[m].unit), stats: st })?;
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
                            w.row(&StatsRow { topic: Some(c.topic.as_deref()), system: &c.system, profile: &c.profile, measure: MEASURES[m].name, unit: None, stats: st })?;
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
                                w.row(&HistogramRow { system: &p.summary.system, profile: &p.summary.profile, measure: MEASURES[m].name, bin, low, high, count })?;
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
    pub fn write(&self, out: &mut Staged, plot: bool, bins: usize) -> Result<()> {
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
                    let mut rw = RecordWriter::with_columns(w, Format::Csv, cols.clone());
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
            writeln!(w, "\"tables\": {{")?;
            let json: Vec<(&Table, &Vec<String>)> = tables.iter().zip(&columns).filter(|(t, _)| t.json).collect();
            for (i, (t, cols)) in json.iter().enumerate() {
                write!(w, "{}: ", text(&t.name))?;
                let mut rw = RecordWriter::with_columns(w, Format::Json, cols.to_vec());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_numbers() {
        assert_eq!(nice_ceil(0.7), 0.8);
        assert_eq!(nice_ceil(13.0), 15.0);
        assert_eq!(nice_ceil(240.0), 250.0);
        assert_eq!(nice_ceil(300.0), 300.0);
        assert_eq!(nice_ceil(801.0), 1000.0);
    }

    /// Shards merged in any order give the summary of one run over every unit (the reference
    /// is the single-process `run_into` path: `ReportSink` fed by `simulate::run`).
    #[test]
    fn sharded_states_merge_into_the_single_run() {
        let mut scenario = Scenario::embedded_default();
        scenario.replicates = 700;
        scenario.seed = 3;
        let loaded = scenario.load(std::path::Path::new(".")).unwrap();
        let whole = sink(&scenario, &loaded, None).unwrap();
        crate::simulate::run(&plan(&scenario, &loaded), &whole, &|_, _| {}).unwrap();
        // Compared through Debug: NaN fields (e.g. quantiles of an empty budget sketch) print
        // alike, while `==` would call them different.
        let want = format!("{:?}", whole.finish_summary());
        let n = unit_count(&scenario, &loaded);
        assert!(n > 10, "{n} units");
        let shards: Vec<Vec<u8>> = [0..3, 3..n / 2, n / 2..n].into_iter().map(|r| run_shard(&scenario, &loaded, r, &|_, _| {}).unwrap()).collect();
        for order in [[0, 1, 2], [2, 0, 1]] {
            let merged = sink(&scenario, &loaded, None).unwrap();
            for i in order {
                merged.merge_state(&shards[i]).unwrap();
            }
            assert_eq!(format!("{:?}", merged.finish_summary()), want);
        }
        // A missing shard changes the summary; a damaged state is refused whole.
        let partial = sink(&scenario, &loaded, None).unwrap();
        partial.merge_state(&shards[0]).unwrap();
        partial.merge_state(&shards[2]).unwrap();
        assert_ne!(format!("{:?}", partial.finish_summary()), want);
        let damaged = sink(&scenario, &loaded, None).unwrap();
        assert!(damaged.merge_state(&shards[1][..shards[1].len() - 1]).is_err());
        assert!(damaged.merge_state(b"not a state").is_err());
    }
}
