#!/usr/bin/env python3
"""Write project-made relevance label files for the bundled click log
`study_logs/clicks/synthetic_yandex_layout.txt`, one per layout `clicks fit --labels` reads.

Every file resolves to the same judgements as `synthetic_qrels.txt` (TREC qrels, grades 0-4):
the other layouts add what public label files have (an unjudged value, repeated and
conflicting labels for one pair, a header) in ways whose resolution is known:

- `synthetic_yandex.tsv`: `QueryID<TAB>RegionID<TAB>URLID<TAB>Label` (the log's query id
  `17514_0` is QueryID 17514, RegionID 0), the same judgements.
- `synthetic_tiangong.txt`: `id task query result relevance`; for every 10th judged pair two
  more lines, one with its grade and one with another (majority: its grade); for every 10th
  pair from the 5th on one more line with the next grade up (a tie: the lower grade wins).
- `synthetic_labels.tsv`: a header, then `query<TAB>region<TAB>doc<TAB>rank<TAB>source<TAB>label`
  with label -2 (unjudged) for every log pair that the qrels leave out.

No public data: the grades are drawn from `random.Random(20260611)`.

    python3 study_logs/tools/make_label_samples.py   # from the repository root
"""
import random

rng = random.Random(20260611)
pairs = []
seen = set()
with open("study_logs/clicks/synthetic_yandex_layout.txt") as f:
    for line in f:
        for item in line.split(";"):
            item = item.strip()
            if not item:
                continue
            q, rest = item.split("\t", 1)
            docs = rest.split(":", 1)[0].split(",")
            for d in docs:
                d = d.strip()
                if (q, d) not in seen:
                    seen.add((q, d))
                    pairs.append((q, d))

judged = []
unjudged = []
for q, d in pairs:
    if rng.random() < 0.7:
        judged.append((q, d, rng.choice([0, 0, 0, 1, 1, 2, 2, 3, 4])))
    else:
        unjudged.append((q, d))

out = "tests/fixtures/labels/"
with open(out + "synthetic_qrels.txt", "w") as f:
    for q, d, g in judged:
        f.write(f"{q} 0 {d} {g}\n")
with open(out + "synthetic_yandex.tsv", "w") as f:
    for q, d, g in judged:
        qid, region = q.rsplit("_", 1)
        f.write(f"{qid}\t{region}\t{d}\t{g}\n")
with open(out + "synthetic_tiangong.txt", "w") as f:
    n = 0
    for i, (q, d, g) in enumerate(judged):
        rows = [g]
        if i % 10 == 0:
            rows += [g, (g + 1) % 5]
        elif i % 10 == 5:
            rows += [g + 1] if g < 4 else [4]
        for r in rows:
            n += 1
            f.write(f"{n} {1 + i // 40} {q} {d} {r}\n")
with open(out + "synthetic_labels.tsv", "w") as f:
    f.write("query\tregion\tdoc\trank\tsource\tlabel\n")
    rows = [(q, d, g) for q, d, g in judged] + [(q, d, -2) for q, d in unjudged]
    rows.sort(key=lambda r: pairs.index((r[0], r[1])))
    for q, d, g in rows:
        qid, region = q.rsplit("_", 1)
        f.write(f"{qid}\t{region}\t{d}\t{rng.randrange(1, 11)}\tassessor\t{g}\n")
