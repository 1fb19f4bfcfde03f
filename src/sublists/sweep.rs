//! The what-if sweep (He et al. §5.1, Fig. 6): lambda x prior x task, replicates per cell,
//! for the RLR and the basic interface.

use super::model::{dirichlet_samplers, draw_dirichlet, simulate_path, ActionWeights, ContinuationKind, CutOff, Scratch, TopicSublists};
use super::measures::Prior;
use crate::error::{Error, Result};
use crate::rng::{hash_str, stream};
use crate::stats::quantile_sorted;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// One (topic, task, prior, lambda) cell: the RLR effort distribution and the basic effort.
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
    /// RLR effort quartiles over replicates.
    pub rlr: Quartiles,
    /// Basic-interface effort (deterministic: "All" walked top to bottom).
    pub basic: f64,
    /// RLR effort per replicate.
    pub samples: Vec<f64>,
}

/// Simulates `replicates` RLR users on `topic` and returns, in replicate order, their effort
/// (gain targets) or gain (effort budgets): see [`CutOff::measure`].
///
/// Replicate `i` draws from `stream(seed, [tag, topic, cell..., i])`: results do not depend
/// on thread count or scheduling.
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
    ids: &[u64],
) -> Result<Vec<f64>> {
    let gammas = dirichlet_samplers(alpha)?;
    let mut scratch = Scratch::default();
    let mut c = Vec::with_capacity(alpha.len());
    let mut key: Vec<u64> = ids.to_vec();
    key.push(0);
    let last = key.len() - 1;
    Ok((0..replicates)
        .map(|i| {
            key[last] = i as u64;
            let mut rng = stream(seed, &key);
            draw_dirichlet(&gammas, &mut rng, &mut c);
            cutoff.measure(&simulate_path(topic, cont, &c, page_size, weights, cutoff, &mut rng, &mut scratch, None))
        })
        .collect())
}

/// Effort (gain targets) or gain (effort budgets) of the basic interface ("All" only,
/// deterministic).
pub fn basic_effort(topic: &TopicSublists, cutoff: CutOff, page_size: u32, weights: &ActionWeights) -> f64 {
    let basic = topic.basic();
    let cont = vec![1.0; basic.grades.len()];
    let mut rng = stream(0, &[]);
    cutoff.measure(&simulate_path(&basic, &cont, &[1.0], page_size, weights, cutoff, &mut rng, &mut Scratch::default(), None))
}

/// Runs the sweep in parallel; `progress(done, total)` is called as cells finish.
pub fn run_sweep(topics: &[TopicSublists], grid: &SweepGrid, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<Vec<SweepCell>> {
    if topics.is_empty() {
        return Err(Error::Invalid("the sweep has no topics".into()));
    }
    if grid.lambdas.is_empty() || grid.priors.is_empty() || grid.tasks.is_empty() || grid.replicates == 0 {
        return Err(Error::Invalid("the sweep grid is empty (lambdas, priors, tasks and replicates must be non-empty)".into()));
    }
    let max_n = topics.iter().map(|t| t.grades.len()).max().unwrap_or(0);
    let tables: Vec<Vec<f64>> = grid.lambdas.iter().map(|&l| ContinuationKind::Exponential { lambda: l }.table(max_n)).collect();
    let alphas: Vec<Vec<Vec<f64>>> = topics.iter().map(|t| grid.priors.iter().map(|p| p.alpha(t)).collect()).collect();
    let basics: Vec<Vec<f64>> = topics.iter().map(|t| grid.tasks.iter().map(|&c| basic_effort(t, c, grid.page_size, &grid.weights)).collect()).collect();
    let (nl, np, nk) = (grid.lambdas.len(), grid.priors.len(), grid.tasks.len());
    let total = (topics.len() * nk * np * nl) as u64;
    let done = AtomicU64::new(0);
    let tag = hash_str("sublists-sweep");
    (0..total as usize)
        .into_par_iter()
        .map(|i| {
            let (topic, rest) = (i / (nk * np * nl), i % (nk * np * nl));
            let (task, rest) = (rest / (np * nl), rest % (np * nl));
            let (prior, lambda) = (rest / nl, rest % nl);
            let t = &topics[topic];
            let ids = [tag, topic as u64, task as u64, prior as u64, lambda as u64];
            let samples = simulate_users(t, &tables[lambda], &alphas[topic][prior], grid.tasks[task], grid.page_size, &grid.weights, grid.replicates, grid.seed, &ids)?;
            let mut sorted = samples.clone();
            let rlr = Quartiles::of(&mut sorted);
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress(d, total);
            Ok(SweepCell { topic, task, prior, lambda, rlr, basic: basics[topic][task], samples })
        })
        .collect()
}

/// Pooled quartiles over topics and replicates for (task, prior, lambda), as plotted in Fig. 6.
pub fn pooled(cells: &[SweepCell], task: usize, prior: usize, lambda: usize) -> Quartiles {
    let mut xs: Vec<f64> = cells.iter().filter(|c| c.task == task && c.prior == prior && c.lambda == lambda).flat_map(|c| c.samples.iter().copied()).collect();
    Quartiles::of(&mut xs)
}

/// CSV of the sweep: one row per (topic, task, prior, lambda, interface).
pub fn sweep_csv(topics: &[TopicSublists], grid: &SweepGrid, cells: &[SweepCell]) -> String {
    let mut s = String::from("topic,task,measure,prior,lambda,interface,replicates,median,q25,q75\n");
    for c in cells {
        let t = crate::report::csv_field(&topics[c.topic].id);
        let (task, prior, lambda) = (grid.tasks[c.task].name(), grid.priors[c.prior].name(), grid.lambdas[c.lambda]);
        let m = grid.tasks[c.task].measure_name();
        s += &format!("{t},{task},{m},{prior},{lambda},rlr,{},{},{},{}\n", c.samples.len(), c.rlr.median, c.rlr.q25, c.rlr.q75);
        s += &format!("{t},{task},{m},{prior},{lambda},basic,1,{b},{b},{b}\n", b = c.basic);
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
                s += &format!("{},{},{},{},{},{},{}\n", task.name(), task.measure_name(), prior.name(), lambda, q.median, q.q25, q.q75);
            }
        }
    }
    s
}

