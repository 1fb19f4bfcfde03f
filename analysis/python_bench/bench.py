"""Benchmarks of the Python package (issue 14): evaluation from DataFrames against ir_measures
and ranx, SDBN fitting from a DataFrame, and the memory of a 10 M-row Arrow run.

    python analysis/python_bench/bench.py [--quick] > analysis/python_bench/results.txt

Needs serpsim (pip install ./python) and, for the comparisons, `pip install ir_measures ranx`
(only here: the tests never need them). Prints the load average with the numbers; the machine
is shared, so read the numbers with it.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))


def load():
    return open("/proc/loadavg").read().split()[:3]


def make_collection(topics=100, docs=1000, judged=300, seed=7):
    """A run of `docs` documents per topic with random scores; qrels judge `judged` of them per
    topic (grades 0-2, 30 % relevant)."""
    rng = np.random.default_rng(seed)
    q = np.repeat([f"q{t}" for t in range(topics)], docs)
    d = np.tile([f"doc{i}" for i in range(docs)], topics)
    run = pd.DataFrame({"query_id": q, "doc_id": d, "score": rng.random(topics * docs)})
    qq, dd, rr = [], [], []
    for t in range(topics):
        chosen = rng.choice(docs + 200, size=judged, replace=False)  # some judged docs are not retrieved
        qq += [f"q{t}"] * judged
        dd += [f"doc{i}" for i in chosen]
        rr += list(rng.choice([0, 1, 2], size=judged, p=[0.7, 0.2, 0.1]))
    qrels = pd.DataFrame({"query_id": qq, "doc_id": dd, "relevance": np.array(rr, dtype=np.int64)})
    return qrels, run


# The same 7 measures in each tool's spelling.
SERPSIM = ["map", "P_10", "ndcg@10", "ndcg", "recip_rank", "recall_100", "Rprec"]
IRM = ["AP", "P@10", "nDCG@10", "nDCG", "RR", "R@100", "Rprec"]
RANX = ["map", "precision@10", "ndcg@10", "ndcg", "mrr", "recall@100", "r-precision"]


def timeit(f, repeat):
    """Median wall seconds, median CPU seconds (user + system of the whole process, all
    threads: what a loaded machine does not inflate much) and the last result."""
    times, cpus = [], []
    out = None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = f()
        times.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return statistics.median(times), statistics.median(cpus), out


def cold(code):
    """Seconds of `code` in a fresh interpreter (import excluded), e.g. ranx's first call with
    its Numba compilation."""
    script = (
        "import time, sys\nsys.path.insert(0, %r)\nfrom bench import make_collection\nqrels, run = make_collection()\n" % HERE
        + code
        + "\nt, c = time.perf_counter(), time.process_time()\nf()\nprint(time.perf_counter() - t, time.process_time() - c)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    wall, cpu = out.stdout.strip().splitlines()[-1].split()
    return {"wall_s": float(wall), "cpu_s": float(cpu)}


def bench_eval(repeat):
    import serpsim

    qrels, run = make_collection()
    res = {}
    med, cpu, ev = timeit(lambda: serpsim.evaluate(qrels, run, SERPSIM, progress=False).aggregate, repeat)
    res["serpsim"] = {"wall_s": med, "cpu_s": cpu}
    med, cpu, _ = timeit(lambda: serpsim.evaluate(qrels, run, SERPSIM, threads=1, progress=False).aggregate, repeat)
    res["serpsim_1_thread"] = {"wall_s": med, "cpu_s": cpu}
    res["serpsim_cold_s"] = cold("import serpsim\nf = lambda: serpsim.evaluate(qrels, run, %r, progress=False).aggregate" % SERPSIM)
    values = {"serpsim": dict(zip(ev["measure"], ev["value"]))}
    try:
        import ir_measures

        measures = [ir_measures.parse_measure(m) for m in IRM]
        med, cpu, agg = timeit(lambda: ir_measures.calc_aggregate(measures, qrels, run), max(1, repeat // 3))
        res["ir_measures"] = {"wall_s": med, "cpu_s": cpu}
        res["ir_measures_version"] = ir_measures.__version__
        values["ir_measures"] = {str(k): v for k, v in agg.items()}
    except ImportError:
        res["ir_measures"] = None
    try:
        import ranx

        # ranx wants `object` id columns (pandas 3 defaults to its string dtype): converted
        # once, outside the timing.
        oq = qrels.astype({"query_id": object, "doc_id": object})
        orun = run.astype({"query_id": object, "doc_id": object})

        def with_ranx():
            q = ranx.Qrels.from_df(oq, q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
            r = ranx.Run.from_df(orun, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
            return ranx.evaluate(q, r, RANX)

        res["ranx_cold_s"] = cold(
            "import ranx\n"
            "qrels = qrels.astype({'query_id': object, 'doc_id': object})\n"
            "run = run.astype({'query_id': object, 'doc_id': object})\n"
            "def f():\n"
            "    q = ranx.Qrels.from_df(qrels, q_id_col='query_id', doc_id_col='doc_id', score_col='relevance')\n"
            "    r = ranx.Run.from_df(run, q_id_col='query_id', doc_id_col='doc_id', score_col='score')\n"
            "    return ranx.evaluate(q, r, %r)" % RANX
        )
        with_ranx()  # compile
        med, cpu, vals = timeit(with_ranx, repeat)
        res["ranx_warm"] = {"wall_s": med, "cpu_s": cpu}
        import importlib.metadata

        res["ranx_version"] = importlib.metadata.version("ranx")
        values["ranx"] = {k: float(v) for k, v in vals.items()}
    except ImportError:
        res["ranx_warm"] = None
    res["values"] = values
    return res


def make_sessions(n, queries=1000, docs_per_query=30, depth=10, seed=3):
    rng = np.random.default_rng(seed)
    qs = rng.integers(0, queries, size=n)
    starts = rng.integers(0, docs_per_query - depth, size=n)
    docs = [[f"d{q}_{s + k}" for k in range(depth)] for q, s in zip(qs, starts)]
    clicks = (rng.random((n, depth)) < 0.15).astype(np.int8)
    import pyarrow as pa

    table = pa.table({"query_id": pa.array([f"q{q}" for q in qs]), "docs": pa.array(docs, type=pa.list_(pa.string())), "clicks": pa.array(list(clicks), type=pa.list_(pa.int8()))})
    return table


def bench_sdbn(n):
    import serpsim

    table = make_sessions(n)
    frame = table.to_pandas(types_mapper=pd.ArrowDtype)  # a DataFrame backed by the Arrow buffers
    med, cpu, _ = timeit(lambda: serpsim.clicks.fit(frame, model="sdbn", progress=False), 3)
    numpy_frame = table.to_pandas()  # object columns of numpy arrays: converted to Arrow once per call
    med2, cpu2, _ = timeit(lambda: serpsim.clicks.fit(numpy_frame, model="sdbn", progress=False), 3)
    # The fit alone, on the log already read (what the CLI's figure in docs/performance.md measures).
    from serpsim import _serpsim

    arrow = serpsim._tables.to_arrow(frame, "log")
    job = _serpsim.fit_table(arrow, "sdbn")  # reads the table here (interning the ids)
    t, c = time.perf_counter(), time.process_time()
    job.result()
    fit_wall, fit_cpu = time.perf_counter() - t, time.process_time() - c
    return {
        "sessions": n,
        "arrow_backed": {"wall_s": med, "cpu_s": cpu, "sessions_per_s_wall": n / med, "sessions_per_s_cpu": n / cpu},
        "numpy_object": {"wall_s": med2, "cpu_s": cpu2, "sessions_per_s_cpu": n / cpu2},
        "fit_only": {"wall_s": fit_wall, "cpu_s": fit_cpu, "sessions_per_s_cpu": n / max(fit_cpu, 1e-9)},
    }


def bench_memory(rows):
    """Peak RSS of evaluating a `rows`-row run passed as a pyarrow Table, against the size of
    the table's buffers, in a fresh process."""
    code = f"""
import resource, sys, json
sys.path.insert(0, {HERE!r})
import numpy as np, pyarrow as pa, serpsim
rows = {rows}
topics = 1000
per = rows // topics
rng = np.random.default_rng(1)
q = pa.array(np.repeat(np.array([f"q{{t}}" for t in range(topics)]), per))
d = pa.array(np.tile(np.array([f"doc{{i}}" for i in range(per)]), topics))
run = pa.table({{"query_id": q, "doc_id": d, "score": rng.random(rows)}})
qrels = pa.table({{"query_id": [f"q{{t}}" for t in range(topics) for _ in range(50)], "doc_id": [f"doc{{i}}" for t in range(topics) for i in range(0, 5000, 100)], "relevance": [1] * (topics * 50)}})
del q, d
import gc; gc.collect()
def status(key):
    with open("/proc/self/status") as f:
        return [int(l.split()[1]) for l in f if l.startswith(key)][0]
rss_before = status("VmRSS")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # resets the peak (VmHWM) to the current RSS: the peak of the call alone
ev = serpsim.evaluate(qrels, run, ["map", "ndcg@10"], progress=False)
peak = status("VmHWM")
print(json.dumps({{"rows": rows, "table_bytes": run.nbytes, "rss_before_kib": rss_before, "peak_kib": peak, "value": float(ev.aggregate["value"][0])}}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["extra_mib"] = (r["peak_kib"] - r["rss_before_kib"]) / 1024
    r["table_mib"] = r["table_bytes"] / 2**20
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    print("load average before:", *load())
    e = bench_eval(3 if args.quick else 10)
    print(json.dumps(e, indent=1))
    s = bench_sdbn(200_000 if args.quick else 2_000_000)
    print(json.dumps(s, indent=1))
    m = bench_memory(1_000_000 if args.quick else 10_000_000)
    print(json.dumps(m, indent=1))
    print("load average after:", *load())


if __name__ == "__main__":
    main()
