//! The report's sink: every measure of every (topic, system, profile) cell, paired differences
//! between systems, gain over time and effort, gain at fixed budgets, and (on request) every
//! session streamed to disk. Memory does not grow with the number of users: everything is a
//! mergeable summary from `stats::sketch` (exact counts and fixed-point sums, so the result is
//! the same whatever order units finish in).

use super::engine::{Record, Sink, Unit};
use super::walk::{GainEvents, Outcome};
use super::world::World;
use crate::error::{Error, Result};
use crate::stats::sketch::{ceil_i32, round_i128};
use crate::stats::{over_topics, Moments, Sketch, StreamSummary, TopicDiff, TopicInference};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

/// Which direction of a measure is better for the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    /// More is better (a benefit).
    Higher,
    /// Less is better (a cost).
    Lower,
    /// Neither (descriptive).
    Neither,
}

/// A measure of a session: its name, unit and better direction, and how it is read from an
/// [`Outcome`]. The four travel together in one row of [`MEASURES`], so a measure's column and
/// its value cannot come apart (there is no second list to keep in the same order).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct MeasureInfo {
    /// Name in outputs.
    pub name: &'static str,
    /// Unit for axis labels.
    pub unit: &'static str,
    /// Better direction.
    pub better: Better,
    /// The measure's value for one session.
    #[serde(skip)]
    pub value: fn(&Outcome) -> f64,
}

impl PartialEq for MeasureInfo {
    /// Two rows are equal when they name the same measure the same way (the accessor is the
    /// row's: function pointers are not compared).
    fn eq(&self, other: &Self) -> bool {
        (self.name, self.unit, self.better) == (other.name, other.unit, other.better)
    }
}

/// The session measures, in output order: one row per measure, `(name, unit, better, value)`.
/// Adding a measure is adding a row.
pub const MEASURES: [MeasureInfo; 13] = [
    MeasureInfo { name: "gain", unit: "gain", better: Better::Higher, value: |o| o.gain },
    MeasureInfo { name: "relevant_found", unit: "documents", better: Better::Higher, value: |o| o.relevant_found as f64 },
    MeasureInfo { name: "rate_of_gain", unit: "gain per second", better: Better::Higher, value: |o| if o.time > 0.0 { o.gain / o.time } else { 0.0 } },
    MeasureInfo { name: "effort", unit: "weighted actions", better: Better::Lower, value: |o| o.effort },
    MeasureInfo { name: "time", unit: "seconds", better: Better::Lower, value: |o| o.time },
    MeasureInfo { name: "adjusted_time", unit: "seconds without system delays", better: Better::Lower, value: |o| o.adjusted_time },
    MeasureInfo { name: "depth", unit: "results examined", better: Better::Lower, value: |o| o.depth as f64 },
    MeasureInfo { name: "clicks", unit: "documents read", better: Better::Lower, value: |o| o.clicks as f64 },
    MeasureInfo { name: "queries", unit: "queries", better: Better::Lower, value: |o| o.queries as f64 },
    MeasureInfo { name: "page_turns", unit: "page turns", better: Better::Lower, value: |o| o.page_turns as f64 },
    MeasureInfo { name: "switches", unit: "sublist selections", better: Better::Lower, value: |o| o.switches as f64 },
    MeasureInfo { name: "marks", unit: "documents marked", better: Better::Neither, value: |o| o.marks as f64 },
    MeasureInfo {
        name: "depth_per_query",
        unit: "results per query",
        better: Better::Neither,
        value: |o| if o.queries > 0 { o.depth as f64 / o.queries as f64 } else { 0.0 },
    },
];
/// Number of measures.
pub const N_MEASURES: usize = MEASURES.len();

impl Outcome {
    /// Every measure, in [`MEASURES`] order (each row's own accessor).
    #[inline]
    pub fn measures(&self) -> [f64; N_MEASURES] {
        std::array::from_fn(|m| (MEASURES[m].value)(self))
    }
}

/// Index of measure `name`.
pub fn measure_index(name: &str) -> Option<usize> {
    MEASURES.iter().position(|m| m.name == name)
}

/// Grid points 0, step, 2 step, ... (`points` of them) of a gain curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Grid {
    /// Distance between points.
    pub step: f64,
    /// Number of points.
    pub points: usize,
}

impl Grid {
    /// `points` points from 0 to `max`.
    pub fn to(max: f64, points: usize) -> Self {
        let points = points.max(2);
        Grid { step: (max / (points - 1) as f64).max(f64::MIN_POSITIVE), points }
    }
    /// The largest point.
    pub fn max(&self) -> f64 {
        self.step * (self.points - 1) as f64
    }
    /// Index of the first grid point at or after `x` (may be `points`: beyond the grid).
    #[inline]
    #[allow(clippy::neg_cmp_op_on_partial_ord)] // `!(y > 0.0)` sends NaN to 0 on purpose
    fn bin(&self, x: f64) -> usize {
        let y = x / self.step - 1e-9;
        // `ceil(y)`, 0 for y <= 0 and NaN, at most `points`; `ceil_i32` saves the call to
        // libm's `ceil` (1 % of a sweep's CPU).
        if !(y > 0.0) {
            0
        } else {
            (ceil_i32(y) as u32 as usize).min(self.points)
        }
    }
}

/// Settings of the report sink.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkConfig {
    /// Keep quantile sketches per topic (else only pooled over topics).
    pub per_topic_sketches: bool,
    /// Grid of the gain-over-time curve (seconds).
    pub time_grid: Grid,
    /// Grid of the gain-over-effort curve.
    pub effort_grid: Grid,
    /// Time budgets (seconds) at which gain is reported.
    pub time_budgets: Vec<f64>,
    /// Effort budgets at which gain is reported.
    pub effort_budgets: Vec<f64>,
    /// Compared system pairs (indices).
    pub pairs: Vec<(usize, usize)>,
    /// Where to stream per-session samples (a folder for part files), if wanted.
    pub samples: Option<PathBuf>,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct MeasureAcc {
    m: Moments,
    s: Sketch,
}

/// Fixed-point sums per grid bin of the gain increments (`g`) and of the squared-total increments
/// (`g2`, for the standard error over users). A topic's cell in the sink keeps only `g` (its
/// curve's mean, for the band over topics); its `g2` goes straight to the pooled cell.
#[derive(Debug, Clone, Default, PartialEq)]
struct CurveAcc {
    g: Vec<i128>,
    g2: Vec<i128>,
}

