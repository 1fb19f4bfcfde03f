//! TREC qrels, subtopic qrels and runs, ordered the way trec_eval orders them.
//!
//! **Ordering rule.** trec_eval ignores the rank column. It sorts each topic's retrieved
//! documents by score, descending, and breaks ties by document id in *descending* byte order
//! (`strcmp(b, a)`). [`Run`] applies the same rule, so SERPs and metrics agree with trec_eval.
//!
//! **Lines.** Files are read through [`crate::input`] (plain, gzip or zstd; `-` for standard
//! input; BOM and CRLF removed). Lines whose first non-blank character is `#` are comments and
//! blank lines are skipped (trec_eval 10). Run lines may carry fields after the sixth, which
//! are ignored, as trec_eval ignores them.
//!
//! **Policies.** A document retrieved twice for one topic is an error. Topics in a run but not
//! in the qrels are dropped (as trec_eval does) and counted in [`TrecLoadReport`]. Unjudged
//! documents are non-relevant (grade 0). The evaluator (`metrics::runs`) reads runs on its
//! own, streaming, and names a run after its *last* tag as trec_eval does; [`Run::name`] is
//! the first tag.

use super::{Collection, Serp, SubtopicGrade, System, Topic};
use crate::error::{Error, Result};
use crate::input::Input;
use std::collections::HashMap;
use std::path::Path;

/// Graded judgements: per topic, `(docno, grade)` in file order. Topics are in first-seen order.
#[derive(Debug, Clone, Default)]
pub struct Qrels {
    /// `(topic id, judgements)` in first-seen order.
    pub topics: Vec<(String, Vec<(String, i32)>)>,
}

/// One retrieved document of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieved {
    /// Document id.
    pub docno: String,
    /// Retrieval score.
    pub score: f64,
}

/// A TREC run: per topic, retrieved documents in trec_eval order.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// Run name: the tag of its first line.
    pub name: String,
    /// `(topic id, ranking)` in first-seen order; rankings are sorted by [`trec_eval_order`].
    pub topics: Vec<(String, Vec<Retrieved>)>,
}

/// What loading dropped or assumed, for the user to see.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrecLoadReport {
    /// Run topics without judgements, dropped (per run name).
    pub unjudged_topics: Vec<(String, usize)>,
    /// Retrieved documents without a judgement (treated as non-relevant).
    pub unjudged_documents: usize,
}

/// A small multiplicative hasher (FxHash) for docno lookups: SipHash dominated parsing and
/// evaluation time. Not DoS-resistant, which does not matter for qrels and runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in chunks.by_ref() {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(K);
        }
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with [`FxHasher`].
pub type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

/// Whether a line is blank or a `#` comment (its first non-blank character).
fn skipped(line: &str) -> bool {
    line.trim_start().is_empty() || line.trim_start().starts_with('#')
}

/// Sorts a ranking as trec_eval does: score descending, ties by docno descending.
pub fn trec_eval_order(docs: &mut [Retrieved]) {
    docs.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| b.docno.as_bytes().cmp(a.docno.as_bytes())));
}

impl Qrels {
    /// Reads `qid iter docno rel` lines from a file (plain, gzip or zstd; `-` for standard input).
    pub fn from_file(path: &Path) -> Result<Self> {
        Self::from_input(crate::input::open(path)?)
    }

    /// Parses qrels text; `source` names it in errors. Blank lines are skipped.
    pub fn parse(text: &str, source: &str) -> Result<Self> {
        Self::from_input(Input::from_bytes(source, text.as_bytes().to_vec())?)
    }

    /// Reads qrels from an opened input, checking each line as it streams (the first bad line
    /// fails at once; lines are bounded by [`crate::input::DEFAULT_MAX_LINE`]).
    pub fn from_input(input: Input) -> Result<Self> {
        let source = input.name().to_string();
        let source = source.as_str();
        let mut qrels = Qrels::default();
        let mut topic_pos: FastMap<String, usize> = FastMap::default();
        let mut seen: FastMap<(usize, String), usize> = FastMap::default();
        input.lines().for_each(|lineno, line| {
            let Some(l) = parse_qrels_line(line, source, lineno)? else { return Ok(()) };
            let t = match topic_pos.get(l.topic) {
                Some(&t) => t,
                None => {
                    qrels.topics.push((l.topic.to_string(), Vec::new()));
                    topic_pos.insert(l.topic.to_string(), qrels.topics.len() - 1);
                    qrels.topics.len() - 1
                }
            };
            if let Some(prev) = seen.insert((t, l.docno.to_string()), lineno) {
                return Err(judged_twice_error(source, lineno, l.docno, l.topic, prev));
            }
            qrels.topics[t].1.push((l.docno.to_string(), l.grade));
            Ok(())
        })?;
        if qrels.topics.is_empty() {
            return Err(empty_qrels_error(source));
        }
        Ok(qrels)
    }
}

