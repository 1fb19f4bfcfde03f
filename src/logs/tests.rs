//! Tests of the click-log readers. Expected values come from the files' own content read by
//! hand (or counted with awk, as stated) and from hand derivations written next to them.

use super::*;
use std::io::Write;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn raw_sessions(text: &str, format: Format) -> Result<(Vec<RawSession>, ReadReport)> {
    let mut out = Vec::new();
    let input = Input::from_bytes("t", text.as_bytes().to_vec())?;
    let r = for_each_session(input, &ReadOptions::new(format), &mut |s| {
        out.push(s.to_raw());
        Ok(())
    })?;
    Ok((out, r))
}

fn same(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x.is_nan() && y.is_nan()) || x == y)
}

#[test]
fn yandex_line_with_several_impressions() {
    let text = "17514_0\ta,b,c : b , a , b , zz; 17514_0\tc,b,a :  ;  7_0\tx,y :\n";
    let d = LogData::parse(text, Format::Yandex, "t", false).unwrap();
    assert_eq!(d.log.len(), 3);
    assert_eq!(d.log.session(0).clicks, &[true, true, false]);
    assert_eq!(d.log.session(1).clicks, &[false, false, false]);
    assert_eq!(d.vocab.queries, vec!["17514_0", "7_0"]);
    // (q, a) is the same pair in sessions 0 and 1.
    assert_eq!(d.log.session(0).pairs[0], d.log.session(1).pairs[2]);
    assert_eq!(d.vocab.pair_count(), 5);
}

#[test]
fn yandex_rejects_malformed_line_with_its_number() {
    let text = "q\ta,b : a\nq\ta,b : b; q a,b : a\n";
    let err = LogData::parse(text, Format::Yandex, "log.txt", false).unwrap_err().to_string();
    assert!(err.starts_with("log.txt:2:"), "{err}");
    assert!(err.contains("impression 2") && err.contains("TAB"), "{err}");
    let err = LogData::parse("q\ta,,b : a\n", Format::Yandex, "f", false).unwrap_err().to_string();
    assert!(err.contains("f:1:") && err.contains("empty document id"), "{err}");
    let err = LogData::parse("q\ta,b a\n", Format::Yandex, "f", false).unwrap_err().to_string();
    assert!(err.contains("f:1:") && err.contains("`:`"), "{err}");
}

#[test]
fn skip_bad_lines_counts_them() {
    let text = "q\ta,b : a\nbroken\nq\tb,a :\n";
    let d = LogData::parse(text, Format::Yandex, "f", true).unwrap();
    assert_eq!(d.log.len(), 2);
    assert_eq!(d.report.skipped_lines, 1);
    assert!(d.report.first_error.as_deref().unwrap().contains("f:2:"));
}

#[test]
fn tsv_and_jsonl_formats() {
    let tsv = "session_id\tquery\tdocuments\tclicks\ts1\tq\td1,d2\t0,1\t12.5\t0,30\ns2\tq\td2,d1\t1,0\n";
    let tsv = tsv.replacen("clicks\ts1", "clicks\ns1", 1);
    let d = LogData::parse(&tsv, Format::Tsv, "t", false).unwrap();
    assert_eq!(d.log.len(), 2);
    assert_eq!(d.log.session(1).clicks, &[true, false]);
    let err = LogData::parse("s\tq\td1,d2\t0\n", Format::Tsv, "t", false).unwrap_err().to_string();
    assert!(err.contains("t:1:") && err.contains("2 documents but 1 click flags"), "{err}");
    let err = LogData::parse("s\tq\td1\t2\n", Format::Tsv, "t", false).unwrap_err().to_string();
    assert!(err.contains("must be 0 or 1"), "{err}");

    let jl = r#"{"session":"s1","query":"q","documents":["d1","d2"],"clicks":[0,1],"dwell":[0,12]}
{"query":7,"documents":["d2","d1"],"clicks":[true,false]}
"#;
    let d = LogData::parse(jl, Format::Jsonl, "j", false).unwrap();
    assert_eq!(d.log.len(), 2);
    assert_eq!(d.vocab.queries, vec!["q", "7"]);
    let err = LogData::parse("{\"query\":\"q\",\"documents\":[\"a\"],\"clicks\":[1],\"extra\":1}\n", Format::Jsonl, "j", false).unwrap_err().to_string();
    assert!(err.contains("j:1:") && err.contains("extra"), "{err}");
}