impl CurveAcc {
    fn new(points: usize) -> Self {
        CurveAcc { g: vec![0; points], g2: vec![0; points] }
    }
    /// A topic's curve in the sink: `g` only.
    fn topic(points: usize) -> Self {
        CurveAcc { g: vec![0; points], g2: Vec::new() }
    }
    fn add_g2(&mut self, o: &CurveAcc) {
        for (a, b) in self.g2.iter_mut().zip(&o.g2) {
            *a += b;
        }
    }
    fn merge(&mut self, o: &CurveAcc) {
        for (a, b) in self.g.iter_mut().zip(&o.g) {
            *a += b;
        }
        for (a, b) in self.g2.iter_mut().zip(&o.g2) {
            *a += b;
        }
    }
}

const SCALE: f64 = 4_294_967_296.0;

#[derive(Debug, Clone, Default, PartialEq)]
struct CellAcc {
    measures: Vec<MeasureAcc>,
    time_curve: CurveAcc,
    effort_curve: CurveAcc,
    time_budgets: Vec<Moments>,
    effort_budgets: Vec<Moments>,
}

impl CellAcc {
    fn new(cfg: &SinkConfig) -> Self {
        CellAcc {
            measures: vec![MeasureAcc::default(); N_MEASURES],
            time_curve: CurveAcc::new(cfg.time_grid.points),
            effort_curve: CurveAcc::new(cfg.effort_grid.points),
            time_budgets: vec![Moments::default(); cfg.time_budgets.len()],
            effort_budgets: vec![Moments::default(); cfg.effort_budgets.len()],
        }
    }
    /// A topic's cell in the sink (its curves without `g2`, see [`CurveAcc`]).
    fn topic(cfg: &SinkConfig) -> Self {
        CellAcc { time_curve: CurveAcc::topic(cfg.time_grid.points), effort_curve: CurveAcc::topic(cfg.effort_grid.points), ..CellAcc::new(cfg) }
    }
    /// Empties the cell in place (keeps its allocations: a unit reuses it for every topic).
    fn reset(&mut self) {
        for m in &mut self.measures {
            m.m = Moments::default();
            if m.s.n() > 0 {
                m.s = Sketch::default();
            }
        }
        for c in [&mut self.time_curve, &mut self.effort_curve] {
            c.g.fill(0);
            c.g2.fill(0);
        }
        self.time_budgets.fill(Moments::default());
        self.effort_budgets.fill(Moments::default());
    }
    fn merge(&mut self, o: &CellAcc, sketches: bool) {
        for (a, b) in self.measures.iter_mut().zip(&o.measures) {
            a.m.merge(&b.m);
            if sketches {
                a.s.merge(&b.s);
            }
        }
        self.time_curve.merge(&o.time_curve);
        self.effort_curve.merge(&o.effort_curve);
        for (a, b) in self.time_budgets.iter_mut().zip(&o.time_budgets) {
            a.merge(b);
        }
        for (a, b) in self.effort_budgets.iter_mut().zip(&o.effort_budgets) {
            a.merge(b);
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
struct DiffAcc {
    m: Moments,
    s: Sketch,
    higher: u64,
    lower: u64,
    tie: u64,
}

impl DiffAcc {
    #[inline]
    fn add(&mut self, a: f64, b: f64, sketch: bool) {
        let d = a - b;
        self.m.add(d);
        if sketch {
            self.s.add(d);
        }
        if a > b {
            self.higher += 1;
        } else if a < b {
            self.lower += 1;
        } else {
            self.tie += 1;
        }
    }
    fn merge(&mut self, o: &DiffAcc, sketch: bool) {
        self.m.merge(&o.m);
        if sketch {
            self.s.merge(&o.s);
        }
        self.higher += o.higher;
        self.lower += o.lower;
        self.tie += o.tie;
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
struct PairAcc {
    measures: Vec<DiffAcc>,
    time_budgets: Vec<DiffAcc>,
    effort_budgets: Vec<DiffAcc>,
}

impl PairAcc {
    fn new(cfg: &SinkConfig) -> Self {
        PairAcc {
            measures: vec![DiffAcc::default(); N_MEASURES],
            time_budgets: vec![DiffAcc::default(); cfg.time_budgets.len()],
            effort_budgets: vec![DiffAcc::default(); cfg.effort_budgets.len()],
        }
    }
    /// Empties the pair in place.
    fn reset(&mut self) {
        for d in self.measures.iter_mut().chain(&mut self.time_budgets).chain(&mut self.effort_budgets) {
            *d = DiffAcc::default();
        }
    }
    fn merge(&mut self, o: &PairAcc, sketch: bool) {
        for (a, b) in self.measures.iter_mut().zip(&o.measures) {
            a.merge(b, sketch);
        }
        for (a, b) in self.time_budgets.iter_mut().zip(&o.time_budgets) {
            a.merge(b, false);
        }
        for (a, b) in self.effort_budgets.iter_mut().zip(&o.effort_budgets) {
            a.merge(b, false);
        }
    }
}

/// Per-unit state.
#[derive(Debug)]
pub struct UnitAcc {
    cells: Vec<CellAcc>,
    pairs: Vec<PairAcc>,
    pooled: Vec<CellAcc>,
    pooled_pairs: Vec<PairAcc>,
    samples: Vec<u8>,
    budget_buf: Vec<[Vec<f64>; 2]>,
}

/// The report sink: give it to [`super::engine::run`], then call [`ReportSink::finish_summary`].
#[derive(Debug)]
pub struct ReportSink<'a> {
    world: &'a World,
    profiles: Vec<String>,
    cfg: SinkConfig,
    // [p][t][s], [p][t][pair], [p][s], [p][pair]
    cells: Vec<Mutex<CellAcc>>,
    pairs: Vec<Mutex<PairAcc>>,
    pooled: Vec<Mutex<CellAcc>>,
    pooled_pairs: Vec<Mutex<PairAcc>>,
}

impl<'a> ReportSink<'a> {
    /// A sink for `world` and the named profiles.
    pub fn new(world: &'a World, profiles: Vec<String>, cfg: SinkConfig) -> Result<Self> {
        let (np, nt, ns, npairs) = (profiles.len(), world.topics.len(), world.systems.len(), cfg.pairs.len());
        if let Some(dir) = &cfg.samples {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        Ok(ReportSink {
            world,
            profiles,
            cells: (0..np * nt * ns).map(|_| Mutex::new(CellAcc::topic(&cfg))).collect(),
            pairs: (0..np * nt * npairs).map(|_| Mutex::new(PairAcc::new(&cfg))).collect(),
            pooled: (0..np * ns).map(|_| Mutex::new(CellAcc::new(&cfg))).collect(),
            pooled_pairs: (0..np * npairs).map(|_| Mutex::new(PairAcc::new(&cfg))).collect(),
            cfg,
        })
    }

    fn cell_index(&self, p: usize, t: usize, s: usize) -> usize {
        (p * self.world.topics.len() + t) * self.world.systems.len() + s
    }

    /// Part file of a unit's samples.
    pub fn part_file(dir: &std::path::Path, unit: usize) -> PathBuf {
        dir.join(format!("part-{unit:08}.csv"))
    }

    /// Header of `samples.csv`.
    pub fn samples_header() -> String {
        let mut h = String::from("topic,system,profile,user");
        for m in MEASURES {
            h.push(',');
            h.push_str(m.name);
        }
        h
    }
}

/// Adds a session's gain events to its gain-over-time (`curves[0]`, axis `event.0`) and
/// gain-over-effort (`curves[1]`, axis `event.1`) curves: each event's increments go to the
/// bin of its time and of its effort, until the first event beyond each grid. One pass: the
/// two curves share the (rounded) increments.
#[inline]
fn add_curves(curves: [(&mut CurveAcc, &Grid); 2], events: &[(f64, f64, f64)]) {
    let [(tc, tg), (ec, eg)] = curves;
    let mut prev = 0.0f64;
    let (mut t_open, mut e_open) = (true, true);
    for e in events {
        let (bt, be) = (tg.bin(e.0), eg.bin(e.1));
        t_open &= bt < tg.points;
        e_open &= be < eg.points;
        if !(t_open || e_open) {
            break;
        }
        let total = e.2;
        let dg = round_i128((total - prev) * SCALE);
        let dg2 = round_i128((total * total - prev * prev) * SCALE);
        if t_open {
            tc.g[bt] += dg;
            tc.g2[bt] += dg2;
        }
        if e_open {
            ec.g[be] += dg;
            ec.g2[be] += dg2;
        }
        prev = total;
    }
}

/// Gain collected by `budget` on the given axis (0 time, 1 effort).
#[inline]
fn gain_by(events: &[(f64, f64, f64)], axis: usize, budget: f64) -> f64 {
    let mut g = 0.0;
    for e in events {
        let x = if axis == 0 { e.0 } else { e.1 };
        if x > budget {
            break;
        }
        g = e.2;
    }
    g
}

impl Sink for ReportSink<'_> {
    type Acc = UnitAcc;

    fn start(&self, unit: &Unit) -> UnitAcc {
        let (ns, npairs) = (self.world.systems.len(), self.cfg.pairs.len());
        let mut acc = UnitAcc {
            cells: (0..ns).map(|_| CellAcc::new(&self.cfg)).collect(),
            pairs: (0..npairs).map(|_| PairAcc::new(&self.cfg)).collect(),
            pooled: if self.cfg.per_topic_sketches { Vec::new() } else { (0..ns).map(|_| CellAcc::new(&self.cfg)).collect() },
            pooled_pairs: (0..npairs).map(|_| PairAcc::new(&self.cfg)).collect(),
            samples: Vec::new(),
            budget_buf: vec![[Vec::new(), Vec::new()]; ns],
        };
        // A pooled sketch that earlier units already bucketed stays bucketed whatever this unit
        // adds, so this unit's part starts bucketed: it skips the exact phase (a hash map grown to
        // `EXACT_CAP` values, then converted) and merges into the same buckets.
        let start_as = |local: &mut dyn Iterator<Item = &mut Sketch>, global: &mut dyn Iterator<Item = &Sketch>| {
            for (a, g) in local.zip(global) {
                if !g.is_exact() {
                    *a = Sketch::bucketed();
                }
            }
        };
        for (s, local) in acc.pooled.iter_mut().enumerate() {
            let global = self.pooled[unit.profile * ns + s].lock().expect("no panics while locked");
            start_as(&mut local.measures.iter_mut().map(|m| &mut m.s), &mut global.measures.iter().map(|m| &m.s));
        }
        for (k, local) in acc.pooled_pairs.iter_mut().enumerate() {
            let global = self.pooled_pairs[unit.profile * npairs + k].lock().expect("no panics while locked");
            start_as(&mut local.measures.iter_mut().map(|m| &mut m.s), &mut global.measures.iter().map(|m| &m.s));
        }
        acc
    }

    fn record(&self, acc: &mut UnitAcc, r: &Record) {
        let cfg = &self.cfg;
        let pooled_direct = !cfg.per_topic_sketches;
        for (s, o) in r.outcomes.iter().enumerate() {
            let Some(o) = o else { continue };
            let v = o.measures();
            let events: &GainEvents = &r.events[s];
            let cell = &mut acc.cells[s];
            for (m, &x) in v.iter().enumerate() {
                cell.measures[m].m.add(x);
                if cfg.per_topic_sketches {
                    cell.measures[m].s.add(x);
                }
            }
            add_curves([(&mut cell.time_curve, &cfg.time_grid), (&mut cell.effort_curve, &cfg.effort_grid)], &events.0);
            let buf = &mut acc.budget_buf[s];
            buf[0].clear();
            buf[1].clear();
            for (i, &b) in cfg.time_budgets.iter().enumerate() {
                let g = gain_by(&events.0, 0, b);
                cell.time_budgets[i].add(g);
                buf[0].push(g);
            }
            for (i, &b) in cfg.effort_budgets.iter().enumerate() {
                let g = gain_by(&events.0, 1, b);
                cell.effort_budgets[i].add(g);
                buf[1].push(g);
            }
            if pooled_direct {
                let p = &mut acc.pooled[s];
                for (m, &x) in v.iter().enumerate() {
                    p.measures[m].s.add(x);
                }
            }
            if cfg.samples.is_some() {
                let w = &mut acc.samples;
                let _ = write!(
                    w,
                    "{},{},{},{}",
                    crate::write::csv_field(&self.world.topics[r.topic].id),
                    crate::write::csv_field(&self.world.systems[s].name),
                    crate::write::csv_field(&self.profiles[r.unit.profile]),
                    r.user
                );
                for x in v {
                    let _ = write!(w, ",{}", crate::write::fmt_f64(x));
                }
                w.push(b'\n');
            }
        }
        for (k, &(a, b)) in cfg.pairs.iter().enumerate() {
            let (Some(oa), Some(ob)) = (&r.outcomes[a], &r.outcomes[b]) else { continue };
            let (va, vb) = (oa.measures(), ob.measures());
            let pair = &mut acc.pairs[k];
            for m in 0..N_MEASURES {
                pair.measures[m].add(va[m], vb[m], false);
            }
            for i in 0..cfg.time_budgets.len() {
                pair.time_budgets[i].add(acc.budget_buf[a][0][i], acc.budget_buf[b][0][i], false);
            }
            for i in 0..cfg.effort_budgets.len() {
                pair.effort_budgets[i].add(acc.budget_buf[a][1][i], acc.budget_buf[b][1][i], false);
            }
            for m in 0..N_MEASURES {
                acc.pooled_pairs[k].measures[m].s.add(va[m] - vb[m]);
            }
        }
    }

    fn topic_done(&self, acc: &mut UnitAcc, unit: &Unit, topic: usize) {
        let sk = self.cfg.per_topic_sketches;
        // Merge the topic's cells and pairs, then empty them in place for the next topic.
        for s in 0..self.world.systems.len() {
            let local = &mut acc.cells[s];
            if local.measures[0].m.n == 0 {
                continue;
            }
            let i = self.cell_index(unit.profile, topic, s);
            self.cells[i].lock().expect("no panics while locked").merge(local, sk);
            {
                let mut pooled = self.pooled[unit.profile * self.world.systems.len() + s].lock().expect("no panics while locked");
                pooled.time_curve.add_g2(&local.time_curve);
                pooled.effort_curve.add_g2(&local.effort_curve);
            }
            local.reset();
        }
        for k in 0..self.cfg.pairs.len() {
            let local = &mut acc.pairs[k];
            if local.measures[0].m.n == 0 {
                continue;
            }
            let i = (unit.profile * self.world.topics.len() + topic) * self.cfg.pairs.len() + k;
            self.pairs[i].lock().expect("no panics while locked").merge(local, sk);
            local.reset();
        }
    }

    fn finish(&self, unit: &Unit, acc: UnitAcc) -> Result<()> {
        if !self.cfg.per_topic_sketches {
            let ns = self.world.systems.len();
            for (s, local) in acc.pooled.iter().enumerate() {
                let mut g = self.pooled[unit.profile * ns + s].lock().expect("no panics while locked");
                for (a, b) in g.measures.iter_mut().zip(&local.measures) {
                    a.s.merge(&b.s);
                }
            }
        }
        {
            for (k, local) in acc.pooled_pairs.iter().enumerate() {
                let mut g = self.pooled_pairs[unit.profile * self.cfg.pairs.len() + k].lock().expect("no panics while locked");
                for (a, b) in g.measures.iter_mut().zip(&local.measures) {
                    a.s.merge(&b.s);
                }
            }
        }
        if let Some(dir) = &self.cfg.samples {
            let path = Self::part_file(dir, unit.index);
            std::fs::write(&path, &acc.samples).map_err(|e| Error::io(&path, e))?;
        }
        Ok(())
    }
}

/// The byte form of the report sink's state (see [`ReportSink::state`]).
mod state {
    use super::*;
    use crate::stats::sketch::codec::{Reader, Writer};

    pub(super) const MAGIC: u64 = 0x7365_7270_7369_6d31; // "serpsim1"

    fn list<T>(w: &mut Writer, xs: &[T], f: impl Fn(&mut Writer, &T)) {
        w.u64(xs.len() as u64);
        xs.iter().for_each(|x| f(w, x));
    }

    fn read_list<T>(r: &mut Reader, f: impl Fn(&mut Reader) -> Result<T>) -> Result<Vec<T>> {
        let n = r.len(1)?;
        (0..n).map(|_| f(r)).collect()
    }

    fn moments(w: &mut Writer, m: &Moments) {
        m.encode(w)
    }

    pub(super) fn cell(w: &mut Writer, c: &CellAcc) {
        list(w, &c.measures, |w, m| {
            m.m.encode(w);
            m.s.encode(w);
        });
        for curve in [&c.time_curve, &c.effort_curve] {
            w.i128s(&curve.g);
            w.i128s(&curve.g2);
        }
        list(w, &c.time_budgets, moments);
        list(w, &c.effort_budgets, moments);
    }

    pub(super) fn read_cell(r: &mut Reader) -> Result<CellAcc> {
        let measures = read_list(r, |r| Ok(MeasureAcc { m: Moments::decode(r)?, s: Sketch::decode(r)? }))?;
        let time_curve = CurveAcc { g: r.i128s()?, g2: r.i128s()? };
        let effort_curve = CurveAcc { g: r.i128s()?, g2: r.i128s()? };
        let time_budgets = read_list(r, Moments::decode)?;
        let effort_budgets = read_list(r, Moments::decode)?;
        Ok(CellAcc { measures, time_curve, effort_curve, time_budgets, effort_budgets })
    }

    fn diff(w: &mut Writer, d: &DiffAcc) {
        d.m.encode(w);
        d.s.encode(w);
        w.u64(d.higher);
        w.u64(d.lower);
        w.u64(d.tie);
    }

    fn read_diff(r: &mut Reader) -> Result<DiffAcc> {
        Ok(DiffAcc { m: Moments::decode(r)?, s: Sketch::decode(r)?, higher: r.u64()?, lower: r.u64()?, tie: r.u64()? })
    }

    pub(super) fn pair(w: &mut Writer, p: &PairAcc) {
        list(w, &p.measures, diff);
        list(w, &p.time_budgets, diff);
        list(w, &p.effort_budgets, diff);
    }

    pub(super) fn read_pair(r: &mut Reader) -> Result<PairAcc> {
        Ok(PairAcc { measures: read_list(r, read_diff)?, time_budgets: read_list(r, read_diff)?, effort_budgets: read_list(r, read_diff)? })
    }
}

impl ReportSink<'_> {
    /// The sink's accumulated state as bytes: what a shard of the run ([`super::engine::run_units`])
    /// sends to the process that writes the report. Moments travel as exact fixed-point sums
    /// and sketches as counts, so [`ReportSink::merge_state`] of the shards' states gives the
    /// very accumulators one process running every unit would hold (merging is exact and does
    /// not depend on order).
    pub fn state(&self) -> Vec<u8> {
        use crate::stats::sketch::codec::Writer;
        let mut w = Writer::default();
        w.u64(state::MAGIC);
        for n in [self.profiles.len(), self.world.topics.len(), self.world.systems.len(), self.cfg.pairs.len()] {
            w.u64(n as u64);
        }
        w.u64(u64::from(self.cfg.per_topic_sketches));
        let lock = |m: &Mutex<CellAcc>| m.lock().expect("no panics while locked").clone();
        let lock_pair = |m: &Mutex<PairAcc>| m.lock().expect("no panics while locked").clone();
        for group in [&self.cells, &self.pooled] {
            w.u64(group.len() as u64);
            group.iter().for_each(|c| state::cell(&mut w, &lock(c)));
        }
        for group in [&self.pairs, &self.pooled_pairs] {
            w.u64(group.len() as u64);
            group.iter().for_each(|p| state::pair(&mut w, &lock_pair(p)));
        }
        w.0
    }

    /// Merges the state of another sink of the same scenario (see [`ReportSink::state`]).
    pub fn merge_state(&self, bytes: &[u8]) -> Result<()> {
        use crate::stats::sketch::codec::Reader;
        let mut r = Reader(bytes);
        let bad = |what: &str| Error::Invalid(format!("summary state: {what} (a shard of another scenario or version?)"));
        if r.u64()? != state::MAGIC {
            return Err(bad("not a serpsim summary state"));
        }
        for n in [self.profiles.len(), self.world.topics.len(), self.world.systems.len(), self.cfg.pairs.len()] {
            if r.u64()? != n as u64 {
                return Err(bad("its shape differs from this scenario's"));
            }
        }
        let sk = self.cfg.per_topic_sketches;
        if r.u64()? != u64::from(sk) {
            return Err(bad("its quantile setting differs"));
        }
        let shape_cell = |c: &CellAcc| {
            c.measures.len() == N_MEASURES
                && c.time_curve.g.len() == self.cfg.time_grid.points
                && c.effort_curve.g.len() == self.cfg.effort_grid.points
                && c.time_budgets.len() == self.cfg.time_budgets.len()
                && c.effort_budgets.len() == self.cfg.effort_budgets.len()
        };
        let shape_pair = |p: &PairAcc| {
            p.measures.len() == N_MEASURES && p.time_budgets.len() == self.cfg.time_budgets.len() && p.effort_budgets.len() == self.cfg.effort_budgets.len()
        };
        // Decode everything before merging anything: a bad state leaves the sink unchanged.
        let mut cell_groups = Vec::new();
        for group in [&self.cells, &self.pooled] {
            if r.len(1)? != group.len() {
                return Err(bad("its number of cells differs"));
            }
            let cells = (0..group.len()).map(|_| state::read_cell(&mut r)).collect::<Result<Vec<_>>>()?;
            if !cells.iter().all(shape_cell) {
                return Err(bad("its grids or budgets differ"));
            }
            cell_groups.push(cells);
        }
        let mut pair_groups = Vec::new();
        for group in [&self.pairs, &self.pooled_pairs] {
            if r.len(1)? != group.len() {
                return Err(bad("its number of pairs differs"));
            }
            let pairs = (0..group.len()).map(|_| state::read_pair(&mut r)).collect::<Result<Vec<_>>>()?;
            if !pairs.iter().all(shape_pair) {
                return Err(bad("its budgets differ"));
            }
            pair_groups.push(pairs);
        }
        if !r.is_empty() {
            return Err(bad("trailing bytes"));
        }
        // The merges `topic_done` and `finish` do: cells and pairs whole, pooled ones by sketch.
        for (g, o) in self.cells.iter().zip(&cell_groups[0]) {
            g.lock().expect("no panics while locked").merge(o, sk);
        }
        for (g, o) in self.pooled.iter().zip(&cell_groups[1]) {
            let mut g = g.lock().expect("no panics while locked");
            for (a, b) in g.measures.iter_mut().zip(&o.measures) {
                a.s.merge(&b.s);
            }
            g.time_curve.add_g2(&o.time_curve);
            g.effort_curve.add_g2(&o.effort_curve);
        }
        for (g, o) in self.pairs.iter().zip(&pair_groups[0]) {
            g.lock().expect("no panics while locked").merge(o, sk);
        }
        for (g, o) in self.pooled_pairs.iter().zip(&pair_groups[1]) {
            let mut g = g.lock().expect("no panics while locked");
            for (a, b) in g.measures.iter_mut().zip(&o.measures) {
                a.s.merge(&b.s);
            }
        }
        Ok(())
    }
}

/// A gain curve over topics: the mean gain collected by each grid point, its Monte-Carlo
/// standard error, and the 95 % interval that generalises over topics and users.
///
/// `lo` and `hi` are the t interval ([`crate::stats::topics::mean_interval`]) of the mean over
/// topics of each topic's mean curve `m_t(x)` (each topic's curve averaged over its users):
/// topics are a sample of information needs and users a sample within each topic, so the
/// spread of `m_t(x)` over topics carries both sources of variation (two-stage sampling; see
/// `stats::topics`). Topics weigh equally; a scenario run gives every topic the same users, so
/// the interval is centred on `mean`. Below two topics there is no interval (NaN): nothing is
/// known about other topics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    /// Grid points (seconds or effort).
    pub x: Vec<f64>,
    /// Mean gain by x over every session (topics pooled).
    pub mean: Vec<f64>,
    /// Monte-Carlo standard error of `mean`: sessions as independent draws with the topics
    /// fixed (users only). It says how precise the simulation is, not how far the result
    /// carries to other topics (that is `lo`..`hi`).
    pub se: Vec<f64>,
    /// Topics with sessions, over which `lo` and `hi` are computed.
    pub topics: usize,
    /// Lower end of the 95 % interval of the mean gain by x over topics and users within
    /// topics (NaN below two topics).
    pub lo: Vec<f64>,
    /// Upper end of that interval.
    pub hi: Vec<f64>,
}

/// Level of the interval of [`Curve`] (`lo`, `hi`).
pub const CURVE_LEVEL: f64 = 0.95;

/// The curve of pooled accumulator `c` over `n` sessions, with the interval over `topics`
/// (each topic's accumulator and its session count).
fn curve_of(c: &CurveAcc, grid: &Grid, n: u64, topics: &[(&CurveAcc, u64)]) -> Curve {
    let (mut g, mut g2) = (0i128, 0i128);
    let mut out = Curve { x: Vec::new(), mean: Vec::new(), se: Vec::new(), topics: topics.len(), lo: Vec::new(), hi: Vec::new() };
    let nf = n.max(1) as f64;
    let mut topic_g = vec![0i128; topics.len()];
    let mut topic_means = vec![0.0; topics.len()];
    for k in 0..grid.points {
        g += c.g[k];
        g2 += c.g2[k];
        let m = g as f64 / SCALE / nf;
        let m2 = g2 as f64 / SCALE / nf;
        let var = if n > 1 { ((m2 - m * m) * nf / (nf - 1.0)).max(0.0) } else { 0.0 };
        out.x.push(grid.step * k as f64);
        out.mean.push(m);
        out.se.push((var / nf).sqrt());
        for (i, &(t, nt)) in topics.iter().enumerate() {
            topic_g[i] += t.g[k];
            topic_means[i] = topic_g[i] as f64 / SCALE / nt.max(1) as f64;
        }
        let (_, lo, hi) = crate::stats::topics::mean_interval(&topic_means, CURVE_LEVEL);
        out.lo.push(lo);
        out.hi.push(hi);
    }
    out
}

/// A paired difference A - B of one measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffSummary {
    /// Measure (or budget) name.
    pub measure: String,
    /// Better direction.
    pub better: Better,
    /// Paired sessions.
    pub n: u64,
    /// Mean of A.
    pub mean_a: f64,
    /// Mean of B.
    pub mean_b: f64,
    /// Mean difference A - B.
    pub diff_mean: f64,
    /// Standard error of the mean difference (sessions as independent pairs).
    pub diff_se: f64,
    /// P(A > B) over paired sessions.
    pub p_a_higher: f64,
    /// P(A = B).
    pub p_tie: f64,
    /// P(A < B).
    pub p_a_lower: f64,
    /// P(A better than B): `p_a_higher` for benefits, `p_a_lower` for costs, NaN otherwise.
    pub p_a_better: f64,
    /// Quantiles 5, 25, 50, 75, 95 % of the difference (NaN when not kept).
    pub diff_quantiles: [f64; 5],
    /// Whether the quantiles are exact.
    pub exact: bool,
    /// Over topics and users (pooled comparisons only): the mean of the per-topic mean
    /// differences with its t interval, paired t test over topics, P(mean difference > 0),
    /// effect size and the Monte-Carlo error apart ([`crate::stats::topics`]).
    #[serde(rename = "over_topics_users")]
    pub topics: Option<TopicInference>,
}

fn diff_summary(name: &str, better: Better, d: &DiffAcc, mean_a: f64, mean_b: f64) -> DiffSummary {
    let n = d.m.n.max(1) as f64;
    let (h, l, t) = (d.higher as f64 / n, d.lower as f64 / n, d.tie as f64 / n);
    let q = d.s.quantiles(&[0.05, 0.25, 0.5, 0.75, 0.95]);
    DiffSummary {
        measure: name.to_string(),
        better,
        n: d.m.n,
        mean_a,
        mean_b,
        diff_mean: d.m.mean(),
        diff_se: d.m.se(),
        p_a_higher: h,
        p_tie: t,
        p_a_lower: l,
        p_a_better: match better {
            Better::Higher => h,
            Better::Lower => l,
            Better::Neither => f64::NAN,
        },
        diff_quantiles: [q[0], q[1], q[2], q[3], q[4]],
        exact: d.s.is_exact(),
        topics: None,
    }
}

/// Summary of one (topic, system, profile) cell, or of one (system, profile) over topics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellSummary {
    /// Topic id (`None` when pooled over topics).
    pub topic: Option<String>,
    /// System.
    pub system: String,
    /// Profile.
    pub profile: String,
    /// One summary per measure, in [`MEASURES`] order.
    pub measures: Vec<StreamSummary>,
    /// Gain collected by each time budget: mean and se.
    pub time_budgets: Vec<(f64, f64, f64)>,
    /// Gain collected by each effort budget: mean and se.
    pub effort_budgets: Vec<(f64, f64, f64)>,
}

