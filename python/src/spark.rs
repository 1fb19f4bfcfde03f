//! Distributed fitting (Apache Spark, through `serpsim.spark`) in the shape of the sharded fit
//! (`serpsim::clickmodels::sharded`): sessions are partitioned by a hash of their query, so a
//! pair's sessions and parameters live in one partition.
//!
//! * [`SparkShard`] builds a partition's *shard* from its Arrow batches (each session with its
//!   index in the input, `sid`): its pairs numbered in the order the input shows them (sessions
//!   sorted by index), identical sessions kept once with their count, and each pair's name and
//!   *key* (the index of the session that showed it first, and its rank there), which orders
//!   the pairs of all shards as the single-machine fit numbers them.
//! * [`spark_step`] runs one EM pass on a shard: the E-step of its sessions under the
//!   query-independent parameters the driver broadcast and the shard's own pair parameters,
//!   the M-step of its pairs (returned, to stay with the partition), and the statistics of the
//!   query-independent parameters (returned to the driver: DBN's gamma, examination by rank,
//!   CCM's taus; no pair table).
//! * [`SparkFit`] is the driver: it sums those statistics exactly (fixed point,
//!   `serpsim::clickmodels::estep`), runs their M-step, and at the end merges the shards' pair
//!   rows ([`spark_finish`]) by key into the model file the single-machine fit writes.
//!
//! With a fitted prior (`prior="eb"`, the default of the EM models: `clicks fit --prior eb`)
//! the driver also broadcasts the per-pair tables' Beta priors, each shard returns its exact
//! empirical-Bayes terms (`EbTerms`) beside its statistics, and the driver takes the prior's
//! step from their sum, as the sharded fit does.
//!
//! The bytes crossing the wire are the library's encodings (`EmState::to_bytes` of the
//! query-independent parameters, `EStats::to_bytes` of their statistics, `EbTerms::to_bytes`)
//! and this module's shard, parameter, broadcast and row encodings (executor to executor, and
//! once to the driver).

use crate::arrow_io;
use crate::errors::{invalid, panic_to_py, to_py, UInt};
use arrow_array::{Array, Int64Array, RecordBatch};
use arrow_pyarrow::FromPyArrow;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serpsim::clickmodels::driver::{m_step_with, next_prior, start_prior, EmOptions, EmPrior};
use serpsim::clickmodels::ebprior::{EbTerms, PairPrior};
use serpsim::clickmodels::estep::{to_fixed, Scratch};
use serpsim::clickmodels::eval::session_log_likelihood;
use serpsim::clickmodels::registry::pair_tables;
use serpsim::clickmodels::sharded::{put_uleb, Distinct};
use serpsim::clickmodels::{io, ClickModel, EStats, EmConfig, EmState, ExactSum, Gamma, ModelConfig, PRIOR};
use serpsim::logs::{SessionRef, Vocab};
use serpsim::{Error, Result};

const SHARD_MAGIC: &[u8; 8] = b"SSPKSH01";
const NAMES_MAGIC: &[u8; 8] = b"SSPKNM01";
const PARAMS_MAGIC: &[u8; 8] = b"SSPKPR01";
const ROWS_MAGIC: &[u8; 8] = b"SSPKRW01";
const BROADCAST_MAGIC: &[u8; 8] = b"SSPKBC01";
const PART_MAGIC: &[u8; 8] = b"SSPKST01";

fn bad(what: &str) -> Error {
    Error::Invalid(format!("spark fit: corrupt {what} (the bytes of another version or fit?)"))
}

/// Runs `f` without the GIL; a library error or a panic becomes the Python exception.
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T> + Send) -> PyResult<T> {
    match py.detach(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_py(py, e)),
        Err(p) => Err(panic_to_py(py, p)),
    }
}

