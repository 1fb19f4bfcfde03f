#!/usr/bin/env bash
# trec_eval parity on trec_eval's real test qrels and run (not bundled: the repository carries
# the project's own collection in study_logs/trec/). Expected values: trec_eval's C code as
# pytrec_eval-terrier runs it (installed with pip here if missing), computed at check time, for
# map, P_5, P_10, recip_rank, Rprec, ndcg and ndcg_cut_10, per topic and `all` (the mean over
# the topics pytrec_eval returns, trec_eval's default). serpsim's CSV prints 10 significant
# digits (README's number rule); the comparison is to 5e-10 relative plus 1e-12 (summation order).
set -euo pipefail
need trec/qrels.test trec/results.test
python3 -c 'import pytrec_eval' 2>/dev/null || python3 -m pip install --quiet pytrec_eval-terrier >&2
q="$DATA/trec/qrels.test"
r="$DATA/trec/results.test"
measures="map P_5 P_10 recip_rank Rprec ndcg ndcg_cut_10"
args=()
for m in $measures; do args+=(-m "$m"); done
"$SERPSIM" --quiet eval -q --format csv "${args[@]}" "$q" "$r" > "$WORK/parity_serpsim.csv"
# Then every other per-topic value pytrec_eval computes, against `-m all_trec -q`, except where
# the two trec_eval generations differ by definition (pytrec_eval-terrier follows trec_eval 9's
# truncating iprec_at_recall and 11pt_avg; serpsim follows trec_eval 10, which rounds: see
# tests/fixtures/trec_eval/README.md), relstring (a string) and the measures trec_eval prints
# only as a summary (gm_map, gm_bpref, num_q, runid).
"$SERPSIM" --quiet eval -q --format csv -m all_trec "$q" "$r" > "$WORK/parity_all_trec.csv"
python3 - "$q" "$r" "$WORK/parity_serpsim.csv" "$WORK/parity_all_trec.csv" $measures <<'PY'
import csv, sys
import pytrec_eval
qpath, rpath, ours, ours_all, *measures = sys.argv[1:]
qrels, run = {}, {}
for line in open(qpath):
    f = line.split()
    if f:
        qrels.setdefault(f[0], {})[f[2]] = int(f[3])
for line in open(rpath):
    f = line.split()
    if f:
        run.setdefault(f[0], {})[f[2]] = float(f[4])


def differences(want, got):
    return [f"{m} {t}: serpsim {got.get((m, t))} vs pytrec_eval {v}" for (m, t), v in sorted(want.items())
            if (m, t) not in got or abs(got[(m, t)] - v) > 1e-12 + 5e-10 * abs(v)]


res = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P", "recip_rank", "Rprec", "ndcg", "ndcg_cut"}).evaluate(run)
want = {}
for m in measures:
    for t in res:
        want[(m, t)] = res[t][m]
    want[(m, "all")] = sum(res[t][m] for t in res) / len(res)
got = {}
for row in csv.DictReader(open(ours)):
    got[(row["metric"], row["topic"])] = float(row["value"])
bad = differences(want, got)
extra = sorted(set(got) - set(want))
if bad or extra:
    print("\n".join(bad[:20] + [f"serpsim only: {k}" for k in extra[:5]]), file=sys.stderr)
    sys.exit(1)
print(f"   {len(want)} values equal pytrec_eval-terrier {getattr(pytrec_eval, '__version__', '')} ({len(res)} topics)")

res = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures).evaluate(run)
skip = lambda m: m.startswith("iprec_at_recall") or m in {"11pt_avg", "relstring", "gm_map", "gm_bpref", "num_q", "runid"}
got = {(row["metric"], row["topic"]): float(row["value"]) for row in csv.DictReader(open(ours_all)) if row["topic"] != "all"}
want = {(m, t): v for t in res for m, v in res[t].items() if not skip(m)}
bad = differences(want, got)
if bad or len(want) < 200:
    print("\n".join(bad[:20]) or f"only {len(want)} values compared", file=sys.stderr)
    sys.exit(1)
print(f"   all_trec: {len(want)} per-topic values of {len({m for m, _ in want})} measures equal pytrec_eval")
PY
