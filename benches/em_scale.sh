#!/usr/bin/env bash
# Times whole-process EM fits (`clicks fit --model dbn|ubm`) on the public Yandex sample
# repeated 1000 times (35,064,000 sessions, 3.0 GB of text), at --threads 1 and 2, with
# /usr/bin/time -v, and checks that the model files of the two thread counts are identical.
#
#   benches/em_scale.sh [--quick] [SAMPLE]
#
# --quick repeats the sample 20 times (701,280 sessions) for a shared machine. SAMPLE defaults
# to $SERPSIM_DATA/clicks/yandex_sample_train.txt (default ../shared/data; the real file is not
# in this repository). The repeated log is written to /tmp (never to
# the repository) and kept for the next run. The binary is target/release/serpsim (build it
# with `cargo build --release` first) or $SERPSIM. Extra `clicks fit` arguments may be given
# in $FIT_ARGS (e.g. FIT_ARGS="--tolerance 0" for 50 plain passes).
set -euo pipefail
reps=1000
if [ "${1:-}" = "--quick" ]; then reps=20; shift; fi
sample=${1:-${SERPSIM_DATA:-../shared/data}/clicks/yandex_sample_train.txt}
bin=${SERPSIM:-target/release/serpsim}
[ -x "$bin" ] || { echo "no binary at $bin: run cargo build --release" >&2; exit 1; }
[ -f "$sample" ] || { echo "no sample log at $sample" >&2; exit 1; }
log=/tmp/serpsim_em_scale_x$reps.txt
if [ ! -f "$log" ]; then
  echo "writing $log ($reps copies of $sample)" >&2
  for _ in $(seq "$reps"); do cat "$sample"; done > "$log.part"
  mv "$log.part" "$log"
fi
out=$(mktemp -d)
echo "log: $log ($(wc -c < "$log") bytes); $(nproc) cores; uptime: $(uptime)"
printf '%-5s %-7s %10s %10s %12s  %s\n' model threads wall_s cpu_s max_rss_mb passes
for model in dbn ubm; do
  for t in 1 2; do
    # shellcheck disable=SC2086
    /usr/bin/time -v "$bin" --quiet clicks fit --model "$model" --threads "$t" --train "$log" --out "$out/$model-$t.json" ${FIT_ARGS:-} \
      2> "$out/time.txt" > /dev/null || { cat "$out/time.txt" >&2; exit 1; }
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$out/time.txt")
    rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$out/time.txt")
    cpu=$(awk -F': ' '/User time|System time/ {s+=$2} END {printf "%.2f", s}' "$out/time.txt")
    passes=$(grep -o 'EM: [0-9]* of at most [0-9]* passes ([^)]*)' "$out/time.txt" || true)
    printf '%-5s %-7s %10s %10s %12s  %s\n' "$model" "$t" "$wall" "$cpu" "$rss" "$passes"
  done
  cmp -s "$out/$model-1.json" "$out/$model-2.json" && echo "$model: model files identical at --threads 1 and 2" \
    || { echo "$model: model files DIFFER between --threads 1 and 2" >&2; exit 1; }
done
echo "uptime after: $(uptime)"
rm -rf "$out"
