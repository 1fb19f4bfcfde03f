//! Session scenarios (TOML) for `serpsim sessions run|sweep`. Unknown keys are errors that name
//! the key; the schema is in `docs/sessions.md`, examples in `simulations/sessions/*.toml`.

use super::model::{threshold_of, SessionConfig};
use super::queries::{query_quality, topics_from_trec, QueryStrategy, SyntheticQueries};
use super::sweep::{
    best_csv, best_points, compare_best, comparisons_csv, depth_rate_svg, grid, paper_thresholds, results_csv, rule_name, run_points,
    Point, PointResult, QuerySet,
};
use crate::collection::trec::{Qrels, Run};
use crate::error::{Error, Result};
use crate::report::write_atomic;
use crate::user::StoppingRuleKind;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A session scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionScenario {
    /// Name (reported in outputs).
    pub name: String,
    /// Master seed of the judgements.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Sessions (replicates) per topic and configuration.
    #[serde(default = "default_replicates")]
    pub replicates: usize,
    /// Where the topics and query variants come from.
    pub queries: QuerySource,
    /// Searcher, interface and deadline.
    #[serde(default)]
    pub session: SessionConfig,
    /// Threshold sweep (for `sessions sweep`).
    #[serde(default)]
    pub sweep: SweepSpec,
    /// Output folder.
    #[serde(default)]
    pub output: OutputSpec,
}

fn default_seed() -> u64 {
    1
}
fn default_replicates() -> usize {
    1000
}

/// Query sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum QuerySource {
    /// Qrels plus runs with `topic.variant` query ids; each run is one query set.
    Trec(TrecQueries),
    /// The synthetic generator; one query set per strategy.
    Synthetic(SyntheticSource),
}

/// TREC query variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrecQueries {
    /// Qrels file.
    pub qrels: PathBuf,
    /// Run files (query ids `topic.variant`).
    pub runs: Vec<PathBuf>,
}

/// Synthetic query variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyntheticSource {
    /// Querying strategies to simulate (`qs1`, `qs3`, `qs13`).
    #[serde(default = "all_strategies")]
    pub strategies: Vec<QueryStrategy>,
    /// Generator knobs.
    #[serde(default)]
    pub generator: SyntheticQueries,
}

fn all_strategies() -> Vec<QueryStrategy> {
    QueryStrategy::ALL.to_vec()
}

/// Stopping strategies by schema name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleName {
    /// SS1.
    FixedDepth,
    /// SS2.
    TotalNonrelevant,
    /// SS3.
    ContiguousNonrelevant,
}

impl RuleName {
    fn rule(self) -> StoppingRuleKind {
        match self {
            RuleName::FixedDepth => StoppingRuleKind::FixedDepth { n: 1 },
            RuleName::TotalNonrelevant => StoppingRuleKind::TotalNonrelevant { n: 1 },
            RuleName::ContiguousNonrelevant => StoppingRuleKind::ContiguousNonrelevant { n: 1 },
        }
    }
}

/// The sweep grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SweepSpec {
    /// Stopping strategies (default: all three).
    pub rules: Vec<RuleName>,
    /// Thresholds (default: 1..20, 25..50 step 5).
    pub thresholds: Vec<usize>,
}

impl Default for SweepSpec {
    fn default() -> Self {
        SweepSpec {
            rules: vec![RuleName::FixedDepth, RuleName::TotalNonrelevant, RuleName::ContiguousNonrelevant],
            thresholds: paper_thresholds(),
        }
    }
}

/// Outputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputSpec {
    /// Folder for the output files (relative to the scenario file).
    pub dir: PathBuf,
}

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec { dir: PathBuf::from("serpsim-out/sessions") }
    }
}

impl SessionScenario {
    /// Parses TOML; `context` names the file in errors.
    pub fn parse(text: &str, context: &str) -> Result<Self> {
        let s: SessionScenario = crate::scenario::from_toml(text, context)?;
        s.validate(context)?;
        Ok(s)
    }

