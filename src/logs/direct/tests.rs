//! Tests of the page-by-page Parquet reader. The reference is the general reader
//! ([`super::super::read::for_each_session`], which decodes through the Arrow reader, a
//! separate implementation): sessions, vocabulary numbering and error messages must be the
//! same for every writer setting. The bit-unpacking is checked against a bit packer written
//! here from the Parquet specification (values packed least significant bit first).

use super::*;
use crate::input;
use crate::logs::read::{for_each_session, ReadOptions};
use crate::logs::LogData;
use arrow_array::builder::{BooleanBuilder, Int32Builder, Int64Builder, ListBuilder, StringBuilder, UInt64Builder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use parquet::basic::Compression;
use parquet::file::properties::{WriterProperties, WriterVersion};
use std::sync::Arc;

type Session = (String, Vec<String>, Vec<bool>);

/// Writes `batch` to a Parquet file in a fresh temporary directory.
fn write(batch: &RecordBatch, props: WriterProperties) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.parquet");
    let f = std::fs::File::create(&path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    (dir, path)
}

/// Sessions and vocabulary from the page reader (None: the layout was left to the general reader).
fn direct(path: &Path, format: &Format) -> Result<Option<(Vec<Session>, Vocab)>> {
    let mut vocab = Vocab::default();
    let mut raw: Vec<(u32, Vec<u32>, Vec<bool>)> = Vec::new();
    let got = pass(path, format, false, &mut vocab, &mut |s| raw.push((s.query, s.pairs.to_vec(), s.clicks.to_vec())))?;
    let Some(report) = got else {
        assert!(vocab.queries.is_empty() && vocab.docs.is_empty(), "nothing is interned when the general reader is used");
        return Ok(None);
    };
    assert_eq!(report.sessions, raw.len());
    let sessions = raw
        .into_iter()
        .map(|(q, pairs, clicks)| {
            let docs = pairs.iter().map(|&p| vocab.docs[vocab.pairs[p as usize].1 as usize].clone()).collect();
            pairs.iter().for_each(|&p| assert_eq!(vocab.pairs[p as usize].0, q));
            (vocab.queries[q as usize].clone(), docs, clicks)
        })
        .collect();
    Ok(Some((sessions, vocab)))
}

/// Sessions and vocabulary from the general reader.
fn general(path: &Path) -> Result<(Vec<Session>, Vocab)> {
    let mut out = Vec::new();
    for_each_session(input::open(path)?, &ReadOptions::new(Format::Auto), &mut |s| {
        out.push((s.query().to_string(), s.docs().map(str::to_string).collect(), s.clicks.clone()));
        Ok(())
    })?;
    let data = LogData::read(path, Format::Auto, false)?;
    Ok((out, data.vocab))
}

fn assert_same(path: &Path) -> usize {
    let (d, dv) = direct(path, &Format::Auto).unwrap().unwrap_or_else(|| panic!("{} not read page by page", path.display()));
    let (g, gv) = general(path).unwrap();
    assert_eq!(d, g);
    assert_eq!(dv.queries, gv.queries);
    assert_eq!(dv.docs, gv.docs);
    assert_eq!(dv.pairs, gv.pairs);
    d.len()
}

/// A log of `rows` sessions over 40 queries and 300 documents with lists of 1 to 12 results,
/// many result lists repeated (as in real logs), ids with stray spaces now and then.
fn log_batch(rows: usize) -> RecordBatch {
    let mut q = StringBuilder::new();
    let mut docs = ListBuilder::new(StringBuilder::new());
    let mut clicks = ListBuilder::new(BooleanBuilder::new());
    let mut x: u64 = 7;
    let mut next = |m: u64| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    for _ in 0..rows {
        let query = next(40);
        q.append_value(if query % 7 == 0 { format!(" q{query} ") } else { format!("q{query}") });
        let n = 1 + next(12);
        let fresh = next(3) == 0;
        for r in 0..n {
            let d = if fresh { next(300) } else { (query * 13 + r) % 300 };
            docs.values().append_value(format!("d{d}"));
            clicks.values().append_value(next(4) == 0);
        }
        docs.append(true);
        clicks.append(true);
    }
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("query", Arc::new(q.finish())),
        ("docs", Arc::new(docs.finish())),
        ("clicks", Arc::new(clicks.finish())),
        ("media", Arc::new(Int64Array::from((0..rows as i64).collect::<Vec<_>>()))),
    ];
    RecordBatch::try_from_iter(cols).unwrap()
}

