//! Parquet click logs read page by page, straight into dense ids, for the streamed fits
//! ([`super::FileSource`]).
//!
//! The general reader ([`super::columnar`]) decodes record batches through the Arrow reader
//! and hands every session out as text, which is then interned again. For the layout click
//! logs nearly always have (a query column, a list of document ids and a list of click flags,
//! ids dictionary-encoded by the writer) that costs three times more than the fit. This reader
//! takes the Parquet pages themselves (decompressed by the `parquet` crate) and decodes them
//! here:
//!
//! - repetition levels are read as a bitmap (one bit per list element for the usual
//!   `max_rep_level` 1), so a list boundary costs a bit scan, not a decoded level;
//! - definition levels that are one run of "present" (no nulls in the page) are never expanded;
//! - dictionary pages are interned once per entry (on first use, so the vocabulary is numbered
//!   in the order the general reader numbers it), and data pages are decoded as keys;
//! - result lists already seen (same query, same documents) take their pair ids from a bounded
//!   cache instead of interning every (query, document) pair again.
//!
//! Only the three columns a fit uses are read; columns such as `dwell` or `timestamp` are not
//! opened (and not checked), the same as the general reader does for a streamed fit. Files
//! this reader does not handle (a `positions` column, other encodings such as
//! `DELTA_BYTE_ARRAY`, binary or nested id columns) are left to the general reader: the
//! decision is taken from the file's metadata, before any session is handed out. Rows the
//! general reader would reject (null or empty ids, null lists, unequal list lengths, click
//! flags other than 0/1) stop the read with the general reader's message (`file: row N:
//! reason`); with `--skip-bad-lines` the general reader is used.

use super::columnar::{self, ColumnMap, Container};
use super::{Format, ReadReport, SessionRef, Vocab};
use crate::error::{Error, Result};
use parquet::basic::{ConvertedType, Encoding, LogicalType, Repetition, Type as Physical};
use parquet::column::page::{Page, PageReader};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::Type;
use rustc_hash::FxHashMap;
use std::io::Read;
use std::path::Path;

/// Rows decoded and handed out per step.
const BATCH_ROWS: usize = 4096;
/// No mark: every element of the row is present.
const NO_MARK: u32 = u32::MAX;
/// Mark of a null row (a null query, or a null list).
const NULL_ROW: u32 = u32::MAX - 1;
/// Id of a value that is empty once trimmed (the general reader rejects it).
const EMPTY_ID: u32 = u32::MAX;
/// Id of a dictionary entry not yet interned.
const UNRESOLVED: u32 = u32::MAX - 1;
/// Marks a dictionary key beyond the dictionary (while mapping keys).
const OUT_OF_RANGE: u32 = u32::MAX - 2;
/// A click flag that is neither 0 nor 1 (its value is kept in `Cursor::bad_flags`).
const BAD_FLAG: u32 = 2;
/// Size of the result-list cache (query and document ids plus pair ids, `u32`s) before it is
/// emptied: about 16 MB, whatever the number of sessions.
const CACHE_WORDS: usize = 2 << 20;

/// What the values of a column are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// UTF-8 strings (`BYTE_ARRAY`, logical type String).
    Text,
    /// Integers, read as their decimal text (signed or not, as the logical type says).
    Int { unsigned: bool },
    /// Booleans (click flags only).
    Bool,
}

/// The role a leaf column plays here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Query,
    Docs,
    Clicks,
}

/// One leaf column to read.
#[derive(Debug, Clone)]
struct Leaf {
    index: usize,
    name: String,
    role: Role,
    kind: Kind,
    physical: Physical,
    max_def: i16,
    /// Definition level of the repeated node (lists), 0 for the query.
    list_def: i16,
    repeated: bool,
}

