"""User-study logs: EyeLink ASC files as DataFrames, fixation detection (I-DT and I-VT),
fixations on areas of interest, and the attention tables of a study log.

>>> import serpsim, pathlib
>>> rec = serpsim.study.read_asc(pathlib.Path("study_logs/gaze/mono_1000hz.asc"))
>>> sorted(rec.tables)
['blinks', 'fixations', 'messages', 'saccades', 'samples']
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _jobs, _serpsim
from ._tables import from_pandas, is_path, output_kind, read_csv, to_arrow, to_frame

_DETECT_DOC = """
    ``method`` is ``"idt"`` (dispersion threshold, Salvucci and Goldberg 2000; options
    ``dispersion`` in degrees, default 1.0, ``min_duration`` default 100 ms) or ``"ivt"``
    (velocity threshold with the Tobii I-VT filter's defaults; ``velocity`` 30 deg/s,
    ``window_ms`` 20, ``min_duration`` 60 ms, ``merge_gap`` 75 ms, ``merge_angle`` 0.5 deg,
    ``merge=False`` to keep adjacent fixations apart). ``max_gap`` (75 ms) is the longest
    bridged gap between valid samples. The screen is ``screen_cm`` wide and high at
    ``distance_cm`` (defaults: the pymovements example set-up, 38 x 30.2 cm at 68 cm).
    Options of the other detector raise ``ValueError``, as on the command line."""


class AscRecording:
    """An EyeLink ASC file read whole: DataFrames ``samples`` (``eye, time, x, y, pupil``;
    per eye, NaN where the tracker lost the eye), ``fixations``, ``saccades``, ``blinks``
    (the tracker's own events, with ``eye``) and ``messages`` (``time, text, line``);
    ``summary`` (the counts of ``serpsim study summary``), ``rate`` (Hz), ``screen_px``
    (from DISPLAY_COORDS) and ``warnings``. The tables are pandas DataFrames, or polars ones
    when read with ``output="polars"``."""

    def __init__(self, path: str, tables: Dict[str, Any], summary: str, rate: Optional[float], screen_px: Optional[Tuple[float, float]], warnings: List[str], output: str = "pandas") -> None:
        self.path = path
        self.output = output
        self.tables = {k: to_frame(v, output) for k, v in tables.items()}
        self.summary: Dict[str, Any] = json.loads(summary)
        self.rate = rate
        self.screen_px = screen_px
        self.warnings = list(warnings)

    samples = property(lambda self: self.tables["samples"], doc="Gaze samples, per eye.")
    fixations = property(lambda self: self.tables["fixations"], doc="The tracker's fixations (EFIX).")
    saccades = property(lambda self: self.tables["saccades"], doc="The tracker's saccades (ESACC).")
    blinks = property(lambda self: self.tables["blinks"], doc="The tracker's blinks (EBLINK).")
    messages = property(lambda self: self.tables["messages"], doc="MSG lines.")

    def eye(self, eye: str) -> Dict[str, Any]:
        """The tables of one eye (``"left"`` or ``"right"``); messages are shared."""
        if eye not in ("left", "right"):
            raise ValueError(f"eye: `{eye}` is not left or right")
        if self.output == "polars":
            return {k: (v if k == "messages" else v.filter(v["eye"] == eye)) for k, v in self.tables.items()}
        return {k: (v if k == "messages" else v[v["eye"] == eye].reset_index(drop=True)) for k, v in self.tables.items()}

    def detect_fixations(self, method: str = "idt", progress: Optional[bool] = None, **options: Any) -> Any:
        """Detects fixations in this recording's samples with the file's screen size and rate
        (the numbers of ``serpsim study events``); see :func:`detect_fixations`."""
        if self.screen_px is None and "screen_px" not in options:
            raise ValueError(f"{self.path}: the file has no DISPLAY_COORDS; give screen_px=(width, height)")
        options.setdefault("screen_px", self.screen_px)
        if self.rate:
            options.setdefault("rate", self.rate)
        return detect_fixations(self.samples, method=method, progress=progress, **options)

    def __repr__(self) -> str:
        s = self.summary
        return f"<serpsim AscRecording {self.path}: {s['samples']} samples, {s['fixations']} fixations, {s['saccades']} saccades, {s['blinks']} blinks, {s['messages']} messages>"


def read_asc(path: "os.PathLike[str] | str", progress: Optional[bool] = None, output: Optional[str] = None) -> AscRecording:
    """Reads an EyeLink ASC file (gzip and zstd accepted) into DataFrames (pandas, or polars
    with ``output="polars"``)."""
    kind = output_kind(output)
    p = os.fspath(path)
    tables, summary, rate, display, warnings = _jobs.run(_serpsim.read_asc(p), progress)
    return AscRecording(p, tables, summary, rate, display, warnings, kind)


def summary(path: "os.PathLike[str] | str") -> Dict[str, Any]:
    """The counts ``serpsim study summary`` prints for an ASC file: samples, fixations,
    saccades, blinks, messages, and per eye under ``left`` / ``right`` when binocular."""
    return json.loads(_serpsim.asc_summary(os.fspath(path)))


def detect_fixations(
    samples: Any, method: str = "idt", screen_px: Optional[Tuple[float, float]] = None, progress: Optional[bool] = None, output: Optional[str] = None, **options: Any
) -> Any:
    """Detects fixations; returns a DataFrame ``eye, start, end, duration, x, y, pupil`` (ms,
    pixels): pandas, or polars for polars samples or ``output="polars"``.

    ``samples`` is a DataFrame or Arrow table ``time`` (ms), ``x``, ``y`` (pixels), optional
    ``pupil`` and ``eye`` (``left``/``right``; all left when absent), sorted by time per eye;
    then ``screen_px=(width, height)`` is required and the sample interval is ``1000 / rate``
    (``rate`` in Hz) or the median time step. Or ``samples`` is a gaze file path (ASC, or the
    CSV/TSV exports ``serpsim study events`` reads), streamed as that command does.
    """
    kind = output_kind(output, samples)
    if is_path(samples):
        if screen_px is not None:
            options["screen_px"] = tuple(map(float, screen_px))
        batch, notes = _jobs.run(_serpsim.detect_file(os.fspath(samples), method=method, **options), progress)
        return to_frame(batch, kind)
    if screen_px is None:
        raise ValueError("screen_px=(width, height) in pixels is required for a samples table")
    job = _serpsim.detect_fixations(to_arrow(samples, "samples"), tuple(map(float, screen_px)), method=method, **options)
    return to_frame(_jobs.run(job, progress), kind)


detect_fixations.__doc__ = (detect_fixations.__doc__ or "") + _DETECT_DOC


def map_aois(points: Any, aois: Any, page: str) -> Any:
    """Maps points (a DataFrame with ``x`` and ``y``, e.g. fixations) on page ``page`` to areas
    of interest: returns ``points`` with ``token``, ``token_index``, ``result`` and ``rank``
    added (missing where the point is on no box, within the library's 5 px tolerance).

    ``aois`` is an AOI file (docs/study.md: ``page,token,x,y,w,h[,rank][,kind]`` or the
    pymovements character layout) or a DataFrame ``page, token, x, y, w, h[, rank][, kind]``
    (kind ``token`` or ``result``; result boxes need a rank). polars points give polars out."""
    kind = output_kind(None, points)
    if kind == "polars":
        points = points.to_pandas()
    for c in ("x", "y"):
        if c not in points.columns:
            raise serpsim_invalid(f"points: missing column `{c}` (columns present: {', '.join(map(str, points.columns))})")
    src = os.fspath(aois) if is_path(aois) else to_arrow(aois, "aois")
    mapped = to_frame(_serpsim.map_aois(src, str(page), [float(v) for v in points["x"]], [float(v) for v in points["y"]]), "pandas")
    out = points.reset_index(drop=True).copy()
    for c in mapped.columns:
        out[c] = mapped[c].values
    return from_pandas(out, kind)


def serpsim_invalid(message: str) -> Exception:
    from .errors import InvalidInputError

    return InvalidInputError(message)


def attention(log: "os.PathLike[str] | str", source: str = "fixations", progress: Optional[bool] = None, output: Optional[str] = None) -> Dict[str, Any]:
    """The attention tables of an annotated study log, as ``serpsim study attention`` writes
    them: ``query_terms`` (attention on query vs non-query terms, Eickhoff et al. 2015 Table
    2), ``lengths`` (by term length), ``words`` (per session and word: count and duration),
    ``ranks`` (per result rank) as DataFrames, and ``acquisition`` (literal query-term
    acquisition shares, a dict). ``source`` is ``fixations`` or ``hovers``. ``output="polars"``
    gives polars DataFrames."""
    import io

    kind = output_kind(output)
    d = _jobs.run(_serpsim.attention(os.fspath(log), source), progress)
    return {
        "query_terms": from_pandas(read_csv(io.StringIO(d["query_terms"])), kind),
        "lengths": to_frame(d["lengths"], kind),
        "words": to_frame(d["words"], kind),
        "ranks": to_frame(d["ranks"], kind),
        "acquisition": json.loads(d["acquisition"]),
    }


__all__ = ["AscRecording", "read_asc", "summary", "detect_fixations", "map_aois", "attention"]
