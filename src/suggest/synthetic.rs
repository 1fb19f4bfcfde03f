//! Synthetic sessions with reformulations and suggestion acceptance, built on WordNet nouns.
//!
//! Each simulated user has a topic synset t (the first query is its lemma) and an interest
//! synset i near t (within two hypernym/hyponym steps). Per query:
//! - displayed segments (short < 230 and long >= 230 characters) mix the query word, words of
//!   the interest cluster I (i and words near i), off-focus words O near t but not near i,
//!   random filler nouns and stop words;
//! - half the segments are about the interest (more interest words), half off-focus; the
//!   user reads interest segments more often and, within read segments, fixates interest
//!   words more often and longer as `strength` grows (strength 0: no preference);
//! - the engine offers `candidates` suggestions "query + term". One term is the target: with
//!   probability `literal` a displayed interest word, otherwise an unseen word near i; of the
//!   others, up to `shown_distractors` are displayed off-focus words, the rest are unseen
//!   (up to two off-focus words, then random nouns);
//! - with probability `accept` a suggestion is accepted: the target, except with probability
//!   `noise` a uniformly random candidate; the accepted suggestion becomes the next query;
//!   otherwise the user reformulates by adding a fixated interest word;
//! - the engine's order puts the accepted suggestion first with probability `api_top`,
//!   otherwise at a uniform rank 2..k (the engine does not see attention).
//!
//! What this shows: that the scorers pick up the signals they are designed for (term-level
//! attention, semantic relatedness to attended terms) and how much noise they tolerate. What it
//! does not show: that real users behave so; the gains depend on the generator's parameters.

use super::{Fixation, LogSession, Segment, SuggestionList, STOPWORDS};
use crate::error::{check_probability, Error, Result};
use crate::rng::stream;
use crate::wordnet::{Pos, WordNet};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Parameters of the generator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyntheticSuggestConfig {
    /// Simulated users (topics).
    pub sessions: usize,
    /// Queries per user; each after the first is a reformulation.
    pub queries: usize,
    /// Candidate suggestions per query.
    pub candidates: usize,
    /// Displayed segments per query.
    pub segments: usize,
    /// How strongly fixations concentrate on interest words, in [0, 1].
    pub strength: f64,
    /// Probability that the accepted suggestion ignores attention (uniform pick), in [0, 1].
    pub noise: f64,
    /// Probability that the target term was displayed (literal acquisition) rather than an
    /// unseen related word, in [0, 1].
    pub literal: f64,
    /// Probability that a suggestion is accepted, in [0, 1].
    pub accept: f64,
    /// Probability that the engine ranks the accepted suggestion first, in [0, 1]
    /// (0.67 gives the paper's API MRR of about 0.76 with 7 candidates).
    pub api_top: f64,
    /// Distractor candidates whose term is a displayed off-focus word (at most 3); the other
    /// distractors are unseen (off-focus or random nouns).
    pub shown_distractors: usize,
    /// Vocabulary: noun synsets whose longest hypernym path has at least this many steps.
    pub min_depth: u32,
    /// Master seed.
    pub seed: u64,
}

impl Default for SyntheticSuggestConfig {
    fn default() -> Self {
        SyntheticSuggestConfig {
            sessions: 300,
            queries: 2,
            candidates: 7,
            segments: 8,
            strength: 0.6,
            noise: 0.1,
            literal: 0.5,
            accept: 0.9,
            api_top: 0.67,
            shown_distractors: 2,
            min_depth: 5,
            seed: 1,
        }
    }
}

impl SyntheticSuggestConfig {
    /// Checks ranges; errors name the key.
    pub fn validate(&self) -> Result<()> {
        let ctx = "synthetic suggestions";
        for (k, v) in [("strength", self.strength), ("noise", self.noise), ("literal", self.literal), ("accept", self.accept), ("api_top", self.api_top)] {
            check_probability(ctx, k, v)?;
        }
        for (k, v, min) in [("sessions", self.sessions, 1), ("queries", self.queries, 1), ("candidates", self.candidates, 2), ("segments", self.segments, 1)] {
            if v < min {
                return Err(Error::config(ctx, k, format!("{v} must be at least {min}")));
            }
        }
        for (k, v, max) in [
            ("sessions", self.sessions, crate::limits::MAX_SESSIONS),
            ("queries", self.queries, crate::limits::MAX_STUDY_COUNT),
            ("candidates", self.candidates, crate::limits::MAX_STUDY_COUNT),
            ("segments", self.segments, crate::limits::MAX_SEGMENTS),
        ] {
            crate::limits::check_usize(ctx, k, v, max, "synthetic suggestion log size")?;
        }
        crate::limits::check_product(
            ctx,
            "sessions * queries * segments",
            &[self.sessions as u64, self.queries as u64, self.segments as u64],
            crate::limits::MAX_LOG_SEGMENTS,
            "displayed segments of the whole log, held in memory",
        )?;
        crate::limits::check_product(
            ctx,
            "sessions * queries * candidates",
            &[self.sessions as u64, self.queries as u64, self.candidates as u64],
            crate::limits::MAX_LOG_SUGGESTIONS,
            "suggestions of the whole log, held in memory",
        )?;
        Ok(())
    }
}

