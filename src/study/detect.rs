//! Fixation detection from raw gaze samples: I-DT (dispersion threshold, Salvucci and
//! Goldberg 2000) and I-VT (velocity threshold, as in the Tobii I-VT fixation filter, Olsen
//! 2012), with positions converted from pixels to degrees of visual angle by the screen
//! geometry.
//!
//! Both detectors are streaming state machines ([`Idt`], [`Ivt`], trait [`FixationDetector`]):
//! samples go in one at a time, fixations come out as soon as they are complete, and memory
//! is bounded by one I-DT window (the minimum duration) or one I-VT velocity window,
//! whatever the length of the recording. [`idt`] and [`ivt`] run them over a slice.
//!
//! Defaults and where they come from (docs/study.md has the full table):
//! - I-DT: 1.0° dispersion, 100 ms minimum duration: the values Salvucci and Goldberg (2000)
//!   use as their example; kept from the previous release.
//! - I-VT: 30°/s threshold, velocity over a 20 ms window, adjacent fixations merged when at
//!   most 75 ms and 0.5° apart, fixations shorter than 60 ms discarded: the defaults of the
//!   Tobii I-VT fixation filter (Olsen 2012, as listed by Tobii Pro Lab and by the
//!   `tobii-ivt-filter` 1.0.0 reconstruction; docs/study.md says what was checked where).
//! - Both: a run of valid samples breaks where consecutive valid samples are more than
//!   `max_gap_ms` apart (75 ms, the Tobii gap fill-in limit). Shorter losses are bridged,
//!   blinks (usually longer than 75 ms) end a fixation.
//!
//! The I-VT window is defined in milliseconds, not samples, so the detector behaves the same
//! at 30 Hz and at 2000 Hz: the velocity of sample k is the distance between the first and
//! the last valid sample within `[t_k - w/2, t_k + w/2]` over their time difference, with at
//! least one neighbour on each side (at 30 Hz a 20 ms window holds only sample k, so its
//! neighbours are used: a central difference over 67 ms).

use super::{Eye, Fixation, Sample};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Screen size and viewing distance, for pixel-to-degree conversion.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenGeometry {
    /// Screen width in pixels.
    pub width_px: f64,
    /// Screen height in pixels.
    pub height_px: f64,
    /// Screen width in cm.
    pub width_cm: f64,
    /// Screen height in cm.
    pub height_cm: f64,
    /// Eye-to-screen distance in cm.
    pub distance_cm: f64,
}

impl ScreenGeometry {
    /// Checks that every dimension is finite and positive.
    pub fn validate(&self) -> Result<()> {
        for (k, v) in [
            ("width_px", self.width_px),
            ("height_px", self.height_px),
            ("width_cm", self.width_cm),
            ("height_cm", self.height_cm),
            ("distance_cm", self.distance_cm),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::config("screen geometry", k, format!("{v} must be a positive number")));
            }
        }
        Ok(())
    }

    /// Position in degrees of visual angle from the screen centre:
    /// `atan((x - width_px/2) * width_cm/width_px / distance_cm)`, likewise for y.
    #[inline]
    pub fn to_degrees(&self, x: f64, y: f64) -> (f64, f64) {
        let cx = (x - self.width_px / 2.0) * self.width_cm / self.width_px;
        let cy = (y - self.height_px / 2.0) * self.height_cm / self.height_px;
        (cx.atan2(self.distance_cm).to_degrees(), cy.atan2(self.distance_cm).to_degrees())
    }

    /// Pixels spanned by `deg` degrees at the screen centre (horizontal).
    pub fn pixels_per_degree(&self) -> f64 {
        let cm = self.distance_cm * (0.5f64.to_radians()).tan() * 2.0;
        cm * self.width_px / self.width_cm
    }
}

/// I-DT parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IdtParams {
    /// Maximum dispersion `(max x - min x) + (max y - min y)` in degrees.
    pub dispersion_deg: f64,
    /// Minimum fixation duration in ms.
    pub min_duration_ms: f64,
    /// Longest bridged gap between valid samples in ms.
    pub max_gap_ms: f64,
}

impl Default for IdtParams {
    fn default() -> Self {
        IdtParams { dispersion_deg: 1.0, min_duration_ms: 100.0, max_gap_ms: 75.0 }
    }
}

impl IdtParams {
    /// Checks that every parameter is finite and in range.
    pub fn validate(&self) -> Result<()> {
        positive("I-DT", "dispersion_deg", self.dispersion_deg)?;
        non_negative("I-DT", "min_duration_ms", self.min_duration_ms)?;
        non_negative("I-DT", "max_gap_ms", self.max_gap_ms)
    }
}

