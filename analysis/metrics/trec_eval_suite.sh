#!/bin/sh
# serpsim eval vs trec_eval 10 on trec_eval's own test suite, read in place from a checkout of
# usnistgov/trec_eval outside this repository (its files are not part of the project and are not
# committed; only the outcome is recorded, in analysis/metrics/trec_eval_suite.md).
#
#   sh analysis/metrics/trec_eval_suite.sh TREC_EVAL_BINARY TREC_EVAL_CHECKOUT/test [SERPSIM]
#
# Prints one line per case: name, lines of trec_eval output, lines that differ, and the `all`
# values of map / P_10 / ndcg from both tools. Exit status 1 if any case differs.
set -eu
TE=$1
DIR=$2
SERPSIM=${3:-$(cd "$(dirname "$0")/../.." && pwd)/target/release/serpsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
printf 'case\tlines\tdiffering\ttrec_eval map/P_10/ndcg\tserpsim map/P_10/ndcg\n'
while IFS="$(printf '\t')" read -r name args; do
    case "$name" in ''|'#'*) continue ;; esac
    # shellcheck disable=SC2086
    (cd "$DIR" && "$TE" $args) > "$tmp/te" 2>&1 || true
    # shellcheck disable=SC2086
    (cd "$DIR" && "$SERPSIM" eval --format trec $args) > "$tmp/ss" 2>&1 || true
    lines=$(wc -l < "$tmp/te")
    differing=$(diff "$tmp/te" "$tmp/ss" | grep -c '^<' || true)
    pick() { awk -F'\t' '$2 == "all" && ($1 ~ /^map +$/ || $1 ~ /^P_10 +$/ || $1 ~ /^ndcg +$/) {printf "%s ", $3}' "$1"; }
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$lines" "$differing" "$(pick "$tmp/te")" "$(pick "$tmp/ss")"
    [ "$differing" = 0 ] || fail=1
done <<'CASES'
official	qrels.test results.test
all_trec	-m all_trec qrels.test results.test
all_trec_q	-m all_trec -q qrels.test results.test
all_trec_qc_trunc	-m all_trec -q -c qrels.test results.trunc
all_trec_qcM100_trunc	-m all_trec -q -c -M100 qrels.test results.trunc
all_trec_relstring20_q_l2	-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test
meas_params	-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test
all_trec_q_with_comments	-m all_trec -q qrels.test.with-comments results.test
all_trec_q_comment_files	-m all_trec -q qrels.comment.test results.comment.test
all_trec_q_302	-m all_trec -q qrels-302.test results-302.test
all_trec_q_graded	-m all_trec -q qrels.rel_level results.test
all_trec_q_judged_only	-m all_trec -q -J qrels.test results.test
all_trec_qc_l2_trunc	-m all_trec -q -c -l2 qrels.rel_level results.trunc
parameters_graded	-q -m rbp.p=0.5 -m rbp_resid.p=0.8 -m ndcg_rel.1=2,2=5 -m Rndcg.1=1,3=7 -m G.1=2 -m set_F.0.5 -m success.1,2,3 -m relative_P.3,50 -m unj.1,1000 -m utility.1,-2,3,-0.5 -m dcg -m ideal_dcg -m relstring.5 -m 11pt_avg.0.2,0.5,0.8 -m iprec_at_recall.0.33 -m Rprec_mult.0.5,3 -N 100000 qrels.rel_level results.test
official_q_nosummary	-m official -q -n qrels.test results.test
set_qc_trunc	-m set -q -c qrels.rel_level results.trunc
all_trec_q_comment_files_M20	-m all_trec -q -M20 qrels.comment.test results.comment.test
CASES
exit $fail
