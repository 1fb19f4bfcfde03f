#!/usr/bin/env bash
# Convergence on the many-pairs log (issue 28, acceptance 3): DBN and UBM fitted on a
# generated training log (`clicks generate`, seed 1) and evaluated on a held-out log of the
# same population (same --world, seed 2), with the default stopping rule (tolerance 1e-4 +
# SQUAREM) and with 50 plain passes (`--tolerance 0 --iterations 50`). Prints, per model and
# run, the passes used and the held-out log-likelihood (mean per test session, over the test
# sessions whose query was seen in training), and whether the default fit is within 1e-4 of the
# 50-pass fit in at most a third of the passes.
#
#   benches/em_converge_manypairs.sh [TRAIN_SESSIONS] [TEST_SESSIONS]
#
# Defaults: 1,000,000 training and 200,000 test sessions (the generator's other defaults:
# 300,000 queries, 15 candidates per query, 10 results). The logs go to /tmp. The binary is
# target/release/serpsim or $SERPSIM.
set -euo pipefail
train_n=${1:-1000000}
test_n=${2:-200000}
bin=${SERPSIM:-target/release/serpsim}
[ -x "$bin" ] || { echo "no binary at $bin: run cargo build --release" >&2; exit 1; }
train=/tmp/serpsim_manypairs_train_$train_n.txt
test=/tmp/serpsim_manypairs_test_$test_n.txt
[ -f "$train" ] || "$bin" --quiet clicks generate --sessions "$train_n" --seed 1 --out "$train" > /dev/null
[ -f "$test" ] || "$bin" --quiet clicks generate --sessions "$test_n" --seed 2 --out "$test" > /dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "train $train ($train_n sessions), test $test ($test_n sessions); uptime: $(uptime)"
printf '%-5s %-8s %7s %14s %14s %8s\n' model run passes held_out_ll test_sessions cpu_s
for model in dbn ubm; do
  for run in default plain50; do
    args=""
    [ "$run" = plain50 ] && args="--tolerance 0 --iterations 50"
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S" "$bin" clicks eval --model "$model" --train "$train" --test "$test" $args \
      > "$out/$model-$run.json" 2> "$out/$model-$run.err" || { cat "$out/$model-$run.err" >&2; exit 1; }
    passes=$(grep -o 'EM: [0-9]* of' "$out/$model-$run.err" | grep -o '[0-9]*' | head -1)
    read -r ll tests < <(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['log_likelihood'], d['test_sessions'])" "$out/$model-$run.json")
    cpu=$(tail -1 "$out/$model-$run.err" | awk '{print $1 + $2}')
    printf '%-5s %-8s %7s %14.6f %14s %8s\n' "$model" "$run" "$passes" "$ll" "$tests" "$cpu"
    echo "$passes $ll" > "$out/$model-$run.txt"
  done
  read -r p_def ll_def < "$out/$model-default.txt"
  read -r p_50 ll_50 < "$out/$model-plain50.txt"
  python3 - "$model" "$p_def" "$ll_def" "$p_50" "$ll_50" <<'EOF'
import sys
m, p, ll, p50, ll50 = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
ok = ll >= ll50 - 1e-4 and 3 * p <= p50
print(f"{m}: default {p} passes, held-out LL {ll:.6f}; 50 plain passes {ll50:.6f}; difference {ll - ll50:+.6f}; "
      f"{'MET' if ok else 'NOT MET'} (within 1e-4 in at most a third of the passes)")
EOF
done
echo "uptime after: $(uptime)"
