"""serpsim.spark: the Spark fit (local[2]) equals the single-machine fit for any partitioning.

The reference is `serpsim.clicks.fit` on the same sessions in one process (itself checked
against PyClick in test_clicks.py and src/clickmodels/tests.rs). Spark runs in local mode;
pyspark is installed by scripts/test.sh, and so is Java 17 where it can (as root with apt-get).
Java is required: without it the tests fail with a message saying how to install it; they never
skip (a missing resource fails a test).
"""

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
