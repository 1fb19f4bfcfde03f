#!/usr/bin/env bash
# Runs every test of serpsim. Installs system packages the tests need when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --locked "$@"
