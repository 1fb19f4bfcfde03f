//! Stream scenarios: `serpsim streams run SCENARIO.toml`. The one scenario schema's top-level
//! keys (`name`, `seed`, `users`, `[compare]`, `[output] dir`) with `[collection] source =
//! "streams"` (the files of `serpsim streams msu`) and `[[profiles]]` of stream users
//! ([`StreamProfile`]: `away`, `duration`, `speed`, `lateness`, each a number or a distribution
//! over users). Documented in `docs/scenarios.md` and `docs/streams.md`.

use super::io::StreamData;
use crate::error::{Error, Result};
use crate::report::{Report, Staged};
use crate::scenario::{from_toml, resolve, CompareSpec, Detail};
use crate::simulate::stream::{run, Msu, MsuSink, StreamPlan, StreamProfile, StreamWorld};
use crate::simulate::summary::{Grid, SinkConfig};
use crate::simulate::{ReportSink, RunSummary};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A parsed, validated stream scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamScenario {
    /// Scenario name.
    pub name: String,
    /// Master seed.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated users per profile (`replicates` is a synonym).
    #[serde(default = "default_users", alias = "replicates")]
    pub users: u64,
    /// Topics, nuggets, matches and one updates file per system.
    pub collection: StreamCollection,
    /// User populations.
    pub profiles: Vec<StreamProfile>,
    /// Paired system comparisons.
    #[serde(default)]
    pub compare: CompareSpec,
    /// Outputs.
    #[serde(default)]
    pub output: StreamOutput,
}

fn default_seed() -> u64 {
    1
}
fn default_users() -> u64 {
    10_000
}

/// `[collection]` of a stream scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum StreamCollection {
    /// The files of `serpsim streams msu` (docs/streams.md).
    Streams(StreamFiles),
}

/// `source = "streams"`: paths relative to the scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamFiles {
    /// Topics file.
    pub topics: PathBuf,
    /// Nuggets file.
    pub nuggets: PathBuf,
    /// Matches file.
    pub matches: PathBuf,
    /// Updates files, one system each (named by the file stem).
    pub updates: Vec<PathBuf>,
}

/// `[output]` of a stream scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StreamOutput {
    /// Output directory, relative to the working directory (default `serpsim-out`).
    pub dir: PathBuf,
    /// How much the report writes (`summary` or `full`, as for every scenario).
    pub detail: Detail,
    /// Write the SVG plots.
    pub plot: bool,
}

impl Default for StreamOutput {
    fn default() -> Self {
        StreamOutput { dir: PathBuf::from("serpsim-out"), detail: Detail::Summary, plot: true }
    }
}

impl StreamScenario {
    /// Parses and validates scenario TOML; `context` names the file in errors.
    pub fn parse(text: &str, context: &str) -> Result<Self> {
        let s: StreamScenario = from_toml(text, context)?;
        if s.name.trim().is_empty() {
            return Err(Error::config(context, "name", "must not be empty"));
        }
        if s.users == 0 {
            return Err(Error::config(context, "users", "must be at least 1"));
        }
        let StreamCollection::Streams(f) = &s.collection;
        if f.updates.is_empty() {
            return Err(Error::config(context, "collection.updates", "must list at least one updates file"));
        }
        if s.profiles.is_empty() {
            return Err(Error::config(context, "profiles", "at least one [[profiles]] entry is needed"));
        }
        for (i, p) in s.profiles.iter().enumerate() {
            p.validate(&format!("{context}: profiles[{i}]"))?;
            if s.profiles[..i].iter().any(|q| q.name == p.name) {
                return Err(Error::config(context, format!("profiles[{i}].name"), format!("`{}` is used twice", p.name)));
            }
        }
        Ok(s)
    }

    /// Reads the data files (relative to `base`).
    pub fn load(&self, base: &Path) -> Result<StreamWorld> {
        let StreamCollection::Streams(f) = &self.collection;
        let data = StreamData::from_files(&resolve(base, &f.topics), &resolve(base, &f.nuggets), &resolve(base, &f.matches))?;
        let paths: Vec<PathBuf> = f.updates.iter().map(|p| resolve(base, p)).collect();
        let systems = data.systems_from_files(paths.iter().map(PathBuf::as_path))?;
        StreamWorld::new(data.topics, &systems)
    }

    /// The compared pairs as system indices (default: every pair); errors name the key.
    pub fn pairs(&self, world: &StreamWorld) -> Result<Vec<(usize, usize)>> {
        if !self.compare.enabled {
            return Ok(Vec::new());
        }
        let n = world.systems.len();
        if self.compare.pairs.is_empty() {
            return Ok((0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect());
        }
        let index = |i: usize, name: &str| {
            world.systems.iter().position(|s| s.name == name).ok_or_else(|| {
                Error::config("scenario", format!("compare.pairs[{i}]"), format!("no system `{name}` (systems are named by their updates file stems)"))
            })
        };
        self.compare.pairs.iter().enumerate().map(|(i, [a, b])| Ok((index(i, a)?, index(i, b)?))).collect()
    }
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

/// True when `text` is a stream scenario (`[collection] source = "streams"`), which
/// `serpsim simulate` hands to [`run_scenario`]. Text that is not TOML is not one (the SERP
/// scenario reader then reports the error with its line).
pub fn is_stream_scenario(text: &str) -> bool {
    toml::from_str::<toml::Value>(text)
        .ok()
        .and_then(|v| v.get("collection")?.get("source")?.as_str().map(|s| s == "streams"))
        .unwrap_or(false)
}

/// Command-line overrides of a stream scenario.
#[derive(Debug, Clone, Default)]
pub struct StreamOverrides<'a> {
    /// Output directory (else `[output] dir`).
    pub out: Option<&'a Path>,
    /// Users per profile.
    pub users: Option<u64>,
    /// Master seed.
    pub seed: Option<u64>,
    /// How much the report writes (else `[output] detail`).
    pub detail: Option<Detail>,
}

/// Runs the scenario read from `text` (paths relative to `base`) and writes `msu.csv` and the
/// common report (the files of `serpsim simulate`: verdict, comparisons, tests, pooled
/// summaries, `summary.json`, `answer.txt`, ...) into `out` (else `[output] dir`); returns
/// the files written and the short answer.
pub fn run_scenario(text: &str, context: &str, base: &Path, o: &StreamOverrides, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<(Vec<PathBuf>, String)> {
    let (out, users, seed) = (o.out, o.users, o.seed);
    let mut s = StreamScenario::parse(text, context)?;
    if let Some(d) = o.detail {
        s.output.detail = d;
    }
    if let Some(seed) = seed {
        s.seed = seed;
    }
    if let Some(u) = users {
        if u == 0 {
            return Err(Error::Invalid("--users must be at least 1".into()));
        }
        s.users = u;
    }
    let world = s.load(base)?;
    let pairs = s.pairs(&world)?;
    let (msu, summary) = simulate(&world, &s.profiles, s.users, s.seed, pairs, progress)?;
    let dir = out.unwrap_or(&s.output.dir);
    let mut staged = Staged::begin(dir, "streams run", Some(text), Some(s.seed))?;
    staged.write("msu.csv", msu_csv(&msu, true).as_bytes())?;
    let report = Report::of(&s.name, s.seed, s.users, s.output.detail, &summary, &[]);
    report.write(&mut staged, s.output.plot, 20)?;
    for w in &report.warnings {
        staged.warn(w.clone());
    }
    Ok((staged.commit()?, report.answer))
}
