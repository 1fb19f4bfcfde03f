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
//! the one the CLI's text readers build from the same sessions.

use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::Array;
use arrow_schema::DataType;
use rustc_hash::FxHashMap;
use std::fmt::Write;
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
fn first_null(array: &dyn Array, range: &Range<usize>) -> Option<usize> {
    if array.null_count() == 0 {
        return None;
    }
    range.clone().find(|&i| array.is_null(i))
}

macro_rules! ints {
    ($array:expr, $range:expr, $cache:expr, $intern:expr, $out:expr, $t:ty, $wide:ty) => {{
        let values = $array.as_primitive::<$t>().values();
        let IdCache { ints, text } = $cache;
        for &v in &values[$range] {
            let wide = v as $wide;
            let key = wide as u64;
            let i = match ints.get(&key) {
                Some(&i) => i,
                None => {
                    text.clear();
                    let _ = write!(text, "{wide}");
                    let i = $intern(text.as_str());
                    ints.insert(key, i);
                    i
                }
            };
            $out.push(i);
        }
    }};
}

/// Appends the vocabulary index of each value in `range` of `array` to `out`, interning ids
/// not seen yet with `intern` (called once per distinct integer or dictionary value, once
/// per value for plain strings, which the vocabulary looks up without allocating).
pub fn resolve_ids<F: FnMut(&str) -> u32>(
    array: &dyn Array,
    range: Range<usize>,
    cache: &mut IdCache,
    intern: &mut F,
    out: &mut Vec<u32>,
) -> Result<(), ColumnError> {
    if let Some(i) = first_null(array, &range) {
        return Err(ColumnError::Null(i));
    }
    out.reserve(range.len());
    match array.data_type() {
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            out.extend(range.map(|i| intern(a.value(i))));
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            out.extend(range.map(|i| intern(a.value(i))));
        }
        DataType::Utf8View => {
            let a = array.as_string_view();
            out.extend(range.map(|i| intern(a.value(i))));
        }
        DataType::Int8 => ints!(array, range, cache, intern, out, Int8Type, i64),
        DataType::Int16 => ints!(array, range, cache, intern, out, Int16Type, i64),
        DataType::Int32 => ints!(array, range, cache, intern, out, Int32Type, i64),
        DataType::Int64 => ints!(array, range, cache, intern, out, Int64Type, i64),
        DataType::UInt8 => ints!(array, range, cache, intern, out, UInt8Type, u64),
        DataType::UInt16 => ints!(array, range, cache, intern, out, UInt16Type, u64),
        DataType::UInt32 => ints!(array, range, cache, intern, out, UInt32Type, u64),
        DataType::UInt64 => ints!(array, range, cache, intern, out, UInt64Type, u64),
        DataType::Dictionary(_, _) => {
            let dict = array.as_any_dictionary();
            let keys = dict.normalized_keys();
            let values = dict.values();
            // Each dictionary value is interned when a row first uses it (row order), with
            // its own cache: the dictionary's values are another column as far as types go.
            let mut map = vec![u32::MAX; values.len()];
            let mut inner = IdCache::default();
            let mut one = Vec::with_capacity(1);
            for i in range {
                let k = keys[i];
                if map[k] == u32::MAX {
                    one.clear();
                    resolve_ids(values.as_ref(), k..k + 1, &mut inner, intern, &mut one).map_err(|e| match e {
                        ColumnError::Null(_) => ColumnError::Null(i),
                        e => e,
                    })?;
                    map[k] = one[0];
                }
                out.push(map[k]);
            }
        }
        other => return Err(ColumnError::Type(format!("expected strings or integers, found Arrow type {other}"))),
    }
    Ok(())
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
        resolve_ids(&strs, 0..4, &mut IdCache::default(), &mut intern_into(&mut names), &mut out).unwrap();
        assert_eq!((out, names), (vec![0, 1, 0, 2], vec!["b".to_string(), "a".into(), "c".into()]));

        let ints = Int64Array::from(vec![-7, 12, -7, 3]);
        let (mut names, mut out) = (Vec::new(), Vec::new());
        resolve_ids(&ints, 1..4, &mut IdCache::default(), &mut intern_into(&mut names), &mut out).unwrap();
        assert_eq!((out, names), (vec![0, 1, 2], vec!["12".to_string(), "-7".into(), "3".into()]));

        // Dictionary ["x", "unused", "y"]; rows use keys 2, 0, 2: "unused" never enters.
        let dict = DictionaryArray::new(UInt8Array::from(vec![2, 0, 2]), std::sync::Arc::new(StringArray::from(vec!["x", "unused", "y"])));
        let (mut names, mut out) = (Vec::new(), Vec::new());
        resolve_ids(&dict, 0..3, &mut IdCache::default(), &mut intern_into(&mut names), &mut out).unwrap();
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

    #[test]
    fn nulls_and_bad_flags_are_located() {
        let strs = StringArray::from(vec![Some("a"), None]);
        let r = resolve_ids(&strs, 0..2, &mut IdCache::default(), &mut |_: &str| 0, &mut Vec::new());
        assert!(matches!(r, Err(ColumnError::Null(1))));
        let flags = Int64Array::from(vec![0, 1, 2]);
        let r = resolve_flags(&flags, 0..3, &mut Vec::new());
        assert!(matches!(r, Err(ColumnError::NotFlag(2, ref v)) if v == "2"));
        assert_eq!(row_of(&[0, 3, 3, 5], 3), 2);
        assert_eq!(row_of(&[0, 3, 3, 5], 2), 0);
    }
}
