//! Tests of the Parquet and Arrow IPC readers and of `convert`. The fixtures are written here
//! with the arrow/parquet writers from hand-written sessions; expected values are those
//! hand-written sessions. Where a text reader is the reference, the comment says so.

use super::*;
use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use std::sync::Arc;

/// A Baidu-ULTR-like layout: integer `query_id`, `url_md5` string lists, `click` 0/1 int lists,
/// plus a column the reader must ignore.
fn baidu_batch() -> RecordBatch {
    let mut docs = ListBuilder::new(StringBuilder::new());
    let mut clicks = ListBuilder::new(Int64Builder::new());
    for (d, c) in [(vec!["u1", "u2", "u3"], vec![0, 1, 0]), (vec!["u2", "u1"], vec![1, 1])] {
        for x in d {
            docs.values().append_value(x);
        }
        docs.append(true);
        for x in c {
            clicks.values().append_value(x);
        }
        clicks.append(true);
    }
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("query_id", Arc::new(Int64Array::from(vec![7, -3]))),
        ("url_md5", Arc::new(docs.finish())),
        ("click", Arc::new(clicks.finish())),
        ("media_type", Arc::new(Int64Array::from(vec![1, 2]))),
    ];
    RecordBatch::try_from_iter(cols).unwrap()
}

fn parquet_bytes(b: &RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, b.schema(), None).unwrap();
    w.write(b).unwrap();
    w.close().unwrap();
    out
}

fn arrow_bytes(b: &RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = arrow_ipc::writer::FileWriter::try_new(&mut out, &b.schema()).unwrap();
    w.write(b).unwrap();
    w.finish().unwrap();
    drop(w);
    out
}

fn read_bytes(bytes: Vec<u8>, format: &str) -> Result<(Vec<RawSession>, ReadReport)> {
    let mut out = Vec::new();
    let input = Input::from_bytes("log.parquet", bytes)?;
    let r = for_each_session(input, &ReadOptions::new(format.parse()?), &mut |s| {
        out.push(s.to_raw());
        Ok(())
    })?;
    Ok((out, r))
}

#[test]
fn baidu_layout_parquet_and_arrow_read_by_magic() {
    // Expected: the two hand-written rows of `baidu_batch`, integer query ids as decimal text.
    let want = [("7", vec!["u1", "u2", "u3"], vec![false, true, false]), ("-3", vec!["u2", "u1"], vec![true, true])];
    for bytes in [parquet_bytes(&baidu_batch()), arrow_bytes(&baidu_batch())] {
        let (s, r) = read_bytes(bytes, "auto").unwrap();
        assert_eq!(r.sessions, 2);
        assert_eq!(s.len(), 2);
        for (got, (q, d, c)) in s.iter().zip(&want) {
            assert_eq!(&got.query, q);
            assert_eq!(&got.docs, d);
            assert_eq!(&got.clicks, c);
            assert_eq!(got.id, None);
        }
    }
    assert!(matches!(read_bytes(parquet_bytes(&baidu_batch()), "auto").unwrap().1.format, Some(Format::Columnar(Container::Parquet, _))));
}

#[test]
fn mapped_columns_and_missing_or_wrong_columns_are_named() {
    let b = baidu_batch();
    // Mapping `docs` to a non-list column: the type is named, with the columns found.
    let err = read_bytes(parquet_bytes(&b), "parquet:docs=media_type").unwrap_err().to_string();
    assert!(err.contains("column `media_type` (`docs`) has type Int64") && err.contains("columns found: `query_id`"), "{err}");
    let err = read_bytes(parquet_bytes(&b), "parquet:clicks=nope").unwrap_err().to_string();
    assert!(err.contains("no column `nope`") && err.contains("`url_md5` (List"), "{err}");
    // Without the click column: its default names are listed.
    let cols: Vec<(&str, ArrayRef)> = vec![("query_id", b.column(0).clone()), ("url_md5", b.column(1).clone())];
    let err = read_bytes(parquet_bytes(&RecordBatch::try_from_iter(cols).unwrap()), "auto").unwrap_err().to_string();
    assert!(err.starts_with("log.parquet: no column for `clicks` (looked for `clicks`, `click`)"), "{err}");
}

