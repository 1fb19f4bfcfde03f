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

thread_local! {
    /// Depth of [`catch_decoder_panic`] calls on this thread.
    static QUIET_PANICS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// Messages of the panics [`catch_decoder_panic`] caught on this thread (the first 100).
    static CAUGHT_PANICS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The messages (`file:line: message` of the panic site) of the decoder panics
/// [`catch_decoder_panic`] has caught on this thread, the first 100 (tests check that corrupt
/// inputs are refused by validation, not by a caught panic).
pub fn caught_decoder_panics() -> Vec<String> {
    CAUGHT_PANICS.with(|c| c.borrow().clone())
}

/// When set (the fuzz targets set it, `src/fuzzing.rs`), a panic caught by
/// [`catch_decoder_panic`] still goes to the panic hook, so that a fuzzer that aborts on any
/// panic finds it.
pub static REPORT_CAUGHT_PANICS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Runs third-party decoder code (Arrow, Parquet) that may panic on a corrupt file, turning a
/// panic into `Err` without the panic message on standard error: the caller reports a clean
/// `FILE: reason` error instead. The panic hook is wrapped once (other threads' panics are
/// printed as before).
pub fn catch_decoder_panic<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let quiet = QUIET_PANICS.with(|q| q.get()) > 0;
            if quiet {
                let payload = info.payload();
                let what = payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned()).unwrap_or_default();
                let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
                CAUGHT_PANICS.with(|c| {
                    let mut c = c.borrow_mut();
                    if c.len() < 100 {
                        c.push(format!("{at}: {what}"));
                    }
                });
            }
            if !quiet || REPORT_CAUGHT_PANICS.load(std::sync::atomic::Ordering::Relaxed) {
                previous(info);
            }
        }));
    });
    QUIET_PANICS.with(|q| q.set(q.get() + 1));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET_PANICS.with(|q| q.set(q.get() - 1));
    out
}
