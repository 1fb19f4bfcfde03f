#!/bin/sh
# `serpsim eval` against the trec_eval 10 binary: whole processes, CPU time (user + sys) and
# peak memory (max RSS) from GNU time, median of REPEATS runs each, on
#   robust03: a Robust 2003-sized synthetic run, 100 topics x 1,000 documents (TREC 2003
#             Robust track: 100 topics), 1,250 judgements per topic;
#   big:      1,000 topics x 1,000 documents, 1,250 judgements per topic;
# plus the same run gzip-compressed (serpsim only: trec_eval reads plain files).
# The files are written by analysis/metrics/make_robust_like.py (seeded, own generator).
#
#   sh analysis/metrics/bench_vs_trec_eval.sh TREC_EVAL [REPEATS] [MEASURES]
#
# TREC_EVAL: a trec_eval 10 binary built outside the repository (gcc -O2, as trec_eval's
# Makefile builds it; see tests/fixtures/trec_eval/README.md). MEASURES: `-m` arguments for
# both tools (default: trec_eval's default output `official`, and then `-m all_trec`).
# Output: one TSV line per (data set, measures, tool) with the median and all values.
set -eu
TE=$1
REPEATS=${2:-5}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SERPSIM=$ROOT/target/release/serpsim
DATA=${BENCH_DIR:-/tmp/serpsim-bench-eval}
mkdir -p "$DATA"
for set in robust03:100 big:1000; do
    name=${set%%:*}; topics=${set#*:}
    if [ ! -f "$DATA/$name/run.robust" ]; then
        python3 "$ROOT/analysis/metrics/make_robust_like.py" "$DATA/$name" --topics "$topics" >&2
        gzip -6 -n -c "$DATA/$name/run.robust" > "$DATA/$name/run.robust.gz"
    fi
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
measure() { # label, command...
    label=$1; shift
    : > "$DATA/cpu"; : > "$DATA/rss"
    i=0
    while [ $i -lt "$REPEATS" ]; do
        /usr/bin/time -f "%U %S %M" -o "$DATA/t" "$@" > /dev/null
        awk '{printf "%.2f\n", $1 + $2}' "$DATA/t" >> "$DATA/cpu"
        awk '{print $3}' "$DATA/t" >> "$DATA/rss"
        i=$((i + 1))
    done
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$(median < "$DATA/cpu")" "$(median < "$DATA/rss")" \
        "$(tr '\n' ' ' < "$DATA/cpu")" "$(tr '\n' ' ' < "$DATA/rss")"
}
echo "# $(date -u +%FT%TZ) load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; trec_eval: $("$TE" -v 2>&1 | head -1)"
printf 'case\tCPU s (median)\tmax RSS KiB (median)\tCPU s (all)\tRSS KiB (all)\n'
for name in robust03 big; do
    q=$DATA/$name/qrels.robust; r=$DATA/$name/run.robust
    for m in official all_trec; do
        measure "$name -m $m trec_eval" "$TE" -m "$m" "$q" "$r"
        measure "$name -m $m serpsim" "$SERPSIM" eval --format trec -m "$m" "$q" "$r"
        measure "$name -m $m serpsim --threads 1" "$SERPSIM" eval --threads 1 --format trec -m "$m" "$q" "$r"
        measure "$name -m $m serpsim gzip run" "$SERPSIM" eval --format trec -m "$m" "$q" "$r.gz"
    done
done
