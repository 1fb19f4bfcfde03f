//! Judgements (qrels) indexed for evaluation, read the way trec_eval reads them.
//!
//! **Format.** `topic iteration docno grade`, whitespace-separated, exactly four fields (as
//! trec_eval). Lines whose first non-blank character is `#` are comments (trec_eval 10); blank
//! lines are skipped (trec_eval rejects them). Files may be gzip or zstd compressed, `-` is
//! standard input, a UTF-8 byte-order mark and CRLF line ends are removed (see
//! [`crate::input`]). Document ids are compared as bytes, as trec_eval does; topic ids must be
//! UTF-8 because they are printed.
//!
//! **Policies.** A document judged twice for a topic is an error naming both lines (trec_eval
//! also refuses it, without line numbers). A negative grade means "in the pool but not judged"
//! ([`super::trec_eval::UNJUDGED_IN_POOL`]). Topics are kept sorted by id in byte order, the
//! order trec_eval evaluates and prints them in.

use super::intern::{hash_bytes, Interner};
use super::lines::for_each_line;
use super::trec::RELEVANCE_LEVEL;
use crate::error::{Error, Result};
use crate::input::Input;
use std::path::Path;

/// Grade of a document known only from an auxiliary file (subtopics, lengths, times), not
/// from the qrels: for trec_eval's measures it is "not in the pool".
pub const NOT_IN_QRELS: i32 = i32::MIN;

/// Largest grade accepted: trec_eval keeps a count per grade, so grades index arrays.
pub const MAX_GRADE: i32 = 1 << 20;

/// One topic's judgements as flat per-document arrays (local document indices).
#[derive(Debug, Clone, Default)]
pub struct JudgedTopic {
    /// Topic id.
    pub id: String,
    docs: Interner,
    /// Grade of each document ([`NOT_IN_QRELS`] for documents only in auxiliary files).
    pub grades: Vec<i32>,
    lines: Vec<u32>,
    /// Number of qrels judgements at each grade 0, 1, 2, ... (negative grades not counted).
    pub rel_levels: Vec<u64>,
    /// Number of documents with grade >= 1.
    pub num_rel: usize,
    /// Positive grades sorted descending (the ideal ranking for nDCG).
    pub ideal: Vec<i32>,
    /// Subtopic names, in first-seen order.
    pub subtopic_names: Vec<String>,
    /// Per document: `(subtopic, rel)` with rel = grade / max subtopic grade, in [0, 1]
    /// (empty until subtopics are loaded).
    pub subtopics: Vec<Vec<(u32, f64)>>,
    /// Raw subtopic weights (Cube Test "p"), per subtopic, if given.
    pub subtopic_weights: Vec<Option<f64>>,
    /// Document length in words, if given (empty until lengths are loaded).
    pub lengths: Vec<Option<f64>>,
    /// Time to examine the document in seconds, if given (empty until times are loaded).
    pub times: Vec<Option<f64>>,
}

impl JudgedTopic {
    fn new(id: String) -> Self {
        JudgedTopic { id, ..Default::default() }
    }

    /// Number of documents (judged, or known from auxiliary files).
    pub fn len(&self) -> usize {
        self.grades.len()
    }

    /// Whether the topic knows no document.
    pub fn is_empty(&self) -> bool {
        self.grades.is_empty()
    }

    /// Local index of document `docno`, if known.
    #[inline]
    pub fn find(&self, docno: &[u8]) -> Option<u32> {
        self.docs.find(docno)
    }

    /// Local index of `docno` with its hash already computed.
    #[inline]
    pub(crate) fn find_hashed(&self, docno: &[u8], h: u64) -> Option<u32> {
        self.docs.find_hashed(docno, h)
    }

    /// The id of local document `d`.
    #[inline]
    pub fn docno(&self, d: u32) -> &[u8] {
        self.docs.get(d)
    }

    /// Makes room for `n` more documents with `bytes` bytes of ids.
    fn reserve(&mut self, n: usize, bytes: usize) {
        self.docs.reserve(n, bytes);
        self.grades.reserve(n);
        self.lines.reserve(n);
    }

