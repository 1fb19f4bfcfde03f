#!/usr/bin/env bash
# The real public files parse: a DBN fit on the Yandex sample and trec_eval's measures on the
# trec_eval test qrels and run.
set -euo pipefail
need clicks/yandex_sample_train.txt trec/qrels.test trec/results.test
"$SERPSIM" clicks fit --quiet --model dbn --train "$DATA/clicks/yandex_sample_train.txt" --out "$WORK/dbn.json" >/dev/null
test -s "$WORK/dbn.json"
"$SERPSIM" eval "$DATA/trec/qrels.test" "$DATA/trec/results.test" > "$WORK/eval.txt"
grep -q '^STANDARD,map,all,' "$WORK/eval.txt"
