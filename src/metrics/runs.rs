//! TREC runs read straight onto the judgements, the way trec_eval reads them.
//!
//! **Format.** `topic Q0 docno rank score tag`, whitespace-separated; fields after the sixth
//! are ignored (trec_eval's `results.trunc` has them). Lines whose first non-blank character is
//! `#` are comments and blank lines are skipped (trec_eval 10). The rank column is ignored.
//! The score must be a number (trec_eval's `atof` would read text as 0; here it is an error).
//! The run's name is the tag of its *last* line, as trec_eval prints it.
//!
//! **Ordering.** Per topic, by score descending, ties by document id in descending byte order
//! (trec_eval's `comp_sim_docno`: `strcmp(b, a)`); -0 and 0 are equal scores. Then `-M`
//! keeps the first documents, then `-J` drops those without a judgement.
//!
//! **Streaming.** The run is read line by line (plain, gzip or zstd; `-` is standard input) and
//! only `(score, document, line)` is kept per line: 16 bytes, plus the id of documents the qrels
//! do not know (judged ones are interned in the qrels already). Nothing else of the text stays
//! in memory. Topics the qrels do not know are counted and dropped.
//!
//! **Policies.** A document retrieved twice for a topic is an error naming both lines
//! (trec_eval refuses it too, but only within the first `-M` documents).

use super::intern::{hash_bytes, IdTable, Interner};
use super::qrels::{is_space, show, split_fields, Judgements, NOT_IN_QRELS};
use super::trec_eval::{NONPOOL, UNJUDGED_IN_POOL};
use crate::collection::trec::Run;
use crate::error::{Error, Result};
use crate::input::{Input, LineReader};
use rayon::prelude::*;
use std::path::Path;

/// Local index of a retrieved document that the topic does not know.
pub const UNKNOWN_DOC: u32 = u32::MAX;

/// How rankings are cut before evaluation (trec_eval's `-M` and `-J`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOptions {
    /// `-M`: keep at most this many documents per topic (after ordering).
    pub max_per_topic: usize,
    /// `-J`: drop documents without a judgement (not in the qrels, or a negative grade).
    pub judged_only: bool,
    /// Keep the local document index of every rank ([`RankedTopic::docs`]); only the metrics
    /// that look at documents (novelty, Cube Test, TBG lengths) need it.
    pub keep_docs: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { max_per_topic: usize::MAX, judged_only: false, keep_docs: true }
    }
}

/// One topic's ranking mapped onto its judgements.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RankedTopic {
    /// trec_eval's relevance value per rank: the grade, [`NONPOOL`] for a document not in the
    /// qrels, [`UNJUDGED_IN_POOL`] for one with a negative grade.
    pub rels: Vec<i32>,
    /// Local document index per rank ([`UNKNOWN_DOC`] when unknown); empty unless
    /// [`RunOptions::keep_docs`].
    pub docs: Vec<u32>,
}

impl RankedTopic {
    /// The grade an own (non-trec_eval) metric sees at each rank: negative values are 0.
    pub fn grades(&self) -> Vec<i32> {
        self.rels.iter().map(|&r| r.max(0)).collect()
    }
}

/// A run mapped onto the judgements: one optional [`RankedTopic`] per qrels topic.
#[derive(Debug, Clone, Default)]
pub struct RankedRun {
    /// Run name: the tag of the last line (trec_eval's `runid`).
    pub name: String,
    /// Where the run came from.
    pub source: String,
    /// Per qrels topic: the ranking, or `None` when the run has no line for the topic.
    pub topics: Vec<Option<RankedTopic>>,
    /// Run topics without judgements (dropped).
    pub dropped_topics: usize,
    /// Lines with results (not comments or blank).
    pub results: usize,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    score: f64,
    /// Local judged index, or `UNJ | index` into the run's arena of unknown documents.
    key: u32,
    line: u32,
}

const UNJ: u32 = 1 << 31;

/// Accumulates a run's lines, then orders each topic.
struct Builder<'j> {
    j: &'j Judgements,
    source: String,
    entries: Vec<Vec<Entry>>,
    unknown_docs: Arena,
    unknown_topics: Interner,
    current: Vec<u8>,
    current_slot: Option<usize>,
    results: usize,
}

