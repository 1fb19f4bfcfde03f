//! Cursor traces: EvTrack logs, CSV in any column layout, and what is extracted from them
//! (hovers, pauses, clicks).
//!
//! - EvTrack (space-delimited, one header line): `cursor timestamp xpos ypos event xpath attrs`;
//!   `attrs` runs to the end of the line and may contain blanks. Times in ms.
//! - The plain CSV `t,x,y,event` (t in ms), as `serpsim study synth` writes.
//! - The Balabit mouse-dynamics layout, `record timestamp,client timestamp,button,state,x,y`
//!   (seconds since the session start; Fülöp et al. 2016): time = `client timestamp`, event =
//!   `state`, mapped `Move`/`Drag` → move, `Pressed` → down, `Released` → click (a press
//!   released is a click), `Up`/`Down` (the wheel) → scroll.
//! - Any other CSV/TSV with `--cursor-columns t=COL,x=COL,y=COL[,event=COL]` and
//!   `--cursor-events NAME=KIND,...` (KIND: move, click, down, up, scroll); the time unit
//!   comes from `--cursor-time-unit` or the column name (`_ms`, `[s]`, ...), else the file is
//!   refused: cursor events are irregular, so their steps say nothing about the unit.
//!
//! Event names that no mapping covers are kept by name ([`CursorKind::Other`]): they move
//! the cursor but are not clicks; [`CursorTrace::notes`] lists them with their counts.
//!
//! The cursor stays where the last event put it until the next event. A hover is a maximal
//! stretch of time the cursor rests inside one box (token or result; same 5 px rule as
//! fixations, [`crate::study::aoi`]) lasting at least the threshold (default 100 ms).
//! Time stamps that go backwards are errors.

use super::aoi::BoxSet;
use super::gaze_csv::{normalise_header, TimeUnit};
use crate::error::{Error, Result};
use crate::input::snippet;
use serde::Serialize;
use std::collections::BTreeMap;
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
    /// The built-in names: EvTrack's DOM event names and the short forms.
    pub fn parse(s: &str) -> Self {
        match s {
            "mousemove" | "move" => CursorKind::Move,
            "click" => CursorKind::Click,
            "mousedown" | "down" => CursorKind::Down,
            "mouseup" | "up" => CursorKind::Up,
            "scroll" | "wheel" => CursorKind::Scroll,
            o => CursorKind::Other(o.to_string()),
        }
    }

    /// A kind named in a `--cursor-events` mapping.
    fn from_mapping(s: &str) -> Result<Self> {
        match CursorKind::parse(s) {
            CursorKind::Other(o) => Err(Error::Invalid(format!("--cursor-events: unknown kind `{o}` (move, click, down, up, scroll)"))),
            k => Ok(k),
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

/// Columns of a cursor CSV (`--cursor-columns t=COL,x=COL,y=COL[,event=COL]`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CursorColumns {
    /// Time column.
    pub t: String,
    /// x column.
    pub x: String,
    /// y column.
    pub y: String,
    /// Event name column (absent: every row is a move).
    pub event: Option<String>,
}

impl CursorColumns {
    /// Parses `t=COL,x=COL,y=COL[,event=COL]`.
    pub fn parse(spec: &str) -> Result<Self> {
        let mut c = CursorColumns::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| Error::Invalid(format!("--cursor-columns: `{part}` is not KEY=COLUMN")))?;
            let v = v.trim().to_string();
            match k.trim() {
                "t" | "time" => c.t = v,
                "x" => c.x = v,
                "y" => c.y = v,
                "event" => c.event = Some(v),
                o => return Err(Error::Invalid(format!("--cursor-columns: unknown key `{o}` (t, x, y, event)"))),
            }
        }
        if c.t.is_empty() || c.x.is_empty() || c.y.is_empty() {
            return Err(Error::Invalid("--cursor-columns: t=COLUMN, x=COLUMN and y=COLUMN are required".into()));
        }
        Ok(c)
    }
}