#[test]
fn bad_rows_are_numbered_and_skippable() {
    // Row 2 has a click flag of 2 (hand-written), row 1 is good.
    let mut docs = ListBuilder::new(StringBuilder::new());
    let mut clicks = ListBuilder::new(Int64Builder::new());
    for c in [0, 2] {
        docs.values().append_value("d");
        docs.append(true);
        clicks.values().append_value(c);
        clicks.append(true);
    }
    let cols: Vec<(&str, ArrayRef)> =
        vec![("query", Arc::new(arrow_array::StringArray::from(vec!["q", "q"]))), ("docs", Arc::new(docs.finish())), ("clicks", Arc::new(clicks.finish()))];
    let bytes = parquet_bytes(&RecordBatch::try_from_iter(cols).unwrap());
    let err = read_bytes(bytes.clone(), "parquet").unwrap_err().to_string();
    assert_eq!(err, "log.parquet: row 2: click flag 2 must be 0 or 1 at list index 1");
    let input = Input::from_bytes("log.parquet", bytes).unwrap();
    let d = LogData::from_input(input, &ReadOptions::new(Format::Auto).skip_bad_lines(true)).unwrap();
    assert_eq!((d.log.len(), d.report.skipped_lines), (1, 1));
}

#[test]
fn corrupt_and_truncated_columnar_files_are_errors_not_panics() {
    let good = parquet_bytes(&baidu_batch());
    let arrow = arrow_bytes(&baidu_batch());
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    for cut in [4, 8, good.len() / 2, good.len() - 9, good.len() - 1] {
        cases.push(("parquet", good[..cut].to_vec()));
    }
    for cut in [6, 12, arrow.len() / 2, arrow.len() - 3] {
        cases.push(("arrow", arrow[..cut].to_vec()));
    }
    // Every byte flipped in turn (the footer and the pages).
    for i in (0..good.len()).step_by(7) {
        let mut b = good.clone();
        b[i] ^= 0xa5;
        cases.push(("parquet", b));
    }
    for i in (0..arrow.len()).step_by(7) {
        let mut b = arrow.clone();
        b[i] ^= 0xa5;
        cases.push(("arrow", b));
    }
    let mut errors = 0;
    for (format, bytes) in cases {
        // Either an error naming the file, or (a flip inside a value) a read of valid rows.
        match read_bytes(bytes, format) {
            Err(e) => {
                errors += 1;
                assert!(e.to_string().starts_with("log.parquet"), "{e}");
            }
            Ok((s, _)) => assert!(s.len() <= 2),
        }
    }
    assert!(errors >= 9, "truncated files must fail: {errors}");
}

#[test]
fn corrupt_arrow_ipc_files_are_refused_before_the_decoder_panics() {
    // Issue 42: a corrupt buffer offset made arrow-buffer panic ("the offset of the new Buffer
    // cannot exceed the existing length"); the panic was caught but printed. Every byte of a
    // small IPC file and stream is flipped in turn: each must read as rows or be refused
    // naming the file, and no flip may reach a panic (counted on this thread).
    let batch = baidu_batch();
    let file = arrow_bytes(&batch);
    let mut stream = Vec::new();
    {
        let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut stream, &batch.schema()).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
    }
    let before = crate::error::caught_decoder_panics().len();
    let mut errors = 0;
    for good in [&file, &stream] {
        for i in 0..good.len() {
            for flip in [0xa5u8, 0x80, 0x01] {
                let mut b = good.clone();
                b[i] ^= flip;
                match read_bytes(b, "arrow") {
                    Err(e) => {
                        errors += 1;
                        let e = e.to_string();
                        assert!(e.starts_with("log.parquet"), "byte {i} ^ {flip:#x}: {e}");
                    }
                    Ok((s, _)) => assert!(s.len() <= 2),
                }
            }
        }
    }
    // The panics the IPC check prevents: a buffer sliced outside its body (arrow-buffer), a
    // negative block size unwrapped (arrow-ipc), and a buffer of offsets that is not a whole
    // number of them (arrow-data's `typed_data` assertion, reached by 12 flips before the
    // check of `check_typed_buffers`): no flip may reach the decoder's panics at all.
    let caught = crate::error::caught_decoder_panics();
    assert!(caught[before..].is_empty(), "flips that reached a decoder panic: {:?}", &caught[before..]);
    assert!(errors > 0);
}

