//! The one orchestrator: scenario -> load -> simulate -> report -> staged files.
//!
//! [`run_text`] runs any scenario file the command line accepts (SERP scenarios through
//! [`run_scenario`], stream scenarios through [`streams::run_scenario`]);
//! `serpsim simulate` and Python's `simulate` both call it. [`run_scenario`] applies the
//! overrides, loads the scenario ([`crate::scenario`] only parses, validates and loads),
//! decides the report's grids (from `[report]`, the profiles' budgets or a pilot run),
//! simulates with the report's sink ([`crate::simulate`]) and renders the summary
//! ([`crate::report`]) into a staged output directory, committed whole. [`run_shard`] and
//! [`write_sharded`] split the same run over processes (Spark).

pub mod calibration;
pub mod streams;

use crate::collection::coverage::Coverage;
use crate::error::{Error, Result};
use crate::report::{write_report, Rendered, StagedOutput};
use crate::scenario::{Loaded, Overrides, Scenario};
use crate::simulate::summary::Grid;
use crate::simulate::{ReportSink, RunPlan, SinkConfig};
use crate::stats::Sketch;
use std::path::{Path, PathBuf};

/// What a run wrote: the files, the short answer, the warnings.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    /// Paths written.
    pub written: Vec<PathBuf>,
    /// The short answer (`answer.txt`): what the command line prints.
    pub answer: String,
    /// Warnings of the scenario and of the summary.
    pub warnings: Vec<String>,
    /// TREC qrels and runs: one line on what the comparison stands on (topics judged and
    /// ranked, Judged@k in the depth users reach), for stderr; the numbers are in
    /// `summary.json`'s `coverage`.
    pub coverage: Option<String>,
}

/// The loaded scenario's coverage with each system's depth users reach: the 95th percentile
/// of `depth` (results examined) over its simulated sessions, the largest over profiles,
/// rounded up.
pub fn coverage_at_depth(loaded: &Loaded, summary: &crate::simulate::RunSummary) -> Option<Coverage> {
    let mut c = loaded.coverage.clone()?;
    let depth = crate::simulate::MEASURES.iter().position(|m| m.name == "depth")?;
    let mut depths: Vec<(String, usize)> = Vec::new();
    for p in &summary.pooled {
        let q = p.summary.measures[depth].q95;
        if !q.is_finite() {
            continue;
        }
        let k = q.ceil().max(1.0) as usize;
        match depths.iter_mut().find(|(n, _)| *n == p.summary.system) {
            Some(d) => d.1 = d.1.max(k),
            None => depths.push((p.summary.system.clone(), k)),
        }
    }
    c.set_depths(&depths);
    Some(c)
}

/// Runs the scenario file `text` (`origin` names it in errors; relative paths resolve against
/// `base`) with `overrides`: any scenario `serpsim simulate` accepts. A stream scenario
/// (`[collection] source = "streams"`, docs/streams.md) runs the engine's stream path and writes
/// `msu.csv` beside the report; `replicates` sets its users per profile, and per-session
/// samples (`samples = Some(true)`) are refused, as a stream run does not write them.
pub fn run_text(text: &str, origin: &str, base: &Path, overrides: &Overrides, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<ScenarioRun> {
    run_scenario(Scenario::parse(text, origin)?, base, overrides, progress)
}

/// Loads, simulates, summarises and writes a scenario on the current rayon pool.
/// `progress` receives `(units done, units total)`.
pub fn run_scenario(mut scenario: Scenario, base: &Path, overrides: &Overrides, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<ScenarioRun> {
    overrides.apply(&mut scenario)?;
    if let crate::scenario::CollectionSource::Streams(_) = scenario.collection {
        return streams::run_scenario(&scenario, base, progress);
    }
    let loaded = scenario.load(base)?;
    let mut staged = stage(&scenario, "simulate")?;
    let (rendered, _) = run_into_with(&scenario, &loaded, &mut staged, progress, NoSink)?;
    Ok(ScenarioRun { written: staged.commit()?, answer: rendered.answer, warnings: rendered.warnings, coverage: rendered.coverage })
}

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
    let need_pilot = (spec.time_grid.is_none() && budget_max(loaded, false).is_none()) || (spec.effort_grid.is_none() && budget_max(loaded, true).is_none());
    let (mut t99, mut e99) = (1.0, 1.0);
    if need_pilot {
        let cells = (loaded.prepared.len() * loaded.world.topics.len() * loaded.world.systems.len()).max(1) as u64;
        let plan =
            RunPlan { world: &loaded.world, profiles: &loaded.prepared, users: pilot_users(scenario.replicates, cells), seed: scenario.seed, block: None };
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

/// Stages the output directory of `scenario` for `command`; the manifest records the seed and
/// the hash of the scenario as run (after command-line overrides), with `[output] dir` left
/// empty: where the output goes does not change it, so the manifest does not depend on it.
pub fn stage(scenario: &Scenario, command: &str) -> Result<StagedOutput> {
    let mut hashed = scenario.clone();
    hashed.output.dir = PathBuf::new();
    // The manifest hashes this text: a scenario that cannot be written back is an error, not the
    // hash of an empty text.
    let text = toml::to_string(&hashed).map_err(|e| Error::Invalid(format!("scenario `{}`: cannot write it for the manifest's hash: {e}", scenario.name)))?;
    StagedOutput::begin(&scenario.output.dir, command, Some(&text), Some(scenario.seed))
}

/// The report sink's settings for `scenario`: grids and budgets (from a deterministic pilot
/// where the scenario does not give them), quantiles per topic or pooled, the compared pairs,
/// and where to stream samples (`samples`).
pub fn sink_config(scenario: &Scenario, loaded: &Loaded, samples: Option<PathBuf>) -> Result<SinkConfig> {
    let (time_grid, effort_grid, time_budgets, effort_budgets) = grids(scenario, loaded)?;
    let cells = loaded.prepared.len() * loaded.world.topics.len() * loaded.world.systems.len();
    let per_topic = scenario.report.per_topic_quantiles.unwrap_or(cells <= 5000);
    Ok(SinkConfig { per_topic_sketches: per_topic, time_grid, effort_grid, time_budgets, effort_budgets, pairs: loaded.pairs.clone(), samples })
}

fn plan<'a>(scenario: &Scenario, loaded: &'a Loaded) -> RunPlan<'a> {
    RunPlan { world: &loaded.world, profiles: &loaded.prepared, users: scenario.replicates, seed: scenario.seed, block: None }
}

fn sink<'a>(scenario: &Scenario, loaded: &'a Loaded, samples: Option<PathBuf>) -> Result<ReportSink<'a>> {
    let names: Vec<String> = loaded.prepared.iter().map(|p| p.profile.name.clone()).collect();
    ReportSink::new(&loaded.world, names, sink_config(scenario, loaded, samples)?)
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

