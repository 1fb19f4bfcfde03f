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
        let ends =
            starts.is_some() || matches!(e.kind, EventKind::Click { .. } | EventKind::Query { .. } | EventKind::FilterSelect { .. } | EventKind::SessionEnd {});
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

fn page_at(intervals: &[(f64, f64, String)], t: f64) -> Option<&str> {
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

/// Vertical scroll offset of `page` at time `t`: the `offset` of the last `scroll` event on
/// that page at or before `t` (0 without one).
fn scroll_offset(scrolls: &[(f64, &str, f64)], page: &str, t: f64) -> f64 {
    let i = scrolls.partition_point(|s| s.0 <= t);
    scrolls[..i].iter().rev().find(|s| s.1 == page).map_or(0.0, |s| s.2)
}

/// What [`annotate_with`] did to one session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AnnotateCounts {
    /// Fixation events added.
    pub fixations: usize,
    /// Hover events on token boxes added.
    pub token_hovers: usize,
    /// Hover events on result boxes added.
    pub result_hovers: usize,
    /// Fixation events already in the log that were replaced.
    pub replaced_fixations: usize,
    /// Hover events already in the log that were replaced.
    pub replaced_hovers: usize,
}

/// Log events for detected fixations and cursor hovers of one session, merged into the
/// session's events in time order (see [`annotate_with`]); both sources replace.
pub fn annotate(events: &[LogEvent], fixations: &[Fixation], cursor: &[CursorEvent], aois: &AoiSet, min_hover_ms: f64) -> Vec<LogEvent> {
    annotate_with(events, Some(fixations), Some(cursor), aois, min_hover_ms).0
}

