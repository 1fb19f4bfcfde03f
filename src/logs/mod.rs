//! Click logs: streaming readers for the public layouts researchers have (the Yandex sample
//! of PyClick, the Yandex relevance-prediction challenge log with its query and click actions
//! and times, the NCM / TianGong-ST bracketed-list layout, and general TSV and JSONL session
//! formats), and an interned in-memory log on flat arrays.
//!
//! Every reader goes through [`crate::input`] (gzip or zstd by magic bytes, `-` for standard
//! input, BOM and CRLF removed) and [`read::for_each_session`], which hands sessions to a
//! callback one at a time, so memory is bounded by the longest line. Query ids and
//! (query, document) pairs are interned into dense `u32` indices while reading ([`Vocab`]);
//! click models index `Vec<f64>` parameters by those indices. Formats are documented in
//! `docs/clickmodels.md`.
//!
//! ```
//! use serpsim::logs::{Format, LogData};
//! let text = "q1\td1,d2,d3 : d2; q1\td2,d1,d3 :\n";
//! let data = LogData::parse(text, Format::Yandex, "inline", false).unwrap();
//! assert_eq!(data.log.len(), 2);
//! assert_eq!(data.log.session(0).clicks, &[false, true, false]);
//! ```

pub mod arrow;
pub(crate) mod columnar;
pub mod convert;
mod direct;
pub mod formats;
pub mod read;
pub mod simeval;
pub mod stored;

pub use columnar::{ColumnMap, Container};
pub use formats::{Columns, SessionBuf};
pub use read::{for_each_session, ReadOptions, MAX_LINE};

use crate::error::{Error, Result};
use crate::input::{self, Input};
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

/// Reads an unsigned LEB128 number at the start of `b` (7 bits per byte, low first; a set high
/// bit means another byte follows): the value and the bytes used. Parquet's RLE/bit-packed run
/// headers ([`direct`]) and the stored sessions' headers ([`stored`]) use it.
#[inline(always)]
pub(crate) fn read_uleb128(b: &[u8]) -> std::result::Result<(u64, usize), &'static str> {
    let mut v = 0u64;
    for (i, &byte) in b.iter().enumerate().take(10) {
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((v, i + 1));
        }
    }
    Err(if b.len() < 10 { "truncated LEB128 number" } else { "LEB128 number longer than 10 bytes" })
}

/// Log file formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// `QUERY<TAB>d1,...,dn : clicked1 , clicked2 ...`, several impressions per line separated by `;`.
    Yandex,
    /// `session_id<TAB>query<TAB>d1,...,dn<TAB>c1,...,cn[<TAB>timestamp[<TAB>dwell1,...,dwelln]]`.
    Tsv,
    /// One JSON object per line: `{"session", "query", "documents", "clicks", "timestamp", "dwell"}`.
    Jsonl,
    /// TAB-separated with bracketed lists (`[1, 2, 3]`), columns as given; `ncm` is
    /// [`Columns::NCM`]: `session<TAB>query<TAB>[docs]<TAB>[vtypes]<TAB>[clicks][<TAB>[relevances]]`.
    Bracketed(Columns),
    /// SimEval-IR `InteractionSession` JSONL: one session per line, one SERP per
    /// `query_issued` event (see [`simeval`]).
    SimEval,
    /// The Yandex relevance-prediction challenge log (WSCD 2011/2012): `SessionID TimePassed Q
    /// QueryID RegionID URL1 ... URLn` and `SessionID TimePassed C URLID` lines; SERPs with
    /// click times and dwell are derived (see [`formats::RpcState`]).
    YandexRpc,
    /// A Parquet or Arrow IPC log, one row per SERP impression, with its columns found by
    /// their default names or mapped (see [`columnar`]).
    Columnar(Container, ColumnMap),
    /// BARACO's layout (`compare-rankers`): `query<TAB>d1 d2 ...<TAB>c1 c2 ...`, documents and
    /// 0/1 click flags separated by spaces.
    Baraco,
    /// Detect the format: Parquet and Arrow IPC by their magic bytes, text formats from the
    /// first lines (only when exactly one format fits them).
    Auto,
}

