"""Independent computation of the verdict's gain interval on the bundled 50-topic scenario.

Reads every simulated session (samples.csv), pairs the two systems' sessions by topic, profile
and user, and computes for each profile, with NumPy and SciPy only (no serpsim code):
  - the per-topic mean difference of gain (good - poor) and the t interval of their mean over
    topics (scipy.stats.t), the P(mean > 0) of the t posterior and the paired t test p-value;
  - a two-stage bootstrap (topics with replacement, then users with replacement within each
    drawn topic; 4,000 resamples, percentile 2.5 / 97.5 %), the same population sampled again.

Command (serpsim at the commit that captured the fixture; NumPy 2.x, SciPy 1.17.1):
  serpsim simulate simulations/synthetic.toml --replicates 200 --seed 7 --samples --out /tmp/syn
  python3 analysis/stats/synthetic_interval.py /tmp/syn/samples.csv > tests/fixtures/simulate/synthetic_interval.json
"""
import csv
import json
import sys

import numpy as np
import scipy
from scipy import stats

rows = list(csv.DictReader(open(sys.argv[1])))
out = {"scipy": scipy.__version__, "numpy": np.__version__, "replicates": 200, "seed": 7, "profiles": {}}
for profile in sorted({r["profile"] for r in rows}):
    by = {}
    for r in rows:
        if r["profile"] == profile:
            by[(r["topic"], int(r["user"]), r["system"])] = float(r["gain"])
    topics = sorted({k[0] for k in by})
    users = sorted({k[1] for k in by})
    diff = np.array([[by[(t, u, "good")] - by[(t, u, "poor")] for u in users] for t in topics])
    d_t = diff.mean(axis=1)
    T = len(d_t)
    m, se = d_t.mean(), d_t.std(ddof=1) / np.sqrt(T)
    lo, hi = stats.t.interval(0.95, T - 1, loc=m, scale=se)
    tt = stats.ttest_1samp(d_t, 0.0)
    rng = np.random.default_rng(26)
    boot = np.empty(4000)
    for b in range(4000):
        ts = rng.integers(0, T, T)
        us = rng.integers(0, diff.shape[1], (T, diff.shape[1]))
        boot[b] = diff[ts[:, None], us].mean()
    out["profiles"][profile] = {
        "topics": T,
        "mean": m,
        "t_lo": lo,
        "t_hi": hi,
        "p_positive": float(stats.t.cdf(m / se, T - 1)),
        "p_value": float(tt.pvalue),
        "boot_lo": float(np.percentile(boot, 2.5)),
        "boot_hi": float(np.percentile(boot, 97.5)),
    }
json.dump(out, sys.stdout, indent=1)
print()
