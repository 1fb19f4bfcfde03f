"""Writes a Robust04-sized synthetic qrels and run for `bench_cpu.sh` (no real TREC run is
public; the sizes follow TREC 2004 Robust: 249 topics, 311,410 judgements, 1,000 documents
retrieved per topic). Document ids look like the TREC disks 4-5 ids (FBIS3-12345,
LA010189-0123, FT911-1234, FR940104-0-00001); about a third of the retrieved documents are
judged and 5.6 % of the judgements are relevant (17,412 / 311,410 in Robust04); scores have 4
decimals, so some tie (trec_eval then orders by document id).

Usage: python3 analysis/metrics/make_robust_like.py OUTDIR [--topics N]
(writes OUTDIR/qrels.robust OUTDIR/run.robust; N topics, default 249, each with 1,250
judgements and 1,000 retrieved documents)
"""
import os
import random
import sys

out = sys.argv[1]
topics = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--topics" else 249
os.makedirs(out, exist_ok=True)
rng = random.Random(2004)


def docno(i):
    """A distinct TREC-disk-4/5-looking id for every i."""
    kind, n = i % 4, i // 4
    if kind == 0:
        return f"FBIS3-{n}"
    if kind == 1:
        return f"LA{n % 12 + 1:02d}{n % 28 + 1:02d}89-{n}"
    if kind == 2:
        return f"FT9{n % 4 + 1}{n % 9 + 1}-{n}"
    return f"FR94{n % 12 + 1:02d}{n % 28 + 1:02d}-{n % 3}-{n:06d}"


judged_per_topic = 311410 // 249
with open(os.path.join(out, "qrels.robust"), "w") as q, open(os.path.join(out, "run.robust"), "w") as r:
    for t in range(301, 301 + topics):
        pool = rng.sample(range(2_000_000), 6000)
        ids = [docno(i) for i in pool]
        judged = ids[:judged_per_topic]
        for d in judged:
            q.write(f"{t} 0 {d} {1 if rng.random() < 0.056 else 0}\n")
        # A third of the run from the judged pool, the rest unjudged.
        retrieved = rng.sample(judged, 340) + ids[judged_per_topic:judged_per_topic + 660]
        rng.shuffle(retrieved)
        for rank, d in enumerate(retrieved, 1):
            r.write(f"{t} Q0 {d} {rank} {rng.random() * 20:.4f} robust_like\n")
