#!/usr/bin/env bash
# serpsim reads the real LETOR 4.0 MQ2008 subset (not bundled: the repository carries the
# project's own sample in the same layout, study_logs/letor/letor_sample.txt). Expected counts
# come from the file itself by awk, independently of serpsim's reader: the number of queries
# (distinct qid:) and, per query, the number of judged documents (lines). serpsim's count is the
# depth of a user who reads every result (continuation 1, no stopping rule, no clicks), per topic
# in summary.csv (`--detail full`).
set -euo pipefail
need letor/mq2008_subset_a.txt
f="$DATA/letor/mq2008_subset_a.txt"
awk '{ split($2, q, ":"); n[q[2]]++ } END { for (k in n) print k "," n[k] }' "$f" | sort > "$WORK/letor_expected.csv"
queries=$(wc -l < "$WORK/letor_expected.csv")
docs=$(grep -c 'qid:' "$f")
test "$queries" -gt 0 && test "$docs" -gt 0
cat > "$WORK/letor_real.toml" <<TOML
name = "letor-real"
seed = 1
replicates = 2
[collection]
source = "letor"
file = "$f"
rankers = [{ name = "f25", weights = { 25 = 1.0 } }, { name = "f40", weights = { 40 = 1.0 } }]
page_size = 10
[[profiles]]
name = "reads-all"
continuation = { model = "rbp", p = 1.0 }
clicks = { click = [0.0, 0.0, 0.0], stop = [0.0, 0.0, 0.0], mark = [0.0, 0.0, 0.0] }
[output]
detail = "full"
TOML
"$SERPSIM" --quiet simulate "$WORK/letor_real.toml" --out "$WORK/letor_out" > /dev/null 2>&1
# summary.csv: topic,system,profile,measure,n,mean,sd,se,min,...,max,exact; every user of a
# topic reads the whole list, so min = max = the list's length. (A second ranker makes the run a
# comparison, whose answer.txt states the number of topics.)
awk -F, '$4 == "depth" && $2 == "f25" { if ($9 != $15) { print "topic " $1 ": depth varies" > "/dev/stderr"; exit 1 } print $1 "," $15 }' \
  "$WORK/letor_out/summary.csv" | sort > "$WORK/letor_got.csv"
if ! diff "$WORK/letor_expected.csv" "$WORK/letor_got.csv"; then
  echo "serpsim's queries and documents per query differ from the file's (awk) counts" >&2
  exit 1
fi
grep -q "letor-real: $queries topics" "$WORK/letor_out/answer.txt" || { echo "answer.txt does not say $queries topics" >&2; exit 1; }
total=$(awk -F, '{ s += $2 } END { print s }' "$WORK/letor_got.csv")
test "$total" = "$docs" || { echo "serpsim read $total documents, the file has $docs" >&2; exit 1; }
