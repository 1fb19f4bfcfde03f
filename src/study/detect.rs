//! Fixation detection from raw gaze samples: I-DT (dispersion threshold) and I-VT (velocity
//! threshold), after Salvucci and Goldberg (2000), with positions converted from pixels to
//! degrees of visual angle by the screen geometry.
//!
//! Defaults: I-DT 1.0° dispersion and 100 ms minimum duration; I-VT 20°/s and 60 ms minimum
//! duration (the Tobii I-VT filter's minimum). Missing samples (blinks, track loss: NaN
//! positions) are left out; a run of valid samples is broken where consecutive valid samples
//! are more than `max_gap_ms` apart (default 75 ms, the Tobii gap fill-in limit). Shorter
//! losses are bridged, blinks (usually longer than 75 ms) end a fixation. Both detectors run
//! in O(n) time: I-DT keeps the window's extremes in monotone deques.

use super::{Eye, Fixation, Sample};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

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

/// I-VT parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IvtParams {
    /// Samples slower than this (degrees/s, point to point) belong to fixations.
    pub velocity_deg_s: f64,
    /// Minimum fixation duration in ms.
    pub min_duration_ms: f64,
    /// Longest bridged gap between valid samples in ms.
    pub max_gap_ms: f64,
    /// Velocity at sample k is the distance from sample k-h to k+h over their time
    /// difference (h clipped at the ends of a run). h = 1 is the plain central difference;
    /// the default h = 2 (a 5-sample window) damps the noise of unfiltered 1000 Hz data.
    pub half_window: usize,
}

impl Default for IvtParams {
    fn default() -> Self {
        IvtParams { velocity_deg_s: 20.0, min_duration_ms: 60.0, max_gap_ms: 75.0, half_window: 2 }
    }
}

/// Valid samples in degrees, with the runs (index ranges) between long gaps.
struct Prepared {
    idx: Vec<u32>,
    ts: Vec<f64>,
    xd: Vec<f64>,
    yd: Vec<f64>,
    runs: Vec<(usize, usize)>,
}

fn prepare(samples: &[Sample], geom: &ScreenGeometry, max_gap: f64) -> Prepared {
    let mut p = Prepared { idx: Vec::with_capacity(samples.len()), ts: Vec::with_capacity(samples.len()), xd: Vec::with_capacity(samples.len()), yd: Vec::with_capacity(samples.len()), runs: Vec::new() };
    let mut run_start = 0;
    let mut last_t = f64::NEG_INFINITY;
    for (i, s) in samples.iter().enumerate() {
        if !s.is_valid() {
            continue;
        }
        let k = p.idx.len();
        if k > run_start && s.time - last_t > max_gap {
            p.runs.push((run_start, k));
            run_start = k;
        }
        let (x, y) = geom.to_degrees(f64::from(s.x), f64::from(s.y));
        p.idx.push(i as u32);
        p.ts.push(s.time);
        p.xd.push(x);
        p.yd.push(y);
        last_t = s.time;
    }
    if p.idx.len() > run_start {
        p.runs.push((run_start, p.idx.len()));
    }
    p
}

fn fixation_of(samples: &[Sample], idx: &[u32], eye: Eye, dt: f64) -> Fixation {
    let (mut sx, mut sy, mut sp, mut np) = (0.0, 0.0, 0.0, 0usize);
    for &i in idx {
        let s = &samples[i as usize];
        sx += f64::from(s.x);
        sy += f64::from(s.y);
        if s.pupil.is_finite() {
            sp += f64::from(s.pupil);
            np += 1;
        }
    }
    let n = idx.len() as f64;
    let start = samples[idx[0] as usize].time;
    let end = samples[idx[idx.len() - 1] as usize].time;
    Fixation {
        eye,
        start,
        end,
        duration: end - start + dt,
        x: sx / n,
        y: sy / n,
        pupil: if np > 0 { sp / np as f64 } else { f64::NAN },
    }
}

/// Monotone deque tracking the minimum (or maximum, with `sign = -1`) of a sliding window:
/// a Vec with a moving head, cleared when the window restarts.
struct Extreme {
    q: Vec<u32>,
    head: usize,
    sign: f64,
}

impl Extreme {
    fn new(sign: f64) -> Self {
        Extreme { q: Vec::with_capacity(1024), head: 0, sign }
    }
    #[inline]
    fn clear(&mut self) {
        self.q.clear();
        self.head = 0;
    }
    #[inline]
    fn push(&mut self, k: usize, v: &[f64]) {
        let s = self.sign;
        let vk = s * v[k];
        while self.q.len() > self.head && s * v[self.q[self.q.len() - 1] as usize] >= vk {
            self.q.pop();
        }
        self.q.push(k as u32);
    }
    #[inline]
    fn drop_before(&mut self, i: usize) {
        while self.head < self.q.len() && (self.q[self.head] as usize) < i {
            self.head += 1;
        }
    }
    #[inline]
    fn value(&self, v: &[f64]) -> f64 {
        v[self.q[self.head] as usize]
    }
}

