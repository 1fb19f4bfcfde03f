//! Scenario files: one TOML schema for every command (`simulate`, `sessions`, `sublists`).
//! The schema is documented in `docs/scenarios.md`; unknown keys are errors naming the key and
//! its line. Paths inside a scenario are relative to the scenario file; the output directory is
//! relative to the working directory (the command line's `--out` overrides it).
//!
//! A file of an older dialect (the old `sessions` or `sublists` scenarios) or of the wrong kind
//! (a click-model JSON file, a TREC run) is recognised and refused with an error that says what
//! it looks like and how to migrate it.

use crate::clickmodels::user::FittedClicks;
use crate::collection::categories::{letor_with_categories, SublistSyntheticConfig};
use crate::collection::coverage::Coverage;
use crate::collection::letor::LetorData;
use crate::collection::queries::{split_variant, QueryStrategy, SyntheticQueries};
use crate::collection::synthetic::SyntheticConfig;
use crate::collection::trec::{collection_from_trec, load_subtopic_qrels_file, Qrels, Run};
use crate::collection::Collection;
use crate::error::{Error, Result};
use crate::simulate::world::{Perturbation, QueryList, World, WorldSystem, WorldTopic};
use crate::simulate::PreparedProfile;
use crate::user::{ClickSource, Delays, UserProfile};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub mod from_files;
pub mod users;

/// The scenario embedded in the binary (`simulations/default.toml`), run by `serpsim simulate`
/// without a file. Its collection is the project's own TREC-like qrels and run in
/// `study_logs/trec/` (50 topics, written from a seed by `analysis/metrics/make_trec_collection.py`).
pub const DEFAULT_SCENARIO: &str = include_str!("../simulations/default.toml");
/// Qrels of the embedded default scenario.
pub const DEFAULT_QRELS: &str = include_str!("../study_logs/trec/qrels.test");
/// Run of the embedded default scenario.
pub const DEFAULT_RUN: &str = include_str!("../study_logs/trec/results.test");

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

/// Line (1-based) where `key` is assigned, as `key =` at a line start or inside an inline table.
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            line.match_indices(key).any(|(i, _)| {
                let before = line[..i].trim_end();
                let after = line[i + key.len()..].trim_start();
                (before.is_empty() || before.ends_with('{') || before.ends_with(',')) && after.starts_with('=')
            })
        })
        .map(|i| i + 1)
}

/// The identifier just before the last `=` in `prefix` (`a = 1, b = ` gives `b`).
fn key_before_equals(prefix: &str) -> Option<&str> {
    let before = prefix.trim_end().strip_suffix('=')?.trim_end();
    let start = before.rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')).map_or(0, |i| i + 1);
    (start < before.len()).then(|| &before[start..])
}

/// Key and line of the value an "invalid type/value" error is about. When the error points
/// at the value, the key is the one before it. Inside an internally tagged table the error
/// points at the table header, so the table's lines are searched for the printed value.
fn locate_invalid_value<'t>(text: &'t str, offset: usize, reason: &str) -> Option<(&'t str, usize)> {
    let what = reason.strip_prefix("invalid type: ").or_else(|| reason.strip_prefix("invalid value: "))?;
    let literal = match what.strip_prefix("string \"") {
        Some(rest) => rest.find('"').map(|end| format!("\"{}\"", &rest[..end])),
        None => what.split('`').nth(1).map(str::to_string),
    };
    let find = |line: &'t str, from: usize| {
        let literal = literal.as_deref()?;
        line.match_indices(literal).filter(|(j, _)| *j >= from).find_map(|(j, _)| key_before_equals(&line[..j]))
    };
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let first = text[..line_start].matches('\n').count();
    let lines: Vec<&str> = text.lines().collect();
    let line = *lines.get(first)?;
    if !line.trim_start().starts_with('[') {
        let key = find(line, offset - line_start).or_else(|| key_before_equals(&line[..offset - line_start]))?;
        return Some((key, first + 1));
    }
    let table = line.trim().trim_start_matches('[').split(']').next()?.trim().to_string();
    for (i, line) in lines.iter().enumerate().skip(first + 1) {
        let header = line.trim_start();
        if header.starts_with('[') && !header.trim_start_matches('[').trim_start().starts_with(&format!("{table}.")) {
            break;
        }
        if let Some(key) = find(line, 0) {
            return Some((key, i + 1));
        }
    }
    None
}

/// Deserialises TOML into `T`, turning errors into [`Error::Config`] that name the offending
/// key (unknown, missing or invalid) and its line; syntax errors name `(syntax)` and the line.
pub fn from_toml<T: serde::de::DeserializeOwned>(text: &str, context: &str) -> Result<T> {
    toml::from_str(text).map_err(|e| {
        let reason = e.message().to_string();
        let names_key = ["unknown field", "missing field", "unknown variant", "duplicate"].iter().any(|p| reason.starts_with(p));
        let mut key = if names_key { reason.split('`').nth(1).map(str::to_string) } else { None };
        let mut from_span = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        if key.is_none() {
            if let Some((k, l)) = e.span().and_then(|s| locate_invalid_value(text, s.start, &reason)) {
                key = Some(k.to_string());
                from_span = Some(l);
            }
        }
        let line = if reason.starts_with("duplicate") || !names_key { from_span } else { key.as_deref().and_then(|k| line_of_key(text, k)).or(from_span) };
        let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
        Error::config(context, key.unwrap_or_else(|| "(syntax)".into()), format!("{reason}{at}"))
    })
}

