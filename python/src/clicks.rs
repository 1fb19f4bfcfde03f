//! Click models from Python: fit from an Arrow table or a log file, evaluate, predict, simulate,
//! save and load (the CLI's JSON format).

use crate::arrow_io;
use crate::errors::{guard, invalid, to_py, UInt};
use crate::job::{spawn, Finish, Job};
use arrow_array::builder::{BooleanBuilder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, Float64Array, StringArray, UInt32Array, UInt64Array};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObject;
use serpsim::clickmodels::driver::FitSummary;
use serpsim::clickmodels::eval::{evaluate, restrict_to_train_queries, Scores};
use serpsim::clickmodels::fitting::{FitObserver, FitParams, FitPhase, FitPlan, Fitted, SamplerParams, TopExamination};
use serpsim::clickmodels::labels::{LabelInputs, LabelRequest};
use serpsim::clickmodels::portable::ByGrade;
use serpsim::clickmodels::{io, ClickModel, EmConfig, Gamma, ModelKind};
use serpsim::logs::{ClickLog, Format, LogData, Vocab};
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

/// The arguments of a fit as the library's settings, field for field (`tolerance` `None`:
/// the library's default, the CLI's); every default, limit and choice that follows is the
/// library's ([`FitParams::check`]).
fn params(py: Python<'_>, model: &str, iterations: usize, tolerance: Option<f64>, gamma: Option<f64>, prior: Option<&str>) -> PyResult<FitParams> {
    let kind: ModelKind = model.parse().map_err(|e| to_py(py, e))?;
    let mut p = FitParams::new(kind);
    p.iterations = iterations;
    if let Some(t) = tolerance {
        p.tolerance = t;
    }
    p.gamma = gamma.map_or(Gamma::Fitted, Gamma::Fixed);
    p.prior = prior.map(str::parse).transpose().map_err(|e| to_py(py, e))?;
    Ok(p)
}

/// Checks `params` ([`FitParams::check`]).
fn plan(py: Python<'_>, params: &FitParams) -> PyResult<FitPlan> {
    params.check().map_err(|e| to_py(py, e))
}

/// Shows a fit's progress on the job's [`Progress`]; the notes a fit returns are kept on the
/// model (`label_notes`, `grade_report`) or returned (the posterior's summary lines).
struct Watch<'a> {
    p: &'a Progress,
    /// Whether the sampler's sweeps are shown (EM passes of a posterior's point fit are not).
    sweeping: std::sync::atomic::AtomicBool,
}

impl<'a> Watch<'a> {
    fn new(p: &'a Progress) -> Self {
        Watch { p, sweeping: false.into() }
    }
}

impl FitObserver for Watch<'_> {
    fn phase(&self, phase: FitPhase<'_>) {
        use std::sync::atomic::Ordering::Relaxed;
        match phase {
            FitPhase::Passes(kind, total) => self.p.phase(&format!("fitting {kind}"), "passes", Some(total)),
            FitPhase::Sweeps(kind, total) => {
                self.sweeping.store(true, Relaxed);
                self.p.phase(&format!("posterior of {kind}"), "sweeps", total)
            }
            FitPhase::ByGrade(kind) => self.p.phase(&format!("fitting {kind} by relevance grade"), "", None),
            FitPhase::Reading(name) => self.p.phase(&format!("reading {name}"), "", None),
        }
    }
    fn pass(&self, pass: &serpsim::clickmodels::driver::PassInfo) {
        if !self.sweeping.load(std::sync::atomic::Ordering::Relaxed) {
            self.p.set_done(pass.pass as u64);
        }
    }
    fn sweeps(&self, n: u64) {
        self.p.inc(n);
    }
}

/// A fitted or loaded click model.
#[pyclass(module = "serpsim._serpsim", name = "ClickModel", frozen)]
pub struct PyClickModel {
    model: Arc<dyn ClickModel>,
    vocab: Arc<Vocab>,
    sessions: usize,
    /// How the EM fit ended (the model file's `fit`), kept by fits with labels.
    fit: Option<FitSummary>,
    /// Per-grade values fitted with labels (the model file's `grades`, `grade_fit`, `labels`).
    grades: Option<Arc<ByGrade>>,
    /// What the label reader found and assumed ([`LabelSummary::notes`]).
    label_notes: Vec<String>,
    /// The per-grade fit's report ([`ByGrade::report_lines`]).
    grade_report: Vec<String>,
}

impl PyClickModel {
    fn plain(model: Box<dyn ClickModel>, vocab: Vocab, sessions: usize) -> Self {
        PyClickModel { model: Arc::from(model), vocab: Arc::new(vocab), sessions, fit: None, grades: None, label_notes: Vec::new(), grade_report: Vec::new() }
    }
}

