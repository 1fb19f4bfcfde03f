"""serpsim in PyTerrier experiments (PyTerrier 1.x; importing it needs no Java).

- Measures: serpsim's ir_measures measures (:mod:`serpsim.measures`) go straight into
  ``pt.Experiment(..., eval_metrics=[...])`` (objects such as ``serpsim.measures.PRES @ 100``
  or strings ``"PRES@100"`` through ``ir_measures.parse_measure``).
- Tests: ``pt.Experiment(..., baseline=0, test=serpsim.terrier.t_test)`` uses serpsim's paired
  t-test over topics (the ``t_test_p`` of ``serpsim eval --compare``); ``wilcoxon_test`` its
  Wilcoxon signed-rank test (``wilcoxon_p``).
- :func:`intervals`: what ``pt.Experiment`` has no slot for: bootstrap intervals over topics
  of every system's mean, and against a baseline the mean difference with its interval, the
  paired test's p-value and the effect size d_z, in ``pt.Experiment``'s layout (one row per
  system, a ``name`` column, one column per measure and statistic). The numbers are those of
  ``serpsim eval -c --ci`` with the baseline run last.
- What-if: ``serpsim.simulate(scenario, runs=pipeline(topics), qrels=qrels)`` runs a
  scenario's simulated users over the rankings a PyTerrier pipeline returns.

Every statistic here generalises over **topics** (the queries are the sample); simulated users
appear only in :func:`serpsim.simulate`.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _serpsim
from ._tables import from_pandas, is_polars, output_kind

__all__ = ["t_test", "wilcoxon_test", "intervals", "results_to_ir_measures"]


def t_test(x: Sequence[float], y: Sequence[float]) -> Tuple[float, float]:
    """serpsim's two-sided paired t-test over topics of ``x`` against ``y`` (per-topic values
    of two systems, in the same topic order): ``(t, p_value)``, the test of ``serpsim eval
    --compare`` (``t_test_p``). ``pt.Experiment(..., test=serpsim.terrier.t_test)``."""
    return _serpsim.paired_test([float(v) for v in x], [float(v) for v in y], "t")


def wilcoxon_test(x: Sequence[float], y: Sequence[float]) -> Tuple[float, float]:
    """serpsim's two-sided Wilcoxon signed-rank test (exact without ties and for small samples,
    else the normal approximation with continuity correction): ``(V, p_value)``, the
    ``wilcoxon_p`` of ``serpsim eval --compare``."""
    return _serpsim.paired_test([float(v) for v in x], [float(v) for v in y], "wilcoxon")


def results_to_ir_measures(frame: Any) -> Any:
    """A PyTerrier results or qrels DataFrame (``qid``, ``docno``, ``score`` / ``label``) with
    ir_measures' column names (``query_id``, ``doc_id``, ``score`` / ``relevance``), ids as
    strings. Frames already in ir_measures' names pass through; polars frames go through pandas."""
    import pandas as pd

    if is_polars(frame):
        frame = frame.to_pandas()
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"expected a DataFrame of results or qrels, got {type(frame).__name__}")
    ren = {"qid": "query_id", "docno": "doc_id", "label": "relevance"}
    out = frame.rename(columns={k: v for k, v in ren.items() if k in frame.columns and v not in frame.columns})
    for c in ("query_id", "doc_id"):
        if c in out.columns and out[c].dtype != object:
            out = out.assign(**{c: out[c].astype(str)})
    return out


def _measure_names(eval_metrics: Sequence[Any]) -> List[Tuple[str, str]]:
    """(column label, serpsim eval name) of each measure: serpsim's ir_measures measures (or
    their strings) by their serpsim names; any other string as a ``serpsim eval -m`` name."""
    from . import measures as sm

    out = []
    for m in eval_metrics:
        if sm.AVAILABLE and not isinstance(m, str):
            out.append((str(m), sm.serpsim_name(m)))
            continue
        if isinstance(m, str):
            parsed = None
            if sm.AVAILABLE:
                try:
                    import ir_measures

                    parsed = ir_measures.parse_measure(m)
                except Exception:  # not an ir_measures spelling: a serpsim eval name
                    parsed = None
            if parsed is not None and isinstance(parsed, sm._SerpsimMeasure):
                out.append((m, sm.serpsim_name(parsed)))
            else:
                _serpsim.measure_label(m)  # a clear error for an unknown name
                out.append((m, m))
            continue
        raise TypeError(f"eval_metrics: {m!r} is neither a serpsim measure nor a measure name")
    return out


def _systems(retr_systems: Any, topics: Any, names: Optional[Sequence[str]]) -> List[Tuple[str, Any]]:
    if isinstance(retr_systems, Mapping):
        items = [(str(k), v) for k, v in retr_systems.items()]
    else:
        systems = list(retr_systems)
        labels = list(names) if names is not None else [str(s) if not hasattr(s, "columns") else f"system{i}" for i, s in enumerate(systems)]
        if len(labels) != len(systems):
            raise ValueError("names should be the same length as retr_systems")
        items = list(zip(labels, systems))
    if len(set(n for n, _ in items)) != len(items):
        raise ValueError(f"system names must be unique: {[n for n, _ in items]}")
    out = []
    for name, s in items:
        if hasattr(s, "transform") and not hasattr(s, "columns"):
            if topics is None:
                raise ValueError(f"system `{name}` is a transformer: give topics")
            s = s.transform(topics)
        frame = results_to_ir_measures(s)
        out.append((name, frame[["query_id", "doc_id", "score"]]))
    return out