/// How to read a cursor file.
#[derive(Debug, Clone, Default)]
pub struct CursorOptions {
    /// Columns (default: the layout told by the header).
    pub columns: Option<CursorColumns>,
    /// Event names → kinds, on top of the built-in names (`--cursor-events Pressed=down,...`).
    pub events: BTreeMap<String, CursorKind>,
    /// Unit of the time column (default: from the layout or the column name).
    pub time_unit: Option<TimeUnit>,
}

impl CursorOptions {
    /// Parses a `--cursor-events NAME=KIND,...` list into [`CursorOptions::events`].
    pub fn parse_events(spec: &str) -> Result<BTreeMap<String, CursorKind>> {
        let mut m = BTreeMap::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| Error::Invalid(format!("--cursor-events: `{part}` is not NAME=KIND")))?;
            m.insert(k.trim().to_string(), CursorKind::from_mapping(v.trim())?);
        }
        Ok(m)
    }
}

/// A cursor trace with what was inferred while reading it.
#[derive(Debug, Clone, Default)]
pub struct CursorTrace {
    /// Events in time order.
    pub events: Vec<CursorEvent>,
    /// Layout, unit, unmapped event names.
    pub notes: Vec<String>,
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
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| Error::parse(file, line, format!("{what} `{}` is not a number", snippet(s.trim(), 40))))
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

/// Parses the plain CSV `t,x,y,event` (t in ms).
pub fn parse_cursor_csv(text: &str, file: &str) -> Result<Vec<CursorEvent>> {
    parse_cursor_table(text, file, &CursorOptions::default()).map(|t| t.events)
}

