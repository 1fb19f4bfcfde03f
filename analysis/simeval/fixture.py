"""Independent values for src/stats/simeval.rs::tests (SimEval-IR's distributional measures).

Writes tests/fixtures/stats/simeval.json from project-made samples (hand-written ones and ones
drawn from seeded NumPy generators, rounded to 6 significant digits before use):

- "ks": SciPy's scipy.stats.ks_2samp(x, y) (default method='auto': exact p-values up to
  10 000 values per sample, otherwise asymptotic) -> statistic, pvalue; for the cases above
  10 000 also scipy.stats.kstwobign.sf(sqrt(n*m/(n+m)) * D), the limiting distribution serpsim
  uses there. Large integer samples are stored as value counts.
- "jsd": Jensen-Shannon distances of histogram pairs, by scipy.spatial.distance.jensenshannon
  (natural log) and by the hand-written jsd() below (no SciPy), raw and with SimEval-IR's
  smoothing (+1e-10 per normalised cell, renormalised).
- "sessions": SERP sessions (click ranks and click times) on a real and a simulated side, with
  the four measures computed here the way SimEval-IR's metrics compute them on
  InteractionSession lists (jsd_click_depth: histogram of click ranks capped at 20, bins
  1..21, density, +1e-10, jensenshannon; session_length_distribution: ks_2samp on events per
  session; timing_distribution: ks_2samp on positive gaps between sorted event timestamps;
  jsd_action_types: counts of event types, +1e-10, jensenshannon), re-implemented here from
  their published definitions (the query_issued event at time 0, one click event per click).

Run from the repository root: python3 analysis/simeval/fixture.py
"""
import json
import math

import numpy as np
import scipy
from scipy.spatial.distance import jensenshannon
from scipy.stats import ks_2samp, kstwobign

COMMAND = "python3 analysis/simeval/fixture.py"
OUT = "tests/fixtures/stats/simeval.json"


def r6(a):
    return [float("%.6g" % x) for x in a]


def counts_of(a):
    v, c = np.unique(np.asarray(a), return_counts=True)
    return [[float(x), int(k)] for x, k in zip(v, c)]


def ks_cases():
    rng = np.random.default_rng(20261127)
    cases = [
        ("hand_disjoint", [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]),
        ("hand_ties", [1.0, 1.0, 2.0, 2.0, 3.0], [1.0, 2.0, 2.0, 4.0]),
        ("equal_n_normal", r6(rng.normal(0, 1, 50)), r6(rng.normal(0.3, 1, 50))),
        ("unequal_n_normal", r6(rng.normal(0, 1, 37)), r6(rng.normal(0.2, 1.3, 81))),
        ("lengths_ties", [float(x) for x in 1 + rng.geometric(0.5, 200)], [float(x) for x in 1 + rng.geometric(0.45, 350)]),
        ("tiny_p", r6(rng.normal(0, 1, 300)), r6(rng.normal(1.5, 1, 300))),
        ("large_exact", r6(rng.exponential(1.0, 2000)), r6(rng.exponential(1.1, 3001))),
        ("coprime_sizes", r6(rng.uniform(0, 1, 97)), r6(rng.uniform(0.05, 1.05, 101))),
    ]
    out = []
    for name, x, y in cases:
        r = ks_2samp(x, y)
        out.append({"name": name, "x": x, "y": y, "statistic": float(r.statistic), "pvalue": float(r.pvalue)})
    # Above 10 000 values: integer samples stored as counts.
    for name, n, m, px, py in [("asymp_lengths", 12000, 15000, 0.50, 0.48), ("asymp_equal", 20000, 20000, 0.40, 0.40)]:
        x = 1 + rng.geometric(px, n)
        y = 1 + rng.geometric(py, m)
        r = ks_2samp(x, y)
        en = n * m / (n + m)
        out.append({
            "name": name, "x_counts": counts_of(x), "y_counts": counts_of(y),
            "statistic": float(r.statistic), "pvalue": float(r.pvalue),
            "kstwobign_pvalue": float(kstwobign.sf(math.sqrt(en) * r.statistic)),
        })
    return out


