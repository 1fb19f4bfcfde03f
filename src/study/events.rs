//! Fixation detection over a whole recording, streamed: an EyeLink ASC file or a gaze
//! CSV/TSV export is read line by line and every sample goes straight into a streaming
//! detector ([`super::detect`]), so memory does not grow with the file (only the fixations
//! found are kept). What cannot be read from the file is inferred and said so in
//! [`Detected::notes`]:
//!
//! - screen size in pixels: `--screen-px`, else `DISPLAY_COORDS` (ASC) or Tobii Pro Lab's
//!   recording resolution; without either the run is refused;
//! - sample interval: `--rate`, else the ASC `RATE`, else the median time step of the first
//!   100 samples.
//!
//! Until both are known (they normally are by the first sample), samples wait in a buffer
//! of at most [`MAX_PENDING`] rows.

use super::asc::{AscReader, DisplayCoords, Record};
use super::detect::{FixationDetector, Idt, IdtParams, Ivt, IvtParams, ScreenGeometry};
use super::gaze_csv::{CsvGazeReader, CsvOptions, GazeRow};
use super::{Eye, Fixation, Sample};
use crate::error::{Error, Result};
use crate::input::Input;
use std::io::{BufRead, Read};
use std::path::Path;

/// Rows held back while the screen size or the sample interval is unknown.
pub const MAX_PENDING: usize = 1_000_000;

/// Steps used to infer the sample interval.
const RATE_STEPS: usize = 100;

/// Which detector.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// I-DT.
    Idt(IdtParams),
    /// I-VT.
    Ivt(IvtParams),
}

impl Method {
    /// `idt` or `ivt`.
    pub fn name(&self) -> &'static str {
        match self {
            Method::Idt(_) => "idt",
            Method::Ivt(_) => "ivt",
        }
    }
}

/// Detector and screen settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetectConfig {
    /// The detector and its parameters.
    pub method: Method,
    /// Physical screen size (cm).
    pub screen_cm: (f64, f64),
    /// Eye-to-screen distance (cm).
    pub distance_cm: f64,
    /// Screen size in pixels; `None`: from the file.
    pub screen_px: Option<(f64, f64)>,
    /// Sampling rate (Hz); `None`: from the file or the time stamps.
    pub rate_hz: Option<f64>,
}

impl DetectConfig {
    /// Checks the parameters before any file is read.
    pub fn validate(&self) -> Result<()> {
        match &self.method {
            Method::Idt(p) => p.validate()?,
            Method::Ivt(p) => p.validate()?,
        }
        let probe =
            ScreenGeometry { width_px: 100.0, height_px: 100.0, width_cm: self.screen_cm.0, height_cm: self.screen_cm.1, distance_cm: self.distance_cm };
        probe.validate()?;
        if let Some((w, h)) = self.screen_px {
            ScreenGeometry { width_px: w, height_px: h, ..probe }.validate()?;
        }
        if let Some(r) = self.rate_hz {
            if !(r.is_finite() && r > 0.0) {
                return Err(Error::config("parameters", "rate", format!("{r} must be a positive number of Hz")));
            }
        }
        Ok(())
    }
}

/// The result of a detection run.
#[derive(Debug, Clone, Default)]
pub struct Detected {
    /// Detected fixations per eye (`[left, right]`; an export's average eye is `left`).
    pub fixations: [Vec<Fixation>; 2],
    /// Samples seen per eye.
    pub samples: [u64; 2],
    /// The tracker's own fixations in the file (EyeLink EFIX, Tobii's `Eye movement type`).
    pub reference: Vec<Fixation>,
    /// Whether the file can carry such fixations at all.
    pub has_reference: bool,
    /// The geometry used.
    pub geometry: Option<ScreenGeometry>,
    /// The sample interval used (ms).
    pub dt: f64,
    /// What was inferred, skipped or assumed, for the user to see.
    pub notes: Vec<String>,
}

impl Detected {
    /// The detected fixations as CSV `eye,start,end,duration,x,y,pupil` (eyes `left`/`right`;
    /// numbers as every serpsim CSV writes them, [`crate::write::fmt_f64`]: 10 significant
    /// digits, so sub-pixel positions keep their precision; an unknown pupil is empty).
    pub fn fixations_csv(&self) -> String {
        use crate::write::fmt_f64;
        let mut text = String::from("eye,start,end,duration,x,y,pupil\n");
        for eye in self.eyes() {
            let name = if eye == Eye::Left { "left" } else { "right" };
            for f in &self.fixations[eye as usize] {
                let row = [f.start, f.end, f.duration, f.x, f.y, f.pupil].map(fmt_f64).join(",");
                text.push_str(&format!("{name},{row}\n"));
            }
        }
        text
    }

