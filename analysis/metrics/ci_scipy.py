"""scipy.stats.bootstrap reference intervals for `serpsim eval --ci`.

Per-topic values come from trec_eval 10 itself (tests/fixtures/trec_eval/out/, printed with
4 decimals): the bundled synthetic pair of runs over 50 graded topics
(tests/fixtures/trec_eval/run.synth_a.gz and run.synth_b against qrels.synth.zst, written by
analysis/metrics/make_trec_fixtures.py), run A in out/all_trec_q_synth_a.txt and run B in
out/all_trec_q_synth_b.txt.

For each measure: the 95 % interval of A's mean (percentile and BCa), and of the mean of the
paired differences A - B (one-sample on the differences, which is what scipy's paired
bootstrap of mean(x - y) does) where they are not all 0. 10,000 resamples, seed 20260523 for numpy's default_rng.

Writes tests/fixtures/metrics_ci/scipy_bootstrap.json.

Usage (repository root; scipy is NOT needed by the tests):
    pip install scipy==1.17.1 && python3 analysis/metrics/ci_scipy.py
"""
import json
import os

import numpy as np
import scipy
from scipy import stats

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
OUT_A = os.path.join(ROOT, "tests/fixtures/trec_eval/out/all_trec_q_synth_a.txt")
OUT_B = os.path.join(ROOT, "tests/fixtures/trec_eval/out/all_trec_q_synth_b.txt")
MEASURES = ["map", "P_10", "ndcg_cut_10", "ndcg", "recip_rank", "bpref", "Rprec", "infAP"]
RESAMPLES = 10_000
LEVEL = 0.95
SEED = 20260523


def per_topic(path):
    values = {}
    for line in open(path):
        name, topic, value = line.rstrip("\n").split("\t")
        name = name.strip()
        if topic != "all" and name in MEASURES:
            values.setdefault(name, {})[topic] = float(value)
    return values


def interval(x, method, rng):
    res = stats.bootstrap((np.asarray(x),), np.mean, n_resamples=RESAMPLES, confidence_level=LEVEL,
                          method=method, rng=rng)
    return [float(res.confidence_interval.low), float(res.confidence_interval.high)], float(res.standard_error)


def main():
    a, b = per_topic(OUT_A), per_topic(OUT_B)
    rng = np.random.default_rng(SEED)
    cases = []
    for m in MEASURES:
        topics = sorted(a[m])
        assert topics == sorted(b[m]), m
        x = [a[m][t] for t in topics]
        d = [a[m][t] - b[m][t] for t in topics]
        for kind, values in (("mean", x), ("difference", d)):
            if not any(values):
                # Nothing to bootstrap (all values equal to 0).
                continue
            case = {"measure": m, "kind": kind, "topics": topics, "values": values}
            for method in ("percentile", "BCa"):
                ci, se = interval(values, method, rng)
                case[method.lower()] = ci
                case["standard_error_" + method.lower()] = se
            cases.append(case)
    doc = {
        "source": "trec_eval 10.0 per-topic values, tests/fixtures/trec_eval/out/all_trec_q_synth_{a,b}.txt",
        "command": "python3 analysis/metrics/ci_scipy.py",
        "scipy": scipy.__version__,
        "numpy": np.__version__,
        "call": "scipy.stats.bootstrap((x,), np.mean, n_resamples=10000, confidence_level=0.95, method=M, rng=np.random.default_rng(20260523) shared in order)",
        "resamples": RESAMPLES,
        "level": LEVEL,
        "seed": SEED,
        "cases": cases,
    }
    path = os.path.join(ROOT, "tests/fixtures/metrics_ci/scipy_bootstrap.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {path}: {len(cases)} cases, scipy {scipy.__version__}")


if __name__ == "__main__":
    main()
