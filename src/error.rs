//! Error type shared by the library: every error says what was being read and where.

use std::path::{Path, PathBuf};

/// Result alias used throughout the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in serpsim, with enough context to fix the input.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A malformed line in an input file.
    #[error("{file}:{line}: {reason}")]
    Parse {
        /// File being read.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong with the line.
        reason: String,
    },
    /// An invalid value in a configuration (scenario) file or parameter set.
    #[error("{context}: key `{key}`: {reason}")]
    Config {
        /// Where the configuration came from (file name or "parameters").
        context: String,
        /// Dotted path of the offending key, e.g. `profiles[0].clicks.click[2]`.
        key: String,
        /// Why the value is rejected.
        reason: String,
    },
    /// An I/O failure on a named path. The message carries the OS reason itself, so the
    /// underlying error is not chained again as a source (it would print twice).
    #[error("{path}: {error}")]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// Input that is well-formed but unusable (empty collection, unknown system, ...).
    #[error("{0}")]
    Invalid(String),
    /// The work was interrupted (Ctrl-C, SIGTERM, or a Python KeyboardInterrupt).
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    /// A parse error at `file:line`.
    pub fn parse(file: impl AsRef<Path>, line: usize, reason: impl Into<String>) -> Self {
        Error::Parse { file: file.as_ref().display().to_string(), line, reason: reason.into() }
    }

    /// A configuration error naming `key`.
    pub fn config(context: impl Into<String>, key: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Config { context: context.into(), key: key.into(), reason: reason.into() }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io { path: path.as_ref().to_path_buf(), error: source }
    }
}

/// Checks that `value` is a probability: finite and within [0, 1].
pub fn check_probability(context: &str, key: &str, value: f64) -> Result<()> {
    if value.is_nan() {
        return Err(Error::config(context, key, "is NaN; a probability must be in [0, 1]"));
    }
    if !(0.0..=1.0).contains(&value) {
        return Err(Error::config(context, key, format!("{value} is outside [0, 1]")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probability_check_names_key() {
        let err = check_probability("s.toml", "profiles[0].p", 1.5).unwrap_err().to_string();
        assert!(err.contains("profiles[0].p") && err.contains("outside"), "{err}");
        let err = check_probability("s.toml", "x", f64::NAN).unwrap_err().to_string();
        assert!(err.contains("NaN"), "{err}");
        assert!(check_probability("s", "x", 0.0).is_ok() && check_probability("s", "x", 1.0).is_ok());
    }
}
