#!/usr/bin/env bash
# Reading-rate benchmark of issue 18 (goal, whole process on one core: >= 300 MB/s from text,
# >= 1 GB/s-equivalent from Parquet). Builds the issue's 300 MB log (the real Yandex sample, read in place
# repeated 100 times, 3,506,400 sessions) and its Parquet conversion in a temporary directory,
# then times `clicks fit --model sdbn` (streamed, the default) on each, pinned to one core,
# interleaved, RUNS times. Prints user + sys CPU per run, the rate against the text size, and
# the load average before and after (record them in docs/performance.md). Checks that the two
# model files are identical.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/serpsim}
RUNS=${RUNS:-7}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
Y=${SERPSIM_DATA:-../shared/data}/clicks/yandex_sample_train.txt  # the real sample, read in place
for _ in $(seq 100); do cat "$Y"; done > "$TMP/y100.txt"
"$BIN" --quiet clicks convert --in "$TMP/y100.txt" --format yandex --out "$TMP/y100.parquet" > /dev/null 2>&1
BYTES=$(stat -c %s "$TMP/y100.txt")
echo "text: $BYTES bytes; parquet: $(stat -c %s "$TMP/y100.parquet") bytes"
uptime
for i in $(seq "$RUNS"); do
  for f in txt parquet; do
    /usr/bin/time -o "$TMP/time" -f "%U %S" taskset -c 0 "$BIN" --quiet clicks fit --format auto --model sdbn \
      --train "$TMP/y100.$f" --out "$TMP/m_$f.json" > /dev/null 2>&1
    read -r user sys < "$TMP/time"
    awk -v f="$f" -v u="$user" -v s="$sys" -v b="$BYTES" 'BEGIN { t = u + s; printf "%-8s %.2f s CPU  %6.0f MB/s(-equivalent)\n", f, t, b / t / 1e6 }'
  done
done
cmp "$TMP/m_txt.json" "$TMP/m_parquet.json" && echo "model files identical"
uptime
