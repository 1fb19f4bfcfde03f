use super::*;
use crate::clickmodels::portable::{fit_by_grade, ByGrade};
use crate::clickmodels::{EmConfig, ModelConfig, ModelKind};
use crate::input::Input;
use crate::logs::{Format, LogData};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_text(text: &str, opts: &LabelOptions) -> Result<(Qrels, LabelSummary)> {
    read_from(Input::from_bytes("labels.txt", text.as_bytes().to_vec())?, opts)
}

fn opts(name: &str, columns: Option<&str>, header: bool) -> LabelOptions {
    LabelOptions::new(LabelFormat::new(name, columns, header).unwrap())
}

/// The judgements, sorted, for comparing label files whose line order differs.
fn sorted(q: &Qrels) -> Vec<(String, String, i32)> {
    let mut v: Vec<(String, String, i32)> = q.topics.iter().flat_map(|(t, d)| d.iter().map(move |(d, g)| (t.clone(), d.clone(), *g))).collect();
    v.sort();
    v
}

#[test]
fn every_layout_fits_the_same_grades_as_the_trec_qrels() {
    // The fixtures are written by study_logs/tools/make_label_samples.py so that each resolves
    // to the judgements of synthetic_qrels.txt (its docstring says how): the independent
    // source of "the same" is the TREC file, read by the TREC reader the project had before.
    let dir = root().join("tests/fixtures/labels");
    let log = LogData::read(&root().join("study_logs/clicks/synthetic_yandex_layout.txt"), Format::Auto, false).unwrap();
    let trec = crate::collection::trec::Qrels::from_file(&dir.join("synthetic_qrels.txt")).unwrap();
    let layouts = [
        ("synthetic_qrels.txt", opts("trec", None, false)),
        ("synthetic_yandex.tsv", opts("yandex", None, false)),
        ("synthetic_tiangong.txt", opts("tiangong", None, false)),
        ("synthetic_labels.tsv", opts("tsv", Some("query=1,region=2,doc=3,label=6"), true).with(Some(-2), None, None).unwrap()),
    ];
    for kind in [ModelKind::Sdbn, ModelKind::Dbn] {
        let cfg = ModelConfig::new(kind, EmConfig { iterations: 20, tolerance: 0.0 });
        let (want, _) = fit_by_grade(&cfg, &log.log, &log.vocab, &trec).unwrap();
        for (file, o) in &layouts {
            let (q, summary) = read_labels(&dir.join(file), o).unwrap();
            assert_eq!(sorted(&q), sorted(&trec), "{file}");
            // Grades 0-4: the generator draws from [0, 0, 0, 1, 1, 2, 2, 3, 4].
            assert_eq!(summary.grades, vec![0, 1, 2, 3, 4], "{file}");
            let (got, _) = fit_by_grade(&cfg, &log.log, &log.vocab, &q).unwrap();
            // Identical per-grade values and tied-fit parameters, bit for bit (the JSON of both).
            assert_eq!(got.to_json().to_string(), want.to_json().to_string(), "{kind} {file}");
            assert_eq!(got.fit_json(), want.fit_json(), "{kind} {file}");
        }
    }
}

#[test]
fn unjudged_lines_are_counted_and_skipped_unless_given_a_grade() {
    // By hand: 5 label lines; two carry -2 (q1 d2, q2 d1), so 3 judged pairs remain and the
    // unjudged ones are not in the qrels (not grade 0).
    let text = "q1,x,d1,2\nq1,x,d2,-2\n\n# comment\nq2,x,d1,-2\nq2,x,d3,0\nq2,x,d4,1\n";
    let o = opts("csv", Some("query=1,doc=3,label=4"), false).with(Some(-2), None, None).unwrap();
    let (q, s) = read_text(text, &o).unwrap();
    assert_eq!((s.lines, s.unjudged_lines, s.pairs, s.unjudged_value), (5, 2, 3, Some(-2)));
    assert_eq!(sorted(&q), vec![("q1".into(), "d1".into(), 2), ("q2".into(), "d3".into(), 0), ("q2".into(), "d4".into(), 1)]);
    assert_eq!(s.grades, vec![0, 1, 2]);
    let notes = s.notes("labels.csv").join("\n");
    assert!(notes.contains("unjudged value -2: 2 lines skipped") && notes.contains("not grade 0"), "{notes}");
    // With --unjudged-grade 0 the same two lines are grade 0: 5 pairs.
    let o = o.with(Some(-2), Some(0), None).unwrap();
    let (q, s) = read_text(text, &o).unwrap();
    assert_eq!((s.unjudged_lines, s.pairs, s.unjudged_grade), (2, 5, Some(0)));
    assert!(sorted(&q).contains(&("q1".into(), "d2".into(), 0)));
    // Without --unjudged, -2 is a grade, and the notes say so.
    let (_, s) = read_text(text, &opts("csv", Some("query=1,doc=3,label=4"), false)).unwrap();
    assert_eq!(s.grades, vec![-2, 0, 1, 2]);
    let notes = s.notes("labels.csv").join("\n");
    assert!(notes.contains("negative labels -2") && notes.contains("give --unjudged -2"), "{notes}");
}

