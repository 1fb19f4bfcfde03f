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
//! only `(score key, document, line)` is kept per line: 16 bytes, plus the id of documents the
//! qrels do not know (judged ones are interned in the qrels already). Nothing else of the text
//! stays in memory. Topics the qrels do not
//! know are counted and dropped.
//!
//! **Policies.** A document retrieved twice for a topic is an error naming both lines (the
//! repeat that comes first in the file; trec_eval refuses it too, but only within the first
//! `-M` documents).

use super::intern::{hash_bytes, IdTable, Interner};
use super::lines::for_each_line;
use super::qrels::{show, split_fields, Judgements, NOT_IN_QRELS};
use super::trec_eval::{NONPOOL, UNJUDGED_IN_POOL};
use crate::collection::trec::Run;
use crate::error::{Error, Result};
use crate::input::Input;
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
    /// The score as an integer that sorts ascending in trec_eval's (descending) score order.
    key: u64,
    /// Local judged index, or `UNJ | index` into the run's arena of unknown documents.
    doc: u32,
    line: u32,
}

const UNJ: u32 = 1 << 31;

/// Maps a score to a `u64` whose ascending order is the scores' descending order; -0 and 0
/// get the same key (C compares them equal).
#[inline]
fn score_key(score: f64) -> u64 {
    let x = if score == 0.0 { 0.0 } else { score };
    let b = x.to_bits();
    let ascending = if b >> 63 == 1 { !b } else { b | (1 << 63) };
    !ascending
}

/// Document ids the qrels do not know, back to back.
#[derive(Default)]
struct Arena {
    bytes: Vec<u8>,
    ends: Vec<u32>,
    /// Low 32 bits of each id's hash (computed once, for the judged lookup).
    hashes: Vec<u32>,
}

impl Arena {
    #[inline]
    fn get(&self, i: u32) -> &[u8] {
        let i = i as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }
}

/// Per-thread scratch of the duplicate check, reused from topic to topic.
#[derive(Default)]
struct Scratch {
    /// Per judged document: the line that retrieved it (0: not yet); reset after each topic.
    judged_line: Vec<u32>,
    /// Unknown documents seen in the topic: table ids index `unknown`.
    table: IdTable,
    /// Per table id: the entry.
    unknown: Vec<usize>,
}

impl Scratch {
    /// The first duplicate of `entries` in file order: `(first line, repeat line, doc)`.
    fn first_duplicate(&mut self, entries: &[Entry], judged: usize, arena: &Arena) -> Option<(u32, u32, u32)> {
        if self.judged_line.len() < judged {
            self.judged_line.resize(judged, 0);
        }
        self.table.clear();
        self.unknown.clear();
        let mut found = None;
        for (i, e) in entries.iter().enumerate() {
            if e.doc & UNJ == 0 {
                let s = &mut self.judged_line[e.doc as usize];
                if *s != 0 {
                    found = Some((*s, e.line, e.doc));
                    break;
                }
                *s = e.line;
            } else {
                let a = e.doc & !UNJ;
                let h = arena.hashes[a as usize] as u64;
                let unknown = &self.unknown;
                let same = |id: u32| arena.get(entries[unknown[id as usize]].doc & !UNJ) == arena.get(a);
                if let Some(id) = self.table.find(h, same) {
                    found = Some((entries[self.unknown[id as usize]].line, e.line, e.doc));
                    break;
                }
                self.table.insert_new(h);
                self.unknown.push(i);
            }
        }
        for e in entries {
            if e.doc & UNJ == 0 {
                self.judged_line[e.doc as usize] = 0;
            }
        }
        found
    }
}

/// Accumulates a run's lines, then orders each topic.
struct Builder<'j> {
    j: &'j Judgements,
    source: String,
    topics: Vec<Vec<Entry>>,
    /// Length of the topic read last, to size the next one.
    last_len: usize,
    arena: Arena,
    unknown_topics: Interner,
    current: Vec<u8>,
    current_slot: Option<usize>,
    results: usize,
}