struct Vocab {
    /// Vocabulary word of each noun synset, if it has one.
    word: Vec<Option<u32>>,
    words: Vec<String>,
    synsets: Vec<u32>,
    hypo_start: Vec<u32>,
    hypos: Vec<u32>,
}

impl Vocab {
    fn build(wn: &WordNet, min_depth: u32) -> Vocab {
        let db = wn.db(Pos::Noun);
        let n = db.len();
        let mut word = vec![None; n];
        let (mut words, mut synsets) = (Vec::new(), Vec::new());
        let mut seen = std::collections::HashSet::new();
        for s in 0..n as u32 {
            if db.max_depth(s) < min_depth {
                continue;
            }
            if let Some(l) = db.lemmas(s).iter().find(|l| (3..=14).contains(&l.len()) && l.bytes().all(|b| b.is_ascii_lowercase())) {
                if super::is_stopword(l) || !seen.insert(l.clone()) {
                    continue;
                }
                word[s as usize] = Some(words.len() as u32);
                words.push(l.clone());
                synsets.push(s);
            }
        }
        let mut hypo_start = vec![0u32; n + 1];
        for s in 0..n as u32 {
            for &h in db.hypernyms(s) {
                hypo_start[h as usize + 1] += 1;
            }
        }
        for i in 0..n {
            hypo_start[i + 1] += hypo_start[i];
        }
        let mut hypos = vec![0u32; hypo_start[n] as usize];
        let mut fill = hypo_start.clone();
        for s in 0..n as u32 {
            for &h in db.hypernyms(s) {
                hypos[fill[h as usize] as usize] = s;
                fill[h as usize] += 1;
            }
        }
        Vocab { word, words, synsets, hypo_start, hypos }
    }

    fn hyponyms(&self, s: u32) -> &[u32] {
        &self.hypos[self.hypo_start[s as usize] as usize..self.hypo_start[s as usize + 1] as usize]
    }

