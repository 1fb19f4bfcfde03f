//! EyeLink ASC files (the text form `edf2asc` writes from an EDF recording).
//!
//! A streaming parser over any [`BufRead`]: one reused line buffer, byte-level splitting on
//! blanks and tabs, no regular expressions, no allocation per sample line. Three ways in:
//!
//! - [`AscReader::next_record`]: one [`Record`] at a time (samples, events, messages);
//! - [`summarize`]: the counts `serpsim study summary` prints, without keeping samples;
//! - [`read_recording`] / [`Recording::from_file`]: everything in memory, samples per eye.
//!
//! What is read (see `docs/study.md` for the full format):
//!
//! | line | meaning |
//! |---|---|
//! | `2154556  138.1  132.8  778.0  ...` | a sample: time, then x, y, pupil per recorded eye (`.` = missing) |
//! | `SFIX L 2154563` / `EFIX L s e dur x y pupil` | fixation start / end (EFIX carries the whole event) |
//! | `SSACC` / `ESACC L s e dur sx sy ex ey ampl pv` | saccade |
//! | `SBLINK` / `EBLINK L s e dur` | blink |
//! | `MSG time text` | message (trial and page markers, `DISPLAY_COORDS`, ...) |
//! | `START`, `END`, `SAMPLES`, `EVENTS` | recording blocks and the sample layout (eyes, `VEL`, `RES`, rate) |
//!
//! Header lines (`**`), calibration blocks, `INPUT`, `BUTTON`, `PRESCALER` and the like are
//! skipped. Errors carry `file:line`: sample or event lines with missing columns, a file that
//! ends in the middle of a line, non-numeric values, and sample time stamps that go
//! backwards or repeat. One repeat is the format, not an error: at 2000 Hz, edf2asc without
//! `-ftime` writes whole milliseconds, so each millisecond appears twice; the second sample
//! of the pair is read as 0.5 ms later (a third is refused). Message time stamps are not checked for order: edf2asc writes
//! messages as they were logged, and real files (the pymovements examples) contain messages
//! stamped earlier than the sample before them.

use super::{Blink, Eye, Fixation, Message, Saccade, Sample};
use crate::error::{Error, Result};
use crate::input::{Compression, Input};
use serde::Serialize;
use std::io::{BufRead, Read};
use std::path::Path;

/// One gaze position of one eye in a sample line (NaN = missing).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gaze {
    /// Horizontal position (px).
    pub x: f32,
    /// Vertical position (px).
    pub y: f32,
    /// Pupil size.
    pub pupil: f32,
}

/// One parsed line of an ASC file.
#[derive(Debug, Clone, PartialEq)]
pub enum Record<'a> {
    /// A sample line. For a monocular recording only the recorded eye is `Some`.
    Sample {
        /// Time (ms).
        time: f64,
        /// Left eye.
        left: Option<Gaze>,
        /// Right eye.
        right: Option<Gaze>,
    },
    /// `EFIX`.
    Fixation(Fixation),
    /// `ESACC`.
    Saccade(Saccade),
    /// `EBLINK`.
    Blink(Blink),
    /// `SFIX`, `SSACC` or `SBLINK`: the start of an event (kind, eye, time).
    EventStart(EventKind, Eye, f64),
    /// `MSG`.
    Message {
        /// Time stamp (ms).
        time: f64,
        /// Text after the time stamp.
        text: &'a str,
    },
    /// `START`: a recording block begins.
    Start {
        /// Time (ms).
        time: f64,
    },
    /// `END`: a recording block ends.
    End {
        /// Time (ms).
        time: f64,
    },
    /// Anything else (header, calibration, `INPUT`, layout lines, blank lines).
    Other,
}

/// Event kinds with start lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// Fixation.
    Fixation,
    /// Saccade.
    Saccade,
    /// Blink.
    Blink,
}

/// Column layout of sample lines, from the `SAMPLES` (or `START`) line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SampleLayout {
    /// Left eye recorded.
    pub left: bool,
    /// Right eye recorded.
    pub right: bool,
    /// Velocity columns (`VEL`): two per eye.
    pub velocity: bool,
    /// Resolution columns (`RES`): two.
    pub resolution: bool,
}

impl SampleLayout {
    fn eyes(&self) -> usize {
        usize::from(self.left) + usize::from(self.right)
    }

    /// Numeric columns a sample line must have, time included.
    pub fn required_columns(&self) -> usize {
        let e = self.eyes().max(1);
        1 + 3 * e + if self.velocity { 2 * e } else { 0 } + if self.resolution { 2 } else { 0 }
    }
}

/// Streaming ASC reader.
pub struct AscReader<R> {
    reader: R,
    buf: Vec<u8>,
    file: String,
    line: usize,
    layout: Option<SampleLayout>,
    /// Time of the previous sample as written in the file.
    last_written: f64,
    /// Time assigned to the previous sample (written + 0.5 for the second sample of a
    /// whole millisecond at 2000 Hz).
    last_sample: f64,
    rate: Option<f64>,
    compression: Compression,
    display: Option<(DisplayCoords, usize, bool)>,
    recognised: bool,
}

/// Longest ASC line accepted (1 MiB): edf2asc lines are under 200 bytes; a longer one means
/// a binary or wrong file, and reading it whole would cost its size in memory.
const MAX_LINE: usize = 1 << 20;

/// Upper bound on whitespace-separated fields looked at in one line.
const MAX_FIELDS: usize = 24;

impl AscReader<Box<dyn BufRead + Send>> {
    /// Opens `path` through the input layer (`-` is standard input; gzip and zstd are
    /// decompressed, detected by their magic bytes).
    pub fn open(path: &Path) -> Result<Self> {
        Ok(Self::from_input(crate::input::open(path)?))
    }

    /// A reader over an opened [`Input`].
    pub fn from_input(input: Input) -> Self {
        let name = input.name().to_string();
        let compression = input.compression();
        let mut r = AscReader::new(input.into_reader(), name);
        r.compression = compression;
        r
    }
}

