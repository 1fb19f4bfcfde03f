//! Term-level attention (Eickhoff, Dungs and Tran 2015, §4–5).
//!
//! Tokens are whitespace-separated words, compared after [`normalize_term`] (lower case,
//! punctuation stripped at both ends). `T_q` are the displayed tokens that occur in any of
//! the session's queries, `T_n` the others; `F_q`, `F_n` the attention events (fixations or
//! hovers) on them. Table 2 / Table 7 rows:
//!
//! | row | definition |
//! |---|---|
//! | relative frequency on page | `|T_q| / |T|` |
//! | share of overall fixations | `|F_q| / |F|` |
//! | rel. number of fixations per token | `att_rel(T_q) = |F_q| / |T_q|` (Eq. 1) |
//! | share of overall fixation duration | `dur_rel(F_q) = Σ dur(F_q) / Σ dur(F)` (Eq. 2) |
//! | avg. fixation duration per token | `Σ dur(F_q) / |T_q|` |
//!
//! The per-word features F(w) (number of events on w) and D(w) (their total duration) per
//! session are the inputs of the TAM query-suggestion scores: see [`word_attention`].

use crate::stats::wilcoxon_signed_rank;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// The Snowball English stop word list (snowballstem.org, BSD licence), as used by
/// Eickhoff et al. §4.3, with apostrophes kept.
pub const SNOWBALL_STOP_WORDS: &[&str] = &[
    "i",
    "me",
    "my",
    "myself",
    "we",
    "our",
    "ours",
    "ourselves",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "he",
    "him",
    "his",
    "himself",
    "she",
    "her",
    "hers",
    "herself",
    "it",
    "its",
    "itself",
    "they",
    "them",
    "their",
    "theirs",
    "themselves",
    "what",
    "which",
    "who",
    "whom",
    "this",
    "that",
    "these",
    "those",
    "am",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "have",
    "has",
    "had",
    "having",
    "do",
    "does",
    "did",
    "doing",
    "would",
    "should",
    "could",
    "ought",
    "i'm",
    "you're",
    "he's",
    "she's",
    "it's",
    "we're",
    "they're",
    "i've",
    "you've",
    "we've",
    "they've",
    "i'd",
    "you'd",
    "he'd",
    "she'd",
    "we'd",
    "they'd",
    "i'll",
    "you'll",
    "he'll",
    "she'll",
    "we'll",
    "they'll",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "hasn't",
    "haven't",
    "hadn't",
    "doesn't",
    "don't",
    "didn't",
    "won't",
    "wouldn't",
    "shan't",
    "shouldn't",
    "can't",
    "cannot",
    "couldn't",
    "mustn't",
    "let's",
    "that's",
    "who's",
    "what's",
    "here's",
    "there's",
    "when's",
    "where's",
    "why's",
    "how's",
    "a",
    "an",
    "the",
    "and",
    "but",
    "if",
    "or",
    "because",
    "as",
    "until",
    "while",
    "of",
    "at",
    "by",
    "for",
    "with",
    "about",
    "against",
    "between",
    "into",
    "through",
    "during",
    "before",
    "after",
    "above",
    "below",
    "to",
    "from",
    "up",
    "down",
    "in",
    "out",
    "on",
    "off",
    "over",
    "under",
    "again",
    "further",
    "then",
    "once",
    "here",
    "there",
    "when",
    "where",
    "why",
    "how",
    "all",
    "any",
    "both",
    "each",
    "few",
    "more",
    "most",
    "other",
    "some",
    "such",
    "no",
    "nor",
    "not",
    "only",
    "own",
    "same",
    "so",
    "than",
    "too",
    "very",
];

/// True for a (normalised) Snowball stop word.
pub fn is_stop_word(term: &str) -> bool {
    SNOWBALL_STOP_WORDS.contains(&term)
}

/// Lower case, punctuation stripped at both ends (`"Aspirin,"` → `"aspirin"`).
pub fn normalize_term(s: &str) -> String {
    s.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()
}

/// Terms of a query string, normalised, empty ones dropped.
pub fn query_terms(q: &str) -> Vec<String> {
    q.split_whitespace().map(normalize_term).filter(|t| !t.is_empty()).collect()
}

/// F(w) and D(w) of one word in one session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WordFeatures {
    /// The normalised word.
    pub word: String,
    /// F(w): number of attention events (fixations or hovers) on the word.
    pub frequency: u32,
    /// D(w): their total duration in ms.
    pub duration_ms: f64,
}

/// Per-word attention of one session, words in lexicographic order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WordAttention {
    /// Session id.
    pub session: String,
    /// One entry per attended word.
    pub words: Vec<WordFeatures>,
}

