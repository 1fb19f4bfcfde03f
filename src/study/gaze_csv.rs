//! Gaze samples from CSV and TSV exports, streamed line by line through the input layer
//! (gzip, zstd, `-` for standard input, BOM, CRLF).
//!
//! Layouts told apart by their header (or named with [`GazeFormat`]):
//!
//! | layout | time column | gaze columns | notes |
//! |---|---|---|---|
//! | Tobii Pro Lab (TSV) | `Recording timestamp [unit]` | `Gaze point X/Y` (the filter's average eye), else `Gaze point left X/Y`, `Gaze point right X/Y` | rows of other sensors (`Sensor` not `Eye Tracker`) are skipped; `Validity left/right` = `Invalid` is missing; `Eye movement type` = `Fixation` rows with one `Eye movement type index` are Tobii's own I-VT fixations; `Recording resolution width/height` give the screen |
//! | Tobii Studio (TSV) | `RecordingTimestamp` (ms) | `GazePointX/Y (ADCSpx)`, else `GazePointLeftX/Y`, `GazePointRightX/Y` | `ValidityLeft/Right` >= 2 is missing; `GazeEventType` = `Fixation` with `FixationIndex` as above |
//! | pymovements (`Gaze.save_samples`, CSV) | `time` (ms) | `pixel_x/pixel_y`, or `pixel_xl/yl`, `pixel_xr/yr` | pupil `pupil`, or `pupil_x`/`pupil_y` (left/right) |
//! | EyeLink Data Viewer sample report | `TIMESTAMP` (ms) | `LEFT_GAZE_X/Y`, `RIGHT_GAZE_X/Y` | `.` is missing |
//! | generic | `--columns time=COL,x=COL,y=COL[,pupil=COL][,x_right=COL,y_right=COL,pupil_right=COL]` | | |
//!
//! Header names are matched after removing case, blanks, punctuation and a bracketed unit
//! (`Gaze point X [DACS px]` and `GazePointX (ADCSpx)` are both `gazepointx`). Missing
//! values: an empty cell, `.`, `-`, `NaN`. Decimal commas are read in tab- or
//! semicolon-separated files. The time unit comes from `--time-unit`, else from the column
//! name (`[ms]`, `[μs]`, `_s`, ...) or the layout, else from the median step of the first
//! rows (a tracker runs at 25-2500 Hz, so a step of 0.0004-0.04 is seconds, 0.4-40
//! milliseconds, 400-40,000 microseconds, 4e5-4e7 nanoseconds; anything else is refused).
//! Every inference is reported in [`CsvGazeReader::notes`]. Time stamps must increase.

use super::asc::Gaze;
use super::{Eye, Fixation};
use crate::error::{Error, Result};
use crate::input::{snippet, Input, LineReader};
use std::collections::VecDeque;
use std::path::Path;

/// The layout of a gaze export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GazeFormat {
    /// Tell from the header.
    Auto,
    /// Tobii Pro Lab data export.
    TobiiProLab,
    /// Tobii Studio data export.
    TobiiStudio,
    /// pymovements' CSV (`Gaze.save_samples`).
    Pymovements,
    /// EyeLink Data Viewer sample report.
    DataViewer,
    /// Columns named with [`ColumnSpec`].
    Generic,
}

impl GazeFormat {
    /// Parses a `--format` value.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "auto" => GazeFormat::Auto,
            "tobii" | "tobii-pro-lab" => GazeFormat::TobiiProLab,
            "tobii-studio" => GazeFormat::TobiiStudio,
            "pymovements" => GazeFormat::Pymovements,
            "dataviewer" => GazeFormat::DataViewer,
            "csv" | "generic" => GazeFormat::Generic,
            _ => return Err(Error::Invalid(format!("unknown gaze format `{s}` (auto, tobii-pro-lab, tobii-studio, pymovements, dataviewer, csv)"))),
        })
    }

    /// The name used in messages.
    pub fn name(&self) -> &'static str {
        match self {
            GazeFormat::Auto => "auto",
            GazeFormat::TobiiProLab => "Tobii Pro Lab export",
            GazeFormat::TobiiStudio => "Tobii Studio export",
            GazeFormat::Pymovements => "pymovements CSV",
            GazeFormat::DataViewer => "EyeLink Data Viewer sample report",
            GazeFormat::Generic => "CSV with --columns",
        }
    }
}

/// A unit of time stamps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeUnit {
    /// Seconds.
    Seconds,
    /// Milliseconds.
    Millis,
    /// Microseconds.
    Micros,
    /// Nanoseconds.
    Nanos,
}