/// A cursor over bytes; every read fails with "corrupt `what`" past the end.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    fn new(b: &'a [u8], magic: &[u8; 8], what: &'static str) -> Result<Self> {
        let mut r = Reader { b, at: 0, what };
        if r.take(8)? != magic {
            return Err(bad(what));
        }
        Ok(r)
    }
    fn done(&self) -> bool {
        self.at >= self.b.len()
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).ok_or_else(|| bad(self.what))?;
        let s = self.b.get(self.at..end).ok_or_else(|| bad(self.what))?;
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn i128(&mut self) -> Result<i128> {
        Ok(i128::from_le_bytes(self.take(16)?.try_into().expect("16 bytes")))
    }
    fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn uleb(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for i in 0..10 {
            let b = *self.b.get(self.at).ok_or_else(|| bad(self.what))?;
            self.at += 1;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(bad(self.what))
    }
    fn str(&mut self) -> Result<&'a str> {
        let n = self.uleb()? as usize;
        std::str::from_utf8(self.take(n)?).map_err(|_| bad(self.what))
    }
}

/// A pair's key: the index of the session that showed it first, and its rank there. Keys order
/// the pairs as the single-machine fit numbers them (order of first appearance).
fn key(sid: u64, rank: u32) -> u128 {
    u128::from(sid) << 32 | u128::from(rank)
}

/// What the driver broadcasts: the query-independent parameters (`EmState::to_bytes`, pair
/// vectors empty) and, with a fitted prior, its `used` and `next` (a, b) per per-pair table.
fn broadcast_to_bytes(global: &EmState, prior: Option<&PairPrior>) -> Vec<u8> {
    let state = global.to_bytes();
    let mut out = Vec::with_capacity(32 + state.len());
    out.extend_from_slice(BROADCAST_MAGIC);
    out.extend_from_slice(&(state.len() as u64).to_le_bytes());
    out.extend_from_slice(&state);
    let tables = prior.map_or(0, |p| p.used.len());
    out.extend_from_slice(&(tables as u32).to_le_bytes());
    if let Some(p) = prior {
        for &(a, b) in p.used.iter().chain(&p.next) {
            out.extend_from_slice(&a.to_le_bytes());
            out.extend_from_slice(&b.to_le_bytes());
        }
    }
    out
}

/// The broadcast of [`broadcast_to_bytes`] (pair vectors must be empty).
fn global_state(bytes: &[u8]) -> Result<(EmState, Option<PairPrior>)> {
    let mut r = Reader::new(bytes, BROADCAST_MAGIC, "broadcast parameters")?;
    let n = r.u64()? as usize;
    let mut state = EmState::from_bytes(r.take(n)?)?;
    if state.take_pair_vecs().iter().any(|v| !v.is_empty()) {
        return Err(Error::Invalid("spark fit: the broadcast parameters hold pair parameters".into()));
    }
    let tables = r.u32()? as usize;
    let prior = if tables == 0 {
        None
    } else {
        if tables != pair_tables(state.kind()) {
            return Err(bad("broadcast parameters"));
        }
        let mut ab = Vec::with_capacity(2 * tables);
        for _ in 0..2 * tables {
            ab.push((r.f64()?, r.f64()?));
        }
        let next = ab.split_off(tables);
        Some(PairPrior { used: ab, next })
    };
    if !r.done() {
        return Err(bad("broadcast parameters"));
    }
    Ok((state, prior))
}

/// A shard's answer to the driver: its statistics of the query-independent parameters and,
/// with a fitted prior, its empirical-Bayes terms.
fn part_to_bytes(stats: &EStats, terms: Option<&EbTerms>) -> Vec<u8> {
    let s = stats.to_bytes();
    let t = terms.map(EbTerms::to_bytes).unwrap_or_default();
    let mut out = Vec::with_capacity(24 + s.len() + t.len());
    out.extend_from_slice(PART_MAGIC);
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(&s);
    out.extend_from_slice(&(t.len() as u64).to_le_bytes());
    out.extend_from_slice(&t);
    out
}

