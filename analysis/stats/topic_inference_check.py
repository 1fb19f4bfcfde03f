"""Independent SciPy values for src/stats/topics.rs::tests::matches_scipy_on_a_hand_sample.

Run: python3 analysis/stats/topic_inference_check.py   (SciPy 1.17.1, NumPy)
"""
import numpy as np
from scipy import stats

d = np.array([0.5, 1.2, -0.3, 2.0, 0.0, 0.9, 1.1, -0.4])
t = stats.ttest_1samp(d, 0.0)
print("mean", d.mean())
print("t", t.statistic, "p", t.pvalue)
print("interval", stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=stats.sem(d)))
print("p_positive", stats.t.cdf(t.statistic, len(d) - 1))
print("d_z", d.mean() / d.std(ddof=1))
