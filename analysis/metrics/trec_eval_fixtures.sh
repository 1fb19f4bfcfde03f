#!/bin/sh
# Regenerates tests/fixtures/trec_eval/out/*.txt (trec_eval 10) and v9/*.txt (trec_eval 9.0.8)
# from the cases in tests/fixtures/trec_eval/cases.tsv. The inputs are the project's own files
# (analysis/metrics/make_trec_fixtures.py). Needs the two binaries, built outside the
# repository from trec_eval's source (see tests/fixtures/trec_eval/README.md for the commands):
#   sh analysis/metrics/trec_eval_fixtures.sh /tmp/trec_eval_O2zero /tmp/trec_eval_9/trec_eval
set -eu
TE10=$1
TE9=$2
cd "$(dirname "$0")/../../tests/fixtures/trec_eval"
mkdir -p out v9
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# trec_eval reads plain files only: compressed inputs are decompressed under the same name.
for f in qrels.* results.* run.*; do
    case "$f" in
        *.gz) gzip -dc "$f" > "$tmp/$f" ;;
        *.zst) zstd -dcq "$f" > "$tmp/$f" ;;
        *) cp "$f" "$tmp/$f" ;;
    esac
done
grep -v '^#' cases.tsv | while IFS="$(printf '\t')" read -r name args; do
    # shellcheck disable=SC2086
    (cd "$tmp" && "$TE10" $args) > "out/$name.txt"
done
# trec_eval 10.0 exits with status 4 when a qrels topic has no results and -c is not given;
# trec_eval 9.0.8 leaves the topic out of the averages, as trec_eval's help text says. This is
# the documented default serpsim follows.
set +e
(cd "$tmp" && "$TE10" -m all_trec -q qrels.test results.extra) > /dev/null 2> "v9/trec_eval10_extra_default.stderr"
echo "exit status $?" >> "v9/trec_eval10_extra_default.stderr"
set -e
(cd "$tmp" && "$TE9" -m all_trec -q qrels.test results.extra) > "v9/all_trec_q_extra.txt"
