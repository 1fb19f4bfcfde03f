//! Evaluation from Python: qrels and runs as Arrow tables (ir_measures' column names) or as
//! files, measured by the library's own evaluation (the code of `serpsim eval`), with its
//! measure-name parser, output formats, ranking agreement and paired significance tests.

use crate::arrow_io::{self, read_batches};
use crate::errors::{to_py, UInt};
use crate::job::{spawn, Finish, Job};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch, StringArray, UInt64Array};
use arrow_schema::DataType;
use pyo3::prelude::*;
use serpsim::metrics::output::{agreement_csv, comparisons_csv, paired_comparisons, ranking_agreement, to_csv, to_json, to_trec};
use serpsim::metrics::{evaluate as evaluate_runs, EvalOptions, Evaluation, Judgements, MeasurePlan, RankedRun, RunOptions};
use serpsim::Error;
use std::path::PathBuf;
use std::sync::Arc;

/// A table or a file, read on the worker thread.
enum Source {
    Table(Vec<RecordBatch>),
    Path(PathBuf),
}

fn source(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Source> {
    if let Ok(p) = obj.extract::<PathBuf>() {
        return Ok(Source::Path(p));
    }
    Ok(Source::Table(read_batches(obj, what)?))
}

fn col<'a>(b: &'a RecordBatch, name: &str, what: &str) -> serpsim::Result<&'a ArrayRef> {
    b.column_by_name(name).ok_or_else(|| {
        let present: Vec<&str> = b.schema_ref().fields().iter().map(|f| f.name().as_str()).collect();
        Error::Invalid(format!("{what}: missing column `{name}` (columns present: {})", present.join(", ")))
    })
}

/// One batch's id column: Arrow strings read in place, or integers formatted once.
enum IdCol<'a> {
    Utf8(&'a arrow_array::StringArray),
    Large(&'a arrow_array::LargeStringArray),
    View(&'a arrow_array::StringViewArray),
    Owned(Vec<String>),
}

impl IdCol<'_> {
    fn len(&self) -> usize {
        match self {
            IdCol::Utf8(a) => a.len(),
            IdCol::Large(a) => a.len(),
            IdCol::View(a) => a.len(),
            IdCol::Owned(v) => v.len(),
        }
    }

    fn get(&self, i: usize) -> &str {
        match self {
            IdCol::Utf8(a) => a.value(i),
            IdCol::Large(a) => a.value(i),
            IdCol::View(a) => a.value(i),
            IdCol::Owned(v) => &v[i],
        }
    }
}

/// Ids of one column over every batch, without copying string data.
struct Ids<'a> {
    cols: Vec<IdCol<'a>>,
}

impl<'a> Ids<'a> {
    fn read(batches: &'a [RecordBatch], name: &str, what: &str) -> serpsim::Result<Ids<'a>> {
        let mut cols = Vec::with_capacity(batches.len());
        let mut base = 0;
        for b in batches {
            let a = col(b, name, what)?;
            if a.null_count() > 0 {
                let i = (0..a.len()).find(|&i| a.is_null(i)).unwrap_or(0);
                return Err(Error::Invalid(format!("{what}: row {}: `{name}` is null", base + i)));
            }
            macro_rules! ints {
                ($t:ty) => {
                    IdCol::Owned(a.as_primitive::<$t>().values().iter().map(|v| v.to_string()).collect())
                };
            }
            cols.push(match a.data_type() {
                DataType::Utf8 => IdCol::Utf8(a.as_string::<i32>()),
                DataType::LargeUtf8 => IdCol::Large(a.as_string::<i64>()),
                DataType::Utf8View => IdCol::View(a.as_string_view()),
                DataType::Int8 => ints!(Int8Type),
                DataType::Int16 => ints!(Int16Type),
                DataType::Int32 => ints!(Int32Type),
                DataType::Int64 => ints!(Int64Type),
                DataType::UInt8 => ints!(UInt8Type),
                DataType::UInt16 => ints!(UInt16Type),
                DataType::UInt32 => ints!(UInt32Type),
                DataType::UInt64 => ints!(UInt64Type),
                other => return Err(Error::Invalid(format!("{what}: column `{name}`: expected strings or integers, found Arrow type {other}"))),
            });
            base += b.num_rows();
        }
        Ok(Ids { cols })
    }

    fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.cols.iter().flat_map(|c| (0..c.len()).map(move |i| c.get(i)))
    }
}

