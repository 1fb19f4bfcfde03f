"""statsmodels' adjusted p-values of a sessions sweep, for
tests/sessions_cli.rs::sweep_adjusted_p_values_equal_statsmodels.

Runs the sweep of tests/fixtures/sessions/multitest_sweep.toml with the serpsim binary, reads
the raw p-values (column `p_value`) of its tests.csv as written, adjusts them with
statsmodels.stats.multitest.multipletests (methods "holm" and "fdr_bh", the family being every
row of the file) and writes tests/fixtures/stats/sweep_multitest.json.

Run from the repository root, after `cargo build --release`:
    python3 analysis/stats/sweep_multitest_fixture.py [path/to/serpsim]
"""
import csv
import json
import subprocess
import sys
import tempfile

import numpy as np
import statsmodels
from statsmodels.stats.multitest import multipletests

SCENARIO = "tests/fixtures/sessions/multitest_sweep.toml"


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/serpsim"
    with tempfile.TemporaryDirectory() as out:
        cmd = [binary, "sessions", "sweep", SCENARIO, "--threads", "1", "--out", out]
        subprocess.run(cmd, check=True, capture_output=True)
        with open(f"{out}/tests.csv", newline="") as f:
            rows = list(csv.DictReader(f))
    raw_text = [r["p_value"] for r in rows]
    raw = np.array([float(x) for x in raw_text])
    fixture = {
        "source": "statsmodels.stats.multitest.multipletests on the p_value column of the sweep's tests.csv",
        "statsmodels": statsmodels.__version__,
        "command": "python3 analysis/stats/sweep_multitest_fixture.py  # runs: serpsim sessions sweep "
        + SCENARIO + " --threads 1 --out TMP",
        "rows": [[r["set"], r["a"], r["b"]] for r in rows],
        "p_value": raw_text,
        "holm": [float(x) for x in multipletests(raw, method="holm")[1]],
        "fdr_bh": [float(x) for x in multipletests(raw, method="fdr_bh")[1]],
    }
    path = "tests/fixtures/stats/sweep_multitest.json"
    with open(path, "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")
    print(path, len(rows), "comparisons; statsmodels", statsmodels.__version__)


if __name__ == "__main__":
    main()
