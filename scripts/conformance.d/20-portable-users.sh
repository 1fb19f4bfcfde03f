#!/usr/bin/env bash
# Portable users (issue 27): a DBN fitted with `serpsim clicks fit` on the public Yandex sample
# drives a scenario over the TREC collection of trec_eval's test files, which it does not cover,
# without editing the model file; the warning names the assumption that mapped attractiveness
# to grades (in the terminal and in summary.json), and without a stated choice the run is
# refused with an error that lists the choices.
set -euo pipefail
need clicks/yandex_sample_train.txt trec/qrels.test trec/results.test
"$SERPSIM" clicks fit --quiet --model dbn --train "$DATA/clicks/yandex_sample_train.txt" --out "$WORK/yandex-dbn.json" >/dev/null
sum_before=$(cksum < "$WORK/yandex-dbn.json")
scenario() {
  cat <<TOML
name = "portable-users"
seed = 1
replicates = 200
[collection]
source = "trec"
qrels = "$DATA/trec/qrels.test"
runs = ["$DATA/trec/results.test"]
[[profiles]]
name = "yandex-dbn"
click_model = { file = "$WORK/yandex-dbn.json"$1 }
TOML
}
scenario ', unseen = "quantile"' > "$WORK/quantile.toml"
"$SERPSIM" simulate "$WORK/quantile.toml" --out "$WORK/out-quantile" >"$WORK/stdout.txt" 2>"$WORK/stderr.txt"
grep -q 'quantile matching (assumed: attractiveness and satisfaction rise with the relevance grade' "$WORK/stderr.txt"
grep -q '100.0 % unseen' "$WORK/stderr.txt"
grep -q 'quantile matching' "$WORK/out-quantile/summary.json"
scenario '' > "$WORK/none.toml"
if "$SERPSIM" simulate "$WORK/none.toml" --out "$WORK/out-none" >/dev/null 2>"$WORK/none.txt"; then
  echo "a model that knows none of the results ran without a stated mapping" >&2
  exit 1
fi
grep -q 'unseen = "quantile"' "$WORK/none.txt"
grep -q -- '--qrels' "$WORK/none.txt"
test "$(cksum < "$WORK/yandex-dbn.json")" = "$sum_before"