/// Document ids the qrels do not know, back to back.
#[derive(Default)]
struct Arena {
    bytes: Vec<u8>,
    ends: Vec<u32>,
}

impl Arena {
    #[inline]
    fn push(&mut self, s: &[u8]) -> Option<u32> {
        let i = self.ends.len();
        self.bytes.extend_from_slice(s);
        if i as u32 >= UNJ || self.bytes.len() > u32::MAX as usize {
            return None;
        }
        self.ends.push(self.bytes.len() as u32);
        Some(i as u32)
    }

    #[inline]
    fn get(&self, i: u32) -> &[u8] {
        let i = i as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }
}

impl<'j> Builder<'j> {
    fn new(j: &'j Judgements, source: &str) -> Self {
        Builder {
            j,
            source: source.to_string(),
            entries: vec![Vec::new(); j.topics.len()],
            unknown_docs: Arena::default(),
            unknown_topics: Interner::default(),
            current: Vec::new(),
            current_slot: None,
            results: 0,
        }
    }

    #[inline]
    fn push(&mut self, topic: &[u8], docno: &[u8], score: f64, line: usize) -> Result<()> {
        self.results += 1;
        if topic != self.current.as_slice() || self.current.is_empty() {
            self.current.clear();
            self.current.extend_from_slice(topic);
            self.current_slot = self.j.topic_index_bytes(topic);
            if self.current_slot.is_none() {
                self.unknown_topics.intern(topic);
            }
        }
        let Some(t) = self.current_slot else { return Ok(()) };
        let key = match self.j.topics[t].find_hashed(docno, hash_bytes(docno)) {
            Some(d) => d,
            None => match self.unknown_docs.push(docno) {
                Some(i) => UNJ | i,
                None => return Err(Error::parse(&self.source, line, "run too large (more than 2^31 unjudged documents or 4 GiB of ids)")),
            },
        };
        let line = u32::try_from(line).map_err(|_| Error::parse(&self.source, line, "more than 2^32 lines"))?;
        self.entries[t].push(Entry { score, key, line });
        Ok(())
    }

    fn finish(self, name: String, opts: &RunOptions) -> Result<RankedRun> {
        let Builder { j, source, mut entries, unknown_docs, unknown_topics, results, .. } = self;
        if results == 0 {
            return Err(Error::parse(&source, 1, "no results found (empty run)"));
        }
        let arena = &unknown_docs;
        // Per topic in parallel: duplicates, then trec_eval's order.
        let done: Vec<std::result::Result<Option<RankedTopic>, (u32, u32, Vec<u8>, usize)>> = entries
            .par_iter_mut()
            .enumerate()
            .map(|(t, es)| {
                if es.is_empty() {
                    return Ok(None);
                }
                let topic = &j.topics[t];
                let docno = |k: u32| if k & UNJ != 0 { arena.get(k & !UNJ) } else { topic.docno(k) };
                if let Some((first, second, key)) = first_duplicate(es, topic.len(), &docno) {
                    return Err((second, first, docno(key).to_vec(), t));
                }
                es.sort_unstable_by(|a, b| {
                    b.score
                        .partial_cmp(&a.score)
                        .unwrap_or(std::cmp::Ordering::Equal)
                        .then_with(|| docno(b.key).cmp(docno(a.key)))
                });
                let take = es.len().min(opts.max_per_topic);
                let mut rels = Vec::with_capacity(take);
                let mut docs = Vec::with_capacity(if opts.keep_docs { take } else { 0 });
                for e in &es[..take] {
                    let (rel, doc) = if e.key & UNJ != 0 {
                        (NONPOOL, UNKNOWN_DOC)
                    } else {
                        let g = topic.grades[e.key as usize];
                        let rel = if g == NOT_IN_QRELS {
                            NONPOOL
                        } else if g < 0 {
                            UNJUDGED_IN_POOL
                        } else {
                            g
                        };
                        (rel, e.key)
                    };
                    if opts.judged_only && rel < 0 {
                        continue;
                    }
                    rels.push(rel);
                    if opts.keep_docs {
                        docs.push(doc);
                    }
                }
                *es = Vec::new();
                Ok(Some(RankedTopic { rels, docs }))
            })
            .collect();
        let mut topics = Vec::with_capacity(done.len());
        let mut dup: Option<(u32, u32, Vec<u8>, usize)> = None;
        for d in done {
            match d {
                Ok(t) => topics.push(t),
                Err(e) => {
                    if dup.as_ref().is_none_or(|x| e.0 < x.0) {
                        dup = Some(e);
                    }
                    topics.push(None);
                }
            }
        }
        if let Some((second, first, doc, t)) = dup {
            return Err(Error::parse(&source, second as usize, format!(
                "document `{}` retrieved twice for topic `{}` (first at line {first})",
                show(&doc), j.topics[t].id
            )));
        }
        Ok(RankedRun { name, source, topics, dropped_topics: unknown_topics.len(), results })
    }
}