    /// The eyes with samples.
    pub fn eyes(&self) -> Vec<Eye> {
        let mut v = Vec::new();
        if self.samples[0] > 0 {
            v.push(Eye::Left);
        }
        if self.samples[1] > 0 {
            v.push(Eye::Right);
        }
        v
    }
}

/// What the file says about the screen and the rate, as read so far.
#[derive(Debug, Clone, Default)]
struct FileFacts {
    display: Option<((f64, f64), String)>,
    rate: Option<f64>,
}

/// Feeds rows to two detectors once the geometry and the sample interval are known.
struct Stream {
    cfg: DetectConfig,
    only: Option<Eye>,
    pending: Vec<GazeRow>,
    det: Option<[Box<dyn FixationDetector>; 2]>,
    out: Detected,
}

impl Stream {
    fn new(cfg: DetectConfig, only: Option<Eye>) -> Self {
        Stream { cfg, only, pending: Vec::new(), det: None, out: Detected::default() }
    }

    fn setup(&mut self, facts: &FileFacts, end: bool, file: &str) -> Result<bool> {
        let px = match (self.cfg.screen_px, &facts.display) {
            (Some(p), _) => Some((p, "--screen-px".to_string())),
            (None, Some((p, src))) => Some((*p, src.clone())),
            (None, None) => None,
        };
        if px.is_none() {
            if end || self.pending.len() >= MAX_PENDING {
                return Err(Error::Invalid(format!(
                    "{file}: the screen size in pixels is not in the file (no DISPLAY_COORDS or recording resolution{}); give --screen-px WIDTH,HEIGHT",
                    if end { "" } else { " before the first million samples" }
                )));
            }
            return Ok(false);
        }
        let dt = match (self.cfg.rate_hz, facts.rate) {
            (Some(r), _) => Some((1000.0 / r, format!("{r} Hz from --rate"))),
            (None, Some(r)) if r > 0.0 => Some((1000.0 / r, format!("{r} Hz from the file's RATE"))),
            _ if self.pending.len() > RATE_STEPS || end => {
                let mut d: Vec<f64> = self.pending.windows(2).map(|w| w[1].time - w[0].time).collect();
                d.sort_by(f64::total_cmp);
                match d.get(d.len() / 2) {
                    Some(&m) => Some((
                        m,
                        format!(
                            "{:.2} Hz, inferred from the median time step of the first {} samples ({m:.4} ms); give --rate to override",
                            1000.0 / m,
                            self.pending.len()
                        ),
                    )),
                    None => Some((0.0, "unknown (fewer than two samples)".into())),
                }
            }
            _ => None,
        };
        let (Some(((w, h), src)), Some((dt, rate_note))) = (px, dt) else {
            return Ok(false);
        };
        let geom =
            ScreenGeometry { width_px: w, height_px: h, width_cm: self.cfg.screen_cm.0, height_cm: self.cfg.screen_cm.1, distance_cm: self.cfg.distance_cm };
        geom.validate().map_err(|e| Error::Invalid(format!("{file}: screen geometry from {src}: {e}")))?;
        self.out.notes.push(format!("screen: {w} x {h} px from {src}; {} x {} cm at {} cm", geom.width_cm, geom.height_cm, geom.distance_cm));
        self.out.notes.push(format!("sampling: {rate_note}"));
        let mk = |eye: Eye| -> Box<dyn FixationDetector> {
            match self.cfg.method {
                Method::Idt(p) => Box::new(Idt::new(geom, p, eye, dt)),
                Method::Ivt(p) => Box::new(Ivt::new(geom, p, eye, dt)),
            }
        };
        self.det = Some([mk(Eye::Left), mk(Eye::Right)]);
        self.out.geometry = Some(geom);
        self.out.dt = dt;
        for row in std::mem::take(&mut self.pending) {
            self.feed(&row);
        }
        Ok(true)
    }

    fn feed(&mut self, row: &GazeRow) {
        let Some(det) = &mut self.det else { return };
        for (k, g) in [row.left, row.right].into_iter().enumerate() {
            let eye = if k == 0 { Eye::Left } else { Eye::Right };
            if self.only.is_some_and(|o| o != eye) {
                continue;
            }
            if let Some(g) = g {
                self.out.samples[k] += 1;
                det[k].push(&Sample { time: row.time, x: g.x, y: g.y, pupil: g.pupil }, &mut self.out.fixations[k]);
            }
        }
    }