impl WordAttention {
    /// Features of `word` (normalised first), if it was attended.
    pub fn get(&self, word: &str) -> Option<&WordFeatures> {
        let w = normalize_term(word);
        self.words.binary_search_by(|f| f.word.as_str().cmp(&w)).ok().map(|i| &self.words[i])
    }

    /// F(w) and D(w) as shares of the session's totals, `(word, F share, D share)`.
    pub fn shares(&self) -> Vec<(&str, f64, f64)> {
        let f: f64 = self.words.iter().map(|w| f64::from(w.frequency)).sum();
        let d: f64 = self.words.iter().map(|w| w.duration_ms).sum();
        self.words
            .iter()
            .map(|w| (w.word.as_str(), if f > 0.0 { f64::from(w.frequency) / f } else { 0.0 }, if d > 0.0 { w.duration_ms / d } else { 0.0 }))
            .collect()
    }

    /// TAM(w) = alpha F(w) + (1 - alpha) D(w) on the shares of [`WordAttention::shares`].
    pub fn tam(&self, alpha: f64) -> Vec<(&str, f64)> {
        self.shares().into_iter().map(|(w, f, d)| (w, alpha * f + (1.0 - alpha) * d)).collect()
    }
}

/// Aggregates attention events `(session, token, duration ms)` into F(w) and D(w) per
/// session. Tokens are normalised; empty ones are skipped. Sessions come out sorted by id.
pub fn word_attention<'a>(events: impl IntoIterator<Item = (&'a str, &'a str, f64)>) -> Vec<WordAttention> {
    let mut per: BTreeMap<&str, BTreeMap<String, (u32, f64)>> = BTreeMap::new();
    for (session, token, dur) in events {
        let w = normalize_term(token);
        if w.is_empty() {
            continue;
        }
        let e = per.entry(session).or_default().entry(w).or_insert((0, 0.0));
        e.0 += 1;
        e.1 += dur;
    }
    per.into_iter()
        .map(|(s, words)| WordAttention {
            session: s.to_string(),
            words: words.into_iter().map(|(word, (frequency, duration_ms))| WordFeatures { word, frequency, duration_ms }).collect(),
        })
        .collect()
}

/// What one session showed, asked and attended, with times (ms), for the analyses.
#[derive(Debug, Clone, Default)]
pub struct SessionInput {
    /// Session id.
    pub session: String,
    /// Queries in time order: `(time, normalised terms)`.
    pub queries: Vec<(f64, Vec<String>)>,
    /// Displayed token instances: `(time first shown, normalised token)`, one per box.
    pub displayed: Vec<(f64, String)>,
    /// Attention events on tokens: `(time, normalised token, duration ms)`.
    pub attended: Vec<(f64, String, f64)>,
}

impl SessionInput {
    fn query_set(&self) -> HashSet<&str> {
        self.queries.iter().flat_map(|(_, q)| q.iter().map(String::as_str)).collect()
    }
}

/// Counts behind one Table 2 / Table 7 column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ClassCounts {
    /// Displayed tokens |T|.
    pub tokens: f64,
    /// Attention events |F|.
    pub events: f64,
    /// Total duration Σ dur (ms).
    pub duration_ms: f64,
}

/// Table 2 (fixations) or Table 7 (hovers): query vs non-query terms, pooled over sessions,
/// with Wilcoxon signed-rank tests over sessions for the two per-token rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryTermTable {
    /// Non-query terms T_n.
    pub non_query: ClassCounts,
    /// Query terms T_q.
    pub query: ClassCounts,
    /// Sessions with both classes displayed (the pairs of the tests).
    pub sessions: usize,
    /// Two-sided p of the signed-rank test on per-session events per token (q vs n).
    pub p_events_per_token: f64,
    /// Two-sided p on per-session duration per token.
    pub p_duration_per_token: f64,
}

impl QueryTermTable {
    /// The five rows as `(label, non-query, query)`, in the paper's order.
    pub fn rows(&self, noun: &str) -> Vec<(String, f64, f64)> {
        let (n, q) = (&self.non_query, &self.query);
        let (t, e, d) = (n.tokens + q.tokens, n.events + q.events, n.duration_ms + q.duration_ms);
        let div = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        vec![
            ("Relative frequency on page".into(), div(n.tokens, t), div(q.tokens, t)),
            (format!("Share of overall {noun}s"), div(n.events, e), div(q.events, e)),
            (format!("Rel. number of {noun}s per token"), div(n.events, n.tokens), div(q.events, q.tokens)),
            (format!("Share of overall {noun} duration"), div(n.duration_ms, d), div(q.duration_ms, d)),
            (format!("Avg. {noun} duration per token (ms)"), div(n.duration_ms, n.tokens), div(q.duration_ms, q.tokens)),
        ]
    }