/// I-VT parameters (defaults: the Tobii I-VT fixation filter's, see the module comment).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IvtParams {
    /// Samples slower than this (degrees/s) are fixation samples.
    pub velocity_deg_s: f64,
    /// Length of the velocity window in ms (centred on the sample; at least one neighbour
    /// on each side is always used).
    pub window_ms: f64,
    /// Minimum fixation duration in ms (shorter fixations are discarded after merging).
    pub min_duration_ms: f64,
    /// Longest bridged gap between valid samples in ms.
    pub max_gap_ms: f64,
    /// Adjacent fixations at most this far apart in time (ms, end to start) ...
    pub merge_gap_ms: f64,
    /// ... and at most this far apart in space (degrees, centre to centre) are merged.
    /// A negative gap or angle switches merging off.
    pub merge_angle_deg: f64,
}

impl Default for IvtParams {
    fn default() -> Self {
        IvtParams { velocity_deg_s: 30.0, window_ms: 20.0, min_duration_ms: 60.0, max_gap_ms: 75.0, merge_gap_ms: 75.0, merge_angle_deg: 0.5 }
    }
}

impl IvtParams {
    /// Checks that every parameter is finite and in range.
    pub fn validate(&self) -> Result<()> {
        positive("I-VT", "velocity_deg_s", self.velocity_deg_s)?;
        non_negative("I-VT", "window_ms", self.window_ms)?;
        non_negative("I-VT", "min_duration_ms", self.min_duration_ms)?;
        non_negative("I-VT", "max_gap_ms", self.max_gap_ms)?;
        for (k, v) in [("merge_gap_ms", self.merge_gap_ms), ("merge_angle_deg", self.merge_angle_deg)] {
            if !v.is_finite() {
                return Err(Error::config("I-VT", k, format!("{v} must be a finite number")));
            }
        }
        Ok(())
    }
}

fn positive(ctx: &str, key: &str, v: f64) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(Error::config(ctx, key, format!("{v} must be a positive number")))
    }
}

fn non_negative(ctx: &str, key: &str, v: f64) -> Result<()> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(Error::config(ctx, key, format!("{v} must be a finite number >= 0")))
    }
}

/// A streaming fixation detector for one eye: feed samples in time order, collect
/// fixations as they complete, call [`FixationDetector::finish`] at the end.
pub trait FixationDetector {
    /// Adds one sample (invalid samples, NaN positions, are skipped).
    fn push(&mut self, s: &Sample, out: &mut Vec<Fixation>);
    /// Flushes the fixation in progress, if any.
    fn finish(&mut self, out: &mut Vec<Fixation>);
}

/// A valid sample with its position in degrees.
#[derive(Debug, Clone, Copy)]
struct Pt {
    t: f64,
    xd: f64,
    yd: f64,
    x: f64,
    y: f64,
    pupil: f32,
}

impl Pt {
    fn new(s: &Sample, g: &ScreenGeometry) -> Pt {
        let (x, y) = (f64::from(s.x), f64::from(s.y));
        let (xd, yd) = g.to_degrees(x, y);
        Pt { t: s.time, xd, yd, x, y, pupil: s.pupil }
    }
}

/// Running sums of a fixation's samples (positions in pixels, as recorded).
#[derive(Debug, Clone, Copy)]
struct Acc {
    start: f64,
    end: f64,
    sx: f64,
    sy: f64,
    n: usize,
    sp: f64,
    np: usize,
}

impl Acc {
    fn new(p: &Pt) -> Acc {
        let mut a = Acc { start: p.t, end: p.t, sx: 0.0, sy: 0.0, n: 0, sp: 0.0, np: 0 };
        a.add(p);
        a
    }
    #[inline]
    fn add(&mut self, p: &Pt) {
        self.end = p.t;
        self.sx += p.x;
        self.sy += p.y;
        self.n += 1;
        if p.pupil.is_finite() {
            self.sp += f64::from(p.pupil);
            self.np += 1;
        }
    }
    fn merge(&mut self, o: &Acc) {
        self.end = o.end;
        self.sx += o.sx;
        self.sy += o.sy;
        self.n += o.n;
        self.sp += o.sp;
        self.np += o.np;
    }
    fn duration(&self, dt: f64) -> f64 {
        self.end - self.start + dt
    }
    fn centre(&self) -> (f64, f64) {
        (self.sx / self.n as f64, self.sy / self.n as f64)
    }
    fn fixation(&self, eye: Eye, dt: f64) -> Fixation {
        let (x, y) = self.centre();
        Fixation {
            eye,
            start: self.start,
            end: self.end,
            duration: self.duration(dt),
            x,
            y,
            pupil: if self.np > 0 { self.sp / self.np as f64 } else { f64::NAN },
        }
    }
}

/// Splits a stream of samples into runs of valid samples (see the module comment).
#[derive(Debug, Clone, Copy)]
struct Runs {
    max_gap: f64,
    last: f64,
}

impl Runs {
    fn new(max_gap: f64) -> Self {
        Runs { max_gap, last: f64::NAN }
    }
    /// True when `t` starts a new run (more than `max_gap` after the last valid sample, or
    /// not after it).
    #[inline]
    fn breaks(&mut self, t: f64) -> bool {
        let b = !(t > self.last && t - self.last <= self.max_gap);
        self.last = t;
        b
    }
}

