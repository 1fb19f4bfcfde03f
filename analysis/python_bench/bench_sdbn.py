"""SDBN fitting from a DataFrame already in memory (issue 14: >= 5 M sessions/s for the whole
`serpsim.clicks.fit(df, model="sdbn")` call).

    python analysis/python_bench/bench_sdbn.py [--repeat-log 30] [--calls 5] [--synthetic] > analysis/python_bench/results_sdbn.txt

The real Yandex sample (read in place from $SERPSIM_DATA/clicks/yandex_sample_train.txt, default
../shared/data; 35,064 sessions of 10
results) is read once with `serpsim.clicks.read_log` and repeated `--repeat-log` times (30 →
1,051,920 sessions), then held in memory in several layouts a notebook user has:

- `arrow_strings`: pandas DataFrame backed by Arrow (`types_mapper=pd.ArrowDtype`, what
  `pd.read_parquet(..., dtype_backend="pyarrow")` gives): string ids, list columns;
- `arrow_int64`: the same with the document ids as int64 (the Yandex document ids are integers;
  its query ids are text such as `9_0`);
- `arrow_dictionary`: the ids dictionary-encoded (pandas categoricals / Parquet dictionaries);
- `pyarrow_table`: the pyarrow Table with string ids, passed directly;
- `numpy_object`: a default pandas DataFrame (object columns of NumPy arrays), which must be
  converted to Arrow in each call (Python objects per row: the slow layout, shown for scale).

With `--synthetic`, two Arrow-backed string layouts of generated sessions follow (no
log-likelihood check: other sessions):

- `synthetic_2M`: `bench.py`'s 2,000,000 sessions (1,000 queries; each session shows 10
  consecutive of its query's 30 documents from one of 20 starts: 20,000 distinct result lists);
- `distinct_lists_1M`: 1,000,000 sessions showing a random ordered choice of 10 of their
  query's 30 documents, so result lists almost never repeat (the case the reader's cache of
  repeated result lists cannot help; it switches itself off).

Each layout is timed over `--calls` whole calls (median wall and CPU: user + system of the
process, from `time.process_time()`), and every fit's log-likelihood on the original sample is
checked equal to the first layout's (the interned log is the same whatever the layout).
Prints `uptime` before and after: the machine is shared.
"""

import argparse
import json
import os
import statistics
import subprocess
import time

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

import serpsim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
YANDEX = os.path.join(os.environ.get("SERPSIM_DATA", os.path.join(os.path.dirname(ROOT), "shared", "data")), "clicks", "yandex_sample_train.txt")


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def layouts(repeat):
    base = pa.Table.from_pandas(serpsim.clicks.read_log(YANDEX, progress=False), preserve_index=False)
    base = base.select(["query_id", "docs", "clicks"])
    table = pa.concat_tables([base] * repeat).combine_chunks()
    ints = pa.table(
        {
            "query_id": table["query_id"],  # the sample's query ids are `9_0`-style text
            "docs": pc.cast(table["docs"], pa.list_(pa.int64())),
            "clicks": table["clicks"],
        }
    )
    docs = table["docs"].combine_chunks()
    dict_docs = pa.ListArray.from_arrays(docs.offsets, pc.dictionary_encode(docs.values))
    dicts = pa.table({"query_id": pc.dictionary_encode(table["query_id"]), "docs": dict_docs, "clicks": table["clicks"]})
    return {
        "arrow_strings": table.to_pandas(types_mapper=pd.ArrowDtype),
        "arrow_int64": ints.to_pandas(types_mapper=pd.ArrowDtype),
        "arrow_dictionary": dicts.to_pandas(types_mapper=pd.ArrowDtype),
        "pyarrow_table": table,
        "numpy_object": table.to_pandas(),
    }, base


def distinct_lists(n, queries=1000, docs_per_query=30, depth=10, seed=5):
    import numpy as np

    rng = np.random.default_rng(seed)
    qs = rng.integers(0, queries, size=n)
    docs = [[f"d{q}_{k}" for k in rng.choice(docs_per_query, depth, replace=False)] for q in qs]
    clicks = (rng.random((n, depth)) < 0.15).astype(np.int8)
    return pa.table({"query_id": pa.array([f"q{q}" for q in qs]), "docs": pa.array(docs, type=pa.list_(pa.string())), "clicks": pa.array(list(clicks), type=pa.list_(pa.int8()))})


def time_calls(frame, calls):
    walls, cpus, model = [], [], None
    for _ in range(calls):
        t, c = time.perf_counter(), time.process_time()
        model = serpsim.clicks.fit(frame, model="sdbn", progress=False)
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat-log", type=int, default=30)
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--skip", nargs="*", default=[])
    ap.add_argument("--synthetic", action="store_true")
    args = ap.parse_args()
    print("before:", uptime())
    frames, base = layouts(args.repeat_log)
    n = len(frames["pyarrow_table"])
    if args.synthetic:
        import bench

        frames["synthetic_2M"] = bench.make_sessions(2_000_000).to_pandas(types_mapper=pd.ArrowDtype)
        frames["distinct_lists_1M"] = distinct_lists(1_000_000).to_pandas(types_mapper=pd.ArrowDtype)
    print(json.dumps({"sessions": n, "serpsim": serpsim.__version__ if hasattr(serpsim, "__version__") else "?", "pandas": pd.__version__, "pyarrow": pa.__version__}))
    reference = None
    for name, frame in frames.items():
        if name in args.skip:
            continue
        calls = 1 if name == "numpy_object" else args.calls
        wall, cpu, model = time_calls(frame, calls)
        rows = len(frame)
        row = {"layout": name, "sessions": rows, "calls": calls, "wall_s": round(wall, 4), "cpu_s": round(cpu, 4)}
        row.update({"M_sessions_per_s_wall": round(rows / wall / 1e6, 2), "M_sessions_per_s_cpu": round(rows / cpu / 1e6, 2)})
        if rows == n:
            ll = model.log_likelihood(base)
            if reference is None:
                reference = ll
            row.update({"log_likelihood_on_sample": ll, "same_as_first": ll == reference})
        print(json.dumps(row), flush=True)
    # The fit alone, on the log already read (what the CLI's `cargo bench` figure measures).
    from serpsim import _serpsim

    arrow = serpsim._tables.to_arrow(frames["pyarrow_table"], "log")
    job = _serpsim.fit_table(arrow, "sdbn")  # reads (interns) the table here
    t, c = time.perf_counter(), time.process_time()
    job.result()
    print(json.dumps({"layout": "fit_only", "wall_s": round(time.perf_counter() - t, 4), "cpu_s": round(time.process_time() - c, 4)}))
    print("after:", uptime())


if __name__ == "__main__":
    main()
