//! The Python binding of serpsim: `serpsim._serpsim`, wrapped by the pure-Python package
//! `serpsim` (python/serpsim). This crate only converts: Arrow tables and paths in, Arrow
//! record batches and plain values out; every computation is the serpsim library's.
//!
//! Long calls run as a [`job::Job`] on a worker thread without the GIL; the Python side polls
//! it for progress, shows a bar, and turns Ctrl-C into a cancellation.

use pyo3::prelude::*;

mod arrow_io;
mod baraco;
mod clicks;
mod errors;
mod eval;
mod job;
mod simulate;
mod spark;
mod study;
mod wordnet;

/// The serpsim version this binding was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _serpsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_class::<job::Job>()?;
    clicks::register(m)?;
    eval::register(m)?;
    simulate::register(m)?;
    study::register(m)?;
    baraco::register(m)?;
    wordnet::register(m)?;
    spark::register(m)?;
    Ok(())
}