impl std::str::FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "yandex" => Ok(Format::Yandex),
            "tsv" => Ok(Format::Tsv),
            "jsonl" => Ok(Format::Jsonl),
            "simeval" => Ok(Format::SimEval),
            "baraco" => Ok(Format::Baraco),
            "ncm" => Ok(Format::Bracketed(Columns::NCM)),
            "yandex-rpc" => Ok(Format::YandexRpc),
            "auto" => Ok(Format::Auto),
            "parquet" => Ok(Format::Columnar(Container::Parquet, ColumnMap::default())),
            "arrow" => Ok(Format::Columnar(Container::Arrow, ColumnMap::default())),
            _ if s.starts_with("parquet:") || s.starts_with("arrow:") => {
                let (kind, spec) = s.split_once(':').expect("has a colon");
                let c = if kind == "parquet" { Container::Parquet } else { Container::Arrow };
                ColumnMap::parse(spec).map(|m| Format::Columnar(c, m)).map_err(|e| Error::Invalid(format!("log format `{s}`: {e}")))
            }
            _ => match s.strip_prefix("bracketed:") {
                Some(spec) => Columns::parse(spec).map(Format::Bracketed).map_err(|e| Error::Invalid(format!("log format `{s}`: {e}"))),
                None => Err(Error::Invalid(format!(
                    "unknown log format `{s}` (expected yandex, yandex-rpc, tsv, jsonl, simeval, ncm, baraco, \
                     bracketed:query=N,documents=N,clicks=N[,session=N][,dwell=N], \
                     parquet[:ROLE=COLUMN,...], arrow[:ROLE=COLUMN,...], or auto)"
                ))),
            },
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Format::Yandex => f.write_str("yandex"),
            Format::Tsv => f.write_str("tsv"),
            Format::Jsonl => f.write_str("jsonl"),
            Format::SimEval => f.write_str("simeval"),
            Format::Baraco => f.write_str("baraco"),
            Format::Bracketed(c) if *c == Columns::NCM => f.write_str("ncm"),
            Format::Bracketed(c) => write!(f, "bracketed:{c}"),
            Format::YandexRpc => f.write_str("yandex-rpc"),
            Format::Columnar(c, m) if m.is_default() => write!(f, "{c}"),
            Format::Columnar(c, m) => write!(f, "{c}:{m}"),
            Format::Auto => f.write_str("auto"),
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
    /// Session start time, if given (seconds; for `yandex-rpc` the log's own time unit,
    /// relative to the start of the search session).
    pub timestamp: Option<f64>,
    /// Dwell time per rank (0 when not clicked; NaN when clicked but unknown), if given.
    pub dwell: Option<Vec<f64>>,
    /// Time of the first click per rank relative to the query (NaN when not clicked), if known.
    pub click_times: Option<Vec<f64>>,
}

/// What a read found, skipped and chose.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadReport {
    /// Sessions read.
    pub sessions: usize,
    /// Bad lines skipped (only with `skip_bad_lines`).
    pub skipped_lines: usize,
    /// The first skipped line's error, for the message.
    pub first_error: Option<String>,
    /// `yandex-rpc`: clicks on a URL that is not on the session's latest SERP (ignored).
    pub unmatched_clicks: usize,
    /// Yandex layout: clicks on a document id that is not in the impression's result list
    /// (ignored, as PyClick does), and the line of the first.
    pub outside_clicks: usize,
    /// The line of the first click counted in `outside_clicks`.
    pub first_outside_line: Option<usize>,
    /// The format read (the detected one for [`Format::Auto`]).
    pub format: Option<Format>,
    /// The input could be read only once (standard input, a pipe): the sessions were kept
    /// in memory for later passes.
    pub buffered: bool,
}

impl ReadReport {
    /// Messages a user must see about this read (skipped lines, ignored clicks, buffering).
    pub fn warnings(&self, file: &str) -> Vec<String> {
        let mut w = Vec::new();
        if self.skipped_lines > 0 {
            w.push(format!("{file}: skipped {} bad line(s); first: {}", self.skipped_lines, self.first_error.as_deref().unwrap_or("")));
        }
        if self.unmatched_clicks > 0 {
            w.push(format!("{file}: ignored {} click(s) on URLs that are not on the session's latest result page", self.unmatched_clicks));
        }
        if self.outside_clicks > 0 {
            w.push(format!(
                "{file}:{}: ignored {} click(s) on documents that are not in their impression's result list (the first on this line)",
                self.first_outside_line.unwrap_or(0),
                self.outside_clicks
            ));
        }
        if self.buffered {
            w.push(format!(
                "{file}: not a regular file (standard input or a pipe) and can be read only once: its sessions \
                 ({}) are kept in memory for the later passes (up to --memory-budget; in a temporary file beyond)",
                self.sessions
            ));
        }
        w
    }
}

