//! TOML scenarios for sublist studies (`serpsim sublists ...`); see `simulations/sublists/default.toml`.

use super::analysis::HelpSettings;
use super::collection::{letor_with_categories, topics_from_collection, SublistSyntheticConfig};
use super::measures::Prior;
use super::model::{ActionWeights, CutOff, TopicSublists};
use super::sweep::SweepGrid;
use crate::collection::letor::LetorData;
use crate::error::{check_non_negative, Error, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Where the topics and their sublists come from.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Source {
    /// The synthetic generator with sublist knobs.
    Synthetic {
        /// The foundation generator's knobs.
        #[serde(default)]
        collection: Option<crate::collection::synthetic::SyntheticConfig>,
        /// Range of the relevant documents' category Zipf exponent (Hq knob).
        #[serde(default)]
        relevant_skew: Option<[f64; 2]>,
        /// Range of sublist purity (Rq knob).
        #[serde(default)]
        sublist_purity: Option<[f64; 2]>,
    },
    /// LETOR with categories from binned feature values.
    Letor {
        /// SVMlight/LETOR file, relative to the scenario file.
        file: PathBuf,
        /// Linear ranker weights (feature 1 first).
        weights: Vec<f64>,
        /// Features (1-based) whose binned values become categories.
        features: Vec<usize>,
        /// Equal-frequency bins per feature.
        bins: usize,
    },
}

/// The "when does RLR help" settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HelpConfig {
    /// Fixed lambda.
    pub lambda: f64,
    /// Smoothing per accuracy level.
    pub smoothing: Vec<f64>,
    /// Replicates per (topic, task, level); default: the scenario's `replicates`.
    pub replicates: Option<usize>,
    /// Hosmer–Lemeshow groups.
    pub hl_groups: usize,
    /// GLM rows: `users` (binomial over simulated users) or `median` (Bernoulli per topic and level).
    pub response: super::analysis::HelpResponse,
}

impl Default for HelpConfig {
    fn default() -> Self {
        HelpConfig { lambda: 0.01, smoothing: super::measures::ACCURACY_SMOOTHING.to_vec(), replicates: None, hl_groups: 10, response: super::analysis::HelpResponse::Users }
    }
}

/// A sublist scenario file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SublistScenario {
    /// Master seed.
    pub seed: u64,
    /// Replicates per cell.
    pub replicates: usize,
    /// Results per page.
    pub page_size: u32,
    /// Decay rates of Eq. 3.
    pub lambdas: Vec<f64>,
    /// `ndcg`, `random` or `smoothed-S`.
    pub priors: Vec<String>,
    /// `find-N`, `find-all` or `effort-B`.
    pub tasks: Vec<String>,
    /// Output directory (relative to the working directory).
    pub out: PathBuf,
    /// Effort weights.
    pub weights: ActionWeights,
    /// Topics and sublists.
    pub source: Source,
    /// Settings of `serpsim sublists when`.
    pub help: HelpConfig,
}

impl Default for SublistScenario {
    fn default() -> Self {
        let g = SweepGrid::paper(2015);
        SublistScenario {
            seed: 2015,
            replicates: g.replicates,
            page_size: 10,
            lambdas: g.lambdas,
            priors: vec!["ndcg".into(), "random".into()],
            tasks: vec!["find-1".into(), "find-10".into(), "find-all".into()],
            out: PathBuf::from("out/sublists"),
            weights: ActionWeights::default(),
            source: Source::Synthetic { collection: None, relevant_skew: None, sublist_purity: None },
            help: HelpConfig::default(),
        }
    }
}

/// Parses a prior name.
pub fn parse_prior(s: &str) -> Option<Prior> {
    match s {
        "ndcg" => Some(Prior::Ndcg),
        "random" => Some(Prior::Random),
        _ => s.strip_prefix("smoothed-").and_then(|v| v.parse().ok()).filter(|v: &f64| v.is_finite() && *v >= 0.0).map(Prior::Smoothed),
    }
}

