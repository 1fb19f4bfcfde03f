//! Parquet and Arrow IPC click logs: one row per SERP impression, read in record batches
//! (bounded memory: one batch of 8192 rows at a time) and handed to the same session callback
//! as the text formats ([`super::read::for_each_session`]).
//!
//! Columns (names found by the defaults below, or mapped with
//! `--format parquet:docs=url_md5,clicks=click`):
//!
//! | role          | default names                  | type                                             |
//! |---------------|--------------------------------|--------------------------------------------------|
//! | `query`       | `query_id`, `query`, `qid`     | string or integer                                |
//! | `docs`        | `docs`, `documents`, `url_md5` | list of string or integer, by rank               |
//! | `clicks`      | `clicks`, `click`              | list of bool or 0/1 integer, aligned with `docs` |
//! | `session`     | `session_id`, `session`        | string or integer (optional)                     |
//! | `timestamp`   | `timestamp`                    | number or timestamp, seconds (optional)          |
//! | `dwell`       | `dwell`                        | list of numbers >= 0 (optional)                  |
//! | `click_times` | `click_times`                  | list of numbers, NaN when not clicked (optional) |
//! | `positions`   | (only when mapped)             | list of 1-based ranks, a permutation of 1..n     |
//!
//! Integer ids are read as their decimal text, so a Parquet log and its text original intern
//! the same ids. Id columns may also be dictionaries of strings or integers (Arrow
//! `Dictionary`, e.g. pandas `category`); Parquet string ids are read as dictionaries, so a
//! dictionary-encoded column is not expanded into one string per value. A row with the same
//! query and documents as the row before it is marked [`SessionBuf::same_serp`]. A null in an optional column means "absent" for that row; a null query, list
//! or list element in a required column is a bad row. Errors read `file: row N: reason`
//! (rows 1-based, over the whole file).

use super::formats::SessionBuf;
use super::ReadReport;
use crate::error::{Error, Result};
use crate::input::{Compression, Input};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, BooleanArray, GenericListArray, GenericStringArray, RecordBatch, StringViewArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Schema, TimeUnit};
use std::io::Read;

/// Rows per record batch read.
const BATCH_ROWS: usize = 8192;

/// The container of a columnar log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// Apache Parquet (magic `PAR1`).
    Parquet,
    /// Apache Arrow IPC, file (magic `ARROW1`, also called Feather v2) or stream format.
    Arrow,
}

impl std::fmt::Display for Container {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Container::Parquet => "parquet",
            Container::Arrow => "arrow",
        })
    }
}

/// The container `head` (the first bytes of a decompressed input) starts, if any: Parquet by
/// `PAR1`, Arrow IPC files by `ARROW1`, Arrow IPC streams by the continuation marker
/// `FF FF FF FF` (no text log starts with it: it is not UTF-8).
pub fn sniff(head: &[u8]) -> Option<Container> {
    if head.starts_with(b"PAR1") {
        Some(Container::Parquet)
    } else if head.starts_with(b"ARROW1") || head.starts_with(&[0xff, 0xff, 0xff, 0xff]) {
        Some(Container::Arrow)
    } else {
        None
    }
}

/// The roles a column can play, with the names looked for when a role is not mapped.
const ROLES: [(&str, &[&str]); 8] = [
    ("query", &["query_id", "query", "qid"]),
    ("docs", &["docs", "documents", "url_md5"]),
    ("clicks", &["clicks", "click"]),
    ("session", &["session_id", "session"]),
    ("timestamp", &["timestamp"]),
    ("dwell", &["dwell"]),
    ("click_times", &["click_times"]),
    ("positions", &[]),
];
pub(crate) const QUERY: usize = 0;
pub(crate) const DOCS: usize = 1;
pub(crate) const CLICKS: usize = 2;
const SESSION: usize = 3;
const TIMESTAMP: usize = 4;
const DWELL: usize = 5;
const CLICK_TIMES: usize = 6;
pub(crate) const POSITIONS: usize = 7;

/// Column names of a columnar log, by role; a role not given is found by its default names
/// (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ColumnMap {
    names: [Option<String>; 8],
}

