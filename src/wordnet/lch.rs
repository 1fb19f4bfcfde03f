//! Leacock–Chodorow similarity as NLTK defines it, with a per-word cache.
//!
//! NLTK (3.10, `Synset.lch_similarity` with the default `simulate_root=True`):
//! - D = the largest `max_depth()` over all synsets of the part of speech, plus 1 for verbs
//!   (a root is simulated for verbs only: `_needs_root()` is false for WordNet 3.0 nouns);
//! - path length p = `shortest_path_distance`: the minimum over common ancestors a (the synset
//!   itself included, hypernyms and instance hypernyms followed) of d(s1, a) + d(s2, a), with
//!   d the BFS distance; for verbs a fake `*ROOT*` is an ancestor of every synset at distance
//!   `max_a d(s, a) + 1`; identical synsets have p = 0;
//! - LCH = -ln((p + 1) / (2 D)); no common ancestor gives `None`.
//!
//! Word-level LCH is the maximum over the synset pairs of the two words. Because LCH falls
//! with p, that is LCH of min over pairs of p = min over ancestors a of
//! (min over s1 d(s1, a)) + (min over s2 d(s2, a)). So each word's ancestors are merged once
//! into one sorted list of (ancestor, distance), cached, and a word pair costs one merge walk.

use super::{Pos, PosDb, WordNet};
use std::collections::HashMap;

/// Ancestor id of NLTK's simulated `*ROOT*`.
const ROOT: u32 = u32::MAX;

#[derive(Debug, Default)]
struct WordCache {
    /// word (as given) -> entry
    ids: HashMap<String, u32>,
    /// entry e: ancestors `anc[start[e]..start[e+1]]`, sorted by ancestor id.
    start: Vec<u32>,
    anc: Vec<(u32, u32)>,
}

/// LCH similarity over a [`WordNet`], caching each word's merged ancestor list.
#[derive(Debug)]
pub struct Similarity<'a> {
    wn: &'a WordNet,
    caches: [WordCache; 2],
    queue: Vec<(u32, u32)>,
}

impl<'a> Similarity<'a> {
    /// An empty cache over `wn`.
    pub fn new(wn: &'a WordNet) -> Self {
        let empty = || WordCache { start: vec![0], ..Default::default() };
        Similarity { wn, caches: [empty(), empty()], queue: Vec::new() }
    }

    /// The database.
    pub fn wordnet(&self) -> &'a WordNet {
        self.wn
    }

    /// Largest possible LCH for `pos`: ln(2 D), reached by identical synsets.
    pub fn max_lch(&self, pos: Pos) -> f64 {
        lch_of_distance(0, self.wn.db(pos).taxonomy_depth()).unwrap_or(0.0)
    }

    /// Word-level LCH: maximum of NLTK's `lch_similarity` over `wn.synsets(w1, pos)` x
    /// `wn.synsets(w2, pos)`. `None` when a word has no synset or no pair is connected.
    pub fn lch(&mut self, w1: &str, w2: &str, pos: Pos) -> Option<f64> {
        let a = self.entry(w1, pos);
        let b = self.entry(w2, pos);
        let c = &self.caches[pos as usize];
        let d = min_distance(slice(c, a), slice(c, b))?;
        lch_of_distance(d, self.wn.db(pos).taxonomy_depth())
    }

    /// LCH of two synsets (indices into the part of speech's [`PosDb`]), as NLTK.
    pub fn synset_lch(&mut self, s1: u32, s2: u32, pos: Pos) -> Option<f64> {
        let db = self.wn.db(pos);
        let mut a = Vec::new();
        let mut b = Vec::new();
        ancestors(db, s1, &mut self.queue, &mut a);
        ancestors(db, s2, &mut self.queue, &mut b);
        a.sort_unstable();
        b.sort_unstable();
        let d = if s1 == s2 { 0 } else { min_distance(&a, &b)? };
        lch_of_distance(d, db.taxonomy_depth())
    }

    /// Number of words cached for `pos`.
    pub fn cached_words(&self, pos: Pos) -> usize {
        self.caches[pos as usize].ids.len()
    }

    fn entry(&mut self, word: &str, pos: Pos) -> u32 {
        if let Some(&e) = self.caches[pos as usize].ids.get(word) {
            return e;
        }
        let db = self.wn.db(pos);
        let mut merged: Vec<(u32, u32)> = Vec::new();
        let mut one = Vec::new();
        for s in self.wn.synsets(word, pos) {
            one.clear();
            ancestors(db, s, &mut self.queue, &mut one);
            merged.extend_from_slice(&one);
        }
        merged.sort_unstable();
        merged.dedup_by_key(|x| x.0); // keeps the smallest distance per ancestor
        let c = &mut self.caches[pos as usize];
        let e = (c.start.len() - 1) as u32;
        c.anc.extend_from_slice(&merged);
        c.start.push(c.anc.len() as u32);
        c.ids.insert(word.to_string(), e);
        e
    }
}

fn slice(c: &WordCache, e: u32) -> &[(u32, u32)] {
    &c.anc[c.start[e as usize] as usize..c.start[e as usize + 1] as usize]
}

/// -ln((p + 1) / (2 D)), `None` when D = 0 (NLTK's guard).
fn lch_of_distance(p: u32, depth: u32) -> Option<f64> {
    if depth == 0 {
        return None;
    }
    Some(-((p as f64 + 1.0) / (2.0 * depth as f64)).ln())
}

/// NLTK's `_shortest_hypernym_paths`: BFS distances to every ancestor (the synset at 0), plus
/// the simulated root at max distance + 1 for verbs. Appends (ancestor, distance) to `out`.
fn ancestors(db: &PosDb, s: u32, queue: &mut Vec<(u32, u32)>, out: &mut Vec<(u32, u32)>) {
    let first = out.len();
    queue.clear();
    queue.push((s, 0));
    let mut head = 0;
    while head < queue.len() {
        let (x, d) = queue[head];
        head += 1;
        if out[first..].iter().any(|&(y, _)| y == x) {
            continue;
        }
        out.push((x, d));
        for &h in db.hypernyms(x) {
            queue.push((h, d + 1));
        }
    }
    if db.simulate_root() {
        let far = out[first..].iter().map(|&(_, d)| d).max().unwrap_or(0);
        out.push((ROOT, far + 1));
    }
}

/// Minimum of d1 + d2 over the common ancestors of two sorted lists.
#[inline]
fn min_distance(a: &[(u32, u32)], b: &[(u32, u32)]) -> Option<u32> {
    let (mut i, mut j) = (0, 0);
    let mut best = u32::MAX;
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i].0, b[j].0);
        if x < y {
            i += 1;
        } else if y < x {
            j += 1;
        } else {
            best = best.min(a[i].1 + b[j].1);
            i += 1;
            j += 1;
        }
    }
    (best != u32::MAX).then_some(best)
}
