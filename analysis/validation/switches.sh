#!/usr/bin/env bash
# Ranker-switch safety on real outcomes (docs/validation.md): BARACO, the EM plug-in and MT decide
# between two logged orderings of a query of the public Yandex sample from the production
# ordering's sessions only; each decision is checked against the candidate's real sessions.
# Reads the real file in place (../shared/data, or SERPSIM_DATA); writes to a scratch folder
# (default /tmp/serpsim-validation-switches). Nothing it writes is committed.
#   usage: analysis/validation/switches.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA="${SERPSIM_DATA:-$(cd .. && pwd)/shared/data}"
OUT="${1:-/tmp/serpsim-validation-switches}"
SERPSIM="${SERPSIM:-${CARGO_TARGET_DIR:-target}/release/serpsim}"
rm -rf "$OUT"
uptime
/usr/bin/time -f "wall %e s, user %U s" \
  "$SERPSIM" --quiet clicks validate-switches --train "$DATA/clicks/yandex_sample_train.txt" \
  --min-sessions 50 --epsilon 0.01 --delta 0.05 --samples 1000 --seed 1 --out "$OUT"
python3 - "$OUT/decisions.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"{len(rows)} ordered pairs over {len({r['query'] for r in rows})} queries")
for cut in (1.0, 0.2):
    sub = [r for r in rows if float(r["unseen_share"]) <= cut]
    print(f"candidates with at most {cut:.0%} of their top 10 unseen in the production sessions: {len(sub)} pairs")
    for m in ("baraco", "em", "mt"):
        sw = [r for r in sub if r[f"{m}_switch"] == "true"]
        bad = [r for r in sw if float(r["real_first_click_rr_diff"]) < -0.01]
        miss = [r for r in sub if r[f"{m}_switch"] == "false" and float(r["real_first_click_rr_diff"]) >= -0.01]
        print(f"  {m:7s} switches {len(sw):5d}  unsafe {len(bad):5d}  missed safe {len(miss):5d}")
PY
