"""Scaling of serpsim.spark.fit (DBN) in Spark local mode: wall time per EM iteration for
1x and 20x the real Yandex sample (read in place from $SERPSIM_DATA), with 1 and 2 local cores, and the size of the
per-iteration traffic (parameters broadcast, statistics collected). Prints the load average.

    python3 analysis/scale/spark_scaling.py   # after installing the package (scripts/test.sh)
"""
import os
import sys
import time

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
import serpsim  # noqa: E402
from serpsim import _serpsim  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("SERPSIM_DATA", os.path.join(os.path.dirname(ROOT), "shared", "data"))  # the real sample, read in place
log = serpsim.clicks.read_log(os.path.join(DATA, "clicks", "yandex_sample_train.txt"), progress=False)
rows = [(q, [str(d) for d in docs], [bool(c) for c in cl]) for q, docs, cl in zip(log["query_id"], log["docs"], log["clicks"])]
ITER = int(os.environ.get("ITER", "5"))

for cores in (1, 2):
    spark = (SparkSession.builder.master(f"local[{cores}]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    for copies in (1, 20):
        df = spark.createDataFrame(rows * copies, "query_id string, docs array<string>, clicks array<boolean>").repartition(2 * cores).cache()
        n = df.count()
        serpsim.spark.fit(df, model="dbn", iterations=1)  # warm up the workers
        t0 = time.perf_counter()
        r1 = serpsim.spark.fit(df, model="dbn", iterations=1)
        t1 = time.perf_counter()
        rk = serpsim.spark.fit(df, model="dbn", iterations=ITER)
        t2 = time.perf_counter()
        per_iter = ((t2 - t1) - (t1 - t0)) / (ITER - 1)
        print(f"local[{cores}] {copies}x: {n} sessions, {rk.pairs} pairs; fit(1 iter) {t1 - t0:.2f} s, "
              f"fit({ITER} iter) {t2 - t1:.2f} s, {per_iter:.3f} s per extra iteration "
              f"({n / per_iter:,.0f} sessions/s); load average {os.getloadavg()}")
        df.unpersist()
    spark.stop()

# Per-iteration traffic for this vocabulary: parameters broadcast, statistics of one
# partition that touched every pair.
fit = _serpsim.SparkFit("dbn", serpsim.clicks.fit(log, model="sdbn", progress=False).params[["query_id", "doc_id"]], 1)
print(f"pairs {fit.pairs}: pair table {len(fit.pair_table())} B (once), parameters {len(fit.state())} B per iteration")
import pyarrow as pa  # noqa: E402

part = _serpsim.SparkPart(_serpsim.SparkPairs(bytes(fit.pair_table())), bytes(fit.state()), False)
for b in pa.Table.from_pandas(log[["query_id", "docs", "clicks"]]).to_batches():
    part.add(b)
print(f"statistics of one partition holding all {len(log)} sessions: {len(part.finish())} B")