    /// Local index of `docno`, adding it with [`NOT_IN_QRELS`] if new.
    fn doc(&mut self, docno: &[u8]) -> usize {
        let (d, new) = self.docs.intern(docno);
        if new {
            self.push_slots();
        }
        d as usize
    }

    /// Adds `docno` (hash `h`), known to be absent, with grade `grade` from line `line`.
    fn add_new(&mut self, docno: &[u8], h: u64, grade: i32, line: u32) {
        self.docs.insert_new_hashed(docno, h);
        self.push_slots();
        *self.grades.last_mut().expect("just pushed") = grade;
        *self.lines.last_mut().expect("just pushed") = line;
    }

    /// Per-document slots of a new document.
    fn push_slots(&mut self) {
        self.grades.push(NOT_IN_QRELS);
        self.lines.push(0);
        for v in [&mut self.lengths, &mut self.times] {
            if !v.is_empty() {
                v.push(None);
            }
        }
        if !self.subtopics.is_empty() {
            self.subtopics.push(Vec::new());
        }
    }

    /// Subtopics of local document `d` (empty when none are loaded).
    pub fn subtopics_of(&self, d: u32) -> &[(u32, f64)] {
        self.subtopics.get(d as usize).map_or(&[], |v| v.as_slice())
    }

    /// Length in words of local document `d`, if loaded.
    pub fn length_of(&self, d: u32) -> Option<f64> {
        self.lengths.get(d as usize).copied().flatten()
    }

    /// Examination time of local document `d`, if loaded.
    pub fn time_of(&self, d: u32) -> Option<f64> {
        self.times.get(d as usize).copied().flatten()
    }

    /// The grade an own (non-trec_eval) metric sees: the qrels grade, 0 when not in the qrels.
    #[inline]
    pub fn grade_of(&self, d: u32) -> i32 {
        match self.grades[d as usize] {
            NOT_IN_QRELS => 0,
            g => g,
        }
    }

    fn refresh(&mut self) {
        self.num_rel = self.grades.iter().filter(|&&g| g >= RELEVANCE_LEVEL).count();
        self.ideal = self.grades.iter().copied().filter(|&g| g > 0).collect();
        self.ideal.sort_unstable_by(|a, b| b.cmp(a));
        let max = self.grades.iter().copied().filter(|&g| g >= 0).max();
        self.rel_levels = vec![0; max.map_or(0, |m| m as usize + 1)];
        for &g in &self.grades {
            if g >= 0 {
                self.rel_levels[g as usize] += 1;
            }
        }
    }
}

/// Judgements for every topic, ready for evaluation.
#[derive(Debug, Clone, Default)]
pub struct Judgements {
    /// Topics sorted by id (byte order), as trec_eval evaluates them.
    pub topics: Vec<JudgedTopic>,
    /// Largest grade in the qrels (at least 1); ERR and graded gains divide by it.
    pub max_grade: i32,
    /// Where the judgements came from (for messages).
    pub source: String,
    topic_ids: Interner,
    /// Judgements with grade > 0 over every topic (trec_eval's `num_rel` summary with `-c`).
    pub positive_judgements: u64,
}

/// Splits `line` into at most `N` whitespace-separated fields (C `isspace`); returns the
/// fields and the total count (which may exceed `N`).
#[inline]
pub(crate) fn split_fields<const N: usize>(line: &[u8]) -> ([&[u8]; N], usize) {
    let mut out: [&[u8]; N] = [&[]; N];
    let mut n = 0;
    let mut i = 0;
    let len = line.len();
    loop {
        while i < len && is_space(line[i]) {
            i += 1;
        }
        if i == len {
            break;
        }
        let end = field_end(line, i);
        if n < N {
            out[n] = &line[i..end];
        }
        n += 1;
        i = end;
    }
    (out, n)
}

/// The first whitespace byte at or after `i` (or the end), 8 bytes per step: every
/// whitespace byte is below 0x21, and the lowest byte the "has a byte below n" test flags is
/// always a true one.
#[inline]
fn field_end(line: &[u8], mut i: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let len = line.len();
    while i + 8 <= len {
        let w = u64::from_le_bytes(line[i..i + 8].try_into().expect("8 bytes"));
        let m = w.wrapping_sub(0x21 * LO) & !w & HI;
        if m == 0 {
            i += 8;
            continue;
        }
        let k = i + (m.trailing_zeros() / 8) as usize;
        if is_space(line[k]) {
            return k;
        }
        i = k + 1;
    }
    while i < len && !is_space(line[i]) {
        i += 1;
    }
    i
}