/// Monotone deque for the minimum (or maximum) of a sliding window.
#[derive(Debug, Default)]
struct Extreme {
    q: VecDeque<(usize, f64)>,
    max: bool,
}

impl Extreme {
    fn new(max: bool) -> Self {
        Extreme { q: VecDeque::new(), max }
    }
    #[inline]
    fn push(&mut self, k: usize, v: f64) {
        while let Some(&(_, b)) = self.q.back() {
            if (self.max && b <= v) || (!self.max && b >= v) {
                self.q.pop_back();
            } else {
                break;
            }
        }
        self.q.push_back((k, v));
    }
    #[inline]
    fn drop_before(&mut self, i: usize) {
        while self.q.front().is_some_and(|&(k, _)| k < i) {
            self.q.pop_front();
        }
    }
    #[inline]
    fn value(&self) -> f64 {
        self.q.front().map_or(f64::NAN, |e| e.1)
    }
}

/// Streaming I-DT (Salvucci and Goldberg 2000): a window lasting at least the minimum
/// duration whose dispersion `(max x - min x) + (max y - min y)` (degrees) is within the
/// threshold starts a fixation; it grows sample by sample while the dispersion stays within
/// it; otherwise the window slides by one sample. `dt` (ms) is the sample interval:
/// duration = last - first + dt.
pub struct Idt {
    geom: ScreenGeometry,
    p: IdtParams,
    eye: Eye,
    dt: f64,
    runs: Runs,
    started: bool,
    win: VecDeque<Pt>,
    base: usize,
    ext: [Extreme; 4],
    fix: Option<(Acc, [f64; 4])>,
}

impl Idt {
    /// A detector for `eye` with sample interval `dt` ms.
    pub fn new(geom: ScreenGeometry, p: IdtParams, eye: Eye, dt: f64) -> Self {
        Idt {
            geom,
            p,
            eye,
            dt,
            runs: Runs::new(p.max_gap_ms),
            started: false,
            win: VecDeque::new(),
            base: 0,
            ext: [Extreme::new(false), Extreme::new(true), Extreme::new(false), Extreme::new(true)],
            fix: None,
        }
    }

    fn dispersion(&self) -> f64 {
        (self.ext[1].value() - self.ext[0].value()) + (self.ext[3].value() - self.ext[2].value())
    }

    fn end_run(&mut self, out: &mut Vec<Fixation>) {
        if let Some((acc, _)) = self.fix.take() {
            out.push(acc.fixation(self.eye, self.dt));
        }
        self.clear_window();
    }

    fn clear_window(&mut self) {
        self.base += self.win.len();
        self.win.clear();
        for e in &mut self.ext {
            e.q.clear();
        }
    }

    fn settle(&mut self) {
        while let (Some(f), Some(l)) = (self.win.front(), self.win.back()) {
            if l.t - f.t + self.dt < self.p.min_duration_ms {
                return;
            }
            if self.dispersion() <= self.p.dispersion_deg {
                let mut acc = Acc::new(f);
                for q in self.win.iter().skip(1) {
                    acc.add(q);
                }
                let bounds = [self.ext[0].value(), self.ext[1].value(), self.ext[2].value(), self.ext[3].value()];
                self.fix = Some((acc, bounds));
                self.clear_window();
                return;
            }
            self.win.pop_front();
            self.base += 1;
            for e in &mut self.ext {
                e.drop_before(self.base);
            }
        }
    }
}

impl FixationDetector for Idt {
    fn push(&mut self, s: &Sample, out: &mut Vec<Fixation>) {
        if !s.is_valid() {
            return;
        }
        if self.runs.breaks(s.time) && self.started {
            self.end_run(out);
        }
        self.started = true;
        let p = Pt::new(s, &self.geom);
        if let Some((acc, b)) = &mut self.fix {
            let nb = [b[0].min(p.xd), b[1].max(p.xd), b[2].min(p.yd), b[3].max(p.yd)];
            if (nb[1] - nb[0]) + (nb[3] - nb[2]) <= self.p.dispersion_deg {
                acc.add(&p);
                *b = nb;
                return;
            }
            out.push(acc.fixation(self.eye, self.dt));
            self.fix = None;
        }
        let k = self.base + self.win.len();
        self.win.push_back(p);
        self.ext[0].push(k, p.xd);
        self.ext[1].push(k, p.xd);
        self.ext[2].push(k, p.yd);
        self.ext[3].push(k, p.yd);
        self.settle();
    }

    fn finish(&mut self, out: &mut Vec<Fixation>) {
        self.end_run(out);
    }
}

/// Streaming I-VT with a velocity window in milliseconds, merging of adjacent fixations and
/// a minimum duration (see [`IvtParams`] and the module comment).
pub struct Ivt {
    geom: ScreenGeometry,
    p: IvtParams,
    eye: Eye,
    dt: f64,
    runs: Runs,
    started: bool,
    /// Samples of the current run still needed: velocity context and unclassified samples.
    buf: VecDeque<Pt>,
    /// Absolute index of `buf[0]`.
    base: usize,
    /// Absolute index of the next sample to classify.
    next: usize,
    /// The fixation samples being collected.
    group: Option<Acc>,
    /// The last complete fixation, held back until the next one shows whether they merge.
    pending: Option<Acc>,
}