/// Fig. 6: pooled median effort against lambda per task, one line per prior, IQR shaded.
pub fn fig6_svg(grid: &SweepGrid, cells: &[SweepCell]) -> Result<String> {
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| crate::report::plot_err(e);
    let mut svg = String::new();
    {
        let panels = grid.tasks.len();
        let root = SVGBackend::with_string(&mut svg, (420 * panels as u32, 360)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let areas = root.split_evenly((1, panels));
        let nl = grid.lambdas.len();
        for (k, task) in grid.tasks.iter().enumerate() {
            let series: Vec<Vec<self::Quartiles>> = (0..grid.priors.len()).map(|p| (0..nl).map(|l| pooled(cells, k, p, l)).collect()).collect();
            let ymax = series.iter().flatten().map(|q| q.q75).filter(|x| x.is_finite()).fold(1.0f64, f64::max) * 1.05;
            let labels: Vec<String> = grid.lambdas.iter().map(|l| format!("{l}")).collect();
            let mut chart = ChartBuilder::on(&areas[k])
                .caption(format!("Task: {}", task.name()), ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(34)
                .y_label_area_size(48)
                .build_cartesian_2d(-0.2f64..(nl as f64 - 0.8), 0f64..ymax)
                .map_err(|e| err(&e))?;
            chart
                .configure_mesh()
                .x_labels(nl)
                .x_label_formatter(&|x| labels.get(x.round() as usize).cloned().unwrap_or_default())
                .x_desc("lambda")
                .y_desc(if matches!(task, CutOff::Effort(_)) { "Gain" } else { "Effort" })
                .draw()
                .map_err(|e| err(&e))?;
            for (p, prior) in grid.priors.iter().enumerate() {
                let color = match prior {
                    Prior::Random => RGBColor(200, 40, 40),
                    Prior::Ndcg => RGBColor(30, 80, 200),
                    Prior::Smoothed(_) => {
                        let (r, g, b) = Palette99::pick(p).to_rgba().rgb();
                        RGBColor(r, g, b)
                    }
                };
                let band: Vec<(f64, f64)> = (0..nl)
                    .map(|l| (l as f64, series[p][l].q75))
                    .chain((0..nl).rev().map(|l| (l as f64, series[p][l].q25)))
                    .collect();
                chart.draw_series(std::iter::once(Polygon::new(band, color.mix(0.2).filled()))).map_err(|e| err(&e))?;
                let name = match prior {
                    Prior::Ndcg => "NDCG".to_string(),
                    Prior::Random => "Random".to_string(),
                    other => other.name(),
                };
                chart
                    .draw_series(LineSeries::new((0..nl).map(|l| (l as f64, series[p][l].median)), color.stroke_width(2)))
                    .map_err(|e| err(&e))?
                    .label(name)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
            }
            chart.configure_series_labels().position(SeriesLabelPosition::UpperLeft).background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sublists::collection::{topics_from_collection, SublistSyntheticConfig};

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
        let s = crate::sublists::scenario::SublistScenario::from_str(include_str!("../../simulations/sublists/default.toml"), "sublists.toml").unwrap();
        let mut grid = s.grid("x").unwrap();
        grid.replicates = 200;
        let topics = s.topics(std::path::Path::new("."), "x").unwrap();
        assert_eq!(topics.len(), 50);
        let cells = run_sweep(&topics, &grid, &|_, _| {}).unwrap();
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
