//! Overrides from the command line (`--replicates`, `--seed`, `--out`, ...) applied to a
//! parsed scenario.

use super::{CollectionSource, Detail, Scenario};
use crate::error::{Error, Result};
use std::path::PathBuf;

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