impl<R: BufRead> AscReader<R> {
    /// A reader over `reader`; `file` names the input in errors.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        AscReader {
            reader,
            buf: Vec::with_capacity(256),
            file: file.into(),
            line: 0,
            layout: None,
            last_written: f64::NEG_INFINITY,
            last_sample: f64::NEG_INFINITY,
            rate: None,
            compression: Compression::None,
            display: None,
            recognised: false,
        }
    }

    /// The display coordinates (`DISPLAY_COORDS`, or `GAZE_COORDS` when there is no
    /// `DISPLAY_COORDS`) seen so far, with the line they are on.
    pub fn display(&self) -> Option<(DisplayCoords, usize)> {
        self.display.map(|(d, l, _)| (d, l))
    }

    /// The input's name in messages.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// An error unless at least one ASC record (sample, event, message, START/END) was read:
    /// a file of other text is refused, by every command alike.
    pub fn check_recognised(&self) -> Result<()> {
        if self.recognised {
            Ok(())
        } else {
            Err(Error::parse(&self.file, 1, "no EyeLink ASC records (samples, events, messages, START/END) found; is this an edf2asc file?"))
        }
    }

    /// 1-based number of the line last returned.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The sample layout declared so far (`None` before the first `SAMPLES`/`START` line).
    pub fn layout(&self) -> Option<SampleLayout> {
        self.layout
    }

    /// Sampling rate from the `SAMPLES` line, when seen.
    pub fn rate(&self) -> Option<f64> {
        self.rate
    }

    fn err(&self, reason: impl Into<String>) -> Error {
        Error::parse(&self.file, self.line, reason)
    }

    /// Reads the next line; `Ok(None)` at the end of the file.
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>> {
        self.buf.clear();
        let n = (&mut self.reader).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut self.buf).map_err(|e| {
            let what = match self.compression {
                Compression::None => "read error",
                Compression::Gzip => "corrupt or truncated gzip data",
                Compression::Zstd => "corrupt or truncated zstd data",
            };
            Error::parse(&self.file, self.line + 1, format!("{what}: {e}"))
        })?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        let complete = self.buf.last() == Some(&b'\n');
        if !complete && self.buf.len() > MAX_LINE {
            return Err(self.err(format!("line longer than {MAX_LINE} bytes: not an EyeLink ASC file?")));
        }
        let start = if self.line == 1 && self.buf.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
        if start > 0 {
            self.buf.drain(..start);
        }
        let mut end = self.buf.len();
        while end > 0 && matches!(self.buf[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        let mut fields: [(u32, u32); MAX_FIELDS] = [(0, 0); MAX_FIELDS];
        let nf = split_fields(&self.buf[..end], &mut fields);
        if !complete {
            // edf2asc ends every line, the last one included, with a newline.
            let more = if nf > 0 { format!(" (last line `{}`)", String::from_utf8_lossy(&self.buf[..end.min(60)])) } else { String::new() };
            return Err(self.err(format!("the file ends in the middle of a line: truncated?{more}")));
        }
        if nf == 0 {
            return Ok(Some(Record::Other));
        }
        let line = &self.buf[..end];
        let f = |i: usize| &line[fields[i].0 as usize..fields[i].1 as usize];
        let first = f(0);
        let truncated =
            |what: &str, have: usize, need: usize| -> String { format!("{what} line has {have} columns, expected at least {need} (missing columns)") };
        if line[0].is_ascii_digit() {
            // Sample line (starts with a digit in column 1; calibration lines are indented).
            let layout = match self.layout {
                Some(l) => l,
                None => {
                    // No SAMPLES line yet: infer binocular from the column count.
                    let l = if nf >= 8 {
                        SampleLayout { left: true, right: true, ..Default::default() }
                    } else {
                        SampleLayout { left: true, ..Default::default() }
                    };
                    self.layout = Some(l);
                    l
                }
            };
            let need = layout.required_columns();
            if nf < need {
                return Err(self.err(truncated("sample", nf, need)));
            }
            let written = parse_f64(first).ok_or_else(|| self.err(format!("sample time `{}` is not a number", lossy(first))))?;
            if written < self.last_written {
                return Err(self.err(format!("sample time {written} goes backwards (previous sample at {})", self.last_written)));
            }
            let mut time = written;
            if written == self.last_written {
                // edf2asc without -ftime writes a 2000 Hz recording in whole milliseconds, so
                // each millisecond holds two samples: the second is 0.5 ms later.
                let whole_ms_2khz = self.rate == Some(2000.0) && written.fract() == 0.0;
                if !whole_ms_2khz {
                    return Err(self.err(format!("sample time {written} repeats the previous sample's")));
                }
                if self.last_sample != written {
                    return Err(self.err(format!("sample time {written} appears a third time (at 2000 Hz a whole millisecond holds two samples)")));
                }
                time = written + 0.5;
            } else if written <= self.last_sample {
                // A fractional stamp right after a repeated whole millisecond (mixed layouts).
                return Err(
                    self.err(format!("sample time {written} is not after the previous sample's ({}, the second sample of its millisecond)", self.last_sample))
                );
            }
            self.last_written = written;
            self.last_sample = time;
            let gaze = |k: usize| -> Result<Gaze> {
                let v = |i: usize| -> Result<f32> {
                    parse_value(f(i))
                        .map(|v| v as f32)
                        .ok_or_else(|| Error::parse(&self.file, self.line, format!("sample column {} `{}` is not a number", i + 1, lossy(f(i)))))
                };
                Ok(Gaze { x: v(k)?, y: v(k + 1)?, pupil: v(k + 2)? })
            };
            let (left, right) = match (layout.left, layout.right) {
                (true, true) => (Some(gaze(1)?), Some(gaze(4)?)),
                (false, true) => (None, Some(gaze(1)?)),
                _ => (Some(gaze(1)?), None),
            };
            self.recognised = true;
            return Ok(Some(Record::Sample { time, left, right }));
        }
        let rec = match first {
            b"MSG" => {
                if nf < 2 {
                    return Err(self.err(truncated("MSG", nf, 2)));
                }
                let time = parse_f64(f(1)).ok_or_else(|| self.err(format!("message time `{}` is not a number", lossy(f(1)))))?;
                let text_start = if nf > 2 { fields[2].0 as usize } else { end };
                let text = std::str::from_utf8(&line[text_start..end]).map_err(|e| {
                    Error::parse(&self.file, self.line, format!("invalid UTF-8 in a message (byte {} of the line)", text_start + e.valid_up_to() + 1))
                })?;
                let kind = text.split_ascii_whitespace().next().unwrap_or("");
                if kind == "DISPLAY_COORDS" || kind == "GAZE_COORDS" {
                    let d = parse_display(text).map_err(|r| Error::parse(&self.file, self.line, format!("{kind}: {r}")))?;
                    let is_display = kind == "DISPLAY_COORDS";
                    if is_display || self.display.is_none_or(|x| !x.2) {
                        self.display = Some((d, self.line, is_display));
                    }
                }
                Record::Message { time, text }
            }
            b"EFIX" => {
                if nf < 8 {
                    return Err(self.err(truncated("EFIX", nf, 8)));
                }
                let eye = self.eye(f(1))?;
                let n = self.numbers::<6>(line, &fields[2..8])?;
                self.check_span("EFIX", n[0], n[1])?;
                Record::Fixation(Fixation { eye, start: n[0], end: n[1], duration: n[2], x: n[3], y: n[4], pupil: n[5] })
            }
            b"ESACC" => {
                if nf < 11 {
                    return Err(self.err(truncated("ESACC", nf, 11)));
                }
                let eye = self.eye(f(1))?;
                let n = self.numbers::<9>(line, &fields[2..11])?;
                self.check_span("ESACC", n[0], n[1])?;
                Record::Saccade(Saccade {
                    eye,
                    start: n[0],
                    end: n[1],
                    duration: n[2],
                    start_x: n[3],
                    start_y: n[4],
                    end_x: n[5],
                    end_y: n[6],
                    amplitude: n[7],
                    peak_velocity: n[8],
                })
            }
            b"EBLINK" => {
                if nf < 5 {
                    return Err(self.err(truncated("EBLINK", nf, 5)));
                }
                let eye = self.eye(f(1))?;
                let n = self.numbers::<3>(line, &fields[2..5])?;
                self.check_span("EBLINK", n[0], n[1])?;
                Record::Blink(Blink { eye, start: n[0], end: n[1], duration: n[2] })
            }
            b"SFIX" | b"SSACC" | b"SBLINK" => {
                if nf < 3 {
                    return Err(self.err(truncated(&lossy(first), nf, 3)));
                }
                let kind = match first {
                    b"SFIX" => EventKind::Fixation,
                    b"SSACC" => EventKind::Saccade,
                    _ => EventKind::Blink,
                };
                let eye = self.eye(f(1))?;
                let t = parse_f64(f(2)).ok_or_else(|| self.err(format!("event time `{}` is not a number", lossy(f(2)))))?;
                Record::EventStart(kind, eye, t)
            }
            b"START" | b"SAMPLES" => {
                let mut layout = SampleLayout::default();
                for i in 1..nf {
                    match f(i) {
                        b"LEFT" => layout.left = true,
                        b"RIGHT" => layout.right = true,
                        b"VEL" => layout.velocity = true,
                        b"RES" => layout.resolution = true,
                        b"RATE" if i + 1 < nf => self.rate = parse_f64(f(i + 1)),
                        _ => {}
                    }
                }
                if first == b"START" {
                    if nf < 2 {
                        return Err(self.err(truncated("START", nf, 2)));
                    }
                    let time = parse_f64(f(1)).ok_or_else(|| self.err(format!("START time `{}` is not a number", lossy(f(1)))))?;
                    if layout.eyes() > 0 {
                        self.layout = Some(SampleLayout { velocity: false, resolution: false, ..layout });
                    }
                    Record::Start { time }
                } else {
                    if layout.eyes() > 0 {
                        self.layout = Some(layout);
                    }
                    Record::Other
                }
            }
            b"END" => {
                if nf < 2 {
                    return Err(self.err(truncated("END", nf, 2)));
                }
                let time = parse_f64(f(1)).ok_or_else(|| self.err(format!("END time `{}` is not a number", lossy(f(1)))))?;
                Record::End { time }
            }
            _ => Record::Other,
        };
        self.recognised |= !matches!(rec, Record::Other);
        Ok(Some(rec))
    }

    fn eye(&self, b: &[u8]) -> Result<Eye> {
        match b {
            b"L" => Ok(Eye::Left),
            b"R" => Ok(Eye::Right),
            _ => Err(self.err(format!("eye `{}` is neither L nor R", lossy(b)))),
        }
    }

    fn numbers<const N: usize>(&self, line: &[u8], fields: &[(u32, u32)]) -> Result<[f64; N]> {
        let mut out = [f64::NAN; N];
        for (k, &(a, b)) in fields.iter().enumerate().take(N) {
            let s = &line[a as usize..b as usize];
            out[k] = parse_value(s).ok_or_else(|| self.err(format!("event column `{}` is not a number", lossy(s))))?;
        }
        Ok(out)
    }

    fn check_span(&self, what: &str, start: f64, end: f64) -> Result<()> {
        if !(start.is_finite() && end.is_finite()) {
            return Err(self.err(format!("{what} start and end times must be present")));
        }
        if end < start {
            return Err(self.err(format!("{what} ends at {end}, before it starts at {start} (time goes backwards)")));
        }
        Ok(())
    }
}

