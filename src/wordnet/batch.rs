//! Batch scoring of word pairs: TSV `word1<TAB>word2[<TAB>pos][<TAB>extra...]` in, TSV
//! `word1<TAB>word2<TAB>pos<TAB>score[<TAB>extra...]` out, one output row per input pair in
//! input order. Extra columns (a human similarity score of a word-similarity data set, ids, ...)
//! are carried through unchanged after the score, so the output joins with them directly.
//!
//! The whole input is read and checked first ([`read_pairs`], about the input's size in
//! memory), so a bad line is reported as `file:line` before any row is written: a run's output
//! is complete or absent. Scoring then streams rows out; each word's ancestor list is computed
//! once and cached ([`Similarity`]), so the cost per pair after the first occurrences is one
//! merge walk of two short sorted lists.
//!
//! ```
//! use serpsim::input::Input;
//! use serpsim::wordnet::{batch, Measure, Pos, Similarity, WordNet};
//! let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wordnet/mini");
//! let wn = WordNet::open(&dir)?;
//! let pairs = batch::read_pairs(Input::from_bytes("pairs.tsv", b"dog\tcat\nran\twalk\tv\n".to_vec())?, Pos::Noun)?;
//! let mut out = Vec::new();
//! batch::write_scores(&mut Similarity::new(&wn), Measure::Path, &pairs, &mut out, None)?;
//! assert_eq!(String::from_utf8(out).unwrap(), "word1\tword2\tpos\tpath\ndog\tcat\tn\t0.3333333333333333\nran\twalk\tv\t0.3333333333333333\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{Measure, Pos, Similarity};
use crate::error::{Error, Result};
use crate::input::{snippet, Input};
use std::io::Write;

/// Word pairs read from a file, held in one text arena.
#[derive(Debug, Default)]
pub struct Pairs {
    text: String,
    /// (start of word1, end of word1 = start of word2, end of word2 = start of the extra
    /// columns, end of the extra columns, part of speech).
    rows: Vec<(usize, usize, usize, usize, Pos)>,
    /// Names of the extra columns (from the header, or `extra1`, `extra2`, ...).
    extra_names: Vec<String>,
}

impl Pairs {
    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Pair `i`: the two words and the part of speech.
    pub fn get(&self, i: usize) -> (&str, &str, Pos) {
        let (a, b, c, _, pos) = self.rows[i];
        (&self.text[a..b], &self.text[b..c], pos)
    }

    /// Pair `i`'s extra columns, TAB-separated as read (empty without extra columns).
    pub fn extra(&self, i: usize) -> &str {
        let (_, _, c, d, _) = self.rows[i];
        &self.text[c..d]
    }

    /// Names of the extra columns carried through to the output.
    pub fn extra_names(&self) -> &[String] {
        &self.extra_names
    }

    /// Adds a pair without extra columns.
    pub fn push(&mut self, w1: &str, w2: &str, pos: Pos) {
        self.push_with(w1, w2, pos, "");
    }

    fn push_with(&mut self, w1: &str, w2: &str, pos: Pos, extra: &str) {
        let a = self.text.len();
        self.text.push_str(w1);
        let b = self.text.len();
        self.text.push_str(w2);
        let c = self.text.len();
        self.text.push_str(extra);
        self.rows.push((a, b, c, self.text.len(), pos));
    }
}

/// True for the spellings of a part of speech the third column may hold.
fn is_pos(field: &str) -> bool {
    Pos::parse(field).is_ok()
}