/// The duplicate whose repeat comes first in the file: `(first line, repeat line, key)`.
fn first_duplicate<'a>(es: &[Entry], judged: usize, docno: &impl Fn(u32) -> &'a [u8]) -> Option<(u32, u32, u32)> {
    let mut seen = vec![0u32; judged];
    let mut table = IdTable::new();
    let mut unj_entries: Vec<usize> = Vec::new();
    for (i, e) in es.iter().enumerate() {
        if e.key & UNJ == 0 {
            let s = &mut seen[e.key as usize];
            if *s != 0 {
                return Some((*s, e.line, e.key));
            }
            *s = e.line;
        } else {
            let bytes = docno(e.key);
            let h = hash_bytes(bytes);
            if let Some(id) = table.find(h, |id| docno(es[unj_entries[id as usize]].key) == bytes) {
                return Some((es[unj_entries[id as usize]].line, e.line, e.key));
            }
            table.insert_new(h);
            unj_entries.push(i);
        }
    }
    None
}

/// Parses a score field: a decimal number as Rust reads it (`1.5`, `-2e-3`, `inf`); NaN and
/// text are refused.
#[inline]
fn parse_score(field: &[u8]) -> Option<f64> {
    let s = std::str::from_utf8(field).ok()?;
    let v: f64 = s.parse().ok()?;
    (!v.is_nan()).then_some(v)
}

impl RankedRun {
    /// Reads a run file (`-` for standard input; gzip and zstd detected) onto `j`.
    pub fn read(j: &Judgements, path: &Path, opts: &RunOptions) -> Result<Self> {
        Self::from_lines(j, crate::input::open(path)?.lines(), opts)
    }

    /// Parses run text onto `j`; `source` names it in errors.
    pub fn parse(j: &Judgements, text: &str, source: &str, opts: &RunOptions) -> Result<Self> {
        Self::from_lines(j, Input::from_bytes(source, text.as_bytes().to_vec())?.lines(), opts)
    }

    /// Reads a run line by line onto `j`.
    pub fn from_lines(j: &Judgements, mut lines: LineReader, opts: &RunOptions) -> Result<Self> {
        let source = lines.name().to_string();
        let mut b = Builder::new(j, &source);
        let mut tag: Vec<u8> = Vec::new();
        let mut tag_line = 0usize;
        let mut lineno = 0usize;
        while let Some(line) = lines.next_bytes()? {
            lineno += 1;
            let (f, n) = split_fields::<6>(line);
            if n == 0 || f[0][0] == b'#' {
                continue;
            }
            if n < 6 {
                return Err(Error::parse(&source, lineno, format!("expected 6 fields `topic Q0 docno rank score tag`, found {n}")));
            }
            let score = parse_score(f[4])
                .ok_or_else(|| Error::parse(&source, lineno, format!("score `{}` is not a number", show(f[4]))))?;
            if f[5] != tag.as_slice() {
                tag.clear();
                tag.extend_from_slice(f[5]);
                tag_line = lineno;
            }
            b.push(f[0], f[2], score, lineno)?;
        }
        let name = String::from_utf8(tag).map_err(|_| Error::parse(&source, tag_line, "run tag is not valid UTF-8"))?;
        b.finish(name, opts)
    }

