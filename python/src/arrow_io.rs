//! Arrow in and out. Tables come in through the Arrow PyCapsule stream interface (pyarrow
//! tables and record batch readers, polars and pandas ≥ 2.2 frames), without copying their
//! buffers; columns are read by name with errors that name the missing or mistyped column.
//! Results go out as Arrow record batches.

use crate::errors::invalid;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_pyarrow::{FromPyArrow, ToPyArrow};
use arrow_schema::DataType;
use pyo3::prelude::*;
use std::fmt::Write;

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
    batch
        .column_by_name(name)
        .ok_or_else(|| invalid(py, format!("{what}: missing column `{name}` (columns present: {})", names(batch))))
}

/// A column of ids: strings or integers, read as text.
pub enum Strs<'a> {
    /// Utf8 of any offset width or view.
    Utf8(&'a arrow_array::StringArray),
    LargeUtf8(&'a arrow_array::LargeStringArray),
    View(&'a arrow_array::StringViewArray),
    /// Integers, formatted in decimal when read.
    Int(&'a dyn Array, fn(&dyn Array, usize) -> i128),
}

impl<'a> Strs<'a> {
    /// Reads `array` as ids; `what` names the column in errors.
    pub fn new(py: Python<'_>, array: &'a dyn Array, what: &str) -> PyResult<Strs<'a>> {
        Ok(match array.data_type() {
            DataType::Utf8 => Strs::Utf8(array.as_string::<i32>()),
            DataType::LargeUtf8 => Strs::LargeUtf8(array.as_string::<i64>()),
            DataType::Utf8View => Strs::View(array.as_string_view()),
            other => match int_reader(other) {
                Some(f) => Strs::Int(array, f),
                None => return Err(invalid(py, format!("{what}: expected strings or integers, found Arrow type {other}"))),
            },
        })
    }

    /// Value `i`, `None` when null; integers are written into `buf`.
    pub fn get<'b>(&'b self, i: usize, buf: &'b mut String) -> Option<&'b str> {
        match self {
            Strs::Utf8(a) => a.is_valid(i).then(|| a.value(i)),
            Strs::LargeUtf8(a) => a.is_valid(i).then(|| a.value(i)),
            Strs::View(a) => a.is_valid(i).then(|| a.value(i)),
            Strs::Int(a, f) => a.is_valid(i).then(|| {
                buf.clear();
                let _ = write!(buf, "{}", f(*a, i));
                buf.as_str()
            }),
        }
    }
}

/// A column of flags: booleans, or integers that are 0 or 1 (read in place).
pub enum Flags<'a> {
    Bool(&'a arrow_array::BooleanArray),
    Int(&'a dyn Array, fn(&dyn Array, usize) -> i128),
}

/// Reads value `i` of an integer array of type `T` as i128 (the caller checked the type).
fn int_at<T: arrow_array::ArrowPrimitiveType>(a: &dyn Array, i: usize) -> i128
where
    T::Native: Into<i128>,
{
    a.as_primitive::<T>().value(i).into()
}

/// The reader of an integer array's values, or `None` for other types.
fn int_reader(t: &DataType) -> Option<fn(&dyn Array, usize) -> i128> {
    Some(match t {
        DataType::Int8 => int_at::<Int8Type>,
        DataType::Int16 => int_at::<Int16Type>,
        DataType::Int32 => int_at::<Int32Type>,
        DataType::Int64 => int_at::<Int64Type>,
        DataType::UInt8 => int_at::<UInt8Type>,
        DataType::UInt16 => int_at::<UInt16Type>,
        DataType::UInt32 => int_at::<UInt32Type>,
        DataType::UInt64 => int_at::<UInt64Type>,
        _ => return None,
    })
}

impl<'a> Flags<'a> {
    /// Reads `array` as flags; `what` names the column in errors.
    pub fn new(py: Python<'_>, array: &'a dyn Array, what: &str) -> PyResult<Flags<'a>> {
        match array.data_type() {
            DataType::Boolean => Ok(Flags::Bool(array.as_boolean())),
            t => match int_reader(t) {
                Some(f) => Ok(Flags::Int(array, f)),
                None => Err(invalid(py, format!("{what}: expected booleans or 0/1 integers, found Arrow type {t}"))),
            },
        }
    }

    /// Value `i`: `Ok(None)` when null, an error message when not 0/1.
    #[inline]
    pub fn get(&self, i: usize) -> Result<Option<bool>, String> {
        match self {
            Flags::Bool(a) => Ok(a.is_valid(i).then(|| a.value(i))),
            Flags::Int(a, f) => {
                if a.is_null(i) {
                    return Ok(None);
                }
                match f(*a, i) {
                    0 => Ok(Some(false)),
                    1 => Ok(Some(true)),
                    x => Err(format!("{x} is not 0 or 1")),
                }
            }
        }
    }
}

/// A list column: per row, a range into its child values.
pub struct Lists<'a> {
    offsets: Vec<usize>,
    validity: &'a dyn Array,
    /// The child values.
    pub values: ArrayRef,
}

impl<'a> Lists<'a> {
    /// Reads `array` as a list column (List or LargeList); `what` names it in errors.
    pub fn new(py: Python<'_>, array: &'a dyn Array, what: &str) -> PyResult<Lists<'a>> {
        match array.data_type() {
            DataType::List(_) => {
                let l = array.as_list::<i32>();
                Ok(Lists { offsets: l.value_offsets().iter().map(|&o| o as usize).collect(), validity: array, values: l.values().clone() })
            }
            DataType::LargeList(_) => {
                let l = array.as_list::<i64>();
                Ok(Lists { offsets: l.value_offsets().iter().map(|&o| o as usize).collect(), validity: array, values: l.values().clone() })
            }
            other => Err(invalid(py, format!("{what}: expected a list column (one list per row), found Arrow type {other}"))),
        }
    }

    /// The child range of row `i`, `None` when the row is null.
    pub fn range(&self, i: usize) -> Option<std::ops::Range<usize>> {
        self.validity.is_valid(i).then(|| self.offsets[i]..self.offsets[i + 1])
    }
}

/// Converts a record batch to a `pyarrow.RecordBatch`.
pub fn to_python(py: Python<'_>, batch: RecordBatch) -> PyResult<Py<PyAny>> {
    Ok(batch.to_pyarrow(py)?.unbind())
}

/// A record batch from named columns.
pub fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).expect("columns of equal length")
}

