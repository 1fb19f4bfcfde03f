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

use super::arrow::{FlagColumn, IdColumn, ListColumn};
use super::formats::SessionBuf;
use super::ReadReport;
use crate::error::{Error, Result};
use crate::input::{Compression, Input};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, RecordBatch};
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
            let role = ROLES
                .iter()
                .position(|(r, _)| *r == k)
                .ok_or_else(|| format!("unknown role `{k}` (use {})", ROLES.iter().map(|(r, _)| *r).collect::<Vec<_>>().join(", ")))?;
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
                    Err(_) => return Err(Error::Invalid(format!("{name}: no column `{n}` (mapped to `{rname}`); columns found: {}", listing(schema)))),
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
            a.as_primitive_opt::<T>().map(|p| p.values().iter().map(|v| num_cast::AsF64::to_f64(*v) * scale).collect())
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
        fn to_f64(self) -> f64;
    }
    macro_rules! impl_as {
        ($($t:ty),*) => {$(impl AsF64 for $t { #[inline] fn to_f64(self) -> f64 { self as f64 } })*};
    }
    impl_as!(f64, f32, i64, i32, i16, i8, u64, u32, u16, u8);
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
    query: IdColumn<'a>,
    docs: (ListColumn<'a>, IdColumn<'a>),
    clicks: (ListColumn<'a>, FlagColumn<'a>),
    session: Option<IdColumn<'a>>,
    timestamp: Option<Nums<'a>>,
    dwell: Option<(ListColumn<'a>, Nums<'a>)>,
    click_times: Option<(ListColumn<'a>, Nums<'a>)>,
    positions: Option<(ListColumn<'a>, Nums<'a>)>,
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
        let ids = |role: usize| IdColumn::new(col(role)).map_err(|_| bad(role, ID));
        let list = |role: usize, want: &str| ListColumn::new(col(role)).map_err(|_| bad(role, want));
        let num_list = |role: usize| -> Result<Option<(ListColumn<'a>, Nums<'a>)>> {
            if cols[role].is_none() {
                return Ok(None);
            }
            let l = list(role, LIST_NUMS)?;
            let n = Nums::new(l.values().as_ref()).ok_or_else(|| bad(role, LIST_NUMS))?;
            Ok(Some((l, n)))
        };
        let docs = list(DOCS, LIST_IDS)?;
        let doc_ids = IdColumn::new(docs.values().as_ref()).map_err(|_| bad(DOCS, LIST_IDS))?;
        let clicks = list(CLICKS, LIST_FLAGS)?;
        let flags = FlagColumn::new(clicks.values().as_ref()).map_err(|_| bad(CLICKS, LIST_FLAGS))?;
        Ok(Batch {
            query: ids(QUERY)?,
            docs: (docs, doc_ids),
            clicks: (clicks, flags),
            session: cols[SESSION].map(|_| ids(SESSION)).transpose()?,
            timestamp: cols[TIMESTAMP].map(|_| Nums::new(col(TIMESTAMP)).ok_or_else(|| bad(TIMESTAMP, "a number or a timestamp"))).transpose()?,
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
            let q = self.query.get(i, &mut tmp).unwrap_or_default().trim();
            if q.is_empty() {
                return Err("empty query id".into());
            }
            s.set_query(q);
        }
        if let Some(ids) = &self.session {
            if !ids.is_null(i) {
                let id = ids.get(i, &mut tmp).unwrap_or_default().trim();
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
                let d = self.docs.1.get(j, &mut tmp).unwrap_or_default().trim();
                if d.is_empty() {
                    return Err(format!("empty document id at list index {}", k + 1));
                }
                s.push_doc(d);
            }
            s.clicks.push(match self.clicks.1.get(clicks.start + k) {
                Ok(Some(c)) => c,
                Ok(None) => return Err(format!("null click flag at list index {}", k + 1)),
                Err(v) => return Err(format!("click flag {v} must be 0 or 1 at list index {}", k + 1)),
            });
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
    input.into_reader().read_to_end(&mut bytes).map_err(|e| Error::Invalid(format!("{name}: cannot read the columnar log: {e}")))?;
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
                Some(hint) => ArrowReaderMetadata::try_new(meta.metadata().clone(), ArrowReaderOptions::new().with_schema(hint.into())).unwrap_or(meta),
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
            // The IPC reader slices buffers at the offsets a message states before it
            // validates anything (a corrupt offset panics in arrow-buffer): check them first.
            check_ipc(&mut r, is_file($head)).map_err(|why| Error::Invalid(format!("{name}: not a readable Arrow IPC file: {why}")))?;
            r.rewind().map_err(|e| Error::io(name, e))?;
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

/// `text` on one line (the flatbuffers verifier's messages span lines).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The column types of an Arrow IPC schema, for [`check_typed_buffers`]: the top-level
/// columns in order, and the value type of every dictionary by its id.
struct IpcTypes {
    columns: Vec<arrow_schema::DataType>,
    dictionaries: std::collections::HashMap<i64, arrow_schema::DataType>,
}

impl IpcTypes {
    /// The types of `schema`, or `None` when they cannot be read (the reader then refuses the
    /// file itself).
    fn of(schema: arrow_ipc::Schema<'_>) -> Option<IpcTypes> {
        let schema = arrow_ipc::convert::try_fb_to_schema(schema).ok()?;
        let mut dictionaries = std::collections::HashMap::new();
        fn dicts(f: &arrow_schema::Field, out: &mut std::collections::HashMap<i64, arrow_schema::DataType>) {
            #[allow(deprecated)] // the IPC reader itself matches dictionaries by this id
            if let (arrow_schema::DataType::Dictionary(_, v), Some(id)) = (f.data_type(), f.dict_id()) {
                out.insert(id, v.as_ref().clone());
            }
            for c in children(f.data_type()) {
                dicts(c, out);
            }
        }
        for f in schema.fields() {
            dicts(f, &mut dictionaries);
        }
        Some(IpcTypes { columns: schema.fields().iter().map(|f| f.data_type().clone()).collect(), dictionaries })
    }
}

/// The child fields of a nested type (none for the others).
fn children(t: &arrow_schema::DataType) -> Vec<&arrow_schema::Field> {
    use arrow_schema::DataType::*;
    match t {
        List(f) | LargeList(f) | FixedSizeList(f, _) | Map(f, _) | ListView(f) | LargeListView(f) => vec![f.as_ref()],
        Struct(fs) => fs.iter().map(|f| f.as_ref()).collect(),
        Union(fs, _) => fs.iter().map(|(_, f)| f.as_ref()).collect(),
        RunEndEncoded(a, b) => vec![a.as_ref(), b.as_ref()],
        Dictionary(_, v) => children(v),
        _ => Vec::new(),
    }
}

/// Checks the buffers of one record batch (their byte `lengths`, in the order the IPC reader
/// takes them for `columns`) that the reader's validation reads as typed values: offsets (4
/// or 8 bytes each) and dictionary keys. Their lengths must be whole numbers of values;
/// arrow-data's `Buffer::typed_data` asserts it, so a corrupt length would panic inside the
/// decoder. The walk mirrors `arrow_ipc::reader::ArrayReader::create_array`; at a type whose
/// buffer count depends on more than the type (views, unions, run-end encoding, list views)
/// it stops, leaving the rest to the reader.
fn check_typed_buffers(columns: &[arrow_schema::DataType], lengths: &[i64]) -> std::result::Result<(), String> {
    use arrow_schema::DataType::{self, *};
    // `Ok(false)`: stop (a layout not walked here).
    fn walk(t: &DataType, lengths: &[i64], at: &mut usize) -> std::result::Result<bool, String> {
        let mut take = |width: i64| -> std::result::Result<bool, String> {
            let Some(&len) = lengths.get(*at) else { return Ok(false) };
            if width > 1 && len % width != 0 {
                return Err(format!("buffer {} of {len} bytes for {width}-byte offsets or keys of a `{t}` column: not a whole number of them", *at));
            }
            *at += 1;
            Ok(true)
        };
        let any = 1;
        Ok(match t {
            Null => true,
            Utf8 | Binary => take(any)? && take(4)? && take(any)?,
            LargeUtf8 | LargeBinary => take(any)? && take(8)? && take(any)?,
            List(f) | Map(f, _) => take(any)? && take(4)? && walk(f.data_type(), lengths, at)?,
            LargeList(f) => take(any)? && take(8)? && walk(f.data_type(), lengths, at)?,
            FixedSizeList(f, _) => take(any)? && walk(f.data_type(), lengths, at)?,
            Struct(fs) => {
                if !take(any)? {
                    return Ok(false);
                }
                for f in fs {
                    if !walk(f.data_type(), lengths, at)? {
                        return Ok(false);
                    }
                }
                true
            }
            Dictionary(k, _) => take(any)? && take(k.primitive_width().map_or(1, |w| w as i64))?,
            Boolean | FixedSizeBinary(_) => take(any)? && take(any)?,
            t if t.is_primitive() => take(any)? && take(any)?,
            _ => false,
        })
    }
    let mut at = 0;
    for c in columns {
        if !walk(c, lengths, &mut at)? {
            break;
        }
    }
    Ok(())
}

/// Checks the framing of an Arrow IPC file (`file`: the `ARROW1` file format, else the
/// stream format) without decoding any data: every message lies inside the input, its
/// metadata is a valid flatbuffer, and every buffer and node of a record batch or dictionary
/// batch lies inside the message body with non-negative sizes, and every buffer of offsets or
/// dictionary keys holds a whole number of them ([`check_typed_buffers`]). The arrow-ipc
/// reader assumes all of this (it slices buffers, unwraps block sizes and reads typed
/// buffers before validating), so a corrupt file would otherwise panic inside it; the arrays
/// themselves are then validated by the reader (`ArrayData` validation is on).
fn check_ipc<R: std::io::Read + std::io::Seek>(r: &mut R, file: bool) -> std::result::Result<(), String> {
    use std::io::SeekFrom;
    let len = r.seek(SeekFrom::End(0)).map_err(|e| e.to_string())?;
    let read_at = |r: &mut R, at: u64, n: u64| -> std::result::Result<Vec<u8>, String> {
        if at.checked_add(n).is_none_or(|end| end > len) {
            return Err(format!("a message at byte {at} of {n} bytes runs past the end of the input ({len} bytes)"));
        }
        r.seek(SeekFrom::Start(at)).map_err(|e| e.to_string())?;
        let mut buf = vec![0u8; n as usize];
        r.read_exact(&mut buf).map_err(|e| e.to_string())?;
        Ok(buf)
    };
    // One encapsulated message's metadata (`meta`: continuation marker, length, flatbuffer)
    // against a body of `body` bytes, with the column types of the schema read so far; a
    // schema message returns its types.
    let check_message = |meta: &[u8], body: u64, at: u64, types: Option<&IpcTypes>| -> std::result::Result<Option<IpcTypes>, String> {
        let fb = match meta {
            [0xff, 0xff, 0xff, 0xff, _, _, _, _, rest @ ..] => rest,
            [_, _, _, _, rest @ ..] => rest,
            _ => return Err(format!("the message at byte {at} is shorter than its header")),
        };
        let m = arrow_ipc::root_as_message(fb).map_err(|e| format!("the message at byte {at} is not a valid IPC message ({})", one_line(&e.to_string())))?;
        if m.bodyLength() < 0 || m.bodyLength() as u64 > body {
            return Err(format!("the message at byte {at} declares a body of {} bytes, more than the {body} there are", m.bodyLength()));
        }
        if let Some(schema) = m.header_as_schema() {
            return Ok(IpcTypes::of(schema));
        }
        // The batch and the types of its columns: a record batch has the schema's columns, a
        // dictionary batch one column of its dictionary's value type.
        let (batch, columns) = match m.header_type() {
            arrow_ipc::MessageHeader::RecordBatch => (m.header_as_record_batch(), types.map(|t| t.columns.clone())),
            arrow_ipc::MessageHeader::DictionaryBatch => {
                let d = m.header_as_dictionary_batch();
                (d.and_then(|d| d.data()), d.and_then(|d| types.and_then(|t| t.dictionaries.get(&d.id()).cloned().map(|v| vec![v]))))
            }
            _ => (None, None),
        };
        if let Some(b) = batch {
            if b.length() < 0 {
                return Err(format!("the record batch at byte {at} has {} rows", b.length()));
            }
            for buf in b.buffers().into_iter().flatten() {
                // Buffers start at multiples of 8 bytes in the body (the IPC format's alignment).
                if buf.offset() < 0 || buf.offset() % 8 != 0 || buf.length() < 0 || (buf.offset() as u64).saturating_add(buf.length() as u64) > body {
                    return Err(format!(
                        "the record batch at byte {at} has a buffer at offset {} of {} bytes outside its body of {body} bytes",
                        buf.offset(),
                        buf.length()
                    ));
                }
            }
            for node in b.nodes().into_iter().flatten() {
                if node.length() < 0 || node.null_count() < 0 || node.null_count() > node.length() {
                    return Err(format!("the record batch at byte {at} has a column of {} values with {} nulls", node.length(), node.null_count()));
                }
            }
            // Compressed buffers (which this build does not read) have other lengths.
            if let (Some(columns), None) = (columns, b.compression()) {
                let lengths: Vec<i64> = b.buffers().into_iter().flatten().map(|buf| buf.length()).collect();
                check_typed_buffers(&columns, &lengths).map_err(|why| format!("the record batch at byte {at} has {why}"))?;
            }
        }
        Ok(None)
    };
    if file {
        // Footer: `... FOOTER footer_len:i32 "ARROW1"`.
        if len < 16 {
            return Err("the file is too short for an Arrow IPC file".into());
        }
        let tail = read_at(r, len - 10, 10)?;
        let footer_len = i32::from_le_bytes(tail[..4].try_into().expect("4 bytes"));
        if &tail[4..] != b"ARROW1" || footer_len < 0 || footer_len as u64 > len - 10 {
            return Err("the footer is missing or damaged".into());
        }
        let footer = read_at(r, len - 10 - footer_len as u64, footer_len as u64)?;
        let footer = arrow_ipc::root_as_footer(&footer).map_err(|e| format!("the footer is not valid ({})", one_line(&e.to_string())))?;
        let types = footer.schema().and_then(IpcTypes::of);
        for block in footer.dictionaries().into_iter().flatten().chain(footer.recordBatches().into_iter().flatten()) {
            let (at, meta, body) = (block.offset(), block.metaDataLength(), block.bodyLength());
            if at < 0 || meta < 8 || body < 0 {
                return Err(format!("a block of the footer has offset {at}, metadata length {meta} and body length {body}"));
            }
            let (at, meta, body) = (at as u64, meta as u64, body as u64);
            if at.saturating_add(meta).saturating_add(body) > len {
                return Err(format!("the block at byte {at} runs past the end of the file ({len} bytes)"));
            }
            let m = read_at(r, at, meta)?;
            check_message(&m, body, at, types.as_ref())?;
        }
        Ok(())
    } else {
        let mut types = None;
        let mut at = 0u64;
        while at < len {
            let mut head = read_at(r, at, 4.min(len - at))?;
            if head.len() < 4 {
                return Err(format!("the message at byte {at} is shorter than its header"));
            }
            let mut skip = 4;
            if head == [0xff; 4] {
                head = read_at(r, at + 4, 4.min(len - at - 4))?;
                if head.len() < 4 {
                    return Err(format!("the message at byte {at} is shorter than its header"));
                }
                skip = 8;
            }
            let meta_len = i32::from_le_bytes(head[..].try_into().expect("4 bytes"));
            if meta_len == 0 {
                return Ok(()); // end of stream
            }
            if meta_len < 0 {
                return Err(format!("the message at byte {at} has a metadata length of {meta_len}"));
            }
            let meta = read_at(r, at, skip + meta_len as u64)?;
            let fb = &meta[skip as usize..];
            let m =
                arrow_ipc::root_as_message(fb).map_err(|e| format!("the message at byte {at} is not a valid IPC message ({})", one_line(&e.to_string())))?;
            let body = u64::try_from(m.bodyLength()).map_err(|_| format!("the message at byte {at} has a body length of {}", m.bodyLength()))?;
            let end = (at + skip + meta_len as u64).saturating_add(body);
            if end > len {
                return Err(format!("the message at byte {at} runs past the end of the input ({len} bytes)"));
            }
            if let Some(t) = check_message(&meta, body, at, types.as_ref())? {
                types = Some(t);
            }
            at = end;
        }
        Ok(())
    }
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
    let opened = crate::error::catch_decoder_panic(|| match container {
        Container::Parquet => open_parquet(&name, src, map),
        Container::Arrow => open_arrow(&name, src, map),
    })
    .unwrap_or_else(|_| Err(Error::Invalid(format!("{name}: not a readable {container} file (the decoder failed)"))));
    let (mut batches, cols) = opened?;
    let mut s = SessionBuf::default();
    let mut order = Vec::new();
    let mut row = 0usize;
    loop {
        let next = crate::error::catch_decoder_panic(|| batches.next());
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
