"""DBN fitted with PyClick's EM update rules (re-implemented from the formulas of
markovi/PyClick pyclick/click_models/DBN.py), to compare with serpsim's exact E-step.

PyClick's rules: parameters (1 + num) / (2 + den), attractiveness and satisfaction per
(query, document), one continuation; below the last click the attractiveness posterior uses
the *unconditional* examination probability, and sessions without clicks add nothing to the
attractiveness numerators (PyClick's last-click rank is the SERP length then).

Usage: python3 analysis/clickmodels/pyclick_dbn_rules.py ../shared/data/clicks/yandex_sample_train.txt [iterations]
"""
import math
import sys

from yandex_layout import impressions

PROB_MIN = 1e-6


def value(p, key):
    n, d = p.get(key, (1.0, 2.0))
    return min(n / d, 1 - PROB_MIN)


def fit(train, iterations):
    attr, sat, cont = {}, {}, (1.0, 2.0)
    for _ in range(iterations):
        na, ns, nc = {}, {}, [1.0, 2.0]
        g = min(cont[0] / cont[1], 1 - PROB_MIN)
        for q, docs, c in train:
            n = len(docs)
            a = [value(attr, (q, x)) for x in docs]
            s = [value(sat, (q, x)) for x in docs]
            exam = [1.0]
            for r in range(n):
                exam.append(exam[r] * g * ((1 - s[r]) * a[r] + (1 - a[r])))
            car = [0.0] * (n + 1)
            for r in range(n - 1, -1, -1):
                car[r] = a[r] + (1 - a[r]) * g * car[r + 1]
            cr = [r for r in range(n) if c[r]]
            last = cr[-1] if cr else n
            for r in range(n):
                k = (q, docs[r])
                num, den = na.get(k, (1.0, 2.0))
                if c[r]:
                    num += 1
                elif r >= last:
                    num += (1 - exam[r]) * a[r] / (1 - exam[r] * car[r])
                na[k] = (num, den + 1)
                c1 = car[r + 1] if r < n - 1 else 0.0
                if c[r]:
                    num, den = ns.get(k, (1.0, 2.0))
                    if r == last:
                        num += s[r] / (1 - (1 - s[r]) * g * c1)
                    ns[k] = (num, den + 1)
                if r < last:
                    nc[0] += 1
                else:
                    nc[0] += g * (1 - c1) / (1 - g * c1)
                nc[1] += 1
        attr, sat, cont = na, ns, tuple(nc)
    return attr, sat, min(cont[0] / cont[1], 1 - PROB_MIN)


def evaluate(model, test):
    attr, sat, g = model
    ll, perp = 0.0, [0.0] * 10
    for q, docs, c in test:
        a = [value(attr, (q, x)) for x in docs]
        s = [value(sat, (q, x)) for x in docs]
        exam, lls = 1.0, []
        for r in range(len(docs)):
            if c[r]:
                p = a[r] * exam
                exam = g * (1 - s[r])
            else:
                p = 1 - a[r] * exam
                exam *= g * (1 - a[r]) / p
            lls.append(math.log(p))
        ll += sum(lls) / len(lls)
        exam = 1.0
        for r in range(len(docs)):
            p = a[r] * exam
            perp[r] += math.log(p if c[r] else 1 - p, 2)
            exam *= g * ((1 - s[r]) * a[r] + (1 - a[r]))
    per_rank = [2 ** (-x / len(test)) for x in perp]
    return ll / len(test), sum(per_rank) / 10


if __name__ == "__main__":
    sessions = impressions(sys.argv[1])
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    n = int(len(sessions) * 0.75)
    train = sessions[:n]
    queries = set(s[0] for s in train)
    test = [s for s in sessions[n:] if s[0] in queries]
    model = fit(train, iterations)
    ll, perp = evaluate(model, test)
    print(f"PyClick-rule DBN, {iterations} iterations: gamma {model[2]:.6f} log-likelihood {ll:.6f} perplexity {perp:.6f}")