def intervals(
    retr_systems: Union[Sequence[Any], Mapping[str, Any]],
    topics: Any,
    qrels: Any,
    eval_metrics: Sequence[Any],
    names: Optional[Sequence[str]] = None,
    baseline: Optional[Union[int, str]] = None,
    level: float = 0.95,
    method: str = "bca",
    resamples: int = 10_000,
    seed: int = 1,
    test: str = "randomisation",
    filter_by_topics: bool = True,
    output: Optional[str] = None,
) -> Any:
    """Intervals and effect sizes over topics, in ``pt.Experiment``'s layout.

    ``retr_systems``, ``topics``, ``qrels``, ``eval_metrics``, ``names``, ``baseline`` and
    ``filter_by_topics`` are those of ``pt.Experiment`` (systems are results DataFrames or
    transformers, which are run on ``topics``; qrels with ``qid, docno, label``). Queries of
    the qrels a system does not retrieve for score as empty rankings, as in ``pt.Experiment``.

    One row per system (``name``), and per measure ``m`` the columns ``m`` (the mean over
    topics), ``m ci_topics_lower`` and ``m ci_topics_upper`` (its ``level`` bootstrap interval
    over topics, ``method`` ``bca``, ``percentile`` or ``basic``). With a ``baseline`` (index
    or name), also ``m diff`` (mean over topics of system - baseline), ``m diff
    ci_topics_lower``/``upper``, ``m p_value_topics`` (two-sided paired ``test``:
    ``randomisation`` or ``bootstrap``) and ``m effect_size_dz`` (d_z: mean / sd of the
    per-topic differences); empty (NaN) on the baseline's row. ``resamples`` draws from
    ``seed``'s streams, keyed by system and measure names: the values equal ``serpsim eval
    -c --ci`` on the same runs (named as here, baseline last) and measure names.
    ``output``: ``"pandas"`` (default) or ``"polars"``.
    """
    from .evaluation import evaluate

    kind = output_kind(output, qrels, *(retr_systems.values() if isinstance(retr_systems, Mapping) else retr_systems))
    q = results_to_ir_measures(qrels)
    if filter_by_topics and topics is not None:
        t = results_to_ir_measures(topics)
        q = q[q["query_id"].isin(set(t["query_id"]))]
        if len(q) == 0:
            raise ValueError("There is no overlap between the qids found in the topics and qrels.")
    cols = ["query_id", "doc_id", "relevance"]
    missing = [c for c in cols if c not in q.columns]
    if missing:
        raise ValueError(f"qrels: missing column(s) {', '.join(missing)} (columns present: {', '.join(map(str, q.columns))})")
    systems = _systems(retr_systems, topics, names)
    labels = _measure_names(eval_metrics)
    serp_names = list(dict.fromkeys(n for _, n in labels))
    # The library's column label of each name (its columns come in its own order).
    col = {n: _serpsim.measure_label(n) for n in serp_names}
    if len(set(col.values())) != len(col) or any(" " in c for c in col.values()):
        raise ValueError(f"the measure names {serp_names} give the columns {list(col.values())}: give names that make one column each")
    labels = [(label, col[n]) for label, n in labels]
    ev = evaluate(q[cols], dict(systems), serp_names, complete=True, progress=False, output="pandas")
    run_names = [n for n, _ in systems]
    base = None
    if baseline is not None:
        if isinstance(baseline, str):
            if baseline not in run_names:
                raise ValueError(f"baseline `{baseline}` is not one of the systems {run_names}")
            base = run_names.index(baseline)
        else:
            base = int(baseline)
            if not 0 <= base < len(run_names):
                raise ValueError(f"baseline {baseline} is not an index of the {len(run_names)} systems")
    order = None if base is None else [i for i in range(len(run_names)) if i != base] + [base]
    means, diffs = ev.intervals(level=level, method=method, resamples=resamples, seed=seed, test=test, order=order)
    agg = ev.aggregate
    rows: List[Dict[str, Any]] = []
    for name in run_names:
        row: Dict[str, Any] = {"name": name}
        for label, serp in labels:
            a = agg[(agg["run"] == name) & (agg["measure"] == serp)]
            row[label] = float(a["value"].iloc[0])
            mi = means[(means["run"] == name) & (means["measure"] == serp)]
            row[f"{label} ci_topics_lower"] = float(mi["ci_lower"].iloc[0]) if len(mi) else float("nan")
            row[f"{label} ci_topics_upper"] = float(mi["ci_upper"].iloc[0]) if len(mi) else float("nan")
            if base is not None:
                d = diffs[(diffs["run_a"] == name) & (diffs["run_b"] == run_names[base]) & (diffs["measure"] == serp)]
                found = len(d) > 0
                for col, src in (("diff", "estimate"), ("diff ci_topics_lower", "ci_lower"), ("diff ci_topics_upper", "ci_upper"),
                                 ("p_value_topics", "p_value"), ("effect_size_dz", "effect_size_dz")):
                    row[f"{label} {col}"] = float(d[src].iloc[0]) if found else float("nan")
        rows.append(row)
    import pandas as pd

    return from_pandas(pd.DataFrame(rows), kind)