    /// att_rel(T_q) / att_rel(T_n): how many times more events a query token receives.
    pub fn attention_ratio(&self) -> f64 {
        (self.query.events / self.query.tokens) / (self.non_query.events / self.non_query.tokens)
    }

    /// The table as CSV `row,non_query,query` (p-values as two extra rows).
    pub fn to_csv(&self, noun: &str) -> String {
        let mut s = String::from("row,non_query,query\n");
        for (label, n, q) in self.rows(noun) {
            s.push_str(&format!("{},{n:.4},{q:.4}\n", crate::write::csv_field(&label)));
        }
        s.push_str(&format!("wilcoxon p (per token; sessions = {}),,{:.4}\n", self.sessions, self.p_events_per_token));
        s.push_str(&format!("wilcoxon p (duration per token),,{:.4}\n", self.p_duration_per_token));
        s
    }
}

/// Table 2 / 7 from sessions. `keep` filters tokens (e.g. drop stop words) on both the
/// displayed and the attended side.
pub fn query_term_table(sessions: &[SessionInput], keep: &dyn Fn(&str) -> bool) -> QueryTermTable {
    let (mut n, mut q) = (ClassCounts::default(), ClassCounts::default());
    let (mut rate_q, mut rate_n, mut dur_q, mut dur_n) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for s in sessions {
        let qs = s.query_set();
        let (mut sn, mut sq) = (ClassCounts::default(), ClassCounts::default());
        for (_, t) in s.displayed.iter().filter(|(_, t)| keep(t)) {
            if qs.contains(t.as_str()) { &mut sq } else { &mut sn }.tokens += 1.0;
        }
        for (_, t, d) in s.attended.iter().filter(|(_, t, _)| keep(t)) {
            let c = if qs.contains(t.as_str()) { &mut sq } else { &mut sn };
            c.events += 1.0;
            c.duration_ms += d;
        }
        if sq.tokens > 0.0 && sn.tokens > 0.0 {
            rate_q.push(sq.events / sq.tokens);
            rate_n.push(sn.events / sn.tokens);
            dur_q.push(sq.duration_ms / sq.tokens);
            dur_n.push(sn.duration_ms / sn.tokens);
        }
        for (a, b) in [(&mut n, &sn), (&mut q, &sq)] {
            a.tokens += b.tokens;
            a.events += b.events;
            a.duration_ms += b.duration_ms;
        }
    }
    let p = |x: &[f64], y: &[f64]| if x.len() >= 2 { wilcoxon_signed_rank(x, y).p_value } else { f64::NAN };
    QueryTermTable { non_query: n, query: q, sessions: rate_q.len(), p_events_per_token: p(&rate_q, &rate_n), p_duration_per_token: p(&dur_q, &dur_n) }
}

/// Term-length bins of Table 4: `<4, 4-7, 8-11, 12-15, 16-19, >=20` characters.
pub const LENGTH_BINS: [(usize, usize, &str); 6] =
    [(0, 3, "<4"), (4, 7, "4-7"), (8, 11, "8-11"), (12, 15, "12-15"), (16, 19, "16-19"), (20, usize::MAX, ">=20")];

/// One row of the term-length table: mean attention duration per token (ms) by class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LengthRow {
    /// Bin label.
    pub bin: &'static str,
    /// All terms: query, non-query.
    pub all: (f64, f64),
    /// Stop words removed: query, non-query.
    pub no_stop: (f64, f64),
}

/// Table 4 layout: duration per displayed token by term length, query vs non-query, with
/// and without stop words.
pub fn length_table(sessions: &[SessionInput]) -> Vec<LengthRow> {
    LENGTH_BINS
        .iter()
        .map(|&(lo, hi, label)| {
            let in_bin = move |t: &str| {
                let l = t.chars().count();
                l >= lo && l <= hi
            };
            let all = query_term_table(sessions, &in_bin);
            let ns = query_term_table(sessions, &move |t: &str| in_bin(t) && !is_stop_word(t));
            let per = |c: &ClassCounts| if c.tokens > 0.0 { c.duration_ms / c.tokens } else { f64::NAN };
            LengthRow { bin: label, all: (per(&all.query), per(&all.non_query)), no_stop: (per(&ns.query), per(&ns.non_query)) }
        })
        .collect()
}

/// Literal term acquisition (§4.1): of the terms added by a reformulation (in the new query,
/// not in the previous one), the share displayed earlier in the session and the share
/// attended (fixated or hovered) earlier.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Acquisition {
    /// Added terms over all reformulations.
    pub added_terms: usize,
    /// Of those, displayed before the reformulation.
    pub displayed_before: usize,
    /// Of those, attended before the reformulation.
    pub attended_before: usize,
}

