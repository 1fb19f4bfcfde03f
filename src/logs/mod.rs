//! Click logs: readers for the Yandex sample format and a general TSV / JSONL session format,
//! streamed line by line, and an interned in-memory log on flat arrays.
//!
//! Query ids and (query, document) pairs are interned into dense `u32` indices once while
//! reading ([`Vocab`]); click models index `Vec<f64>` parameters by those indices.
//! Formats are documented in `docs/clickmodels.md`.
//!
//! ```
//! use serpsim::logs::{Format, LogData};
//! let text = "q1\td1,d2,d3 : d2; q1\td2,d1,d3 :\n";
//! let data = LogData::parse(text, Format::Yandex, "inline", false).unwrap();
//! assert_eq!(data.log.len(), 2);
//! assert_eq!(data.log.session(0).clicks, &[false, true, false]);
//! ```

use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// Log file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `QUERY<TAB>d1,...,dn : clicked1 , clicked2 ...`, several impressions per line separated by `;`.
    Yandex,
    /// `session_id<TAB>query<TAB>d1,...,dn<TAB>c1,...,cn[<TAB>timestamp[<TAB>dwell1,...,dwelln]]`.
    Tsv,
    /// One JSON object per line: `{"session", "query", "documents", "clicks", "timestamp", "dwell"}`.
    Jsonl,
}

impl std::str::FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "yandex" => Ok(Format::Yandex),
            "tsv" => Ok(Format::Tsv),
            "jsonl" => Ok(Format::Jsonl),
            _ => Err(Error::Invalid(format!("unknown log format `{s}` (expected yandex, tsv or jsonl)"))),
        }
    }
}

/// One search session (one query, one SERP) as read from a file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawSession {
    /// Session id, if the format has one.
    pub id: Option<String>,
    /// Query id.
    pub query: String,
    /// Document ids by rank.
    pub docs: Vec<String>,
    /// Click flags by rank.
    pub clicks: Vec<bool>,
    /// Session start time in seconds, if given.
    pub timestamp: Option<f64>,
    /// Dwell time per rank in seconds (0 when not clicked), if given.
    pub dwell: Option<Vec<f64>>,
}

/// What a read skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadReport {
    /// Sessions read.
    pub sessions: usize,
    /// Bad lines skipped (only with `skip_bad_lines`).
    pub skipped_lines: usize,
    /// The first skipped line's error, for the message.
    pub first_error: Option<String>,
}

/// Parses the sessions of one line. Errors are reasons without the location.
fn parse_line(line: &str, format: Format, out: &mut Vec<RawSession>) -> std::result::Result<(), String> {
    match format {
        Format::Yandex => parse_yandex_line(line, out),
        Format::Tsv => parse_tsv_line(line, out),
        Format::Jsonl => parse_jsonl_line(line, out),
    }
}

fn parse_yandex_line(line: &str, out: &mut Vec<RawSession>) -> std::result::Result<(), String> {
    for (k, part) in line.split(';').enumerate() {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let at = |reason: &str| format!("impression {}: {reason}", k + 1);
        let (query, rest) = part.split_once('\t').ok_or_else(|| at("no TAB between the query id and the results"))?;
        let query = query.trim();
        if query.is_empty() {
            return Err(at("empty query id"));
        }
        let (docs, clicked) = rest.split_once(':').ok_or_else(|| at("no `:` between the results and the clicks"))?;
        let docs: Vec<String> = docs.split(',').map(|d| d.trim().to_string()).collect();
        if docs.iter().any(String::is_empty) {
            return Err(at("empty document id in the result list"));
        }
        let clicked: Vec<&str> = clicked.split(',').map(str::trim).filter(|c| !c.is_empty()).collect();
        if clicked.iter().any(|c| c.contains(char::is_whitespace)) {
            return Err(at("clicked document ids must be separated by commas"));
        }
        let clicks = docs.iter().map(|d| clicked.contains(&d.as_str())).collect();
        out.push(RawSession { id: None, query: query.to_string(), docs, clicks, timestamp: None, dwell: None });
    }
    Ok(())
}

