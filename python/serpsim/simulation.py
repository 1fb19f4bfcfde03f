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

    def __init__(self, files: Dict[str, bytes], warnings: List[str], out: Optional[str]) -> None:
        import io

        from ._tables import read_csv

        self.warnings = list(warnings)
        self.out = out
        self.files = files
        for attr, name in _TABLES.items():
            data = files.get(name)
            frame = None
            if data is not None:
                frame = read_csv(io.BytesIO(data), keep_default_na=False, na_values=[""], dtype={"topic": str})
            setattr(self, attr, frame)
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


def _result(files: Dict[str, bytes], warnings: List[str], out: Optional[str]) -> "Simulation":
    """Warns the run's warnings (as the CLI prints them) and wraps its files."""
    if warnings:
        import warnings as _w

        for message in warnings:
            _w.warn(message, stacklevel=3)
    return Simulation(files, warnings, out)


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
) -> Simulation:
    """Runs ``scenario`` as ``serpsim simulate`` does and returns its report.

    ``scenario``: a path to a TOML file, TOML text, a dict of the same keys, or ``None`` for
    the embedded default. ``replicates`` (users per profile) and ``seed`` override the
    scenario's. Results do not depend on ``threads``. ``samples`` also keeps every session.
    ``out`` keeps the report files in that directory (as ``--out``); by default they are
    written to a temporary directory and removed after reading. Relative paths inside TOML
    text or a dict resolve against ``base`` (default: the working directory). ``detail``
    (``"summary"`` or ``"full"``) overrides the scenario's ``[output] detail``.
    """
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
    return _result(files, warnings, None if out is None else target)


__all__ = ["Simulation", "simulate", "default_scenario"]