impl Ivt {
    /// A detector for `eye` with sample interval `dt` ms.
    pub fn new(geom: ScreenGeometry, p: IvtParams, eye: Eye, dt: f64) -> Self {
        Ivt { geom, p, eye, dt, runs: Runs::new(p.max_gap_ms), started: false, buf: VecDeque::new(), base: 0, next: 0, group: None, pending: None }
    }

    /// Velocity (degrees/s) of the sample at absolute index `k`, from the samples buffered
    /// (the caller makes sure the window is complete or the run has ended).
    fn velocity(&self, k: usize) -> f64 {
        let i = k - self.base;
        let half = self.p.window_ms / 2.0;
        let t = self.buf[i].t;
        let mut lo = i;
        while lo > 0 && self.buf[lo - 1].t >= t - half {
            lo -= 1;
        }
        if lo == i && i > 0 {
            lo = i - 1;
        }
        let mut hi = i;
        while hi + 1 < self.buf.len() && self.buf[hi + 1].t <= t + half {
            hi += 1;
        }
        if hi == i && i + 1 < self.buf.len() {
            hi = i + 1;
        }
        if lo == hi {
            return f64::INFINITY;
        }
        let (a, b) = (&self.buf[lo], &self.buf[hi]);
        ((b.xd - a.xd).powi(2) + (b.yd - a.yd).powi(2)).sqrt() / (b.t - a.t) * 1000.0
    }

    fn classify(&mut self, k: usize, out: &mut Vec<Fixation>) {
        let v = self.velocity(k);
        let p = self.buf[k - self.base];
        if v < self.p.velocity_deg_s {
            match &mut self.group {
                Some(a) => a.add(&p),
                None => self.group = Some(Acc::new(&p)),
            }
        } else {
            self.close_group(out);
        }
    }

    fn close_group(&mut self, out: &mut Vec<Fixation>) {
        let Some(g) = self.group.take() else { return };
        if let Some(pend) = &mut self.pending {
            let merge_on = self.p.merge_gap_ms >= 0.0 && self.p.merge_angle_deg >= 0.0;
            if merge_on && g.start - pend.end <= self.p.merge_gap_ms {
                let (ax, ay) = pend.centre();
                let (bx, by) = g.centre();
                let (a, b) = (self.geom.to_degrees(ax, ay), self.geom.to_degrees(bx, by));
                if ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt() <= self.p.merge_angle_deg {
                    pend.merge(&g);
                    return;
                }
            }
        }
        self.flush_pending(out);
        self.pending = Some(g);
    }

    fn flush_pending(&mut self, out: &mut Vec<Fixation>) {
        if let Some(f) = self.pending.take() {
            if f.duration(self.dt) >= self.p.min_duration_ms {
                out.push(f.fixation(self.eye, self.dt));
            }
        }
    }

    /// Classifies the samples whose velocity window is complete, then drops the samples no
    /// later window needs.
    fn advance(&mut self, out: &mut Vec<Fixation>, run_done: bool) {
        let half = self.p.window_ms / 2.0;
        while self.next < self.base + self.buf.len() {
            let i = self.next - self.base;
            if !run_done {
                let last = self.buf.back().map_or(f64::NEG_INFINITY, |p| p.t);
                // Needs a later sample past the window (and at least one after i).
                if i + 1 >= self.buf.len() || last <= self.buf[i].t + half {
                    break;
                }
            }
            self.classify(self.next, out);
            self.next += 1;
        }
        // Keep the samples that the next sample's window can reach back to (and one more).
        if self.next < self.base + self.buf.len() {
            let t = self.buf[self.next - self.base].t;
            while self.base + 1 < self.next && self.buf[0].t < t - half {
                self.buf.pop_front();
                self.base += 1;
            }
        }
        if run_done {
            self.close_group(out);
            self.base += self.buf.len();
            self.buf.clear();
            self.next = self.base;
        }
    }
}

impl FixationDetector for Ivt {
    fn push(&mut self, s: &Sample, out: &mut Vec<Fixation>) {
        if !s.is_valid() {
            return;
        }
        if self.runs.breaks(s.time) && self.started {
            self.advance(out, true);
        }
        self.started = true;
        self.buf.push_back(Pt::new(s, &self.geom));
        self.advance(out, false);
    }

    fn finish(&mut self, out: &mut Vec<Fixation>) {
        self.advance(out, true);
        self.flush_pending(out);
    }
}

/// Runs a streaming detector over a slice.
pub fn run_detector(d: &mut dyn FixationDetector, samples: &[Sample]) -> Vec<Fixation> {
    let mut out = Vec::new();
    for s in samples {
        d.push(s, &mut out);
    }
    d.finish(&mut out);
    out
}

