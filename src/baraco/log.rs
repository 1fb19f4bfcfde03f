//! Click logs and ranker files for BARACO.
//!
//! The production ranker's click log is read by the one click-log reader
//! ([`crate::logs::read::for_each_session`]): any format `clicks fit` reads (detected, or
//! named), with `file:line` errors. BARACO's own layout is the `baraco` format there (one
//! session per line, tab-separated, `#` starts a comment line):
//! `query<TAB>doc1 doc2 ... docN<TAB>c1 c2 ... cN` with `ci` in {0, 1}: the documents in the
//! order shown by the production ranker and the clicks on them. Sessions are kept in file
//! order, queries and pairs numbered in first-seen order ([`ProductionLog`]).
//!
//! Ranking file (production and candidates): `ranker<TAB>query<TAB>doc1 doc2 ...`, one line
//! per (ranker, query), documents in ranked order. A weights file (used with LETOR features)
//! has one line per ranker: `ranker w1 w2 ... wF`.

use crate::error::{Error, Result};
use crate::input::{snippet, Input, ECHO};
use crate::logs::{Format, ReadOptions, ReadReport};
use std::collections::HashMap;
use std::path::Path;

/// Sessions logged under the production ranker, over an index of (query, document) pairs.
///
/// Pairs are numbered densely; pairs added for candidate rankings that never appear in the
/// log are "unseen" and keep the prior.
#[derive(Debug, Clone, Default)]
pub struct ProductionLog {
    /// Query ids, in first-seen order.
    pub queries: Vec<String>,
    /// `(query index, document id)` of every pair.
    pub pairs: Vec<(u32, String)>,
    /// Number of sessions per query (the empirical query distribution p(q)).
    pub query_sessions: Vec<u64>,
    /// Query index of every session.
    pub session_query: Vec<u32>,
    /// Start of every session in `docs`/`clicks`; one extra entry closes the last one.
    pub session_start: Vec<u32>,
    /// Pair index of each shown result, sessions concatenated.
    pub docs: Vec<u32>,
    /// Click flag of each shown result.
    pub clicks: Vec<bool>,
    /// Whether each pair was shown in at least one session.
    pub seen: Vec<bool>,
    query_index: HashMap<String, u32>,
    pair_index: Vec<HashMap<String, u32>>,
}

impl ProductionLog {
    /// An empty log.
    pub fn new() -> Self {
        ProductionLog { session_start: vec![0], ..Default::default() }
    }

    /// Number of sessions.
    pub fn len(&self) -> usize {
        self.session_query.len()
    }

    /// Whether there are no sessions.
    pub fn is_empty(&self) -> bool {
        self.session_query.is_empty()
    }

    /// Query index of `qid`, added if new.
    pub fn query_id(&mut self, qid: &str) -> u32 {
        if let Some(&q) = self.query_index.get(qid) {
            return q;
        }
        let q = self.queries.len() as u32;
        self.queries.push(qid.to_string());
        self.query_index.insert(qid.to_string(), q);
        self.pair_index.push(HashMap::new());
        self.query_sessions.push(0);
        q
    }

    /// Query index of `qid`, if known.
    pub fn find_query(&self, qid: &str) -> Option<u32> {
        self.query_index.get(qid).copied()
    }

    /// Pair index of `(query, doc)`, added (unseen) if new.
    pub fn pair_id(&mut self, query: u32, doc: &str) -> u32 {
        if let Some(&p) = self.pair_index[query as usize].get(doc) {
            return p;
        }
        let p = self.pairs.len() as u32;
        self.pairs.push((query, doc.to_string()));
        self.seen.push(false);
        self.pair_index[query as usize].insert(doc.to_string(), p);
        p
    }

    /// Appends a session (pairs already indexed). Fails on duplicate documents or length mismatch.
    pub fn push_session(&mut self, query: u32, docs: &[u32], clicks: &[bool]) -> Result<()> {
        if docs.len() != clicks.len() {
            return Err(Error::Invalid(format!("{} documents but {} click flags", docs.len(), clicks.len())));
        }
        if docs.is_empty() {
            return Err(Error::Invalid("a session shows no documents".into()));
        }
        for (i, d) in docs.iter().enumerate() {
            if docs[..i].contains(d) {
                return Err(Error::Invalid(format!("document `{}` is shown twice", self.pairs[*d as usize].1)));
            }
            self.seen[*d as usize] = true;
        }
        self.session_query.push(query);
        self.query_sessions[query as usize] += 1;
        self.docs.extend_from_slice(docs);
        self.clicks.extend_from_slice(clicks);
        self.session_start.push(self.docs.len() as u32);
        Ok(())
    }

