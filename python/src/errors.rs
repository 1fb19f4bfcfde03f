//! serpsim errors as Python exceptions. The classes live in `serpsim/errors.py` so that they
//! can inherit from both `serpsim.Error` and the matching built-in (`ValueError`, `OSError`).

use pyo3::exceptions::{PyFileNotFoundError, PyKeyboardInterrupt, PyOverflowError, PyRuntimeError};
use pyo3::prelude::*;

fn raise(py: Python<'_>, class: &str, message: String) -> PyErr {
    match py.import("serpsim.errors").and_then(|m| m.getattr(class)) {
        Ok(cls) => PyErr::from_value(match cls.call1((message.clone(),)) {
            Ok(v) => v,
            Err(e) => return e,
        }),
        // The pure-Python package is missing (the extension imported on its own).
        Err(_) => PyRuntimeError::new_err(message),
    }
}

/// Converts a library error to the Python exception of its kind, with the CLI's message.
pub fn to_py(py: Python<'_>, e: serpsim::Error) -> PyErr {
    let message = e.to_string();
    match e {
        serpsim::Error::Parse { .. } => raise(py, "ParseError", message),
        serpsim::Error::Config { .. } => raise(py, "ConfigError", message),
        serpsim::Error::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        serpsim::Error::Io { .. } => raise(py, "IOError", message),
        serpsim::Error::Invalid(_) => raise(py, "InvalidInputError", message),
        serpsim::Error::Interrupted => PyKeyboardInterrupt::new_err("serpsim: interrupted"),
    }
}

/// A bad argument of a Python call (wrong column, wrong type): `serpsim.InvalidInputError`,
/// a `ValueError`.
pub fn invalid(py: Python<'_>, message: impl Into<String>) -> PyErr {
    raise(py, "InvalidInputError", message.into())
}

/// A Rust panic caught at the boundary: reported as `serpsim.InternalError`, never as a
/// `PanicException`.
pub fn panic_to_py(py: Python<'_>, payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let what =
        payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned()).unwrap_or_else(|| "unknown panic".into());
    raise(py, "InternalError", format!("internal error in serpsim (please report it): {what}"))
}

/// Runs `f`, turning a library error or a panic into a Python exception.
pub fn guard<T>(py: Python<'_>, f: impl FnOnce() -> serpsim::Result<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_py(py, e)),
        Err(p) => Err(panic_to_py(py, p)),
    }
}

/// An integer argument that the library takes as unsigned (a count, a seed, a thread count).
/// pyo3's own conversion to `usize`/`u64` raises a bare `OverflowError` for a negative value
/// (issue 42: `validate_orderings(folds=-1)`); this takes any Python `int` (anything else is
/// still pyo3's `TypeError`, naming the argument), and [`UInt::usize`] / [`UInt::u64`] refuse
/// what does not fit with `serpsim.ConfigError` (a `ValueError`) naming the function and the
/// argument: ``clicks.validate_orderings: key `folds`: -1 must be a whole number >= 0``. Values
/// within range go on to the library's bounds, whose messages are the CLI's.
#[derive(Debug, Clone, Copy)]
pub struct UInt(pub i128);

impl<'a, 'py> FromPyObject<'a, 'py> for UInt {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        match obj.extract::<i128>() {
            Ok(v) => Ok(UInt(v)),
            // Beyond i128: kept as its sign, refused by `usize`/`u64` below.
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => Ok(UInt(if obj.lt(0)? { i128::MIN } else { i128::MAX })),
            Err(e) => Err(e),
        }
    }
}

impl UInt {
    fn fit<T: TryFrom<i128>>(self, py: Python<'_>, context: &str, key: &str, max: u128) -> PyResult<T> {
        T::try_from(self.0).map_err(|_| {
            let v = match self.0 {
                i128::MIN => "a negative number".to_string(),
                i128::MAX => "a number".to_string(),
                v => v.to_string(),
            };
            let reason = if self.0 < 0 { format!("{v} must be a whole number >= 0") } else { format!("{v} is above the upper bound of {max}") };
            to_py(py, serpsim::Error::config(context, key, reason))
        })
    }

    /// The value as a `usize`, or `serpsim.ConfigError` naming `context` and `key`.
    pub fn usize(self, py: Python<'_>, context: &str, key: &str) -> PyResult<usize> {
        self.fit(py, context, key, usize::MAX as u128)
    }

    /// The value as a `u64`, or `serpsim.ConfigError` naming `context` and `key`.
    pub fn u64(self, py: Python<'_>, context: &str, key: &str) -> PyResult<u64> {
        self.fit(py, context, key, u64::MAX as u128)
    }
}

/// [`UInt::usize`] of an optional argument.
pub fn opt_usize(py: Python<'_>, v: Option<UInt>, context: &str, key: &str) -> PyResult<Option<usize>> {
    v.map(|v| v.usize(py, context, key)).transpose()
}

/// [`UInt::u64`] of an optional argument.
pub fn opt_u64(py: Python<'_>, v: Option<UInt>, context: &str, key: &str) -> PyResult<Option<u64>> {
    v.map(|v| v.u64(py, context, key)).transpose()
}