    fn push(&mut self, row: GazeRow, facts: &FileFacts, file: &str) -> Result<()> {
        if self.det.is_some() {
            self.feed(&row);
            return Ok(());
        }
        self.pending.push(row);
        self.setup(facts, false, file)?;
        Ok(())
    }

    fn finish(mut self, facts: &FileFacts, file: &str) -> Result<Detected> {
        if self.det.is_none() {
            if self.pending.is_empty() {
                self.out.notes.push("no samples in the file".into());
                return Ok(self.out);
            }
            self.setup(facts, true, file)?;
        }
        if let Some(det) = &mut self.det {
            for (k, d) in det.iter_mut().enumerate() {
                d.finish(&mut self.out.fixations[k]);
            }
        }
        Ok(self.out)
    }
}

/// Detects fixations in an EyeLink ASC stream; the EFIX events become the reference.
/// `only` restricts detection to one eye.
pub fn detect_asc<R: BufRead>(mut r: AscReader<R>, cfg: &DetectConfig, only: Option<Eye>) -> Result<Detected> {
    let file = r.file().to_string();
    let mut s = Stream::new(*cfg, only);
    let mut facts = FileFacts::default();
    let mut reference = Vec::new();
    loop {
        if facts.display.is_none() {
            if let Some((d, line)) = r.display() {
                facts.display = Some(((d.width(), d.height()), format!("{file}:{line} ({})", describe(&d))));
            }
        }
        if facts.rate.is_none() {
            facts.rate = r.rate();
        }
        let row = match r.next_record()? {
            None => break,
            Some(Record::Sample { time, left, right }) => GazeRow { time, left, right },
            Some(Record::Fixation(f)) => {
                if only.is_none_or(|o| o == f.eye) {
                    reference.push(f);
                }
                continue;
            }
            Some(_) => continue,
        };
        s.push(row, &facts, &file)?;
    }
    r.check_recognised()?;
    let mut out = s.finish(&facts, &file)?;
    out.reference = reference;
    out.has_reference = true;
    Ok(out)
}

fn describe(d: &DisplayCoords) -> String {
    format!("{} {} {} {}", d.left, d.top, d.right, d.bottom)
}

/// Detects fixations in a gaze CSV/TSV export; Tobii's own fixations become the reference.
pub fn detect_csv(mut r: CsvGazeReader, cfg: &DetectConfig, only: Option<Eye>) -> Result<Detected> {
    let file = r.name().to_string();
    let mut s = Stream::new(*cfg, only);
    let mut facts = FileFacts::default();
    while let Some(row) = r.next_row()? {
        if facts.display.is_none() {
            if let Some(p) = r.screen_px() {
                facts.display = Some((p, format!("{file} (Recording resolution)")));
            }
        }
        s.push(row, &facts, &file)?;
    }
    let mut out = s.finish(&facts, &file)?;
    let mut notes = r.notes().to_vec();
    notes.append(&mut out.notes);
    out.notes = notes;
    out.has_reference = r.has_reference();
    out.reference = r.take_reference();
    Ok(out)
}

/// Whether the first line of a text looks like EyeLink ASC.
fn looks_like_asc(first: &[u8]) -> bool {
    let t = String::from_utf8_lossy(first);
    let t = t.trim_start_matches('\u{feff}');
    let word = t.split_ascii_whitespace().next().unwrap_or("");
    t.starts_with("**")
        || t.starts_with(">>>")
        || matches!(
            word,
            "MSG"
                | "START"
                | "END"
                | "SAMPLES"
                | "EVENTS"
                | "PRESCALER"
                | "VPRESCALER"
                | "PUPIL"
                | "INPUT"
                | "BUTTON"
                | "SFIX"
                | "EFIX"
                | "SSACC"
                | "ESACC"
                | "SBLINK"
                | "EBLINK"
        )
}

/// A gaze file opened for detection: EyeLink ASC or a CSV/TSV export.
pub enum GazeFile {
    /// EyeLink ASC.
    Asc(AscReader<Box<dyn BufRead + Send>>),
    /// CSV/TSV export.
    Csv(Box<CsvGazeReader>),
}