/// A numeric column over every batch as f64 (`integral`: integers only, as for grades).
fn numbers(batches: &[RecordBatch], name: &str, what: &str, integral: bool) -> serpsim::Result<Vec<f64>> {
    let mut out = Vec::new();
    for b in batches {
        let a = col(b, name, what)?;
        let base = out.len();
        if a.null_count() > 0 {
            let i = (0..a.len()).find(|&i| a.is_null(i)).unwrap_or(0);
            return Err(Error::Invalid(format!("{what}: row {}: `{name}` is null", base + i)));
        }
        macro_rules! prim {
            ($t:ty) => {
                out.extend(a.as_primitive::<$t>().values().iter().map(|&v| v as f64))
            };
        }
        match a.data_type() {
            DataType::Int8 => prim!(Int8Type),
            DataType::Int16 => prim!(Int16Type),
            DataType::Int32 => prim!(Int32Type),
            DataType::Int64 => prim!(Int64Type),
            DataType::UInt8 => prim!(UInt8Type),
            DataType::UInt16 => prim!(UInt16Type),
            DataType::UInt32 => prim!(UInt32Type),
            DataType::UInt64 => prim!(UInt64Type),
            DataType::Float32 if !integral => prim!(Float32Type),
            DataType::Float64 if !integral => out.extend_from_slice(a.as_primitive::<Float64Type>().values()),
            other => {
                let want = if integral { "integers" } else { "numbers" };
                return Err(Error::Invalid(format!("{what}: column `{name}`: expected {want}, found Arrow type {other}")));
            }
        }
    }
    Ok(out)
}

/// A score column over every batch: float64 read in place, other numbers converted.
struct Scores<'a> {
    cols: Vec<std::borrow::Cow<'a, [f64]>>,
}

impl<'a> Scores<'a> {
    fn read(batches: &'a [RecordBatch], name: &str, what: &str) -> serpsim::Result<Scores<'a>> {
        let mut cols = Vec::with_capacity(batches.len());
        for b in batches {
            let a = col(b, name, what)?;
            if a.data_type() == &DataType::Float64 && a.null_count() == 0 {
                cols.push(std::borrow::Cow::Borrowed(&a.as_primitive::<Float64Type>().values()[..]));
            } else {
                cols.push(std::borrow::Cow::Owned(numbers(std::slice::from_ref(b), name, what, false)?));
            }
        }
        Ok(Scores { cols })
    }

    fn iter(&self) -> impl Iterator<Item = f64> + '_ {
        self.cols.iter().flat_map(|c| c.iter().copied())
    }
}

/// Judgements from a qrels table (`query_id`, `doc_id`, `relevance`; `iteration` ignored),
/// with the qrels reader's checks and messages (line N is row N - 1), straight from the Arrow
/// columns (no text copy of the table).
fn judgements_from_table(batches: &[RecordBatch]) -> serpsim::Result<Judgements> {
    let what = "qrels";
    let q = Ids::read(batches, "query_id", what)?;
    let d = Ids::read(batches, "doc_id", what)?;
    let rel = numbers(batches, "relevance", what, true)?;
    if let Some((i, g)) = rel.iter().enumerate().find(|(_, g)| **g < i32::MIN as f64 || **g > i32::MAX as f64) {
        return Err(Error::Invalid(format!("{what}: row {i}: relevance {g} is out of range")));
    }
    let rows = q.iter().zip(d.iter()).zip(rel.iter()).enumerate().map(|(row, ((q, d), &g))| {
        check_id(q, "query_id", what, row)?;
        check_id(d, "doc_id", what, row)?;
        Ok((q.as_bytes(), d.as_bytes(), g as i32))
    });
    Judgements::from_rows(&format!("{what} (table; line = row + 1)"), rows)
}