#[test]
fn file_source_streams_same_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("l.txt");
    std::fs::write(&p, "q\ta,b : a; r\tb,a : a\n").unwrap();
    let mut src = FileSource::new(&p, Format::Yandex, false);
    let mut seen = Vec::new();
    for _ in 0..2 {
        src.pass(&mut |s| seen.push((s.query, s.pairs.to_vec(), s.clicks.to_vec()))).unwrap();
    }
    assert_eq!(seen.len(), 4);
    assert_eq!(seen[0], seen[2]);
    assert_eq!(seen[1].2, vec![false, true]);
}

/// tests/fixtures/clicklogs/rpc_handmade.txt, derived by hand (docs/clickmodels.md rules):
/// session 10, SERP 1 (query 501, region 2, at 0): u2 clicked at 5, u1 at 25, u9 (not on the
/// SERP) at 26, next query at 40. Dwell u2 = 25 - 5 = 20, u1 = 26 - 25 = 1 (the next action
/// is the click on u9); click times u1 25, u2 5. SERP 2 (502_2 at 40): u6 clicked at 47, the
/// session's last action: dwell unknown (NaN), click time 47 - 40 = 7. Session 11 (501_2 at
/// 0): u2 clicked at 3 and at 9: dwell 9 - 3 = 6 plus the unknown dwell of the last click =
/// NaN; click time 3. One unmatched click (u9).
#[test]
fn yandex_rpc_sessions_with_click_times_and_dwell() {
    let text = std::fs::read_to_string(root().join("tests/fixtures/clicklogs/rpc_handmade.txt")).unwrap();
    let (s, r) = raw_sessions(&text, Format::YandexRpc).unwrap();
    let nan = f64::NAN;
    assert_eq!(s.len(), 3);
    assert_eq!((r.sessions, r.unmatched_clicks, r.skipped_lines), (3, 1, 0));
    assert_eq!(s[0].id.as_deref(), Some("10"));
    assert_eq!(s[0].query, "501_2");
    assert_eq!(s[0].docs, ["u1", "u2", "u3", "u4"]);
    assert_eq!(s[0].clicks, [true, true, false, false]);
    assert!(same(s[0].dwell.as_ref().unwrap(), &[1.0, 20.0, 0.0, 0.0]));
    assert!(same(s[0].click_times.as_ref().unwrap(), &[25.0, 5.0, nan, nan]));
    assert_eq!(s[0].timestamp, Some(0.0));
    assert_eq!((s[1].query.as_str(), s[1].timestamp), ("502_2", Some(40.0)));
    assert_eq!(s[1].clicks, [false, false, true]);
    assert!(same(s[1].dwell.as_ref().unwrap(), &[0.0, 0.0, nan]));
    assert!(same(s[1].click_times.as_ref().unwrap(), &[nan, nan, 7.0]));
    assert_eq!(s[2].id.as_deref(), Some("11"));
    assert_eq!(s[2].clicks, [true, false, false, false]);
    assert!(same(s[2].dwell.as_ref().unwrap(), &[nan, 0.0, 0.0, 0.0]));
    assert!(same(s[2].click_times.as_ref().unwrap(), &[3.0, nan, nan, nan]));
    // The interned log keeps dwell per result for the models; (501_2, u2) is one pair.
    let d = LogData::parse(&text, Format::YandexRpc, "t", false).unwrap();
    assert_eq!(d.log.session_dwell(0).unwrap(), &[1.0f32, 20.0, 0.0, 0.0]);
    assert!(d.log.session_dwell(1).unwrap()[2].is_nan());
    assert_eq!(d.log.session(0).pairs[1], d.log.session(2).pairs[0]);
    assert_eq!(d.vocab.queries, ["501_2", "502_2"]);
}

