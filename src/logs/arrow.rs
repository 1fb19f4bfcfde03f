//! The Arrow click-log decoder: the one place where Arrow columns of a click log (a query id
//! column, a list column of document ids, a list column of click flags) are turned into
//! sessions. The CLI's Parquet and Arrow IPC reader ([`super::columnar`]), the Python binding
//! (DataFrames and pyarrow tables through the Arrow C stream interface) and the Spark fit all
//! read their columns through the types here:
//!
//! - [`IdColumn`]: ids as strings (Utf8, LargeUtf8, Utf8View), integers of any width (read as
//!   their decimal text, so a Parquet log and its text original intern the same ids) or
//!   dictionaries of either (pandas categoricals, Parquet dictionary pages), the type
//!   dispatched once per column;
//! - [`FlagColumn`]: click flags as booleans or 0/1 integers;
//! - [`ListColumn`]: List or LargeList columns, one list per row;
//! - [`intern_batches`]: whole record batches into an interned [`ClickLog`] (the DataFrame
//!   path), without a Python object or an allocation per value.
//!
//! In [`intern_batches`] each column is converted in one pass:
//!
//! - strings are looked up as `&str` slices of the Arrow buffers;
//! - integers are keyed by their 64-bit value in a cache, so each distinct id is formatted in
//!   decimal and interned once (the vocabulary then holds the same text the CLI reads);
//! - dictionary-encoded columns intern each dictionary value the first time a row uses it.
//!
//! Interning happens in row order, so the vocabulary (and the model file written from it) is
//! the one the CLI's text readers build from the same sessions. A [`SerpCache`] skips the
//! interning of result lists already read (which would intern nothing new).
//!
//! Not an Arrow decoder, and kept: the streamed fit's Parquet page reader ([`super::direct`])
//! decodes Parquet pages straight into dense ids without building Arrow arrays (three times
//! cheaper than going through record batches), for the common layout only; every file it
//! does not handle is left to the columnar reader, which reads through the types here.

use super::{ClickLog, Vocab};
use arrow_array::cast::AsArray;
use arrow_array::types::{ArrowPrimitiveType, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, ArrayRef, BooleanArray, GenericStringArray, LargeStringArray, OffsetSizeTrait, RecordBatch, StringArray, StringViewArray};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use rustc_hash::{FxHashMap, FxHasher};
use std::fmt::Write;
use std::hash::Hasher;
use std::ops::Range;

/// Why a column could not be read.
#[derive(Debug)]
pub enum ColumnError {
    /// Value `i` of the array is null.
    Null(usize),
    /// Value `i` is not a valid flag (the value, as text).
    NotFlag(usize, String),
    /// The column's type cannot be read this way (the type, as text).
    Type(String),
}

/// The cache of one id column, kept across the batches of one table: integer id → vocabulary
/// index.
#[derive(Default)]
pub struct IdCache {
    ints: FxHashMap<u64, u32>,
    text: String,
}

/// A cache of pair indices per query: (document index → pair index) for each query index.
/// A session's lookups then touch only its query's few entries (hot in cache) instead of the
/// vocabulary's table of every pair; misses go to the vocabulary, so the indices are the
/// vocabulary's own.
#[derive(Default)]
pub struct PairCache {
    per_query: Vec<SmallMap>,
}

enum SmallMap {
    /// Up to [`SMALL`] entries, scanned.
    Few(Vec<(u32, u32)>),
    Many(FxHashMap<u32, u32>),
}

const SMALL: usize = 32;

impl PairCache {
    /// The pair index of (`query`, `doc`), from the cache or `intern`.
    #[inline]
    pub fn get(&mut self, query: u32, doc: u32, intern: impl FnOnce() -> u32) -> u32 {
        let q = query as usize;
        if q >= self.per_query.len() {
            self.per_query.resize_with(q + 1, || SmallMap::Few(Vec::new()));
        }
        match &mut self.per_query[q] {
            SmallMap::Few(v) => {
                if let Some(&(_, p)) = v.iter().find(|e| e.0 == doc) {
                    return p;
                }
                let p = intern();
                if v.len() < SMALL {
                    v.push((doc, p));
                } else {
                    let mut m: FxHashMap<u32, u32> = v.iter().copied().collect();
                    m.insert(doc, p);
                    self.per_query[q] = SmallMap::Many(m);
                }
                p
            }
            SmallMap::Many(m) => *m.entry(doc).or_insert_with(intern),
        }
    }
}

/// First null in `range` of `array`, if any.
pub fn first_null(array: &dyn Array, range: &Range<usize>) -> Option<usize> {
    let nulls = array.nulls().filter(|n| n.null_count() > 0)?;
    range.clone().find(|&i| nulls.is_null(i))
}

/// The native bytes of an integer column's values (its own slice of the buffer).
fn native_bytes<T: ArrowPrimitiveType>(array: &dyn Array) -> &[u8] {
    array.as_primitive::<T>().values().inner().as_slice()
}

/// One id column of a record batch, its type dispatched once: resolves ranges of values to
/// vocabulary indices ([`IdColumn::resolve`]) and gives the bytes that identify a value
/// ([`IdColumn::append_key`], the keys of a [`SerpCache`]).
pub struct IdColumn<'a> {
    array: &'a dyn Array,
    nulls: Option<&'a NullBuffer>,
    kind: Kind<'a>,
}