    /// Reads a scenario file; relative paths resolve against its folder (returned).
    pub fn from_file(path: &Path) -> Result<(Self, PathBuf)> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let s = Self::parse(&text, &path.display().to_string())?;
        Ok((s, path.parent().map(Path::to_path_buf).unwrap_or_default()))
    }

    /// Checks values the schema cannot.
    pub fn validate(&self, context: &str) -> Result<()> {
        if self.name.is_empty() {
            return Err(Error::config(context, "name", "must not be empty"));
        }
        if self.replicates == 0 {
            return Err(Error::config(context, "replicates", "must be at least 1"));
        }
        self.session.validate(context, "session.")?;
        match &self.queries {
            QuerySource::Trec(t) if t.runs.is_empty() => return Err(Error::config(context, "queries.runs", "must list at least one run")),
            QuerySource::Synthetic(s) => {
                if s.strategies.is_empty() {
                    return Err(Error::config(context, "queries.strategies", "must list at least one strategy"));
                }
                s.generator.validate(context, "queries.generator.")?;
            }
            _ => {}
        }
        if self.sweep.rules.is_empty() {
            return Err(Error::config(context, "sweep.rules", "must list at least one rule"));
        }
        if self.sweep.thresholds.is_empty() || self.sweep.thresholds.contains(&0) {
            return Err(Error::config(context, "sweep.thresholds", "must list thresholds of at least 1"));
        }
        Ok(())
    }

    /// Loads the query sets (paths relative to `base`).
    pub fn query_sets(&self, base: &Path) -> Result<Vec<QuerySet>> {
        match &self.queries {
            QuerySource::Synthetic(s) => {
                s.strategies.iter().map(|&st| Ok(QuerySet { label: st.name().into(), topics: s.generator.generate(st)? })).collect()
            }
            QuerySource::Trec(t) => {
                let qrels = Qrels::from_file(&base.join(&t.qrels))?;
                t.runs
                    .iter()
                    .map(|p| {
                        let run = Run::from_file(&base.join(p))?;
                        let (topics, _) = topics_from_trec(&qrels, &run)?;
                        Ok(QuerySet { label: run.name.clone(), topics })
                    })
                    .collect()
            }
        }
    }
}

/// Writes the query quality table (P@5, P@10, P@20, dud share) of `sets`.
fn quality_csv(sets: &[QuerySet]) -> String {
    let mut s = String::from("set,queries,p5_mean,p5_sd,p10_mean,p10_sd,p20_mean,p20_sd,dud_share\n");
    for set in sets {
        let n: usize = set.topics.iter().map(|t| t.queries.len()).sum();
        let (p5, s5, _) = query_quality(&set.topics, 5);
        let (p10, s10, duds) = query_quality(&set.topics, 10);
        let (p20, s20, _) = query_quality(&set.topics, 20);
        s.push_str(&format!(
            "{},{n},{p5:.4},{s5:.4},{p10:.4},{s10:.4},{p20:.4},{s20:.4},{duds:.4}\n",
            crate::report::csv_field(&set.label)
        ));
    }
    s
}

/// What a run wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// Output files.
    pub files: Vec<PathBuf>,
    /// The point results.
    pub results: Vec<PointResult>,
}

fn out_dir(s: &SessionScenario, base: &Path, out: Option<&Path>) -> PathBuf {
    match out {
        Some(o) => o.to_path_buf(),
        None => base.join(&s.output.dir),
    }
}

