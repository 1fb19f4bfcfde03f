//! Distributed fitting (Apache Spark, through `serpsim.spark`): the driver holds a
//! [`SparkFit`] (the pair table and the current parameters); each partition computes E-step
//! statistics in Rust from Arrow record batches ([`SparkPart`]); the driver merges them, which
//! is exact and order-free (`serpsim::clickmodels::estep`), and runs the M-step. The bytes
//! crossing the wire are the library's encodings (`EmState::to_bytes`, `EStats::to_bytes`).

use crate::arrow_io;
use crate::errors::{guard, invalid, to_py};
use arrow_array::RecordBatch;
use arrow_pyarrow::FromPyArrow;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serpsim::clickmodels::estep::Scratch;
use serpsim::clickmodels::eval::session_log_likelihood;
use serpsim::clickmodels::{io, ClickModel, EStats, EmConfig, EmState, ExactSum, Gamma, ModelConfig, ModelKind};
use serpsim::logs::{SessionRef, Vocab};
use std::sync::Arc;

/// The pair table in a compact encoding: (query id, document id) per pair index.
fn vocab_to_bytes(v: &Vocab) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(v.pairs.len() as u64).to_le_bytes());
    for &(q, d) in &v.pairs {
        for s in [&v.queries[q as usize], &v.docs[d as usize]] {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
    }
    out
}

fn vocab_from_bytes(b: &[u8]) -> Result<Vocab, String> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let s = b.get(at..at + n).ok_or("pair table: truncated")?;
        at += n;
        Ok(s)
    };
    let n = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes")) as usize;
    let mut v = Vocab::default();
    for _ in 0..n {
        let mut ids = [String::new(), String::new()];
        for id in &mut ids {
            let len = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes")) as usize;
            *id = std::str::from_utf8(take(len)?).map_err(|_| "pair table: invalid UTF-8")?.to_string();
        }
        let q = v.intern_query(&ids[0]);
        let d = v.intern_doc(&ids[1]);
        v.intern_pair(q, d);
    }
    Ok(v)
}

/// The driver's side of a distributed fit.
#[pyclass(module = "serpsim._serpsim", name = "SparkFit")]
pub struct SparkFit {
    state: EmState,
    vocab: Arc<Vocab>,
    passes: usize,
    done: usize,
    sessions: u64,
}

#[pymethods]
impl SparkFit {
    /// A fit of `model` over the pairs of `pairs` (an Arrow table with `query_id` and
    /// `doc_id`, each pair once; its order fixes the pair indices).
    #[new]
    #[pyo3(signature = (model, pairs, iterations=50, gamma=None))]
    fn new(py: Python<'_>, model: &str, pairs: &Bound<'_, PyAny>, iterations: usize, gamma: Option<f64>) -> PyResult<Self> {
        let kind: ModelKind = model.parse().map_err(|e| to_py(py, e))?;
        let mut cfg = ModelConfig::new(kind, EmConfig { iterations, tolerance: 0.0 });
        match (&mut cfg, gamma) {
            (ModelConfig::Dbn(d), Some(g)) => d.gamma = Gamma::Fixed(g),
            (_, Some(_)) => return Err(invalid(py, "gamma applies to the dbn model only")),
            _ => {}
        }
        let state = guard(py, || EmState::new(&cfg))?;
        let mut vocab = Vocab::default();
        let (mut qb, mut db) = ([0u8; 24], [0u8; 24]);
        for batch in arrow_io::read_batches(pairs, "pairs")? {
            let q = arrow_io::strs(py, arrow_io::column(py, &batch, "query_id", "pairs")?.as_ref(), "pairs: `query_id`")?;
            let d = arrow_io::strs(py, arrow_io::column(py, &batch, "doc_id", "pairs")?.as_ref(), "pairs: `doc_id`")?;
            for i in 0..batch.num_rows() {
                let (Some(q), Some(d)) = (q.get(i, &mut qb), d.get(i, &mut db)) else {
                    return Err(invalid(py, "pairs: a query or document id is null"));
                };
                let (q, d) = (vocab.intern_query(q), vocab.intern_doc(d));
                let before = vocab.pair_count();
                vocab.intern_pair(q, d);
                if vocab.pair_count() == before {
                    return Err(invalid(py, "pairs: a (query, document) pair is listed twice"));
                }
            }
        }
        Ok(SparkFit { state, vocab: Arc::new(vocab), passes: EmState::passes_of(&cfg), done: 0, sessions: 0 })
    }