/// Recognises files of an older dialect or the wrong kind; `Some(message)` says what the file
/// looks like and how to fix it.
pub fn recognise_wrong_kind(text: &str) -> Option<String> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') && trimmed[1..].trim_start().starts_with('{') {
        let what = if trimmed.contains("serpsim-click-model") { "a click-model file (JSON)" } else { "JSON" };
        return Some(format!(
            "this looks like {what}, not a scenario (TOML); a scenario names a click-model file in a profile: `click_model = {{ file = \"model.json\" }}` (docs/scenarios.md)"
        ));
    }
    if let Some(line) = trimmed.lines().next() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if (f.len() == 6 && f[1] == "Q0") || (f.len() == 4 && f[3].parse::<i32>().is_ok() && !line.contains('=')) {
            return Some(
                "this looks like a TREC run or qrels file, not a scenario (TOML); a scenario names it in [collection]: `qrels = \"...\"`, `runs = [\"...\"]` (docs/scenarios.md)"
                    .into(),
            );
        }
        if line.contains(" qid:") {
            return Some(
                "this looks like a LETOR file, not a scenario (TOML); name it in [collection] with `source = \"letor\"`, `file = \"...\"` (docs/scenarios.md)"
                    .into(),
            );
        }
    }
    let value: toml::Table = toml::from_str(text).ok()?;
    let has = |k: &str| value.contains_key(k);
    if has("session") || (has("queries") && value.get("queries").and_then(|q| q.get("source")).is_some()) {
        return Some(
            "this looks like an old `serpsim sessions` scenario ([queries], [session.searcher]); every command now reads the one scenario schema: \
             [queries] becomes [collection] (source = \"synthetic_queries\" with the same generator, or source = \"trec\" with [variants] kind = \"suffix\"), \
             [session.searcher] becomes a [[profiles]] entry (click/mark -> clicks, stopping, times -> time, budget -> budget.seconds), \
             [session.interface] becomes [interface], [sweep] rules and thresholds become [[sweep]] entries; see docs/scenarios.md#migrating-old-scenarios"
                .into(),
        );
    }
    if has("lambdas") || has("priors") || has("tasks") || (has("source") && value.get("source").and_then(|s| s.get("kind")).is_some()) || has("help") {
        return Some(
            "this looks like an old `serpsim sublists` scenario (lambdas, priors, tasks, [source]); every command now reads the one scenario schema: \
             [source] becomes [collection] plus [categories], lambdas/priors/tasks become [[sweep]] entries over a profile's continuation.lambda, \
             sublists.prior and stopping, [weights] becomes the profile's [effort], [help] becomes [when], `out` becomes [output] dir; \
             see docs/scenarios.md#migrating-old-scenarios"
                .into(),
        );
    }
    if !has("collection") && !has("profiles") {
        return Some("this TOML file has neither [collection] nor [[profiles]]: it is not a serpsim scenario (docs/scenarios.md)".into());
    }
    None
}

impl Scenario {
    /// Parses scenario TOML; `context` names the file in errors.
    pub fn parse(text: &str, context: &str) -> Result<Self> {
        let scenario: Scenario = match from_toml(text, context) {
            Ok(s) => s,
            Err(e) => {
                if let Some(msg) = recognise_wrong_kind(text) {
                    return Err(Error::Invalid(format!("{context}: {msg}")));
                }
                return Err(e);
            }
        };
        scenario.validate(context)?;
        Ok(scenario)
    }

    /// The checks of a stream scenario: updates files, stream users, and none of the keys of
    /// result pages (variants, categories, interface, sweeps, report grids, `[when]`).
    fn validate_streams(&self, context: &str, f: &StreamFiles) -> Result<()> {
        if f.updates.is_empty() {
            return Err(Error::config(context, "collection.updates", "must list at least one updates file"));
        }
        if self.profiles.is_empty() {
            return Err(Error::config(context, "profiles", "at least one [[profiles]] entry is needed"));
        }
        for (i, p) in self.profiles.iter().enumerate() {
            crate::simulate::stream::StreamProfile::from_user(p, context, &format!("profiles[{i}]"))?;
            if self.profiles[..i].iter().any(|q| q.name == p.name) {
                return Err(Error::config(context, format!("profiles[{i}].name"), format!("`{}` is used twice", p.name)));
            }
        }
        let serp_only = [
            ("variants", self.variants != Variants::default()),
            ("categories", self.categories != Categories::default()),
            ("interface", self.interface != InterfaceSpec::default()),
            ("sweep", !self.sweep.is_empty()),
            ("report", self.report != ReportSpec::default()),
            ("when", self.when.is_some()),
        ];
        if let Some((key, _)) = serp_only.iter().find(|k| k.1) {
            return Err(Error::config(context, *key, "is not a key of stream scenarios (docs/streams.md)"));
        }
        Ok(())
    }

    /// Reads and parses a scenario file; relative paths inside it resolve against its folder.
    pub fn from_file(path: &Path) -> Result<(Self, PathBuf)> {
        let text = crate::input::read_to_string(path)?;
        let scenario = Self::parse(&text, &path.display().to_string())?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok((scenario, base))
    }

    /// The embedded default scenario.
    pub fn embedded_default() -> Self {
        Self::parse(DEFAULT_SCENARIO, "embedded default scenario").expect("the embedded scenario is valid")
    }