impl From<Fitted> for PyClickModel {
    fn from(f: Fitted) -> Self {
        PyClickModel {
            model: Arc::from(f.model),
            vocab: Arc::new(f.vocab),
            sessions: f.sessions as usize,
            fit: f.summary,
            grades: f.grades.map(Arc::new),
            label_notes: f.label_notes,
            grade_report: f.grade_report,
        }
    }
}

fn finish_fitted(f: Fitted) -> Finish {
    let m = PyClickModel::from(f);
    Box::new(move |py| Ok(Py::new(py, m)?.into_any()))
}

/// The label file of a fit and how to read it (`serpsim clicks fit --labels ...`), checked by
/// the library ([`LabelInputs::resolve`]); made by [`labels`].
#[pyclass(module = "serpsim._serpsim", name = "Labels", frozen)]
pub struct PyLabels {
    request: LabelRequest,
    /// The name the notes give the file (a frame written to a temporary file is named so).
    name: String,
    seed: u64,
}

/// `label_columns` as `--label-columns` text: a string as it is, or a mapping of keys to
/// 1-based columns (`{"query": 1, "doc": 3, "label": 6}`).
fn columns_text(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = v.extract::<String>() {
        return Ok(s);
    }
    let d = v.cast::<PyDict>().map_err(|_| {
        invalid(py, "label_columns: give a string such as \"query=1,doc=3,label=6\" or a dict such as {\"query\": 1, \"doc\": 3, \"label\": 6}")
    })?;
    let mut parts = Vec::new();
    for (k, c) in d.iter() {
        let k: String = k.extract().map_err(|_| invalid(py, "label_columns: the keys are query, doc, label and region"))?;
        let c: i64 = c.extract().map_err(|_| invalid(py, format!("label_columns: column of `{k}` is not an integer")))?;
        parts.push(format!("{k}={c}"));
    }
    Ok(parts.join(","))
}

/// `grade_map` as `--grade-map` text: a string as it is, or a mapping of file grades to grades
/// (`{0: 0, 1: 1, 2: 1}`).
fn grade_map_text(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = v.extract::<String>() {
        return Ok(s);
    }
    let d = v.cast::<PyDict>().map_err(|_| invalid(py, "grade_map: give a string such as \"0:0,1:1,2:1\" or a dict such as {0: 0, 1: 1, 2: 1}"))?;
    let mut parts = Vec::new();
    for (a, b) in d.iter() {
        let a: i64 = a.extract().map_err(|_| invalid(py, format!("grade_map: grade `{a}` is not an integer")))?;
        let b: i64 = b.extract().map_err(|_| invalid(py, format!("grade_map: grade `{b}` is not an integer")))?;
        parts.push(format!("{a}:{b}"));
    }
    Ok(parts.join(","))
}

/// Checks the label arguments of `fit` as `serpsim clicks fit` checks its flags (`path` is
/// `--labels`; `label_format` `None` is trec): `None` when no label file is given.
#[pyfunction]
#[pyo3(signature = (path, name=None, label_format=None, label_columns=None, label_header=false, unjudged=None, unjudged_grade=None, grade_map=None, grade_bootstrap=None, seed=UInt(1)))]
#[allow(clippy::too_many_arguments)]
fn labels(
    py: Python<'_>,
    path: Option<PathBuf>,
    name: Option<String>,
    label_format: Option<&str>,
    label_columns: Option<&Bound<'_, PyAny>>,
    label_header: bool,
    unjudged: Option<i32>,
    unjudged_grade: Option<i32>,
    grade_map: Option<&Bound<'_, PyAny>>,
    grade_bootstrap: Option<UInt>,
    seed: UInt,
) -> PyResult<Option<PyLabels>> {
    let grade_bootstrap = crate::errors::opt_usize(py, grade_bootstrap, "clicks.labels", "grade_bootstrap")?;
    let seed = seed.u64(py, "clicks.labels", "seed")?;
    let columns = label_columns.map(|c| columns_text(py, c)).transpose()?;
    let map = grade_map.map(|m| grade_map_text(py, m)).transpose()?;
    let inputs = LabelInputs {
        labels: path.as_deref(),
        qrels: None,
        format: label_format,
        columns: columns.as_deref(),
        header: label_header,
        unjudged,
        unjudged_grade,
        grade_map: map.as_deref(),
        grade_bootstrap,
    };
    let request = guard(py, || inputs.resolve())?;
    Ok(request.map(|request| {
        let name = name.unwrap_or_else(|| request.path.display().to_string());
        PyLabels { request, name, seed }
    }))
}

/// Sets the label file of `labels` on `params` (its name, and its seed for the bootstrap).
fn with_labels(params: &mut FitParams, labels: Option<PyRef<'_, PyLabels>>) {
    if let Some(l) = labels {
        params.labels = Some(l.request.clone());
        params.labels_name = Some(l.name.clone());
        params.sampler.seed = l.seed;
    }
}