    /// Passes over the data the fit takes (EM iterations; 1 for SDBN).
    #[getter]
    fn passes(&self) -> usize {
        self.passes
    }

    /// Passes done.
    #[getter]
    fn done(&self) -> usize {
        self.done
    }

    /// Sessions seen in the last pass.
    #[getter]
    fn sessions(&self) -> u64 {
        self.sessions
    }

    /// Number of (query, document) pairs.
    #[getter]
    fn pairs(&self) -> usize {
        self.vocab.pair_count()
    }

    /// The pair table, to broadcast once.
    fn pair_table<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &vocab_to_bytes(&self.vocab))
    }

    /// The current parameters, to broadcast each iteration.
    fn state<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.state.to_bytes())
    }

    /// Merges the partitions' statistics (exact, in any order) and runs the M-step.
    fn m_step(&mut self, py: Python<'_>, parts: Vec<Vec<u8>>) -> PyResult<()> {
        let mut total = self.state_stats();
        for p in &parts {
            let s = guard(py, || EStats::from_bytes(p))?;
            guard(py, || total.merge(&s))?;
        }
        if total.sessions == 0 {
            return Err(invalid(py, "spark fit: the DataFrame has no sessions"));
        }
        guard(py, || self.state.m_step(&total))?;
        self.sessions = total.sessions;
        self.done += 1;
        Ok(())
    }

    /// The mean per-session log-likelihood from the partitions' `log_likelihood` results
    /// (exact sums, so the value does not depend on the partitioning).
    fn log_likelihood(&self, py: Python<'_>, parts: Vec<Vec<u8>>) -> PyResult<f64> {
        let (mut sum, mut n) = (ExactSum::default(), 0u64);
        for p in &parts {
            let (s, c) = decode_ll(p).ok_or_else(|| invalid(py, "spark fit: corrupt log-likelihood part"))?;
            sum.merge(s);
            n += c;
        }
        if n == 0 {
            return Err(invalid(py, "spark fit: the DataFrame has no sessions"));
        }
        Ok(sum.value() / n as f64)
    }

    /// The model as the JSON text of a model file (`serpsim.clicks.loads` reads it).
    fn model_json(&self) -> String {
        io::to_json(self.state.model().as_ref(), &self.vocab).to_string()
    }
}

impl SparkFit {
    fn state_stats(&self) -> EStats {
        self.state.new_stats()
    }
}

fn decode_ll(b: &[u8]) -> Option<(ExactSum, u64)> {
    let s = i128::from_le_bytes(b.get(..16)?.try_into().ok()?);
    let n = u64::from_le_bytes(b.get(16..24)?.try_into().ok()?);
    (b.len() == 24).then_some((ExactSum(s), n))
}

/// The pair table on a worker (decoded once per broadcast and cached by the Python side).
#[pyclass(module = "serpsim._serpsim", name = "SparkPairs", frozen)]
pub struct SparkPairs {
    vocab: Arc<Vocab>,
}

#[pymethods]
impl SparkPairs {
    #[new]
    fn new(py: Python<'_>, table: Vec<u8>) -> PyResult<Self> {
        let vocab = py.detach(|| vocab_from_bytes(&table)).map_err(|e| invalid(py, e))?;
        Ok(SparkPairs { vocab: Arc::new(vocab) })
    }
}

/// One partition's pass: E-step statistics, or the log-likelihood, of its sessions.
#[pyclass(module = "serpsim._serpsim", name = "SparkPart")]
pub struct SparkPart {
    vocab: Arc<Vocab>,
    state: EmState,
    model: Option<Box<dyn ClickModel>>,
    stats: EStats,
    ll: ExactSum,
    sessions: u64,
    rows: usize,
}

