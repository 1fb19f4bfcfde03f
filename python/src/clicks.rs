//! Click models from Python: fit from an Arrow table or a log file, evaluate, predict, simulate,
//! save and load (the CLI's JSON format).

use crate::arrow_io;
use crate::errors::{guard, invalid, to_py};
use crate::job::{spawn, Finish, Job};
use arrow_array::builder::{BooleanBuilder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, Float64Array, StringArray, UInt32Array, UInt64Array};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serpsim::clickmodels::eval::{evaluate, restrict_to_train_queries, Scores};
use serpsim::clickmodels::gibbs::GibbsConfig;
use serpsim::clickmodels::posterior::fit::fit_model;
use serpsim::clickmodels::posterior::PosteriorConfig;
use serpsim::clickmodels::prior::PriorScope;
use serpsim::clickmodels::{io, ClickModel, EmConfig, Gamma, ModelConfig, ModelKind};
use serpsim::logs::{ClickLog, Format, LogData, Vocab};
use pyo3::IntoPyObject;
use serpsim::progress::Progress;
use std::path::PathBuf;
use std::sync::Arc;

/// Reads a click log table (`query_id`, `docs` list, `clicks` list) into `data`'s vocabulary.
/// `clicks` may be absent when `need_clicks` is false (SERPs to predict or simulate on).
/// The columns are read whole from the Arrow buffers by the library's Arrow click-log decoder
/// ([`serpsim::logs::arrow::intern_batches`], the one the CLI's Parquet reader and Spark use)
/// with the GIL released.
fn read_log(py: Python<'_>, table: &Bound<'_, PyAny>, data: &mut LogData, need_clicks: bool, what: &str) -> PyResult<ClickLog> {
    let batches = arrow_io::read_batches(table, what)?;
    for batch in &batches {
        arrow_io::column(py, batch, "query_id", what)?;
        arrow_io::column(py, batch, "docs", what)?;
        if need_clicks && batch.column_by_name("clicks").is_none() {
            return Err(invalid(py, format!("{what}: missing column `clicks` (a list of 0/1 or booleans per row, aligned with `docs`)")));
        }
    }
    let vocab = &mut data.vocab;
    py.detach(|| serpsim::logs::arrow::intern_batches(&batches, vocab, what)).map_err(|m| invalid(py, m))
}

/// The fit's configuration; `tolerance` `None` is the library's default (the CLI's).
fn config(py: Python<'_>, model: &str, iterations: usize, tolerance: Option<f64>, gamma: Option<f64>) -> PyResult<ModelConfig> {
    let kind: ModelKind = model.parse().map_err(|e| to_py(py, e))?;
    let tolerance = tolerance.unwrap_or(serpsim::clickmodels::driver::DEFAULT_TOLERANCE);
    let mut cfg = ModelConfig::new(kind, EmConfig { iterations, tolerance });
    match (&mut cfg, gamma) {
        (ModelConfig::Dbn(d), Some(g)) => {
            serpsim::error::check_probability("gamma", "gamma", g).map_err(|e| to_py(py, e))?;
            d.gamma = Gamma::Fixed(g);
        }
        (_, Some(_)) => return Err(invalid(py, "gamma applies to the dbn model only")),
        _ => {}
    }
    Ok(cfg)
}

fn passes(cfg: &ModelConfig) -> u64 {
    match cfg {
        ModelConfig::Dbn(c) => c.iterations as u64,
        ModelConfig::Ccm(c) | ModelConfig::Ubm(c) | ModelConfig::Pbm(c) => c.iterations as u64,
        _ => 1,
    }
}

/// A fitted or loaded click model.
#[pyclass(module = "serpsim._serpsim", name = "ClickModel", frozen)]
pub struct PyClickModel {
    model: Arc<dyn ClickModel>,
    vocab: Arc<Vocab>,
    sessions: usize,
}

fn finish_model(model: Box<dyn ClickModel>, vocab: Vocab, sessions: usize) -> Finish {
    Box::new(move |py| Ok(Py::new(py, PyClickModel { model: Arc::from(model), vocab: Arc::new(vocab), sessions })?.into_any()))
}