/// Simulates a loaded scenario and writes its report into `staged` (the caller commits),
/// feeding `extra` the same sessions in the same pass (the sessions sweep's tables): one
/// simulation instead of two. Returns `extra` after the run.
pub fn run_into_with<S: crate::simulate::Sink>(
    scenario: &Scenario,
    loaded: &Loaded,
    staged: &mut StagedOutput,
    progress: &(dyn Fn(u64, u64) + Sync),
    extra: S,
) -> Result<(Rendered, S)> {
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
    let coverage = coverage_at_depth(loaded, &summary);
    let rendered = write_report(scenario, &loaded.warnings, staged, &summary, coverage.as_ref())?;
    Ok((rendered, extra))
}

/// The number of units of work of `scenario` (see [`crate::simulate::engine::units`]): the
/// pieces a distributed run shards.
pub fn unit_count(scenario: &Scenario, loaded: &Loaded) -> usize {
    crate::simulate::engine::units(&plan(scenario, loaded)).len()
}

/// Runs the units `range` of `scenario` (one shard of a distributed run) and returns the
/// report sink's state ([`ReportSink::state`]). Shards that together cover every unit, merged
/// by [`write_sharded`], give the report [`run_scenario`] writes. Samples are not collected.
pub fn run_shard(scenario: &Scenario, loaded: &Loaded, range: std::ops::Range<usize>, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<Vec<u8>> {
    let sink = sink(scenario, loaded, None)?;
    crate::simulate::engine::run_units(&plan(scenario, loaded), &sink, range, progress)?;
    Ok(sink.state())
}

/// Merges the states of shards ([`run_shard`]) and writes the report into `[output] dir`, as
/// [`run_scenario`] does for one process. Refuses a scenario that asks for samples (a
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
    let coverage = coverage_at_depth(loaded, &summary);
    let rendered = write_report(scenario, &loaded.warnings, &mut staged, &summary, coverage.as_ref())?;
    Ok(ScenarioRun { written: staged.commit()?, answer: rendered.answer, warnings: rendered.warnings, coverage: rendered.coverage })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::tests::{mean_var, All};

    #[test]
    fn nice_numbers() {
        assert_eq!(nice_ceil(0.7), 0.8);
        assert_eq!(nice_ceil(13.0), 15.0);
        assert_eq!(nice_ceil(240.0), 250.0);
        assert_eq!(nice_ceil(300.0), 300.0);
        assert_eq!(nice_ceil(801.0), 1000.0);
    }

    /// Shards merged in any order give the summary of one run over every unit (the reference
    /// is the single-process `run_into_with` path: `ReportSink` fed by `simulate::run`).
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

    /// A unit's pooled sketches start bucketed once the run's are (`ReportSink::start`): the
    /// run's sketches then hold exactly what one unit per profile gives (that run cannot start
    /// a sketch bucketed). One thread, so every unit after a profile's first sees the run's
    /// sketches. Means are left out: their float partial sums round by unit.
    #[test]
    fn pooled_distributions_do_not_depend_on_the_unit_size() {
        let mut scenario = Scenario::embedded_default();
        scenario.replicates = 700;
        scenario.seed = 3;
        scenario.report.per_topic_quantiles = Some(false);
        let loaded = scenario.load(std::path::Path::new(".")).unwrap();
        let summarise = |block: u64| {
            let s = sink(&scenario, &loaded, None).unwrap();
            let plan = RunPlan { block: Some(block), ..plan(&scenario, &loaded) };
            let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            pool.install(|| crate::simulate::run(&plan, &s, &|_, _| {})).unwrap();
            s.finish_summary()
        };
        let (many, one) = (summarise(16), summarise(700));
        // The check means something only where sketches bucket, and where some stay exact.
        let exact: Vec<bool> = one.pooled_pairs.iter().flat_map(|p| p.measures.iter().map(|d| d.exact)).collect();
        assert!(exact.contains(&true) && exact.contains(&false), "{exact:?}");
        assert_eq!(many.pooled.len(), one.pooled.len());
        for (a, b) in many.pooled.iter().zip(&one.pooled) {
            assert!(a.distributions == b.distributions, "pooled distributions of {} {} differ", a.summary.system, a.summary.profile);
        }
        for (a, b) in many.pooled_pairs.iter().zip(&one.pooled_pairs) {
            for (x, y) in a.measures.iter().zip(&b.measures) {
                assert_eq!(x.exact, y.exact, "{} {}", a.profile, x.measure);
                assert_eq!(format!("{:?}", x.diff_quantiles), format!("{:?}", y.diff_quantiles), "{} {}", a.profile, x.measure);
            }
        }
    }

    /// The default scenario with the patient user's persistence written as a point distribution
    /// gives the means of the earlier engine (tests/fixtures/simulate/default_v0.csv: 10^6
    /// replicates per cell from commit 923c977, on topics 301-303 of the bundled collection)
    /// within 4 standard errors of the difference, for every topic, system, profile and measure
    /// (72 comparisons). The collection is cut to those three topics here too.
    #[test]
    fn point_persistence_equals_the_earlier_engine() {
        let mut s = Scenario::embedded_default();
        s.profiles[0].continuation = Some(crate::user::ContinuationModel::Rbp { p: crate::user::Param::Dist(crate::user::Dist::Point { value: 0.8 }) });
        let dir = tempfile::tempdir().unwrap();
        let three = |text: &str| -> String {
            text.lines().filter(|l| ["301", "302", "303"].contains(&l.split_whitespace().next().unwrap_or(""))).map(|l| format!("{l}\n")).collect()
        };
        std::fs::write(dir.path().join("qrels"), three(crate::scenario::DEFAULT_QRELS)).unwrap();
        std::fs::write(dir.path().join("run"), three(crate::scenario::DEFAULT_RUN)).unwrap();
        match &mut s.collection {
            crate::scenario::CollectionSource::Trec(t) => {
                t.qrels = dir.path().join("qrels");
                t.runs = vec![dir.path().join("run")];
            }
            _ => panic!("the default scenario reads TREC files"),
        }
        let loaded = s.load(std::path::Path::new(".")).unwrap();
        assert_eq!(loaded.world.topics.len(), 3);
        let users = 200_000u64;
        let plan = RunPlan { world: &loaded.world, profiles: &loaded.prepared, users, seed: 99, block: None };
        let sink = All(std::sync::Mutex::new(Vec::new()));
        crate::simulate::run(&plan, &sink, &|_, _| {}).unwrap();
        let all = sink.0.into_inner().unwrap();
        let reference = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/simulate/default_v0.csv")).unwrap();
        let mut compared = 0;
        for line in reference.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let (t, sys, prof, m) = (f[0], f[1], f[2], f[3]);
            let (old_mean, old_se): (f64, f64) = (f[5].parse().unwrap(), f[7].parse().unwrap());
            let ti = loaded.world.topics.iter().position(|x| x.id == t).unwrap();
            let si = loaded.world.system_index(sys).unwrap();
            let pi = loaded.prepared.iter().position(|p| p.profile.name == prof).unwrap();
            let mi = crate::simulate::summary::measure_index(m).unwrap();
            let xs: Vec<f64> = all.iter().filter(|x| x.0 == (pi, ti, si)).map(|x| x.2.measures()[mi]).collect();
            assert_eq!(xs.len() as u64, users);
            let (mean, var) = mean_var(&xs);
            let se = (var / users as f64 + old_se * old_se).sqrt();
            assert!((mean - old_mean).abs() <= 4.0 * se + 1e-12, "{t} {sys} {prof} {m}: {mean} vs earlier {old_mean} (se {se})");
            compared += 1;
        }
        assert_eq!(compared, 72);
    }
}
