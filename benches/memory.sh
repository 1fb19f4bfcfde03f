#!/bin/sh
# Peak resident memory of 10^8 simulated sessions of the default scenario without samples
# (50 topics x 2 systems x 2 profiles x 500,000 users = 100,000,000 sessions), and the
# whole-process scaling of `simulate` from 1 to 2 threads on the 250,000-user cascade scenario
# of benches/simulate.rs. Run from the repository root after `cargo build --release`; prints
# the load average next to every figure (docs/performance.md).
set -e
bin=${SERPSIM:-./target/release/serpsim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "10^8 sessions, default scenario: %e s wall, %U s user, peak resident %M KB" \
  $bin simulate --replicates 500000 --out "$out/mem" > /dev/null
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
cat > "$out/cascade.toml" <<'TOML'
name = "cascade-scaling"
seed = 7
replicates = 250000
[collection]
source = "synthetic"
topics = 20
docs_per_topic = 10
relevant_share = 0.3
[[profiles]]
name = "cascade"
continuation = { model = "rbp", p = 0.8 }
clicks = { click = [0.2, 0.8], stop = [0.0, 0.3], mark = [0.0, 1.0] }
stopping = [{ rule = "contiguous_nonrelevant", n = 5 }]
TOML
for t in 1 2; do
  /usr/bin/time -f "cascade scenario, 250,000 users x 20 topics x 2 systems, --threads $t: %e s wall, %U s user, peak resident %M KB" \
    $bin simulate "$out/cascade.toml" --threads $t --out "$out/c$t" > /dev/null
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
done
