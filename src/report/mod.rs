//! From replicate outcomes to distributions, comparisons and files (CSV, JSON, SVG).

mod atomic;
mod plot;

pub use atomic::{write_atomic, write_atomic_with};
pub use plot::{ecdf_svg, plot_err};

use crate::collection::Collection;
use crate::error::Result;
use crate::simulate::{CellSamples, MEASURES};
use crate::stats::{median, wilcoxon_signed_rank, SignedRank, Summary};
use crate::user::UserProfile;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Distribution of every measure in one (topic, system, profile) cell.
#[derive(Debug, Clone, Serialize)]
pub struct CellSummary {
    /// Topic id.
    pub topic: String,
    /// System name.
    pub system: String,
    /// Profile name.
    pub profile: String,
    /// `(measure, summary)` in [`MEASURES`] order.
    pub measures: Vec<(String, Summary)>,
}

/// Summarises every cell.
pub fn summarise(c: &Collection, profiles: &[UserProfile], cells: &[CellSamples], bins: usize) -> Vec<CellSummary> {
    cells
        .iter()
        .map(|cell| CellSummary {
            topic: c.topics[cell.topic].id.clone(),
            system: c.systems[cell.system].name.clone(),
            profile: profiles[cell.profile].name.clone(),
            measures: MEASURES
                .iter()
                .enumerate()
                .map(|(m, name)| {
                    let xs: Vec<f64> = cell.outcomes.iter().map(|o| o.measure(m)).collect();
                    (name.to_string(), Summary::of(&xs, bins))
                })
                .collect(),
        })
        .collect()
}

/// Effort of system A against system B on one topic, replicate i paired with replicate i.
#[derive(Debug, Clone, Serialize)]
pub struct TopicComparison {
    /// Topic id.
    pub topic: String,
    /// Distribution of effort(A) - effort(B).
    pub effort_difference: Summary,
    /// P(A needs less effort than B).
    pub p_a_less: f64,
    /// P(equal effort).
    pub p_tie: f64,
    /// Median effort under A.
    pub median_a: f64,
    /// Median effort under B.
    pub median_b: f64,
}

/// A paired comparison of two systems under one user population.
#[derive(Debug, Clone, Serialize)]
pub struct PairComparison {
    /// Profile name.
    pub profile: String,
    /// System A.
    pub system_a: String,
    /// System B.
    pub system_b: String,
    /// Per topic where both systems returned results.
    pub topics: Vec<TopicComparison>,
    /// Wilcoxon signed-rank test of the per-topic median efforts (A vs B).
    pub wilcoxon: SignedRank,
}

/// Compares the requested system pairs (all pairs if `pairs` is empty) for every profile.
pub fn compare_systems(
    c: &Collection,
    profiles: &[UserProfile],
    cells: &[CellSamples],
    pairs: &[[String; 2]],
    bins: usize,
) -> Vec<PairComparison> {
    let mut index = std::collections::HashMap::new();
    for (i, cell) in cells.iter().enumerate() {
        index.insert((cell.topic, cell.system, cell.profile), i);
    }
    let pairs: Vec<(usize, usize)> = if pairs.is_empty() {
        let n = c.systems.len();
        (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect()
    } else {
        pairs
            .iter()
            .filter_map(|[a, b]| Some((c.system_index(a)?, c.system_index(b)?)))
            .collect()
    };
    let mut out = Vec::new();
    for (p, profile) in profiles.iter().enumerate() {
        for &(a, b) in &pairs {
            let mut topics = Vec::new();
            for t in 0..c.topics.len() {
                let (Some(&ia), Some(&ib)) = (index.get(&(t, a, p)), index.get(&(t, b, p))) else { continue };
                let ea: Vec<f64> = cells[ia].outcomes.iter().map(|o| o.effort).collect();
                let eb: Vec<f64> = cells[ib].outcomes.iter().map(|o| o.effort).collect();
                let diff: Vec<f64> = ea.iter().zip(&eb).map(|(x, y)| x - y).collect();
                let n = diff.len() as f64;
                topics.push(TopicComparison {
                    topic: c.topics[t].id.clone(),
                    p_a_less: diff.iter().filter(|d| **d < 0.0).count() as f64 / n,
                    p_tie: diff.iter().filter(|d| **d == 0.0).count() as f64 / n,
                    effort_difference: Summary::of(&diff, bins),
                    median_a: median(&ea),
                    median_b: median(&eb),
                });
            }
            let ma: Vec<f64> = topics.iter().map(|t| t.median_a).collect();
            let mb: Vec<f64> = topics.iter().map(|t| t.median_b).collect();
            out.push(PairComparison {
                profile: profile.name.clone(),
                system_a: c.systems[a].name.clone(),
                system_b: c.systems[b].name.clone(),
                wilcoxon: wilcoxon_signed_rank(&ma, &mb),
                topics,
            });
        }
    }
    out
}

/// Everything a simulation run writes.
#[derive(Debug, Clone, Serialize)]
pub struct SimulationReport {
    /// Scenario name.
    pub scenario: String,
    /// Master seed.
    pub seed: u64,
    /// Replicates per cell.
    pub replicates: usize,
    /// Distributions per cell.
    pub cells: Vec<CellSummary>,
    /// Paired system comparisons.
    pub comparisons: Vec<PairComparison>,
}

const SUMMARY_HEADER: &str = "topic,system,profile,measure,n,mean,sd,se,min,q05,q25,q50,q75,q95,max";

fn summary_row(w: &mut dyn Write, prefix: &[&str], s: &Summary) -> std::io::Result<()> {
    for p in prefix {
        write!(w, "{},", csv_field(p))?;
    }
    writeln!(w, "{},{},{},{},{},{},{},{},{},{},{}", s.n, s.mean, s.sd, s.se, s.min, s.q05, s.q25, s.q50, s.q75, s.q95, s.max)
}

/// Quotes a CSV field when needed.
pub fn csv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}

