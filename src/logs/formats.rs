//! Line parsers of the click-log formats, and format detection.
//!
//! Every parser fills reusable [`SessionBuf`]s (no allocation per line once warm) and returns
//! a reason without location on error; the reader ([`super::read`]) adds `file:line`.
//! The Yandex relevance-prediction log (`yandex-rpc`) spans several lines per SERP and is
//! parsed by [`RpcState`].

use super::Format;
use crate::input::snippet;

/// Longest id or token quoted in an error message.
pub(crate) const QUOTE: usize = 60;

/// One parsed SERP impression, in reusable buffers: ids are stored back to back in one
/// string, so a warm buffer parses a line without allocating.
#[derive(Debug, Clone, Default)]
pub struct SessionBuf {
    id: String,
    has_id: bool,
    query: String,
    text: String,
    ends: Vec<u32>,
    /// Click flag per rank.
    pub clicks: Vec<bool>,
    /// Start time (seconds, or the log's own time unit), when the format has one.
    pub timestamp: Option<f64>,
    /// Dwell per rank (0 when not clicked, NaN when clicked but unknown), or empty.
    pub dwell: Vec<f64>,
    /// Time of the first click per rank (NaN when not clicked), or empty.
    pub click_times: Vec<f64>,
    /// The query and documents are those of the session handed out just before this one by
    /// the same read (see [`SessionBuf::same_serp`]).
    same_serp: bool,
    /// Yandex layout: clicks on document ids that are not in the result list (ignored, and
    /// counted for the read's warning).
    pub(crate) outside_clicks: u32,
}

impl SessionBuf {
    pub(crate) fn clear(&mut self) {
        self.id.clear();
        self.has_id = false;
        self.query.clear();
        self.text.clear();
        self.ends.clear();
        self.clicks.clear();
        self.timestamp = None;
        self.dwell.clear();
        self.click_times.clear();
        self.same_serp = false;
        self.outside_clicks = 0;
    }

    /// Clears everything but the query and the documents, and marks them as those of the
    /// session handed out before (the caller checked that they are).
    pub(crate) fn clear_keep_serp(&mut self) {
        self.id.clear();
        self.has_id = false;
        self.clicks.clear();
        self.timestamp = None;
        self.dwell.clear();
        self.click_times.clear();
        self.same_serp = true;
        self.outside_clicks = 0;
    }

    /// True when the query and the document ids are those of the session the same read
    /// handed out just before this one (a repeated SERP, as on the lines of the Yandex
    /// sample): a reader of the ids may reuse what it derived from them last time. False
    /// says nothing (the SERP may still repeat).
    pub fn same_serp(&self) -> bool {
        self.same_serp
    }

    /// Session id, when the format has one.
    pub fn id(&self) -> Option<&str> {
        self.has_id.then_some(self.id.as_str())
    }