enum Kind<'a> {
    Utf8(&'a StringArray),
    LargeUtf8(&'a LargeStringArray),
    Utf8View(&'a StringViewArray),
    Int(Ints<'a>),
    /// Dictionary-encoded: each row's key into `values`, and the vocabulary index of each
    /// value once a row has used it (`u32::MAX` before), with the values' own integer cache
    /// (the dictionary's values are another column as far as types go).
    Dict {
        keys: Ints<'a>,
        values: Box<IdColumn<'a>>,
        map: Vec<u32>,
        cache: IdCache,
    },
}

/// An integer array read in place: the values' native bytes, `width` bytes each.
#[derive(Clone, Copy)]
pub struct Ints<'a> {
    bytes: &'a [u8],
    width: usize,
    signed: bool,
}

impl<'a> Ints<'a> {
    /// `array` if it holds integers.
    fn of(array: &'a dyn Array) -> Option<Self> {
        let (bytes, width, signed) = match array.data_type() {
            DataType::Int8 => (native_bytes::<Int8Type>(array), 1, true),
            DataType::Int16 => (native_bytes::<Int16Type>(array), 2, true),
            DataType::Int32 => (native_bytes::<Int32Type>(array), 4, true),
            DataType::Int64 => (native_bytes::<Int64Type>(array), 8, true),
            DataType::UInt8 => (native_bytes::<UInt8Type>(array), 1, false),
            DataType::UInt16 => (native_bytes::<UInt16Type>(array), 2, false),
            DataType::UInt32 => (native_bytes::<UInt32Type>(array), 4, false),
            DataType::UInt64 => (native_bytes::<UInt64Type>(array), 8, false),
            _ => return None,
        };
        Some(Ints { bytes, width, signed })
    }

    /// Integer `i` widened to 64 bits: sign-extended when signed (so `as i64` gives the
    /// value back).
    #[inline]
    fn at(&self, i: usize) -> u64 {
        let b = &self.bytes[i * self.width..(i + 1) * self.width];
        match (self.width, self.signed) {
            (1, true) => i8::from_ne_bytes([b[0]]) as i64 as u64,
            (1, false) => b[0] as u64,
            (2, true) => i16::from_ne_bytes([b[0], b[1]]) as i64 as u64,
            (2, false) => u16::from_ne_bytes([b[0], b[1]]) as u64,
            (4, true) => i32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as i64 as u64,
            (4, false) => u32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as u64,
            _ => u64::from_ne_bytes(b.try_into().expect("8-byte integers")),
        }
    }
}

impl<'a> IdColumn<'a> {
    /// The column `array`, or the reason its type cannot hold ids.
    pub fn new(array: &'a dyn Array) -> Result<Self, ColumnError> {
        let kind = match array.data_type() {
            DataType::Utf8 => Kind::Utf8(array.as_string::<i32>()),
            DataType::LargeUtf8 => Kind::LargeUtf8(array.as_string::<i64>()),
            DataType::Utf8View => Kind::Utf8View(array.as_string_view()),
            DataType::Dictionary(k, _) => {
                let dict = array.as_any_dictionary();
                let keys = Ints::of(dict.keys()).ok_or_else(|| ColumnError::Type(format!("dictionary keys of Arrow type {k}")))?;
                let values = dict.values().as_ref();
                Kind::Dict { keys, map: Vec::new(), values: Box::new(IdColumn::new(values)?), cache: IdCache::default() }
            }
            other => match Ints::of(array) {
                Some(ints) => Kind::Int(ints),
                None => return Err(ColumnError::Type(format!("expected strings or integers, found Arrow type {other}"))),
            },
        };
        Ok(IdColumn { array, nulls: array.nulls(), kind })
    }

    /// Appends the vocabulary index of each value in `range` to `out`, interning ids not seen
    /// yet with `intern` in order (called once per distinct integer or dictionary value, once
    /// per value for plain strings, which the vocabulary looks up without allocating).
    /// `cache` is the column's, kept across the batches of one table.
    pub fn resolve<F: FnMut(&str) -> u32>(&mut self, range: Range<usize>, cache: &mut IdCache, intern: &mut F, out: &mut Vec<u32>) -> Result<(), ColumnError> {
        if let Some(i) = first_null(self.array, &range) {
            return Err(ColumnError::Null(i));
        }
        out.reserve(range.len());
        match &mut self.kind {
            Kind::Utf8(a) => out.extend(range.map(|i| intern(a.value(i)))),
            Kind::LargeUtf8(a) => out.extend(range.map(|i| intern(a.value(i)))),
            Kind::Utf8View(a) => out.extend(range.map(|i| intern(a.value(i)))),
            Kind::Int(values) => {
                let IdCache { ints, text } = cache;
                for i in range {
                    let key = values.at(i);
                    let id = match ints.get(&key) {
                        Some(&id) => id,
                        None => {
                            text.clear();
                            let _ = if values.signed { write!(text, "{}", key as i64) } else { write!(text, "{key}") };
                            let id = intern(text.as_str());
                            ints.insert(key, id);
                            id
                        }
                    };
                    out.push(id);
                }
            }
            Kind::Dict { keys, values, map, cache: inner } => {
                // The vocabulary index of each dictionary value, made on first use (a
                // column only read for its text never pays for it).
                if map.len() != values.array.len() {
                    *map = vec![u32::MAX; values.array.len()];
                }
                let mut one = Vec::with_capacity(1);
                for i in range {
                    let k = keys.at(i) as usize;
                    if map[k] == u32::MAX {
                        one.clear();
                        values.resolve(k..k + 1, inner, intern, &mut one).map_err(|e| match e {
                            ColumnError::Null(_) => ColumnError::Null(i),
                            e => e,
                        })?;
                        map[k] = one[0];
                    }
                    out.push(map[k]);
                }
            }
        }
        Ok(())
    }

    /// Appends the bytes that identify the values in `range` (in order) among those of a
    /// column of this type; false, leaving `out` to be discarded, if one is null. A plain
    /// string column gives the count, the lengths and the bytes in one copy (its rows are
    /// contiguous); other types give each value's [`IdColumn::append_key`]. Keys of columns
    /// of different types are not comparable.
    #[inline]
    pub fn append_keys(&self, range: Range<usize>, out: &mut Vec<u8>) -> bool {
        if first_null(self.array, &range).is_some() {
            return false;
        }
        match &self.kind {
            Kind::Utf8(a) => contiguous_key(a, range, out),
            Kind::LargeUtf8(a) => contiguous_key(a, range, out),
            _ => range.into_iter().all(|i| self.append_key(i, out)),
        }
    }

    /// Appends the bytes that identify value `i` among the values of a column of this type
    /// (a string's length and bytes; an integer's native bytes; a dictionary value's own);
    /// false, leaving `out` to be discarded, if the value is null (or a string of 4 GiB).
    #[inline]
    pub fn append_key(&self, i: usize, out: &mut Vec<u8>) -> bool {
        if self.nulls.is_some_and(|n| n.is_null(i)) {
            return false;
        }
        let s = match &self.kind {
            Kind::Utf8(a) => a.value(i),
            Kind::LargeUtf8(a) => a.value(i),
            Kind::Utf8View(a) => a.value(i),
            Kind::Int(Ints { bytes, width, .. }) => {
                out.extend_from_slice(&bytes[i * width..(i + 1) * width]);
                return true;
            }
            Kind::Dict { keys, values, .. } => return values.append_key(keys.at(i) as usize, out),
        };
        let Ok(len) = u32::try_from(s.len()) else { return false };
        out.extend_from_slice(&len.to_ne_bytes());
        out.extend_from_slice(s.as_bytes());
        true
    }
}

impl<'a> IdColumn<'a> {
    /// Whether value `i` is null (for a dictionary: its key, or the value the key points to).
    #[inline]
    pub fn is_null(&self, i: usize) -> bool {
        if self.nulls.is_some_and(|n| n.is_null(i)) {
            return true;
        }
        match &self.kind {
            Kind::Dict { keys, values, .. } => {
                let k = keys.at(i) as usize;
                k >= values.array.len() || values.is_null(k)
            }
            _ => false,
        }
    }

    /// Value `i` as text, `None` when null; integers are written in decimal into `tmp`.
    #[inline]
    pub fn get<'b>(&'b self, i: usize, tmp: &'b mut [u8; 24]) -> Option<&'b str> {
        if self.nulls.is_some_and(|n| n.is_null(i)) {
            return None;
        }
        match &self.kind {
            Kind::Utf8(a) => Some(a.value(i)),
            Kind::LargeUtf8(a) => Some(a.value(i)),
            Kind::Utf8View(a) => Some(a.value(i)),
            Kind::Int(v) => {
                let x = v.at(i);
                Some(if v.signed { fmt_int((x as i64) < 0, (x as i64).unsigned_abs(), tmp) } else { fmt_int(false, x, tmp) })
            }
            Kind::Dict { keys, values, .. } => {
                let k = keys.at(i) as usize;
                if k >= values.array.len() {
                    return None;
                }
                values.get(k, tmp)
            }
        }
    }

    /// Whether values `i` and `j` are both present and equal.
    #[inline]
    pub fn same(&self, i: usize, j: usize) -> bool {
        if self.nulls.is_some_and(|n| n.is_null(i) || n.is_null(j)) {
            return false;
        }
        match &self.kind {
            Kind::Utf8(a) => a.value(i) == a.value(j),
            Kind::LargeUtf8(a) => a.value(i) == a.value(j),
            Kind::Utf8View(a) => a.value(i) == a.value(j),
            Kind::Int(v) => v.at(i) == v.at(j),
            Kind::Dict { keys, values, .. } => {
                let (ki, kj) = (keys.at(i) as usize, keys.at(j) as usize);
                if ki >= values.array.len() || kj >= values.array.len() || values.is_null(ki) || values.is_null(kj) {
                    return false;
                }
                ki == kj || values.same(ki, kj)
            }
        }
    }

    /// Whether the values in `a` and `b` are all present and pairwise equal (a dictionary
    /// without nulls compares its keys as bytes).
    pub fn same_run(&self, a: Range<usize>, b: Range<usize>) -> bool {
        if a.len() != b.len() {
            return false;
        }
        if let Kind::Dict { keys, values, .. } = &self.kind {
            if self.nulls.is_none_or(|n| n.null_count() == 0) && values.nulls.is_none_or(|n| n.null_count() == 0) {
                let w = keys.width;
                return keys.bytes[a.start * w..a.end * w] == keys.bytes[b.start * w..b.end * w];
            }
        }
        a.zip(b).all(|(x, y)| self.same(x, y))
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

/// The key of `range` of a string array: the count, each length, then the bytes (the
/// lengths delimit them); false for 4 GiB of values or strings.
#[inline]
fn contiguous_key<O: OffsetSizeTrait>(a: &GenericStringArray<O>, range: Range<usize>, out: &mut Vec<u8>) -> bool {
    let offsets = &a.value_offsets()[range.start..=range.end];
    let Ok(count) = u32::try_from(range.len()) else { return false };
    out.extend_from_slice(&count.to_ne_bytes());
    for w in offsets.windows(2) {
        let Ok(len) = u32::try_from((w[1] - w[0]).as_usize()) else { return false };
        out.extend_from_slice(&len.to_ne_bytes());
    }
    out.extend_from_slice(&a.value_data()[offsets[0].as_usize()..offsets[range.len()].as_usize()]);
    true
}

/// The most key bytes a [`SerpCache`] stores; past it, it answers from what it holds.
pub const SERP_KEY_BUDGET: usize = 64 << 20;

/// Misses after which a [`SerpCache`] that hit fewer than half as often switches itself off.
pub const SERP_TRIAL: usize = 1 << 16;

/// Pair indices of the result lists read so far, keyed by the query index and the documents'
/// key bytes ([`IdColumn::append_key`]). A session whose query and documents (byte for byte)
/// were read before has all its documents and pairs interned already, so copying its pair
/// indices interns nothing and the vocabulary keeps its first-occurrence numbering. Click
/// logs repeat result lists (a query's SERP is shown to many users), so most sessions are
/// read with one hash of their row instead of one lookup per document and pair. A log that
/// rarely repeats a list would pay for the keys without the gain: once [`SERP_TRIAL`] lookups
/// have missed and fewer than half as many hit, the cache switches itself off.
#[derive(Default)]
pub struct SerpCache {
    hits: usize,
    misses: usize,
    off: bool,
    /// Hash of a key → its latest entry (earlier ones with the same hash follow `next`).
    heads: FxHashMap<u64, u32>,
    entries: Vec<SerpEntry>,
    keys: Vec<u8>,
    pairs: Vec<u32>,
}

struct SerpEntry {
    key: Range<usize>,
    pairs: Range<usize>,
    next: u32,
}

const NO_ENTRY: u32 = u32::MAX;

impl SerpCache {
    /// The hash of `key`, for [`SerpCache::get`] and [`SerpCache::insert`].
    #[inline]
    pub fn hash(key: &[u8]) -> u64 {
        let mut h = FxHasher::default();
        h.write(key);
        h.finish()
    }

    /// False once the cache has switched itself off (then it is not worth a key).
    #[inline]
    pub fn is_on(&self) -> bool {
        !self.off
    }

    /// The pair indices stored for `key` (of hash `hash`), if any.
    #[inline]
    pub fn get(&mut self, hash: u64, key: &[u8]) -> Option<&[u32]> {
        let mut e = self.heads.get(&hash).copied().unwrap_or(NO_ENTRY);
        while e != NO_ENTRY {
            let entry = &self.entries[e as usize];
            if self.keys[entry.key.clone()] == *key {
                self.hits += 1;
                return Some(&self.pairs[entry.pairs.clone()]);
            }
            e = entry.next;
        }
        self.misses += 1;
        None
    }

    /// Stores `pairs` for `key` (a miss), unless the budget of key bytes is spent, or switches
    /// the cache off if it misses too often (see [`SerpCache`]).
    pub fn insert(&mut self, hash: u64, key: &[u8], pairs: &[u32]) {
        if self.misses >= SERP_TRIAL && self.hits * 2 < self.misses {
            *self = SerpCache { off: true, ..Default::default() };
        }
        if self.off || self.keys.len() + key.len() > SERP_KEY_BUDGET || self.entries.len() >= NO_ENTRY as usize {
            return;
        }
        let next = self.heads.insert(hash, self.entries.len() as u32).unwrap_or(NO_ENTRY);
        let (k, p) = (self.keys.len(), self.pairs.len());
        self.keys.extend_from_slice(key);
        self.pairs.extend_from_slice(pairs);
        self.entries.push(SerpEntry { key: k..self.keys.len(), pairs: p..self.pairs.len(), next });
    }

    /// Forgets every entry (keys of another column type mean other things).
    pub fn clear(&mut self) {
        *self = SerpCache { hits: self.hits, misses: self.misses, off: self.off, ..Default::default() };
    }
}

macro_rules! int_flags {
    ($array:expr, $range:expr, $out:expr, $t:ty) => {{
        let values = $array.as_primitive::<$t>().values();
        let start = $range.start;
        for (k, &v) in values[$range].iter().enumerate() {
            match v {
                0 => $out.push(false),
                1 => $out.push(true),
                x => return Err(ColumnError::NotFlag(start + k, x.to_string())),
            }
        }
    }};
}

/// Appends the flags in `range` of `array` (booleans, or integers that are 0 or 1) to `out`.
pub fn resolve_flags(array: &dyn Array, range: Range<usize>, out: &mut Vec<bool>) -> Result<(), ColumnError> {
    if let Some(i) = first_null(array, &range) {
        return Err(ColumnError::Null(i));
    }
    out.reserve(range.len());
    match array.data_type() {
        DataType::Boolean => {
            let v = array.as_boolean().values();
            out.extend(range.map(|i| v.value(i)));
        }
        DataType::Int8 => int_flags!(array, range, out, Int8Type),
        DataType::Int16 => int_flags!(array, range, out, Int16Type),
        DataType::Int32 => int_flags!(array, range, out, Int32Type),
        DataType::Int64 => int_flags!(array, range, out, Int64Type),
        DataType::UInt8 => int_flags!(array, range, out, UInt8Type),
        DataType::UInt16 => int_flags!(array, range, out, UInt16Type),
        DataType::UInt32 => int_flags!(array, range, out, UInt32Type),
        DataType::UInt64 => int_flags!(array, range, out, UInt64Type),
        other => return Err(ColumnError::Type(format!("expected booleans or 0/1 integers, found Arrow type {other}"))),
    }
    Ok(())
}

/// The offsets of a list column (List or LargeList) as `usize`, and its child values.
pub fn list_parts(array: &dyn Array) -> Result<(Vec<usize>, arrow_array::ArrayRef), ColumnError> {
    match array.data_type() {
        DataType::List(_) => {
            let l = array.as_list::<i32>();
            Ok((l.value_offsets().iter().map(|&o| o as usize).collect(), l.values().clone()))
        }
        DataType::LargeList(_) => {
            let l = array.as_list::<i64>();
            Ok((l.value_offsets().iter().map(|&o| o as usize).collect(), l.values().clone()))
        }
        other => Err(ColumnError::Type(format!("expected a list column (one list per row), found Arrow type {other}"))),
    }
}

/// The row of child value `j` of a list column with `offsets`.
pub fn row_of(offsets: &[usize], j: usize) -> usize {
    offsets.partition_point(|&o| o <= j).saturating_sub(1)
}

/// A column of click flags: booleans, or integers that are 0 or 1.
pub enum FlagColumn<'a> {
    /// Booleans.
    Bool(&'a BooleanArray),
    /// Integers of any width (0 or 1), with their nulls.
    Int(Ints<'a>, Option<&'a NullBuffer>),
}

impl<'a> FlagColumn<'a> {
    /// The column `array`, or the reason its type cannot hold flags.
    pub fn new(array: &'a dyn Array) -> Result<Self, ColumnError> {
        match array.data_type() {
            DataType::Boolean => Ok(FlagColumn::Bool(array.as_boolean())),
            other => match Ints::of(array) {
                Some(ints) => Ok(FlagColumn::Int(ints, array.nulls())),
                None => Err(ColumnError::Type(format!("expected booleans or 0/1 integers, found Arrow type {other}"))),
            },
        }
    }

    /// Flag `i`: `Ok(None)` when null, `Err` with the value as text when it is not 0 or 1.
    #[inline]
    pub fn get(&self, i: usize) -> Result<Option<bool>, String> {
        match self {
            FlagColumn::Bool(a) => Ok(a.is_valid(i).then(|| a.value(i))),
            FlagColumn::Int(v, nulls) => {
                if nulls.is_some_and(|n| n.is_null(i)) {
                    return Ok(None);
                }
                match v.at(i) {
                    0 => Ok(Some(false)),
                    1 => Ok(Some(true)),
                    x if v.signed => Err((x as i64).to_string()),
                    x => Err(x.to_string()),
                }
            }
        }
    }
}

/// A list column (List or LargeList): per row, a range into its child values.
pub enum ListColumn<'a> {
    /// `List` (32-bit offsets).
    Small(&'a arrow_array::GenericListArray<i32>),
    /// `LargeList` (64-bit offsets).
    Large(&'a arrow_array::GenericListArray<i64>),
}

impl<'a> ListColumn<'a> {
    /// The column `array`, or the reason it is not a list column.
    pub fn new(array: &'a dyn Array) -> Result<Self, ColumnError> {
        match array.data_type() {
            DataType::List(_) => Ok(ListColumn::Small(array.as_list::<i32>())),
            DataType::LargeList(_) => Ok(ListColumn::Large(array.as_list::<i64>())),
            other => Err(ColumnError::Type(format!("expected a list column (one list per row), found Arrow type {other}"))),
        }
    }

    /// The child values.
    pub fn values(&self) -> &'a ArrayRef {
        match self {
            ListColumn::Small(l) => l.values(),
            ListColumn::Large(l) => l.values(),
        }
    }

    /// The child range of row `i`, `None` when the row's list is null.
    #[inline]
    pub fn range(&self, i: usize) -> Option<Range<usize>> {
        match self {
            ListColumn::Small(l) if l.is_null(i) => None,
            ListColumn::Large(l) if l.is_null(i) => None,
            ListColumn::Small(l) => {
                let o = l.value_offsets();
                Some(o[i] as usize..o[i + 1] as usize)
            }
            ListColumn::Large(l) => {
                let o = l.value_offsets();
                Some(o[i] as usize..o[i + 1] as usize)
            }
        }
    }
}

/// The sessions of `batches` (columns `query_id`, `docs` and, when present, `clicks`; a table
/// without `clicks` gives sessions without clicks), interned into `vocab` in row order. A
/// session whose query and documents were read before takes its pair indices from a
/// [`SerpCache`]; the others are interned id by id. Errors read `WHAT: row N: reason` (rows
/// 0-based over all batches) or `WHAT: column C: reason`.
pub fn intern_batches(batches: &[RecordBatch], vocab: &mut Vocab, what: &str) -> Result<ClickLog, String> {
    let mut log = ClickLog::new();
    let (mut qcache, mut dcache) = (IdCache::default(), IdCache::default());
    let mut pair_cache = PairCache::default();
    let mut serps = SerpCache::default();
    let mut serps_type = None;
    let (mut qs, mut ds, mut cs, mut pairs, mut key) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut row_base = 0usize;
    let col_err = |col: &str, e: ColumnError, row: &dyn Fn(usize) -> usize| match e {
        ColumnError::Null(j) => format!("{what}: row {}: {col} is null", row(j)),
        ColumnError::NotFlag(j, v) => format!("{what}: row {}: click flag {v} is not 0 or 1", row(j)),
        ColumnError::Type(t) => format!("{what}: column {col}: {t}"),
    };
    for batch in batches {
        let n = batch.num_rows();
        if n == 0 {
            continue;
        }
        let missing = |c: &str| format!("{what}: missing column `{c}`");
        let q_col = batch.column_by_name("query_id").ok_or_else(|| missing("query_id"))?;
        let docs_col = batch.column_by_name("docs").ok_or_else(|| missing("docs"))?;
        let here = |j: usize| row_base + j;
        qs.clear();
        IdColumn::new(q_col.as_ref())
            .and_then(|mut c| c.resolve(0..n, &mut qcache, &mut |s: &str| vocab.intern_query(s), &mut qs))
            .map_err(|e| col_err("`query_id`", e, &here))?;
        let (doffs, dvalues) = list_parts(docs_col.as_ref()).map_err(|e| col_err("`docs`", e, &here))?;
        if let Some(i) = first_null(docs_col.as_ref(), &(0..n)) {
            return Err(format!("{what}: row {}: `docs` is null", row_base + i));
        }
        let d_row = |j: usize| row_base + row_of(&doffs, j);
        let d_err = |e| match e {
            ColumnError::Null(j) => format!("{what}: row {}: a document id is null", d_row(j)),
            e => col_err("`docs` (its items)", e, &d_row),
        };
        let mut dcol = IdColumn::new(dvalues.as_ref()).map_err(d_err)?;
        let clicks = match batch.column_by_name("clicks") {
            Some(c) => {
                let (coffs, cvalues) = list_parts(c.as_ref()).map_err(|e| col_err("`clicks`", e, &here))?;
                if let Some(i) = first_null(c.as_ref(), &(0..n)) {
                    return Err(format!("{what}: row {}: `clicks` is null", row_base + i));
                }
                for i in 0..n {
                    let (nc, nd) = (coffs[i + 1] - coffs[i], doffs[i + 1] - doffs[i]);
                    if nc != nd {
                        return Err(format!("{what}: row {}: {nc} clicks for {nd} documents; `clicks` must align with `docs`", row_base + i));
                    }
                }
                let c_row = |j: usize| row_base + row_of(&coffs, j);
                cs.clear();
                resolve_flags(cvalues.as_ref(), coffs[0]..coffs[n], &mut cs).map_err(|e| match e {
                    ColumnError::Null(j) => format!("{what}: row {}: a click flag is null", c_row(j)),
                    e => col_err("`clicks` (its items)", e, &c_row),
                })?;
                true
            }
            None => false,
        };
        // Key bytes mean the same thing only within one Arrow type of document ids.
        if serps_type.as_ref() != Some(dvalues.data_type()) {
            serps.clear();
            serps_type = Some(dvalues.data_type().clone());
        }
        log.queries.reserve(n);
        log.offsets.reserve(n);
        log.pairs.reserve(doffs[n] - doffs[0]);
        log.clicks.reserve(doffs[n] - doffs[0]);
        let no_clicks = vec![false; doffs.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)];
        for i in 0..n {
            let q = qs[i];
            let c = if clicks { &cs[doffs[i] - doffs[0]..doffs[i + 1] - doffs[0]] } else { &no_clicks[..doffs[i + 1] - doffs[i]] };
            key.clear();
            key.extend_from_slice(&q.to_ne_bytes());
            let keyed = serps.is_on() && dcol.append_keys(doffs[i]..doffs[i + 1], &mut key);
            let hash = keyed.then(|| SerpCache::hash(&key));
            if let Some(p) = hash.and_then(|h| serps.get(h, &key)) {
                log.push(q, p, c);
                continue;
            }
            ds.clear();
            dcol.resolve(doffs[i]..doffs[i + 1], &mut dcache, &mut |s: &str| vocab.intern_doc(s), &mut ds).map_err(d_err)?;
            pairs.clear();
            pairs.extend(ds.iter().map(|&d| pair_cache.get(q, d, || vocab.intern_pair(q, d))));
            log.push(q, &pairs, c);
            if let Some(h) = hash {
                serps.insert(h, &key, &pairs);
            }
        }
        row_base += n;
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{DictionaryArray, Int64Array, StringArray, UInt8Array};

    fn resolve<F: FnMut(&str) -> u32>(
        array: &dyn Array,
        range: Range<usize>,
        cache: &mut IdCache,
        intern: &mut F,
        out: &mut Vec<u32>,
    ) -> Result<(), ColumnError> {
        IdColumn::new(array)?.resolve(range, cache, intern, out)
    }

    fn key_of(array: &dyn Array, range: Range<usize>) -> Option<Vec<u8>> {
        let mut key = Vec::new();
        IdColumn::new(array).unwrap().append_keys(range, &mut key).then_some(key)
    }

    fn intern_into(names: &mut Vec<String>) -> impl FnMut(&str) -> u32 + '_ {
        move |s: &str| match names.iter().position(|n| n == s) {
            Some(i) => i as u32,
            None => {
                names.push(s.to_string());
                (names.len() - 1) as u32
            }
        }
    }

    // Hand derivation: ids are interned in first-seen row order whatever the encoding, so
    // ["b", "a", "b", "c"] gives indices [0, 1, 0, 2] and the vocabulary ["b", "a", "c"].
    #[test]
    fn strings_ints_and_dictionaries_intern_in_row_order() {
        let strs = StringArray::from(vec!["b", "a", "b", "c"]);
        let mut names = Vec::new();
        let mut out = Vec::new();
        resolve(&strs, 0..4, &mut IdCache::default(), &mut intern_into(&mut names), &mut out).unwrap();
        assert_eq!((out, names), (vec![0, 1, 0, 2], vec!["b".to_string(), "a".into(), "c".into()]));

        let ints = Int64Array::from(vec![-7, 12, -7, 3]);
        let (mut names, mut out) = (Vec::new(), Vec::new());
        resolve(&ints, 1..4, &mut IdCache::default(), &mut intern_into(&mut names), &mut out).unwrap();
        assert_eq!((out, names), (vec![0, 1, 2], vec!["12".to_string(), "-7".into(), "3".into()]));

        // Dictionary ["x", "unused", "y"]; rows use keys 2, 0, 2: "unused" never enters.
        let dict = DictionaryArray::new(UInt8Array::from(vec![2, 0, 2]), std::sync::Arc::new(StringArray::from(vec!["x", "unused", "y"])));
        let (mut names, mut out) = (Vec::new(), Vec::new());
        resolve(&dict, 0..3, &mut IdCache::default(), &mut intern_into(&mut names), &mut out).unwrap();
        assert_eq!((out, names), (vec![0, 1, 0], vec!["y".to_string(), "x".into()]));
    }

    // Hand derivation: the cache answers what the interner answered first, for small and
    // large queries (more than SMALL documents switch to a map), and asks it once per pair.
    #[test]
    fn pair_cache_returns_the_interned_index_once_per_pair() {
        let mut cache = PairCache::default();
        let mut calls = 0u32;
        for round in 0..2 {
            for q in [0u32, 5] {
                for d in 0..(SMALL as u32 + 8) {
                    let p = cache.get(q, d, || {
                        calls += 1;
                        q * 1000 + d
                    });
                    assert_eq!(p, q * 1000 + d, "round {round}");
                }
            }
        }
        assert_eq!(calls, 2 * (SMALL as u32 + 8));
    }

    // Hand derivation: a key tells values apart exactly (["ab", "c"] is not ["a", "bc"]; a
    // null, or a dictionary row whose value is null, has no key), and equal rows have equal
    // keys whatever the encoding of strings.
    #[test]
    fn keys_identify_rows_of_values() {
        let strs = StringArray::from(vec![Some("ab"), Some("c"), Some("a"), Some("bc"), Some("ab"), Some("c"), None]);
        assert_ne!(key_of(&strs, 0..2), key_of(&strs, 2..4));
        assert_eq!(key_of(&strs, 0..2), key_of(&strs, 4..6));
        assert_eq!(key_of(&strs, 5..7), None);
        let large = arrow_array::LargeStringArray::from(vec!["ab", "c"]);
        assert_eq!(key_of(&large, 0..2), key_of(&strs, 0..2));
        let ints = Int64Array::from(vec![5, 7, 5, 8]);
        assert_ne!(key_of(&ints, 0..2), key_of(&ints, 2..4));
        assert_eq!(key_of(&ints, 0..1), key_of(&ints, 2..3));
        let dict = DictionaryArray::new(UInt8Array::from(vec![0, 1, 0, 1, 2]), std::sync::Arc::new(StringArray::from(vec![Some("ab"), Some("c"), None])));
        assert_eq!(key_of(&dict, 0..2), key_of(&dict, 2..4));
        assert_ne!(key_of(&dict, 0..2), key_of(&dict, 1..3));
        assert_eq!(key_of(&dict, 3..5), None);
    }

    // Hand derivation: the cache answers each key with the pairs stored for it, and nothing
    // for a key not stored, also when two keys share a hash (forced here).
    #[test]
    fn serp_cache_answers_stored_keys_only() {
        let mut cache = SerpCache::default();
        assert_eq!(cache.get(SerpCache::hash(b"k1"), b"k1"), None);
        cache.insert(SerpCache::hash(b"k1"), b"k1", &[1, 2]);
        cache.insert(7, b"k2", &[3]);
        cache.insert(7, b"k3", &[4, 5, 6]);
        assert_eq!(cache.get(SerpCache::hash(b"k1"), b"k1"), Some(&[1, 2][..]));
        assert_eq!(cache.get(7, b"k2"), Some(&[3][..]));
        assert_eq!(cache.get(7, b"k3"), Some(&[4, 5, 6][..]));
        assert_eq!(cache.get(7, b"k4"), None);
        cache.clear();
        assert_eq!(cache.get(7, b"k2"), None);
    }

    // Hand derivation from the rule: SERP_TRIAL misses with fewer than half as many hits
    // switch the cache off (nothing stored, nothing found); as many hits as misses keep it on.
    #[test]
    fn serp_cache_switches_off_when_lists_rarely_repeat() {
        let mut rare = SerpCache::default();
        let mut often = SerpCache::default();
        for i in 0..=SERP_TRIAL as u64 {
            let key = i.to_ne_bytes();
            for cache in [&mut rare, &mut often] {
                let h = SerpCache::hash(&key);
                assert_eq!(cache.get(h, &key), None);
                cache.insert(h, &key, &[i as u32]);
            }
            let h = SerpCache::hash(&key);
            assert_eq!(often.get(h, &key), Some(&[i as u32][..]));
        }
        assert!(!rare.is_on() && often.is_on());
        let key = 0u64.to_ne_bytes();
        assert_eq!(rare.get(SerpCache::hash(&key), &key), None);
        assert_eq!(often.get(SerpCache::hash(&key), &key), Some(&[0][..]));
    }

    #[test]
    fn nulls_and_bad_flags_are_located() {
        let strs = StringArray::from(vec![Some("a"), None]);
        let r = resolve(&strs, 0..2, &mut IdCache::default(), &mut |_: &str| 0, &mut Vec::new());
        assert!(matches!(r, Err(ColumnError::Null(1))));
        let flags = Int64Array::from(vec![0, 1, 2]);
        let r = resolve_flags(&flags, 0..3, &mut Vec::new());
        assert!(matches!(r, Err(ColumnError::NotFlag(2, ref v)) if v == "2"));
        assert_eq!(row_of(&[0, 3, 3, 5], 3), 2);
        assert_eq!(row_of(&[0, 3, 3, 5], 2), 0);
    }

    // Hand derivation: text of each id type (integers in decimal, signed or not, through a
    // dictionary too), nulls as None, and equality of runs (the same values under other
    // dictionary keys are equal; a null is never equal).
    #[test]
    fn text_nulls_and_runs_of_ids() {
        let mut tmp = [0u8; 24];
        let ints = Int64Array::from(vec![Some(-42), None, Some(7), Some(-42)]);
        let c = IdColumn::new(&ints).unwrap();
        assert_eq!(c.get(0, &mut tmp), Some("-42"));
        assert_eq!(c.get(1, &mut tmp), None);
        assert!(c.is_null(1) && !c.is_null(0));
        assert!(c.same(0, 3) && !c.same(0, 2) && !c.same(1, 1));
        let big = arrow_array::UInt64Array::from(vec![u64::MAX]);
        assert_eq!(IdColumn::new(&big).unwrap().get(0, &mut tmp), Some("18446744073709551615"));
        let dict = DictionaryArray::new(
            UInt8Array::from(vec![Some(0), Some(1), Some(2), Some(0), Some(1), None, Some(3)]),
            std::sync::Arc::new(StringArray::from(vec![Some("a"), Some("b"), Some("a"), None])),
        );
        let c = IdColumn::new(&dict).unwrap();
        assert_eq!(c.get(1, &mut tmp), Some("b"));
        assert_eq!(c.get(2, &mut tmp), Some("a"));
        assert!(c.is_null(5) && c.is_null(6) && c.get(6, &mut tmp).is_none());
        assert!(c.same_run(0..2, 3..5), "same keys");
        assert!(!c.same_run(0..2, 2..4), "b against a");
        assert!(c.same(0, 2), "equal values under other keys");
        assert!(!c.same_run(3..5, 4..6), "a null");
        let strs = StringArray::from(vec!["x", "y", "x", "y"]);
        assert!(IdColumn::new(&strs).unwrap().same_run(0..2, 2..4));
    }

    // Hand derivation: flags are booleans or 0/1 integers; 2 and -1 are refused with their
    // text; a null is None; floats and strings are not flag columns.
    #[test]
    fn flags_and_lists() {
        let f = Int64Array::from(vec![Some(0), Some(1), None, Some(2), Some(-1)]);
        let c = FlagColumn::new(&f).unwrap();
        assert_eq!((c.get(0), c.get(1), c.get(2)), (Ok(Some(false)), Ok(Some(true)), Ok(None)));
        assert_eq!((c.get(3), c.get(4)), (Err("2".to_string()), Err("-1".to_string())));
        let b = arrow_array::BooleanArray::from(vec![Some(true), None]);
        let c = FlagColumn::new(&b).unwrap();
        assert_eq!((c.get(0), c.get(1)), (Ok(Some(true)), Ok(None)));
        assert!(matches!(FlagColumn::new(&arrow_array::Float64Array::from(vec![1.0])), Err(ColumnError::Type(_))));
        assert!(matches!(FlagColumn::new(&strs_of(&["1"])), Err(ColumnError::Type(_))));
        let l = arrow_array::ListArray::from_iter_primitive::<arrow_array::types::Int32Type, _, _>(vec![Some(vec![Some(1), Some(2)]), None, Some(vec![])]);
        let c = ListColumn::new(&l).unwrap();
        assert_eq!((c.range(0), c.range(1), c.range(2)), (Some(0..2), None, Some(2..2)));
        assert_eq!(c.values().len(), 2);
        assert!(matches!(ListColumn::new(&strs_of(&["a"])), Err(ColumnError::Type(_))));
    }

    fn strs_of(v: &[&str]) -> StringArray {
        StringArray::from(v.to_vec())
    }

    // Hand derivation: rows (q1; d1 d2; 0 1), (q2; d2; 1), (q1; d1 d2; 1 0) give queries
    // [0, 1, 0], pairs (q1,d1)=0, (q1,d2)=1, (q2,d2)=2, so pair rows [0 1], [2], [0 1]; the
    // vocabulary holds q1, q2 and d1, d2 in first-seen order. A row whose clicks do not align
    // with its documents is an error that names the row.
    #[test]
    fn batches_intern_in_row_order() {
        use arrow_array::builder::{BooleanBuilder, ListBuilder, StringBuilder};
        let mut docs = ListBuilder::new(StringBuilder::new());
        let mut clicks = ListBuilder::new(BooleanBuilder::new());
        for (d, c) in [(&["d1", "d2"][..], &[false, true][..]), (&["d2"], &[true]), (&["d1", "d2"], &[true, false])] {
            d.iter().for_each(|x| docs.values().append_value(x));
            docs.append(true);
            c.iter().for_each(|&x| clicks.values().append_value(x));
            clicks.append(true);
        }
        let q: ArrayRef = std::sync::Arc::new(StringArray::from(vec!["q1", "q2", "q1"]));
        let batch = RecordBatch::try_from_iter(vec![
            ("query_id", q.clone()),
            ("docs", std::sync::Arc::new(docs.finish()) as ArrayRef),
            ("clicks", std::sync::Arc::new(clicks.finish()) as ArrayRef),
        ])
        .unwrap();
        let mut vocab = Vocab::default();
        let log = intern_batches(&[batch], &mut vocab, "log").unwrap();
        assert_eq!(log.queries, vec![0, 1, 0]);
        assert_eq!(log.pairs, vec![0, 1, 2, 0, 1]);
        assert_eq!(log.clicks, vec![false, true, true, true, false]);
        assert_eq!((vocab.queries.clone(), vocab.pair_count()), (vec!["q1".to_string(), "q2".into()], 3));

        let mut docs = ListBuilder::new(StringBuilder::new());
        docs.values().append_value("d1");
        docs.append(true);
        let mut clicks = ListBuilder::new(BooleanBuilder::new());
        clicks.append(true);
        let q: ArrayRef = std::sync::Arc::new(StringArray::from(vec!["q1"]));
        let bad = RecordBatch::try_from_iter(vec![
            ("query_id", q),
            ("docs", std::sync::Arc::new(docs.finish()) as ArrayRef),
            ("clicks", std::sync::Arc::new(clicks.finish()) as ArrayRef),
        ])
        .unwrap();
        let e = intern_batches(&[bad], &mut Vocab::default(), "log").unwrap_err();
        assert_eq!(e, "log: row 0: 0 clicks for 1 documents; `clicks` must align with `docs`");
    }
}
