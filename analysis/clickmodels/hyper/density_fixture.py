"""Independent SciPy values of the hierarchical prior's log-density, for tests/hyper_density.rs.

src/clickmodels/hyper.rs::Hyper::ln_density(l, e | theta_1..n) is the log posterior density of
the hyper-parameters in the coordinates (l, e) = (logit mu, ln kappa), mu = alpha / (alpha + beta),
kappa = alpha + beta, given the current values theta_i, under the hyper-prior of Gelman et al.,
Bayesian Data Analysis (3rd ed., section 5.3): p(alpha, beta) proportional to (alpha + beta)^(-5/2).
BDA gives the same prior in log coordinates as
    p(log(alpha / beta), log(alpha + beta)) proportional to alpha beta (alpha + beta)^(-5/2)
(log(alpha / beta) is logit mu). So, with no constant dropped,
    ln_density = sum_i scipy.stats.beta.logpdf(theta_i, alpha, beta)
                 + ln alpha + ln beta - 5/2 ln(alpha + beta).
This script computes exactly that with scipy.stats.beta.logpdf; it does not use the Rust
formula's sufficient statistics or its Gamma-function form.

Theta vectors are project-made: hand-written ones and ones drawn from a seeded NumPy generator.

Python 3.11.7, SciPy 1.17.1, NumPy 2.4.6. Run from the repository root:
    python3 analysis/clickmodels/hyper/density_fixture.py
"""
import json
import math
import sys

import numpy as np
import scipy
from scipy import stats

COMMAND = "python3 analysis/clickmodels/hyper/density_fixture.py"


def ln_density(thetas, l, e):
    mu = 1.0 / (1.0 + math.exp(-l))
    kappa = math.exp(e)
    a, b = mu * kappa, (1.0 - mu) * kappa
    return float(np.sum(stats.beta.logpdf(np.asarray(thetas), a, b)) + math.log(a) + math.log(b) - 2.5 * math.log(a + b))


def main():
    rng = np.random.default_rng(20260029)
    thetas = {
        "one_half": [0.5],
        "hand_five": [0.1, 0.25, 0.5, 0.8, 0.95],
        "near_edges": [1e-6, 0.001, 0.999, 1 - 1e-6],
        "seeded_beta_2_8_x40": [float(x) for x in rng.beta(2.0, 8.0, size=40)],
        "seeded_beta_30_10_x200": [float(x) for x in rng.beta(30.0, 10.0, size=200)],
    }
    points = [(0.0, math.log(2.0)), (-1.5, 0.3), (1.2, 2.5), (-3.0, -4.0), (2.0, 6.0), (0.4, 10.0), (-0.7, -7.5)]
    cases = []
    for name, t in thetas.items():
        for l, e in points:
            cases.append({"thetas": name, "l": l, "e": e, "ln_density": ln_density(t, l, e)})
    out = {
        "source": "scipy.stats.beta.logpdf summed, plus ln alpha + ln beta - 5/2 ln(alpha + beta) (BDA3 section 5.3)",
        "command": COMMAND,
        "python": sys.version.split()[0],
        "scipy": scipy.__version__,
        "numpy": np.__version__,
        "thetas": thetas,
        "cases": cases,
    }
    with open("tests/fixtures/clickmodels/hyper_density.json", "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote tests/fixtures/clickmodels/hyper_density.json: {len(cases)} cases")


if __name__ == "__main__":
    main()