    /// Query id.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// Number of results.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the SERP has no results.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Document id at 0-based rank `i`.
    pub fn doc(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    /// Document ids by rank.
    pub fn docs(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(move |i| self.doc(i))
    }

    pub(crate) fn set_id(&mut self, id: &str) {
        self.id.clear();
        self.id.push_str(id);
        self.has_id = true;
    }

    pub(crate) fn set_query(&mut self, q: &str) {
        self.query.clear();
        self.query.push_str(q);
    }

    pub(crate) fn push_doc(&mut self, d: &str) {
        self.text.push_str(d);
        self.ends.push(self.text.len() as u32);
    }

    /// Rank of document `d` (first occurrence).
    pub(crate) fn rank_of(&self, d: &str) -> Option<usize> {
        (0..self.len()).find(|&i| self.doc(i) == d)
    }

    /// An owned copy.
    pub fn to_raw(&self) -> super::RawSession {
        super::RawSession {
            id: self.id().map(str::to_string),
            query: self.query.clone(),
            docs: self.docs().map(str::to_string).collect(),
            clicks: self.clicks.clone(),
            timestamp: self.timestamp,
            dwell: (!self.dwell.is_empty()).then(|| self.dwell.clone()),
            click_times: (!self.click_times.is_empty()).then(|| self.click_times.clone()),
        }
    }
}

/// Reusable buffers for the sessions of one line.
#[derive(Debug, Default)]
pub(crate) struct Pool {
    bufs: Vec<SessionBuf>,
    len: usize,
}

impl Pool {
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
    pub(crate) fn next(&mut self) -> &mut SessionBuf {
        if self.len == self.bufs.len() {
            self.bufs.push(SessionBuf::default());
        }
        let b = &mut self.bufs[self.len];
        b.clear();
        self.len += 1;
        b
    }
    pub(crate) fn sessions(&self) -> &[SessionBuf] {
        &self.bufs[..self.len]
    }
}

type Reason = String;

/// Parses the sessions of one line of a single-line format into `pool`.
pub(crate) fn parse_line(line: &str, format: &Format, pool: &mut Pool) -> Result<(), Reason> {
    pool.clear();
    match format {
        Format::Yandex => parse_yandex_line(line, pool),
        Format::Tsv => parse_tsv_line(line, pool),
        Format::Jsonl => parse_jsonl_line(line, pool),
        Format::Baraco => parse_baraco_line(line, pool),
        Format::SimEval => super::simeval::parse_simeval_line(line, pool),
        Format::Bracketed(cols) => parse_bracketed_line(line, cols, pool),
        Format::YandexRpc | Format::Columnar(..) | Format::Auto => unreachable!("multi-line, columnar or unresolved format"),
    }
}

fn quoted(s: &str) -> String {
    format!("`{}`", snippet(s, QUOTE))
}

/// All impressions of a line into `pool` (format detection and hints; the reader streams them
/// with [`yandex_impressions`]).
fn parse_yandex_line(line: &str, pool: &mut Pool) -> Result<(), Reason> {
    yandex_impressions(line, &mut SessionBuf::default(), &mut |s| {
        pool.next().clone_from(s);
        Ok(())
    })
}

/// Calls `emit` on each impression of a Yandex-sample line, one at a time in one reused
/// buffer, so a line of many impressions costs its own size only. Stops at the first
/// malformed impression (after emitting the ones before it) or the first error of `emit`.
pub(crate) fn yandex_impressions(line: &str, s: &mut SessionBuf, emit: &mut dyn FnMut(&SessionBuf) -> Result<(), Reason>) -> Result<(), Reason> {
    if line.is_ascii() {
        yandex_impressions_ascii(line, s, emit)
    } else {
        yandex_impressions_text(line, s, emit)
    }
}

/// Whitespace as `str::trim` sees it, restricted to ASCII (`char::is_whitespace`; note
/// U+000B, which `u8::is_ascii_whitespace` leaves out).
#[inline]
fn ascii_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `s[a..b]` without the ASCII whitespace at both ends, as a range.
#[inline]
fn trim_range(s: &[u8], mut a: usize, mut b: usize) -> (usize, usize) {
    while a < b && ascii_ws(s[a]) {
        a += 1;
    }
    while b > a && ascii_ws(s[b - 1]) {
        b -= 1;
    }
    (a, b)
}

/// [`yandex_impressions`] for an ASCII line, on bytes with `memchr` (the same results and
/// errors as [`yandex_impressions_text`], which handles lines with Unicode whitespace). An
/// impression whose `query<TAB>documents` text equals the previous impression's on the line
/// keeps the parsed query and documents and is marked [`SessionBuf::same_serp`].
pub(crate) fn yandex_impressions_ascii(line: &str, s: &mut SessionBuf, emit: &mut dyn FnMut(&SessionBuf) -> Result<(), Reason>) -> Result<(), Reason> {
    let b = line.as_bytes();
    let mut prev: Option<(usize, usize)> = None;
    let mut start = 0;
    for k in 0.. {
        let end = memchr::memchr(b';', &b[start..]).map_or(b.len(), |i| start + i);
        let (ps, pe) = trim_range(b, start, end);
        if ps < pe {
            let at = |reason: &str| format!("impression {}: {reason}", k + 1);
            let part = &b[ps..pe];
            let tab = memchr::memchr(b'\t', part).ok_or_else(|| at("no TAB between the query id and the results"))?;
            let (qs, qe) = trim_range(part, 0, tab);
            if qs == qe {
                return Err(at("empty query id"));
            }
            let colon = memchr::memchr(b':', &part[tab + 1..]).map(|i| tab + 1 + i);
            let colon = colon.ok_or_else(|| at("no `:` between the results and the clicks"))?;
            let same = prev.is_some_and(|(a, e)| b[a..e] == part[..colon]);
            if same {
                s.clear_keep_serp();
            } else {
                s.clear();
                s.set_query(&line[ps + qs..ps + qe]);
                let mut d0 = tab + 1;
                loop {
                    let d1 = memchr::memchr(b',', &part[d0..colon]).map_or(colon, |i| d0 + i);
                    let (ds, de) = trim_range(part, d0, d1);
                    if ds == de {
                        return Err(at("empty document id in the result list"));
                    }
                    s.push_doc(&line[ps + ds..ps + de]);
                    if d1 == colon {
                        break;
                    }
                    d0 = d1 + 1;
                }
            }
            prev = Some((ps, ps + colon));
            s.clicks.resize(s.len(), false);
            let mut c0 = colon + 1;
            while c0 <= part.len() {
                let c1 = memchr::memchr(b',', &part[c0..]).map_or(part.len(), |i| c0 + i);
                let (cs, ce) = trim_range(part, c0, c1);
                let c = &part[cs..ce];
                if c.iter().any(|&x| ascii_ws(x)) {
                    return Err(at("clicked document ids must be separated by commas"));
                }
                if !c.is_empty() {
                    mark_click(s, &line[ps + cs..ps + ce]).map_err(|r| at(&r))?;
                }
                c0 = c1 + 1;
            }
            emit(s)?;
        }
        if end == b.len() {
            break;
        }
        start = end + 1;
    }
    Ok(())
}

/// [`yandex_impressions`] on text, for lines with non-ASCII characters (`trim` then strips
/// Unicode whitespace too).
pub(crate) fn yandex_impressions_text(line: &str, s: &mut SessionBuf, emit: &mut dyn FnMut(&SessionBuf) -> Result<(), Reason>) -> Result<(), Reason> {
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
        s.clear();
        s.set_query(query);
        for d in docs.split(',') {
            let d = d.trim();
            if d.is_empty() {
                return Err(at("empty document id in the result list"));
            }
            s.push_doc(d);
        }
        s.clicks.resize(s.len(), false);
        for c in clicked.split(',') {
            let c = c.trim();
            if c.is_empty() {
                continue;
            }
            if c.contains(char::is_whitespace) {
                return Err(at("clicked document ids must be separated by commas"));
            }
            mark_click(s, c).map_err(|r| at(&r))?;
        }
        emit(s)?;
    }
    Ok(())
}

