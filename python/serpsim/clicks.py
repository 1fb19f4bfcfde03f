"""Click models: CM, DCM, CCM, DBN, SDBN, UBM, PBM and the CTR baselines.

Logs are DataFrames (or Arrow tables) with the columns ``query_id``, ``docs`` (the ranked
document ids, a list per row) and ``clicks`` (0/1 or booleans, a list aligned with ``docs``),
or paths to log files in the formats of ``serpsim clicks`` (gzip accepted).

>>> import serpsim, pandas as pd
>>> log = pd.DataFrame({"query_id": ["q1", "q1"], "docs": [["a", "b"], ["b", "a"]],
...                     "clicks": [[1, 0], [0, 0]]})
>>> m = serpsim.clicks.fit(log, model="sdbn", progress=False)
>>> round(float(m.params.set_index("doc_id").loc["a", "satisfaction"]), 4)
0.6667

(By hand: SDBN counts with a Beta(1, 1) prior; ``a`` was the last click of the one session
in which it was clicked, so its satisfaction is (1 + 1) / (2 + 1).)
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _jobs, _serpsim
from ._tables import from_pandas, is_path, is_polars, output_kind, to_arrow, to_frame

MODELS = ("cm", "dcm", "ccm", "dbn", "sdbn", "ubm", "pbm", "gctr", "rctr", "dctr")


class ClickModel:
    """A fitted (or loaded) click model. Its tables are pandas DataFrames, or polars ones when
    it was fitted on a polars frame or with ``output="polars"`` (``output`` attribute)."""

    def __init__(self, inner: Any, output: str = "pandas") -> None:
        self._m = inner
        self.output = output
        scalars, ranks, matrices, pairs = inner.param_tables()
        self.scalars: Dict[str, float] = dict(scalars)
        self.rank_params: Dict[str, List[float]] = dict(ranks)
        self.matrices: Dict[str, List[List[float]]] = dict(matrices)
        self._pairs = pairs

    @property
    def kind(self) -> str:
        """The model's short name, e.g. ``"dbn"``."""
        return self._m.kind

    @property
    def params(self) -> Any:
        """Per query-document parameters as a DataFrame: ``query_id``, ``doc_id`` and one column
        per parameter (``attractiveness``, ``satisfaction``, ``ctr``)."""
        return to_frame(self._pairs, self.output)

    def evaluate(self, test: Any, known_queries_only: bool = True) -> Dict[str, Any]:
        """Log-likelihood, perplexity (overall and per rank), conditional perplexity and CTR
        error on ``test``, as ``serpsim clicks eval`` computes them. With
        ``known_queries_only`` (PyClick's protocol) sessions of queries the model was not
        fitted on are left out; ``test_sessions`` says how many were used."""
        return dict(self._m.evaluate(to_arrow(test, "test"), known_queries_only))

    def log_likelihood(self, test: Any, known_queries_only: bool = True) -> float:
        """Mean per-session mean log-likelihood of the clicks in ``test`` (PyClick's definition)."""
        return float(self.evaluate(test, known_queries_only)["log_likelihood"])

    def perplexity(self, test: Any, known_queries_only: bool = True) -> float:
        """Perplexity over ranks 1-10 (PyClick's definition)."""
        return float(self.evaluate(test, known_queries_only)["perplexity"])

    def click_probabilities(self, serps: Any) -> Any:
        """P(click) per result: a long DataFrame (``serp``, ``rank``, ``query_id``, ``doc_id``,
        ``click_probability``). ``serps`` needs ``query_id`` and ``docs``; pairs the model has
        not seen get its prior."""
        return to_frame(self._m.click_probabilities(to_arrow(serps, "serps")), "polars" if is_polars(serps) else self.output)

    def simulate(self, serps: Any, n: int = 1, seed: int = 1) -> Any:
        """``n`` simulated sessions per SERP, in the click-log layout plus ``serp`` and
        ``replicate`` columns; the same streams as ``serpsim clicks simulate``."""
        return to_frame(self._m.simulate(to_arrow(serps, "serps"), int(n), int(seed)), "polars" if is_polars(serps) else self.output)

    def save(self, path: "os.PathLike[str] | str") -> None:
        """Writes the model in the CLI's JSON format (atomically); a model fitted with labels
        (``fit(..., qrels=...)``) writes its per-grade values too, as ``serpsim clicks fit
        --labels`` does."""
        self._m.save(os.fspath(path))

    def to_json(self) -> str:
        """The model file's JSON text (what :meth:`save` writes)."""
        return self._m.to_json()

    @property
    def grades(self) -> Any:
        """The per-grade values fitted with labels (the model file's ``grades``), one row per
        grade: ``grade``, ``impressions``, one column per parameter and, with the bootstrap,
        ``<parameter>_lower``/``_upper`` and ``interval_resamples``; ``None`` without labels."""
        text = self._m.grades_json()
        if text is None:
            return None
        import json

        import pandas as pd

        return from_pandas(pd.DataFrame(json.loads(text)), self.output)

    @property
    def grade_report(self) -> List[str]:
        """What the per-grade fit found, one line each (the lines ``serpsim clicks fit
        --labels`` prints on stderr); empty without labels."""
        return list(self._m.grade_report)

    def __repr__(self) -> str:
        return repr(self._m)