/// `DISPLAY_COORDS left top right bottom` (or `GAZE_COORDS`): four numbers, right > left,
/// bottom > top.
fn parse_display(text: &str) -> std::result::Result<DisplayCoords, String> {
    let v: Vec<&str> = text.split_ascii_whitespace().skip(1).take(4).collect();
    if v.len() < 4 {
        return Err(format!("expected four numbers `left top right bottom`, found {}", v.len()));
    }
    let mut n = [0.0; 4];
    for (k, s) in v.iter().enumerate() {
        n[k] = s.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| format!("`{}` is not a number", crate::input::snippet(s, 40)))?;
    }
    let d = DisplayCoords { left: n[0], top: n[1], right: n[2], bottom: n[3] };
    if !(d.width() > 1.0 && d.height() > 1.0 && d.width() < 1e6 && d.height() < 1e6) {
        return Err(format!("a screen of {} x {} pixels is not a display (expected right > left and bottom > top)", d.width(), d.height()));
    }
    Ok(d)
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Splits on runs of blanks and tabs; returns the number of fields (at most `MAX_FIELDS`,
/// the last one running to the end of the line when there are more).
#[inline]
fn split_fields(line: &[u8], out: &mut [(u32, u32); MAX_FIELDS]) -> usize {
    let mut n = 0;
    let mut i = 0;
    let len = line.len();
    while i < len && n < MAX_FIELDS {
        while i < len && (line[i] == b' ' || line[i] == b'\t') {
            i += 1;
        }
        if i >= len {
            break;
        }
        let start = i;
        while i < len && line[i] != b' ' && line[i] != b'\t' {
            i += 1;
        }
        out[n] = (start as u32, i as u32);
        n += 1;
    }
    n
}

/// A numeric column: a number, or `.` (missing) as NaN. `None` when malformed.
#[inline]
pub fn parse_value(s: &[u8]) -> Option<f64> {
    if s == b"." {
        return Some(f64::NAN);
    }
    parse_f64(s)
}

/// Fast decimal parser for `-?digits(.digits)?`; falls back to the standard library for
/// anything else (exponents). `None` when not a number.
#[inline]
pub fn parse_f64(s: &[u8]) -> Option<f64> {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || digits.len() > 17 {
        return slow_parse(s);
    }
    let mut int: u64 = 0;
    let mut frac_digits = 0u32;
    let mut seen_dot = false;
    let mut any = false;
    for &c in digits {
        match c {
            b'0'..=b'9' => {
                int = int * 10 + u64::from(c - b'0');
                any = true;
                if seen_dot {
                    frac_digits += 1;
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            _ => return slow_parse(s),
        }
    }
    if !any {
        return None;
    }
    const POW10: [f64; 18] = [1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17];
    let v = int as f64 / POW10[frac_digits as usize];
    Some(if neg { -v } else { v })
}

#[cold]
fn slow_parse(s: &[u8]) -> Option<f64> {
    let v: f64 = std::str::from_utf8(s).ok()?.parse().ok()?;
    v.is_finite().then_some(v)
}

/// Counts of one eye's events.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct EyeCounts {
    /// Sample lines that carry this eye.
    pub samples: u64,
    /// `EFIX` lines.
    pub fixations: u64,
    /// `ESACC` lines.
    pub saccades: u64,
    /// `EBLINK` lines.
    pub blinks: u64,
}

/// What `serpsim study summary` prints: counts as recorded in the file.
/// Events count their end lines (`EFIX`, `ESACC`, `EBLINK`), which carry the whole event;
/// a start line without an end (recording stopped mid-event) is not counted.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AscSummary {
    /// Sample lines.
    pub samples: u64,
    /// `EFIX` lines, both eyes.
    pub fixations: u64,
    /// `ESACC` lines, both eyes.
    pub saccades: u64,
    /// `EBLINK` lines, both eyes.
    pub blinks: u64,
    /// `MSG` lines.
    pub messages: u64,
    /// Per-eye counts, for a binocular file only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left: Option<EyeCounts>,
    /// Per-eye counts, for a binocular file only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub right: Option<EyeCounts>,
}

/// Counts samples, events and messages in one pass without keeping them.
pub fn summarize<R: BufRead>(reader: R, file: &str) -> Result<AscSummary> {
    summarize_records(AscReader::new(reader, file))
}

/// [`summarize`] over an opened reader.
pub fn summarize_records<R: BufRead>(mut r: AscReader<R>) -> Result<AscSummary> {
    let mut s = AscSummary::default();
    let (mut left, mut right) = (EyeCounts::default(), EyeCounts::default());
    let mut binocular = false;
    fn pick<'a>(eye: Eye, l: &'a mut EyeCounts, r: &'a mut EyeCounts) -> &'a mut EyeCounts {
        match eye {
            Eye::Left => l,
            Eye::Right => r,
        }
    }
    while let Some(rec) = r.next_record()? {
        match rec {
            Record::Sample { left: l, right: rr, .. } => {
                s.samples += 1;
                left.samples += u64::from(l.is_some());
                right.samples += u64::from(rr.is_some());
                binocular |= l.is_some() && rr.is_some();
            }
            Record::Fixation(f) => pick(f.eye, &mut left, &mut right).fixations += 1,
            Record::Saccade(x) => pick(x.eye, &mut left, &mut right).saccades += 1,
            Record::Blink(b) => pick(b.eye, &mut left, &mut right).blinks += 1,
            Record::Message { .. } => s.messages += 1,
            _ => {}
        }
    }
    r.check_recognised()?;
    if let Some(l) = r.layout() {
        binocular |= l.left && l.right;
    }
    add_event_counts(&mut s, left, right, binocular);
    Ok(s)
}

/// Totals the per-eye event counts into `s`; a binocular file keeps them per eye too.
fn add_event_counts(s: &mut AscSummary, left: EyeCounts, right: EyeCounts, binocular: bool) {
    s.fixations = left.fixations + right.fixations;
    s.saccades = left.saccades + right.saccades;
    s.blinks = left.blinks + right.blinks;
    if binocular {
        s.left = Some(left);
        s.right = Some(right);
    }
}

/// Display coordinates from `DISPLAY_COORDS left top right bottom` (pixels, inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DisplayCoords {
    /// Left edge.
    pub left: f64,
    /// Top edge.
    pub top: f64,
    /// Right edge (inclusive).
    pub right: f64,
    /// Bottom edge (inclusive).
    pub bottom: f64,
}

