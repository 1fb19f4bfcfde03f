"""Click models fitted on Apache Spark: the same fit as :func:`serpsim.clicks.fit`, bit for bit,
for any number of partitions, in the shape of the CLI's sharded fit (``docs/scale.md``).

:func:`fit` numbers the sessions in input order, repartitions them by a hash of the query id
(every session of a query, so every (query, document) pair, lands in one partition) and builds
each partition's *shard* in Rust: its pairs numbered locally, identical sessions kept once with
their count. The pairs' parameters then live with their partition: each EM pass zips the
shards with their current parameters, runs the E-step and the pairs' M-step in Rust on every
partition, and keeps the new parameters there (a persisted RDD). The driver holds and
broadcasts only the query-independent parameters (DBN's gamma, examination by rank for UBM and
PBM, CCM's taus) and sums only their statistics, exact fixed-point sums (``docs/scale.md``), so
the result does not depend on the partitioning or on the order the partitions finish. At the
end each partition sends its pairs' rows, with the key of each pair's first appearance, and the
driver merges them into the model the single-machine fit returns (pairs in the order of first
appearance in the log).

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
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional

from . import _serpsim
from .clicks import ClickModel

__all__ = ["fit", "SparkFitResult", "simulate"]


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
    partitions: int = 0
    """Partitions the sessions were spread over by query (the shards)."""


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


# A shard leaves its mapInArrow task in rows of at most this many bytes (Arrow binary columns
# hold at most 2 GiB per batch); the pieces are joined again per partition.
_CHUNK = 64 << 20


def _shards(data: Any, partitions: int) -> Any:
    """Per partition (by a hash of the query id), one element ``(sessions, names, n, pairs)``:
    the partition's shard (``SparkShard``)."""
    import pyarrow as pa
    from pyspark.sql import functions as F

    # The session's index in input order (partition, then row: monotonically increasing, not
    # consecutive), taken before the shuffle; it orders the pairs as the input shows them.
    by_query = data.withColumn("sid", F.monotonically_increasing_id()).repartition(partitions, "query_id")
    schema = pa.schema([("part", pa.int8()), ("bytes", pa.binary()), ("n", pa.int64())])

    def build(batches: Iterator[Any]) -> Iterator[Any]:
        from serpsim import _serpsim as native

        shard = native.SparkShard()
        for b in batches:
            shard.add(b)
        sessions, names, n, pairs = shard.finish()
        for part, blob, count in ((0, sessions, n), (1, names, pairs)):
            for at in range(0, max(len(blob), 1), _CHUNK):
                yield pa.RecordBatch.from_pydict({"part": [part], "bytes": [blob[at:at + _CHUNK]], "n": [count]}, schema=schema)

    def join(rows: Iterator[Any]) -> Iterator[Any]:
        pieces: Dict[int, List[bytes]] = {0: [], 1: []}
        counts = {0: 0, 1: 0}
        for r in rows:
            pieces[r[0]].append(bytes(r[1]))
            counts[r[0]] = r[2]
        if pieces[0]:
            yield b"".join(pieces[0]), b"".join(pieces[1]), counts[0], counts[1]

    return by_query.mapInArrow(build, "part tinyint, bytes binary, n long").rdd.mapPartitions(join, preservesPartitioning=True)