fn parse_list_f64(field: &str, what: &str) -> std::result::Result<Vec<f64>, String> {
    field
        .split(',')
        .map(|x| {
            let x = x.trim();
            if x.is_empty() {
                return Ok(0.0);
            }
            x.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("{what}: `{x}` is not a finite number >= 0"))
        })
        .collect()
}

fn parse_tsv_line(line: &str, out: &mut Vec<RawSession>) -> std::result::Result<(), String> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.first().map(|s| s.trim()) == Some("session_id") {
        return Ok(()); // header
    }
    if f.len() < 4 || f.len() > 6 {
        return Err(format!(
            "expected 4 to 6 TAB-separated fields (session_id, query, documents, clicks[, timestamp[, dwell]]), found {}",
            f.len()
        ));
    }
    let query = f[1].trim();
    if query.is_empty() {
        return Err("empty query id".into());
    }
    let docs: Vec<String> = f[2].split(',').map(|d| d.trim().to_string()).collect();
    if docs.iter().any(String::is_empty) {
        return Err("empty document id in the result list".into());
    }
    let clicks = f[3]
        .split(',')
        .map(|c| match c.trim() {
            "0" => Ok(false),
            "1" => Ok(true),
            other => Err(format!("click flag `{other}` must be 0 or 1")),
        })
        .collect::<std::result::Result<Vec<bool>, String>>()?;
    if clicks.len() != docs.len() {
        return Err(format!("{} documents but {} click flags", docs.len(), clicks.len()));
    }
    let timestamp = match f.get(4).map(|t| t.trim()) {
        None | Some("") => None,
        Some(t) => Some(t.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| format!("timestamp `{t}` is not a number"))?),
    };
    let dwell = match f.get(5).map(|t| t.trim()) {
        None | Some("") => None,
        Some(t) => {
            let d = parse_list_f64(t, "dwell")?;
            if d.len() != docs.len() {
                return Err(format!("{} documents but {} dwell times", docs.len(), d.len()));
            }
            Some(d)
        }
    };
    let id = Some(f[0].trim().to_string()).filter(|s| !s.is_empty());
    out.push(RawSession { id, query: query.to_string(), docs, clicks, timestamp, dwell });
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonSession {
    #[serde(default)]
    session: Option<serde_json::Value>,
    query: serde_json::Value,
    documents: Vec<serde_json::Value>,
    clicks: Vec<serde_json::Value>,
    #[serde(default)]
    timestamp: Option<f64>,
    #[serde(default)]
    dwell: Option<Vec<f64>>,
}

fn json_id(v: &serde_json::Value, what: &str) -> std::result::Result<String, String> {
    match v {
        serde_json::Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        serde_json::Value::Number(n) => Ok(n.to_string()),
        _ => Err(format!("{what} must be a non-empty string or a number")),
    }
}

fn parse_jsonl_line(line: &str, out: &mut Vec<RawSession>) -> std::result::Result<(), String> {
    let j: JsonSession = serde_json::from_str(line).map_err(|e| format!("invalid JSON session: {e}"))?;
    let query = json_id(&j.query, "`query`")?;
    let docs = j.documents.iter().map(|d| json_id(d, "every entry of `documents`")).collect::<std::result::Result<Vec<_>, _>>()?;
    let clicks = j
        .clicks
        .iter()
        .map(|c| match c {
            serde_json::Value::Bool(b) => Ok(*b),
            serde_json::Value::Number(n) if n.as_u64() == Some(0) => Ok(false),
            serde_json::Value::Number(n) if n.as_u64() == Some(1) => Ok(true),
            other => Err(format!("click flag {other} must be 0, 1, true or false")),
        })
        .collect::<std::result::Result<Vec<bool>, String>>()?;
    if clicks.len() != docs.len() {
        return Err(format!("{} documents but {} click flags", docs.len(), clicks.len()));
    }
    if let Some(d) = &j.dwell {
        if d.len() != docs.len() || d.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return Err("`dwell` must hold one finite number >= 0 per document".into());
        }
    }
    if j.timestamp.is_some_and(|t| !t.is_finite()) {
        return Err("`timestamp` must be finite".into());
    }
    let id = j.session.as_ref().map(|s| json_id(s, "`session`")).transpose()?;
    out.push(RawSession { id, query, docs, clicks, timestamp: j.timestamp, dwell: j.dwell });
    Ok(())
}

