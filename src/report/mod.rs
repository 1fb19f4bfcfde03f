//! The one report every front end writes: summaries of every measure, paired comparisons of
//! systems on every measure, across-topic tests, a verdict table that shows benefits and costs
//! side by side, gain over time and effort with bands, gain at fixed budgets, plots, and (on
//! request) every session.
//!
//! | file | content |
//! |---|---|
//! | `summary.csv` | per topic, system, profile and measure: n, mean, sd, se, min, quantiles, max, `exact` |
//! | `pooled.csv` | the same per system and profile over all topics |
//! | `comparison.csv` | per profile, system pair, topic (and `pooled`) and measure: means, difference with se and quantiles, P(A higher/tie/lower), P(A better) |
//! | `tests.csv` | across-topic Wilcoxon signed-rank test of per-topic means per measure: test, statistic, n, p, warning |
//! | `verdict.csv` | per profile and pair: which measures favour A, which B, with differences and intervals |
//! | `gain_curves.csv` | mean gain by time and by effort per system and profile: Monte-Carlo se (`se_users`) and the 95 % interval over topics and users (`lo_topics_users`, `hi_topics_users`) |
//! | `budgets.csv` | gain by fixed time and effort budgets, per system, and paired differences |
//! | `summary.json` | all of the above plus warnings |
//! | `distributions.svg`, `gain_curves.svg` | ECDFs; gain over time and effort with 95 % bands over topics and users |
//! | `differences.svg` | forest plot per profile and pair: each topic's gain difference A - B with its interval over users, sorted, and the mean over topics with its interval over topics and users |
//! | `samples.csv` | every session (with `[output] samples = true`), streamed to disk |

mod files;
mod plot;

pub use crate::write::{csv_field, fmt_p, write_atomic, write_atomic_with};
pub use files::Staged;
pub use plot::{anchored, axis_label, caption, fit, legend, plot_err, text_width, wrap, y_area, TickRange, Ticks, CAPTION_FONT, DESC_FONT, OKABE_ITO, TICK_FONT};

use crate::error::{Error, Result};
use crate::scenario::{Loaded, Scenario, ScenarioRun};
use crate::simulate::summary::{DiffSummary, Grid, PairSummary};
use crate::simulate::{Better, Plan, ReportSink, RunSummary, SinkConfig, MEASURES};
use crate::stats::{wilcoxon_signed_rank, Sketch};
use serde::Serialize;
use std::io::Write;

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

