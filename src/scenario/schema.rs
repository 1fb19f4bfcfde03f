//! The scenario schema: the TOML tables of a scenario file as types (`Scenario` and the tables
//! it holds), with their defaults. What the types alone cannot check is in `validate`.

use crate::collection::queries::{QueryStrategy, SyntheticQueries};
use crate::collection::synthetic::SyntheticConfig;
use crate::error::{Error, Result};
use crate::user::{Delays, UserProfile};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A parsed, validated scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Scenario name (reported in outputs).
    pub name: String,
    /// Master seed.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated users per profile; each meets every topic and system (`users` is a synonym).
    #[serde(default = "default_replicates", alias = "users")]
    pub replicates: u64,
    /// Where the topics and systems come from.
    pub collection: CollectionSource,
    /// Query variants per topic.
    #[serde(default)]
    pub variants: Variants,
    /// Category labels of documents (the sublists of the interface).
    #[serde(default)]
    pub categories: Categories,
    /// The result-page interface.
    #[serde(default)]
    pub interface: InterfaceSpec,
    /// User populations.
    pub profiles: Vec<UserProfile>,
    /// Profile sweeps: every combination of values becomes a profile.
    #[serde(default)]
    pub sweep: Vec<SweepSpec>,
    /// Paired system comparisons.
    #[serde(default)]
    pub compare: CompareSpec,
    /// What the report computes.
    #[serde(default)]
    pub report: ReportSpec,
    /// Outputs.
    #[serde(default)]
    pub output: OutputSpec,
    /// Settings of `serpsim sublists when` (He et al.'s "when does RLR help").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<WhenSpec>,
}

fn default_seed() -> u64 {
    1
}
fn default_replicates() -> u64 {
    10_000
}

/// Collection sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum CollectionSource {
    /// TREC qrels plus runs.
    Trec(TrecSource),
    /// A LETOR file ranked by linear scorers.
    Letor(LetorSource),
    /// The synthetic generator.
    Synthetic(SyntheticConfig),
    /// The synthetic query-variant generator (Maxwell et al.'s QS1, QS3, QS1+3): each querying
    /// strategy is a system whose query variants are generated lists.
    SyntheticQueries(SyntheticQueriesSource),
    /// Stream users (docs/streams.md): topics, nuggets, matches and one updates file per
    /// system; the profiles are stream users. Runs on the engine's stream path.
    Streams(StreamFiles),
}

/// `source = "streams"`: the files of `serpsim streams msu`, relative to the scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamFiles {
    /// Topics file.
    pub topics: PathBuf,
    /// Nuggets file.
    pub nuggets: PathBuf,
    /// Matches file.
    pub matches: PathBuf,
    /// Updates files, one system each (named by the file stem).
    pub updates: Vec<PathBuf>,
}

/// `source = "trec"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrecSource {
    /// Qrels file, or `"embedded"` for the default data.
    pub qrels: PathBuf,
    /// Run files (one system each), or `["embedded"]`.
    pub runs: Vec<PathBuf>,
    /// Optional subtopic qrels `topic subtopic docno grade`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtopic_qrels: Option<PathBuf>,
    /// Also simulate the ideal ranking (documents by grade) under this name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ideal_system: Option<String>,
    /// Optional document metadata (lengths, categories): `docno<TAB>length<TAB>categories`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docinfo: Option<PathBuf>,
    /// Results per page (same as `interface.page_size`; give one of the two).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_size: Option<usize>,
    /// Only these topics (of the qrels and the runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topics: Option<Vec<String>>,
    /// Run a comparison even when more than half of the runs' topics have no judgements
    /// (`--allow-partial-judgements`; see [`crate::collection::coverage`]).
    #[serde(default, skip_serializing_if = "is_false")]
    pub allow_partial_judgements: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `source = "letor"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LetorSource {
    /// LETOR/SVMlight file.
    pub file: PathBuf,
    /// Linear rankers: a name and feature weights (`weights[0]` is feature 1).
    pub rankers: Vec<LinearRanker>,
    /// Results per page (same as `interface.page_size`; give one of the two).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_size: Option<usize>,
}

/// `source = "synthetic_queries"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyntheticQueriesSource {
    /// Querying strategies (`qs1`, `qs3`, `qs13`), one system each.
    #[serde(default = "all_strategies")]
    pub strategies: Vec<QueryStrategy>,
    /// Generator knobs.
    #[serde(default)]
    pub generator: SyntheticQueries,
}

fn all_strategies() -> Vec<QueryStrategy> {
    QueryStrategy::ALL.to_vec()
}

