#!/usr/bin/env bash
# SimEval-IR sessions on the real Yandex sample: converted to InteractionSession JSONL, it
# fits the same SDBN as the original log (every query, document and click survives), and
# clicks validate on it reports the four SimEval-IR measures.
set -euo pipefail
need clicks/yandex_sample_train.txt
"$SERPSIM" clicks convert --quiet --in "$DATA/clicks/yandex_sample_train.txt" --to simeval --out "$WORK/sample.simeval.jsonl" >/dev/null
"$SERPSIM" clicks fit --quiet --model sdbn --train "$DATA/clicks/yandex_sample_train.txt" --out "$WORK/orig.json" >/dev/null
"$SERPSIM" clicks fit --quiet --model sdbn --format simeval --train "$WORK/sample.simeval.jsonl" --out "$WORK/simeval.json" >/dev/null
python3 - "$WORK/orig.json" "$WORK/simeval.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["pairs"] and a["pairs"] == b["pairs"], "the SimEval-IR copy fits another model"
PY
"$SERPSIM" clicks validate --quiet --model pbm --format simeval --split interleaved --bootstrap 20 \
  --train "$WORK/sample.simeval.jsonl" --out "$WORK/simeval-validate" >/dev/null
test "$(wc -l < "$WORK/simeval-validate/simeval.csv")" -eq 5
grep -q '^click_depth_distance,jsd_click_depth,clicks,' "$WORK/simeval-validate/simeval.csv"
