"""Independent statsmodels values for src/stats/multitest.rs::tests::matches_statsmodels_multipletests.

Writes tests/fixtures/stats/multitest.json: project-made p-value vectors (hand-written ones and
one drawn from a seeded NumPy generator) with their Holm and Benjamini-Hochberg adjusted
p-values from statsmodels.stats.multitest.multipletests(p, method="holm" / "fdr_bh").

Run from the repository root: python3 analysis/stats/multitest_fixture.py
"""
import json

import numpy as np
import statsmodels
from statsmodels.stats.multitest import multipletests

COMMAND = "python3 analysis/stats/multitest_fixture.py"


def seeded_sweep_sized():
    """78 profiles compared pairwise: 78*77/2 = 3003 p-values. A mix of null tests
    (uniform), real effects (p concentrated near 0) and exact 1.0s, rounded to 6 significant
    digits (the rounding creates ties, which the adjustment must handle)."""
    rng = np.random.default_rng(20260026)
    n = 78 * 77 // 2
    kind = rng.integers(0, 10, size=n)
    p = np.where(kind < 6, rng.uniform(size=n), rng.beta(0.2, 8.0, size=n))
    p[kind == 9] = 1.0
    return [float("%.6g" % x) for x in p]


CASES = [
    ("single", [0.03]),
    ("single_one", [1.0]),
    ("hand", [0.01, 0.04, 0.03, 0.5]),
    ("ties", [0.02, 0.02, 0.02, 0.001, 0.04, 0.04, 0.5, 0.02]),
    ("ones", [1.0, 0.3, 1.0, 0.6, 1.0]),
    ("tiny", [1e-300, 5e-17, 3e-12, 0.0, 0.2, 2e-8, 0.049, 0.051]),
    ("all_equal", [0.2] * 6),
    ("sweep_sized_seeded", seeded_sweep_sized()),
]


def main():
    out = {
        "source": "statsmodels.stats.multitest.multipletests",
        "statsmodels": statsmodels.__version__,
        "numpy": np.__version__,
        "command": COMMAND,
        "cases": [],
    }
    for name, p in CASES:
        arr = np.array(p, dtype=float)
        case = {"name": name, "p": p}
        for method in ("holm", "fdr_bh"):
            _, adj, _, _ = multipletests(arr, method=method)
            case[method] = [float(x) for x in adj]
        out["cases"].append(case)
    path = "tests/fixtures/stats/multitest.json"
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(path, "statsmodels", statsmodels.__version__, "cases", len(CASES))


if __name__ == "__main__":
    main()