#[test]
fn yandex_rpc_malformed_lines_name_file_and_line() {
    let cases = [
        ("1\t0\tC\tu1\n", 1, "before any query"),
        ("1\t0\tQ\t5\t1\tu1\n1\t9\tC\tu1\n1\t3\tC\tu1\n", 3, "earlier than"),
        ("1\t0\tM\t7\n", 1, "Personalized Web Search Challenge"),
        ("1\t0\tQ\t5\t1\n", 1, "without URLs"),
        ("1\t0\tQ\t5\t1\tu1\n1\t4\tC\tu1\tx\n", 2, "4 fields"),
        ("1\tsoon\tQ\t5\t1\tu1\n", 1, "TimePassed"),
        ("1\t0\tX\t5\n", 1, "neither Q"),
    ];
    for (text, line, what) in cases {
        let err = LogData::parse(text, Format::YandexRpc, "rpc.txt", false).unwrap_err().to_string();
        assert!(err.starts_with(&format!("rpc.txt:{line}:")) && err.contains(what), "{text:?}: {err}");
    }
    // Skipping: the bad click line goes, the session stays.
    let d = LogData::parse("1\t0\tQ\t5\t1\tu1\tu2\n1\t2\tC\n1\t4\tC\tu2\n", Format::YandexRpc, "r", true).unwrap();
    assert_eq!((d.report.skipped_lines, d.log.len()), (1, 1));
    assert_eq!(d.log.session(0).clicks, &[false, true]);
}

/// study_logs/clicks/ncm_handmade_train.txt: 30 hand-made lines in the layout of GraphCM's
/// demo `train_per_query_quid.txt` (written by study_logs/tools/make_layout_samples.py).
/// Read by hand: line 1 is session 460, query 798, documents [2270, 2271, 4088, ...], no
/// click; line 16 (query 1000) has clicks on ranks 2 and 3.
/// With awk: 30 lines, 27 distinct queries (`cut -f2 | sort -u | wc -l`), 10 clicks
/// (`cut -f5 | grep -o 1 | wc -l`).
#[test]
fn ncm_layout_on_a_file_in_the_graphcm_demo_layout() {
    let path = root().join("study_logs/clicks/ncm_handmade_train.txt");
    let d = LogData::read(&path, "ncm".parse().unwrap(), false).unwrap();
    assert_eq!(d.log.len(), 30);
    assert_eq!(d.vocab.queries.len(), 27);
    assert_eq!(d.log.clicks.iter().filter(|&&c| c).count(), 10);
    assert_eq!(d.vocab.queries[0], "798");
    let first = d.log.session(0);
    assert_eq!(d.vocab.docs[d.vocab.pairs[first.pairs[0] as usize].1 as usize], "2270");
    assert_eq!(d.vocab.docs[d.vocab.pairs[first.pairs[2] as usize].1 as usize], "4088");
    assert_eq!(d.log.session(15).clicks, &[false, true, true, false, false, false, false, false, false, false]);
    assert!(d.log.dwell.is_empty());
    // The label file has a sixth column (relevance); it is ignored. First line: query 232.
    let labels = LogData::read(&root().join("study_logs/clicks/ncm_handmade_labels.txt"), Format::Auto, false).unwrap();
    assert_eq!(labels.report.format, Some(Format::Bracketed(Columns::NCM)));
    assert_eq!((labels.log.len(), labels.vocab.queries[0].as_str()), (8, "232"));
}

#[test]
fn bracketed_lists_python_and_json_styles_and_errors() {
    let f: Format = "bracketed:query=1,documents=2,clicks=3,dwell=4".parse().unwrap();
    assert_eq!(f.to_string(), "bracketed:query=1,documents=2,clicks=3,dwell=4");
    let d = LogData::parse("q\t['a,b', \"c\"]\t[True, False]\t[12.5, 0]\n", f.clone(), "b", false).unwrap();
    assert_eq!(d.vocab.docs, ["a,b", "c"]);
    assert_eq!(d.log.session(0).clicks, &[true, false]);
    assert_eq!(d.log.session_dwell(0).unwrap(), &[12.5f32, 0.0]);
    for (text, what) in [
        ("q\t[a, b]\t[1]\t[0, 0]\n", "2 documents but 1 click flags"),
        ("q\ta, b\t[1, 0]\t[0, 0]\n", "bracketed list"),
        ("q\t[a, b]\t[1, 2]\t[0, 0]\n", "must be 0, 1"),
        ("q\t['a, b]\t[1]\t[0]\n", "unterminated quote"),
        ("q\t[a, b]\n", "at least 4"),
    ] {
        let err = LogData::parse(text, f.clone(), "b.txt", false).unwrap_err().to_string();
        assert!(err.starts_with("b.txt:1:") && err.contains(what), "{text:?}: {err}");
    }
    for bad in ["bracketed:query=1,documents=2", "bracketed:query=1,documents=1,clicks=2", "bracketed:q=1", "ncmx"] {
        assert!(bad.parse::<Format>().is_err(), "{bad}");
    }
    for name in ["yandex", "yandex-rpc", "tsv", "jsonl", "ncm", "auto"] {
        assert_eq!(name.parse::<Format>().unwrap().to_string(), name);
    }
}