impl DisplayCoords {
    /// Width in pixels.
    pub fn width(&self) -> f64 {
        self.right - self.left + 1.0
    }
    /// Height in pixels.
    pub fn height(&self) -> f64 {
        self.bottom - self.top + 1.0
    }
}

/// A whole ASC file in memory.
#[derive(Debug, Clone, Default)]
pub struct Recording {
    /// Left-eye samples in time order (empty when the left eye was not recorded).
    pub left: Vec<Sample>,
    /// Right-eye samples in time order.
    pub right: Vec<Sample>,
    /// Tracker fixations (EFIX), in file order.
    pub fixations: Vec<Fixation>,
    /// Tracker saccades (ESACC).
    pub saccades: Vec<Saccade>,
    /// Tracker blinks (EBLINK).
    pub blinks: Vec<Blink>,
    /// Messages in file order.
    pub messages: Vec<Message>,
    /// Recording blocks `(START time, END time)`; END is NaN when the file has none.
    pub blocks: Vec<(f64, f64)>,
    /// Sampling rate (Hz) from the `SAMPLES` line.
    pub rate: Option<f64>,
    /// `DISPLAY_COORDS` (or `GAZE_COORDS`) message, when present.
    pub display: Option<DisplayCoords>,
    /// The line of that message.
    pub display_line: Option<usize>,
    /// The counts of [`summarize`].
    pub summary: AscSummary,
    /// Non-fatal oddities (a block without END, messages out of time order), with lines.
    pub warnings: Vec<String>,
}

