"""BARACO: is switching from the production ranker to a candidate safe? Bayesian comparison
on historical clicks (Li et al.), as ``serpsim compare-rankers`` computes it."""

from __future__ import annotations

import os
from typing import Any, Optional

from . import _jobs, _serpsim
from ._tables import is_path, output_kind, to_arrow, to_frame


def _rankings(obj: Any, what: str) -> Any:
    if is_path(obj):
        return os.fspath(obj)
    if isinstance(obj, dict):
        import pandas as pd

        rows = []
        for ranker, lists in obj.items():
            for qid, docs in lists.items():
                rows.append({"ranker": str(ranker), "query_id": str(qid), "docs": [str(d) for d in docs]})
        obj = pd.DataFrame(rows, columns=["ranker", "query_id", "docs"])
    return to_arrow(obj, what)


def compare_rankers(
    log: Any,
    production: Any,
    candidates: Any,
    epsilon: float = 0.01,
    delta: float = 0.05,
    samples: int = 1000,
    gamma: float = 0.9,
    depth: int = 10,
    metric: str = "rrmetric",
    sampler: str = "inverse-cdf",
    seed: int = 1,
    threads: Optional[int] = None,
    progress: Optional[bool] = None,
    output: Optional[str] = None,
) -> Any:
    """Decides for each candidate whether switching from ``production`` is safe: P(the
    candidate's metric is at least the production's minus ``epsilon``) >= 1 - ``delta``.

    ``log``: clicks, a DataFrame ``query_id, docs, clicks`` or a log file (the format of
    ``serpsim compare-rankers --log``). ``production`` and ``candidates``: a ranking file, a
    DataFrame ``ranker, query_id, docs`` or a dict ``{ranker: {query_id: [doc, ...]}}``
    (``production`` holds one ranker). ``samples`` posterior draws, DBN ``gamma``, metric
    ``rrmetric`` or ``dcg`` at ``depth``, ``sampler`` ``inverse-cdf``, ``mh`` or
    ``mh-thinned``. Returns a DataFrame ``candidate, p_safe, expected_diff, switch,
    unseen_share``: the command line's CSV columns (pandas, or polars for polars input or
    ``output="polars"``).
    """
    kind = output_kind(output, log, production, candidates)
    lg = os.fspath(log) if is_path(log) else to_arrow(log, "log")
    job = _serpsim.compare_rankers(
        lg,
        _rankings(production, "production"),
        _rankings(candidates, "candidates"),
        epsilon=float(epsilon),
        delta=float(delta),
        samples=int(samples),
        gamma=float(gamma),
        depth=int(depth),
        metric=metric,
        sampler=sampler,
        seed=int(seed),
        threads=threads,
    )
    return to_frame(_jobs.run(job, progress), kind)


__all__ = ["compare_rankers"]
