//! Entry points for the coverage-guided fuzz targets (`fuzz/`, run by `scripts/fuzz.sh`) and
//! their regression tests (`tests/fuzz_regressions.rs`).
//!
//! Each function feeds arbitrary bytes to a group of readers through the same paths as the
//! command line: the bytes are written to a file and read back with the file readers, so the
//! input layer (gzip and zstd by magic bytes, BOM, CRLF, line limits) is exercised too. A
//! reader may return an error; it must not panic, hang or allocate without bound.

use std::path::{Path, PathBuf};

/// Caught panics inside the Arrow and Parquet decoders still reach the panic hook, so that
/// libFuzzer (which aborts on any panic) reports them (`error::REPORT_CAUGHT_PANICS`).
fn strict() {
    crate::error::REPORT_CAUGHT_PANICS.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// A file per process and target, rewritten for each input.
fn with_file<T>(target: &str, suffix: &str, data: &[u8], read: impl FnOnce(&Path) -> T) -> T {
    let path: PathBuf = std::env::temp_dir().join(format!("serpsim-fuzz-{}-{target}{suffix}", std::process::id()));
    std::fs::write(&path, data).expect("the temporary directory is writable");
    read(&path)
}

/// Splits the input at the first NUL into two parts (e.g. qrels and a run).
fn split2(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[]),
    }
}

/// TREC qrels and runs (both readers, then evaluation of every default measure), LETOR,
/// BARACO logs, rankings and weights, stream files. The first byte picks the reader.
pub fn tables(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    match which % 7 {
        0 => {
            let (q, r) = split2(rest);
            let _ = with_file("qrels", "", q, crate::collection::trec::Qrels::from_file);
            let _ = with_file("run", "", r, crate::collection::trec::Run::from_file);
            // The evaluation readers, then every measure of trec_eval's `-m all_trec`.
            use crate::metrics::{evaluate, EvalOptions, Judgements, MeasurePlan, RankedRun, RunOptions};
            if let Ok(j) = with_file("qrels", "", q, Judgements::read) {
                if let Ok(run) = with_file("run", "", r, |p| RankedRun::read(&j, p, &RunOptions::default())) {
                    if let Ok(plan) = MeasurePlan::parse(&["all_trec"]) {
                        let _ = evaluate(&j, &[run], &plan, &EvalOptions::default());
                    }
                }
            }
        }
        1 => {
            let _ = with_file("letor", "", rest, crate::collection::letor::LetorData::from_file);
        }
        2 => {
            let _ = with_file("baraco", "", rest, crate::baraco::log::ProductionLog::from_file);
        }
        3 => {
            let (log, rankings) = split2(rest);
            if let (Ok(l), Ok(r)) = (std::str::from_utf8(log), std::str::from_utf8(rankings)) {
                if let Ok(mut log) = crate::baraco::log::ProductionLog::parse(l, "log") {
                    let _ = crate::baraco::log::parse_rankings(r, "rankings", &mut log);
                }
                let _ = crate::baraco::log::parse_weights(r, "weights");
            }
        }
        4 => {
            if let Ok(text) = std::str::from_utf8(rest) {
                let mut parts = text.splitn(4, '\u{1}');
                let (t, n, m, u) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
                if let Ok(s) = crate::simulate::stream_io::StreamData::parse(t, n, m, ["topics", "nuggets", "matches"]) {
                    let _ = s.parse_updates(u, "updates");
                }
            }
        }
        5 => {
            let _ = with_file("pairs", "", rest, |p| crate::input::open(p).and_then(|i| crate::wordnet::batch::read_pairs(i, crate::wordnet::Pos::Noun)));
        }
        _ => {
            // A WordNet database: data.noun, index.noun and noun.exc separated by \x01 (the verb
            // files are empty), read as `WordNet::open` reads it.
            let mut parts = rest.splitn(3, |&b| b == 1);
            let (data, index, exc) = (parts.next().unwrap_or(b""), parts.next().unwrap_or(b""), parts.next().unwrap_or(b""));
            let dir = std::env::temp_dir().join(format!("serpsim-fuzz-{}-wordnet", std::process::id()));
            if std::fs::create_dir_all(&dir).is_err() {
                return;
            }
            for (name, bytes) in
                [("data.noun", data), ("index.noun", index), ("noun.exc", exc), ("data.verb", &b""[..]), ("index.verb", b""), ("verb.exc", b"")]
            {
                std::fs::write(dir.join(name), bytes).expect("the temporary directory is writable");
            }
            let _ = crate::wordnet::WordNet::open(&dir);
        }
    }
}