/// A pooled cell with what the plots need.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PooledSummary {
    /// The summary.
    pub summary: CellSummary,
    /// Gain over time.
    pub time_curve: Curve,
    /// Gain over effort.
    pub effort_curve: Curve,
    /// Sorted `(value, count)` per measure, for ECDFs.
    #[serde(skip)]
    pub distributions: Vec<Vec<(f64, u64)>>,
}

/// The comparison of systems A and B under one profile, on one topic or pooled.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairSummary {
    /// Profile.
    pub profile: String,
    /// System A.
    pub system_a: String,
    /// System B.
    pub system_b: String,
    /// Topic (`None`: pooled over the topics both systems answer).
    pub topic: Option<String>,
    /// One difference per measure.
    pub measures: Vec<DiffSummary>,
    /// Gain by each time budget.
    pub time_budgets: Vec<DiffSummary>,
    /// Gain by each effort budget.
    pub effort_budgets: Vec<DiffSummary>,
}

/// Everything the report writes, as plain data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    /// Per topic, system and profile.
    pub cells: Vec<CellSummary>,
    /// Per system and profile, over topics.
    pub pooled: Vec<PooledSummary>,
    /// Per profile, pair and topic.
    pub pairs: Vec<PairSummary>,
    /// Per profile and pair, over topics.
    pub pooled_pairs: Vec<PairSummary>,
    /// The grids.
    pub time_grid: Grid,
    /// The effort grid.
    pub effort_grid: Grid,
    /// Time budgets.
    pub time_budgets: Vec<f64>,
    /// Effort budgets.
    pub effort_budgets: Vec<f64>,
    /// Whether per-topic quantiles were kept.
    pub per_topic_quantiles: bool,
}

