"""Evaluating runs against relevance judgements, with the measures of ``serpsim eval``.

Qrels and runs are pandas DataFrames, pyarrow Tables (or anything with the Arrow stream
interface, such as polars frames) with ir_measures' column names, or TREC files (gzip
accepted):

- qrels: ``query_id``, ``doc_id``, ``relevance`` (integers; ``iteration`` is ignored);
- runs: ``query_id``, ``doc_id``, ``score`` (documents are ranked by score, ties broken by
  doc_id descending, as trec_eval does).

Measure names are parsed by the library, exactly as ``serpsim eval -m`` parses them
(``nDCG@10``, ``P@5``, ``AP``, ``RBP(p=0.8)``, trec_eval's ``P_10``, ...; see
docs/metrics.md), so every name the command line knows works here and means the same.

>>> import serpsim, pandas as pd
>>> qrels = pd.DataFrame({"query_id": ["1", "1", "1"], "doc_id": ["a", "b", "c"],
...                       "relevance": [1, 0, 1]})
>>> run = pd.DataFrame({"query_id": ["1", "1", "1"], "doc_id": ["a", "b", "c"],
...                     "score": [3.0, 2.0, 1.0]})
>>> ev = serpsim.evaluate(qrels, run, ["P@2"])
>>> float(ev.aggregate["value"][0])
0.5

(By hand: the top two are a (relevant) and b (not), so precision at 2 is 1/2.)
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from . import _jobs, _serpsim
from ._tables import from_pandas, is_path, output_kind, to_arrow, to_frame

Measures = Union[str, Sequence[str]]


class Evaluation:
    """Every run on every measure, per query; returned by :func:`evaluate`.

    ``per_query`` and ``aggregate`` are DataFrames (pandas, or polars with
    ``output="polars"`` or polars input); ``per_query, aggregate = evaluate(...)`` unpacks
    them."""

    def __init__(self, inner: Any, output: str = "pandas") -> None:
        self._e = inner
        self.output = output
        self._per_query: Any = None
        self._aggregate: Any = None

    @property
    def runs(self) -> List[str]:
        """Run names, in the order given."""
        return list(self._e.runs)

    @property
    def measures(self) -> List[str]:
        """Measure labels as the command line prints them."""
        return list(self._e.measures)

    @property
    def per_query(self) -> Any:
        """Long DataFrame ``run, query_id, measure, value`` (one row per run, query and measure;
        queries a run did not retrieve for are absent unless ``complete``)."""
        if self._per_query is None:
            self._per_query = to_frame(self._e.per_query(), self.output)
        return self._per_query

    @property
    def aggregate(self) -> Any:
        """DataFrame ``run, measure, value, queries``: the command line's ``all`` value (the
        mean over queries; the sum for counts such as ``num_rel_ret``)."""
        if self._aggregate is None:
            self._aggregate = to_frame(self._e.aggregate(), self.output)
        return self._aggregate

    def wide(self) -> Any:
        """The aggregate as a table with one row per run and one column per measure."""
        agg = to_frame(self._e.aggregate(), "pandas")
        wide = agg.pivot(index="run", columns="measure", values="value")[self.measures]
        if self.output == "polars":
            return from_pandas(wide.reset_index(), "polars")
        return wide

    def agreement(self) -> Any:
        """How the measures agree on the ranking of the runs (see :func:`agreement`)."""
        return to_frame(self._e.agreement(), self.output)

    def compare(self, seed: int = 1, resamples: int = 10_000) -> Any:
        """Paired significance tests of every pair of runs (see :func:`compare`)."""
        return to_frame(self._e.compare(int(seed), int(resamples)), self.output)

    def intervals(
        self,
        level: float = 0.95,
        method: str = "bca",
        resamples: int = 10_000,
        seed: int = 1,
        test: str = "randomisation",
        order: Optional[Sequence[int]] = None,
    ) -> Any:
        """Bootstrap intervals over topics, as ``serpsim eval --ci`` computes them: returns
        ``(means, differences)``. ``means``: ``run, measure, topics, estimate, ci_lower,
        ci_upper`` (the interval of each run's mean over topics). ``differences``: every pair
        of runs ``a - b`` (``a`` before ``b`` in ``order``, default the runs' order) with the
        mean of the per-topic differences, its interval over topics, the two-sided paired
        ``test``'s p-value (``randomisation`` or ``bootstrap``) and the effect size d_z
        (mean / standard deviation of the per-topic differences, Cohen 1988). The same random
        streams as the command line: equal to ``serpsim eval --ci`` with the runs in that
        order."""
        means, diffs = self._e.ci(str(method), float(level), int(resamples), int(seed), str(test), None if order is None else [int(i) for i in order])
        return to_frame(means, self.output), to_frame(diffs, self.output)

    def to_text(self, format: str = "csv", per_query: bool = False) -> str:
        """The text ``serpsim eval`` prints (``csv``, ``json`` or ``trec``; ``per_query`` is
        its ``-q``)."""
        return self._e.to_text(format, bool(per_query))

    def __iter__(self) -> Iterator[Any]:
        yield self.per_query
        yield self.aggregate

    def __repr__(self) -> str:
        return repr(self._e)

    def _repr_html_(self) -> str:
        return self.wide()._repr_html_()


def _runs(run: Any) -> List[Any]:
    if isinstance(run, Mapping):
        if not run:
            raise ValueError("runs: the dict of runs is empty")
        items = list(run.items())
    elif isinstance(run, (list, tuple)) and run and not isinstance(run[0], (str, bytes)) and not is_path(run):
        items = [(None, r) for r in run]
    else:
        items = [(None, run)]
    out = []
    for i, (name, r) in enumerate(items):
        label = str(name) if name is not None else (None if is_path(r) else "run" if len(items) == 1 else f"run{i}")
        out.append((label, os.fspath(r) if is_path(r) else to_arrow(r, f"run `{label}`")))
    return out


def evaluate(
    qrels: Any,
    run: Any,
    measures: Optional[Measures] = None,
    complete: bool = False,
    threads: Optional[int] = None,
    progress: Optional[bool] = None,
    output: Optional[str] = None,
    subtopics: Any = None,
) -> Evaluation:
    """Evaluates ``run`` against ``qrels`` on ``measures``.

    ``run`` is one run (a DataFrame, an Arrow table or a TREC run file) or several: a dict
    ``{name: run}`` or a list. A DataFrame run is named by its dict key (``run`` when alone);
    a run file by its tag unless the dict names it. ``measures`` is a name or a list of names
    as ``serpsim eval -m`` takes them (trec_eval's names and parameters, e.g. ``P.5,10``,
    ``ndcg_cut.10``, or ir_measures' ``nDCG@10``, ``AP``); ``None`` gives trec_eval's default
    set. As in trec_eval (and ``serpsim eval``), queries a run has no result for are left out
    of its mean; with ``complete`` (trec_eval ``-c``) they score as empty rankings.
    ``output`` (``"pandas"`` or ``"polars"``) is the kind of the tables returned; by default
    polars when a table given is a polars frame, else pandas. ``subtopics`` (a table
    ``query_id, subtopic, doc_id, relevance`` or a file, as ``serpsim eval --subtopics``) is
    for the Cube Test.
    """
    kind = output_kind(output, qrels, run)
    if measures is None:
        measures = []
    if isinstance(measures, str):
        measures = [measures]
    measures = [str(m) for m in measures]
    q = os.fspath(qrels) if is_path(qrels) else to_arrow(qrels, "qrels")
    sub = None if subtopics is None else (os.fspath(subtopics) if is_path(subtopics) else to_arrow(subtopics, "subtopics"))
    job = _serpsim.evaluate(q, _runs(run), measures, bool(complete), threads, sub)
    return Evaluation(_jobs.run(job, progress), kind)


def agreement(evaluation: Evaluation) -> Any:
    """Agreement of the run rankings between every ordered pair of measures, as ``serpsim eval
    --agreement`` writes it: Kendall's tau-a and tau-b, tau_AP, tau_GAP, Spearman and Pearson
    correlations of the runs' mean scores. Needs two runs or more."""
    return evaluation.agreement()


def compare(evaluation: Evaluation, seed: int = 1, resamples: int = 10_000) -> Any:
    """Paired comparisons of every pair of runs on every measure, as ``serpsim eval
    --compare`` writes them: mean difference, paired t-test and Wilcoxon signed-rank
    p-values, and a 95 % bootstrap interval (``resamples`` draws, ``seed``)."""
    return evaluation.compare(seed, resamples)


def measure_label(name: str) -> str:
    """The label ``serpsim eval`` prints for a measure name; raises ``ValueError`` for an
    unknown one."""
    return _serpsim.measure_label(name)


__all__ = ["Evaluation", "evaluate", "agreement", "compare", "measure_label"]
