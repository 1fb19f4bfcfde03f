//! Attention features of a candidate term w in a session, each normalised to [0, 1]:
//!
//! - F(w) = fixations (hovers) on tokens of w / the largest such count over the session's words;
//! - D(w) = their total duration / the largest total duration over the session's words;
//! - GLF(w) = tf(w, c_A) * idf(w, C) * (LA(w) + SA(w)) / the largest GLF over the session's
//!   candidate terms (Buscher et al.'s Gaze-Length-Filter): c_A = the attended segments (at
//!   least one fixation), tf counts w in them, idf(w, C) = ln(N / df(w)) over all N segments of
//!   the log, LA(w) = attended segments of 230 characters or more that contain w, SA(w) =
//!   fixations on segments shorter than 230 characters that contain w;
//! - LCH(w) = relatedness of w to the attended words: the attention-weighted mean over attended
//!   words a (not in the query) of rel(w, a), weights = fixation counts, where
//!   rel(w, a) = max over nouns and verbs of LCH_pos(w, a) / ln(2 D_pos) (identical words 1,
//!   words outside WordNet 0); then min-max rescaled to [0, 1] over the session's candidate
//!   terms (all 0 when they are equal).
//!
//! A candidate's terms are its content terms that are not in the query (all its content terms
//! if none is new): the query terms are shared by the candidates. Stop words
//! ([`super::is_stopword`]) are never terms.

use super::{is_stopword, tokenize, Session};
use crate::wordnet::{Pos, Similarity};
use std::collections::{HashMap, HashSet};

/// Segments of this many characters or more are long (LA); shorter ones are short (SA).
pub const SHORT_SEGMENT_CHARS: usize = 230;

/// Document frequencies of words over every displayed segment of a log (the collection C).
#[derive(Debug, Clone, Default)]
pub struct Idf {
    df: HashMap<String, u32>,
    n: u32,
}

impl Idf {
    /// Counts, for each word, the segments of all `sessions` that contain it.
    pub fn from_sessions(sessions: &[Session]) -> Idf {
        let mut idf = Idf::default();
        for s in sessions {
            for (text, _) in &s.segments {
                idf.n += 1;
                let words: HashSet<String> = tokenize(text).collect();
                for w in words {
                    *idf.df.entry(w).or_default() += 1;
                }
            }
        }
        idf
    }

    /// ln(N / df(w)); 0 for a word in no segment.
    pub fn idf(&self, w: &str) -> f64 {
        match self.df.get(w) {
            Some(&df) if df > 0 => (self.n as f64 / df as f64).ln(),
            _ => 0.0,
        }
    }
}

/// Normalised features of one term.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TermFeatures {
    /// F(w).
    pub f: f64,
    /// D(w).
    pub d: f64,
    /// GLF(w).
    pub glf: f64,
    /// LCH(w).
    pub lch: f64,
}

/// Features of every content term of every candidate of a session.
#[derive(Debug, Clone, Default)]
pub struct SessionFeatures {
    /// `terms[c]`: the content terms of candidate c, in order.
    pub terms: Vec<Vec<TermFeatures>>,
}

/// Content terms (tokens that are not stop words) of a suggestion.
pub fn content_terms(suggestion: &str) -> Vec<String> {
    tokenize(suggestion).filter(|t| !is_stopword(t)).collect()
}

/// Computes the features of a session's candidate terms. `sim` supplies LCH; without it
/// LCH(w) is 0 (GLF and TAM do not need WordNet).
pub fn session_features(s: &Session, idf: &Idf, mut sim: Option<&mut Similarity<'_>>) -> SessionFeatures {
    let max_count = s.attention.iter().map(|a| a.count).max().unwrap_or(0) as f64;
    let max_dur = s.attention.iter().map(|a| a.duration_ms).fold(0.0, f64::max);
    let att: HashMap<&str, (u32, f64)> = s.attention.iter().map(|a| (a.word.as_str(), (a.count, a.duration_ms))).collect();
    let segs: Vec<(HashMap<String, u32>, bool, u32)> = s
        .segments
        .iter()
        .map(|(text, fix)| {
            let mut tf = HashMap::new();
            for t in tokenize(text) {
                *tf.entry(t).or_default() += 1;
            }
            (tf, text.chars().count() >= SHORT_SEGMENT_CHARS, *fix)
        })
        .collect();
    let max_lch = sim.as_ref().map(|s| [s.max_lch(Pos::Noun), s.max_lch(Pos::Verb)]);
    let query: HashSet<String> = tokenize(&s.query).collect();
    let attended: Vec<(&str, f64)> =
        s.attention.iter().filter(|a| a.count > 0 && !query.contains(&a.word)).map(|a| (a.word.as_str(), a.count as f64)).collect();
    let total_weight: f64 = attended.iter().map(|a| a.1).sum();
    let mut lch_cache: HashMap<String, f64> = HashMap::new();

    let mut terms: Vec<Vec<TermFeatures>> = Vec::with_capacity(s.suggestions.len());
    for sug in &s.suggestions {
        let mut row = Vec::new();
        let all = content_terms(sug);
        let new_terms: Vec<String> = all.iter().filter(|t| !query.contains(*t)).cloned().collect();
        for w in if new_terms.is_empty() { all } else { new_terms } {
            let (count, dur) = att.get(w.as_str()).copied().unwrap_or((0, 0.0));
            let f = if max_count > 0.0 { count as f64 / max_count } else { 0.0 };
            let d = if max_dur > 0.0 { dur / max_dur } else { 0.0 };
            let (mut tf, mut la, mut sa) = (0u32, 0u32, 0u32);
            for (seg_tf, long, fix) in &segs {
                if *fix == 0 {
                    continue;
                }
                if let Some(&n) = seg_tf.get(&w) {
                    tf += n;
                    if *long {
                        la += 1;
                    } else {
                        sa += fix;
                    }
                }
            }
            let glf = tf as f64 * idf.idf(&w) * (la + sa) as f64;
            let lch = match (sim.as_deref_mut(), max_lch) {
                (Some(sim), Some(max)) => *lch_cache.entry(w.clone()).or_insert_with(|| {
                    let mut sum = 0.0;
                    for &(a, weight) in &attended {
                        let mut best: f64 = 0.0;
                        for (k, pos) in Pos::ALL.into_iter().enumerate() {
                            if let Some(v) = sim.lch(&w, a, pos) {
                                best = best.max(v / max[k]);
                            }
                        }
                        sum += weight * best;
                    }
                    if total_weight > 0.0 {
                        sum / total_weight
                    } else {
                        0.0
                    }
                }),
                _ => 0.0,
            };
            row.push(TermFeatures { f, d, glf, lch });
        }
        terms.push(row);
    }
    let max_glf = terms.iter().flatten().map(|t| t.glf).fold(0.0, f64::max);
    if max_glf > 0.0 {
        terms.iter_mut().flatten().for_each(|t| t.glf /= max_glf);
    }
    let (lo, hi) = terms.iter().flatten().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| (lo.min(t.lch), hi.max(t.lch)));
    terms.iter_mut().flatten().for_each(|t| t.lch = if hi > lo { (t.lch - lo) / (hi - lo) } else { 0.0 });
    SessionFeatures { terms }
}