/// I-DT over a slice of samples of one eye (see [`Idt`]).
pub fn idt(samples: &[Sample], geom: &ScreenGeometry, p: &IdtParams, eye: Eye, dt: f64) -> Vec<Fixation> {
    run_detector(&mut Idt::new(*geom, *p, eye, dt), samples)
}

/// I-VT over a slice of samples of one eye (see [`Ivt`]).
pub fn ivt(samples: &[Sample], geom: &ScreenGeometry, p: &IvtParams, eye: Eye, dt: f64) -> Vec<Fixation> {
    run_detector(&mut Ivt::new(*geom, *p, eye, dt), samples)
}

/// How well detected fixations cover reference (tracker) fixations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    /// Reference fixations.
    pub reference: usize,
    /// Detected fixations.
    pub detected: usize,
    /// Reference fixations covered at least `min_overlap` of their duration.
    pub matched: usize,
    /// `matched / reference` (NaN when there are no reference fixations).
    pub share: f64,
    /// The overlap threshold used.
    pub min_overlap: f64,
    /// Per reference fixation: `(start, end, covered share of its duration)`.
    pub coverage: Vec<(f64, f64, f64)>,
}

/// For each reference fixation `[start, start + duration)`, the share of its time covered by
/// detected fixations (same convention); a reference counts as matched when the share
/// reaches `min_overlap`. Both lists are assumed to hold one eye.
pub fn agreement(reference: &[Fixation], detected: &[Fixation], min_overlap: f64) -> Agreement {
    let mut det: Vec<(f64, f64)> = detected.iter().map(|f| (f.start, f.start + f.duration)).collect();
    det.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut coverage = Vec::with_capacity(reference.len());
    let mut matched = 0;
    for r in reference {
        let (rs, re) = (r.start, r.start + r.duration);
        let first = det.partition_point(|d| d.1 <= rs);
        let mut covered = 0.0;
        for d in &det[first..] {
            if d.0 >= re {
                break;
            }
            covered += d.1.min(re) - d.0.max(rs);
        }
        let share = if re > rs { (covered / (re - rs)).min(1.0) } else { 0.0 };
        if share >= min_overlap {
            matched += 1;
        }
        coverage.push((r.start, r.end, share));
    }
    Agreement {
        reference: reference.len(),
        detected: detected.len(),
        matched,
        share: if reference.is_empty() { f64::NAN } else { matched as f64 / reference.len() as f64 },
        min_overlap,
        coverage,
    }
}

/// Onset agreement: the share of reference fixations (the tracker's own events) that a
/// detected fixation starts within `tolerance_ms` of. Matching is one to one: reference
/// fixations in time order each take the nearest unused detected onset within the tolerance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OnsetAgreement {
    /// Reference fixations.
    pub reference: usize,
    /// Detected fixations.
    pub detected: usize,
    /// Reference fixations matched.
    pub matched: usize,
    /// `matched / reference` (NaN without reference fixations).
    pub share: f64,
    /// The tolerance used (ms).
    pub tolerance_ms: f64,
    /// Per reference fixation: its start and the matched detected start.
    pub pairs: Vec<(f64, Option<f64>)>,
}