/// Fits `data` with `plan` on the job's pool (as `serpsim clicks fit` in memory): the labels
/// are read after the log, before fitting.
fn fit_data(plan: &FitPlan, data: LogData, p: &Progress) -> serpsim::Result<Finish> {
    let watch = Watch::new(p);
    let labels = plan.read_labels(&watch)?;
    Ok(finish_fitted(plan.fit_log(data, labels, &watch)?))
}

/// Fits `model` on a click-log table, with the per-grade values of `labels` when given.
/// Returns a job.
#[pyfunction]
#[pyo3(signature = (log, model, iterations=UInt(50), tolerance=None, gamma=None, threads=None, labels=None, prior=None, seed=UInt(1)))]
#[allow(clippy::too_many_arguments)]
fn fit_table(
    py: Python<'_>,
    log: &Bound<'_, PyAny>,
    model: &str,
    iterations: UInt,
    tolerance: Option<f64>,
    gamma: Option<f64>,
    threads: Option<UInt>,
    labels: Option<PyRef<'_, PyLabels>>,
    prior: Option<&str>,
    seed: UInt,
) -> PyResult<Job> {
    let iterations = iterations.usize(py, "clicks.fit", "iterations")?;
    let threads = crate::errors::opt_usize(py, threads, "clicks.fit", "threads")?;
    let mut params = params(py, model, iterations, tolerance, gamma, prior)?;
    params.sampler.seed = seed.u64(py, "clicks.fit", "seed")?;
    with_labels(&mut params, labels);
    let plan = plan(py, &params)?;
    let mut data = LogData::default();
    data.log = read_log(py, log, &mut data, true, "log")?;
    if data.log.is_empty() {
        return Err(invalid(py, "log: no sessions to fit on"));
    }
    spawn(&format!("fitting {model}"), threads, move |p| fit_data(&plan, data, p))
}

/// Fits `model` on a log file (plain or compressed; `-` is stdin). Returns a job.
#[pyfunction]
#[pyo3(signature = (path, model, format="yandex", iterations=UInt(50), tolerance=None, gamma=None, skip_bad_lines=false, threads=None, labels=None, prior=None, seed=UInt(1)))]
#[allow(clippy::too_many_arguments)]
fn fit_path(
    py: Python<'_>,
    path: PathBuf,
    model: &str,
    format: &str,
    iterations: UInt,
    tolerance: Option<f64>,
    gamma: Option<f64>,
    skip_bad_lines: bool,
    threads: Option<UInt>,
    labels: Option<PyRef<'_, PyLabels>>,
    prior: Option<&str>,
    seed: UInt,
) -> PyResult<Job> {
    let iterations = iterations.usize(py, "clicks.fit", "iterations")?;
    let threads = crate::errors::opt_usize(py, threads, "clicks.fit", "threads")?;
    let mut params = params(py, model, iterations, tolerance, gamma, prior)?;
    params.sampler.seed = seed.u64(py, "clicks.fit", "seed")?;
    with_labels(&mut params, labels);
    let plan = plan(py, &params)?;
    let format: Format = format.parse().map_err(|e| to_py(py, e))?;
    spawn(&format!("reading {}", path.display()), threads, move |p| {
        p.phase(&format!("reading {}", path.display()), "", None);
        let data = LogData::read(&path, format, skip_bad_lines)?;
        if data.log.is_empty() {
            return Err(serpsim::Error::Invalid(format!("{}: no sessions to fit on", path.display())));
        }
        fit_data(&plan, data, p)
    })
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
    chains: UInt,
    warmup: UInt,
    samples: UInt,
    thin: UInt,
    seed: UInt,
    draws: UInt,
    gamma: Option<f64>,
    top_examination: Option<&Bound<'_, PyAny>>,
    exact: bool,
    format: &str,
    skip_bad_lines: bool,
) -> PyResult<Job> {
    let chains = chains.usize(py, "clicks.fit", "chains")?;
    let warmup = warmup.usize(py, "clicks.fit", "warmup")?;
    let samples = samples.usize(py, "clicks.fit", "samples")?;
    let thin = thin.usize(py, "clicks.fit", "thin")?;
    let seed = seed.u64(py, "clicks.fit", "seed")?;
    let draws = draws.usize(py, "clicks.fit", "draws")?;
    let mut params = params(py, model, 50, None, gamma, Some(prior))?;
    params.posterior = true;
    params.keep_draws = draws;
    params.sampler = SamplerParams { level, chains, warmup, samples, thin, seed, exact };
    // `None` is free, `"default"` the library's default (held at 1 for ubm and pbm).
    params.top_examination = match top_examination {
        None => TopExamination::Free,
        Some(v) if v.extract::<String>().is_ok_and(|s| s == "default") => TopExamination::Default,
        Some(v) => TopExamination::Held(v.extract::<f64>().map_err(|_| invalid(py, "top_examination: give a probability, None (free) or \"default\""))?),
    };
    let plan = plan(py, &params)?;
    /// Where the sessions come from: a table already read, or a file read on the job's thread.
    // One value per call, moved once into the job: its size does not matter.
    #[allow(clippy::large_enum_variant)]
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
        let fitted = plan.fit_log(data, None, &Watch::new(p))?;
        let post = fitted.posterior.as_ref().expect("a posterior was asked for");
        let records = serde_json::to_string(&post.records(&fitted.vocab)).map_err(|e| serpsim::Error::Invalid(e.to_string()))?;
        let summary = post.summary_lines();
        let (flagged, checked) = post.diagnostics().map_or((0, 0), |d| (d.flagged, d.checked));
        let finish = finish_fitted(fitted);
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
    folds: UInt,
    seed: UInt,
    iterations: UInt,
    tolerance: Option<f64>,
    replicates: UInt,
    bootstrap: UInt,
    level: f64,
    min_pair_sessions: UInt,
    format: &str,
    skip_bad_lines: bool,
    threads: Option<UInt>,
) -> PyResult<Job> {
    let folds = folds.usize(py, "clicks.validate_orderings", "folds")?;
    let seed = seed.u64(py, "clicks.validate_orderings", "seed")?;
    let iterations = iterations.usize(py, "clicks.validate_orderings", "iterations")?;
    let replicates = replicates.usize(py, "clicks.validate_orderings", "replicates")?;
    let bootstrap = bootstrap.usize(py, "clicks.validate_orderings", "bootstrap")?;
    let min_pair_sessions = min_pair_sessions.usize(py, "clicks.validate_orderings", "min_pair_sessions")?;
    let threads = crate::errors::opt_usize(py, threads, "clicks.validate_orderings", "threads")?;
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
    let (model, vocab, grades) = guard(py, || io::load_with_grades(&path))?;
    Ok(PyClickModel { grades: grades.map(Arc::new), ..PyClickModel::plain(model, vocab, 0) })
}

