//! Query-suggestion reranking from term-level attention (Eickhoff, Dungs and Tran 2015, §6).
//!
//! A session's attention (fixations or cursor hovers on words of displayed text segments) gives
//! per-word features ([`features`]): frequency F(w), duration D(w), and the segment-level LA(w),
//! SA(w) of Buscher et al.'s Gaze-Length-Filter. Scorers ([`score`]) turn them into term
//! scores (GLF, TAM, TAM-R); a candidate suggestion scores the mean of its terms' scores and
//! the candidates are reranked by that score. [`eval`] computes MRR, RR variance, the weight
//! sweep, Wilcoxon tests against the engine's order and the paper's Table 9.
//! [`synthetic`] generates sessions with reformulations and accepted suggestions.
//!
//! Input: two JSONL files joined by session `id` (format in docs/suggest.md): the attention log
//! ([`LogSession`]) and the engine's suggestions ([`SuggestionList`]).

pub mod eval;
pub mod features;
pub mod score;
pub mod synthetic;

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// A displayed text segment (snippet, paragraph) and the attention it received.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    /// The text as displayed.
    pub text: String,
    /// Fixations (or hovers) that landed in the segment; derived from `fixations` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixations: Option<u32>,
}

/// Aggregated attention on one word.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WordAttention {
    /// The word (lower-cased when read).
    pub word: String,
    /// Number of fixations or hovers on its tokens.
    pub count: u32,
    /// Total duration of those fixations or hovers, in milliseconds.
    pub duration_ms: f64,
}

/// One fixation (or hover) on a token.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Fixation {
    /// The token as displayed.
    pub token: String,
    /// Duration in milliseconds.
    pub duration_ms: f64,
    /// Index of the segment the token belongs to, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<usize>,
}

/// One line of the attention log: a query and the attention before the suggestion was chosen.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LogSession {
    /// Session id, shared with the suggestions file.
    pub id: String,
    /// The query the suggestions were offered for.
    pub query: String,
    /// Displayed text segments (SERP snippets, page paragraphs).
    #[serde(default)]
    pub segments: Vec<Segment>,
    /// Per-word attention; alternatively give `fixations`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attention: Vec<WordAttention>,
    /// Raw fixations or hovers with their tokens; alternatively give `attention`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixations: Vec<Fixation>,
}

/// One line of the suggestions file: the engine's candidates and the user's choice.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SuggestionList {
    /// Session id, shared with the log.
    pub id: String,
    /// Candidate suggestions in the engine's original order.
    pub suggestions: Vec<String>,
    /// The accepted (clicked) suggestion, if any.
    #[serde(default)]
    pub accepted: Option<String>,
}

/// A session ready for scoring: log joined with suggestions, attention aggregated.
#[derive(Debug, Clone)]
pub struct Session {
    /// Session id.
    pub id: String,
    /// The query.
    pub query: String,
    /// Displayed segments with their fixation counts.
    pub segments: Vec<(String, u32)>,
    /// Per-word attention, words lower-cased, sorted by word.
    pub attention: Vec<WordAttention>,
    /// Candidates in the engine's order.
    pub suggestions: Vec<String>,
    /// Index of the accepted candidate in `suggestions`.
    pub accepted: Option<usize>,
}

/// Splits text into lower-case alphanumeric terms.
pub fn tokenize(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_lowercase)
}

/// A short English stop-word list; stop words carry no attention features and are left out of
/// a suggestion's mean term score.
pub const STOPWORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "was",
    "what", "when", "where", "which", "who", "why", "will", "with",
];

/// Whether `term` (lower case) is a stop word.
pub fn is_stopword(term: &str) -> bool {
    STOPWORDS.binary_search(&term).is_ok()
}

fn read_jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<(String, Vec<(usize, T)>)> {
    let input = crate::input::open(path)?;
    let name = input.name().to_string();
    let mut out = Vec::new();
    input.lines().for_each(|n, line| {
        if line.trim().is_empty() {
            return Ok(());
        }
        let v = serde_json::from_str(line).map_err(|e| Error::parse(&name, n, e.to_string()))?;
        out.push((n, v));
        Ok(())
    })?;
    Ok((name, out))
}

