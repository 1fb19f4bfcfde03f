//! LETOR / SVMlight feature files and linear rankers over them.
//!
//! Line format: `grade qid:Q 1:v 2:v ... # docid = D ...`. Files are read through
//! [`crate::input`] (gzip or zstd by magic bytes, `-` for standard input, BOM and CRLF removed)
//! line by line. Features are 1-based; each document stores them densely up to its own last
//! listed index (missing ones are 0), so one stray large index costs that document only, and
//! an index above [`MAX_FEATURE_INDEX`] is refused with `file:line`. A linear ranker scores
//! `w · x` and sorts descending; ties keep file order, so rankings are deterministic.

use super::{Collection, Document, Serp, System, Topic};
use crate::error::{Error, Result};
use crate::input::{self, snippet, Input};
use std::collections::HashMap;
use std::path::Path;

/// Largest feature index accepted (65,536). Public learning-to-rank sets use far fewer:
/// MQ2007/MQ2008 46, MSLR-WEB 136, Istella 220, Yahoo! LTR 700. A larger index is almost
/// always a wrong file (e.g. a bag-of-words SVMlight file), and stored densely it would cost
/// 8 bytes per index for its document.
pub const MAX_FEATURE_INDEX: usize = 1 << 16;

/// One judged document with its feature vector.
#[derive(Debug, Clone, PartialEq)]
pub struct LetorDoc {
    /// Document id from the `# docid = ...` comment, else `line<N>`.
    pub id: String,
    /// Relevance label.
    pub grade: i32,
    /// Dense features up to this document's last listed index; index 0 holds feature 1.
    /// Features beyond the end are 0 (use [`LetorDoc::feature`]).
    pub features: Vec<f64>,
}

impl LetorDoc {
    /// Value of feature `k` (1-based); 0 when absent.
    pub fn feature(&self, k: usize) -> f64 {
        k.checked_sub(1).and_then(|i| self.features.get(i)).copied().unwrap_or(0.0)
    }
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

const QUOTE: usize = 40;

impl LetorData {
    /// Reads a LETOR file (`-` for standard input; gzip and zstd are detected).
    pub fn from_file(path: &Path) -> Result<Self> {
        Self::from_input(input::open(path)?)
    }

    /// Parses LETOR text; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Self> {
        Self::from_input(Input::from_bytes(source, text.as_bytes().to_vec())?)
    }

