#!/usr/bin/env bash
# PyClick parity on the real Yandex sample (the unit tests compare with PyClick on the
# project-made study_logs/clicks/synthetic_yandex_layout.txt instead). CM, SDBN and DCM with
# PyClick's Example.py protocol (first 75 % of sessions train, the rest restricted to training
# queries test) must give PyClick's log-likelihood and perplexities to 1e-6.
#
# Expected values: PyClick (markovi/PyClick commit 98e7e460231b2b607bf58b2f16a4fd1124cee042,
# Python 3.11.7), printed to 6 decimals by
#   PYCLICK=/path/to/PyClick python3 analysis/clickmodels/pyclick_reference.py \
#     ../shared/data/clicks/yandex_sample_train.txt CM SDBN DCM
# Only these aggregate numbers are kept; PyClick itself is not run here.
# Counts (35,064 sessions; 20 queries, all with two or more of the 951 orderings): 
#   python3 analysis/validation/count_orderings.py ../shared/data/clicks/yandex_sample_train.txt
set -euo pipefail
need clicks/yandex_sample_train.txt
LOG="$DATA/clicks/yandex_sample_train.txt"
for m in cm sdbn dcm; do
  "$SERPSIM" --quiet clicks eval --model "$m" --train "$LOG" > "$WORK/eval-$m.json"
done
python3 - "$WORK" <<'PY'
import json, sys
pyclick = {
    "cm": (-6.070741, 1.350236, [1.441938, 1.729528, 1.504858, 1.592187, 1.310798, 1.245926, 1.207372, 1.175507, 1.167231, 1.127018]),
    "sdbn": (-0.285353, 1.325411, [1.440778, 1.688340, 1.479836, 1.566154, 1.280601, 1.214684, 1.178651, 1.149303, 1.145555, 1.110206]),
    "dcm": (-0.282570, 1.326685, [1.440778, 1.688815, 1.482025, 1.566959, 1.282988, 1.215426, 1.180165, 1.150457, 1.147908, 1.111332]),
}
bad = []
for m, (ll, perp, at) in pyclick.items():
    got = json.load(open(f"{sys.argv[1]}/eval-{m}.json"))
    if (got["train_sessions"], got["test_sessions"]) != (26298, 7167):
        bad.append(f"{m}: split {got['train_sessions']}/{got['test_sessions']}, PyClick 26298/7167")
    pairs = [("log_likelihood", got["log_likelihood"], ll), ("perplexity", got["perplexity"], perp)]
    pairs += [(f"perplexity_at_rank[{r + 1}]", g, w) for r, (g, w) in enumerate(zip(got["perplexity_at_rank"], at))]
    if len(got["perplexity_at_rank"]) != 10:
        bad.append(f"{m}: {len(got['perplexity_at_rank'])} ranks")
    for name, g, w in pairs:
        # PyClick's numbers are rounded to 6 decimals (error at most 5e-7).
        if abs(g - w) > 1e-6:
            bad.append(f"{m} {name}: serpsim {g:.7f}, PyClick {w:.6f}")
if bad:
    sys.exit("PyClick parity on the Yandex sample failed:\n  " + "\n  ".join(bad))
PY
# Interleaved split: every fourth of the 35,064 sessions tests (8,766).
"$SERPSIM" --quiet clicks validate --model pbm --split interleaved --bootstrap 20 --train "$LOG" --out "$WORK/val" > "$WORK/val.json"
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); assert (v["train_sessions"], v["test_sessions"]) == (35064 - 8766, 8766), v' "$WORK/val.json"
# Held-out orderings: the counts of analysis/validation/count_orderings.py (above).
"$SERPSIM" --quiet clicks validate --split orderings --model sdbn,rctr,dctr --bootstrap 50 --replicates 100 --train "$LOG" --out "$WORK/ord" > "$WORK/ord.txt"
grep -q "951 held-out orderings of 20 queries (35064 sessions), 5 folds" "$WORK/ord.txt" || { cat "$WORK/ord.txt" >&2; exit 1; }
