"""Writes study_logs/letor/letor_sample.txt: the project's own learning-to-rank file in the
LETOR 4.0 (MQ2007/MQ2008) layout. Seeded (20261127), standard library only: no value comes
from LETOR or any other data set.

Layout, as LETOR 4.0's query-level-normalised files:

    2 qid:10032 1:0.052893 2:1.000000 ... 46:0.966667 #docid = GX012-34-5678901 inc = 0.0428 prob = 0.8604

  * 36 queries (5-digit qids, ascending), documents of a query on consecutive lines;
  * 7 to 117 judged documents per query (most queries 7-16, a few long lists), labels 0/1/2,
    and queries whose documents are all labelled 0 (as in MQ2008);
  * all 46 features on every line, `index:value` with 6 decimals, min-max normalised within
    the query to [0, 1] (a feature constant within a query is 0 for all its documents);
  * feature k is a noisy signal of the label (strength by feature group: the "whole document"
    scores 11-15, 21-25 and 26-40 carry most of it), some features sparse (many exact zeros),
    so linear rankers meet score ties;
  * a `#docid = ... inc = ... prob = ...` comment with a GOV2-style document id.

Usage (repository root):  python3 study_logs/tools/make_letor_sample.py
"""
import os
import random

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "study_logs", "letor", "letor_sample.txt")
SEED = 20261127
QUERIES = 36
FEATURES = 46


def main():
    rng = random.Random(SEED)
    # Per feature: signal strength and share of exact zeros (sparse term-frequency-like features).
    strength = []
    sparse = []
    for k in range(1, FEATURES + 1):
        if 11 <= k <= 15 or 21 <= k <= 40:
            strength.append(rng.uniform(0.6, 1.4))
        else:
            strength.append(rng.uniform(0.0, 0.6))
        sparse.append(rng.choice([0.0, 0.0, 0.3, 0.6]) if k <= 20 else 0.0)
    qids = sorted(rng.sample(range(10000, 20000), QUERIES))
    lines = []
    for qi, qid in enumerate(qids):
        n = rng.choice([7, 7, 8, 8, 8, 11, 14, 15, 16, 16, 16]) if rng.random() < 0.75 else rng.choice([28, 32, 56, 61, 117])
        if qi == 0:
            n = 117  # one long list
        empty = rng.random() < 0.2  # a query without any relevant document
        share = rng.uniform(0.05, 0.6)
        labels = []
        for _ in range(n):
            u = rng.random()
            labels.append(0 if empty or u > share else 2 if u < share * 0.3 else 1)
        raw = []
        for lab in labels:
            row = []
            for k in range(FEATURES):
                if rng.random() < sparse[k] * (1.0 - 0.3 * lab):
                    row.append(0.0)
                else:
                    row.append(max(0.0, strength[k] * lab + rng.gauss(0.0, 1.0) + 1.5))
            raw.append(row)
        # Exact duplicates of the BM25-like feature 25 between neighbours: score ties.
        for i in range(1, n):
            if rng.random() < 0.1:
                raw[i][24] = raw[i - 1][24]
        norm = [[0.0] * FEATURES for _ in range(n)]
        for k in range(FEATURES):
            col = [r[k] for r in raw]
            lo, hi = min(col), max(col)
            for i in range(n):
                norm[i][k] = 0.0 if hi == lo else (col[i] - lo) / (hi - lo)
        for i, lab in enumerate(labels):
            feats = " ".join(f"{k + 1}:{norm[i][k]:.6f}" for k in range(FEATURES))
            doc = f"GX{rng.randrange(300):03d}-{rng.randrange(100):02d}-{rng.randrange(10**7):07d}"
            lines.append(f"{lab} qid:{qid} {feats} #docid = {doc} inc = {rng.random():.10g} prob = {rng.random():.6f}")
    with open(OUT, "w") as f:
        f.write("".join(l + "\n" for l in lines))
    print(f"{len(qids)} queries, {len(lines)} documents")


if __name__ == "__main__":
    main()