#[test]
fn auto_detects_each_real_layout_and_refuses_what_it_cannot_tell() {
    let detect = |path: PathBuf| LogData::read(&path, Format::Auto, false).map(|d| d.report.format.unwrap());
    assert_eq!(detect(root().join("study_logs/clicks/synthetic_yandex_layout.txt")).unwrap(), Format::Yandex);
    assert_eq!(detect(root().join("study_logs/clicks/ncm_handmade_train.txt")).unwrap(), "ncm".parse().unwrap());
    assert_eq!(detect(root().join("tests/fixtures/clicklogs/rpc_handmade.txt")).unwrap(), Format::YandexRpc);
    let text = |t: &str, f: Format| LogData::parse(t, f, "x.log", false);
    assert_eq!(text("session_id\tquery\tdocuments\tclicks\ns\tq\ta,b\t0,1\n", Format::Auto).unwrap().report.format, Some(Format::Tsv));
    assert_eq!(text("{\"query\":1,\"documents\":[2],\"clicks\":[1]}\n", Format::Auto).unwrap().report.format, Some(Format::Jsonl));
    let err = text("q1 d1 d2 1 0\n", Format::Auto).unwrap_err().to_string();
    assert!(err.starts_with("x.log:1: cannot detect the log format") && err.contains("1 TAB-separated field(s): `q1 d1 d2 1 0`"), "{err}");
    let err = text("# only a comment\n\n", Format::Auto).unwrap_err().to_string();
    assert!(err.contains("no sessions"), "{err}");
    // A wrong explicit format says what the line looks like.
    let ncm = std::fs::read_to_string(root().join("study_logs/clicks/ncm_handmade_train.txt")).unwrap();
    let err = text(&ncm, Format::Yandex).unwrap_err().to_string();
    assert!(err.starts_with("x.log:1:") && err.contains("looks like the `ncm` format (--format ncm)"), "{err}");
}

#[test]
fn empty_log_is_an_error_not_an_empty_model() {
    for (text, skip, what) in [("", false, "empty"), ("\n# c\n", false, "empty"), ("bad\nworse\n", true, "all 2 data line(s) were bad")] {
        let err = LogData::parse(text, Format::Yandex, "e.txt", skip).unwrap_err().to_string();
        assert!(err.starts_with("e.txt: no sessions") && err.contains(what), "{text:?}: {err}");
    }
}

#[test]
fn invalid_utf8_line_is_skippable_and_located() {
    let bytes = b"q\ta,b : a\nq\ta,\xffb : a\nq\tb,a :\n".to_vec();
    let read = |skip| LogData::from_input(Input::from_bytes("u.txt", bytes.clone()).unwrap(), &ReadOptions::new(Format::Yandex).skip_bad_lines(skip));
    let err = read(false).unwrap_err().to_string();
    assert_eq!(err, "u.txt:2: invalid UTF-8 (byte 0xff at column 5)");
    let d = read(true).unwrap();
    assert_eq!((d.log.len(), d.report.skipped_lines), (2, 1));
    assert!(d.report.warnings("u.txt")[0].contains("u.txt:2: invalid UTF-8"));
}

#[test]
fn gzip_bom_crlf_give_the_same_log() {
    let plain = "q\ta,b : a\r\nr\tb,a :\r\n";
    let a = LogData::parse(plain, Format::Yandex, "p", false).unwrap();
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(plain.as_bytes());
    for bytes in [gz(plain.as_bytes()), bom] {
        let b = LogData::from_input(Input::from_bytes("g", bytes).unwrap(), &ReadOptions::new(Format::Yandex)).unwrap();
        assert_eq!(a.log, b.log);
        assert_eq!(b.vocab.queries, ["q", "r"]);
    }
}

