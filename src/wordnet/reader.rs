//! Parsing of `data.<pos>`, `index.<pos>` and `<pos>.exc` (format: wndb(5WN), morph(7WN)).

use super::Pos;
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

/// One part of speech: synsets, hypernym edges, lemma index and exception list.
#[derive(Debug)]
pub struct PosDb {
    pos: Pos,
    /// Byte offset of each synset in `data.<pos>` (WordNet's synset id), in file order.
    offsets: Vec<u32>,
    /// CSR: hypernyms and instance hypernyms of synset i are `hypers[hyper_start[i]..hyper_start[i+1]]`.
    hyper_start: Vec<u32>,
    hypers: Vec<u32>,
    /// CSR: lower-cased lemma names of synset i.
    lemma_start: Vec<u32>,
    lemmas: Vec<String>,
    index: HashMap<String, Vec<u32>>,
    exceptions: HashMap<String, Vec<String>>,
    /// Longest hypernym path of each synset (NLTK's `Synset.max_depth`).
    max_depth_of: Vec<u32>,
    /// Taxonomy depth D used by LCH: max of `max_depth_of`, plus one for a simulated root.
    taxonomy_depth: u32,
}

/// NLTK's `MORPHOLOGICAL_SUBSTITUTIONS` for nouns and verbs, in NLTK's order.
const NOUN_RULES: &[(&str, &str)] =
    &[("s", ""), ("ses", "s"), ("ves", "f"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"), ("ies", "y")];
const VERB_RULES: &[(&str, &str)] = &[("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")];

/// The whole file through the input layer (BOM removed; CRLF lines and gzip also work).
fn read(path: &Path) -> Result<String> {
    crate::input::read_to_string(path)
}

impl PosDb {
    pub(super) fn load(dir: &Path, pos: Pos) -> Result<PosDb> {
        let data_path = dir.join(format!("data.{}", pos.file_suffix()));
        let text = read(&data_path)?;
        let mut offsets = Vec::new();
        let mut raw_hypers: Vec<(u32, u32)> = Vec::new(); // (synset, target offset)
        let mut lemma_start = vec![0u32];
        let mut lemmas = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.starts_with(' ') || line.is_empty() {
                continue; // licence header
            }
            let err = |reason: String| Error::parse(&data_path, i + 1, reason);
            let body = line.split('|').next().unwrap_or("");
            let mut t = body.split_ascii_whitespace();
            let mut next = |what: &str| t.next().ok_or_else(|| err(format!("line ends before {what}")));
            let offset: u32 = next("synset offset")?.parse().map_err(|e| err(format!("synset offset: {e}")))?;
            next("lex_filenum")?;
            let ss_type = next("ss_type")?;
            if !ss_type.starts_with(pos.tag()) {
                return Err(err(format!("ss_type `{ss_type}` in a {} file", pos.file_suffix())));
            }
            let w_cnt = usize::from_str_radix(next("w_cnt")?, 16).map_err(|e| err(format!("w_cnt: {e}")))?;
            for _ in 0..w_cnt {
                let word = next("word")?;
                next("lex_id")?;
                lemmas.push(word.to_lowercase());
            }
            let p_cnt: usize = next("p_cnt")?.parse().map_err(|e| err(format!("p_cnt: {e}")))?;
            let me = offsets.len() as u32;
            for _ in 0..p_cnt {
                let sym = next("pointer symbol")?;
                let target = next("pointer offset")?;
                let tpos = next("pointer pos")?;
                next("pointer source/target")?;
                if (sym == "@" || sym == "@i") && tpos.starts_with(pos.tag()) {
                    let target: u32 = target.parse().map_err(|e| err(format!("pointer offset: {e}")))?;
                    raw_hypers.push((me, target));
                }
            }
            offsets.push(offset);
            lemma_start.push(lemmas.len() as u32);
        }
        let by_offset: HashMap<u32, u32> = offsets.iter().enumerate().map(|(i, &o)| (o, i as u32)).collect();
        let n = offsets.len();
        let mut hyper_start = vec![0u32; n + 1];
        for &(s, _) in &raw_hypers {
            hyper_start[s as usize + 1] += 1;
        }
        for i in 0..n {
            hyper_start[i + 1] += hyper_start[i];
        }
        let mut hypers = vec![0u32; raw_hypers.len()];
        let mut fill = hyper_start.clone();
        for &(s, target) in &raw_hypers {
            let t = *by_offset.get(&target).ok_or_else(|| {
                Error::Invalid(format!("{}: synset {:08} points to hypernym {target:08}, which is not in the file", data_path.display(), offsets[s as usize]))
            })?;
            hypers[fill[s as usize] as usize] = t;
            fill[s as usize] += 1;
        }

        let index_path = dir.join(format!("index.{}", pos.file_suffix()));
        let text = read(&index_path)?;
        let mut index = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            if line.starts_with(' ') || line.trim().is_empty() {
                continue;
            }
            let err = |reason: String| Error::parse(&index_path, i + 1, reason);
            let mut t = line.split_ascii_whitespace();
            let mut next = |what: &str| t.next().ok_or_else(|| err(format!("line ends before {what}")));
            let lemma = next("lemma")?.to_string();
            next("pos")?;
            let n_synsets: usize = next("synset_cnt")?.parse().map_err(|e| err(format!("synset_cnt: {e}")))?;
            let n_ptrs: usize = next("p_cnt")?.parse().map_err(|e| err(format!("p_cnt: {e}")))?;
            for _ in 0..n_ptrs {
                next("pointer symbol")?;
            }
            next("sense_cnt")?;
            next("tagsense_cnt")?;
            // A lemma cannot belong to more synsets than the data file has: the count is bounded
            // by the data before anything is allocated from it (issue 29: a huge count panicked).
            if n_synsets > offsets.len() {
                return Err(err(format!("synset_cnt {n_synsets} is above the upper bound of {} (the synsets of {})", offsets.len(), data_path.display())));
            }
            let mut ss = Vec::with_capacity(n_synsets);
            for _ in 0..n_synsets {
                let o: u32 = next("synset offset")?.parse().map_err(|e| err(format!("synset offset: {e}")))?;
                ss.push(*by_offset.get(&o).ok_or_else(|| err(format!("synset {o:08} is not in data file")))?);
            }
            index.insert(lemma, ss);
        }

        let exc_path = dir.join(format!("{}.exc", pos.file_suffix()));
        let text = read(&exc_path)?;
        let mut exceptions = HashMap::new();
        for line in text.lines() {
            let mut t = line.split_ascii_whitespace();
            if let Some(form) = t.next() {
                exceptions.insert(form.to_string(), t.map(str::to_string).collect());
            }
        }

        let max_depth_of = max_depths(&hyper_start, &hypers)
            .map_err(|s| Error::Invalid(format!("{}: hypernym cycle through synset {:08}", data_path.display(), offsets[s])))?;
        let simulate_root = pos == Pos::Verb;
        let taxonomy_depth = max_depth_of.iter().copied().max().unwrap_or(0) + simulate_root as u32;
        Ok(PosDb { pos, offsets, hyper_start, hypers, lemma_start, lemmas, index, exceptions, max_depth_of, taxonomy_depth })
    }

    /// Part of speech.
    pub fn pos(&self) -> Pos {
        self.pos
    }

    /// Number of synsets.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// Whether there are no synsets.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// WordNet's id (byte offset in the data file) of synset `s`.
    pub fn offset(&self, s: u32) -> u32 {
        self.offsets[s as usize]
    }

    /// Hypernyms and instance hypernyms of synset `s`.
    pub fn hypernyms(&self, s: u32) -> &[u32] {
        &self.hypers[self.hyper_start[s as usize] as usize..self.hyper_start[s as usize + 1] as usize]
    }

    /// Lower-cased lemma names of synset `s` (multi-word lemmas joined by `_`).
    pub fn lemmas(&self, s: u32) -> &[String] {
        &self.lemmas[self.lemma_start[s as usize] as usize..self.lemma_start[s as usize + 1] as usize]
    }

    /// NLTK's `Synset.max_depth()`: length of the longest hypernym path to a root.
    pub fn max_depth(&self, s: u32) -> u32 {
        self.max_depth_of[s as usize]
    }

    /// Whether NLTK simulates a root for this part of speech (verbs only, for WordNet 3.0).
    pub fn simulate_root(&self) -> bool {
        self.pos == Pos::Verb
    }

    /// Taxonomy depth D of LCH as NLTK computes it: the largest `max_depth` over all synsets,
    /// plus one when a root is simulated (WordNet 3.0: nouns 19, verbs 13).
    pub fn taxonomy_depth(&self) -> u32 {
        self.taxonomy_depth
    }

    /// Synsets listed for an (already lemmatised, lower-case) `lemma` in the index.
    pub fn index_lookup(&self, lemma: &str) -> Option<&[u32]> {
        self.index.get(lemma).map(Vec::as_slice)
    }

    /// NLTK 3.10 `_morphy` on a lower-cased form.
    pub(super) fn morphy(&self, form: &str) -> Vec<String> {
        let rules = match self.pos {
            Pos::Noun => NOUN_RULES,
            Pos::Verb => VERB_RULES,
        };
        let mut candidates = vec![form.to_string()];
        if let Some(bases) = self.exceptions.get(form) {
            candidates.extend(bases.iter().cloned());
        } else {
            for (old, new) in rules {
                if let Some(stem) = form.strip_suffix(old) {
                    candidates.push(format!("{stem}{new}"));
                }
            }
        }
        let mut out: Vec<String> = Vec::new();
        for c in candidates {
            if self.index.contains_key(&c) && !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }
}

/// Longest hypernym path of every synset; `Err(s)` on a cycle through `s`.
fn max_depths(start: &[u32], hypers: &[u32]) -> std::result::Result<Vec<u32>, usize> {
    let n = start.len() - 1;
    const TODO: u32 = u32::MAX;
    const BUSY: u32 = u32::MAX - 1;
    let mut depth = vec![TODO; n];
    let mut stack: Vec<(usize, usize)> = Vec::new(); // (synset, next hypernym position)
    for root in 0..n {
        if depth[root] != TODO {
            continue;
        }
        stack.push((root, start[root] as usize));
        depth[root] = BUSY;
        while let Some(&mut (s, ref mut k)) = stack.last_mut() {
            if *k < start[s + 1] as usize {
                let h = hypers[*k] as usize;
                *k += 1;
                match depth[h] {
                    TODO => {
                        depth[h] = BUSY;
                        stack.push((h, start[h] as usize));
                    }
                    BUSY => return Err(h),
                    _ => {}
                }
            } else {
                let hs = &hypers[start[s] as usize..start[s + 1] as usize];
                depth[s] = hs.iter().map(|&h| depth[h as usize] + 1).max().unwrap_or(0);
                stack.pop();
            }
        }
    }
    Ok(depth)
}
