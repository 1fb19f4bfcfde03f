"""Times trec_eval (through pytrec_eval-terrier, which wraps trec_eval's C code), ir_measures and
the serpsim CLI on the files the Rust benchmark writes (target/metrics-bench/, 1,000 topics x
1,000 documents), with the same 10 measures, file parsing included.

Usage (from the repository root, after `cargo bench --bench metrics` has written the files and
`cargo build --release`):  python3 analysis/metrics/bench_peers.py
Prints the best and median of 5 wall-clock runs per tool.
"""
import statistics
import subprocess
import time

import ir_measures
import pytrec_eval

Q, R = "target/metrics-bench/qrels.txt", "target/metrics-bench/run.txt"
TREC = ["map", "P_5", "P_10", "recip_rank", "Rprec", "ndcg", "ndcg_cut_10", "recall_100", "map_cut_10", "ndcg_cut_20"]
IRM = [ir_measures.parse_measure(m) for m in
       ["AP", "P@5", "P@10", "RR", "Rprec", "nDCG", "nDCG@10", "R@100", "AP@10", "nDCG@20"]]


def trec_eval_via_pytrec_eval():
    with open(Q) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(R) as f:
        run = pytrec_eval.parse_run(f)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P", "recip_rank", "Rprec", "ndcg", "ndcg_cut", "recall", "map_cut"})
    res = ev.evaluate(run)
    return sum(v["map"] for v in res.values()) / len(res)


def trec_eval_core_only(qrels, run):
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P", "recip_rank", "Rprec", "ndcg", "ndcg_cut", "recall", "map_cut"})
    res = ev.evaluate(run)
    return sum(v["map"] for v in res.values()) / len(res)


def ir_measures_all():
    qrels = list(ir_measures.read_trec_qrels(Q))
    run = list(ir_measures.read_trec_run(R))
    return ir_measures.calc_aggregate(IRM, qrels, run)[IRM[0]]


def serpsim_cli():
    out = subprocess.run(["target/release/serpsim", "eval", Q, R, "-m", *TREC, "--skip-missing"],
                         check=True, capture_output=True, text=True).stdout
    return float([l for l in out.splitlines() if l.split(",")[1] == "map"][0].split(",")[3])


def timed(label, f, reps=5):
    times, value = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        value = f()
        times.append(time.perf_counter() - t0)
    print(f"{label:45s} best {min(times):7.3f} s  median {statistics.median(times):7.3f} s  (MAP {value:.6f})")
    return min(times)


if __name__ == "__main__":
    print("pytrec_eval", getattr(pytrec_eval, "__version__", "?"), "ir_measures", ir_measures.__version__)
    timed("serpsim eval (CLI, parse + 10 metrics)", serpsim_cli)
    timed("trec_eval via pytrec_eval (parse + evaluate)", trec_eval_via_pytrec_eval)
    with open(Q) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(R) as f:
        run = pytrec_eval.parse_run(f)
    timed("trec_eval via pytrec_eval (evaluate only)", lambda: trec_eval_core_only(qrels, run))
    timed("ir_measures (parse + evaluate)", ir_measures_all, reps=3)