impl Recording {
    /// Reads an ASC file (through the input layer: `-`, gzip, zstd).
    pub fn from_file(path: &Path) -> Result<Self> {
        read_records(AscReader::open(path)?)
    }

    /// Samples of `eye`, or of the recorded eye when `eye` is `None` (left first).
    pub fn samples(&self, eye: Option<Eye>) -> &[Sample] {
        match eye {
            Some(Eye::Left) => &self.left,
            Some(Eye::Right) => &self.right,
            None if !self.left.is_empty() => &self.left,
            None => &self.right,
        }
    }

    /// Sample interval in ms: from the rate, else the median time step.
    pub fn sample_interval(&self) -> f64 {
        if let Some(r) = self.rate.filter(|r| *r > 0.0) {
            return 1000.0 / r;
        }
        let s = self.samples(None);
        let mut d: Vec<f64> = s.windows(2).map(|w| w[1].time - w[0].time).collect();
        if d.is_empty() {
            return 1.0;
        }
        d.sort_by(f64::total_cmp);
        d[d.len() / 2]
    }

    /// Messages whose (offset-corrected) text starts with `prefix`, as `(time, rest of text)`.
    pub fn markers<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (f64, &'a str)> + 'a {
        self.messages.iter().filter_map(move |m| {
            let (t, text) = m.corrected();
            text.strip_prefix(prefix).map(|rest| (t, rest.trim()))
        })
    }
}

/// Reads a whole ASC stream into a [`Recording`].
pub fn read_recording<R: BufRead>(reader: R, file: &str) -> Result<Recording> {
    read_records(AscReader::new(reader, file))
}

/// [`read_recording`] over an opened reader.
pub fn read_records<R: BufRead>(mut r: AscReader<R>) -> Result<Recording> {
    let file = r.file().to_string();
    let mut rec = Recording::default();
    let (mut left, mut right) = (EyeCounts::default(), EyeCounts::default());
    let mut binocular = false;
    let mut last_msg = f64::NEG_INFINITY;
    let mut late_messages = 0usize;
    let mut lineno = 0usize;
    while let Some(x) = r.next_record()? {
        lineno += 1;
        match x {
            Record::Sample { time, left: l, right: rr } => {
                rec.summary.samples += 1;
                if let Some(g) = l {
                    left.samples += 1;
                    rec.left.push(Sample { time, x: g.x, y: g.y, pupil: g.pupil });
                }
                if let Some(g) = rr {
                    right.samples += 1;
                    rec.right.push(Sample { time, x: g.x, y: g.y, pupil: g.pupil });
                }
                binocular |= l.is_some() && rr.is_some();
            }
            Record::Fixation(f) => {
                match f.eye {
                    Eye::Left => left.fixations += 1,
                    Eye::Right => right.fixations += 1,
                }
                rec.fixations.push(f);
            }
            Record::Saccade(s) => {
                match s.eye {
                    Eye::Left => left.saccades += 1,
                    Eye::Right => right.saccades += 1,
                }
                rec.saccades.push(s);
            }
            Record::Blink(b) => {
                match b.eye {
                    Eye::Left => left.blinks += 1,
                    Eye::Right => right.blinks += 1,
                }
                rec.blinks.push(b);
            }
            Record::Message { time, text } => {
                rec.summary.messages += 1;
                if time < last_msg {
                    late_messages += 1;
                }
                last_msg = last_msg.max(time);
                rec.messages.push(Message { time, text: text.to_string(), line: lineno });
            }
            Record::Start { time } => {
                if let Some((_, end)) = rec.blocks.last() {
                    if end.is_nan() {
                        rec.warnings.push(format!("{file}:{lineno}: START before the previous block's END"));
                    }
                }
                rec.blocks.push((time, f64::NAN));
            }
            Record::End { time } => match rec.blocks.last_mut() {
                Some(b) if b.1.is_nan() => b.1 = time,
                _ => rec.warnings.push(format!("{file}:{lineno}: END without START")),
            },
            Record::EventStart(..) | Record::Other => {}
        }
    }
    if let Some((_, end)) = rec.blocks.last() {
        if end.is_nan() {
            rec.warnings.push(format!("{file}: the last recording block has no END line"));
        }
    }
    if late_messages > 0 {
        rec.warnings.push(format!("{file}: {late_messages} messages are stamped earlier than a message before them"));
    }
    if let Some(l) = r.layout() {
        binocular |= l.left && l.right;
    }
    r.check_recognised()?;
    rec.rate = r.rate();
    rec.display = r.display().map(|d| d.0);
    rec.display_line = r.display().map(|d| d.1);
    add_event_counts(&mut rec.summary, left, right, binocular);
    Ok(rec)
}

/// Opens `path` through the input layer and runs [`summarize`].
pub fn summarize_file(path: &Path) -> Result<AscSummary> {
    summarize_records(AscReader::open(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(text: &str) -> Result<Recording> {
        read_recording(text.as_bytes(), "t.asc")
    }

    #[test]
    fn a_file_without_asc_records_is_an_error() {
        let err = summarize("garbage\nmore garbage\n".as_bytes(), "g.txt").unwrap_err().to_string();
        assert!(err.starts_with("g.txt:1:") && err.contains("no EyeLink"), "{err}");
        assert!(summarize("".as_bytes(), "e.asc").is_err());
    }

    #[test]
    fn garbage_is_refused_by_every_reader() {
        // Issue 17: `study events` accepted what `study summary` refused.
        let err = read_recording("garbage\nmore garbage\n".as_bytes(), "g.txt").unwrap_err().to_string();
        assert!(err.starts_with("g.txt:1:") && err.contains("no EyeLink"), "{err}");
    }

    #[test]
    fn bad_display_coords_name_file_and_line() {
        let err = rec(&MONO.replace("DISPLAY_COORDS 0 0 1279 1023", "DISPLAY_COORDS 0 0 x 1023")).unwrap_err().to_string();
        assert_eq!(err, "t.asc:2: DISPLAY_COORDS: `x` is not a number");
        let err = rec(&MONO.replace("DISPLAY_COORDS 0 0 1279 1023", "DISPLAY_COORDS 0 0 0 0")).unwrap_err().to_string();
        assert!(err.starts_with("t.asc:2: DISPLAY_COORDS: a screen of 1 x 1 pixels"), "{err}");
        let err = rec(&MONO.replace("DISPLAY_COORDS 0 0 1279 1023", "DISPLAY_COORDS 0 0")).unwrap_err().to_string();
        assert!(err.starts_with("t.asc:2: DISPLAY_COORDS: expected four numbers"), "{err}");
        assert_eq!(rec(MONO).unwrap().display_line, Some(2));
    }

    /// The same file plain, gzip- and zstd-compressed, with a BOM and CRLF line ends reads
    /// the same (the input layer), and a truncated gzip copy is an error with a line.
    #[test]
    fn compressed_bom_and_crlf_read_alike() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/gaze/bino_1000hz.asc");
        let plain = std::fs::read(&src).unwrap();
        let want = Recording::from_file(&src).unwrap();
        let gz = dir.path().join("b.asc.gz");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&plain).unwrap();
        let bytes = e.finish().unwrap();
        std::fs::write(&gz, &bytes).unwrap();
        let got = Recording::from_file(&gz).unwrap();
        // Debug text: blinks are NaN samples, and NaN != NaN.
        let key = |r: &Recording| format!("{:?} {:?} {:?} {:?}", r.left, r.right, r.fixations, r.summary);
        assert_eq!(key(&got), key(&want));
        let crlf = dir.path().join("b.asc");
        let mut text = b"\xef\xbb\xbf".to_vec();
        text.extend(String::from_utf8(plain).unwrap().replace('\n', "\r\n").into_bytes());
        std::fs::write(&crlf, text).unwrap();
        let got = Recording::from_file(&crlf).unwrap();
        assert_eq!(key(&got), key(&want));
        std::fs::write(&gz, &bytes[..bytes.len() / 2]).unwrap();
        let err = summarize_file(&gz).unwrap_err().to_string();
        assert!(err.contains("b.asc.gz:") && err.contains("corrupt or truncated gzip"), "{err}");
    }

    #[test]
    fn numbers_parse_like_std() {
        for s in ["0", "964.3", "-7631", "1408660", "2339291.5", "0.0", "12.345678"] {
            assert_eq!(parse_f64(s.as_bytes()), Some(s.parse::<f64>().unwrap()), "{s}");
        }
        assert_eq!(parse_f64(b"2.3e+06"), Some(2.3e6));
        assert!(parse_value(b".").unwrap().is_nan());
        assert_eq!(parse_f64(b"abc"), None);
        assert_eq!(parse_f64(b"."), None);
        assert_eq!(parse_f64(b"1.2.3"), None);
    }

    const MONO: &str = "** header\nMSG\t10 DISPLAY_COORDS 0 0 1279 1023\nSTART\t100 \tLEFT\tSAMPLES\tEVENTS\n\
SAMPLES\tGAZE\tLEFT\tRATE\t1000.00\tTRACKING\tCR\tFILTER\t2\n100\t  1.0\t  2.0\t 700.0\t...\n\
SFIX L   101\n101\t   .\t   .\t    0.0\t...\nEFIX L   101\t101\t1\t  1.0\t  2.0\t    700\n\
MSG\t102 -3 TRIALID 7\nEND\t102 \tSAMPLES\tEVENTS\tRES\t  37.17\t  37.75\n";

    #[test]
    fn reads_a_monocular_block() {
        let r = rec(MONO).unwrap();
        assert_eq!(r.left.len(), 2);
        assert!(r.right.is_empty());
        assert!(r.left[1].x.is_nan() && !r.left[1].is_valid());
        assert_eq!(r.fixations.len(), 1);
        assert_eq!(r.rate, Some(1000.0));
        assert_eq!(r.display.unwrap().width(), 1280.0);
        assert_eq!(r.blocks, vec![(100.0, 102.0)]);
        assert_eq!(r.markers("TRIALID").collect::<Vec<_>>(), vec![(105.0, "7")]);
        assert_eq!(r.summary.left, None);
    }

    #[test]
    fn backwards_time_is_an_error_with_line() {
        let text = MONO.replace("101\t   .", "99\t   .");
        let err = rec(&text).unwrap_err().to_string();
        assert!(err.starts_with("t.asc:7:") && err.contains("backwards"), "{err}");
        let text = MONO.replace("EFIX L   101\t101", "EFIX L   101\t90");
        let err = rec(&text).unwrap_err().to_string();
        assert!(err.starts_with("t.asc:8:") && err.contains("before it starts"), "{err}");
    }

    #[test]
    fn missing_columns_and_truncation_are_errors() {
        let text = MONO.replace("100\t  1.0\t  2.0\t 700.0\t...", "100\t  1.0\t  2.0");
        let err = rec(&text).unwrap_err().to_string();
        assert!(err.starts_with("t.asc:5:") && err.contains("missing columns"), "{err}");
        // Cut the file in the middle of the sample on line 7.
        let cut = MONO.find("101\t   .").unwrap() + 9;
        let err = rec(&MONO[..cut]).unwrap_err().to_string();
        assert!(err.starts_with("t.asc:7:") && err.contains("truncated"), "{err}");
        // Cut inside the EFIX line.
        let cut = MONO.find("EFIX").unwrap() + 14;
        let err = rec(&MONO[..cut]).unwrap_err().to_string();
        assert!(err.starts_with("t.asc:8:") && err.contains("truncated"), "{err}");
        let err = rec(&MONO.replace("  2.0\t 700.0", "  2.x\t 700.0")).unwrap_err().to_string();
        assert!(err.contains("t.asc:5:") && err.contains("2.x"), "{err}");
        let err = rec(&MONO.replace("EFIX L", "EFIX Q")).unwrap_err().to_string();
        assert!(err.contains("t.asc:8:") && err.contains("neither L nor R"), "{err}");
    }

    #[test]
    fn binocular_layout_and_counts() {
        let text = "START\t1 \tLEFT\tRIGHT\tSAMPLES\tEVENTS\nSAMPLES\tGAZE\tLEFT\tRIGHT\tVEL\tRATE\t500.00\n\
1\t 1.0\t 2.0\t 3.0\t 4.0\t 5.0\t 6.0\t 0.1\t 0.2\t 0.3\t 0.4\t.....\nEBLINK R 1\t3\t3\nEND\t3\n";
        let r = rec(text).unwrap();
        assert_eq!((r.left[0].x, r.right[0].x, r.right[0].pupil), (1.0, 4.0, 6.0));
        assert_eq!(r.rate, Some(500.0));
        let s = r.summary;
        assert_eq!(s.right.unwrap().blinks, 1);
        assert_eq!(s.left.unwrap().samples, 1);
        // VEL declared: 11 numeric columns needed.
        let bad = text.replace("\t 0.3\t 0.4\t.....", "");
        assert!(rec(&bad).unwrap_err().to_string().contains("missing columns"));
    }

    /// Every bundled ASC file (all project-made, `study_logs/tools/make_gaze.py`) parses and
    /// its counts equal the grep counts of `analysis/study/asc_counts.sh`
    /// (study_logs/gaze/expected_counts.csv). The 2 kHz whole-millisecond file is among them:
    /// grep counts its sample lines, each read as one sample.
    #[test]
    fn bundled_files_match_independent_counts() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/gaze");
        let expected = std::fs::read_to_string(dir.join("expected_counts.csv")).unwrap();
        let mut n = 0;
        for line in expected.lines().skip(1) {
            let c: Vec<&str> = line.split(',').collect();
            let v = |i: usize| c[i].parse::<u64>().unwrap();
            let path = dir.join(c[0]);
            let s = summarize_file(&path).unwrap();
            let r = Recording::from_file(&path).unwrap();
            assert_eq!(r.summary, s, "{}", c[0]);
            assert_eq!((s.samples, s.messages), (v(1), v(2)), "{}", c[0]);
            assert_eq!(s.fixations, v(3) + v(4), "{}", c[0]);
            assert_eq!(s.saccades, v(5) + v(6), "{}", c[0]);
            assert_eq!(s.blinks, v(7) + v(8), "{}", c[0]);
            if v(4) > 0 {
                let (l, rr) = (s.left.unwrap(), s.right.unwrap());
                assert_eq!((l.fixations, rr.fixations, l.saccades, rr.saccades, l.blinks, rr.blinks), (v(3), v(4), v(5), v(6), v(7), v(8)));
                assert_eq!((l.samples, rr.samples), (v(1), v(1)));
                assert_eq!((r.left.len(), r.right.len()), (v(1) as usize, v(1) as usize));
            } else {
                assert!(s.left.is_none() && s.right.is_none(), "{}", c[0]);
                assert_eq!(r.left.len(), v(1) as usize);
            }
            n += 1;
        }
        // 6 top-level recordings and 2 in lowrate/ (study_logs/README.md).
        assert_eq!(n, 8);
    }

