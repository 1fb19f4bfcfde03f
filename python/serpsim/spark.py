"""Click models fitted on Apache Spark: the same fit as :func:`serpsim.clicks.fit`, bit for bit,
for any number of partitions.

Each EM iteration broadcasts the current parameters; every partition computes the E-step's
sufficient statistics in Rust from its Arrow batches (``DataFrame.mapInArrow``); the driver
adds them up and runs the M-step. The statistics are exact fixed-point sums (see
``docs/scale.md``), so the result does not depend on how the rows are partitioned or in which
order the partitions finish. The pair table (every distinct (query, document) pair) is built
once, sorted, and broadcast once; the parameters (about 16 bytes per pair) are broadcast each
iteration.

The DataFrame needs ``query_id`` (string or integer), ``docs`` (an array of document ids) and
``clicks`` (an array of booleans or 0/1 integers aligned with ``docs``); other columns are
ignored. The Baidu-ULTR / CLAX layout (``query_id``, ``url_md5`` lists, ``click`` lists) maps
onto it with ``columns={"docs": "url_md5", "clicks": "click"}``.

Models: ``sdbn`` (one pass), ``dbn``, ``ubm``, ``ccm`` and ``pbm`` (EM).

:func:`simulate` runs a what-if scenario on Spark: the engine's units of work (a profile and a
block of users; they depend only on the number of users) are split into contiguous ranges, one
Spark task each; a task runs its units in Rust with the random streams of one machine (keyed
by seed, topic and user) and returns its report state (exact fixed-point sums and sketch
counts); the driver merges the states and writes the report ``serpsim simulate`` writes,
byte for byte.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import uuid
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional

from . import _serpsim
from .clicks import ClickModel

__all__ = ["fit", "SparkFitResult", "simulate"]

# Worker-side cache of decoded pair tables, keyed by a fresh id per fit (Python workers are
# reused across tasks, so a table is decoded once per worker, not once per task).
_PAIRS: Dict[str, Any] = {}
_PAIRS_LOCK = threading.Lock()


def _pairs(key: str, table: Any) -> Any:
    with _PAIRS_LOCK:
        p = _PAIRS.get(key)
        if p is None:
            _PAIRS.clear()
            p = _PAIRS[key] = _serpsim.SparkPairs(bytes(table.value))
        return p


@dataclass
class SparkFitResult:
    """A model fitted on Spark."""

    model: ClickModel
    """The fitted model (the same class as :func:`serpsim.clicks.fit` returns)."""
    log_likelihood: float
    """Mean per-session mean log-likelihood of the training sessions under the model
    (PyClick's definition, as ``ClickModel.log_likelihood`` computes it)."""
    sessions: int
    """Sessions fitted on."""
    pairs: int
    """Distinct (query, document) pairs."""
    passes: int
    """Passes over the data (EM iterations; 1 for SDBN)."""


def _normalise(df: Any, columns: Optional[Dict[str, str]]) -> Any:
    from pyspark.sql import functions as F

    names = {"query_id": "query_id", "docs": "docs", "clicks": "clicks"}
    names.update(columns or {})
    missing = [v for v in names.values() if v not in df.columns]
    if missing:
        from .errors import InvalidInputError

        raise InvalidInputError(
            f"spark fit: missing column(s) {', '.join(missing)} (columns present: {', '.join(df.columns)}); "
            "give columns={'query_id': ..., 'docs': ..., 'clicks': ...}"
        )
    return df.select(
        F.col(names["query_id"]).cast("string").alias("query_id"),
        F.col(names["docs"]).cast("array<string>").alias("docs"),
        F.col(names["clicks"]).alias("clicks"),
    )


def _pair_table(df: Any) -> Any:
    """Every distinct (query, document) pair, sorted, as a pyarrow Table."""
    import pyarrow as pa
    from pyspark.sql import functions as F

    pairs = df.select("query_id", F.explode("docs").alias("doc_id")).distinct().orderBy("query_id", "doc_id")
    if hasattr(pairs, "toArrow"):
        return pairs.toArrow()
    rows = pairs.collect()
    return pa.table({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows]})


def _run(df: Any, pairs_bc: Any, key: str, state: bytes, log_likelihood: bool) -> List[bytes]:
    import pyarrow as pa

    state_bc = df.sparkSession.sparkContext.broadcast(state)

    def part(batches: Iterator[Any]) -> Iterator[Any]:
        from serpsim import _serpsim as native

        acc = native.SparkPart(_pairs(key, pairs_bc), bytes(state_bc.value), log_likelihood)
        for b in batches:
            acc.add(b)
        yield pa.RecordBatch.from_pydict({"part": [acc.finish()]}, schema=pa.schema([("part", pa.binary())]))

    try:
        rows = df.mapInArrow(part, "part binary").collect()
    finally:
        state_bc.unpersist()
    return [bytes(r[0]) for r in rows]


