//! Cursor traces: EvTrack logs and plain CSV, and what is extracted from them (hovers,
//! pauses, clicks).
//!
//! - EvTrack (space-delimited, one header line): `cursor timestamp xpos ypos event xpath attrs`;
//!   `attrs` runs to the end of the line and may contain blanks.
//! - Plain CSV with header `t,x,y,event` (t in ms).
//!
//! The cursor stays where the last event put it until the next event. A hover is a maximal
//! stretch of time the cursor rests inside one box (token or result; same 5 px rule as
//! fixations, [`crate::study::aoi`]) lasting at least the threshold (default 100 ms).
//! Time stamps that go backwards are errors.

use super::aoi::BoxSet;
use crate::error::{Error, Result};
use serde::Serialize;
use std::path::Path;

/// Cursor event kinds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CursorKind {
    /// `mousemove` / `move`.
    Move,
    /// `click`.
    Click,
    /// `mousedown`.
    Down,
    /// `mouseup`.
    Up,
    /// `scroll`.
    Scroll,
    /// Anything else (`load`, `keydown`, ...), kept by name.
    Other(String),
}

impl CursorKind {
    fn parse(s: &str) -> Self {
        match s {
            "mousemove" | "move" => CursorKind::Move,
            "click" => CursorKind::Click,
            "mousedown" | "down" => CursorKind::Down,
            "mouseup" | "up" => CursorKind::Up,
            "scroll" => CursorKind::Scroll,
            o => CursorKind::Other(o.to_string()),
        }
    }
}

/// One cursor event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CursorEvent {
    /// Time (ms).
    pub t: f64,
    /// Horizontal position (px).
    pub x: f64,
    /// Vertical position (px).
    pub y: f64,
    /// Kind.
    pub kind: CursorKind,
    /// EvTrack's xpath of the element under the cursor.
    pub xpath: Option<String>,
}

fn check_order(events: &[CursorEvent], t: f64, file: &str, line: usize) -> Result<()> {
    if let Some(prev) = events.last() {
        if t < prev.t {
            return Err(Error::parse(file, line, format!("time {t} goes backwards (previous event at {})", prev.t)));
        }
    }
    Ok(())
}

fn number(s: &str, what: &str, file: &str, line: usize) -> Result<f64> {
    s.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| Error::parse(file, line, format!("{what} `{s}` is not a number")))
}

/// Parses an EvTrack log.
pub fn parse_evtrack(text: &str, file: &str) -> Result<Vec<CursorEvent>> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.split_whitespace().take(4).eq(["cursor", "timestamp", "xpos", "ypos"]) => {}
        _ => return Err(Error::parse(file, 1, "expected the header `cursor timestamp xpos ypos event xpath attrs`")),
    }
    let mut out = Vec::new();
    for (i, l) in lines {
        let line = i + 1;
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().take(6).collect();
        if f.len() < 5 {
            return Err(Error::parse(file, line, format!("{} fields, expected at least 5 (cursor timestamp xpos ypos event)", f.len())));
        }
        let t = number(f[1], "timestamp", file, line)?;
        check_order(&out, t, file, line)?;
        out.push(CursorEvent {
            t,
            x: number(f[2], "xpos", file, line)?,
            y: number(f[3], "ypos", file, line)?,
            kind: CursorKind::parse(f[4]),
            xpath: f.get(5).map(|s| s.to_string()),
        });
    }
    Ok(out)
}

/// Parses the plain CSV `t,x,y,event`.
pub fn parse_cursor_csv(text: &str, file: &str) -> Result<Vec<CursorEvent>> {
    let mut rdr = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(text.as_bytes());
    let h = rdr.headers().map_err(|e| Error::parse(file, 1, e.to_string()))?.clone();
    let col = |n: &str| h.iter().position(|x| x == n).ok_or_else(|| Error::parse(file, 1, format!("missing column `{n}` (expected t,x,y,event)")));
    let (ti, xi, yi, ei) = (col("t")?, col("x")?, col("y")?, col("event")?);
    let mut out = Vec::new();
    for (k, rec) in rdr.records().enumerate() {
        let line = k + 2;
        let rec = rec.map_err(|e| Error::parse(file, line, e.to_string()))?;
        let t = number(&rec[ti], "t", file, line)?;
        check_order(&out, t, file, line)?;
        out.push(CursorEvent { t, x: number(&rec[xi], "x", file, line)?, y: number(&rec[yi], "y", file, line)?, kind: CursorKind::parse(&rec[ei]), xpath: None });
    }
    Ok(out)
}

/// Reads a cursor file: EvTrack when the first line starts with `cursor`, CSV otherwise.
pub fn read_cursor(path: &Path) -> Result<Vec<CursorEvent>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let file = path.display().to_string();
    if text.trim_start().starts_with("cursor") {
        parse_evtrack(&text, &file)
    } else {
        parse_cursor_csv(&text, &file)
    }
}

