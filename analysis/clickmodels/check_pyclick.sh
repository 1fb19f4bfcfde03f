#!/usr/bin/env bash
# Checks `serpsim clicks eval` against the numbers PyClick gives on the Yandex sample
# (75/25 protocol: 26,298 train and 7,167 test sessions). Tolerance 1e-6 absolute
# (PyClick's numbers are rounded to 6 decimals).
# The real sample is read in place (${SERPSIM_DATA:-../shared/data}); the numbers are PyClick's
# on it (`analysis/clickmodels/pyclick_reference.py`, PyClick commit 98e7e46). The conformance
# suite runs the same check (scripts/conformance.d/60-pyclick-yandex.sh).
# Usage: analysis/clickmodels/check_pyclick.sh [path/to/serpsim] [path/to/yandex_sample_train.txt]
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-target/release/serpsim}
LOG=${2:-${SERPSIM_DATA:-../shared/data}/clicks/yandex_sample_train.txt}
[ -x "$BIN" ] || cargo build --release --quiet
status=0
for m in cm sdbn dcm; do
  out=$("$BIN" clicks eval --model "$m" --train "$LOG")
  echo "$out"
  python3 - "$m" "$out" <<'PY' || status=1
import json, sys
m, out = sys.argv[1], json.loads(sys.argv[2])
pyclick = {  # PyClick (markovi/PyClick), Example.py protocol on yandex_sample_train.txt
    "cm":   {"log_likelihood": -6.070741, "perplexity": 1.350236},
    "sdbn": {"log_likelihood": -0.285353, "perplexity": 1.325411,
             "perplexity_at_rank": [1.440778, 1.688340, 1.479836, 1.566154, 1.280601,
                                    1.214684, 1.178651, 1.149303, 1.145555, 1.110206]},
    "dcm":  {"log_likelihood": -0.282570, "perplexity": 1.326685},
}[m]
ok = out["train_sessions"] == 26298 and out["test_sessions"] == 7167
if not ok:
    print(f"{m}: sessions {out['train_sessions']}/{out['test_sessions']}, expected 26298/7167")
for k, want in pyclick.items():
    got = out[k]
    pairs = list(zip(got, want)) if isinstance(want, list) else [(got, want)]
    for i, (g, w) in enumerate(pairs):
        good = abs(g - w) <= 1e-6
        ok &= good
        label = f"{k}[{i + 1}]" if isinstance(want, list) else k
        print(f"{m:5s} {label:22s} serpsim {g:.6f}  PyClick {w:.6f}  {'ok' if good else 'MISS'}")
sys.exit(0 if ok else 1)
PY
done
[ $status -eq 0 ] && echo "all PyClick numbers matched within 1e-6" || echo "MISMATCH"
exit $status
