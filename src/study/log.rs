//! The study event log: JSON Lines, one event per line, documented in `docs/study.md`.
//!
//! Every line has `t` (ms on the session's clock), `participant`, `task`, optionally
//! `condition`, and `event` naming one of the kinds of [`EventKind`] with its fields:
//!
//! ```text
//! {"t":0,"participant":"p01","task":"t42","condition":"basic","event":"session_start"}
//! {"t":9100,"participant":"p01","task":"t42","event":"query","query":"aspirin heart disease"}
//! {"t":9900,"participant":"p01","task":"t42","event":"serp_view","page":"p01-t42-q1-s1","serp_page":1,"results":["d1","d2"],"aoi":"aoi/p01-t42-q1-s1.csv"}
//! {"t":10400,"participant":"p01","task":"t42","event":"fixation","page":"p01-t42-q1-s1","x":212.5,"y":140.0,"duration":230,"token":"aspirin","rank":1}
//! ```
//!
//! Unknown keys and unknown event kinds are errors, and so are time stamps that go
//! backwards within a session (participant, task); errors name the line.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case", deny_unknown_fields)]
pub enum EventKind {
    /// The session (participant working on a task) begins.
    SessionStart {},
    /// A query is submitted.
    Query {
        /// The query text.
        query: String,
    },
    /// A result page is shown.
    SerpView {
        /// Screen id (AOI files use it as their `page`).
        page: String,
        /// 1-based page number in the result list (pagination).
        serp_page: u32,
        /// Document ids shown, top to bottom.
        results: Vec<String>,
        /// Rank of `results[0]`; default `(serp_page - 1) * 10 + 1`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        first_rank: Option<u32>,
        /// AOI file of this screen (relative to the log file).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        aoi: Option<PathBuf>,
        /// The sublist (filter value) whose results are shown; absent means "All".
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sublist: Option<String>,
    },
    /// A fixation (from the tracker or detected), mapped to a token or area when known.
    Fixation {
        /// Screen id.
        page: String,
        /// Position (px).
        x: f64,
        /// Position (px).
        y: f64,
        /// Duration (ms).
        duration: f64,
        /// Token fixated.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// Result rank whose snippet was fixated.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rank: Option<u32>,
    },
    /// The cursor rested on a token or result.
    Hover {
        /// Screen id.
        page: String,
        /// Duration (ms).
        duration: f64,
        /// Token hovered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// Result rank hovered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rank: Option<u32>,
    },
    /// A result is clicked.
    Click {
        /// Rank clicked.
        rank: u32,
        /// Document id.
        document: String,
    },
    /// The page scrolled.
    Scroll {
        /// Screen id.
        page: String,
        /// Vertical scroll offset after the scroll (px).
        offset: f64,
    },
    /// A sublist (filter value) is selected.
    FilterSelect {
        /// The sublist's name.
        sublist: String,
    },
    /// A document is marked relevant.
    MarkRelevant {
        /// Document id.
        document: String,
    },
    /// A document (landing page) is shown.
    PageVisit {
        /// Screen id.
        page: String,
        /// Document id.
        document: String,
        /// AOI file of this screen.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        aoi: Option<PathBuf>,
    },
    /// The session ends.
    SessionEnd {},
}

/// One log line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogEvent {
    /// Time (ms).
    pub t: f64,
    /// Participant id.
    pub participant: String,
    /// Task (topic) id.
    pub task: String,
    /// Experimental condition (interface, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// The event.
    #[serde(flatten)]
    pub kind: EventKind,
}

impl LogEvent {
    /// One JSON line (no newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("events serialise")
    }
}

/// A session: one participant on one task.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// Participant id.
    pub participant: String,
    /// Task id.
    pub task: String,
    /// Condition of the first event that names one.
    pub condition: Option<String>,
    /// Events in file order (time never decreases).
    pub events: Vec<LogEvent>,
}

impl Session {
    /// `participant/task`.
    pub fn id(&self) -> String {
        format!("{}/{}", self.participant, self.task)
    }
}

/// A parsed log: sessions in order of first appearance.
#[derive(Debug, Clone, Default)]
pub struct StudyLog {
    /// Sessions.
    pub sessions: Vec<Session>,
    /// Folder of the log file (AOI paths resolve against it).
    pub base: PathBuf,
}