    /// Checks values that the schema alone cannot; errors name the key.
    pub fn validate(&self, context: &str) -> Result<()> {
        if self.name.trim().is_empty() {
            return Err(Error::config(context, "name", "must not be empty"));
        }
        if self.replicates == 0 {
            return Err(Error::config(context, "replicates", "must be at least 1 (`users` is a synonym)"));
        }
        if let CollectionSource::Streams(f) = &self.collection {
            return self.validate_streams(context, f);
        }
        crate::limits::check_count(context, "replicates", self.replicates, crate::limits::MAX_REPLICATES, "simulated users per profile and topic")?;
        if self.profiles.is_empty() {
            return Err(Error::config(context, "profiles", "at least one [[profiles]] entry is needed"));
        }
        for (i, p) in self.profiles.iter().enumerate() {
            p.validate(context, &format!("profiles[{i}]"))?;
            if let Some(k) = [("away", &p.away), ("duration", &p.duration), ("speed", &p.speed), ("lateness", &p.lateness)].iter().find(|k| k.1.is_some()) {
                return Err(Error::config(context, format!("profiles[{i}].{}", k.0), "is a key of stream users ([collection] source = \"streams\")"));
            }
            if self.profiles[..i].iter().any(|q| q.name == p.name) {
                return Err(Error::config(context, format!("profiles[{i}].name"), format!("`{}` is used twice", p.name)));
            }
        }
        for (i, s) in self.sweep.iter().enumerate() {
            if s.values.is_empty() {
                return Err(Error::config(context, format!("sweep[{i}].values"), "must list at least one value"));
            }
        }
        if self.output.histogram_bins == 0 {
            return Err(Error::config(context, "output.histogram_bins", "must be at least 1"));
        }
        crate::limits::check_usize(context, "output.histogram_bins", self.output.histogram_bins, crate::limits::MAX_HISTOGRAM_BINS, "histogram bins")?;
        let source_page = match &self.collection {
            CollectionSource::Trec(t) => {
                if t.runs.is_empty() {
                    return Err(Error::config(context, "collection.runs", "must list at least one run"));
                }
                t.page_size
            }
            CollectionSource::Letor(l) => {
                if l.rankers.is_empty() {
                    return Err(Error::config(context, "collection.rankers", "must list at least one ranker"));
                }
                for (i, r) in l.rankers.iter().enumerate() {
                    r.weights.to_dense(context, &format!("collection.rankers[{i}].weights"))?;
                }
                l.page_size
            }
            CollectionSource::Synthetic(s) => {
                s.validate(context, "collection.")?;
                None
            }
            CollectionSource::SyntheticQueries(s) => {
                if s.strategies.is_empty() {
                    return Err(Error::config(context, "collection.strategies", "must list at least one strategy"));
                }
                s.generator.validate(context, "collection.generator.")?;
                None
            }
            CollectionSource::Streams(_) => unreachable!("stream scenarios are validated by validate_streams"),
        };
        if source_page.is_some() && self.interface.page_size.is_some() {
            return Err(Error::config(context, "interface.page_size", "the page size is also given in [collection]; keep one"));
        }
        if source_page.or(self.interface.page_size) == Some(0) {
            return Err(Error::config(context, "interface.page_size", "must be at least 1"));
        }
        if self.interface.fold == Some(0) {
            return Err(Error::config(context, "interface.fold", "must be at least 1 (omit it for no fold)"));
        }
        crate::limits::check_non_negative(context, "interface.below_fold", self.interface.below_fold)?;
        Delays { query_latency: self.interface.query_latency, page_latency: self.interface.page_latency, document_latency: self.interface.document_latency }
            .validate(context, "interface.")?;
        for (name, d) in &self.interface.delays {
            d.validate(context, &format!("interface.delays.{name}."))?;
        }
        match &self.variants {
            Variants::Suffix if !matches!(self.collection, CollectionSource::Trec(_)) => {
                return Err(Error::config(context, "variants.kind", "`suffix` variants need a TREC collection (query ids `301.1`, `301.2`)"));
            }
            Variants::Perturbed { count, noise, .. } => {
                if *count == 0 {
                    return Err(Error::config(context, "variants.count", "must be at least 1"));
                }
                crate::limits::check_usize(context, "variants.count", *count, VARIANTS_MAX, "query variants per topic")?;
                crate::limits::check_non_negative(context, "variants.noise", *noise)?;
            }
            _ => {}
        }
        match &self.categories {
            Categories::LetorFeatures { bins, features } => {
                if !matches!(self.collection, CollectionSource::Letor(_)) {
                    return Err(Error::config(context, "categories.from", "`letor_features` needs a LETOR collection"));
                }
                if *bins < 2 {
                    return Err(Error::config(context, "categories.bins", "must be at least 2"));
                }
                crate::limits::check_usize(context, "categories.bins", *bins, crate::limits::MAX_CATEGORIES, "categories")?;
                if features.is_empty() {
                    return Err(Error::config(context, "categories.features", "must list at least one feature"));
                }
            }
            Categories::SyntheticSublists { .. } if !matches!(self.collection, CollectionSource::Synthetic(_)) => {
                return Err(Error::config(context, "categories.from", "`synthetic_sublists` needs a synthetic collection"));
            }
            _ => {}
        }
        for g in [&self.report.time_grid, &self.report.effort_grid].into_iter().flatten() {
            if !(g.max.is_finite() && g.max > 0.0) || g.points < 2 {
                return Err(Error::config(context, "report.time_grid", "needs max > 0 and at least 2 points"));
            }
            crate::limits::check_usize(context, "report.time_grid.points", g.points, GRID_POINTS_MAX, "points of a report grid")?;
        }
        for b in self.report.time_budgets.iter().flatten().chain(self.report.effort_budgets.iter().flatten()) {
            crate::limits::check_non_negative(context, "report.time_budgets", *b)?;
        }
        Ok(())
    }

    /// The profiles after applying `[[sweep]]`: every combination of sweep values applied to
    /// every profile, named by [`sweep_labels`] (`SS1 n=5`, with the profile's name in front
    /// when the scenario has several profiles). Returns each profile with its assignment.
    pub fn expanded_profiles(&self, context: &str) -> Result<Vec<(UserProfile, Vec<(String, toml::Value)>)>> {
        if self.sweep.is_empty() {
            return Ok(self.profiles.iter().map(|p| (p.clone(), Vec::new())).collect());
        }
        let parts = sweep_labels(&self.sweep, context)?;
        let mut combos: Vec<Vec<(usize, usize)>> = vec![Vec::new()];
        for (i, s) in self.sweep.iter().enumerate() {
            combos = combos.into_iter().flat_map(|c| (0..s.values.len()).map(move |j| [c.clone(), vec![(i, j)]].concat())).collect();
        }
        let mut out = Vec::new();
        for (pi, p) in self.profiles.iter().enumerate() {
            let base = toml::Value::try_from(p).map_err(|e| Error::Invalid(format!("{context}: profiles[{pi}]: {e}")))?;
            for combo in &combos {
                let mut v = base.clone();
                let mut name: Vec<&str> = if self.profiles.len() > 1 { vec![p.name.as_str()] } else { Vec::new() };
                let mut assignment = Vec::new();
                for &(i, j) in combo {
                    let s = &self.sweep[i];
                    set_path(&mut v, &s.key, s.values[j].clone())
                        .map_err(|why| Error::config(context, format!("sweep[{i}].key"), format!("`{}`: {why}", s.key)))?;
                    name.push(&parts[i][j]);
                    assignment.push((s.key.clone(), s.values[j].clone()));
                }
                let name = name.join(" ");
                if let toml::Value::Table(t) = &mut v {
                    t.insert("name".into(), toml::Value::String(name));
                }
                let prof: UserProfile = v
                    .try_into()
                    .map_err(|e: toml::de::Error| Error::config(context, "sweep", format!("profile `{}` with {:?}: {}", p.name, assignment, e.message())))?;
                prof.validate(context, &format!("profiles[{pi}] (sweep {:?})", assignment.iter().map(|a| a.0.as_str()).collect::<Vec<_>>()))?;
                if out.iter().any(|(q, _): &(UserProfile, _)| q.name == prof.name) {
                    return Err(Error::config(
                        context,
                        "sweep",
                        format!("two swept profiles are both named `{}`: make the sweep values tell them apart", prof.name),
                    ));
                }
                out.push((prof, assignment));
            }
        }
        Ok(out)
    }
}

/// Paper names of the stopping rules (as `StoppingRuleKind::short_name`): SS1, SS2, SS3.
fn rule_label(rule: &str) -> &str {
    match rule {
        "fixed_depth" => "SS1",
        "total_nonrelevant" => "SS2",
        "contiguous_nonrelevant" => "SS3",
        other => other,
    }
}

