//! One test table over the file readers: every reader, given a small project-made clean input
//! (hand-written below), must give the clean file's result when the same bytes start with a
//! UTF-8 byte-order mark or use CRLF line ends, and the clean file's result or a `FILE:2: ...`
//! error when line 2 holds one invalid byte (0xff). The expected values are the clean file's own parse (the property
//! is equality across encodings of the same text, derived by hand from the format docs: a BOM
//! and `\r` are not part of any field) and the line number where the byte was put.

use crate::error::Result;
use std::path::Path;

/// A reader under test: reads the file at `path` (companion files it needs are written next to
/// it, clean) and renders what it read, so two reads can be compared.
type Read = fn(&Path) -> Result<String>;

const STREAM_TOPICS: &str = "t1 1354874100 1354960500\nt2 100 200\n";
const STREAM_NUGGETS: &str = "t1 n1 1354874200\nt2 n2 150\n";
const STREAM_MATCHES: &str = "t1 u1 n1\nt2 u2 n2\n";
const STREAM_UPDATES: &str = "t1 u1 1354874300 0.9 12\nt2 u2 160 0.5 7\n";
const BARACO_LOG: &str = "q1\td1 d2 d3\t1 0 0\nq2\td4 d5\t0 1\nq1\td2 d1 d3\t0 0 1\n";
const BARACO_RANKINGS: &str = "prod\tq1\td1 d2 d3\nprod\tq2\td4 d5\ncand\tq1\td3 d2 d1\ncand\tq2\td5 d4\n";

