#!/usr/bin/env bash
# Output fingerprints for refactorings that must not change any result (issue 43): runs a fixed
# set of commands over the project-made inputs with the binary BIN and writes every output file
# (model files, `eval` outputs, scenario reports and manifests, stdout and stderr of each
# command, exit codes) under OUTDIR, then OUTDIR/SHA256SUMS. Compare two commits with
#
#   scripts/golden.sh OLD_BIN /tmp/g-old && scripts/golden.sh NEW_BIN /tmp/g-new
#   diff /tmp/g-old/SHA256SUMS /tmp/g-new/SHA256SUMS && echo identical
#
# Commands run in a fixed scratch directory ($GOLDEN_WORK, default /tmp/serpsim-golden; two
# runs at once need two) with the inputs linked in and outputs under `g/`, so the outputs of
# two runs are comparable byte for byte. Progress lines on stderr are off (--quiet). Takes about four minutes on 2 cores.
set -uo pipefail
BIN=$(readlink -f "$1")
OUT=$(mkdir -p "$2" && readlink -f "$2")
cd "$(dirname "$0")/.."
rm -rf "$OUT"/*
# A fixed scratch directory: a scenario made from --qrels/--run names its files by absolute
# path (so it runs from anywhere), and the manifest hashes that scenario.
W=${GOLDEN_WORK:-/tmp/serpsim-golden}
rm -rf "$W" && mkdir -p "$W"
ln -s "$PWD/study_logs" "$PWD/tests" "$PWD/simulations" "$W/"
cd "$W"
mkdir g
# run NAME ARGS...: stdout, stderr and the exit code of one command, kept under g/NAME.*
run() {
    local name=$1
    shift
    "$BIN" "$@" > "g/$name.out" 2> "g/$name.err"
    echo $? > "g/$name.rc"
}
LOG=study_logs/clicks/synthetic_yandex_layout.txt
for m in cm dcm ccm dbn sdbn ubm pbm gctr rctr dctr; do
    run "fit-$m" clicks fit --quiet --model "$m" --train "$LOG" --out "g/fit-$m.json"
done
for m in dbn ubm ccm pbm; do
    run "fit-$m-uniform" clicks fit --quiet --model "$m" --prior uniform --train "$LOG" --out "g/fit-$m-uniform.json"
    run "fit-$m-shards3" clicks fit --quiet --model "$m" --shards 3 --train "$LOG" --out "g/fit-$m-shards3.json"
    run "fit-$m-stream" clicks fit --quiet --model "$m" --stream --train "$LOG" --out "g/fit-$m-stream.json"
done
run fit-dbn-gamma clicks fit --quiet --model dbn --gamma 0.9 --tolerance 0 --iterations 7 --train "$LOG" --out g/fit-dbn-gamma.json
run fit-sdbn-posterior clicks fit --quiet --model sdbn --posterior global --samples 50 --warmup 20 --train "$LOG" --out g/fit-sdbn-posterior.json
run fit-pbm-posterior clicks fit --quiet --model pbm --posterior global --samples 30 --warmup 20 --chains 2 --train "$LOG" --out g/fit-pbm-posterior.json
# Posteriors through the Gibbs sampler of every latent model, the exact samplers of the
# counting models, and the fitted priors (issue 43: the sampler reaches models through the
# registry).
P="--samples 30 --warmup 20 --chains 2"
for m in dbn ccm ubm; do
    run "fit-$m-post" clicks fit --quiet --model "$m" --posterior "g/post-$m.json" $P --train "$LOG" --out "g/fit-$m-post.json"
done
run fit-ubm-post-free clicks fit --quiet --model ubm --top-examination free --posterior g/post-ubm-free.json $P --train "$LOG" --out g/fit-ubm-post-free.json
run fit-pbm-post-free clicks fit --quiet --model pbm --top-examination free --posterior g/post-pbm-free.json $P --train "$LOG" --out g/fit-pbm-post-free.json
run fit-dbn-post-gamma clicks fit --quiet --model dbn --gamma 0.9 --posterior g/post-dbn-gamma.json $P --train "$LOG" --out g/fit-dbn-post-gamma.json
for m in dcm sdbn; do
    run "fit-$m-exact" clicks fit --quiet --model "$m" --exact --posterior "g/post-$m-exact.json" $P --train "$LOG" --out "g/fit-$m-exact.json"
done
for m in dbn pbm; do
    run "fit-$m-hier" clicks fit --quiet --model "$m" --prior hierarchical --posterior "g/post-$m-hier.json" $P --train "$LOG" --out "g/fit-$m-hier.json"
done
run fit-ccm-global clicks fit --quiet --model ccm --prior global --posterior g/post-ccm-global.json $P --train "$LOG" --out g/fit-ccm-global.json
for m in cm dcm sdbn rctr; do
    run "fit-$m-conj" clicks fit --quiet --model "$m" --posterior "g/post-$m-conj.json" --train "$LOG" --out "g/fit-$m-conj.json"
done
run fit-dctr-query clicks fit --quiet --model dctr --prior query --posterior g/post-dctr-query.json --train "$LOG" --out g/fit-dctr-query.json
run fit-ncm clicks fit --quiet --model dbn --format ncm --train study_logs/clicks/ncm_handmade_train.txt --out g/fit-ncm.json
run fit-simeval clicks fit --quiet --model ubm --format simeval --train study_logs/clicks/simeval_tied_times.jsonl --out g/fit-simeval.json
for m in dbn pbm sdbn ccm; do
    run "clicks-eval-$m" clicks eval --quiet --model "$m" --train "$LOG"
done
run clicks-validate clicks validate --quiet --model dbn --train "$LOG" --replicates 1 --bootstrap 20
run clicks-simulate clicks simulate --quiet --model-file g/fit-dbn.json --serps "$LOG" --seed 3 --out g/simulated.txt
# The fit settings' paths (issue 43, clickmodels::fitting): labels, in memory, posterior
# files, fitted priors in fit/eval/validate, eval and validate with --test and in shards, and
# settings that are refused. Qrels of the log's own pairs: the first 400 (query, document)
# pairs in log order, grade = document id mod 3.
python3 -c "
seen = set()
for line in open('$LOG'):
    for sess in line.split(';'):
        parts = sess.strip().split('\t')
        if len(parts) < 2:
            continue
        for d in parts[1].split(':')[0].split(','):
            d = d.strip()
            if d and (parts[0], d) not in seen and len(seen) < 400:
                seen.add((parts[0], d))
                print(parts[0], 0, d, int(d) % 3)
" > qrels.txt
head -150 "$LOG" > train-half.txt
tail -150 "$LOG" > test-half.txt
run fs-labels-sdbn clicks fit --quiet --model sdbn --qrels qrels.txt --grade-bootstrap 20 --train "$LOG" --out g/fs-labels-sdbn.json
run fs-labels-dbn clicks fit --quiet --model dbn --qrels qrels.txt --grade-bootstrap 10 --train "$LOG" --out g/fs-labels-dbn.json
run fs-inmem-ubm clicks fit --quiet --model ubm --in-memory --train "$LOG" --out g/fs-inmem-ubm.json
run fs-post-cm clicks fit --quiet --model cm --posterior g/fs-post-cm.json --draws 2 --train "$LOG" --out g/fs-post-cm-model.json
run fs-post-dbn clicks fit --quiet --model dbn --prior uniform --posterior g/fs-post-dbn.json --samples 20 --warmup 10 --chains 2 --train "$LOG" --out g/fs-post-dbn-model.json
run fs-top-ubm clicks fit --quiet --model ubm --top-examination 0.9 --accel none --train "$LOG" --out g/fs-top-ubm.json
run fs-eval-test clicks eval --quiet --model dbn --train train-half.txt --test test-half.txt --save g/fs-eval-test.json
run fs-eval-global clicks eval --quiet --model sdbn --prior global --train "$LOG"
run fs-eval-sampled clicks eval --quiet --model ubm --prior global --samples 20 --warmup 10 --chains 2 --train "$LOG"
run fs-eval-shards clicks eval --quiet --model ubm --shards 2 --train train-half.txt --test test-half.txt
run fs-val-test clicks validate --quiet --model ubm --train train-half.txt --test test-half.txt --replicates 1 --bootstrap 10
run fs-val-global clicks validate --quiet --model cm --prior global --train "$LOG" --replicates 1 --bootstrap 10
run fs-val-shards clicks validate --quiet --model dbn --shards 2 --split interleaved --prior uniform --train "$LOG" --replicates 1 --bootstrap 10
run fs-err-gamma clicks fit --quiet --model ubm --gamma 0.5 --train "$LOG" --out g/fs-x1.json
run fs-err-top clicks fit --quiet --model dbn --top-examination free --train "$LOG" --out g/fs-x2.json
# TREC evaluation.
Q=study_logs/trec/qrels.test
R=study_logs/trec/results.test
# A second run under its own name (the bundled untied copy has the same tag).
awk '{ $6 = "UNTIED"; print }' OFS='\t' study_logs/trec/results_untied.test > untied.test
run eval-all-trec eval -q -m all_trec --format trec "$Q" "$R"
run eval-csv eval -q -m ndcg_cut.5,10 -m P.5 -m map -m recip_rank -m ERR@10 -m RBP -m bpref --format csv "$Q" "$R"
run eval-json eval -m ndcg -m map --format json "$Q" "$R"
run eval-graded eval -q -m all_trec study_logs/metrics/graded_qrels.txt study_logs/metrics/graded_run.txt
run eval-ci eval -m map -m ndcg_cut.10 --ci --seed 3 --resamples 500 "$Q" "$R" untied.test
run eval-test eval -m map --test randomisation --seed 3 --resamples 500 "$Q" "$R" untied.test
run eval-unknown eval -m ndgc_cut.10 "$Q" "$R"
# Scenarios (each report directory holds its manifest).
run sim-default simulate --quiet --replicates 200 --seed 5 --out g/sim-default
for f in simulations/*.toml; do
    n=$(basename "$f" .toml)
    run "sim-$n" simulate --quiet "$f" --replicates 100 --seed 5 --out "g/sim-$n"
done
# Click-model users (src/clickmodels/user.rs): every model fitted on the click log of the
# LETOR-layout sample drives users of that collection (unknown documents: the grade tables, or
# quantile matching), DBN and CCM also with per-grade values fitted on the sample's labels.
CL=study_logs/clicks/letor_dbn_clicks.tsv
awk '{ split($2, q, ":"); for (i = 1; i <= NF; i++) if ($i == "#docid") d = $(i + 2); print q[2], 0, d, $1 }' study_logs/letor/letor_sample.txt > letor.qrels
for m in cm dcm ccm dbn sdbn ubm pbm gctr rctr dctr; do
    run "user-fit-$m" clicks fit --quiet --model "$m" --iterations 5 --format tsv --train "$CL" --out "g/user-$m.json"
done
for m in dbn ccm; do
    run "user-fit-$m-labels" clicks fit --quiet --model "$m" --iterations 5 --format tsv --qrels letor.qrels --grade-bootstrap 0 --train "$CL" --out "g/user-$m-labels.json"
done
{
    printf 'name = "users"\nseed = 7\nreplicates = 30\n\n[collection]\nsource = "letor"\nfile = "study_logs/letor/letor_sample.txt"\n'
    printf 'rankers = [{ name = "bm25", weights = { 25 = 1.0 } }, { name = "lmir-jm", weights = { 40 = 1.0 } }]\n'
    for m in cm dcm ccm dbn sdbn ubm pbm gctr rctr dctr; do
        printf '\n[[profiles]]\nname = "%s"\nclick_model = { file = "g/user-%s.json", unseen = "grade" }\n' "$m" "$m"
        printf 'clicks = { click = [0.25, 0.6, 0.85], stop = [0.15, 0.45, 0.7], mark = [0.0, 0.8, 0.9] }\n'
    done
    for m in dbn ccm ubm; do
        printf '\n[[profiles]]\nname = "%s-quantile"\nclick_model = { file = "g/user-%s.json", unseen = "quantile" }\n' "$m" "$m"
    done
    for m in dbn ccm; do
        printf '\n[[profiles]]\nname = "%s-labels"\nclick_model = { file = "g/user-%s-labels.json", unseen = "labels" }\n' "$m" "$m"
    done
    printf '\n[compare]\npairs = [["bm25", "lmir-jm"]]\n'
} > users.toml
cp users.toml g/users.toml
run sim-users simulate --quiet users.toml --out g/sim-users
# The same models on the TREC-like collection, which they do not cover (quantile matching).
{
    printf 'name = "portable-users"\nseed = 9\nreplicates = 30\n\n[collection]\nsource = "trec"\n'
    printf 'qrels = "%s"\nruns = ["%s"]\n' "$Q" "$R"
    for m in cm dcm ccm dbn sdbn ubm pbm gctr rctr dctr; do
        printf '\n[[profiles]]\nname = "%s"\nclick_model = { file = "g/user-%s.json", unseen = "quantile" }\n' "$m" "$m"
    done
} > portable-users.toml
cp portable-users.toml g/portable-users.toml
run sim-portable-users simulate --quiet portable-users.toml --out g/sim-portable-users
run sim-robust simulate --quiet --users robust --qrels "$Q" --run "$R" --replicates 100 --seed 5 --out g/sim-robust
run sessions-run sessions run --quiet simulations/sessions/maxwell2015.toml --replicates 20 --out g/sessions
# BARACO.
run baraco compare-rankers --log tests/fixtures/baraco/log.tsv --production tests/fixtures/baraco/production.tsv --candidates tests/fixtures/baraco/candidates.tsv
run baraco-bad compare-rankers --log tests/fixtures/baraco/bad_log.tsv --production tests/fixtures/baraco/production.tsv --candidates tests/fixtures/baraco/candidates.tsv
# Every file, in a fixed order.
(cd g && find . -type f | LC_ALL=C sort | xargs sha256sum) > "$OUT/SHA256SUMS"
cp -r g/. "$OUT/"
echo "$(wc -l < "$OUT/SHA256SUMS") files; nonzero exits: $(grep -L '^0$' "$OUT"/*.rc | wc -l)" >&2
