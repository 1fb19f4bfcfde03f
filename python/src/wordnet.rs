//! WordNet similarity from Python, vectorised over word pairs (`serpsim wordnet lch|path
//! --pairs`, the same library calls and the same WordNet directory).

use crate::errors::{invalid, to_py};
use crate::job::{spawn, Finish, Job};
use pyo3::prelude::*;
use pyo3::IntoPyObject;
use serpsim::wordnet::{batch::Pairs, default_dir, Measure, Pos, Similarity, WordNet};
use std::path::PathBuf;

/// Scores pairs `(word1, word2, pos)`; pos `n` or `v`. The job's result is a list of scores,
/// `None` where a word has no synset of that part of speech or the synsets share no ancestor.
#[pyfunction]
#[pyo3(signature = (measure, word1, word2, pos, wordnet=None))]
fn wordnet_scores(py: Python<'_>, measure: &str, word1: Vec<String>, word2: Vec<String>, pos: Vec<String>, wordnet: Option<PathBuf>) -> PyResult<Job> {
    let measure = match measure {
        "lch" => Measure::Lch,
        "path" => Measure::Path,
        m => return Err(invalid(py, format!("measure: `{m}` is not lch or path"))),
    };
    if word1.len() != word2.len() || word1.len() != pos.len() {
        return Err(invalid(py, "word1, word2 and pos must have the same length"));
    }
    let mut pairs = Pairs::default();
    for (i, ((a, b), p)) in word1.iter().zip(&word2).zip(&pos).enumerate() {
        let (a, b) = (a.trim(), b.trim());
        if a.is_empty() || b.is_empty() {
            return Err(invalid(py, format!("pairs: row {i}: empty word")));
        }
        let p = Pos::parse(p).map_err(|_| invalid(py, format!("pairs: row {i}: part of speech `{p}`: use n or v")))?;
        pairs.push(a, b, p);
    }
    let dir = wordnet.unwrap_or_else(default_dir);
    let wn = py.detach(|| WordNet::open(&dir)).map_err(|e| to_py(py, e))?;
    spawn(&format!("wordnet {}", measure.name()), None, move |p| {
        p.phase(&format!("wordnet {}", measure.name()), "pairs", Some(pairs.len() as u64));
        let mut sim = Similarity::new(&wn);
        let mut out = Vec::with_capacity(pairs.len());
        for i in 0..pairs.len() {
            let (a, b, pos) = pairs.get(i);
            out.push(sim.score(measure, a, b, pos));
            if i % 65536 == 65535 {
                p.inc(65536);
                serpsim::interrupt::check()?;
            }
        }
        Ok(Box::new(move |py: Python<'_>| Ok(out.into_pyobject(py)?.into_any().unbind())) as Finish)
    })
}

/// The WordNet directory the library (and the CLI) uses by default.
#[pyfunction]
fn wordnet_default_dir() -> PathBuf {
    default_dir()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(wordnet_scores, m)?)?;
    m.add_function(wrap_pyfunction!(wordnet_default_dir, m)?)?;
    Ok(())
}