/// Marks the click on document `c` of a Yandex-layout impression. A clicked id that is not in
/// the result list is ignored, as PyClick's parser does, but counted (the read warns with the
/// count); one listed at two ranks is an error, since the click cannot be placed on one rank
/// (marking both turned one click into two). See docs/formats.md, "Silent cases".
fn mark_click(s: &mut SessionBuf, c: &str) -> Result<(), Reason> {
    let mut at = None;
    for i in 0..s.len() {
        if s.doc(i) == c {
            if let Some(first) = at {
                return Err(format!(
                    "clicked document {} is listed twice in the result list (ranks {} and {}): the click cannot be placed on one rank",
                    quoted(c),
                    first + 1,
                    i + 1
                ));
            }
            at = Some(i);
        }
    }
    match at {
        Some(i) => s.clicks[i] = true,
        None => s.outside_clicks += 1,
    }
    Ok(())
}

fn parse_nonneg(field: &str, what: &str) -> Result<f64, Reason> {
    let x = field.trim();
    x.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0).ok_or_else(|| format!("{what}: {} is not a finite number >= 0", quoted(x)))
}

fn parse_tsv_line(line: &str, pool: &mut Pool) -> Result<(), Reason> {
    let mut f = line.split('\t');
    let first = f.next().unwrap_or("");
    if first.trim() == "session_id" {
        return Ok(()); // header
    }
    let fields: [Option<&str>; 6] = [Some(first), f.next(), f.next(), f.next(), f.next(), f.next()];
    let n = fields.iter().flatten().count() + f.count();
    if !(4..=6).contains(&n) {
        return Err(format!("expected 4 to 6 TAB-separated fields (session_id, query, documents, clicks[, timestamp[, dwell]]), found {n}"));
    }
    let get = |i: usize| fields[i].unwrap_or("");
    let query = get(1).trim();
    if query.is_empty() {
        return Err("empty query id".into());
    }
    let s = pool.next();
    s.set_query(query);
    let id = get(0).trim();
    if !id.is_empty() {
        s.set_id(id);
    }
    for d in get(2).split(',') {
        let d = d.trim();
        if d.is_empty() {
            return Err("empty document id in the result list".into());
        }
        s.push_doc(d);
    }
    for c in get(3).split(',') {
        s.clicks.push(match c.trim() {
            "0" => false,
            "1" => true,
            other => return Err(format!("click flag {} must be 0 or 1", quoted(other))),
        });
    }
    if s.clicks.len() != s.len() {
        return Err(format!("{} documents but {} click flags", s.len(), s.clicks.len()));
    }
    match fields[4].map(str::trim) {
        None | Some("") => {}
        Some(t) => {
            let v = t.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| format!("timestamp {} is not a number", quoted(t)))?;
            s.timestamp = Some(v);
        }
    }
    match fields[5].map(str::trim) {
        None | Some("") => {}
        Some(t) => {
            for x in t.split(',') {
                let x = x.trim();
                s.dwell.push(if x.is_empty() { 0.0 } else { parse_nonneg(x, "dwell")? });
            }
            if s.dwell.len() != s.len() {
                return Err(format!("{} documents but {} dwell times", s.len(), s.dwell.len()));
            }
        }
    }
    Ok(())
}

