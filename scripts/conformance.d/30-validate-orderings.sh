#!/usr/bin/env bash
# Counterfactual validation on the real Yandex sample (docs/validation.md): every model and both
# baselines on held-out orderings, and BARACO's switch decisions against real outcomes.
set -euo pipefail
need clicks/yandex_sample_train.txt
LOG="$DATA/clicks/yandex_sample_train.txt"
"$SERPSIM" --quiet clicks validate --split orderings --model all --train "$LOG" --out "$WORK/orderings" > "$WORK/orderings.txt"
grep -q '^Held-out per-rank click rates' "$WORK/orderings.txt"
python3 - "$WORK/orderings" <<'PY'
import csv, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/errors.csv")))
models = {"cm", "dcm", "ccm", "dbn", "sdbn", "ubm", "pbm", "gctr", "rctr", "dctr"}
assert {r["model"] for r in rows} == models, rows
assert len(rows) == 50, len(rows)
for r in rows:
    e, lo, hi = float(r["error_over_orderings"]), float(r["error_lower"]), float(r["error_upper"])
    assert 0 <= lo <= hi and e >= 0, r
    assert (r["role"] == "baseline") == (r["model"] in ("rctr", "dctr")), r
pairs = list(csv.DictReader(open(f"{d}/pairs.csv")))
assert len(pairs) == 30 and all(int(p["pairs"]) > 0 for p in pairs), pairs
PY
"$SERPSIM" --quiet clicks validate-switches --train "$LOG" --min-sessions 200 --samples 200 --out "$WORK/switches" > "$WORK/switches.txt"
python3 - "$WORK/switches" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(f"{sys.argv[1]}/summary.csv")))
assert [r["method"] for r in rows] == ["baraco", "em_plugin", "mt"], rows
assert all(int(r["ordered_pairs"]) > 0 for r in rows), rows
PY
