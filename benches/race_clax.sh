#!/usr/bin/env bash
# A fair, non-degenerate race between serpsim's EM fit of DBN and CLAX's gradient-descent DBN
# (issue 41, item 4), on logs with millions of distinct (query, document) pairs whose click
# parameters come from a model fitted to the public Yandex sample (not repeats of it):
#
# 1. `serpsim clicks fit --model dbn` on the public sample ($SAMPLE); the model file stays in
#    $RACE_DIR (never in the repository: it is derived from public data);
# 2. `serpsim clicks generate --params-from` that model: a training, a validation and a test
#    log (same --world, seeds 1, 2, 3); the pair count the training fit prints and the distinct
#    sessions (`sort -u`) are reported;
# 3. serpsim: `clicks fit` at --threads 1 and 2 with its default stopping (wall and peak RSS
#    from /usr/bin/time -v, EM passes; the model files must be identical), then `clicks eval
#    --test` on the validation and on the test log (held-out log-likelihood);
# 4. CLAX (benches/race_clax.py, on the CPU: JAX_PLATFORMS=cpu): trained epoch by epoch,
#    stopped at the best epoch on the validation log (once an epoch is worse; at most
#    $MAX_EPOCHS), scored on the test log;
# 5. one table, with the load average before and after.
#
#   benches/race_clax.sh
#
# Environment (defaults): SESSIONS (10000000) training sessions; VAL_SESSIONS and
# TEST_SESSIONS (SESSIONS / 5 each); QUERIES (300000; with SESSIONS=10^7 the training log has
# over 2,000,000 distinct pairs, and a warning is printed when the fit reports fewer than
# MIN_PAIRS, 2000000); WORLD (1); THREADS ("1 2", serpsim); CLAX_THREADS ("2": all cores of
# a 2-core machine; "1" runs CLAX under `taskset -c 0` with XLA's intra-op threads at 1);
# MAX_EPOCHS (5); PRIORS ("uniform eb": serpsim's --prior, rows s-uniform and s-eb); CHECK_LL (1: score serpsim's fitted model through race_clax.py too, which
# must give serpsim's own log-likelihoods; 0 skips it); SAMPLE ($SERPSIM_DATA/clicks/yandex_sample_train.txt, SERPSIM_DATA
# defaulting to /work/shared/data); RACE_DIR (/tmp/serpsim_race: logs are kept there for the
# next run and regenerated when the public fit is newer); SERPSIM (target/release/serpsim);
# CLAX_PYTHON (python3) with CLAX installed, e.g. in a virtual environment outside the
# repository (the versions this was run with; `clax-models`, not the unrelated `clax`, and
# without its torch requirement, which race_clax.py stubs out):
#
#   python3 -m venv /tmp/clax-venv
#   /tmp/clax-venv/bin/pip install --no-deps clax-models==0.1.1
#   /tmp/clax-venv/bin/pip install jax==0.7.1 jaxlib==0.7.1 flax==0.11.2 optax==0.2.8 \
#       rax==0.4.0 pandas progress-table
#   CLAX_PYTHON=/tmp/clax-venv/bin/python SESSIONS=200000 benches/race_clax.sh
#
# The log-likelihood is serpsim's in both rows (docs/clickmodels.md, "Evaluation"): mean over
# held-out sessions of the mean over ranks of ln P(c_r | clicks above), on the sessions whose
# query occurs in the training log; race_clax.py's docstring says how CLAX's is made to match.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${SERPSIM:-$here/../target/release/serpsim}
py=${CLAX_PYTHON:-python3}
sessions=${SESSIONS:-10000000}
val_sessions=${VAL_SESSIONS:-$((sessions / 5))}
test_sessions=${TEST_SESSIONS:-$((sessions / 5))}
queries=${QUERIES:-300000}
world=${WORLD:-1}
threads=${THREADS:-1 2}
clax_threads=${CLAX_THREADS:-2}
max_epochs=${MAX_EPOCHS:-5}
priors=${PRIORS:-uniform eb}
min_pairs=${MIN_PAIRS:-2000000}
sample=${SAMPLE:-${SERPSIM_DATA:-/work/shared/data}/clicks/yandex_sample_train.txt}
dir=${RACE_DIR:-/tmp/serpsim_race}
[ -x "$bin" ] || { echo "no binary at $bin: run cargo build --release --bin serpsim" >&2; exit 1; }
[ -f "$sample" ] || { echo "no public sample at $sample (set SAMPLE or SERPSIM_DATA)" >&2; exit 1; }
"$py" -c 'import clax, jax, flax, optax' 2> /dev/null \
  || "$py" -c 'import sys, types; [sys.modules.setdefault(n, types.ModuleType(n)) for n in ("torch", "torch.utils", "torch.utils.data")]; sys.modules["torch.utils.data"].DataLoader = object; import clax, jax, flax, optax' \
  || { echo "$py cannot import clax (clax-models), jax, flax, optax: see the install lines at the top of $0" >&2; exit 1; }
