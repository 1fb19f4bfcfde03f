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

/// A word similarity computed from WordNet's hypernym taxonomy, as NLTK defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Leacock–Chodorow: -ln((p + 1) / (2 D)).
    Lch,
    /// Path similarity: 1 / (p + 1).
    Path,
}

impl Measure {
    /// The name used on the command line and in output headers (`lch`, `path`).
    pub fn name(self) -> &'static str {
        match self {
            Measure::Lch => "lch",
            Measure::Path => "path",
        }
    }
}

/// Ancestor id of NLTK's simulated `*ROOT*`.
const ROOT: u32 = u32::MAX;

/// Per-word cache: an open-addressing table (hash, entry) over an arena in which each entry
/// holds the word's bytes next to its ancestor list, so a warm lookup touches two cache lines.
/// Entry at `o`: `arena[o]` = word length in bytes, `arena[o + 1]` = ancestors, then the word
/// packed 4 bytes per u32, then (ancestor, distance) pairs sorted by ancestor.
#[derive(Debug)]
struct WordCache {
    slots: Vec<(u64, u32)>, // (hash, entry offset + 1); 0 = empty
    len: usize,
    arena: Vec<u32>,
}

impl WordCache {
    fn new() -> Self {
        WordCache { slots: vec![(0, 0); 1024], len: 0, arena: Vec::new() }
    }

    #[inline]
    fn word_at(&self, o: usize) -> (usize, &[u32]) {
        let (n, k) = (self.arena[o] as usize, self.arena[o + 1] as usize);
        let w = n.div_ceil(4);
        (n, &self.arena[o + 2 + w..o + 2 + w + 2 * k])
    }

    #[inline]
    fn same_word(&self, o: usize, word: &[u8]) -> bool {
        let n = self.arena[o] as usize;
        n == word.len() && word.chunks(4).zip(&self.arena[o + 2..]).all(|(c, &v)| pack(c) == v)
    }

    #[inline]
    fn find(&self, h: u64, word: &[u8]) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let (sh, off) = self.slots[i];
            if off == 0 {
                return None;
            }
            if sh == h && self.same_word(off as usize - 1, word) {
                return Some(off as usize - 1);
            }
            i = (i + 1) & mask;
        }
    }

    fn insert(&mut self, h: u64, word: &[u8], anc: &[(u32, u32)]) -> usize {
        if 2 * (self.len + 1) > self.slots.len() {
            let grown = vec![(0, 0); 2 * self.slots.len()];
            let old = std::mem::replace(&mut self.slots, grown);
            let mask = self.slots.len() - 1;
            for (sh, off) in old.into_iter().filter(|s| s.1 != 0) {
                let mut i = sh as usize & mask;
                while self.slots[i].1 != 0 {
                    i = (i + 1) & mask;
                }
                self.slots[i] = (sh, off);
            }
        }
        let o = self.arena.len();
        self.arena.push(word.len() as u32);
        self.arena.push(anc.len() as u32);
        self.arena.extend(word.chunks(4).map(pack));
        for &(a, d) in anc {
            self.arena.push(a);
            self.arena.push(d);
        }
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        while self.slots[i].1 != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = (h, o as u32 + 1);
        self.len += 1;
        o
    }
}

#[inline]
fn pack(c: &[u8]) -> u32 {
    let mut b = [0u8; 4];
    b[..c.len()].copy_from_slice(c);
    u32::from_le_bytes(b)
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
        Similarity { wn, caches: [WordCache::new(), WordCache::new()], queue: Vec::new() }
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
        let d = self.distance(w1, w2, pos)?;
        lch_of_distance(d, self.wn.db(pos).taxonomy_depth())
    }

    /// Word-level path similarity: maximum of NLTK's `path_similarity` (default
    /// `simulate_root=True`) over `wn.synsets(w1, pos)` x `wn.synsets(w2, pos)`, i.e.
    /// 1 / (p + 1) with p the same shortest path length as LCH uses. `None` when a word has no
    /// synset or no pair is connected.
    pub fn path(&mut self, w1: &str, w2: &str, pos: Pos) -> Option<f64> {
        self.distance(w1, w2, pos).map(|p| 1.0 / (p as f64 + 1.0))
    }

    /// Word-level similarity by `measure`.
    pub fn score(&mut self, measure: Measure, w1: &str, w2: &str, pos: Pos) -> Option<f64> {
        match measure {
            Measure::Lch => self.lch(w1, w2, pos),
            Measure::Path => self.path(w1, w2, pos),
        }
    }

    /// Shortest path length between any synset of `w1` and any of `w2` (NLTK's
    /// `shortest_path_distance` with a simulated root for verbs).
    pub fn distance(&mut self, w1: &str, w2: &str, pos: Pos) -> Option<u32> {
        let a = self.entry(w1, pos);
        let b = self.entry(w2, pos);
        let c = &self.caches[pos as usize];
        min_distance(c.word_at(a).1, c.word_at(b).1)
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
        let flat = |v: &[(u32, u32)]| v.iter().flat_map(|&(x, d)| [x, d]).collect::<Vec<u32>>();
        let d = if s1 == s2 { 0 } else { min_distance(&flat(&a), &flat(&b))? };
        lch_of_distance(d, db.taxonomy_depth())
    }

    /// Number of words cached for `pos`.
    pub fn cached_words(&self, pos: Pos) -> usize {
        self.caches[pos as usize].len
    }

    #[inline]
    fn entry(&mut self, word: &str, pos: Pos) -> usize {
        let h = crate::rng::hash_str(word);
        if let Some(o) = self.caches[pos as usize].find(h, word.as_bytes()) {
            return o;
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
        self.caches[pos as usize].insert(h, word.as_bytes(), &merged)
    }
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

/// Minimum of d1 + d2 over the common ancestors of two flat sorted lists
/// `[ancestor, distance, ancestor, distance, ...]`.
#[inline]
fn min_distance(a: &[u32], b: &[u32]) -> Option<u32> {
    let (mut i, mut j) = (0, 0);
    let mut best = u32::MAX;
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x < y {
            i += 2;
        } else if y < x {
            j += 2;
        } else {
            best = best.min(a[i + 1] + b[j + 1]);
            i += 2;
            j += 2;
        }
    }
    (best != u32::MAX).then_some(best)
}
