"""Scaling of serpsim.spark.fit (DBN) in Spark local mode: wall time per EM iteration for
1x and 20x the real Yandex sample (read in place from $SERPSIM_DATA), with 1 and 2 local cores, and the size of the
per-iteration traffic (parameters broadcast, statistics collected, pair parameters kept in the
partition). Prints the load average.

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

# Per-iteration traffic of the sharded fit for this log, with every session in one partition:
# the query-independent parameters broadcast, the statistics sent to the driver, and the pair
# parameters that stay in the partition.
import pyarrow as pa  # noqa: E402

table = pa.Table.from_pandas(log[["query_id", "docs", "clicks"]], preserve_index=False)
table = table.append_column("sid", pa.array(range(len(log)), pa.int64()))
shard = _serpsim.SparkShard()
for b in table.to_batches():
    shard.add(b)
sessions, names, n, pairs = shard.finish()
fit = _serpsim.SparkFit("dbn", 1)
stats, params = _serpsim.spark_step(sessions, b"", fit.globals())
print(f"{n} sessions, {pairs} pairs in one partition: shard {len(sessions)} B, names {len(names)} B; per pass: "
      f"broadcast {len(fit.globals())} B, statistics to the driver {len(stats)} B, pair parameters kept {len(params)} B")
