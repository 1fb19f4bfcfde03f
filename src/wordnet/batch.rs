//! Batch scoring of word pairs: TSV `word1<TAB>word2[<TAB>pos]` in, TSV
//! `word1<TAB>word2<TAB>pos<TAB>score` out, one output row per input pair in input order.
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
    /// (start of word1, end of word1 = start of word2, end of word2, part of speech).
    rows: Vec<(usize, usize, usize, Pos)>,
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
        let (a, b, c, pos) = self.rows[i];
        (&self.text[a..b], &self.text[b..c], pos)
    }

    /// Adds a pair.
    pub fn push(&mut self, w1: &str, w2: &str, pos: Pos) {
        let a = self.text.len();
        self.text.push_str(w1);
        let b = self.text.len();
        self.text.push_str(w2);
        self.rows.push((a, b, self.text.len(), pos));
    }
}

/// Reads TSV word pairs: `word1<TAB>word2` or `word1<TAB>word2<TAB>pos` (`n`, `noun`, `v`,
/// `verb`); rows without a part of speech get `default_pos`. Blank lines and lines starting
/// with `#` are skipped; a first line `word1<TAB>word2[<TAB>pos]` is a header. Every error is
/// `file:line: reason`. An input without pairs is an error.
pub fn read_pairs(input: Input, default_pos: Pos) -> Result<Pairs> {
    let name = input.name().to_string();
    let mut pairs = Pairs::default();
    input.lines().for_each(|n, line| {
        if line.trim().is_empty() || line.starts_with('#') {
            return Ok(());
        }
        let err = |reason: String| Error::parse(&name, n, reason);
        let mut f = line.split('\t');
        let (w1, w2, pos) = (f.next().unwrap_or("").trim(), f.next().map(str::trim), f.next().map(str::trim));
        let extra = f.count();
        if n == 1 && w1.eq_ignore_ascii_case("word1") && w2.is_some_and(|w| w.eq_ignore_ascii_case("word2")) {
            return Ok(()); // header
        }
        let Some(w2) = w2.filter(|_| extra == 0) else {
            let found = line.split('\t').count();
            return Err(err(format!("expected 2 or 3 TAB-separated fields (word1, word2[, pos]), found {found}")));
        };
        if w1.is_empty() || w2.is_empty() {
            return Err(err("empty word".into()));
        }
        let pos = match pos {
            None | Some("") => default_pos,
            Some(p) => Pos::parse(p).map_err(|_| err(format!("part of speech `{}`: use n or v", snippet(p, 20))))?,
        };
        pairs.push(w1, w2, pos);
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
    writeln!(out, "word1\tword2\tpos\t{}", measure.name())?;
    for i in 0..pairs.len() {
        let (w1, w2, pos) = pairs.get(i);
        let tag = if pos == Pos::Noun { "n" } else { "v" };
        match sim.score(measure, w1, w2, pos) {
            Some(v) => {
                counts.scored += 1;
                writeln!(out, "{w1}\t{w2}\t{tag}\t{v}")?;
            }
            None => {
                counts.missing += 1;
                writeln!(out, "{w1}\t{w2}\t{tag}\t")?;
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
