"""serpsim.simulate against `serpsim simulate` (the embedded default scenario), scenario forms,
plots, bad input."""

import io
import pathlib

import pandas as pd
import pytest

import serpsim
from serpsim._tables import read_csv
from conftest import ROOT, run_cli

# Every report table (the report's CSV files with `detail = "full"`), compared whole: the
# attribute is the file's name, the comparison tables' in the plural.
FILES = ["summary", "pooled", "comparison", "tests", "verdict", "gain_curves", "budgets", "budget_comparison", "samples"]
TABLES = {(f + "s" if f.endswith("comparison") else f): f + ".csv" for f in FILES}


def read(path):
    return read_csv(path, keep_default_na=False, na_values=[""], dtype={"topic": str})


@pytest.fixture(scope="module")
def cli_run(cli, tmp_path_factory):
    # Expected: `serpsim simulate --replicates 300 --seed 11 --samples --detail full --out DIR`
    # (embedded default).
    out = tmp_path_factory.mktemp("cli") / "run"
    run_cli(cli, "simulate", "--replicates", "300", "--seed", "11", "--samples", "--detail", "full", "--out", str(out))
    return out


def test_default_scenario_equals_the_cli(cli_run, tmp_path):
    r = serpsim.simulate(replicates=300, seed=11, progress=False, detail="full")
    for attr, name in TABLES.items():
        got = getattr(r, attr)
        assert got is not None, attr
        pd.testing.assert_frame_equal(got, read(cli_run / name), check_exact=True, obj=attr)
    assert len(r.samples) > 0 and len(r.comparisons) > 0
    # Kept files are byte-identical to the CLI's, whatever the thread count.
    kept = tmp_path / "kept"
    serpsim.simulate(replicates=300, seed=11, threads=1, out=kept, progress=False, detail="full")
    for name in TABLES.values():
        assert (kept / name).read_bytes() == (cli_run / name).read_bytes(), name
    assert (kept / "distributions.svg").read_bytes() == (cli_run / "distributions.svg").read_bytes()


def test_plot_is_svg():
    r = serpsim.simulate(replicates=40, seed=2, samples=False, progress=False)
    svg = r.plot()
    assert svg.lstrip().startswith("<svg")
    assert "<svg" in r.plot("gain_curves")
    assert "Gain difference A - B per topic" in r.plot("differences")
    assert r.samples is None
    with pytest.raises(ValueError, match="kind: `pie`"):
        r.plot("pie")


def test_toml_text_dict_and_path_give_the_same_run(tmp_path):
    text = serpsim.simulation.default_scenario()
    path = tmp_path / "s.toml"
    path.write_text(text)
    import tomllib

    as_dict = tomllib.loads(text)
    a = serpsim.simulate(path, replicates=30, seed=4, samples=False, progress=False)
    b = serpsim.simulate(text, replicates=30, seed=4, samples=False, progress=False)
    c = serpsim.simulate(as_dict, replicates=30, seed=4, samples=False, progress=False)
    d = serpsim.simulate(replicates=30, seed=4, samples=False, progress=False)
    for other in (b, c, d):
        pd.testing.assert_frame_equal(a.pooled, other.pooled, check_exact=True)
    # A different seed changes the numbers (the comparison can fail).
    e = serpsim.simulate(replicates=30, seed=5, samples=False, progress=False)
    assert not a.pooled.equals(e.pooled)