/// Click logs in every layout (and auto-detection), and click-model JSON files.
pub fn clicks(data: &[u8]) {
    strict();
    use crate::logs::{Format, LogData};
    let Some((&which, rest)) = data.split_first() else { return };
    let format = match which % 8 {
        0 => Format::Yandex,
        1 => Format::Tsv,
        2 => Format::Jsonl,
        3 => "ncm".parse().expect("a known format"),
        4 => Format::YandexRpc,
        5 => Format::Auto,
        6 => "bracketed:query=2,documents=1,clicks=3,dwell=4".parse().expect("a valid column spec"),
        _ => {
            let _ = with_file("model", ".json", rest, crate::clickmodels::io::load);
            return;
        }
    };
    let _ = with_file("clicks", "", rest, |p| LogData::read(p, format, which & 0x80 != 0));
}

/// Gaze files (EyeLink ASC and CSV/TSV exports: summary and both fixation detectors), study
/// logs, AOI files, Data Viewer fixation reports and cursor traces.
pub fn study(data: &[u8]) {
    use crate::study::{aoi, asc, cursor, events, fixreport, gaze_csv, log};
    let Some((&which, rest)) = data.split_first() else { return };
    match which % 6 {
        0 => {
            let _ = with_file("asc", ".asc", rest, |p| asc::summarize(std::io::BufReader::new(std::fs::File::open(p).unwrap()), "f.asc"));
        }
        1 | 2 => {
            use crate::study::detect::{IdtParams, IvtParams};
            let method = if which % 6 == 1 { events::Method::Idt(IdtParams::default()) } else { events::Method::Ivt(IvtParams::default()) };
            // The CLI's defaults: a 38 x 30.2 cm screen at 68 cm; rate from the file.
            let cfg = events::DetectConfig { method, screen_cm: (38.0, 30.2), distance_cm: 68.0, screen_px: Some((1920.0, 1080.0)), rate_hz: None };
            let _ = with_file("gaze", "", rest, |p| events::detect_file(p, None, &gaze_csv::CsvOptions::default(), &cfg, None));
        }
        3 => {
            let _ = with_file("log", ".jsonl", rest, log::StudyLog::from_file);
        }
        4 => {
            let _ = with_file("aoi", ".csv", rest, aoi::AoiSet::from_file);
            let _ = with_file("fix", ".csv", rest, fixreport::read_fixation_report);
        }
        _ => {
            let _ = with_file("cursor", ".csv", rest, cursor::read_cursor);
            let _ = with_file("cursor", ".csv", rest, |p| cursor::read_cursor_with(p, &cursor::CursorOptions::default()));
        }
    }
}

/// Scenario TOML (parsed, then loaded against an empty directory, so that referenced files
/// are missing but every parameter is validated) and measure names.
pub fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Some(names) = text.strip_prefix("m:") {
        let names: Vec<&str> = names.split_whitespace().collect();
        let _ = crate::metrics::MeasurePlan::parse(&names);
        for name in names {
            let _ = crate::metrics::names::parse_metric(name);
        }
        return;
    }
    // The generators' knobs (issue 29): parsing and validation must refuse every value above
    // its bound (src/limits.rs) without panicking.
    if let Some(study) = text.strip_prefix("s:") {
        if let Ok(c) = toml::from_str::<crate::study::synthetic::StudyConfig>(study) {
            let _ = c.validate();
        }
        return;
    }
    if let Some(suggest) = text.strip_prefix("g:") {
        if let Ok(c) = toml::from_str::<crate::suggest::synthetic::SyntheticSuggestConfig>(suggest) {
            let _ = c.validate();
        }
        return;
    }
    if let Ok(scenario) = crate::scenario::Scenario::parse(text, "fuzz.toml") {
        // Generating a collection at its upper bound is allowed and takes long by design
        // (10^8 documents); the fuzzer generates only small ones, so its time limit finds hangs
        // and its memory limit unbounded allocations, not the cost of valid large studies.
        if generated_documents(&scenario) <= 100_000 {
            let _ = scenario.load(&std::env::temp_dir().join("serpsim-fuzz-empty"));
        }
    }
}

/// Documents (and ranked lists) a scenario's generator would make; 0 for file collections.
fn generated_documents(s: &crate::scenario::Scenario) -> u64 {
    use crate::scenario::CollectionSource;
    match &s.collection {
        CollectionSource::Synthetic(c) => (c.topics as u64).saturating_mul(c.docs_per_topic as u64),
        CollectionSource::SyntheticQueries(c) => {
            let g = &c.generator;
            let lists = (g.queries_per_strategy as u64).saturating_mul(c.strategies.len() as u64).saturating_mul(g.list_length as u64);
            (g.topics as u64).saturating_mul((g.docs_per_topic as u64).saturating_add(lists))
        }
        _ => 0,
    }
}