#[test]
fn long_lines_are_refused_and_long_tokens_are_shortened_in_errors() {
    let line = format!("q\t{} : a\n", "d,".repeat(100));
    let opts = ReadOptions { max_line: 64, ..ReadOptions::new(Format::Yandex) };
    let err = LogData::from_input(Input::from_bytes("l.txt", line.into_bytes()).unwrap(), &opts).unwrap_err().to_string();
    assert!(err.starts_with("l.txt:1: line longer than 64 bytes"), "{err}");
    // A 1 MB click flag is quoted with at most 60 characters and its length.
    let flag = "x".repeat(1 << 20);
    let err = LogData::parse(&format!("s\tq\ta\t{flag}\n"), Format::Tsv, "t.tsv", false).unwrap_err().to_string();
    assert!(err.len() < 200 && err.contains("(1048576 bytes)"), "{}", &err[..200.min(err.len())]);
}

#[test]
fn file_source_on_a_pipe_buffers_instead_of_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("log.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, "q\ta,b : a; r\tb,a : a\n").unwrap())
    };
    assert!(!is_rereadable(&fifo) && !is_rereadable(Path::new("-")));
    let mut src = FileSource::new(&fifo, Format::Yandex, false);
    let mut seen = Vec::new();
    for _ in 0..3 {
        src.pass(&mut |s| seen.push((s.query, s.clicks.to_vec()))).unwrap();
    }
    writer.join().unwrap();
    assert_eq!(seen.len(), 6);
    assert_eq!(seen[0], seen[2]);
    assert_eq!(seen[5], (1, vec![false, true]));
    assert!(src.report.buffered);
    assert!(src.report.warnings("log.fifo")[0].contains("kept in memory"));
}

#[test]
fn dwell_stays_aligned_when_sessions_with_and_without_it_mix() {
    let mut log = ClickLog::new();
    log.push(0, &[0, 1], &[true, false]);
    log.push_with_dwell(0, &[1], &[true], Some(&[3.5]));
    log.push(1, &[2], &[false]);
    assert_eq!(log.dwell.len(), log.pairs.len());
    assert!(log.session_dwell(0).unwrap().iter().all(|x| x.is_nan()));
    assert_eq!(log.session_dwell(1).unwrap(), &[3.5f32]);
    let sub = log.subset([1, 2]);
    assert_eq!(sub.session_dwell(0).unwrap(), &[3.5f32]);
    assert!(sub.session_dwell(1).unwrap()[0].is_nan());
}

/// The sessions (with their `same_serp` mark) and the result of one Yandex-line parser.
fn yandex_parse(
    line: &str,
    parser: fn(&str, &mut SessionBuf, &mut dyn FnMut(&SessionBuf) -> std::result::Result<(), String>) -> std::result::Result<(), String>,
) -> (Vec<(RawSession, bool)>, std::result::Result<(), String>) {
    let mut out = Vec::new();
    let r = parser(line, &mut SessionBuf::default(), &mut |s| {
        out.push((s.to_raw(), s.same_serp()));
        Ok(())
    });
    (out, r)
}

#[test]
fn yandex_byte_parser_matches_the_text_parser() {
    // Reference: the `str` parser (`yandex_impressions_text`, the parser before the byte-level
    // one, still used for non-ASCII lines), on ASCII lines made to hit every branch: ASCII
    // whitespace incl. U+000B and U+000C (both `char::is_whitespace`), empty impressions,
    // empty click ids, a `:` inside the clicked list, and each error.
    let lines = [
        "17514_0\ta,b,c : b , a , b , zz; 17514_0\tc,b,a :  ;  7_0\tx,y :",
        "q\ta,b : a; q\ta,b : b;q\ta,b : a,b",
        "q\ta,b : a;  q\ta,b : b; q\t a,b : b",
        "\x0bq\x0c\ta\x0b,b : a\x0b; ;;",
        "q\ta,b : a ,, b,",
        ";;",
        "",
        "q a,b : a",
        "\ta,b : a",
        "q\ta,b",
        "q\ta,,b : a",
        "q\ta,b : a b",
        "q\ta:b,c : c",
        "q\ta,b : a; q\ta,b : a b",
        "q\ta,b : a; q\ta,b",
    ];
    for line in lines {
        let (text, text_r) = yandex_parse(line, formats::yandex_impressions_text);
        let (bytes, bytes_r) = yandex_parse(line, formats::yandex_impressions_ascii);
        assert_eq!(bytes_r, text_r, "{line:?}");
        let strip = |v: &[(RawSession, bool)]| v.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>();
        assert_eq!(strip(&bytes), strip(&text), "{line:?}");
    }
    // By hand: impressions 2 and 3 repeat impression 1's `q<TAB>a,b` (the 3rd after spaces,
    // which the impression's trim removes); the 4th differs in its text (` a,b`), so it is not
    // marked although it parses to the same SERP.
    let (s, r) = yandex_parse("q\ta,b : a; q\ta,b : b;  q\ta,b : a,b; q\t a,b :", formats::yandex_impressions_ascii);
    assert_eq!(r, Ok(()));
    assert_eq!(s.iter().map(|(_, same)| *same).collect::<Vec<_>>(), [false, true, true, false]);
    let clicks: Vec<Vec<bool>> = s.iter().map(|(x, _)| x.clicks.clone()).collect();
    assert_eq!(clicks, [vec![true, false], vec![false, true], vec![true, true], vec![false, false]]);
    assert!(s.iter().all(|(x, _)| x.query == "q" && x.docs == ["a", "b"]));
    // A non-ASCII line goes to the `str` parser: `trim` removes U+00A0 (NO-BREAK SPACE, a
    // Unicode White_Space character) around the query id.
    let d = LogData::parse("\u{a0}q\u{a0}\ta,b : b\n", Format::Yandex, "t", false).unwrap();
    assert_eq!(d.vocab.queries, ["q"]);
}

