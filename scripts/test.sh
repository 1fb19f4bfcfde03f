#!/usr/bin/env bash
# Runs every test of serpsim. Installs system packages the tests need when they are missing.
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
cargo test --release --locked "$@"
