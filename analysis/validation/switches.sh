#!/usr/bin/env bash
# Ranker-switch safety on real outcomes (docs/validation.md): BARACO, the EM plug-in and MT decide
# between two logged orderings of a query of the public Yandex sample from the production
# ordering's sessions (and, cross-fitted, the other queries); each decision is checked against
# the candidate's real sessions. Runs the calibrated default on the three metrics and Grotov et
# al.'s settings (--paper, the numbers before issue 39).
# Reads the real file in place (../shared/data, or SERPSIM_DATA); writes to a scratch folder
# (default /tmp/serpsim-validation-switches). Nothing it writes is committed.
#   usage: analysis/validation/switches.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA="${SERPSIM_DATA:-$(cd .. && pwd)/shared/data}"
OUT="${1:-/tmp/serpsim-validation-switches}"
SERPSIM="${SERPSIM:-${CARGO_TARGET_DIR:-target}/release/serpsim}"
rm -rf "$OUT"
mkdir -p "$OUT"
uptime
run() {
  local name=$1
  shift
  /usr/bin/time -f "$name: wall %e s, user %U s" \
    "$SERPSIM" --quiet clicks validate-switches --train "$DATA/clicks/yandex_sample_train.txt" \
    --min-sessions 50 --epsilon 0.01 --delta 0.05 --samples 1000 --seed 1 --out "$OUT/$name" "$@" > "$OUT/$name.txt"
}
run paper --paper
run first-click-rr --metric first-click-rr
run top-clicks --metric top-clicks
run abandonment --metric abandonment
uptime
python3 - "$OUT" <<'PY'
import csv, sys
out = sys.argv[1]
def pct(x):
    return "" if x == "" else f"{100 * float(x):.1f}"
for name in ("paper", "first-click-rr", "top-clicks", "abandonment"):
    rows = list(csv.DictReader(open(f"{out}/{name}/summary.csv")))
    d = list(csv.DictReader(open(f"{out}/{name}/decisions.csv")))
    classes = {c: sum(r["real_outcome"] == c for r in d) for c in ("clearly_worse", "unclear", "clearly_not_worse")}
    print(f"== {name}: {len(d)} ordered pairs of {len({r['query'] for r in d})} queries; real outcomes {classes}")
    print("method | switches | cannot tell | unsafe % of switches | clearly unsafe % of switches | switched % of clearly safe | agreement | AUC | Brier")
    for r in rows:
        def tri(k, lo, hi, f=pct):
            return f"{f(r[k])} [{f(r[lo])}, {f(r[hi])}]" if r[k] != "" else "n/a"
        num = lambda x: "" if x == "" else f"{float(x):.3f}"
        print(" | ".join([
            r["method"], r["switches"], r["cannot_tell"],
            f"{r['unsafe_switches']}: " + tri("unsafe_share_of_switches", "unsafe_share_lower_over_queries", "unsafe_share_upper_over_queries"),
            f"{r['clearly_unsafe_switches']}: " + tri("clearly_unsafe_share_of_switches", "clearly_unsafe_share_lower_over_queries", "clearly_unsafe_share_upper_over_queries"),
            f"{r['clearly_safe_switches']}: " + tri("switch_share_of_clearly_safe", "switch_share_of_clearly_safe_lower_over_queries", "switch_share_of_clearly_safe_upper_over_queries"),
            tri("agreement_over_pairs", "agreement_lower_over_queries", "agreement_upper_over_queries", num),
            tri("auc_p_safe", "auc_lower_over_queries", "auc_upper_over_queries", num),
            tri("brier_p_safe", "brier_lower_over_queries", "brier_upper_over_queries", num),
        ]))
PY