/// BARACO's layout (`compare-rankers`, docs/baraco.md): `query<TAB>d1 d2 ...<TAB>c1 c2 ...`,
/// documents and 0/1 click flags separated by whitespace, no document twice. The reasons are
/// those of the reader BARACO had before it read through this one.
fn parse_baraco_line(line: &str, pool: &mut Pool) -> Result<(), Reason> {
    let mut f = line.split('\t');
    let fields: [Option<&str>; 3] = [f.next(), f.next(), f.next()];
    let n = fields.iter().flatten().count() + f.count();
    if n != 3 {
        return Err(format!("expected 3 tab-separated fields `query<TAB>docs<TAB>clicks`, found {n}"));
    }
    let [Some(query), Some(docs), Some(clicks)] = fields else { unreachable!("three fields counted") };
    let query = query.trim();
    if query.is_empty() {
        return Err("empty query id".into());
    }
    let s = pool.next();
    s.set_query(query);
    for d in docs.split_whitespace() {
        if s.rank_of(d).is_some() {
            return Err(format!("document {} is shown twice", quoted(d)));
        }
        s.push_doc(d);
    }
    for c in clicks.split_whitespace() {
        s.clicks.push(match c {
            "0" => false,
            "1" => true,
            _ => return Err(format!("click flag {} is not 0 or 1", quoted(c))),
        });
    }
    if s.len() != s.clicks.len() {
        return Err(format!("{} documents but {} click flags", s.len(), s.clicks.len()));
    }
    if s.is_empty() {
        return Err("a session shows no documents".into());
    }
    Ok(())
}

#[derive(serde::Deserialize)]
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

fn json_id(v: &serde_json::Value, what: &str) -> Result<String, Reason> {
    match v {
        serde_json::Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        serde_json::Value::Number(n) => Ok(n.to_string()),
        _ => Err(format!("{what} must be a non-empty string or a number")),
    }
}

