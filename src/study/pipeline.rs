//! From raw signals to log events and analysis inputs: detected fixations and cursor hovers
//! are placed on the screen shown at their time and mapped to tokens and results.
//!
//! The screen shown at time t is the page of the last `serp_view` or `page_visit` at or
//! before t, until the next `click`, `query`, `page_visit`, `serp_view`, `filter_select` or
//! `session_end`. A fixation is kept when it maps to a token or to a result box (5 px rule);
//! its `token` is set only when it maps to a token box, and its `rank` comes from the
//! token's result or the result box.

use super::aoi::{AoiSet, Page};
use super::attention::{normalize_term, query_terms, SessionInput};
use super::cursor::{hovers, CursorEvent};
use super::log::{EventKind, LogEvent, Session, StudyLog};
use super::Fixation;
use crate::error::Result;
use std::collections::{HashMap, HashSet};

/// Time intervals `(start, end, page id)` during which a page with AOIs was on screen.
pub fn screen_intervals(events: &[LogEvent]) -> Vec<(f64, f64, String)> {
    let mut out: Vec<(f64, f64, String)> = Vec::new();
    let mut open: Option<(f64, String)> = None;
    for e in events {
        let starts = match &e.kind {
            EventKind::SerpView { page, .. } | EventKind::PageVisit { page, .. } => Some(page.clone()),
            _ => None,
        };
        let ends = starts.is_some()
            || matches!(e.kind, EventKind::Click { .. } | EventKind::Query { .. } | EventKind::FilterSelect { .. } | EventKind::SessionEnd {});
        if ends {
            if let Some((s, p)) = open.take() {
                out.push((s, e.t, p));
            }
        }
        if let Some(p) = starts {
            open = Some((e.t, p));
        }
    }
    if let Some((s, p)) = open {
        out.push((s, f64::INFINITY, p));
    }
    out
}

fn page_at<'a>(intervals: &'a [(f64, f64, String)], t: f64) -> Option<&'a str> {
    let i = intervals.partition_point(|iv| iv.0 <= t);
    if i == 0 {
        return None;
    }
    let iv = &intervals[i - 1];
    (t < iv.1).then_some(iv.2.as_str())
}

fn map_point(page: &Page, x: f64, y: f64) -> Option<(Option<String>, Option<u32>)> {
    if let Some(i) = page.tokens.locate(x, y) {
        let b = &page.tokens.boxes[i];
        return Some((Some(b.text.clone()), b.rank));
    }
    page.results.locate(x, y).map(|i| (None, page.results.boxes[i].rank))
}

/// Log events for detected fixations and cursor hovers of one session, merged into the
/// session's events in time order. Hovers shorter than `min_hover_ms` are dropped.
pub fn annotate(events: &[LogEvent], fixations: &[Fixation], cursor: &[CursorEvent], aois: &AoiSet, min_hover_ms: f64) -> Vec<LogEvent> {
    let Some(first) = events.first() else { return Vec::new() };
    let intervals = screen_intervals(events);
    let mk = |t: f64, kind: EventKind| LogEvent { t, participant: first.participant.clone(), task: first.task.clone(), condition: first.condition.clone(), kind };
    let mut derived = Vec::new();
    for f in fixations {
        let Some(pid) = page_at(&intervals, f.start) else { continue };
        let Some(page) = aois.page(pid) else { continue };
        if let Some((token, rank)) = map_point(page, f.x, f.y) {
            derived.push(mk(f.start, EventKind::Fixation { page: pid.to_string(), x: f.x, y: f.y, duration: f.duration, token, rank }));
        }
    }
    for &(s, e, ref pid) in &intervals {
        let Some(page) = aois.page(pid) else { continue };
        let lo = cursor.partition_point(|c| c.t < s);
        let hi = cursor.partition_point(|c| c.t < e);
        for h in hovers(&cursor[lo..hi], &page.tokens, min_hover_ms, Some(e.min(cursor.get(hi).map_or(e, |c| c.t)))) {
            let b = &page.tokens.boxes[h.box_index];
            derived.push(mk(h.start, EventKind::Hover { page: pid.clone(), duration: h.duration(), token: Some(b.text.clone()), rank: b.rank }));
        }
    }
    let mut all: Vec<LogEvent> = events.to_vec();
    all.extend(derived);
    all.sort_by(|a, b| a.t.total_cmp(&b.t));
    all
}

/// Which attention events feed an analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttentionSource {
    /// `fixation` events with a token.
    Fixations,
    /// `hover` events with a token.
    Hovers,
}

/// Analysis input of one session: its queries, the tokens of every distinct page it showed
/// (from the AOIs, at first display), and its fixation or hover events on tokens.
pub fn session_input(s: &Session, aois: &AoiSet, source: AttentionSource) -> SessionInput {
    let mut input = SessionInput { session: s.id(), ..Default::default() };
    let mut shown = HashSet::new();
    for e in &s.events {
        match &e.kind {
            EventKind::Query { query } => input.queries.push((e.t, query_terms(query))),
            EventKind::SerpView { page, .. } | EventKind::PageVisit { page, .. } => {
                if shown.insert(page.clone()) {
                    if let Some(p) = aois.page(page) {
                        input.displayed.extend(p.tokens.boxes.iter().map(|b| (e.t, normalize_term(&b.text))));
                    }
                }
            }
            EventKind::Fixation { token: Some(tok), duration, .. } if source == AttentionSource::Fixations => {
                input.attended.push((e.t, normalize_term(tok), *duration));
            }
            EventKind::Hover { token: Some(tok), duration, .. } if source == AttentionSource::Hovers => {
                input.attended.push((e.t, normalize_term(tok), *duration));
            }
            _ => {}
        }
    }
    input
}

/// Loads the AOI files referenced by a log's `serp_view` and `page_visit` events (paths
/// relative to the log's folder), each file once.
pub fn load_log_aois(log: &StudyLog) -> Result<AoiSet> {
    let mut seen: HashMap<std::path::PathBuf, ()> = HashMap::new();
    let mut pages = Vec::new();
    for s in &log.sessions {
        for e in &s.events {
            if let EventKind::SerpView { aoi: Some(a), .. } | EventKind::PageVisit { aoi: Some(a), .. } = &e.kind {
                let path = if a.is_absolute() { a.clone() } else { log.base.join(a) };
                if seen.insert(path.clone(), ()).is_none() {
                    pages.extend(AoiSet::from_file(&path)?.pages);
                }
            }
        }
    }
    Ok(AoiSet { pages })
}