impl StudyLog {
    /// Reads a JSONL log file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = crate::input::read_to_string(path)?;
        let mut log = Self::parse(&text, &path.display().to_string())?;
        log.base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(log)
    }

    /// Parses JSONL text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Self> {
        let mut log = StudyLog::default();
        let mut index: std::collections::HashMap<(String, String), usize> = std::collections::HashMap::new();
        for (i, l) in text.lines().enumerate() {
            let line = i + 1;
            if l.trim().is_empty() {
                continue;
            }
            let mut map: serde_json::Map<String, serde_json::Value> = match crate::input::parse_json(l) {
                Ok(serde_json::Value::Object(m)) => m,
                Ok(other) => {
                    return Err(Error::parse(file, line, format!("not a JSON object: {}", crate::input::snippet(&other.to_string(), crate::input::ECHO))))
                }
                Err(e) => return Err(Error::parse(file, line, format!("not a JSON object: {e}"))),
            };
            let mut take_str = |k: &str, required: bool| -> Result<Option<String>> {
                match map.remove(k) {
                    Some(serde_json::Value::String(s)) => Ok(Some(s)),
                    Some(other) => Err(Error::parse(file, line, format!("`{k}` must be a string, found {other}"))),
                    None if required => Err(Error::parse(file, line, format!("missing key `{k}`"))),
                    None => Ok(None),
                }
            };
            let participant = take_str("participant", true)?.unwrap_or_default();
            let task = take_str("task", true)?.unwrap_or_default();
            let condition = take_str("condition", false)?;
            let t = match map.remove("t") {
                Some(v) => v.as_f64().filter(|t| t.is_finite()).ok_or_else(|| Error::parse(file, line, format!("`t` must be a number, found {v}")))?,
                None => return Err(Error::parse(file, line, "missing key `t`")),
            };
            let kind: EventKind = serde_json::from_value(serde_json::Value::Object(map)).map_err(|e| Error::parse(file, line, e.to_string()))?;
            validate(&kind).map_err(|r| Error::parse(file, line, r))?;
            let key = (participant.clone(), task.clone());
            let si = *index.entry(key).or_insert_with(|| {
                log.sessions.push(Session { participant: participant.clone(), task: task.clone(), condition: None, events: Vec::new() });
                log.sessions.len() - 1
            });
            let s = &mut log.sessions[si];
            if let Some(prev) = s.events.last() {
                if t < prev.t {
                    return Err(Error::parse(file, line, format!("time {t} goes backwards in session {participant}/{task} (previous event at {})", prev.t)));
                }
            }
            if s.condition.is_none() {
                s.condition.clone_from(&condition);
            }
            s.events.push(LogEvent { t, participant, task, condition, kind });
        }
        if log.sessions.is_empty() {
            return Err(Error::parse(file, 1, "the log has no events"));
        }
        Ok(log)
    }

    /// Writes events as JSONL.
    pub fn to_jsonl(events: &[LogEvent]) -> String {
        let mut s = String::new();
        for e in events {
            s.push_str(&e.to_json());
            s.push('\n');
        }
        s
    }
}