/// A named linear scorer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinearRanker {
    /// System name.
    pub name: String,
    /// Feature weights: a list (feature 1 first) or a table `{ 25 = 1.0, 40 = 0.5 }`.
    pub weights: FeatureWeights,
}

/// Most query variants per topic (`variants.count`).
pub const VARIANTS_MAX: u64 = 10_000;
/// Most points of a report grid (`report.time_grid.points`, `report.effort_grid.points`).
pub const GRID_POINTS_MAX: u64 = 1_000_000;

/// Linear weights, dense or by 1-based feature number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FeatureWeights {
    /// `weights[i]` is the weight of feature i + 1.
    Dense(Vec<f64>),
    /// Feature number (as a string key) to weight; other features weigh 0.
    Sparse(std::collections::BTreeMap<String, f64>),
}

impl FeatureWeights {
    /// The dense vector; errors name `key` when a feature number is not a positive integer
    /// or a weight is not finite.
    pub fn to_dense(&self, context: &str, key: &str) -> Result<Vec<f64>> {
        let dense = match self {
            FeatureWeights::Dense(v) => v.clone(),
            FeatureWeights::Sparse(m) => {
                let mut v = Vec::new();
                for (k, &w) in m {
                    let i: usize =
                        k.parse().ok().filter(|&i| i >= 1).ok_or_else(|| Error::config(context, format!("{key}.{k}"), "feature numbers start at 1"))?;
                    crate::limits::check_usize(
                        context,
                        &format!("{key}.{k}"),
                        i,
                        crate::collection::letor::MAX_FEATURE_INDEX as u64,
                        "the largest LETOR feature number",
                    )?;
                    if v.len() < i {
                        v.resize(i, 0.0);
                    }
                    v[i - 1] = w;
                }
                v
            }
        };
        crate::limits::check_usize(context, key, dense.len(), crate::collection::letor::MAX_FEATURE_INDEX as u64, "weights: the largest LETOR feature number")?;
        if dense.iter().any(|w| !w.is_finite()) {
            return Err(Error::config(context, key, "weights must be finite numbers"));
        }
        Ok(dense)
    }
}

/// `[variants]`: query variants per topic.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Variants {
    /// One query per topic (or whatever the source lists, for `synthetic_queries`).
    #[default]
    None,
    /// TREC runs whose query ids are `topic.variant` (`301.1`, `301.2`): variants in numeric
    /// order, judged by the topic's qrels.
    Suffix,
    /// Synthetic reformulations of every system's ranking (see `World::perturb_variants`).
    Perturbed {
        /// Variants per topic, the first being the original ranking.
        count: usize,
        /// Noise sd in normal-score units.
        noise: f64,
        /// Noise seed.
        #[serde(default = "default_seed")]
        seed: u64,
    },
}

/// `[categories]`: where document category labels (and hence sublists) come from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "snake_case", deny_unknown_fields)]
pub enum Categories {
    /// The collection's own labels (`docinfo`, the synthetic generator's `categories`).
    #[default]
    Collection,
    /// Binned LETOR features: `bins` equal-frequency bins of each feature (1-based) in `features`.
    LetorFeatures {
        /// Features.
        features: Vec<usize>,
        /// Bins per feature (>= 2).
        bins: usize,
    },
    /// The synthetic generator's labels re-drawn with sublist knobs (He et al.'s Rq and Hq).
    SyntheticSublists {
        /// Range of the relevant documents' category Zipf exponent (Hq knob).
        #[serde(default = "default_skew")]
        relevant_skew: [f64; 2],
        /// Range of sublist purity (Rq knob).
        #[serde(default = "default_purity")]
        sublist_purity: [f64; 2],
    },
}

fn default_skew() -> [f64; 2] {
    [0.0, 2.5]
}
fn default_purity() -> [f64; 2] {
    [0.0, 0.9]
}

/// Which systems show sublists: `true` (all), `false`, or a list of system names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SublistSystems {
    /// All or none.
    All(bool),
    /// The named systems.
    Named(Vec<String>),
}

impl Default for SublistSystems {
    fn default() -> Self {
        SublistSystems::All(false)
    }
}

/// `[interface]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InterfaceSpec {
    /// Results per page (default 10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_size: Option<usize>,
    /// Results visible without scrolling on a page (default: all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fold: Option<usize>,
    /// Extra seconds to reach a result below the fold.
    pub below_fold: f64,
    /// System delay after each query, seconds.
    pub query_latency: f64,
    /// System delay after each page request beyond the first.
    pub page_latency: f64,
    /// System delay after each document click (document load delay).
    pub document_latency: f64,
    /// Per-system delays, overriding the three above: `[interface.delays.NAME]`.
    pub delays: std::collections::BTreeMap<String, Delays>,
    /// Sublists (facets) built from the documents' category labels.
    pub sublists: SublistSystems,
    /// Also simulate each system with sublists without them, as `NAME (All only)`.
    pub basic_twin: bool,
}

