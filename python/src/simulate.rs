//! What-if simulation from Python: a scenario (file, TOML text, or a dict sent as JSON) run by
//! the library's `run::run_text`, the code of `serpsim simulate` (stream scenarios included),
//! writing the same report files.
//! The Python side reads the report's tables into DataFrames.

use crate::errors::{to_py, UInt};
use crate::job::{spawn, Finish, Job};
use pyo3::prelude::*;
use pyo3::IntoPyObject;
use serpsim::scenario::{Overrides, Scenario};
use std::path::PathBuf;

/// Runs a scenario: `path`, or TOML `text`, or JSON `json` (a dict), or the embedded default
/// when none is given. Relative paths in text are resolved against `base`. The report is
/// written to `out`. Returns a job whose result is `(written paths, warnings)`.
#[pyfunction]
#[pyo3(signature = (out, path=None, text=None, json=None, base=None, replicates=None, seed=None, threads=None, samples=true, detail=None))]
#[allow(clippy::too_many_arguments)]
fn simulate(
    py: Python<'_>,
    out: PathBuf,
    path: Option<PathBuf>,
    text: Option<String>,
    json: Option<String>,
    base: Option<PathBuf>,
    replicates: Option<UInt>,
    seed: Option<UInt>,
    threads: Option<UInt>,
    samples: bool,
    detail: Option<String>,
) -> PyResult<Job> {
    let replicates = crate::errors::opt_u64(py, replicates, "simulate", "replicates")?;
    let seed = crate::errors::opt_u64(py, seed, "simulate", "seed")?;
    let threads = crate::errors::opt_usize(py, threads, "simulate", "threads")?;
    let detail = match detail {
        None => None,
        Some(d) => Some(d.parse::<serpsim::scenario::Detail>().map_err(|e| crate::errors::invalid(py, format!("detail: {e}")))?),
    };
    let (text, origin, base) = scenario_text(py, path, text, json, base)?;
    let overrides = Overrides { replicates, seed, out: Some(out), samples: Some(samples), detail, ..Default::default() };
    spawn("simulating users", threads, move |p| {
        p.phase("simulating users", "user blocks", None);
        let run = serpsim::run::run_text(&text, &origin, &base, &overrides, &|done, total| {
            p.set_total(total);
            p.set_done(done);
        })?;
        let written: Vec<String> = run.written.iter().map(|w| w.display().to_string()).collect();
        let warnings = run.warnings;
        Ok(Box::new(move |py: Python<'_>| Ok((written, warnings).into_pyobject(py)?.into_any().unbind())) as Finish)
    })
}

/// A scenario prepared for a sharded (Spark) run: the scenario after the overrides, loaded.
/// The driver and every task build it from the same arguments, so they see the same world and
/// units.
#[pyclass(module = "serpsim._serpsim", name = "ShardedScenario", frozen)]
pub struct ShardedScenario {
    scenario: Scenario,
    loaded: serpsim::scenario::Loaded,
}

fn load_sharded(py: Python<'_>, scenario: Scenario, base: PathBuf) -> PyResult<ShardedScenario> {
    let loaded = {
        let s = &scenario;
        let b = &base;
        py.detach(|| s.load(b)).map_err(|e| to_py(py, e))?
    };
    Ok(ShardedScenario { scenario, loaded })
}

#[pymethods]
impl ShardedScenario {
    /// Prepares a scenario (as `simulate` takes it) for a sharded run writing into `out`.
    /// Per-session samples are not collected in a sharded run (`samples` is turned off).
    #[new]
    #[pyo3(signature = (out, path=None, text=None, json=None, base=None, replicates=None, seed=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        out: PathBuf,
        path: Option<PathBuf>,
        text: Option<String>,
        json: Option<String>,
        base: Option<PathBuf>,
        replicates: Option<u64>,
        seed: Option<u64>,
    ) -> PyResult<Self> {
        let (text, origin, base) = scenario_text(py, path, text, json, base)?;
        let mut scenario = Scenario::parse(&text, &origin).map_err(|e| to_py(py, e))?;
        Overrides { replicates, seed, out: Some(out), samples: Some(false), ..Default::default() }.apply(&mut scenario).map_err(|e| to_py(py, e))?;
        load_sharded(py, scenario, base)
    }

    /// Units of work (profile, block of users) of the whole run.
    #[getter]
    fn units(&self) -> usize {
        serpsim::run::unit_count(&self.scenario, &self.loaded)
    }

    /// Runs units `first..end` on `threads` threads (default 1: one Spark task, one core) and
    /// returns the report sink's state (bytes).
    #[pyo3(signature = (first, end, threads=1))]
    fn run_units<'py>(&self, py: Python<'py>, first: usize, end: usize, threads: usize) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().map_err(|e| crate::errors::invalid(py, format!("threads: {e}")))?;
        let state = py.detach(|| pool.install(|| serpsim::run::run_shard(&self.scenario, &self.loaded, first..end, &|_, _| {}))).map_err(|e| to_py(py, e))?;
        Ok(pyo3::types::PyBytes::new(py, &state))
    }

    /// Merges the shards' states and writes the report into the scenario's output folder (the
    /// files `serpsim simulate` writes). Returns `(written paths, warnings)`.
    fn write(&self, py: Python<'_>, states: Vec<Vec<u8>>) -> PyResult<(Vec<String>, Vec<String>)> {
        let run = py.detach(|| serpsim::run::write_sharded(&self.scenario, &self.loaded, &states)).map_err(|e| to_py(py, e))?;
        Ok((run.written.iter().map(|w| w.display().to_string()).collect(), run.warnings))
    }
}

