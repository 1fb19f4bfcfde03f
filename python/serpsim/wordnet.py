"""WordNet similarity of word pairs, vectorised: Leacock-Chodorow (``lch``) and path
similarity (``path``) as NLTK defines them, on the WordNet 3.0 database the command line
uses (``$WNHOME``, else ``/usr/share/wordnet``: Debian's ``wordnet-base``)."""

from __future__ import annotations

import os
from typing import Any, Optional

from . import _jobs, _serpsim
from ._tables import read_csv, is_path


def _pairs(pairs: Any, pos: str) -> Any:
    import pandas as pd

    if is_path(pairs):
        frame = read_csv(os.fspath(pairs), sep="\t", header=None, comment="#", dtype=str, keep_default_na=False)
        if len(frame) and frame.iloc[0, 0].lower() == "word1":
            frame = frame.iloc[1:]
        frame.columns = ["word1", "word2", "pos"][: frame.shape[1]]
    elif isinstance(pairs, pd.DataFrame):
        frame = pairs
    else:
        rows = [tuple(p) for p in pairs]
        if any(len(r) not in (2, 3) for r in rows):
            raise ValueError("pairs: expected (word1, word2) or (word1, word2, pos) tuples")
        frame = pd.DataFrame([r if len(r) == 3 else (*r, pos) for r in rows], columns=["word1", "word2", "pos"])
    for c in ("word1", "word2"):
        if c not in frame.columns:
            from .errors import InvalidInputError

            raise InvalidInputError(f"pairs: missing column `{c}` (columns present: {', '.join(map(str, frame.columns))})")
    out = pd.DataFrame({"word1": frame["word1"].astype(str).values, "word2": frame["word2"].astype(str).values})
    out["pos"] = frame["pos"].replace("", pos).astype(str).values if "pos" in frame.columns else pos
    return out


def _score(measure: str, pairs: Any, pos: str, wordnet: Any, progress: Optional[bool]) -> Any:
    frame = _pairs(pairs, pos)
    wn = None if wordnet is None else os.fspath(wordnet)
    job = _serpsim.wordnet_scores(measure, list(frame["word1"]), list(frame["word2"]), list(frame["pos"]), wn)
    scores = _jobs.run(job, progress)
    frame[measure] = [float("nan") if s is None else s for s in scores]
    return frame


def lch(pairs: Any, pos: str = "n", wordnet: Any = None, progress: Optional[bool] = None) -> Any:
    """Leacock-Chodorow similarity of each pair (the maximum over the words' synsets, as
    NLTK's word-level use): ``pairs`` is a DataFrame ``word1, word2[, pos]``, a list of
    ``(word1, word2[, pos])`` tuples, or a TSV file as ``serpsim wordnet lch --pairs`` reads.
    Returns a DataFrame ``word1, word2, pos, lch``; NaN where a word has no synset of that
    part of speech (``n`` or ``v``) or the synsets share no ancestor."""
    return _score("lch", pairs, pos, wordnet, progress)


def path(pairs: Any, pos: str = "n", wordnet: Any = None, progress: Optional[bool] = None) -> Any:
    """Path similarity 1 / (shortest path + 1) of each pair; see :func:`lch`."""
    return _score("path", pairs, pos, wordnet, progress)


def default_dir() -> str:
    """The WordNet directory used when ``wordnet`` is not given."""
    return os.fspath(_serpsim.wordnet_default_dir())


__all__ = ["lch", "path", "default_dir"]
