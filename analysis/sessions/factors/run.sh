#!/bin/sh
# Interface and system factors on the synthetic QS1+3 topics (analysis/sessions/README.md):
# page size 3/6/10 with Kelly and Azzopardi's per-page continuation, a 600 s task as in their
# study; then Crescenzi et al.'s 5 s delays and 300 s deadline (threshold x 0.60, reading time
# x 0.63). Run from the repository root after `cargo build --release`. Writes
# factors/<name>/{sessions.csv, ...} (the common report plus Maxwell et al.'s table) and
# factors/table.csv.
set -e
bin=${SERPSIM:-./target/release/serpsim}
dir=analysis/sessions/factors
run() { # name page_size page_continuation stopping budget read_time extra-interface
  cat > "$dir/$1.toml" <<TOML
name = "$1"
seed = 2015
replicates = 200
[collection]
source = "synthetic_queries"
strategies = ["qs13"]
[collection.generator]
queries_per_strategy = 80
decay = 0.95
qs1 = { dud_share = 0.35, precision_mean = 0.41 }
qs3 = { dud_share = 0.25, precision_mean = 0.68 }
[interface]
page_size = $2
$7
[[profiles]]
name = "searcher"
continuation = { model = "rbp", p = 1.0 }
page_continuation = $3
clicks = { click = [0.39, 0.64], stop = [0.0], mark = [0.27, 0.77] }
gain = { model = "binary", credit_on = "mark" }
budget = { seconds = $5 }
stopping = [$4]
time = { read_document = $6 }
TOML
  rm -rf "$dir/$1"   # a run replaces its output directory as a whole
  $bin sessions run "$dir/$1.toml" --out "$dir/$1" > /dev/null
}
ss3='{ rule = "contiguous_nonrelevant", n = 3, basis = "snippet" }'
ss3_deadline='{ rule = "contiguous_nonrelevant", n = 2, basis = "snippet" }'   # round(3 x 0.60)
depth='{ rule = "fixed_depth", n = 1000 }'
run rpp3 3 0.72 "$depth" 600.0 21.45 ''
run rpp6 6 0.62 "$depth" 600.0 21.45 ''
run rpp10 10 0.48 "$depth" 600.0 21.45 ''
run rpp10_ss3 10 1.0 "$ss3" 600.0 21.45 ''
run delay5 10 1.0 "$ss3" 600.0 21.45 'query_latency = 5.0
document_latency = 5.0'
run deadline300 10 1.0 "$ss3_deadline" 300.0 13.5135 ''
run deadline300_delay5 10 1.0 "$ss3_deadline" 300.0 13.5135 'query_latency = 5.0
document_latency = 5.0'
{
  echo "scenario,gain_mean,queries_mean,depth_per_query,pages_per_query,documents_per_query,time_mean,adjusted_time_mean"
  for n in rpp3 rpp6 rpp10 rpp10_ss3 delay5 deadline300 deadline300_delay5; do
    tail -n 1 "$dir/$n/sessions.csv" | awk -F, -v n=$n '{printf "%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.1f,%.1f\n", n, $5, $26, $20, $34, $33/$26, $35, $36}'
  done
} > "$dir/table.csv"
cat "$dir/table.csv"
