//! Scenario files: TOML that selects the collection, user profiles, replicates, seed and outputs.
//! The schema is documented in `docs/scenarios.md`. Unknown keys are errors.

use crate::collection::letor::LetorData;
use crate::collection::synthetic::SyntheticConfig;
use crate::collection::trec::{collection_from_trec, load_subtopic_qrels, Qrels, Run};
use crate::collection::Collection;
use crate::error::{Error, Result};
use crate::user::UserProfile;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The scenario embedded in the binary (`simulations/default.toml`), run by `serpsim simulate`
/// without a file. Its collection is the TREC qrels and run in `study_logs/trec/`.
pub const DEFAULT_SCENARIO: &str = include_str!("../simulations/default.toml");
/// Qrels of the embedded default scenario.
pub const DEFAULT_QRELS: &str = include_str!("../study_logs/trec/qrels.test");
/// Run of the embedded default scenario.
pub const DEFAULT_RUN: &str = include_str!("../study_logs/trec/results.test");

/// A parsed, validated scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Scenario name (part of every random stream's key).
    pub name: String,
    /// Master seed.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Replicates per (topic, system, profile).
    #[serde(default = "default_replicates")]
    pub replicates: usize,
    /// Where the topics and systems come from.
    pub collection: CollectionSource,
    /// User populations.
    pub profiles: Vec<UserProfile>,
    /// Outputs.
    #[serde(default)]
    pub output: OutputSpec,
    /// Paired system comparisons.
    #[serde(default)]
    pub compare: CompareSpec,
}

fn default_seed() -> u64 {
    1
}
fn default_replicates() -> usize {
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
    #[serde(default)]
    pub subtopic_qrels: Option<PathBuf>,
    /// Also simulate the ideal ranking (documents by grade) under this name.
    #[serde(default)]
    pub ideal_system: Option<String>,
    /// Optional document metadata (lengths, categories): `docno<TAB>length<TAB>categories`.
    #[serde(default)]
    pub docinfo: Option<PathBuf>,
    /// Results per page.
    #[serde(default = "default_page_size")]
    pub page_size: usize,
}

/// `source = "letor"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LetorSource {
    /// LETOR/SVMlight file.
    pub file: PathBuf,
    /// Linear rankers: a name and feature weights (`weights[0]` is feature 1).
    pub rankers: Vec<LinearRanker>,
    /// Results per page.
    #[serde(default = "default_page_size")]
    pub page_size: usize,
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
                    let i: usize = k.parse().ok().filter(|&i| i >= 1).ok_or_else(|| {
                        Error::config(context, format!("{key}.{k}"), "feature numbers start at 1")
                    })?;
                    if v.len() < i {
                        v.resize(i, 0.0);
                    }
                    v[i - 1] = w;
                }
                v
            }
        };
        if dense.iter().any(|w| !w.is_finite()) {
            return Err(Error::config(context, key, "weights must be finite numbers"));
        }
        Ok(dense)
    }
}

fn default_page_size() -> usize {
    10
}

/// `[output]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputSpec {
    /// Output directory (relative to the working directory).
    pub dir: PathBuf,
    /// Also write every replicate's outcome (`samples.csv`).
    pub samples: bool,
    /// Write `distributions.svg`.
    pub plot: bool,
    /// Histogram bins per measure.
    pub histogram_bins: usize,
}

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec { dir: PathBuf::from("serpsim-out"), samples: false, plot: true, histogram_bins: 20 }
    }
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

/// Line (1-based) where `key` is assigned, as `key =` at a line start or inside an inline table.
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    text.lines().position(|line| {
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
    // `key = literal` in `line`, at or after byte `from`.
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
        // At the value, or at an inline table holding it.
        let key = find(line, offset - line_start).or_else(|| key_before_equals(&line[..offset - line_start]))?;
        return Some((key, first + 1));
    }
    // The table and its sub-tables (`[queries]`, `[queries.generator]`, ...).
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
        let names_key = ["unknown field", "missing field", "unknown variant", "duplicate"]
            .iter()
            .any(|p| reason.starts_with(p));
        let mut key = if names_key { reason.split('`').nth(1).map(str::to_string) } else { None };
        let mut from_span = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        if key.is_none() {
            if let Some((k, l)) = e.span().and_then(|s| locate_invalid_value(text, s.start, &reason)) {
                key = Some(k.to_string());
                from_span = Some(l);
            }
        }
        let line = if reason.starts_with("duplicate") || !names_key {
            from_span
        } else {
            key.as_deref().and_then(|k| line_of_key(text, k)).or(from_span)
        };
        let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
        Error::config(context, key.unwrap_or_else(|| "(syntax)".into()), format!("{reason}{at}"))
    })
}

