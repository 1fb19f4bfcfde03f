//! BARACO from Python: is switching from the production ranker to a candidate safe, judged
//! on historical clicks (`serpsim compare-rankers`, the same library calls).

use crate::arrow_io::{self, read_batches};
use crate::errors::{invalid, to_py, UInt};
use crate::job::{spawn, Finish, Job};
use arrow_array::{ArrayRef, BooleanArray, Float64Array, StringArray};
use pyo3::prelude::*;
use serpsim::baraco::{compare, compute_posteriors, parse_rankings, Config, ProductionLog, Sampler, SwitchMetric};
use std::path::PathBuf;
use std::sync::Arc;

/// Reads a click log table (`query_id`, `docs`, `clicks`) into BARACO's log.
fn log_from_table(py: Python<'_>, table: &Bound<'_, PyAny>) -> PyResult<ProductionLog> {
    let what = "log";
    let mut log = ProductionLog::new();
    let (mut qbuf, mut dbuf) = ([0u8; 24], [0u8; 24]);
    let mut base = 0;
    for b in read_batches(table, what)? {
        let q = arrow_io::strs(py, arrow_io::column(py, &b, "query_id", what)?.as_ref(), &format!("{what}: column `query_id`"))?;
        let docs = arrow_io::lists(py, arrow_io::column(py, &b, "docs", what)?.as_ref(), &format!("{what}: column `docs`"))?;
        let dv = arrow_io::strs(py, docs.values().as_ref(), &format!("{what}: column `docs` (its items)"))?;
        let clicks = arrow_io::lists(py, arrow_io::column(py, &b, "clicks", what)?.as_ref(), &format!("{what}: column `clicks`"))?;
        let cv = arrow_io::flags(py, clicks.values().as_ref(), &format!("{what}: column `clicks` (its items)"))?;
        for i in 0..b.num_rows() {
            let row = base + i;
            let qid = q.get(i, &mut qbuf).ok_or_else(|| invalid(py, format!("{what}: row {row}: `query_id` is null")))?.to_string();
            let qi = log.query_id(&qid);
            let dr = docs.range(i).ok_or_else(|| invalid(py, format!("{what}: row {row}: `docs` is null")))?;
            let cr = clicks.range(i).ok_or_else(|| invalid(py, format!("{what}: row {row}: `clicks` is null")))?;
            if dr.len() != cr.len() {
                return Err(invalid(py, format!("{what}: row {row}: {} clicks for {} documents; `clicks` must align with `docs`", cr.len(), dr.len())));
            }
            let mut pairs = Vec::with_capacity(dr.len());
            for j in dr {
                let d = dv.get(j, &mut dbuf).ok_or_else(|| invalid(py, format!("{what}: row {row}: a document id is null")))?.to_string();
                pairs.push(log.pair_id(qi, &d));
            }
            let mut c = Vec::with_capacity(cr.len());
            for j in cr {
                match cv.get(j) {
                    Ok(Some(x)) => c.push(x),
                    Ok(None) => return Err(invalid(py, format!("{what}: row {row}: a click flag is null"))),
                    Err(e) => return Err(invalid(py, format!("{what}: row {row}: click flag {e} is not 0 or 1"))),
                }
            }
            log.push_session(qi, &pairs, &c).map_err(|e| invalid(py, format!("{what}: row {row}: {e}")))?;
        }
        base += b.num_rows();
    }
    if log.is_empty() {
        return Err(invalid(py, format!("{what}: no sessions")));
    }
    Ok(log)
}

/// Rankings as the text of a ranking file: from a file, or from a table `ranker, query_id,
/// docs` (ids must not contain whitespace, as in the file format).
fn rankings_text(py: Python<'_>, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<(String, String)> {
    if let Ok(p) = obj.extract::<PathBuf>() {
        let text = py.detach(|| serpsim::input::read_to_string(&p)).map_err(|e| to_py(py, e))?;
        return Ok((text, p.display().to_string()));
    }
    let mut text = String::new();
    let (mut rbuf, mut qbuf, mut dbuf) = ([0u8; 24], [0u8; 24], [0u8; 24]);
    let mut base = 0;
    for b in read_batches(obj, what)? {
        let r = arrow_io::strs(py, arrow_io::column(py, &b, "ranker", what)?.as_ref(), &format!("{what}: column `ranker`"))?;
        let q = arrow_io::strs(py, arrow_io::column(py, &b, "query_id", what)?.as_ref(), &format!("{what}: column `query_id`"))?;
        let docs = arrow_io::lists(py, arrow_io::column(py, &b, "docs", what)?.as_ref(), &format!("{what}: column `docs`"))?;
        let dv = arrow_io::strs(py, docs.values().as_ref(), &format!("{what}: column `docs` (its items)"))?;
        for i in 0..b.num_rows() {
            let row = base + i;
            let bad = |v: &str| v.trim().is_empty() || v.contains(['\t', '\n', '\r']);
            let rk = r.get(i, &mut rbuf).ok_or_else(|| invalid(py, format!("{what}: row {row}: `ranker` is null")))?.to_string();
            let qid = q.get(i, &mut qbuf).ok_or_else(|| invalid(py, format!("{what}: row {row}: `query_id` is null")))?.to_string();
            for (n, v) in [("ranker", &rk), ("query_id", &qid)] {
                if bad(v) {
                    return Err(invalid(py, format!("{what}: row {row}: `{n}` {v:?} is empty or holds a tab or line break")));
                }
            }
            text.push_str(&rk);
            text.push('\t');
            text.push_str(&qid);
            text.push('\t');
            for (k, j) in docs.range(i).ok_or_else(|| invalid(py, format!("{what}: row {row}: `docs` is null")))?.enumerate() {
                let d = dv.get(j, &mut dbuf).ok_or_else(|| invalid(py, format!("{what}: row {row}: a document id is null")))?;
                if d.is_empty() || d.chars().any(char::is_whitespace) {
                    return Err(invalid(py, format!("{what}: row {row}: document id {d:?} is empty or holds whitespace")));
                }
                if k > 0 {
                    text.push(' ');
                }
                text.push_str(d);
            }
            text.push('\n');
        }
        base += b.num_rows();
    }
    Ok((text, what.to_string()))
}

