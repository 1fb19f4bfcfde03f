//! `serpsim sessions run|sweep`: thin front ends over the one scenario schema and the engine.
//!
//! `run` writes the common report (as `simulate`) plus Maxwell et al.'s per-point table
//! (`sessions.csv`) and the query quality (`query_quality.csv`). `sweep` needs `[[sweep]]`
//! entries (typically over `stopping[0]` and `stopping[0].n`) and writes the threshold sweep
//! (`sweep.csv`), the best threshold per strategy (`best.csv`, Table 2), paired tests between
//! strategies at their best thresholds (`tests.csv`), the query quality and the depth / rate of
//! gain plot (`depth_vs_rate.svg`, Figure 1).

use super::sweep::{best_csv, best_points, compare_best, comparisons_csv, depth_rate_svg, results_csv, sweep_world, PointLabel, PointResult, SweepSink};
use crate::error::{Error, Result};
use crate::scenario::{Loaded, Overrides, Scenario};
use crate::simulate::world::World;
use crate::write::csv_field;
use std::path::{Path, PathBuf};

/// What a run wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// Output files.
    pub files: Vec<PathBuf>,
    /// The point results.
    pub results: Vec<PointResult>,
    /// The short answer of the common report (`sessions run`), empty for a sweep.
    pub answer: String,
}

/// Labels of each profile: the short name and threshold of its first query stopping rule.
fn labels(loaded: &Loaded) -> Vec<PointLabel> {
    loaded
        .prepared
        .iter()
        .map(|p| match p.profile.stopping.first() {
            Some(r) => PointLabel { rule: r.short_name().to_string(), threshold: super::model::threshold_of(r).unwrap_or(0) },
            None => PointLabel { rule: "none".into(), threshold: 0 },
        })
        .collect()
}

/// P@k of a list of `topic`.
fn precision_at(grades: &[i32], docs: &[u32], k: usize) -> f64 {
    docs.iter().take(k).filter(|&&d| grades[d as usize] > 0).count() as f64 / k as f64
}

/// The query quality table (P@5, P@10, P@20, dud share) of every system's variants.
pub fn quality_csv(world: &World) -> String {
    let mut s = String::from("set,queries,p5_mean,p5_sd,p10_mean,p10_sd,p20_mean,p20_sd,dud_share\n");
    for sys in &world.systems {
        let mut ps: [Vec<f64>; 3] = Default::default();
        let mut duds = 0usize;
        for (t, serp) in sys.serps.iter().enumerate() {
            for l in serp.iter().flatten() {
                let g = &world.topics[t].grades;
                for (i, k) in [5, 10, 20].into_iter().enumerate() {
                    ps[i].push(precision_at(g, &l.docs, k));
                }
                duds += usize::from(precision_at(g, &l.docs, 10) == 0.0);
            }
        }
        let n = ps[0].len();
        let ms = |v: &[f64]| if v.is_empty() { (0.0, 0.0) } else { (crate::stats::mean(v), crate::stats::sd(v)) };
        let (p5, s5) = ms(&ps[0]);
        let (p10, s10) = ms(&ps[1]);
        let (p20, s20) = ms(&ps[2]);
        let f = crate::write::fmt_f64;
        s.push_str(&format!(
            "{},{n},{},{},{},{},{},{},{}\n",
            csv_field(&sys.name),
            f(p5),
            f(s5),
            f(p10),
            f(s10),
            f(p20),
            f(s20),
            f(duds as f64 / n.max(1) as f64)
        ));
    }
    s
}

/// `sessions run`: the common report, `sessions.csv` and `query_quality.csv`.
pub fn run_sessions(mut s: Scenario, base: &Path, overrides: &Overrides, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<Written> {
    overrides.apply(&mut s)?;
    let loaded = s.load(base)?;
    let mut staged = crate::run::stage(&s, "sessions run")?;
    // One pass: the common report's sink and the sweep's tables see the same sessions.
    let (rendered, sweep) = crate::run::run_into_with(&s, &loaded, &mut staged, progress, SweepSink::new(&loaded.world, loaded.prepared.len()))?;
    let results = sweep.results(&loaded.world, &labels(&loaded));
    staged.write("sessions.csv", results_csv(&results).as_bytes())?;
    staged.write("query_quality.csv", quality_csv(&loaded.world).as_bytes())?;
    Ok(Written { files: staged.commit()?, results, answer: rendered.answer })
}

/// `sessions sweep`: the threshold sweep of the scenario's `[[sweep]]`.
pub fn run_sweep(mut s: Scenario, base: &Path, overrides: &Overrides, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<Written> {
    overrides.apply(&mut s)?;
    if s.sweep.is_empty() {
        return Err(Error::Invalid(format!(
            "scenario `{}` has no [[sweep]] entries: `sessions sweep` sweeps profile keys (e.g. key = \"stopping[0].n\", values = [1, 2, 3]); use `sessions run` or `simulate` to run it as it is",
            s.name
        )));
    }
    let mut staged = crate::run::stage(&s, "sessions sweep")?;
    let loaded = s.load(base)?;
    let results = sweep_world(&loaded.world, &loaded.prepared, &labels(&loaded), s.replicates, s.seed, progress)?;
    let best = best_points(&results);
    let tests = compare_best(&results, &best);
    staged.write("sweep.csv", results_csv(&results).as_bytes())?;
    staged.write("best.csv", best_csv(&best).as_bytes())?;
    staged.write("tests.csv", comparisons_csv(&tests).as_bytes())?;
    staged.write("query_quality.csv", quality_csv(&loaded.world).as_bytes())?;
    staged.write("depth_vs_rate.svg", depth_rate_svg(&results)?.as_bytes())?;
    Ok(Written { files: staged.commit()?, results, answer: String::new() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_scenarios_parse_and_load() {
        for f in ["sessions/maxwell2015.toml", "sessions/pressure.toml", "sessions/trec.toml"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("simulations").join(f);
            let (s, base) = Scenario::from_file(&path).unwrap_or_else(|e| panic!("{f}: {e}"));
            let mut small = s.clone();
            if let crate::scenario::CollectionSource::SyntheticQueries(q) = &mut small.collection {
                q.generator.topics = 2;
            }
            small.load(&base).unwrap_or_else(|e| panic!("{f}: {e}"));
        }
    }
}
