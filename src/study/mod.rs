//! User-study logs: gaze and cursor ingestion, event detection, areas of interest,
//! term-level attention (Eickhoff, Dungs and Tran 2015, §4–5) and fitting simulation
//! parameters from a study (rank visits with the pagination rule of He et al. 2015 §4.2.1).
//!
//! Data flows: [`asc`] / [`gaze_csv`] (raw samples and tracker events) → [`detect`] (I-DT,
//! I-VT; [`events`] streams a whole file through it) → [`aoi`] (fixation to token) → [`attention`] (query vs non-query terms, per-word
//! F(w), D(w)). Cursor traces go through [`cursor`] (hovers) to the same analyses.
//! [`log`] is the study event log; [`fit`] turns it into a scenario; [`synthetic`] generates
//! whole studies with known truth. The formats are documented in `docs/study.md`.

pub mod aoi;
pub mod asc;
pub mod attention;
pub mod cursor;
pub mod detect;
pub mod events;
pub mod fit;
pub mod fixreport;
pub mod gaze_csv;
pub mod log;
pub mod pipeline;
pub mod synthetic;
pub mod validate;

use serde::{Deserialize, Serialize};

/// Which eye a sample or event belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Eye {
    /// Left eye.
    Left,
    /// Right eye.
    Right,
}

/// One gaze sample of one eye. Missing values (blink, track loss) are NaN.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Time in milliseconds (tracker clock).
    pub time: f64,
    /// Horizontal gaze position in pixels.
    pub x: f32,
    /// Vertical gaze position in pixels (down is positive).
    pub y: f32,
    /// Pupil size (area or diameter, as recorded).
    pub pupil: f32,
}

impl Sample {
    /// True when the gaze position is present (not lost).
    #[inline]
    pub fn is_valid(&self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }
}

/// A fixation: from the tracker (EFIX), a fixation report, or detected by [`detect`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fixation {
    /// Eye.
    pub eye: Eye,
    /// Start time (ms), first sample.
    pub start: f64,
    /// End time (ms), last sample.
    pub end: f64,
    /// Duration in ms (EyeLink convention: end - start + one sample interval).
    pub duration: f64,
    /// Mean horizontal position (px).
    pub x: f64,
    /// Mean vertical position (px).
    pub y: f64,
    /// Mean pupil size (NaN when unknown).
    pub pupil: f64,
}

/// A saccade (ESACC).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Saccade {
    /// Eye.
    pub eye: Eye,
    /// Start time (ms).
    pub start: f64,
    /// End time (ms).
    pub end: f64,
    /// Duration (ms).
    pub duration: f64,
    /// Start position (px, NaN when lost).
    pub start_x: f64,
    /// Start position (px).
    pub start_y: f64,
    /// End position (px).
    pub end_x: f64,
    /// End position (px).
    pub end_y: f64,
    /// Amplitude in degrees as recorded.
    pub amplitude: f64,
    /// Peak velocity in degrees/s as recorded.
    pub peak_velocity: f64,
}

/// A blink (EBLINK).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Blink {
    /// Eye.
    pub eye: Eye,
    /// Start time (ms).
    pub start: f64,
    /// End time (ms).
    pub end: f64,
    /// Duration (ms).
    pub duration: f64,
}

/// A message (MSG line): trial and page markers, display coordinates, anything the
/// experiment software logged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Time stamp as written (ms).
    pub time: f64,
    /// Text after the time stamp (an EyeLink offset like `-11` is kept in the text).
    pub text: String,
    /// 1-based line number in the file.
    pub line: usize,
}

impl Message {
    /// EyeLink messages may start with an integer offset (`MSG 2154599 -11 !V DRAW_LIST ...`):
    /// the event happened at `time - offset`. Returns the corrected time and the text without
    /// the offset.
    pub fn corrected(&self) -> (f64, &str) {
        let t = self.text.trim_start();
        let (first, rest) = t.split_once(' ').unwrap_or((t, ""));
        match first.parse::<i64>() {
            Ok(off) if !rest.is_empty() => (self.time - off as f64, rest.trim_start()),
            _ => (self.time, t),
        }
    }
}