/// Streams the sessions of a log, line by line: memory does not grow with the file.
pub struct SessionReader<R: BufRead> {
    input: R,
    format: Format,
    name: String,
    skip_bad_lines: bool,
    line_no: usize,
    line: String,
    pending: std::collections::VecDeque<RawSession>,
    buffer: Vec<RawSession>,
    /// Counts of what was read and skipped so far.
    pub report: ReadReport,
}

impl SessionReader<std::io::BufReader<std::fs::File>> {
    /// Opens `path` for streaming.
    pub fn open(path: &Path, format: Format, skip_bad_lines: bool) -> Result<Self> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(SessionReader::new(std::io::BufReader::with_capacity(1 << 20, file), format, &path.display().to_string(), skip_bad_lines))
    }
}

impl<R: BufRead> SessionReader<R> {
    /// Streams `input`; `name` names it in errors.
    pub fn new(input: R, format: Format, name: &str, skip_bad_lines: bool) -> Self {
        SessionReader {
            input,
            format,
            name: name.to_string(),
            skip_bad_lines,
            line_no: 0,
            line: String::new(),
            pending: Default::default(),
            buffer: Vec::new(),
            report: ReadReport::default(),
        }
    }
}

impl<R: BufRead> Iterator for SessionReader<R> {
    type Item = Result<RawSession>;

    fn next(&mut self) -> Option<Result<RawSession>> {
        loop {
            if let Some(s) = self.pending.pop_front() {
                self.report.sessions += 1;
                return Some(Ok(s));
            }
            self.line.clear();
            match self.input.read_line(&mut self.line) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => return Some(Err(Error::io(&self.name, e))),
            }
            self.line_no += 1;
            let text = self.line.trim_end_matches(['\n', '\r']);
            if text.trim().is_empty() || text.starts_with('#') {
                continue;
            }
            self.buffer.clear();
            match parse_line(text, self.format, &mut self.buffer) {
                Ok(()) => self.pending.extend(self.buffer.drain(..)),
                Err(reason) => {
                    let err = Error::parse(&self.name, self.line_no, reason);
                    if self.skip_bad_lines {
                        self.report.skipped_lines += 1;
                        if self.report.first_error.is_none() {
                            self.report.first_error = Some(err.to_string());
                        }
                    } else {
                        return Some(Err(err));
                    }
                }
            }
        }
    }
}

/// Dense indices for query ids, document ids and (query, document) pairs.
#[derive(Debug, Clone, Default)]
pub struct Vocab {
    query_index: HashMap<String, u32>,
    doc_index: HashMap<String, u32>,
    pair_index: HashMap<(u32, u32), u32>,
    /// Query id of each query index.
    pub queries: Vec<String>,
    /// Document id of each document index.
    pub docs: Vec<String>,
    /// (query index, document index) of each pair index.
    pub pairs: Vec<(u32, u32)>,
}

impl Vocab {
    /// Index of query `q`, added if new.
    pub fn intern_query(&mut self, q: &str) -> u32 {
        intern(&mut self.query_index, &mut self.queries, q)
    }

    /// Index of document `d`, added if new.
    pub fn intern_doc(&mut self, d: &str) -> u32 {
        intern(&mut self.doc_index, &mut self.docs, d)
    }

    /// Index of the pair (query index, document index), added if new.
    pub fn intern_pair(&mut self, q: u32, d: u32) -> u32 {
        let next = self.pairs.len() as u32;
        let i = *self.pair_index.entry((q, d)).or_insert(next);
        if i == next {
            self.pairs.push((q, d));
        }
        i
    }

    /// Index of query `q`, if known.
    pub fn query(&self, q: &str) -> Option<u32> {
        self.query_index.get(q).copied()
    }

