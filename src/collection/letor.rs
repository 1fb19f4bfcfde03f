//! LETOR / SVMlight feature files and linear rankers over them.
//!
//! Line format: `grade qid:Q 1:v 2:v ... # docid = D ...`. Features are 1-based and dense in
//! memory (missing ones are 0). A linear ranker scores `w · x` and sorts descending; ties keep
//! file order, so rankings are deterministic.

use super::{Collection, Document, Serp, System, Topic};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

/// One judged document with its feature vector.
#[derive(Debug, Clone, PartialEq)]
pub struct LetorDoc {
    /// Document id from the `# docid = ...` comment, else `line<N>`.
    pub id: String,
    /// Relevance label.
    pub grade: i32,
    /// Dense features, index 0 holds feature 1.
    pub features: Vec<f64>,
}

/// A query and its judged documents in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct LetorQuery {
    /// Query id.
    pub qid: String,
    /// Documents in file order.
    pub docs: Vec<LetorDoc>,
}

/// A parsed LETOR file.
#[derive(Debug, Clone, PartialEq)]
pub struct LetorData {
    /// Queries in first-seen order.
    pub queries: Vec<LetorQuery>,
    /// Largest feature index seen.
    pub n_features: usize,
}

impl LetorData {
    /// Reads a LETOR file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses LETOR text; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Self> {
        let mut queries: Vec<LetorQuery> = Vec::new();
        let mut pos: HashMap<String, usize> = HashMap::new();
        let mut n_features = 0;
        for (i, raw) in text.lines().enumerate() {
            let lineno = i + 1;
            let (body, comment) = match raw.find('#') {
                Some(k) => (&raw[..k], &raw[k + 1..]),
                None => (raw, ""),
            };
            let mut fields = body.split_whitespace();
            let Some(grade) = fields.next() else { continue };
            let grade: i32 = grade.parse().map_err(|_| {
                Error::parse(source, lineno, format!("label `{grade}` is not an integer"))
            })?;
            let qid = fields
                .next()
                .and_then(|f| f.strip_prefix("qid:"))
                .ok_or_else(|| Error::parse(source, lineno, "second field must be `qid:<id>`"))?;
            let mut features = Vec::new();
            let mut last = 0usize;
            for f in fields {
                let (k, v) = f.split_once(':').ok_or_else(|| {
                    Error::parse(source, lineno, format!("feature `{f}` is not `index:value`"))
                })?;
                let k: usize = k.parse().ok().filter(|&k| k >= 1).ok_or_else(|| {
                    Error::parse(source, lineno, format!("feature index `{k}` is not a positive integer"))
                })?;
                if k <= last {
                    return Err(Error::parse(source, lineno, format!("feature index {k} is not increasing")));
                }
                last = k;
                let v: f64 = v.parse().ok().filter(|v: &f64| v.is_finite()).ok_or_else(|| {
                    Error::parse(source, lineno, format!("feature value `{v}` is not a finite number"))
                })?;
                if features.len() < k {
                    features.resize(k, 0.0);
                }
                features[k - 1] = v;
            }
            n_features = n_features.max(features.len());
            let id = comment
                .split_whitespace()
                .collect::<Vec<_>>()
                .windows(3)
                .find(|w| w[0] == "docid" && w[1] == "=")
                .map(|w| w[2].to_string())
                .unwrap_or_else(|| format!("line{lineno}"));
            let q = *pos.entry(qid.to_string()).or_insert_with(|| {
                queries.push(LetorQuery { qid: qid.to_string(), docs: Vec::new() });
                queries.len() - 1
            });
            queries[q].docs.push(LetorDoc { id, grade, features });
        }
        if queries.is_empty() {
            return Err(Error::parse(source, 1, "no documents found (empty LETOR file)"));
        }
        for q in &mut queries {
            for d in &mut q.docs {
                d.features.resize(n_features, 0.0);
            }
        }
        Ok(LetorData { queries, n_features })
    }

    /// Ranks each query's documents by `weights · features`, descending (ties keep file order).
    /// Returns, per query, document positions in the query's `docs`.
    pub fn rank(&self, weights: &[f64]) -> Vec<Vec<u32>> {
        self.queries
            .iter()
            .map(|q| {
                let scores: Vec<f64> = q.docs.iter().map(|d| linear_score(weights, &d.features)).collect();
                let mut order: Vec<u32> = (0..q.docs.len() as u32).collect();
                order.sort_by(|&a, &b| scores[b as usize].total_cmp(&scores[a as usize]));
                order
            })
            .collect()
    }

    /// A collection with one topic per query and one system per named weight vector.
    pub fn to_collection(&self, rankers: &[(String, Vec<f64>)]) -> Result<Collection> {
        let mut c = Collection::new();
        for q in &self.queries {
            let mut t = Topic::new(q.qid.clone());
            for d in &q.docs {
                t.push(Document::new(d.id.clone(), d.grade));
            }
            if t.documents.len() != q.docs.len() {
                return Err(Error::Invalid(format!("query `{}` lists a document id twice", q.qid)));
            }
            c.topics.push(t);
        }
        for (name, w) in rankers {
            if w.len() > self.n_features {
                return Err(Error::Invalid(format!(
                    "ranker `{name}` has {} weights but the data has {} features", w.len(), self.n_features)));
            }
            let serps = self.rank(w).into_iter().map(|docs| Some(Serp { docs })).collect();
            c.systems.push(System { name: name.clone(), serps });
        }
        Ok(c)
    }
}

/// `w · x` over the shorter of the two vectors.
pub fn linear_score(weights: &[f64], features: &[f64]) -> f64 {
    weights.iter().zip(features).map(|(w, x)| w * x).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "2 qid:10 1:0.5 2:1.0 #docid = A inc = 1\n0 qid:10 1:0.9 3:0.1 #docid = B\n1 qid:11 2:0.2\n";

    #[test]
    fn parses_and_ranks() {
        let d = LetorData::parse(SAMPLE, "f").unwrap();
        assert_eq!(d.n_features, 3);
        assert_eq!(d.queries[0].docs[1].features, [0.9, 0.0, 0.1]);
        assert_eq!(d.queries[1].docs[0].id, "line3");
        assert_eq!(d.rank(&[1.0, 0.0, 0.0])[0], [1, 0]);
        assert_eq!(d.rank(&[0.0, 1.0, 0.0])[0], [0, 1]);
        let c = d.to_collection(&[("f2".into(), vec![0.0, 1.0])]).unwrap();
        assert_eq!(c.topics[0].documents[c.systems[0].serps[0].as_ref().unwrap().docs[0] as usize].grade, 2);
    }

    #[test]
    fn bad_lines_are_located() {
        let err = LetorData::parse("1 qid:1 1:0.1\n1 q:1 1:0.1\n", "l.txt").unwrap_err().to_string();
        assert!(err.starts_with("l.txt:2:"), "{err}");
        let err = LetorData::parse("1 qid:1 2:0.1 1:0.3\n", "l.txt").unwrap_err().to_string();
        assert!(err.contains("not increasing"), "{err}");
        let err = LetorData::parse("1 qid:1 1:nan\n", "l.txt").unwrap_err().to_string();
        assert!(err.contains("finite"), "{err}");
    }
}