    /// Vocabulary words within two hypernym/hyponym steps of synset `s`, excluding s's word.
    fn near(&self, wn: &WordNet, s: u32) -> Vec<u32> {
        let db = wn.db(Pos::Noun);
        let mut front = vec![s];
        let mut all = vec![s];
        for _ in 0..2 {
            let mut next = Vec::new();
            for &x in &front {
                next.extend_from_slice(db.hypernyms(x));
                next.extend_from_slice(self.hyponyms(x));
            }
            next.sort_unstable();
            next.dedup();
            next.retain(|x| !all.contains(x));
            all.extend_from_slice(&next);
            front = next;
        }
        let me = self.word[s as usize];
        let mut out: Vec<u32> = all.iter().filter_map(|&x| self.word[x as usize]).filter(|&w| Some(w) != me).collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Generates the attention log and the suggestions (one line each per query), deterministic
/// in `cfg.seed`. Fails when WordNet has too few nouns for the configuration.
pub fn generate(cfg: &SyntheticSuggestConfig, wn: &WordNet) -> Result<(Vec<LogSession>, Vec<SuggestionList>)> {
    cfg.validate()?;
    let v = Vocab::build(wn, cfg.min_depth);
    if v.words.len() < cfg.candidates + 10 {
        return Err(Error::Invalid(format!(
            "WordNet has {} usable nouns at depth >= {}; the generator needs at least {}",
            v.words.len(),
            cfg.min_depth,
            cfg.candidates + 10
        )));
    }
    let mut logs = Vec::new();
    let mut lists = Vec::new();
    for user in 0..cfg.sessions {
        let mut rng = stream(cfg.seed, &[0x5u64, user as u64]);
        // Topic and interest: a topic with enough neighbours, an interest near it.
        let mut pick = None;
        for _ in 0..1000 {
            let t = rng.random_range(0..v.words.len());
            let near_t = v.near(wn, v.synsets[t]);
            if near_t.len() < 4 {
                continue;
            }
            let i = *near_t.choose(&mut rng).expect("non-empty");
            let near_i: Vec<u32> = v.near(wn, v.synsets[i as usize]).into_iter().filter(|&w| w != t as u32).collect();
            if near_i.len() >= 2 {
                pick = Some((t as u32, i, near_t, near_i));
                break;
            }
        }
        let (t, i, near_t, mut near_i) = pick.ok_or_else(|| Error::Invalid("no topic with enough related nouns in WordNet".into()))?;
        near_i.shuffle(&mut rng);
        let split = near_i.len().div_ceil(2).min(4);
        let mut interest: Vec<u32> = vec![i];
        interest.extend(near_i.iter().take(split).copied());
        let unseen: Vec<u32> = near_i.iter().skip(split).take(4).copied().collect();
        let mut off: Vec<u32> = near_t.iter().copied().filter(|w| *w != i && !near_i.contains(w) && !interest.contains(w)).collect();
        off.shuffle(&mut rng);
        let off_shown: Vec<u32> = off.iter().take(3).copied().collect();
        let off_hidden: Vec<u32> = off.iter().skip(3).take(3).copied().collect();
        let word = |w: u32| v.words[w as usize].as_str();

        let mut query = word(t).to_string();
        for q in 0..cfg.queries {
            let id = format!("u{user:04}-q{q}");
            let filler: Vec<u32> = (0..12).map(|_| rng.random_range(0..v.words.len()) as u32).collect();
            let (segments, fixations) = segments_and_fixations(cfg, &mut rng, &query, &interest, &off_shown, &filler, &v.words);
            // Candidates: target + distractors, distinct, not already in the query.
            let in_query = |w: &str| query.split(' ').any(|x| x == w);
            let target_pool: Vec<u32> = if rng.random::<f64>() < cfg.literal || unseen.is_empty() { interest.clone() } else { unseen.clone() };
            let target_pool: Vec<u32> = target_pool.into_iter().filter(|&w| !in_query(word(w))).collect();
            let target = match target_pool.choose(&mut rng) {
                Some(&w) => w,
                None => loop {
                    let w = rng.random_range(0..v.words.len()) as u32;
                    if !in_query(word(w)) {
                        break w;
                    }
                },
            };
            let mut terms = vec![target];
            let ok = |terms: &Vec<u32>, w: u32| !terms.contains(&w) && !interest.contains(&w) && !unseen.contains(&w) && !in_query(word(w));
            let mut shown: Vec<u32> = off_shown.clone();
            shown.shuffle(&mut rng);
            let shown_max = 1 + cfg.shown_distractors.min(cfg.candidates - 1);
            for w in shown {
                if terms.len() >= shown_max {
                    break;
                }
                if ok(&terms, w) {
                    terms.push(w);
                }
            }
            let mut hidden = off_hidden.clone();
            hidden.shuffle(&mut rng);
            for w in hidden.into_iter().take(2) {
                if terms.len() < cfg.candidates && ok(&terms, w) && !filler.contains(&w) && !off_shown.contains(&w) {
                    terms.push(w);
                }
            }
            while terms.len() < cfg.candidates {
                let w = rng.random_range(0..v.words.len()) as u32;
                if ok(&terms, w) && !filler.contains(&w) && !off_shown.contains(&w) {
                    terms.push(w);
                }
            }
            let texts: Vec<String> = terms.iter().map(|&w| format!("{query} {}", word(w))).collect();
            let accepted =
                if rng.random::<f64>() < cfg.accept { Some(if rng.random::<f64>() < cfg.noise { rng.random_range(0..texts.len()) } else { 0 }) } else { None };
            // The engine's order: accepted first with probability api_top, else rank 2..k.
            let mut order: Vec<usize> = (0..texts.len()).collect();
            order.shuffle(&mut rng);
            if let Some(a) = accepted {
                order.retain(|&c| c != a);
                let rank = if rng.random::<f64>() < cfg.api_top { 0 } else { rng.random_range(1..texts.len()) };
                order.insert(rank, a);
            }
            let suggestions: Vec<String> = order.iter().map(|&c| texts[c].clone()).collect();
            let accepted_text = accepted.map(|a| texts[a].clone());
            logs.push(LogSession { id: id.clone(), query: query.clone(), segments, attention: Vec::new(), fixations });
            lists.push(SuggestionList { id, suggestions, accepted: accepted_text.clone() });
            query = match accepted_text {
                Some(a) => a,
                None => {
                    let add = interest.iter().map(|&w| word(w)).find(|w| !in_query(w));
                    match add {
                        Some(w) => format!("{query} {w}"),
                        None => query,
                    }
                }
            };
        }
    }
    Ok((logs, lists))
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Query,
    Interest,
    Other,
    Stop,
}

#[allow(clippy::too_many_arguments)]
fn segments_and_fixations(
    cfg: &SyntheticSuggestConfig,
    rng: &mut impl Rng,
    query: &str,
    interest: &[u32],
    off_shown: &[u32],
    filler: &[u32],
    words: &[String],
) -> (Vec<Segment>, Vec<Fixation>) {
    let q_words: Vec<&str> = query.split(' ').collect();
    let mut segments = Vec::with_capacity(cfg.segments);
    let mut fixations = Vec::new();
    // Make sure every interest and shown off-focus word is displayed at least once.
    let mut must: Vec<(u32, Kind)> = interest.iter().map(|&w| (w, Kind::Interest)).chain(off_shown.iter().map(|&w| (w, Kind::Other))).collect();
    must.shuffle(rng);
    for s in 0..cfg.segments {
        let long = rng.random::<f64>() < 0.5;
        // Half the segments are about the interest, half off-focus; the user reads the former
        // more often as strength grows.
        let about_interest = rng.random::<f64>() < 0.5;
        let p_interest = if about_interest { 0.20 } else { 0.03 };
        let p_read = if about_interest { 0.5 + 0.5 * cfg.strength } else { 0.5 - 0.4 * cfg.strength };
        let n_words = if long { rng.random_range(40..70) } else { rng.random_range(8..25) };
        let mut tokens: Vec<(String, Kind)> = Vec::with_capacity(n_words);
        for k in 0..n_words {
            if k % 7 == 3 {
                if let Some((w, kind)) = must.pop() {
                    tokens.push((words[w as usize].clone(), kind));
                    continue;
                }
            }
            let u: f64 = rng.random();
            let tok = if u < 0.10 {
                (q_words.choose(rng).expect("query").to_string(), Kind::Query)
            } else if u < 0.10 + p_interest {
                (words[*interest.choose(rng).expect("interest") as usize].clone(), Kind::Interest)
            } else if u < 0.33 && !off_shown.is_empty() {
                (words[*off_shown.choose(rng).expect("off") as usize].clone(), Kind::Other)
            } else if u < 0.55 {
                (words[*filler.choose(rng).expect("filler") as usize].clone(), Kind::Other)
            } else {
                (STOPWORDS.choose(rng).expect("stop").to_string(), Kind::Stop)
            };
            tokens.push(tok);
        }
        let mut text = tokens.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>().join(" ");
        if !long && text.len() >= super::features::SHORT_SEGMENT_CHARS {
            text.truncate(super::features::SHORT_SEGMENT_CHARS - 1);
            text.truncate(text.trim_end().rfind(' ').unwrap_or(text.len()));
        }
        let kept = text.split(' ').count();
        // Reading: tokens of a read segment are fixated by kind.
        if rng.random::<f64>() < p_read {
            for (tok, kind) in tokens.iter().take(kept) {
                let (p, scale) = match kind {
                    Kind::Interest => (0.3 + 0.6 * cfg.strength, 1.0 + 1.5 * cfg.strength),
                    Kind::Query => (0.5, 1.0),
                    Kind::Other => (0.3 - 0.15 * cfg.strength, 1.0),
                    Kind::Stop => (0.08, 0.6),
                };
                let mut again = rng.random::<f64>() < p;
                while again {
                    let base = 120.0 - 100.0 * (1.0 - rng.random::<f64>()).ln();
                    fixations.push(Fixation { token: tok.clone(), duration_ms: (base * scale).round(), segment: Some(s) });
                    again = *kind == Kind::Interest && rng.random::<f64>() < 0.4 * cfg.strength;
                }
            }
        }
        segments.push(Segment { text, fixations: None });
    }
    (segments, fixations)
}

#[cfg(test)]
mod bound_tests {
    use super::*;

    #[test]
    fn suggestions_of_the_whole_log_are_bounded() {
        // Issue 42: sessions * queries * candidates at most 10^7 (src/limits.rs); here
        // 100,000 * 10 * 11 = 1.1 * 10^7 (segments 1 keeps the segment product at 10^6).
        let c = SyntheticSuggestConfig { sessions: 100_000, queries: 10, candidates: 11, segments: 1, ..Default::default() };
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains("key `sessions * queries * candidates`: the product 11000000 is above the upper bound of 10000000"), "{e}");
        SyntheticSuggestConfig { candidates: 10, ..c }.validate().unwrap();
    }
}