    /// Index of the pair (`q`, `d`) by ids, if known.
    pub fn pair(&self, q: &str, d: &str) -> Option<u32> {
        let q = self.query_index.get(q)?;
        let d = self.doc_index.get(d)?;
        self.pair_index.get(&(*q, *d)).copied()
    }

    /// Number of distinct pairs.
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }
}

fn intern(index: &mut HashMap<String, u32>, names: &mut Vec<String>, key: &str) -> u32 {
    if let Some(&i) = index.get(key) {
        return i;
    }
    let i = names.len() as u32;
    index.insert(key.to_string(), i);
    names.push(key.to_string());
    i
}

/// One session as click models see it: dense ids only.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SessionRef<'a> {
    /// Query index.
    pub query: u32,
    /// Pair index of the result at each rank.
    pub pairs: &'a [u32],
    /// Click flag at each rank.
    pub clicks: &'a [bool],
}

impl SessionRef<'_> {
    /// 0-based rank of the last click, or `None` without clicks.
    #[inline]
    pub fn last_click(&self) -> Option<usize> {
        self.clicks.iter().rposition(|&c| c)
    }
}

/// Sessions in flat arrays: session `i` covers `offsets[i]..offsets[i+1]` of `pairs` and `clicks`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClickLog {
    /// Query index per session.
    pub queries: Vec<u32>,
    /// Start of each session in `pairs`/`clicks`, plus the end.
    pub offsets: Vec<u64>,
    /// Pair index per (session, rank).
    pub pairs: Vec<u32>,
    /// Click flag per (session, rank).
    pub clicks: Vec<bool>,
}

impl ClickLog {
    /// An empty log.
    pub fn new() -> Self {
        ClickLog { offsets: vec![0], ..Default::default() }
    }

    /// Number of sessions.
    pub fn len(&self) -> usize {
        self.queries.len()
    }

    /// True without sessions.
    pub fn is_empty(&self) -> bool {
        self.queries.is_empty()
    }

    /// Appends a session of dense ids.
    pub fn push(&mut self, query: u32, pairs: &[u32], clicks: &[bool]) {
        debug_assert_eq!(pairs.len(), clicks.len());
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.queries.push(query);
        self.pairs.extend_from_slice(pairs);
        self.clicks.extend_from_slice(clicks);
        self.offsets.push(self.pairs.len() as u64);
    }

    /// Session `i`.
    #[inline]
    pub fn session(&self, i: usize) -> SessionRef<'_> {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        SessionRef { query: self.queries[i], pairs: &self.pairs[a..b], clicks: &self.clicks[a..b] }
    }

    /// Iterates over the sessions in order.
    pub fn iter(&self) -> impl Iterator<Item = SessionRef<'_>> + '_ {
        (0..self.len()).map(move |i| self.session(i))
    }

    /// A new log with the sessions at `indices`, in that order (same vocabulary).
    pub fn subset(&self, indices: impl IntoIterator<Item = usize>) -> ClickLog {
        let mut out = ClickLog::new();
        for i in indices {
            let s = self.session(i);
            out.push(s.query, s.pairs, s.clicks);
        }
        out
    }

    /// Longest SERP.
    pub fn max_len(&self) -> usize {
        self.offsets.windows(2).map(|w| (w[1] - w[0]) as usize).max().unwrap_or(0)
    }
}

/// A log with the vocabulary that names its indices.
#[derive(Debug, Clone, Default)]
pub struct LogData {
    /// The sessions.
    pub log: ClickLog,
    /// Names of queries, documents and pairs.
    pub vocab: Vocab,
    /// What the read skipped.
    pub report: ReadReport,
}

impl LogData {
    /// Interns a session into the log.
    pub fn push_raw(&mut self, s: &RawSession) {
        let q = self.vocab.intern_query(&s.query);
        let pairs: Vec<u32> = s
            .docs
            .iter()
            .map(|d| {
                let d = self.vocab.intern_doc(d);
                self.vocab.intern_pair(q, d)
            })
            .collect();
        self.log.push(q, &pairs, &s.clicks);
    }