fn budgets_of(ms: &[Moments], budgets: &[f64]) -> Vec<(f64, f64, f64)> {
    ms.iter().zip(budgets).map(|(m, &b)| (b, m.mean(), m.se())).collect()
}

impl ReportSink<'_> {
    /// The summaries, after the run.
    pub fn finish_summary(self) -> RunSummary {
        let (np, nt, ns, npairs) = (self.profiles.len(), self.world.topics.len(), self.world.systems.len(), self.cfg.pairs.len());
        let sk = self.cfg.per_topic_sketches;
        let mut cells: Vec<CellAcc> = self.cells.into_iter().map(|m| m.into_inner().expect("no panics while locked")).collect();
        let mut pairs: Vec<PairAcc> = self.pairs.into_iter().map(|m| m.into_inner().expect("no panics while locked")).collect();
        let mut pooled: Vec<CellAcc> = self.pooled.into_iter().map(|m| m.into_inner().expect("no panics while locked")).collect();
        let mut pooled_pairs: Vec<PairAcc> = self.pooled_pairs.into_iter().map(|m| m.into_inner().expect("no panics while locked")).collect();
        let cfg = self.cfg;
        let world = self.world;
        let mut out = RunSummary {
            cells: Vec::new(),
            pooled: Vec::new(),
            pairs: Vec::new(),
            pooled_pairs: Vec::new(),
            time_grid: cfg.time_grid,
            effort_grid: cfg.effort_grid,
            time_budgets: cfg.time_budgets.clone(),
            effort_budgets: cfg.effort_budgets.clone(),
            per_topic_quantiles: sk,
        };
        let empty = Sketch::default();
        let summary = |c: &CellAcc, topic: Option<String>, s: usize, p: usize, with_q: bool| CellSummary {
            topic,
            system: world.systems[s].name.clone(),
            profile: self.profiles[p].clone(),
            measures: c.measures.iter().map(|m| StreamSummary::of(&m.m, if with_q { &m.s } else { &empty })).collect(),
            time_budgets: budgets_of(&c.time_budgets, &cfg.time_budgets),
            effort_budgets: budgets_of(&c.effort_budgets, &cfg.effort_budgets),
        };
        for p in 0..np {
            for s in 0..ns {
                for t in 0..nt {
                    let c = &cells[(p * nt + t) * ns + s];
                    if c.measures[0].m.n == 0 {
                        continue;
                    }
                    out.cells.push(summary(c, Some(world.topics[t].id.clone()), s, p, sk));
                    pooled[p * ns + s].merge(c, sk);
                }
                let c = &pooled[p * ns + s];
                if c.measures[0].m.n == 0 {
                    continue;
                }
                // Each topic's curve accumulator, for the band over topics.
                let topic_cells = (0..nt).map(|t| &cells[(p * nt + t) * ns + s]).filter(|c| c.measures[0].m.n > 0);
                let time_topics: Vec<(&CurveAcc, u64)> = topic_cells.clone().map(|c| (&c.time_curve, c.measures[0].m.n)).collect();
                let effort_topics: Vec<(&CurveAcc, u64)> = topic_cells.map(|c| (&c.effort_curve, c.measures[0].m.n)).collect();
                out.pooled.push(PooledSummary {
                    summary: summary(c, None, s, p, true),
                    time_curve: curve_of(&c.time_curve, &cfg.time_grid, c.measures[0].m.n, &time_topics),
                    effort_curve: curve_of(&c.effort_curve, &cfg.effort_grid, c.measures[0].m.n, &effort_topics),
                    distributions: c.measures.iter().map(|m| m.s.entries()).collect(),
                });
            }
            for (k, &(a, b)) in cfg.pairs.iter().enumerate() {
                let mut means_a = vec![Moments::default(); N_MEASURES];
                let mut means_b = vec![Moments::default(); N_MEASURES];
                // Per-topic mean differences (with their Monte-Carlo se) of every measure, then
                // every time budget, then every effort budget: the inference over topics.
                let n_diffs = N_MEASURES + cfg.time_budgets.len() + cfg.effort_budgets.len();
                let mut per_topic: Vec<Vec<TopicDiff>> = vec![Vec::new(); n_diffs];
                for t in 0..nt {
                    let d = &pairs[(p * nt + t) * npairs + k];
                    if d.measures[0].m.n == 0 {
                        continue;
                    }
                    for (i, acc) in d.measures.iter().chain(&d.time_budgets).chain(&d.effort_budgets).enumerate() {
                        per_topic[i].push(TopicDiff { mean: acc.m.mean(), se: acc.m.se() });
                    }
                    let ca = &cells[(p * nt + t) * ns + a];
                    let cb = &cells[(p * nt + t) * ns + b];
                    for m in 0..N_MEASURES {
                        means_a[m].merge(&ca.measures[m].m);
                        means_b[m].merge(&cb.measures[m].m);
                    }
                    out.pairs.push(pair_summary(&self.profiles[p], world, a, b, Some(world.topics[t].id.clone()), d, ca, cb, &cfg));
                    pooled_pairs[p * npairs + k].merge(d, false);
                }
                let d = &pooled_pairs[p * npairs + k];
                if d.measures[0].m.n == 0 {
                    continue;
                }
                let mut ca = CellAcc::new(&cfg);
                let mut cb = CellAcc::new(&cfg);
                for m in 0..N_MEASURES {
                    ca.measures[m].m = means_a[m];
                    cb.measures[m].m = means_b[m];
                }
                for t in 0..nt {
                    if pairs[(p * nt + t) * npairs + k].measures[0].m.n > 0 {
                        for i in 0..cfg.time_budgets.len() {
                            ca.time_budgets[i].merge(&cells[(p * nt + t) * ns + a].time_budgets[i]);
                            cb.time_budgets[i].merge(&cells[(p * nt + t) * ns + b].time_budgets[i]);
                        }
                        for i in 0..cfg.effort_budgets.len() {
                            ca.effort_budgets[i].merge(&cells[(p * nt + t) * ns + a].effort_budgets[i]);
                            cb.effort_budgets[i].merge(&cells[(p * nt + t) * ns + b].effort_budgets[i]);
                        }
                    }
                }
                let mut pooled_pair = pair_summary(&self.profiles[p], world, a, b, None, d, &ca, &cb, &cfg);
                let diffs = pooled_pair.measures.iter_mut().chain(&mut pooled_pair.time_budgets).chain(&mut pooled_pair.effort_budgets);
                for (ds, topics) in diffs.zip(&per_topic) {
                    ds.topics = Some(over_topics(topics, 0.95));
                }
                out.pooled_pairs.push(pooled_pair);
            }
            // The profile's per-topic accumulators are summarised: free them now, so the run's
            // peak memory holds the accumulators or the summaries, not both.
            cells[p * nt * ns..(p + 1) * nt * ns].iter_mut().for_each(|c| *c = CellAcc::default());
            pairs[p * nt * npairs..(p + 1) * nt * npairs].iter_mut().for_each(|d| *d = PairAcc::default());
        }
        out
    }
}

