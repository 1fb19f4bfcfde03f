#!/usr/bin/env bash
# Conformance suite: checks serpsim on the real public files in ../shared/data (never copied
# into this repository). `.ci/run` runs it after the README's test command. A missing file fails.
#
# Each check is one script in scripts/conformance.d/, run in name order with:
#   SERPSIM  the release binary (built here if missing)
#   DATA     the folder of real files (default ../shared/data; override with SERPSIM_DATA)
#   WORK     a scratch folder, removed at the end
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${SERPSIM_DATA:-$(cd .. && pwd)/shared/data}"
if [ ! -d "$DATA" ]; then
  echo "conformance: real data folder $DATA is missing" >&2
  exit 1
fi
TARGET="${CARGO_TARGET_DIR:-target}"
cargo build --release --locked --quiet
SERPSIM="$TARGET/release/serpsim"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export SERPSIM DATA WORK
need() {
  for f in "$@"; do
    [ -f "$DATA/$f" ] || { echo "conformance: $DATA/$f is missing" >&2; exit 1; }
  done
}
export -f need
failed=0
for check in scripts/conformance.d/*.sh; do
  echo "== $(basename "$check")"
  if bash "$check"; then echo "   ok"; else echo "   FAILED: $check" >&2; failed=1; fi
done
exit "$failed"