fn validate(k: &EventKind) -> std::result::Result<(), String> {
    let nonneg = |v: f64, name: &str| if v.is_finite() && v >= 0.0 { Ok(()) } else { Err(format!("`{name}` must be a finite number >= 0")) };
    match k {
        EventKind::SerpView { serp_page, first_rank, .. } => {
            if *serp_page == 0 || *first_rank == Some(0) {
                return Err("`serp_page` and `first_rank` start at 1".into());
            }
            Ok(())
        }
        EventKind::Fixation { duration, x, y, rank, .. } => {
            nonneg(*duration, "duration")?;
            if !(x.is_finite() && y.is_finite()) {
                return Err("`x` and `y` must be finite".into());
            }
            if *rank == Some(0) {
                return Err("`rank` starts at 1".into());
            }
            Ok(())
        }
        EventKind::Hover { duration, rank, .. } => {
            nonneg(*duration, "duration")?;
            if *rank == Some(0) {
                return Err("`rank` starts at 1".into());
            }
            Ok(())
        }
        EventKind::Click { rank, .. } if *rank == 0 => Err("`rank` starts at 1".into()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = r#"{"t":0,"participant":"p01","task":"t42","condition":"basic","event":"session_start"}
{"t":9100,"participant":"p01","task":"t42","event":"query","query":"aspirin heart"}
{"t":9900,"participant":"p01","task":"t42","event":"serp_view","page":"s1","serp_page":1,"results":["d1","d2"]}
{"t":10400,"participant":"p01","task":"t42","event":"fixation","page":"s1","x":212.5,"y":140.0,"duration":230,"token":"aspirin","rank":1}
{"t":11000,"participant":"p01","task":"t42","event":"click","rank":1,"document":"d1"}
{"t":11000,"participant":"p02","task":"t42","event":"session_start"}
"#;

    #[test]
    fn parses_and_round_trips() {
        let log = StudyLog::parse(LOG, "l.jsonl").unwrap();
        assert_eq!(log.sessions.len(), 2);
        assert_eq!(log.sessions[0].condition.as_deref(), Some("basic"));
        assert_eq!(log.sessions[0].events.len(), 5);
        assert!(matches!(&log.sessions[0].events[3].kind, EventKind::Fixation { token: Some(t), rank: Some(1), .. } if t == "aspirin"));
        let all: Vec<LogEvent> = log.sessions.iter().flat_map(|s| s.events.clone()).collect();
        let again = StudyLog::parse(&StudyLog::to_jsonl(&all), "x").unwrap();
        assert_eq!(again.sessions, log.sessions);
    }

    #[test]
    fn errors_name_lines() {
        let bad = LOG.replace("\"t\":10400", "\"t\":100");
        let err = StudyLog::parse(&bad, "l.jsonl").unwrap_err().to_string();
        assert!(err.contains("l.jsonl:4") && err.contains("backwards"), "{err}");
        let bad = LOG.replace("\"token\":\"aspirin\"", "\"tokn\":\"aspirin\"");
        let err = StudyLog::parse(&bad, "l.jsonl").unwrap_err().to_string();
        assert!(err.contains("l.jsonl:4") && err.contains("tokn"), "{err}");
        let bad = LOG.replace("\"event\":\"click\"", "\"event\":\"klick\"");
        let err = StudyLog::parse(&bad, "l.jsonl").unwrap_err().to_string();
        assert!(err.contains("l.jsonl:5") && err.contains("klick"), "{err}");
        let bad = LOG.replace("\"rank\":1,\"document\"", "\"rank\":0,\"document\"");
        assert!(StudyLog::parse(&bad, "l.jsonl").unwrap_err().to_string().contains("l.jsonl:5"));
        let bad = LOG.replace(",\"task\":\"t42\",\"event\":\"query\"", ",\"event\":\"query\"");
        assert!(StudyLog::parse(&bad, "l.jsonl").unwrap_err().to_string().contains("`task`"));
    }

    #[test]
    fn bundled_example_parses_and_analyses() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/examples");
        let log = StudyLog::from_file(&dir.join("log.jsonl")).unwrap();
        assert_eq!(log.sessions.len(), 1);
        let aois = crate::study::pipeline::load_log_aois(&log).unwrap();
        assert_eq!(aois.pages.len(), 2);
        let input = crate::study::pipeline::session_input(&log.sessions[0], &aois, crate::study::pipeline::AttentionSource::Fixations);
        // Displayed: 7 tokens on q1-s1, 3 on q2-s1; query terms aspirin heart disease prostaglandin.
        assert_eq!(input.displayed.len(), 10);
        let a = crate::study::attention::literal_acquisition(&[input]);
        // "prostaglandin" was displayed (9900) and fixated (11000) before the second query.
        assert_eq!((a.added_terms, a.displayed_before, a.attended_before), (1, 1, 1));
        let cursor = crate::study::cursor::read_cursor(&dir.join("cursor/p01-t42.txt")).unwrap();
        let page = aois.page("p01-t42-q1-s1").unwrap();
        let h = crate::study::cursor::hovers(&cursor, &page.tokens, 100.0, None);
        assert_eq!((page.tokens.boxes[h[0].box_index].text.as_str(), h[0].duration()), ("prostaglandin", 400.0));
        // Rank-level attention: query 1 has fixations on ranks 1 (x2) and 2, query 2 on rank 1.
        let ranks = crate::study::pipeline::rank_attention(&log, crate::study::pipeline::AttentionSource::Fixations);
        assert_eq!(ranks.iter().map(|r| (r.rank, r.searches, r.events, r.duration_ms)).collect::<Vec<_>>(), vec![(1, 2, 3, 670.0), (2, 1, 1, 320.0)]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Corrupted logs give errors with the file name, never a panic.
        #[test]
        fn corrupted_logs_never_panic(pos in 0usize..2000, byte in 32u8..127) {
            let mut bytes = LOG.as_bytes().to_vec();
            let n = bytes.len();
            bytes[pos % n] = byte;
            if let Ok(text) = String::from_utf8(bytes) {
                if let Err(e) = StudyLog::parse(&text, "l.jsonl") {
                    proptest::prop_assert!(e.to_string().starts_with("l.jsonl:"), "{}", e);
                }
            }
        }
    }
}
