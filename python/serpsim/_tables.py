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


def read_csv(*args: Any, **kwargs: Any) -> Any:
    """``pandas.read_csv`` parsing floats exactly (shortest round-trip text back to the same
    double): the default of pandas 3, ``float_precision="round_trip"`` before it."""
    import pandas as pd

    if int(pd.__version__.split(".")[0]) < 3:
        kwargs.setdefault("float_precision", "round_trip")
    return pd.read_csv(*args, **kwargs)
