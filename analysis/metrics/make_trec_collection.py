"""Writes the project's own TREC-like collection, study_logs/trec/qrels.test and
study_logs/trec/results.test (the bundled collection the default scenario embeds, and the
source of tests/fixtures/trec_eval/ and tests/fixtures/sessions/). Seeded, standard library only:
nothing here is taken from a TREC collection or from trec_eval's test suite.

The collection (seed 20261127):
  * 50 topics, 301-350. Each topic draws 200 candidate documents from a shared document space
    (ids in three layouts of different lengths: `NW89-01234`, `WR004567`, `GV-012-0345`, so
    that docno order, which trec_eval uses to break score ties, is not numeric order). Each
    candidate has a latent grade 0, 1 or 2; the share of relevant documents varies by topic
    (2 % to 20 %), and every topic has at least one relevant document.
  * qrels.test: graded judgements 0-2, one line per judged document (`301 0 NW89-01234 2`,
    space-separated, sorted by topic and docno). Judged are the pool of the run's top 30
    documents, every relevant candidate with probability 0.85 and every other candidate
    with probability 0.35: the run holds unjudged documents, and some relevant documents are
    never retrieved.
  * results.test: one run, tag STANDARD, scoring each candidate w_t * grade + N(0, 1) with a
    per-topic quality w_t in [0.2, 2.0] (some topics are hard), returning its top 100
    (topics 311, 322 and 333 return 40, 25 and 12 documents: short lists). Layout of a
    trec_eval run as trec_eval's own test run writes it: tab-separated, rows sorted by docno
    within a topic (not by rank), the rank column giving the rank by score, scores
    right-aligned in 10 columns with 6 decimals. About 8 % of the documents copy the score of
    the document ranked just above them: ties, which trec_eval orders by docno, descending.

Usage (repository root):  python3 analysis/metrics/make_trec_collection.py
Then: python3 analysis/metrics/make_trec_fixtures.py, python3 analysis/sessions/make_variants.py
and the peer outputs (see study_logs/README.md).
"""
import os
import random

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "study_logs", "trec")
SEED = 20261127
TOPICS = range(301, 351)
CANDIDATES = 200
DEPTH = 100
SHORT = {311: 40, 322: 25, 333: 12}
POOL = 30


def doc_id(rng):
    kind = rng.randrange(3)
    if kind == 0:
        return f"NW{rng.randint(88, 94)}-{rng.randrange(100000):05d}"
    if kind == 1:
        return f"WR{rng.randrange(1000000):06d}"
    return f"GV-{rng.randrange(1000):03d}-{rng.randrange(10000):04d}"


def main():
    rng = random.Random(SEED)
    space = set()
    while len(space) < 20000:
        space.add(doc_id(rng))
    space = sorted(space)
    qrels, run = [], []
    for topic in TOPICS:
        docs = rng.sample(space, CANDIDATES)
        share = rng.uniform(0.02, 0.20)
        grades = {}
        for d in docs:
            u = rng.random()
            grades[d] = 2 if u < share * 0.4 else 1 if u < share else 0
        if not any(grades.values()):
            grades[docs[0]] = 1
        w = rng.uniform(0.2, 2.0)
        scored = sorted(((w * grades[d] + rng.gauss(0, 1), d) for d in docs), reverse=True)
        scored = scored[: SHORT.get(topic, DEPTH)]
        scores = [round(s, 6) for s, _ in scored]
        for i in range(1, len(scores)):
            if rng.random() < 0.08:
                scores[i] = scores[i - 1]
        returned = [(d, scores[i]) for i, (_, d) in enumerate(scored)]
        # Rank by score as trec_eval orders a run: score descending, then docno descending.
        order = sorted(returned, key=lambda x: x[0], reverse=True)
        order.sort(key=lambda x: x[1], reverse=True)
        rank = {d: i + 1 for i, (d, _) in enumerate(order)}
        pool = {d for d, _ in order[:POOL]}
        judged = []
        for d in sorted(docs):
            p = 0.85 if grades[d] > 0 else 0.35
            if d in pool or rng.random() < p:
                judged.append(d)
                qrels.append(f"{topic} 0 {d} {grades[d]}")
        if not any(grades[d] > 0 for d in judged):
            raise SystemExit(f"topic {topic}: no judged relevant document")
        for d, s in sorted(returned):
            run.append(f"{topic}\tQ0\t{d}\t{rank[d]}\t{s:10.6f}\tSTANDARD")
    with open(os.path.join(OUT, "qrels.test"), "w") as f:
        f.write("".join(l + "\n" for l in qrels))
    with open(os.path.join(OUT, "results.test"), "w") as f:
        f.write("".join(l + "\n" for l in run))
    print(f"{len(qrels)} judgements, {len(run)} run lines, {len(TOPICS)} topics")


if __name__ == "__main__":
    main()