impl TimeUnit {
    /// Parses `s`, `ms`, `us` (or `μs`), `ns`.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "s" => TimeUnit::Seconds,
            "ms" => TimeUnit::Millis,
            "us" | "μs" | "µs" => TimeUnit::Micros,
            "ns" => TimeUnit::Nanos,
            _ => return Err(Error::Invalid(format!("unknown time unit `{s}` (s, ms, us, ns)"))),
        })
    }
    /// Milliseconds per unit.
    pub fn ms(&self) -> f64 {
        match self {
            TimeUnit::Seconds => 1000.0,
            TimeUnit::Millis => 1.0,
            TimeUnit::Micros => 1e-3,
            TimeUnit::Nanos => 1e-6,
        }
    }
    /// The unit's symbol.
    pub fn symbol(&self) -> &'static str {
        match self {
            TimeUnit::Seconds => "s",
            TimeUnit::Millis => "ms",
            TimeUnit::Micros => "us",
            TimeUnit::Nanos => "ns",
        }
    }
}

/// Column names for the generic layout (`--columns time=…,x=…,y=…`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ColumnSpec {
    /// Time column.
    pub time: String,
    /// Left (or only) eye x, y, pupil.
    pub left: Option<(String, String, Option<String>)>,
    /// Right eye x, y, pupil.
    pub right: Option<(String, String, Option<String>)>,
}

impl ColumnSpec {
    /// Parses `time=COL,x=COL,y=COL[,pupil=COL][,x_right=COL,y_right=COL,pupil_right=COL]`
    /// (`x_left`, `y_left`, `pupil_left` are accepted for `x`, `y`, `pupil`).
    ///
    /// ```
    /// let c = serpsim::study::gaze_csv::ColumnSpec::parse("time=t_sec,x=x_pix,y=y_pix").unwrap();
    /// assert_eq!(c.time, "t_sec");
    /// ```
    pub fn parse(spec: &str) -> Result<Self> {
        let mut m = std::collections::BTreeMap::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| Error::Invalid(format!("--columns: `{part}` is not KEY=COLUMN")))?;
            let k = match k.trim() {
                "x_left" => "x",
                "y_left" => "y",
                "pupil_left" => "pupil",
                k @ ("time" | "x" | "y" | "pupil" | "x_right" | "y_right" | "pupil_right") => k,
                other => return Err(Error::Invalid(format!("--columns: unknown key `{other}` (time, x, y, pupil, x_right, y_right, pupil_right)"))),
            };
            if m.insert(k, v.trim().to_string()).is_some() {
                return Err(Error::Invalid(format!("--columns: `{k}` given twice")));
            }
        }
        let time = m.remove("time").ok_or_else(|| Error::Invalid("--columns: `time=COLUMN` is required".into()))?;
        let eye = |m: &mut std::collections::BTreeMap<&str, String>, x: &str, y: &str, p: &str| -> Result<Option<(String, String, Option<String>)>> {
            match (m.remove(x), m.remove(y)) {
                (Some(a), Some(b)) => Ok(Some((a, b, m.remove(p)))),
                (None, None) if !m.contains_key(p) => Ok(None),
                _ => Err(Error::Invalid(format!("--columns: `{x}` and `{y}` come together (and `{p}` needs them)"))),
            }
        };
        let left = eye(&mut m, "x", "y", "pupil")?;
        let right = eye(&mut m, "x_right", "y_right", "pupil_right")?;
        if left.is_none() && right.is_none() {
            return Err(Error::Invalid("--columns: name the gaze columns: x=COLUMN,y=COLUMN".into()));
        }
        Ok(ColumnSpec { time, left, right })
    }
}

/// Options of [`CsvGazeReader`].
#[derive(Debug, Clone)]
pub struct CsvOptions {
    /// The layout (default: tell from the header).
    pub format: GazeFormat,
    /// Columns of the generic layout.
    pub columns: Option<ColumnSpec>,
    /// Unit of the time column (default: inferred, see the module comment).
    pub time_unit: Option<TimeUnit>,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions { format: GazeFormat::Auto, columns: None, time_unit: None }
    }
}

/// One row of samples: time in ms, gaze of each eye present in the layout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GazeRow {
    /// Time (ms).
    pub time: f64,
    /// Left eye (or the export's average gaze point).
    pub left: Option<Gaze>,
    /// Right eye.
    pub right: Option<Gaze>,
}

/// How a validity column marks a lost eye.
#[derive(Debug, Clone, Copy)]
enum Validity {
    /// `Valid` / `Invalid` (Tobii Pro Lab).
    Word(usize),
    /// 0-4, 2 and above lost (Tobii Studio).
    Code(usize),
}

#[derive(Debug, Clone, Copy)]
struct EyeCols {
    x: usize,
    y: usize,
    pupil: Option<usize>,
    validity: Option<Validity>,
}