fn parse_jsonl_line(line: &str, pool: &mut Pool) -> Result<(), Reason> {
    let j: JsonSession = serde_json::from_str(line).map_err(|e| format!("invalid JSON session: {e}"))?;
    let s = pool.next();
    s.set_query(&json_id(&j.query, "`query`")?);
    for d in &j.documents {
        s.push_doc(&json_id(d, "every entry of `documents`")?);
    }
    for c in &j.clicks {
        s.clicks.push(match c {
            serde_json::Value::Bool(b) => *b,
            serde_json::Value::Number(n) if n.as_u64() == Some(0) => false,
            serde_json::Value::Number(n) if n.as_u64() == Some(1) => true,
            other => return Err(format!("click flag {} must be 0, 1, true or false", quoted(&other.to_string()))),
        });
    }
    if s.is_empty() {
        return Err("`documents` must not be empty".into());
    }
    if s.clicks.len() != s.len() {
        return Err(format!("{} documents but {} click flags", s.len(), s.clicks.len()));
    }
    if let Some(d) = &j.dwell {
        if d.len() != s.len() || d.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return Err("`dwell` must hold one finite number >= 0 per document".into());
        }
        s.dwell.extend_from_slice(d);
    }
    if j.timestamp.is_some_and(|t| !t.is_finite()) {
        return Err("`timestamp` must be finite".into());
    }
    s.timestamp = j.timestamp;
    if let Some(id) = &j.session {
        s.set_id(&json_id(id, "`session`")?);
    }
    Ok(())
}

/// Column numbers (1-based) of a TAB-separated layout whose lists are bracketed, e.g. NCM's
/// `session<TAB>query<TAB>[d1, d2, ...]<TAB>[vtypes]<TAB>[c1, c2, ...][<TAB>[relevances]]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    /// Session id column, if any.
    pub session: Option<u16>,
    /// Query id column.
    pub query: u16,
    /// Column of the bracketed list of document ids.
    pub documents: u16,
    /// Column of the bracketed list of click flags (0/1, true/false, True/False).
    pub clicks: u16,
    /// Column of a bracketed list of dwell times per rank, if any.
    pub dwell: Option<u16>,
}

impl Columns {
    /// The layout of the Neural Click Model and GraphCM releases (TianGong-ST, TREC Session,
    /// Yandex preprocessing): session 1, query 2, documents 3, vertical types 4 (ignored),
    /// clicks 5, and an optional relevance list 6 (ignored).
    pub const NCM: Columns = Columns { session: Some(1), query: 2, documents: 3, clicks: 5, dwell: None };

    fn max(&self) -> u16 {
        [self.session.unwrap_or(0), self.query, self.documents, self.clicks, self.dwell.unwrap_or(0)].into_iter().max().unwrap_or(0)
    }

    /// Parses `session=1,query=2,documents=3,clicks=5[,dwell=6]` (session optional).
    pub fn parse(spec: &str) -> Result<Columns, Reason> {
        let (mut session, mut query, mut documents, mut clicks, mut dwell) = (None, None, None, None, None);
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| format!("`{part}` is not `name=column`"))?;
            let col: u16 = v.trim().parse().ok().filter(|&c| c >= 1).ok_or_else(|| format!("column `{v}` of `{k}` is not a number >= 1"))?;
            let slot = match k.trim() {
                "session" => &mut session,
                "query" => &mut query,
                "documents" => &mut documents,
                "clicks" => &mut clicks,
                "dwell" => &mut dwell,
                other => return Err(format!("unknown column name `{other}` (use session, query, documents, clicks, dwell)")),
            };
            if slot.replace(col).is_some() {
                return Err(format!("column `{k}` given twice"));
            }
        }
        let need = |v: Option<u16>, k: &str| v.ok_or_else(|| format!("the column of `{k}` is required"));
        let c = Columns { session, query: need(query, "query")?, documents: need(documents, "documents")?, clicks: need(clicks, "clicks")?, dwell };
        let mut used: Vec<u16> = [c.session, Some(c.query), Some(c.documents), Some(c.clicks), c.dwell].into_iter().flatten().collect();
        used.sort_unstable();
        if used.windows(2).any(|w| w[0] == w[1]) {
            return Err("two names share a column".into());
        }
        Ok(c)
    }
}

impl std::fmt::Display for Columns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(s) = self.session {
            write!(f, "session={s},")?;
        }
        write!(f, "query={},documents={},clicks={}", self.query, self.documents, self.clicks)?;
        if let Some(d) = self.dwell {
            write!(f, ",dwell={d}")?;
        }
        Ok(())
    }
}