/// A columnar click log read both ways: the in-memory reader (`LogData::read`, the general
/// Arrow-based reader) and the streamed first pass of a fit (`FileSource`, which tries the
/// page-level Parquet reader first). Bit 0x80 of the selector asks for `--skip-bad-lines`.
///
/// Not [`strict`]: a panic inside the third-party decoders that `error::catch_decoder_panic`
/// catches and refuses as a clean `FILE: reason` error counts as a refusal here, as it does
/// for the user (no panic text, exit 1). Two are known and not yet prevented by validation
/// (docs/reliability.md): the parquet crate's general reader on corrupt definition levels
/// (`fuzz/regressions/parquet/`), and arrow-data on a typed buffer whose length is not a whole
/// number of elements. A panic that escapes, an abort, a hang or running out of memory is
/// still a finding.
fn columnar_log(target: &str, container: &str, which: u8, rest: &[u8]) {
    use crate::logs::{FileSource, Format, LogData, SessionSource};
    let formats: [Format; 2] = [container.parse().expect("a known format"), Format::Auto];
    let format = formats[usize::from(which & 1)].clone();
    let skip = which & 0x80 != 0;
    let suffix = format!(".{container}");
    let _ = with_file(target, &suffix, rest, |p| LogData::read(p, format.clone(), skip));
    let _ = with_file(target, &suffix, rest, |p| FileSource::new(p, format.clone(), skip).pass(&mut |_| {}));
}

/// Arrow IPC click logs (file and stream formats).
pub fn arrow_ipc(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    columnar_log("arrow", "arrow", which, rest);
}

/// Parquet click logs (the page reader of the streamed fits and the general reader).
pub fn parquet(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    columnar_log("parquet", "parquet", which, rest);
}

/// Subtopic judgements `topic subtopic docno grade`, through their public entry points: a
/// scenario's `subtopic_qrels` (loaded onto its TREC collection) and `eval --subtopics` /
/// `--subtopic-weights` (added to judgements). The input is split at the first NUL into the
/// qrels and the subtopic file.
pub fn subtopic_qrels(data: &[u8]) {
    let (qrels, subtopics) = split2(data);
    let dir = std::env::temp_dir().join(format!("serpsim-fuzz-{}-subtopics", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).expect("the temporary directory is writable");
    write("qrels", qrels);
    write("subtopics", subtopics);
    write("run", b"1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 a 1 1.0 r\n");
    let scenario = "[collection]\nsource = \"trec\"\nqrels = \"qrels\"\nruns = [\"run\"]\nsubtopic_qrels = \"subtopics\"\n\n\
                    [[profiles]]\nname = \"p\"\ncontinuation = { model = \"rbp\", p = 0.8 }\n";
    if let Ok(s) = crate::scenario::Scenario::parse(scenario, "fuzz.toml") {
        let _ = s.load(&dir);
    }
    if let Ok(mut j) = crate::metrics::Judgements::read(&dir.join("qrels")) {
        if let Ok(text) = std::str::from_utf8(subtopics) {
            let _ = j.clone().add_subtopics(text, "subtopics");
            let _ = j.add_subtopic_weights(text, "subtopics");
        }
    }
}

/// Relevance labels (`clicks fit --labels FILE --label-format F`) in every layout. The first
/// byte picks the layout and the options.
pub fn labels(data: &[u8]) {
    use crate::clickmodels::labels::{read_labels, LabelFormat, LabelOptions};
    let Some((&which, rest)) = data.split_first() else { return };
    let format = match which % 6 {
        0 => LabelFormat::new("trec", None, false),
        1 => LabelFormat::new("yandex", None, false),
        2 => LabelFormat::new("tiangong", None, false),
        3 => LabelFormat::new("tsv", Some("query=1,doc=2,label=3"), which & 0x40 != 0),
        4 => LabelFormat::new("csv", Some("query=1,region=2,doc=3,label=4"), which & 0x40 != 0),
        _ => LabelFormat::new("whitespace", Some("query=2,doc=1,label=3"), false),
    };
    let Ok(format) = format else { return };
    let opts = if which & 0x80 != 0 { LabelOptions::new(format).with(Some(-1), Some(0), Some("0:0,1:1,2:1,3:2")) } else { Ok(LabelOptions::new(format)) };
    let Ok(opts) = opts else { return };
    let _ = with_file("labels", "", rest, |p| read_labels(p, &opts));
}
