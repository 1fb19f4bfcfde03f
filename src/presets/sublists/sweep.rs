//! The what-if sweep (He et al. §5.1, Fig. 6): lambda x prior x task, replicates per cell,
//! for the RLR and the basic interface, run by the engine with He et al.'s user as profiles
//! ([`grid_profile`]).

use super::measures::Prior;
use super::model::{he_profile, world_of, ActionWeights, ContinuationKind, CutOff, TopicSublists};
use crate::error::{Error, Result};
use crate::simulate::engine::{run, PreparedProfile, Record, RunPlan, Sink, Unit};
use crate::simulate::world::World;
use crate::stats::{quantile_sorted, Sketch};
use crate::user::{NoAlternative, PriorBase, SublistUse, UserProfile};
use std::sync::Mutex;

/// The grid of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepGrid {
    /// Decay rates of Eq. 3.
    pub lambdas: Vec<f64>,
    /// Sublist priors.
    pub priors: Vec<Prior>,
    /// Cut-offs (tasks).
    pub tasks: Vec<CutOff>,
    /// Replicates per (topic, lambda, prior, task).
    pub replicates: usize,
    /// Master seed.
    pub seed: u64,
    /// Results per page.
    pub page_size: u32,
    /// Effort weights.
    pub weights: ActionWeights,
}

impl SweepGrid {
    /// The paper's grid: lambda in {1, .5, .1, .05, .01, .005, .001}, nDCG and random priors,
    /// find-1, find-10 and find-all, 1,000 replicates, page size 10, unit weights.
    pub fn paper(seed: u64) -> Self {
        SweepGrid {
            lambdas: vec![1.0, 0.5, 0.1, 0.05, 0.01, 0.005, 0.001],
            priors: vec![Prior::Ndcg, Prior::Random],
            tasks: vec![CutOff::Find(1), CutOff::Find(10), CutOff::FindAll],
            replicates: 1000,
            seed,
            page_size: 10,
            weights: ActionWeights::default(),
        }
    }
}

/// Quartiles of a sample of efforts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quartiles {
    /// First quartile (type 7).
    pub q25: f64,
    /// Median.
    pub median: f64,
    /// Third quartile.
    pub q75: f64,
}

impl Quartiles {
    /// Quartiles of `xs` (sorted in place); NaN for an empty sample.
    pub fn of(xs: &mut [f64]) -> Self {
        if xs.is_empty() {
            return Quartiles { q25: f64::NAN, median: f64::NAN, q75: f64::NAN };
        }
        xs.sort_by(f64::total_cmp);
        Quartiles { q25: quantile_sorted(xs, 0.25), median: quantile_sorted(xs, 0.5), q75: quantile_sorted(xs, 0.75) }
    }
}

/// One (topic, task, prior, lambda) cell: the RLR distribution and the basic-interface value.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepCell {
    /// Topic index.
    pub topic: usize,
    /// Index into [`SweepGrid::tasks`].
    pub task: usize,
    /// Index into [`SweepGrid::priors`].
    pub prior: usize,
    /// Index into [`SweepGrid::lambdas`].
    pub lambda: usize,
    /// RLR effort (or gain) quartiles over users.
    pub rlr: Quartiles,
    /// Basic-interface effort (deterministic: "All" walked top to bottom).
    pub basic: f64,
    /// RLR effort (or gain) of every user, as an exact distribution.
    pub samples: Sketch,
}

fn quartiles(s: &Sketch) -> Quartiles {
    let q = s.quantiles(&[0.25, 0.5, 0.75]);
    Quartiles { q25: q[0], median: q[1], q75: q[2] }
}

/// Collects one measure per (profile, topic, system) as an exact distribution.
struct CellSketches {
    topics: usize,
    systems: usize,
    measures: Vec<usize>,
    cells: Vec<Mutex<Sketch>>,
}