    /// Reads a whole file.
    pub fn read(path: &Path, format: Format, skip_bad_lines: bool) -> Result<Self> {
        let reader = SessionReader::open(path, format, skip_bad_lines)?;
        Self::from_reader(reader)
    }

    /// Parses text (for tests and small inputs); `name` names it in errors.
    pub fn parse(text: &str, format: Format, name: &str, skip_bad_lines: bool) -> Result<Self> {
        Self::from_reader(SessionReader::new(text.as_bytes(), format, name, skip_bad_lines))
    }

    /// Reads every session of `reader`.
    pub fn from_reader<R: BufRead>(mut reader: SessionReader<R>) -> Result<Self> {
        let mut data = LogData { log: ClickLog::new(), ..Default::default() };
        for s in reader.by_ref() {
            data.push_raw(&s?);
        }
        data.report = reader.report.clone();
        Ok(data)
    }

    /// Reads another file into the same vocabulary and returns its sessions as a separate log.
    pub fn read_more(&mut self, path: &Path, format: Format, skip_bad_lines: bool) -> Result<(ClickLog, ReadReport)> {
        let mut reader = SessionReader::open(path, format, skip_bad_lines)?;
        let mut log = ClickLog::new();
        for s in reader.by_ref() {
            let s = s?;
            let q = self.vocab.intern_query(&s.query);
            let pairs: Vec<u32> = s
                .docs
                .iter()
                .map(|d| {
                    let d = self.vocab.intern_doc(d);
                    self.vocab.intern_pair(q, d)
                })
                .collect();
            log.push(q, &pairs, &s.clicks);
        }
        Ok((log, reader.report.clone()))
    }
}