impl Scenario {
    /// Parses scenario TOML; `context` names the file in errors.
    pub fn parse(text: &str, context: &str) -> Result<Self> {
        let scenario: Scenario = from_toml(text, context)?;
        scenario.validate(context)?;
        Ok(scenario)
    }

    /// Reads and parses a scenario file; relative paths inside it resolve against its folder.
    pub fn from_file(path: &Path) -> Result<(Self, PathBuf)> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
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
            return Err(Error::config(context, "replicates", "must be at least 1"));
        }
        if self.profiles.is_empty() {
            return Err(Error::config(context, "profiles", "at least one [[profiles]] entry is needed"));
        }
        for (i, p) in self.profiles.iter().enumerate() {
            p.validate(context, &format!("profiles[{i}]"))?;
            if self.profiles[..i].iter().any(|q| q.name == p.name) {
                return Err(Error::config(context, format!("profiles[{i}].name"), format!("`{}` is used twice", p.name)));
            }
        }
        if self.output.histogram_bins == 0 {
            return Err(Error::config(context, "output.histogram_bins", "must be at least 1"));
        }
        let page_size = match &self.collection {
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
                s.page_size
            }
        };
        if page_size == 0 {
            return Err(Error::config(context, "collection.page_size", "must be at least 1"));
        }
        Ok(())
    }

    /// Loads data files named by the scenario (relative to `base`) and builds the collection.
    /// Also resolves empirical continuation tables given as CSV files.
    pub fn load(&mut self, base: &Path) -> Result<Collection> {
        for p in &mut self.profiles {
            p.continuation.resolve_files(base)?;
            if let Some(cm) = &mut p.click_model {
                cm.load(base)?;
            }
        }
        let resolve = |p: &Path| if p.is_absolute() { p.to_path_buf() } else { base.join(p) };
        let embedded = |p: &Path| p.as_os_str() == "embedded";
        let collection = match &self.collection {
            CollectionSource::Trec(t) => {
                let qrels = if embedded(&t.qrels) {
                    Qrels::parse(DEFAULT_QRELS, "embedded qrels")?
                } else {
                    Qrels::from_file(&resolve(&t.qrels))?
                };
                let runs = t
                    .runs
                    .iter()
                    .map(|r| if embedded(r) { Run::parse(DEFAULT_RUN, "embedded run") } else { Run::from_file(&resolve(r)) })
                    .collect::<Result<Vec<_>>>()?;
                let (mut c, _report) = collection_from_trec(&qrels, &runs)?;
                if let Some(sq) = &t.subtopic_qrels {
                    let path = resolve(sq);
                    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
                    load_subtopic_qrels(&mut c, &text, &path.display().to_string())?;
                }
                if let Some(di) = &t.docinfo {
                    let path = resolve(di);
                    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
                    crate::collection::docinfo::apply_docinfo(&mut c, &text, &path.display().to_string())?;
                }
                if let Some(name) = &t.ideal_system {
                    c.add_ideal_system(name)?;
                }
                c.page_size = t.page_size;
                c
            }
            CollectionSource::Letor(l) => {
                let data = LetorData::from_file(&resolve(&l.file))?;
                let rankers = l
                    .rankers
                    .iter()
                    .enumerate()
                    .map(|(i, r)| Ok((r.name.clone(), r.weights.to_dense("scenario", &format!("collection.rankers[{i}].weights"))?)))
                    .collect::<Result<Vec<_>>>()?;
                let mut c = data.to_collection(&rankers)?;
                c.page_size = l.page_size;
                c
            }
            CollectionSource::Synthetic(s) => s.generate()?,
        };
        for pair in &self.compare.pairs {
            for name in pair {
                if collection.system_index(name).is_none() {
                    return Err(Error::config("scenario", "compare.pairs", format!("unknown system `{name}`")));
                }
            }
        }
        collection.validate()?;
        Ok(collection)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_default_parses_and_loads() {
        let mut s = Scenario::embedded_default();
        let c = s.load(Path::new(".")).unwrap();
        assert_eq!(c.topics.len(), 3);
        assert!(c.systems.len() >= 2);
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
        // At the value.
        let e = err("replicates = \"many\"\n");
        assert!(e.contains("key `replicates`") && e.contains("(line 1)"), "{e}");
        // Inside an inline internally tagged table: the error points at the table.
        let e = err("replicates = 1\nstop = { source = \"synthetic\", generator = { decay = \"x\" } }\n");
        assert!(e.contains("key `decay`") && e.contains("(line 2)"), "{e}");
        // Inside a sub-table of an internally tagged table: the error points at `[queries]`.
        let e = err("replicates = 1\n[queries]\nsource = \"synthetic\"\n\n[queries.generator]\ndecay = \"high\"\n");
        assert!(e.contains("key `decay`") && e.contains("(line 6)"), "{e}");
        // A syntax error still says so.
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
    }
}