/// Reads the attention log and the suggestions file and joins them by `id`, in log order.
/// Errors name file:line: duplicate ids, unknown keys, negative durations, a fixation on a
/// segment that does not exist, an accepted suggestion that is not among the candidates,
/// a session without a suggestions line.
///
/// Both files are read through [`crate::input`]: plain, gzip or zstd, `-` for standard input
/// (for one of the two), BOM and CRLF removed.
pub fn read_sessions(log_path: &Path, suggestions_path: &Path) -> Result<Vec<Session>> {
    if crate::input::is_stdin(log_path) && crate::input::is_stdin(suggestions_path) {
        return Err(Error::Invalid("the attention log and the suggestions cannot both be read from standard input (`-`)".into()));
    }
    let (log, logs): (String, Vec<(usize, LogSession)>) = read_jsonl(log_path)?;
    let (suggestions, lists): (String, Vec<(usize, SuggestionList)>) = read_jsonl(suggestions_path)?;
    let (log, suggestions) = (log.as_str(), suggestions.as_str());
    let mut by_id: HashMap<String, (usize, SuggestionList)> = HashMap::new();
    for (line, l) in lists {
        if l.suggestions.is_empty() {
            return Err(Error::parse(suggestions, line, "empty `suggestions`"));
        }
        if let Some(a) = &l.accepted {
            if !l.suggestions.contains(a) {
                return Err(Error::parse(suggestions, line, format!("accepted `{a}` is not among the suggestions")));
            }
        }
        if by_id.insert(l.id.clone(), (line, l)).is_some() {
            return Err(Error::parse(suggestions, line, "duplicate session id"));
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(logs.len());
    for (line, s) in logs {
        if !seen.insert(s.id.clone()) {
            return Err(Error::parse(log, line, format!("duplicate session id `{}`", s.id)));
        }
        let (_, list) = by_id.remove(&s.id).ok_or_else(|| Error::parse(log, line, format!("session `{}` has no line in {suggestions}", s.id)))?;
        let session = build_session(s, list).map_err(|reason| Error::parse(log, line, reason))?;
        out.push(session);
    }
    if let Some((id, (line, _))) = by_id.into_iter().min_by_key(|(_, (l, _))| *l) {
        return Err(Error::parse(suggestions, line, format!("session `{id}` is not in {log}")));
    }
    Ok(out)
}

/// Aggregates attention and validates one session.
pub fn build_session(s: LogSession, list: SuggestionList) -> std::result::Result<Session, String> {
    if !s.attention.is_empty() && !s.fixations.is_empty() {
        return Err("give either `attention` or `fixations`, not both".into());
    }
    let mut per_word: HashMap<String, (u32, f64)> = HashMap::new();
    for a in &s.attention {
        if !a.duration_ms.is_finite() || a.duration_ms < 0.0 {
            return Err(format!("attention on `{}`: duration_ms {} must be >= 0", a.word, a.duration_ms));
        }
        let e = per_word.entry(a.word.to_lowercase()).or_default();
        e.0 += a.count;
        e.1 += a.duration_ms;
    }
    let mut seg_counts: Vec<u32> = vec![0; s.segments.len()];
    for (k, f) in s.fixations.iter().enumerate() {
        if !f.duration_ms.is_finite() || f.duration_ms < 0.0 {
            return Err(format!("fixations[{k}]: duration_ms {} must be >= 0", f.duration_ms));
        }
        if let Some(seg) = f.segment {
            if seg >= s.segments.len() {
                return Err(format!("fixations[{k}]: segment {seg} does not exist ({} segments)", s.segments.len()));
            }
            seg_counts[seg] += 1;
        }
        for t in tokenize(&f.token) {
            let e = per_word.entry(t).or_default();
            e.0 += 1;
            e.1 += f.duration_ms;
        }
    }
    let mut attention: Vec<WordAttention> =
        per_word.into_iter().filter(|(w, _)| !is_stopword(w)).map(|(word, (count, duration_ms))| WordAttention { word, count, duration_ms }).collect();
    attention.sort_by(|a, b| a.word.cmp(&b.word));
    let segments = s
        .segments
        .into_iter()
        .zip(seg_counts)
        .map(|(seg, derived)| {
            let n = seg.fixations.unwrap_or(derived);
            (seg.text, n)
        })
        .collect();
    let accepted = list.accepted.as_ref().and_then(|a| list.suggestions.iter().position(|x| x == a));
    Ok(Session { id: s.id, query: s.query, segments, attention, suggestions: list.suggestions, accepted })
}

#[cfg(test)]
mod tests;