/// A hover: the cursor resting in one box.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Hover {
    /// Index of the box in its [`BoxSet`].
    pub box_index: usize,
    /// Start (ms).
    pub start: f64,
    /// End (ms).
    pub end: f64,
}

impl Hover {
    /// Duration in ms.
    pub fn duration(&self) -> f64 {
        self.end - self.start
    }
}

/// Hovers of at least `min_ms` over the boxes of `boxes`. The trace ends at `end_time`
/// (the last position holds until then; `None`: the last event's time).
pub fn hovers(events: &[CursorEvent], boxes: &BoxSet, min_ms: f64, end_time: Option<f64>) -> Vec<Hover> {
    let mut out = Vec::new();
    let mut cur: Option<(usize, f64)> = None;
    let close = |cur: Option<(usize, f64)>, t: f64, out: &mut Vec<Hover>| {
        if let Some((b, s)) = cur {
            if t - s >= min_ms {
                out.push(Hover { box_index: b, start: s, end: t });
            }
        }
    };
    for e in events {
        let b = boxes.locate(e.x, e.y);
        match (cur, b) {
            (Some((cb, _)), Some(nb)) if cb == nb => {}
            _ => {
                close(cur, e.t, &mut out);
                cur = b.map(|nb| (nb, e.t));
            }
        }
    }
    let end = end_time.or(events.last().map(|e| e.t)).unwrap_or(0.0);
    close(cur, end, &mut out);
    out
}

/// Pauses: stretches of at least `min_ms` without a movement, as `(start, end, x, y)`.
pub fn pauses(events: &[CursorEvent], min_ms: f64) -> Vec<(f64, f64, f64, f64)> {
    let mut out = Vec::new();
    for w in events.windows(2) {
        if w[1].t - w[0].t >= min_ms {
            out.push((w[0].t, w[1].t, w[0].x, w[0].y));
        }
    }
    out
}

/// Clicks with the box they land in (5 px rule), as `(time, box index)`.
pub fn clicks(events: &[CursorEvent], boxes: &BoxSet) -> Vec<(f64, Option<usize>)> {
    events.iter().filter(|e| e.kind == CursorKind::Click).map(|e| (e.t, boxes.locate(e.x, e.y))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::aoi::AoiSet;

    const EV: &str = "cursor timestamp xpos ypos event xpath attrs\n0 1000 10 10 load / {}\n\
0 1100 120 110 mousemove /html/body/div[1] {\"id\": \"r1\"}\n0 1250 125 112 mousemove /html/body/div[1] {}\n\
0 1400 300 300 mousemove /html/body {}\n0 1450 170 110 mousemove /html/body/div[2] {}\n0 1500 170 110 click /html/body/div[2] {}\n0 1520 10 10 mousemove / {}\n";

    #[test]
    fn evtrack_hovers_and_clicks() {
        let ev = parse_evtrack(EV, "e.txt").unwrap();
        assert_eq!(ev.len(), 7);
        assert_eq!(ev[1].xpath.as_deref(), Some("/html/body/div[1]"));
        let set = AoiSet::parse("page,token,x,y,w,h\np,alpha,100,100,50,20\np,beta,160,100,40,20\n", "a").unwrap();
        let b = &set.page("p").unwrap().tokens;
        // alpha from 1100 to 1400 (300 ms); beta from 1450 to 1520 (70 ms < 100).
        let h = hovers(&ev, b, 100.0, None);
        assert_eq!(h, vec![Hover { box_index: 0, start: 1100.0, end: 1400.0 }]);
        assert_eq!(hovers(&ev, b, 50.0, None).len(), 2);
        assert_eq!(clicks(&ev, b), vec![(1500.0, Some(1))]);
        assert_eq!(pauses(&ev, 150.0), vec![(1100.0, 1250.0, 120.0, 110.0), (1250.0, 1400.0, 125.0, 112.0)]);
    }

    #[test]
    fn csv_and_errors() {
        let ev = parse_cursor_csv("t,x,y,event\n0,1,2,move\n5,3,4,click\n", "c.csv").unwrap();
        assert_eq!(ev[1].kind, CursorKind::Click);
        let err = parse_cursor_csv("t,x,y,event\n10,1,2,move\n5,3,4,click\n", "c.csv").unwrap_err().to_string();
        assert!(err.contains("c.csv:3") && err.contains("backwards"), "{err}");
        let err = parse_cursor_csv("t,x,event\n10,1,move\n", "c.csv").unwrap_err().to_string();
        assert!(err.contains("c.csv:1") && err.contains("`y`"), "{err}");
        let err = parse_evtrack("cursor timestamp xpos ypos event xpath attrs\n0 10 5\n", "e.txt").unwrap_err().to_string();
        assert!(err.contains("e.txt:2") && err.contains("fields"), "{err}");
    }
}