/// The name of a budget's measure: `prefix`, the budget as every file writes a number
/// ([`crate::write::fmt_f64`]: at most 10 significant digits, so 500.0 / 4.0 * 1.0000000000000001
/// reads `125`, not `125.00000000000001`), then `suffix`.
pub fn budget_name(prefix: &str, budget: f64, suffix: &str) -> String {
    format!("{prefix}{}{suffix}", crate::write::fmt_f64(budget))
}

#[allow(clippy::too_many_arguments)]
fn pair_summary(
    profile: &str,
    world: &World,
    a: usize,
    b: usize,
    topic: Option<String>,
    d: &PairAcc,
    ca: &CellAcc,
    cb: &CellAcc,
    cfg: &SinkConfig,
) -> PairSummary {
    PairSummary {
        profile: profile.to_string(),
        system_a: world.systems[a].name.clone(),
        system_b: world.systems[b].name.clone(),
        topic,
        measures: MEASURES
            .iter()
            .enumerate()
            .map(|(m, info)| diff_summary(info.name, info.better, &d.measures[m], ca.measures[m].m.mean(), cb.measures[m].m.mean()))
            .collect(),
        time_budgets: cfg
            .time_budgets
            .iter()
            .enumerate()
            .map(|(i, b)| {
                diff_summary(&budget_name("gain_by_", *b, "s"), Better::Higher, &d.time_budgets[i], ca.time_budgets[i].mean(), cb.time_budgets[i].mean())
            })
            .collect(),
        effort_budgets: cfg
            .effort_budgets
            .iter()
            .enumerate()
            .map(|(i, b)| {
                diff_summary(
                    &budget_name("gain_by_effort_", *b, ""),
                    Better::Higher,
                    &d.effort_budgets[i],
                    ca.effort_budgets[i].mean(),
                    cb.effort_budgets[i].mean(),
                )
            })
            .collect(),
    }
}