/// The statistics and terms of [`part_to_bytes`].
fn part_from_bytes(b: &[u8]) -> Result<(EStats, Option<EbTerms>)> {
    let mut r = Reader::new(b, PART_MAGIC, "shard statistics")?;
    let n = r.u64()? as usize;
    let stats = EStats::from_bytes(r.take(n)?)?;
    let n = r.u64()? as usize;
    let terms = if n == 0 { None } else { Some(EbTerms::from_bytes(r.take(n)?)?) };
    if !r.done() {
        return Err(bad("shard statistics"));
    }
    Ok((stats, terms))
}

/// The fitted model of `state` (pair vectors in place) under the prior's `used` priors.
fn model_of(state: &EmState, prior: Option<&PairPrior>) -> Result<Box<dyn ClickModel>> {
    match prior {
        Some(p) => state.model_with_prior(&p.used),
        None => Ok(state.model()),
    }
}

fn params_to_bytes(vecs: &[Vec<f64>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(12 + vecs.iter().map(|v| 8 + 8 * v.len()).sum::<usize>());
    out.extend_from_slice(PARAMS_MAGIC);
    out.extend_from_slice(&(vecs.len() as u32).to_le_bytes());
    for v in vecs {
        out.extend_from_slice(&(v.len() as u64).to_le_bytes());
        for x in v {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out
}

/// A shard's pair parameters; empty bytes are the starting point (no pair fitted yet).
fn params_from_bytes(b: &[u8], vectors: usize) -> Result<Vec<Vec<f64>>> {
    if b.is_empty() {
        return Ok(vec![Vec::new(); vectors]);
    }
    let mut r = Reader::new(b, PARAMS_MAGIC, "pair parameters")?;
    let n = r.u32()? as usize;
    if n != vectors {
        return Err(bad("pair parameters"));
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let len = r.u64()? as usize;
        if len > b.len() / 8 {
            return Err(bad("pair parameters"));
        }
        out.push((0..len).map(|_| r.f64()).collect::<Result<Vec<f64>>>()?);
    }
    if !r.done() {
        return Err(bad("pair parameters"));
    }
    Ok(out)
}

/// A shard's sessions: (weight, the session) in the order first seen.
struct Sessions<'a> {
    pairs: u64,
    sessions: u64,
    r: Reader<'a>,
}

impl<'a> Sessions<'a> {
    fn new(b: &'a [u8]) -> Result<Self> {
        let mut r = Reader::new(b, SHARD_MAGIC, "shard")?;
        let pairs = r.u64()?;
        let sessions = r.u64()?;
        let _distinct = r.u64()?;
        Ok(Sessions { pairs, sessions, r })
    }

    fn replay(mut self, f: &mut dyn FnMut(u64, SessionRef<'_>)) -> Result<()> {
        let (mut pairs, mut clicks) = (Vec::new(), Vec::new());
        while !self.r.done() {
            let w = self.r.uleb()?;
            let n = self.r.uleb()? as usize;
            if n > self.r.b.len() {
                return Err(bad("shard"));
            }
            let q = self.r.u32()?;
            pairs.clear();
            for _ in 0..n {
                let p = self.r.u32()?;
                if u64::from(p) >= self.pairs {
                    return Err(bad("shard"));
                }
                pairs.push(p);
            }
            let bits = self.r.take(n.div_ceil(8))?;
            clicks.clear();
            clicks.extend((0..n).map(|r| bits[r / 8] >> (r % 8) & 1 == 1));
            f(w, SessionRef { query: q, pairs: &pairs, clicks: &clicks });
        }
        Ok(())
    }
}

/// One EM pass on a shard: returns the statistics of the query-independent parameters (and
/// the sessions) for the driver, and the shard's re-estimated pair parameters.
fn step(sessions: &[u8], params: &[u8], globals: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
    let (global, prior) = global_state(globals)?;
    let kind = global.kind();
    let mut state = global;
    let vectors = state.pair_vecs().len();
    state.put_pair_vecs(params_from_bytes(params, vectors)?);
    let shard = Sessions::new(sessions)?;
    let mut stats = EStats::new(kind, shard.pairs as usize);
    if prior.is_some() {
        stats.add_eb_tables(shard.pairs as usize);
    }
    let mut buf = Scratch::default();
    let mut weight = 1;
    shard.replay(&mut |w, s| {
        if w != weight {
            stats.set_weight(w);
            weight = w;
        }
        state.accumulate_with(s, &mut stats, &mut buf);
    })?;
    let (mut next, terms) = m_step_with(&state, prior.as_ref(), &stats)?;
    let new = next.take_pair_vecs();
    stats.drop_eb_tables();
    for t in stats.tables.iter_mut().take(pair_tables(kind)) {
        *t = Default::default();
    }
    Ok((part_to_bytes(&stats, terms.as_ref()), params_to_bytes(&new)))
}

/// The end of a fit on a shard: the log-likelihood of its sessions under the final model
/// (sum of per-session means, exact, and the number of sessions), the key that ends its
/// fitted pair vectors, and every pair's row (key, names, parameters).
fn finish(sessions: &[u8], params: &[u8], names: &[u8], globals: &[u8]) -> Result<Vec<u8>> {
    let (mut state, prior) = global_state(globals)?;
    let vectors = state.pair_vecs().len();
    let vecs = params_from_bytes(params, vectors)?;
    let lens: Vec<usize> = vecs.iter().map(Vec::len).collect();
    state.put_pair_vecs(vecs);
    let model = model_of(&state, prior.as_ref())?;
    let shard = Sessions::new(sessions)?;
    let pairs = shard.pairs;
    let n = shard.sessions;
    let (mut ll, mut probs) = (0i128, Vec::new());
    shard.replay(&mut |w, s| {
        if !s.pairs.is_empty() {
            ll += to_fixed(session_log_likelihood(model.as_ref(), s, &mut probs)) * i128::from(w);
        }
    })?;
    let mut r = Reader::new(names, NAMES_MAGIC, "pair names")?;
    if r.u64()? != pairs {
        return Err(bad("pair names"));
    }
    let mut rows = Vec::with_capacity(names.len() + pairs as usize * (8 * vectors + 8));
    rows.extend_from_slice(ROWS_MAGIC);
    rows.extend_from_slice(&ll.to_le_bytes());
    rows.extend_from_slice(&n.to_le_bytes());
    let mut cut = 0u128;
    let vecs = state.take_pair_vecs();
    let mut body = Vec::new();
    for i in 0..pairs as usize {
        let (sid, rank) = (r.u64()?, r.u32()?);
        let k = key(sid, rank);
        if lens.iter().any(|&l| l == i + 1) {
            cut = cut.max(k + 1);
        }
        body.extend_from_slice(&sid.to_le_bytes());
        body.extend_from_slice(&rank.to_le_bytes());
        for _ in 0..2 {
            let s = r.str()?;
            put_uleb(&mut body, s.len() as u64);
            body.extend_from_slice(s.as_bytes());
        }
        for (t, v) in vecs.iter().enumerate() {
            let unseen = prior.as_ref().map_or(PRIOR, |p| p.mean(t));
            body.extend_from_slice(&v.get(i).copied().unwrap_or(unseen).to_le_bytes());
        }
    }
    if !r.done() {
        return Err(bad("pair names"));
    }
    rows.extend_from_slice(&cut.to_le_bytes());
    rows.extend_from_slice(&pairs.to_le_bytes());
    rows.extend_from_slice(&body);
    Ok(rows)
}

/// The driver's side of a distributed fit: the query-independent parameters, their M-step,
/// and at the end the model (the shards' rows merged by key).
#[pyclass(module = "serpsim._serpsim", name = "SparkFit")]
pub struct SparkFit {
    /// The query-independent parameters (pair vectors empty).
    global: EmState,
    /// With a fitted prior: the per-pair tables' priors.
    prior: Option<PairPrior>,
    passes: usize,
    done: usize,
    sessions: u64,
    pairs: u64,
    model_json: Option<String>,
}

#[pymethods]
impl SparkFit {
    /// A fit of `model` (sdbn, dbn, ubm, ccm, pbm) of `iterations` EM passes (1 for sdbn);
    /// `gamma` fixes DBN's continuation; `prior` is `uniform`, `eb` or `None` (the default of
    /// `clicks fit`: `eb` for the EM models).
    #[new]
    #[pyo3(signature = (model, iterations=UInt(50), gamma=None, prior=None))]
    fn new(py: Python<'_>, model: &str, iterations: UInt, gamma: Option<f64>, prior: Option<&str>) -> PyResult<Self> {
        let iterations = iterations.usize(py, "spark.fit", "iterations")?;
        let kind: serpsim::clickmodels::ModelKind = model.parse().map_err(|e| to_py(py, e))?;
        let mut cfg = ModelConfig::new(kind, EmConfig { iterations, tolerance: 0.0 });
        match (&mut cfg, gamma) {
            (ModelConfig::Dbn(d), Some(g)) => d.gamma = Gamma::Fixed(g),
            (_, Some(_)) => return Err(invalid(py, "gamma applies to the dbn model only")),
            _ => {}
        }
        let global = crate::errors::guard(py, || EmState::new(&cfg))?;
        let opts = EmOptions { prior: EmPrior::named(prior, kind).map_err(|e| to_py(py, e))?, ..Default::default() };
        let prior = start_prior(kind, &opts).map_err(|e| to_py(py, e))?;
        Ok(SparkFit { global, prior, passes: EmState::passes_of(&cfg), done: 0, sessions: 0, pairs: 0, model_json: None })
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

    /// Distinct (query, document) pairs (known after [`SparkFit::finish`]).
    #[getter]
    fn pairs(&self) -> u64 {
        self.pairs
    }

    /// The query-independent parameters (`EmState::to_bytes` without pair parameters), to
    /// broadcast each pass.
    fn globals<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &broadcast_to_bytes(&self.global, self.prior.as_ref()))
    }

    /// Merges the shards' statistics of the query-independent parameters ([`spark_step`];
    /// exact, in any order) and runs their M-step.
    fn m_step(&mut self, py: Python<'_>, parts: Vec<Vec<u8>>) -> PyResult<()> {
        let kind = self.global.kind();
        let k = pair_tables(kind);
        let mut global = self.global.clone();
        let prior = self.prior.clone();
        let total = detached(py, move || {
            let mut total = EStats::new(kind, 0);
            let mut terms = EbTerms::default();
            for p in &parts {
                let (s, t) = part_from_bytes(p)?;
                if s.tables.iter().take(k).any(|t| !t.is_empty()) {
                    return Err(Error::Invalid("spark fit: a shard sent pair statistics to the driver".into()));
                }
                if t.is_some() != prior.is_some() {
                    return Err(bad("shard statistics"));
                }
                total.merge(&s)?;
                if let Some(t) = t {
                    terms.merge(t);
                }
            }
            if total.sessions > 0 {
                global.m_step(&total)?;
                global.take_pair_vecs();
            }
            Ok((total.sessions, global, prior.map(|p| next_prior(&p, &terms))))
        })?;
        if total.0 == 0 {
            return Err(invalid(py, "spark fit: the DataFrame has no sessions"));
        }
        self.sessions = total.0;
        self.global = total.1;
        self.prior = total.2;
        self.done += 1;
        Ok(())
    }

    /// Merges the shards' rows ([`spark_finish`]) by key into the model and returns the mean
    /// per-session log-likelihood (exact sums: the same for any partitioning).
    fn finish(&mut self, py: Python<'_>, parts: Vec<Vec<u8>>) -> PyResult<f64> {
        let global = self.global.clone();
        let prior = self.prior.clone();
        let (json, ll, n, pairs) = detached(py, move || merge(global, prior.as_ref(), &parts))?;
        if n == 0 {
            return Err(invalid(py, "spark fit: the DataFrame has no sessions"));
        }
        self.model_json = Some(json);
        self.pairs = pairs;
        Ok(ll / n as f64)
    }

    /// The model as the JSON text of a model file (`serpsim.clicks.loads` reads it).
    fn model_json(&self, py: Python<'_>) -> PyResult<String> {
        self.model_json.clone().ok_or_else(|| invalid(py, "spark fit: not finished"))
    }
}

/// A shard's rows as [`finish`] wrote them.
struct Row<'a> {
    key: u128,
    query: &'a str,
    doc: &'a str,
    values: &'a [u8],
}

/// The model JSON, the log-likelihood sum, the sessions and the pairs from the shards' rows.
fn merge(mut global: EmState, prior: Option<&PairPrior>, parts: &[Vec<u8>]) -> Result<(String, f64, u64, u64)> {
    let vectors = global.pair_vecs().len();
    let (mut ll, mut n, mut cut) = (ExactSum::default(), 0u64, 0u128);
    let mut rows: Vec<Row<'_>> = Vec::new();
    for p in parts {
        let mut r = Reader::new(p, ROWS_MAGIC, "pair rows")?;
        ll.merge(ExactSum(r.i128()?));
        n += r.u64()?;
        cut = cut.max(u128::from_le_bytes(r.take(16)?.try_into().expect("16 bytes")));
        let count = r.u64()?;
        for _ in 0..count {
            let (sid, rank) = (r.u64()?, r.u32()?);
            let (query, doc) = (r.str()?, r.str()?);
            let values = r.take(8 * vectors)?;
            rows.push(Row { key: key(sid, rank), query, doc, values });
        }
        if !r.done() {
            return Err(bad("pair rows"));
        }
    }
    rows.sort_unstable_by_key(|r| r.key);
    let fitted = rows.partition_point(|r| r.key < cut);
    let mut vocab = Vocab::default();
    let mut vecs = vec![Vec::with_capacity(fitted); vectors];
    for (i, row) in rows.iter().enumerate() {
        if i > 0 && rows[i - 1].key == row.key {
            return Err(Error::Invalid("spark fit: two pairs with the same key (the same session index twice)".into()));
        }
        let (q, d) = (vocab.intern_query(row.query), vocab.intern_doc(row.doc));
        let before = vocab.pair_count();
        vocab.intern_pair(q, d);
        if vocab.pair_count() == before {
            return Err(Error::Invalid(format!("spark fit: pair ({}, {}) is in two partitions", row.query, row.doc)));
        }
        if i < fitted {
            for (k, v) in vecs.iter_mut().enumerate() {
                v.push(f64::from_le_bytes(row.values[8 * k..8 * k + 8].try_into().expect("8 bytes")));
            }
        }
    }
    global.put_pair_vecs(vecs);
    let json = io::to_json(model_of(&global, prior)?.as_ref(), &vocab).to_string();
    Ok((json, ll.value(), n, rows.len() as u64))
}

/// A partition's shard in the making: its sessions from Arrow batches (`query_id`, `docs`,
/// `clicks`, `sid`: the session's index in the input), kept as raw records until
/// [`SparkShard::finish`].
#[pyclass(module = "serpsim._serpsim", name = "SparkShard")]
#[derive(Default)]
pub struct SparkShard {
    /// Per session: query, documents (length-prefixed) and click bits.
    raw: Vec<u8>,
    /// Per session: its index in the input and the offset of its record in `raw`.
    index: Vec<(u64, usize)>,
    rows: usize,
}

#[pymethods]
impl SparkShard {
    #[new]
    fn new() -> Self {
        SparkShard::default()
    }

    /// Adds the sessions of a `pyarrow.RecordBatch` (`query_id`, `docs`, `clicks`, `sid`).
    fn add(&mut self, py: Python<'_>, batch: &Bound<'_, PyAny>) -> PyResult<()> {
        let batch = RecordBatch::from_pyarrow_bound(batch).map_err(|e| invalid(py, format!("spark partition: not an Arrow record batch ({e})")))?;
        let what = "spark partition";
        let q = arrow_io::strs(py, arrow_io::column(py, &batch, "query_id", what)?.as_ref(), "column `query_id`")?;
        let docs = arrow_io::lists(py, arrow_io::column(py, &batch, "docs", what)?.as_ref(), "column `docs`")?;
        let doc_values = arrow_io::strs(py, docs.values().as_ref(), "column `docs` (its items)")?;
        let clicks = arrow_io::lists(py, arrow_io::column(py, &batch, "clicks", what)?.as_ref(), "column `clicks`")?;
        let click_values = arrow_io::flags(py, clicks.values().as_ref(), "column `clicks` (its items)")?;
        let sid = arrow_io::column(py, &batch, "sid", what)?;
        let sid = sid.as_any().downcast_ref::<Int64Array>().ok_or_else(|| invalid(py, format!("{what}: column `sid` is not a 64-bit integer")))?;
        let (mut qb, mut db) = ([0u8; 24], [0u8; 24]);
        let mut bits = Vec::new();
        for i in 0..batch.num_rows() {
            let row = self.rows + i;
            let err = |m: String| invalid(py, format!("{what}: row {row}: {m}"));
            if sid.is_null(i) || sid.value(i) < 0 {
                return Err(err("`sid` is null or negative".into()));
            }
            let query = q.get(i, &mut qb).ok_or_else(|| err("`query_id` is null".into()))?;
            let range = docs.range(i).ok_or_else(|| err("`docs` is null".into()))?;
            let crange = clicks.range(i).ok_or_else(|| err("`clicks` is null".into()))?;
            if crange.len() != range.len() {
                return Err(err(format!("{} clicks for {} documents", crange.len(), range.len())));
            }
            if range.len() > u32::MAX as usize {
                return Err(err("more than 2^32 results".into()));
            }
            self.index.push((sid.value(i) as u64, self.raw.len()));
            put_uleb(&mut self.raw, query.len() as u64);
            self.raw.extend_from_slice(query.as_bytes());
            put_uleb(&mut self.raw, range.len() as u64);
            for j in range {
                let d = doc_values.get(j, &mut db).ok_or_else(|| err("a document id is null".into()))?;
                put_uleb(&mut self.raw, d.len() as u64);
                self.raw.extend_from_slice(d.as_bytes());
            }
            bits.clear();
            bits.resize(crange.len().div_ceil(8), 0u8);
            for (r, j) in crange.enumerate() {
                match click_values.get(j) {
                    Ok(Some(c)) => bits[r / 8] |= u8::from(c) << (r % 8),
                    Ok(None) => return Err(err("a click flag is null".into())),
                    Err(e) => return Err(err(format!("click flag {e} is not 0 or 1"))),
                }
            }
            self.raw.extend_from_slice(&bits);
        }
        self.rows += batch.num_rows();
        Ok(())
    }

    /// The shard: `(sessions, names, session count, pair count)`. `sessions` is what every
    /// pass reads (pairs numbered in the order of first appearance, identical sessions once
    /// with their count); `names` holds each pair's key and ids (read at the end only).
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, u64, u64)> {
        let raw = std::mem::take(&mut self.raw);
        let index = std::mem::take(&mut self.index);
        let (sessions, names, n, pairs) = detached(py, move || build(&raw, index))?;
        Ok((PyBytes::new(py, &sessions), PyBytes::new(py, &names), n, pairs))
    }
}

