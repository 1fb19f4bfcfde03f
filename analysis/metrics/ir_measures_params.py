"""Expected values for ir_measures' parameter spellings (issue 14: `RBP(p=0.8)`, `RBP(rel=2,p=0.8)`,
`RBP(p=0.8)@10`, `ERR@10`, `P(rel=2)@5`, ...), computed by ir_measures' own back ends.

    python analysis/metrics/ir_measures_params.py

Writes, from the bundled runs, tie-free copies (each run's rows in trec_eval's order, score
descending then docno descending, with the scores replaced by n, n-1, ..., 1: the same ranking,
no ties), because ir_measures' RBP back ends break ties differently (trectools averages the
rank weights of tied documents, cwl_eval keeps file order, trec_eval sorts by docno):

- study_logs/trec/results_untied.test (from study_logs/trec/results.test)
- study_logs/metrics/graded_run_untied.txt (from study_logs/metrics/graded_run.txt)

and prints study_logs/metrics/ir_measures_params.json: per measure and run, the per-topic values
and the mean, from the provider named (trectools for RBP without rel, cwl_eval for RBP with rel,
gdeval for ERR, pytrec_eval for the trec_eval family), with the versions.
Needs `pip install ir_measures trectools cwl-eval` (only here; the tests read the JSON).
"""

import importlib.metadata
import json
import os

import ir_measures

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def untie(src, dst):
    rows = [l.split() for l in open(os.path.join(ROOT, src)) if l.strip()]
    by_topic = {}
    for r in rows:
        by_topic.setdefault(r[0], []).append(r)
    out = []
    for t in sorted(by_topic):
        rs = sorted(by_topic[t], key=lambda r: r[2], reverse=True)  # docno descending ...
        rs = sorted(rs, key=lambda r: float(r[4]), reverse=True)  # ... within score descending (stable)
        n = len(rs)
        for i, r in enumerate(rs):
            out.append(f"{t} Q0 {r[2]} {i + 1} {n - i} {r[5] if len(r) > 5 else 'run'}\n")
    with open(os.path.join(ROOT, dst), "w") as f:
        f.writelines(out)


CASES = {
    # (qrels, run): measures
    ("study_logs/trec/qrels.test", "study_logs/trec/results_untied.test"): [
        ("RBP(p=0.8)", "trectools"),
        ("RBP(p=0.5)", "trectools"),
        ("RBP(p=0.8)@10", "trectools"),
        ("RBP(rel=1,p=0.8)", "cwl_eval"),
        ("RBP(rel=2,p=0.8)", "cwl_eval"),
        ("ERR@10", "gdeval"),
        ("P(rel=1)@5", "pytrec_eval"),
        ("nDCG@10", "pytrec_eval"),
    ],
    ("study_logs/metrics/graded_qrels.txt", "study_logs/metrics/graded_run_untied.txt"): [
        ("RBP(p=0.8)", "trectools"),
        ("RBP(p=0.8)@10", "trectools"),
        ("RBP(rel=2,p=0.8)", "cwl_eval"),
        ("ERR@10", "gdeval"),
        ("P(rel=2)@5", "pytrec_eval"),
        ("AP(rel=2)", "pytrec_eval"),
        ("nDCG@10", "pytrec_eval"),
    ],
}


def main():
    untie("study_logs/trec/results.test", "study_logs/trec/results_untied.test")
    untie("study_logs/metrics/graded_run.txt", "study_logs/metrics/graded_run_untied.txt")
    versions = {p: importlib.metadata.version(p) for p in ["ir_measures", "trectools", "cwl-eval", "pytrec-eval-terrier"]}
    result = {"command": "python analysis/metrics/ir_measures_params.py", "versions": versions, "cases": []}
    for (q, r), measures in CASES.items():
        qrels = list(ir_measures.read_trec_qrels(os.path.join(ROOT, q)))
        run = list(ir_measures.read_trec_run(os.path.join(ROOT, r)))
        for name, provider in measures:
            m = ir_measures.parse_measure(name)
            prov = ir_measures.providers.registry[provider]
            per = {x.query_id: float(x.value) for x in prov.iter_calc([m], qrels, run)}
            mean = float(prov.calc_aggregate([m], qrels, run)[m])
            result["cases"].append({"qrels": q, "run": r, "measure": name, "provider": provider, "per_topic": per, "mean": mean})
    print(json.dumps(result, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
