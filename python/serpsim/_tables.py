"""Tables in and out: pandas, pyarrow and anything with the Arrow PyCapsule interface."""

from __future__ import annotations

import os
from typing import Any

import pyarrow as pa


def is_path(obj: Any) -> bool:
    return isinstance(obj, (str, bytes, os.PathLike))


def to_arrow(obj: Any, what: str) -> Any:
    """An Arrow stream source for ``obj``: a pyarrow Table as is, a pandas DataFrame converted
    once (its index is dropped), a polars frame through its Arrow export."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        pd = None
    if pd is not None and isinstance(obj, pd.DataFrame):
        return pa.Table.from_pandas(obj, preserve_index=False)
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj])
    if isinstance(obj, (pa.Table, pa.RecordBatchReader)) or hasattr(obj, "__arrow_c_stream__"):
        return obj
    if hasattr(obj, "to_arrow"):  # polars before the PyCapsule interface
        return obj.to_arrow()
    raise TypeError(f"{what}: expected a pandas DataFrame, a pyarrow Table or a path, got {type(obj).__name__}")


def to_pandas(batch: Any) -> Any:
    """A pandas DataFrame from a pyarrow RecordBatch returned by the library."""
    return pa.Table.from_batches([batch]).to_pandas()


OUTPUTS = ("pandas", "polars")


def is_polars(obj: Any) -> bool:
    """Whether ``obj`` is a polars DataFrame or LazyFrame (without importing polars)."""
    return type(obj).__module__.split(".")[0] == "polars"


def output_kind(output: Any, *inputs: Any) -> str:
    """The kind of the tables a call returns: ``output`` when given (``"pandas"`` or
    ``"polars"``), else polars when any table given is a polars frame, else pandas."""
    if output is None:
        for obj in inputs:
            if is_polars(obj) or (isinstance(obj, dict) and any(is_polars(v) for v in obj.values())) or (
                isinstance(obj, (list, tuple)) and any(is_polars(v) for v in obj)
            ):
                return "polars"
        return "pandas"
    if output not in OUTPUTS:
        raise ValueError(f"output: `{output}` is not one of {', '.join(OUTPUTS)}")
    if output == "polars":
        _polars()
    return output


def _polars() -> Any:
    try:
        import polars as pl
    except ImportError as e:
        raise ImportError("output='polars' needs polars: pip install polars") from e
    return pl


def to_frame(batch: Any, kind: str) -> Any:
    """A DataFrame of ``kind`` from a pyarrow RecordBatch or Table returned by the library
    (polars straight from Arrow: the dtypes are the Arrow types)."""
    table = pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch
    if kind == "polars":
        return _polars().from_arrow(table)
    return table.to_pandas()


def from_pandas(frame: Any, kind: str) -> Any:
    """``frame`` (pandas, or None) as a DataFrame of ``kind``; numeric columns keep their
    dtypes (int64 stays Int64, float64 Float64, strings String)."""
    if frame is None or kind == "pandas":
        return frame
    return _polars().from_pandas(frame)


def read_csv(*args: Any, **kwargs: Any) -> Any:
    """``pandas.read_csv`` parsing floats exactly (shortest round-trip text back to the same
    double): the default of pandas 3, ``float_precision="round_trip"`` before it."""
    import pandas as pd

    if int(pd.__version__.split(".")[0]) < 3:
        kwargs.setdefault("float_precision", "round_trip")
    return pd.read_csv(*args, **kwargs)
