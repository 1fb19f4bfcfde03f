//! Stream scenarios: `serpsim streams run SCENARIO.toml` and `serpsim simulate` on a scenario
//! whose `[collection] source = "streams"` (the files of `serpsim streams msu`), with
//! `[[profiles]]` of stream users (`away`, `duration`, `speed`, `lateness`, each a number or a
//! distribution over users). The one scenario schema (`crate::scenario::Scenario`); documented
//! in `docs/scenarios.md` and `docs/streams.md`.

use super::ScenarioRun;
use crate::error::{Error, Result};
use crate::report::write_report;
use crate::scenario::{resolve, CollectionSource, Scenario, StreamFiles};
use crate::simulate::stream::{run, Msu, MsuSink, StreamPlan, StreamProfile, StreamWorld};
use crate::simulate::stream_io::StreamData;
use crate::simulate::summary::{Grid, SinkConfig};
use crate::simulate::{ReportSink, RunSummary};
use std::path::{Path, PathBuf};

/// Reads the data files (relative to `base`).
pub fn load(f: &StreamFiles, base: &Path) -> Result<StreamWorld> {
    let data = StreamData::from_files(&resolve(base, &f.topics), &resolve(base, &f.nuggets), &resolve(base, &f.matches))?;
    let paths: Vec<PathBuf> = f.updates.iter().map(|p| resolve(base, p)).collect();
    let systems = data.systems_from_files(paths.iter().map(PathBuf::as_path))?;
    StreamWorld::new(data.topics, &systems)
}

/// The compared pairs of `s` as system indices (default: every pair); errors name the key.
pub fn pairs(s: &Scenario, world: &StreamWorld) -> Result<Vec<(usize, usize)>> {
    if !s.compare.enabled {
        return Ok(Vec::new());
    }
    let n = world.systems.len();
    if s.compare.pairs.is_empty() {
        return Ok((0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect());
    }
    let index = |i: usize, name: &str| {
        world.systems.iter().position(|s| s.name == name).ok_or_else(|| {
            Error::config("scenario", format!("compare.pairs[{i}]"), format!("no system `{name}` (systems are named by their updates file stems)"))
        })
    };
    s.compare.pairs.iter().enumerate().map(|(i, [a, b])| Ok((index(i, a)?, index(i, b)?))).collect()
}

/// The report's settings for stream users: gain over reading time (0 to 10 min) and over
/// updates read (0 to 50), gain by 1 and 5 minutes of reading and by 5 and 20 updates read.
pub fn sink_config(pairs: Vec<(usize, usize)>) -> SinkConfig {
    SinkConfig {
        per_topic_sketches: false,
        time_grid: Grid::to(600.0, 61),
        effort_grid: Grid::to(50.0, 51),
        time_budgets: vec![60.0, 300.0],
        effort_budgets: vec![5.0, 20.0],
        pairs,
        samples: None,
    }
}

/// MSU per profile and system, and the one report, of one run of the engine's stream path.
pub fn simulate(
    world: &StreamWorld,
    profiles: &[StreamProfile],
    users: u64,
    seed: u64,
    pairs: Vec<(usize, usize)>,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(Vec<Msu>, RunSummary)> {
    let rw = world.report_world();
    let sinks = (MsuSink::new(world), ReportSink::new(&rw, profiles.iter().map(|p| p.name.clone()).collect(), sink_config(pairs))?);
    run(&StreamPlan { world, profiles, users, seed, block: None }, &sinks, progress)?;
    Ok((sinks.0.finish_msu(world, profiles), sinks.1.finish_summary()))
}

/// `msu.csv` with a profile column.
pub fn msu_csv(results: &[Msu], with_profile: bool) -> String {
    let mut csv = String::from(if with_profile { "profile,system,users,msu,sd,se\n" } else { "system,users,msu,sd,se\n" });
    for r in results {
        if with_profile {
            csv.push_str(&crate::write::csv_field(&r.profile));
            csv.push(',');
        }
        let f = crate::write::fmt_f64;
        csv.push_str(&format!("{},{},{},{},{}\n", crate::write::csv_field(&r.system), r.users, f(r.msu), f(r.sd), f(r.se)));
    }
    csv
}

/// Runs the stream scenario `s` (overrides applied; paths relative to `base`) and writes
/// `msu.csv` and the common report (the files of `serpsim simulate`: verdict, comparisons,
/// tests, pooled summaries, `summary.json`, `answer.txt`, ...) into `[output] dir`. The run
/// path of every front end (`streams run`, `simulate`, Python) for stream scenarios.
pub fn run_scenario(s: &Scenario, base: &Path, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<ScenarioRun> {
    let CollectionSource::Streams(files) = &s.collection else {
        return Err(Error::Invalid(format!("scenario `{}` is not a stream scenario ([collection] source = \"streams\")", s.name)));
    };
    if s.output.samples {
        return Err(Error::Invalid(
            "--write-samples is not available for stream scenarios (msu.csv and summary.json are written; from Python pass samples=False)".into(),
        ));
    }
    let profiles: Vec<StreamProfile> =
        s.profiles.iter().enumerate().map(|(i, p)| StreamProfile::from_user(p, "scenario", &format!("profiles[{i}]"))).collect::<Result<_>>()?;
    let world = load(files, base)?;
    let pairs = pairs(s, &world)?;
    let (msu, summary) = simulate(&world, &profiles, s.replicates, s.seed, pairs, progress)?;
    let mut staged = super::stage(s, "streams run")?;
    staged.write("msu.csv", msu_csv(&msu, true).as_bytes())?;
    let rendered = write_report(s, &[], &mut staged, &summary, None)?;
    Ok(ScenarioRun { written: staged.commit()?, answer: rendered.answer, warnings: rendered.warnings, coverage: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::user::Param;

    const BOPHA: &str = include_str!("../../simulations/streams/bopha.toml");

    /// The bundled stream scenario is a scenario of the one schema whose collection source is
    /// streams; its profile is the paper's "reasonable" user (bopha.toml writes lateness 0.5).
    #[test]
    fn stream_scenarios_are_scenarios() {
        let s = Scenario::parse(BOPHA, "bopha.toml").unwrap();
        assert!(matches!(s.collection, CollectionSource::Streams(_)));
        assert_eq!(s.replicates, 1000);
        assert_eq!(StreamProfile::from_user(&s.profiles[0], "bopha.toml", "profiles[0]").unwrap().lateness, Param::Fixed(0.5));
    }

    /// Keys of result pages are errors in a stream scenario, stream keys in any other; both
    /// name the key.
    #[test]
    fn keys_of_the_other_kind_are_errors() {
        let mut s = Scenario::parse(BOPHA, "bopha.toml").unwrap();
        s.interface.page_size = Some(5);
        assert!(s.validate("bopha.toml").unwrap_err().to_string().contains("interface"));
        let mut s = Scenario::parse(BOPHA, "bopha.toml").unwrap();
        s.profiles[0].charge_query = false;
        assert!(s.validate("bopha.toml").unwrap_err().to_string().contains("a stream user takes only"));
        let mut s = Scenario::embedded_default();
        s.profiles[0].lateness = Some(Param::Fixed(0.5));
        assert!(s.validate("default").unwrap_err().to_string().contains("profiles[0].lateness"));
        let mut s = Scenario::parse(BOPHA, "bopha.toml").unwrap();
        s.output.samples = true;
        assert!(run_scenario(&s, Path::new("."), &|_, _| {}).unwrap_err().to_string().contains("--write-samples is not available"));
    }
}