/// The grids and budgets of the report: from `[report]`, else the profiles' budgets, else a
/// pilot of up to 500 users (deterministic: the same users as the run).
pub fn grids(scenario: &Scenario, loaded: &Loaded) -> Result<(Grid, Grid, Vec<f64>, Vec<f64>)> {
    let spec = &scenario.report;
    let need_pilot = (spec.time_grid.is_none() && budget_max(loaded, false).is_none())
        || (spec.effort_grid.is_none() && budget_max(loaded, true).is_none());
    let (mut t99, mut e99) = (1.0, 1.0);
    if need_pilot {
        let plan = Plan { world: &loaded.world, profiles: &loaded.prepared, users: scenario.replicates.min(500), seed: scenario.seed, block: None };
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
    let summary = run_into(scenario, loaded, &mut staged, progress)?;
    let written = staged.commit()?;
    Ok(ScenarioRun { written, summary, warnings: loaded.warnings.clone() })
}

/// Stages the output directory of `scenario` for `command`; the manifest records the seed and
/// the hash of the scenario as run (after command-line overrides).
pub fn stage(scenario: &Scenario, command: &str) -> Result<Staged> {
    let text = toml::to_string(scenario).unwrap_or_default();
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
pub fn run_into(scenario: &Scenario, loaded: &Loaded, staged: &mut Staged, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<RunSummary> {
    let parts = scenario.output.samples.then(|| staged.staging_path("samples.parts"));
    let sink = sink(scenario, loaded, parts.clone())?;
    let plan = plan(scenario, loaded);
    crate::simulate::run(&plan, &sink, progress)?;
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
    write_report(scenario, loaded, staged, &summary)?;
    Ok(summary)
}

fn write_report(scenario: &Scenario, loaded: &Loaded, staged: &mut Staged, summary: &RunSummary) -> Result<()> {
    let report = Report::new(scenario, summary, &loaded.warnings);
    report.write(staged, scenario.output.plot, scenario.output.histogram_bins)?;
    for w in &loaded.warnings {
        staged.warn(w.clone());
    }
    Ok(())
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
    write_report(scenario, loaded, &mut staged, &summary)?;
    let written = staged.commit()?;
    Ok(ScenarioRun { written, summary, warnings: loaded.warnings.clone() })
}

/// An across-topic test of one measure for one pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicTest {
    /// Profile.
    pub profile: String,
    /// System A.
    pub system_a: String,
    /// System B.
    pub system_b: String,
    /// Measure.
    pub measure: String,
    /// Test name.
    pub test: String,
    /// Statistic (Wilcoxon's V: the sum of ranks of positive differences A - B).
    pub statistic: f64,
    /// Topics with a non-zero difference of means.
    pub n: usize,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Topics compared.
    pub topics: usize,
    /// Why the test should not be trusted, empty when there is no reason.
    pub warning: String,
}

/// One measure in a verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerdictMeasure {
    /// Measure.
    pub measure: String,
    /// Better direction.
    pub better: Better,
    /// Mean difference A - B over sessions (pooled over topics).
    pub diff: f64,
    /// 95 % interval of the mean difference (normal, sessions as pairs).
    pub ci: [f64; 2],
    /// P(A better) over paired sessions.
    pub p_a_better: f64,
    /// `a`, `b` or empty: which system the measure favours (the interval excludes 0).
    pub favours: String,
}

/// The verdict on a pair: every measure side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// Profile.
    pub profile: String,
    /// System A.
    pub system_a: String,
    /// System B.
    pub system_b: String,
    /// One sentence naming what favours each system.
    pub verdict: String,
    /// Measures favouring A.
    pub favours_a: Vec<String>,
    /// Measures favouring B.
    pub favours_b: Vec<String>,
    /// Every measure.
    pub measures: Vec<VerdictMeasure>,
}