/// A scalar or array TOML value as a label: strings without quotes, others as TOML writes them.
fn value_label(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The last name of a dotted key path without its index: `stopping[0].n` gives `n`.
fn key_leaf(key: &str) -> &str {
    let last = key.rsplit('.').next().unwrap_or(key);
    last.split('[').next().unwrap_or(last)
}

/// The label of each value of each `[[sweep]]` entry: `labels[i][j]` names `sweep[i].values[j]`.
///
/// - A scalar or array value reads `leaf=value`, the leaf being the key's last name
///   (`stopping[0].n = 5` gives `n=5`, `continuation.lambda = 0.01` gives `lambda=0.01`,
///   strings unquoted); where two entries share a leaf, the whole key (`stopping[1].n=5`).
/// - A table with a `rule` (a stopping rule) or `model` reads as that name, stopping rules by
///   their paper names (`fixed_depth` SS1, `total_nonrelevant` SS2, `contiguous_nonrelevant`
///   SS3); a value of `stopping[i].rule` too. The table's other fields are added
///   (`satisfaction k=10`) only where the name alone would not tell the entry's values apart.
///   Another table reads as its fields, `k=v` in key order.
///
/// Profile names join the labels of their combination with spaces (`SS1 n=5`), after the
/// profile's own name when the scenario has several profiles. Values listed twice in one
/// entry are an error (they would make two profiles of the same name).
pub fn sweep_labels(sweep: &[SweepSpec], context: &str) -> Result<Vec<Vec<String>>> {
    let mut out = Vec::with_capacity(sweep.len());
    for (i, s) in sweep.iter().enumerate() {
        let leaf = key_leaf(&s.key);
        let shared_leaf = sweep.iter().enumerate().any(|(k, o)| k != i && key_leaf(&o.key) == leaf);
        let name_of = |v: &toml::Value, full: bool| -> String {
            match v {
                toml::Value::Table(t) => {
                    let head = match (t.get("rule"), t.get("model")) {
                        (Some(toml::Value::String(r)), _) => Some(("rule", rule_label(r).to_string())),
                        (None, Some(toml::Value::String(m))) => Some(("model", m.clone())),
                        _ => None,
                    };
                    let fields = |skip: &str| t.iter().filter(|(k, _)| k.as_str() != skip).map(|(k, v)| format!("{k}={}", value_label(v))).collect::<Vec<_>>();
                    match head {
                        Some((_, h)) if !full => h,
                        Some((skip, h)) => std::iter::once(h).chain(fields(skip)).collect::<Vec<_>>().join(" "),
                        None => fields("").join(" "),
                    }
                }
                toml::Value::String(r) if leaf == "rule" => rule_label(r).to_string(),
                other => format!("{}={}", if shared_leaf { s.key.as_str() } else { leaf }, value_label(other)),
            }
        };
        let short: Vec<String> = s.values.iter().map(|v| name_of(v, false)).collect();
        let labels: Vec<String> =
            s.values.iter().zip(&short).map(|(v, l)| if short.iter().filter(|x| *x == l).count() > 1 { name_of(v, true) } else { l.clone() }).collect();
        for (j, l) in labels.iter().enumerate() {
            if let Some(k) = labels[..j].iter().position(|x| x == l) {
                return Err(Error::config(
                    context,
                    format!("sweep[{i}].values"),
                    format!("values {} and {} both read `{l}` (is a value listed twice?): each swept profile needs its own name", k + 1, j + 1),
                ));
            }
        }
        out.push(labels);
    }
    Ok(out)
}

/// Sets the dotted `path` (`a.b[2].c`) inside a TOML value, creating tables on the way.
fn set_path(root: &mut toml::Value, path: &str, value: toml::Value) -> std::result::Result<(), String> {
    let mut cur = root;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let (name, index) = match part.find('[') {
            Some(b) => {
                let idx: usize = part[b + 1..].trim_end_matches(']').parse().map_err(|_| format!("`{part}` is not `name[index]`"))?;
                (&part[..b], Some(idx))
            }
            None => (*part, None),
        };
        let table = cur.as_table_mut().ok_or_else(|| format!("`{name}` is not inside a table"))?;
        match index {
            None if last => {
                table.insert(name.to_string(), value);
                return Ok(());
            }
            None => {
                cur = table.entry(name.to_string()).or_insert_with(|| toml::Value::Table(Default::default()));
            }
            Some(idx) => {
                let arr = table.get_mut(name).and_then(|v| v.as_array_mut()).ok_or_else(|| format!("the profile has no list `{name}` to index"))?;
                let len = arr.len();
                let slot = arr.get_mut(idx).ok_or_else(|| format!("`{name}` has {len} entries, no [{idx}]"))?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                cur = slot;
            }
        }
    }
    Ok(())
}

