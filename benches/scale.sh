#!/bin/sh
# Issue 18 benchmarks (docs/scale.md, docs/performance.md): peak resident memory of a streamed
# DBN fit on 1x, 10x and 100x the real Yandex sample, read in place (the same pairs, 100x the sessions),
# and the whole-process read + fit speed of SDBN on the 100x log (about 300 MB). Run from the
# repository root after `cargo build --release`; prints the load average next to every figure.
# ITER sets the DBN iterations (default 3: memory does not grow with iterations).
set -e
bin=${SERPSIM:-./target/release/serpsim}
iter=${ITER:-3}
out=${OUT:-$(mktemp -d)}
sample=${SERPSIM_DATA:-../shared/data}/clicks/yandex_sample_train.txt  # the real sample, read in place
cp "$sample" "$out/x1.txt"
: > "$out/x10.txt"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$sample" >> "$out/x10.txt"; done
: > "$out/x100.txt"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$out/x10.txt" >> "$out/x100.txt"; done
for n in 1 10 100; do
  f="$out/x$n.txt"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  /usr/bin/time -f "dbn $iter iterations, streamed, ${n}x ($(wc -c < "$f") bytes): %e s wall, %U s user, %S s sys, peak resident %M KB" \
    $bin --quiet clicks fit --model dbn --iterations "$iter" --train "$f" --out "$out/m$n.json" > /dev/null
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "dbn $iter iterations, --in-memory, 100x: %e s wall, %U s user, %S s sys, peak resident %M KB" \
  $bin --quiet clicks fit --model dbn --iterations "$iter" --in-memory --train "$out/x100.txt" --out "$out/mm.json" > /dev/null
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "sdbn read + fit, streamed, 100x ($(wc -c < "$out/x100.txt") bytes): %e s wall, %U s user, %S s sys, peak resident %M KB" \
  $bin --quiet clicks fit --model sdbn --train "$out/x100.txt" --out "$out/s.json" > /dev/null
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
cmp "$out/m1.json" "$out/m1.json"
[ -z "$OUT" ] && rm -rf "$out"
exit 0