/// Tobii's own fixation columns.
#[derive(Debug, Clone, Copy)]
struct MovementCols {
    kind: usize,
    index: usize,
    x: Option<usize>,
    y: Option<usize>,
    duration: Option<usize>,
}

/// A streaming reader of gaze rows from a CSV/TSV export.
pub struct CsvGazeReader {
    lines: LineReader,
    name: String,
    delim: u8,
    format: GazeFormat,
    header: Vec<String>,
    time: usize,
    eyes: [Option<EyeCols>; 2],
    sensor: Option<usize>,
    movement: Option<MovementCols>,
    resolution: Option<(usize, usize)>,
    scale: f64,
    pending: VecDeque<(usize, Vec<String>)>,
    fields: Vec<String>,
    last: f64,
    screen: Option<(f64, f64)>,
    notes: Vec<String>,
    skipped_sensor: u64,
    reference: Vec<Fixation>,
    current_fix: Option<(String, f64, f64, f64, f64, f64)>,
}

/// Rows read ahead to infer the time unit.
const INFER_ROWS: usize = 200;

/// A header name without case, blanks, punctuation or a bracketed unit.
pub fn normalise_header(h: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in h.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth = (depth - 1).max(0),
            c if depth == 0 && c.is_alphanumeric() => out.extend(c.to_lowercase()),
            _ => {}
        }
    }
    out
}

/// Splits one line on `delim`, honouring double quotes (RFC 4180, within one line).
fn split_line(line: &str, delim: u8, out: &mut Vec<String>) -> std::result::Result<(), &'static str> {
    out.clear();
    let b = line.as_bytes();
    let mut i = 0;
    loop {
        let mut field = String::new();
        if i < b.len() && b[i] == b'"' {
            i += 1;
            let mut closed = false;
            let mut start = i;
            while i < b.len() {
                if b[i] == b'"' {
                    field.push_str(&line[start..i]);
                    if i + 1 < b.len() && b[i + 1] == b'"' {
                        field.push('"');
                        i += 2;
                        start = i;
                        continue;
                    }
                    i += 1;
                    closed = true;
                    break;
                }
                i += 1;
            }
            if !closed {
                return Err("a quoted field is not closed on its line");
            }
            while i < b.len() && b[i] != delim {
                i += 1;
            }
        } else {
            let start = i;
            while i < b.len() && b[i] != delim {
                i += 1;
            }
            field.push_str(&line[start..i]);
        }
        out.push(field);
        if i >= b.len() {
            return Ok(());
        }
        i += 1;
    }
}

fn unit_hint(name: &str) -> Option<TimeUnit> {
    let l = name.to_lowercase();
    let l = l.trim();
    let has = |s: &[&str]| s.iter().any(|p| l.contains(p));
    let ends = |s: &[&str]| s.iter().any(|p| l.ends_with(p));
    if has(&["[ms]", "(ms)", "millisec"]) || ends(&["_ms", " ms"]) {
        return Some(TimeUnit::Millis);
    }
    if has(&["[μs]", "[µs]", "[us]", "(us)", "(μs)", "(µs)", "microsec"]) || ends(&["_us", "_usec"]) {
        return Some(TimeUnit::Micros);
    }
    if has(&["[ns]", "(ns)", "nanosec"]) || ends(&["_ns"]) {
        return Some(TimeUnit::Nanos);
    }
    if has(&["[s]", "(s)", "seconds"]) || ends(&["_s", "_sec", "_secs"]) {
        return Some(TimeUnit::Seconds);
    }
    None
}

/// The unit whose plausible tracker sampling steps (25-2500 Hz) contain `step`.
fn unit_from_step(step: f64) -> Option<TimeUnit> {
    [TimeUnit::Seconds, TimeUnit::Millis, TimeUnit::Micros, TimeUnit::Nanos].into_iter().find(|u| {
        let ms = step * u.ms();
        (0.4..=40.0).contains(&ms)
    })
}

impl CsvGazeReader {
    /// Opens `path` (through the input layer) and reads its header.
    pub fn open(path: &Path, opts: &CsvOptions) -> Result<Self> {
        Self::from_input(crate::input::open(path)?, opts)
    }