/// C's `isspace` in the "C" locale.
#[inline]
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Whether a line is blank or a `#` comment (first non-blank character).
#[inline]
pub(crate) fn is_skipped(line: &[u8]) -> bool {
    match line.iter().position(|&b| !is_space(b)) {
        None => true,
        Some(i) => line[i] == b'#',
    }
}

/// An integer field (`[+-]digits`), as trec_eval's `atol` reads whole-integer fields.
#[inline]
pub(crate) fn parse_int(field: &[u8]) -> Option<i32> {
    let (neg, digits) = match field.first()? {
        b'-' => (true, &field[1..]),
        b'+' => (false, &field[1..]),
        _ => (false, field),
    };
    if digits.is_empty() || digits.len() > 9 || !digits.iter().all(u8::is_ascii_digit) {
        return std::str::from_utf8(field).ok()?.parse().ok();
    }
    let v = digits.iter().fold(0i32, |a, &b| a * 10 + (b - b'0') as i32);
    Some(if neg { -v } else { v })
}

/// A field as text for a message.
pub(crate) fn show(field: &[u8]) -> String {
    crate::input::snippet(&String::from_utf8_lossy(field), 60)
}

/// Accumulates judgements line by line (or row by row).
struct QrelsBuilder {
    source: String,
    topics: Vec<JudgedTopic>,
    topic_ids: Interner,
    last: Option<usize>,
    max_grade: i32,
}

impl QrelsBuilder {
    fn new(source: &str) -> Self {
        QrelsBuilder { source: source.to_string(), topics: Vec::new(), topic_ids: Interner::default(), last: None, max_grade: 1 }
    }

    #[inline]
    fn push(&mut self, topic: &[u8], docno: &[u8], grade: i32, lineno: usize) -> Result<()> {
        let source = &self.source;
        if grade > MAX_GRADE {
            return Err(Error::parse(source, lineno, format!("relevance {grade} is larger than {MAX_GRADE}")));
        }
        let topics = &mut self.topics;
        let t = match self.last {
            Some(t) if topics[t].id.as_bytes() == topic => t,
            _ => {
                let (t, new) = self.topic_ids.intern(topic);
                if new {
                    let id = std::str::from_utf8(topic).map_err(|_| Error::parse(source, lineno, format!("topic id `{}` is not valid UTF-8", show(topic))))?;
                    // Size a new topic like the one before it (qrels list topics together,
                    // with similar numbers of judgements): no regrowth for typical files.
                    let (n, bytes) = self.last.map_or((16, 256), |p| (topics[p].len(), topics[p].docs.bytes()));
                    let mut new_topic = JudgedTopic::new(id.to_string());
                    new_topic.reserve(n, bytes);
                    topics.push(new_topic);
                }
                self.last = Some(t as usize);
                t as usize
            }
        };
        let topic = &mut topics[t];
        let h = hash_bytes(docno);
        if let Some(d) = topic.find_hashed(docno, h) {
            return Err(Error::parse(
                source,
                lineno,
                format!("document `{}` judged twice for topic `{}` (first at line {})", show(docno), topic.id, topic.lines[d as usize]),
            ));
        }
        topic.add_new(docno, h, grade, lineno as u32);
        self.max_grade = self.max_grade.max(grade);
        Ok(())
    }

    fn finish(self, lines: usize) -> Result<Judgements> {
        if self.topics.is_empty() {
            return Err(Error::parse(&self.source, lines.max(1), "no judgements found (empty qrels)"));
        }
        let mut j = Judgements { topics: self.topics, max_grade: self.max_grade, source: self.source, ..Default::default() };
        j.finish();
        Ok(j)
    }
}

impl Judgements {
    /// Reads qrels from a file (`-` for standard input; gzip and zstd detected).
    pub fn read(path: &Path) -> Result<Self> {
        Self::from_input(crate::input::open(path)?)
    }