def test_a_stream_scenario_runs_as_the_cli_runs_it(cli, tmp_path):
    # Expected: `serpsim simulate simulations/streams/bopha.toml --replicates 300 --seed 5
    # --out DIR` (the CLI's stream path, docs/streams.md); Python calls the same library entry
    # (`serpsim::run::run_text`), so the files are byte-identical.
    scen = ROOT / "simulations" / "streams" / "bopha.toml"
    want = tmp_path / "cli"
    run_cli(cli, "simulate", str(scen), "--replicates", "300", "--seed", "5", "--out", str(want))
    kept = tmp_path / "py"
    r = serpsim.simulate(scen, replicates=300, seed=5, samples=False, out=kept, progress=False)
    names = ["msu.csv", "summary.json", "verdict.csv", "pooled.csv", "answer.txt"]
    for name in names:
        assert (kept / name).read_bytes() == (want / name).read_bytes(), name
        assert r.files[name] == (want / name).read_bytes(), name
    # Another seed gives other MSU numbers (the comparison can fail).
    other = serpsim.simulate(scen, replicates=300, seed=6, samples=False, progress=False)
    assert other.files["msu.csv"] != r.files["msu.csv"]
    # Per-session samples (the Python default) are refused with a clear error, as --samples is.
    with pytest.raises(serpsim.InvalidInputError, match="samples=False"):
        serpsim.simulate(scen, replicates=10, progress=False)


def test_bad_scenarios_raise_clear_errors(tmp_path):
    text = serpsim.simulation.default_scenario().replace("replicates =", "replicatez =", 1)
    with pytest.raises(serpsim.ConfigError, match="replicatez"):
        serpsim.simulate(text, progress=False)
    with pytest.raises(FileNotFoundError, match="nope.toml"):
        serpsim.simulate(tmp_path / "nope.toml", progress=False)
    with pytest.raises(ValueError, match="replicates must be at least 1"):
        serpsim.simulate(replicates=0, progress=False)
    with pytest.raises(TypeError, match="scenario: expected a path"):
        serpsim.simulate(42, progress=False)
    with pytest.raises(ValueError, match="threads must be at least 1"):
        serpsim.simulate(replicates=5, threads=0, progress=False)
    with pytest.raises(ValueError, match="detail: `everything`"):
        serpsim.simulate(replicates=5, detail="everything", progress=False)
    bad = serpsim.simulation.default_scenario().replace("\n[output]\n", '\n[output]\ndetail = "everything"\n')
    with pytest.raises(serpsim.ConfigError, match="everything"):
        serpsim.simulate(bad, progress=False)


def test_a_long_run_can_be_cancelled(tmp_path):
    # What Ctrl-C does (serpsim._jobs.run turns KeyboardInterrupt into cancel()): the work stops
    # at its next check and the job raises KeyboardInterrupt; nothing is left in `out`.
    from serpsim import _serpsim

    out = tmp_path / "run"
    job = _serpsim.simulate(str(out), replicates=50_000_000, seed=1, samples=False)
    assert not job.wait(0.5)  # still running: the GIL is free meanwhile
    job.cancel()
    assert job.wait(60.0), "the job did not stop within 60 s of cancel()"
    with pytest.raises(KeyboardInterrupt):
        job.result()
    assert not out.exists()


# Columns that hold text; every other column of every table must have a numeric (or boolean)
# dtype. A column is text by its name, not by what pandas made of it, so a numeric column
# holding the text `NaN` or a string fails.
TEXT_COLUMNS = {"topic", "system", "profile", "measure", "unit", "better", "scope", "system_a", "system_b", "verdict", "headline", "favours_a", "favours_b", "test", "warning", "axis", "role"}


def is_text_column(name):
    # Per-measure verdict columns: `<measure>_better`, `<measure>_role`, `<measure>_favours`.
    return name in TEXT_COLUMNS or name.endswith(("_better", "_role", "_favours")) and not name.endswith(("p_a_better", "p_a_better_sessions"))


