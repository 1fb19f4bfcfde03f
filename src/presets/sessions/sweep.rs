//! Threshold sweeps: every (query set, stopping strategy, threshold) point simulated on the same
//! judgements (common random numbers), summarised as distributions, the best threshold per
//! strategy (Maxwell et al. Table 2) and the plot of mean depth per query against rate of gain.

use super::model::{with_threshold, SessionConfig};
use crate::collection::queries::SessionTopic;
use crate::error::{Error, Result};
use crate::simulate::engine::{run, PreparedProfile, Record, RunPlan, Sink, Unit};
use crate::simulate::world::World;
use crate::simulate::Outcome;
use crate::stats::multitest::{adjust_finite, Method};
use crate::stats::{paired_t_test, quantile_of_counts, sd, Moments, PairedT};
use crate::user::{Param, StoppingRuleKind};
use std::sync::Mutex;

/// The paper's thresholds: 1..20, then 25..50 in steps of 5 (26 values).
pub fn paper_thresholds() -> Vec<usize> {
    (1..=20).chain((25..=50).step_by(5)).collect()
}

/// The three stopping strategies of the paper with a placeholder threshold.
pub fn paper_rules() -> Vec<StoppingRuleKind> {
    let one = || Param::Fixed(1.0);
    vec![
        StoppingRuleKind::FixedDepth { n: one() },
        StoppingRuleKind::TotalNonrelevant { n: one(), basis: crate::user::Basis::Snippet },
        StoppingRuleKind::ContiguousNonrelevant { n: one(), basis: crate::user::Basis::Snippet },
    ]
}

/// Paper name of a stopping rule kind (SS1, SS2, SS3; others by their schema name).
pub fn rule_name(rule: &StoppingRuleKind) -> &'static str {
    rule.short_name()
}

/// A named set of topics with query variants (e.g. one querying strategy).
#[derive(Debug, Clone, PartialEq)]
pub struct QuerySet {
    /// Label, e.g. `QS1+3` or a run name.
    pub label: String,
    /// Topics.
    pub topics: Vec<SessionTopic>,
}

/// One configuration to simulate on one query set.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Index into the query sets.
    pub set: usize,
    /// Stopping strategy label (SS1, ...).
    pub rule: String,
    /// Threshold.
    pub threshold: usize,
    /// The full configuration.
    pub config: SessionConfig,
}

/// The sweep grid: every set × rule × threshold on top of `base`.
pub fn grid(sets: usize, rules: &[StoppingRuleKind], thresholds: &[usize], base: &SessionConfig) -> Vec<Point> {
    let mut points = Vec::new();
    for set in 0..sets {
        for rule in rules {
            for &n in thresholds {
                let mut config = base.clone();
                config.searcher.stopping = with_threshold(rule, n);
                points.push(Point { set, rule: rule_name(rule).to_string(), threshold: n, config });
            }
        }
    }
    points
}

/// Accumulated outcomes of one point on one topic: sums that merge exactly whatever the order
/// (fixed-point [`Moments`] and integers), so units of any size merge to the same numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct TopicAcc {
    /// Gain per session (its `n` counts the sessions).
    gain: Moments,
    rate: Moments,
    time: Moments,
    adjusted: Moments,
    queries: u64,
    /// Snippets examined (the sum of the queries' depths).
    snippets: u64,
    documents: u64,
    page_turns: u64,
}

/// Distributions of one point over all its topics and sessions, as counts per value.
#[derive(Debug, Clone, Default, PartialEq)]
struct Dists {
    gain: Vec<u64>,
    queries: Vec<u64>,
    rate: Vec<u64>,
    depth: Vec<u64>,
}

/// Resolution of the rate-of-gain distribution (gain per second).
pub const RATE_STEP: f64 = 1e-4;
/// Resolution of the per-session mean-depth distribution.
pub const DEPTH_STEP: f64 = 0.1;

