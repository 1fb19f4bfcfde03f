//! A run's output directory, staged: every file is written into a staging directory next to
//! the target, and only when the run completed are the files moved into the target (replacing
//! files of the same names and removing report files an earlier run left that this run did not
//! write). A failed run leaves the target untouched. Every file the report writes goes through
//! here, so it can move onto a shared output layer in one place.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Names of every file a run of `simulate`, `sessions` or `sublists` may write: on commit, those
/// this run did not write are removed, so a directory never mixes two runs' outputs.
pub const REPORT_FILES: [&str; 23] = [
    "summary.csv",
    "pooled.csv",
    "comparison.csv",
    "tests.csv",
    "verdict.csv",
    "gain_curves.csv",
    "budgets.csv",
    "summary.json",
    "samples.csv",
    "distributions.svg",
    "gain_curves.svg",
    "manifest.json",
    "sessions.csv",
    "query_quality.csv",
    "sweep.csv",
    "best.csv",
    "depth_vs_rate.svg",
    "fig6.csv",
    "fig6.svg",
    "accuracy.csv",
    "topics.csv",
    "when_rows.csv",
    "when_glm.md",
];

/// A staged output directory.
#[derive(Debug)]
pub struct Staged {
    target: PathBuf,
    staging: PathBuf,
    files: Vec<String>,
    committed: bool,
}

impl Staged {
    /// Stages output for `target` (created on commit).
    pub fn new(target: &Path) -> Result<Self> {
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        let staging = parent.join(format!(".{name}.staging-{}", std::process::id()));
        if staging.exists() {
            std::fs::remove_dir_all(&staging).map_err(|e| Error::io(&staging, e))?;
        }
        std::fs::create_dir_all(&staging).map_err(|e| Error::io(&staging, e))?;
        Ok(Staged { target: target.to_path_buf(), staging, files: Vec::new(), committed: false })
    }

    /// Path of `name` inside the staging directory (for writers that stream into it).
    pub fn staging_path(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// Writes `name` from `fill`.
    pub fn write_with<F>(&mut self, name: &str, fill: F) -> Result<()>
    where
        F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
    {
        let path = self.staging.join(name);
        let file = std::fs::File::create(&path).map_err(|e| Error::io(&path, e))?;
        let mut w = std::io::BufWriter::new(file);
        fill(&mut w).map_err(|e| Error::io(&path, e))?;
        w.flush().map_err(|e| Error::io(&path, e))?;
        self.files.push(name.to_string());
        Ok(())
    }

    /// Writes `name` with `bytes`.
    pub fn write(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        self.write_with(name, |w| w.write_all(bytes))
    }

    /// Records a file already written into the staging directory.
    pub fn adopt(&mut self, name: &str) {
        self.files.push(name.to_string());
    }

    /// Moves every staged file into the target; returns the final paths.
    pub fn commit(mut self) -> Result<Vec<PathBuf>> {
        std::fs::create_dir_all(&self.target).map_err(|e| Error::io(&self.target, e))?;
        for stale in REPORT_FILES {
            if !self.files.iter().any(|f| f == stale) {
                let p = self.target.join(stale);
                if p.exists() {
                    std::fs::remove_file(&p).map_err(|e| Error::io(&p, e))?;
                }
            }
        }
        let mut out = Vec::new();
        for f in &self.files {
            let (from, to) = (self.staging.join(f), self.target.join(f));
            std::fs::rename(&from, &to).map_err(|e| Error::io(&to, e))?;
            out.push(to);
        }
        let _ = std::fs::remove_dir_all(&self.staging);
        self.committed = true;
        Ok(out)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_reaches_the_target_before_commit_and_stale_files_go() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("samples.csv"), "old").unwrap();
        std::fs::write(target.join("notes.txt"), "mine").unwrap();
        {
            let mut s = Staged::new(&target).unwrap();
            s.write("summary.csv", b"new").unwrap();
            // Dropped without commit: nothing changes.
        }
        assert!(!target.join("summary.csv").exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "staging removed");
        let mut s = Staged::new(&target).unwrap();
        s.write("summary.csv", b"new").unwrap();
        let written = s.commit().unwrap();
        assert_eq!(written, vec![target.join("summary.csv")]);
        assert!(!target.join("samples.csv").exists(), "a stale report file of an earlier run is removed");
        assert_eq!(std::fs::read_to_string(target.join("notes.txt")).unwrap(), "mine", "other files are kept");
    }
}