/// Numbers a shard's pairs in the order of its sessions' indices and encodes it.
fn build(raw: &[u8], mut index: Vec<(u64, usize)>) -> Result<(Vec<u8>, Vec<u8>, u64, u64)> {
    index.sort_unstable_by_key(|e| e.0);
    if let Some(w) = index.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::Invalid(format!("spark fit: two sessions with index {}", w[0].0)));
    }
    let mut vocab = Vocab::default();
    let mut names = Vec::new();
    let mut distinct = Distinct::default();
    let (mut pairs, mut enc) = (Vec::new(), Vec::new());
    for &(sid, at) in &index {
        let mut r = Reader { b: raw, at, what: "raw sessions" };
        let query = r.str()?;
        let q = vocab.intern_query(query);
        let n = r.uleb()? as usize;
        pairs.clear();
        for rank in 0..n {
            let doc = r.str()?;
            let d = vocab.intern_doc(doc);
            let before = vocab.pair_count();
            let p = vocab.intern_pair(q, d);
            if vocab.pair_count() > before {
                names.extend_from_slice(&sid.to_le_bytes());
                names.extend_from_slice(&(rank as u32).to_le_bytes());
                put_uleb(&mut names, query.len() as u64);
                names.extend_from_slice(query.as_bytes());
                put_uleb(&mut names, doc.len() as u64);
                names.extend_from_slice(doc.as_bytes());
            }
            pairs.push(p);
        }
        let bits = r.take(n.div_ceil(8))?;
        Distinct::encode(&mut enc, q, &pairs, bits);
        distinct.add(&enc);
    }
    let pair_count = vocab.pair_count() as u64;
    let mut sessions = Vec::with_capacity(32);
    sessions.extend_from_slice(SHARD_MAGIC);
    sessions.extend_from_slice(&pair_count.to_le_bytes());
    sessions.extend_from_slice(&(index.len() as u64).to_le_bytes());
    sessions.extend_from_slice(&(distinct.len() as u64).to_le_bytes());
    distinct.write_to(&mut sessions);
    let mut out_names = Vec::with_capacity(16 + names.len());
    out_names.extend_from_slice(NAMES_MAGIC);
    out_names.extend_from_slice(&pair_count.to_le_bytes());
    out_names.extend_from_slice(&names);
    Ok((sessions, out_names, index.len() as u64, pair_count))
}