/// Opens `path` (`-` for standard input; gzip and zstd decompressed) and tells ASC from
/// CSV by its first line, unless `asc` forces one way (`Some(true)`: ASC, `Some(false)`:
/// CSV with `csv` options).
pub fn open_gaze(path: &Path, asc: Option<bool>, csv: &CsvOptions) -> Result<GazeFile> {
    let input = crate::input::open(path)?;
    let name = input.name().to_string();
    let mut reader = input.into_reader();
    let mut first = Vec::new();
    // The first non-empty line, kept and put back in front of the rest.
    loop {
        let before = first.len();
        let n = (&mut reader).take(1 << 20).read_until(b'\n', &mut first).map_err(|e| Error::parse(&name, 1, format!("read error: {e}")))?;
        if n == 0 || first[before..].iter().any(|b| !b.is_ascii_whitespace()) {
            break;
        }
    }
    let is_asc = asc.unwrap_or_else(|| looks_like_asc(first.trim_ascii_start()));
    let rest = std::io::Cursor::new(first).chain(reader);
    let input = Input::from_reader(&name, Some(path.to_path_buf()), std::io::BufReader::new(rest))?;
    Ok(if is_asc { GazeFile::Asc(AscReader::from_input(input)) } else { GazeFile::Csv(Box::new(CsvGazeReader::from_input(input, csv)?)) })
}

/// [`open_gaze`] then [`detect_asc`] or [`detect_csv`].
pub fn detect_file(path: &Path, asc: Option<bool>, csv: &CsvOptions, cfg: &DetectConfig, only: Option<Eye>) -> Result<Detected> {
    match open_gaze(path, asc, csv)? {
        GazeFile::Asc(r) => detect_asc(r, cfg, only),
        GazeFile::Csv(r) => detect_csv(*r, cfg, only),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::detect::{idt, ivt};

    fn cfg(method: Method) -> DetectConfig {
        DetectConfig { method, screen_cm: (38.0, 30.2), distance_cm: 68.0, screen_px: None, rate_hz: None }
    }

    fn gaze(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/gaze").join(name)
    }

    /// The streaming run over the file equals the detectors run over the samples held in
    /// memory by `Recording` (the reference implementation of reading), for both methods
    /// and the bundled ASC files (project-made, every rate and layout quirk, the 2 kHz
    /// whole-millisecond file included).
    #[test]
    fn streaming_equals_in_memory_on_bundled_files() {
        for f in ["bino_1000hz.asc", "bino_250hz.asc", "mono_500hz_no_end.asc", "mono_1000hz.asc", "mono_2000hz_whole_ms.asc"] {
            let rec = crate::study::asc::Recording::from_file(&gaze(f)).unwrap();
            for m in [Method::Idt(IdtParams::default()), Method::Ivt(IvtParams::default())] {
                let d = detect_file(&gaze(f), None, &CsvOptions::default(), &cfg(m), None).unwrap();
                let g = d.geometry.unwrap();
                let dt = rec.sample_interval();
                assert_eq!(d.dt, dt);
                for (k, eye) in [Eye::Left, Eye::Right].into_iter().enumerate() {
                    let s = rec.samples(Some(eye));
                    let want = match m {
                        Method::Idt(p) => idt(s, &g, &p, eye, dt),
                        Method::Ivt(p) => ivt(s, &g, &p, eye, dt),
                    };
                    assert_eq!(d.fixations[k], want, "{f} {eye:?}");
                    assert_eq!(d.samples[k], s.len() as u64);
                }
                let efix: Vec<Fixation> = rec.fixations.clone();
                assert_eq!(d.reference, efix);
            }
        }
    }

    #[test]
    fn missing_screen_size_is_refused_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.csv");
        std::fs::write(&p, "time,pixel_x,pixel_y\n1,2,3\n2,2,3\n").unwrap();
        let err = detect_file(&p, None, &CsvOptions::default(), &cfg(Method::Idt(IdtParams::default())), None).unwrap_err().to_string();
        assert!(err.contains("g.csv") && err.contains("--screen-px"), "{err}");
        let c = DetectConfig { screen_px: Some((1920.0, 1080.0)), ..cfg(Method::Idt(IdtParams::default())) };
        let d = detect_file(&p, None, &CsvOptions::default(), &c, None).unwrap();
        assert_eq!(d.samples, [2, 0]);
        assert!(d.notes.iter().any(|n| n.contains("inferred from the median time step")), "{:?}", d.notes);
    }

    #[test]
    fn garbage_is_refused_as_asc_and_as_csv() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.asc");
        std::fs::write(&p, "garbage\nmore garbage\n").unwrap();
        let c = cfg(Method::Idt(IdtParams::default()));
        let err = detect_file(&p, None, &CsvOptions::default(), &c, None).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{}:1: cannot tell the layout", p.display())), "{err}");
        let err = detect_file(&p, Some(true), &CsvOptions::default(), &c, None).unwrap_err().to_string();
        assert!(err.contains("no EyeLink ASC records"), "{err}");
    }
}
