"""Reference fits for serpsim's binomial GLM (src/stats/glm.rs), by statsmodels.

Run once:  python3 analysis/sublists/glm_reference.py
Writes tests/fixtures/sublists/glm_data.csv (the input) and glm_reference.json (the fits).
The Rust tests read both files; they never run Python.

Data: 400 Bernoulli rows and 60 grouped rows (20 trials each) with covariates Dq, Rq, Hq and
the factor Ulevel (1-4), drawn by numpy with a fixed seed from a known logistic model.
Hosmer-Lemeshow follows R's ResourceSelection::hoslem.test (cut at type-7 quantiles of the
fitted values, first interval closed); the stepwise search mirrors R's step(k = log(n)) with
marginality, forward from the intercept and backward from the full factorial.
"""
import itertools
import json
import os

import numpy as np
import pandas as pd
import statsmodels.api as sm
from patsy import dmatrix
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "tests", "fixtures", "sublists")
os.makedirs(OUT, exist_ok=True)

rng = np.random.default_rng(20150809)


def make(n, trials):
    df = pd.DataFrame({
        "Dq": rng.uniform(0.1, 3.0, n).round(4),
        "Rq": rng.uniform(0.05, 0.5, n).round(4),
        "Hq": rng.uniform(0.0, 3.0, n).round(4),
        "Ulevel": [str(1 + i % 4) for i in range(n)],
    })
    u = df["Ulevel"].astype(int)
    eta = (-1.0 + 0.8 * df.Dq + 2.0 * df.Rq - 0.5 * df.Hq - 0.4 * (u == 2) - 0.9 * (u == 3)
           - 1.3 * (u == 4) + 0.6 * df.Dq * df.Rq)
    p = 1 / (1 + np.exp(-eta))
    df["trials"] = trials
    df["y"] = rng.binomial(trials, p)
    return df


bern = make(400, 1)
grouped = make(60, 20)
bern["set"] = "bernoulli"
grouped["set"] = "grouped"
data = pd.concat([bern, grouped], ignore_index=True)
data[["set", "y", "trials", "Dq", "Rq", "Hq", "Ulevel"]].to_csv(os.path.join(OUT, "glm_data.csv"), index=False)

LEVELS = ["1", "2", "3", "4"]


def fit(df, formula_rhs):
    X = dmatrix(formula_rhs, df.assign(Ulevel=pd.Categorical(df.Ulevel, categories=LEVELS)), return_type="dataframe")
    endog = np.column_stack([df.y, df.trials - df.y])
    res = sm.GLM(endog, X, family=sm.families.Binomial()).fit(tol=1e-14, maxiter=500)
    return X, res


def hoslem(y, n, fitted, g=10):
    breaks = np.quantile(fitted, np.linspace(0, 1, g + 1))
    breaks = np.unique(breaks)
    groups = len(breaks) - 1
    idx = np.searchsorted(breaks[1:], fitted, side="left")
    idx = np.minimum(idx, groups - 1)
    stat, used = 0.0, 0
    for j in range(groups):
        m = idx == j
        if not m.any():
            continue
        used += 1
        o1, o0 = y[m].sum(), (n[m] - y[m]).sum()
        e1, e0 = (n[m] * fitted[m]).sum(), (n[m] * (1 - fitted[m])).sum()
        stat += (o1 - e1) ** 2 / e1 + (o0 - e0) ** 2 / e0
    df = used - 2
    return stat, df, float(stats.chi2.sf(stat, df))


def summary(df, rhs, wald_prefix=None):
    X, res = fit(df, rhs)
    names = [c.replace("Intercept", "Intercept") for c in X.columns]
    fitted = np.asarray(res.fittedvalues if res.fittedvalues.ndim == 1 else res.fittedvalues)
    out = {
        "rhs": rhs,
        "names": names,
        "coef": list(map(float, res.params)),
        "se": list(map(float, res.bse)),
        "z": list(map(float, res.tvalues)),
        "p": list(map(float, res.pvalues)),
        "loglik": float(res.llf),
        "deviance": float(res.deviance),
        "null_deviance": float(res.null_deviance),
        "aic": float(res.aic),
        "bic": float(res.bic_llf),
        "converged": bool(res.converged),
    }
    stat, hdf, hp = hoslem(df.y.to_numpy(float), df.trials.to_numpy(float), np.asarray(res.mu))
    out["hosmer_lemeshow"] = {"statistic": stat, "df": hdf, "p": hp}
    if wald_prefix:
        cols = [i for i, c in enumerate(names) if c.startswith(wald_prefix)]
        R = np.zeros((len(cols), len(names)))
        for r, c in enumerate(cols):
            R[r, c] = 1
        w = res.wald_test(R, scalar=True)
        out["wald_joint"] = {"columns": [names[c] for c in cols], "statistic": float(w.statistic),
                             "df": len(cols), "p": float(w.pvalue)}
    return out


VARS = ["Dq", "Rq", "Hq", "Ulevel"]
SCOPE = [t for k in range(1, 5) for t in itertools.combinations(VARS, k)]


def rhs_of(terms):
    return "1" + "".join(" + " + ":".join(t) for t in terms)


def bic_of(df, terms):
    return fit(df, rhs_of(terms))[1].bic_llf


def canonical(terms):
    return sorted(terms, key=lambda t: (len(t), SCOPE.index(t)))


def stepwise(df, start):
    cur = canonical(list(start))
    cur_bic = bic_of(df, cur)
    path = []
    while True:
        best = None
        for t in SCOPE:
            if t in cur:
                continue
            if len(t) > 1 and not all(tuple(x for x in t if x != v) in cur for v in t):
                continue
            cand = canonical(cur + [t])
            b = bic_of(df, cand)
            if best is None or b < best[0]:
                best = (b, cand, "+ " + ":".join(t))
        for t in cur:
            if any(u != t and set(t) <= set(u) for u in cur):
                continue
            cand = [u for u in cur if u != t]
            b = bic_of(df, cand)
            if best is None or b < best[0]:
                best = (b, cand, "- " + ":".join(t))
        if best is not None and best[0] < cur_bic - 1e-9:
            cur_bic, cur = best[0], best[1]
            path.append([best[2], best[0]])
        else:
            return {"terms": [":".join(t) for t in cur], "bic": cur_bic, "path": path}


ref = {
    "bernoulli_main": summary(bern, "Dq + Rq + Hq + Ulevel", wald_prefix="Ulevel"),
    "bernoulli_interactions": summary(bern, "Dq + Rq + Hq + Ulevel + Dq:Rq + Dq:Ulevel", wald_prefix="Dq:Ulevel"),
    "grouped_main": summary(grouped, "Dq + Rq + Ulevel", wald_prefix="Ulevel"),
    "stepwise_forward": stepwise(bern, []),
    "stepwise_backward": stepwise(bern, SCOPE),
}
with open(os.path.join(OUT, "glm_reference.json"), "w") as f:
    json.dump(ref, f, indent=1)
print(json.dumps({k: (v.get("terms") or v["names"]) for k, v in ref.items()}, indent=1))