/// One qrels line, borrowing from the text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QrelsLine<'a> {
    /// Topic id.
    pub topic: &'a str,
    /// Document id.
    pub docno: &'a str,
    /// Relevance grade.
    pub grade: i32,
}

/// Parses one `qid iter docno rel` line (`Ok(None)` for a blank or `#` comment line).
pub fn parse_qrels_line<'a>(line: &'a str, source: &str, lineno: usize) -> Result<Option<QrelsLine<'a>>> {
    if skipped(line) {
        return Ok(None);
    }
    let mut it = line.split_ascii_whitespace();
    let mut fields = [""; 4];
    let mut n = 0;
    for f in it.by_ref().take(4) {
        fields[n] = f;
        n += 1;
    }
    if n == 0 {
        return Ok(None);
    }
    if n != 4 || it.next().is_some() {
        return Err(Error::parse(
            source,
            lineno,
            format!("expected 4 fields `topic iteration docno relevance`, found {}", line.split_ascii_whitespace().count()),
        ));
    }
    let grade: i32 = fields[3].parse().map_err(|_| Error::parse(source, lineno, format!("relevance `{}` is not an integer", fields[3])))?;
    Ok(Some(QrelsLine { topic: fields[0], docno: fields[2], grade }))
}

/// The error for a document judged twice.
pub fn judged_twice_error(source: &str, lineno: usize, docno: &str, topic: &str, first: usize) -> Error {
    Error::parse(source, lineno, format!("document `{docno}` judged twice for topic `{topic}` (first at line {first})"))
}

/// The error for qrels without judgements.
pub fn empty_qrels_error(source: &str) -> Error {
    Error::parse(source, 1, "no judgements found (empty qrels)")
}

impl Run {
    /// Reads a TREC run file (plain, gzip or zstd; `-` for standard input).
    pub fn from_file(path: &Path) -> Result<Self> {
        let mut run = Self::from_input(crate::input::open(path)?)?;
        if run.name.is_empty() {
            run.name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        }
        Ok(run)
    }

    /// Parses `qid Q0 docno rank score tag` lines; `source` names the text in errors.
    pub fn parse(text: &str, source: &str) -> Result<Self> {
        Self::from_input(Input::from_bytes(source, text.as_bytes().to_vec())?)
    }

    /// Reads a run from an opened input, checking each line as it streams (see
    /// [`Qrels::from_input`]).
    pub fn from_input(input: Input) -> Result<Self> {
        let source = input.name().to_string();
        let source = source.as_str();
        let mut run = Run::default();
        let mut topic_pos: FastMap<String, usize> = FastMap::default();
        // Per topic: docno -> line, for the duplicate check.
        let mut seen: Vec<FastMap<String, u32>> = Vec::new();
        input.lines().for_each(|lineno, line| {
            let Some(l) = parse_run_line(line, source, lineno)? else { return Ok(()) };
            if run.name.is_empty() {
                run.name = l.tag.to_string();
            }
            let t = match topic_pos.get(l.topic) {
                Some(&t) => t,
                None => {
                    run.topics.push((l.topic.to_string(), Vec::new()));
                    seen.push(FastMap::default());
                    topic_pos.insert(l.topic.to_string(), run.topics.len() - 1);
                    run.topics.len() - 1
                }
            };
            if let Some(prev) = seen[t].insert(l.docno.to_string(), lineno as u32) {
                return Err(duplicate_error(source, lineno, l.docno, l.topic, prev as usize));
            }
            run.topics[t].1.push(Retrieved { docno: l.docno.to_string(), score: l.score });
            Ok(())
        })?;
        if run.topics.is_empty() {
            return Err(Error::parse(source, 1, "no results found (empty run)"));
        }
        for (_, docs) in &mut run.topics {
            trec_eval_order(docs);
        }
        Ok(run)
    }
}

/// One line of a run, borrowing from the text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunLine<'a> {
    /// Topic id.
    pub topic: &'a str,
    /// Document id.
    pub docno: &'a str,
    /// Retrieval score (finite).
    pub score: f64,
    /// Run tag.
    pub tag: &'a str,
}