#[test]
fn every_writer_setting_reads_as_the_general_reader_does() {
    let batch = log_batch(3000);
    let base = || WriterProperties::builder();
    let settings: Vec<(&str, WriterProperties)> = vec![
        ("default (dictionary, snappy, v1 pages)", base().set_compression(Compression::SNAPPY).build()),
        ("uncompressed", base().build()),
        ("gzip", base().set_compression(Compression::GZIP(Default::default())).build()),
        ("data page v2", base().set_writer_version(WriterVersion::PARQUET_2_0).build()),
        ("plain, no dictionary", base().set_dictionary_enabled(false).build()),
        ("dictionary overflowing to plain", base().set_dictionary_page_size_limit(200).build()),
        (
            "small pages and row groups",
            base().set_write_batch_size(3).set_data_page_row_count_limit(5).set_data_page_size_limit(64).set_max_row_group_row_count(Some(333)).build(),
        ),
        ("small pages, v2", base().set_write_batch_size(3).set_data_page_row_count_limit(5).set_writer_version(WriterVersion::PARQUET_2_0).build()),
    ];
    for (what, props) in settings {
        let (_dir, path) = write(&batch, props);
        eprintln!("{what}");
        assert_eq!(assert_same(&path), 3000, "{what}");
    }
    // Without a dictionary, the v2 writer encodes strings as DELTA_BYTE_ARRAY, which is left
    // to the general reader.
    let props = WriterProperties::builder().set_dictionary_enabled(false).set_writer_version(WriterVersion::PARQUET_2_0).build();
    let (_dir, path) = write(&batch, props);
    assert!(direct(&path, &Format::Auto).unwrap().is_none());
}

#[test]
fn integer_ids_and_integer_flags_read_as_decimal_text() {
    // Expected: the hand-written rows, ids as their decimal text (what the general reader
    // and the text formats intern).
    let mut docs32 = ListBuilder::new(Int32Builder::new());
    let mut docs64 = ListBuilder::new(UInt64Builder::new());
    let mut clicks = ListBuilder::new(Int64Builder::new());
    let rows: [(&[i32], &[u64], &[i64]); 3] = [(&[5, -2, 9], &[u64::MAX, 1, 2], &[0, 1, 0]), (&[9], &[2], &[1]), (&[5, -2, 9], &[u64::MAX, 1, 2], &[1, 1, 0])];
    for (d32, d64, c) in rows {
        d32.iter().for_each(|&v| docs32.values().append_value(v));
        docs32.append(true);
        d64.iter().for_each(|&v| docs64.values().append_value(v));
        docs64.append(true);
        c.iter().for_each(|&v| clicks.values().append_value(v));
        clicks.append(true);
    }
    let (docs32, docs64, clicks) = (Arc::new(docs32.finish()) as ArrayRef, Arc::new(docs64.finish()) as ArrayRef, Arc::new(clicks.finish()) as ArrayRef);
    for (docs, want_docs) in [(docs32, ["5", "-2", "9"]), (docs64, ["18446744073709551615", "1", "2"])] {
        let b =
            RecordBatch::try_from_iter(vec![("query_id", Arc::new(Int64Array::from(vec![-7, 3, -7])) as ArrayRef), ("docs", docs), ("clicks", clicks.clone())])
                .unwrap();
        for dictionary in [true, false] {
            let (_dir, path) = write(&b, WriterProperties::builder().set_dictionary_enabled(dictionary).build());
            let (s, _) = direct(&path, &Format::Auto).unwrap().expect("read page by page");
            assert_eq!(s[0].0, "-7");
            assert_eq!(s[0].1, want_docs);
            assert_eq!(s[0].2, [false, true, false]);
            assert_eq!(s[2].2, [true, true, false]);
            assert_same(&path);
        }
    }
}

