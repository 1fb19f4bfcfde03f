#!/usr/bin/env bash
# Benchmark of `clicks validate` on about 1 M sessions (issue 16 target: < 10 s on 2 cores).
# A DBN fitted on the Yandex sample simulates 29 sessions per SERP of the sample (1,016,856
# sessions, TSV); validate then compares that model with those sessions (1 replicate per test
# session, 200 bootstrap resamples, 2 threads). Prints wall time, CPU time and peak memory,
# and the load average before and after (record both in docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/serpsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
Y=${SERPSIM_DATA:-../shared/data}/clicks/yandex_sample_train.txt  # the real sample, read in place
"$BIN" --quiet clicks fit --model dbn --train "$Y" --out "$TMP/dbn.json" > /dev/null
"$BIN" --quiet clicks simulate --model-file "$TMP/dbn.json" --serps "$Y" --replicates 29 --seed 3 --out "$TMP/big.tsv" > /dev/null
uptime
for i in 1 2 3; do
  /usr/bin/time -f "validate 1M sessions: %e s wall, %U s user + %S s system CPU, %M kB peak" \
    "$BIN" --quiet clicks validate --model dbn --model-file "$TMP/dbn.json" --test "$TMP/big.tsv" --format tsv \
    --replicates 1 --threads 2 --bootstrap 200 > /dev/null
done
uptime