/// Gain per second of elapsed time (0 when no time passed).
fn rate_of_gain(o: &Outcome) -> f64 {
    if o.time > 0.0 {
        o.gain / o.time
    } else {
        0.0
    }
}

fn bump(counts: &mut Vec<u64>, v: usize) {
    if counts.len() <= v {
        counts.resize(v + 1, 0);
    }
    counts[v] += 1;
}

fn merge_counts(into: &mut Vec<u64>, from: &[u64]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(from) {
        *a += b;
    }
}

impl TopicAcc {
    #[inline]
    fn add(&mut self, o: &Outcome) {
        self.gain.add(o.gain);
        self.rate.add(rate_of_gain(o));
        self.time.add(o.time);
        self.adjusted.add(o.adjusted_time);
        self.queries += o.queries as u64;
        self.snippets += o.depth as u64;
        self.documents += o.clicks as u64;
        self.page_turns += o.page_turns as u64;
    }
    fn merge(&mut self, o: &TopicAcc) {
        self.gain.merge(&o.gain);
        self.rate.merge(&o.rate);
        self.time.merge(&o.time);
        self.adjusted.merge(&o.adjusted);
        self.queries += o.queries;
        self.snippets += o.snippets;
        self.documents += o.documents;
        self.page_turns += o.page_turns;
    }
    fn sessions(&self) -> u64 {
        self.gain.n
    }
}

impl Dists {
    #[inline]
    fn add(&mut self, o: &Outcome) {
        bump(&mut self.gain, o.gain as usize);
        bump(&mut self.queries, o.queries as usize);
        bump(&mut self.rate, (rate_of_gain(o) / RATE_STEP).round() as usize);
        let mean_depth = if o.queries > 0 { o.depth as f64 / o.queries as f64 } else { 0.0 };
        bump(&mut self.depth, (mean_depth / DEPTH_STEP).round() as usize);
    }
    fn merge(&mut self, o: &Dists) {
        merge_counts(&mut self.gain, &o.gain);
        merge_counts(&mut self.queries, &o.queries);
        merge_counts(&mut self.rate, &o.rate);
        merge_counts(&mut self.depth, &o.depth);
    }
}

/// Summary of one sweep point over all topics and replicates.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PointResult {
    /// Query set label.
    pub set: String,
    /// Stopping strategy label.
    pub rule: String,
    /// Threshold.
    pub threshold: usize,
    /// Sessions simulated (topics × replicates).
    pub sessions: u64,
    /// Mean gain per session.
    pub gain_mean: f64,
    /// Sd of gain over sessions.
    pub gain_sd: f64,
    /// Sd over topics of the per-topic mean gain (the paper's ±).
    pub gain_topic_sd: f64,
    /// Gain quantiles over sessions: 5, 25, 50, 75, 95 %.
    pub gain_quantiles: [f64; 5],
    /// Mean over sessions of gain per second.
    pub rate_mean: f64,
    /// Sd over topics of the per-topic mean rate.
    pub rate_topic_sd: f64,
    /// Rate-of-gain quantiles over sessions (5..95 %), to [`RATE_STEP`].
    pub rate_quantiles: [f64; 5],
    /// Mean depth per query: total depth / total queries (pooled, as in the paper's footnote 3).
    pub depth_per_query: f64,
    /// Quantiles over sessions of the session's mean depth per query (5..95 %), to [`DEPTH_STEP`].
    pub depth_quantiles: [f64; 5],
    /// Mean queries issued per session.
    pub queries_mean: f64,
    /// Quantiles of queries issued per session: 5, 25, 50, 75, 95 %.
    pub queries_quantiles: [f64; 5],
    /// Mean snippets examined per session.
    pub snippets_mean: f64,
    /// Mean documents read per session.
    pub documents_mean: f64,
    /// Result pages viewed per query (1 + page turns / queries).
    pub pages_per_query: f64,
    /// Mean elapsed time per session (seconds).
    pub time_mean: f64,
    /// Mean adjusted time (without system delays).
    pub adjusted_time_mean: f64,
    /// Per-topic mean gain, in topic order (for paired tests).
    #[serde(skip)]
    pub topic_gain: Vec<f64>,
    /// Per-topic mean rate of gain, in topic order.
    #[serde(skip)]
    pub topic_rate: Vec<f64>,
}