impl Sink for CellSketches {
    type Acc = Vec<Sketch>;
    fn start(&self, _: &Unit) -> Vec<Sketch> {
        vec![Sketch::default(); self.topics * self.systems]
    }
    fn record(&self, acc: &mut Vec<Sketch>, r: &Record) {
        let m = self.measures[r.unit.profile];
        for (s, o) in r.outcomes.iter().enumerate() {
            if let Some(o) = o {
                acc[r.topic * self.systems + s].add(o.measures()[m]);
            }
        }
    }
    fn finish(&self, unit: &Unit, acc: Vec<Sketch>) -> Result<()> {
        let base = unit.profile * self.topics * self.systems;
        for (i, a) in acc.iter().enumerate() {
            self.cells[base + i].lock().expect("no panics while locked").merge(a);
        }
        Ok(())
    }
}

/// Index of the measure a cut-off calls for in [`crate::simulate::MEASURES`].
fn measure_of(cutoff: CutOff) -> usize {
    let name = match cutoff {
        CutOff::Effort(_) => "relevant_found",
        _ => "effort",
    };
    crate::simulate::summary::measure_index(name).expect("a known measure")
}

/// Runs the engine on `world` with `prepared` profiles and returns, per (profile, topic,
/// system), the distribution of the measure of each profile's cut-off.
fn cell_sketches(
    world: &World,
    prepared: &[PreparedProfile],
    cutoffs: &[CutOff],
    users: u64,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<Sketch>> {
    let (nt, ns) = (world.topics.len(), world.systems.len());
    let sink = CellSketches {
        topics: nt,
        systems: ns,
        measures: cutoffs.iter().map(|&c| measure_of(c)).collect(),
        cells: (0..prepared.len() * nt * ns).map(|_| Mutex::new(Sketch::default())).collect(),
    };
    let plan = RunPlan { world, profiles: prepared, users, seed, block: None };
    run(&plan, &sink, progress)?;
    Ok(sink.cells.into_iter().map(|m| m.into_inner().expect("no panics while locked")).collect())
}

/// Simulates `replicates` RLR users on `topic` and returns, in user order, their effort (gain
/// targets) or gain (effort budgets): see [`CutOff::measure_name`]. `cont` is He et al.'s table
/// (p_r = `cont[r - 1]`), `alpha` the Dirichlet prior over the topic's sublists. User `u`'s
/// random numbers are keyed by `(seed, topic id, u)` (common to every call on the topic).
#[allow(clippy::too_many_arguments)]
pub fn simulate_users(
    topic: &TopicSublists,
    cont: &[f64],
    alpha: &[f64],
    cutoff: CutOff,
    page_size: u32,
    weights: &ActionWeights,
    replicates: usize,
    seed: u64,
) -> Result<Vec<f64>> {
    let world = world_of(std::slice::from_ref(topic), true, page_size);
    let mut prepared = PreparedProfile::new(&world, &he_profile("rlr", cont, weights, cutoff), seed, None)?;
    prepared.set_prior(0, 0, 0, alpha)?;
    let m = measure_of(cutoff);
    Ok(crate::simulate::outcomes(&world, &prepared, replicates as u64, seed)?.iter().map(|o| o.measures()[m]).collect())
}

/// Effort (gain targets) or gain (effort budgets) of the basic interface ("All" only,
/// deterministic).
pub fn basic_effort(topic: &TopicSublists, cutoff: CutOff, page_size: u32, weights: &ActionWeights) -> f64 {
    let world = world_of(std::slice::from_ref(topic), false, page_size);
    let prepared = PreparedProfile::new(&world, &he_profile("basic", &[1.0], weights, cutoff), 0, None).expect("no click model, no prior");
    let o = crate::simulate::outcomes(&world, &prepared, 1, 0).expect("a valid one-topic world");
    o.first().map_or(0.0, |o| o.measures()[measure_of(cutoff)])
}

/// The He et al. profile of grid point (task, prior, lambda).
pub fn grid_profile(grid: &SweepGrid, task: usize, prior: usize, lambda: usize, max_rank: usize) -> UserProfile {
    let table: Vec<f64> = ContinuationKind::Exponential { lambda: grid.lambdas[lambda] }.table(max_rank + 1);
    let mut p = he_profile(
        &format!("{} {} {}", grid.tasks[task].name(), grid.priors[prior].name(), crate::write::fmt_f64(grid.lambdas[lambda])),
        &table,
        &grid.weights,
        grid.tasks[task],
    );
    p.sublists = match grid.priors[prior] {
        Prior::Ndcg => SublistUse { switch: true, no_alternative: NoAlternative::Stay, prior: PriorBase::Ndcg, scale: 1.0, smoothing: 0.0 },
        Prior::Random => SublistUse { switch: true, no_alternative: NoAlternative::Stay, prior: PriorBase::Random, scale: 1.0, smoothing: 0.0 },
        Prior::Smoothed(s) => SublistUse { switch: true, no_alternative: NoAlternative::Stay, prior: PriorBase::Ndcg, scale: 1.0, smoothing: s },
    };
    p
}

/// Runs the sweep over `topics` (the RLR interface and the basic one) with the engine;
/// `progress(done, total)` is called as units finish.
pub fn run_sweep(topics: &[TopicSublists], grid: &SweepGrid, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<Vec<SweepCell>> {
    if topics.is_empty() {
        return Err(Error::Invalid("the sweep has no topics".into()));
    }
    if grid.lambdas.is_empty() || grid.priors.is_empty() || grid.tasks.is_empty() || grid.replicates == 0 {
        return Err(Error::Invalid("the sweep grid is empty (lambdas, priors, tasks and replicates must be non-empty)".into()));
    }
    let mut world = world_of(topics, true, grid.page_size);
    world.add_basic_twins();
    let max_n = topics.iter().map(|t| t.grades.len()).max().unwrap_or(0);
    let mut profiles = Vec::new();
    let mut labels = Vec::new();
    for k in 0..grid.tasks.len() {
        for p in 0..grid.priors.len() {
            for l in 0..grid.lambdas.len() {
                profiles.push(grid_profile(grid, k, p, l, max_n));
                labels.push((k, p, l));
            }
        }
    }
    let prepared: Vec<PreparedProfile> = profiles.iter().map(|p| PreparedProfile::new(&world, p, grid.seed, None)).collect::<Result<_>>()?;
    run_sweep_world(&world, &prepared, &labels, grid, progress)
}

/// The sweep on a world whose system 0 has sublists and system 1 is its basic twin; `labels`
/// give each profile's (task, prior, lambda) indices into `grid`. The engine runs the users on
/// the sublist interface; the basic interface is deterministic for He et al.'s user (a failed
/// continuation stays in "All"), so it is walked once per (topic, task).
pub fn run_sweep_world(
    world: &World,
    prepared: &[PreparedProfile],
    labels: &[(usize, usize, usize)],
    grid: &SweepGrid,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<SweepCell>> {
    if world.systems.len() != 2 {
        return Err(Error::Invalid("the sublist sweep needs one system with sublists and its basic twin (interface.basic_twin = true)".into()));
    }
    let mut rlr_world = world.clone();
    rlr_world.systems.truncate(1);
    let cutoffs: Vec<CutOff> = labels.iter().map(|l| grid.tasks[l.0]).collect();
    let cells = cell_sketches(&rlr_world, prepared, &cutoffs, grid.replicates as u64, grid.seed, progress)?;
    let topics = super::scenario::topics_of(world)?;
    let nt = world.topics.len();
    let basics: Vec<Vec<f64>> = topics.iter().map(|t| grid.tasks.iter().map(|&c| basic_effort(t, c, grid.page_size, &grid.weights)).collect()).collect();
    let mut out = Vec::new();
    for t in 0..nt {
        for (p, &(task, prior, lambda)) in labels.iter().enumerate() {
            let rlr = &cells[p * nt + t];
            if rlr.n() == 0 {
                continue;
            }
            out.push(SweepCell { topic: t, task, prior, lambda, rlr: quartiles(rlr), basic: basics[t][task], samples: rlr.clone() });
        }
    }
    out.sort_by_key(|c| (c.topic, c.task, c.prior, c.lambda));
    Ok(out)
}

/// Pooled quartiles over topics and replicates for (task, prior, lambda), as plotted in Fig. 6.
pub fn pooled(cells: &[SweepCell], task: usize, prior: usize, lambda: usize) -> Quartiles {
    let mut all = Sketch::default();
    for c in cells.iter().filter(|c| c.task == task && c.prior == prior && c.lambda == lambda) {
        all.merge(&c.samples);
    }
    if all.n() == 0 {
        return Quartiles { q25: f64::NAN, median: f64::NAN, q75: f64::NAN };
    }
    quartiles(&all)
}

/// CSV of the sweep: one row per (topic, task, prior, lambda, interface).
pub fn sweep_csv(topics: &[TopicSublists], grid: &SweepGrid, cells: &[SweepCell]) -> String {
    let mut s = String::from("topic,task,measure,prior,lambda,interface,replicates,median,q25,q75\n");
    for c in cells {
        let t = crate::write::csv_field(&topics[c.topic].id);
        let (task, prior, lambda) = (grid.tasks[c.task].name(), grid.priors[c.prior].name(), grid.lambdas[c.lambda]);
        let m = grid.tasks[c.task].measure_name();
        let f = crate::write::fmt_f64;
        let lambda = f(lambda);
        s += &format!("{t},{task},{m},{prior},{lambda},rlr,{},{},{},{}\n", c.samples.n(), f(c.rlr.median), f(c.rlr.q25), f(c.rlr.q75));
        s += &format!("{t},{task},{m},{prior},{lambda},basic,1,{b},{b},{b}\n", b = f(c.basic));
    }
    s
}

/// CSV of the pooled quartiles (the numbers behind the Fig. 6 plot).
pub fn pooled_csv(grid: &SweepGrid, cells: &[SweepCell]) -> String {
    let mut s = String::from("task,measure,prior,lambda,median,q25,q75\n");
    for (k, task) in grid.tasks.iter().enumerate() {
        for (p, prior) in grid.priors.iter().enumerate() {
            for (l, lambda) in grid.lambdas.iter().enumerate() {
                let q = pooled(cells, k, p, l);
                let f = crate::write::fmt_f64;
                s += &format!("{},{},{},{},{},{},{}\n", task.name(), task.measure_name(), prior.name(), f(*lambda), f(q.median), f(q.q25), f(q.q75));
            }
        }
    }
    s
}

/// Fig. 6: pooled median effort against lambda per task, one line per prior, IQR shaded; the
/// legend beside the panels.
pub fn fig6_svg(grid: &SweepGrid, cells: &[SweepCell]) -> Result<String> {
    use crate::write::plot::{fit, legend, y_area, Ticks, CAPTION_FONT, DESC_FONT, OKABE_ITO, TICK_FONT};
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| crate::write::plot::plot_err(e);
    let prior_name = |prior: &Prior| match prior {
        Prior::Ndcg => "NDCG".to_string(),
        Prior::Random => "Random".to_string(),
        other => other.name(),
    };
    let prior_colour = |p: usize, prior: &Prior| match prior {
        Prior::Ndcg => OKABE_ITO[0],
        Prior::Random => OKABE_ITO[1],
        Prior::Smoothed(_) => OKABE_ITO[(p + 2) % 8],
    };
    let mut svg = String::new();
    {
        let panels = grid.tasks.len();
        let legend_w = 170u32;
        let root = SVGBackend::with_string(&mut svg, (420 * panels as u32 + legend_w, 360)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let (plots, legend_area) = root.split_horizontally(420 * panels as u32);
        let areas = plots.split_evenly((1, panels));
        let nl = grid.lambdas.len();
        let xt = Ticks { lo: -0.2, hi: nl as f64 - 0.8, points: (0..nl).map(|l| l as f64).collect(), step: 1.0 };
        for (k, task) in grid.tasks.iter().enumerate() {
            let series: Vec<Vec<self::Quartiles>> = (0..grid.priors.len()).map(|p| (0..nl).map(|l| pooled(cells, k, p, l)).collect()).collect();
            let ymax = series.iter().flatten().map(|q| q.q75).filter(|x| x.is_finite()).fold(1.0f64, f64::max) * 1.05;
            let integer = series.iter().flatten().flat_map(|q| [q.q25, q.median, q.q75]).all(|x| !x.is_finite() || x.fract() == 0.0);
            let yt = Ticks::new(0.0, ymax, 250.0, false, integer);
            let labels: Vec<String> = grid.lambdas.iter().map(|&l| crate::write::fmt_f64(l)).collect();
            let mut chart = ChartBuilder::on(&areas[k])
                .caption(fit(&format!("Task: {}", task.name()), 400.0, CAPTION_FONT), ("sans-serif", CAPTION_FONT))
                .margin(12)
                .x_label_area_size(44)
                .y_label_area_size(y_area(&yt))
                .build_cartesian_2d(xt.range(), yt.range())
                .map_err(|e| err(&e))?;
            chart
                .configure_mesh()
                .x_labels(nl)
                .y_labels(yt.points.len())
                .x_label_formatter(&|x| labels.get(x.round() as usize).cloned().unwrap_or_default())
                .y_label_formatter(&|y| yt.label(*y))
                .label_style(("sans-serif", TICK_FONT))
                .axis_desc_style(("sans-serif", DESC_FONT))
                .x_desc("lambda")
                .y_desc(if matches!(task, CutOff::Effort(_)) { "median gain" } else { "median effort (weighted actions)" })
                .draw()
                .map_err(|e| err(&e))?;
            for (p, prior) in grid.priors.iter().enumerate() {
                let color = prior_colour(p, prior);
                let band: Vec<(f64, f64)> = (0..nl).map(|l| (l as f64, series[p][l].q75)).chain((0..nl).rev().map(|l| (l as f64, series[p][l].q25))).collect();
                chart.draw_series(std::iter::once(Polygon::new(band, color.mix(0.2).filled()))).map_err(|e| err(&e))?;
                chart.draw_series(LineSeries::new((0..nl).map(|l| (l as f64, series[p][l].median)), color.stroke_width(2))).map_err(|e| err(&e))?;
            }
        }
        let entries: Vec<(String, RGBColor, u32)> = grid.priors.iter().enumerate().map(|(p, prior)| (prior_name(prior), prior_colour(p, prior), 2)).collect();
        legend(&legend_area, "Prior", &entries, &["Line: median of the sessions of every topic, pooled; band: their quartiles.".to_string()])?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

/// The short answer of a sublist sweep (printed by `sublists sweep`, `answer.txt`): per task
/// and prior, RLR's mean effort (gain for effort budgets) minus the basic interface's, as the
/// mean over topics of each topic's mean over users, with its 95 % t interval and P(RLR better)
/// over topics and users ([`crate::stats::topics`]), at the sweep's lambda closest to `lambda`.
pub fn answer(grid: &SweepGrid, topics: usize, cells: &[SweepCell], lambda: f64) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let Some(l) = (0..grid.lambdas.len()).min_by(|&a, &b| (grid.lambdas[a] - lambda).abs().total_cmp(&(grid.lambdas[b] - lambda).abs())) else {
        return s;
    };
    let _ = writeln!(s, "serpsim sublists: RLR (sublists) minus the basic list, {topics} topics, lambda = {}", grid.lambdas[l]);
    let _ = writeln!(s, "mean difference with 95 % interval and P(RLR better) over topics and users");
    let _ = writeln!(s, "{:<10} {:<8} {:<7} {:>10} {:>22} {:>13}", "task", "prior", "measure", "RLR-basic", "95 % interval", "P(RLR better)");
    let mut mc = 0.0f64;
    let mut few = false;
    for (k, task) in grid.tasks.iter().enumerate() {
        let lower_better = task.measure_name() == "effort";
        for (p, prior) in grid.priors.iter().enumerate() {
            let diffs: Vec<crate::stats::TopicDiff> = cells
                .iter()
                .filter(|c| c.task == k && c.prior == p && c.lambda == l && c.samples.n() > 0)
                .map(|c| {
                    let e = c.samples.entries();
                    let n: u64 = e.iter().map(|x| x.1).sum();
                    let mean = e.iter().map(|&(v, k)| k as f64 * v).sum::<f64>() / n as f64;
                    let var = if n > 1 { e.iter().map(|&(v, k)| k as f64 * (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
                    crate::stats::TopicDiff { mean: mean - c.basic, se: (var / n as f64).sqrt() }
                })
                .collect();
            let inf = crate::stats::over_topics(&diffs, 0.95);
            mc = mc.max(inf.mc_se);
            few |= !inf.generalises();
            let p_better = if lower_better { 1.0 - inf.p_positive } else { inf.p_positive };
            let ci = if inf.lo.is_finite() { format!("[{:+.2}, {:+.2}]", inf.lo, inf.hi) } else { "(1 topic)".into() };
            let pb = if p_better.is_finite() { format!("{p_better:.2}") } else { String::new() };
            let _ = writeln!(s, "{:<10} {:<8} {:<7} {:>+10.2} {:>22} {:>13}", task.name(), prior.name(), task.measure_name(), inf.mean, ci, pb);
        }
    }
    let _ = writeln!(s, "simulation error (users only): +-{:.3} (1.96 se, largest row)", 1.96 * mc);
    if few {
        let _ = writeln!(s, "fewer than 10 topics: the result does not generalise to other topics");
    }
    let _ = writeln!(s, "details: sweep.csv (every topic and lambda), fig6.csv, fig6.svg; --quiet hides this");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::sublists::collection::{topics_from_collection, SublistSyntheticConfig};

    fn small() -> (Vec<TopicSublists>, SweepGrid) {
        let mut cfg = SublistSyntheticConfig::default();
        cfg.collection.topics = 4;
        cfg.collection.docs_per_topic = 150;
        let topics = topics_from_collection(&cfg.generate().unwrap(), 0).unwrap();
        let mut grid = SweepGrid::paper(7);
        grid.replicates = 50;
        grid.lambdas = vec![1.0, 0.01];
        (topics, grid)
    }

    #[test]
    fn sweep_is_deterministic_across_thread_counts() {
        let (topics, grid) = small();
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| run_sweep(&topics, &grid, &|_, _| {})).unwrap();
        let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap().install(|| run_sweep(&topics, &grid, &|_, _| {})).unwrap();
        assert_eq!(sweep_csv(&topics, &grid, &one), sweep_csv(&topics, &grid, &two));
        let svg = fig6_svg(&grid, &one).unwrap();
        assert!(svg.contains("<svg") && svg.contains("NDCG") && svg.contains("Random"));
    }

    /// `simulate_users` walks under the prior it is given (`PreparedProfile::set_prior`), not the
    /// profile's. No continuation: after every result the user switches, to a sublist drawn
    /// from the prior among those neither current nor exhausted (uniform when they all weigh 0).
    /// A prior on the sublist of the six relevant results ("rel") brings the user back to them
    /// after every detour, so find-all takes fewer actions than with a prior on the sublist of
    /// the six non-relevant ones ("non"), which sends the user back to those instead (the
    /// direction, argued by hand; the walk is deterministic here: 23 against 24 actions). The
    /// same users (seed) meet both priors; were the prior ignored, both would walk alike.
    #[test]
    fn explicit_priors_steer_the_switches() {
        let grades: Vec<i32> = (0..12).map(|r| i32::from(r >= 6)).collect();
        let t = TopicSublists::new("t", grades, vec![("rel".into(), (6..12).collect()), ("non".into(), (0..6).collect())]).unwrap();
        let (cont, w) = (vec![0.0; 13], ActionWeights::default());
        let mean = |alpha: &[f64]| {
            let e = simulate_users(&t, &cont, alpha, CutOff::FindAll, 10, &w, 200, 1).unwrap();
            e.iter().sum::<f64>() / e.len() as f64
        };
        let (to_rel, to_non) = (mean(&[0.0, 1.0, 0.0]), mean(&[0.0, 0.0, 1.0]));
        assert!(to_rel < to_non, "effort {to_rel} with the prior on rel, {to_non} on non");
        assert!(simulate_users(&t, &cont, &[1.0, 1.0], CutOff::FindAll, 10, &w, 1, 1).is_err(), "two weights for three sublists");
    }

    #[test]
    fn basic_effort_counts_examines_and_page_turns() {
        // Relevant at ranks 3 and 25: find-all = 25 examines + 2 page turns.
        let mut g = vec![0; 30];
        g[2] = 1;
        g[24] = 1;
        let t = TopicSublists::new("t", g, vec![]).unwrap();
        let w = ActionWeights::default();
        assert_eq!(basic_effort(&t, CutOff::FindAll, 10, &w), 27.0);
        assert_eq!(basic_effort(&t, CutOff::Find(1), 10, &w), 3.0);
        // An effort budget measures gain: 10 examines + 1 turn + 10 examines + 1 turn = 22
        // actions reach rank 20; 3 more reach rank 23 (25 actions): gain 1 (rank 3). Budget 27
        // reaches rank 25: gain 2.
        assert_eq!(basic_effort(&t, CutOff::Effort(25.0), 10, &w), 1.0);
        assert_eq!(basic_effort(&t, CutOff::Effort(27.0), 10, &w), 2.0);
    }

    /// Fig. 6 sanity facts on the 50-topic synthetic collection of simulations/sublists/default.toml
    /// (200 replicates per cell here; analysis/sublists/ has the 1,000-replicate run).
    #[test]
    fn fig6_sanity_facts_hold_on_50_synthetic_topics() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("simulations/sublists/default.toml");
        let (s, base) = crate::scenario::Scenario::from_file(&path).unwrap();
        let study = crate::presets::sublists::scenario::SublistStudy::from_scenario(&s, &base, "default.toml").unwrap();
        let mut grid = study.grid.clone();
        grid.replicates = 200;
        assert_eq!(study.topics.len(), 50);
        let cells = run_sweep_world(&study.loaded.world, &study.loaded.prepared, &study.labels, &grid, &|_, _| {}).unwrap();
        let (ndcg, random) = (0, 1);
        assert_eq!((grid.priors[ndcg], grid.priors[random]), (Prior::Ndcg, Prior::Random));
        for k in 0..grid.tasks.len() {
            for l in 0..grid.lambdas.len() {
                let (a, b) = (pooled(&cells, k, ndcg, l).median, pooled(&cells, k, random, l).median);
                assert!(a <= b, "{} lambda {}: nDCG prior {a} > random {b}", grid.tasks[k].name(), grid.lambdas[l]);
            }
        }
        let all = grid.tasks.iter().position(|t| *t == CutOff::FindAll).unwrap();
        let (l1, l001) = (grid.lambdas.iter().position(|&l| l == 1.0).unwrap(), grid.lambdas.iter().position(|&l| l == 0.01).unwrap());
        for p in [ndcg, random] {
            let (slow, fast) = (pooled(&cells, all, p, l001).median, pooled(&cells, all, p, l1).median);
            assert!(slow < fast, "find-all: lambda 0.01 {slow} vs lambda 1 {fast}");
        }
    }
}