/// Issue 42: a buffer of list offsets whose length is not a whole number of 4-byte offsets
/// made arrow-data's `Buffer::typed_data` panic inside the decoder (caught, then refused as
/// "the decoder failed"); the IPC check now refuses it before decoding, naming the buffer.
/// The fixture: in the reader's order the batch's buffers are `query_id`'s validity and
/// values (buffers 0, 1), then `url_md5`'s validity (2) and list offsets (3): 2 rows, so 3
/// offsets of 4 bytes = 12 bytes (hand count), padded to 16 in the body. Declaring 13 bytes
/// keeps the buffer inside the body (the framing check passes) and at least the 12 bytes the
/// rows need (arrow-data's length check passes), so only the whole-number check stops it.
/// Checked to fail: with `check_typed_buffers` returning `Ok(())` at once, the read reaches
/// the decoder's panic ("the decoder failed").
#[test]
fn an_offsets_buffer_of_a_broken_length_is_refused_before_decoding() {
    let good = arrow_bytes(&baidu_batch());
    // The record batch's metadata, found through the footer (`... footer len:i32 ARROW1`).
    let n = good.len();
    let footer_len = i32::from_le_bytes(good[n - 10..n - 6].try_into().unwrap()) as usize;
    let footer = arrow_ipc::root_as_footer(&good[n - 10 - footer_len..n - 10]).unwrap();
    let block = footer.recordBatches().unwrap().get(0);
    let (at, meta) = (block.offset() as usize, block.metaDataLength() as usize);
    let message = arrow_ipc::root_as_message(&good[at + 8..at + meta]).unwrap();
    let offsets = message.header_as_record_batch().unwrap().buffers().unwrap().get(3);
    assert_eq!(offsets.length(), 12, "url_md5's offsets: 3 of 4 bytes");
    let mut pattern = offsets.offset().to_le_bytes().to_vec();
    pattern.extend_from_slice(&12i64.to_le_bytes());
    let found: Vec<usize> = (at..at + meta - 16).filter(|&i| good[i..i + 16] == pattern[..]).collect();
    assert_eq!(found.len(), 1, "the buffer's (offset, length) entry appears once in the metadata");
    let mut bad = good.clone();
    bad[found[0] + 8..found[0] + 16].copy_from_slice(&13i64.to_le_bytes());
    // The unbroken file reads its two rows (the hand-written sessions).
    assert_eq!(read_bytes(good, "arrow").unwrap().0.len(), 2);
    let before = crate::error::caught_decoder_panics().len();
    let e = read_bytes(bad, "arrow").unwrap_err().to_string();
    assert!(e.starts_with("log.parquet: not a readable Arrow IPC file: the record batch at byte "), "{e}");
    assert!(e.contains("has buffer 3 of 13 bytes for 4-byte offsets or keys of a `List"), "{e}");
    assert!(crate::error::caught_decoder_panics().len() == before, "the decoder was reached");
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("study_logs/clicks/synthetic_yandex_layout.txt")
}

#[test]
fn convert_round_trips_text_parquet_arrow_text() {
    // Reference: the text reader's sessions of the bundled click log (Yandex sample layout) (the independent
    // source is the text parser, whose own tests check it by hand).
    let dir = tempfile::tempdir().unwrap();
    let text = LogData::read(&sample(), Format::Yandex, false).unwrap();
    let raw = |p: &Path, f: Format| {
        let mut v = Vec::new();
        for_each_session(crate::input::open(p).unwrap(), &ReadOptions::new(f), &mut |s| {
            v.push(s.to_raw());
            Ok(())
        })
        .unwrap();
        v
    };
    let want = raw(&sample(), Format::Yandex);
    for (to, ext) in [("parquet", "parquet"), ("arrow", "arrow"), ("tsv", "tsv"), ("jsonl", "jsonl"), ("yandex", "txt")] {
        let out = dir.path().join(format!("s.{ext}"));
        let input = crate::input::open(&sample()).unwrap();
        let r = convert::convert(input, &ReadOptions::new(Format::Yandex), &convert::parse_target(to).unwrap(), &out, None).unwrap();
        assert_eq!(r.read.sessions, want.len());
        let back = raw(&out, Format::Auto);
        assert_eq!(back, want, "{to}");
        // Columnar back to text: the same sessions again.
        if ext == "parquet" {
            let tsv = dir.path().join("back.tsv");
            convert::convert(crate::input::open(&out).unwrap(), &ReadOptions::new(Format::Auto), &Format::Tsv, &tsv, None).unwrap();
            assert_eq!(raw(&tsv, Format::Tsv), want);
            let pq = LogData::read(&out, Format::Auto, false).unwrap();
            assert_eq!(pq.log, text.log);
            assert_eq!(pq.vocab.pairs, text.vocab.pairs);
        }
    }
}