const QS: [f64; 5] = [0.05, 0.25, 0.5, 0.75, 0.95];

/// The sweep's sink: per (profile, topic, system) cell the sums of [`TopicAcc`], per (profile,
/// system) the distributions over all topics. Every merge is exact (fixed-point sums, integer
/// counts), so the results are the same for any thread count and any unit size; memory is
/// a few hundred bytes per cell plus one set of distributions per point.
pub struct SweepSink {
    topics: usize,
    systems: usize,
    cells: Vec<Mutex<TopicAcc>>,
    dists: Vec<Mutex<Dists>>,
}

/// Per-unit state of [`SweepSink`]: the current topic's cells and the unit's distributions.
pub struct SweepUnitAcc {
    cells: Vec<TopicAcc>,
    dists: Vec<Dists>,
}

impl SweepSink {
    /// A sink for `profiles` points on `world`.
    pub fn new(world: &World, profiles: usize) -> Self {
        let (nt, ns) = (world.topics.len(), world.systems.len());
        SweepSink {
            topics: nt,
            systems: ns,
            cells: (0..profiles * nt * ns).map(|_| Mutex::new(TopicAcc::default())).collect(),
            dists: (0..profiles * ns).map(|_| Mutex::new(Dists::default())).collect(),
        }
    }
}

impl Sink for SweepSink {
    type Acc = SweepUnitAcc;
    fn start(&self, _: &Unit) -> SweepUnitAcc {
        SweepUnitAcc { cells: vec![TopicAcc::default(); self.systems], dists: vec![Dists::default(); self.systems] }
    }
    fn record(&self, acc: &mut SweepUnitAcc, r: &Record) {
        for (s, o) in r.outcomes.iter().enumerate() {
            if let Some(o) = o {
                acc.cells[s].add(o);
                acc.dists[s].add(o);
            }
        }
    }
    fn topic_done(&self, acc: &mut SweepUnitAcc, unit: &Unit, topic: usize) {
        for (s, local) in acc.cells.iter_mut().enumerate() {
            if local.sessions() > 0 {
                let i = (unit.profile * self.topics + topic) * self.systems + s;
                self.cells[i].lock().expect("no panics while locked").merge(local);
                *local = TopicAcc::default();
            }
        }
    }
    fn finish(&self, unit: &Unit, acc: SweepUnitAcc) -> Result<()> {
        for (s, d) in acc.dists.iter().enumerate() {
            self.dists[unit.profile * self.systems + s].lock().expect("no panics while locked").merge(d);
        }
        Ok(())
    }
}

/// A sweep point's labels: its stopping strategy and threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct PointLabel {
    /// Stopping strategy label (SS1, ...).
    pub rule: String,
    /// Threshold.
    pub threshold: usize,
}

