"""Checks the sanity facts of He et al. Fig. 6 on fig6.csv (pooled medians) and prints them.

python3 analysis/sublists/fig6_facts.py analysis/sublists/results/sweep/fig6.csv
"""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
med = {(r["task"], r["prior"], float(r["lambda"])): float(r["median"]) for r in rows}
tasks = sorted({k[0] for k in med}, key=lambda t: [r["task"] for r in rows].index(t))
lambdas = sorted({k[2] for k in med}, reverse=True)
ok = True
print("Fact 1: the nDCG prior never needs more median effort than the random prior")
print("task      " + "".join(f"{l:>14}" for l in lambdas))
for t in tasks:
    cells = []
    for l in lambdas:
        a, b = med[(t, "ndcg", l)], med[(t, "random", l)]
        ok &= a <= b
        cells.append(f"{a:g}/{b:g}{'' if a <= b else ' !!'}")
    print(f"{t:<10}" + "".join(f"{c:>14}" for c in cells))
print("\nFact 2: for find-all, lambda = 0.01 needs less effort than lambda = 1")
for p in ["ndcg", "random"]:
    a, b = med[("find-all", p, 0.01)], med[("find-all", p, 1.0)]
    ok &= a < b
    print(f"{p:<7} lambda 0.01: {a:g}   lambda 1: {b:g}   {'holds' if a < b else 'FAILS'}")
print("\nall facts hold" if ok else "\nSOME FACT FAILS")
sys.exit(0 if ok else 1)