/// Resolves `p` against `base` unless absolute.
pub(crate) fn resolve(base: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

/// A world built from TREC qrels and runs whose query ids are `topic.variant`.
fn world_from_trec_variants(qrels: &Qrels, runs: &[Run]) -> Result<World> {
    let mut topics: Vec<WorldTopic> = Vec::new();
    let mut pos: Vec<std::collections::HashMap<String, u32>> = Vec::new();
    let mut topic_pos = std::collections::HashMap::new();
    for (id, judged) in &qrels.topics {
        let mut t = WorldTopic { id: id.clone(), doc_ids: Vec::new(), grades: Vec::new(), subtopics: Vec::new(), categories: Vec::new(), relevant: 0 };
        let mut p = std::collections::HashMap::new();
        for (doc, grade) in judged {
            p.insert(doc.clone(), t.doc_ids.len() as u32);
            t.doc_ids.push(doc.clone());
            t.grades.push(*grade);
        }
        topic_pos.insert(id.clone(), topics.len());
        topics.push(t);
        pos.push(p);
    }
    let mut systems = Vec::new();
    for run in runs {
        if systems.iter().any(|s: &(String, Vec<Vec<(u64, String, Vec<u32>)>>)| s.0 == run.name) {
            return Err(Error::Invalid(format!("two runs are named `{}`; rename one (the tag names the system)", run.name)));
        }
        let mut variants: Vec<Vec<(u64, String, Vec<u32>)>> = vec![Vec::new(); topics.len()];
        for (qid, ranking) in &run.topics {
            let (topic, variant) = split_variant(qid);
            let Some(&t) = topic_pos.get(topic) else { continue };
            if let Some((_, other, _)) = variants[t].iter().find(|(v, _, _)| *v == variant) {
                return Err(Error::Invalid(format!("run `{}`: query ids `{other}` and `{qid}` are the same variant {variant} of topic `{topic}`", run.name)));
            }
            let tp = &mut topics[t];
            let list = ranking
                .iter()
                .map(|r| {
                    *pos[t].entry(r.docno.clone()).or_insert_with(|| {
                        tp.doc_ids.push(r.docno.clone());
                        tp.grades.push(0);
                        (tp.doc_ids.len() - 1) as u32
                    })
                })
                .collect();
            variants[t].push((variant, qid.clone(), list));
        }
        systems.push((run.name.clone(), variants));
    }
    for t in &mut topics {
        t.subtopics = vec![0; t.doc_ids.len()];
        t.categories = vec![Vec::new(); t.doc_ids.len()];
        t.relevant = t.grades.iter().filter(|&&g| g > 0).count();
    }
    let systems = systems
        .into_iter()
        .map(|(name, variants)| WorldSystem {
            name,
            delays: Delays::default(),
            serps: variants
                .into_iter()
                .enumerate()
                .map(|(t, mut vs)| {
                    if vs.is_empty() {
                        return None;
                    }
                    vs.sort_by_key(|(v, _, _)| *v);
                    Some(vs.into_iter().map(|(_, _, list)| QueryList::new(&topics[t], list)).collect())
                })
                .collect(),
        })
        .collect();
    Ok(World { topics, systems, categories: Vec::new(), page_size: 10, fold: usize::MAX, below_fold: 0.0 })
}

/// A world from the synthetic query generator: each strategy is a system.
fn world_from_synthetic_queries(s: &SyntheticQueriesSource) -> Result<World> {
    let sets: Vec<(String, Vec<crate::collection::queries::SessionTopic>)> =
        s.strategies.iter().map(|&st| Ok((st.name().to_string(), s.generator.generate(st)?))).collect::<Result<_>>()?;
    world_from_query_sets(&sets)
}

/// A world whose systems are named sets of topics with query variants (the same topics, in the
/// same order, with the same document tables, in every set).
pub fn world_from_query_sets(sets: &[(String, Vec<crate::collection::queries::SessionTopic>)]) -> Result<World> {
    let Some((_, first)) = sets.first() else { return Err(Error::Invalid("no query sets".into())) };
    let topics: Vec<WorldTopic> = first
        .iter()
        .map(|t| WorldTopic {
            id: t.id.clone(),
            doc_ids: t.doc_ids.clone(),
            grades: t.grades.clone(),
            subtopics: vec![0; t.doc_ids.len()],
            categories: vec![Vec::new(); t.doc_ids.len()],
            relevant: t.grades.iter().filter(|&&g| g > 0).count(),
        })
        .collect();
    let mut systems = Vec::new();
    for (name, set) in sets {
        if set.len() != topics.len() || set.iter().zip(&topics).any(|(a, b)| a.id != b.id || a.doc_ids != b.doc_ids) {
            return Err(Error::Invalid(format!("query set `{name}` does not have the same topics and documents as the first set")));
        }
        for t in set {
            t.validate()?;
        }
        systems.push(WorldSystem {
            name: name.clone(),
            delays: Delays::default(),
            serps: set
                .iter()
                .zip(&topics)
                .map(|(t, wt)| (!t.queries.is_empty()).then(|| t.queries.iter().map(|q| QueryList::new(wt, q.clone())).collect()))
                .collect(),
        });
    }
    Ok(World { topics, systems, categories: Vec::new(), page_size: 10, fold: usize::MAX, below_fold: 0.0 })
}

/// A scenario loaded: the world, the prepared profiles, warnings.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The world.
    pub world: World,
    /// Profiles after sweeps, prepared for the world.
    pub prepared: Vec<PreparedProfile>,
    /// Each profile's sweep assignment.
    pub assignments: Vec<Vec<(String, toml::Value)>>,
    /// Compared pairs (system indices).
    pub pairs: Vec<(usize, usize)>,
    /// Warnings (also printed to stderr by the commands).
    pub warnings: Vec<String>,
    /// What TREC qrels and runs cover of each other (TREC collections without query variants).
    pub coverage: Option<Coverage>,
}

/// The qrels and runs of a TREC source (relative paths against `base`), restricted to its
/// `topics` (judged topics that no run ranks are still there: [`Coverage::of`] counts them).
fn trec_inputs(t: &TrecSource, base: &Path) -> Result<(Qrels, Vec<Run>)> {
    let embedded = |p: &Path| p.as_os_str() == "embedded";
    let mut qrels = if embedded(&t.qrels) { Qrels::parse(DEFAULT_QRELS, "embedded qrels")? } else { Qrels::from_file(&resolve(base, &t.qrels))? };
    let mut runs = t
        .runs
        .iter()
        .map(|r| if embedded(r) { Run::parse(DEFAULT_RUN, "embedded run") } else { Run::from_file(&resolve(base, r)) })
        .collect::<Result<Vec<_>>>()?;
    crate::collection::coverage::restrict(&mut qrels, &mut runs, t.topics.as_deref())?;
    Ok((qrels, runs))
}

impl Scenario {
    /// Builds the collection (relative paths against `base`).
    pub fn collection(&self, base: &Path) -> Result<Option<Collection>> {
        Ok(self.collection_and_coverage(base)?.0)
    }