/// Parses one `qid Q0 docno rank score tag [ignored...]` line (`Ok(None)` for a blank or `#`
/// comment line); fields after the sixth are ignored, as trec_eval ignores them.
pub fn parse_run_line<'a>(line: &'a str, source: &str, lineno: usize) -> Result<Option<RunLine<'a>>> {
    if skipped(line) {
        return Ok(None);
    }
    let mut it = line.split_ascii_whitespace();
    let mut fields = [""; 6];
    let mut n = 0;
    for f in it.by_ref().take(6) {
        fields[n] = f;
        n += 1;
    }
    if n != 6 {
        return Err(Error::parse(source, lineno, format!("expected 6 fields `topic Q0 docno rank score tag`, found {n}")));
    }
    let score: f64 = fields[4].parse().map_err(|_| Error::parse(source, lineno, format!("score `{}` is not a number", fields[4])))?;
    if !score.is_finite() {
        return Err(Error::parse(source, lineno, format!("score `{}` is not finite", fields[4])));
    }
    Ok(Some(RunLine { topic: fields[0], docno: fields[2], score, tag: fields[5] }))
}

/// The error for a document retrieved twice.
pub fn duplicate_error(source: &str, lineno: usize, docno: &str, topic: &str, first: usize) -> Error {
    Error::parse(source, lineno, format!("document `{docno}` retrieved twice for topic `{topic}` (first at line {first})"))
}

/// Reads subtopic judgements `topic subtopic docno grade` into an existing collection.
/// Documents not yet known are added with topic-level grade 0; unknown topics are an error.
pub fn load_subtopic_qrels(collection: &mut Collection, text: &str, source: &str) -> Result<()> {
    load_subtopic_qrels_from(collection, Input::from_bytes(source, text.as_bytes().to_vec())?)
}

/// [`load_subtopic_qrels`] from a file (plain, gzip or zstd; `-` is standard input).
pub fn load_subtopic_qrels_file(collection: &mut Collection, path: &Path) -> Result<()> {
    load_subtopic_qrels_from(collection, crate::input::open(path)?)
}

/// [`load_subtopic_qrels`] from an opened input, checking each line as it streams.
pub fn load_subtopic_qrels_from(collection: &mut Collection, input: Input) -> Result<()> {
    let source = input.name().to_string();
    let source = source.as_str();
    input.lines().for_each(|lineno, line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            return Ok(());
        }
        if f.len() != 4 {
            return Err(Error::parse(source, lineno, format!("expected 4 fields `topic subtopic docno grade`, found {}", f.len())));
        }
        let grade: i32 = f[3].parse().map_err(|_| Error::parse(source, lineno, format!("grade `{}` is not an integer", f[3])))?;
        let t = collection.topic_index(f[0]).ok_or_else(|| Error::parse(source, lineno, format!("topic `{}` is not in the qrels", f[0])))?;
        let topic = &mut collection.topics[t];
        let s = topic.subtopic_index(f[1]);
        if topic.subtopics.len() > 64 {
            return Err(Error::parse(source, lineno, format!("topic `{}` has more than 64 subtopics", f[0])));
        }
        let d = topic.find_or_add(f[2]) as usize;
        let doc = &mut topic.documents[d];
        if doc.subtopics.iter().any(|g| g.subtopic == s) {
            return Err(Error::parse(source, lineno, format!("document `{}` judged twice for subtopic `{}`", f[2], f[1])));
        }
        doc.subtopics.push(SubtopicGrade { subtopic: s, grade });
        Ok(())
    })
}

