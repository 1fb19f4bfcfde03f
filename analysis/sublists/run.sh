#!/usr/bin/env bash
# Reproduces every number in analysis/sublists/README.md (2 threads; results do not depend on it).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -n "${SERPSIM:-}" ] || cargo build --release --quiet
B=${SERPSIM:-target/release/serpsim}
OUT=analysis/sublists/results
rm -rf "$OUT"   # a run replaces its output directories as a whole
mkdir -p "$OUT"
/usr/bin/time -f "sweep wall %e s, cpu %U s" $B sublists sweep simulations/sublists/default.toml --out $OUT/sweep --threads 2
python3 analysis/sublists/fig6_facts.py $OUT/sweep/fig6.csv | tee $OUT/fig6_facts.txt
$B sublists when simulations/sublists/default.toml --out $OUT/when --threads 2
$B sublists when analysis/sublists/when_median.toml --out $OUT/when_median --threads 2
# Synthetic usage log (true lambda 0.05, lognormal spread 0.3, 10% random switches,
# 10% hover dropout, 5% false clicks, 5 RLR + 3 basic instances per topic, find-10).
$B sublists gen-log simulations/sublists/default.toml --log $OUT/usage_log.csv
$B sublists fit simulations/sublists/default.toml --log $OUT/usage_log.csv --out $OUT/fit --threads 2
# GLM reference fits (statsmodels); rewrites the test fixtures.
# python3 analysis/sublists/glm_reference.py
# Real-data recipe: LETOR MQ2008 subset with binned-feature filters, read in place from the
# shared data beside the checkout (not bundled; SERPSIM_DATA overrides ../shared/data). The
# per-query sweep.csv and topics.csv (values of single MQ2008 queries) are not kept.
DATA=${SERPSIM_DATA:-../shared/data}
[ -f "$DATA/letor/mq2008_subset_a.txt" ] || { echo "missing $DATA/letor/mq2008_subset_a.txt" >&2; exit 1; }
LETOR_TOML=$(mktemp --suffix=.toml)
sed "s#^file = .*#file = \"$(cd "$DATA" && pwd)/letor/mq2008_subset_a.txt\"#" analysis/sublists/letor.toml > "$LETOR_TOML"
$B sublists sweep "$LETOR_TOML" --out $OUT/letor --threads 2
rm -f "$LETOR_TOML" $OUT/letor/sweep.csv $OUT/letor/topics.csv
python3 analysis/sublists/fig6_facts.py $OUT/letor/fig6.csv | tee $OUT/letor_fig6_facts.txt || true