def test_numeric_columns_are_numbers_and_no_csv_holds_nan_text(tmp_path):
    # The bundled combined scenario has per-topic quantiles left undefined (many cells), so the
    # report has undefined values; the default scenario has a one-profile comparison.
    for scenario, detail in [(None, "full"), (ROOT / "simulations" / "combined.toml", "full"), (None, "summary")]:
        out = tmp_path / f"{detail}-{'default' if scenario is None else scenario.stem}"
        r = serpsim.simulate(scenario, replicates=40, seed=3, detail=detail, out=out, progress=False)
        tables = {attr: getattr(r, attr) for attr in TABLES}
        assert tables["comparisons"] is not None and tables["verdict"] is not None and tables["pooled"] is not None
        if detail == "full":
            assert tables["summary"] is not None
        else:
            assert tables["summary"] is None and not (out / "summary.csv").exists()
            assert set(tables["comparisons"]["scope"]) == {"pooled"}
        for attr, frame in tables.items():
            if frame is None:
                continue
            for col in frame.columns:
                if is_text_column(col):
                    continue
                assert pd.api.types.is_numeric_dtype(frame[col]) or pd.api.types.is_bool_dtype(frame[col]), f"{attr}.{col} has dtype {frame[col].dtype}"
        # The bug of issue 26: comparisons.p_a_better was text.
        assert (r.comparisons["p_a_better"] >= 0).any()
        assert pd.api.types.is_float_dtype(r.comparisons["diff_q05"])
        csvs = list(out.glob("*.csv"))
        assert len(csvs) >= 6
        for f in csvs:
            import csv as _csv

            assert "NaN" not in f.read_text(), f.name
            for row in _csv.reader(io.StringIO(f.read_text())):
                for cell in row:
                    assert cell.strip().lower().lstrip("+-") not in ("nan", "inf", "infinity"), f"{f.name}: `{cell}`"


def test_summary_json_loads_into_columns(tmp_path):
    import json

    out = tmp_path / "run"
    r = serpsim.simulate(replicates=40, seed=3, detail="full", out=out, progress=False)
    report = json.loads((out / "summary.json").read_text())
    assert report["detail"] == "full" and report["seed"] == 3 and report["users"] == 40
    # Each table of summary.json is the CSV file of the same name, record for record.
    for name, attr in [("verdict", "verdict"), ("comparison", "comparisons"), ("tests", "tests"), ("pooled", "pooled"), ("summary", "summary"), ("budgets", "budgets")]:
        frame = pd.json_normalize(report["tables"][name])
        csv = getattr(r, attr)
        assert list(frame.columns) == list(csv.columns), name
        assert len(frame) == len(csv), name
        for col in csv.columns:
            if pd.api.types.is_float_dtype(csv[col]) and not is_text_column(col):
                pd.testing.assert_series_equal(frame[col].astype(float), csv[col], check_names=False, obj=f"{name}.{col}")
    assert {"system", "profile", "measure", "bin", "low", "high", "count"} <= set(pd.DataFrame(report["tables"]["histograms"]).columns)
    # The summary detail keeps the reader's tables only.
    small = json.loads(serpsim.simulate(replicates=40, seed=3, out=tmp_path / "small", progress=False).files["summary.json"])
    assert set(small["tables"]) == {"measures", "verdict", "tests"}