    /// A reader over an opened [`Input`].
    pub fn from_input(input: Input, opts: &CsvOptions) -> Result<Self> {
        let name = input.name().to_string();
        let mut lines = input.lines();
        let header_line = loop {
            match lines.next_line()? {
                None => return Err(Error::parse(&name, 1, "empty file: expected a header line")),
                Some(l) if l.trim().is_empty() => continue,
                Some(l) => break l.to_string(),
            }
        };
        let hl = lines.line_no();
        let delim = if header_line.contains('\t') {
            b'\t'
        } else if header_line.contains(';') && !header_line.contains(',') {
            b';'
        } else {
            b','
        };
        let mut header = Vec::new();
        split_line(&header_line, delim, &mut header).map_err(|r| Error::parse(&name, hl, r))?;
        let header: Vec<String> = header.into_iter().map(|h| h.trim().to_string()).collect();
        let norm: Vec<String> = header.iter().map(|h| normalise_header(h)).collect();
        let find = |k: &str| norm.iter().position(|h| h == k);
        let has = |k: &str| find(k).is_some();
        let format = match (opts.format, &opts.columns) {
            (GazeFormat::Auto | GazeFormat::Generic, Some(_)) => GazeFormat::Generic,
            (GazeFormat::Generic, None) => return Err(Error::Invalid(format!("{name}: the generic layout needs --columns time=COLUMN,x=COLUMN,y=COLUMN"))),
            (f, Some(_)) => return Err(Error::Invalid(format!("{name}: --columns goes with the generic layout, not with --format {}", f.name()))),
            (GazeFormat::Auto, None) => {
                if has("recordingtimestamp") && header.iter().any(|h| h.starts_with("RecordingTimestamp")) {
                    GazeFormat::TobiiStudio
                } else if has("recordingtimestamp") {
                    GazeFormat::TobiiProLab
                } else if has("time") && (has("pixelx") || has("pixelxl") || has("pixelxr")) {
                    GazeFormat::Pymovements
                } else if has("timestamp") && (has("leftgazex") || has("rightgazex")) {
                    GazeFormat::DataViewer
                } else {
                    return Err(Error::parse(
                        &name,
                        hl,
                        format!(
                            "cannot tell the layout from the header ({}); give --columns time=COLUMN,x=COLUMN,y=COLUMN[,pupil=COLUMN] (see docs/study.md)",
                            snippet(&header.join(", "), 200)
                        ),
                    ));
                }
            }
            (f, None) => f,
        };
        let need = |k: &str, what: &str| find(k).ok_or_else(|| Error::parse(&name, hl, format!("{}: missing column {what}", format.name())));
        let named = |col: &str| -> Result<usize> {
            header
                .iter()
                .position(|h| h == col)
                .ok_or_else(|| Error::parse(&name, hl, format!("no column `{col}` (columns: {})", snippet(&header.join(", "), 300))))
        };
        let mut notes = Vec::new();
        let mut eyes: [Option<EyeCols>; 2] = [None, None];
        let mut sensor = None;
        let mut movement = None;
        let mut resolution = None;
        let mut unit: Option<(TimeUnit, String)> = None;
        let time = match format {
            GazeFormat::TobiiProLab | GazeFormat::TobiiStudio => {
                let t = need("recordingtimestamp", "`Recording timestamp`")?;
                let studio = format == GazeFormat::TobiiStudio;
                let validity = |side: &str| find(&format!("validity{side}")).map(|i| if studio { Validity::Code(i) } else { Validity::Word(i) });
                let pupil = |side: &str| find(&format!("pupildiameter{side}")).or_else(|| find(&format!("pupil{side}")));
                if let (Some(x), Some(y)) = (find("gazepointx"), find("gazepointy")) {
                    // The filter's average eye: a sample is lost when both eyes are.
                    eyes[0] = Some(EyeCols { x, y, pupil: pupil("left"), validity: None });
                    notes.push(format!("gaze: the export's average gaze point (`{}`), reported as eye `left`", header[x]));
                } else {
                    for (k, side) in ["left", "right"].iter().enumerate() {
                        if let (Some(x), Some(y)) = (find(&format!("gazepoint{side}x")), find(&format!("gazepoint{side}y"))) {
                            eyes[k] = Some(EyeCols { x, y, pupil: pupil(side), validity: validity(side) });
                        }
                    }
                }
                sensor = find("sensor");
                let kind = find("eyemovementtype").or_else(|| find("gazeeventtype"));
                let index = find("eyemovementtypeindex").or_else(|| find("fixationindex"));
                if let (Some(kind), Some(index)) = (kind, index) {
                    movement = Some(MovementCols { kind, index, x: find("fixationpointx"), y: find("fixationpointy"), duration: find("gazeeventduration") });
                }
                if let (Some(w), Some(h)) = (find("recordingresolutionwidth"), find("recordingresolutionheight")) {
                    resolution = Some((w, h));
                }
                if studio {
                    unit = Some((TimeUnit::Millis, "Tobii Studio's RecordingTimestamp is in ms".into()));
                }
                t
            }
            GazeFormat::Pymovements => {
                let t = need("time", "`time`")?;
                if let (Some(x), Some(y)) = (find("pixelx"), find("pixely")) {
                    eyes[0] = Some(EyeCols { x, y, pupil: find("pupil"), validity: None });
                } else {
                    for (k, s) in ["l", "r"].iter().enumerate() {
                        if let (Some(x), Some(y)) = (find(&format!("pixelx{s}")), find(&format!("pixely{s}"))) {
                            // pymovements writes the pupil list of a binocular file as pupil_x (left), pupil_y (right).
                            let p = find(if k == 0 { "pupilx" } else { "pupily" });
                            eyes[k] = Some(EyeCols { x, y, pupil: p, validity: None });
                        }
                    }
                }
                unit = Some((TimeUnit::Millis, "pymovements writes time in ms".into()));
                t
            }
            GazeFormat::DataViewer => {
                let t = need("timestamp", "`TIMESTAMP`")?;
                for (k, side) in ["left", "right"].iter().enumerate() {
                    if let (Some(x), Some(y)) = (find(&format!("{side}gazex")), find(&format!("{side}gazey"))) {
                        eyes[k] = Some(EyeCols { x, y, pupil: find(&format!("{side}pupilsize")), validity: None });
                    }
                }
                unit = Some((TimeUnit::Millis, "Data Viewer's TIMESTAMP is in ms".into()));
                t
            }
            GazeFormat::Generic | GazeFormat::Auto => {
                let spec = opts.columns.as_ref().ok_or_else(|| Error::Invalid("--columns is required".into()))?;
                for (k, e) in [&spec.left, &spec.right].iter().enumerate() {
                    if let Some((x, y, p)) = e {
                        eyes[k] = Some(EyeCols { x: named(x)?, y: named(y)?, pupil: p.as_deref().map(named).transpose()?, validity: None });
                    }
                }
                named(&spec.time)?
            }
        };
        if eyes.iter().all(Option::is_none) {
            return Err(Error::parse(&name, hl, format!("{}: no gaze columns found (columns: {})", format.name(), snippet(&header.join(", "), 300))));
        }
        if let Some(u) = opts.time_unit {
            unit = Some((u, "given with --time-unit".into()));
        } else if let Some(u) = unit_hint(&header[time]) {
            unit = Some((u, format!("from the column name `{}`", header[time])));
        }
        notes.insert(
            0,
            format!(
                "layout: {} ({} columns, {}-separated)",
                format.name(),
                header.len(),
                match delim {
                    b'\t' => "tab",
                    b';' => "semicolon",
                    _ => "comma",
                }
            ),
        );
        let mut r = CsvGazeReader {
            lines,
            name,
            delim,
            format,
            header,
            time,
            eyes,
            sensor,
            movement,
            resolution,
            scale: 1.0,
            pending: VecDeque::new(),
            fields: Vec::new(),
            last: f64::NEG_INFINITY,
            screen: None,
            notes,
            skipped_sensor: 0,
            reference: Vec::new(),
            current_fix: None,
        };
        match unit {
            Some((u, why)) => {
                r.scale = u.ms();
                r.notes.push(format!("time unit: {} ({why})", u.symbol()));
            }
            None => r.infer_unit()?,
        }
        Ok(r)
    }