    /// Builds the collection and, for TREC qrels and runs, what they cover of each other
    /// ([`Coverage`]: refuses a run without a judged topic, and a comparison in which more than
    /// half of the runs' topics are unjudged unless allowed).
    pub fn collection_and_coverage(&self, base: &Path) -> Result<(Option<Collection>, Option<Coverage>)> {
        let mut coverage = None;
        let c = match &self.collection {
            CollectionSource::Trec(t) => {
                if matches!(self.variants, Variants::Suffix) {
                    return Ok((None, None));
                }
                let (mut qrels, runs) = trec_inputs(t, base)?;
                coverage = Some(Coverage::of(&qrels, &runs, t.allow_partial_judgements)?);
                crate::collection::coverage::drop_unranked(&mut qrels, &runs);
                let (mut c, _report) = collection_from_trec(&qrels, &runs)?;
                if let Some(sq) = &t.subtopic_qrels {
                    load_subtopic_qrels_file(&mut c, &resolve(base, sq))?;
                }
                if let Some(di) = &t.docinfo {
                    crate::collection::docinfo::apply_docinfo_file(&mut c, &resolve(base, di))?;
                }
                if let Some(name) = &t.ideal_system {
                    c.add_ideal_system(name)?;
                }
                c
            }
            CollectionSource::Letor(l) => {
                let data = LetorData::from_file(&resolve(base, &l.file))?;
                let rankers = l
                    .rankers
                    .iter()
                    .enumerate()
                    .map(|(i, r)| Ok((r.name.clone(), r.weights.to_dense("scenario", &format!("collection.rankers[{i}].weights"))?)))
                    .collect::<Result<Vec<_>>>()?;
                match &self.categories {
                    Categories::LetorFeatures { features, bins } => {
                        let mut c = letor_with_categories(&data, &rankers[0].1, features, *bins)?;
                        // Every ranker over the same documents and labels.
                        let other = data.to_collection(&rankers)?;
                        c.systems = other.systems;
                        c
                    }
                    _ => data.to_collection(&rankers)?,
                }
            }
            CollectionSource::Synthetic(s) => match &self.categories {
                Categories::SyntheticSublists { relevant_skew, sublist_purity } => {
                    let cfg = SublistSyntheticConfig { collection: s.clone(), relevant_skew: *relevant_skew, sublist_purity: *sublist_purity };
                    cfg.validate("scenario", "categories.")?;
                    cfg.generate()?
                }
                _ => s.generate()?,
            },
            CollectionSource::SyntheticQueries(_) => return Ok((None, None)),
            CollectionSource::Streams(_) => {
                return Err(Error::Invalid("a stream scenario has no result pages: it runs through `run::streams::run_scenario`".into()))
            }
        };
        Ok((Some(c), coverage))
    }

    /// Loads data files (relative to `base`), builds the world and prepares every profile.
    pub fn load(&self, base: &Path) -> Result<Loaded> {
        let (collection, coverage) = self.collection_and_coverage(base)?;
        let mut world = match collection {
            Some(c) => World::from_collection(&c),
            None => match &self.collection {
                CollectionSource::SyntheticQueries(s) => world_from_synthetic_queries(s)?,
                CollectionSource::Trec(t) => {
                    // Run topic ids are `topic.variant` here: coverage is not counted.
                    let (qrels, runs) = trec_inputs(t, base)?;
                    world_from_trec_variants(&qrels, &runs)?
                }
                _ => unreachable!("other sources build a collection"),
            },
        };
        let source_page = match &self.collection {
            CollectionSource::Trec(t) => t.page_size,
            CollectionSource::Letor(l) => l.page_size,
            CollectionSource::Synthetic(s) => Some(s.page_size),
            CollectionSource::SyntheticQueries(_) | CollectionSource::Streams(_) => None,
        };
        world.page_size = self.interface.page_size.or(source_page).unwrap_or(10);
        world.fold = self.interface.fold.unwrap_or(usize::MAX);
        world.below_fold = self.interface.below_fold;
        let default_delays = Delays {
            query_latency: self.interface.query_latency,
            page_latency: self.interface.page_latency,
            document_latency: self.interface.document_latency,
        };
        for s in &mut world.systems {
            s.delays = default_delays;
        }
        for (name, d) in &self.interface.delays {
            let s = world
                .systems
                .iter_mut()
                .find(|s| &s.name == name)
                .ok_or_else(|| Error::config("scenario", format!("interface.delays.{name}"), format!("unknown system `{name}`")))?;
            s.delays = *d;
        }
        if let Variants::Perturbed { count, noise, seed } = self.variants {
            world.perturb_variants(&Perturbation { count, noise, seed });
        }
        match &self.interface.sublists {
            SublistSystems::All(false) => {}
            SublistSystems::All(true) => world.add_sublists(&[])?,
            SublistSystems::Named(names) => world.add_sublists(names)?,
        }
        if self.interface.basic_twin {
            world.add_basic_twins();
        }
        world.validate()?;
        let expanded = self.expanded_profiles("scenario")?;
        let mut prepared = Vec::with_capacity(expanded.len());
        let mut assignments = Vec::with_capacity(expanded.len());
        let mut warnings = coverage.as_ref().map(Coverage::warnings).unwrap_or_default();
        let mut loaded_models: Vec<(PathBuf, Arc<dyn ClickSource>)> = Vec::new();
        for (mut p, assignment) in expanded {
            if let Some(c) = &mut p.continuation {
                c.resolve_files(base)?;
            }
            let src = match &p.click_model {
                Some(cm) => {
                    let path = resolve(base, &cm.file);
                    let found = loaded_models.iter().find(|(q, _)| *q == path).map(|x| x.1.clone());
                    Some(match found {
                        Some(s) => s,
                        None => {
                            let s: Arc<dyn ClickSource> = Arc::new(FittedClicks::load(&path, &cm.file.display().to_string())?);
                            loaded_models.push((path, s.clone()));
                            s
                        }
                    })
                }
                None => None,
            };
            let prep = PreparedProfile::new(&world, &p, self.seed, src.as_ref())?;
            for w in &prep.warnings {
                if !warnings.contains(w) {
                    warnings.push(w.clone());
                }
            }
            prepared.push(prep);
            assignments.push(assignment);
        }
        let pairs = if !self.compare.enabled {
            Vec::new()
        } else if self.compare.pairs.is_empty() {
            let n = world.systems.len();
            (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect()
        } else {
            self.compare
                .pairs
                .iter()
                .map(|[a, b]| {
                    let find = |n: &str| world.system_index(n).ok_or_else(|| Error::config("scenario", "compare.pairs", format!("unknown system `{n}`")));
                    Ok((find(a)?, find(b)?))
                })
                .collect::<Result<Vec<_>>>()?
        };
        Ok(Loaded { world, prepared, assignments, pairs, warnings, coverage })
    }
}

/// Overrides from the command line.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// Users per profile.
    pub replicates: Option<u64>,
    /// Master seed.
    pub seed: Option<u64>,
    /// Output directory.
    pub out: Option<PathBuf>,
    /// Write per-session samples.
    pub samples: Option<bool>,
    /// How much the report writes.
    pub detail: Option<Detail>,
    /// Allow a TREC comparison where more than half of the runs' topics are unjudged.
    pub allow_partial_judgements: bool,
}

