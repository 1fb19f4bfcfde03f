//! Arrow in and out. Tables come in through the Arrow PyCapsule stream interface (pyarrow
//! tables and record batch readers, polars and pandas ≥ 2.2 frames), without copying their
//! buffers; columns are read by name with errors that name the missing or mistyped column.
//! Results go out as Arrow record batches.

use crate::errors::invalid;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_pyarrow::{FromPyArrow, ToPyArrow};
use pyo3::prelude::*;

/// Reads every record batch of an Arrow stream (zero copy: batches share the source buffers).
pub fn read_batches(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<RecordBatch>> {
    let py = obj.py();
    let reader = arrow_array::ffi_stream::RecordBatchStreamReader::from_pyarrow_bound(obj)
        .map_err(|e| invalid(py, format!("{what}: expected a pandas DataFrame, a pyarrow Table or another Arrow table ({e})")))?;
    reader.collect::<Result<Vec<_>, _>>().map_err(|e| invalid(py, format!("{what}: reading the Arrow stream failed: {e}")))
}

/// The names of a batch's columns, for messages.
fn names(batch: &RecordBatch) -> String {
    batch.schema().fields().iter().map(|f| f.name().as_str()).collect::<Vec<_>>().join(", ")
}

/// Column `name` of `batch`, or an error naming it and the columns present.
pub fn column<'a>(py: Python<'_>, batch: &'a RecordBatch, name: &str, what: &str) -> PyResult<&'a ArrayRef> {
    batch.column_by_name(name).ok_or_else(|| invalid(py, format!("{what}: missing column `{name}` (columns present: {})", names(batch))))
}

use serpsim::logs::arrow::ColumnError;
/// The library's Arrow click-log column readers (`serpsim::logs::arrow`), the one decoder
/// the CLI, Python and Spark share: ids (strings, integers as decimal text, dictionaries),
/// list columns and click flags.
pub use serpsim::logs::arrow::{FlagColumn as Flags, IdColumn as Strs, ListColumn as Lists};

fn type_error(py: Python<'_>, what: &str, e: ColumnError) -> PyErr {
    match e {
        ColumnError::Type(t) => invalid(py, format!("{what}: {t}")),
        ColumnError::Null(i) => invalid(py, format!("{what}: value {i} is null")),
        ColumnError::NotFlag(i, v) => invalid(py, format!("{what}: value {i}: {v} is not 0 or 1")),
    }
}

/// Reads `array` as ids (strings, integers or dictionaries of either); `what` names the
/// column in errors.
pub fn strs<'a>(py: Python<'_>, array: &'a dyn Array, what: &str) -> PyResult<Strs<'a>> {
    Strs::new(array).map_err(|e| type_error(py, what, e))
}

/// Reads `array` as flags (booleans or 0/1 integers); `what` names the column in errors.
pub fn flags<'a>(py: Python<'_>, array: &'a dyn Array, what: &str) -> PyResult<Flags<'a>> {
    Flags::new(array).map_err(|e| type_error(py, what, e))
}

/// Reads `array` as a list column (List or LargeList); `what` names it in errors.
pub fn lists<'a>(py: Python<'_>, array: &'a dyn Array, what: &str) -> PyResult<Lists<'a>> {
    Lists::new(array).map_err(|e| type_error(py, what, e))
}

/// Converts a record batch to a `pyarrow.RecordBatch`.
pub fn to_python(py: Python<'_>, batch: RecordBatch) -> PyResult<Py<PyAny>> {
    Ok(batch.to_pyarrow(py)?.unbind())
}

/// A record batch from named columns.
pub fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).expect("columns of equal length")
}