#[test]
fn conflicting_labels_take_the_majority_and_ties_the_lowest_grade() {
    // By hand: q d1 has 3, 3, 1 (majority 3); q d2 has 2, 1 (tie: the lower, 1); q d3 has 0, 0
    // (repeated, no conflict); q d4 has 4, 2, 2, 4, 3 (tie 2 and 4 at two votes each: 2).
    // Conflicting pairs: d1, d2, d4 = 3.
    let text = "q\td1\t3\nq\td1\t3\nq\td1\t1\nq\td2\t2\nq\td2\t1\nq\td3\t0\nq\td3\t0\nq\td4\t4\nq\td4\t2\nq\td4\t2\nq\td4\t4\nq\td4\t3\n";
    let (q, s) = read_text(text, &opts("tsv", Some("query=1,doc=2,label=3"), false)).unwrap();
    assert_eq!(q.topics[0].1, vec![("d1".to_string(), 3), ("d2".to_string(), 1), ("d3".to_string(), 0), ("d4".to_string(), 2)]);
    assert_eq!((s.lines, s.pairs, s.conflicting_pairs), (12, 4, 3));
    // File grades after the vote: 0, 1, 2, 3 (4 lost its vote).
    assert_eq!(s.file_grades, vec![0, 1, 2, 3]);
    let notes = s.notes("l.tsv").join("\n");
    assert!(notes.contains("3 (query, document) pairs have conflicting labels") && notes.contains("a tie goes to the lowest tied grade"), "{notes}");
}

#[test]
fn grade_map_rewrites_the_majority_grades() {
    // By hand: 0-4 onto 0-2 by 0:0,1:1,2:1,3:2,4:2; d3 has 3 and 4 (tie: 3, then mapped to 2).
    let text = "q 0 d0 0\nq 0 d1 1\nq 0 d2 2\nq 0 d3 4\nq 0 d3 3\nq 0 d4 4\n";
    let o = opts("trec", None, false).with(None, None, Some("0:0,1:1,2:1,3:2,4:2")).unwrap();
    let (q, s) = read_text(text, &o).unwrap();
    assert_eq!(q.topics[0].1.iter().map(|x| x.1).collect::<Vec<_>>(), vec![0, 1, 1, 2, 2]);
    assert_eq!((s.file_grades.clone(), s.grades.clone(), s.conflicting_pairs), (vec![0, 1, 2, 3, 4], vec![0, 1, 2], 1));
    assert_eq!(s.grade_map, Some(vec![[0, 0], [1, 1], [2, 1], [3, 2], [4, 2]]));
    let o = opts("trec", None, false).with(None, None, Some("0:0,1:1")).unwrap();
    let e = read_text(text, &o).unwrap_err().to_string();
    assert!(e.contains("grade 2, which --grade-map does not map (it maps 0, 1)"), "{e}");
    for bad in ["0-0", "0:x", "1:1,1:2", ""] {
        assert!(parse_grade_map(bad).unwrap_err().to_string().contains("--grade-map"), "{bad}");
    }
}

#[test]
fn bad_lines_are_file_line_errors() {
    let yandex = opts("yandex", None, false);
    // Line 3 (after a blank line) has 3 fields.
    let e = read_text("1\t0\td1\t1\n\n1\t0\td2\n", &yandex).unwrap_err().to_string();
    assert!(e.starts_with("labels.txt:3:") && e.contains("expected 4 fields") && e.contains("--label-format"), "{e}");
    let e = read_text("1\t0\td1\tgood\n", &yandex).unwrap_err().to_string();
    assert!(e.starts_with("labels.txt:1:") && e.contains("label `good` (column 4) is not an integer"), "{e}");
    // A 6-column file read as TREC: the count and the hint at --label-format.
    let e = read_text("q\tr\td\t1\tx\t2\n", &opts("trec", None, false)).unwrap_err().to_string();
    assert!(e.starts_with("labels.txt:1:") && e.contains("found 6") && e.contains("another layout? give --label-format"), "{e}");
    let tsv = opts("tsv", Some("query=1,doc=3,label=6"), true);
    let e = read_text("h\n\nq\t\td\n", &tsv).unwrap_err().to_string();
    assert!(e.starts_with("labels.txt:3:") && e.contains("at least 6 fields"), "{e}");
    let e = read_text("h\nq\tx\t\tx\tx\t1\n", &tsv).unwrap_err().to_string();
    assert!(e.starts_with("labels.txt:2:") && e.contains("empty document id (column 3)"), "{e}");
    let e = read_text("q 0 d -1\n", &opts("trec", None, false).with(Some(-1), None, None).unwrap()).unwrap_err().to_string();
    assert!(e.contains("no judged (query, document) pair left"), "{e}");
    assert!(read_text("# only a comment\n", &yandex).unwrap_err().to_string().contains("no label lines"));
}