/// Simulates every prepared profile (sweep point) on every system (query set) of `world`,
/// `users` sessions per topic, with the engine's loop; results are in system-major, then profile
/// order. Every point compares on common random numbers (judgements keyed by `(seed, topic
/// id, user)`); results do not depend on the thread count.
pub fn sweep_world(
    world: &World,
    prepared: &[PreparedProfile],
    labels: &[PointLabel],
    users: u64,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<PointResult>> {
    // The engine refuses no users and no profiles.
    let sink = SweepSink::new(world, prepared.len());
    let plan = RunPlan { world, profiles: prepared, users, seed, block: None };
    run(&plan, &sink, progress)?;
    Ok(sink.results(world, labels))
}

impl SweepSink {
    /// The point results after the run, in system-major, then profile order (`labels` gives
    /// each profile's strategy and threshold).
    pub fn results(self, world: &World, labels: &[PointLabel]) -> Vec<PointResult> {
        let (nt, ns) = (self.topics, self.systems);
        let cells: Vec<TopicAcc> = self.cells.into_iter().map(|m| m.into_inner().expect("no panics while locked")).collect();
        let dists: Vec<Dists> = self.dists.into_iter().map(|m| m.into_inner().expect("no panics while locked")).collect();
        let mut results = Vec::new();
        for s in 0..ns {
            for (p, label) in labels.iter().enumerate() {
                let mut all = TopicAcc::default();
                let mut topic_gain = Vec::with_capacity(nt);
                let mut topic_rate = Vec::with_capacity(nt);
                for t in 0..nt {
                    let a = &cells[(p * nt + t) * ns + s];
                    if a.sessions() == 0 {
                        continue;
                    }
                    all.merge(a);
                    topic_gain.push(a.gain.mean());
                    topic_rate.push(a.rate.mean());
                }
                if all.sessions() == 0 {
                    continue;
                }
                let d = &dists[p * ns + s];
                let n = all.sessions() as f64;
                results.push(PointResult {
                    set: world.systems[s].name.clone(),
                    rule: label.rule.clone(),
                    threshold: label.threshold,
                    sessions: all.sessions(),
                    gain_mean: all.gain.mean(),
                    gain_sd: all.gain.sd(),
                    gain_topic_sd: sd(&topic_gain),
                    gain_quantiles: QS.map(|q| quantile_of_counts(&d.gain, q)),
                    rate_mean: all.rate.mean(),
                    rate_topic_sd: sd(&topic_rate),
                    rate_quantiles: QS.map(|q| quantile_of_counts(&d.rate, q) * RATE_STEP),
                    depth_per_query: if all.queries > 0 { all.snippets as f64 / all.queries as f64 } else { 0.0 },
                    depth_quantiles: QS.map(|q| quantile_of_counts(&d.depth, q) * DEPTH_STEP),
                    queries_mean: all.queries as f64 / n,
                    queries_quantiles: QS.map(|q| quantile_of_counts(&d.queries, q)),
                    snippets_mean: all.snippets as f64 / n,
                    documents_mean: all.documents as f64 / n,
                    pages_per_query: if all.queries > 0 { 1.0 + all.page_turns as f64 / all.queries as f64 } else { 0.0 },
                    time_mean: all.time.mean(),
                    adjusted_time_mean: all.adjusted.mean(),
                    topic_gain,
                    topic_rate,
                });
            }
        }
        results
    }
}

/// Simulates every point on every topic of its set, `replicates` sessions each (the sessions
/// preset of [`SessionConfig`] over the engine). Results are in point order.
pub fn run_points(sets: &[QuerySet], points: &[Point], replicates: usize, seed: u64, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<Vec<PointResult>> {
    if points.is_empty() {
        return Err(Error::Invalid("nothing to sweep: no points".into()));
    }
    for s in sets {
        if s.topics.is_empty() {
            return Err(Error::Invalid(format!("query set `{}` has no topics", s.label)));
        }
    }
    if let Some(p) = points.iter().find(|p| p.set >= sets.len()) {
        return Err(Error::Invalid(format!("point refers to query set {} of {}", p.set, sets.len())));
    }
    let mut results: Vec<Option<PointResult>> = vec![None; points.len()];
    for (si, set) in sets.iter().enumerate() {
        let mine: Vec<usize> = (0..points.len()).filter(|&i| points[i].set == si).collect();
        // Points with the same interface share one world.
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for &i in &mine {
            match groups.iter_mut().find(|g| points[g[0]].config.interface == points[i].config.interface) {
                Some(g) => g.push(i),
                None => groups.push(vec![i]),
            }
        }
        for g in groups {
            let mut world = crate::scenario::world_from_query_sets(&[(set.label.clone(), set.topics.clone())])?;
            points[g[0]].config.apply_interface(&mut world);
            let prepared: Vec<PreparedProfile> = g
                .iter()
                .map(|&i| PreparedProfile::new(&world, &points[i].config.profile(&format!("{} {}", points[i].rule, points[i].threshold)), seed, None))
                .collect::<Result<_>>()?;
            let labels: Vec<PointLabel> = g.iter().map(|&i| PointLabel { rule: points[i].rule.clone(), threshold: points[i].threshold }).collect();
            for (r, &i) in sweep_world(&world, &prepared, &labels, replicates as u64, seed, progress)?.into_iter().zip(&g) {
                results[i] = Some(r);
            }
        }
    }
    results.into_iter().map(|r| r.ok_or_else(|| Error::Invalid("a sweep point has no topics".into()))).collect()
}

/// Best threshold of one (set, rule): the point of highest mean gain (ties: lower threshold).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Best {
    /// Query set.
    pub set: String,
    /// Stopping rule.
    pub rule: String,
    /// Threshold of maximum mean gain.
    pub threshold: usize,
    /// Mean gain there.
    pub gain_mean: f64,
    /// Sd over topics of the mean gain.
    pub gain_topic_sd: f64,
    /// Mean depth per query there.
    pub depth_per_query: f64,
    /// Mean rate of gain there.
    pub rate_mean: f64,
    /// Index into the results.
    #[serde(skip)]
    pub index: usize,
}

/// The best point per (set, rule), in result order.
pub fn best_points(results: &[PointResult]) -> Vec<Best> {
    let mut out: Vec<Best> = Vec::new();
    for (i, r) in results.iter().enumerate() {
        match out.iter_mut().find(|b| b.set == r.set && b.rule == r.rule) {
            Some(b) => {
                if r.gain_mean > b.gain_mean {
                    *b = best_of(i, r);
                }
            }
            None => out.push(best_of(i, r)),
        }
    }
    out
}

fn best_of(i: usize, r: &PointResult) -> Best {
    Best {
        set: r.set.clone(),
        rule: r.rule.clone(),
        threshold: r.threshold,
        gain_mean: r.gain_mean,
        gain_topic_sd: r.gain_topic_sd,
        depth_per_query: r.depth_per_query,
        rate_mean: r.rate_mean,
        index: i,
    }
}

/// Paired t-test over topics between the best points of two rules on the same set, with the
/// p-value adjusted for the family of every comparison of the sweep.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RuleComparison {
    /// Query set.
    pub set: String,
    /// First rule (at its best threshold).
    pub a: String,
    /// Second rule (at its best threshold).
    pub b: String,
    /// The test on per-topic mean gains (its `p_value` is the raw, unadjusted one).
    pub test: PairedT,
    /// Holm's step-down adjustment of `test.p_value` over the family of all the sweep's
    /// comparisons (every set and pair): controls the family-wise error rate.
    pub p_holm: f64,
    /// Benjamini–Hochberg's adjustment over the same family: controls the false discovery rate.
    pub p_bh: f64,
}