/// Fits `model` on a click-log table. Returns a job.
#[pyfunction]
#[pyo3(signature = (log, model, iterations=50, tolerance=None, gamma=None, threads=None))]
fn fit_table(py: Python<'_>, log: &Bound<'_, PyAny>, model: &str, iterations: usize, tolerance: Option<f64>, gamma: Option<f64>, threads: Option<usize>) -> PyResult<Job> {
    let cfg = config(py, model, iterations, tolerance, gamma)?;
    let mut data = LogData::default();
    data.log = read_log(py, log, &mut data, true, "log")?;
    if data.log.is_empty() {
        return Err(invalid(py, "log: no sessions to fit on"));
    }
    spawn(&format!("fitting {model}"), threads, move |p| {
        p.phase(&format!("fitting {}", cfg_name(&cfg)), "passes", Some(passes(&cfg)));
        let n = data.log.len();
        let m = fit_passes(&cfg, &data.log, p)?;
        Ok(finish_model(m, data.vocab, n))
    })
}

fn cfg_name(cfg: &ModelConfig) -> &'static str {
    match cfg {
        ModelConfig::Cm => "cm",
        ModelConfig::Dcm => "dcm",
        ModelConfig::Sdbn => "sdbn",
        ModelConfig::Ctr(_) => "ctr",
        ModelConfig::Dbn(_) => "dbn",
        ModelConfig::Ccm(_) => "ccm",
        ModelConfig::Ubm(_) => "ubm",
        ModelConfig::Pbm(_) => "pbm",
    }
}

/// Fits `model` on a log file (plain or compressed; `-` is stdin). Returns a job.
#[pyfunction]
#[pyo3(signature = (path, model, format="yandex", iterations=50, tolerance=None, gamma=None, skip_bad_lines=false, threads=None))]
#[allow(clippy::too_many_arguments)]
fn fit_path(
    py: Python<'_>,
    path: PathBuf,
    model: &str,
    format: &str,
    iterations: usize,
    tolerance: Option<f64>,
    gamma: Option<f64>,
    skip_bad_lines: bool,
    threads: Option<usize>,
) -> PyResult<Job> {
    let cfg = config(py, model, iterations, tolerance, gamma)?;
    let format: Format = format.parse().map_err(|e| to_py(py, e))?;
    spawn(&format!("reading {}", path.display()), threads, move |p| {
        p.phase(&format!("reading {}", path.display()), "", None);
        let data = LogData::read(&path, format, skip_bad_lines)?;
        if data.log.is_empty() {
            return Err(serpsim::Error::Invalid(format!("{}: no sessions to fit on", path.display())));
        }
        p.phase(&format!("fitting {}", cfg_name(&cfg)), "passes", Some(passes(&cfg)));
        let n = data.log.len();
        let m = fit_passes(&cfg, &data.log, p)?;
        Ok(finish_model(m, data.vocab, n))
    })
}

/// Fits with the library's EM driver (parallel E-steps on the job's rayon pool), one
/// progress step per pass.
fn fit_passes(cfg: &ModelConfig, log: &ClickLog, p: &Progress) -> serpsim::Result<Box<dyn ClickModel>> {
    let opts = serpsim::clickmodels::driver::EmOptions::default();
    let (m, _) = cfg.fit_with(&mut &*log, &opts, &mut |pass| p.set_done(pass.pass as u64))?;
    Ok(m)
}