/// Writes `summary.csv`, `summary.json`, `comparison.csv`, optionally `samples.csv` and
/// `distributions.svg` into `dir`, each atomically. Returns the paths written.
pub fn write_simulation(
    dir: &Path,
    report: &SimulationReport,
    collection: &Collection,
    profiles: &[UserProfile],
    cells: &[CellSamples],
    samples: bool,
    plot: bool,
) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let path = dir.join("summary.csv");
    write_atomic_with(&path, |w| {
        writeln!(w, "{SUMMARY_HEADER}")?;
        for cell in &report.cells {
            for (m, s) in &cell.measures {
                summary_row(w, &[&cell.topic, &cell.system, &cell.profile, m], s)?;
            }
        }
        Ok(())
    })?;
    written.push(path);

    let path = dir.join("summary.json");
    let json = serde_json::to_vec_pretty(report).map_err(|e| crate::error::Error::Invalid(e.to_string()))?;
    write_atomic(&path, &json)?;
    written.push(path);

    if !report.comparisons.is_empty() {
        let path = dir.join("comparison.csv");
        write_atomic_with(&path, |w| {
            writeln!(w, "profile,system_a,system_b,topic,p_a_less,p_tie,median_a,median_b,diff_mean,diff_q05,diff_q25,diff_q50,diff_q75,diff_q95")?;
            for c in &report.comparisons {
                for t in &c.topics {
                    let d = &t.effort_difference;
                    writeln!(
                        w,
                        "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                        csv_field(&c.profile), csv_field(&c.system_a), csv_field(&c.system_b), csv_field(&t.topic),
                        t.p_a_less, t.p_tie, t.median_a, t.median_b, d.mean, d.q05, d.q25, d.q50, d.q75, d.q95
                    )?;
                }
                writeln!(
                    w,
                    "{},{},{},ALL(wilcoxon V={} n={} p={}),,,,,,,,,,",
                    csv_field(&c.profile), csv_field(&c.system_a), csv_field(&c.system_b),
                    c.wilcoxon.statistic, c.wilcoxon.n, c.wilcoxon.p_value
                )?;
            }
            Ok(())
        })?;
        written.push(path);
    }

    if samples {
        let path = dir.join("samples.csv");
        write_atomic_with(&path, |w| {
            writeln!(w, "topic,system,profile,replicate,{}", MEASURES.join(","))?;
            for cell in cells {
                let (t, s, p) = (
                    csv_field(&collection.topics[cell.topic].id),
                    csv_field(&collection.systems[cell.system].name),
                    csv_field(&profiles[cell.profile].name),
                );
                for (i, o) in cell.outcomes.iter().enumerate() {
                    writeln!(w, "{t},{s},{p},{i},{},{},{},{},{},{}", o.effort, o.time, o.gain, o.depth, o.clicks, o.relevant_found)?;
                }
            }
            Ok(())
        })?;
        written.push(path);
    }

    if plot {
        let path = dir.join("distributions.svg");
        let svg = ecdf_svg(collection, profiles, cells)?;
        write_atomic(&path, svg.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}