/// One EM pass on a shard (see the module): `(statistics for the driver, new pair
/// parameters)`. `params` is empty on the first pass.
#[pyfunction]
fn spark_step<'py>(
    py: Python<'py>,
    sessions: &Bound<'py, PyBytes>,
    params: &Bound<'py, PyBytes>,
    globals: &Bound<'py, PyBytes>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let (s, p, g) = (sessions.as_bytes(), params.as_bytes(), globals.as_bytes());
    let (stats, new) = detached(py, || step(s, p, g))?;
    Ok((PyBytes::new(py, &stats), PyBytes::new(py, &new)))
}

/// The end of a fit on a shard (see the module): its log-likelihood sum and its pair rows.
#[pyfunction]
fn spark_finish<'py>(
    py: Python<'py>,
    sessions: &Bound<'py, PyBytes>,
    params: &Bound<'py, PyBytes>,
    names: &Bound<'py, PyBytes>,
    globals: &Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (s, p, n, g) = (sessions.as_bytes(), params.as_bytes(), names.as_bytes(), globals.as_bytes());
    let rows = detached(py, || finish(s, p, n, g))?;
    Ok(PyBytes::new(py, &rows))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SparkFit>()?;
    m.add_class::<SparkShard>()?;
    m.add_function(wrap_pyfunction!(spark_step, m)?)?;
    m.add_function(wrap_pyfunction!(spark_finish, m)?)?;
    Ok(())
}