mkdir -p "$dir"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
jget() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d[sys.argv[2]])' "$1" "$2"; }
secs() { awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$1"; }
rss_mb() { awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$1"; }

load_before=$(uptime)
echo "$(nproc) cores; uptime before: $load_before"

# 1. The public fit.
model=$dir/public_dbn.json
if [ ! -f "$model" ] || [ "$sample" -nt "$model" ]; then
  "$bin" --quiet clicks fit --model dbn --train "$sample" --out "$model" > /dev/null 2> "$out/pubfit.txt" \
    || { cat "$out/pubfit.txt" >&2; exit 1; }
fi
echo "public fit: $model ($(python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(len(m["pairs"]), "pairs, gamma", m["scalars"]["gamma"])' "$model"))"

# 2. The generated logs.
gen() { # NAME SESSIONS SEED
  local f=$dir/$1_s$2_q${queries}_w${world}_seed$3.txt
  if [ ! -f "$f" ] || [ "$model" -nt "$f" ]; then
    echo "writing $f" >&2
    "$bin" --quiet clicks generate --sessions "$2" --queries "$queries" --world "$world" --seed "$3" --params-from "$model" --out "$f" > /dev/null
  fi
  echo "$f"
}
train=$(gen train "$sessions" 1)
val=$(gen val "$val_sessions" 2)
test=$(gen test "$test_sessions" 3)
distinct=$(LC_ALL=C sort -u -S 25% --parallel=2 -T "$dir" "$train" | wc -l)
echo "training log: $train ($sessions sessions, $distinct distinct sessions: $(awk -v a="$sessions" -v b="$distinct" 'BEGIN {printf "%.2f", a/b}') sessions per distinct one; $(wc -c < "$train") bytes)"
echo "validation log: $val ($val_sessions sessions); test log: $test ($test_sessions sessions)"

rows=()
# 3. serpsim, with each prior of $priors.
for prior in $priors; do
for t in $threads; do
  /usr/bin/time -v "$bin" clicks fit --model dbn --prior "$prior" --threads "$t" --train "$train" --out "$out/serpsim-$t.json" \
    > /dev/null 2> "$out/fit-$t.txt" || { cat "$out/fit-$t.txt" >&2; exit 1; }
  passes=$(grep -o 'EM: [0-9]* of at most' "$out/fit-$t.txt" | awk '{print $2}')
  pairs=$(sed -n 's/.*fitted dbn on [0-9]* sessions (\([0-9]*\) query-document pairs).*/\1/p' "$out/fit-$t.txt")
  fit_wall[t]=$(secs "$out/fit-$t.txt")
  fit_rss[t]=$(rss_mb "$out/fit-$t.txt")
  fit_passes[t]=$passes
  echo "serpsim fit --threads $t: $(grep -E '^EM:' "$out/fit-$t.txt")"
done
first=${threads%% *}
for t in $threads; do
  cmp -s "$out/serpsim-$first.json" "$out/serpsim-$t.json" || { echo "serpsim model files DIFFER between --threads $first and $t" >&2; exit 1; }
done
echo "serpsim: $pairs distinct (query, document) pairs in the training log; model files identical at --threads ${threads// /, }"
[ "$pairs" -ge "$min_pairs" ] || echo "WARNING: $pairs distinct pairs, fewer than $min_pairs (raise QUERIES or SESSIONS)"
dedup=$(grep -h 'counted once' "$out"/fit-*.txt | head -1 || true)
echo "serpsim dedup line: ${dedup:-none printed (this build has no dedup factor line)}"
grep -h 'parsed once' "$out/fit-$first.txt" || true
eval_t=${threads##* }
for which in val test; do
  f=$val; [ $which = test ] && f=$test
  "$bin" clicks eval --model dbn --prior "$prior" --threads "$eval_t" --train "$train" --test "$f" > "$out/eval-$which.json" 2> "$out/eval-$which.txt" \
    || { cat "$out/eval-$which.txt" >&2; exit 1; }
  p=$(grep -o 'EM: [0-9]* of at most' "$out/eval-$which.txt" | awk '{print $2}')
  [ "$p" = "${fit_passes[$first]}" ] || echo "WARNING: clicks eval fitted in $p passes, clicks fit in ${fit_passes[$first]}"
done
s_val=$(jget "$out/eval-val.json" log_likelihood)
s_test=$(jget "$out/eval-test.json" log_likelihood)
s_nval=$(jget "$out/eval-val.json" test_sessions)
s_ntest=$(jget "$out/eval-test.json" test_sessions)
if [ "${CHECK_LL:-1}" = 1 ] && [ "$prior" = uniform ]; then
  # The definition check: serpsim's fitted model scored by race_clax.py (CLAX's
  # predict_conditional_clicks and its log-likelihood) must give serpsim's numbers.
  JAX_PLATFORMS=cpu "$py" "$here/race_clax.py" --score-serpsim "$out/serpsim-$first.json" "$train" "$val" "$test" > "$out/check.json" 2> "$out/check.txt" \
    || { cat "$out/check.txt" >&2; exit 1; }
  python3 - "$out/check.json" "$s_val" "$s_test" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for name, ours in (("val", float(sys.argv[2])), ("test", float(sys.argv[3]))):
    theirs = d[f"serpsim_model_{name}_ll"]
    print(f"definition check ({name}): serpsim's model, serpsim eval {ours:.10f}, scored through CLAX {theirs:.10f}, difference {abs(ours - theirs):.1e}")
PY
fi
for t in $threads; do
  rows+=("$(printf '%-8s %7s %12s %9s %14s %11.6f %11.6f' "s-$prior" "$t" "${fit_wall[t]}" "${fit_rss[t]}" "${fit_passes[t]} passes" "$s_val" "$s_test")")
done
done

# 4. CLAX.
for t in $clax_threads; do
  pre=(); xla=${XLA_FLAGS:-}
  if [ "$t" = 1 ]; then pre=(taskset -c 0); xla="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1 $xla"; fi
  JAX_PLATFORMS=cpu XLA_FLAGS=$xla /usr/bin/time -v "${pre[@]}" "$py" "$here/race_clax.py" --max-epochs "$max_epochs" "$train" "$val" "$test" \
    > "$out/clax-$t.json" 2> "$out/clax-$t.txt" || { cat "$out/clax-$t.txt" >&2; exit 1; }
  grep '^clax epoch' "$out/clax-$t.txt" | sed "s/^/  (threads $t) /"
  j=$out/clax-$t.json
  c_wall=$(jget "$j" wall_to_best_s)
  rows+=("$(printf '%-8s %7s %12.1f %9s %14s %11.6f %11.6f' clax "$t" "$c_wall" "$(rss_mb "$out/clax-$t.txt")" "$(jget "$j" best_epoch) of $(jget "$j" epochs_run) ep." "$(jget "$j" val_ll)" "$(jget "$j" test_ll)")")
  echo "clax threads $t: read train+val $(printf '%.1f' "$(jget "$j" read_train_val_s)") s, model init $(printf '%.1f' "$(jget "$j" init_s)") s, compile $(printf '%.1f' "$(jget "$j" compile_s)") s, epochs to the best $(printf '%.1f' "$(jget "$j" train_to_best_s)") s (all epochs $(printf '%.1f' "$(jget "$j" train_all_s)") s), process $(secs "$out/clax-$t.txt") s incl. imports and test; gamma $(printf '%.4f' "$(jget "$j" gamma)")"
  echo "clax threads $t: LL per document (CLAX's metric) val $(printf '%.6f' "$(jget "$j" val_ll_per_doc)") test $(printf '%.6f' "$(jget "$j" test_ll_per_doc)"); with CLAX's own value for unseen pairs val $(printf '%.6f' "$(jget "$j" val_ll_native_unseen)") test $(printf '%.6f' "$(jget "$j" test_ll_native_unseen)")"
  c_nval=$(jget "$j" val_sessions); c_ntest=$(jget "$j" test_sessions)
  [ "$c_nval $c_ntest" = "$s_nval $s_ntest" ] || echo "WARNING: held-out sessions differ: serpsim $s_nval / $s_ntest, clax $c_nval / $c_ntest"
done

# 5. The table.
echo
echo "held-out sessions (queries seen in training): validation $s_nval of $val_sessions, test $s_ntest of $test_sessions"
printf '%-8s %7s %12s %9s %14s %11s %11s\n' tool threads wall_fit_s peak_MB passes/epochs val_LL test_LL
printf '%s\n' "${rows[@]}"
echo "uptime before: $load_before"
echo "uptime after:  $(uptime)"