fn companions(path: &Path, files: &[(&str, &str)]) -> Vec<std::path::PathBuf> {
    let dir = path.parent().unwrap();
    files
        .iter()
        .map(|(name, text)| {
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect()
}

fn baraco_log(p: &Path) -> Result<String> {
    let log = crate::baraco::log::ClickLog::from_file(p)?;
    Ok(format!("{:?} {:?} {}", log.queries, log.pairs, log.to_text()))
}

fn baraco_rankings(p: &Path) -> Result<String> {
    let mut log = crate::baraco::log::ClickLog::parse(BARACO_LOG, "log")?;
    let (r, skipped) = crate::baraco::log::parse_rankings(&crate::input::read_to_string(p)?, &p.display().to_string(), &mut log)?;
    Ok(format!("{r:?} {skipped} {:?}", log.pairs))
}

fn baraco_weights(p: &Path) -> Result<String> {
    Ok(format!("{:?}", crate::baraco::log::parse_weights(&crate::input::read_to_string(p)?, &p.display().to_string())?))
}

fn stream_data(topics: &Path, nuggets: &Path, matches: &Path) -> Result<String> {
    let d = crate::simulate::stream_io::StreamData::from_files(topics, nuggets, matches)?;
    let mut m: Vec<_> = d
        .matches
        .iter()
        .map(|h| {
            let mut v: Vec<_> = h.iter().collect();
            v.sort();
            format!("{v:?}")
        })
        .collect();
    m.sort();
    Ok(format!("{:?} {m:?}", d.topics))
}

fn streams_topics(p: &Path) -> Result<String> {
    let c = companions(p, &[("nuggets.txt", STREAM_NUGGETS), ("matches.txt", STREAM_MATCHES)]);
    stream_data(p, &c[0], &c[1])
}

fn streams_nuggets(p: &Path) -> Result<String> {
    let c = companions(p, &[("topics.txt", STREAM_TOPICS), ("matches.txt", STREAM_MATCHES)]);
    stream_data(&c[0], p, &c[1])
}

fn streams_matches(p: &Path) -> Result<String> {
    let c = companions(p, &[("topics.txt", STREAM_TOPICS), ("nuggets.txt", STREAM_NUGGETS)]);
    stream_data(&c[0], &c[1], p)
}

fn streams_updates(p: &Path) -> Result<String> {
    let d = crate::simulate::stream_io::StreamData::parse(STREAM_TOPICS, STREAM_NUGGETS, STREAM_MATCHES, ["t", "n", "m"])?;
    Ok(format!("{:?}", d.updates_from_file(p)?))
}

fn scenario(p: &Path) -> Result<String> {
    let (s, base) = crate::scenario::Scenario::from_file(p)?;
    Ok(format!("{s:?} {base:?}"))
}

fn qrels(p: &Path) -> Result<String> {
    Ok(format!("{:?}", crate::metrics::qrels::Judgements::read(p)?))
}

fn run(p: &Path) -> Result<String> {
    let c = companions(p, &[("qrels.txt", "301 0 d1 1\n301 0 d2 0\n302 0 d3 2\n")]);
    let j = crate::metrics::qrels::Judgements::read(&c[0])?;
    Ok(format!("{:?}", crate::metrics::runs::RankedRun::read(&j, p, &Default::default())?))
}

fn letor(p: &Path) -> Result<String> {
    Ok(format!("{:?}", crate::collection::letor::LetorData::from_file(p)?))
}

fn wordnet_pairs(p: &Path) -> Result<String> {
    Ok(format!("{:?}", crate::wordnet::batch::read_pairs(crate::input::open(p)?, crate::wordnet::Pos::Noun)?))
}

fn yandex_log(p: &Path) -> Result<String> {
    let d = crate::logs::LogData::read(p, crate::logs::Format::Yandex, false)?;
    Ok(format!("{:?}", (0..d.log.len()).map(|i| d.log.session(i).clicks.to_vec()).collect::<Vec<_>>()))
}

/// (name, file name, clean text with at least two lines, reader).
fn table() -> Vec<(&'static str, &'static str, String, Read)> {
    vec![
        ("BARACO log", "log.tsv", BARACO_LOG.into(), baraco_log as Read),
        ("BARACO rankings (production and candidates)", "cand.tsv", BARACO_RANKINGS.into(), baraco_rankings),
        ("BARACO weights", "weights.txt", "prod 1.0 0.5\ncand 0.2 2.0\n".into(), baraco_weights),
        ("streams topics", "topics.txt", STREAM_TOPICS.into(), streams_topics),
        ("streams nuggets", "nuggets.txt", STREAM_NUGGETS.into(), streams_nuggets),
        ("streams matches", "matches.txt", STREAM_MATCHES.into(), streams_matches),
        ("streams updates", "updates.txt", STREAM_UPDATES.into(), streams_updates),
        ("scenario TOML", "scenario.toml", crate::scenario::DEFAULT_SCENARIO.into(), scenario),
        ("TREC qrels", "qrels.txt", "301 0 d1 1\n301 0 d2 0\n302 0 d3 2\n".into(), qrels),
        ("TREC run", "run.txt", "301 Q0 d2 1 2.5 sys\n301 Q0 d1 2 1.5 sys\n302 Q0 d3 1 0.5 sys\n".into(), run),
        ("LETOR", "letor.txt", "0 qid:1 1:0.5 2:0.1 #docid = d1\n1 qid:1 1:0.9 2:0.3 #docid = d2\n".into(), letor),
        ("WordNet pairs", "pairs.tsv", "dog\tcat\nhouse\tcar\n".into(), wordnet_pairs),
        ("click log (Yandex layout)", "clicks.txt", "q1\td1,d2,d3 : d2;\nq1\td2,d1,d3 :\n".into(), yandex_log),
    ]
}

#[test]
fn bom_crlf_and_an_invalid_byte_in_every_reader() {
    let mut failures = Vec::new();
    for (name, file, clean, read) in table() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(file);
        let go = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            read(&path)
        };
        let want = match go(clean.as_bytes()) {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{name}: the clean input fails: {e}"));
                continue;
            }
        };
        let mut bom = b"\xef\xbb\xbf".to_vec();
        bom.extend_from_slice(clean.as_bytes());
        let crlf = clean.replace('\n', "\r\n");
        for (variant, bytes) in [("BOM", bom), ("CRLF", crlf.into_bytes())] {
            match go(&bytes) {
                Ok(got) if got == want => {}
                Ok(got) => failures.push(format!("{name} with {variant}: read differently:\n  clean: {want}\n  {variant}: {got}")),
                Err(e) => failures.push(format!("{name} with {variant}: {e}")),
            }
        }
        // One invalid byte on line 2: at its start (in the first field) and before its end.
        let start = clean.find('\n').unwrap() + 1;
        let end = start + clean[start..].find('\n').unwrap() - 1;
        for (at, cut) in [("start", start), ("end", end)] {
            let mut bad = clean.as_bytes()[..cut].to_vec();
            bad.push(0xff);
            bad.extend_from_slice(&clean.as_bytes()[cut..]);
            let prefix = format!("{}:2: ", path.display());
            match go(&bad) {
                // Accepted is right only when it changes nothing (a TREC run's tag is taken from
                // its last line, so a byte in line 2's tag is such a case).
                Ok(got) if got == want => {}
                Ok(got) => failures.push(format!("{name} with an invalid byte at the {at} of line 2: accepted with another result: {got}")),
                Err(e) if e.to_string().starts_with(&prefix) => {}
                Err(e) => failures.push(format!("{name} with an invalid byte at the {at} of line 2: error does not start with `{prefix}`: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The regression of issue 29: a candidates file starting with a BOM made a phantom ranker
/// `\u{feff}prod` next to `prod`, which flipped the BARACO decision with exit 0.
#[test]
fn baraco_candidates_with_a_bom_make_no_phantom_ranker() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cand.tsv");
    std::fs::write(&path, format!("\u{feff}{BARACO_RANKINGS}")).unwrap();
    let mut log = crate::baraco::log::ClickLog::parse(BARACO_LOG, "log").unwrap();
    let (r, _) = crate::baraco::log::parse_rankings(&crate::input::read_to_string(&path).unwrap(), "cand.tsv", &mut log).unwrap();
    let names: Vec<&str> = r.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["prod", "cand"]);
    // Text handed over from memory (Python) with the mark is read the same way.
    let mut log2 = crate::baraco::log::ClickLog::parse(&format!("\u{feff}{BARACO_LOG}"), "log").unwrap();
    let (r2, _) = crate::baraco::log::parse_rankings(&format!("\u{feff}{BARACO_RANKINGS}"), "cand.tsv", &mut log2).unwrap();
    assert_eq!(r2, r);
    assert_eq!(log2.queries, log.queries);
}
