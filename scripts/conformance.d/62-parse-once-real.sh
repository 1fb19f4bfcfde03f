#!/usr/bin/env bash
# Parse once (issue 28) on the real Yandex sample repeated 5 times: the streamed fit that keeps
# its sessions in memory, the one that spills them all (--memory-budget 0) and the in-memory
# fit give the same model file at --threads 1 and 2, for DBN and UBM; no spill file is left in
# TMPDIR; `clicks eval` gives the same JSON spilled or kept; `clicks convert` writes the same
# bytes at --threads 1 and 2.
set -euo pipefail
need clicks/yandex_sample_train.txt
log="$WORK/yandex_x5.txt"
for _ in 1 2 3 4 5; do cat "$DATA/clicks/yandex_sample_train.txt"; done > "$log"
tmp="$WORK/tmpdir"
mkdir -p "$tmp"
for model in dbn ubm; do
  "$SERPSIM" clicks fit --quiet --model "$model" --in-memory --threads 1 --train "$log" --out "$WORK/$model-mem.json" >/dev/null
  for t in 1 2; do
    for budget in 1G 0; do
      TMPDIR="$tmp" "$SERPSIM" clicks fit --quiet --model "$model" --threads "$t" --memory-budget "$budget" --train "$log" --out "$WORK/$model-$t-$budget.json" >/dev/null
      cmp "$WORK/$model-mem.json" "$WORK/$model-$t-$budget.json"
    done
  done
done
TMPDIR="$tmp" "$SERPSIM" clicks eval --model dbn --memory-budget 0 --train "$log" > "$WORK/eval-spill.json"
"$SERPSIM" clicks eval --model dbn --memory-budget 1G --train "$log" > "$WORK/eval-mem.json"
cmp "$WORK/eval-spill.json" "$WORK/eval-mem.json"
test -z "$(ls -A "$tmp")"
for t in 1 2; do
  "$SERPSIM" clicks convert --quiet --format yandex --threads "$t" --in "$log" --out "$WORK/conv-$t.tsv" >/dev/null
done
cmp "$WORK/conv-1.tsv" "$WORK/conv-2.tsv"
