#!/usr/bin/env bash
# One run on a 16-core machine (issue 28): DBN fit of the public Yandex sample repeated 1000
# times (35,064,000 sessions, 3.0 GB of text) at --threads 1, 2, 4, 8 and 16, with the default
# tolerance and SQUAREM, whole process; prints the wall time of each and checks that every
# model file is identical. Builds nothing: uses the prebuilt target/release/serpsim (or
# $SERPSIM). About 5 to 8 minutes on 16 cores (most of it at --threads 1 and 2).
#
#   benches/em_scale_16core.sh /path/to/yandex_sample_train.txt
set -euo pipefail
sample=${1:?usage: $0 SAMPLE (the public Yandex sample, e.g. ../shared/data/clicks/yandex_sample_train.txt)}
bin=${SERPSIM:-target/release/serpsim}
[ -x "$bin" ] || { echo "no binary at $bin" >&2; exit 1; }
dir=$(mktemp -d /tmp/serpsim_em16.XXXXXX)
trap 'rm -rf "$dir"' EXIT
log=$dir/x1000.txt
for _ in $(seq 1000); do cat "$sample"; done > "$log"
echo "log: $(wc -c < "$log") bytes; $(nproc) cores; $("$bin" --version)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for t in 1 2 4 8 16; do
  start=$(date +%s.%N)
  "$bin" --quiet clicks fit --model dbn --threads "$t" --train "$log" --out "$dir/dbn-$t.json" 2> "$dir/err-$t.txt" > /dev/null \
    || { cat "$dir/err-$t.txt" >&2; exit 1; }
  end=$(date +%s.%N)
  printf 'dbn --threads %-2s %8.1f s wall  %s\n' "$t" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$(grep -o 'EM: .*' "$dir/err-$t.txt" | head -1)"
  cmp -s "$dir/dbn-1.json" "$dir/dbn-$t.json" || { echo "model file at --threads $t differs from --threads 1" >&2; exit 1; }
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "all model files identical"
