"""trec_eval parity fixture for serpsim's metrics.

Computes map, P_5, P_10, recip_rank, Rprec, ndcg and ndcg_cut_10 with pytrec_eval (which wraps
trec_eval's C code) on
  1. study_logs/trec/qrels.test + results.test (the project's own 50-topic collection, grades 0-2,
     analysis/metrics/make_trec_collection.py), and
  2. study_logs/metrics/graded_qrels.txt + graded_run.txt, a small graded case written by this
     script (seed 20260522): grades 0-3, unjudged documents, tied scores, a qrels topic the run
     does not retrieve for, a run topic without judgements, a topic without relevant documents.
Writes study_logs/metrics/trec_parity.json: per case, per topic and "all" (the mean over the
topics pytrec_eval returns: the topics of the run that have judgements, trec_eval's default).

Usage (from the repository root):  pip install pytrec_eval-terrier && python3 analysis/metrics/trec_parity.py
"""
import json
import random
import pytrec_eval

MEASURES = ["map", "P_5", "P_10", "recip_rank", "Rprec", "ndcg", "ndcg_cut_10"]
TREC_MEASURES = {"map", "P", "recip_rank", "Rprec", "ndcg", "ndcg_cut"}


def read_qrels(path):
    q = {}
    for line in open(path):
        f = line.split()
        if f:
            q.setdefault(f[0], {})[f[2]] = int(f[3])
    return q


def read_run(path):
    r = {}
    for line in open(path):
        f = line.split()
        if f:
            r.setdefault(f[0], {})[f[2]] = float(f[4])
    return r


def write_graded(qpath, rpath):
    rng = random.Random(20260522)
    ql, rl = [], []
    for t in range(1, 9):
        topic = str(100 + t)
        docs = [f"D{t}-{i:03d}" for i in range(60)]
        judged = rng.sample(docs, 40)
        for d in judged:
            g = 0 if t == 5 else rng.choice([0, 0, 0, 1, 1, 2, 3])
            ql.append(f"{topic} 0 {d} {g}")
        if t == 8:
            continue  # judged but never retrieved
        ranked = rng.sample(docs, 35)
        for i, d in enumerate(ranked):
            score = round(rng.uniform(0, 5), 1)  # one decimal: many ties
            rl.append(f"{topic} Q0 {d} {i + 1} {score} graded")
    for i in range(5):  # a run topic without judgements
        rl.append(f"999 Q0 X-{i} {i + 1} {5 - i} graded")
    open(qpath, "w").write("\n".join(ql) + "\n")
    open(rpath, "w").write("\n".join(rl) + "\n")


def evaluate(qrels, run):
    ev = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES)
    res = ev.evaluate(run)
    per_topic = {t: {m: res[t][m] for m in MEASURES} for t in sorted(res)}
    overall = {m: sum(v[m] for v in per_topic.values()) / len(per_topic) for m in MEASURES}
    return {"per_topic": per_topic, "all": overall}


def main():
    gq, gr = "study_logs/metrics/graded_qrels.txt", "study_logs/metrics/graded_run.txt"
    write_graded(gq, gr)
    cases = {
        "trec_test": ("study_logs/trec/qrels.test", "study_logs/trec/results.test"),
        "graded": (gq, gr),
    }
    out = {"tool": f"pytrec_eval-terrier {getattr(pytrec_eval, '__version__', '?')}", "measures": MEASURES, "cases": {}}
    for name, (q, r) in cases.items():
        res = evaluate(read_qrels(q), read_run(r))
        res["qrels"], res["run"] = q, r
        out["cases"][name] = res
    with open("study_logs/metrics/trec_parity.json", "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    for name, c in out["cases"].items():
        print(name, json.dumps(c["all"]))


if __name__ == "__main__":
    main()