#[cfg(test)]
mod measure_table_tests {
    use super::*;

    /// Each row reads its own field: a session whose fields are distinct primes, every measure
    /// looked up by name. Swapping two accessors, or a name and its accessor, fails here.
    #[test]
    fn each_measure_reads_what_its_name_says() {
        let o = Outcome {
            effort: 3.0,
            time: 5.0,
            adjusted_time: 7.0,
            gain: 11.0,
            relevant_found: 13,
            depth: 17,
            clicks: 19,
            marks: 23,
            queries: 29,
            page_turns: 31,
            switches: 37,
        };
        let want = [
            ("gain", 11.0),
            ("relevant_found", 13.0),
            ("rate_of_gain", 11.0 / 5.0),
            ("effort", 3.0),
            ("time", 5.0),
            ("adjusted_time", 7.0),
            ("depth", 17.0),
            ("clicks", 19.0),
            ("queries", 29.0),
            ("page_turns", 31.0),
            ("switches", 37.0),
            ("marks", 23.0),
            ("depth_per_query", 17.0 / 29.0),
        ];
        assert_eq!(want.len(), N_MEASURES);
        let v = o.measures();
        for (name, x) in want {
            assert_eq!(v[measure_index(name).unwrap_or_else(|| panic!("no measure {name}"))], x, "{name}");
        }
        // The guarded ratios of an empty session.
        let empty = Outcome {
            effort: 0.0,
            time: 0.0,
            adjusted_time: 0.0,
            gain: 1.0,
            relevant_found: 0,
            depth: 4,
            clicks: 0,
            marks: 0,
            queries: 0,
            page_turns: 0,
            switches: 0,
        };
        let v = empty.measures();
        assert_eq!((v[measure_index("rate_of_gain").unwrap()], v[measure_index("depth_per_query").unwrap()]), (0.0, 0.0));
    }
}