#[test]
fn format_and_column_options_are_checked() {
    for (name, cols, header, want) in [
        ("tsv", None, false, "needs --label-columns"),
        ("yandex", Some("query=1,doc=2,label=3"), false, "fixed columns"),
        ("trec", None, true, "fixed columns"),
        ("json", None, false, "expected one of trec, yandex, tiangong"),
        ("tsv", Some("query=1,doc=1,label=2"), false, "same column"),
        ("tsv", Some("query=0,doc=1,label=2"), false, "number from 1"),
        ("tsv", Some("query=1,doc=2"), false, "query, doc and label are needed"),
        ("tsv", Some("query=1,doc=2,label=3,rank=4"), false, "unknown key `rank`"),
    ] {
        let e = LabelFormat::new(name, cols, header).unwrap_err().to_string();
        assert!(e.contains(want), "{name} {cols:?}: {e}");
    }
    let f = LabelFormat::new("csv", Some("label=6, doc=3 ,query=1,region=2"), true).unwrap();
    assert_eq!(f.to_string(), "csv:query=1,region=2,doc=3,label=6,header");
    assert!(LabelOptions::new(f).with(None, Some(0), None).unwrap_err().to_string().contains("--unjudged-grade needs --unjudged"));
}

#[test]
fn the_summary_round_trips_through_the_model_file() {
    let (_, s) = read_text("q 0 d0 0\nq 0 d1 3\n", &opts("trec", None, false)).unwrap();
    let g = ByGrade { labels: Some(s.clone()), ..ByGrade::default() };
    assert_eq!(LabelSummary::from_json(&g.labels.as_ref().unwrap().to_json(), "m.json").unwrap(), s);
    let mut v = s.to_json();
    v["extra"] = serde_json::json!(1);
    assert!(LabelSummary::from_json(&v, "m.json").unwrap_err().to_string().contains("unknown field `extra`"));
}

#[test]
fn label_inputs_resolve_as_the_cli_flags_combine() {
    // The rules `clicks fit` and Python's `fit(..., qrels=...)` share (LabelInputs::resolve).
    let f = Path::new("labels.tsv");
    let none = LabelInputs::default();
    assert_eq!(none.resolve().unwrap(), None);
    // --qrels FILE is --labels FILE --label-format trec, with the default bootstrap.
    let q = LabelInputs { qrels: Some(f), format: Some("trec"), ..none }.resolve().unwrap().unwrap();
    assert_eq!(q, LabelRequest { path: f.to_path_buf(), options: LabelOptions::new(LabelFormat::Trec), resamples: 200 });
    let err = |i: LabelInputs| i.resolve().unwrap_err().to_string();
    assert!(err(LabelInputs { qrels: Some(f), format: Some("yandex"), ..none }).contains("--qrels reads TREC qrels"));
    assert!(err(LabelInputs { qrels: Some(f), header: true, ..none }).contains("--qrels reads TREC qrels"));
    for (i, flag) in [
        (LabelInputs { unjudged: Some(-2), ..none }, "--unjudged"),
        (LabelInputs { grade_map: Some("0:0"), ..none }, "--grade-map"),
        (LabelInputs { grade_bootstrap: Some(0), ..none }, "--grade-bootstrap"),
        (LabelInputs { columns: Some("query=1,doc=2,label=3"), ..none }, "--label-columns"),
        (LabelInputs { format: Some("tsv"), ..none }, "--label-format"),
    ] {
        assert_eq!(err(i), format!("{flag} goes with --labels FILE (or --qrels FILE)"));
    }
    let l = LabelInputs {
        labels: Some(f),
        format: Some("tsv"),
        columns: Some("query=1,doc=3,label=6"),
        unjudged: Some(-2),
        grade_map: Some("0:0,1:1"),
        grade_bootstrap: Some(0),
        ..none
    };
    let r = l.resolve().unwrap().unwrap();
    assert_eq!(r.resamples, 0);
    assert_eq!(
        r.options,
        LabelOptions::new(LabelFormat::new("tsv", Some("query=1,doc=3,label=6"), false).unwrap()).with(Some(-2), None, Some("0:0,1:1")).unwrap()
    );
    assert!(err(LabelInputs { grade_bootstrap: Some(1_000_001), ..l }).contains("upper bound of 1000000"));
    assert!(err(LabelInputs { labels: Some(f), qrels: Some(f), ..none }).contains("not both"));
}
