"""serpsim.simulate against `serpsim simulate` (the embedded default scenario), scenario forms,
plots, bad input."""

import io
import pathlib

import pandas as pd
import pytest

import serpsim
from serpsim._tables import read_csv
from conftest import ROOT, run_cli

# Every report table (the report's CSV files), compared whole.
TABLES = {"summary": "summary.csv", "pooled": "pooled.csv", "comparisons": "comparison.csv", "tests": "tests.csv", "verdict": "verdict.csv", "gain_curves": "gain_curves.csv", "budgets": "budgets.csv", "samples": "samples.csv"}


def read(path):
    return read_csv(path, keep_default_na=False, na_values=[""], dtype={"topic": str})


@pytest.fixture(scope="module")
def cli_run(cli, tmp_path_factory):
    # Expected: `serpsim simulate --replicates 300 --seed 11 --samples --out DIR` (embedded default).
    out = tmp_path_factory.mktemp("cli") / "run"
    run_cli(cli, "simulate", "--replicates", "300", "--seed", "11", "--samples", "--out", str(out))
    return out


def test_default_scenario_equals_the_cli(cli_run, tmp_path):
    r = serpsim.simulate(replicates=300, seed=11, progress=False)
    for attr, name in TABLES.items():
        got = getattr(r, attr)
        assert got is not None, attr
        pd.testing.assert_frame_equal(got, read(cli_run / name), check_exact=True, obj=attr)
    assert len(r.samples) > 0 and len(r.comparisons) > 0
    # Kept files are byte-identical to the CLI's, whatever the thread count.
    kept = tmp_path / "kept"
    serpsim.simulate(replicates=300, seed=11, threads=1, out=kept, progress=False)
    for name in TABLES.values():
        assert (kept / name).read_bytes() == (cli_run / name).read_bytes(), name
    assert (kept / "distributions.svg").read_bytes() == (cli_run / "distributions.svg").read_bytes()


def test_plot_is_svg_and_shows_in_notebooks():
    r = serpsim.simulate(replicates=40, seed=2, samples=False, progress=False)
    svg = r.plot()
    assert svg.lstrip().startswith("<svg") and svg == r._repr_svg_()
    assert "<svg" in r.plot("gain_curves")
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
        pd.testing.assert_frame_equal(a.summary, other.summary, check_exact=True)
    # A different seed changes the numbers (the comparison can fail).
    e = serpsim.simulate(replicates=30, seed=5, samples=False, progress=False)
    assert not a.summary.equals(e.summary)


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