impl ColumnMap {
    /// Parses `docs=url_md5,clicks=click` (roles: query, docs, clicks, session, timestamp,
    /// dwell, click_times, positions; `documents` is accepted for `docs`).
    pub fn parse(spec: &str) -> std::result::Result<ColumnMap, String> {
        let mut m = ColumnMap::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| format!("`{part}` is not `role=column`"))?;
            let k = match k.trim() {
                "documents" => "docs",
                "session_id" => "session",
                other => other,
            };
            let role = ROLES.iter().position(|(r, _)| *r == k).ok_or_else(|| {
                format!("unknown role `{k}` (use {})", ROLES.iter().map(|(r, _)| *r).collect::<Vec<_>>().join(", "))
            })?;
            let v = v.trim();
            if v.is_empty() {
                return Err(format!("empty column name for `{k}`"));
            }
            if m.names[role].replace(v.to_string()).is_some() {
                return Err(format!("role `{k}` given twice"));
            }
        }
        Ok(m)
    }

    /// True when no role is mapped (every column found by its default names).
    pub fn is_default(&self) -> bool {
        self.names.iter().all(Option::is_none)
    }

    /// The column of each role in `schema` (None: an optional role without a column).
    pub(crate) fn resolve(&self, name: &str, schema: &Schema) -> Result<[Option<usize>; 8]> {
        let mut out = [None; 8];
        for (role, (rname, defaults)) in ROLES.iter().enumerate() {
            let found = match &self.names[role] {
                Some(n) => match schema.index_of(n) {
                    Ok(i) => Some(i),
                    Err(_) => {
                        return Err(Error::Invalid(format!(
                            "{name}: no column `{n}` (mapped to `{rname}`); columns found: {}",
                            listing(schema)
                        )))
                    }
                },
                None => defaults.iter().find_map(|d| schema.index_of(d).ok()),
            };
            if found.is_none() && role <= CLICKS {
                return Err(Error::Invalid(format!(
                    "{name}: no column for `{rname}` (looked for {}); columns found: {}; map one with \
                     --format <parquet|arrow>:{rname}=COLUMN (docs/clickmodels.md)",
                    defaults.iter().map(|d| format!("`{d}`")).collect::<Vec<_>>().join(", "),
                    listing(schema)
                )));
            }
            out[role] = found;
        }
        Ok(out)
    }
}

impl std::fmt::Display for ColumnMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for (role, n) in self.names.iter().enumerate() {
            if let Some(n) = n {
                write!(f, "{}{}={n}", if first { "" } else { "," }, ROLES[role].0)?;
                first = false;
            }
        }
        Ok(())
    }
}

fn listing(schema: &Schema) -> String {
    let cols: Vec<String> = schema.fields().iter().map(|f| format!("`{}` ({})", f.name(), f.data_type())).collect();
    if cols.is_empty() {
        "none".into()
    } else {
        cols.join(", ")
    }
}

