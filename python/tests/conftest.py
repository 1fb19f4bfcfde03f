"""Shared fixtures: the repository's bundled data and the CLI binary to compare against."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "study_logs"


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The `serpsim` binary of this checkout, built if needed (the Python results are checked
    against it, so it must exist: a missing binary fails the tests, it does not skip them)."""
    subprocess.run(["cargo", "build", "--release", "--locked", "--quiet", "--bin", "serpsim"], cwd=ROOT, check=True)
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = target / "release" / "serpsim"
    assert path.exists(), f"{path} was not built"
    return path


# The command line prints at most 10 significant digits (README's number rule): a value it
# printed is within this relative distance of the full-precision one Python returns.
CLI_DIGITS = 5e-10


def cli_close(got, printed) -> bool:
    """True when `printed` (a number the CLI wrote) is `got` at 10 significant digits."""
    import numpy as np

    got, printed = np.asarray(got, dtype=float), np.asarray(printed, dtype=float)
    both_nan = np.isnan(got) & np.isnan(printed)
    return bool(np.all(both_nan | (np.abs(got - printed) <= CLI_DIGITS * np.abs(printed) + 1e-300)))


def run_cli(cli: pathlib.Path, *args: str) -> str:
    out = subprocess.run([str(cli), "--quiet", *args], cwd=ROOT, check=True, capture_output=True, text=True)
    return out.stdout


def run_cli_json(cli: pathlib.Path, *args: str):
    return json.loads(run_cli(cli, *args))