def jsd(p, q):
    """Hand-written Jensen-Shannon distance, natural log, no SciPy."""
    sp, sq = sum(p), sum(q)
    p = [a / sp for a in p]
    q = [b / sq for b in q]
    total = 0.0
    for a, b in zip(p, q):
        m = (a + b) / 2
        if a > 0:
            total += 0.5 * a * math.log(a / m)
        if b > 0:
            total += 0.5 * b * math.log(b / m)
    return math.sqrt(max(total, 0.0))


def smooth(p):
    p = np.asarray(p, dtype=float)
    p = p / p.sum() + 1e-10
    return p / p.sum()


def jsd_cases():
    rng = np.random.default_rng(7)
    pairs = [
        ("disjoint", [1, 0], [0, 1]),
        ("equal", [3, 1, 2], [6, 2, 4]),
        ("hand", [10, 5, 0, 1], [4, 4, 4, 4]),
        ("zeros_both", [5, 0, 0, 2, 0], [0, 0, 3, 2, 0]),
    ]
    for k in range(3):
        p = rng.integers(0, 20, 12)
        q = rng.integers(0, 20, 12)
        p[rng.integers(0, 12)] = 0
        pairs.append(("seeded_%d" % k, [int(a) for a in p], [int(b) for b in q]))
    out = []
    for name, p, q in pairs:
        out.append({
            "name": name, "p": p, "q": q,
            "scipy": float(jensenshannon(np.asarray(p, float) / sum(p), np.asarray(q, float) / sum(q))),
            "hand": jsd(p, q),
            "scipy_smoothed": float(jensenshannon(smooth(p), smooth(q))),
            "hand_smoothed": jsd(list(smooth(p)), list(smooth(q))),
        })
    return out


def sessions(rng, n, p_click, max_rank, timed, slow):
    out = []
    for _ in range(n):
        ranks = [r for r in range(1, max_rank + 1) if rng.uniform() < p_click / r ** 0.5]
        times = None
        if timed:
            t, times = 0.0, []
            for _ in ranks:
                t += float("%.6g" % rng.exponential(slow))
                times.append(t)
        out.append({"ranks": ranks, "times": times})
    return out


def measures(real, sim):
    def depths(ss):
        return [r for s in ss for r in s["ranks"]]

    bins = list(range(1, 22))
    hr, _ = np.histogram([min(d, 20) for d in depths(real)], bins=bins, density=True)
    hs, _ = np.histogram([min(d, 20) for d in depths(sim)], bins=bins, density=True)
    depth = float(jensenshannon(smooth(hr), smooth(hs)))
    lr = [1 + len(s["ranks"]) for s in real]
    ls = [1 + len(s["ranks"]) for s in sim]
    length = ks_2samp(lr, ls)

    def gaps(ss):
        g = []
        for s in ss:
            ts = sorted([0.0] + s["times"])
            g += [b - a for a, b in zip(ts, ts[1:]) if b - a > 0]
        return g

    timing = ks_2samp(gaps(real), gaps(sim))

    def types(ss):
        return [len(ss), sum(len(s["ranks"]) for s in ss)]  # query_issued, click

    action = float(jensenshannon(smooth(types(real)), smooth(types(sim))))
    return {
        "click_depth_distance": depth,
        "session_length_ks": [float(length.statistic), float(length.pvalue)],
        "inter_event_time_ks": [float(timing.statistic), float(timing.pvalue)],
        "action_type_distance": action,
    }


def session_cases():
    rng = np.random.default_rng(99)
    out = []
    for name, (nr, pr, sr), (ns, ps, ss) in [
        ("alike", (400, 0.5, 10.0), (700, 0.5, 10.0)),
        ("different", (300, 0.6, 8.0), (900, 0.35, 15.0)),
        ("deep_lists", (250, 0.9, 5.0), (250, 0.7, 5.0)),
    ]:
        real = sessions(rng, nr, pr, 30, True, sr)
        sim = sessions(rng, ns, ps, 30, True, ss)
        out.append({"name": name, "real": real, "simulated": sim, "measures": measures(real, sim)})
    return out


def main():
    doc = {
        "source": "scipy.stats.ks_2samp, scipy.stats.kstwobign, scipy.spatial.distance.jensenshannon, hand-written jsd()",
        "scipy": scipy.__version__,
        "numpy": np.__version__,
        "command": COMMAND,
        "ks": ks_cases(),
        "jsd": jsd_cases(),
        "sessions": session_cases(),
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