def fit(
    df: Any,
    model: str = "dbn",
    iterations: int = 50,
    gamma: Optional[float] = None,
    columns: Optional[Dict[str, str]] = None,
    cache: bool = True,
) -> SparkFitResult:
    """Fits ``model`` on a Spark DataFrame of sessions.

    ``iterations`` applies to the EM models; ``gamma`` fixes DBN's continuation. ``columns``
    renames the expected columns (``{"docs": "url_md5", "clicks": "click"}``). With ``cache``
    the normalised DataFrame is cached for the iterations (and unpersisted at the end).

    Spark runs ``iterations`` passes of plain EM (no convergence test, no acceleration): the
    result equals :func:`serpsim.clicks.fit` with ``tolerance=0`` on the same sessions
    (parameters bit for bit, for any partitioning).
    """
    from . import clicks

    model = model.lower()
    data = _normalise(df, columns)
    if cache:
        data = data.cache()
    try:
        fitter = _serpsim.SparkFit(model, _pair_table(data), int(iterations), gamma)
        key = uuid.uuid4().hex
        pairs_bc = data.sparkSession.sparkContext.broadcast(bytes(fitter.pair_table()))
        try:
            for _ in range(fitter.passes):
                fitter.m_step(_run(data, pairs_bc, key, bytes(fitter.state()), False))
            ll = fitter.log_likelihood(_run(data, pairs_bc, key, bytes(fitter.state()), True))
        finally:
            pairs_bc.unpersist()
    finally:
        if cache:
            data.unpersist()
    fitted = clicks.ClickModel(_serpsim.loads(fitter.model_json(), f"spark fit of {model}"))
    return SparkFitResult(model=fitted, log_likelihood=ll, sessions=int(fitter.sessions), pairs=int(fitter.pairs), passes=int(fitter.passes))


def _unit_ranges(units: int, parts: int) -> List[tuple]:
    """``parts`` contiguous, non-empty ranges covering ``0..units`` (sizes differing by at most one)."""
    parts = max(1, min(parts, units))
    base, extra = divmod(units, parts)
    out, first = [], 0
    for i in range(parts):
        end = first + base + (1 if i < extra else 0)
        out.append((first, end))
        first = end
    return out


def simulate(
    spark: Any,
    scenario: Any = None,
    replicates: Optional[int] = None,
    seed: Optional[int] = None,
    partitions: Optional[int] = None,
    threads_per_task: int = 1,
    out: Optional["os.PathLike[str] | str"] = None,
    base: Optional["os.PathLike[str] | str"] = None,
) -> Any:
    """Runs ``scenario`` on Spark and returns the report :func:`serpsim.simulate` returns
    (the same tables, byte-identical files for the same seed), without per-session samples.

    ``spark`` is a ``SparkSession`` (or a ``SparkContext``). ``scenario``, ``replicates``,
    ``seed``, ``out`` and ``base`` are as in :func:`serpsim.simulate`. ``partitions`` (default:
    the context's default parallelism) is the number of Spark tasks, each running a contiguous
    range of the run's units on ``threads_per_task`` threads. Every executor must see the
    scenario's files (its TOML and the collection it names) at the same absolute paths: the
    scenario path and ``base`` are made absolute on the driver.
    """
    from .simulation import _read_files, _result, _scenario_kwargs

    kw = _scenario_kwargs(scenario)
    if "path" in kw:
        kw["path"] = os.path.abspath(kw["path"])
    if replicates is not None and int(replicates) < 1:
        raise ValueError("replicates must be at least 1")
    sc = getattr(spark, "sparkContext", spark)
    tmp = None
    if out is None:
        tmp = tempfile.mkdtemp(prefix="serpsim-spark-")
        target = os.path.join(tmp, "run")
    else:
        target = os.path.abspath(os.fspath(out))
    args: Dict[str, Any] = dict(
        kw,
        out=target,
        base=os.path.abspath(os.fspath(base)) if base is not None else os.getcwd(),
        replicates=None if replicates is None else int(replicates),
        seed=None if seed is None else int(seed),
    )
    try:
        driver = _serpsim.ShardedScenario(**args)
        ranges = _unit_ranges(driver.units, int(partitions) if partitions else sc.defaultParallelism)
        threads = max(1, int(threads_per_task))

        def task(it: Iterator[tuple]) -> Iterator[tuple]:
            from serpsim import _serpsim as native

            shard = None
            for first, end in it:
                shard = shard or native.ShardedScenario(**args)
                yield first, bytes(shard.run_units(first, end, threads))

        states = sc.parallelize(ranges, len(ranges)).mapPartitions(task).collect()
        states.sort(key=lambda s: s[0])
        got = [f for f, _ in states]
        if got != [f for f, _ in ranges]:
            raise RuntimeError(f"serpsim.spark.simulate: expected the states of units starting at {[f for f, _ in ranges]}, got {got}")
        written, warnings = driver.write([s for _, s in states])
        files = _read_files(written)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return _result(files, warnings, None if out is None else target)
