#!/usr/bin/env bash
# The default scenario (simulations/default.toml, embedded in the binary with the project's own
# collection) run on trec_eval's real test qrels and run instead: the same profiles and
# settings, the collection pointed at $DATA. It runs, names the run and the ideal ranking,
# counts the qrels' topics (awk), states the few-topics caveat, stays under 1 MB, and gives
# byte-identical tables with 1 and 2 threads.
set -euo pipefail
need trec/qrels.test trec/results.test
q="$DATA/trec/qrels.test"
r="$DATA/trec/results.test"
topics=$(awk '{ print $1 }' "$q" | sort -u | wc -l)
sed -e "s#^qrels = \"embedded\"#qrels = \"$q\"#" -e "s#^runs = \[\"embedded\"\]#runs = [\"$r\"]#" \
  simulations/default.toml > "$WORK/default_real.toml"
grep -q "^qrels = \"$q\"" "$WORK/default_real.toml" && grep -q "^runs = \[\"$r\"\]" "$WORK/default_real.toml"
for t in 1 2; do
  "$SERPSIM" simulate "$WORK/default_real.toml" --replicates 2000 --threads "$t" --out "$WORK/default_real_$t" > "$WORK/default_real_$t.txt" 2>&1
done
a="$WORK/default_real_1"
grep -q "default: $topics topics x 2000 simulated users" "$a/answer.txt"
grep -q 'STANDARD vs ideal' "$a/answer.txt"
if [ "$topics" -lt 10 ]; then grep -q "only $topics topics" "$a/answer.txt"; fi
grep -q '^STANDARD,patient,gain,' "$a/pooled.csv" && grep -q '^ideal,patient,gain,' "$a/pooled.csv"
size=$(du -sk "$a" | cut -f1)
test "$size" -lt 1024 || { echo "default run on the real files writes ${size} KB" >&2; exit 1; }
for f in answer.txt verdict.csv comparison.csv tests.csv pooled.csv gain_curves.csv budgets.csv budget_comparison.csv summary.json; do
  cmp "$a/$f" "$WORK/default_real_2/$f" || { echo "$f differs between 1 and 2 threads" >&2; exit 1; }
done