#[test]
fn convert_keeps_every_field_in_parquet_and_reports_what_text_drops() {
    // Hand-written yandex-rpc log: session 1 queries at 0 with u1,u2; clicks u2 at 5; queries
    // again at 9 (dwell of u2 = 9 - 5 = 4); second SERP clicks u1 at 12, the session's last
    // action (dwell unknown: NaN). Click times are relative to each query: 5 and 3.
    let text = "1\t0\tQ\t5\t1\tu1\tu2\n1\t5\tC\tu2\n1\t9\tQ\t6\t1\tu1\tu3\n1\t12\tC\tu1\n";
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("rpc.txt");
    std::fs::write(&src, text).unwrap();
    let pq = dir.path().join("rpc.parquet");
    convert::convert(crate::input::open(&src).unwrap(), &ReadOptions::new(Format::YandexRpc), &"parquet".parse().unwrap(), &pq, None).unwrap();
    let mut got = Vec::new();
    for_each_session(crate::input::open(&pq).unwrap(), &ReadOptions::new(Format::Auto), &mut |s| {
        got.push(s.to_raw());
        Ok(())
    })
    .unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!((got[0].id.as_deref(), got[0].query.as_str(), got[0].timestamp), (Some("1"), "5_1", Some(0.0)));
    assert_eq!(got[0].dwell.as_deref(), Some(&[0.0, 4.0][..]));
    assert!(same(got[0].click_times.as_deref().unwrap(), &[f64::NAN, 5.0]));
    assert!(same(got[1].dwell.as_deref().unwrap(), &[f64::NAN, 0.0]));
    assert!(same(got[1].click_times.as_deref().unwrap(), &[3.0, f64::NAN]));
    let y = dir.path().join("rpc.txt.out");
    let r = convert::convert(crate::input::open(&pq).unwrap(), &ReadOptions::new(Format::Auto), &Format::Yandex, &y, None).unwrap();
    assert_eq!((r.dropped_ids, r.dropped_timestamps, r.dropped_dwell, r.dropped_click_times), (2, 2, 2, 2));
    assert_eq!(std::fs::read_to_string(&y).unwrap(), "5_1\tu1,u2 : u2\n6_1\tu1,u3 : u1\n");
}

fn same(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x.is_nan() && y.is_nan()) || x == y)
}

#[test]
fn failed_conversion_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("bad.txt");
    std::fs::write(&src, "q\ta,b : a\nq\ta,,b : a\n").unwrap();
    let out = dir.path().join("out.parquet");
    let err = convert::convert(crate::input::open(&src).unwrap(), &ReadOptions::new(Format::Yandex), &"parquet".parse().unwrap(), &out, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("bad.txt:2:"), "{err}");
    assert!(!out.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
}

/// Rows of (query, docs, clicks) with string ids; `None` is a null click flag.
fn string_batch(rows: &[(&str, &[&str], &[Option<bool>])]) -> RecordBatch {
    use arrow_array::builder::BooleanBuilder;
    let mut docs = ListBuilder::new(StringBuilder::new());
    let mut clicks = ListBuilder::new(BooleanBuilder::new());
    for (_, d, c) in rows {
        for x in *d {
            docs.values().append_value(x);
        }
        docs.append(true);
        for x in *c {
            clicks.values().append_option(*x);
        }
        clicks.append(true);
    }
    let queries: Vec<&str> = rows.iter().map(|r| r.0).collect();
    let cols: Vec<(&str, ArrayRef)> =
        vec![("query", Arc::new(arrow_array::StringArray::from(queries))), ("docs", Arc::new(docs.finish())), ("clicks", Arc::new(clicks.finish()))];
    RecordBatch::try_from_iter(cols).unwrap()
}

