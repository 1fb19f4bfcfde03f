#!/usr/bin/env bash
# Runs every test of serpsim: the Rust library and CLI, then the Python package's pytest suite.
# Installs what the tests need when it is missing (Debian's wordnet-base, fonts-dejavu-core and openjdk-17-jre-headless; maturin, pytest,
# pandas, pyarrow, pyspark, ir-measures, python-terrier and polars from PyPI). A missing resource fails the run;
# nothing is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
# WordNet 3.0 for the real-WordNet LCH test (src/wordnet/tests.rs), unless WNHOME points to one.
if [ -z "${WNHOME:-}" ] && [ ! -f /usr/share/wordnet/data.noun ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wordnet-base
    else
        echo "NOTICE: /usr/share/wordnet missing; run 'apt-get install wordnet-base' (as root) or set WNHOME" >&2
    fi
fi
# DejaVu Sans for the plot rendering test (tests/plots_render.rs), which fails without it.
if [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-dejavu-core
    else
        echo "NOTICE: DejaVu fonts missing; run 'apt-get install fonts-dejavu-core' (as root)" >&2
    fi
fi
# Java 17 for the Spark tests (python/tests/test_spark.py), which fail without it.
if ! command -v java >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless
    else
        echo "NOTICE: Java missing; run 'apt-get install openjdk-17-jre-headless' (as root): the Spark tests fail without it" >&2
    fi
fi
# The habits gate (issue 43): formatting and lints first, so a style slip fails in seconds, not
# after the build. The lints are clippy's defaults with the reasoned allowances of Cargo.toml's
# [workspace.lints]; the Python binding (python/) is linted with the library.
for component in rustfmt clippy; do
    if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
        echo "installing the $component component (rustup component add $component)" >&2
        rustup component add "$component"
    fi
done
cargo fmt --all -- --check
cargo clippy --locked --workspace --all-targets -- -D warnings
cargo test --release --locked "$@"

# Every documented command of README.md and docs/*.md, run from a fresh clone of HEAD with the
# binary the tests just used (cargo test builds it as target/release/serpsim).
python3 scripts/check_docs.py --bin "${CARGO_TARGET_DIR:-target}/release/serpsim"

# The Python package (python/): build its abi3 wheel in the same target directory as the CLI
# (Cargo.toml aligns the features, so the library and its dependencies compiled above are
# reused: only pyo3 and the binding compile here), install it, then run its tests and doctests.
PY=${PYTHON:-python3}
missing=()
# module:PyPI name
for pair in maturin:maturin pytest:pytest pandas:pandas pyarrow:pyarrow pyspark:pyspark \
    ir_measures:ir-measures pyterrier:python-terrier polars:polars; do
    mod=${pair%%:*}
    "$PY" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$mod') is None)" 2>/dev/null || missing+=("${pair#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing from PyPI: ${missing[*]}" >&2
    "$PY" -m pip install -q "${missing[@]}"
fi
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
"$PY" -m maturin build --release --locked -m python/Cargo.toml -o "$wheels"
"$PY" -m pip install -q --force-reinstall --no-deps "$wheels"/serpsim-*.whl
"$PY" -m pytest -q -p no:cacheprovider python/tests
"$PY" -m pytest -q --doctest-modules --pyargs serpsim