def test_repr_is_the_answer_the_cli_prints(cli, tmp_path):
    import html
    import subprocess

    # The answer names the output folder, so both runs write to the same one: the CLI first,
    # then Python over it.
    out = tmp_path / "run"
    printed = subprocess.run([str(cli), "simulate", "--replicates", "200", "--seed", "5", "--out", str(out)], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    answer = (out / "answer.txt").read_text()
    assert printed.startswith(answer), printed
    r = serpsim.simulate(replicates=200, seed=5, out=out, progress=False)
    assert repr(r) == answer.rstrip("\n")
    assert 0 < len(repr(r).splitlines()) <= 25
    assert r.answer == answer
    assert r._repr_html_() == '<pre class="serpsim-answer">' + html.escape(answer.rstrip("\n")) + "</pre>"
    # Another seed gives another answer (the comparison can fail).
    assert repr(serpsim.simulate(replicates=200, seed=6, out=tmp_path / "other", progress=False)) != repr(r)


# Your own qrels and runs (issue 40): one Python call, one CLI command and the scenario file it
# prints give byte-identical reports. The project-made pair of tests/fixtures/trec_eval.
_QRELS = ROOT / "tests" / "fixtures" / "trec_eval" / "qrels.synth.zst"
_RUNS = [ROOT / "tests" / "fixtures" / "trec_eval" / "run.synth_a.gz", ROOT / "tests" / "fixtures" / "trec_eval" / "run.synth_b"]


def _files(d):
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def test_own_files_in_python_equal_the_cli_and_its_scenario_file(cli, tmp_path):
    import subprocess

    args = ["--qrels", str(_QRELS)] + [a for r in _RUNS for a in ("--run", str(r))] + ["--users", "robust"]
    subprocess.run([str(cli), "simulate", *args, "--replicates", "150", "--out", str(tmp_path / "cli")], check=True, capture_output=True)
    text = subprocess.run([str(cli), "simulate", *args, "--print-scenario"], check=True, capture_output=True, text=True).stdout
    (tmp_path / "s.toml").write_text(text)
    subprocess.run([str(cli), "simulate", str(tmp_path / "s.toml"), "--replicates", "150", "--out", str(tmp_path / "file")], check=True, capture_output=True)
    r = serpsim.simulate(qrels=str(_QRELS), runs=[str(p) for p in _RUNS], users="robust", replicates=150, samples=False, out=tmp_path / "py", progress=False)
    cli_files, file_files, py_files = _files(tmp_path / "cli"), _files(tmp_path / "file"), _files(tmp_path / "py")
    assert len(cli_files) >= 10
    assert cli_files == file_files
    assert cli_files == py_files
    # No system added: one pair, four user models, one line on whether they agree.
    assert set(zip(r.verdict["system_a"], r.verdict["system_b"])) == {("synthA", "synthB")}
    assert len(r.verdict) == 4
    users = [l for l in repr(r).splitlines() if l.startswith("users: ")]
    assert len(users) == 1 and "of 4 user models" in users[0], repr(r)
    assert r.report["coverage"]["judged_topics"] == 50


def test_own_frames_and_refusals(tmp_path):
    import pandas as pd

    qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": [2, 0, 1]})
    a = pd.DataFrame({"query_id": ["1", "1", "2", "3", "4"], "doc_id": ["a", "b", "c", "x", "y"], "score": [2.0, 1.0, 1.0, 1.0, 1.0]})
    b = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["b", "a", "c"], "score": [2.0, 1.0, 1.0]})
    # No qrels: never the bundled demo judgements.
    with pytest.raises(ValueError, match="needs qrels="):
        serpsim.simulate(runs={"A": a, "B": b}, progress=False)
    # Topics 1-4 ranked, 1-2 judged: exactly half unjudged is allowed (not more than half).
    r = serpsim.simulate(qrels=qrels, runs={"A": a, "B": b}, replicates=50, samples=False, progress=False)
    assert set(r.verdict["system_a"]) | set(r.verdict["system_b"]) == {"A", "B"}
    assert r.report["coverage"]["unjudged_run_topics"] == 2
    assert any("left out" in w for w in r.warnings)
    # A fifth unjudged topic makes 3 of 5: refused unless allowed.
    a5 = pd.concat([a, pd.DataFrame({"query_id": ["5"], "doc_id": ["z"], "score": [1.0]})])
    with pytest.raises(serpsim.Error, match="more than half"):
        serpsim.simulate(qrels=qrels, runs={"A": a5, "B": b}, replicates=50, samples=False, progress=False)
    r = serpsim.simulate(qrels=qrels, runs={"A": a5, "B": b}, replicates=50, samples=False, progress=False, allow_partial_judgements=True, ideal=True)
    assert "ideal" in set(r.verdict["system_b"])
    assert r.report["coverage"]["allow_partial_judgements"] is True