#[test]
fn repeated_rows_are_marked_and_a_skipped_row_does_not_leak_its_ids() {
    // Row 2 is bad (a null click flag after its documents `c, d` were read); rows 3 and 4
    // repeat row 1's query and documents. Expected by hand: rows 1, 3, 4 with their own
    // clicks and the documents `a, b`; only row 4 is marked as repeating the row before it
    // (row 3 follows a skipped row, so nothing is assumed about it).
    let rows: [(&str, &[&str], &[Option<bool>]); 4] = [
        ("q", &["a", "b"], &[Some(false), Some(true)]),
        ("q", &["c", "d"], &[Some(true), None]),
        ("q", &["a", "b"], &[Some(true), Some(false)]),
        ("q", &["a", "b"], &[Some(false), Some(false)]),
    ];
    let b = string_batch(&rows);
    for bytes in [arrow_bytes(&b), parquet_bytes(&b)] {
        let mut got = Vec::new();
        let input = Input::from_bytes("log", bytes).unwrap();
        let r = for_each_session(input, &ReadOptions::new(Format::Auto).skip_bad_lines(true), &mut |s| {
            got.push((s.to_raw(), s.same_serp()));
            Ok(())
        })
        .unwrap();
        assert_eq!((r.sessions, r.skipped_lines), (3, 1));
        assert!(r.first_error.as_deref().unwrap().contains("row 2: null click flag at list index 2"), "{:?}", r.first_error);
        let want = [(vec![false, true], false), (vec![true, false], false), (vec![false, false], true)];
        for ((s, same), (c, w)) in got.iter().zip(&want) {
            assert_eq!((s.query.as_str(), &s.docs, &s.clicks, same), ("q", &vec!["a".to_string(), "b".into()], c, w));
        }
    }
}

#[test]
fn dictionary_encoded_arrow_columns_are_read() {
    // An Arrow IPC file whose query and document ids are dictionaries (as pandas
    // `category` columns and Polars `Categorical` write them). Expected: the hand-written
    // rows; the second row has a null document id (a bad row, located at its list index).
    use arrow_array::builder::{BooleanBuilder, StringDictionaryBuilder};
    use arrow_array::types::{Int32Type, Int8Type};
    let mut q = StringDictionaryBuilder::<Int8Type>::new();
    let mut docs = ListBuilder::new(StringDictionaryBuilder::<Int32Type>::new());
    let mut clicks = ListBuilder::new(BooleanBuilder::new());
    for (query, d, c) in [("q1", vec![Some("u1"), Some("u2")], [true, false]), ("q2", vec![Some("u2"), None], [false, false])] {
        q.append_value(query);
        for x in d {
            docs.values().append_option(x);
        }
        docs.append(true);
        for x in c {
            clicks.values().append_value(x);
        }
        clicks.append(true);
    }
    let cols: Vec<(&str, ArrayRef)> = vec![("query", Arc::new(q.finish())), ("docs", Arc::new(docs.finish())), ("clicks", Arc::new(clicks.finish()))];
    let b = RecordBatch::try_from_iter(cols).unwrap();
    for bytes in [arrow_bytes(&b), parquet_bytes(&b)] {
        let mut got = Vec::new();
        let input = Input::from_bytes("log", bytes).unwrap();
        let r = for_each_session(input, &ReadOptions::new(Format::Auto).skip_bad_lines(true), &mut |s| {
            got.push(s.to_raw());
            Ok(())
        })
        .unwrap();
        assert_eq!((r.sessions, r.skipped_lines), (1, 1));
        assert!(r.first_error.as_deref().unwrap().contains("row 2: null document id at list index 2"), "{:?}", r.first_error);
        assert_eq!((got[0].query.as_str(), got[0].docs.clone(), got[0].clicks.clone()), ("q1", vec!["u1".to_string(), "u2".into()], vec![true, false]));
    }
}
