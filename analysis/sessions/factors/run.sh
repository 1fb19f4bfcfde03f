#!/bin/sh
# Interface and system factors on the synthetic QS1+3 topics (analysis/sessions/README.md):
# page size 3/6/10 with Kelly and Azzopardi's per-page continuation, a 600 s task as in their
# study; then Crescenzi et al.'s 5 s delays and 300 s deadline. Run from the repository root
# after `cargo build --release`. Writes factors/<name>/summary.csv and factors/table.csv.
set -e
bin=./target/release/serpsim
dir=analysis/sessions/factors
run() { # name page_size continuation stopping extra-toml
  cat > "$dir/$1.toml" <<TOML
name = "$1"
seed = 2015
replicates = 200
[queries]
source = "synthetic"
strategies = ["qs13"]
[queries.generator]
queries_per_strategy = 80
decay = 0.95
qs1 = { dud_share = 0.35, precision_mean = 0.41 }
qs3 = { dud_share = 0.25, precision_mean = 0.68 }
[session.searcher]
budget = 600.0
page_continuation = $3
stopping = $4
[session.interface]
page_size = $2
$5
TOML
  $bin sessions run "$dir/$1.toml" --out "$dir/$1" > /dev/null
}
run rpp3 3 0.72 '{ rule = "fixed_depth", n = 1000 }' ''
run rpp6 6 0.62 '{ rule = "fixed_depth", n = 1000 }' ''
run rpp10 10 0.48 '{ rule = "fixed_depth", n = 1000 }' ''
run rpp10_ss3 10 1.0 '{ rule = "contiguous_nonrelevant", n = 3 }' ''
run delay5 10 1.0 '{ rule = "contiguous_nonrelevant", n = 3 }' 'query_latency = 5.0
document_latency = 5.0'
run deadline300 10 1.0 '{ rule = "contiguous_nonrelevant", n = 3 }' '[session.deadline]
seconds = 300.0'
run deadline300_delay5 10 1.0 '{ rule = "contiguous_nonrelevant", n = 3 }' 'query_latency = 5.0
document_latency = 5.0
[session.deadline]
seconds = 300.0'
{
  echo "scenario,gain_mean,queries_mean,depth_per_query,pages_per_query,documents_per_query,time_mean,adjusted_time_mean"
  for n in rpp3 rpp6 rpp10 rpp10_ss3 delay5 deadline300 deadline300_delay5; do
    tail -n 1 "$dir/$n/summary.csv" | awk -F, -v n=$n '{printf "%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.1f,%.1f\n", n, $5, $26, $20, $34, $33/$26, $35, $36}'
  done
} > "$dir/table.csv"
cat "$dir/table.csv"