    /// Reads the next data row's fields into `self.fields`; `None` at the end. Rows of other
    /// sensors are skipped (and counted).
    fn next_fields(&mut self) -> Result<Option<usize>> {
        if let Some((n, f)) = self.pending.pop_front() {
            self.fields = f;
            return Ok(Some(n));
        }
        loop {
            let n = self.lines.line_no() + 1;
            let Some(line) = self.lines.next_line()? else { return Ok(None) };
            if line.trim().is_empty() {
                continue;
            }
            let mut f = std::mem::take(&mut self.fields);
            split_line(line, self.delim, &mut f).map_err(|r| Error::parse(&self.name, n, r))?;
            self.fields = f;
            if self.fields.len() < self.header.len() {
                // Tobii and spreadsheet exports may drop empty trailing cells.
                let needed = self.needed_columns();
                if self.fields.len() <= needed {
                    return Err(Error::parse(&self.name, n, format!("{} columns, the header has {} (missing columns)", self.fields.len(), self.header.len())));
                }
            }
            if let Some(s) = self.sensor {
                if self.fields.get(s).is_some_and(|v| !v.trim().is_empty() && v.trim() != "Eye Tracker") {
                    self.skipped_sensor += 1;
                    continue;
                }
            }
            return Ok(Some(n));
        }
    }

    fn needed_columns(&self) -> usize {
        let mut m = self.time;
        for e in self.eyes.iter().flatten() {
            m = m.max(e.x).max(e.y).max(e.pupil.unwrap_or(0));
        }
        m
    }