/// One bad row (the 4th, after three good ones) in each of the ways the general reader
/// rejects: the page reader must stop with the same message.
#[test]
fn bad_rows_get_the_general_readers_message() {
    #[derive(Clone, Copy)]
    enum Bad {
        NullQuery,
        BlankQuery,
        NullDocs,
        EmptyDocs,
        NullClicks,
        FewerFlags,
        NullDoc,
        BlankDoc,
        NullFlag,
        FlagTwo,
    }
    let cases = [
        (Bad::NullQuery, "row 4: null query id"),
        (Bad::BlankQuery, "row 4: empty query id"),
        (Bad::NullDocs, "row 4: null document list"),
        (Bad::EmptyDocs, "row 4: the document list is empty"),
        (Bad::NullClicks, "row 4: null click list"),
        (Bad::FewerFlags, "row 4: 3 documents but 2 click flags"),
        (Bad::NullDoc, "row 4: null document id at list index 2"),
        (Bad::BlankDoc, "row 4: empty document id at list index 2"),
        (Bad::NullFlag, "row 4: null click flag at list index 3"),
        (Bad::FlagTwo, "row 4: click flag 2 must be 0 or 1 at list index 3"),
    ];
    for (bad, want) in cases {
        let mut q = StringBuilder::new();
        let mut docs = ListBuilder::new(StringBuilder::new());
        let mut clicks = ListBuilder::new(Int64Builder::new());
        for row in 0..6 {
            let this = row == 3;
            match bad {
                Bad::NullQuery if this => q.append_null(),
                Bad::BlankQuery if this => q.append_value("  "),
                _ => q.append_value(format!("q{}", row % 2)),
            }
            let n = if this && matches!(bad, Bad::EmptyDocs) { 0 } else { 3 };
            for k in 0..n {
                match bad {
                    Bad::NullDoc if this && k == 1 => docs.values().append_null(),
                    Bad::BlankDoc if this && k == 1 => docs.values().append_value(" "),
                    _ => docs.values().append_value(format!("d{k}")),
                }
            }
            docs.append(!(this && matches!(bad, Bad::NullDocs)));
            let m = if this && matches!(bad, Bad::FewerFlags) { 2 } else { n };
            for k in 0..m {
                match bad {
                    Bad::NullFlag if this && k == 2 => clicks.values().append_null(),
                    Bad::FlagTwo if this && k == 2 => clicks.values().append_value(2),
                    _ => clicks.values().append_value((k == 0) as i64),
                }
            }
            clicks.append(!(this && matches!(bad, Bad::NullClicks)));
        }
        let b = RecordBatch::try_from_iter(vec![
            ("query", Arc::new(q.finish()) as ArrayRef),
            ("docs", Arc::new(docs.finish()) as ArrayRef),
            ("clicks", Arc::new(clicks.finish()) as ArrayRef),
        ])
        .unwrap();
        let v2 = WriterProperties::builder().set_writer_version(WriterVersion::PARQUET_2_0).build();
        for props in [WriterProperties::builder().build(), WriterProperties::builder().set_dictionary_enabled(false).build(), v2] {
            let (_dir, path) = write(&b, props);
            let d = direct(&path, &Format::Auto).expect_err(want).to_string();
            let g = general(&path).expect_err(want).to_string();
            assert_eq!(d, g);
            assert_eq!(d, format!("{}: {want}", path.display()));
        }
    }
}

#[test]
fn other_layouts_are_left_to_the_general_reader() {
    let batch = log_batch(10);
    let (_dir, path) = write(&batch, WriterProperties::builder().build());
    // A positions column (the general reader reorders by it).
    let map: ColumnMap = ColumnMap::parse("positions=media").unwrap();
    assert!(direct(&path, &Format::Columnar(Container::Parquet, map)).unwrap().is_none());
    // Text formats, and reading with --skip-bad-lines.
    assert!(direct(&path, &Format::Tsv).unwrap().is_none());
    assert!(pass(&path, &Format::Auto, true, &mut Vocab::default(), &mut |_| {}).unwrap().is_none());
    // Click flags as floats (the general reader names the type).
    let mut clicks = ListBuilder::new(arrow_array::builder::Float64Builder::new());
    clicks.values().append_value(1.0);
    clicks.append(true);
    let mut docs = ListBuilder::new(StringBuilder::new());
    docs.values().append_value("d");
    docs.append(true);
    let b = RecordBatch::try_from_iter(vec![
        ("query", Arc::new(StringArray::from(vec!["q"])) as ArrayRef),
        ("docs", Arc::new(docs.finish()) as ArrayRef),
        ("clicks", Arc::new(clicks.finish()) as ArrayRef),
    ])
    .unwrap();
    let (_dir2, path2) = write(&b, WriterProperties::builder().build());
    assert!(direct(&path2, &Format::Auto).unwrap().is_none());
    // A missing column is the general reader's error.
    let m = ColumnMap::parse("docs=nope").unwrap();
    let e = direct(&path, &Format::Columnar(Container::Parquet, m)).unwrap_err().to_string();
    assert!(e.contains("no column `nope`"), "{e}");
}

#[test]
fn a_truncated_file_is_an_error_or_left_to_the_general_reader() {
    let (_dir, path) = write(&log_batch(200), WriterProperties::builder().build());
    let bytes = std::fs::read(&path).unwrap();
    // Cut in the middle of the data: the footer is gone, so the general reader reports it.
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert!(direct(&path, &Format::Auto).unwrap().is_none());
    // Data pages damaged, footer intact: an error, never a panic.
    let mut broken = bytes.clone();
    for b in &mut broken[8..bytes.len() / 3] {
        *b = 0xA5;
    }
    std::fs::write(&path, &broken).unwrap();
    let e = direct(&path, &Format::Auto).unwrap_err().to_string();
    assert!(e.starts_with(&path.display().to_string()), "{e}");
}