/// All pairwise comparisons of best points within each set. The family of the multiple-comparison
/// adjustments (`p_holm`, `p_bh`) is every comparison returned; comparisons without a p-value
/// (fewer than two topics, no variation) stay out of it and keep NaN.
pub fn compare_best(results: &[PointResult], best: &[Best]) -> Vec<RuleComparison> {
    let mut out = Vec::new();
    for (i, a) in best.iter().enumerate() {
        for b in best.iter().skip(i + 1).filter(|b| b.set == a.set) {
            out.push(RuleComparison {
                set: a.set.clone(),
                a: a.rule.clone(),
                b: b.rule.clone(),
                test: paired_t_test(&results[a.index].topic_gain, &results[b.index].topic_gain),
                p_holm: f64::NAN,
                p_bh: f64::NAN,
            });
        }
    }
    let raw: Vec<f64> = out.iter().map(|c| c.test.p_value).collect();
    // p-values of the t test lie in [0, 1] or are NaN, so the adjustments cannot fail.
    let holm = adjust_finite(&raw, Method::Holm).expect("t-test p-values lie in [0, 1]");
    let bh = adjust_finite(&raw, Method::BenjaminiHochberg).expect("t-test p-values lie in [0, 1]");
    for ((c, h), b) in out.iter_mut().zip(holm).zip(bh) {
        c.p_holm = h;
        c.p_bh = b;
    }
    out
}