/// Overrides from the command line.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// Replicates per cell.
    pub replicates: Option<usize>,
    /// Master seed.
    pub seed: Option<u64>,
    /// Output directory.
    pub out: Option<PathBuf>,
}

/// Result of [`run_scenario`]: the files written and the report they hold.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    /// Paths written.
    pub written: Vec<PathBuf>,
    /// The report (also in `summary.json`).
    pub report: crate::report::SimulationReport,
}

/// Loads, simulates, summarises and writes a scenario on the current rayon pool.
/// `progress` receives `(cells done, cells total)`.
pub fn run_scenario(
    mut scenario: Scenario,
    base: &Path,
    overrides: &Overrides,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<ScenarioRun> {
    if let Some(r) = overrides.replicates {
        if r == 0 {
            return Err(Error::config("command line", "--replicates", "must be at least 1"));
        }
        scenario.replicates = r;
    }
    if let Some(s) = overrides.seed {
        scenario.seed = s;
    }
    if let Some(o) = &overrides.out {
        scenario.output.dir = o.clone();
    }
    let collection = scenario.load(base)?;
    let total = (collection.topics.len() * collection.systems.len() * scenario.profiles.len()) as u64;
    let done = std::sync::atomic::AtomicU64::new(0);
    let plan = crate::simulate::Plan {
        collection: &collection,
        profiles: &scenario.profiles,
        replicates: scenario.replicates,
        seed: scenario.seed,
        scenario: &scenario.name,
    };
    let cells = crate::simulate::run(&plan, &|| {
        let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        progress(d, total);
    })?;
    let bins = scenario.output.histogram_bins;
    let comparisons = if scenario.compare.enabled {
        crate::report::compare_systems(&collection, &scenario.profiles, &cells, &scenario.compare.pairs, bins)
    } else {
        Vec::new()
    };
    let report = crate::report::SimulationReport {
        scenario: scenario.name.clone(),
        seed: scenario.seed,
        replicates: scenario.replicates,
        cells: crate::report::summarise(&collection, &scenario.profiles, &cells, bins),
        comparisons,
    };
    let written = crate::report::write_simulation(
        &scenario.output.dir,
        &report,
        &collection,
        &scenario.profiles,
        &cells,
        scenario.output.samples,
        scenario.output.plot,
    )?;
    Ok(ScenarioRun { written, report })
}

#[cfg(test)]
mod bundled_scenarios {
    use super::*;

    /// Every scenario shipped in `simulations/` parses, loads and runs a few replicates.
    #[test]
    fn every_bundled_scenario_runs() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("simulations");
        let out = tempfile::tempdir().unwrap();
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                let (s, base) = Scenario::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
                let overrides = Overrides { replicates: Some(50), seed: None, out: Some(out.path().join(&s.name)) };
                run_scenario(s, &base, &overrides, &|_, _| {}).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                n += 1;
            }
        }
        assert!(n >= 4, "only {n} scenarios found");
    }
}