def fit(
    log: Any,
    model: str = "dbn",
    iterations: int = 50,
    tolerance: Optional[float] = None,
    gamma: Optional[float] = None,
    format: str = "yandex",
    skip_bad_lines: bool = False,
    progress: Optional[bool] = None,
    threads: Optional[int] = None,
    output: Optional[str] = None,
    qrels: Any = None,
    label_format: Optional[str] = None,
    label_columns: "Optional[str | Dict[str, int]]" = None,
    label_header: bool = False,
    unjudged: Optional[int] = None,
    unjudged_grade: Optional[int] = None,
    grade_map: "Optional[str | Dict[int, int]]" = None,
    grade_bootstrap: Optional[int] = None,
    seed: int = 1,
    prior: Optional[str] = None,
) -> ClickModel:
    """Fits ``model`` on ``log`` (a DataFrame/Arrow table or a log file path).

    ``prior``: ``"uniform"`` (Beta(1, 1), PyClick's M-step) or ``"eb"`` (dbn, ubm, ccm, pbm: each
    per-pair table's Beta prior fitted by empirical Bayes within the EM fit; pairs never seen
    take its mean; ``serpsim clicks fit --prior eb``, docs/clickmodels.md). ``None`` (the
    default) is ``serpsim clicks fit``'s: ``"eb"`` for dbn, ubm, ccm and pbm, ``"uniform"`` for
    the counting models; ``"uniform"`` gives PyClick's fit. ``"global"``, ``"query"`` and
    ``"hierarchical"`` give posterior means under that prior (``serpsim clicks fit --prior
    global``; the sampler's defaults and ``seed``; :func:`fit_posterior` returns the posterior
    too).

    ``iterations`` (the most passes) and ``tolerance`` apply to the EM models (dbn, ccm, ubm,
    pbm): with ``tolerance > 0`` EM stops once the training log-likelihood changes by at most
    that much (relative) in a pass, accelerated by SQUAREM; 0 runs every pass (plain EM, as
    PyClick). ``None`` is the default of ``serpsim clicks fit`` (1e-4, docs/clickmodels.md). ``gamma`` fixes DBN's continuation probability. ``format`` and
    ``skip_bad_lines`` apply to paths. ``threads``: worker threads of the E-steps (default: all
    cores); the fitted model does not depend on it. ``output`` (``"pandas"`` or ``"polars"``;
    default: the kind of ``log``) is the kind of the model's tables.

    Labels (``serpsim clicks fit --labels FILE``, docs/clickmodels.md, "Labels"): ``qrels`` is
    a label file of the log's own (query, document) pairs, or a DataFrame with the columns
    ``query_id`` (or ``qid``), ``doc_id`` (or ``docno``) and ``relevance`` (or ``label``),
    integer grades (written to a temporary TREC qrels file). Then the per-document parameters
    are also fitted tied by relevance grade, and the model keeps them (:attr:`ClickModel.grades`;
    :meth:`ClickModel.save` writes them as the CLI does, for scenarios with ``unseen =
    "labels"``). The options mean what the CLI's flags mean: ``label_format``
    (``--label-format``: ``trec``, the default, ``yandex``, ``tiangong``, ``tsv``, ``csv`` or
    ``whitespace``), ``label_columns`` (``--label-columns``: ``"query=1,doc=3,label=6"`` or
    ``{"query": 1, "doc": 3, "label": 6}``, optional ``region``), ``label_header``
    (``--label-header``), ``unjudged`` (``--unjudged V``), ``unjudged_grade``
    (``--unjudged-grade G``), ``grade_map`` (``--grade-map``: ``"0:0,1:1,2:1"`` or ``{0: 0, 1:
    1, 2: 1}``), ``grade_bootstrap`` (``--grade-bootstrap N``, default 200, 0: no intervals)
    and ``seed`` (``--seed``, of the bootstrap and of the sampler). What the label reader found and assumed
    (unjudged lines, conflicting labels, the grade scale) is raised as warnings, one per line
    the CLI prints on stderr; the per-grade report is :attr:`ClickModel.grade_report`.
    """
    import warnings

    kind = output_kind(output, log)
    model = model.lower()
    t = None if threads is None else int(threads)
    tol = None if tolerance is None else float(tolerance)
    with _label_file(qrels, label_format) as (label_path, label_name):
        labels = _serpsim.labels(
            label_path, label_name, label_format, label_columns, bool(label_header), unjudged, unjudged_grade, grade_map,
            None if grade_bootstrap is None else int(grade_bootstrap), int(seed),
        )
        if is_path(log):
            job = _serpsim.fit_path(os.fspath(log), model, format, int(iterations), tol, gamma, bool(skip_bad_lines), t, labels, prior, int(seed))
        else:
            job = _serpsim.fit_table(to_arrow(log, "log"), model, int(iterations), tol, gamma, t, labels, prior, int(seed))
        inner = _jobs.run(job, progress)
    for note in inner.label_notes:
        warnings.warn(note, stacklevel=2)
    return ClickModel(inner, kind)