fn fmt_num(x: f64) -> String {
    if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// The verdict of a pooled pair comparison.
pub fn verdict(p: &PairSummary) -> Verdict {
    let mut measures = Vec::new();
    let (mut fa, mut fb) = (Vec::new(), Vec::new());
    let mut describe_a = Vec::new();
    let mut describe_b = Vec::new();
    for (d, info) in p.measures.iter().zip(MEASURES.iter()) {
        let ci = [d.diff_mean - 1.96 * d.diff_se, d.diff_mean + 1.96 * d.diff_se];
        let sign = match d.better {
            Better::Higher => 1.0,
            Better::Lower => -1.0,
            Better::Neither => 0.0,
        };
        let favours = if sign != 0.0 && d.n > 1 && d.diff_se.is_finite() {
            let (lo, hi) = (ci[0] * sign, ci[1] * sign);
            let (lo, hi) = (lo.min(hi), lo.max(hi));
            if lo > 0.0 {
                "a"
            } else if hi < 0.0 {
                "b"
            } else {
                ""
            }
        } else {
            ""
        };
        let text = format!("{} {}{} {}", d.measure, if d.diff_mean >= 0.0 { "+" } else { "" }, fmt_num(d.diff_mean), info.unit);
        match favours {
            "a" => {
                fa.push(d.measure.clone());
                describe_a.push(text);
            }
            "b" => {
                fb.push(d.measure.clone());
                describe_b.push(text);
            }
            _ => {}
        }
        measures.push(VerdictMeasure { measure: d.measure.clone(), better: d.better, diff: d.diff_mean, ci, p_a_better: d.p_a_better, favours: favours.into() });
    }
    let (a, b) = (&p.system_a, &p.system_b);
    let verdict = match (fa.is_empty(), fb.is_empty()) {
        (true, true) => format!("no clear difference between {a} and {b} on any measure"),
        (false, true) => format!("{a} is better on {} and no measure favours {b} (A - B: {})", fa.join(", "), describe_a.join("; ")),
        (true, false) => format!("{b} is better on {} and no measure favours {a} (A - B: {})", fb.join(", "), describe_b.join("; ")),
        (false, false) => format!(
            "trade-off: {a} is better on {} but {b} is better on {} (A - B: {}; {})",
            fa.join(", "),
            fb.join(", "),
            describe_a.join("; "),
            describe_b.join("; ")
        ),
    };
    Verdict { profile: p.profile.clone(), system_a: a.clone(), system_b: b.clone(), verdict, favours_a: fa, favours_b: fb, measures }
}

/// Across-topic tests of every measure for every (profile, pair).
pub fn topic_tests(s: &RunSummary) -> Vec<TopicTest> {
    let mut out = Vec::new();
    for pooled in &s.pooled_pairs {
        let per_topic: Vec<&PairSummary> = s
            .pairs
            .iter()
            .filter(|p| p.profile == pooled.profile && p.system_a == pooled.system_a && p.system_b == pooled.system_b)
            .collect();
        for (m, info) in MEASURES.iter().enumerate() {
            let a: Vec<f64> = per_topic.iter().map(|p| p.measures[m].mean_a).collect();
            let b: Vec<f64> = per_topic.iter().map(|p| p.measures[m].mean_b).collect();
            let w = wilcoxon_signed_rank(&a, &b);
            let mut warnings = Vec::new();
            if per_topic.len() < 5 {
                warnings.push(format!("only {} topics: a test over fewer than 5 topics cannot reach p < 0.05", per_topic.len()));
            }
            if w.n == 0 {
                warnings.push("no topic differs: the test is undefined".to_string());
            } else if w.n < 5 && per_topic.len() >= 5 {
                warnings.push(format!("only {} topics differ: the test has almost no power", w.n));
            }
            if !w.exact {
                warnings.push("ties or n >= 50: normal approximation".to_string());
            }
            out.push(TopicTest {
                profile: pooled.profile.clone(),
                system_a: pooled.system_a.clone(),
                system_b: pooled.system_b.clone(),
                measure: info.name.to_string(),
                test: "wilcoxon_signed_rank".into(),
                statistic: w.statistic,
                n: w.n,
                p_value: w.p_value,
                topics: per_topic.len(),
                warning: warnings.join("; "),
            });
        }
    }
    out
}

/// Everything the report writes, ready to serialise.
#[derive(Debug, Clone, Serialize)]
pub struct Report<'a> {
    /// Scenario name.
    pub scenario: &'a str,
    /// Master seed.
    pub seed: u64,
    /// Users per profile.
    pub users: u64,
    /// Warnings of the run.
    pub warnings: &'a [String],
    /// Measures and their units and directions.
    pub measures: &'static [crate::simulate::MeasureInfo],
    /// The summaries.
    pub summary: &'a RunSummary,
    /// Across-topic tests.
    pub tests: Vec<TopicTest>,
    /// Verdicts.
    pub verdicts: Vec<Verdict>,
}

const Q_HEADER: &str = "n,mean,sd,se,min,q05,q25,q50,q75,q95,max,exact";

fn stats_row(w: &mut dyn Write, s: &crate::stats::StreamSummary) -> std::io::Result<()> {
    writeln!(w, "{},{},{},{},{},{},{},{},{},{},{},{}", s.n, s.mean, s.sd, s.se, s.min, s.q05, s.q25, s.q50, s.q75, s.q95, s.max, s.exact)
}

fn diff_row(w: &mut dyn Write, prefix: &str, d: &DiffSummary) -> std::io::Result<()> {
    let q = d.diff_quantiles;
    writeln!(
        w,
        "{prefix},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        csv_field(&d.measure),
        serde_json::to_value(d.better).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
        d.n,
        d.mean_a,
        d.mean_b,
        d.diff_mean,
        d.diff_se,
        d.p_a_higher,
        d.p_tie,
        d.p_a_lower,
        d.p_a_better,
        q[0],
        q[1],
        q[2],
        q[3],
        q[4],
        d.exact
    )
}

const DIFF_HEADER: &str =
    "measure,better,n,mean_a,mean_b,diff_mean,diff_se,p_a_higher,p_tie,p_a_lower,p_a_better,diff_q05,diff_q25,diff_q50,diff_q75,diff_q95,exact";