/// The sweep table as CSV.
pub fn results_csv(results: &[PointResult]) -> String {
    let mut s = String::from("set,rule,threshold,sessions,gain_mean,gain_sd,gain_topic_sd,gain_q05,gain_q25,gain_q50,gain_q75,gain_q95,rate_mean,rate_topic_sd,rate_q05,rate_q25,rate_q50,rate_q75,rate_q95,depth_per_query,depth_q05,depth_q25,depth_q50,depth_q75,depth_q95,queries_mean,queries_q05,queries_q25,queries_q50,queries_q75,queries_q95,snippets_mean,documents_mean,pages_per_query,time_mean,adjusted_time_mean\n");
    for r in results {
        let g = r.gain_quantiles;
        let q = r.queries_quantiles;
        let f = crate::write::fmt_f64;
        let list = |v: &[f64]| v.iter().map(|&x| f(x)).collect::<Vec<_>>().join(",");
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            crate::write::csv_field(&r.set),
            r.rule,
            r.threshold,
            r.sessions,
            f(r.gain_mean),
            f(r.gain_sd),
            f(r.gain_topic_sd),
            list(&g),
            f(r.rate_mean),
            f(r.rate_topic_sd),
            list(&r.rate_quantiles),
            f(r.depth_per_query),
            list(&r.depth_quantiles),
            f(r.queries_mean),
            list(&q),
            f(r.snippets_mean),
            f(r.documents_mean),
            f(r.pages_per_query),
            f(r.time_mean),
            f(r.adjusted_time_mean)
        ));
    }
    s
}

/// The Table 2-style summary as CSV.
pub fn best_csv(best: &[Best]) -> String {
    let mut s = String::from("set,rule,threshold,gain_mean,gain_topic_sd,depth_per_query,rate_mean\n");
    for b in best {
        let f = crate::write::fmt_f64;
        s.push_str(&format!(
            "{},{},{},{},{},{},{}\n",
            crate::write::csv_field(&b.set),
            b.rule,
            b.threshold,
            f(b.gain_mean),
            f(b.gain_topic_sd),
            f(b.depth_per_query),
            f(b.rate_mean)
        ));
    }
    s
}

/// The paired tests as CSV: the raw `p_value` and its adjustments over the family of every row
/// (`p_holm`: Holm, `p_bh`: Benjamini–Hochberg; see [`compare_best`]).
pub fn comparisons_csv(c: &[RuleComparison]) -> String {
    let mut s = String::from("set,a,b,mean_difference,t,df,p_value,p_holm,p_bh\n");
    for x in c {
        let f = crate::write::fmt_f64;
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{}\n",
            crate::write::csv_field(&x.set),
            x.a,
            x.b,
            f(x.test.mean_difference),
            f(x.test.t),
            f(x.test.df),
            f(x.test.p_value),
            f(x.p_holm),
            f(x.p_bh)
        ));
    }
    s
}