/// Dense indices for query ids, document ids and (query, document) pairs. The hash maps use
/// the Fx hash (rustc-hash): ids come from the log, not from an adversary, and SipHash was a
/// third of the reading time.
#[derive(Debug, Clone, Default)]
pub struct Vocab {
    query_index: FxHashMap<String, u32>,
    doc_index: FxHashMap<String, u32>,
    pair_index: FxHashMap<u64, u32>,
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
        let i = *self.pair_index.entry(pair_key(q, d)).or_insert(next);
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
        self.pair_index.get(&pair_key(*q, *d)).copied()
    }

    /// Number of distinct pairs.
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }
}

#[inline]
fn pair_key(q: u32, d: u32) -> u64 {
    (q as u64) << 32 | d as u64
}

fn intern(index: &mut FxHashMap<String, u32>, names: &mut Vec<String>, key: &str) -> u32 {
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
    /// Dwell per (session, rank), parallel to `pairs`, or empty when no session of the log
    /// has dwell: 0 when not clicked, NaN when unknown (a click that ended the session, or a
    /// session of the log without dwell). Units as in the log (seconds, or Yandex time units).
    pub dwell: Vec<f32>,
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
        self.push_with_dwell(query, pairs, clicks, None);
    }

    /// Appends a session with its dwell per rank (see [`ClickLog::dwell`]).
    pub fn push_with_dwell(&mut self, query: u32, pairs: &[u32], clicks: &[bool], dwell: Option<&[f64]>) {
        debug_assert_eq!(pairs.len(), clicks.len());
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        match dwell {
            Some(d) => {
                debug_assert_eq!(d.len(), pairs.len());
                if self.dwell.is_empty() {
                    self.dwell.resize(self.pairs.len(), f32::NAN);
                }
                self.dwell.extend(d.iter().map(|&x| x as f32));
            }
            None if !self.dwell.is_empty() => self.dwell.resize(self.pairs.len() + pairs.len(), f32::NAN),
            None => {}
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

    /// Dwell per rank of session `i`, when the log has dwell.
    pub fn session_dwell(&self, i: usize) -> Option<&[f32]> {
        (!self.dwell.is_empty()).then(|| &self.dwell[self.offsets[i] as usize..self.offsets[i + 1] as usize])
    }

    /// Iterates over the sessions in order.
    pub fn iter(&self) -> impl Iterator<Item = SessionRef<'_>> + '_ {
        (0..self.len()).map(move |i| self.session(i))
    }

    /// A new log with the sessions at `indices`, in that order (same vocabulary).
    pub fn subset(&self, indices: impl IntoIterator<Item = usize>) -> ClickLog {
        let mut out = ClickLog::new();
        let mut d64 = Vec::new();
        for i in indices {
            let s = self.session(i);
            let dwell = self.session_dwell(i).map(|d| {
                d64.clear();
                d64.extend(d.iter().map(|&x| x as f64));
                d64.as_slice()
            });
            out.push_with_dwell(s.query, s.pairs, s.clicks, dwell);
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

/// Interns the sessions of one read, in order: the query, then each document and its pair,
/// so indices are numbered by first occurrence. A session marked [`SessionBuf::same_serp`]
/// reuses the indices of the one before it without hashing its ids again.
#[derive(Debug, Default)]
struct SessionInterner {
    query: u32,
    pairs: Vec<u32>,
    primed: bool,
}

impl SessionInterner {
    /// The query index and pair indices of `s` (interned into `vocab` when new).
    fn intern(&mut self, vocab: &mut Vocab, s: &SessionBuf) -> (u32, &[u32]) {
        if !(self.primed && s.same_serp()) {
            let q = vocab.intern_query(s.query());
            self.pairs.clear();
            for d in s.docs() {
                let d = vocab.intern_doc(d);
                self.pairs.push(vocab.intern_pair(q, d));
            }
            self.query = q;
            self.primed = true;
        }
        (self.query, &self.pairs)
    }

    /// Interns `s` and appends it to `log`.
    fn push(&mut self, vocab: &mut Vocab, log: &mut ClickLog, s: &SessionBuf) {
        let (q, pairs) = self.intern(vocab, s);
        let dwell = (!s.dwell.is_empty()).then_some(s.dwell.as_slice());
        log.push_with_dwell(q, pairs, &s.clicks, dwell);
    }
}

impl LogData {
    /// Reads a whole file (`-` for standard input; gzip and zstd are detected).
    pub fn read(path: &Path, format: Format, skip_bad_lines: bool) -> Result<Self> {
        Self::read_with(path, &ReadOptions::new(format).skip_bad_lines(skip_bad_lines))
    }

    /// Reads a whole file with the given options.
    pub fn read_with(path: &Path, opts: &ReadOptions) -> Result<Self> {
        Self::from_input(input::open(path)?, opts)
    }

    /// Reads every session of an opened input.
    pub fn from_input(input: Input, opts: &ReadOptions) -> Result<Self> {
        let mut data = LogData { log: ClickLog::new(), ..Default::default() };
        let (vocab, log) = (&mut data.vocab, &mut data.log);
        let mut interner = SessionInterner::default();
        data.report = for_each_session(input, opts, &mut |s| {
            interner.push(vocab, log, s);
            Ok(())
        })?;
        Ok(data)
    }

    /// Parses text (for tests and small inputs); `name` names it in errors.
    pub fn parse(text: &str, format: Format, name: &str, skip_bad_lines: bool) -> Result<Self> {
        let input = Input::from_bytes(name, text.as_bytes().to_vec())?;
        Self::from_input(input, &ReadOptions::new(format).skip_bad_lines(skip_bad_lines))
    }

    /// Reads another file into the same vocabulary and returns its sessions as a separate log.
    pub fn read_more(&mut self, path: &Path, format: Format, skip_bad_lines: bool) -> Result<(ClickLog, ReadReport)> {
        let mut log = ClickLog::new();
        let vocab = &mut self.vocab;
        let mut interner = SessionInterner::default();
        let opts = ReadOptions::new(format).skip_bad_lines(skip_bad_lines);
        let report = for_each_session(input::open(path)?, &opts, &mut |s| {
            interner.push(vocab, &mut log, s);
            Ok(())
        })?;
        Ok((log, report))
    }
}

/// Anything that can replay its sessions, once per pass: an in-memory log, a file (parsed
/// once, its sessions kept: [`stored`]) or stored sessions. EM fitting makes one pass per
/// iteration.
pub trait SessionSource {
    /// Calls `f` on every session, in order.
    fn pass(&mut self, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()>;
    /// Number of distinct pairs known so far (a sizing hint).
    fn pair_count_hint(&self) -> usize {
        0
    }
    /// The next pass split into disjoint parts that together hold every session once and
    /// can be replayed on any thread, in any order; `None` when the pass must be made with
    /// [`SessionSource::pass`] (the first pass over a file, which numbers the pairs in file
    /// order; compressed input; `yandex-rpc`, whose SERPs span lines). Callers that add up
    /// statistics exactly (fixed point, [`crate::clickmodels::EStats`]) get the same result
    /// either way.
    fn parts(&mut self) -> Result<Option<Vec<Box<dyn SessionPart + '_>>>> {
        Ok(None)
    }
    /// The source as a [`FileSource`], when it is one (for its parallel first pass,
    /// [`FileSource::first_pass_parallel`]).
    fn as_file_source(&mut self) -> Option<&mut FileSource> {
        None
    }
    /// Tells the source that the caller will make up to `passes` passes (the EM driver calls
    /// it before the first): a [`FileSource`] then keeps the sessions of its first pass
    /// ([`stored`]) when more than one pass follows, instead of parsing the text again.
    fn expect_passes(&mut self, passes: usize) {
        let _ = passes;
    }
}

/// One part of a pass (see [`SessionSource::parts`]).
pub trait SessionPart: Send + Sync {
    /// Calls `f` on every session of the part, in order.
    fn replay(&self, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()>;
}

/// Sessions `range` of an in-memory log.
struct LogPart<'a> {
    log: &'a ClickLog,
    range: std::ops::Range<usize>,
}

impl SessionPart for LogPart<'_> {
    fn replay(&self, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()> {
        for i in self.range.clone() {
            f(self.log.session(i));
        }
        Ok(())
    }
}

/// Sessions per part of an in-memory log, at least.
const MIN_PART_SESSIONS: usize = 4096;

/// An in-memory log in parts: four per worker thread of the current rayon pool (the results
/// of exact sums do not depend on it), none smaller than [`MIN_PART_SESSIONS`] sessions.
fn log_parts(log: &ClickLog) -> Vec<Box<dyn SessionPart + '_>> {
    let n = log.len();
    let want = (rayon::current_num_threads() * 4).max(1);
    let size = n.div_ceil(want).max(MIN_PART_SESSIONS);
    (0..n.div_ceil(size)).map(|k| Box::new(LogPart { log, range: k * size..((k + 1) * size).min(n) }) as Box<dyn SessionPart>).collect()
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
    fn parts(&mut self) -> Result<Option<Vec<Box<dyn SessionPart + '_>>>> {
        let log: &ClickLog = self;
        Ok(Some(log_parts(log)))
    }
}

/// Whether `path` can be read more than once from the start: a regular file (not `-`, a
/// pipe, a FIFO or a terminal).
pub fn is_rereadable(path: &Path) -> bool {
    !input::is_stdin(path) && std::fs::metadata(path).map(|m| m.is_file()).unwrap_or(false)
}

/// A log file streamed from disk; only the vocabulary stays in memory.
///
/// **Parse once.** When more than one pass is expected ([`SessionSource::expect_passes`],
/// or [`FileSource::load`]), the first pass keeps the interned sessions in their compact
/// form ([`stored::StoredSessions`]: about 5 bytes per result, 3 bytes per session that
/// repeats the SERP before it), in memory up to [`FileSource::store`]'s budget and in a
/// temporary spill file beyond it; later passes replay them, split into blocks for the
/// parallel E-step, instead of parsing the text again. Input that can be read only once
/// (standard input, a pipe or FIFO) is always kept so; [`ReadReport::buffered`] says so.
/// Nothing blocks.
#[derive(Debug)]
pub struct FileSource {
    /// The file (`-` for standard input).
    pub path: PathBuf,
    /// Its format ([`Format::Auto`] is resolved on the first pass).
    pub format: Format,
    /// Skip bad lines instead of failing.
    pub skip_bad_lines: bool,
    /// Indices of the queries, documents and pairs seen so far (stable across passes).
    pub vocab: Vocab,
    /// Report of the first pass.
    pub report: ReadReport,
    /// Where kept sessions may live (memory budget, spill directory).
    pub store: stored::StoreConfig,
    /// Keep the sessions of the first pass for the later passes (see the type).
    pub keep: bool,
    stored: Option<stored::StoredSessions>,
}

impl FileSource {
    /// A source over `path`.
    pub fn new(path: impl Into<PathBuf>, format: Format, skip_bad_lines: bool) -> Self {
        FileSource {
            path: path.into(),
            format,
            skip_bad_lines,
            vocab: Vocab::default(),
            report: ReadReport::default(),
            store: stored::StoreConfig::default(),
            keep: false,
            stored: None,
        }
    }

    /// The sessions kept by the first pass, when they were kept.
    pub fn stored(&self) -> Option<&stored::StoredSessions> {
        self.stored.as_ref()
    }

    /// Reads the whole log once (in parallel byte ranges where it can) and keeps its
    /// sessions ([`FileSource::stored`]); the vocabulary numbers them in file order. Later
    /// passes, and [`stored::StoredSessions::range`], replay them.
    pub fn load(&mut self) -> Result<&stored::StoredSessions> {
        self.keep = true;
        if self.stored.is_none() {
            let done = self.first_pass_parallel(&|| (), &|_, _| {}, &|_, _| {})?;
            if done.is_none() {
                self.pass(&mut |_| {})?;
            }
        }
        Ok(self.stored.as_ref().expect("the first pass keeps the sessions"))
    }

    /// One line on where the kept sessions are (for a progress message), if kept.
    pub fn stored_summary(&self) -> Option<String> {
        let st = self.stored.as_ref()?;
        let mb = |b: u64| b as f64 / (1u64 << 20) as f64;
        Some(match st.spill_path() {
            None => format!("{} sessions parsed once and kept in memory ({:.1} MiB)", st.len(), mb(st.bytes())),
            Some(_) => format!(
                "{} sessions parsed once and kept in a temporary file ({:.1} MiB; more than the memory budget of {:.1} MiB)",
                st.len(),
                mb(st.bytes()),
                mb(self.store.memory_budget)
            ),
        })
    }
}

impl FileSource {
    /// The first pass over an uncompressed text log in a format given explicitly whose
    /// sessions never span lines, made in parallel: byte ranges are parsed on the current
    /// rayon pool, each into its own vocabulary and its own accumulator (`init`, `add`); the
    /// vocabularies are then merged in file order, which numbers queries, documents and pairs
    /// exactly as a sequential read does, and each accumulator is handed the map from its
    /// part's pair indices to the merged ones (`remap`). For accumulators whose result does
    /// not depend on the pair indices but through `remap` (an E-step under parameters that
    /// are the same for every pair), the accumulators are then those of a sequential pass.
    /// Errors and skipped lines are reported as a sequential read reports them (the first in
    /// file order, with its line number). `Ok(None)`, with nothing read, when the pass cannot
    /// be split (not the first pass, compressed input, standard input, `auto` or
    /// `yandex-rpc`).
    pub fn first_pass_parallel<T: Send>(
        &mut self,
        init: &(dyn Fn() -> T + Sync),
        add: &(dyn Fn(&mut T, SessionRef<'_>) + Sync),
        remap: &(dyn Fn(&mut T, &[u32]) + Sync),
    ) -> Result<Option<Vec<T>>> {
        use rayon::prelude::*;
        if self.stored.is_some() || self.report.sessions > 0 || self.vocab.pair_count() > 0 || !read::line_separable(&self.format) || !is_rereadable(&self.path)
        {
            return Ok(None);
        }
        let len = std::fs::metadata(&self.path).map_err(|e| Error::io(&self.path, e))?.len();
        let threads = rayon::current_num_threads().max(1);
        let size = (len / (4 * threads as u64)).clamp(MIN_FILE_PART_BYTES, FILE_PART_BYTES);
        let Some(ranges) = text_ranges(&self.path, size)? else { return Ok(None) };
        let name = self.path.display().to_string();
        let opts = ReadOptions::new(self.format.clone()).skip_bad_lines(self.skip_bad_lines);
        let mut out = Vec::with_capacity(ranges.len());
        let mut report = ReadReport { format: Some(self.format.clone()), ..Default::default() };
        let keep = self.keep;
        let mut kept = stored::StoredSessions::new(self.store.clone());
        // A batch of parts at a time, so the parts' vocabularies held at once stay bounded.
        for batch in ranges.chunks(threads * 4) {
            let parts: Vec<Result<(Vocab, T, ReadReport, stored::Encoder)>> = batch
                .par_iter()
                .map(|range| {
                    let part = FilePart { path: &self.path, name: name.clone(), range: range.clone(), opts: opts.clone(), vocab: &self.vocab };
                    let bytes = part.read()?;
                    let (mut vocab, mut acc, mut interner) = (Vocab::default(), init(), SessionInterner::default());
                    let mut enc = stored::Encoder::default();
                    let first = if range.start == 0 { 1 } else { 2 };
                    let run = read::for_each_session_in_lines(&name, &bytes, first, &opts, &self.format, &mut |s| {
                        let (q, pairs) = interner.intern(&mut vocab, s);
                        let s = SessionRef { query: q, pairs, clicks: &s.clicks };
                        if keep {
                            enc.push(s);
                        }
                        add(&mut acc, s);
                        Ok(())
                    });
                    let needs_lines = run.as_ref().map_or(true, |r| r.skipped_lines > 0 || r.outside_clicks > 0);
                    let run = if needs_lines && range.start > 0 {
                        // Parsed again from its true first line, for the messages.
                        read::for_each_session_in_lines(&name, &bytes, part.first_line()?, &opts, &self.format, &mut |_| Ok(()))
                    } else {
                        run
                    };
                    Ok((vocab, acc, run?, enc))
                })
                .collect();
            for part in parts {
                let (local, mut acc, r, mut enc) = part?;
                let queries: Vec<u32> = local.queries.iter().map(|q| self.vocab.intern_query(q)).collect();
                let docs: Vec<u32> = local.docs.iter().map(|d| self.vocab.intern_doc(d)).collect();
                let map: Vec<u32> = local.pairs.iter().map(|&(q, d)| self.vocab.intern_pair(queries[q as usize], docs[d as usize])).collect();
                remap(&mut acc, &map);
                if keep {
                    enc.remap(&queries, &map);
                    kept.push_block(enc)?;
                }
                out.push(acc);
                report.sessions += r.sessions;
                report.skipped_lines += r.skipped_lines;
                if report.first_error.is_none() {
                    report.first_error = r.first_error;
                }
                report.outside_clicks += r.outside_clicks;
                if report.first_outside_line.is_none() {
                    report.first_outside_line = r.first_outside_line;
                }
            }
        }
        self.report = read::finish(&name, report)?;
        if keep {
            self.stored = Some(kept);
        }
        Ok(Some(out))
    }
}

impl SessionSource for FileSource {
    fn as_file_source(&mut self) -> Option<&mut FileSource> {
        Some(self)
    }
    fn expect_passes(&mut self, passes: usize) {
        if passes > 1 {
            self.keep = true;
        }
    }
    fn pass(&mut self, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()> {
        if let Some(st) = &self.stored {
            return st.replay(0..st.len(), f);
        }
        let once = !is_rereadable(&self.path);
        let keep = self.keep || once;
        let mut kept = keep.then(|| Keeper::new(self.store.clone()));
        let mut record = |s: SessionRef<'_>| {
            if let Some(k) = &mut kept {
                k.push(s);
            }
            f(s)
        };
        let direct = if once { None } else { direct::pass(&self.path, &self.format, self.skip_bad_lines, &mut self.vocab, &mut record)? };
        let mut report = match direct {
            Some(r) => r,
            None => {
                let input = input::open(&self.path)?;
                let opts = ReadOptions::new(self.format.clone()).skip_bad_lines(self.skip_bad_lines);
                let vocab = &mut self.vocab;
                let mut interner = SessionInterner::default();
                for_each_session(input, &opts, &mut |s| {
                    let (q, pairs) = interner.intern(vocab, s);
                    record(SessionRef { query: q, pairs, clicks: &s.clicks });
                    Ok(())
                })?
            }
        };
        if let Some(fmt) = &report.format {
            self.format = fmt.clone();
        }
        if let Some(k) = kept {
            self.stored = Some(k.finish()?);
            report.buffered = once;
        }
        self.report = report;
        Ok(())
    }
    fn pair_count_hint(&self) -> usize {
        self.vocab.pair_count()
    }
    fn parts(&mut self) -> Result<Option<Vec<Box<dyn SessionPart + '_>>>> {
        if let Some(st) = &self.stored {
            return Ok(Some(st.parts(0..st.len())));
        }
        // Only after a first pass (which resolved the format and numbered every pair), and
        // only for uncompressed text in a format whose sessions never span lines.
        if self.report.sessions == 0 || !read::line_separable(&self.format) || !is_rereadable(&self.path) {
            return Ok(None);
        }
        let len = std::fs::metadata(&self.path).map_err(|e| Error::io(&self.path, e))?.len();
        let size = (len / (4 * rayon::current_num_threads().max(1) as u64)).clamp(MIN_FILE_PART_BYTES, FILE_PART_BYTES);
        let ranges = match text_ranges(&self.path, size)? {
            Some(r) => r,
            None => return Ok(None),
        };
        let name = self.path.display().to_string();
        let opts = ReadOptions::new(self.format.clone()).skip_bad_lines(self.skip_bad_lines);
        Ok(Some(
            ranges
                .into_iter()
                .map(|range| Box::new(FilePart { path: &self.path, name: name.clone(), range, opts: opts.clone(), vocab: &self.vocab }) as Box<dyn SessionPart>)
                .collect(),
        ))
    }
}

/// Keeps the sessions of a sequential pass in blocks (an error of the spill file is kept and
/// returned at the end, as the pass's callback cannot fail).
struct Keeper {
    store: stored::StoredSessions,
    enc: stored::Encoder,
    error: Option<Error>,
}

impl Keeper {
    fn new(cfg: stored::StoreConfig) -> Self {
        Keeper { store: stored::StoredSessions::new(cfg), enc: stored::Encoder::default(), error: None }
    }

    fn push(&mut self, s: SessionRef<'_>) {
        if self.error.is_some() {
            return;
        }
        self.enc.push(s);
        if self.enc.buf.len() >= stored::BLOCK_BYTES {
            if let Err(e) = self.store.push_block(std::mem::take(&mut self.enc)) {
                self.error = Some(e);
            }
        }
    }

    fn finish(mut self) -> Result<stored::StoredSessions> {
        if let Some(e) = self.error {
            return Err(e);
        }
        self.store.push_block(self.enc)?;
        Ok(self.store)
    }
}

/// Most bytes of text per part of a streamed pass (each part is read whole, so a pass holds
/// about this much per worker thread). Smaller files are cut into four parts per worker
/// thread, none under [`MIN_FILE_PART_BYTES`].
const FILE_PART_BYTES: u64 = 8 << 20;
/// Fewest bytes of text per part.
const MIN_FILE_PART_BYTES: u64 = 64 << 10;

/// The file cut into byte ranges of about `size` bytes that begin at line starts, or `None`
/// when it is compressed (gzip or zstd: it must be read from the start).
fn text_ranges(path: &Path, size: u64) -> Result<Option<Vec<std::ops::Range<u64>>>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let mut head = [0u8; 4];
    let got = file.read(&mut head).map_err(|e| Error::io(path, e))?;
    if (got >= 2 && head[..2] == [0x1f, 0x8b]) || (got == 4 && head == [0x28, 0xb5, 0x2f, 0xfd]) {
        return Ok(None);
    }
    let mut starts = vec![0u64];
    let mut buf = vec![0u8; 64 << 10];
    let mut nominal = size;
    while nominal < len {
        // The next line starts after the first line end at or after byte nominal - 1.
        let mut at = nominal - 1;
        let next = loop {
            file.seek(SeekFrom::Start(at)).map_err(|e| Error::io(path, e))?;
            let n = file.read(&mut buf).map_err(|e| Error::io(path, e))?;
            if n == 0 {
                break len;
            }
            if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
                break at + i as u64 + 1;
            }
            at += n as u64;
        };
        if next >= len {
            break;
        }
        starts.push(next);
        nominal = next + size;
    }
    starts.push(len);
    Ok(Some(starts.windows(2).map(|w| w[0]..w[1]).collect()))
}

/// Lines `range` (bytes) of a text log, parsed with a vocabulary that already numbers every
/// pair (ids are looked up, not added).
struct FilePart<'a> {
    path: &'a Path,
    name: String,
    range: std::ops::Range<u64>,
    opts: ReadOptions,
    vocab: &'a Vocab,
}