impl<'a> Report<'a> {
    /// The report of a run.
    pub fn new(scenario: &'a Scenario, summary: &'a RunSummary, warnings: &'a [String]) -> Self {
        Report {
            scenario: &scenario.name,
            seed: scenario.seed,
            users: scenario.replicates,
            warnings,
            measures: &MEASURES,
            tests: topic_tests(summary),
            verdicts: summary.pooled_pairs.iter().map(verdict).collect(),
            summary,
        }
    }

    /// Writes every file into `out`.
    pub fn write(&self, out: &mut Staged, plot: bool, bins: usize) -> Result<()> {
        let s = self.summary;
        out.write_with("summary.csv", |w| {
            writeln!(w, "topic,system,profile,measure,{Q_HEADER}")?;
            for c in &s.cells {
                for (m, st) in c.measures.iter().enumerate() {
                    write!(w, "{},{},{},{},", csv_field(c.topic.as_deref().unwrap_or("")), csv_field(&c.system), csv_field(&c.profile), MEASURES[m].name)?;
                    stats_row(w, st)?;
                }
            }
            Ok(())
        })?;
        out.write_with("pooled.csv", |w| {
            writeln!(w, "system,profile,measure,unit,{Q_HEADER}")?;
            for p in &s.pooled {
                let c = &p.summary;
                for (m, st) in c.measures.iter().enumerate() {
                    write!(w, "{},{},{},{},", csv_field(&c.system), csv_field(&c.profile), MEASURES[m].name, MEASURES[m].unit)?;
                    stats_row(w, st)?;
                }
            }
            Ok(())
        })?;
        if !s.pooled_pairs.is_empty() {
            out.write_with("comparison.csv", |w| {
                writeln!(w, "profile,system_a,system_b,scope,topic,{DIFF_HEADER}")?;
                for p in s.pairs.iter().chain(&s.pooled_pairs) {
                    let prefix = format!(
                        "{},{},{},{},{}",
                        csv_field(&p.profile),
                        csv_field(&p.system_a),
                        csv_field(&p.system_b),
                        if p.topic.is_some() { "topic" } else { "pooled" },
                        csv_field(p.topic.as_deref().unwrap_or(""))
                    );
                    for d in &p.measures {
                        diff_row(w, &prefix, d)?;
                    }
                }
                Ok(())
            })?;
            out.write_with("tests.csv", |w| {
                writeln!(w, "profile,system_a,system_b,measure,test,statistic,n,p_value,topics,warning")?;
                for t in &self.tests {
                    writeln!(
                        w,
                        "{},{},{},{},{},{},{},{},{},{}",
                        csv_field(&t.profile),
                        csv_field(&t.system_a),
                        csv_field(&t.system_b),
                        t.measure,
                        t.test,
                        t.statistic,
                        t.n,
                        fmt_p(t.p_value),
                        t.topics,
                        csv_field(&t.warning)
                    )?;
                }
                Ok(())
            })?;
            out.write_with("verdict.csv", |w| {
                write!(w, "profile,system_a,system_b,verdict,favours_a,favours_b")?;
                for m in MEASURES {
                    write!(w, ",{0}_diff,{0}_ci_low,{0}_ci_high,{0}_p_a_better", m.name)?;
                }
                writeln!(w)?;
                for v in &self.verdicts {
                    write!(
                        w,
                        "{},{},{},{},{},{}",
                        csv_field(&v.profile),
                        csv_field(&v.system_a),
                        csv_field(&v.system_b),
                        csv_field(&v.verdict),
                        csv_field(&v.favours_a.join(" ")),
                        csv_field(&v.favours_b.join(" "))
                    )?;
                    for m in &v.measures {
                        write!(w, ",{},{},{},{}", m.diff, m.ci[0], m.ci[1], m.p_a_better)?;
                    }
                    writeln!(w)?;
                }
                Ok(())
            })?;
        }
        out.write_with("gain_curves.csv", |w| {
            // `se_users`: Monte-Carlo error (users only, topics fixed); `lo_topics_users`,
            // `hi_topics_users`: the 95 % interval over topics and users (empty below 2 topics).
            writeln!(w, "system,profile,axis,x,mean_gain,se_users,topics,lo_topics_users,hi_topics_users")?;
            let cell = |x: f64| if x.is_finite() { x.to_string() } else { String::new() };
            for p in &s.pooled {
                for (axis, c) in [("time", &p.time_curve), ("effort", &p.effort_curve)] {
                    for k in 0..c.x.len() {
                        writeln!(
                            w,
                            "{},{},{axis},{},{},{},{},{},{}",
                            csv_field(&p.summary.system),
                            csv_field(&p.summary.profile),
                            c.x[k],
                            c.mean[k],
                            c.se[k],
                            c.topics,
                            cell(c.lo[k]),
                            cell(c.hi[k])
                        )?;
                    }
                }
            }
            Ok(())
        })?;
        out.write_with("budgets.csv", |w| {
            writeln!(w, "profile,system_a,system_b,axis,budget,mean_a,se_a,mean_b,se_b,diff_mean,diff_se,p_a_higher,p_tie,p_a_lower")?;
            for p in &s.pooled {
                let c = &p.summary;
                for (axis, list) in [("time", &c.time_budgets), ("effort", &c.effort_budgets)] {
                    for &(b, m, se) in list.iter() {
                        writeln!(w, "{},{},,{axis},{b},{m},{se},,,,,,,", csv_field(&c.profile), csv_field(&c.system))?;
                    }
                }
            }
            for p in &s.pooled_pairs {
                for (axis, list, budgets) in [("time", &p.time_budgets, &s.time_budgets), ("effort", &p.effort_budgets, &s.effort_budgets)] {
                    for (d, b) in list.iter().zip(budgets.iter()) {
                        writeln!(
                            w,
                            "{},{},{},{axis},{b},{},,{},,{},{},{},{},{}",
                            csv_field(&p.profile),
                            csv_field(&p.system_a),
                            csv_field(&p.system_b),
                            d.mean_a,
                            d.mean_b,
                            d.diff_mean,
                            d.diff_se,
                            d.p_a_higher,
                            d.p_tie,
                            d.p_a_lower
                        )?;
                    }
                }
            }
            Ok(())
        })?;
        let mut json = serde_json::to_value(self).map_err(|e| Error::Invalid(format!("summary.json: {e}")))?;
        if let Some(pooled) = json.pointer_mut("/summary/pooled").and_then(|v| v.as_array_mut()) {
            for (v, p) in pooled.iter_mut().zip(&s.pooled) {
                let hist: Vec<serde_json::Value> = p.distributions.iter().map(|d| histogram_json(d, bins)).collect();
                if let Some(obj) = v.as_object_mut() {
                    obj.insert("histograms".into(), serde_json::Value::Array(hist));
                }
            }
        }
        let bytes = serde_json::to_vec_pretty(&json).map_err(|e| Error::Invalid(format!("summary.json: {e}")))?;
        out.write("summary.json", &bytes)?;
        if plot {
            out.write("distributions.svg", plot::ecdf_svg(s)?.as_bytes())?;
            out.write("gain_curves.svg", plot::curves_svg(s)?.as_bytes())?;
            if let Some(svg) = plot::differences_svg(s)? {
                out.write("differences.svg", svg.as_bytes())?;
            }
        }
        Ok(())
    }
}

/// Equal-width histogram of sorted `(value, count)` pairs over [min, max].
fn histogram_json(entries: &[(f64, u64)], bins: usize) -> serde_json::Value {
    let (Some(first), Some(last)) = (entries.first(), entries.last()) else { return serde_json::Value::Null };
    let (lo, hi) = (first.0, last.0);
    if lo == hi {
        let n: u64 = entries.iter().map(|e| e.1).sum();
        return serde_json::json!({ "edges": [lo, hi], "counts": [n] });
    }
    let width = (hi - lo) / bins as f64;
    let edges: Vec<f64> = (0..=bins).map(|i| if i == bins { hi } else { lo + width * i as f64 }).collect();
    let mut counts = vec![0u64; bins];
    for &(x, c) in entries {
        counts[(((x - lo) / width) as usize).min(bins - 1)] += c;
    }
    serde_json::json!({ "edges": edges, "counts": counts })
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