    /// Session `j`: (query, pairs, clicks).
    #[inline]
    pub fn session(&self, j: usize) -> (u32, &[u32], &[bool]) {
        let (a, b) = (self.session_start[j] as usize, self.session_start[j + 1] as usize);
        (self.session_query[j], &self.docs[a..b], &self.clicks[a..b])
    }

    /// The same sessions as a click-model log (`crate::logs`), pair indices as document ids.
    pub fn to_logs(&self) -> crate::logs::ClickLog {
        let mut cl = crate::logs::ClickLog::new();
        for j in 0..self.len() {
            let (q, docs, clicks) = self.session(j);
            cl.push(q, docs, clicks);
        }
        cl
    }

    /// Reads a log file in any click-log format, detected from its first lines (the `baraco`
    /// layout of the module docs among them).
    pub fn from_file(path: &Path) -> Result<Self> {
        Ok(Self::read(crate::input::open(path)?, &ReadOptions::new(Format::Auto))?.0)
    }

    /// Reads the sessions of `input` with the click-log reader and `opts` (format, skipping
    /// of bad lines), and returns them with the read's report (its warnings: ignored clicks,
    /// skipped lines). A session that shows a document twice is an error (BARACO's DBN
    /// posteriors count each pair once per session); the `baraco` format reports it with
    /// `file:line`, the others with the session's number.
    pub fn read(input: Input, opts: &ReadOptions) -> Result<(Self, ReadReport)> {
        let name = input.name().to_string();
        let mut log = ProductionLog::new();
        let mut docs = Vec::new();
        let mut n = 0usize;
        let report = crate::logs::read::for_each_session(input, opts, &mut |s| {
            n += 1;
            let q = log.query_id(s.query());
            docs.clear();
            for d in s.docs() {
                docs.push(log.pair_id(q, d));
            }
            log.push_session(q, &docs, &s.clicks).map_err(|e| Error::Invalid(format!("{name}: session {n} (query `{}`): {e}", snippet(s.query(), ECHO))))
        })?;
        Ok((log, report))
    }

    /// Parses log text in BARACO's layout (the `baraco` format); `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Self> {
        let input = Input::from_bytes(source, text.as_bytes().to_vec())?;
        Ok(Self::read(input, &ReadOptions::new(Format::Baraco))?.0)
    }

    /// The log in the `baraco` format of the module docs.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for j in 0..self.len() {
            let (q, docs, clicks) = self.session(j);
            s.push_str(&self.queries[q as usize]);
            s.push('\t');
            let d: Vec<&str> = docs.iter().map(|&p| self.pairs[p as usize].1.as_str()).collect();
            s.push_str(&d.join(" "));
            s.push('\t');
            let c: Vec<&str> = clicks.iter().map(|&c| if c { "1" } else { "0" }).collect();
            s.push_str(&c.join(" "));
            s.push('\n');
        }
        s
    }
}

/// One ranker: a ranked list of pair indices per logged query (empty for queries it does not rank).
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking {
    /// Ranker name.
    pub name: String,
    /// Per query index of the log: pair indices in ranked order.
    pub lists: Vec<Vec<u32>>,
}