/// Reads TSV word pairs: `word1<TAB>word2`, then optionally a part of speech (`n`, `noun`, `v`,
/// `verb`, or empty), then any number of extra columns carried through to the output (the same
/// number on every row). A third field that is a number (a human similarity score, as in
/// word-similarity data sets) starts the extra columns; any other third field must be a part
/// of speech. Rows without a part of speech get `default_pos`. Blank lines and lines starting
/// with `#` are skipped; a first line starting `word1<TAB>word2` is a header, which names the
/// extra columns (otherwise `extra1`, `extra2`, ...). Every error is `file:line: reason`. An
/// input without pairs is an error.
pub fn read_pairs(input: Input, default_pos: Pos) -> Result<Pairs> {
    let name = input.name().to_string();
    let mut pairs = Pairs::default();
    // The header's fields after word2 (and whether its third names a part of speech).
    let mut header: Option<Vec<String>> = None;
    let mut extra_count: Option<usize> = None;
    input.lines().for_each(|n, line| {
        if line.trim().is_empty() || line.starts_with('#') {
            return Ok(());
        }
        let err = |reason: String| Error::parse(&name, n, reason);
        let fields: Vec<&str> = line.split('\t').collect();
        let (w1, w2) = (fields[0].trim(), fields.get(1).map(|w| w.trim()));
        if n == 1 && w1.eq_ignore_ascii_case("word1") && w2.is_some_and(|w| w.eq_ignore_ascii_case("word2")) {
            header = Some(fields[2..].iter().map(|f| f.trim().to_string()).collect());
            return Ok(()); // header
        }
        let Some(w2) = w2 else {
            return Err(err(format!("expected at least 2 TAB-separated fields (word1, word2[, pos][, extra...]), found {}", fields.len())));
        };
        if w1.is_empty() || w2.is_empty() {
            return Err(err("empty word".into()));
        }
        let third = fields.get(2).map(|f| f.trim());
        let (pos, extra_from) = match third {
            None => (default_pos, 2),
            Some("") => (default_pos, 3),
            Some(p) if is_pos(p) => (Pos::parse(p).expect("checked"), 3),
            Some(p) if p.parse::<f64>().is_ok() => (default_pos, 2),
            Some(p) => return Err(err(format!("part of speech `{}`: use n or v (a number in the third column starts the extra columns)", snippet(p, 20)))),
        };
        let extra = &fields[extra_from.min(fields.len())..];
        match extra_count {
            None => {
                extra_count = Some(extra.len());
                pairs.extra_names = match &header {
                    // The header's last `extra.len()` names are the extra columns'.
                    Some(h) if h.len() >= extra.len() => h[h.len() - extra.len()..].to_vec(),
                    _ => (1..=extra.len()).map(|k| format!("extra{k}")).collect(),
                };
            }
            Some(k) if k != extra.len() => {
                return Err(err(format!("{} extra column(s) after word1, word2[, pos], where the first pair has {k}", extra.len())));
            }
            Some(_) => {}
        }
        let extra_text = if extra.is_empty() { String::new() } else { format!("\t{}", extra.join("\t")) };
        pairs.push_with(w1, w2, pos, &extra_text);
        Ok(())
    })?;
    if pairs.is_empty() {
        return Err(Error::Invalid(format!("{name}: no word pairs (the file is empty or holds only blank and comment lines)")));
    }
    Ok(pairs)
}

/// What a batch scored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Pairs with a score.
    pub scored: usize,
    /// Pairs without one (a word without a synset of that part of speech, or no common
    /// ancestor): their score field is empty, where NLTK gives `None`.
    pub missing: usize,
}

/// Writes the header and one row per pair; `progress`, if given, counts pairs done.
pub fn write_scores(
    sim: &mut Similarity<'_>,
    measure: Measure,
    pairs: &Pairs,
    out: &mut dyn Write,
    progress: Option<&crate::progress::Progress>,
) -> std::io::Result<Counts> {
    let mut counts = Counts::default();
    write!(out, "word1\tword2\tpos\t{}", measure.name())?;
    for extra in pairs.extra_names() {
        write!(out, "\t{extra}")?;
    }
    writeln!(out)?;
    for i in 0..pairs.len() {
        let (w1, w2, pos) = pairs.get(i);
        let tag = if pos == Pos::Noun { "n" } else { "v" };
        let extra = pairs.extra(i);
        match sim.score(measure, w1, w2, pos) {
            Some(v) => {
                counts.scored += 1;
                writeln!(out, "{w1}\t{w2}\t{tag}\t{v}{extra}")?;
            }
            None => {
                counts.missing += 1;
                writeln!(out, "{w1}\t{w2}\t{tag}\t{extra}")?;
            }
        }
        if i % 65536 == 65535 {
            if let Some(p) = progress {
                p.inc(65536);
            }
            if crate::interrupt::requested() {
                return Err(std::io::Error::new(std::io::ErrorKind::Interrupted, "interrupted"));
            }
        }
    }
    if let Some(p) = progress {
        p.set_done(pairs.len() as u64);
    }
    Ok(counts)
}
