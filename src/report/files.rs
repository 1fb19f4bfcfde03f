//! Where every file of a run goes: the shared all-or-nothing output layer
//! ([`crate::output::RunDir`]). A run writes into a staging directory beside the output
//! directory; committing adds `manifest.json` and puts the whole set in place at once, so the
//! output directory holds one complete run or the previous one. Every file the report and the
//! `sessions` and `sublists` front ends write goes through [`StagedOutput`].

use crate::error::Result;
use crate::output::{RunDir, RunInfo};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A staged output set.
#[derive(Debug)]
pub struct StagedOutput(RunDir);

impl StagedOutput {
    /// Stages the output of `command` (e.g. `simulate`) for `target`, recording the scenario's
    /// text hash and seed in the manifest. Refuses a target that holds files serpsim did not
    /// write.
    pub fn begin(target: &Path, command: &str, scenario_text: Option<&str>, seed: Option<u64>) -> Result<Self> {
        let mut info = RunInfo::new(command);
        if let Some(t) = scenario_text {
            info = info.scenario(t);
        }
        info.seed = seed;
        Ok(StagedOutput(RunDir::begin(target, info)?))
    }

    /// Stages output for `target` without a scenario.
    pub fn new(target: &Path) -> Result<Self> {
        Self::begin(target, "serpsim", None, None)
    }

    /// Path of `name` inside the staging directory, for scratch files that stream into it
    /// (removed with it; not a file of the set).
    pub fn staging_path(&self, name: &str) -> PathBuf {
        self.0.staged_path(name)
    }

    /// Writes `name` from `fill`.
    pub fn write_with<F>(&mut self, name: &str, fill: F) -> Result<()>
    where
        F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
    {
        self.0.write_with(name, fill)
    }

    /// Writes `name` with `bytes`.
    pub fn write(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        self.0.write(name, bytes)
    }

    /// Records a warning in the manifest.
    pub fn warn(&mut self, message: impl Into<String>) {
        self.0.warn(message)
    }

    /// Puts the set in place; returns the final paths (manifest included).
    pub fn commit(self) -> Result<Vec<PathBuf>> {
        self.0.commit()
    }
}