#[cfg(test)]
mod curve_tests {
    use super::*;

    /// A topic's accumulator from its sessions, each a list of `(time, effort, gain so far)`.
    fn topic(grid: &Grid, sessions: &[&[(f64, f64, f64)]]) -> (CurveAcc, u64) {
        let mut c = CurveAcc::new(grid.points);
        // The effort axis (a grid of its own) is not looked at here.
        let (mut effort, effort_grid) = (CurveAcc::new(2), Grid::to(1.0, 2));
        for s in sessions {
            add_curves([(&mut c, grid), (&mut effort, &effort_grid)], s);
        }
        (c, sessions.len() as u64)
    }

    #[test]
    fn grid_bin_is_the_ceiling_of_the_scaled_value() {
        // Independent definition: the first grid point at or after x, i.e. ceil(x / step - 1e-9)
        // with libm's `ceil`, 0 below the grid (and for NaN), `points` beyond it.
        let reference = |g: &Grid, x: f64| {
            let b = (x / g.step - 1e-9).ceil();
            if b <= 0.0 {
                0
            } else {
                (b as usize).min(g.points)
            }
        };
        let mut z = 0x9E37_79B9_7F4A_7C15u64;
        for g in [Grid::to(1200.0, 61), Grid::to(2.0, 3), Grid::to(1e12, 1_000_000), Grid::to(1e-300, 5)] {
            for x in [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, g.step, g.max(), g.max() * 2.0, 1e300, 5e-324] {
                assert_eq!(g.bin(x), reference(&g, x), "{g:?} {x:e}");
            }
            for _ in 0..200_000 {
                z = crate::rng::mix64(z);
                // Uniform over [-0.1, 1.3] of the grid's range, and on grid points.
                let x = (crate::rng::unit(z) * 1.4 - 0.1) * g.max();
                let on = (z % g.points as u64) as f64 * g.step;
                assert_eq!(g.bin(x), reference(&g, x), "{g:?} {x:e}");
                assert_eq!(g.bin(on), reference(&g, on), "{g:?} {on:e}");
            }
        }
    }