/// I-DT: windows of at least `min_duration_ms` whose dispersion stays within
/// `dispersion_deg` become fixations, grown while the dispersion allows.
/// `dt` is the sample interval in ms (duration = last - first + dt).
pub fn idt(samples: &[Sample], geom: &ScreenGeometry, p: &IdtParams, eye: Eye, dt: f64) -> Vec<Fixation> {
    let prep = prepare(samples, geom, p.max_gap_ms);
    let (xd, yd, idx, ts) = (&prep.xd, &prep.yd, &prep.idx, &prep.ts);
    let time = |k: usize| ts[k];
    let mut out = Vec::new();
    let (mut minx, mut maxx, mut miny, mut maxy) = (Extreme::new(1.0), Extreme::new(-1.0), Extreme::new(1.0), Extreme::new(-1.0));
    for &(a, b) in &prep.runs {
        let mut i = a;
        let mut j = a; // next index to push
        for e in [&mut minx, &mut maxx, &mut miny, &mut maxy] {
            e.clear();
        }
        let disp = |minx: &Extreme, maxx: &Extreme, miny: &Extreme, maxy: &Extreme| {
            (maxx.value(xd) - minx.value(xd)) + (maxy.value(yd) - miny.value(yd))
        };
        while i < b {
            // Grow the window [i, j) to the minimum duration.
            while j < b && (j == i || time(j - 1) - time(i) + dt < p.min_duration_ms) {
                minx.push(j, xd);
                maxx.push(j, xd);
                miny.push(j, yd);
                maxy.push(j, yd);
                j += 1;
            }
            if time(j - 1) - time(i) + dt < p.min_duration_ms {
                break; // the rest of the run is too short
            }
            if disp(&minx, &maxx, &miny, &maxy) <= p.dispersion_deg {
                // Extend while the dispersion stays within the threshold.
                while j < b {
                    minx.push(j, xd);
                    maxx.push(j, xd);
                    miny.push(j, yd);
                    maxy.push(j, yd);
                    if disp(&minx, &maxx, &miny, &maxy) > p.dispersion_deg {
                        break;
                    }
                    j += 1;
                }
                out.push(fixation_of(samples, &idx[i..j], eye, dt));
                i = j;
                for e in [&mut minx, &mut maxx, &mut miny, &mut maxy] {
                    e.clear();
                }
            } else {
                i += 1;
                for e in [&mut minx, &mut maxx, &mut miny, &mut maxy] {
                    e.drop_before(i);
                }
                if j < i {
                    j = i;
                }
            }
        }
    }
    out
}

/// I-VT: samples whose velocity (see [`IvtParams::half_window`]) is below `velocity_deg_s` are fixation
/// samples; consecutive ones form a fixation if it lasts at least `min_duration_ms`.
pub fn ivt(samples: &[Sample], geom: &ScreenGeometry, p: &IvtParams, eye: Eye, dt: f64) -> Vec<Fixation> {
    let prep = prepare(samples, geom, p.max_gap_ms);
    let (xd, yd, idx, ts) = (&prep.xd, &prep.yd, &prep.idx, &prep.ts);
    let time = |k: usize| ts[k];
    let mut out = Vec::new();
    let velocity = |k: usize, l: usize| {
        let d = ((xd[l] - xd[k]).powi(2) + (yd[l] - yd[k]).powi(2)).sqrt();
        d / (time(l) - time(k)) * 1000.0
    };
    for &(a, b) in &prep.runs {
        if b - a < 2 {
            continue;
        }
        let mut start: Option<usize> = None;
        let flush = |s: usize, e: usize, out: &mut Vec<Fixation>| {
            if time(e - 1) - time(s) + dt >= p.min_duration_ms {
                out.push(fixation_of(samples, &idx[s..e], eye, dt));
            }
        };
        let h = p.half_window.max(1);
        for k in a..b {
            let v = velocity(k.saturating_sub(h).max(a), (k + h).min(b - 1));
            if v < p.velocity_deg_s {
                start.get_or_insert(k);
            } else if let Some(s) = start.take() {
                flush(s, k, &mut out);
            }
        }
        if let Some(s) = start {
            flush(s, b, &mut out);
        }
    }
    out
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

    /// Two steady fixations of 200 ms joined by a 20 ms saccade of 300 px, 1000 Hz.
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

    #[test]
    fn idt_and_ivt_find_planted_fixations() {
        let v = two_fixations();
        for f in [idt(&v, &GEOM, &IdtParams::default(), Eye::Left, 1.0), ivt(&v, &GEOM, &IvtParams::default(), Eye::Left, 1.0)] {
            assert_eq!(f.len(), 2, "{f:?}");
            assert!(f[0].start <= 1.0 && f[0].end >= 195.0 && f[0].end < 205.0, "{:?}", f[0]);
            assert!((f[1].x - 700.0).abs() < 1.0 && f[1].end == 419.0, "{:?}", f[1]);
            assert!((f[1].duration - (f[1].end - f[1].start + 1.0)).abs() < 1e-12);
        }
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
        let got: Vec<(f64, f64)> = fast.iter().map(|f| (f.start, f.end)).collect();
        assert!(slow.len() > 10);
        assert_eq!(got, slow);
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