impl SublistScenario {
    /// Reads and validates a scenario; returns it with the directory relative paths resolve against.
    pub fn from_file(path: &Path) -> Result<(Self, PathBuf)> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let s = Self::from_str(&text, &path.display().to_string())?;
        Ok((s, path.parent().map(Path::to_path_buf).unwrap_or_default()))
    }

    /// Parses and validates scenario text; errors name `context` and the key.
    pub fn from_str(text: &str, context: &str) -> Result<Self> {
        let s: SublistScenario = crate::scenario::from_toml(text, context)?;
        s.grid(context)?;
        s.help_settings(context)?;
        Ok(s)
    }

    /// The sweep grid.
    pub fn grid(&self, context: &str) -> Result<SweepGrid> {
        if self.replicates == 0 {
            return Err(Error::config(context, "replicates", "must be at least 1"));
        }
        if self.page_size == 0 {
            return Err(Error::config(context, "page_size", "must be at least 1"));
        }
        if self.lambdas.is_empty() {
            return Err(Error::config(context, "lambdas", "must not be empty"));
        }
        for (i, &l) in self.lambdas.iter().enumerate() {
            check_non_negative(context, &format!("lambdas[{i}]"), l)?;
        }
        for (k, v) in [("weights.examine", self.weights.examine), ("weights.paginate", self.weights.paginate), ("weights.select", self.weights.select)] {
            check_non_negative(context, k, v)?;
        }
        let priors = self
            .priors
            .iter()
            .enumerate()
            .map(|(i, p)| parse_prior(p).ok_or_else(|| Error::config(context, format!("priors[{i}]"), format!("`{p}` is not ndcg, random or smoothed-S"))))
            .collect::<Result<Vec<_>>>()?;
        let tasks = self.tasks(context)?;
        if priors.is_empty() {
            return Err(Error::config(context, "priors", "must not be empty"));
        }
        Ok(SweepGrid { lambdas: self.lambdas.clone(), priors, tasks, replicates: self.replicates, seed: self.seed, page_size: self.page_size, weights: self.weights })
    }

    fn tasks(&self, context: &str) -> Result<Vec<CutOff>> {
        if self.tasks.is_empty() {
            return Err(Error::config(context, "tasks", "must not be empty"));
        }
        self.tasks
            .iter()
            .enumerate()
            .map(|(i, t)| CutOff::parse(t).ok_or_else(|| Error::config(context, format!("tasks[{i}]"), format!("`{t}` is not find-N, find-all or effort-B"))))
            .collect()
    }

    /// Settings of the "when does RLR help" analysis.
    pub fn help_settings(&self, context: &str) -> Result<HelpSettings> {
        check_non_negative(context, "help.lambda", self.help.lambda)?;
        if self.help.smoothing.is_empty() {
            return Err(Error::config(context, "help.smoothing", "must not be empty"));
        }
        for (i, &s) in self.help.smoothing.iter().enumerate() {
            check_non_negative(context, &format!("help.smoothing[{i}]"), s)?;
        }
        if self.help.hl_groups < 3 {
            return Err(Error::config(context, "help.hl_groups", "must be at least 3"));
        }
        Ok(HelpSettings {
            lambda: self.help.lambda,
            tasks: self.tasks(context)?,
            smoothing: self.help.smoothing.clone(),
            replicates: self.help.replicates.unwrap_or(self.replicates),
            seed: self.seed,
            page_size: self.page_size,
            weights: self.weights,
            hl_groups: self.help.hl_groups,
            response: self.help.response,
        })
    }

    /// Builds the topics with their sublists.
    pub fn topics(&self, base: &Path, context: &str) -> Result<Vec<TopicSublists>> {
        match &self.source {
            Source::Synthetic { collection, relevant_skew, sublist_purity } => {
                let mut cfg = SublistSyntheticConfig::default();
                if let Some(c) = collection {
                    cfg.collection = c.clone();
                }
                if let Some(r) = relevant_skew {
                    cfg.relevant_skew = *r;
                }
                if let Some(p) = sublist_purity {
                    cfg.sublist_purity = *p;
                }
                cfg.collection.page_size = self.page_size as usize;
                cfg.validate(context, "source.")?;
                topics_from_collection(&cfg.generate()?, 0)
            }
            Source::Letor { file, weights, features, bins } => {
                let path = base.join(file);
                let data = LetorData::from_file(&path)?;
                topics_from_collection(&letor_with_categories(&data, weights, features, *bins)?, 0)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_scenario_parses_and_unknown_keys_are_named() {
        let s = SublistScenario::from_str(include_str!("../../simulations/sublists/default.toml"), "sublists.toml").unwrap();
        let g = s.grid("x").unwrap();
        assert_eq!(g.lambdas.len(), 7);
        assert_eq!(g.tasks, vec![CutOff::Find(1), CutOff::Find(10), CutOff::FindAll]);
        let err = SublistScenario::from_str("replicatez = 3\n", "s.toml").unwrap_err().to_string();
        assert!(err.contains("s.toml") && err.contains("replicatez"), "{err}");
        let err = SublistScenario::from_str("tasks = [\"find-two\"]\n", "s.toml").unwrap_err().to_string();
        assert!(err.contains("tasks[0]"), "{err}");
        let err = SublistScenario::from_str("[source]\nkind = \"synthetic\"\nsublist_purity = [0.0, 1.5]\n", "s.toml").unwrap();
        assert!(err.topics(Path::new("."), "s.toml").unwrap_err().to_string().contains("source.sublist_purity[1]"));
        let err = SublistScenario::from_str("[source]\nkind = \"synthetic\"\nbogus = 1\n", "s.toml").unwrap_err().to_string();
        assert!(err.contains("bogus"), "{err}");
    }
}