/// Fits `model` and computes its posterior (`serpsim clicks fit --posterior`), on a click-log
/// table (`log`) or a file (`path`). Returns a job whose result is (model, posterior records
/// as JSON, summary lines, parameters flagged as not converged, parameters checked, lines
/// skipped with `skip_bad_lines`, the first skipped line's error).
#[pyfunction]
#[pyo3(signature = (log, path, model, prior, level, chains, warmup, samples, thin, seed, draws, gamma, top_examination, exact, format, skip_bad_lines))]
#[allow(clippy::too_many_arguments)]
fn fit_posterior(
    py: Python<'_>,
    log: Option<&Bound<'_, PyAny>>,
    path: Option<PathBuf>,
    model: &str,
    prior: &str,
    level: f64,
    chains: usize,
    warmup: usize,
    samples: usize,
    thin: usize,
    seed: u64,
    draws: usize,
    gamma: Option<f64>,
    top_examination: Option<f64>,
    exact: bool,
    format: &str,
    skip_bad_lines: bool,
) -> PyResult<Job> {
    let kind: ModelKind = model.parse().map_err(|e| to_py(py, e))?;
    let em = config(py, model, 50, Some(0.0), gamma)?;
    let prior: PriorScope = prior.parse().map_err(|e| to_py(py, e))?;
    if exact && !matches!(kind, ModelKind::Sdbn | ModelKind::Dcm) {
        return Err(invalid(py, "exact applies to sdbn and dcm (the other models are exact already)"));
    }
    if let Some(t) = top_examination {
        serpsim::error::check_probability("posterior", "top_examination", t).map_err(|e| to_py(py, e))?;
    }
    let cfg = PosteriorConfig {
        prior,
        level,
        sampler: GibbsConfig { chains, warmup, draws: samples, thin, seed, ..Default::default() },
        keep_draws: draws,
        gamma: gamma.map_or(Gamma::Fitted, Gamma::Fixed),
        top_examination,
        exact,
    };
    cfg.sampler.validate().map_err(|e| to_py(py, e))?;
    /// Where the sessions come from: a table already read, or a file read on the job's thread.
    enum Source {
        Table(LogData),
        File(PathBuf, Format),
    }
    let source = match (log, path) {
        (Some(t), None) => {
            let mut data = LogData::default();
            data.log = read_log(py, t, &mut data, true, "log")?;
            Source::Table(data)
        }
        (None, Some(p)) => Source::File(p, format.parse::<Format>().map_err(|e| to_py(py, e))?),
        _ => return Err(invalid(py, "give a log table or a path")),
    };
    spawn(&format!("posterior of {model}"), None, move |p| {
        let data = match source {
            Source::Table(d) => d,
            Source::File(path, format) => {
                p.phase(&format!("reading {}", path.display()), "", None);
                LogData::read(&path, format, skip_bad_lines)?
            }
        };
        let skipped = (data.report.skipped_lines, data.report.first_error.clone());
        if data.log.is_empty() {
            return Err(serpsim::Error::Invalid("log: no sessions to fit on".into()));
        }
        // The total from the library's own count: it includes the Monte-Carlo EM sweeps of a
        // fitted prior (leaving them out showed "900 of 800 sweeps").
        let sweeps = cfg.sweeps(kind);
        p.phase(&format!("posterior of {}", cfg_name(&em)), "sweeps", sweeps);
        // Under the uniform prior the model is the usual EM fit (as `clicks fit` without
        // --top-examination); `top_examination` pins the posterior only.
        let opts = serpsim::clickmodels::driver::EmOptions::default();
        let tick = |n: u64| p.inc(n);
        let (m, post, _) = fit_model(&em, &opts, &data.log, data.vocab.pair_count(), Some(&cfg), &|_| {}, &tick)?;
        let post = post.expect("a posterior was asked for");
        let records = serde_json::to_string(&post.records(&data.vocab)).map_err(|e| serpsim::Error::Invalid(e.to_string()))?;
        let summary = post.summary_lines();
        let (flagged, checked) = post.diagnostics().map_or((0, 0), |d| (d.flagged, d.checked));
        let n = data.log.len();
        let finish = finish_model(m, data.vocab, n);
        Ok(Box::new(move |py: Python<'_>| -> PyResult<Py<PyAny>> {
            let model = finish(py)?;
            Ok((model, records, summary, flagged, checked, skipped.0, skipped.1).into_pyobject(py)?.into_any().unbind())
        }) as Finish)
    })
}