/// The elements of a bracketed list `[a, 'b', "c"]` (Python `str(list)` or JSON), quotes removed.
fn bracketed_items<'a>(field: &'a str, what: &str, mut each: impl FnMut(&'a str) -> Result<(), Reason>) -> Result<(), Reason> {
    let t = field.trim();
    let inner = t
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .ok_or_else(|| format!("{what}: expected a bracketed list like [1, 2, 3], found {}", quoted(t)))?;
    let mut rest = inner.trim_start();
    if rest.trim().is_empty() {
        return Ok(());
    }
    loop {
        let (item, after) = match rest.as_bytes().first() {
            Some(&q @ (b'\'' | b'"')) => {
                let body = &rest[1..];
                let end = body.find(q as char).ok_or_else(|| format!("{what}: unterminated quote in {}", quoted(t)))?;
                let item = &body[..end];
                if item.contains('\\') {
                    return Err(format!("{what}: escaped characters in ids are not supported: {}", quoted(item)));
                }
                (item, body[end + 1..].trim_start())
            }
            _ => {
                let end = rest.find(',').unwrap_or(rest.len());
                (rest[..end].trim_end(), &rest[end..])
            }
        };
        if item.is_empty() {
            return Err(format!("{what}: empty element in {}", quoted(t)));
        }
        each(item)?;
        if after.is_empty() {
            return Ok(());
        }
        rest = after.strip_prefix(',').ok_or_else(|| format!("{what}: expected `,` between elements in {}", quoted(t)))?.trim_start();
        if rest.is_empty() {
            return Ok(()); // trailing comma
        }
    }
}

fn parse_bracketed_line(line: &str, cols: &Columns, pool: &mut Pool) -> Result<(), Reason> {
    let mut fields: [&str; 16] = [""; 16];
    let mut n = 0;
    for f in line.split('\t') {
        if n < fields.len() {
            fields[n] = f;
        }
        n += 1;
    }
    let need = cols.max() as usize;
    if n < need {
        return Err(format!("expected at least {need} TAB-separated fields ({cols}), found {n}"));
    }
    if need > fields.len() {
        return Err(format!("columns beyond {} are not supported", fields.len()));
    }
    let get = |c: u16| fields[c as usize - 1].trim();
    let query = get(cols.query);
    if query.is_empty() {
        return Err("empty query id".into());
    }
    let s = pool.next();
    s.set_query(query);
    if let Some(c) = cols.session {
        let id = get(c);
        if !id.is_empty() {
            s.set_id(id);
        }
    }
    bracketed_items(get(cols.documents), "documents", |d| {
        s.push_doc(d);
        Ok(())
    })?;
    if s.is_empty() {
        return Err("the document list is empty".into());
    }
    let mut clicks = std::mem::take(&mut s.clicks);
    bracketed_items(get(cols.clicks), "clicks", |c| {
        clicks.push(match c {
            "0" | "false" | "False" => false,
            "1" | "true" | "True" => true,
            other => return Err(format!("click flag {} must be 0, 1, true or false", quoted(other))),
        });
        Ok(())
    })?;
    s.clicks = clicks;
    if s.clicks.len() != s.len() {
        return Err(format!("{} documents but {} click flags", s.len(), s.clicks.len()));
    }
    if let Some(c) = cols.dwell {
        let mut dwell = std::mem::take(&mut s.dwell);
        bracketed_items(get(c), "dwell", |x| {
            dwell.push(parse_nonneg(x, "dwell")?);
            Ok(())
        })?;
        s.dwell = dwell;
        if s.dwell.len() != s.len() {
            return Err(format!("{} documents but {} dwell times", s.len(), s.dwell.len()));
        }
    }
    Ok(())
}

/// One line of the Yandex relevance-prediction challenge log, split into its fields.
pub(crate) enum RpcLine<'a> {
    /// `SessionID TimePassed Q QueryID RegionID URL1 ... URLn`.
    Query { session: &'a str, time: f64, query: &'a str, region: &'a str, urls: std::str::Split<'a, char> },
    /// `SessionID TimePassed C URLID`.
    Click { session: &'a str, time: f64, url: &'a str },
}