#[pymethods]
impl SparkPart {
    /// A pass with the broadcast `pairs` and `state`; with `log_likelihood`, the pass sums
    /// per-session log-likelihoods of the state's model instead of E-step statistics.
    #[new]
    #[pyo3(signature = (pairs, state, log_likelihood=false))]
    fn new(py: Python<'_>, pairs: &SparkPairs, state: Vec<u8>, log_likelihood: bool) -> PyResult<Self> {
        let state = guard(py, || EmState::from_bytes(&state))?;
        let stats = state.new_stats();
        let model = log_likelihood.then(|| state.model());
        Ok(SparkPart { vocab: pairs.vocab.clone(), state, model, stats, ll: ExactSum::default(), sessions: 0, rows: 0 })
    }

    /// Adds the sessions of a `pyarrow.RecordBatch` (`query_id`, `docs`, `clicks`).
    fn add(&mut self, py: Python<'_>, batch: &Bound<'_, PyAny>) -> PyResult<()> {
        let batch = RecordBatch::from_pyarrow_bound(batch).map_err(|e| invalid(py, format!("spark partition: not an Arrow record batch ({e})")))?;
        let what = "spark partition";
        let q = arrow_io::strs(py, arrow_io::column(py, &batch, "query_id", what)?.as_ref(), "column `query_id`")?;
        let docs = arrow_io::lists(py, arrow_io::column(py, &batch, "docs", what)?.as_ref(), "column `docs`")?;
        let doc_values = arrow_io::strs(py, docs.values().as_ref(), "column `docs` (its items)")?;
        let clicks = arrow_io::lists(py, arrow_io::column(py, &batch, "clicks", what)?.as_ref(), "column `clicks`")?;
        let click_values = arrow_io::flags(py, clicks.values().as_ref(), "column `clicks` (its items)")?;
        let (mut qb, mut db) = ([0u8; 24], [0u8; 24]);
        let (mut pairs, mut flags, mut probs) = (Vec::new(), Vec::new(), Vec::new());
        let mut scratch = Scratch::default();
        for i in 0..batch.num_rows() {
            let row = self.rows + i;
            let err = |m: String| invalid(py, format!("{what}: row {row}: {m}"));
            let query = q.get(i, &mut qb).ok_or_else(|| err("`query_id` is null".into()))?;
            let qi = self.vocab.query(query).ok_or_else(|| err(format!("query `{query}` is not in the broadcast pair table")))?;
            let range = docs.range(i).ok_or_else(|| err("`docs` is null".into()))?;
            let crange = clicks.range(i).ok_or_else(|| err("`clicks` is null".into()))?;
            if crange.len() != range.len() {
                return Err(err(format!("{} clicks for {} documents", crange.len(), range.len())));
            }
            pairs.clear();
            for j in range {
                let d = doc_values.get(j, &mut db).ok_or_else(|| err("a document id is null".into()))?;
                let p = self.vocab.pair(query, d).ok_or_else(|| err(format!("pair ({query}, {d}) is not in the broadcast pair table")))?;
                pairs.push(p);
            }
            flags.clear();
            for j in crange {
                match click_values.get(j) {
                    Ok(Some(c)) => flags.push(c),
                    Ok(None) => return Err(err("a click flag is null".into())),
                    Err(e) => return Err(err(format!("click flag {e} is not 0 or 1"))),
                }
            }
            let s = SessionRef { query: qi, pairs: &pairs, clicks: &flags };
            self.sessions += 1;
            match &self.model {
                Some(m) if !pairs.is_empty() => self.ll.add(session_log_likelihood(m.as_ref(), s, &mut probs)),
                Some(_) => {}
                None => self.state.accumulate_with(s, &mut self.stats, &mut scratch),
            }
        }
        self.rows += batch.num_rows();
        Ok(())
    }

    /// The partition's result as bytes (statistics, or the log-likelihood sum and count).
    fn finish<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        if self.model.is_some() {
            let mut b = self.ll.0.to_le_bytes().to_vec();
            b.extend_from_slice(&self.sessions.to_le_bytes());
            PyBytes::new(py, &b)
        } else {
            PyBytes::new(py, &self.stats.to_bytes())
        }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SparkFit>()?;
    m.add_class::<SparkPairs>()?;
    m.add_class::<SparkPart>()?;
    Ok(())
}