/// Builds a collection from qrels and runs (one system per run).
pub fn collection_from_trec(qrels: &Qrels, runs: &[Run]) -> Result<(Collection, TrecLoadReport)> {
    let mut collection = Collection::new();
    let mut report = TrecLoadReport::default();
    for (id, judged) in &qrels.topics {
        let mut topic = Topic::new(id.clone());
        for (doc, grade) in judged {
            topic.push(super::Document::new(doc.clone(), *grade));
        }
        collection.topics.push(topic);
    }
    let topic_pos: HashMap<&str, usize> = qrels.topics.iter().enumerate().map(|(i, (id, _))| (id.as_str(), i)).collect();
    for run in runs {
        if collection.system_index(&run.name).is_some() {
            return Err(Error::Invalid(format!("two runs are named `{}`; rename one (the tag names the system)", run.name)));
        }
        let mut serps: Vec<Option<Serp>> = vec![None; collection.topics.len()];
        let mut dropped = 0;
        for (tid, ranking) in &run.topics {
            let Some(&t) = topic_pos.get(tid.as_str()) else {
                dropped += 1;
                continue;
            };
            let topic = &mut collection.topics[t];
            let mut docs = Vec::with_capacity(ranking.len());
            for r in ranking {
                if topic.find(&r.docno).is_none() {
                    report.unjudged_documents += 1;
                }
                docs.push(topic.find_or_add(&r.docno));
            }
            serps[t] = Some(Serp { docs });
        }
        if dropped > 0 {
            report.unjudged_topics.push((run.name.clone(), dropped));
        }
        collection.systems.push(System { name: run.name.clone(), serps });
    }
    Ok((collection, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_break_by_docno_descending_and_rank_column_is_ignored() {
        let text = "1 Q0 aaa 1 2.0 r\n1 Q0 zzz 2 1.0 r\n1 Q0 mmm 3 2.0 r\n1 Q0 bbb 4 3.0 r\n";
        let run = Run::parse(text, "t").unwrap();
        let order: Vec<&str> = run.topics[0].1.iter().map(|d| d.docno.as_str()).collect();
        assert_eq!(order, ["bbb", "mmm", "aaa", "zzz"]);
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        let err = Run::parse("1 Q0 a 1 1.0 r\n1 Q0 b 2 x r\n", "run.txt").unwrap_err().to_string();
        assert!(err.starts_with("run.txt:2:"), "{err}");
        let err = Run::parse("1 Q0 a 1 1.0\n", "run.txt").unwrap_err().to_string();
        assert!(err.starts_with("run.txt:1:") && err.contains("6 fields"), "{err}");
        let err = Qrels::parse("1 0 a 1\n1 0 b\n", "q").unwrap_err().to_string();
        assert!(err.starts_with("q:2:"), "{err}");
        let err = Qrels::parse("1 0 a one\n", "q").unwrap_err().to_string();
        assert!(err.contains("not an integer"), "{err}");
    }

    #[test]
    fn trailing_fields_comments_and_compressed_files_are_read() {
        // trec_eval's results.trunc has junk after the tag; trec_eval 10 skips `#` lines.
        let run = Run::parse("# header\n1 Q0 a 1 1.0 r more junk at\n\n  # note\n1 Q0 b 2 0.5 r\n", "run").unwrap();
        assert_eq!(run.topics[0].1.len(), 2);
        let q = Qrels::parse("# c\n1 0 a 1\r\n", "q").unwrap();
        assert_eq!(q.topics[0].1, vec![("a".to_string(), 1)]);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.gz");
        let mut gz = flate2::write::GzEncoder::new(std::fs::File::create(&p).unwrap(), Default::default());
        std::io::Write::write_all(&mut gz, b"\xef\xbb\xbf1 Q0 a 1 1.0 r\r\n").unwrap();
        gz.finish().unwrap();
        let run = Run::from_file(&p).unwrap();
        assert_eq!((run.name.as_str(), run.topics[0].1[0].docno.as_str()), ("r", "a"));
    }

    #[test]
    fn duplicate_documents_are_rejected() {
        let err = Run::parse("1 Q0 a 1 1.0 r\n1 Q0 a 2 0.5 r\n", "run").unwrap_err().to_string();
        assert!(err.starts_with("run:2:") && err.contains("twice"), "{err}");
    }

    #[test]
    fn collection_maps_run_onto_judgements() {
        let qrels = Qrels::parse("1 0 a 2\n1 0 b 0\n2 0 c 1\n", "q").unwrap();
        let run = Run::parse("1 Q0 x 1 3 r\n1 Q0 a 2 2 r\n9 Q0 a 1 1 r\n", "r").unwrap();
        let (c, report) = collection_from_trec(&qrels, &[run]).unwrap();
        assert_eq!(c.topics.len(), 2);
        let serp = c.systems[0].serps[0].as_ref().unwrap();
        let grades: Vec<i32> = serp.docs.iter().map(|&d| c.topics[0].documents[d as usize].grade).collect();
        assert_eq!(grades, [0, 2]);
        assert!(c.systems[0].serps[1].is_none());
        assert_eq!(report.unjudged_documents, 1);
        assert_eq!(report.unjudged_topics, vec![("r".to_string(), 1)]);
    }

    #[test]
    fn subtopics_attach_to_documents() {
        let qrels = Qrels::parse("1 0 a 1\n", "q").unwrap();
        let (mut c, _) = collection_from_trec(&qrels, &[]).unwrap();
        load_subtopic_qrels(&mut c, "1 s1 a 1\n1 s2 a 1\n1 s2 b 1\n", "sq").unwrap();
        assert_eq!(c.topics[0].subtopics, ["s1", "s2"]);
        assert_eq!(c.topics[0].documents[0].subtopics.len(), 2);
        let err = load_subtopic_qrels(&mut c, "7 s1 a 1\n", "sq").unwrap_err().to_string();
        assert!(err.starts_with("sq:1:"), "{err}");
    }
}