impl Default for InterfaceSpec {
    fn default() -> Self {
        InterfaceSpec {
            page_size: None,
            fold: None,
            below_fold: 0.0,
            query_latency: 0.0,
            page_latency: 0.0,
            document_latency: 0.0,
            delays: Default::default(),
            sublists: SublistSystems::default(),
            basic_twin: false,
        }
    }
}

/// `[[sweep]]`: set profile key `key` (a dotted path such as `stopping[0].n`) to each value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Dotted key path inside a profile.
    pub key: String,
    /// Values (any TOML values).
    pub values: Vec<toml::Value>,
}

/// `[compare]`: which system pairs to compare.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CompareSpec {
    /// Pairs `[A, B]`; empty means every pair of systems.
    pub pairs: Vec<[String; 2]>,
    /// Skip comparisons altogether.
    pub enabled: bool,
}

impl Default for CompareSpec {
    fn default() -> Self {
        CompareSpec { pairs: Vec::new(), enabled: true }
    }
}

/// A curve grid: `points` points from 0 to `max`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    /// Largest point.
    pub max: f64,
    /// Number of points (default 61).
    #[serde(default = "default_points")]
    pub points: usize,
}

fn default_points() -> usize {
    61
}

/// `[report]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReportSpec {
    /// Gain-over-time grid (default: up to the profiles' time budget, else the 99th percentile
    /// of session time in a pilot of 500 users).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_grid: Option<GridSpec>,
    /// Gain-over-effort grid (default as for time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort_grid: Option<GridSpec>,
    /// Time budgets (seconds) at which gain is reported (default: 1/4, 1/2 and all of the grid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_budgets: Option<Vec<f64>>,
    /// Effort budgets at which gain is reported (default as for time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort_budgets: Option<Vec<f64>>,
    /// Quantiles per topic (default: when there are at most 5,000 cells).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_topic_quantiles: Option<bool>,
}

/// `[output]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputSpec {
    /// Output directory, relative to the working directory (default `serpsim-out`).
    pub dir: PathBuf,
    /// Also write every session's outcome (`samples.csv`, streamed to disk).
    pub samples: bool,
    /// Write the SVG plots.
    pub plot: bool,
    /// Histogram bins per measure (`histograms` table of `summary.json`, with `detail = "full"`).
    pub histogram_bins: usize,
    /// How much the report writes: `summary` (what a reader uses: verdicts, pooled
    /// comparisons, tests, pooled summaries, curves, budgets, plots) or `full` (also per-topic
    /// rows of every measure and histograms). `--detail` overrides it.
    pub detail: Detail,
}

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec { dir: PathBuf::from("serpsim-out"), samples: false, plot: true, histogram_bins: 20, detail: Detail::Summary }
    }
}

/// How much a report writes (`[output] detail`, `--detail`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Detail {
    /// What a reader uses (the default).
    #[default]
    Summary,
    /// Everything: also per-topic rows of every measure and histograms.
    Full,
}

impl Detail {
    /// The name in scenarios and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Detail::Summary => "summary",
            Detail::Full => "full",
        }
    }
}

impl std::str::FromStr for Detail {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "summary" => Ok(Detail::Summary),
            "full" => Ok(Detail::Full),
            _ => Err(Error::Invalid(format!("detail `{s}` is not `summary` or `full`"))),
        }
    }
}

/// `[when]`: He et al.'s "when does RLR help" analysis (`serpsim sublists when`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WhenSpec {
    /// Fixed lambda.
    pub lambda: f64,
    /// Smoothing per accuracy level.
    pub smoothing: Vec<f64>,
    /// Users per (topic, task, level); default: the scenario's `replicates`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicates: Option<usize>,
    /// Hosmer-Lemeshow groups.
    pub hl_groups: usize,
    /// GLM rows: `users` (binomial over simulated users) or `median` (Bernoulli per topic and level).
    pub response: String,
    /// Tasks (`find-N`, `find-all`, `effort-B`).
    pub tasks: Vec<String>,
}

impl Default for WhenSpec {
    fn default() -> Self {
        WhenSpec {
            lambda: 0.01,
            smoothing: vec![0.0, 0.1, 0.5, 1.0],
            replicates: None,
            hl_groups: 10,
            response: "users".into(),
            tasks: vec!["find-1".into(), "find-10".into(), "find-all".into()],
        }
    }
}