    /// Values read off the generated files' own lines (the text is the reference).
    #[test]
    fn bundled_file_details() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/gaze");
        let r = Recording::from_file(&dir.join("mono_500hz_no_end.asc")).unwrap();
        assert_eq!(r.rate, Some(500.0));
        // `DISPLAY_COORDS 0 0 1919 1079` on line 13: 1920 px wide.
        assert_eq!((r.display.unwrap().width(), r.display_line), (1920.0, Some(13)));
        // The file stops without an END line: a warning, not an error.
        assert!(r.warnings.iter().any(|w| w.contains("no END")), "{:?}", r.warnings);
        // `ESACC L  643197 644095 900 . . 960.3 540.0 2.4e+06 4`: missing start position,
        // amplitude in exponent form.
        assert!(r.saccades[0].start_x.is_nan() && r.saccades[0].amplitude == 2.4e6);
        // `EFIX L   644363 644577 216 1184.9 514.8 696`
        assert_eq!(r.fixations[1], Fixation { eye: Eye::Left, start: 644363.0, end: 644577.0, duration: 216.0, x: 1184.9, y: 514.8, pupil: 696.0 });
        // `MSG 592197 ENCODING TEST ÄÖÜ`: blank separator, UTF-8 text.
        assert_eq!(r.messages[1].text, "ENCODING TEST ÄÖÜ");
        let r = Recording::from_file(&dir.join("mono_2000hz_fractional.asc")).unwrap();
        // `MSG 2094575.5 RETRACE_INTERVAL  16.646125144`, the fourth message.
        assert_eq!(r.messages[3].time, 2094575.5);
        assert_eq!((r.left[0].time, r.left[1].time), (2154556.5, 2154557.0));
        assert_eq!(r.sample_interval(), 0.5);
        let r = Recording::from_file(&dir.join("bino_1000hz.asc")).unwrap();
        // `START 1408660` ... `END 1410343`.
        assert_eq!(r.blocks, vec![(1408660.0, 1410343.0)]);
        // The left-eye blink: `EBLINK L 1409294 1409388 95`, 95 samples without a position.
        assert_eq!(r.left.iter().filter(|s| !s.is_valid()).count(), 95);
    }

    /// 2000 Hz in whole milliseconds (edf2asc without -ftime): every millisecond is written
    /// twice. Reference: pymovements 0.28.0's reading of the same file
    /// (`analysis/study/make_fixtures.py`: `pm.gaze.from_asc(path, events=True)`, samples saved
    /// with `save_samples`, events with `events.frame`). pymovements keeps the repeated
    /// times as written; serpsim reads the second sample of each millisecond 0.5 ms later,
    /// so the expected time is pymovements' time + 0.5 where it equals the time before it.
    /// Sample count, positions and the EyeLink fixations (onset, offset) must agree.
    #[test]
    fn whole_ms_2khz_matches_pymovements() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/gaze");
        let r = Recording::from_file(&dir.join("mono_2000hz_whole_ms.asc")).unwrap();
        let pm = std::fs::read_to_string(dir.join("pymovements/mono_2000hz_whole_ms.csv")).unwrap();
        let mut lines = pm.lines();
        assert_eq!(lines.next(), Some("time,pupil,pixel_x,pixel_y"));
        let mut prev = f64::NAN;
        let mut n = 0;
        for (k, line) in lines.enumerate() {
            let c: Vec<f64> = line.split(',').map(|v| if v.is_empty() { f64::NAN } else { v.parse().unwrap() }).collect();
            let want = if c[0] == prev { c[0] + 0.5 } else { c[0] };
            prev = c[0];
            let s = r.left[k];
            assert_eq!(s.time, want, "sample {k}");
            // Positions are f32 in serpsim (one decimal in the file): compare at f32.
            assert!(s.x == c[2] as f32 || (s.x.is_nan() && c[2].is_nan()), "sample {k}");
            assert!(s.y == c[3] as f32 || (s.y.is_nan() && c[3].is_nan()), "sample {k}");
            n += 1;
        }
        assert_eq!(r.left.len(), n);
        assert_eq!(r.sample_interval(), 0.5);
        let ev = std::fs::read_to_string(dir.join("pymovements/mono_2000hz_whole_ms_events.csv")).unwrap();
        let want: Vec<(f64, f64)> = ev
            .lines()
            .skip(1)
            .filter(|l| l.starts_with("fixation_eyelink,left,"))
            .map(|l| {
                let c: Vec<&str> = l.split(',').collect();
                (c[2].parse().unwrap(), c[3].parse().unwrap())
            })
            .collect();
        assert!(want.len() >= 3);
        assert_eq!(r.fixations.iter().map(|f| (f.start, f.end)).collect::<Vec<_>>(), want);
    }

    /// The convention is for 2000 Hz whole-millisecond stamps only: a third sample in one
    /// millisecond, a repeated half millisecond, a repeat at another rate and a fractional
    /// stamp equal to the time given to a repeat are refused with the line.
    #[test]
    fn repeated_times_outside_the_2khz_convention_are_refused() {
        let head = |rate: &str| format!("START\t100 \tLEFT\tSAMPLES\tEVENTS\nSAMPLES\tGAZE\tLEFT\tRATE\t{rate}\tTRACKING\tCR\tFILTER\t2\n");
        let line = |t: &str| format!("{t}\t  1.0\t  2.0\t 700.0\t...\n");
        let ok = head("2000.00") + &line("100") + &line("100") + &line("101") + &line("101") + "END\t102\n";
        let r = rec(&ok).unwrap();
        assert_eq!(r.left.iter().map(|s| s.time).collect::<Vec<_>>(), vec![100.0, 100.5, 101.0, 101.5]);
        let third = head("2000.00") + &line("100") + &line("100") + &line("100");
        let err = rec(&third).unwrap_err().to_string();
        assert!(err.starts_with("t.asc:5:") && err.contains("third time"), "{err}");
        let half = head("2000.00") + &line("100.5") + &line("100.5");
        let err = rec(&half).unwrap_err().to_string();
        assert!(err.starts_with("t.asc:4:") && err.contains("repeats"), "{err}");
        let khz = head("1000.00") + &line("100") + &line("100");
        let err = rec(&khz).unwrap_err().to_string();
        assert!(err.starts_with("t.asc:4:") && err.contains("repeats"), "{err}");
        let mixed = head("2000.00") + &line("100") + &line("100") + &line("100.5");
        let err = rec(&mixed).unwrap_err().to_string();
        assert!(err.starts_with("t.asc:5:") && err.contains("not after"), "{err}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Any truncation or byte corruption of a bundled file gives a result or an error with a
        /// line number, never a panic.
        #[test]
        fn corrupted_files_never_panic(cut in 0usize..120000, pos in 0usize..120000, byte in proptest::prelude::any::<u8>()) {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/gaze/bino_1000hz.asc");
            let mut bytes = std::fs::read(path).unwrap();
            // Sample lines of the intact file, counted without the parser.
            let lines = bytes.split(|&b| b == b'\n').filter(|l| l.first().is_some_and(u8::is_ascii_digit)).count() as u64;
            let n = bytes.len();
            bytes[pos % n] = byte;
            bytes.truncate(cut % (n + 1));
            match read_recording(&bytes[..], "x.asc") {
                Ok(r) => proptest::prop_assert!(r.summary.samples <= lines),
                Err(e) => proptest::prop_assert!(e.to_string().starts_with("x.asc:"), "{}", e),
            }
            let _ = summarize(&bytes[..], "x.asc");
        }
    }
}
