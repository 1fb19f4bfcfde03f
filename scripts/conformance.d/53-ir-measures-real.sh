#!/usr/bin/env bash
# ir_measures' parameter spellings on trec_eval's real test qrels and run, as
# tests/metrics_cli.rs checks them on the project's own collection: a tie-free copy of the run
# (rows in trec_eval's order, score descending then docno descending, scores replaced by
# n, ..., 1, as analysis/metrics/ir_measures_params.py writes it), and ir_measures' own back
# ends computed at check time (pip-installed here if missing: ir-measures, trectools, cwl-eval):
# trectools for RBP(p=..), cwl_eval for RBP(rel=..), gdeval for ERR@10, pytrec_eval otherwise.
# Per topic and mean (ir_measures scores every qrels topic: serpsim's -c), to 1e-12, gdeval 5e-6, plus 5e-10 relative (serpsim prints 10 significant digits).
set -euo pipefail
need trec/qrels.test trec/results.test
python3 -c 'import importlib.metadata as m; [m.version(p) for p in ("ir_measures", "trectools", "cwl-eval")]' 2>/dev/null || python3 -m pip install --quiet ir-measures trectools cwl-eval >&2
q="$DATA/trec/qrels.test"
python3 - "$DATA/trec/results.test" "$WORK/untied.run" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in rows:
    by.setdefault(r[0], []).append(r)
with open(sys.argv[2], "w") as f:
    for t in sorted(by):
        rs = sorted(by[t], key=lambda r: r[2], reverse=True)
        rs = sorted(rs, key=lambda r: float(r[4]), reverse=True)
        for i, r in enumerate(rs):
            f.write(f"{t} Q0 {r[2]} {i + 1} {len(rs) - i} {r[5]}\n")
PY
fail=0
for spec in "RBP(p=0.8) trectools" "RBP(p=0.5) trectools" "RBP(p=0.8)@10 trectools" "RBP(rel=1,p=0.8) cwl_eval" \
            "ERR@10 gdeval" "P(rel=1)@5 pytrec_eval" "nDCG@10 pytrec_eval"; do
  set -- $spec
  "$SERPSIM" --quiet eval -q -c --format csv -m "$1" "$q" "$WORK/untied.run" > "$WORK/irm_serpsim.csv"
  python3 - "$1" "$2" "$q" "$WORK/untied.run" "$WORK/irm_serpsim.csv" <<'PY' || fail=1
import csv, sys
import ir_measures
name, provider, qpath, rpath, ours = sys.argv[1:]
m = ir_measures.parse_measure(name)
prov = ir_measures.providers.registry[provider]
qrels = list(ir_measures.read_trec_qrels(qpath))
run = list(ir_measures.read_trec_run(rpath))
want = {x.query_id: float(x.value) for x in prov.iter_calc([m], qrels, run)}
want["all"] = float(prov.calc_aggregate([m], qrels, run)[m])
got = {row["topic"]: float(row["value"]) for row in csv.DictReader(open(ours))}
tol = 5e-6 if provider == "gdeval" else 1e-12
bad = [f"{name} {t}: serpsim {got.get(t)} vs {provider} {v}" for t, v in sorted(want.items()) if t not in got or abs(got[t] - v) > tol + 5e-10 * abs(v)]
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
print(f"   {name}: {len(want)} values equal ir_measures ({provider})")
PY
done
exit "$fail"