/// See [`OnsetAgreement`].
pub fn onset_agreement(reference: &[Fixation], detected: &[Fixation], tolerance_ms: f64) -> OnsetAgreement {
    let mut refs: Vec<f64> = reference.iter().map(|f| f.start).collect();
    refs.sort_by(f64::total_cmp);
    let mut det: Vec<f64> = detected.iter().map(|f| f.start).collect();
    det.sort_by(f64::total_cmp);
    let mut used = vec![false; det.len()];
    let mut pairs = Vec::with_capacity(refs.len());
    for &r in &refs {
        let best =
            det.iter().enumerate().filter(|(i, d)| !used[*i] && (*d - r).abs() <= tolerance_ms).min_by(|a, b| (a.1 - r).abs().total_cmp(&(b.1 - r).abs()));
        match best {
            Some((i, d)) => {
                used[i] = true;
                pairs.push((r, Some(*d)));
            }
            None => pairs.push((r, None)),
        }
    }
    let matched = pairs.iter().filter(|p| p.1.is_some()).count();
    OnsetAgreement {
        reference: refs.len(),
        detected: det.len(),
        matched,
        share: if refs.is_empty() { f64::NAN } else { matched as f64 / refs.len() as f64 },
        tolerance_ms,
        pairs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GEOM: ScreenGeometry = ScreenGeometry { width_px: 1280.0, height_px: 1024.0, width_cm: 38.0, height_cm: 30.2, distance_cm: 68.0 };

    fn s(t: f64, x: f32, y: f32) -> Sample {
        Sample { time: t, x, y, pupil: 100.0 }
    }

    #[test]
    fn degrees_follow_the_closed_form() {
        // 1 cm right of centre at 68 cm: atan(1/68).
        let px = 1280.0 / 38.0;
        let (dx, dy) = GEOM.to_degrees(640.0 + px, 512.0);
        assert!((dx - (1.0f64 / 68.0).atan().to_degrees()).abs() < 1e-12 && dy.abs() < 1e-12);
        // One degree at 68 cm spans 2*68*tan(0.5°) cm = 1.18684 cm = 39.98 px.
        assert!((GEOM.pixels_per_degree() - 2.0 * 68.0 * 0.5f64.to_radians().tan() * px).abs() < 1e-9);
    }

    /// Two steady fixations of 200 ms joined by a 20 ms saccade of 300 px, 1000 Hz:
    /// x = 400 + 0.2 (t mod 3) for t < 200, 400 + 15 (t - 199) for 200 <= t < 220, then 700.
    fn two_fixations() -> Vec<Sample> {
        let mut v = Vec::new();
        for t in 0..200 {
            v.push(s(t as f64, 400.0 + 0.2 * (t % 3) as f32, 500.0));
        }
        for t in 200..220 {
            v.push(s(t as f64, 400.0 + 15.0 * (t - 199) as f32, 500.0));
        }
        for t in 220..420 {
            v.push(s(t as f64, 700.0, 500.0 + 0.2 * (t % 2) as f32));
        }
        v
    }

    fn spans(f: &[Fixation]) -> Vec<(f64, f64)> {
        f.iter().map(|f| (f.start, f.end)).collect()
    }

    /// Hand derivation (1° is about 40 px here; 15 px near x = 400 is 0.371°):
    /// - I-DT (1°): the first window grows while x stays within 1°: up to t = 201 (x = 430,
    ///   30 px = 0.74°); t = 202 (x = 445, 45 px = 1.11°) ends it. The next window that fits
    ///   starts at t = 217 (x = 670 .. 700: 30 px) and runs to the end.
    /// - I-VT (30°/s, 20 ms window): at t = 190 the window [180, 200] spans 400 → 415, 15 px
    ///   in 20 ms = 18.5°/s (fixation); at t = 191, [181, 201]: 400.2 → 430, 36.8°/s
    ///   (saccade). At t = 228, [218, 238]: 685 → 700, 18.5°/s; at t = 227, 36.8°/s. The two
    ///   fixations are 7.5° apart, not merged.
    #[test]
    fn idt_and_ivt_find_planted_fixations() {
        let v = two_fixations();
        let f = idt(&v, &GEOM, &IdtParams::default(), Eye::Left, 1.0);
        assert_eq!(spans(&f), vec![(0.0, 201.0), (217.0, 419.0)]);
        assert_eq!(f[1].duration, 203.0);
        let f = ivt(&v, &GEOM, &IvtParams::default(), Eye::Left, 1.0);
        assert_eq!(spans(&f), vec![(0.0, 190.0), (228.0, 419.0)]);
        assert!((f[1].x - 700.0).abs() < 1e-9 && (f[1].y - 500.1).abs() < 0.01, "{:?}", f[1]);
    }

    /// The velocity window is 20 ms whatever the rate. A 2° jump at t = 100 ms (x = 400
    /// before, 480 px after) seen at 1000, 2000 and 100 Hz; by hand, a sample is a saccade
    /// sample while its window `[t - 10, t + 10]` (at least one neighbour each side) holds
    /// samples from both sides of the jump: at 1000 Hz from t = 90 to 109, so the fixations
    /// are [0, 89] and [110, 299]; at 2000 Hz [0, 89.5] and [110, 299.5]; at 100 Hz the
    /// window holds just the neighbours, so [0, 80] and [110, 290]. (A window of ±2 samples
    /// would give [0, 97] at 1000 Hz and [0, 70] at 100 Hz.)
    #[test]
    fn ivt_window_is_in_milliseconds() {
        for (hz, want) in [(1000.0, vec![(0.0, 89.0), (110.0, 299.0)]), (2000.0, vec![(0.0, 89.5), (110.0, 299.5)]), (100.0, vec![(0.0, 80.0), (110.0, 290.0)])]
        {
            let dt = 1000.0 / hz;
            let v: Vec<Sample> = (0..(300.0 / dt) as usize).map(|k| k as f64 * dt).map(|t| s(t, if t < 100.0 { 400.0 } else { 480.0 }, 500.0)).collect();
            assert_eq!(spans(&ivt(&v, &GEOM, &IvtParams::default(), Eye::Left, dt)), want, "{hz} Hz");
        }
    }

    #[test]
    fn ivt_merges_close_fixations_and_discards_short_ones() {
        // A 12 px (0.3°) jump in 2 ms inside one fixation: two fixations 0.3° apart that
        // merge into one (Olsen's merge step: gap <= 75 ms, angle <= 0.5°).
        let mut v: Vec<Sample> = (0..300).map(|t| s(t as f64, if t < 150 { 400.0 } else { 412.0 }, 500.0)).collect();
        let p = IvtParams { window_ms: 2.0, ..Default::default() };
        let f = ivt(&v, &GEOM, &p, Eye::Left, 1.0);
        assert_eq!(spans(&f), vec![(0.0, 299.0)]);
        // Without merging: two pieces, split where the jump makes the velocity 0.3°/2 ms = 150°/s.
        let f = ivt(&v, &GEOM, &IvtParams { merge_gap_ms: -1.0, ..p }, Eye::Left, 1.0);
        assert_eq!(spans(&f), vec![(0.0, 148.0), (151.0, 299.0)]);
        // A 40 ms stretch between blinks is dropped by the 60 ms minimum.
        for x in &mut v[40..150] {
            x.x = f32::NAN;
        }
        for x in &mut v[190..300] {
            x.x = f32::NAN;
        }
        assert!(ivt(&v, &GEOM, &p, Eye::Left, 1.0).is_empty());
    }

    #[test]
    fn blinks_split_and_short_gaps_bridge() {
        let mut v = two_fixations();
        // Track loss 50..150 (100 ms, a blink): the first fixation splits into 0..49 (too short)
        // and 150..~200.
        for s in &mut v[50..150] {
            s.x = f32::NAN;
        }
        let f = idt(&v, &GEOM, &IdtParams::default(), Eye::Left, 1.0);
        assert_eq!(f.len(), 1, "{f:?}");
        // A 30 ms loss is bridged.
        let mut v = two_fixations();
        for s in &mut v[50..80] {
            s.y = f32::NAN;
        }
        let f = idt(&v, &GEOM, &IdtParams::default(), Eye::Left, 1.0);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].start, 0.0);
    }

    #[test]
    fn idt_matches_brute_force_salvucci() {
        // Random walk with jumps; compare with the textbook O(n w) formulation.
        use rand::Rng;
        let mut rng = crate::rng::stream(7, &[1]);
        let mut v = Vec::new();
        let (mut x, mut y) = (600.0f32, 500.0f32);
        for t in 0..5000 {
            if rng.random::<f64>() < 0.01 {
                x = rng.random_range(100.0..1100.0);
                y = rng.random_range(100.0..900.0);
            }
            v.push(s(t as f64, x + rng.random_range(-8.0..8.0), y + rng.random_range(-8.0..8.0)));
        }
        let p = IdtParams::default();
        let fast = idt(&v, &GEOM, &p, Eye::Left, 1.0);
        let d: Vec<(f64, f64)> = v.iter().map(|s| GEOM.to_degrees(s.x as f64, s.y as f64)).collect();
        let disp = |a: usize, b: usize| {
            let w = &d[a..=b];
            let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
            for &(x, y) in w {
                x0 = x0.min(x);
                x1 = x1.max(x);
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
            (x1 - x0) + (y1 - y0)
        };
        let mut slow = Vec::new();
        let mut i = 0;
        while i + 99 < v.len() {
            let mut j = i + 99;
            if disp(i, j) <= 1.0 {
                while j + 1 < v.len() && disp(i, j + 1) <= 1.0 {
                    j += 1;
                }
                slow.push((i as f64, j as f64));
                i = j + 1;
            } else {
                i += 1;
            }
        }
        assert!(slow.len() > 10);
        assert_eq!(spans(&fast), slow);
    }

    /// The textbook I-VT (point to point velocities, Salvucci and Goldberg 2000) written out
    /// naively: with the window shorter than one sample interval (so only the neighbours are
    /// used), no merging and no minimum duration, the streaming detector must give the same
    /// groups of sub-threshold samples.
    #[test]
    fn ivt_matches_naive_central_difference() {
        use rand::Rng;
        let mut rng = crate::rng::stream(8, &[2]);
        let (mut x, mut y) = (600.0f32, 500.0f32);
        let mut v = Vec::new();
        for k in 0..3000 {
            if rng.random::<f64>() < 0.02 {
                x = rng.random_range(100.0..1100.0);
                y = rng.random_range(100.0..900.0);
            }
            v.push(s(k as f64 * 4.0, x + rng.random_range(-3.0..3.0), y + rng.random_range(-3.0..3.0)));
        }
        let p = IvtParams { window_ms: 1.0, min_duration_ms: 0.0, merge_gap_ms: -1.0, ..Default::default() };
        let got = spans(&ivt(&v, &GEOM, &p, Eye::Left, 4.0));
        let d: Vec<(f64, f64)> = v.iter().map(|s| GEOM.to_degrees(s.x as f64, s.y as f64)).collect();
        let n = v.len();
        let vel = |k: usize| {
            let (a, b) = (k.saturating_sub(1), (k + 1).min(n - 1));
            ((d[b].0 - d[a].0).powi(2) + (d[b].1 - d[a].1).powi(2)).sqrt() / (v[b].time - v[a].time) * 1000.0
        };
        let mut want = Vec::new();
        let mut start: Option<usize> = None;
        for k in 0..=n {
            let fix = k < n && vel(k) < 30.0;
            match (fix, start) {
                (true, None) => start = Some(k),
                (false, Some(s0)) => {
                    want.push((v[s0].time, v[k - 1].time));
                    start = None;
                }
                _ => {}
            }
        }
        assert!(want.len() > 20);
        assert_eq!(got, want);
    }

    /// The same planted scan path sampled at 30, 60, 500, 1000 and 2000 Hz: 12 fixations of
    /// 260 ms, 5-22° apart, joined by 40 ms linear saccades, with ±0.5 px alternating jitter.
    /// Both detectors must find every planted fixation and nothing else, with onsets within:
    /// - I-DT: one sample interval plus 10 ms (an onset falls on the first sample of the
    ///   window, and the last samples of a saccade within the 1° allowance, at most 8 ms of a
    ///   5°/40 ms saccade, may join it);
    /// - I-VT: two sample intervals plus 10 ms (a sample counts once its whole velocity
    ///   window is on target: 10 ms after the onset at high rates; where the 20 ms window
    ///   holds no neighbour, the central difference needs the previous sample on target too,
    ///   so the onset is the second on-target sample).
    #[test]
    fn both_detectors_find_the_planted_fixations_at_every_rate() {
        // (start ms, x px, y px); fixation k lasts from its start to 40 ms before the next.
        let plan: Vec<(f64, f64, f64)> =
            (0..12).map(|i| (i as f64 * 300.0, 200.0 + ((i * 7) % 10) as f64 * 90.0, 250.0 + ((i * 3) % 5) as f64 * 130.0)).collect();
        for w in plan.windows(2) {
            // At least 5° (200 px) between consecutive targets.
            assert!(((w[0].1 - w[1].1).powi(2) + (w[0].2 - w[1].2).powi(2)).sqrt() > 200.0);
        }
        let pos = |t: f64| -> (f64, f64) {
            let k = plan.iter().rposition(|p| p.0 <= t).unwrap_or(0);
            match plan.get(k + 1) {
                Some(next) if t > next.0 - 40.0 => {
                    let a = (t - (next.0 - 40.0)) / 40.0;
                    (plan[k].1 + a * (next.1 - plan[k].1), plan[k].2 + a * (next.2 - plan[k].2))
                }
                _ => (plan[k].1, plan[k].2),
            }
        };
        for hz in [30.0, 60.0, 500.0, 1000.0, 2000.0] {
            let dt = 1000.0 / hz;
            let n = (3580.0 / dt) as usize;
            let v: Vec<Sample> = (0..n)
                .map(|k| {
                    let t = k as f64 * dt;
                    let (x, y) = pos(t);
                    let j = if k % 2 == 0 { 0.5 } else { -0.5 };
                    s(t, (x + j) as f32, (y - j) as f32)
                })
                .collect();
            let reference: Vec<Fixation> =
                plan.iter().map(|&(s0, x, y)| Fixation { eye: Eye::Left, start: s0, end: s0 + 259.0, duration: 260.0, x, y, pupil: f64::NAN }).collect();
            for (name, f, tol) in [
                ("idt", idt(&v, &GEOM, &IdtParams::default(), Eye::Left, dt), dt + 10.0),
                ("ivt", ivt(&v, &GEOM, &IvtParams::default(), Eye::Left, dt), 2.0 * dt + 10.0),
            ] {
                let a = onset_agreement(&reference, &f, tol);
                assert_eq!((a.matched, a.detected), (plan.len(), plan.len()), "{name} at {hz} Hz: {:?}", a.pairs);
            }
        }
    }

    #[test]
    fn onset_agreement_matches_one_to_one() {
        let f = |s: f64| Fixation { eye: Eye::Left, start: s, end: s + 99.0, duration: 100.0, x: 0.0, y: 0.0, pupil: 0.0 };
        let a = onset_agreement(&[f(0.0), f(200.0), f(210.0)], &[f(5.0), f(204.0), f(400.0)], 10.0);
        // 0 ↔ 5; 200 ↔ 204; 210 would also take 204 but it is used: unmatched.
        assert_eq!(a.pairs, vec![(0.0, Some(5.0)), (200.0, Some(204.0)), (210.0, None)]);
        assert_eq!((a.matched, a.reference, a.detected), (2, 3, 3));
    }

    #[test]
    fn agreement_counts_overlap() {
        let f = |s: f64, d: f64| Fixation { eye: Eye::Left, start: s, end: s + d - 1.0, duration: d, x: 0.0, y: 0.0, pupil: 0.0 };
        let reference = [f(0.0, 100.0), f(200.0, 100.0), f(400.0, 100.0)];
        let detected = [f(10.0, 60.0), f(200.0, 30.0), f(240.0, 30.0), f(470.0, 100.0)];
        let a = agreement(&reference, &detected, 0.5);
        let shares: Vec<f64> = a.coverage.iter().map(|c| c.2).collect();
        assert_eq!(shares, vec![0.6, 0.6, 0.3]);
        assert_eq!((a.matched, a.reference, a.detected), (2, 3, 4));
    }
}