/// The scenario's text, the name errors give it, and the folder its relative paths resolve
/// against (a file's own folder; else `base`, default the working directory).
fn scenario_text(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    json: Option<String>,
    base: Option<PathBuf>,
) -> PyResult<(String, String, PathBuf)> {
    let base = base.unwrap_or_else(|| PathBuf::from("."));
    Ok(match (path, text, json) {
        (None, None, None) => (serpsim::scenario::DEFAULT_SCENARIO.into(), "embedded default scenario".into(), base),
        (Some(p), None, None) => {
            let text = serpsim::input::read_to_string(&p).map_err(|e| to_py(py, e))?;
            (text, p.display().to_string(), p.parent().map(PathBuf::from).unwrap_or_default())
        }
        (None, Some(t), None) => (t, "<scenario>".into(), base),
        (None, None, Some(j)) => {
            let value: serde_json::Value = serde_json::from_str(&j).map_err(|e| crate::errors::invalid(py, format!("scenario: {e}")))?;
            let t = toml::to_string(&value)
                .map_err(|e| crate::errors::invalid(py, format!("scenario: cannot be written as TOML ({e}); None values are not allowed")))?;
            (t, "<scenario>".into(), base)
        }
        _ => return Err(crate::errors::invalid(py, "give one of path, text or json")),
    })
}

/// The scenario `serpsim simulate --qrels Q --run A ... --print-scenario` writes: the same
/// library function, so that Python's `simulate(qrels=, runs=)` runs the same scenario.
/// `topics`: ids, or one string as `--topics` takes it (`301,302` or `@FILE`).
#[pyfunction]
#[pyo3(signature = (qrels, runs, profiles=Vec::new(), robust=false, topics=None, ideal=false, allow_partial_judgements=false))]
#[allow(clippy::too_many_arguments)]
fn scenario_from_files(
    py: Python<'_>,
    qrels: PathBuf,
    runs: Vec<PathBuf>,
    profiles: Vec<String>,
    robust: bool,
    topics: Option<Vec<String>>,
    ideal: bool,
    allow_partial_judgements: bool,
) -> PyResult<String> {
    // Ids, or one string as `--topics` takes it (`301,302` or `@FILE`): both are `--topics` text.
    let topics = topics.map(|list| serpsim::scenario::from_files::parse_topics(&list.join(","))).transpose().map_err(|e| to_py(py, e))?;
    let spec = serpsim::scenario::from_files::FilesScenario { qrels, runs, profiles, robust, topics, ideal, allow_partial_judgements };
    spec.text().map_err(|e| to_py(py, e))
}

/// The embedded default scenario's TOML text (what `serpsim simulate` runs without a file).
#[pyfunction]
fn default_scenario() -> &'static str {
    serpsim::scenario::DEFAULT_SCENARIO
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(default_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_from_files, m)?)?;
    m.add_class::<ShardedScenario>()?;
    Ok(())
}