/// Adds fixation events (from `fixations`) and hover events (from the `cursor` trace) to a
/// session's events, in time order.
///
/// - **Idempotent**: when `fixations` is given, the session's existing `fixation` events are
///   replaced, not kept beside the new ones; likewise `hover` events when `cursor` is given.
///   Annotating an annotated log gives the same log. `None` leaves that kind untouched.
/// - **Hovers** are found on token boxes (event with `token`) and, separately, on result
///   boxes (event with `rank` and no `token`: rank-level attention). A token hover carries
///   the token's rank only on a page without result boxes, so a rank's hovers are counted
///   once. Hovers shorter than `min_hover_ms` are dropped.
/// - Fixation and cursor positions are screen coordinates; AOI boxes are page coordinates:
///   the page's scroll offset (last `scroll` event) is added to y before mapping.
pub fn annotate_with(
    events: &[LogEvent],
    fixations: Option<&[Fixation]>,
    cursor: Option<&[CursorEvent]>,
    aois: &AoiSet,
    min_hover_ms: f64,
) -> (Vec<LogEvent>, AnnotateCounts) {
    let mut counts = AnnotateCounts::default();
    let Some(first) = events.first() else { return (Vec::new(), counts) };
    let intervals = screen_intervals(events);
    let scrolls: Vec<(f64, &str, f64)> =
        events.iter().filter_map(|e| if let EventKind::Scroll { page, offset } = &e.kind { Some((e.t, page.as_str(), *offset)) } else { None }).collect();
    let mk =
        |t: f64, kind: EventKind| LogEvent { t, participant: first.participant.clone(), task: first.task.clone(), condition: first.condition.clone(), kind };
    let mut derived = Vec::new();
    for f in fixations.unwrap_or(&[]) {
        let Some(pid) = page_at(&intervals, f.start) else { continue };
        let Some(page) = aois.page(pid) else { continue };
        let dy = scroll_offset(&scrolls, pid, f.start);
        if let Some((token, rank)) = map_point(page, f.x, f.y + dy) {
            counts.fixations += 1;
            derived.push(mk(f.start, EventKind::Fixation { page: pid.to_string(), x: f.x, y: f.y, duration: f.duration, token, rank }));
        }
    }
    let cursor_events = cursor.unwrap_or(&[]);
    for &(s, e, ref pid) in &intervals {
        let Some(page) = aois.page(pid) else { continue };
        let lo = cursor_events.partition_point(|c| c.t < s);
        let hi = cursor_events.partition_point(|c| c.t < e);
        let shifted: Vec<CursorEvent>;
        let trace = if scrolls.iter().any(|x| x.1 == pid.as_str()) {
            shifted = cursor_events[lo..hi].iter().map(|c| CursorEvent { y: c.y + scroll_offset(&scrolls, pid, c.t), ..c.clone() }).collect();
            &shifted[..]
        } else {
            &cursor_events[lo..hi]
        };
        let end = Some(e.min(cursor_events.get(hi).map_or(e, |c| c.t)));
        let results = !page.results.boxes.is_empty();
        for h in hovers(trace, &page.tokens, min_hover_ms, end) {
            let b = &page.tokens.boxes[h.box_index];
            counts.token_hovers += 1;
            derived.push(mk(
                h.start,
                EventKind::Hover { page: pid.clone(), duration: h.duration(), token: Some(b.text.clone()), rank: if results { None } else { b.rank } },
            ));
        }
        for h in hovers(trace, &page.results, min_hover_ms, end) {
            let b = &page.results.boxes[h.box_index];
            counts.result_hovers += 1;
            derived.push(mk(h.start, EventKind::Hover { page: pid.clone(), duration: h.duration(), token: None, rank: b.rank }));
        }
    }
    let mut all: Vec<LogEvent> = Vec::with_capacity(events.len() + derived.len());
    for ev in events {
        match ev.kind {
            EventKind::Fixation { .. } if fixations.is_some() => counts.replaced_fixations += 1,
            EventKind::Hover { .. } if cursor.is_some() => counts.replaced_hovers += 1,
            _ => all.push(ev.clone()),
        }
    }
    all.extend(derived);
    // Stable: at equal times the log's own events stay before the derived ones.
    all.sort_by(|a, b| a.t.total_cmp(&b.t));
    (all, counts)
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
            EventKind::SerpView { page, .. } | EventKind::PageVisit { page, .. } if shown.insert(page.clone()) => {
                if let Some(p) = aois.page(page) {
                    input.displayed.extend(p.tokens.boxes.iter().map(|b| (e.t, normalize_term(&b.text))));
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

/// Rank-level attention from result AOIs: per rank, the searches (queries) in which the
/// result got at least one event, the events, and their total duration (ms).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct RankAttention {
    /// 1-based rank.
    pub rank: u32,
    /// Searches with at least one event on this rank.
    pub searches: u64,
    /// Fixations (hovers) with this rank.
    pub events: u64,
    /// Their total duration (ms).
    pub duration_ms: f64,
}

/// Rank-level attention over a log, from `fixation` or `hover` events that carry a rank.
pub fn rank_attention(log: &StudyLog, source: AttentionSource) -> Vec<RankAttention> {
    let mut out: Vec<RankAttention> = Vec::new();
    for s in &log.sessions {
        let mut seen: HashSet<u32> = HashSet::new();
        for e in &s.events {
            let (r, d) = match (&e.kind, source) {
                (EventKind::Query { .. }, _) => {
                    seen.clear();
                    continue;
                }
                (EventKind::Fixation { rank: Some(r), duration, .. }, AttentionSource::Fixations) => (*r, *duration),
                (EventKind::Hover { rank: Some(r), duration, .. }, AttentionSource::Hovers) => (*r, *duration),
                _ => continue,
            };
            if out.len() < r as usize {
                let n = out.len();
                out.extend((n + 1..=r as usize).map(|k| RankAttention { rank: k as u32, ..Default::default() }));
            }
            let a = &mut out[r as usize - 1];
            a.events += 1;
            a.duration_ms += d;
            if seen.insert(r) {
                a.searches += 1;
            }
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scroll_offsets_shift_positions_onto_page_coordinates() {
        let log = StudyLog::parse(
            concat!(
                r#"{"t":0,"participant":"p","task":"t","event":"serp_view","page":"s","serp_page":1,"results":["d1"]}"#,
                "\n",
                r#"{"t":100,"participant":"p","task":"t","event":"scroll","page":"s","offset":200}"#,
                "\n",
                r#"{"t":900,"participant":"p","task":"t","event":"session_end"}"#,
                "\n",
            ),
            "l",
        )
        .unwrap();
        let aois = AoiSet::parse("page,token,x,y,w,h,rank\ns,below,100,400,50,20,3\n", "a").unwrap();
        let f = |start: f64| Fixation { eye: crate::study::Eye::Left, start, end: start + 199.0, duration: 200.0, x: 120.0, y: 210.0, pupil: f64::NAN };
        // At t = 50 the page is not scrolled: screen y 210 is page y 210, no token. At t = 300
        // it is scrolled by 200: page y 410, the token `below` (rank 3).
        let out = annotate(&log.sessions[0].events, &[f(50.0), f(300.0)], &[], &aois, 100.0);
        let fx: Vec<_> =
            out.iter().filter_map(|e| if let EventKind::Fixation { token, rank, .. } = &e.kind { Some((e.t, token.clone(), *rank)) } else { None }).collect();
        assert_eq!(fx, vec![(300.0, Some("below".to_string()), Some(3))]);
        let iv = screen_intervals(&log.sessions[0].events);
        assert_eq!(iv, vec![(0.0, 900.0, "s".to_string())]);
    }

    fn cursor_at(points: &[(f64, f64, f64)]) -> Vec<CursorEvent> {
        points.iter().map(|&(t, x, y)| CursorEvent { t, x, y, kind: crate::study::cursor::CursorKind::Move, xpath: None }).collect()
    }

    /// Result boxes only: the cursor rests 300 ms in the rank-2 box and 50 ms in rank 1;
    /// one rank-level hover (rank 2, 300 ms), none on tokens (there are none).
    #[test]
    fn result_boxes_alone_give_rank_hovers() {
        let log = StudyLog::parse(
            concat!(
                r#"{"t":0,"participant":"p","task":"t","event":"serp_view","page":"s","serp_page":1,"results":["d1","d2"]}"#,
                "\n",
                r#"{"t":1000,"participant":"p","task":"t","event":"session_end"}"#,
                "\n",
            ),
            "l",
        )
        .unwrap();
        let aois = AoiSet::parse("page,token,x,y,w,h,rank,kind\ns,r1,0,0,500,100,1,result\ns,r2,0,100,500,100,2,result\n", "a").unwrap();
        let c = cursor_at(&[(100.0, 50.0, 50.0), (150.0, 50.0, 150.0), (450.0, 900.0, 900.0)]);
        let (out, n) = annotate_with(&log.sessions[0].events, None, Some(&c), &aois, 100.0);
        assert_eq!((n.token_hovers, n.result_hovers), (0, 1));
        let h: Vec<_> = out
            .iter()
            .filter_map(|e| if let EventKind::Hover { rank, duration, token, .. } = &e.kind { Some((e.t, *rank, *duration, token.clone())) } else { None })
            .collect();
        assert_eq!(h, vec![(150.0, Some(2), 300.0, None)]);
        let again = StudyLog::parse(&StudyLog::to_jsonl(&out), "l2").unwrap();
        let ranks = rank_attention(&again, AttentionSource::Hovers);
        assert_eq!(ranks.iter().map(|r| (r.rank, r.events)).collect::<Vec<_>>(), vec![(1, 0), (2, 1)]);
    }

    /// Annotating twice gives the same events (existing fixations and hovers are replaced).
    #[test]
    fn annotation_is_idempotent() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/examples");
        let log = StudyLog::from_file(&dir.join("log.jsonl")).unwrap();
        let aois = load_log_aois(&log).unwrap();
        let cursor = crate::study::cursor::read_cursor(&dir.join("cursor/p01-t42.txt")).unwrap();
        let fix = [Fixation { eye: crate::study::Eye::Left, start: 10000.0, end: 10199.0, duration: 200.0, x: 100.0, y: 138.0, pupil: f64::NAN }];
        let s = &log.sessions[0].events;
        let (once, n1) = annotate_with(s, Some(&fix), Some(&cursor), &aois, 100.0);
        let (twice, n2) = annotate_with(&once, Some(&fix), Some(&cursor), &aois, 100.0);
        assert_eq!(once, twice);
        // The example log holds 4 fixations and 1 hover of its own: replaced the first time;
        // the second time exactly the derived ones are replaced.
        assert_eq!((n1.replaced_fixations, n1.replaced_hovers), (4, 1));
        assert_eq!(n2.replaced_fixations, n1.fixations);
        assert_eq!(n2.replaced_hovers, n1.token_hovers + n1.result_hovers);
        assert!(n1.fixations >= 1 && n1.token_hovers >= 1, "{n1:?}");
    }
}