    /// Parses qrels text; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Self> {
        Self::from_input(Input::from_bytes(source, text.as_bytes().to_vec())?)
    }

    /// Reads qrels from an opened input, line by line.
    pub fn from_input(input: Input) -> Result<Self> {
        let source = input.name().to_string();
        let mut b = QrelsBuilder::new(&source);
        let mut lines = 0usize;
        for_each_line(input, |lineno, line| {
            lines = lineno;
            if is_skipped(line) {
                return Ok(());
            }
            let (f, n) = split_fields::<4>(line);
            if n != 4 {
                return Err(Error::parse(&source, lineno, format!("expected 4 fields `topic iteration docno relevance`, found {n}")));
            }
            let grade = parse_int(f[3]).ok_or_else(|| Error::parse(&source, lineno, format!("relevance `{}` is not an integer", show(f[3]))))?;
            b.push(f[0], f[2], grade, lineno)
        })?;
        b.finish(lines)
    }

    /// Judgements from rows `(topic, docno, grade)` (a table's columns, in row order), with the
    /// checks and messages of the qrels reader: errors name row + 1 as the line of `source`.
    pub fn from_rows<'a, I>(source: &str, rows: I) -> Result<Self>
    where
        I: IntoIterator<Item = Result<(&'a [u8], &'a [u8], i32)>>,
    {
        let mut b = QrelsBuilder::new(source);
        let mut lines = 0;
        for (i, row) in rows.into_iter().enumerate() {
            let (t, d, g) = row?;
            lines = i + 1;
            b.push(t, d, g, lines)?;
        }
        b.finish(lines)
    }

    fn finish(&mut self) {
        self.topics.sort_by(|a, b| a.id.as_bytes().cmp(b.id.as_bytes()));
        self.topic_ids = Interner::default();
        for t in &self.topics {
            self.topic_ids.intern(t.id.as_bytes());
        }
        self.refresh();
    }

    fn refresh(&mut self) {
        self.positive_judgements = 0;
        for t in &mut self.topics {
            t.refresh();
            self.positive_judgements += t.grades.iter().filter(|&&g| g > 0 && g != NOT_IN_QRELS).count() as u64;
        }
    }

    /// Index of topic `id`.
    pub fn topic_index(&self, id: &str) -> Option<usize> {
        self.topic_index_bytes(id.as_bytes())
    }

    /// Index of topic `id` given as bytes.
    #[inline]
    pub fn topic_index_bytes(&self, id: &[u8]) -> Option<usize> {
        self.topic_ids.find(id).map(|t| t as usize)
    }

    /// Number of judged documents over all topics.
    pub fn judged_documents(&self) -> usize {
        self.topics.iter().map(|t| t.grades.iter().filter(|&&g| g != NOT_IN_QRELS).count()).sum()
    }

    fn topic_at(&self, id: &str, source: &str, lineno: usize) -> Result<usize> {
        self.topic_index(id).ok_or_else(|| Error::parse(source, lineno, format!("topic `{id}` is not in the qrels")))
    }

    /// Adds subtopic judgements, lines `topic subtopic docno grade`. Unknown documents are
    /// added as not judged for the topic; unknown topics and repeated (subtopic, document)
    /// pairs are errors.
    pub fn add_subtopics(&mut self, text: &str, source: &str) -> Result<()> {
        self.add_subtopics_from(Input::from_bytes(source, text.as_bytes().to_vec())?)
    }

    /// [`add_subtopics`](Self::add_subtopics) from a file (plain, gzip or zstd; `-` is standard input).
    pub fn add_subtopics_file(&mut self, path: &Path) -> Result<()> {
        self.add_subtopics_from(crate::input::open(path)?)
    }

    /// [`add_subtopics`](Self::add_subtopics) from an opened input, checked line by line as it
    /// streams (the first bad line fails at once, lines are bounded by
    /// [`crate::input::DEFAULT_MAX_LINE`]); nothing is added unless every line is good.
    pub fn add_subtopics_from(&mut self, input: Input) -> Result<()> {
        let source = input.name().to_string();
        let source = source.as_str();
        let mut rows = Vec::new();
        let mut max = 0i32;
        input.lines().for_each(|lineno, line| {
            let Some(f) = fields(line, 4, "topic subtopic docno grade", source, lineno)? else { return Ok(()) };
            let grade: i32 = f[3].parse().map_err(|_| Error::parse(source, lineno, format!("grade `{}` is not an integer", f[3])))?;
            let t = self.topic_at(f[0], source, lineno)?;
            max = max.max(grade);
            rows.push((lineno, t, f[1].to_string(), f[2].to_string(), grade));
            Ok(())
        })?;
        if rows.is_empty() {
            return Err(Error::parse(source, 1, "no subtopic judgements found"));
        }
        let max = max.max(1) as f64;
        for (lineno, t, sub, doc, grade) in rows {
            let topic = &mut self.topics[t];
            if topic.subtopics.len() < topic.len() {
                topic.subtopics.resize(topic.len(), Vec::new());
            }
            let s = match topic.subtopic_names.iter().position(|n| *n == sub) {
                Some(s) => s,
                None => {
                    topic.subtopic_names.push(sub.clone());
                    topic.subtopic_weights.push(None);
                    topic.subtopic_names.len() - 1
                }
            } as u32;
            let d = topic.doc(doc.as_bytes());
            if topic.subtopics[d].iter().any(|&(x, _)| x == s) {
                return Err(Error::parse(source, lineno, format!("document `{doc}` judged twice for subtopic `{sub}` of topic `{}`", topic.id)));
            }
            topic.subtopics[d].push((s, grade.max(0) as f64 / max));
        }
        self.refresh();
        Ok(())
    }

    /// Adds raw subtopic weights for the Cube Test's "p" weighting, lines `topic subtopic weight`.
    pub fn add_subtopic_weights(&mut self, text: &str, source: &str) -> Result<()> {
        self.add_subtopic_weights_from(Input::from_bytes(source, text.as_bytes().to_vec())?)
    }

    /// [`add_subtopic_weights`](Self::add_subtopic_weights) from a file.
    pub fn add_subtopic_weights_file(&mut self, path: &Path) -> Result<()> {
        self.add_subtopic_weights_from(crate::input::open(path)?)
    }

    /// [`add_subtopic_weights`](Self::add_subtopic_weights) from an opened input, line by line.
    pub fn add_subtopic_weights_from(&mut self, input: Input) -> Result<()> {
        let source = input.name().to_string();
        let source = source.as_str();
        input.lines().for_each(|lineno, line| {
            let Some(f) = fields(line, 3, "topic subtopic weight", source, lineno)? else { return Ok(()) };
            let w: f64 = f[2]
                .parse()
                .ok()
                .filter(|w: &f64| w.is_finite() && *w >= 0.0)
                .ok_or_else(|| Error::parse(source, lineno, format!("weight `{}` is not a finite number >= 0", f[2])))?;
            let t = self.topic_at(f[0], source, lineno)?;
            let topic = &mut self.topics[t];
            let s = topic
                .subtopic_names
                .iter()
                .position(|n| n == f[1])
                .ok_or_else(|| Error::parse(source, lineno, format!("subtopic `{}` has no judgements for topic `{}`", f[1], f[0])))?;
            topic.subtopic_weights[s] = Some(w);
            Ok(())
        })
    }

    /// Adds per-document values, lines `topic docno value`: lengths in words (`times` false)
    /// or examination times in seconds (`times` true).
    pub fn add_document_values(&mut self, text: &str, source: &str, times: bool) -> Result<()> {
        self.add_document_values_from(Input::from_bytes(source, text.as_bytes().to_vec())?, times)
    }

    /// [`add_document_values`](Self::add_document_values) from a file.
    pub fn add_document_values_file(&mut self, path: &Path, times: bool) -> Result<()> {
        self.add_document_values_from(crate::input::open(path)?, times)
    }

    /// [`add_document_values`](Self::add_document_values) from an opened input, line by line.
    pub fn add_document_values_from(&mut self, input: Input, times: bool) -> Result<()> {
        let source = input.name().to_string();
        let source = source.as_str();
        let result = input.lines().for_each(|lineno, line| {
            let Some(f) = fields(line, 3, "topic docno value", source, lineno)? else { return Ok(()) };
            let v: f64 = f[2]
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| Error::parse(source, lineno, format!("value `{}` is not a finite number >= 0", f[2])))?;
            let t = self.topic_at(f[0], source, lineno)?;
            let topic = &mut self.topics[t];
            let d = topic.doc(f[1].as_bytes());
            let target = if times { &mut topic.times } else { &mut topic.lengths };
            if target.len() < topic.grades.len() {
                target.resize(topic.grades.len(), None);
            }
            target[d] = Some(v);
            Ok(())
        });
        self.refresh();
        result
    }
}

