//! Whole-column reading of id and flag columns from Arrow buffers, for the hot paths (click
//! logs from DataFrames). Each column is converted in one pass with the type dispatched once
//! per column, not per value, and without a Python object or an allocation per value:
//!
//! - strings (Utf8, LargeUtf8, Utf8View) are looked up as `&str` slices of the Arrow buffers;
//! - integers are keyed by their 64-bit value in a cache, so each distinct id is formatted in
//!   decimal and interned once (the vocabulary then holds the same text the CLI reads);
//! - dictionary-encoded columns (pandas categoricals, Parquet dictionaries) intern each
//!   dictionary value the first time a row uses it.
//!
//! Interning happens in row order, so the vocabulary (and the model file written from it) is
//! the one the CLI's text readers build from the same sessions. A [`SerpCache`] skips the
//! interning of result lists already read (which would intern nothing new).

use arrow_array::cast::AsArray;
use arrow_array::types::{ArrowPrimitiveType, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, GenericStringArray, LargeStringArray, OffsetSizeTrait, StringArray, StringViewArray};
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
    Dict { keys: Ints<'a>, values: Box<IdColumn<'a>>, map: Vec<u32>, cache: IdCache },
}

/// An integer array read in place: the values' native bytes, `width` bytes each.
#[derive(Clone, Copy)]
struct Ints<'a> {
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
                Kind::Dict { keys, map: vec![u32::MAX; values.len()], values: Box::new(IdColumn::new(values)?), cache: IdCache::default() }
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

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{DictionaryArray, Int64Array, StringArray, UInt8Array};

    fn resolve<F: FnMut(&str) -> u32>(array: &dyn Array, range: Range<usize>, cache: &mut IdCache, intern: &mut F, out: &mut Vec<u32>) -> Result<(), ColumnError> {
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
}