/// Ids are those a qrels or run file could hold: not empty, no white space.
fn check_id(id: &str, column: &str, what: &str, row: usize) -> serpsim::Result<()> {
    if id.is_empty() || id.bytes().any(|b| b.is_ascii_whitespace()) {
        return Err(Error::Invalid(format!("{what}: row {row}: column `{column}`: `{id}` is empty or contains white space")));
    }
    Ok(())
}

/// A subtopic qrels table (`query_id`, `subtopic`, `doc_id`, `relevance`) as the text of a
/// subtopic qrels file (`topic subtopic docno grade`), read by the file reader with its checks.
fn subtopic_text(batches: &[RecordBatch]) -> serpsim::Result<String> {
    let what = "subtopics";
    let q = Ids::read(batches, "query_id", what)?;
    let s = Ids::read(batches, "subtopic", what)?;
    let d = Ids::read(batches, "doc_id", what)?;
    let rel = numbers(batches, "relevance", what, true)?;
    let mut out = String::new();
    for (row, (((q, s), d), g)) in q.iter().zip(s.iter()).zip(d.iter()).zip(rel.iter()).enumerate() {
        check_id(q, "query_id", what, row)?;
        check_id(s, "subtopic", what, row)?;
        check_id(d, "doc_id", what, row)?;
        out.push_str(&format!("{q} {s} {d} {g}\n"));
    }
    Ok(out)
}

fn run_from_table(j: &Judgements, name: &str, batches: &[RecordBatch]) -> serpsim::Result<RankedRun> {
    let what = format!("run `{name}`");
    let q = Ids::read(batches, "query_id", &what)?;
    let d = Ids::read(batches, "doc_id", &what)?;
    let s = Scores::read(batches, "score", &what)?;
    let tag = if name.is_empty() || name.bytes().any(|b| b.is_ascii_whitespace()) { "run" } else { name };
    let rows = q.iter().zip(d.iter()).zip(s.iter()).enumerate().map(|(row, ((q, d), s))| {
        check_id(q, "query_id", &what, row)?;
        check_id(d, "doc_id", &what, row)?;
        if !s.is_finite() {
            return Err(Error::Invalid(format!("{what}: row {row}: score {s} is not a finite number")));
        }
        Ok((q.as_bytes(), d.as_bytes(), s))
    });
    RankedRun::from_rows(j, &format!("{what} (table; line = row + 1)"), tag.to_string(), rows, &RunOptions::default())
}

/// A finished evaluation: every run on every measure, per query.
#[pyclass(module = "serpsim._serpsim", name = "Evaluation", frozen)]
pub struct PyEvaluation {
    e: Arc<Evaluation>,
}

