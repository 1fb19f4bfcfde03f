#!/usr/bin/env python3
"""Builds the logged SERPs and the hand-set "true" click model from which the click log of
the combined scenario is drawn (see simulations/combined/README.md).

The project's own LETOR-layout file (study_logs/letor/letor_sample.txt, written from a seed by
study_logs/tools/make_letor_sample.py) has judged documents and features but no clicks. A
production system is imagined that showed, for each of the 36 queries, 200 result pages, each
the top 10 of one of five linear rankers over the features that play LETOR 4.0's
whole-document scores (TF*IDF 15, BM25 25, LMIR.ABS 30, LMIR.DIR 35, LMIR.JM 40), chosen
uniformly at random (seed 2015). Users click by a DBN whose parameters depend on the judged
grade (attractiveness 0.25 / 0.6 / 0.85, satisfaction 0.15 / 0.45 / 0.7 for grades 0 / 1 / 2,
continuation 0.85). `serpsim clicks simulate` draws the clicks; `serpsim clicks fit` fits the
DBN the scenario uses. Standard library only.

Writes: target/combined/letor_serps.tsv (the SERPs, no clicks; not kept) and
simulations/combined/true_dbn.json (the generating model). Run simulations/combined/make.sh.
"""
import json
import random
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
letor = root / "study_logs/letor/letor_sample.txt"
queries = {}
order = []
for line in letor.read_text().splitlines():
    body, _, comment = line.partition("#")
    f = body.split()
    if not f:
        continue
    grade, qid = int(f[0]), f[1].split(":")[1]
    feats = {int(k): float(v) for k, v in (x.split(":") for x in f[2:])}
    docid = comment.split("docid =")[1].split()[0]
    if qid not in queries:
        queries[qid] = []
        order.append(qid)
    queries[qid].append((docid, grade, feats))

RANKERS = [15, 25, 30, 35, 40]
ATTRACT = [0.25, 0.6, 0.85]
SATISFY = [0.15, 0.45, 0.7]
rng = random.Random(2015)
serps = []
for qid in order:
    docs = queries[qid]
    for i in range(200):
        feature = rng.choice(RANKERS)
        ranked = sorted(range(len(docs)), key=lambda d: -docs[d][2].get(feature, 0.0))  # stable: ties keep file order
        serps.append((f"{qid}-{i + 1}", qid, [docs[d][0] for d in ranked[:10]]))

out = root / "target/combined/letor_serps.tsv"
out.parent.mkdir(parents=True, exist_ok=True)
with out.open("w") as w:
    w.write("session_id\tquery\tdocuments\tclicks\n")
    for sid, qid, ds in serps:
        w.write(f"{sid}\t{qid}\t{','.join(ds)}\t{','.join('0' for _ in ds)}\n")

pairs = []
for qid in order:
    for docid, grade, _ in queries[qid]:
        g = min(max(grade, 0), 2)
        pairs.append([qid, docid, ATTRACT[g], SATISFY[g]])
head = '{"format": "serpsim-click-model", "model": "dbn", "scalars": {"gamma": 0.85}, "ranks": {}, "matrices": {},\n'
head += ' "pair_params": ["attractiveness", "satisfaction"],\n "pairs": [\n'
body = ",\n".join("  " + json.dumps(p) for p in pairs)
(root / "simulations/combined/true_dbn.json").write_text(head + body + "\n ]}\n")
json.loads((root / "simulations/combined/true_dbn.json").read_text())
print(f"{len(serps)} SERPs over {len(order)} queries; {len(pairs)} pairs", file=sys.stderr)