/// Mean rate of gain by mean depth per query: one line per (set, rule), a point per threshold
/// (Maxwell et al. Figure 1), the legend beside the plot.
pub fn depth_rate_svg(results: &[PointResult]) -> Result<String> {
    use crate::write::plot::{legend, ticked_chart, Ticks, OKABE_ITO};
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| crate::write::plot::plot_err(e);
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for r in results {
        let name = format!("{} w/ {}", r.rule, r.set);
        let pt = (r.depth_per_query, r.rate_mean * 1000.0);
        match series.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(pt),
            None => series.push((name, vec![pt])),
        }
    }
    for (_, v) in &mut series {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let xmax = results.iter().map(|r| r.depth_per_query).fold(1.0, f64::max) * 1.05;
    let ymax = results.iter().map(|r| r.rate_mean * 1000.0).fold(1e-3, f64::max) * 1.1;
    let (w, h, legend_w) = (900u32, 600u32, 200u32);
    let xt = Ticks::new(0.0, xmax, (w - legend_w - 120) as f64, true, false);
    let yt = Ticks::new(0.0, ymax, (h - 120) as f64, false, false);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let (plot, legend_area) = root.split_horizontally(w - legend_w);
        let mut chart = ticked_chart(
            &plot,
            ("Mean depth per query vs mean rate of gain", 18.0),
            14,
            (&xt, &yt),
            ("mean depth per query (results examined per query)", "mean rate of gain (gain per second, x 10^-3)"),
            true,
        )?;
        let mut entries = Vec::new();
        for (i, (name, pts)) in series.into_iter().enumerate() {
            let color = OKABE_ITO[i % 8];
            let width = if i < 8 { 2 } else { 1 };
            chart.draw_series(LineSeries::new(pts.clone(), color.stroke_width(width))).map_err(|e| err(&e))?;
            chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled()))).map_err(|e| err(&e))?;
            entries.push((name, color, width));
        }
        legend(&legend_area, "Rule w/ query set", &entries, &["A point per threshold.".to_string()])?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::queries::{QueryStrategy, SyntheticQueries};

    #[test]
    fn thresholds_are_the_papers() {
        let t = paper_thresholds();
        assert_eq!(t.len(), 26);
        assert_eq!(&t[18..], &[19, 20, 25, 30, 35, 40, 45, 50]);
    }

    #[test]
    fn sweep_is_deterministic_across_threads_and_sane() {
        let g = SyntheticQueries { topics: 4, docs_per_topic: 300, relevant_per_topic: 40, queries_per_strategy: 10, list_length: 60, ..Default::default() };
        let sets: Vec<QuerySet> =
            [QueryStrategy::Qs1, QueryStrategy::Qs3].iter().map(|&s| QuerySet { label: s.name().into(), topics: g.generate(s).unwrap() }).collect();
        let points = grid(2, &paper_rules(), &[1, 3, 10], &SessionConfig::default());
        let on =
            |threads| rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| run_points(&sets, &points, 50, 9, &|_, _| {}).unwrap());
        let a = on(1);
        assert_eq!(a, on(2));
        assert_eq!(a.len(), 18);
        // SS1: depth per query is at most the threshold; deeper thresholds mean fewer queries.
        let ss1: Vec<&PointResult> = a.iter().filter(|r| r.set == "QS1" && r.rule == "SS1").collect();
        assert!(ss1[0].depth_per_query <= 1.0 + 1e-12);
        assert_eq!(ss1[0].depth_quantiles[2], 1.0);
        assert!(ss1[2].depth_quantiles[4] <= 10.0 && ss1[2].depth_quantiles[0] >= 0.0);
        let r = &a[0];
        assert!(r.rate_quantiles[0] <= r.rate_mean + RATE_STEP && r.rate_mean <= r.rate_quantiles[4] + RATE_STEP);
        assert!(ss1[0].queries_mean > ss1[2].queries_mean);
        // No session exceeds the budget; ten queries of depth 10 use most of it.
        assert!(a.iter().all(|r| r.time_mean <= 1200.0));
        assert!(a.iter().filter(|r| r.rule == "SS1" && r.threshold == 10).all(|r| r.time_mean > 1000.0));
        // QS3 queries are better than QS1 on average over the points.
        let avg = |r: &[PointResult]| r.iter().map(|x| x.gain_mean).sum::<f64>() / r.len() as f64;
        assert!(avg(&a[9..]) > avg(&a[..9]), "{} vs {}", avg(&a[9..]), avg(&a[..9]));
        let best = best_points(&a);
        assert_eq!(best.len(), 6);
        assert_eq!(compare_best(&a, &best).len(), 6);
        assert!(depth_rate_svg(&a).unwrap().contains("<svg"));
    }
}