impl Overrides {
    /// Applies the overrides to `scenario`.
    pub fn apply(&self, scenario: &mut Scenario) -> Result<()> {
        if let Some(r) = self.replicates {
            if r == 0 {
                return Err(Error::config("command line", "--replicates", "must be at least 1"));
            }
            crate::limits::check_count("command line", "--replicates", r, crate::limits::MAX_REPLICATES, "simulated users per profile and topic")?;
            scenario.replicates = r;
        }
        if let Some(s) = self.seed {
            scenario.seed = s;
        }
        if let Some(o) = &self.out {
            scenario.output.dir = o.clone();
        }
        if let Some(x) = self.samples {
            scenario.output.samples = x;
        }
        if let Some(d) = self.detail {
            scenario.output.detail = d;
        }
        if self.allow_partial_judgements {
            match &mut scenario.collection {
                CollectionSource::Trec(t) => t.allow_partial_judgements = true,
                _ => {
                    return Err(Error::config(
                        "command line",
                        "--allow-partial-judgements",
                        "applies to TREC qrels and runs only ([collection] source = \"trec\")",
                    ))
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Variants `301.1`, `301.2`, `301.10` are issued in numeric order, each ranking in
    /// trec_eval order (score, by hand from the run below); run topics without judgements are
    /// dropped; unjudged documents get grade 0; two ids of the same variant are an error.
    #[test]
    fn trec_variants_map_to_topics_in_order() {
        let qrels = Qrels::parse("301 0 d1 1\n301 0 d2 0\n302 0 d3 1\n", "q").unwrap();
        let run =
            Run::parse("301.2 Q0 d2 1 9 r\n301.2 Q0 d9 2 8 r\n301.10 Q0 d1 1 5 r\n301.1 Q0 d1 1 3 r\n301.1 Q0 d2 2 4 r\n999.1 Q0 d1 1 1 r\n", "run").unwrap();
        let w = world_from_trec_variants(&qrels, std::slice::from_ref(&run)).unwrap();
        assert_eq!(w.topics.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["301", "302"]);
        assert!(w.systems[0].serps[1].is_none());
        let t = &w.topics[0];
        let named = |q: usize| w.systems[0].serps[0].as_ref().unwrap()[q].docs.iter().map(|&d| t.doc_ids[d as usize].as_str()).collect::<Vec<_>>();
        assert_eq!(named(0), ["d2", "d1"]); // score order
        assert_eq!(named(1), ["d2", "d9"]);
        assert_eq!(named(2), ["d1"]);
        assert_eq!(t.grades[t.doc_ids.iter().position(|d| d == "d9").unwrap()], 0);
        let dup = Run::parse("301.1 Q0 d1 1 3 r\n301.01 Q0 d1 1 3 r\n", "run").unwrap();
        assert!(world_from_trec_variants(&qrels, &[dup]).is_err());
    }

    #[test]
    fn embedded_default_parses_and_loads() {
        let s = Scenario::embedded_default();
        let l = s.load(Path::new(".")).unwrap();
        // 50 topics (301-350): analysis/metrics/make_trec_collection.py writes the embedded qrels.
        assert_eq!(l.world.topics.len(), 50);
        assert!(l.world.systems.len() >= 2);
    }

    #[test]
    fn wrong_values_name_their_key_and_line() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(tag = "source", rename_all = "snake_case")]
        #[allow(dead_code)]
        enum Source {
            Synthetic { generator: Generator },
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Generator {
            decay: f64,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Doc {
            replicates: usize,
            stop: Option<Source>,
            queries: Option<Source>,
        }
        let err = |text: &str| from_toml::<Doc>(text, "t.toml").unwrap_err().to_string();
        let e = err("replicates = \"many\"\n");
        assert!(e.contains("key `replicates`") && e.contains("(line 1)"), "{e}");
        let e = err("replicates = 1\nstop = { source = \"synthetic\", generator = { decay = \"x\" } }\n");
        assert!(e.contains("key `decay`") && e.contains("(line 2)"), "{e}");
        let e = err("replicates = 1\n[queries]\nsource = \"synthetic\"\n\n[queries.generator]\ndecay = \"high\"\n");
        assert!(e.contains("key `decay`") && e.contains("(line 6)"), "{e}");
        assert!(err("replicates = = 1\n").contains("(syntax)"));
    }

    #[test]
    fn unknown_keys_are_named() {
        let text = DEFAULT_SCENARIO.replace("replicates =", "replicatez =");
        let err = Scenario::parse(&text, "x.toml").unwrap_err().to_string();
        assert!(err.contains("replicatez"), "{err}");
        let text = "name='a'\n[collection]\nsource='synthetic'\ntopicz=3\n[[profiles]]\nname='u'\n";
        let err = Scenario::parse(text, "x.toml").unwrap_err().to_string();
        assert!(err.contains("topicz"), "{err}");
        let text = "name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nname='u'\nclicks={click=[0.5],stop=[0.0],mark=[1.0],foo=1}\n";
        let err = Scenario::parse(text, "x.toml").unwrap_err().to_string();
        assert!(err.contains("foo"), "{err}");
    }

    #[test]
    fn bad_probabilities_name_the_key() {
        let base = "name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nname='u'\n";
        let err = Scenario::parse(&format!("{base}continuation={{model='rbp',p=1.2}}\n"), "x.toml").unwrap_err().to_string();
        assert!(err.contains("profiles[0].continuation.p"), "{err}");
        let err = Scenario::parse(&format!("{base}clicks={{click=[0.1,nan],stop=[0.0],mark=[1.0]}}\n"), "x.toml").unwrap_err().to_string();
        assert!(err.contains("profiles[0].clicks.click[1]") && err.contains("NaN"), "{err}");
        let err = Scenario::parse(&format!("{base}continuation={{model='rbp',p={{dist='lognormal',mu=0,sigma=1}}}}\n"), "x.toml").unwrap_err().to_string();
        assert!(err.contains("profiles[0].continuation.p") && err.contains("not bounded"), "{err}");
    }

    #[test]
    fn old_and_wrong_kinds_say_what_they_look_like() {
        let sessions = "name = \"x\"\n[queries]\nsource = \"synthetic\"\n[session.searcher]\nclick = [0.3, 0.6]\n";
        let e = Scenario::parse(sessions, "old.toml").unwrap_err().to_string();
        assert!(e.contains("old `serpsim sessions` scenario") && e.contains("migrating"), "{e}");
        let sublists = "seed = 1\nlambdas = [1.0]\n[source]\nkind = \"synthetic\"\n";
        let e = Scenario::parse(sublists, "old.toml").unwrap_err().to_string();
        assert!(e.contains("old `serpsim sublists` scenario") && e.contains("[[sweep]]"), "{e}");
        let e = Scenario::parse("{\"format\": \"serpsim-click-model\", \"model\": \"dbn\"}", "m.json").unwrap_err().to_string();
        assert!(e.contains("click-model file"), "{e}");
        let e = Scenario::parse("301 Q0 doc1 1 3.2 run\n", "r.txt").unwrap_err().to_string();
        assert!(e.contains("TREC run or qrels"), "{e}");
        // A typo in a real scenario still names the key rather than a kind.
        let e = Scenario::parse("name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nnam='u'\n", "x.toml").unwrap_err().to_string();
        assert!(e.contains("nam"), "{e}");
    }

    #[test]
    fn sweeps_expand_profiles() {
        let text = "name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nname='u'\nstopping=[{rule='fixed_depth', n=1}]\n\
                    [[sweep]]\nkey='stopping[0].rule'\nvalues=['fixed_depth','total_nonrelevant']\n[[sweep]]\nkey='stopping[0].n'\nvalues=[2,3,5]\n";
        let s = Scenario::parse(text, "x.toml").unwrap();
        let p = s.expanded_profiles("x.toml").unwrap();
        assert_eq!(p.len(), 6);
        assert_eq!(p[4].0.name, "SS2 n=3");
        assert_eq!(p[4].0.stopping[0].short_name(), "SS2");
        let bad = text.replace("stopping[0].n'", "stopping[3].n'");
        let e = Scenario::parse(&bad, "x.toml").unwrap().expanded_profiles("x.toml").unwrap_err().to_string();
        assert!(e.contains("sweep[1].key") && e.contains("no [3]"), "{e}");
    }

    fn labels_of(sweep: &str) -> Result<Vec<String>> {
        let text = format!("name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nname='u'\ncontinuation={{model='exponential', lambda=0.1}}\nstopping=[{{rule='fixed_depth', n=1}}]\n{sweep}");
        let s = Scenario::parse(&text, "x.toml")?;
        Ok(s.expanded_profiles("x.toml")?.into_iter().map(|p| p.0.name).collect())
    }

    /// Expected names written by hand from the rules in `sweep_labels`'s docs.
    #[test]
    fn swept_profiles_have_short_readable_unique_names() {
        // Maxwell's sweep: rule tables by paper name, thresholds by leaf.
        let maxwell = "[[sweep]]\nkey='stopping[0]'\nvalues=[{rule='fixed_depth'}, {rule='total_nonrelevant', basis='snippet'}, {rule='contiguous_nonrelevant', basis='snippet'}]\n\
                       [[sweep]]\nkey='stopping[0].n'\nvalues=[1, 5, 50]\n";
        assert_eq!(labels_of(maxwell).unwrap(), ["SS1 n=1", "SS1 n=5", "SS1 n=50", "SS2 n=1", "SS2 n=5", "SS2 n=50", "SS3 n=1", "SS3 n=5", "SS3 n=50"]);
        // The sublists sweep: two satisfaction rules need their k; strings unquoted; floats as TOML.
        let sublists = "[[sweep]]\nkey='stopping[0]'\nvalues=[{rule='satisfaction', k=1}, {rule='satisfaction', k=10}, {rule='find_all'}]\n\
                        [[sweep]]\nkey='sublists.prior'\nvalues=['ndcg']\n[[sweep]]\nkey='continuation.lambda'\nvalues=[0.5, 0.001]\n";
        assert_eq!(
            labels_of(sublists).unwrap(),
            [
                "satisfaction k=1 prior=ndcg lambda=0.5",
                "satisfaction k=1 prior=ndcg lambda=0.001",
                "satisfaction k=10 prior=ndcg lambda=0.5",
                "satisfaction k=10 prior=ndcg lambda=0.001",
                "find_all prior=ndcg lambda=0.5",
                "find_all prior=ndcg lambda=0.001"
            ]
        );
        // Two keys with the same leaf keep their whole keys; a model table reads as its model.
        let shared = "[[sweep]]\nkey='stopping[0].n'\nvalues=[2]\n[[sweep]]\nkey='stopping[1].n'\nvalues=[3, 4]\n\
                      [[sweep]]\nkey='continuation'\nvalues=[{model='rbp', p=0.8}, {model='rbp', p=0.5}, {model='fixed', depth=2.0}]\n";
        let text = format!(
            "name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nname='u'\nstopping=[{{rule='fixed_depth', n=1}}, {{rule='total_nonrelevant', n=1}}]\n{shared}"
        );
        let names: Vec<String> = Scenario::parse(&text, "x.toml").unwrap().expanded_profiles("x.toml").unwrap().into_iter().map(|p| p.0.name).collect();
        assert_eq!(names[0], "stopping[0].n=2 stopping[1].n=3 rbp p=0.8");
        assert_eq!(names[1], "stopping[0].n=2 stopping[1].n=3 rbp p=0.5");
        assert_eq!(names[2], "stopping[0].n=2 stopping[1].n=3 fixed");
        // Several profiles: the profile's name comes first.
        let text = "name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nname='u'\ncontinuation={model='rbp', p=0.9}\n[[profiles]]\nname='v'\ncontinuation={model='rbp', p=0.9}\n[[sweep]]\nkey='continuation.p'\nvalues=[0.5, 0.8]\n";
        let names: Vec<String> = Scenario::parse(text, "x.toml").unwrap().expanded_profiles("x.toml").unwrap().into_iter().map(|p| p.0.name).collect();
        assert_eq!(names, ["u p=0.5", "u p=0.8", "v p=0.5", "v p=0.8"]);
        // A value listed twice: a clear error, not two profiles of one name.
        let e = labels_of("[[sweep]]\nkey='stopping[0].n'\nvalues=[1, 2, 1]\n").unwrap_err().to_string();
        assert!(e.contains("sweep[0].values") && e.contains("values 1 and 3 both read `n=1`"), "{e}");
        // Deterministic: the same scenario gives the same names.
        assert_eq!(labels_of(maxwell).unwrap(), labels_of(maxwell).unwrap());
    }

    /// The label's paper names are the rules' own short names (`StoppingRuleKind::short_name`).
    #[test]
    fn rule_labels_match_short_names() {
        for rule in ["fixed_depth", "total_nonrelevant", "contiguous_nonrelevant", "satisfaction", "find_all"] {
            let v: crate::user::StoppingRuleKind = toml::from_str::<toml::Table>(&format!("rule = '{rule}'\nn = 1\nk = 1"))
                .ok()
                .and_then(|mut t| {
                    if rule == "find_all" {
                        t.remove("n");
                        t.remove("k");
                    } else if rule == "satisfaction" {
                        t.remove("n");
                    } else {
                        t.remove("k");
                    }
                    toml::Value::Table(t).try_into().ok()
                })
                .unwrap_or_else(|| panic!("{rule}"));
            assert_eq!(rule_label(rule), v.short_name(), "{rule}");
        }
    }
}