/// Parses a model from the JSON text of a model file.
#[pyfunction]
#[pyo3(signature = (text, name="<string>"))]
fn loads(py: Python<'_>, text: &str, name: &str) -> PyResult<PyClickModel> {
    let (model, vocab, grades) = guard(py, || io::from_json_str_with_grades(text, name))?;
    Ok(PyClickModel { grades: grades.map(Arc::new), ..PyClickModel::plain(model, vocab, 0) })
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

    /// The model as the CLI's JSON text (with `fit`, `grades`, `grade_fit` and `labels` when
    /// fitted with labels, as `clicks fit --labels` writes them).
    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        guard(py, || io::full_text(self.model.as_ref(), &self.vocab, self.fit.as_ref(), self.grades.as_deref()))
    }

    /// Writes the model file (atomically), as `to_json`.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        guard(py, || io::save_full(&path, self.model.as_ref(), &self.vocab, self.fit.as_ref(), self.grades.as_deref()))
    }

    /// What reading the label file found and assumed, one line each (the lines `clicks fit
    /// --labels` prints on stderr); empty without labels.
    #[getter]
    fn label_notes(&self) -> Vec<String> {
        self.label_notes.clone()
    }

    /// The per-grade fit's report (the lines `clicks fit --labels` prints on stderr); empty
    /// without labels or for a loaded model.
    #[getter]
    fn grade_report(&self) -> Vec<String> {
        self.grade_report.clone()
    }

    /// The per-grade values as the model file's `grades` JSON text, `None` without them.
    fn grades_json(&self) -> Option<String> {
        self.grades.as_ref().map(|g| g.to_json().to_string())
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
    #[pyo3(signature = (serps, n=UInt(1), seed=UInt(1)))]
    fn simulate(&self, py: Python<'_>, serps: &Bound<'_, PyAny>, n: UInt, seed: UInt) -> PyResult<Py<PyAny>> {
        let n = n.usize(py, "ClickModel.simulate", "n")?;
        let seed = seed.u64(py, "ClickModel.simulate", "seed")?;
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
    m.add_class::<PyLabels>()?;
    m.add_function(wrap_pyfunction!(labels, m)?)?;
    m.add_function(wrap_pyfunction!(fit_table, m)?)?;
    m.add_function(wrap_pyfunction!(fit_path, m)?)?;
    m.add_function(wrap_pyfunction!(fit_posterior, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(read_log_path, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(validate_orderings, m)?)?;
    Ok(())
}
