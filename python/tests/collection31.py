"""A project-made test collection for the ir_measures and PyTerrier tests (issue 31): 50
topics, graded qrels (0, 1, 2), subtopic qrels, and three runs of 100 documents per topic of
different quality, drawn from a seeded NumPy generator (no public data).

Scores are distinct within a topic (a random permutation of 1..100 plus the system's signal), so
every tool orders the documents the same way."""

from __future__ import annotations

import pathlib

import numpy as np
import pandas as pd

TOPICS = 50
DOCS = 120  # judged pool per topic
DEPTH = 100  # documents per run and topic
SYSTEMS = {"good": 1.5, "fair": 0.8, "poor": 0.1}  # signal: how much the grade lifts the score


def make(seed: int = 31) -> dict:
    rng = np.random.default_rng(seed)
    qrels, subtopics = [], []
    runs = {name: [] for name in SYSTEMS}
    for t in range(TOPICS):
        qid = f"q{t + 1}"
        grades = rng.choice([0, 1, 2], size=DOCS, p=[0.7, 0.2, 0.1])
        docs = [f"d{t + 1}_{i}" for i in range(DOCS)]
        for d, g in zip(docs, grades):
            qrels.append((qid, "0", d, int(g)))
            if g > 0:
                for s in rng.choice(3, size=rng.integers(1, 3), replace=False):
                    subtopics.append((qid, f"s{s}", d, int(g)))
        for name, signal in SYSTEMS.items():
            noise = rng.normal(0.0, 1.0, size=DOCS)
            score = signal * grades + noise
            top = np.argsort(-score, kind="stable")[:DEPTH]
            # Distinct scores, in the order of `top`.
            for rank, i in enumerate(top):
                runs[name].append((qid, docs[i], float(DEPTH - rank) + 0.5))
    q = pd.DataFrame(qrels, columns=["query_id", "iteration", "doc_id", "relevance"])
    s = pd.DataFrame(subtopics, columns=["query_id", "subtopic", "doc_id", "relevance"])
    r = {n: pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]) for n, rows in runs.items()}
    return {"qrels": q, "subtopics": s, "runs": r}


def write(c: dict, root: pathlib.Path) -> dict:
    """The collection as TREC files for `serpsim eval` (run tag = the system's name)."""
    root.mkdir(parents=True, exist_ok=True)
    paths = {"qrels": root / "qrels.txt", "subtopics": root / "subtopics.txt", "runs": {}}
    c["qrels"].to_csv(paths["qrels"], sep=" ", header=False, index=False)
    c["subtopics"].to_csv(paths["subtopics"], sep=" ", header=False, index=False)
    for name, run in c["runs"].items():
        lines = [f"{q} Q0 {d} {i % DEPTH + 1} {s!r} {name}\n" for i, (q, d, s) in enumerate(zip(run["query_id"], run["doc_id"], run["score"]))]
        p = root / f"run.{name}"
        p.write_text("".join(lines))
        paths["runs"][name] = p
    return paths


def to_pyterrier(c: dict) -> dict:
    """The same collection in PyTerrier's column names."""
    topics = pd.DataFrame({"qid": [f"q{t + 1}" for t in range(TOPICS)], "query": [f"topic {t + 1}" for t in range(TOPICS)]})
    qrels = c["qrels"].rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})[["qid", "docno", "label"]]
    runs = {}
    for name, r in c["runs"].items():
        f = r.rename(columns={"query_id": "qid", "doc_id": "docno"}).copy()
        f["rank"] = f.groupby("qid").cumcount()
        runs[name] = f
    return {"topics": topics, "qrels": qrels, "runs": runs}
