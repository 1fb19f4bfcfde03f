"""Writes `study_logs/clicks/synthetic_yandex_layout.txt`: a project-made click log in the
layout of the Yandex sample that PyClick's examples use (docs/clickmodels.md, "Yandex
sample"), with clicks drawn from a KNOWN dynamic Bayesian network (DBN, Chapelle and Zhang
2009). Python standard library only; fixed seed, so the file is byte-identical on every run.

Generating model (the truth a fit can be compared with):
- 150 queries `QQQQ_R` with Zipf-like frequencies (weight 1 / k^1.1, every query at least 12
  impressions), 30,000 SERP impressions of 10 results each;
- each query has a pool of documents (integer ids); a query shows 1 to 80 distinct SERPs
  (orderings drawn once from its pool, more for frequent queries), each impression picks one
  with weights 1/k, so SERPs repeat;
- DBN per (query, document): attractiveness a = U(0.02, 0.9)^2 (most documents rarely
  clicked), satisfaction s = U(0.1, 0.9); continuation gamma = 0.9 (GAMMA below). The user
  examines rank 1; at an examined rank clicks with probability a; after a click is
  satisfied with probability s and stops; otherwise goes on with probability gamma.

Layout quirks kept from the real sample (none changes the click flags a reader derives):
- the clicked ids are listed in click order, joined by ` , `; 15 % of clicked ids are
  repeated right after (re-clicks), 10 % of click lists are shuffled, 0.5 % of impressions
  carry an extra clicked id that is not on the SERP (ignored by readers);
- impressions are separated by `; ` (90 %), `  ;  ` (9.9 %) or `  ; ` (0.1 %), and every line
  ends with a separator; an impression without clicks ends in ` :`;
- one query per line, and each query's impressions are cut into an early line (the first
  75 %) and a late line (the rest), the early lines shuffled before the late ones, so the
  75/25 split in file order tests on queries seen in training.
- no time stamps (the real sample has none).

The bundled files are made by
    python3 study_logs/tools/make_click_log.py study_logs/clicks/synthetic_yandex_layout.txt \
        --truth tests/fixtures/clickmodels/synthetic_yandex_layout_truth.tsv

Usage: python3 study_logs/tools/make_click_log.py [OUT] [--truth TRUTH.tsv]
(default OUT: study_logs/clicks/synthetic_yandex_layout.txt; --truth writes the generating
parameters, query<TAB>doc<TAB>attractiveness<TAB>satisfaction, for analysis only.)
"""
import random
import sys

SEED = 20261127
QUERIES = 150
IMPRESSIONS = 30_000
RESULTS = 10
GAMMA = 0.9


def main():
    args = sys.argv[1:]
    truth_path = None
    if "--truth" in args:
        i = args.index("--truth")
        truth_path = args[i + 1]
        del args[i : i + 2]
    out = args[0] if args else "study_logs/clicks/synthetic_yandex_layout.txt"
    rng = random.Random(SEED)

    # Query ids and frequencies.
    ids = set()
    while len(ids) < QUERIES:
        ids.add(f"{rng.randrange(1, 100_000)}_{rng.randrange(0, 4)}")
    queries = sorted(ids)
    rng.shuffle(queries)
    w = [1 / (k + 1) ** 1.1 for k in range(QUERIES)]
    counts = [max(12, round(IMPRESSIONS * x / sum(w))) for x in w]
    counts[0] += IMPRESSIONS - sum(counts)

    params = {}
    lines_early, lines_late = [], []
    truth = []
    for q, n in zip(queries, counts):
        variants = max(1, min(80, n // 25))
        pool_size = min(150, RESULTS + 3 * variants)
        pool = [rng.randrange(10, 120_000_000) for _ in range(pool_size)]
        for d in pool:
            a = rng.uniform(0.02, 0.9) ** 2
            s = rng.uniform(0.1, 0.9)
            params[(q, d)] = (a, s)
            truth.append(f"{q}\t{d}\t{a:.6f}\t{s:.6f}")
        # The most frequent SERP: the pool's first ten; others swap in documents and reorder.
        serps = [pool[:RESULTS]]
        for _ in range(variants - 1):
            serp = list(serps[0])
            for _ in range(rng.randrange(1, 4)):
                i, j = rng.randrange(RESULTS), rng.randrange(RESULTS)
                serp[i], serp[j] = serp[j], serp[i]
            for _ in range(rng.randrange(0, 5)):
                d = rng.choice(pool)
                if d not in serp:
                    serp[rng.randrange(2, RESULTS)] = d
            serps.append(serp)
        sw = [1 / (k + 1) for k in range(len(serps))]
        impressions = []
        for _ in range(n):
            serp = rng.choices(serps, sw)[0]
            clicks = []
            for d in serp:
                a, s = params[(q, d)]
                if rng.random() < a:
                    clicks.append(d)
                    if rng.random() < 0.15:
                        clicks.append(d)
                    if rng.random() < s:
                        break
                if rng.random() >= GAMMA:
                    break
            if clicks and rng.random() < 0.10:
                rng.shuffle(clicks)
            if rng.random() < 0.005:
                clicks.append(rng.randrange(10, 120_000_000))
            text = f"{q}\t{','.join(map(str, serp))} :"
            if clicks:
                text += " " + " , ".join(map(str, clicks))
            u = rng.random()
            text += "; " if u < 0.90 else ("  ;  " if u < 0.999 else "  ; ")
            impressions.append(text)
        cut = max(1, round(0.75 * n))
        lines_early.append("".join(impressions[:cut]))
        lines_late.append("".join(impressions[cut:]))
    rng.shuffle(lines_early)
    rng.shuffle(lines_late)
    with open(out, "w", newline="\n") as f:
        for line in lines_early + lines_late:
            f.write(line + "\n")
    if truth_path:
        with open(truth_path, "w") as f:
            f.write(f"# gamma {GAMMA}\n" + "\n".join(truth) + "\n")


if __name__ == "__main__":
    main()
