#!/usr/bin/env bash
# Counterfactual validation on held-out orderings of the public Yandex sample (docs/validation.md).
# Reads the real file in place (../shared/data, or SERPSIM_DATA); writes the tables to a scratch
# folder (default /tmp/serpsim-validation-orderings) and prints the answer. Nothing it writes is
# committed: the numbers in docs/validation.md were copied from its output.
#   usage: analysis/validation/orderings.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA="${SERPSIM_DATA:-$(cd .. && pwd)/shared/data}"
OUT="${1:-/tmp/serpsim-validation-orderings}"
SERPSIM="${SERPSIM:-${CARGO_TARGET_DIR:-target}/release/serpsim}"
rm -rf "$OUT"
uptime
/usr/bin/time -f "wall %e s, user %U s, max RSS %M KB" \
  "$SERPSIM" --quiet clicks validate --split orderings --model all --folds 5 \
  --train "$DATA/clicks/yandex_sample_train.txt" --bootstrap 1000 --validate-seed 1 --out "$OUT"
echo
echo "== errors on held-out orderings (session-weighted mean absolute error; interval over orderings)"
column -s, -t < "$OUT/errors.csv"
echo
echo "== ordering pairs"
column -s, -t < "$OUT/pairs.csv"