pub(crate) fn split_rpc(line: &str) -> Result<RpcLine<'_>, Reason> {
    let mut f = line.split('\t');
    let session = f.next().unwrap_or("").trim();
    let time = f.next().ok_or("expected TAB-separated fields `SessionID TimePassed Q|C ...`")?.trim();
    let kind = f.next().ok_or("expected a record type (Q or C) in the third field")?.trim();
    if session.is_empty() {
        return Err("empty session id".into());
    }
    let time: f64 = time.parse::<u64>().map(|t| t as f64).map_err(|_| format!("time {} is not a whole number >= 0 (TimePassed)", quoted(time)))?;
    match kind {
        "Q" => {
            let query = f.next().map(str::trim).unwrap_or("");
            let region = f.next().map(str::trim).unwrap_or("");
            if query.is_empty() || region.is_empty() {
                return Err("query record: expected `SessionID TimePassed Q QueryID RegionID URL1 ... URLn`".into());
            }
            let urls = f.clone();
            if f.next().is_none() {
                return Err("query record without URLs".into());
            }
            Ok(RpcLine::Query { session, time, query, region, urls })
        }
        "C" => {
            let url = f.next().map(str::trim).unwrap_or("");
            let extra = f.count();
            if url.is_empty() || extra > 0 {
                return Err(format!("click record: expected `SessionID TimePassed C URLID` (4 fields), found {}", 4 + extra - usize::from(url.is_empty())));
            }
            Ok(RpcLine::Click { session, time, url })
        }
        "M" | "T" => {
            Err(format!("record type `{kind}` belongs to the Personalized Web Search Challenge (2013) log, a different format that serpsim does not read"))
        }
        other => Err(format!("record type {} is neither Q (query) nor C (click)", quoted(other))),
    }
}

/// The state of the relevance-prediction log reader: the SERP being built, with the time of
/// its session's last action so that dwell can be derived.
///
/// A query line opens a SERP (query id `QueryID_RegionID`, the key of the challenge's
/// relevance labels); click lines of the same session mark its results clicked. Click times
/// are relative to the query; the dwell of a click is the time to the session's next action
/// (click or query). Dwell per rank sums over repeated clicks, and is NaN when one of them
/// was the session's last action (the user did not come back: the dwell is unknown). A click
/// on a URL that is not on the session's latest SERP is counted and otherwise ignored, as
/// PyClick's parser does.
#[derive(Debug, Default)]
pub(crate) struct RpcState {
    /// The SERP being built (its session id in `id`).
    pub(crate) serp: SessionBuf,
    /// Whether `serp` holds a SERP not yet emitted.
    pub(crate) open: bool,
    session: String,
    last_time: f64,
    /// Rank of the last click in `serp`, whose dwell ends with the next action.
    last_click: Option<usize>,
    /// Clicks on URLs not on the session's latest SERP.
    pub(crate) unmatched_clicks: usize,
}

/// What a line of the relevance-prediction log asks the reader to do.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum RpcStep {
    /// The line was a click; nothing to emit.
    Done,
    /// A query line and no SERP is open: call [`RpcState::start`] with the line.
    Start,
    /// A query line ends the open SERP: emit `serp` first, then call [`RpcState::start`].
    EmitThenStart,
}

impl RpcState {
    /// Ends the dwell of the open SERP's last click at the session's next action `next_action`
    /// (`None`: the session has no further action, so the dwell is unknown).
    fn close_dwell(&mut self, next_action: Option<f64>) {
        if let Some(r) = self.last_click.take() {
            // `last_time` is the time of that click: it was the session's last action.
            self.serp.dwell[r] += next_action.map_or(f64::NAN, |t| t - self.last_time);
        }
    }

