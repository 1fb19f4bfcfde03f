//! serpsim errors as Python exceptions. The classes live in `serpsim/errors.py` so that they
//! can inherit from both `serpsim.Error` and the matching built-in (`ValueError`, `OSError`).

use pyo3::exceptions::{PyFileNotFoundError, PyKeyboardInterrupt, PyRuntimeError};
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