def fit(
    df: Any,
    model: str = "dbn",
    iterations: int = 50,
    gamma: Optional[float] = None,
    columns: Optional[Dict[str, str]] = None,
    cache: bool = True,
    partitions: Optional[int] = None,
    prior: Optional[str] = None,
) -> SparkFitResult:
    """Fits ``model`` on a Spark DataFrame of sessions.

    ``iterations`` applies to the EM models; ``gamma`` fixes DBN's continuation. ``columns``
    renames the expected columns (``{"docs": "url_md5", "clicks": "click"}``). ``partitions``
    (default: the DataFrame's current number of partitions) is the number of partitions the
    sessions are spread over by a hash of the query id: a partition holds every session of its
    queries and the parameters of their pairs. With ``cache`` the partitions' sessions are kept
    in executor memory (spilling to disk) for the passes; without, on executor disk only.
    ``prior`` means what it means in :func:`serpsim.clicks.fit` (``None``: ``"eb"`` for dbn,
    ubm, ccm and pbm, ``"uniform"`` for sdbn; ``"uniform"`` is PyClick's fit): with ``"eb"``
    each partition also returns its exact empirical-Bayes terms (a few hundred bytes) and the
    driver steps the per-pair tables' priors from their sum.

    Spark runs ``iterations`` passes of plain EM (no convergence test, no acceleration): the
    result equals :func:`serpsim.clicks.fit` with ``tolerance=0`` and the same ``prior`` on the same sessions (the
    model file's text, pairs in order of first appearance, for any partitioning).

    What moves: the driver broadcasts only the query-independent parameters each pass (DBN's
    gamma, examination by rank, CCM's taus: bytes, not per pair) and collects per partition
    only their statistics (at most a few kilobytes); pair parameters stay on the executors.
    The pair table reaches the driver once, at the end, as the fitted model's rows. An executor
    task holds one partition: its sessions in a compact form (about 4 bytes per result and 8
    per distinct session; identical sessions once), its pairs' parameters read and written and
    their statistics (about 100 bytes per pair for DBN), and, when the shard is built and at
    the end, the partition's pair ids. The driver holds the fitted model at the end (see
    ``docs/scale.md``).
    """
    from pyspark import StorageLevel

    from . import clicks

    fitter = _serpsim.SparkFit(model.lower(), int(iterations), gamma, prior)
    data = _normalise(df, columns)
    n_parts = int(partitions) if partitions is not None else data.rdd.getNumPartitions()
    if n_parts < 1:
        raise ValueError("partitions must be at least 1")
    sc = data.sparkSession.sparkContext
    level = StorageLevel.MEMORY_AND_DISK if cache else StorageLevel.DISK_ONLY
    built = _shards(data, n_parts).persist(level)
    live: List[Any] = [built]
    try:
        # The shards' sessions (read every pass) and pair names (read at the end) are kept
        # apart, so that a pass does not deserialise the names.
        sessions = built.map(lambda t: t[0]).persist(level)
        names = built.map(lambda t: t[1]).persist(level)
        live += [sessions, names]
        counts = built.map(lambda t: (t[2], t[3])).collect()  # (sessions, pairs) per partition
        sessions.count()
        names.count()
        live.remove(built)
        built.unpersist()
        if sum(n for n, _ in counts) == 0:
            from .errors import InvalidInputError

            raise InvalidInputError("spark fit: the DataFrame has no sessions")
        params = sessions.map(lambda _: b"")
        for _ in range(fitter.passes):
            globals_bc = sc.broadcast(bytes(fitter.globals()))

            def step(sp: Any, g: Any = globals_bc) -> Any:
                from serpsim import _serpsim as native

                return native.spark_step(sp[0], sp[1], g.value)

            out = sessions.zip(params).map(step).persist(StorageLevel.MEMORY_AND_DISK)
            live.append(out)
            try:
                fitter.m_step([bytes(s) for s in out.map(lambda t: t[0]).collect()])
            finally:
                globals_bc.unpersist()
            # The new parameters are materialised (the collect ran every partition): drop the
            # previous pass's.
            if len(live) > 3:
                live.pop(2).unpersist()
            params = out.map(lambda t: t[1])
        globals_bc = sc.broadcast(bytes(fitter.globals()))

        def last(spn: Any, g: Any = globals_bc) -> Any:
            from serpsim import _serpsim as native

            (s, p), nm = spn
            return native.spark_finish(s, p, nm, g.value)

        try:
            rows = sessions.zip(params).zip(names).map(last).collect()
        finally:
            globals_bc.unpersist()
        ll = fitter.finish([bytes(r) for r in rows])
    finally:
        for r in live:
            r.unpersist()
    fitted = clicks.ClickModel(_serpsim.loads(fitter.model_json(), f"spark fit of {model}"))
    return SparkFitResult(model=fitted, log_likelihood=ll, sessions=int(fitter.sessions), pairs=int(fitter.pairs),
                          passes=int(fitter.passes), partitions=n_parts)


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