impl Acquisition {
    /// `(share displayed, share attended)`.
    pub fn shares(&self) -> (f64, f64) {
        let n = self.added_terms as f64;
        (self.displayed_before as f64 / n, self.attended_before as f64 / n)
    }
}

/// Computes [`Acquisition`] over sessions.
pub fn literal_acquisition(sessions: &[SessionInput]) -> Acquisition {
    let mut a = Acquisition { added_terms: 0, displayed_before: 0, attended_before: 0 };
    for s in sessions {
        for w in s.queries.windows(2) {
            let (prev, (t, next)) = (&w[0].1, (&w[1].0, &w[1].1));
            let mut seen = HashSet::new();
            for term in next.iter().filter(|x| !prev.contains(x)) {
                if !seen.insert(term) {
                    continue;
                }
                a.added_terms += 1;
                if s.displayed.iter().any(|(dt, d)| dt < t && d == term) {
                    a.displayed_before += 1;
                }
                if s.attended.iter().any(|(at, d, _)| at < t && d == term) {
                    a.attended_before += 1;
                }
            }
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> SessionInput {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        SessionInput {
            session: "s1".into(),
            queries: vec![(0.0, s(&["aspirin", "heart"])), (5000.0, s(&["aspirin", "heart", "prostaglandin"])), (9000.0, s(&["aspirin", "lipid"]))],
            displayed: ["aspirin", "the", "heart", "prostaglandin", "of", "lipid", "aspirin", "disease"]
                .iter()
                .enumerate()
                .map(|(i, t)| (100.0 * i as f64, t.to_string()))
                .collect(),
            attended: vec![
                (150.0, "aspirin".into(), 200.0),
                (250.0, "the".into(), 100.0),
                (350.0, "prostaglandin".into(), 300.0),
                (360.0, "prostaglandin".into(), 100.0),
            ],
        }
    }

    #[test]
    fn table_rows_by_hand() {
        let t = query_term_table(&[session()], &|_| true);
        // Query terms: aspirin, heart, prostaglandin, lipid. Displayed: 8 tokens, 5 query
        // (aspirin x2, heart, prostaglandin, lipid), 3 non-query. Events: 3 on query tokens
        // (600 ms), 1 on non-query (100 ms).
        assert_eq!((t.query.tokens, t.non_query.tokens, t.query.events, t.non_query.events), (5.0, 3.0, 3.0, 1.0));
        let rows = t.rows("fixation");
        assert_eq!(rows[0].2, 5.0 / 8.0);
        assert_eq!(rows[1].2, 0.75);
        assert_eq!((rows[2].1, rows[2].2), (1.0 / 3.0, 0.6));
        assert_eq!(rows[3].2, 600.0 / 700.0);
        assert_eq!(rows[4].2, 120.0);
        assert!((t.attention_ratio() - 1.8).abs() < 1e-12);
        let no_stop = query_term_table(&[session()], &|t| !is_stop_word(t));
        assert_eq!(no_stop.non_query.tokens, 1.0);
    }

    #[test]
    fn acquisition_by_hand() {
        // Reformulation 1 adds prostaglandin (displayed at 300, fixated at 350; query at 5000).
        // Reformulation 2 adds lipid (displayed at 500, never fixated).
        let a = literal_acquisition(&[session()]);
        assert_eq!((a.added_terms, a.displayed_before, a.attended_before), (2, 2, 1));
    }

    #[test]
    fn word_features_and_lengths() {
        let s = session();
        let w = word_attention(s.attended.iter().map(|(_, t, d)| ("s1", t.as_str(), *d)));
        let p = w[0].get("Prostaglandin,").unwrap();
        assert_eq!((p.frequency, p.duration_ms), (2, 400.0));
        assert_eq!(w[0].words.len(), 3);
        let tam = w[0].tam(0.5);
        let (_, v) = tam.iter().find(|(x, _)| *x == "prostaglandin").unwrap();
        assert!((v - (0.5 * 0.5 + 0.5 * 400.0 / 700.0)).abs() < 1e-12);
        let rows = length_table(&[s]);
        // "prostaglandin" (13 chars) is the only 12-15 token: 400 ms / 1 token.
        assert_eq!(rows[3].all.0, 400.0);
        // <4 non-query: "the" and "of", 100 ms over 2 tokens; both stop words.
        assert_eq!(rows[0].all.1, 50.0);
        assert!(rows[0].no_stop.1.is_nan());
        assert_eq!(normalize_term("\"Aspirin,\""), "aspirin");
    }
}