/// Reads a click-log file into a record batch (`query_id`, `docs`, `clicks`). Returns a job.
#[pyfunction]
#[pyo3(signature = (path, format="yandex", skip_bad_lines=false))]
fn read_log_path(py: Python<'_>, path: PathBuf, format: &str, skip_bad_lines: bool) -> PyResult<Job> {
    let format: Format = format.parse().map_err(|e| to_py(py, e))?;
    spawn(&format!("reading {}", path.display()), None, move |p| {
        p.phase(&format!("reading {}", path.display()), "", None);
        let data = LogData::read(&path, format, skip_bad_lines)?;
        let mut q = StringBuilder::new();
        let mut docs = ListBuilder::new(StringBuilder::new());
        let mut clicks = ListBuilder::new(BooleanBuilder::new());
        for s in data.log.iter() {
            q.append_value(&data.vocab.queries[s.query as usize]);
            for &pair in s.pairs {
                docs.values().append_value(&data.vocab.docs[data.vocab.pairs[pair as usize].1 as usize]);
            }
            docs.append(true);
            for &c in s.clicks {
                clicks.values().append_value(c);
            }
            clicks.append(true);
        }
        let batch = arrow_io::batch(vec![("query_id", Arc::new(q.finish())), ("docs", Arc::new(docs.finish())), ("clicks", Arc::new(clicks.finish()))]);
        let skipped = (data.report.skipped_lines, data.report.first_error.clone());
        Ok(Box::new(move |py: Python<'_>| {
            let b = arrow_io::to_python(py, batch)?;
            Ok((b, skipped.0, skipped.1).into_pyobject(py)?.into_any().unbind())
        }) as Finish)
    })
}

/// `serpsim clicks validate --split orderings` on a click-log table (`log`) or a file
/// (`path`). Returns a job whose result is the validation as JSON text.
#[pyfunction]
#[pyo3(signature = (log, path, models, folds, seed, iterations, tolerance, replicates, bootstrap, level, min_pair_sessions, format, skip_bad_lines, threads=None))]
#[allow(clippy::too_many_arguments)]
fn validate_orderings(
    py: Python<'_>,
    log: Option<&Bound<'_, PyAny>>,
    path: Option<PathBuf>,
    models: Vec<String>,
    folds: usize,
    seed: u64,
    iterations: usize,
    tolerance: Option<f64>,
    replicates: usize,
    bootstrap: usize,
    level: f64,
    min_pair_sessions: usize,
    format: &str,
    skip_bad_lines: bool,
    threads: Option<usize>,
) -> PyResult<Job> {
    use serpsim::clickmodels::orderings::{shift::shift_robustness, validate_orderings, OrderingsConfig};
    let models: Vec<ModelKind> = models.iter().map(|m| m.parse()).collect::<serpsim::Result<_>>().map_err(|e| to_py(py, e))?;
    // `None`: the library's default tolerance, as `serpsim clicks validate`.
    let tolerance = tolerance.unwrap_or(serpsim::clickmodels::driver::DEFAULT_TOLERANCE);
    let cfg = OrderingsConfig { models, folds, seed, em: EmConfig { iterations, tolerance }, replicates, bootstrap, level, min_pair_sessions };
    let format: Format = format.parse().map_err(|e| to_py(py, e))?;
    let mut data = LogData::default();
    if let Some(table) = log {
        data.log = read_log(py, table, &mut data, true, "log")?;
    }
    spawn("validating on held-out orderings", threads, move |p| {
        if let Some(path) = &path {
            p.phase(&format!("reading {}", path.display()), "", None);
            data = LogData::read(path, format, skip_bad_lines)?;
        }
        p.phase("validating on held-out orderings", "", None);
        let v = validate_orderings(&data.log, &cfg)?;
        p.phase("comparing seen and unseen orderings", "", None);
        let shift = shift_robustness(&data.log, &cfg)?;
        // The validation's object with the shift comparison added as `shift`.
        let json = |e: serde_json::Error| serpsim::Error::Invalid(e.to_string());
        let mut value = serde_json::to_value(&v).map_err(json)?;
        value["shift"] = serde_json::to_value(&shift).map_err(json)?;
        let text = serde_json::to_string(&value).map_err(json)?;
        Ok(Box::new(move |py: Python<'_>| Ok(text.into_pyobject(py)?.into_any().unbind())) as Finish)
    })
}

/// Loads a model file written by `serpsim clicks fit` or `ClickModel.save`.
#[pyfunction]
fn load(py: Python<'_>, path: PathBuf) -> PyResult<PyClickModel> {
    let (model, vocab) = guard(py, || io::load(&path))?;
    Ok(PyClickModel { model: Arc::from(model), vocab: Arc::new(vocab), sessions: 0 })
}

/// Parses a model from the JSON text of a model file.
#[pyfunction]
#[pyo3(signature = (text, name="<string>"))]
fn loads(py: Python<'_>, text: &str, name: &str) -> PyResult<PyClickModel> {
    let (model, vocab) = guard(py, || io::from_json_str(text, name))?;
    Ok(PyClickModel { model: Arc::from(model), vocab: Arc::new(vocab), sessions: 0 })
}

fn scores_dict<'py>(py: Python<'py>, s: &Scores, sessions: usize) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("test_sessions", sessions)?;
    d.set_item("log_likelihood", s.log_likelihood)?;
    d.set_item("perplexity", s.perplexity)?;
    d.set_item("perplexity_at_rank", s.perplexity_at_rank.clone())?;
    d.set_item("conditional_perplexity", s.conditional_perplexity)?;
    d.set_item("conditional_perplexity_at_rank", s.conditional_perplexity_at_rank.clone())?;
    d.set_item("ctr_rmse", s.ctr_rmse)?;
    Ok(d)
}

