"""Builds tests/fixtures/sessions/qrels.test and variants.run: three query variants per topic
(`301.1`, ...) for topics 301-303 of the project's own bundled collection
(study_logs/trec/qrels.test and results.test, written by analysis/metrics/make_trec_collection.py).
qrels.test holds those topics' judgements (grades 0-2). Variant 1 is the run itself; variants 2
and 3 rescore each document with deterministic noise (a hash of docno and variant), so the
variants share documents but rank them differently. Keeps the top 100 per variant.

Usage (repository root):  python3 analysis/sessions/make_variants.py"""
import hashlib
from collections import defaultdict

TOPICS = {"301", "302", "303"}
qrels = [l for l in open("study_logs/trec/qrels.test") if l.split() and l.split()[0] in TOPICS]
open("tests/fixtures/sessions/qrels.test", "w").writelines(qrels)
rows = defaultdict(list)
for line in open("study_logs/trec/results.test"):
    f = line.split()
    if len(f) == 6 and f[0] in TOPICS:
        rows[f[0]].append((f[2], float(f[4])))
out = []
for topic in sorted(rows):
    for v in (1, 2, 3):
        scored = []
        for doc, s in rows[topic]:
            h = int(hashlib.sha256(f"{doc}:{v}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
            scored.append((doc, s if v == 1 else s + (v - 1) * 0.8 * (h - 0.5)))
        scored.sort(key=lambda x: (-x[1], x[0]))
        for rank, (doc, s) in enumerate(scored[:100], 1):
            out.append(f"{topic}.{v} Q0 {doc} {rank} {s:.6f} variants\n")
open("tests/fixtures/sessions/variants.run", "w").writelines(out)
print(len(qrels), "judgements,", len(out), "lines")
