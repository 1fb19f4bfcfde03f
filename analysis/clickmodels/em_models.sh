#!/usr/bin/env bash
# Test log-likelihood and perplexity of every model on the Yandex sample (75/25 protocol),
# EM models after 50 (the default) and 200 iterations from 0.5.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-target/release/serpsim}
LOG=${SERPSIM_DATA:-../shared/data}/clicks/yandex_sample_train.txt  # the real sample, read in place
echo "| model | EM iterations | log-likelihood | perplexity | conditional perplexity | CTR RMSE (rank 1) |"
echo "|---|---|---|---|---|---|"
for m in gctr rctr dctr cm dcm sdbn pbm ubm ccm dbn; do
  case $m in pbm|ubm|ccm|dbn) its="50 200";; *) its="-";; esac
  for it in $its; do
    args=(clicks eval --model "$m" --train "$LOG")
    [ "$it" != "-" ] && args+=(--iterations "$it")
    "$BIN" "${args[@]}" | python3 -c "import json,sys; o=json.load(sys.stdin); print(f\"| {o['model']} | $it | {o['log_likelihood']:.6f} | {o['perplexity']:.6f} | {o['conditional_perplexity']:.6f} | {o['ctr_rmse']:.6f} |\")"
  done
done