/// BARACO: the job's result is a record batch `candidate, p_safe, expected_diff, switch,
/// unseen_share` (the CLI's CSV columns).
#[pyfunction]
#[pyo3(signature = (log, production, candidates, epsilon=0.01, delta=0.05, samples=UInt(1000), gamma=0.9, depth=UInt(10), metric="rrmetric", sampler="inverse-cdf", seed=UInt(1), threads=None))]
#[allow(clippy::too_many_arguments)]
fn compare_rankers(
    py: Python<'_>,
    log: &Bound<'_, PyAny>,
    production: &Bound<'_, PyAny>,
    candidates: &Bound<'_, PyAny>,
    epsilon: f64,
    delta: f64,
    samples: UInt,
    gamma: f64,
    depth: UInt,
    metric: &str,
    sampler: &str,
    seed: UInt,
    threads: Option<UInt>,
) -> PyResult<Job> {
    let samples = samples.usize(py, "compare_rankers", "samples")?;
    let depth = depth.usize(py, "compare_rankers", "depth")?;
    let seed = seed.u64(py, "compare_rankers", "seed")?;
    let threads = crate::errors::opt_usize(py, threads, "compare_rankers", "threads")?;
    let m = SwitchMetric::parse(metric).ok_or_else(|| invalid(py, format!("metric: `{metric}` is not rrmetric or dcg")))?;
    let s = match sampler {
        "inverse-cdf" => Sampler::InverseCdf,
        "mh" => Sampler::paper_mh(),
        "mh-thinned" => Sampler::thinned_mh(),
        s => return Err(invalid(py, format!("sampler: `{s}` is not inverse-cdf, mh or mh-thinned"))),
    };
    let cfg = Config { epsilon, delta, samples, depth, metric: m, sampler: s, seed };
    cfg.validate().map_err(|e| to_py(py, e))?;
    let mut log = match log.extract::<PathBuf>() {
        Ok(p) => py.detach(|| ProductionLog::from_file(&p)).map_err(|e| to_py(py, e))?,
        Err(_) => log_from_table(py, log)?,
    };
    let (ptext, psource) = rankings_text(py, production, "production")?;
    let (ctext, csource) = rankings_text(py, candidates, "candidates")?;
    let (production, _) = parse_rankings(&ptext, &psource, &mut log).map_err(|e| to_py(py, e))?;
    if production.len() != 1 {
        return Err(invalid(py, format!("{psource}: expected one production ranker, found {}", production.len())));
    }
    let production = production.into_iter().next().expect("one ranker");
    let (candidates, _) = parse_rankings(&ctext, &csource, &mut log).map_err(|e| to_py(py, e))?;
    spawn("comparing rankers", threads, move |p| {
        p.phase("computing posteriors", "", None);
        let post = compute_posteriors(&log, gamma)?;
        p.phase("comparing rankers", "", None);
        let answers = compare(&log, &post, &production, &candidates, &cfg)?;
        let batch = arrow_io::batch(vec![
            ("candidate", Arc::new(StringArray::from(answers.iter().map(|a| a.candidate.clone()).collect::<Vec<_>>())) as ArrayRef),
            ("p_safe", Arc::new(Float64Array::from(answers.iter().map(|a| a.p_safe).collect::<Vec<_>>()))),
            ("expected_diff", Arc::new(Float64Array::from(answers.iter().map(|a| a.expected_diff).collect::<Vec<_>>()))),
            ("switch", Arc::new(BooleanArray::from(answers.iter().map(|a| a.switch).collect::<Vec<_>>()))),
            ("unseen_share", Arc::new(Float64Array::from(answers.iter().map(|a| a.unseen_share).collect::<Vec<_>>()))),
        ]);
        Ok(Box::new(move |py: Python<'_>| arrow_io::to_python(py, batch)) as Finish)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compare_rankers, m)?)?;
    Ok(())
}
