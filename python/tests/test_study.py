"""serpsim.study against `serpsim study summary|events` on the bundled ASC files, AOIs,
attention tables, bad input."""

import io
import json

import pandas as pd
import pytest

import serpsim
from serpsim._tables import read_csv
from conftest import DATA, ROOT, run_cli

ASC = sorted((DATA / "gaze").glob("*.asc"))
# Independent counts of the project-made recordings (study_logs/gaze/expected_counts.csv, by
# grep in analysis/study/asc_counts.sh; see study_logs/README.md).
EXPECTED = read_csv(DATA / "gaze" / "expected_counts.csv").set_index("file")


def test_there_are_asc_files():
    # study_logs/tools/make_gaze.py: 6 recordings at the top level (lowrate/ is not globbed).
    assert len(ASC) == 6


@pytest.mark.parametrize("path", ASC, ids=lambda p: p.name)
def test_read_asc_counts_equal_the_cli(cli, path):
    expected = json.loads(run_cli(cli, "study", "summary", str(path)))
    rec = serpsim.study.read_asc(path, progress=False)
    assert rec.summary == expected
    assert serpsim.study.summary(path) == expected
    # The tables hold as many rows as the counts say.
    assert len(rec.messages) == expected["messages"]
    for kind in ("fixations", "saccades", "blinks"):
        assert len(rec.tables[kind]) == expected[kind], kind
    for eye in ("left", "right"):
        if expected.get(eye):
            tables = rec.eye(eye)
            assert len(tables["samples"]) == expected[eye]["samples"]
            assert len(tables["fixations"]) == expected[eye]["fixations"]
    row = EXPECTED.loc[path.name]
    assert len(rec.messages) == row["messages"]
    assert (rec.fixations["eye"] == "left").sum() == row["fixations_left"]
    assert (rec.fixations["eye"] == "right").sum() == row["fixations_right"]
    assert (rec.blinks["eye"] == "left").sum() == row["blinks_left"]


@pytest.mark.parametrize("method", ["idt", "ivt"])
@pytest.mark.parametrize("path", ASC, ids=lambda p: p.name)
def test_detected_fixations_equal_study_events(cli, path, method):
    # Expected: `serpsim study events FILE --method M` (numbers to 10 significant digits): the
    # same fixations to the printed precision.
    expected = read_csv(io.StringIO(run_cli(cli, "study", "events", str(path), "--method", method)))
    rec = serpsim.study.read_asc(path, progress=False)
    for got in (rec.detect_fixations(method=method, progress=False), serpsim.study.detect_fixations(path, method=method, progress=False)):
        assert len(got) == len(expected)
        assert list(got["eye"]) == list(expected["eye"])
        for c in ("start", "end", "duration"):
            assert list(got[c]) == list(expected[c]), c
        for c in ("x", "y", "pupil"):
            assert [f"{v:.9e}" for v in got[c]] == [f"{v:.9e}" for v in expected[c]], c


def test_detector_options_are_checked():
    rec = serpsim.study.read_asc(ASC[0], progress=False)
    with pytest.raises(ValueError, match="velocity is an I-VT option"):
        rec.detect_fixations(method="idt", velocity=20.0)
    with pytest.raises(ValueError, match="unknown detector `xyz`"):
        rec.detect_fixations(method="xyz")
    with pytest.raises(serpsim.InvalidInputError, match="samples: missing column `time`"):
        serpsim.study.detect_fixations(rec.samples.rename(columns={"time": "t"}), screen_px=(1280, 1024))
    with pytest.raises(ValueError, match="screen_px"):
        serpsim.study.detect_fixations(rec.samples)
    shuffled = rec.samples.iloc[::-1]
    with pytest.raises(ValueError, match="sort by time"):
        serpsim.study.detect_fixations(shuffled, screen_px=(1280, 1024))
    with pytest.raises(FileNotFoundError):
        serpsim.study.read_asc(DATA / "gaze" / "missing.asc")


def test_aoi_mapping_by_hand():
    # By hand: a point inside box `b` maps to it; one 3 px outside `a` (within the 5 px
    # tolerance) maps to `a`; one 50 px away maps to nothing; the result box carries its rank.
    aois = pd.DataFrame({"page": ["p"] * 3, "token": ["a", "b", "r1"], "x": [0.0, 100.0, 0.0], "y": [0.0, 0.0, 200.0], "w": [50.0, 50.0, 300.0], "h": [20.0, 20.0, 100.0], "rank": [None, None, 1], "kind": ["token", "token", "result"]})
    pts = pd.DataFrame({"x": [120.0, 53.0, 400.0, 10.0], "y": [10.0, 10.0, 10.0, 250.0]})
    m = serpsim.study.map_aois(pts, aois, "p")
    assert list(m["token"].fillna("-")) == ["b", "a", "-", "-"]
    assert list(m["result"].fillna("-")) == ["-", "-", "-", "r1"]
    assert m["rank"].iloc[3] == 1
    with pytest.raises(ValueError, match="page `q` is not in the AOIs"):
        serpsim.study.map_aois(pts, aois, "q")
    with pytest.raises(ValueError, match="aois: missing column `w`"):
        serpsim.study.map_aois(pts, aois.drop(columns=["w"]), "p")


def test_attention_tables_equal_the_cli(cli, tmp_path):
    log = DATA / "examples" / "log.jsonl"
    out = tmp_path / "att"
    printed = run_cli(cli, "study", "attention", str(log), "--out", str(out))
    t = serpsim.study.attention(log, progress=False)
    pd.testing.assert_frame_equal(t["query_terms"], read_csv(io.StringIO(printed)))
    words = read_csv(out / "words_fixations.csv", keep_default_na=False)
    assert list(t["words"]["word"]) == list(words["word"])
    assert list(t["words"]["duration_ms"]) == list(words["duration_ms"])
    ranks = read_csv(out / "ranks_fixations.csv")
    assert list(t["ranks"]["duration_ms"]) == list(ranks["duration_ms"])
    lengths = read_csv(out / "lengths_fixations.csv", dtype={"length": str})
    assert [f"{v:.1f}" for v in t["lengths"]["query_all"]] == [f"{v:.1f}" for v in lengths["query_all"]]
    assert t["acquisition"] == json.loads((out / "acquisition_fixations.json").read_text())