/// `sessions run`: the scenario's configuration on every query set.
pub fn run_sessions(s: &SessionScenario, base: &Path, out: Option<&Path>, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<Written> {
    let sets = s.query_sets(base)?;
    let rule = rule_name(&s.session.searcher.stopping).to_string();
    let threshold = threshold_of(&s.session.searcher.stopping).unwrap_or(0);
    let points: Vec<Point> = (0..sets.len()).map(|set| Point { set, rule: rule.clone(), threshold, config: s.session.clone() }).collect();
    let results = run_points(&sets, &points, s.replicates, s.seed, progress)?;
    let dir = out_dir(s, base, out);
    let mut topics = String::from("set,topic,queries_available,gain_mean,rate_mean\n");
    for (r, set) in results.iter().zip(&sets) {
        for ((t, g), rate) in set.topics.iter().zip(&r.topic_gain).zip(&r.topic_rate) {
            topics.push_str(&format!(
                "{},{},{},{g:.6},{rate:.8}\n",
                crate::report::csv_field(&set.label),
                crate::report::csv_field(&t.id),
                t.queries.len()
            ));
        }
    }
    let files = vec![dir.join("summary.csv"), dir.join("topics.csv"), dir.join("query_quality.csv")];
    write_atomic(&files[0], results_csv(&results).as_bytes())?;
    write_atomic(&files[1], topics.as_bytes())?;
    write_atomic(&files[2], quality_csv(&sets).as_bytes())?;
    Ok(Written { files, results })
}

/// `sessions sweep`: every set × rule × threshold.
pub fn run_sweep(s: &SessionScenario, base: &Path, out: Option<&Path>, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<Written> {
    let sets = s.query_sets(base)?;
    let rules: Vec<StoppingRuleKind> = s.sweep.rules.iter().map(|r| r.rule()).collect();
    let points = grid(sets.len(), &rules, &s.sweep.thresholds, &s.session);
    let results = run_points(&sets, &points, s.replicates, s.seed, progress)?;
    let best = best_points(&results);
    let tests = compare_best(&results, &best);
    let dir = out_dir(s, base, out);
    let files = vec![
        dir.join("sweep.csv"),
        dir.join("best.csv"),
        dir.join("tests.csv"),
        dir.join("query_quality.csv"),
        dir.join("depth_vs_rate.svg"),
    ];
    write_atomic(&files[0], results_csv(&results).as_bytes())?;
    write_atomic(&files[1], best_csv(&best).as_bytes())?;
    write_atomic(&files[2], comparisons_csv(&tests).as_bytes())?;
    write_atomic(&files[3], quality_csv(&sets).as_bytes())?;
    write_atomic(&files[4], depth_rate_svg(&results)?.as_bytes())?;
    Ok(Written { files, results })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_and_bad_keys_are_named() {
        let ok = "name = \"x\"\n[queries]\nsource = \"synthetic\"\n";
        assert!(SessionScenario::parse(ok, "s.toml").is_ok());
        let e =
            SessionScenario::parse("name = \"x\"\nreplicate = 3\n[queries]\nsource = \"synthetic\"\n", "s.toml").unwrap_err().to_string();
        assert!(e.contains("replicate"), "{e}");
        let e = SessionScenario::parse(&format!("{ok}[session.searcher]\nclik = [0.1, 0.2]\n"), "s.toml").unwrap_err().to_string();
        assert!(e.contains("clik"), "{e}");
        let e = SessionScenario::parse(&format!("{ok}[session.searcher]\nmark = [0.1, 1.2]\n"), "s.toml").unwrap_err().to_string();
        assert!(e.contains("session.searcher.mark[1]"), "{e}");
        let e = SessionScenario::parse(&format!("{ok}[session.interface]\npage_size = 3\nfold = 0\n"), "s.toml").unwrap_err().to_string();
        assert!(e.contains("session.interface.fold"), "{e}");
        let e = SessionScenario::parse("name = \"x\"\n[queries]\nsource = \"synthetic\"\n[queries.generator]\ndud = 0.3\n", "s.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("dud"), "{e}");
        assert!(SessionScenario::parse(&format!("{ok}[session.searcher]\nbudget = inf\n"), "s.toml").is_ok());
        let e = SessionScenario::parse(&format!("{ok}[session.searcher]\nbudget = -1.0\n"), "s.toml").unwrap_err().to_string();
        assert!(e.contains("session.searcher.budget"), "{e}");
        let e = SessionScenario::parse(&format!("{ok}[sweep]\nthresholds = []\n"), "s.toml").unwrap_err().to_string();
        assert!(e.contains("sweep.thresholds"), "{e}");
    }

    #[test]
    fn example_scenarios_parse() {
        for f in ["sessions/maxwell2015.toml", "sessions/pressure.toml", "sessions/trec.toml"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("simulations").join(f);
            SessionScenario::from_file(&path).unwrap_or_else(|e| panic!("{f}: {e}"));
        }
    }
}