class _label_file:
    """``qrels`` as a path for the binding: a path as it is (``None`` for none), a DataFrame
    written to a temporary TREC qrels file, removed on exit."""

    FRAME = "qrels DataFrame"

    def __init__(self, qrels: Any, label_format: Optional[str]) -> None:
        self.qrels = qrels
        self.label_format = label_format
        self.tmp: Optional[str] = None

    def __enter__(self) -> Tuple[Optional[str], Optional[str]]:
        if self.qrels is None:
            return None, None
        if is_path(self.qrels):
            return os.fspath(self.qrels), None
        from .errors import InvalidInputError

        if self.label_format not in (None, "trec"):
            raise InvalidInputError(f"qrels: a DataFrame is read as TREC qrels; label_format={self.label_format!r} goes with a label file")
        frame = self.qrels
        if hasattr(frame, "to_pandas"):
            frame = frame.to_pandas()
        cols = list(getattr(frame, "columns", []))

        def pick(names: Tuple[str, ...]) -> str:
            for n in names:
                if n in cols:
                    return n
            raise InvalidInputError(f"qrels: missing column `{names[0]}` (or `{names[1]}`); the frame has {cols}")

        q, d, r = pick(("query_id", "qid")), pick(("doc_id", "docno")), pick(("relevance", "label"))
        import tempfile

        import pandas as pd

        grades = pd.to_numeric(frame[r], errors="coerce")
        bad = grades.isna() | (grades != grades.round())
        if bad.any():
            i = int(bad.to_numpy().nonzero()[0][0])
            raise InvalidInputError(f"qrels: `{r}` must hold integer grades; row {i} has {frame[r].iloc[i]!r}")
        lines = []
        for qid, doc, g in zip(frame[q].astype(str), frame[d].astype(str), grades.astype("int64")):
            for what, v in (("query id", qid), ("document id", doc)):
                if not v or any(c.isspace() for c in v):
                    raise InvalidInputError(f"qrels: {what} {v!r} is empty or holds whitespace, which TREC qrels cannot")
            lines.append(f"{qid} 0 {doc} {g}\n")
        fd, self.tmp = tempfile.mkstemp(prefix="serpsim-qrels-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.writelines(lines)
        return self.tmp, self.FRAME

    def __exit__(self, *exc: Any) -> None:
        if self.tmp is not None:
            os.unlink(self.tmp)


def fit_posterior(
    log: Any,
    model: str = "dbn",
    prior: str = "global",
    level: float = 0.9,
    chains: int = 4,
    warmup: int = 500,
    samples: int = 1000,
    thin: int = 1,
    seed: int = 1,
    draws: int = 0,
    gamma: Optional[float] = None,
    top_examination: Union[float, str, None] = "default",
    exact: bool = False,
    format: str = "yandex",
    skip_bad_lines: bool = False,
    progress: Optional[bool] = None,
    output: Optional[str] = None,
) -> Tuple[ClickModel, Any]:
    """Fits ``model`` on ``log`` (a DataFrame/Arrow table or a log file path) with its
    posterior, as ``serpsim clicks fit --posterior`` does. Returns ``(model, posterior)``:
    the model (the usual fit under the ``uniform`` prior, posterior means under a fitted one),
    and a DataFrame with one row per parameter entry: ``parameter``, ``query``, ``document``,
    ``rank``, ``previous_click``, ``mean``, ``sd``, ``lower``, ``upper`` (equal-tailed
    ``level`` credible interval), ``level``, the prior, ``successes``/``trials``, and for the
    sampled models ``rhat`` and ``ess`` (plus ``draws``, a list of ``draws`` posterior draws per
    entry, when asked).

    ``prior``: ``uniform`` (Beta(1, 1)), ``global`` or ``query`` (empirical-Bayes priors fitted
    by marginal likelihood), or ``hierarchical`` (dbn, ubm, pbm, ccm: the prior's
    hyper-parameters sampled too). Counting models (cm, dcm, sdbn, the CTR models) get exact
    conjugate Beta posteriors; dbn, ccm, ubm and pbm (and sdbn/dcm with ``exact``) a Gibbs
    sampler with ``chains`` chains of ``warmup`` + ``samples`` sweeps. ``gamma`` fixes DBN's
    continuation (sampled otherwise); ``top_examination`` pins UBM/PBM's examination of rank 1
    (``"default"``: pinned at 1 for the posterior, the EM fit left free, as ``serpsim clicks
    fit`` without ``--top-examination``; a number pins both; ``None``: free, and the scale of
    attractiveness and examination is not identified); under the ``uniform`` prior the returned
    model is the usual EM fit (the CLI's, with its default tolerance). A
    warning is raised when chains have not converged (R-hat > 1.01 or too few effective draws).
    """
    import json
    import warnings

    kind = output_kind(output, log)
    model = model.lower()
    args = (model, prior, float(level), int(chains), int(warmup), int(samples), int(thin), int(seed), int(draws), gamma, top_examination, bool(exact), format, bool(skip_bad_lines))
    if is_path(log):
        job = _serpsim.fit_posterior(None, os.fspath(log), *args)
    else:
        job = _serpsim.fit_posterior(to_arrow(log, "log"), None, *args)
    inner, records, summary, flagged, checked, skipped, first = _jobs.run(job, progress)
    if skipped:
        warnings.warn(f"{os.fspath(log)}: skipped {skipped} bad line(s); first: {first}", stacklevel=2)
    if flagged:
        warnings.warn(
            f"{flagged} of {checked} parameters have not converged (R-hat > 1.01 or too few effective draws): "
            "run longer chains (warmup, samples) before trusting their intervals",
            stacklevel=2,
        )
    import pandas as pd

    table = pd.DataFrame.from_records(json.loads(records))
    table.attrs["summary"] = list(summary)
    # polars frames have no attrs: the summary lines are on the model's side only in pandas.
    return ClickModel(inner, kind), from_pandas(table, kind)


def read_log(
    path: "os.PathLike[str] | str", format: str = "yandex", skip_bad_lines: bool = False, progress: Optional[bool] = None, output: Optional[str] = None
) -> Any:
    """Reads a click-log file (``yandex``, ``tsv`` or ``jsonl``; gzip accepted) into a
    DataFrame with ``query_id``, ``docs`` and ``clicks`` (pandas, or polars with
    ``output="polars"``). With ``skip_bad_lines`` malformed lines are counted and a warning
    names the first."""
    kind = output_kind(output)
    batch, skipped, first = _jobs.run(_serpsim.read_log_path(os.fspath(path), format, bool(skip_bad_lines)), progress)
    if skipped:
        import warnings

        warnings.warn(f"{os.fspath(path)}: skipped {skipped} bad line(s); first: {first}", stacklevel=2)
    return to_frame(batch, kind)


def load(path: "os.PathLike[str] | str") -> ClickModel:
    """Loads a model file written by ``serpsim clicks fit`` or :meth:`ClickModel.save`."""
    return ClickModel(_serpsim.load(os.fspath(path)))


def loads(text: str) -> ClickModel:
    """Parses a model from JSON text."""
    return ClickModel(_serpsim.loads(text))


def split(log: Any) -> Tuple[Any, Any]:
    """PyClick's protocol, as ``serpsim clicks eval`` without ``--test``: the first
    floor(75 %) of sessions train; the rest, restricted to queries seen in training, test.
    A polars log gives polars frames."""
    import pandas as pd

    kind = output_kind(None, log)
    if not isinstance(log, pd.DataFrame):
        log = to_arrow(log, "log")
        log = log.to_pandas() if hasattr(log, "to_pandas") else pd.DataFrame(log)
    n_train = len(log) * 3 // 4
    train = log.iloc[:n_train].reset_index(drop=True)
    rest = log.iloc[n_train:]
    test = rest[rest["query_id"].isin(set(train["query_id"]))].reset_index(drop=True)
    return from_pandas(train, kind), from_pandas(test, kind)


def validate_orderings(
    log: Any,
    models: "List[str] | str" = "all",
    folds: int = 5,
    seed: int = 1,
    iterations: int = 50,
    tolerance: Optional[float] = None,
    replicates: int = 1000,
    bootstrap: int = 200,
    level: float = 0.95,
    min_pair_sessions: int = 50,
    format: str = "yandex",
    skip_bad_lines: bool = False,
    progress: Optional[bool] = None,
    threads: Optional[int] = None,
) -> Dict[str, Any]:
    """``serpsim clicks validate --split orderings``: hold out whole orderings (distinct
    result lists) of each query in ``folds`` folds, fit every model on the rest and compare
    its predictions with the held-out orderings' real sessions (docs/validation.md).

    ``log`` is a DataFrame/Arrow table or a log file path. Returns a dict: ``errors``,
    ``ranks``, ``pairs``, ``calibration`` and ``comparisons`` (DataFrames, as the CLI's CSV files),
    ``answer`` (the printed sentences) and the counts (``held_out_orderings``, ...).
    ``shift`` is the robustness under a ranking change: a dict whose ``rows`` DataFrame is
    ``shift.csv`` (log-likelihood and perplexity on held-out sessions of orderings seen in
    training against orderings never seen, intervals over queries), with its counts
    (``queries``, ``seen_sessions``, ``unseen_sessions``) and ``answer``.
    Errors are session-weighted means over held-out orderings; intervals are bootstrap
    intervals over held-out orderings; the ordering pairs' intervals are over queries (a bootstrap
    over queries). ``threads``: worker threads (default: all cores), as
    the CLI's ``--threads``; the result does not depend on it."""
    import json

    import pandas as pd

    names = list(MODELS) if models == "all" else ([models] if isinstance(models, str) else list(models))
    args = ([m.lower() for m in names], int(folds), int(seed), int(iterations), None if tolerance is None else float(tolerance), int(replicates), int(bootstrap), float(level), int(min_pair_sessions), format, bool(skip_bad_lines), None if threads is None else int(threads))
    if is_path(log):
        job = _serpsim.validate_orderings(None, os.fspath(log), *args)
    else:
        job = _serpsim.validate_orderings(to_arrow(log, "log"), None, *args)
    out = json.loads(_jobs.run(job, progress))
    for table in ("errors", "ranks", "pairs", "calibration", "comparisons"):
        out[table] = pd.DataFrame(out[table])
    out["shift"]["rows"] = pd.DataFrame(out["shift"]["rows"])
    return out


__all__ = ["ClickModel", "fit", "load", "loads", "read_log", "split", "validate_orderings", "MODELS"]
