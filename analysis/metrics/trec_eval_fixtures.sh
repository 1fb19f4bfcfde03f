#!/bin/sh
# Regenerates tests/fixtures/trec_eval/out/*.txt (trec_eval 10) and v9/*.txt (trec_eval 9.0.8)
# from the cases in tests/fixtures/trec_eval/cases.tsv. Needs the two binaries, built outside
# the repository (see tests/fixtures/trec_eval/README.md for the exact build commands):
#   sh analysis/metrics/trec_eval_fixtures.sh /tmp/trec_eval_O2zero /tmp/trec_eval_9/trec_eval
set -eu
TE10=$1
TE9=$2
cd "$(dirname "$0")/../../tests/fixtures/trec_eval"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# trec_eval reads plain files only.
gzip -dc results.comment.test.gz > "$tmp/results.comment.test.gz"
zstd -dcq qrels.comment.test.zst > "$tmp/qrels.comment.test.zst"
for f in qrels.test results.test results.trunc qrels.rel_level qrels.test.with-comments qrels-302.test results-302.test; do
    cp "$f" "$tmp/$f"
done
grep -v '^#' cases.tsv | while IFS="$(printf '\t')" read -r name args; do
    # shellcheck disable=SC2086
    (cd "$tmp" && "$TE10" $args) > "out/$name.txt"
done
# trec_eval 10.0 exits with status 4 ("result qid '302' not found in qrels") when a qrels topic
# has no results and -c is not given; trec_eval 9.0.8 leaves the topic out of the averages, as
# trec_eval's help text says. This is the documented default serpsim follows.
set +e
(cd "$tmp" && "$TE10" -m all_trec -q qrels.test results.trunc) > /dev/null 2> "v9/trec_eval10_trunc_default.stderr"
echo "exit status $?" >> "v9/trec_eval10_trunc_default.stderr"
set -e
(cd "$tmp" && "$TE9" -m all_trec -q qrels.test results.trunc) > "v9/all_trec_q_trunc.txt"
(cd "$tmp" && "$TE9" -m all_trec -q qrels.test results.test) > "v9/all_trec_q.txt"