impl<'j> Builder<'j> {
    fn new(j: &'j Judgements, source: &str) -> Self {
        Builder {
            j,
            source: source.to_string(),
            topics: (0..j.topics.len()).map(|_| Vec::new()).collect(),
            last_len: 0,
            arena: Arena::default(),
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
            if let Some(t) = self.current_slot {
                self.last_len = self.topics[t].len();
            }
            self.current.clear();
            self.current.extend_from_slice(topic);
            self.current_slot = self.j.topic_index_bytes(topic);
            match self.current_slot {
                // Size a new topic like the one before it: no regrowth for typical runs.
                Some(t) if self.topics[t].is_empty() => self.topics[t].reserve_exact(self.last_len.max(16)),
                Some(_) => {}
                None => {
                    self.unknown_topics.intern(topic);
                }
            }
        }
        let Some(t) = self.current_slot else { return Ok(()) };
        let line = u32::try_from(line).map_err(|_| Error::parse(&self.source, line, "more than 2^32 lines"))?;
        let h = hash_bytes(docno);
        let doc = match self.j.topics[t].find_hashed(docno, h) {
            Some(d) => d,
            None => {
                let arena = &mut self.arena;
                let i = arena.ends.len();
                arena.bytes.extend_from_slice(docno);
                if i as u32 >= UNJ || arena.bytes.len() > u32::MAX as usize {
                    return Err(Error::parse(&self.source, line as usize, "run too large (more than 2^31 unjudged documents or 4 GiB of ids)"));
                }
                arena.ends.push(arena.bytes.len() as u32);
                arena.hashes.push(h as u32);
                UNJ | i as u32
            }
        };
        self.topics[t].push(Entry { key: score_key(score), doc, line });
        Ok(())
    }

    fn finish(self, name: String, opts: &RunOptions) -> Result<RankedRun> {
        let Builder { j, source, topics, arena, unknown_topics, results, .. } = self;
        if results == 0 {
            return Err(Error::parse(&source, 1, "no results found (empty run)"));
        }
        let arena = &arena;
        let done: Vec<std::result::Result<Option<RankedTopic>, (u32, u32, Vec<u8>, usize)>> = topics
            .into_par_iter()
            .enumerate()
            .map_init(Scratch::default, |scratch, (t, mut entries)| {
                if entries.is_empty() {
                    return Ok(None);
                }
                let topic = &j.topics[t];
                let docno = |k: u32| if k & UNJ != 0 { arena.get(k & !UNJ) } else { topic.docno(k) };
                if let Some((first, second, doc)) = scratch.first_duplicate(&entries, topic.len(), arena) {
                    return Err((second, first, docno(doc).to_vec(), t));
                }
                entries.sort_unstable_by_key(|e| e.key);
                // Equal scores: document ids in descending byte order.
                let mut i = 0;
                while i < entries.len() {
                    let mut k = i + 1;
                    while k < entries.len() && entries[k].key == entries[i].key {
                        k += 1;
                    }
                    if k - i > 1 {
                        entries[i..k].sort_unstable_by(|a, b| docno(b.doc).cmp(docno(a.doc)));
                    }
                    i = k;
                }
                let take = entries.len().min(opts.max_per_topic);
                let mut rels = Vec::with_capacity(take);
                let mut docs = Vec::with_capacity(if opts.keep_docs { take } else { 0 });
                for e in &entries[..take] {
                    let (rel, doc) = if e.doc & UNJ != 0 {
                        (NONPOOL, UNKNOWN_DOC)
                    } else {
                        let g = topic.grades[e.doc as usize];
                        let rel = if g == NOT_IN_QRELS {
                            NONPOOL
                        } else if g < 0 {
                            UNJUDGED_IN_POOL
                        } else {
                            g
                        };
                        (rel, e.doc)
                    };
                    if opts.judged_only && rel < 0 {
                        continue;
                    }
                    rels.push(rel);
                    if opts.keep_docs {
                        docs.push(doc);
                    }
                }
                Ok(Some(RankedTopic { rels, docs }))
            })
            .collect();
        // Report the duplicate whose repeat comes first in the file.
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
            return Err(duplicate(&source, second as usize, &doc, &j.topics[t].id, first));
        }
        Ok(RankedRun { name, source, topics, dropped_topics: unknown_topics.len(), results })
    }
}

fn duplicate(source: &str, line: usize, docno: &[u8], topic: &str, first: u32) -> Error {
    Error::parse(source, line, format!("document `{}` retrieved twice for topic `{topic}` (first at line {first})", show(docno)))
}