#[test]
fn repeated_serps_reuse_indices_without_mixing_queries() {
    // By hand: first occurrences q, a, b then r; pairs (q,a)=0, (q,b)=1, (r,a)=2, (r,b)=3.
    // Sessions 2 and 4 repeat the SERP before them on the line (reused indices), session 3
    // has other ids (`r`), and session 5 starts a new line (interned again: the same indices).
    let d = LogData::parse("q\ta,b : b; q\ta,b : a; r\ta,b :; r\ta,b : a\nq\ta,b : b\n", Format::Yandex, "t", false).unwrap();
    assert_eq!(d.vocab.queries, ["q", "r"]);
    assert_eq!(d.vocab.docs, ["a", "b"]);
    assert_eq!(d.vocab.pairs, [(0, 0), (0, 1), (1, 0), (1, 1)]);
    let got: Vec<(u32, Vec<u32>, Vec<bool>)> = d.log.iter().map(|s| (s.query, s.pairs.to_vec(), s.clicks.to_vec())).collect();
    let want = [
        (0, vec![0, 1], vec![false, true]),
        (0, vec![0, 1], vec![true, false]),
        (1, vec![2, 3], vec![false, false]),
        (1, vec![2, 3], vec![true, false]),
        (0, vec![0, 1], vec![false, true]),
    ];
    assert_eq!(got, want);
    // Streaming (FileSource) gives the same sessions.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.txt");
    std::fs::write(&path, "q\ta,b : b; q\ta,b : a; r\ta,b :; r\ta,b : a\nq\ta,b : b\n").unwrap();
    let mut src = FileSource::new(&path, Format::Yandex, false);
    let mut streamed = Vec::new();
    src.pass(&mut |s| streamed.push((s.query, s.pairs.to_vec(), s.clicks.to_vec()))).unwrap();
    assert_eq!(streamed, want);
}

#[test]
fn uleb128_reads_the_specification_examples_and_refuses_truncated_or_overlong_input() {
    // Hand-encoded (7 bits per byte, low group first, high bit = more): 300 = 0b10_0101100
    // -> 0xAC 0x02; u64::MAX needs nine 0xFF and a final 0x01.
    assert_eq!(super::read_uleb128(&[0x00]), Ok((0, 1)));
    assert_eq!(super::read_uleb128(&[0x7f, 0xff]), Ok((127, 1)));
    assert_eq!(super::read_uleb128(&[0x80, 0x01]), Ok((128, 2)));
    assert_eq!(super::read_uleb128(&[0xac, 0x02, 0x00]), Ok((300, 2)));
    let mut max = vec![0xff; 9];
    max.push(0x01);
    assert_eq!(super::read_uleb128(&max), Ok((u64::MAX, 10)));
    assert!(super::read_uleb128(&[]).is_err());
    assert!(super::read_uleb128(&[0x80, 0x80]).unwrap_err().contains("truncated"));
    assert!(super::read_uleb128(&[0x80; 11]).unwrap_err().contains("longer than 10"));
}