/// A column of ids: strings, or integers read as their decimal text.
enum Ids<'a> {
    Utf8(&'a GenericStringArray<i32>),
    LargeUtf8(&'a GenericStringArray<i64>),
    View(&'a StringViewArray),
    Signed(Vec<i64>, Option<&'a NullBuffer>),
    Unsigned(&'a [u64], Option<&'a NullBuffer>),
    /// A dictionary: the key of each entry (none when the dictionary is empty), the keys'
    /// nulls, the values, and whether a value is null.
    Dict(Vec<usize>, Option<&'a NullBuffer>, Box<Ids<'a>>, bool),
}

fn ints<T: ArrowPrimitiveType>(a: &dyn Array) -> Option<Vec<i64>>
where
    T::Native: Into<i64>,
{
    a.as_primitive_opt::<T>().map(|p| p.values().iter().map(|&v| v.into()).collect())
}

impl<'a> Ids<'a> {
    fn new(a: &'a dyn Array) -> Option<Ids<'a>> {
        Some(match a.data_type() {
            DataType::Utf8 => Ids::Utf8(a.as_string::<i32>()),
            DataType::LargeUtf8 => Ids::LargeUtf8(a.as_string::<i64>()),
            DataType::Utf8View => Ids::View(a.as_string_view()),
            DataType::Int64 => Ids::Signed(a.as_primitive::<Int64Type>().values().to_vec(), a.nulls()),
            DataType::Int32 => Ids::Signed(ints::<Int32Type>(a)?, a.nulls()),
            DataType::Int16 => Ids::Signed(ints::<Int16Type>(a)?, a.nulls()),
            DataType::Int8 => Ids::Signed(ints::<Int8Type>(a)?, a.nulls()),
            DataType::UInt32 => Ids::Signed(ints::<UInt32Type>(a)?, a.nulls()),
            DataType::UInt16 => Ids::Signed(ints::<UInt16Type>(a)?, a.nulls()),
            DataType::UInt8 => Ids::Signed(ints::<UInt8Type>(a)?, a.nulls()),
            DataType::UInt64 => Ids::Unsigned(a.as_primitive::<UInt64Type>().values(), a.nulls()),
            DataType::Dictionary(..) => {
                let d = a.as_any_dictionary_opt()?;
                let values = Ids::new(d.values().as_ref())?;
                let keys = if d.values().is_empty() { Vec::new() } else { d.normalized_keys() };
                let null_values = d.values().null_count() > 0;
                Ids::Dict(keys, a.nulls(), Box::new(values), null_values)
            }
            _ => return None,
        })
    }

    fn is_null(&self, i: usize) -> bool {
        match self {
            Ids::Utf8(a) => a.is_null(i),
            Ids::LargeUtf8(a) => a.is_null(i),
            Ids::View(a) => a.is_null(i),
            Ids::Signed(_, n) | Ids::Unsigned(_, n) => n.is_some_and(|n| n.is_null(i)),
            Ids::Dict(k, n, v, null_values) => {
                n.is_some_and(|n| n.is_null(i)) || k.get(i).is_none_or(|&k| *null_values && v.is_null(k))
            }
        }
    }

    /// Whether the ids at `i` and `j` are both present and equal.
    fn same(&self, i: usize, j: usize) -> bool {
        if self.is_null(i) || self.is_null(j) {
            return false;
        }
        match self {
            Ids::Utf8(a) => a.value(i) == a.value(j),
            Ids::LargeUtf8(a) => a.value(i) == a.value(j),
            Ids::View(a) => a.value(i) == a.value(j),
            Ids::Signed(v, _) => v[i] == v[j],
            Ids::Unsigned(v, _) => v[i] == v[j],
            Ids::Dict(k, _, v, _) => k[i] == k[j] || v.same(k[i], k[j]),
        }
    }

    /// Whether the ids in `a` and `b` are all present and pairwise equal (for dictionaries
    /// without nulls: the keys are compared as slices).
    fn same_run(&self, a: std::ops::Range<usize>, b: std::ops::Range<usize>) -> bool {
        if a.len() != b.len() {
            return false;
        }
        match self {
            Ids::Dict(k, n, _, false) if !k.is_empty() && n.is_none_or(|n| n.null_count() == 0) => k[a] == k[b],
            _ => a.zip(b).all(|(x, y)| self.same(x, y)),
        }
    }

    /// The id at `i` (not null) as text; integers are formatted into `tmp`.
    fn get<'b>(&'b self, i: usize, tmp: &'b mut [u8; 24]) -> &'b str {
        match self {
            Ids::Utf8(a) => a.value(i),
            Ids::LargeUtf8(a) => a.value(i),
            Ids::View(a) => a.value(i),
            Ids::Signed(v, _) => fmt_int(v[i] < 0, v[i].unsigned_abs(), tmp),
            Ids::Unsigned(v, _) => fmt_int(false, v[i], tmp),
            Ids::Dict(k, _, v, _) => v.get(k[i], tmp),
        }
    }
}

/// Decimal text of an integer, written into the end of `tmp`.
fn fmt_int(negative: bool, mut v: u64, tmp: &mut [u8; 24]) -> &str {
    let mut at = tmp.len();
    loop {
        at -= 1;
        tmp[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    if negative {
        at -= 1;
        tmp[at] = b'-';
    }
    std::str::from_utf8(&tmp[at..]).expect("ASCII digits")
}

/// A column of numbers, read as `f64` (timestamps in seconds).
struct Nums<'a> {
    values: Vec<f64>,
    nulls: Option<&'a NullBuffer>,
}

impl<'a> Nums<'a> {
    fn new(a: &'a dyn Array) -> Option<Nums<'a>> {
        fn conv<T: ArrowPrimitiveType>(a: &dyn Array, scale: f64) -> Option<Vec<f64>>
        where
            T::Native: num_cast::AsF64,
        {
            a.as_primitive_opt::<T>().map(|p| p.values().iter().map(|v| num_cast::AsF64::as_f64(*v) * scale).collect())
        }
        let values = match a.data_type() {
            DataType::Float64 => conv::<Float64Type>(a, 1.0),
            DataType::Float32 => conv::<Float32Type>(a, 1.0),
            DataType::Int64 => conv::<Int64Type>(a, 1.0),
            DataType::Int32 => conv::<Int32Type>(a, 1.0),
            DataType::Int16 => conv::<Int16Type>(a, 1.0),
            DataType::Int8 => conv::<Int8Type>(a, 1.0),
            DataType::UInt64 => conv::<UInt64Type>(a, 1.0),
            DataType::UInt32 => conv::<UInt32Type>(a, 1.0),
            DataType::UInt16 => conv::<UInt16Type>(a, 1.0),
            DataType::UInt8 => conv::<UInt8Type>(a, 1.0),
            DataType::Timestamp(TimeUnit::Second, _) => conv::<TimestampSecondType>(a, 1.0),
            DataType::Timestamp(TimeUnit::Millisecond, _) => conv::<TimestampMillisecondType>(a, 1e-3),
            DataType::Timestamp(TimeUnit::Microsecond, _) => conv::<TimestampMicrosecondType>(a, 1e-6),
            DataType::Timestamp(TimeUnit::Nanosecond, _) => conv::<TimestampNanosecondType>(a, 1e-9),
            _ => None,
        }?;
        Some(Nums { values, nulls: a.nulls() })
    }
    fn is_null(&self, i: usize) -> bool {
        self.nulls.is_some_and(|n| n.is_null(i))
    }
}

mod num_cast {
    /// Lossless-enough conversion of the numeric column types to `f64`.
    pub trait AsF64 {
        fn as_f64(self) -> f64;
    }
    macro_rules! impl_as {
        ($($t:ty),*) => {$(impl AsF64 for $t { #[inline] fn as_f64(self) -> f64 { self as f64 } })*};
    }
    impl_as!(f64, f32, i64, i32, i16, i8, u64, u32, u16, u8);
}

/// Click flags: booleans or 0/1 integers.
enum Flags<'a> {
    Bool(&'a BooleanArray),
    Int(Nums<'a>),
}

impl<'a> Flags<'a> {
    fn new(a: &'a dyn Array) -> Option<Flags<'a>> {
        match a.data_type() {
            DataType::Boolean => Some(Flags::Bool(a.as_boolean())),
            DataType::Float32 | DataType::Float64 | DataType::Timestamp(..) => None,
            _ => Nums::new(a).map(Flags::Int),
        }
    }
    fn get(&self, i: usize) -> std::result::Result<bool, String> {
        match self {
            Flags::Bool(a) if a.is_null(i) => Err("null click flag".into()),
            Flags::Bool(a) => Ok(a.value(i)),
            Flags::Int(n) if n.is_null(i) => Err("null click flag".into()),
            Flags::Int(n) => match n.values[i] {
                0.0 => Ok(false),
                1.0 => Ok(true),
                v => Err(format!("click flag {v} must be 0 or 1")),
            },
        }
    }
}

/// A list column: `List` or `LargeList`.
enum Lists<'a> {
    Small(&'a GenericListArray<i32>),
    Large(&'a GenericListArray<i64>),
}

impl<'a> Lists<'a> {
    fn new(a: &'a dyn Array) -> Option<Lists<'a>> {
        match a.data_type() {
            DataType::List(_) => Some(Lists::Small(a.as_list::<i32>())),
            DataType::LargeList(_) => Some(Lists::Large(a.as_list::<i64>())),
            _ => None,
        }
    }
    fn values(&self) -> &'a dyn Array {
        match self {
            Lists::Small(l) => l.values().as_ref(),
            Lists::Large(l) => l.values().as_ref(),
        }
    }
    /// Element range of row `i`, or None when the row's list is null.
    fn range(&self, i: usize) -> Option<std::ops::Range<usize>> {
        match self {
            Lists::Small(l) if l.is_null(i) => None,
            Lists::Large(l) if l.is_null(i) => None,
            Lists::Small(l) => {
                let o = l.value_offsets();
                Some(o[i] as usize..o[i + 1] as usize)
            }
            Lists::Large(l) => {
                let o = l.value_offsets();
                Some(o[i] as usize..o[i + 1] as usize)
            }
        }
    }
}

fn wrong_type(name: &str, schema: &Schema, col: usize, role: usize, want: &str) -> Error {
    let f = schema.field(col);
    Error::Invalid(format!(
        "{name}: column `{}` (`{}`) has type {}; expected {want}; columns found: {}",
        f.name(),
        ROLES[role].0,
        f.data_type(),
        listing(schema)
    ))
}

/// The typed columns of one batch.
struct Batch<'a> {
    query: Ids<'a>,
    docs: (Lists<'a>, Ids<'a>),
    clicks: (Lists<'a>, Flags<'a>),
    session: Option<Ids<'a>>,
    timestamp: Option<Nums<'a>>,
    dwell: Option<(Lists<'a>, Nums<'a>)>,
    click_times: Option<(Lists<'a>, Nums<'a>)>,
    positions: Option<(Lists<'a>, Nums<'a>)>,
}

const ID: &str = "string or integer";
const LIST_IDS: &str = "a list of strings or integers";
const LIST_FLAGS: &str = "a list of booleans or 0/1 integers";
const LIST_NUMS: &str = "a list of numbers";

impl<'a> Batch<'a> {
    fn new(name: &str, b: &'a RecordBatch, cols: &[Option<usize>; 8]) -> Result<Batch<'a>> {
        let schema = b.schema_ref();
        let col = |role: usize| b.column(cols[role].expect("required role resolved")).as_ref();
        let bad = |role: usize, want: &str| wrong_type(name, schema, cols[role].expect("resolved"), role, want);
        let ids = |role: usize| Ids::new(col(role)).ok_or_else(|| bad(role, ID));
        let list = |role: usize, want: &str| Lists::new(col(role)).ok_or_else(|| bad(role, want));
        let num_list = |role: usize| -> Result<Option<(Lists<'a>, Nums<'a>)>> {
            if cols[role].is_none() {
                return Ok(None);
            }
            let l = list(role, LIST_NUMS)?;
            let n = Nums::new(l.values()).ok_or_else(|| bad(role, LIST_NUMS))?;
            Ok(Some((l, n)))
        };
        let docs = list(DOCS, LIST_IDS)?;
        let doc_ids = Ids::new(docs.values()).ok_or_else(|| bad(DOCS, LIST_IDS))?;
        let clicks = list(CLICKS, LIST_FLAGS)?;
        let flags = Flags::new(clicks.values()).ok_or_else(|| bad(CLICKS, LIST_FLAGS))?;
        Ok(Batch {
            query: ids(QUERY)?,
            docs: (docs, doc_ids),
            clicks: (clicks, flags),
            session: cols[SESSION].map(|_| ids(SESSION)).transpose()?,
            timestamp: cols[TIMESTAMP]
                .map(|_| Nums::new(col(TIMESTAMP)).ok_or_else(|| bad(TIMESTAMP, "a number or a timestamp")))
                .transpose()?,
            dwell: num_list(DWELL)?,
            click_times: num_list(CLICK_TIMES)?,
            positions: num_list(POSITIONS)?,
        })
    }

    /// Whether row `i` has the query and documents of row `p` (without a positions column).
    fn same_serp(&self, i: usize, p: usize) -> bool {
        if self.positions.is_some() || !self.query.same(i, p) {
            return false;
        }
        let (Some(a), Some(b)) = (self.docs.0.range(i), self.docs.0.range(p)) else { return false };
        self.docs.1.same_run(a, b)
    }

    /// Fills `s` with row `i`; the reason when the row is bad. `prev` is the row `s` holds
    /// (the session handed out last), if it is in this batch: when row `i` has the same query
    /// and documents, they are kept and `s` is marked [`SessionBuf::same_serp`].
    fn row(&self, i: usize, prev: Option<usize>, s: &mut SessionBuf, order: &mut Vec<usize>) -> std::result::Result<(), String> {
        let same = prev.is_some_and(|p| self.same_serp(i, p));
        let mut tmp = [0u8; 24];
        if same {
            s.clear_keep_serp();
        } else {
            s.clear();
            if self.query.is_null(i) {
                return Err("null query id".into());
            }
            let q = self.query.get(i, &mut tmp).trim();
            if q.is_empty() {
                return Err("empty query id".into());
            }
            s.set_query(q);
        }
        if let Some(ids) = &self.session {
            if !ids.is_null(i) {
                let id = ids.get(i, &mut tmp).trim();
                if !id.is_empty() {
                    s.set_id(id);
                }
            }
        }
        let docs = self.docs.0.range(i).ok_or("null document list")?;
        let n = docs.len();
        if n == 0 {
            return Err("the document list is empty".into());
        }
        let clicks = self.clicks.0.range(i).ok_or("null click list")?;
        if clicks.len() != n {
            return Err(format!("{n} documents but {} click flags", clicks.len()));
        }
        // Rank order: the list order, or the order of the positions column.
        order.clear();
        order.extend(0..n);
        if let Some((l, v)) = &self.positions {
            let r = l.range(i).ok_or("null position list")?;
            if r.len() != n {
                return Err(format!("{n} documents but {} positions", r.len()));
            }
            let mut seen = vec![false; n];
            for (k, j) in r.enumerate() {
                let p = v.values[j];
                let ok = !v.is_null(j) && p.fract() == 0.0 && p >= 1.0 && p <= n as f64 && !seen[p as usize - 1];
                if !ok {
                    return Err(format!("positions must be the ranks 1..{n}, each once; found {p} at list index {}", k + 1));
                }
                seen[p as usize - 1] = true;
                order[p as usize - 1] = k;
            }
        }
        for &k in order.iter() {
            let j = docs.start + k;
            if !same {
                if self.docs.1.is_null(j) {
                    return Err(format!("null document id at list index {}", k + 1));
                }
                let d = self.docs.1.get(j, &mut tmp).trim();
                if d.is_empty() {
                    return Err(format!("empty document id at list index {}", k + 1));
                }
                s.push_doc(d);
            }
            s.clicks.push(self.clicks.1.get(clicks.start + k).map_err(|e| format!("{e} at list index {}", k + 1))?);
        }
        if let Some(t) = &self.timestamp {
            if !t.is_null(i) {
                let v = t.values[i];
                if !v.is_finite() {
                    return Err(format!("timestamp {v} is not a finite number"));
                }
                s.timestamp = Some(v);
            }
        }
        for (which, target) in [(&self.dwell, &mut s.dwell), (&self.click_times, &mut s.click_times)] {
            let Some((l, v)) = which else { continue };
            let Some(r) = l.range(i) else { continue };
            let what = if std::ptr::eq(which, &self.dwell) { "dwell times" } else { "click times" };
            if r.len() != n {
                return Err(format!("{n} documents but {} {what}", r.len()));
            }
            for &k in order.iter() {
                let j = r.start + k;
                let x = if v.is_null(j) { f64::NAN } else { v.values[j] };
                target.push(x);
            }
        }
        if s.dwell.iter().any(|x| *x < 0.0 || x.is_infinite()) {
            return Err("dwell times must be finite numbers >= 0 (NaN or null: unknown)".into());
        }
        if s.click_times.iter().any(|x| x.is_infinite()) {
            return Err("click times must be finite (NaN or null: not clicked)".into());
        }
        Ok(())
    }
}

/// Random-access bytes of a columnar input: the file itself when it is a plain regular file,
/// otherwise (standard input, gzip or zstd) the decompressed bytes read into memory.
enum Source {
    File(std::fs::File),
    Memory(Vec<u8>),
}

fn source(input: Input) -> Result<Source> {
    let name = input.name().to_string();
    if let (Some(path), Compression::None) = (input.path().map(|p| p.to_path_buf()), input.compression()) {
        if std::fs::metadata(&path).map(|m| m.is_file()).unwrap_or(false) {
            return Ok(Source::File(std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?));
        }
    }
    let mut bytes = Vec::new();
    input
        .into_reader()
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Invalid(format!("{name}: cannot read the columnar log: {e}")))?;
    Ok(Source::Memory(bytes))
}

/// A stream of record batches with the file's schema.
type Batches = Box<dyn Iterator<Item = std::result::Result<RecordBatch, arrow_schema::ArrowError>>>;

fn open_parquet(name: &str, src: Source, map: &ColumnMap) -> Result<(Batches, [Option<usize>; 8])> {
    use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
    use parquet::arrow::ProjectionMask;
    let corrupt = |e: parquet::errors::ParquetError| Error::Invalid(format!("{name}: not a readable Parquet file: {e}"));
    macro_rules! build {
        ($reader:expr) => {{
            let reader = $reader;
            let meta = ArrowReaderMetadata::load(&reader, ArrowReaderOptions::new()).map_err(corrupt)?;
            let cols = map.resolve(name, meta.schema())?;
            // String ids are read as Arrow dictionaries (the Parquet dictionary pages as they
            // are, not one string per value); when the file does not allow it, as strings.
            let meta = match dictionary_hint(meta.schema(), &cols) {
                Some(hint) => ArrowReaderMetadata::try_new(meta.metadata().clone(), ArrowReaderOptions::new().with_schema(hint.into()))
                    .unwrap_or(meta),
                None => meta,
            };
            let b = ParquetRecordBatchReaderBuilder::new_with_metadata(reader, meta);
            let mut roots: Vec<usize> = cols.iter().flatten().copied().collect();
            roots.sort_unstable();
            let mask = ProjectionMask::roots(b.parquet_schema(), roots);
            let reader = b.with_projection(mask).with_batch_size(BATCH_ROWS).build().map_err(corrupt)?;
            let cols = map.resolve(name, &reader_schema(&reader))?;
            (Box::new(reader) as Batches, cols)
        }};
    }
    Ok(match src {
        Source::File(f) => build!(f),
        Source::Memory(v) => build!(bytes::Bytes::from(v)),
    })
}

/// `schema` with the string columns of the query and the documents (list elements) typed as
/// dictionaries of strings, or None when neither is a string column.
fn dictionary_hint(schema: &Schema, cols: &[Option<usize>; 8]) -> Option<Schema> {
    use arrow_schema::Field;
    let dict = |t: &DataType| matches!(t, DataType::Utf8 | DataType::LargeUtf8).then(|| DataType::Dictionary(Box::new(DataType::Int32), Box::new(t.clone())));
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    let mut changed = false;
    for role in [QUERY, DOCS] {
        let Some(c) = cols[role] else { continue };
        let f = &mut fields[c];
        let t = match f.data_type() {
            DataType::List(item) => dict(item.data_type()).map(|d| DataType::List(item.as_ref().clone().with_data_type(d).into())),
            DataType::LargeList(item) => dict(item.data_type()).map(|d| DataType::LargeList(item.as_ref().clone().with_data_type(d).into())),
            other => dict(other),
        };
        if let Some(t) = t {
            *f = f.clone().with_data_type(t);
            changed = true;
        }
    }
    changed.then(|| Schema::new_with_metadata(fields, schema.metadata().clone()))
}

fn reader_schema(r: &parquet::arrow::arrow_reader::ParquetRecordBatchReader) -> Schema {
    use arrow_array::RecordBatchReader;
    r.schema().as_ref().clone()
}

fn open_arrow(name: &str, src: Source, map: &ColumnMap) -> Result<(Batches, [Option<usize>; 8])> {
    use arrow_ipc::reader::{FileReader, StreamReader};
    let corrupt = |e: arrow_schema::ArrowError| Error::Invalid(format!("{name}: not a readable Arrow IPC file: {e}"));
    // A projection keeps only the columns used; the batches then hold them in file order.
    let projected = |schema: &Schema| -> Result<(Vec<usize>, [Option<usize>; 8])> {
        let cols = map.resolve(name, schema)?;
        let mut keep: Vec<usize> = cols.iter().flatten().copied().collect();
        keep.sort_unstable();
        let sub = schema.project(&keep).map_err(corrupt)?;
        Ok((keep, map.resolve(name, &sub)?))
    };
    let is_file = |head: &[u8]| head.starts_with(b"ARROW1");
    macro_rules! build {
        ($reader:expr, $head:expr) => {{
            let mut r = $reader;
            if is_file($head) {
                let schema = FileReader::try_new(&mut r, None).map_err(corrupt)?.schema();
                let (keep, cols) = projected(&schema)?;
                r.rewind().map_err(|e| Error::io(name, e))?;
                (Box::new(FileReader::try_new(r, Some(keep)).map_err(corrupt)?) as Batches, cols)
            } else {
                let schema = StreamReader::try_new(&mut r, None).map_err(corrupt)?.schema();
                let (keep, cols) = projected(&schema)?;
                r.rewind().map_err(|e| Error::io(name, e))?;
                (Box::new(StreamReader::try_new(std::io::BufReader::new(r), Some(keep)).map_err(corrupt)?) as Batches, cols)
            }
        }};
    }
    use std::io::Seek;
    Ok(match src {
        Source::File(mut f) => {
            let mut head = [0u8; 6];
            let n = f.read(&mut head).map_err(|e| Error::io(name, e))?;
            f.rewind().map_err(|e| Error::io(name, e))?;
            build!(f, &head[..n])
        }
        Source::Memory(v) => {
            let head: Vec<u8> = v.iter().take(6).copied().collect();
            build!(std::io::Cursor::new(v), &head)
        }
    })
}

/// Reads every row of a Parquet or Arrow IPC log, calling `f` on each session in file order.
/// With `skip_bad_rows`, bad rows are counted and skipped; a file that cannot be decoded
/// stops the read either way.
pub(crate) fn for_each_row(
    input: Input,
    container: Container,
    map: &ColumnMap,
    skip_bad_rows: bool,
    report: &mut ReadReport,
    f: &mut dyn FnMut(&SessionBuf) -> Result<()>,
) -> Result<()> {
    let name = input.name().to_string();
    let src = source(input)?;
    // The decoders are third-party code: a panic on a corrupt file becomes an error.
    let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match container {
        Container::Parquet => open_parquet(&name, src, map),
        Container::Arrow => open_arrow(&name, src, map),
    }))
    .unwrap_or_else(|_| Err(Error::Invalid(format!("{name}: not a readable {container} file (the decoder failed)"))));
    let (mut batches, cols) = opened?;
    let mut s = SessionBuf::default();
    let mut order = Vec::new();
    let mut row = 0usize;
    loop {
        let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| batches.next()));
        let batch = match next {
            Ok(None) => break,
            Ok(Some(Ok(b))) => b,
            Ok(Some(Err(e))) => return Err(Error::Invalid(format!("{name}: row {}: cannot decode the {container} data: {e}", row + 1))),
            Err(_) => return Err(Error::Invalid(format!("{name}: row {}: cannot decode the {container} data (the decoder failed)", row + 1))),
        };
        crate::interrupt::check()?;
        let b = Batch::new(&name, &batch, &cols)?;
        let mut prev = None;
        for i in 0..batch.num_rows() {
            row += 1;
            match b.row(i, prev, &mut s, &mut order) {
                Ok(()) => {
                    report.sessions += 1;
                    prev = Some(i);
                    f(&s)?;
                }
                Err(reason) => {
                    prev = None;
                    let msg = format!("{name}: row {row}: {reason}");
                    if !skip_bad_rows {
                        return Err(Error::Invalid(msg));
                    }
                    report.skipped_lines += 1;
                    report.first_error.get_or_insert(msg);
                }
            }
        }
    }
    Ok(())
}