/// Parses a score field: a decimal number (`1.5`, `-2e-3`, `inf`); NaN and text are refused
/// (the reader refuses `inf` after it: scores must be finite).
/// Plain decimals with at most 19 digits take the exact fast path (an integer below 2^53
/// divided by a power of ten up to 10^22, both exact, one correctly rounded division: the
/// same double as a correctly rounded parser such as C's `strtod`).
#[inline]
fn parse_score(field: &[u8]) -> Option<f64> {
    const POW10: [f64; 23] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
    let (neg, body) = match field.first()? {
        b'-' => (true, &field[1..]),
        b'+' => (false, &field[1..]),
        _ => (false, field),
    };
    let mut mant: u64 = 0;
    let mut digits = 0;
    let mut frac = 0usize;
    let mut dot = false;
    let mut fast = !body.is_empty() && body.len() <= 20;
    if fast {
        for &b in body {
            match b {
                b'0'..=b'9' => {
                    mant = mant * 10 + (b - b'0') as u64;
                    digits += 1;
                    if dot {
                        frac += 1;
                    }
                }
                b'.' if !dot => dot = true,
                _ => {
                    fast = false;
                    break;
                }
            }
        }
    }
    if fast && digits > 0 && digits <= 19 && mant < (1u64 << 53) && frac <= 22 {
        let v = mant as f64 / POW10[frac];
        return Some(if neg { -v } else { v });
    }
    let v: f64 = std::str::from_utf8(field).ok()?.parse().ok()?;
    (!v.is_nan()).then_some(v)
}

impl RankedRun {
    /// Reads a run file (`-` for standard input; gzip and zstd detected) onto `j`.
    pub fn read(j: &Judgements, path: &Path, opts: &RunOptions) -> Result<Self> {
        Self::from_input(j, crate::input::open(path)?, opts)
    }

    /// Parses run text onto `j`; `source` names it in errors.
    pub fn parse(j: &Judgements, text: &str, source: &str, opts: &RunOptions) -> Result<Self> {
        Self::from_input(j, Input::from_bytes(source, text.as_bytes().to_vec())?, opts)
    }

    /// Reads a run from an opened input, line by line, onto `j`.
    pub fn from_input(j: &Judgements, input: Input, opts: &RunOptions) -> Result<Self> {
        let source = input.name().to_string();
        let mut b = Builder::new(j, &source);
        let mut tag: Vec<u8> = Vec::new();
        let mut tag_line = 0usize;
        for_each_line(input, |lineno, line| {
            let (f, n) = split_fields::<6>(line);
            if n == 0 || f[0][0] == b'#' {
                return Ok(());
            }
            if n < 6 {
                return Err(Error::parse(&source, lineno, format!("expected 6 fields `topic Q0 docno rank score tag`, found {n}")));
            }
            // Topic ids are printed and matched to the qrels' (which must be UTF-8): an invalid
            // byte would silently make a topic without judgements and drop the line.
            if !f[0].is_ascii() {
                if let Err(e) = std::str::from_utf8(f[0]) {
                    let at = e.valid_up_to();
                    return Err(Error::parse(
                        &source,
                        lineno,
                        format!("topic id `{}` is not valid UTF-8 (byte 0x{:02x} at its position {})", show(f[0]), f[0][at], at + 1),
                    ));
                }
            }
            let score = parse_score(f[4]).ok_or_else(|| Error::parse(&source, lineno, format!("score `{}` is not a number", show(f[4]))))?;
            if !score.is_finite() {
                // docs/formats.md: scores are finite; `inf` ties every infinite score and sorts
                // them by docno, an order the run did not give.
                return Err(Error::parse(&source, lineno, format!("score `{}` is not finite", show(f[4]))));
            }
            if f[5] != tag.as_slice() {
                tag.clear();
                tag.extend_from_slice(f[5]);
                tag_line = lineno;
            }
            b.push(f[0], f[2], score, lineno)
        })?;
        let name = String::from_utf8(tag).map_err(|_| Error::parse(&source, tag_line, "run tag is not valid UTF-8"))?;
        b.finish(name, opts)
    }

    /// Maps rows `(topic, docno, score)` (a table's columns, in row order) onto `j`, with the
    /// run reader's ordering, checks and messages: errors name row + 1 as the line of
    /// `source`. Scores must be finite (the caller checks them, as the reader refuses NaN).
    pub fn from_rows<'a, I>(j: &Judgements, source: &str, name: String, rows: I, opts: &RunOptions) -> Result<Self>
    where
        I: IntoIterator<Item = Result<(&'a [u8], &'a [u8], f64)>>,
    {
        let mut b = Builder::new(j, source);
        for (i, row) in rows.into_iter().enumerate() {
            let (t, d, s) = row?;
            b.push(t, d, s, i + 1)?;
        }
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
