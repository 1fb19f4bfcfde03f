"""What-if simulation: Monte-Carlo users on result pages, as ``serpsim simulate`` runs them.

A scenario is a TOML file (docs/scenarios.md), TOML text, a dict with the same keys, or
nothing (the embedded default scenario, the one ``cargo run --release -- simulate`` runs).
The result holds the report's tables as DataFrames and its plots as SVG:

>>> import serpsim
>>> r = serpsim.simulate(replicates=50, seed=1, progress=False)
>>> list(r.pooled.columns[:4])
['system', 'profile', 'measure', 'unit']

By default a run keeps what a reader uses (``detail="summary"``); ``detail="full"`` adds the
per-topic rows of every measure (``summary``, per-topic ``comparisons``) and histograms.
Undefined values (e.g. quantiles that were not kept) are empty cells in the CSV files and NaN
in the DataFrames; every numeric column has a numeric dtype.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Union

from . import _jobs, _serpsim

Scenario = Union[str, "os.PathLike[str]", Mapping[str, Any], None]

# Report files read into DataFrames, by attribute name.
_TABLES = {
    "summary": "summary.csv",
    "pooled": "pooled.csv",
    "comparisons": "comparison.csv",
    "tests": "tests.csv",
    "verdict": "verdict.csv",
    "gain_curves": "gain_curves.csv",
    "budgets": "budgets.csv",
    "budget_comparisons": "budget_comparison.csv",
    "samples": "samples.csv",
}
# The short answer the CLI prints (``repr`` of a result).
_ANSWER = "answer.txt"
_DETAILS = ("summary", "full")
_PLOTS = {"distributions": "distributions.svg", "gain_curves": "gain_curves.svg", "differences": "differences.svg"}


class Simulation:
    """The report of one simulation run.

    DataFrames: ``pooled`` (per system, profile and measure over topics: n, mean, sd,
    quantiles), ``comparisons`` (paired differences of systems), ``tests`` (across-topic
    tests), ``verdict``, ``gain_curves``, ``budgets`` (gain at fixed budgets),
    ``budget_comparisons`` (their paired differences), ``summary`` (per topic; with
    ``detail="full"``) and ``samples`` (one row per simulated session; with ``samples=True``).
    Missing tables (e.g. comparisons of a one-system scenario) are ``None``. ``report`` is
    ``summary.json`` parsed (settings, warnings and ``tables``, each a list of flat records).
    ``repr()`` is the short answer the CLI prints (``answer.txt``), and a notebook shows it as
    HTML (``_repr_html_``); ``plot()`` returns the distributions as SVG."""

    def __init__(self, files: Dict[str, bytes], warnings: List[str], out: Optional[str], output: str = "pandas") -> None:
        import io

        from ._tables import from_pandas, read_csv

        self.warnings = list(warnings)
        self.out = out
        self.files = files
        for attr, name in _TABLES.items():
            data = files.get(name)
            frame = None
            if data is not None:
                frame = from_pandas(read_csv(io.BytesIO(data), keep_default_na=False, na_values=[""], dtype={"topic": str}), output)
            setattr(self, attr, frame)
        self.output = output
        try:
            self.report = json.loads(files["summary.json"]) if "summary.json" in files else None
        except ValueError:  # pragma: no cover - the library writes valid JSON
            self.report = None

    def plot(self, kind: str = "distributions") -> str:
        """An SVG plot of the run: ``distributions`` (ECDFs of every measure),
        ``gain_curves`` (gain over time and effort with 95 % bands over topics and users) or
        ``differences`` (forest plot of each topic's gain difference A - B)."""
        if kind not in _PLOTS:
            raise ValueError(f"kind: `{kind}` is not one of {', '.join(_PLOTS)}")
        data = self.files.get(_PLOTS[kind])
        if data is None:
            raise ValueError(f"this run wrote no {_PLOTS[kind]} (the scenario sets [output] plot = false, or has no pair of systems to compare)")
        return data.decode("utf-8")

    @property
    def answer(self) -> Optional[str]:
        """The short answer of the run (``answer.txt``, the text ``serpsim simulate`` prints)."""
        data = self.files.get(_ANSWER)
        return None if data is None else data.decode("utf-8")

    def __repr__(self) -> str:
        answer = self.answer
        if answer is not None:
            return answer.rstrip("\n")
        n = 0 if self.pooled is None else len(self.pooled)
        return f"<serpsim Simulation: {n} pooled rows>"

    def _repr_html_(self) -> str:
        import html

        return '<pre class="serpsim-answer">' + html.escape(repr(self)) + "</pre>"


def default_scenario() -> str:
    """The TOML text of the embedded default scenario."""
    return _serpsim.default_scenario()


def _scenario_kwargs(scenario: Scenario) -> Dict[str, Any]:
    """The scenario argument of the binding: ``path``, ``text`` or ``json`` (or none)."""
    kw: Dict[str, Any] = {}
    if scenario is None:
        pass
    elif isinstance(scenario, Mapping):
        kw["json"] = json.dumps(scenario)
    elif isinstance(scenario, os.PathLike):
        kw["path"] = os.fspath(scenario)
    elif isinstance(scenario, str):
        if "\n" in scenario or "=" in scenario or "[" in scenario:
            kw["text"] = scenario
        else:
            kw["path"] = scenario
    else:
        raise TypeError(f"scenario: expected a path, TOML text or a dict, got {type(scenario).__name__}")
    return kw


def _read_files(written: List[str]) -> Dict[str, bytes]:
    """The report's tables, plots and JSON among the written paths, by file name."""
    files = {}
    for p in written:
        path = pathlib.Path(p)
        if path.is_file() and (path.suffix in (".csv", ".svg") or path.name in ("summary.json", _ANSWER)):
            files[path.name] = path.read_bytes()
    return files


def _result(files: Dict[str, bytes], warnings: List[str], out: Optional[str], output: str = "pandas", stacklevel: int = 3) -> "Simulation":
    """Warns the run's warnings (as the CLI prints them) and wraps its files."""
    if warnings:
        import warnings as _w

        for message in warnings:
            _w.warn(message, stacklevel=stacklevel)
    return Simulation(files, warnings, out, output)


def simulate(
    scenario: Scenario = None,
    replicates: Optional[int] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    samples: bool = True,
    out: Optional["os.PathLike[str] | str"] = None,
    base: Optional["os.PathLike[str] | str"] = None,
    progress: Optional[bool] = None,
    detail: Optional[str] = None,
    runs: Any = None,
    qrels: Any = None,
    output: Optional[str] = None,
    profiles: Optional[List[str]] = None,
    users: Optional[str] = None,
    topics: Any = None,
    ideal: bool = False,
    allow_partial_judgements: bool = False,
) -> Simulation:
    """Runs ``scenario`` as ``serpsim simulate`` does and returns its report.

    ``scenario``: a path to a TOML file, TOML text, a dict of the same keys, or ``None`` for
    the embedded default. A stream scenario (``[collection] source = "streams"``,
    docs/streams.md) runs as the CLI runs it (``msu.csv`` is in ``files``; it has no
    per-session samples, so pass ``samples=False``). ``replicates`` (users per profile) and ``seed`` override the
    scenario's. Results do not depend on ``threads``. ``samples`` also keeps every session.
    ``out`` keeps the report files in that directory (as ``--out``); by default they are
    written to a temporary directory and removed after reading. Relative paths inside TOML
    text or a dict resolve against ``base`` (default: the working directory). ``detail``
    (``"summary"`` or ``"full"``) overrides the scenario's ``[output] detail``.

    ``runs``: rankings to simulate the scenario's users over instead of the scenario's
    systems, e.g. what a PyTerrier pipeline returns: a results DataFrame (``qid``/``query_id``,
    ``docno``/``doc_id``, ``score``) or a dict ``{system name: results}``; a single
    DataFrame is named by its ``name`` column when it has one, else ``run``. ``qrels``: the
    judgements (a DataFrame with ``qid``/``query_id``, ``docno``/``doc_id``,
    ``label``/``relevance``, or a qrels file); required with ``runs`` unless the scenario's
    collection is TREC-sourced with qrels. The scenario becomes a ``source = "trec"``
    collection of these runs (ranked by score, ties by docno descending, as trec_eval), its
    profiles and the rest unchanged. ``output`` (``"pandas"`` or ``"polars"``; default:
    polars when ``runs`` are polars frames) is the kind of the tables.

    **Your own files, no scenario** (``serpsim simulate --qrels Q --run A --run B``): with
    ``scenario=None``, ``qrels`` (a path or a frame) and ``runs`` (a path, a list of paths or
    frames, or a dict ``{system: frame}``) make the scenario that ``--print-scenario`` writes
    (docs/scenarios.md, "From your own files"), and the report is byte for byte the CLI's.
    ``profiles`` (built-in users ``patient``, ``impatient``, ``dbn``, ``pbm`` or click-model
    files), ``users="robust"`` (every built-in user), ``topics`` (ids, or ``"301,302"`` or
    ``"@FILE"``), ``ideal`` (also the ideal ranking: no system is added unless asked) and
    ``allow_partial_judgements`` are the CLI's flags. Without ``qrels`` it is an error: runs
    are never scored against the bundled demo judgements.
    """
    kind = _output_kind(output, runs, qrels)
    if users not in (None, "default", "robust"):
        raise ValueError(f"users: `{users}` is not one of default, robust")
    from_files = scenario is None and (runs is not None or qrels is not None)
    if not from_files and (profiles or users is not None or topics is not None):
        raise ValueError("profiles=, users= and topics= make a scenario from qrels= and runs=; with a scenario, edit its [[profiles]] and [collection]")
    tmp_runs = None
    if runs is not None or qrels is not None:
        tmp_runs = tempfile.mkdtemp(prefix="serpsim-runs-")
        try:
            if from_files:
                scenario = _files_scenario(runs, qrels, tmp_runs, profiles, users, topics, ideal, allow_partial_judgements)
            else:
                scenario, base = _with_runs(scenario, base, runs, qrels, tmp_runs, ideal, allow_partial_judgements)
        except BaseException:
            shutil.rmtree(tmp_runs, ignore_errors=True)
            raise
    try:
        return _simulate(scenario, replicates, seed, threads, samples, out, base, progress, detail, kind)
    finally:
        if tmp_runs is not None:
            shutil.rmtree(tmp_runs, ignore_errors=True)


def _output_kind(output: Optional[str], *inputs: Any) -> str:
    from ._tables import output_kind

    return output_kind(output, *inputs)


def _scenario_dict(scenario: Scenario, base: Any) -> "tuple[Dict[str, Any], Any]":
    """The scenario as a dict (and the base of its relative paths)."""
    try:
        import tomllib  # type: ignore
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib  # type: ignore
        except ImportError as e:
            raise ImportError("simulate(runs=...) with a TOML scenario needs Python 3.11 or the tomli package") from e
    if scenario is None:
        return tomllib.loads(default_scenario()), base
    if isinstance(scenario, Mapping):
        return json.loads(json.dumps(scenario)), base
    kw = _scenario_kwargs(scenario)
    if "path" in kw:
        path = pathlib.Path(kw["path"])
        return tomllib.loads(path.read_text()), base if base is not None else path.resolve().parent
    return tomllib.loads(kw["text"]), base


def _results_frame(obj: Any, what: str) -> Any:
    """A results table as pandas with ir_measures' columns (PyTerrier's names accepted)."""
    import pandas as pd

    from ._tables import is_polars, to_arrow

    if is_polars(obj) or not isinstance(obj, pd.DataFrame):
        obj = to_arrow(obj, what).to_pandas() if not hasattr(obj, "to_pandas") else obj.to_pandas()
    ren = {"qid": "query_id", "docno": "doc_id", "label": "relevance"}
    return obj.rename(columns={k: v for k, v in ren.items() if k in obj.columns and v not in obj.columns})


def _write_ids(frame: Any, cols: List[str], what: str) -> None:
    for c in cols:
        if c not in frame.columns:
            raise ValueError(f"{what}: missing column `{c}` (columns present: {', '.join(map(str, frame.columns))})")
        bad = frame[c].astype(str).str.contains(r"\s|^$", regex=True)
        if bad.any():
            row = int(bad.to_numpy().nonzero()[0][0])
            raise ValueError(f"{what}: row {row}: column `{c}`: {frame[c].iloc[row]!r} is empty or contains white space")


def _is_path(obj: Any) -> bool:
    return isinstance(obj, (str, bytes, os.PathLike))


def _write_run(name: str, frame: Any, path: str) -> None:
    """A results frame as a TREC run file named ``name`` (its tag)."""
    import pandas as pd

    what = f"run `{name}`"
    if not name or any(ch.isspace() for ch in name):
        raise ValueError(f"{what}: a system name must be non-empty without white space")
    _write_ids(frame, ["query_id", "doc_id"], what)
    if "score" not in frame.columns:
        raise ValueError(f"{what}: missing column `score` (columns present: {', '.join(map(str, frame.columns))})")
    score = pd.to_numeric(frame["score"], errors="raise").astype(float)
    text = "".join(
        f"{q} Q0 {d} {r} {s!r} {name}\n"
        for q, d, r, s in zip(frame["query_id"].astype(str), frame["doc_id"].astype(str), range(1, len(frame) + 1), score)
    )
    with open(path, "w") as f:
        f.write(text)


def _run_paths(runs: Any, tmp: str) -> List[str]:
    """Run files for ``runs``: paths as given (the tag in each file names its system), frames
    written to ``tmp`` (named by the dict key, the frame's ``name`` column, or ``run``)."""
    if _is_path(runs):
        return [os.fspath(runs)]
    out: List[str] = []
    if isinstance(runs, Mapping):
        for i, (k, v) in enumerate(runs.items()):
            if _is_path(v):
                raise ValueError(f"runs[{k!r}]: a run file names its system by its tag; give run files as a list, frames in a dict")
            path = os.path.join(tmp, f"run{i}.txt")
            _write_run(str(k), _results_frame(v, f"runs[{k!r}]"), path)
            out.append(path)
    elif isinstance(runs, (list, tuple)):
        for i, r in enumerate(runs):
            out.extend([os.fspath(r)] if _is_path(r) else _frame_paths(r, tmp, f"run{i + 1}", i))
    else:
        out = _frame_paths(runs, tmp, "run", 0)
    if not out:
        raise ValueError("runs: no rankings given")
    return out


def _frame_paths(obj: Any, tmp: str, default: str, i: int) -> List[str]:
    """A frame of a ``runs`` list: one system per ``name`` value, else named ``default``."""
    frame = _results_frame(obj, f"runs[{i}]")
    groups = [(str(n), g) for n, g in frame.groupby("name", sort=False)] if "name" in frame.columns else [(default, frame)]
    paths = []
    for j, (name, g) in enumerate(groups):
        path = os.path.join(tmp, f"list{i}_{j}.txt")
        _write_run(name, g, path)
        paths.append(path)
    return paths


def _qrels_path(qrels: Any, tmp: str) -> str:
    """A qrels file for ``qrels``: a path as given (absolute), a frame written to ``tmp``."""
    import pandas as pd

    if _is_path(qrels):
        return os.path.abspath(os.fspath(qrels))
    q = _results_frame(qrels, "qrels")
    _write_ids(q, ["query_id", "doc_id"], "qrels")
    if "relevance" not in q.columns:
        raise ValueError(f"qrels: missing column `relevance` (columns present: {', '.join(map(str, q.columns))})")
    rel = pd.to_numeric(q["relevance"], errors="raise")
    if (rel != rel.round()).any():
        raise ValueError("qrels: column `relevance` holds a non-integer grade")
    path = os.path.join(tmp, "qrels.txt")
    with open(path, "w") as f:
        f.write("".join(f"{a} 0 {b} {int(g)}\n" for a, b, g in zip(q["query_id"].astype(str), q["doc_id"].astype(str), rel)))
    return path


def _files_scenario(runs: Any, qrels: Any, tmp: str, profiles: Any, users: Any, topics: Any, ideal: bool, allow_partial: bool) -> str:
    """The scenario text of ``serpsim simulate --qrels --run ...`` (the library writes it)."""
    if qrels is None:
        raise ValueError("simulate(runs=...) needs qrels= (the judgements of these runs' topics): runs are never scored against the bundled demo qrels")
    if runs is None:
        raise ValueError("simulate(qrels=...) needs runs= (a run file, a list of run files or frames, or a dict of frames)")
    if isinstance(profiles, str):
        profiles = [profiles]
    if isinstance(topics, str):
        topics = [topics]
    elif topics is not None:
        topics = [str(t) for t in topics]
    return _serpsim.scenario_from_files(
        _qrels_path(qrels, tmp),
        [os.path.abspath(p) for p in _run_paths(runs, tmp)],
        profiles=[os.fspath(p) for p in (profiles or [])],
        robust=users == "robust",
        topics=topics,
        ideal=bool(ideal),
        allow_partial_judgements=bool(allow_partial),
    )


def _with_runs(scenario: Scenario, base: Any, runs: Any, qrels: Any, tmp: str, ideal: bool = False, allow_partial: bool = False) -> "tuple[Dict[str, Any], Any]":
    """The scenario with its collection replaced by TREC files of ``runs`` (and ``qrels``);
    no ideal system unless ``ideal``."""
    sc, base = _scenario_dict(scenario, base)
    coll = dict(sc.get("collection") or {})
    if runs is not None:
        coll["runs"] = [os.path.abspath(p) for p in _run_paths(runs, tmp)]
        coll.pop("ideal_system", None)
        if ideal:
            coll["ideal_system"] = "ideal"
    if allow_partial:
        coll["allow_partial_judgements"] = True
    if qrels is not None:
        coll["qrels"] = _qrels_path(qrels, tmp)
    if qrels is None and (coll.get("source", "trec") != "trec" or coll.get("qrels") is None):
        raise ValueError("simulate(runs=...): give qrels= (the scenario's collection has no TREC qrels for these rankings)")
    if runs is None and coll.get("source", "trec") != "trec":
        raise ValueError("simulate(qrels=...) needs runs= (the scenario's collection is not TREC-sourced)")
    coll["source"] = "trec"
    sc["collection"] = coll
    return sc, base


def _simulate(scenario: Scenario, replicates: Any, seed: Any, threads: Any, samples: bool, out: Any, base: Any, progress: Any, detail: Any, kind: str) -> Simulation:
    kw = _scenario_kwargs(scenario)
    if detail is not None and detail not in _DETAILS:
        raise ValueError(f"detail: `{detail}` is not one of {', '.join(_DETAILS)}")
    if replicates is not None and int(replicates) < 1:
        raise ValueError("replicates must be at least 1")
    tmp = None
    if out is None:
        tmp = tempfile.mkdtemp(prefix="serpsim-")
        target = os.path.join(tmp, "run")
    else:
        target = os.fspath(out)
    try:
        job = _serpsim.simulate(
            target,
            base=None if base is None else os.fspath(base),
            replicates=None if replicates is None else int(replicates),
            seed=None if seed is None else int(seed),
            threads=threads,
            samples=bool(samples),
            detail=detail,
            **kw,
        )
        written, warnings = _jobs.run(job, progress)
        files = _read_files(written)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return _result(files, warnings, None if out is None else target, kind, stacklevel=4)  # the caller of simulate()


__all__ = ["Simulation", "simulate", "default_scenario"]