/// Reads `path` page by page if it is a plain Parquet file in a layout this reader handles,
/// calling `f` on every session; `Ok(None)` (nothing read, nothing interned) when the general
/// reader must be used instead.
pub(crate) fn pass(path: &Path, format: &Format, skip_bad_lines: bool, vocab: &mut Vocab, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<Option<ReadReport>> {
    let map = match format {
        Format::Columnar(Container::Parquet, m) => m.clone(),
        Format::Auto => ColumnMap::default(),
        _ => return Ok(None),
    };
    if skip_bad_lines || crate::input::is_stdin(path) {
        return Ok(None);
    }
    let name = path.display().to_string();
    let Ok(mut file) = std::fs::File::open(path) else { return Ok(None) };
    let mut magic = [0u8; 4];
    if file.read_exact(&mut magic).is_err() || &magic != b"PAR1" || !file.metadata().is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    // The decoder is third-party code: a panic on a corrupt file becomes an error (the
    // vocabulary may then hold ids of the rows before; the run fails and writes nothing).
    let run = crate::error::catch_decoder_panic(|| -> Result<Option<ReadReport>> {
        let Ok(reader) = SerializedFileReader::new(file) else { return Ok(None) };
        let Some(leaves) = plan(&name, &reader, &map)? else { return Ok(None) };
        let mut report = ReadReport { format: Some(Format::Columnar(Container::Parquet, map.clone())), ..Default::default() };
        read_all(&name, &reader, &leaves, vocab, &mut report, f)?;
        Ok(Some(report))
    });
    match run {
        Ok(Ok(Some(report))) => super::read::finish(&name, report).map(Some),
        Ok(other) => other,
        Err(_) => Err(Error::Invalid(format!("{name}: not a readable parquet file (the decoder failed)"))),
    }
}

/// The query, documents and clicks leaves of the file, or None when the layout is not one
/// this reader handles. Errors are those of the general reader (a missing column).
fn plan(name: &str, reader: &SerializedFileReader<std::fs::File>, map: &ColumnMap) -> Result<Option<[Leaf; 3]>> {
    let meta = reader.metadata();
    let descr = meta.file_metadata().schema_descr();
    let Ok(schema) = parquet::arrow::parquet_to_arrow_schema(descr, meta.file_metadata().key_value_metadata()) else {
        return Ok(None);
    };
    let cols = map.resolve(name, &schema)?;
    if cols[columnar::POSITIONS].is_some() {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(3);
    for (role, r) in [(Role::Query, columnar::QUERY), (Role::Docs, columnar::DOCS), (Role::Clicks, columnar::CLICKS)] {
        let root = cols[r].expect("required role resolved");
        let leaves: Vec<usize> = (0..descr.num_columns()).filter(|&i| descr.get_column_root_idx(i) == root).collect();
        let [index] = leaves[..] else { return Ok(None) };
        let col = descr.column(index);
        let repeated = role != Role::Query;
        if col.max_rep_level() != i16::from(repeated) {
            return Ok(None);
        }
        let Some(list_def) = list_def(descr.get_column_root(index), repeated) else { return Ok(None) };
        let logical = col.logical_type_ref();
        let kind = match col.physical_type() {
            Physical::BYTE_ARRAY if matches!(logical, Some(LogicalType::String)) || (logical.is_none() && col.converted_type() == ConvertedType::UTF8) => {
                Kind::Text
            }
            Physical::INT32 | Physical::INT64 => match logical {
                None if col.converted_type() == ConvertedType::NONE => Kind::Int { unsigned: false },
                Some(LogicalType::Integer(t)) => Kind::Int { unsigned: !t.is_signed },
                _ => return Ok(None),
            },
            Physical::BOOLEAN if role == Role::Clicks && logical.is_none() => Kind::Bool,
            _ => return Ok(None),
        };
        if role == Role::Clicks && kind == Kind::Text {
            return Ok(None);
        }
        out.push(Leaf {
            index,
            name: schema.field(root).name().clone(),
            role,
            kind,
            physical: col.physical_type(),
            max_def: col.max_def_level(),
            list_def,
            repeated,
        });
    }
    // Every chunk must use encodings decoded here.
    let known = [Encoding::PLAIN, Encoding::PLAIN_DICTIONARY, Encoding::RLE_DICTIONARY, Encoding::RLE];
    for rg in meta.row_groups() {
        for leaf in &out {
            if rg.column(leaf.index).encodings().any(|e| !known.contains(&e)) {
                return Ok(None);
            }
        }
    }
    Ok(out.try_into().ok())
}

/// Definition level of the repeated node of a list column (the root `root`, a LIST group or
/// a repeated primitive), 0 for a flat column; None for other shapes (structs, nested lists).
fn list_def(root: &Type, repeated: bool) -> Option<i16> {
    let info = root.get_basic_info();
    let own = i16::from(info.repetition() != Repetition::REQUIRED);
    if !repeated {
        return (!root.is_group()).then_some(0);
    }
    if info.repetition() == Repetition::REPEATED {
        return (!root.is_group()).then_some(1);
    }
    let [child] = root.get_fields() else { return None };
    let ci = child.get_basic_info();
    if !root.is_group() || ci.repetition() != Repetition::REPEATED {
        return None;
    }
    let at = own + 1;
    if !child.is_group() {
        return Some(at);
    }
    match child.get_fields() {
        [leaf] if !leaf.is_group() => Some(at),
        _ => None,
    }
}

/// Every row group, in order.
#[inline(never)]
fn read_all(
    name: &str,
    reader: &SerializedFileReader<std::fs::File>,
    leaves: &[Leaf; 3],
    vocab: &mut Vocab,
    report: &mut ReadReport,
    f: &mut dyn FnMut(SessionRef<'_>),
) -> Result<()> {
    let corrupt = |e: parquet::errors::ParquetError| Error::Invalid(format!("{name}: not a readable parquet file: {e}"));
    let mut cache = SerpCache::default();
    let mut row = 0usize;
    for g in 0..reader.num_row_groups() {
        let rg = reader.get_row_group(g).map_err(corrupt)?;
        let rows = rg.metadata().num_rows() as usize;
        let mut cur: Vec<Cursor> =
            leaves.iter().map(|l| Ok(Cursor::new(l.clone(), rg.get_column_page_reader(l.index).map_err(corrupt)?))).collect::<Result<_>>()?;
        let mut left = rows;
        while left > 0 {
            crate::interrupt::check()?;
            let want = left.min(BATCH_ROWS);
            for c in cur.iter_mut() {
                c.fill(name, want, row, vocab)?;
                if c.ready() < want {
                    return Err(Error::Invalid(format!(
                        "{name}: row group {}: column `{}` has fewer rows than the {rows} the file declares",
                        g + 1,
                        c.leaf.name
                    )));
                }
            }
            let [q, d, c] = &mut cur[..] else { unreachable!("three columns") };
            for _ in 0..want {
                row += 1;
                let (_, qmark, qv) = q.next_row();
                let (n, dmark, dv) = d.next_row();
                let (m, cmark, cv) = c.next_row();
                let err = |reason: String| Err(Error::Invalid(format!("{name}: row {row}: {reason}")));
                if qmark != NO_MARK {
                    return err("null query id".into());
                }
                let qid = q.vals[qv];
                if qid == EMPTY_ID {
                    return err("empty query id".into());
                }
                if dmark == NULL_ROW {
                    return err("null document list".into());
                }
                if n == 0 {
                    return err("the document list is empty".into());
                }
                if cmark == NULL_ROW {
                    return err("null click list".into());
                }
                if m != n {
                    return err(format!("{n} documents but {m} click flags"));
                }
                let docs = &d.vals[dv..dv + n.min(dmark as usize)];
                // Integer flags keep their values (a bad one is reported); booleans are
                // decoded straight into `bools`.
                let flags = if c.leaf.kind == Kind::Bool { &[][..] } else { &c.vals[cv..cv + n.min(cmark as usize)] };
                if !(dmark == NO_MARK && cmark == NO_MARK && !d.odd && !c.odd) {
                    // Something is wrong in this row or the ones decoded with it: check the
                    // elements in the general reader's order.
                    for k in 0..n {
                        if k == dmark as usize {
                            return err(format!("null document id at list index {}", k + 1));
                        }
                        if docs[k] == EMPTY_ID {
                            return err(format!("empty document id at list index {}", k + 1));
                        }
                        if k == cmark as usize {
                            return err(format!("null click flag at list index {}", k + 1));
                        }
                        if flags.get(k).is_some_and(|&f| f > 1) {
                            return err(format!("click flag {} must be 0 or 1 at list index {}", c.bad_flag(cv + k), k + 1));
                        }
                    }
                }
                let clicks = &c.bools[cv..cv + n];
                let pairs = cache.pairs(vocab, qid, docs);
                report.sessions += 1;
                f(SessionRef { query: qid, pairs, clicks });
            }
            left -= want;
        }
        for c in cur.iter_mut() {
            c.fill(name, 1, row, vocab)?;
            if c.ready() > 0 {
                return Err(Error::Invalid(format!("{name}: row group {}: column `{}` has more rows than the {rows} the file declares", g + 1, c.leaf.name)));
            }
        }
    }
    Ok(())
}

/// The decoded, not yet handed out rows of one column chunk.
struct Cursor {
    leaf: Leaf,
    pages: Box<dyn PageReader>,
    /// Id of each dictionary entry ([`UNRESOLVED`] until a row uses it).
    dict: Vec<u32>,
    /// The dictionary's values: byte ranges into `dict_bytes`, or integers.
    dict_text: Vec<(u32, u32)>,
    dict_bytes: bytes::Bytes,
    dict_ints: Vec<i64>,
    /// Elements per row (1 for the query), a mark per row ([`NO_MARK`], [`NULL_ROW`] or the
    /// index of the first null element), and the present values.
    lens: Vec<u32>,
    marks: Vec<u32>,
    vals: Vec<u32>,
    /// Click flags as booleans (the click column only; a flag other than 0/1 is `false`).
    bools: Vec<bool>,
    /// Next row and value to hand out.
    row_at: usize,
    val_at: usize,
    /// Values handed out or dropped before `vals[0]` (to address `bad_flags`).
    val_base: usize,
    /// The last row may go on in the next page.
    open: bool,
    done: bool,
    /// Click flags other than 0/1: (value index, value).
    bad_flags: Vec<(usize, i64)>,
    /// An empty id or a bad click flag was decoded (rows are then checked element by element).
    odd: bool,
    /// Integer ids already interned.
    int_ids: FxHashMap<i64, u32>,
    scratch_levels: Vec<u8>,
    scratch_keys: Vec<u32>,
}

impl Cursor {
    fn new(leaf: Leaf, pages: Box<dyn PageReader>) -> Cursor {
        Cursor {
            leaf,
            pages,
            dict: Vec::new(),
            dict_text: Vec::new(),
            dict_bytes: bytes::Bytes::new(),
            dict_ints: Vec::new(),
            lens: Vec::new(),
            marks: Vec::new(),
            vals: Vec::new(),
            bools: Vec::new(),
            row_at: 0,
            val_at: 0,
            val_base: 0,
            open: false,
            done: false,
            bad_flags: Vec::new(),
            odd: false,
            int_ids: FxHashMap::default(),
            scratch_levels: Vec::new(),
            scratch_keys: Vec::new(),
        }
    }

    /// Complete rows not yet handed out (`open` only holds back a row there is: a chunk whose
    /// first page has no values has none).
    fn ready(&self) -> usize {
        self.lens.len().saturating_sub(self.row_at + usize::from(self.open))
    }

    /// The next row: its length, its mark and the index of its first value in `vals`.
    #[inline]
    fn next_row(&mut self) -> (usize, u32, usize) {
        let (n, mark, at) = (self.lens[self.row_at] as usize, self.marks[self.row_at], self.val_at);
        self.row_at += 1;
        // A marked row is rejected (the read stops there), so only unmarked rows need the
        // exact count.
        self.val_at += n;
        (n, mark, at)
    }

    fn bad_flag(&self, val: usize) -> i64 {
        let abs = self.val_base + val;
        self.bad_flags.iter().find(|(i, _)| *i == abs).map_or(0, |(_, v)| *v)
    }

    /// Decodes pages until `want` complete rows are ready or the chunk ends. `row` is the
    /// number of rows handed out before (for messages).
    fn fill(&mut self, name: &str, want: usize, row: usize, vocab: &mut Vocab) -> Result<()> {
        if self.ready() >= want || self.done {
            return Ok(());
        }
        // Drop what was handed out.
        self.lens.drain(..self.row_at);
        self.marks.drain(..self.row_at);
        if self.leaf.kind == Kind::Bool {
            self.bools.drain(..self.val_at);
        } else {
            self.vals.drain(..self.val_at);
            if self.leaf.role == Role::Clicks {
                self.bools.drain(..self.val_at);
            }
        }
        self.val_base += self.val_at;
        self.row_at = 0;
        self.val_at = 0;
        let column = self.leaf.name.clone();
        let bad = |why: String| Error::Invalid(format!("{name}: after row {row}: column `{column}`: {why}"));
        while self.ready() < want && !self.done {
            match self.pages.next() {
                None => {
                    self.done = true;
                    self.open = false;
                }
                Some(Err(e)) => return Err(bad(format!("cannot decode the parquet data: {e}"))),
                Some(Ok(page)) => self.page(page, vocab).map_err(&bad)?,
            }
        }
        Ok(())
    }

    fn page(&mut self, page: Page, vocab: &mut Vocab) -> std::result::Result<(), String> {
        let (buf, slots, encoding, levels_v2) = match page {
            Page::DictionaryPage { buf, num_values, encoding, .. } => return self.dictionary(buf, num_values as usize, encoding),
            Page::DataPage { buf, num_values, encoding, def_level_encoding, rep_level_encoding, .. } => {
                if self.leaf.repeated && rep_level_encoding != Encoding::RLE || self.leaf.max_def > 0 && def_level_encoding != Encoding::RLE {
                    return Err(format!("levels encoded as {rep_level_encoding}/{def_level_encoding} are not supported"));
                }
                (buf, num_values as usize, encoding, None)
            }
            Page::DataPageV2 { buf, num_values, encoding, def_levels_byte_len, rep_levels_byte_len, .. } => {
                (buf, num_values as usize, encoding, Some((rep_levels_byte_len as usize, def_levels_byte_len as usize)))
            }
        };
        let mut at = 0usize;
        let mut section = |len: Option<usize>| -> std::result::Result<&[u8], String> {
            let len = match len {
                Some(l) => l,
                None => {
                    let b = buf.get(at..at + 4).ok_or("truncated page")?;
                    at += 4;
                    u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize
                }
            };
            let s = buf.get(at..at + len).ok_or("truncated page")?;
            at += len;
            Ok(s)
        };
        let rep = if self.leaf.repeated { Some(section(levels_v2.map(|l| l.0))?) } else { None };
        let def = if self.leaf.max_def > 0 { Some(section(levels_v2.map(|l| l.1))?) } else { None };
        let values = &buf[at..];
        let present = self.levels(rep, def, slots)?;
        let start = self.vals.len();
        self.values(values, encoding, present, vocab)?;
        if self.leaf.role == Role::Clicks && self.leaf.kind != Kind::Bool {
            self.bools.extend(self.vals[start..].iter().map(|&v| v == 1));
        }
        Ok(())
    }

    /// Splits the page's `slots` elements into rows (appending to `lens` and `marks`) and
    /// returns how many values are present.
    fn levels(&mut self, rep: Option<&[u8]>, def: Option<&[u8]>, slots: usize) -> std::result::Result<usize, String> {
        let max_def = self.leaf.max_def as u8;
        // Definition levels: None when every element is present.
        let mut defs = std::mem::take(&mut self.scratch_levels);
        defs.clear();
        let all_present = match def {
            None => true,
            Some(d) => {
                let width = bit_width(max_def as u32);
                // First the runs alone: one run of "present" (the usual page) is not expanded.
                let mut h = Hybrid::new(d, width);
                let uniform = match h.next_run()? {
                    Some(Run::Repeat { value, count }) => value == max_def as u32 && count >= slots,
                    _ => false,
                };
                if !uniform {
                    let mut h = Hybrid::new(d, width);
                    while defs.len() < slots {
                        let c = slots - defs.len();
                        match h.next_run()? {
                            Some(Run::Repeat { value, count }) => defs.resize(defs.len() + count.min(c), value as u8),
                            Some(Run::Packed { bytes, count }) => unpack_u8(bytes, width, count.min(c), &mut defs),
                            None => return Err("definition levels end early".into()),
                        }
                    }
                }
                uniform
            }
        };
        let mut present = 0usize;
        let (list_def, repeated) = (self.leaf.list_def as u8, self.leaf.repeated);
        let level = |slot: usize| if all_present { max_def } else { defs[slot] };
        match rep {
            None => {
                for slot in 0..slots {
                    present += usize::from(element(&mut self.lens, &mut self.marks, true, level(slot), max_def, list_def, repeated));
                }
            }
            Some(r) => {
                let mut h = Hybrid::new(r, 1);
                let mut slot = 0usize;
                while slot < slots {
                    match h.next_run()? {
                        Some(Run::Repeat { value, count }) => {
                            let c = count.min(slots - slot);
                            if value > 1 {
                                return Err(format!("repetition level {value} above 1"));
                            }
                            if value == 1 && self.lens.is_empty() && c > 0 {
                                return Err(CONTINUES_NO_ROW.into());
                            }
                            if all_present {
                                // c more elements of the last row, or c rows of one element.
                                if value == 1 {
                                    *self.lens.last_mut().expect("checked above") += c as u32;
                                } else {
                                    self.lens.resize(self.lens.len() + c, 1);
                                    self.marks.resize(self.marks.len() + c, NO_MARK);
                                }
                                present += c;
                                slot += c;
                                continue;
                            }
                            for s in slot..slot + c {
                                present += usize::from(element(&mut self.lens, &mut self.marks, value == 0, level(s), max_def, list_def, repeated));
                            }
                            slot += c;
                        }
                        Some(Run::Packed { bytes, count }) => {
                            let c = count.min(slots - slot);
                            if all_present {
                                // A bit per element, clear where a row starts: the rows are the
                                // runs between clear bits, no level is expanded.
                                for (i, &byte) in bytes.iter().enumerate().take(c.div_ceil(8)) {
                                    let k = (c - i * 8).min(8) as u32;
                                    let mut starts = !byte & ((1u16 << k) - 1) as u8;
                                    let first = if starts == 0 { k } else { starts.trailing_zeros() };
                                    if first > 0 {
                                        let Some(l) = self.lens.last_mut() else { return Err(CONTINUES_NO_ROW.into()) };
                                        *l += first;
                                    }
                                    while starts != 0 {
                                        let t = starts.trailing_zeros();
                                        starts &= starts - 1;
                                        let next = if starts == 0 { k } else { starts.trailing_zeros() };
                                        self.lens.push(next - t);
                                        self.marks.push(NO_MARK);
                                    }
                                }
                                present += c;
                            } else {
                                let mut reps = Vec::with_capacity(c);
                                unpack_u8(bytes, 1, c, &mut reps);
                                for (j, &v) in reps.iter().enumerate() {
                                    if v == 1 && self.lens.is_empty() {
                                        return Err(CONTINUES_NO_ROW.into());
                                    }
                                    present += usize::from(element(&mut self.lens, &mut self.marks, v == 0, level(slot + j), max_def, list_def, repeated));
                                }
                            }
                            slot += c;
                        }
                        None => return Err("repetition levels end early".into()),
                    }
                }
                self.open = true;
            }
        }
        self.scratch_levels = defs;
        Ok(present)
    }

    /// Appends the page's `n` present values.
    fn values(&mut self, buf: &[u8], encoding: Encoding, n: usize, vocab: &mut Vocab) -> std::result::Result<(), String> {
        match encoding {
            Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY => {
                let (&width, rest) = buf.split_first().ok_or("empty dictionary-encoded page")?;
                if width > 32 {
                    return Err(format!("dictionary key width {width}"));
                }
                // Keys are mapped to ids as they are unpacked; entries not interned yet (or
                // keys out of range) come out marked and are resolved after, in order.
                let start = self.vals.len();
                let mut h = Hybrid::new(rest, width);
                while self.vals.len() - start < n {
                    let left = n - (self.vals.len() - start);
                    match h.next_run()? {
                        Some(Run::Repeat { value, count }) => {
                            let id = self.dict.get(value as usize).copied().unwrap_or(OUT_OF_RANGE);
                            self.vals.resize(self.vals.len() + count.min(left), id);
                        }
                        Some(Run::Packed { bytes, count }) => unpack_map(bytes, width, count.min(left), &self.dict, &mut self.vals),
                        None => return Err("dictionary keys end early".into()),
                    }
                }
                // UNRESOLVED and OUT_OF_RANGE are the two values just below u32::MAX.
                let missing = self.vals[start..].iter().fold(false, |m, &id| m | (id.wrapping_add(3) < 2));
                if missing {
                    // Decoded again as keys (rare: the first pages of a chunk).
                    let mut keys = std::mem::take(&mut self.scratch_keys);
                    keys.clear();
                    let mut h = Hybrid::new(rest, width);
                    while keys.len() < n {
                        match h.next_run()? {
                            Some(Run::Repeat { value, count }) => keys.resize(keys.len() + count.min(n - keys.len()), value),
                            Some(Run::Packed { bytes, count }) => unpack_u32(bytes, width, count.min(n - keys.len()), &mut keys),
                            None => return Err("dictionary keys end early".into()),
                        }
                    }
                    for (i, &k) in keys.iter().enumerate() {
                        let id = self.vals[start + i];
                        if id == OUT_OF_RANGE {
                            return Err(format!("dictionary key {k} out of range ({} entries)", self.dict.len()));
                        }
                        if id == UNRESOLVED {
                            let known = self.dict[k as usize];
                            let at = self.val_base + start + i;
                            self.vals[start + i] = if known == UNRESOLVED { self.resolve(k as usize, at, vocab)? } else { known };
                        }
                    }
                    self.scratch_keys = keys;
                }
                Ok(())
            }
            Encoding::PLAIN => self.plain(buf, n, vocab, false),
            Encoding::RLE if self.leaf.kind == Kind::Bool => {
                let len = buf.get(..4).ok_or("truncated boolean page")?;
                let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
                let mut h = Hybrid::new(buf.get(4..4 + len).ok_or("truncated boolean page")?, 1);
                let start = self.bools.len();
                let mut bits = Vec::new();
                while self.bools.len() - start < n {
                    let have = self.bools.len() - start;
                    match h.next_run()? {
                        Some(Run::Repeat { value, count }) => self.bools.resize(self.bools.len() + count.min(n - have), value != 0),
                        Some(Run::Packed { bytes, count }) => {
                            bits.clear();
                            unpack_u32(bytes, 1, count.min(n - have), &mut bits);
                            self.bools.extend(bits.iter().map(|&b| b != 0));
                        }
                        None => return Err("boolean values end early".into()),
                    }
                }
                Ok(())
            }
            other => Err(format!("values encoded as {other} are not supported")),
        }
    }

    /// `n` PLAIN values: appended to `vals`, or (for a dictionary page) to the dictionary.
    fn plain(&mut self, buf: &[u8], n: usize, vocab: &mut Vocab, dictionary: bool) -> std::result::Result<(), String> {
        let trunc = || "truncated page".to_string();
        match (self.leaf.kind, self.leaf.physical) {
            (Kind::Bool, _) if dictionary => return Err("a dictionary of booleans is not supported".into()),
            (Kind::Bool, _) => {
                let bytes = buf.get(..n.div_ceil(8)).ok_or_else(trunc)?;
                let end = self.bools.len() + n;
                self.bools.reserve(n + 8);
                for &b in bytes {
                    self.bools.extend_from_slice(&BITS[b as usize]);
                }
                self.bools.truncate(end);
            }
            (Kind::Text, _) => {
                let mut at = 0usize;
                for _ in 0..n {
                    let len = buf.get(at..at + 4).ok_or_else(trunc)?;
                    let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
                    let v = buf.get(at + 4..at + 4 + len).ok_or_else(trunc)?;
                    if dictionary {
                        self.dict_text.push(((at + 4) as u32, len as u32));
                        self.dict.push(UNRESOLVED);
                    } else {
                        let id = intern_text(vocab, self.leaf.role, v)?;
                        self.odd |= id == EMPTY_ID;
                        self.vals.push(id);
                    }
                    at += 4 + len;
                }
            }
            (Kind::Int { unsigned }, p) => {
                let w = if p == Physical::INT32 { 4 } else { 8 };
                let bytes = buf.get(..n * w).ok_or_else(trunc)?;
                for b in bytes.chunks_exact(w) {
                    let v = match (w, unsigned) {
                        (4, false) => i32::from_le_bytes(b.try_into().expect("4")) as i64,
                        (4, true) => u32::from_le_bytes(b.try_into().expect("4")) as i64,
                        _ => i64::from_le_bytes(b.try_into().expect("8")),
                    };
                    if dictionary {
                        self.dict_ints.push(v);
                        self.dict.push(UNRESOLVED);
                    } else {
                        let id = self.int_id(v, self.val_base + self.vals.len(), vocab);
                        self.vals.push(id);
                    }
                }
            }
        }
        Ok(())
    }

    fn dictionary(&mut self, buf: bytes::Bytes, n: usize, encoding: Encoding) -> std::result::Result<(), String> {
        if !matches!(encoding, Encoding::PLAIN | Encoding::PLAIN_DICTIONARY) {
            return Err(format!("dictionary encoded as {encoding} is not supported"));
        }
        self.dict.clear();
        self.dict_text.clear();
        self.dict_ints.clear();
        let mut none = Vocab::default();
        self.plain(&buf, n, &mut none, true)?;
        self.dict_bytes = buf;
        Ok(())
    }

    /// Interns dictionary entry `k` (first use), for the value at absolute index `at`.
    fn resolve(&mut self, k: usize, at: usize, vocab: &mut Vocab) -> std::result::Result<u32, String> {
        let id = match self.leaf.kind {
            Kind::Text => {
                let (at, len) = self.dict_text[k];
                intern_text(vocab, self.leaf.role, &self.dict_bytes[at as usize..(at + len) as usize])?
            }
            Kind::Int { .. } | Kind::Bool => self.int_id(self.dict_ints[k], at, vocab),
        };
        self.odd |= id == EMPTY_ID;
        // A bad click flag is looked up again at each use, so each is recorded.
        if !(self.leaf.role == Role::Clicks && id == BAD_FLAG) {
            self.dict[k] = id;
        }
        Ok(id)
    }

    /// The id of an integer value (for click flags: 0, 1 or [`BAD_FLAG`], recorded with the
    /// value's absolute index `at`).
    fn int_id(&mut self, v: i64, at: usize, vocab: &mut Vocab) -> u32 {
        if self.leaf.role == Role::Clicks {
            return match v {
                0 | 1 => v as u32,
                _ => {
                    self.odd = true;
                    self.bad_flags.push((at, v));
                    BAD_FLAG
                }
            };
        }
        let unsigned = self.leaf.kind == (Kind::Int { unsigned: true });
        let role = self.leaf.role;
        *self.int_ids.entry(v).or_insert_with(|| {
            let text = if unsigned && self.leaf.physical == Physical::INT64 { (v as u64).to_string() } else { v.to_string() };
            intern_str(vocab, role, &text)
        })
    }
}

fn intern_text(vocab: &mut Vocab, role: Role, v: &[u8]) -> std::result::Result<u32, String> {
    let s = std::str::from_utf8(v).map_err(|e| format!("invalid UTF-8 in an id ({e})"))?.trim();
    Ok(if s.is_empty() { EMPTY_ID } else { intern_str(vocab, role, s) })
}

fn intern_str(vocab: &mut Vocab, role: Role, s: &str) -> u32 {
    match role {
        Role::Query => vocab.intern_query(s),
        _ => vocab.intern_doc(s),
    }
}

/// Pair ids of result lists already seen, keyed by (query id, document ids); emptied when it
/// reaches [`CACHE_WORDS`], so its size does not grow with the log.
#[derive(Default)]
struct SerpCache {
    /// Open addressing, linear probing: (hash, entry + 1), 0 for an empty slot; at most half
    /// full.
    slots: Vec<(u64, u32)>,
    entries: usize,
    /// Per entry, from its start: query id, number of documents, document ids, pair ids.
    words: Vec<u32>,
    scratch: Vec<u32>,
}

/// Hash of a result list: two independent multiply-rotate lanes over 64-bit words.
#[inline]
fn serp_hash(q: u32, docs: &[u32]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let (mut a, mut b) = (u64::from(q) ^ K, (docs.len() as u64).wrapping_mul(K));
    let mut words = docs.chunks_exact(4);
    for w in &mut words {
        a = (a ^ (u64::from(w[0]) | u64::from(w[1]) << 32)).wrapping_mul(K).rotate_left(29);
        b = (b ^ (u64::from(w[2]) | u64::from(w[3]) << 32)).wrapping_mul(K).rotate_left(29);
    }
    for &d in words.remainder() {
        a = (a ^ u64::from(d)).wrapping_mul(K).rotate_left(29);
    }
    (a ^ b.rotate_left(32)).wrapping_mul(K)
}

impl SerpCache {
    fn pairs(&mut self, vocab: &mut Vocab, q: u32, docs: &[u32]) -> &[u32] {
        let n = docs.len();
        let hash = serp_hash(q, docs);
        if self.slots.is_empty() {
            self.slots = vec![(0, 0); 1 << 12];
        }
        let mask = self.slots.len() - 1;
        let mut i = (hash >> 20) as usize & mask;
        loop {
            let (h, e) = self.slots[i];
            if e == 0 {
                break;
            }
            if h == hash {
                let at = (e - 1) as usize;
                let w = &self.words[at..];
                if w[0] == q && w[1] as usize == n && w[2..2 + n].iter().zip(docs).all(|(a, b)| a == b) {
                    return &self.words[at + 2 + n..at + 2 + 2 * n];
                }
            }
            i = (i + 1) & mask;
        }
        // Not cached: intern the pairs and keep them (emptying the cache when it is full).
        if self.words.len() + 2 + 2 * n > CACHE_WORDS {
            self.slots.iter_mut().for_each(|s| *s = (0, 0));
            self.entries = 0;
            self.words.clear();
        }
        if n + 2 > CACHE_WORDS / 4 {
            self.scratch.clear();
            self.scratch.extend(docs.iter().map(|&d| vocab.intern_pair(q, d)));
            return &self.scratch;
        }
        if 2 * (self.entries + 1) > self.slots.len() {
            self.grow();
        }
        let at = self.words.len();
        self.words.push(q);
        self.words.push(n as u32);
        self.words.extend_from_slice(docs);
        for &d in docs {
            let p = vocab.intern_pair(q, d);
            self.words.push(p);
        }
        self.insert(hash, at as u32 + 1);
        self.entries += 1;
        &self.words[at + 2 + n..]
    }

    fn insert(&mut self, hash: u64, e: u32) {
        let mask = self.slots.len() - 1;
        let mut i = (hash >> 20) as usize & mask;
        while self.slots[i].1 != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = (hash, e);
    }

    fn grow(&mut self) {
        let bigger = vec![(0, 0); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        for (h, e) in old.into_iter().filter(|s| s.1 != 0) {
            self.insert(h, e);
        }
    }
}

const CONTINUES_NO_ROW: &str = "the first list element of the column chunk continues no row";

/// One element of a page with definition level `d`: it starts a new row (`start`) or is the
/// next element of the last row. Returns whether its value is present.
#[inline]
fn element(lens: &mut Vec<u32>, marks: &mut Vec<u32>, start: bool, d: u8, max_def: u8, list_def: u8, repeated: bool) -> bool {
    if start {
        lens.push(0);
        marks.push(NO_MARK);
    }
    let (Some(len), Some(mark)) = (lens.last_mut(), marks.last_mut()) else { return false };
    if d == max_def {
        *len += 1;
        return true;
    }
    if repeated && d >= list_def {
        // A null element: the row is rejected at its first one.
        if *mark == NO_MARK {
            *mark = *len;
        }
        *len += 1;
    } else if !repeated || d + 1 < list_def {
        *mark = NULL_ROW;
    }
    // Otherwise (d + 1 == list_def) an empty list: the row keeps length 0.
    false
}

/// The 8 bits of each byte, least significant first.
static BITS: [[bool; 8]; 256] = {
    let mut t = [[false; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            t[b][j] = (b >> j) & 1 == 1;
            j += 1;
        }
        b += 1;
    }
    t
};

/// Bits needed for values up to `max`.
fn bit_width(max: u32) -> u8 {
    (32 - max.leading_zeros()) as u8
}

/// A run of the RLE / bit-packing hybrid encoding.
enum Run<'a> {
    Repeat {
        value: u32,
        count: usize,
    },
    /// `count` values (a multiple of 8) packed `width` bits each, least significant first.
    Packed {
        bytes: &'a [u8],
        count: usize,
    },
}

/// Reader of the RLE / bit-packing hybrid encoding (Parquet `RLE`), without the length prefix.
struct Hybrid<'a> {
    buf: &'a [u8],
    at: usize,
    width: u8,
}

impl<'a> Hybrid<'a> {
    fn new(buf: &'a [u8], width: u8) -> Self {
        Hybrid { buf, at: 0, width }
    }

    #[inline(always)]
    fn next_run(&mut self) -> std::result::Result<Option<Run<'a>>, String> {
        if self.at >= self.buf.len() {
            return Ok(None);
        }
        let (header, used) = super::read_uleb128(&self.buf[self.at..]).map_err(|e| format!("run header: {e}"))?;
        self.at += used;
        if header & 1 == 1 {
            let count = (header >> 1) as usize * 8;
            let len = (header >> 1) as usize * self.width as usize;
            if self.at + len <= self.buf.len() {
                let bytes = &self.buf[self.at..self.at + len];
                self.at += len;
                return Ok(Some(Run::Packed { bytes, count }));
            }
            // A writer may end the last run early: take what is there.
            let bytes = &self.buf[self.at..];
            self.at = self.buf.len();
            let count = count.min(bytes.len() * 8 / self.width.max(1) as usize);
            Ok(Some(Run::Packed { bytes, count }))
        } else {
            let count = (header >> 1) as usize;
            let nb = (self.width as usize).div_ceil(8);
            let b = self.buf.get(self.at..self.at + nb).ok_or("truncated run value")?;
            self.at += nb;
            let mut v = [0u8; 4];
            v[..nb].copy_from_slice(b);
            Ok(Some(Run::Repeat { value: u32::from_le_bytes(v), count }))
        }
    }
}

/// Appends `count` values of `width` bits (at most 32) packed in `bytes`.
fn unpack_u32(bytes: &[u8], width: u8, count: usize, out: &mut Vec<u32>) {
    unpack_with(bytes, width, count, out, |k| k);
}

/// Appends the entries of `dict` at the `count` keys of `width` bits packed in `bytes`
/// ([`OUT_OF_RANGE`] for a key beyond it).
fn unpack_map(bytes: &[u8], width: u8, count: usize, dict: &[u32], out: &mut Vec<u32>) {
    unpack_with(bytes, width, count, out, |k| dict.get(k as usize).copied().unwrap_or(OUT_OF_RANGE));
}

fn unpack_with(bytes: &[u8], width: u8, count: usize, out: &mut Vec<u32>, map: impl Fn(u32) -> u32 + Copy) {
    macro_rules! widths {
        ($($w:literal)*) => {
            match width {
                0 => out.resize(out.len() + count, map(0)),
                $($w => unpack_const::<$w>(bytes, count, out, map),)*
                _ => unreachable!("bit width {width} above 32"),
            }
        };
    }
    widths!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
}

/// [`unpack_with`] for a width known at compile time: whole groups of 8 values are read in
/// place while 8 bytes of slack remain, the rest from a zero-padded copy.
#[inline(always)]
fn unpack_const<const W: usize>(bytes: &[u8], count: usize, out: &mut Vec<u32>, map: impl Fn(u32) -> u32) {
    let mask = if W == 32 { u32::MAX as u64 } else { (1u64 << W) - 1 };
    let group = |src: &[u8], out: &mut Vec<u32>| {
        assert!(src.len() >= W + 8);
        let mut vals = [0u32; 8];
        for (j, v) in vals.iter_mut().enumerate() {
            let bit = j * W;
            let word = u64::from_le_bytes(src[bit / 8..bit / 8 + 8].try_into().expect("8 bytes"));
            *v = map(((word >> (bit % 8)) & mask) as u32);
        }
        out.extend_from_slice(&vals);
    };
    // Whole groups are written (a constant-size copy), the excess cut at the end.
    let end = out.len() + count;
    out.reserve(count + 8);
    let groups = count.div_ceil(8);
    let mut g = 0;
    while g < groups && (g + 1) * W + 8 <= bytes.len() {
        group(&bytes[g * W..], out);
        g += 1;
    }
    while g < groups {
        let mut pad = [0u8; 48];
        let from = (g * W).min(bytes.len());
        let n = (bytes.len() - from).min(W);
        pad[..n].copy_from_slice(&bytes[from..from + n]);
        group(&pad, out);
        g += 1;
    }
    out.truncate(end);
}

/// [`unpack_u32`] for levels (at most 8 bits).
fn unpack_u8(bytes: &[u8], width: u8, count: usize, out: &mut Vec<u8>) {
    let mut v = Vec::with_capacity(count);
    unpack_u32(bytes, width, count, &mut v);
    out.extend(v.into_iter().map(|x| x as u8));
}

#[cfg(test)]
mod tests;
