#!/usr/bin/env bash
# clicks validate for every model on the real Yandex sample (read in place from
# ${SERPSIM_DATA:-../shared/data}; never copied here), then one table. The output sets hold
# per-query values of the real log, so they go to a scratch folder, not into the repository.
# Split: --split interleaved (every fourth session tests). The sample is sorted by query, so
# the 75/25 file-order split of `clicks eval` leaves a single query in the test part, too few
# for the system-level check. One output set per model under $OUT/<model>/ (distances.csv,
# system.csv, validation.json, validation.svg); the table goes to stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release/serpsim}
OUT=${1:-/tmp/serpsim-validate-models}
LOG=${SERPSIM_DATA:-../shared/data}/clicks/yandex_sample_train.txt
MODELS="gctr rctr dctr cm dcm sdbn pbm ubm ccm dbn"
for m in $MODELS; do
  "$BIN" --quiet clicks validate --model "$m" --train "$LOG" --split interleaved --out "$OUT/$m" \
    --bootstrap 200 --validate-seed 1 > /dev/null
done
python3 - "$OUT" $MODELS <<'PY'
import json, sys
out, models = sys.argv[1], sys.argv[2:]
rows = []
for m in models:
    o = json.load(open(f"{out}/{m}/validation.json"))
    d = {x["measure"]: x for x in o["measures"]}
    tau = {c["metric"]: c["kendall_tau"] for c in o["system"]}
    rows.append((m, o, d, tau))
o = rows[0][1]
print(f"test sessions {o['test_sessions']}, simulated {o['simulated_sessions']} ({o['replicates']} per test session), "
      f"bootstrap {o['bootstrap']}, intervals {o['level']:.0%}; system check: {o['system_queries']} queries, {o['system_rankers']} rankers\n")
meas = ["click_rank", "clicks_per_session", "first_click_rank", "last_click_rank", "abandonment"]
print("| model | perplexity | log-likelihood | " + " | ".join(f"TV {x}" for x in meas) + " | mean TV | KS click_rank | τ first-click RR | τ clicks | τ click-through |")
print("|---|---|---|" + "---|" * len(meas) + "---|---|---|---|---|")
for m, o, d, tau in rows:
    tv = [d[x]["tv"] for x in meas]
    cells = [f"{d[x]['tv']:.3f} [{d[x]['tv_lower']:.3f}, {d[x]['tv_upper']:.3f}]" for x in meas]
    print(f"| {m} | {o['perplexity']:.4f} | {o['log_likelihood']:.4f} | " + " | ".join(cells) +
          f" | {sum(tv)/len(tv):.3f} | {d['click_rank']['ks']:.3f} | {tau.get('first_click_rr', float('nan')):.3f} | {tau.get('clicks', float('nan')):.3f} | {tau.get('click_through', float('nan')):.3f} |")
print()
print("| model | real/simulated mean click rank | clicks per session | first click rank | last click rank | abandonment |")
print("|---|---|---|---|---|---|")
for m, o, d, tau in rows:
    print(f"| {m} | " + " | ".join(f"{d[x]['real']:.3f} / {d[x]['simulated']:.3f}" for x in meas) + " |")
PY