/// Packs `vals` `w` bits each, least significant bit first (Parquet's bit-packing).
fn pack(vals: &[u32], w: usize) -> Vec<u8> {
    let mut out = vec![0u8; (vals.len() * w).div_ceil(8)];
    for (i, &v) in vals.iter().enumerate() {
        for b in 0..w {
            if v >> b & 1 == 1 {
                let bit = i * w + b;
                out[bit / 8] |= 1 << (bit % 8);
            }
        }
    }
    out
}

#[test]
fn unpacking_matches_a_reference_packer_at_every_width() {
    for w in 1..=32usize {
        for count in [1usize, 7, 8, 9, 63, 64, 100, 257] {
            let vals: Vec<u32> = (0..count as u64).map(|i| ((i * 2654435761 + 12345) & ((1u64 << w) - 1)) as u32).collect();
            let bytes = pack(&vals, w);
            let mut got = vec![42];
            unpack_u32(&bytes, w as u8, count, &mut got);
            assert_eq!(got[0], 42);
            assert_eq!(&got[1..], &vals[..], "width {w}, {count} values");
        }
    }
}

#[test]
fn hybrid_runs_decode_repeats_and_packed_groups() {
    // Hand-encoded (Parquet spec, RLE/bit-packing hybrid): header 0x06 = repeat run of 3,
    // value byte 0x05; header 0x03 = one bit-packed group of 8 values at width 3.
    let vals = [1u32, 2, 3, 4, 5, 6, 7, 0];
    let mut buf = vec![0x06, 0x05, 0x03];
    buf.extend(pack(&vals, 3));
    let mut h = Hybrid::new(&buf, 3);
    match h.next_run().unwrap() {
        Some(Run::Repeat { value: 5, count: 3 }) => {}
        _ => panic!("first run: 3 x 5"),
    }
    match h.next_run().unwrap() {
        Some(Run::Packed { bytes, count: 8 }) => {
            let mut got = Vec::new();
            unpack_u32(bytes, 3, 8, &mut got);
            assert_eq!(got, vals);
        }
        _ => panic!("second run: 8 packed values"),
    }
    assert!(h.next_run().unwrap().is_none());
}

#[test]
fn the_list_cache_gives_the_vocabulary_pairs_also_after_it_is_emptied() {
    let mut vocab = Vocab::default();
    let mut cache = SerpCache::default();
    let docs: Vec<u32> = (0..10).map(|d| vocab.intern_doc(&format!("d{d}"))).collect();
    // Enough distinct lists to fill the cache more than twice, each asked for twice.
    let lists = 2 * CACHE_WORDS / 20 + 10;
    for round in 0..2 {
        for l in 0..lists {
            let q = (l % 997) as u32;
            let mut list = docs.clone();
            list.rotate_left(l % 10);
            list[0] = (l / 997) as u32;
            let want: Vec<u32> = list.iter().map(|&d| vocab.intern_pair(q, d)).collect();
            assert_eq!(cache.pairs(&mut vocab, q, &list), &want[..], "round {round}, list {l}");
        }
    }
    assert!(cache.words.len() <= CACHE_WORDS);
}

/// Pages handed out from memory.
struct Pages(std::collections::VecDeque<Page>);

impl Iterator for Pages {
    type Item = parquet::errors::Result<Page>;
    fn next(&mut self) -> Option<Self::Item> {
        self.0.pop_front().map(Ok)
    }
}

impl PageReader for Pages {
    fn get_next_page(&mut self) -> parquet::errors::Result<Option<Page>> {
        Ok(self.0.pop_front())
    }
    fn peek_next_page(&mut self) -> parquet::errors::Result<Option<parquet::column::page::PageMetadata>> {
        Ok(None)
    }
    fn skip_next_page(&mut self) -> parquet::errors::Result<()> {
        self.0.pop_front();
        Ok(())
    }
}

