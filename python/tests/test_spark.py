"""serpsim.spark: the Spark fit (local[2]) equals the single-machine fit for any partitioning.

The reference is `serpsim.clicks.fit` on the same sessions in one process (itself checked
against PyClick in test_clicks.py and src/clickmodels/tests.rs). Spark runs in local mode;
pyspark is installed by scripts/test.sh, and so is Java 17 where it can (as root with apt-get).
Java is required: without it the tests fail with a message saying how to install it; they never
skip (a missing resource fails a test).
"""

import json
import math
import os
import shutil
import sys

import pytest

import serpsim
from conftest import DATA

YANDEX = DATA / "clicks" / "synthetic_yandex_layout.txt"
ITERATIONS = 10


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None:
        pytest.fail("Java (17) is not installed: the Spark tests need it (apt-get install openjdk-17-jre-headless)")
    from pyspark.sql import SparkSession  # a missing pyspark fails: scripts/test.sh installs it

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("serpsim-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def log():
    return serpsim.clicks.read_log(YANDEX, progress=False)


@pytest.fixture(scope="module")
def frame(spark, log):
    rows = [(q, [str(d) for d in docs], [bool(c) for c in clicks]) for q, docs, clicks in zip(log["query_id"], log["docs"], log["clicks"])]
    return spark.createDataFrame(rows, "query_id string, docs array<string>, clicks array<boolean>")


def assert_same_model(got, want):
    assert got.kind == want.kind
    assert got.scalars.keys() == want.scalars.keys()
    for k, v in want.scalars.items():
        assert abs(got.scalars[k] - v) <= 1e-12, k
    assert got.rank_params.keys() == want.rank_params.keys()
    for k, v in want.rank_params.items():
        assert len(got.rank_params[k]) == len(v)
        assert max((abs(a - b) for a, b in zip(got.rank_params[k], v)), default=0.0) <= 1e-12, k
    assert got.matrices.keys() == want.matrices.keys()
    for k, rows in want.matrices.items():
        assert len(got.matrices[k]) == len(rows)
        for a, b in zip(got.matrices[k], rows):
            assert len(a) == len(b)
            assert max((abs(x - y) for x, y in zip(a, b)), default=0.0) <= 1e-12, k
    g = got.params.set_index(["query_id", "doc_id"]).sort_index()
    w = want.params.set_index(["query_id", "doc_id"]).sort_index()
    assert list(g.index) == list(w.index)
    assert list(g.columns) == list(w.columns)
    for c in w.columns:
        assert float((g[c] - w[c]).abs().max()) <= 1e-12, c


@pytest.mark.parametrize("model", ["sdbn", "dbn", "ubm"])
@pytest.mark.parametrize("partitions", [1, 2, 7])
def test_spark_fit_equals_single_machine_fit(frame, log, model, partitions):
    # Spark runs a fixed number of passes (plain EM): compare with the same, tolerance 0.
    want = serpsim.clicks.fit(log, model=model, iterations=ITERATIONS, tolerance=0, progress=False)
    want_ll = want.log_likelihood(log, known_queries_only=False)
    df = frame.repartition(partitions)
    assert df.rdd.getNumPartitions() == partitions
    got = serpsim.spark.fit(df, model=model, iterations=ITERATIONS)
    assert got.sessions == len(log)
    assert got.passes == (1 if model == "sdbn" else ITERATIONS)
    assert_same_model(got.model, want)
    # "Identical in print": the shortest round-trip representations are equal.
    assert repr(got.log_likelihood) == repr(want_ll)
    assert math.isfinite(got.log_likelihood) and got.log_likelihood < 0


# Generated logs (`serpsim clicks generate`, a DBN population): NARROW repeats its queries (Zipf
# frequencies, 300 queries, 4,000 sessions: about 3,800 pairs), WIDE hardly does (5,000
# queries drawn uniformly for 6,000 sessions: about 38,000 pairs).
GENERATED_ITERATIONS = 8


def generated_log(cli, tmp_path_factory, name, *args):
    from conftest import run_cli

    path = tmp_path_factory.mktemp(name) / f"{name}.txt"
    run_cli(cli, "clicks", "generate", "--out", str(path), "--seed", "5", *args)
    return serpsim.clicks.read_log(path, progress=False)


def frame_in_order(spark, log, slices):
    """The log as a DataFrame of `slices` partitions that keeps its order (contiguous slices)."""
    rows = [(q, [str(d) for d in docs], [bool(c) for c in clicks]) for q, docs, clicks in zip(log["query_id"], log["docs"], log["clicks"])]
    return spark.createDataFrame(spark.sparkContext.parallelize(rows, slices), "query_id string, docs array<string>, clicks array<boolean>")


@pytest.fixture(scope="module")
def narrow(cli, tmp_path_factory):
    return generated_log(cli, tmp_path_factory, "narrow", "--sessions", "4000", "--queries", "300", "--docs", "100000")


@pytest.fixture(scope="module")
def wide(cli, tmp_path_factory):
    return generated_log(cli, tmp_path_factory, "wide", "--sessions", "6000", "--queries", "5000", "--zipf", "0", "--docs", "1000000")


@pytest.mark.parametrize(
    "model,partitions,prior",
    [(m, p, None) for m in ["dbn", "ubm", "pbm", "ccm"] for p in [1, 2, 7]] + [("dbn", 7, "uniform"), ("ubm", 2, "uniform")],
)
def test_spark_fit_of_a_generated_log_writes_the_single_machine_model_file(spark, narrow, model, partitions, prior):
    # The input has 3 partitions in log order; the fit spreads the sessions over `partitions`
    # partitions by query. The model file's text is the single-machine fit's: the same pairs in
    # the same order (first appearance in the log), every parameter the same bits. The default
    # prior (eb: the priors stepped by the driver from the partitions' summed terms, the
    # `unseen` means in the file) and Beta(1, 1).
    want = serpsim.clicks.fit(narrow, model=model, iterations=GENERATED_ITERATIONS, tolerance=0, progress=False, prior=prior)
    got = serpsim.spark.fit(frame_in_order(spark, narrow, 3), model=model, iterations=GENERATED_ITERATIONS, partitions=partitions, prior=prior)
    assert ("unseen" in json.loads(got.model.to_json())) == (prior is None)
    assert (got.partitions, got.sessions, got.passes) == (partitions, len(narrow), GENERATED_ITERATIONS)
    assert got.pairs == len(want.params) > 3000
    # Every byte of the single-machine model file but its `fit` key (how EM ended), which a
    # Spark fit does not gather (docs/scale.md); `fit` is the file's first key.
    want_text = want.to_json()
    assert want_text.startswith('{"fit":{')
    assert got.model.to_json() == "{" + want_text[want_text.index('"format":"serpsim-click-model"'):]
    assert repr(got.log_likelihood) == repr(want.log_likelihood(narrow, known_queries_only=False))


def query_independent_parameters(model):
    """How many parameters of `model` do not belong to a (query, document) pair."""
    return len(model.scalars) + sum(len(v) for v in model.rank_params.values()) + sum(len(r) for rows in model.matrices.values() for r in rows)


@pytest.fixture
def driver_traffic(monkeypatch):
    """Bytes the driver receives from the JVM per call (every result of a Spark job reaches the
    Python driver through pyspark's `_load_from_socket` or `_local_iterator_from_socket`:
    collect, reduce, count, DataFrame.collect/toArrow/toPandas, runJob), counted as they are
    read from the socket; and the pickled size of every value broadcast."""
    import importlib
    import pickle

    from pyspark import SparkContext

    received, broadcast = [], []

    class CountingFile:
        def __init__(self, f):
            self._f = f

        def read(self, *a):
            b = self._f.read(*a)
            received[-1] += len(b)
            return b

        def readinto(self, buf):
            n = self._f.readinto(buf)
            received[-1] += n or 0
            return n

        def readline(self, *a):
            b = self._f.readline(*a)
            received[-1] += len(b)
            return b

        def __getattr__(self, name):
            return getattr(self._f, name)

    class CountingSerializer:
        def __init__(self, ser):
            self._ser = ser

        def load_stream(self, stream):
            received.append(0)
            return self._ser.load_stream(CountingFile(stream))

        def __getattr__(self, name):
            return getattr(self._ser, name)

    # Where pyspark 4 (and, for the older names, pyspark 3) imports the two readers.
    patched, seen = 0, set()
    for path in ("pyspark.core.rdd", "pyspark.core.context", "pyspark.sql.classic.dataframe", "pyspark.sql.pandas.conversion",
                 "pyspark.util", "pyspark.rdd", "pyspark.context", "pyspark.sql.dataframe"):
        try:
            module = importlib.import_module(path)
        except ImportError:
            continue
        if id(module) in seen:  # pyspark 4 keeps the pyspark 3 names as aliases
            continue
        seen.add(id(module))
        for name in ("_load_from_socket", "_local_iterator_from_socket"):
            original = getattr(module, name, None)
            if original is not None:
                monkeypatch.setattr(module, name, lambda info, ser, _o=original: _o(info, CountingSerializer(ser)))
                patched += 1
    assert patched >= 4, "pyspark's result readers were not found: the traffic cannot be counted"
    original_broadcast = SparkContext.broadcast

    def counting_broadcast(self, value):
        broadcast.append(len(pickle.dumps(value)))
        return original_broadcast(self, value)

    monkeypatch.setattr(SparkContext, "broadcast", counting_broadcast)
    return received, broadcast


@pytest.mark.parametrize("model", ["dbn", "ubm", "pbm", "ccm"])
@pytest.mark.parametrize("prior", ["uniform", "eb"])
def test_the_driver_receives_no_pair_table_before_the_model(spark, wide, driver_traffic, model, prior):
    # Per pass the driver broadcasts the query-independent parameters (8 bytes each, plus
    # headers) and receives, per partition, their statistics (40 bytes per entry, plus
    # headers); with the eb prior also the priors (32 bytes per per-pair table, plus 20 of
    # headers) and, per partition, the prior's terms (88 bytes per table, plus 28 of headers).
    # The only thing it receives that grows with the pairs is the fitted model's rows, in the
    # last job.
    received, broadcast = driver_traffic
    partitions, iterations = 3, 3
    frame = frame_in_order(spark, wide, 2)
    received.clear()
    broadcast.clear()
    got = serpsim.spark.fit(frame, model=model, iterations=iterations, partitions=partitions, prior=prior)
    q = query_independent_parameters(got.model)
    tables = len(got.model.params.columns[2:])
    pair_params = got.pairs * tables * 8
    eb = prior == "eb"
    per_job = partitions * (256 + 48 * q + eb * (28 + 88 * tables))
    per_broadcast = 256 + 16 * q + eb * (20 + 32 * tables)
    assert got.pairs > 30000 and 10 * per_job < pair_params  # the bound could not hold the pairs
    assert len(received) >= iterations + 1 and len(broadcast) == iterations + 1
    *before, last = received
    assert max(before) <= per_job, (before, per_job)
    assert max(broadcast) <= per_broadcast, (broadcast, per_broadcast)
    assert last > pair_params  # the model's rows: ids and parameters of every pair


def test_spark_fit_reads_the_baidu_ultr_layout(spark, log):
    # Baidu-ULTR / CLAX column names and integer ids: the same sessions as the bundled log
    # with ids parsed as integers and clicks as 0/1 give the same model.
    rows = [(int(q.split("_")[0]) * 10 + int(q.split("_")[1]), [int(d) for d in docs], [int(c) for c in clicks])
            for q, docs, clicks in zip(log["query_id"], log["docs"], log["clicks"])]
    df = spark.createDataFrame(rows, "query_id long, url_md5 array<long>, click array<int>").repartition(3)
    got = serpsim.spark.fit(df, model="sdbn", columns={"docs": "url_md5", "clicks": "click"})
    want = serpsim.clicks.fit(log, model="sdbn", progress=False)
    g = got.model.params.sort_values(["query_id", "doc_id"])["satisfaction"].to_numpy()
    w = want.params.assign(query_id=[str(int(q.split("_")[0]) * 10 + int(q.split("_")[1])) for q in want.params["query_id"]])
    w = w.sort_values(["query_id", "doc_id"])["satisfaction"].to_numpy()
    assert len(g) == len(w)
    assert float(abs(g - w).max()) <= 1e-12


def test_bad_frames_are_refused(spark):
    df = spark.createDataFrame([("q", ["a"], [True])], "query_id string, documents array<string>, clicks array<boolean>")
    with pytest.raises(serpsim.InvalidInputError, match="missing column"):
        serpsim.spark.fit(df, model="dbn", iterations=2)
    df = spark.createDataFrame([("q", ["a"], [True])], "query_id string, docs array<string>, clicks array<boolean>")
    with pytest.raises(serpsim.InvalidInputError, match="not fitted from E-step|single count"):
        serpsim.spark.fit(df, model="cm")
    with pytest.raises(ValueError, match="partitions must be at least 1"):
        serpsim.spark.fit(df, model="dbn", iterations=2, partitions=0)
    empty = spark.createDataFrame([], "query_id string, docs array<string>, clicks array<boolean>")
    with pytest.raises(serpsim.InvalidInputError, match="no sessions"):
        serpsim.spark.fit(empty, model="dbn", iterations=2, partitions=2)


# The single-machine reference for the Spark simulation: the CLI on a bundled scenario,
# `serpsim simulate simulations/default.toml --replicates 2000 --seed 7 --out DIR`
# (2 profiles x 32 blocks of 63 users = 64 units of work).
SCENARIO = DATA.parent / "simulations" / "default.toml"
REPORT_FILES = ["pooled.csv", "comparison.csv", "tests.csv", "verdict.csv", "gain_curves.csv", "budgets.csv", "budget_comparison.csv", "summary.json", "distributions.svg", "gain_curves.svg", "differences.svg"]


@pytest.fixture(scope="module")
def cli_simulation(cli, tmp_path_factory):
    from conftest import run_cli

    out = tmp_path_factory.mktemp("cli-sim") / "run"
    run_cli(cli, "simulate", str(SCENARIO), "--replicates", "2000", "--seed", "7", "--out", str(out))
    return out


@pytest.mark.parametrize("partitions", [1, 2, 7])
def test_spark_simulation_equals_the_cli(spark, cli_simulation, tmp_path, partitions):
    out = tmp_path / "spark"
    r = serpsim.spark.simulate(spark, SCENARIO, replicates=2000, seed=7, partitions=partitions, out=out)
    for name in REPORT_FILES:
        assert (out / name).read_bytes() == (cli_simulation / name).read_bytes(), name
    assert r.pooled is not None and len(r.pooled) > 0 and len(r.comparisons) > 0
    assert r.samples is None


def test_spark_simulation_refuses_bad_input(spark, tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.toml"):
        serpsim.spark.simulate(spark, tmp_path / "nope.toml")
    with pytest.raises(ValueError, match="replicates"):
        serpsim.spark.simulate(spark, SCENARIO, replicates=0)