impl FilePart<'_> {
    fn read(&self) -> Result<Vec<u8>> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = std::fs::File::open(self.path).map_err(|e| Error::io(self.path, e))?;
        file.seek(SeekFrom::Start(self.range.start)).map_err(|e| Error::io(self.path, e))?;
        let mut bytes = vec![0u8; (self.range.end - self.range.start) as usize];
        file.read_exact(&mut bytes).map_err(|e| Error::io(self.path, e))?;
        Ok(bytes)
    }

    /// 1-based number of the part's first line (counted only to name a line in an error).
    fn first_line(&self) -> Result<usize> {
        use std::io::Read;
        let mut file = std::fs::File::open(self.path).map_err(|e| Error::io(self.path, e))?;
        let mut left = self.range.start;
        let mut buf = vec![0u8; 1 << 20];
        let mut lines = 1;
        while left > 0 {
            let n = file.read(&mut buf[..left.min(1 << 20) as usize]).map_err(|e| Error::io(self.path, e))?;
            if n == 0 {
                break;
            }
            lines += memchr::memchr_iter(b'\n', &buf[..n]).count();
            left -= n as u64;
        }
        Ok(lines)
    }
}

impl SessionPart for FilePart<'_> {
    fn replay(&self, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()> {
        let bytes = self.read()?;
        let format = &self.opts.format;
        let mut lookup = SessionLookup::default();
        let mut unknown = false;
        // Line numbers are counted only when a line fails (to name it): the part is then
        // parsed again from its true first line, for the whole read's message.
        let first = if self.range.start == 0 { 1 } else { 2 };
        let run = read::for_each_session_in_lines(&self.name, &bytes, first, &self.opts, format, &mut |s| {
            match lookup.lookup(self.vocab, s) {
                Some((q, pairs)) => f(SessionRef { query: q, pairs, clicks: &s.clicks }),
                None => unknown = true,
            }
            Ok(())
        });
        if run.is_err() && self.range.start > 0 {
            let first = self.first_line()?;
            read::for_each_session_in_lines(&self.name, &bytes, first, &self.opts, format, &mut |_| Ok(()))?;
        }
        run?;
        if unknown {
            return Err(Error::Invalid(format!(
                "{}: the file changed during the fit (a later pass read a query-document pair the first pass did not see)",
                self.name
            )));
        }
        Ok(())
    }
}

/// The ids of sessions under a vocabulary that is not extended (see [`SessionInterner`]).
#[derive(Debug, Default)]
struct SessionLookup {
    query: u32,
    pairs: Vec<u32>,
    primed: bool,
}

impl SessionLookup {
    fn lookup(&mut self, vocab: &Vocab, s: &SessionBuf) -> Option<(u32, &[u32])> {
        if !(self.primed && s.same_serp()) {
            self.primed = false;
            let q = vocab.query(s.query())?;
            self.pairs.clear();
            for d in s.docs() {
                let d = *vocab.doc_index.get(d)?;
                self.pairs.push(*vocab.pair_index.get(&pair_key(q, d))?);
            }
            self.query = q;
            self.primed = true;
        }
        Some((self.query, &self.pairs))
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod columnar_tests;