    /// Maps an already parsed [`Run`] (its name is the run's name; its ordering is redone).
    pub fn from_run(j: &Judgements, run: &Run, opts: &RunOptions) -> Result<Self> {
        let mut b = Builder::new(j, &run.name);
        let mut line = 0;
        for (topic, docs) in &run.topics {
            for d in docs {
                line += 1;
                b.push(topic.as_bytes(), d.docno.as_bytes(), d.score, line)?;
            }
        }
        b.finish(run.name.clone(), opts)
    }

    /// Number of topics with a ranking.
    pub fn topics_with_results(&self) -> usize {
        self.topics.iter().filter(|t| t.is_some()).count()
    }
}

/// Whether `line` would be skipped as blank (for callers that pre-scan).
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| is_space(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j() -> Judgements {
        Judgements::parse("1 0 a 1\n1 0 b 2\n1 0 c 0\n1 0 x -1\n2 0 c 1\n", "q").unwrap()
    }

    #[test]
    fn order_ties_unknown_documents_and_last_tag() {
        // Ties at 2.0 (a, b, z) go by docno descending; the rank column is ignored; topic 9 has
        // no judgements; extra trailing fields are ignored; the name is the last line's tag.
        let text = "1 Q0 a 1 2.0 r1\n1 Q0 z 2 2.0 r1 extra junk\n1 Q0 b 3 2 r1\n9 Q0 a 1 1 r1\n# c\n\n1 Q0 y 4 5 r2\n1 Q0 x 9 -0.0 r2\n1 Q0 c 9 0 r2\n";
        let r = RankedRun::parse(&j(), text, "run", &RunOptions::default()).unwrap();
        let t = r.topics[0].as_ref().unwrap();
        // y(5) z b a (2.0, descending ids) then c and x tie at 0 (= -0): x before c.
        assert_eq!(t.rels, [NONPOOL, NONPOOL, 2, 1, UNJUDGED_IN_POOL, 0]);
        assert_eq!(t.docs, [UNKNOWN_DOC, UNKNOWN_DOC, 1, 0, 3, 2]);
        assert!(r.topics[1].is_none());
        assert_eq!((r.dropped_topics, r.name.as_str(), r.results), (1, "r2", 7));
        let cut = RunOptions { max_per_topic: 3, judged_only: true, keep_docs: false };
        let r = RankedRun::parse(&j(), text, "run", &cut).unwrap();
        assert_eq!(r.topics[0].as_ref().unwrap().rels, [2]);
        assert!(r.topics[0].as_ref().unwrap().docs.is_empty());
    }

    #[test]
    fn errors_name_file_and_line() {
        for (text, expect) in [
            ("1 Q0 a 1 2.0\n", "run:1: expected 6 fields"),
            ("1 Q0 a 1 high r\n", "run:1: score `high` is not a number"),
            ("1 Q0 a 1 nan r\n", "run:1: score `nan`"),
            ("1 Q0 a 1 1 r\n2 Q0 c 1 1 r\n1 Q0 a 2 0.5 r\n", "run:3: document `a` retrieved twice for topic `1` (first at line 1)"),
            ("1 Q0 q 1 1 r\n1 Q0 q 2 0.5 r\n", "run:2: document `q` retrieved twice"),
            ("# nothing\n", "run:1: no results found"),
        ] {
            let e = RankedRun::parse(&j(), text, "run", &RunOptions::default()).unwrap_err().to_string();
            assert!(e.starts_with(expect), "{text:?}: {e}");
        }
    }

    #[test]
    fn same_result_from_parsed_run_and_thread_counts() {
        let q = include_str!("../../study_logs/trec/qrels.test");
        let r = include_str!("../../study_logs/trec/results.test");
        let j = Judgements::parse(q, "q").unwrap();
        let reference = RankedRun::parse(&j, r, "r", &RunOptions::default()).unwrap();
        let via_run = RankedRun::from_run(&j, &Run::parse(r, "r").unwrap(), &RunOptions::default()).unwrap();
        assert_eq!(reference.topics, via_run.topics);
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let again = pool.install(|| RankedRun::parse(&j, r, "r", &RunOptions::default()).unwrap());
            assert_eq!(again.topics, reference.topics, "{threads} threads");
        }
    }
}