impl PyClickModel {
    /// Reads `table` against a copy of the model's vocabulary (new pairs get new indices,
    /// which the model answers with its prior).
    fn read(&self, py: Python<'_>, table: &Bound<'_, PyAny>, need_clicks: bool, what: &str) -> PyResult<(LogData, ClickLog)> {
        let mut data = LogData { vocab: (*self.vocab).clone(), ..Default::default() };
        let log = read_log(py, table, &mut data, need_clicks, what)?;
        Ok((data, log))
    }
}

#[pymethods]
impl PyClickModel {
    /// The model's short name (`dbn`, `sdbn`, ...).
    #[getter]
    fn kind(&self) -> &'static str {
        self.model.kind().name()
    }

    /// Sessions the model was fitted on (0 when loaded from a file).
    #[getter]
    fn sessions(&self) -> usize {
        self.sessions
    }

    /// The model as the CLI's JSON text.
    fn to_json(&self) -> String {
        io::to_json(self.model.as_ref(), &self.vocab).to_string()
    }

    /// Writes the model file (atomically).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        guard(py, || io::save(&path, self.model.as_ref(), &self.vocab))
    }

    /// `(scalars, per-rank vectors, matrices, per-pair record batch)`.
    fn param_tables(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, Py<PyAny>, Py<PyAny>, Py<PyAny>)> {
        let t = self.model.to_table();
        let scalars = PyDict::new(py);
        for (n, v) in &t.scalars {
            scalars.set_item(n, v)?;
        }
        let ranks = PyDict::new(py);
        for (n, v) in &t.ranks {
            ranks.set_item(n, v.clone())?;
        }
        let matrices = PyDict::new(py);
        for (n, v) in &t.matrices {
            matrices.set_item(n, v.clone())?;
        }
        let len = t.pairs.iter().map(|(_, v)| v.len()).max().unwrap_or(0).min(self.vocab.pairs.len());
        let (q, d): (Vec<&str>, Vec<&str>) = (0..len)
            .map(|i| {
                let (q, d) = self.vocab.pairs[i];
                (self.vocab.queries[q as usize].as_str(), self.vocab.docs[d as usize].as_str())
            })
            .unzip();
        let mut cols: Vec<(&str, ArrayRef)> = vec![("query_id", Arc::new(StringArray::from(q))), ("doc_id", Arc::new(StringArray::from(d)))];
        for (n, v) in &t.pairs {
            cols.push((n.as_str(), Arc::new(Float64Array::from(v[..len].to_vec()))));
        }
        let pairs = arrow_io::to_python(py, arrow_io::batch(cols))?;
        Ok((scalars.into_any().unbind(), ranks.into_any().unbind(), matrices.into_any().unbind(), pairs))
    }

    /// Scores on test sessions as the CLI's `clicks eval` computes them. With
    /// `known_queries_only` (PyClick's protocol, the CLI's default) sessions whose query the
    /// model has not seen are left out; the number used is returned as `test_sessions`.
    #[pyo3(signature = (test, known_queries_only=true))]
    fn evaluate<'py>(&self, py: Python<'py>, test: &Bound<'py, PyAny>, known_queries_only: bool) -> PyResult<Bound<'py, PyDict>> {
        let (_, log) = self.read(py, test, true, "test")?;
        let log = if known_queries_only {
            let known = ClickLog { queries: (0..self.vocab.queries.len() as u32).collect(), ..ClickLog::new() };
            restrict_to_train_queries(&known, &log)
        } else {
            log
        };
        let model = self.model.clone();
        let s = py.detach(|| evaluate(model.as_ref(), &log)).map_err(|e| to_py(py, e))?;
        scores_dict(py, &s, log.len())
    }

    /// P(click) per result of each SERP, as a long record batch
    /// (`serp`, `rank`, `query_id`, `doc_id`, `click_probability`).
    fn click_probabilities(&self, py: Python<'_>, serps: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let (data, log) = self.read(py, serps, false, "serps")?;
        let (mut serp, mut rank, mut q, mut d, mut p) = (vec![], vec![], vec![], vec![], vec![]);
        let mut probs = Vec::new();
        for (i, s) in log.iter().enumerate() {
            self.model.click_probs(s.pairs, &mut probs);
            for (r, (&pair, &pr)) in s.pairs.iter().zip(&probs).enumerate() {
                let (qi, di) = data.vocab.pairs[pair as usize];
                serp.push(i as u64);
                rank.push(r as u32 + 1);
                q.push(data.vocab.queries[qi as usize].clone());
                d.push(data.vocab.docs[di as usize].clone());
                p.push(pr);
            }
        }
        arrow_io::to_python(
            py,
            arrow_io::batch(vec![
                ("serp", Arc::new(UInt64Array::from(serp))),
                ("rank", Arc::new(UInt32Array::from(rank))),
                ("query_id", Arc::new(StringArray::from(q))),
                ("doc_id", Arc::new(StringArray::from(d))),
                ("click_probability", Arc::new(Float64Array::from(p))),
            ]),
        )
    }

    /// Simulates `n` sessions per SERP with the CLI's streams (`clicks simulate`): a record
    /// batch (`serp`, `replicate`, `query_id`, `docs`, `clicks`) in the click-log layout.
    #[pyo3(signature = (serps, n=1, seed=1))]
    fn simulate(&self, py: Python<'_>, serps: &Bound<'_, PyAny>, n: usize, seed: u64) -> PyResult<Py<PyAny>> {
        if n == 0 {
            return Err(invalid(py, "n must be at least 1"));
        }
        let (data, log) = self.read(py, serps, false, "serps")?;
        let model = self.model.clone();
        let sim = py.detach(|| serpsim::clickmodels::simulate_log(model.as_ref(), &log, n, seed));
        let (mut serp, mut rep) = (Vec::with_capacity(sim.len()), Vec::with_capacity(sim.len()));
        let mut q = StringBuilder::new();
        let mut docs = ListBuilder::new(StringBuilder::new());
        let mut clicks = ListBuilder::new(BooleanBuilder::new());
        for (i, s) in sim.iter().enumerate() {
            serp.push((i / n) as u64);
            rep.push((i % n) as u64);
            q.append_value(&data.vocab.queries[s.query as usize]);
            for &pair in s.pairs {
                let (_, di) = data.vocab.pairs[pair as usize];
                docs.values().append_value(&data.vocab.docs[di as usize]);
            }
            docs.append(true);
            for &c in s.clicks {
                clicks.values().append_value(c);
            }
            clicks.append(true);
        }
        arrow_io::to_python(
            py,
            arrow_io::batch(vec![
                ("serp", Arc::new(UInt64Array::from(serp))),
                ("replicate", Arc::new(UInt64Array::from(rep))),
                ("query_id", Arc::new(q.finish())),
                ("docs", Arc::new(docs.finish())),
                ("clicks", Arc::new(clicks.finish())),
            ]),
        )
    }

    fn __repr__(&self) -> String {
        format!("<serpsim ClickModel {}: {} query-document pairs>", self.model.kind().name(), self.vocab.pair_count())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyClickModel>()?;
    m.add_function(wrap_pyfunction!(fit_table, m)?)?;
    m.add_function(wrap_pyfunction!(fit_path, m)?)?;
    m.add_function(wrap_pyfunction!(fit_posterior, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(read_log_path, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(validate_orderings, m)?)?;
    Ok(())
}