/// Evaluates `runs` (a list of `(name or None, table or path)`) against `qrels` (a table or a
/// path) on `measures` (serpsim eval's names). Returns a job.
#[pyfunction]
#[pyo3(signature = (qrels, runs, measures, complete=false, threads=None, subtopics=None))]
fn evaluate(
    py: Python<'_>,
    qrels: &Bound<'_, PyAny>,
    runs: Vec<(Option<String>, Bound<'_, PyAny>)>,
    measures: Vec<String>,
    complete: bool,
    threads: Option<UInt>,
    subtopics: Option<Bound<'_, PyAny>>,
) -> PyResult<Job> {
    let threads = crate::errors::opt_usize(py, threads, "evaluate", "threads")?;
    let plan = if measures.is_empty() { MeasurePlan::official() } else { MeasurePlan::parse(&measures).map_err(|e| to_py(py, e))? };
    let qrels = source(qrels, "qrels")?;
    let subtopics = subtopics.map(|s| source(&s, "subtopics")).transpose()?;
    let mut sources = Vec::with_capacity(runs.len());
    for (i, (name, obj)) in runs.iter().enumerate() {
        let label = name.clone().unwrap_or_else(|| format!("runs[{i}]"));
        sources.push((name.clone(), source(obj, &format!("run `{label}`"))?));
    }
    let opts = EvalOptions { complete, ..EvalOptions::default() };
    spawn("evaluating", threads, move |p| {
        p.phase("reading qrels", "", None);
        let j = match &qrels {
            Source::Path(path) => Judgements::read(path)?,
            Source::Table(b) => judgements_from_table(b)?,
        };
        let mut j = j;
        match &subtopics {
            None => {}
            Some(Source::Path(path)) => j.add_subtopics(&serpsim::input::read_to_string(path)?, &path.display().to_string())?,
            Some(Source::Table(b)) => j.add_subtopics(&subtopic_text(b)?, "subtopics (table; line = row + 1)")?,
        }
        p.phase("reading runs", "runs", Some(sources.len() as u64));
        let mut mapped = Vec::with_capacity(sources.len());
        for (i, (name, src)) in sources.iter().enumerate() {
            serpsim::interrupt::check()?;
            let run = match src {
                Source::Path(path) => RankedRun::read(&j, path, &RunOptions::default())?,
                Source::Table(b) => run_from_table(&j, name.as_deref().unwrap_or(&format!("run{i}")), b)?,
            };
            mapped.push((name.clone(), run));
            p.inc(1);
        }
        p.phase("evaluating", "", None);
        let (names, mapped): (Vec<Option<String>>, Vec<RankedRun>) = mapped.into_iter().unzip();
        let mut e = evaluate_runs(&j, &mapped, &plan, &opts)?;
        // A name given in Python replaces the run's tag (trec_eval's runid).
        for (r, n) in e.runs.iter_mut().zip(names) {
            if let Some(n) = n {
                *r = n;
            }
        }
        Ok(Box::new(move |py: Python<'_>| Ok(Py::new(py, PyEvaluation { e: Arc::new(e) })?.into_any())) as Finish)
    })
}

/// The label `serpsim eval` gives a measure name (its canonical spelling); raises on an
/// unknown name with the parser's message.
#[pyfunction]
fn measure_label(py: Python<'_>, name: &str) -> PyResult<String> {
    MeasurePlan::parse(&[name]).map(|p| p.columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>().join(" ")).map_err(|e| to_py(py, e))
}

fn strings(v: impl IntoIterator<Item = String>) -> ArrayRef {
    Arc::new(StringArray::from(v.into_iter().collect::<Vec<_>>()))
}

fn floats(v: Vec<f64>) -> ArrayRef {
    Arc::new(Float64Array::from(v))
}

#[pymethods]
impl PyEvaluation {
    /// Run names, in the order given.
    #[getter]
    fn runs(&self) -> Vec<String> {
        self.e.runs.clone()
    }

    /// Measure labels, in the order given.
    #[getter]
    fn measures(&self) -> Vec<String> {
        self.e.columns.iter().map(|c| c.name.clone()).collect()
    }

    /// Query ids of the qrels, in qrels order.
    #[getter]
    fn query_ids(&self) -> Vec<String> {
        self.e.topics.clone()
    }

    /// Per run: run topics that had no judgements (left out).
    #[getter]
    fn dropped_topics(&self) -> Vec<usize> {
        self.e.dropped_topics.clone()
    }

    /// Long table `run, query_id, measure, value` (queries left out are absent).
    fn per_query(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let e = &self.e;
        let (mut r, mut q, mut m, mut v) = (vec![], vec![], vec![], vec![]);
        for (ri, run) in e.runs.iter().enumerate() {
            for (ti, topic) in e.topics.iter().enumerate() {
                for (mi, metric) in e.columns.iter().map(|c| &c.name).enumerate() {
                    if let Some(x) = e.values[ri][mi][ti] {
                        r.push(run.clone());
                        q.push(topic.clone());
                        m.push(metric.clone());
                        v.push(x);
                    }
                }
            }
        }
        arrow_io::to_python(py, arrow_io::batch(vec![("run", strings(r)), ("query_id", strings(q)), ("measure", strings(m)), ("value", floats(v))]))
    }

    /// Table `run, measure, value, queries`: the CLI's `all` row (sum for counts, else the
    /// mean) and the number of queries it is over.
    fn aggregate(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let e = &self.e;
        let (mut r, mut m, mut v, mut n) = (vec![], vec![], vec![], vec![]);
        for (ri, run) in e.runs.iter().enumerate() {
            for (mi, metric) in e.columns.iter().map(|c| &c.name).enumerate() {
                r.push(run.clone());
                m.push(metric.clone());
                v.push(e.summary(ri, mi));
                n.push(e.values[ri][mi].iter().flatten().count() as u64);
            }
        }
        arrow_io::to_python(
            py,
            arrow_io::batch(vec![("run", strings(r)), ("measure", strings(m)), ("value", floats(v)), ("queries", Arc::new(UInt64Array::from(n)))]),
        )
    }

    /// Agreement of the run rankings between every ordered pair of measures (`serpsim eval
    /// --agreement`): Kendall's tau-a and tau-b, tau_AP, tau_GAP, Spearman, Pearson.
    fn agreement(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if self.e.runs.len() < 2 {
            return Err(crate::errors::invalid(py, "agreement needs at least two runs"));
        }
        let rows = ranking_agreement(&self.e);
        let f = |g: fn(&serpsim::metrics::output::RankingAgreement) -> f64| floats(rows.iter().map(g).collect());
        arrow_io::to_python(
            py,
            arrow_io::batch(vec![
                ("measure_a", strings(rows.iter().map(|r| r.metric_a.clone()))),
                ("measure_b", strings(rows.iter().map(|r| r.metric_b.clone()))),
                ("kendall_tau_a", f(|r| r.kendall_tau_a)),
                ("kendall_tau_b", f(|r| r.kendall_tau_b)),
                ("tau_ap", f(|r| r.tau_ap)),
                ("tau_gap", f(|r| r.tau_gap)),
                ("spearman", f(|r| r.spearman)),
                ("pearson", f(|r| r.pearson)),
            ]),
        )
    }

    /// Paired comparisons of every pair of runs on every measure (`serpsim eval --compare`):
    /// mean difference, paired t-test and Wilcoxon p-values, 95 % bootstrap interval.
    #[pyo3(signature = (seed=UInt(1), resamples=UInt(10_000)))]
    fn compare(&self, py: Python<'_>, seed: UInt, resamples: UInt) -> PyResult<Py<PyAny>> {
        let seed = seed.u64(py, "Evaluation.compare", "seed")?;
        let resamples = resamples.usize(py, "Evaluation.compare", "resamples")?;
        if self.e.runs.len() < 2 {
            return Err(crate::errors::invalid(py, "comparisons need at least two runs"));
        }
        if resamples < 1 {
            return Err(crate::errors::invalid(py, "resamples must be at least 1"));
        }
        let e = self.e.clone();
        let rows = py.detach(move || paired_comparisons(&e, seed, resamples));
        let f = |g: fn(&serpsim::metrics::output::PairedComparison) -> f64| floats(rows.iter().map(g).collect());
        arrow_io::to_python(
            py,
            arrow_io::batch(vec![
                ("measure", strings(rows.iter().map(|r| r.metric.clone()))),
                ("run_a", strings(rows.iter().map(|r| r.run_a.clone()))),
                ("run_b", strings(rows.iter().map(|r| r.run_b.clone()))),
                ("queries", Arc::new(UInt64Array::from(rows.iter().map(|r| r.topics as u64).collect::<Vec<_>>()))),
                ("mean_difference", f(|r| r.mean_difference)),
                ("t_test_p", f(|r| r.t_test_p)),
                ("wilcoxon_p", f(|r| r.wilcoxon_p)),
                ("bootstrap_lower", f(|r| r.bootstrap_lower)),
                ("bootstrap_upper", f(|r| r.bootstrap_upper)),
            ]),
        )
    }

    /// Intervals and tests over topics, as `serpsim eval --ci` computes them: `(means,
    /// differences)`. `order` lists run indices: the runs are compared in that order (pairs
    /// `a - b` with `a` before `b`), so a baseline placed last gives every `run - baseline`.
    /// Differences carry the effect size d_z (mean / sd of the per-topic differences) of
    /// `stats::topics::over_topics`.
    #[pyo3(signature = (method="bca", level=0.95, resamples=UInt(10_000), seed=UInt(1), test="randomisation", order=None))]
    #[allow(clippy::too_many_arguments)]
    fn ci(
        &self,
        py: Python<'_>,
        method: &str,
        level: f64,
        resamples: UInt,
        seed: UInt,
        test: &str,
        order: Option<Vec<usize>>,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        let resamples = resamples.usize(py, "Evaluation.ci", "resamples")?;
        let seed = seed.u64(py, "Evaluation.ci", "seed")?;
        use serpsim::metrics::ci::{differences, mean_intervals, CiSettings, TestKind};
        use serpsim::stats::bootstrap::CiMethod;
        use serpsim::stats::topics::{over_topics, TopicDiff};
        let method = match method {
            "bca" => CiMethod::Bca,
            "percentile" => CiMethod::Percentile,
            "basic" => CiMethod::Basic,
            m => return Err(crate::errors::invalid(py, format!("method: unknown `{m}` (bca, percentile or basic)"))),
        };
        let test = match test {
            "randomisation" => TestKind::Randomisation,
            "bootstrap" => TestKind::Bootstrap,
            t => return Err(crate::errors::invalid(py, format!("test: unknown `{t}` (randomisation or bootstrap)"))),
        };
        if !(level > 0.0 && level < 1.0) {
            return Err(crate::errors::invalid(py, "level must be in (0, 1)"));
        }
        if resamples < 1 {
            return Err(crate::errors::invalid(py, "resamples must be at least 1"));
        }
        let e: Arc<Evaluation> = match order {
            None => self.e.clone(),
            Some(o) => {
                let mut seen = vec![false; self.e.runs.len()];
                for &i in &o {
                    if i >= seen.len() || std::mem::replace(&mut seen[i], true) {
                        return Err(crate::errors::invalid(py, format!("order: {o:?} is not a permutation of the {} run indices", seen.len())));
                    }
                }
                if o.len() != seen.len() {
                    return Err(crate::errors::invalid(py, format!("order: {o:?} is not a permutation of the {} run indices", seen.len())));
                }
                let mut r = (*self.e).clone();
                let pick = |v: &Vec<_>| o.iter().map(|&i| v[i]).collect::<Vec<_>>();
                r.runs = o.iter().map(|&i| self.e.runs[i].clone()).collect();
                r.values = o.iter().map(|&i| self.e.values[i].clone()).collect();
                r.texts = o.iter().map(|&i| self.e.texts[i].clone()).collect();
                r.evaluated = o.iter().map(|&i| self.e.evaluated[i].clone()).collect();
                r.dropped_topics = pick(&self.e.dropped_topics);
                Arc::new(r)
            }
        };
        let s = CiSettings { method, level, resamples, seed, test };
        let e2 = e.clone();
        let (means, diffs) = py.detach(move || (mean_intervals(&e2, &s), differences(&e2, &s)));
        // d_z of each pair, over the topics both runs were evaluated on (those of the interval).
        let col = |name: &str| e.columns.iter().position(|c| c.name == name).expect("measure of a computed row");
        let run = |name: &str| e.runs.iter().position(|r| r == name).expect("run of a computed row");
        let effect: Vec<f64> = diffs
            .iter()
            .map(|d| {
                let (c, a, b) = (col(&d.measure), run(&d.run_a), run(&d.run_b));
                let t: Vec<TopicDiff> =
                    e.values[a][c].iter().zip(&e.values[b][c]).filter_map(|(x, y)| Some(TopicDiff { mean: (*x)? - (*y)?, se: 0.0 })).collect();
                over_topics(&t, level).effect_size
            })
            .collect();
        let mf = |g: fn(&serpsim::metrics::ci::MeanInterval) -> f64| floats(means.iter().map(g).collect());
        let df = |g: fn(&serpsim::metrics::ci::Difference) -> f64| floats(diffs.iter().map(g).collect());
        let means_batch = arrow_io::batch(vec![
            ("run", strings(means.iter().map(|m| m.run.clone()))),
            ("measure", strings(means.iter().map(|m| m.measure.clone()))),
            ("topics", Arc::new(UInt64Array::from(means.iter().map(|m| m.topics as u64).collect::<Vec<_>>()))),
            ("estimate", mf(|m| m.ci.estimate)),
            ("ci_lower", mf(|m| m.ci.lower)),
            ("ci_upper", mf(|m| m.ci.upper)),
        ]);
        let diffs_batch = arrow_io::batch(vec![
            ("measure", strings(diffs.iter().map(|d| d.measure.clone()))),
            ("run_a", strings(diffs.iter().map(|d| d.run_a.clone()))),
            ("run_b", strings(diffs.iter().map(|d| d.run_b.clone()))),
            ("topics", Arc::new(UInt64Array::from(diffs.iter().map(|d| d.topics as u64).collect::<Vec<_>>()))),
            ("estimate", df(|d| d.ci.estimate)),
            ("ci_lower", df(|d| d.ci.lower)),
            ("ci_upper", df(|d| d.ci.upper)),
            ("p_value", df(|d| d.test.p_value)),
            ("effect_size_dz", floats(effect)),
        ]);
        Ok((arrow_io::to_python(py, means_batch)?, arrow_io::to_python(py, diffs_batch)?))
    }

    /// The text `serpsim eval` prints: `format` is `csv`, `json` or `trec`.
    #[pyo3(signature = (format="csv", per_query=false))]
    fn to_text(&self, py: Python<'_>, format: &str, per_query: bool) -> PyResult<String> {
        match format {
            "csv" => Ok(to_csv(&self.e, per_query)),
            "json" => Ok(to_json(&self.e, per_query)),
            "trec" => Ok(to_trec(&self.e, per_query, true)),
            f => Err(crate::errors::invalid(py, format!("unknown format `{f}` (csv, json or trec)"))),
        }
    }

    /// `serpsim eval --agreement`'s CSV text.
    fn agreement_csv(&self) -> String {
        agreement_csv(&ranking_agreement(&self.e))
    }

    /// `serpsim eval --compare`'s CSV text.
    #[pyo3(signature = (seed=UInt(1), resamples=UInt(10_000)))]
    fn compare_csv(&self, py: Python<'_>, seed: UInt, resamples: UInt) -> PyResult<String> {
        let seed = seed.u64(py, "Evaluation.compare_csv", "seed")?;
        let resamples = resamples.usize(py, "Evaluation.compare_csv", "resamples")?;
        Ok(comparisons_csv(&paired_comparisons(&self.e, seed, resamples)))
    }

    fn __repr__(&self) -> String {
        format!("<serpsim Evaluation: {} run(s) x {} measure(s) x {} queries>", self.e.runs.len(), self.e.columns.len(), self.e.topics.len())
    }
}

/// The paired tests of `serpsim eval --compare` on two equal-length samples (per-topic values
/// of two runs): `kind` `t` (paired t-test) or `wilcoxon` (signed-rank). Returns `(statistic,
/// p_value)`: t, or Wilcoxon's V (sum of the ranks of positive differences).
#[pyfunction]
fn paired_test(py: Python<'_>, x: Vec<f64>, y: Vec<f64>, kind: &str) -> PyResult<(f64, f64)> {
    if x.len() != y.len() {
        return Err(crate::errors::invalid(py, format!("paired samples differ in length ({} and {})", x.len(), y.len())));
    }
    if let Some(v) = x.iter().chain(&y).find(|v| !v.is_finite()) {
        return Err(crate::errors::invalid(py, format!("paired samples: {v} is not a finite number")));
    }
    match kind {
        "t" => {
            let r = serpsim::stats::paired_t_test(&x, &y);
            Ok((r.t, r.p_value))
        }
        "wilcoxon" => {
            let r = serpsim::stats::wilcoxon_signed_rank(&x, &y);
            Ok((r.statistic, r.p_value))
        }
        k => Err(crate::errors::invalid(py, format!("kind: unknown test `{k}` (t or wilcoxon)"))),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEvaluation>()?;
    m.add_function(wrap_pyfunction!(paired_test, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(measure_label, m)?)?;
    Ok(())
}