    fn infer_unit(&mut self) -> Result<()> {
        let mut times = Vec::new();
        let mut buffered = VecDeque::new();
        while buffered.len() < INFER_ROWS {
            let Some(n) = self.next_fields()? else { break };
            let t = self.raw_number(self.time, n)?;
            if let Some(t) = t {
                times.push(t);
            }
            buffered.push_back((n, self.fields.clone()));
        }
        self.pending = buffered;
        let mut steps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).filter(|d| *d > 0.0).collect();
        if steps.is_empty() {
            return Err(Error::parse(
                &self.name,
                self.lines.line_no().max(1),
                format!("cannot infer the unit of `{}` from fewer than two increasing time stamps; give --time-unit s|ms|us|ns", self.header[self.time]),
            ));
        }
        steps.sort_by(f64::total_cmp);
        let step = steps[steps.len() / 2];
        let u = unit_from_step(step).ok_or_else(|| {
            Error::Invalid(format!(
                "{}: cannot tell the unit of `{}`: its median step {step} is no plausible sampling interval (25-2500 Hz) in s, ms, us or ns; give --time-unit s|ms|us|ns",
                self.name, self.header[self.time]
            ))
        })?;
        self.scale = u.ms();
        self.notes.push(format!(
            "time unit: {} (inferred: the median step of the first {} rows, {step}, is {:.4} ms, {:.1} Hz; give --time-unit to override)",
            u.symbol(),
            times.len(),
            step * u.ms(),
            1000.0 / (step * u.ms())
        ));
        Ok(())
    }

    fn cell(&self, i: usize) -> &str {
        self.fields.get(i).map_or("", |s| s.trim())
    }

    fn raw_number(&self, i: usize, line: usize) -> Result<Option<f64>> {
        let s = self.cell(i);
        if s.is_empty() || s == "." || s == "-" || s.eq_ignore_ascii_case("nan") {
            return Ok(None);
        }
        let v = if self.delim != b',' && s.contains(',') { s.replace(',', ".").parse::<f64>() } else { s.parse::<f64>() };
        match v {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(Error::parse(&self.name, line, format!("column `{}`: `{}` is not a number", self.header[i], snippet(s, 40)))),
        }
    }

    /// The next row of samples, `None` at the end of the file.
    pub fn next_row(&mut self) -> Result<Option<GazeRow>> {
        let Some(n) = self.next_fields()? else {
            self.close_fixation();
            if self.skipped_sensor > 0 {
                self.notes.push(format!("skipped {} rows of sensors other than `Eye Tracker`", self.skipped_sensor));
                self.skipped_sensor = 0;
            }
            return Ok(None);
        };
        let t =
            self.raw_number(self.time, n)?.ok_or_else(|| Error::parse(&self.name, n, format!("the time stamp (`{}`) is missing", self.header[self.time])))?
                * self.scale;
        if t <= self.last {
            return Err(Error::parse(
                &self.name,
                n,
                format!("time {t} ms does not increase (previous row {} ms): time stamps go backwards or repeat", self.last),
            ));
        }
        self.last = t;
        if self.screen.is_none() {
            if let Some((w, h)) = self.resolution {
                if let (Some(w), Some(h)) = (self.raw_number(w, n)?, self.raw_number(h, n)?) {
                    self.screen = Some((w, h));
                }
            }
        }
        let eye = |k: usize| -> Result<Option<Gaze>> {
            let Some(c) = self.eyes[k] else { return Ok(None) };
            let lost = match c.validity {
                Some(Validity::Word(i)) => self.cell(i).eq_ignore_ascii_case("invalid"),
                Some(Validity::Code(i)) => self.raw_number(i, n)?.is_some_and(|v| v >= 2.0),
                None => false,
            };
            let x = self.raw_number(c.x, n)?.unwrap_or(f64::NAN);
            let y = self.raw_number(c.y, n)?.unwrap_or(f64::NAN);
            let p = match c.pupil {
                Some(i) => self.raw_number(i, n)?.unwrap_or(f64::NAN),
                None => f64::NAN,
            };
            Ok(Some(if lost { Gaze { x: f32::NAN, y: f32::NAN, pupil: f32::NAN } } else { Gaze { x: x as f32, y: y as f32, pupil: p as f32 } }))
        };
        let row = GazeRow { time: t, left: eye(0)?, right: eye(1)? };
        if let Some(m) = self.movement {
            let is_fix = self.cell(m.kind) == "Fixation";
            let index = self.cell(m.index).to_string();
            match &mut self.current_fix {
                Some(f) if is_fix && f.0 == index => f.2 = t,
                _ => {
                    self.close_fixation();
                    if is_fix {
                        let num = |o: Option<usize>| -> Result<f64> {
                            Ok(match o {
                                Some(i) => self.raw_number(i, n)?.unwrap_or(f64::NAN),
                                None => f64::NAN,
                            })
                        };
                        let (x, y, d) = (num(m.x)?, num(m.y)?, num(m.duration)?);
                        self.current_fix = Some((index, t, t, x, y, d));
                    }
                }
            }
        }
        Ok(Some(row))
    }

    fn close_fixation(&mut self) {
        if let Some((_, s, e, x, y, d)) = self.current_fix.take() {
            let duration = if d.is_finite() { d } else { e - s };
            self.reference.push(Fixation { eye: Eye::Left, start: s, end: e, duration, x, y, pupil: f64::NAN });
        }
    }

    /// What was inferred or skipped (layout, time unit, eyes), for the user to see.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The layout read.
    pub fn format(&self) -> GazeFormat {
        self.format
    }

    /// The input's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Screen size in pixels from the export (Tobii Pro Lab's recording resolution).
    pub fn screen_px(&self) -> Option<(f64, f64)> {
        self.screen
    }

    /// Which eyes the layout has: `[left (or average), right]`.
    pub fn eyes(&self) -> [bool; 2] {
        [self.eyes[0].is_some(), self.eyes[1].is_some()]
    }

    /// Whether the export carries the tracker's own fixations (Tobii's `Eye movement type`).
    pub fn has_reference(&self) -> bool {
        self.movement.is_some()
    }

    /// The tracker's own fixations read so far (complete after the last row).
    pub fn take_reference(&mut self) -> Vec<Fixation> {
        std::mem::take(&mut self.reference)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, opts: &CsvOptions) -> Result<(Vec<GazeRow>, CsvGazeReader)> {
        let mut r = CsvGazeReader::from_input(Input::from_bytes("g.csv", text.as_bytes().to_vec())?, opts)?;
        let mut rows = Vec::new();
        while let Some(x) = r.next_row()? {
            rows.push(x);
        }
        Ok((rows, r))
    }

    #[test]
    fn headers_normalise_across_tobii_versions() {
        assert_eq!(normalise_header("Gaze point X [DACS px]"), "gazepointx");
        assert_eq!(normalise_header("GazePointX (ADCSpx)"), "gazepointx");
        assert_eq!(normalise_header("LEFT_GAZE_X"), "leftgazex");
        assert_eq!(normalise_header("Recording timestamp [μs]"), "recordingtimestamp");
    }

    #[test]
    fn quoted_fields_split() {
        let mut v = Vec::new();
        split_line(r#"a,"b,c","d""e",,f"#, b',', &mut v).unwrap();
        assert_eq!(v, vec!["a", "b,c", "d\"e", "", "f"]);
        assert!(split_line(r#"a,"b"#, b',', &mut v).is_err());
    }

    /// Hand-made Tobii Pro Lab rows: microseconds (from the column name), a gyroscope row,
    /// an invalid left eye, decimal commas, two fixations of Tobii's own filter.
    #[test]
    fn tobii_pro_lab_rows() {
        let text = "Recording timestamp [μs]\tSensor\tGaze point X\tGaze point Y\tPupil diameter left\tRecording resolution width\tRecording resolution height\tEye movement type\tEye movement type index\tGaze event duration\tFixation point X\tFixation point Y\n\
1000\tEye Tracker\t100,5\t200\t3,1\t1920\t1080\tFixation\t1\t50\t101\t201\n\
5000\tGyroscope\t\t\t\t\t\t\t\t\t\t\n\
17667\tEye Tracker\t101\t201\t3,2\t1920\t1080\tFixation\t1\t50\t101\t201\n\
34333\tEye Tracker\t\t\t\t1920\t1080\tSaccade\t1\t30\t\t\n\
51000\tEye Tracker\t300\t300\t3\t1920\t1080\tFixation\t2\t40\t300\t300\n";
        let (rows, mut r) = read(text, &CsvOptions::default()).unwrap();
        assert_eq!(r.format(), GazeFormat::TobiiProLab);
        assert_eq!(rows.len(), 4);
        assert_eq!((rows[0].time, rows[0].left.unwrap().x, rows[0].left.unwrap().pupil), (1.0, 100.5, 3.1));
        assert!(rows[2].left.unwrap().x.is_nan() && rows[0].right.is_none());
        assert_eq!(r.screen_px(), Some((1920.0, 1080.0)));
        let f = r.take_reference();
        assert_eq!(f.iter().map(|f| (f.start, f.end, f.duration, f.x)).collect::<Vec<_>>(), vec![(1.0, 17.667, 50.0, 101.0), (51.0, 51.0, 40.0, 300.0)]);
        assert!(r.notes().iter().any(|n| n.contains("time unit: us (from the column name")), "{:?}", r.notes());
        assert!(r.notes().iter().any(|n| n.contains("skipped 1 rows")), "{:?}", r.notes());
    }

    #[test]
    fn tobii_studio_validity_codes() {
        let text = "RecordingTimestamp\tGazePointLeftX (ADCSpx)\tGazePointLeftY (ADCSpx)\tValidityLeft\tGazePointRightX (ADCSpx)\tGazePointRightY (ADCSpx)\tValidityRight\n\
10\t1\t2\t0\t3\t4\t4\n27\t1\t2\t1\t3\t4\t2\n";
        let (rows, r) = read(text, &CsvOptions::default()).unwrap();
        assert_eq!(r.format(), GazeFormat::TobiiStudio);
        assert_eq!(rows[1].left.unwrap().x, 1.0);
        assert!(rows[0].right.unwrap().x.is_nan() && rows[1].right.unwrap().x.is_nan());
        assert!(r.notes().iter().any(|n| n.contains("Tobii Studio's RecordingTimestamp is in ms")));
    }

    #[test]
    fn generic_columns_infer_the_unit_and_refuse_ambiguity() {
        let opts = CsvOptions { columns: Some(ColumnSpec::parse("time=t,x=gx,y=gy").unwrap()), ..Default::default() };
        // Steps of 1/60 s: seconds.
        let text: String = std::iter::once("t,gx,gy\n".to_string()).chain((0..10).map(|k| format!("{},{},5\n", k as f64 / 60.0, k))).collect();
        let (rows, r) = read(&text, &opts).unwrap();
        assert!((rows[1].time - 1000.0 / 60.0).abs() < 1e-9);
        assert!(r.notes().iter().any(|n| n.contains("time unit: s (inferred") && n.contains("60.0 Hz")), "{:?}", r.notes());
        // Steps of 0.2: 200 ms in seconds (5 Hz) or 0.2 ms (5000 Hz): neither plausible.
        let text = "t,gx,gy\n0,1,1\n0.2,1,1\n0.4,1,1\n";
        let err = read(text, &opts).err().unwrap().to_string();
        assert!(err.contains("--time-unit"), "{err}");
        let opts2 = CsvOptions { time_unit: Some(TimeUnit::Millis), ..opts.clone() };
        assert_eq!(read(text, &opts2).unwrap().0[2].time, 0.4);
        // Unknown column, unknown key, missing y.
        assert!(read("t,a,b\n1,2,3\n", &opts).err().unwrap().to_string().contains("no column `gx`"));
        assert!(ColumnSpec::parse("time=t,x=a,z=b").unwrap_err().to_string().contains("unknown key `z`"));
        assert!(ColumnSpec::parse("time=t,x=a").unwrap_err().to_string().contains("come together"));
    }

    #[test]
    fn malformed_rows_name_file_and_line() {
        let opts = CsvOptions { columns: Some(ColumnSpec::parse("time=t,x=x,y=y").unwrap()), time_unit: Some(TimeUnit::Millis), ..Default::default() };
        let err = read("t,x,y\n1,2,3\n2,abc,3\n", &opts).err().unwrap().to_string();
        assert_eq!(err, "g.csv:3: column `x`: `abc` is not a number");
        let err = read("t,x,y\n1,2,3\n1,2,3\n", &opts).err().unwrap().to_string();
        assert!(err.starts_with("g.csv:3:") && err.contains("does not increase"), "{err}");
        let err = read("t,x,y\n1,2,3\n2,2\n", &opts).err().unwrap().to_string();
        assert!(err.starts_with("g.csv:3:") && err.contains("missing columns"), "{err}");
        let err = read("a,b\n1,2\n", &CsvOptions::default()).err().unwrap().to_string();
        assert!(err.starts_with("g.csv:1: cannot tell the layout") && err.contains("--columns"), "{err}");
        let err = read("t,x,y\n\"1,2,3\n", &opts).err().unwrap().to_string();
        assert!(err.starts_with("g.csv:2:") && err.contains("quoted"), "{err}");
    }

    #[test]
    fn data_viewer_dots_are_missing() {
        let text = "RECORDING_SESSION_LABEL,TIMESTAMP,LEFT_GAZE_X,LEFT_GAZE_Y,LEFT_PUPIL_SIZE\ns1,100,.,.,.\ns1,101,512.3,384.0,1022\n";
        let (rows, r) = read(text, &CsvOptions::default()).unwrap();
        assert_eq!(r.format(), GazeFormat::DataViewer);
        assert!(rows[0].left.unwrap().x.is_nan() && rows[0].left.unwrap().pupil.is_nan());
        assert_eq!(rows[1].left.unwrap().x, 512.3);
    }
}
