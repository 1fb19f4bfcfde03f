"""serpsim.compare_rankers against `serpsim compare-rankers`, serpsim.wordnet against
`serpsim wordnet lch --pairs` and NLTK's numbers."""

import io

import pandas as pd
import pytest

import serpsim
from serpsim._tables import read_csv
from conftest import ROOT, run_cli

FIX = ROOT / "tests" / "fixtures"
B = FIX / "baraco"


def read_log(path):
    # Independent of serpsim: split the `query<TAB>docs<TAB>clicks` lines by hand.
    rows = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        q, docs, clicks = line.split("\t")
        rows.append({"query_id": q, "docs": docs.split(), "clicks": [int(c) for c in clicks.split()]})
    return pd.DataFrame(rows)


def read_rankings(path):
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            r, q, docs = line.split("\t")
            rows.append({"ranker": r, "query_id": q, "docs": docs.split()})
    return pd.DataFrame(rows)


def test_compare_rankers_equals_the_cli(cli):
    # Expected: `serpsim compare-rankers --log log.tsv --production production.tsv
    # --candidates candidates.tsv --samples 400 --seed 3` (CSV, shortest round-trip floats).
    expected = read_csv(io.StringIO(run_cli(cli, "compare-rankers", "--log", str(B / "log.tsv"), "--production", str(B / "production.tsv"), "--candidates", str(B / "candidates.tsv"), "--samples", "400", "--seed", "3")))
    from_files = serpsim.compare_rankers(B / "log.tsv", B / "production.tsv", B / "candidates.tsv", samples=400, seed=3, progress=False)
    from_frames = serpsim.compare_rankers(read_log(B / "log.tsv"), read_rankings(B / "production.tsv"), read_rankings(B / "candidates.tsv"), samples=400, seed=3, progress=False)
    for got in (from_files, from_frames):
        assert list(got.columns) == ["candidate", "p_safe", "expected_diff", "switch", "unseen_share"]
        # The CLI prints 10 significant digits (README's number rule).
        pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=5e-10, atol=1e-300)
    prod = read_rankings(B / "production.tsv")
    as_dict = {"prod": {r.query_id: r.docs for r in prod.itertuples()}}
    pd.testing.assert_frame_equal(serpsim.compare_rankers(B / "log.tsv", as_dict, B / "candidates.tsv", samples=400, seed=3, progress=False), expected, check_exact=False, rtol=5e-10, atol=1e-300)


def test_compare_rankers_bad_input():
    log = read_log(B / "log.tsv")
    with pytest.raises(serpsim.InvalidInputError, match="log: missing column `clicks`"):
        serpsim.compare_rankers(log.drop(columns=["clicks"]), B / "production.tsv", B / "candidates.tsv")
    with pytest.raises(ValueError, match="candidates.tsv: expected one production ranker, found 5"):
        serpsim.compare_rankers(log, B / "candidates.tsv", B / "candidates.tsv")
    with pytest.raises(serpsim.ParseError, match=r"bad_candidates.tsv:2:"):
        serpsim.compare_rankers(log, B / "production.tsv", B / "bad_candidates.tsv")
    with pytest.raises(ValueError, match="metric: `map` is not rrmetric or dcg"):
        serpsim.compare_rankers(log, B / "production.tsv", B / "candidates.tsv", metric="map")
    with pytest.raises(ValueError, match="candidates: missing column `ranker`"):
        serpsim.compare_rankers(log, B / "production.tsv", read_rankings(B / "candidates.tsv").drop(columns=["ranker"]))


def nltk_pairs():
    return read_csv(FIX / "wordnet" / "nltk_lch.tsv", sep="\t", comment="#", header=None, names=["pos", "word1", "word2", "lch"], keep_default_na=False, na_values=["none"])


def test_lch_equals_the_cli_and_nltk(cli, tmp_path):
    nltk = nltk_pairs()
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("".join(f"{r.word1}\t{r.word2}\t{r.pos}\n" for r in nltk.itertuples()))
    # Expected 1: `serpsim wordnet lch --pairs pairs.tsv` (shortest round-trip floats).
    expected = read_csv(io.StringIO(run_cli(cli, "wordnet", "lch", "--pairs", str(pairs))), sep="\t", keep_default_na=False, na_values=[""])
    got = serpsim.wordnet.lch(nltk[["word1", "word2", "pos"]], progress=False)
    assert list(got.columns) == ["word1", "word2", "pos", "lch"]
    pd.testing.assert_series_equal(got["lch"], expected["lch"], check_exact=True)
    # Expected 2: NLTK 3.10.4 (tests/fixtures/wordnet/README.md), to 1e-12.
    diff = (got["lch"] - nltk["lch"]).abs()
    assert (diff.fillna(0) < 1e-12).all() and (got["lch"].isna() == nltk["lch"].isna()).all()
    from_file = serpsim.wordnet.lch(pairs, progress=False)
    pd.testing.assert_series_equal(from_file["lch"], got["lch"])


def test_wordnet_tuples_and_bad_input():
    got = serpsim.wordnet.lch([("dog", "cat"), ("run", "walk", "v")], progress=False)
    assert list(got["pos"]) == ["n", "v"]
    # NLTK's documented example (howto wordnet.doctest): dog.n.01.lch_similarity(cat.n.01) =
    # 2.0281482472922856, i.e. -ln((4 + 1) / (2 * 19)): path 4 edges, noun depth 19.
    import math

    assert abs(got["lch"][0] - math.log(38 / 5)) < 1e-12
    with pytest.raises(ValueError, match="row 0: part of speech `x`"):
        serpsim.wordnet.lch([("dog", "cat", "x")])
    with pytest.raises(serpsim.InvalidInputError, match="missing column `word2`"):
        serpsim.wordnet.lch(pd.DataFrame({"word1": ["a"], "w2": ["b"]}))
    with pytest.raises(serpsim.InvalidInputError, match="/nonexistent/wordnet/data.noun not found"):
        serpsim.wordnet.lch([("dog", "cat")], wordnet="/nonexistent/wordnet")