fn fields<'a>(line: &'a str, n: usize, what: &str, source: &str, lineno: usize) -> Result<Option<Vec<&'a str>>> {
    if is_skipped(line.as_bytes()) {
        return Ok(None);
    }
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.len() != n {
        return Err(Error::parse(source, lineno, format!("expected {n} fields `{what}`, found {}", f.len())));
    }
    Ok(Some(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_sorted_by_id_comments_and_crlf() {
        let j = Judgements::parse("# header\n302 0 a 1\r\n301 0 b 2\n\n  # indented comment\n301 0 c -1\n", "q").unwrap();
        let ids: Vec<&str> = j.topics.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["301", "302"]);
        let t = &j.topics[0];
        assert_eq!(t.grades, [2, -1]);
        assert_eq!(t.rel_levels, [0, 0, 1]);
        assert_eq!((t.num_rel, j.max_grade, j.positive_judgements), (1, 2, 2));
        assert_eq!(t.find(b"c"), Some(1));
        assert_eq!(j.topic_index("302"), Some(1));
    }

    #[test]
    fn malformed_qrels_name_file_and_line() {
        for (text, expect) in [
            ("1 0 a 1\n1 0 b\n", "q:2: expected 4 fields"),
            ("1 0 a 1 extra\n", "q:1: expected 4 fields"),
            ("1 0 a one\n", "q:1: relevance `one` is not an integer"),
            ("1 0 a 1\n1 0 a 0\n", "q:2: document `a` judged twice for topic `1` (first at line 1)"),
            ("\n# only a comment\n", "q:2: no judgements found"),
            ("1 0 a 2000000\n", "q:1: relevance 2000000 is larger"),
        ] {
            let e = Judgements::parse(text, "q").unwrap_err().to_string();
            assert!(e.starts_with(expect), "{text:?}: {e}");
        }
        let e = Judgements::from_input(Input::from_bytes("q", b"\xff1 0 a 1\n".to_vec()).unwrap()).unwrap_err();
        assert!(e.to_string().starts_with("q:1: topic id"), "{e}");
    }

    #[test]
    fn fields_split_on_c_whitespace_only() {
        // Control bytes that C's isspace does not count (0x01, 0x1f) stay inside fields.
        let line = b"  301\tQ0  DOC\x01-1\x0b7 \x1f8.5\r tag more";
        let (f, n) = split_fields::<6>(line);
        assert_eq!(n, 7);
        assert_eq!(f, [&b"301"[..], b"Q0", b"DOC\x01-1", b"7", b"\x1f8.5", b"tag"]);
        let long = b"averyveryverylongdocumentidentifier\x02x other";
        assert_eq!(split_fields::<2>(long), ([&long[..37], &b"other"[..]], 2));
        assert_eq!(split_fields::<2>(b" \t "), ([&b""[..], &b""[..]], 0));
    }

    #[test]
    fn auxiliary_documents_are_not_in_the_qrels() {
        let mut j = Judgements::parse("1 0 a 1\n", "q").unwrap();
        j.add_document_values("1 z 10\n", "len", false).unwrap();
        let t = &j.topics[0];
        assert_eq!(t.grades, [1, NOT_IN_QRELS]);
        assert_eq!((t.length_of(1), t.length_of(0), t.grade_of(1)), (Some(10.0), None, 0));
        assert_eq!(t.rel_levels, [0, 1]);
        assert_eq!(j.judged_documents(), 1);
    }
}