    /// Reads every line of an opened input.
    pub fn from_input(input: Input) -> Result<Self> {
        let source = input.name().to_string();
        let mut queries: Vec<LetorQuery> = Vec::new();
        let mut pos: HashMap<String, usize> = HashMap::new();
        // Per query: line of each document id given by a `docid = ...` comment.
        let mut seen: Vec<HashMap<String, usize>> = Vec::new();
        let mut n_features = 0;
        input.lines().for_each(|lineno, raw| {
            let err = |reason: String| Error::parse(&source, lineno, reason);
            let (body, comment) = match raw.find('#') {
                Some(k) => (&raw[..k], &raw[k + 1..]),
                None => (raw, ""),
            };
            let mut fields = body.split_whitespace();
            let Some(grade) = fields.next() else { return Ok(()) };
            let grade: i32 = grade.parse().map_err(|_| err(format!("label `{}` is not an integer", snippet(grade, QUOTE))))?;
            let qid =
                fields.next().and_then(|f| f.strip_prefix("qid:")).filter(|q| !q.is_empty()).ok_or_else(|| err("second field must be `qid:<id>`".into()))?;
            let mut features = Vec::new();
            let mut last = 0usize;
            for f in fields {
                let (k, v) = f.split_once(':').ok_or_else(|| err(format!("feature `{}` is not `index:value`", snippet(f, QUOTE))))?;
                let k: usize =
                    k.parse().ok().filter(|&k| k >= 1).ok_or_else(|| err(format!("feature index `{}` is not a positive integer", snippet(k, QUOTE))))?;
                if k > MAX_FEATURE_INDEX {
                    return Err(err(format!(
                        "feature index {k} is above the largest supported index {MAX_FEATURE_INDEX}; \
                         is this a LETOR file (learning-to-rank sets have at most a few hundred features)?"
                    )));
                }
                if k <= last {
                    return Err(err(format!("feature index {k} is not increasing")));
                }
                last = k;
                let v: f64 = v
                    .parse()
                    .ok()
                    .filter(|v: &f64| v.is_finite())
                    .ok_or_else(|| err(format!("feature value `{}` is not a finite number", snippet(v, QUOTE))))?;
                if features.len() < k {
                    features.resize(k, 0.0);
                }
                features[k - 1] = v;
            }
            n_features = n_features.max(features.len());
            let docid = comment.split_whitespace().collect::<Vec<_>>().windows(3).find(|w| w[0] == "docid" && w[1] == "=").map(|w| w[2].to_string());
            let q = *pos.entry(qid.to_string()).or_insert_with(|| {
                queries.push(LetorQuery { qid: qid.to_string(), docs: Vec::new() });
                seen.push(HashMap::new());
                queries.len() - 1
            });
            let id = match docid {
                Some(d) => {
                    if let Some(first) = seen[q].insert(d.clone(), lineno) {
                        return Err(err(format!(
                            "document `{}` of query `{}` is listed twice (first on line {first})",
                            snippet(&d, QUOTE),
                            snippet(qid, QUOTE)
                        )));
                    }
                    d
                }
                None => format!("line{lineno}"),
            };
            queries[q].docs.push(LetorDoc { id, grade, features });
            Ok(())
        })?;
        if queries.is_empty() {
            return Err(Error::parse(&source, 1, "no documents found (empty LETOR file)"));
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
                // The readers refuse duplicates with file:line; data built by hand may not.
                return Err(Error::Invalid(format!("LETOR query `{}` lists a document id twice", q.qid)));
            }
            c.topics.push(t);
        }
        for (name, w) in rankers {
            if w.len() > self.n_features {
                return Err(Error::Invalid(format!("ranker `{name}` has {} weights but the data has {} features", w.len(), self.n_features)));
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
        // Dense up to each document's own last index (hand-read from SAMPLE).
        assert_eq!(d.queries[0].docs[1].features, [0.9, 0.0, 0.1]);
        assert_eq!(d.queries[0].docs[0].features, [0.5, 1.0]);
        assert_eq!((d.queries[0].docs[0].feature(3), d.queries[0].docs[0].feature(2)), (0.0, 1.0));
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
        let err = LetorData::parse("1 qid:1 1:0.1 #docid = A\n0 qid:2 1:0 #docid = A\n2 qid:1 1:1 #docid = A\n", "l.txt").unwrap_err().to_string();
        assert_eq!(err, "l.txt:3: document `A` of query `1` is listed twice (first on line 1)");
        let err = LetorData::parse("", "e.txt").unwrap_err().to_string();
        assert!(err.contains("no documents"), "{err}");
    }

    #[test]
    fn huge_feature_index_is_refused_before_allocating() {
        // The case: one token `1000000:x` in a 99-document file cost 780 MB.
        let mut text: String = (0..98).map(|i| format!("0 qid:{} 1:0.5 2:0.1 #docid = d{i}\n", i % 7)).collect();
        text.push_str("1 qid:3 1000000:1\n");
        let err = LetorData::parse(&text, "big.txt").unwrap_err().to_string();
        assert!(err.starts_with("big.txt:99: feature index 1000000 is above the largest supported index 65536"), "{err}");
        // The largest allowed index costs only its own document (8 bytes per index).
        text.pop();
        text.truncate(text.rfind('\n').unwrap() + 1);
        text.push_str("1 qid:3 65536:1\n");
        let d = LetorData::parse(&text, "big.txt").unwrap();
        assert_eq!(d.n_features, 65536);
        let lens: Vec<usize> = d.queries.iter().flat_map(|q| q.docs.iter().map(|x| x.features.len())).collect();
        assert_eq!(lens.iter().filter(|&&l| l == 65536).count(), 1);
        assert_eq!(lens.iter().filter(|&&l| l == 2).count(), 98);
    }

    #[test]
    fn gzip_file_and_stdin_name_read_the_same() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("l.txt.gz");
        let mut e = flate2::write::GzEncoder::new(std::fs::File::create(&p).unwrap(), Default::default());
        e.write_all(SAMPLE.replace('\n', "\r\n").as_bytes()).unwrap();
        e.finish().unwrap();
        assert_eq!(LetorData::from_file(&p).unwrap(), LetorData::parse(SAMPLE, "s").unwrap());
        let mut e = flate2::write::GzEncoder::new(Vec::new(), Default::default());
        e.write_all(b"1 qid:1 1:0.1\n1 qid:1 1:x\n").unwrap();
        let err = LetorData::from_input(Input::from_bytes("z.gz", e.finish().unwrap()).unwrap()).unwrap_err().to_string();
        assert!(err.starts_with("z.gz:2: feature value `x`"), "{err}");
    }
}
