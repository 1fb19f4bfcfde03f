#!/usr/bin/env bash
# Times whole-process EM fits (`clicks fit --model dbn|ubm`) on two logs, at --threads 1 and 2
# (wall, CPU, peak resident memory with /usr/bin/time -v, passes used), and checks that the
# model files are byte-identical at --threads 1, 2 and 3:
#
# - the public Yandex sample repeated 1000 times (35,064,000 sessions, 3.0 GB of text;
#   only 1,024 distinct (query, document) pairs);
# - a generated many-pairs log (`serpsim clicks generate`: the same number of sessions,
#   300,000 queries with Zipf frequencies, 15 candidates per query from 10^7 documents, DBN
#   clicks; millions of distinct pairs), as text and, for DBN, as Parquet (`clicks convert`).
#
#   benches/em_scale.sh [--quick] [SAMPLE]
#
# --quick repeats the sample 20 times (701,280 sessions) and generates as many many-pairs
# sessions, for a shared machine. SAMPLE defaults to
# $SERPSIM_DATA/clicks/yandex_sample_train.txt (default ../shared/data; the real file is not in
# this repository). The logs are written to /tmp (never to the repository) and kept for the
# next run. The binary is target/release/serpsim (build it with `cargo build --release` first)
# or $SERPSIM. Extra `clicks fit` arguments may be given in $FIT_ARGS (e.g.
# FIT_ARGS="--tolerance 0" for 50 plain passes). LOGS="repeated manypairs parquet" picks logs.
set -euo pipefail
reps=1000
if [ "${1:-}" = "--quick" ]; then reps=20; shift; fi
sample=${1:-${SERPSIM_DATA:-../shared/data}/clicks/yandex_sample_train.txt}
bin=${SERPSIM:-target/release/serpsim}
logs=${LOGS:-repeated manypairs parquet}
[ -x "$bin" ] || { echo "no binary at $bin: run cargo build --release" >&2; exit 1; }
[ -f "$sample" ] || { echo "no sample log at $sample" >&2; exit 1; }
sessions=$((35064 * reps))

repeated=/tmp/serpsim_em_scale_x$reps.txt
if [ ! -f "$repeated" ]; then
  echo "writing $repeated ($reps copies of $sample)" >&2
  for _ in $(seq "$reps"); do cat "$sample"; done > "$repeated.part"
  mv "$repeated.part" "$repeated"
fi
manypairs=/tmp/serpsim_manypairs_$sessions.txt
if [ ! -f "$manypairs" ]; then
  echo "writing $manypairs ($sessions generated sessions, seed 1)" >&2
  "$bin" --quiet clicks generate --sessions "$sessions" --seed 1 --out "$manypairs" > /dev/null
fi
parquet=/tmp/serpsim_manypairs_$sessions.parquet
case " $logs " in *" parquet "*)
  [ -f "$parquet" ] || "$bin" --quiet clicks convert --in "$manypairs" --format yandex --out "$parquet" > /dev/null ;;
esac

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "$(nproc) cores; uptime: $(uptime)"
printf '%-9s %-5s %-7s %10s %10s %12s  %s\n' log model threads wall_s cpu_s max_rss_mb passes
fit() { # LOGNAME FILE MODEL THREADS FORMAT
  # shellcheck disable=SC2086
  /usr/bin/time -v "$bin" --quiet clicks fit --model "$3" --threads "$4" --train "$2" --format "$5" --out "$out/$1-$3-$4.json" ${FIT_ARGS:-} \
    2> "$out/time.txt" > /dev/null || { cat "$out/time.txt" >&2; exit 1; }
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$out/time.txt")
  rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$out/time.txt")
  cpu=$(awk -F': ' '/User time|System time/ {s+=$2} END {printf "%.2f", s}' "$out/time.txt")
  passes=$(grep -o 'EM: [0-9]* of at most [0-9]* passes ([^)]*)' "$out/time.txt" || true)
  printf '%-9s %-5s %-7s %10s %10s %12s  %s\n' "$1" "$3" "$4" "$wall" "$cpu" "$rss" "$passes"
}
for name in $logs; do
  case $name in
    repeated) file=$repeated; models="dbn ubm"; format=yandex ;;
    manypairs) file=$manypairs; models="dbn ubm"; format=yandex ;;
    parquet) file=$parquet; models="dbn"; format=parquet ;;
    *) echo "unknown log $name (use repeated, manypairs, parquet)" >&2; exit 1 ;;
  esac
  echo "log $name: $file ($(wc -c < "$file") bytes)"
  for model in $models; do
    for t in 1 2 3; do fit "$name" "$file" "$model" "$t" "$format"; done
    for t in 2 3; do
      cmp -s "$out/$name-$model-1.json" "$out/$name-$model-$t.json" \
        || { echo "$name $model: model files DIFFER between --threads 1 and $t" >&2; exit 1; }
    done
    echo "$name $model: model files identical at --threads 1, 2 and 3"
  done
done
echo "uptime after: $(uptime)"