/// The Balabit mouse-dynamics event names.
fn balabit_events() -> BTreeMap<String, CursorKind> {
    [
        ("Move", CursorKind::Move),
        ("Drag", CursorKind::Move),
        ("Pressed", CursorKind::Down),
        ("Released", CursorKind::Click),
        ("Up", CursorKind::Scroll),
        ("Down", CursorKind::Scroll),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Parses a cursor CSV/TSV in any layout (see the module comment).
pub fn parse_cursor_table(text: &str, file: &str, opts: &CursorOptions) -> Result<CursorTrace> {
    let first = text.lines().next().unwrap_or("");
    let delim = if first.contains('\t') { b'\t' } else { b',' };
    let mut rdr = csv::ReaderBuilder::new().delimiter(delim).trim(csv::Trim::All).flexible(true).from_reader(text.as_bytes());
    let h = rdr.headers().map_err(|e| Error::parse(file, 1, e.to_string()))?.clone();
    let names: Vec<String> = h.iter().map(normalise_header).collect();
    let mut notes = Vec::new();
    let mut events = opts.events.clone();
    let (cols, layout_unit) = match &opts.columns {
        Some(c) => (c.clone(), None),
        None if names.iter().any(|n| n == "clienttimestamp") && names.iter().any(|n| n == "state") => {
            for (k, v) in balabit_events() {
                events.entry(k).or_insert(v);
            }
            notes.push("layout: Balabit mouse dynamics (time = client timestamp in s, event = state)".to_string());
            let col = |k: &str| h.iter().zip(&names).find(|(_, n)| *n == k).map(|(c, _)| c.to_string()).unwrap_or_default();
            (CursorColumns { t: col("clienttimestamp"), x: col("x"), y: col("y"), event: Some(col("state")) }, Some(TimeUnit::Seconds))
        }
        None if ["t", "x", "y", "event"].iter().all(|k| h.iter().any(|c| c == *k)) => {
            (CursorColumns { t: "t".into(), x: "x".into(), y: "y".into(), event: Some("event".into()) }, Some(TimeUnit::Millis))
        }
        None => {
            return Err(Error::parse(
                file,
                1,
                format!(
                    "cannot tell the cursor layout from the header ({}); give --cursor-columns t=COLUMN,x=COLUMN,y=COLUMN[,event=COLUMN]",
                    snippet(&h.iter().collect::<Vec<_>>().join(","), 200)
                ),
            ))
        }
    };
    let col = |n: &str| {
        h.iter()
            .position(|x| x == n)
            .ok_or_else(|| Error::parse(file, 1, format!("no column `{n}` (columns: {})", snippet(&h.iter().collect::<Vec<_>>().join(","), 200))))
    };
    let (ti, xi, yi) = (col(&cols.t)?, col(&cols.x)?, col(&cols.y)?);
    let ei = cols.event.as_deref().map(col).transpose()?;
    let unit = match (opts.time_unit, layout_unit, unit_of(&cols.t)) {
        (Some(u), _, _) => {
            notes.push(format!("time unit: {} (given)", u.symbol()));
            u
        }
        (None, Some(u), _) => u,
        (None, None, Some(u)) => {
            notes.push(format!("time unit: {} (from the column name `{}`)", u.symbol(), cols.t));
            u
        }
        (None, None, None) => {
            return Err(Error::Invalid(format!("{file}: the unit of the time column `{}` is unknown; give --cursor-time-unit s|ms|us|ns", cols.t)))
        }
    };
    let mut out = Vec::new();
    let mut unmapped: BTreeMap<String, u64> = BTreeMap::new();
    for (k, rec) in rdr.records().enumerate() {
        let line = k + 2;
        let rec = rec.map_err(|e| Error::parse(file, line, e.to_string()))?;
        let need = ti.max(xi).max(yi).max(ei.unwrap_or(0));
        if rec.len() <= need {
            return Err(Error::parse(file, line, format!("{} columns, the header has {} (missing columns)", rec.len(), h.len())));
        }
        let t = number(&rec[ti], &cols.t, file, line)? * unit.ms();
        check_order(&out, t, file, line)?;
        let kind = match ei {
            None => CursorKind::Move,
            Some(i) => match events.get(&rec[i]) {
                Some(k) => k.clone(),
                None => {
                    let k = CursorKind::parse(&rec[i]);
                    if let CursorKind::Other(n) = &k {
                        *unmapped.entry(n.clone()).or_insert(0) += 1;
                    }
                    k
                }
            },
        };
        out.push(CursorEvent { t, x: number(&rec[xi], &cols.x, file, line)?, y: number(&rec[yi], &cols.y, file, line)?, kind, xpath: None });
    }
    if !unmapped.is_empty() {
        notes.push(format!(
            "event names without a mapping, kept as positions only (map them with --cursor-events NAME=KIND): {}",
            unmapped.iter().map(|(k, v)| format!("{k} ({v})")).collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(CursorTrace { events: out, notes })
}

fn unit_of(name: &str) -> Option<TimeUnit> {
    let l = name.to_lowercase();
    if l.ends_with("_ms") || l.contains("[ms]") || l.contains("(ms)") {
        Some(TimeUnit::Millis)
    } else if l.ends_with("_s") || l.ends_with("_sec") || l.contains("[s]") || l.contains("(s)") {
        Some(TimeUnit::Seconds)
    } else if l.ends_with("_us") || l.contains("[us]") || l.contains("[μs]") {
        Some(TimeUnit::Micros)
    } else {
        None
    }
}

/// Reads a cursor file (through the input layer): EvTrack when the first line starts with
/// `cursor`, a CSV/TSV layout otherwise.
pub fn read_cursor(path: &Path) -> Result<Vec<CursorEvent>> {
    read_cursor_with(path, &CursorOptions::default()).map(|t| t.events)
}

/// [`read_cursor`] with column and event mappings.
pub fn read_cursor_with(path: &Path, opts: &CursorOptions) -> Result<CursorTrace> {
    let text = crate::input::read_to_string(path)?;
    let file = path.display().to_string();
    if opts.columns.is_none() && text.trim_start().starts_with("cursor") {
        let events = parse_evtrack(&text, &file)?;
        Ok(CursorTrace { events, notes: vec!["layout: EvTrack".into()] })
    } else {
        parse_cursor_table(&text, &file, opts)
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
        assert!(err.contains("c.csv:1") && err.contains("--cursor-columns"), "{err}");
        let err = parse_evtrack("cursor timestamp xpos ypos event xpath attrs\n0 10 5\n", "e.txt").unwrap_err().to_string();
        assert!(err.contains("e.txt:2") && err.contains("fields"), "{err}");
    }
}