/// A v1 data page of a required list of required INT32 (max repetition and definition level
/// 1): repetition levels bit-packed, definition levels one run of 1, PLAIN values.
fn list_page(reps: &[u32], values: &[i32]) -> Page {
    let mut buf = Vec::new();
    let packed = pack(reps, 1);
    let groups = reps.len().div_ceil(8);
    let rep: Vec<u8> = std::iter::once((groups as u8) << 1 | 1).chain(packed.iter().copied().chain(std::iter::repeat(0)).take(groups)).collect();
    buf.extend((rep.len() as u32).to_le_bytes());
    buf.extend(&rep);
    let def = [(reps.len() as u8) << 1, 1];
    buf.extend((def.len() as u32).to_le_bytes());
    buf.extend(def);
    values.iter().for_each(|v| buf.extend(v.to_le_bytes()));
    Page::DataPage {
        buf: buf.into(),
        num_values: reps.len() as u32,
        encoding: Encoding::PLAIN,
        def_level_encoding: Encoding::RLE,
        rep_level_encoding: Encoding::RLE,
        statistics: None,
    }
}

#[test]
fn a_row_may_go_on_in_the_next_page() {
    // Hand-made: rows [1 2 3], [4 5 | 6], [7], the second split between the two pages (the
    // second page starts with repetition level 1).
    let pages = Pages(vec![list_page(&[0, 1, 1, 0, 1], &[1, 2, 3, 4, 5]), list_page(&[1, 0], &[6, 7])].into());
    let leaf = Leaf {
        index: 0,
        name: "docs".into(),
        role: Role::Docs,
        kind: Kind::Int { unsigned: false },
        physical: Physical::INT32,
        max_def: 1,
        list_def: 1,
        repeated: true,
    };
    let mut c = Cursor::new(leaf, Box::new(pages));
    let mut vocab = Vocab::default();
    c.fill("t", 1, 0, &mut vocab).unwrap();
    // After the first page only the first row is complete.
    assert_eq!(c.ready(), 1);
    c.fill("t", 3, 0, &mut vocab).unwrap();
    assert_eq!(c.ready(), 3);
    let mut rows = Vec::new();
    for _ in 0..3 {
        let (n, mark, at) = c.next_row();
        assert_eq!(mark, NO_MARK);
        rows.push(c.vals[at..at + n].iter().map(|&d| vocab.docs[d as usize].clone()).collect::<Vec<_>>());
    }
    assert_eq!(rows, [vec!["1", "2", "3"], vec!["4", "5", "6"], vec!["7"]]);
    // A chunk may not start inside a row.
    let pages = Pages(vec![list_page(&[1, 0], &[6, 7])].into());
    let leaf = Leaf {
        index: 0,
        name: "docs".into(),
        role: Role::Docs,
        kind: Kind::Int { unsigned: false },
        physical: Physical::INT32,
        max_def: 1,
        list_def: 1,
        repeated: true,
    };
    let e = Cursor::new(leaf, Box::new(pages)).fill("t", 1, 0, &mut vocab).unwrap_err().to_string();
    assert!(e.contains("continues no row"), "{e}");
}

#[test]
fn a_page_without_values_starts_no_row() {
    // Hand-made: a v2 data page with no values (levels and values empty) before the pages of
    // `a_row_may_go_on_in_the_next_page`; the rows are those of that test, [1 2 3], [4 5 6],
    // [7]. Before the fix, the empty page left `open` set with no row, `ready()` wrapped
    // around and `next_row` indexed past the rows (the panic of issue 42 at direct.rs:379).
    let empty = Page::DataPageV2 {
        buf: bytes::Bytes::new(),
        num_values: 0,
        encoding: Encoding::PLAIN,
        num_nulls: 0,
        num_rows: 0,
        def_levels_byte_len: 0,
        rep_levels_byte_len: 0,
        is_compressed: false,
        statistics: None,
    };
    let pages = Pages(vec![empty, list_page(&[0, 1, 1, 0, 1], &[1, 2, 3, 4, 5]), list_page(&[1, 0], &[6, 7])].into());
    let leaf = Leaf {
        index: 0,
        name: "docs".into(),
        role: Role::Docs,
        kind: Kind::Int { unsigned: false },
        physical: Physical::INT32,
        max_def: 1,
        list_def: 1,
        repeated: true,
    };
    let mut c = Cursor::new(leaf, Box::new(pages));
    let mut vocab = Vocab::default();
    c.fill("t", 3, 0, &mut vocab).unwrap();
    assert_eq!(c.ready(), 3);
    let mut rows = Vec::new();
    for _ in 0..3 {
        let (n, mark, at) = c.next_row();
        assert_eq!(mark, NO_MARK);
        rows.push(c.vals[at..at + n].iter().map(|&d| vocab.docs[d as usize].clone()).collect::<Vec<_>>());
    }
    assert_eq!(rows, [vec!["1", "2", "3"], vec!["4", "5", "6"], vec!["7"]]);
}