/// Anything that can replay its sessions, once per pass: an in-memory log or a file
/// re-read from disk (for logs larger than memory). EM fitting makes one pass per iteration.
pub trait SessionSource {
    /// Calls `f` on every session, in order.
    fn pass(&mut self, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()>;
    /// Number of distinct pairs known so far (a sizing hint).
    fn pair_count_hint(&self) -> usize {
        0
    }
}

impl SessionSource for &ClickLog {
    fn pass(&mut self, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()> {
        for i in 0..self.len() {
            f(self.session(i));
        }
        Ok(())
    }
    fn pair_count_hint(&self) -> usize {
        self.pairs.iter().copied().max().map_or(0, |m| m as usize + 1)
    }
}

/// A log file streamed from disk on every pass; only the vocabulary stays in memory.
#[derive(Debug)]
pub struct FileSource {
    /// The file.
    pub path: PathBuf,
    /// Its format.
    pub format: Format,
    /// Skip bad lines instead of failing.
    pub skip_bad_lines: bool,
    /// Indices of the queries, documents and pairs seen so far (stable across passes).
    pub vocab: Vocab,
    /// Report of the last pass.
    pub report: ReadReport,
}

impl FileSource {
    /// A source over `path`.
    pub fn new(path: impl Into<PathBuf>, format: Format, skip_bad_lines: bool) -> Self {
        FileSource { path: path.into(), format, skip_bad_lines, vocab: Vocab::default(), report: ReadReport::default() }
    }
}

impl SessionSource for FileSource {
    fn pass(&mut self, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()> {
        let mut reader = SessionReader::open(&self.path, self.format, self.skip_bad_lines)?;
        let mut pairs = Vec::new();
        for s in reader.by_ref() {
            let s = s?;
            let q = self.vocab.intern_query(&s.query);
            pairs.clear();
            for d in &s.docs {
                let d = self.vocab.intern_doc(d);
                pairs.push(self.vocab.intern_pair(q, d));
            }
            f(SessionRef { query: q, pairs: &pairs, clicks: &s.clicks });
        }
        self.report = reader.report.clone();
        Ok(())
    }
    fn pair_count_hint(&self) -> usize {
        self.vocab.pair_count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yandex_line_with_several_impressions() {
        let text = "98435_1\ta,b,c : b , a , b , zz; 98435_1\tc,b,a :  ;  7_0\tx,y :\n";
        let d = LogData::parse(text, Format::Yandex, "t", false).unwrap();
        assert_eq!(d.log.len(), 3);
        assert_eq!(d.log.session(0).clicks, &[true, true, false]);
        assert_eq!(d.log.session(1).clicks, &[false, false, false]);
        assert_eq!(d.vocab.queries, vec!["98435_1", "7_0"]);
        // (q, a) is the same pair in sessions 0 and 1.
        assert_eq!(d.log.session(0).pairs[0], d.log.session(1).pairs[2]);
        assert_eq!(d.vocab.pair_count(), 5);
    }

    #[test]
    fn yandex_rejects_malformed_line_with_its_number() {
        let text = "q\ta,b : a\nq\ta,b : b; q a,b : a\n";
        let err = LogData::parse(text, Format::Yandex, "log.txt", false).unwrap_err().to_string();
        assert!(err.starts_with("log.txt:2:"), "{err}");
        assert!(err.contains("impression 2") && err.contains("TAB"), "{err}");
        let err = LogData::parse("q\ta,,b : a\n", Format::Yandex, "f", false).unwrap_err().to_string();
        assert!(err.contains("f:1:") && err.contains("empty document id"), "{err}");
        let err = LogData::parse("q\ta,b a\n", Format::Yandex, "f", false).unwrap_err().to_string();
        assert!(err.contains("f:1:") && err.contains("`:`"), "{err}");
    }

    #[test]
    fn skip_bad_lines_counts_them() {
        let text = "q\ta,b : a\nbroken\nq\tb,a :\n";
        let d = LogData::parse(text, Format::Yandex, "f", true).unwrap();
        assert_eq!(d.log.len(), 2);
        assert_eq!(d.report.skipped_lines, 1);
        assert!(d.report.first_error.as_deref().unwrap().contains("f:2:"));
    }

    #[test]
    fn tsv_and_jsonl_formats() {
        let tsv = "session_id\tquery\tdocuments\tclicks\ts1\tq\td1,d2\t0,1\t12.5\t0,30\ns2\tq\td2,d1\t1,0\n";
        let tsv = tsv.replacen("clicks\ts1", "clicks\ns1", 1);
        let d = LogData::parse(&tsv, Format::Tsv, "t", false).unwrap();
        assert_eq!(d.log.len(), 2);
        assert_eq!(d.log.session(1).clicks, &[true, false]);
        let err = LogData::parse("s\tq\td1,d2\t0\n", Format::Tsv, "t", false).unwrap_err().to_string();
        assert!(err.contains("t:1:") && err.contains("2 documents but 1 click flags"), "{err}");
        let err = LogData::parse("s\tq\td1\t2\n", Format::Tsv, "t", false).unwrap_err().to_string();
        assert!(err.contains("must be 0 or 1"), "{err}");

        let jl = r#"{"session":"s1","query":"q","documents":["d1","d2"],"clicks":[0,1],"dwell":[0,12]}
{"query":7,"documents":["d2","d1"],"clicks":[true,false]}
"#;
        let d = LogData::parse(jl, Format::Jsonl, "j", false).unwrap();
        assert_eq!(d.log.len(), 2);
        assert_eq!(d.vocab.queries, vec!["q", "7"]);
        let err = LogData::parse("{\"query\":\"q\",\"documents\":[\"a\"],\"clicks\":[1],\"extra\":1}\n", Format::Jsonl, "j", false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("j:1:") && err.contains("extra"), "{err}");
    }

    #[test]
    fn file_source_streams_same_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("l.txt");
        std::fs::write(&p, "q\ta,b : a; r\tb,a : a\n").unwrap();
        let mut src = FileSource::new(&p, Format::Yandex, false);
        let mut seen = Vec::new();
        for _ in 0..2 {
            src.pass(&mut |s| seen.push((s.query, s.pairs.to_vec(), s.clicks.to_vec()))).unwrap();
        }
        assert_eq!(seen.len(), 4);
        assert_eq!(seen[0], seen[2]);
        assert_eq!(seen[1].2, vec![false, true]);
    }
}