    #[test]
    fn band_is_the_t_interval_over_topic_means() {
        // Grid 0, 1, 2 s. Hand: topic A's two users both gain 1 by 0.5 s: m_A = (0, 1, 1);
        // topic B's gain 2 by 0.5 s and by 1.5 s: m_B = (0, 1, 2); topic C's both gain 3 by
        // 1.5 s: m_C = (0, 0, 3).
        let grid = Grid::to(2.0, 3);
        let a = topic(&grid, &[&[(0.5, 1.0, 1.0)], &[(0.5, 1.0, 1.0)]]);
        let b = topic(&grid, &[&[(0.5, 1.0, 2.0)], &[(1.5, 1.0, 2.0)]]);
        let c = topic(&grid, &[&[(1.5, 1.0, 3.0)], &[(1.5, 1.0, 3.0)]]);
        let mut pooled = CurveAcc::new(grid.points);
        for t in [&a, &b, &c] {
            pooled.merge(&t.0);
        }
        let curve = curve_of(&pooled, &grid, 6, &[(&a.0, a.1), (&b.0, b.1), (&c.0, c.1)]);
        assert_eq!(curve.x, vec![0.0, 1.0, 2.0]);
        assert_eq!(curve.topics, 3);
        // Student's t, 2 df, 97.5 % quantile: 4.302653 (R 4.x: qt(0.975, 2)).
        let t2 = 4.302653;
        // x = 2: topic means 1, 2, 3: mean 2, sd 1, half width t2 / sqrt(3).
        let half = t2 / 3f64.sqrt();
        assert!((curve.mean[2] - 2.0).abs() < 1e-9 && (curve.lo[2] - (2.0 - half)).abs() < 1e-5 && (curve.hi[2] - (2.0 + half)).abs() < 1e-5, "{curve:?}");
        // x = 1: topic means 1, 1, 0: mean 2/3, sd sqrt(1/3), half width t2 / 3.
        let half = t2 / 3.0;
        assert!((curve.lo[1] - (2.0 / 3.0 - half)).abs() < 1e-5 && (curve.hi[1] - (2.0 / 3.0 + half)).abs() < 1e-5, "{curve:?}");
        // x = 0: nothing collected anywhere: a point.
        assert_eq!((curve.lo[0], curve.hi[0]), (0.0, 0.0));
        // The users-only error at x = 2: sessions 1, 1, 2, 2, 3, 3 have variance 4/5, so
        // se = sqrt(0.8 / 6), far narrower than the band over topics.
        assert!((curve.se[2] - (0.8f64 / 6.0).sqrt()).abs() < 1e-9, "{curve:?}");
        // One topic: no band.
        let one = curve_of(&a.0, &grid, 2, &[(&a.0, a.1)]);
        assert!(one.topics == 1 && one.lo.iter().chain(&one.hi).all(|x| x.is_nan()), "{one:?}");
    }
}