    /// Applies the click part of a line, or says what to do with a query line.
    pub(crate) fn step(&mut self, line: &RpcLine<'_>) -> Result<RpcStep, Reason> {
        let (session, time) = match line {
            RpcLine::Query { session, time, .. } | RpcLine::Click { session, time, .. } => (*session, *time),
        };
        let same = self.open && session == self.session;
        if same && time < self.last_time {
            return Err(format!("time {time} is earlier than the session's previous action ({})", self.last_time));
        }
        match line {
            RpcLine::Query { .. } if self.open => {
                self.close_dwell(same.then_some(time));
                Ok(RpcStep::EmitThenStart)
            }
            RpcLine::Query { .. } => Ok(RpcStep::Start),
            RpcLine::Click { url, .. } => {
                if !same {
                    return Err(format!("click in session {} before any query of that session", quoted(session)));
                }
                self.close_dwell(Some(time));
                match self.serp.rank_of(url) {
                    Some(r) => {
                        self.serp.clicks[r] = true;
                        if self.serp.click_times[r].is_nan() {
                            self.serp.click_times[r] = time - self.serp.timestamp.unwrap_or(0.0);
                        }
                        self.last_click = Some(r);
                    }
                    None => self.unmatched_clicks += 1,
                }
                self.last_time = time;
                Ok(RpcStep::Done)
            }
        }
    }

    /// Starts a SERP from a query line (after the previous one, if any, was emitted).
    pub(crate) fn start(&mut self, line: RpcLine<'_>) -> Result<(), Reason> {
        let RpcLine::Query { session, time, query, region, urls } = line else {
            return Err("internal: start needs a query line".into());
        };
        self.open = false;
        let s = &mut self.serp;
        s.clear();
        s.set_id(session);
        s.query.push_str(query);
        s.query.push('_');
        s.query.push_str(region);
        for u in urls {
            let u = u.trim();
            if u.is_empty() {
                return Err("empty URL id in the result list".into());
            }
            s.push_doc(u);
        }
        let n = s.len();
        s.clicks.resize(n, false);
        s.dwell.resize(n, 0.0);
        s.click_times.resize(n, f64::NAN);
        s.timestamp = Some(time);
        if session != self.session {
            self.session.clear();
            self.session.push_str(session);
        }
        self.last_time = time;
        self.last_click = None;
        self.open = true;
        Ok(())
    }

    /// Ends the input: the open SERP, if any, is complete (its last click's dwell unknown).
    pub(crate) fn finish(&mut self) -> bool {
        if !self.open {
            return false;
        }
        self.close_dwell(None);
        self.open = false;
        true
    }
}

/// The formats [`crate::logs::Format::Auto`] chooses from.
pub(crate) fn detectable() -> [Format; 7] {
    [Format::Yandex, Format::Tsv, Format::Jsonl, Format::SimEval, Format::Bracketed(Columns::NCM), Format::YandexRpc, Format::Baraco]
}

/// Whether `line` is a valid line of `format` (for the relevance-prediction log: of its syntax).
pub(crate) fn line_fits(line: &str, format: &Format, pool: &mut Pool) -> bool {
    match format {
        Format::YandexRpc => split_rpc(line).is_ok(),
        Format::Auto | Format::Columnar(..) => false,
        f => parse_line(line, f, pool).is_ok() && (!pool.sessions().is_empty() || line.starts_with("session_id")),
    }
}

/// Why `line` is not a line of `format` (as [`line_fits`] decides), or `Ok` when it is.
pub(crate) fn line_error(line: &str, format: &Format, pool: &mut Pool) -> Result<(), Reason> {
    match format {
        Format::YandexRpc => split_rpc(line).map(|_| ()),
        Format::Auto | Format::Columnar(..) => Err("not a text format".into()),
        f => {
            parse_line(line, f, pool)?;
            if pool.sessions().is_empty() && !line.starts_with("session_id") {
                return Err("no session on the line".into());
            }
            Ok(())
        }
    }
}

/// The detectable formats, other than `except`, whose syntax `line` fits.
pub(crate) fn fitting_formats(line: &str, except: Option<&Format>) -> Vec<Format> {
    let mut pool = Pool::default();
    detectable().into_iter().filter(|f| Some(f) != except && line_fits(line, f, &mut pool)).collect()
}

/// A short description of a line for "what the file looks like" messages.
pub(crate) fn describe(line: &str) -> String {
    let fields = line.split('\t').count();
    let shown = snippet(line, 80).replace('\t', "\\t");
    format!("{fields} TAB-separated field(s): `{shown}`")
}
