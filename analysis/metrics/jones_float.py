"""Jones et al. (2015) Table 2: which floating-point conventions reproduce the printed cells.

Run: python3 analysis/metrics/jones_float.py   (numpy; about a minute)

Scores all 1,024 binary rankings of length 10 (R = 10, DCG discount 1/log2(i+1)) with
  * DCG and the ideal DCG summed left to right (seq) or with numpy's np.sum (np),
  * ties at |d| <= 2^-53 (le) or |d| < 2^-53 (lt),
and prints the cells that miss the printed table at 2 decimals. It also counts the AP vs RBP.50
disagreements in exact rational arithmetic. The Rust tests in metrics::agreement check the
same numbers without Python.
"""
from fractions import Fraction as F
import math
import numpy as np

K = 10
R = np.array([[(m >> (K - 1 - i)) & 1 for i in range(K)] for m in range(1 << K)], dtype=float)
PRINTED = [[17.57], [23.99, 8.65], [23.75, 6.87, 5.32], [23.06, 7.02, 3.01, 2.88],
           [54.09, 50.79, 43.02, 45.73, 45.04], [36.45, 20.41, 13.25, 13.59, 13.43, 38.31],
           [39.99, 24.95, 16.30, 18.29, 17.99, 33.27, 8.05],
           [38.34, 23.00, 14.35, 16.31, 16.05, 35.24, 4.25, 4.41]]
pos = np.arange(1, K + 1)
disc = np.array([1 / math.log2(i + 1) for i in pos])
nrel = R.sum(1)


def seq(xs):
    s = 0.0
    for x in xs:
        s += x
    return s


def rbp(p):
    return np.array([seq((1 - p) * p ** i for i in range(K) if r[i]) for r in R])


def metrics(summation):
    if summation == "seq":
        dcg = np.array([seq(d for d, x in zip(disc, r) if x) for r in R])
        idcg = np.array([seq(disc[:int(k)]) for k in nrel])
    else:
        dcg = np.array([np.sum(r * disc) for r in R])
        idcg = np.array([np.sum(disc[:int(k)]) for k in nrel])
    cs = np.cumsum(R, axis=1)
    ap_sum = np.array([seq(c / p for c, p, x in zip(cr, pos, r) if x) for cr, r in zip(cs, R)])
    rr = np.array([1 / (np.argmax(r) + 1) if r.any() else 0.0 for r in R])
    with np.errstate(invalid="ignore", divide="ignore"):
        sn_ap = ap_sum / nrel
        sn_dcg = dcg / idcg
    return [nrel / K, rbp(0.95), dcg, rbp(0.85), ap_sum / 10, rr, sn_ap, rbp(0.5), sn_dcg]


EPS = 2.0 ** -53
n = 1 << K
upper = np.triu(np.ones((n, n), dtype=bool), 1)


def outcome(a, rule):
    d = a[:, None] - a[None, :]
    with np.errstate(invalid="ignore"):
        tied = np.abs(d) <= EPS if rule == "le" else np.abs(d) < EPS
        return np.where(np.isnan(d), 2, np.where(tied, 0, np.sign(d))).astype(np.int8)


for summation in ["seq", "np"]:
    m = metrics(summation)
    for rule in ["le", "lt"]:
        o = [outcome(x, rule) for x in m]
        misses = []
        for row, cells in enumerate(PRINTED):
            i = row + 1
            for j, printed in enumerate(cells):
                v = 100 * ((o[i] != o[j]) & upper).sum() / upper.sum()
                if abs(v - printed) > 0.005 + 1e-9:
                    misses.append(f"({i},{j}) {v:.4f} vs {printed}")
        print(f"summation={summation} ties={rule}: {36 - len(misses)}/36 match; misses: {misses}")

ap = [sum(F(int(c), int(p)) for c, p, x in zip(cr, pos, r) if x) / 10 for cr, r in zip(np.cumsum(R, axis=1), R)]
rb = [sum(F(1, 2) ** (i + 1) for i in range(K) if r[i]) for r in R]
sign = lambda x: (x > 0) - (x < 0)
count = sum(1 for i in range(n) for j in range(i + 1, n) if sign(ap[i] - ap[j]) != sign(rb[i] - rb[j]))
print(f"AP vs RBP.50, exact rationals: {count} of {n * (n - 1) // 2} pairs = {100 * count / (n * (n - 1) / 2):.4f} %")