/// Parses a ranking file into rankers over `log`'s queries; documents not in the log become
/// unseen pairs. Queries absent from the log are skipped (they have weight 0 in p(q)) and
/// counted in the returned number.
pub fn parse_rankings(text: &str, source: &str, log: &mut ProductionLog) -> Result<(Vec<Ranking>, usize)> {
    let text = crate::input::strip_bom(text);
    let mut out: Vec<Ranking> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut skipped = 0;
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() != 3 {
            return Err(Error::parse(source, lineno, format!("expected 3 tab-separated fields `ranker<TAB>query<TAB>docs`, found {}", fields.len())));
        }
        let (name, qid) = (fields[0].trim(), fields[1].trim());
        if name.is_empty() || qid.is_empty() {
            return Err(Error::parse(source, lineno, "empty ranker or query id"));
        }
        let Some(q) = log.find_query(qid) else {
            skipped += 1;
            continue;
        };
        let r = *index.entry(name.to_string()).or_insert_with(|| {
            out.push(Ranking { name: name.to_string(), lists: vec![Vec::new(); log.queries.len()] });
            out.len() - 1
        });
        if !out[r].lists[q as usize].is_empty() {
            return Err(Error::parse(source, lineno, format!("ranker `{}` lists query `{}` twice", snippet(name, ECHO), snippet(qid, ECHO))));
        }
        let mut list = Vec::new();
        for d in fields[2].split_whitespace() {
            let p = log.pair_id(q, d);
            if list.contains(&p) {
                return Err(Error::parse(source, lineno, format!("document `{}` is ranked twice", snippet(d, ECHO))));
            }
            list.push(p);
        }
        if list.is_empty() {
            return Err(Error::parse(source, lineno, "empty ranking"));
        }
        out[r].lists[q as usize] = list;
    }
    if out.is_empty() {
        return Err(Error::parse(source, 1, "no rankings for any logged query"));
    }
    Ok((out, skipped))
}

/// Parses a weights file: `ranker w1 w2 ... wF` per line (whitespace-separated).
pub fn parse_weights(text: &str, source: &str) -> Result<Vec<(String, Vec<f64>)>> {
    let text = crate::input::strip_bom(text);
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut f = line.split_whitespace();
        let name = f.next().unwrap_or_default().to_string();
        let w: Vec<f64> = f
            .map(|v| {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| Error::parse(source, lineno, format!("weight `{}` is not a finite number", snippet(v, ECHO))))
            })
            .collect::<Result<_>>()?;
        if w.is_empty() {
            return Err(Error::parse(source, lineno, format!("ranker `{}` has no weights", snippet(&name, ECHO))));
        }
        out.push((name, w));
    }
    if out.is_empty() {
        return Err(Error::parse(source, 1, "no rankers found (empty weights file)"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_log_and_rankings() {
        let mut log = ProductionLog::parse("# c\nq1\ta b c\t0 1 0\nq2\tx y\t0 0\nq1\tb a c\t1 0 0\n", "l").unwrap();
        assert_eq!(log.len(), 3);
        assert_eq!(log.query_sessions, [2, 1]);
        let (q, d, c) = log.session(2);
        assert_eq!((q, d, c), (0, &[1u32, 0, 2][..], &[true, false, false][..]));
        let (r, skipped) = parse_rankings("p\tq1\tc z a\np\tq9\ta\n", "r", &mut log).unwrap();
        assert_eq!(skipped, 1);
        assert_eq!(r[0].lists[0], [2, 5, 0]);
        assert!(!log.seen[5] && log.seen[0]);
        assert_eq!(ProductionLog::parse(&log.to_text(), "t").unwrap().docs, log.docs);
    }

    #[test]
    fn malformed_files_are_located() {
        let e = ProductionLog::parse("q\ta b\t0 1\nq\ta b\t0 2\n", "l.tsv").unwrap_err().to_string();
        assert!(e.starts_with("l.tsv:2:") && e.contains("not 0 or 1"), "{e}");
        let e = ProductionLog::parse("q\ta b\t0\n", "l.tsv").unwrap_err().to_string();
        assert!(e.contains("l.tsv:1:") && e.contains("click flags"), "{e}");
        let e = ProductionLog::parse("q a b 0 1\n", "l.tsv").unwrap_err().to_string();
        assert!(e.contains("3 tab-separated"), "{e}");
        let e = ProductionLog::parse("q\ta a\t0 1\n", "l.tsv").unwrap_err().to_string();
        assert!(e.contains("twice"), "{e}");
        assert!(ProductionLog::parse("# nothing\n", "l.tsv").unwrap_err().to_string().contains("empty"));
        let mut log = ProductionLog::parse("q\ta b\t0 1\n", "l").unwrap();
        let e = parse_rankings("p\tq\ta a\n", "r.tsv", &mut log).unwrap_err().to_string();
        assert!(e.starts_with("r.tsv:1:"), "{e}");
        let e = parse_rankings("p q a\n", "r.tsv", &mut log).unwrap_err().to_string();
        assert!(e.contains("3 tab-separated"), "{e}");
        let e = parse_weights("r 0.1 x\n", "w.txt").unwrap_err().to_string();
        assert!(e.starts_with("w.txt:1:") && e.contains("`x`"), "{e}");
    }
}
