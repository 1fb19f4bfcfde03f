"""Issue 31 benchmark: 7 trec_eval measures through ir_measures, serpsim's measures (the
`serpsim` provider, one library call per run) against ir_measures' own default pipeline
(pytrec_eval), on a 100-topic x 1,000-document run (bench.py's collection: 100,000 run rows,
30,000 qrels rows). The whole call `ir_measures.calc_aggregate(measures, qrels, run)` from the
two DataFrames is timed; medians of the calls.

    python analysis/python_bench/bench_ir_measures.py [--repeat 5] > analysis/python_bench/results_ir_measures.txt

Needs serpsim (pip install ./python), ir-measures 0.4.3 and pytrec-eval-terrier. Prints the load
average before and after; the machine is shared, so read the numbers with it.
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench import make_collection  # noqa: E402

IRM = ["AP", "P@10", "nDCG@10", "nDCG", "RR", "R@100", "Rprec"]


def load():
    return open("/proc/loadavg").read().split()[:3]


def timeit(f, repeat):
    times, cpus, out = [], [], None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = f()
        times.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return statistics.median(times), statistics.median(cpus), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import ir_measures

    import serpsim

    serpsim.set_progress(False)
    qrels, run = make_collection()
    before = load()
    theirs = [ir_measures.parse_measure(m) for m in IRM]
    ours = [ir_measures.parse_measure("S_" + m) for m in IRM]
    # Which provider computes each list (ir_measures' default pipeline picks it).
    prov_theirs = type(ir_measures.DefaultPipeline.evaluator(theirs, qrels)).__module__
    prov_ours = type(ir_measures.DefaultPipeline.evaluator(ours, qrels)).__module__
    ir_measures.calc_aggregate(ours, qrels, run)  # warm-up (first import of pyarrow paths)
    w_s, c_s, v_s = timeit(lambda: ir_measures.calc_aggregate(ours, qrels, run), args.repeat)
    w_t, c_t, v_t = timeit(lambda: ir_measures.calc_aggregate(theirs, qrels, run), args.repeat)
    diffs = {m: abs(v_s[o] - v_t[t]) for m, o, t in zip(IRM, ours, theirs)}
    out = {
        "load_before": before,
        "load_after": load(),
        "repeat": args.repeat,
        "ir_measures": ir_measures.__version__,
        "serpsim_provider": prov_ours,
        "default_provider": prov_theirs,
        "serpsim_wall_s": w_s,
        "serpsim_cpu_s": c_s,
        "pytrec_eval_wall_s": w_t,
        "pytrec_eval_cpu_s": c_t,
        "speedup_wall": w_t / w_s,
        "speedup_cpu": c_t / c_s,
        "max_abs_difference": max(diffs.values()),
        "values_serpsim": {m: v_s[o] for m, o in zip(IRM, ours)},
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
