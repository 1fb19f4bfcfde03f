#!/usr/bin/env bash
# Reproduces every number in analysis/study/README.md. Run from the repository root after
# `cargo build --release`. Outputs go to analysis/study/out/.
set -euo pipefail
cd "$(dirname "$0")/../.."
S=./target/release/serpsim
O=analysis/study/out
mkdir -p "$O"
# Sections 1-3 read the real public recordings in place (never copied into the repository);
# their outputs go to $O/real/, which is not committed (per-record values of public files).
DATA="${SERPSIM_DATA:-$(cd .. && pwd)/shared/data}"
R="$O/real"
mkdir -p "$R"
# 1. Counts of the real ASC files (grep reference: analysis/study/asc_counts.sh DIR).
for f in "$DATA"/gaze/*.asc; do echo "$(basename "$f") $($S study summary "$f")"; done > "$R/summary.txt"
bash analysis/study/asc_counts.sh "$DATA/gaze" > "$R/expected_counts.csv"
# 2. Detected fixations vs the tracker's EFIX events: real 1000 Hz and 500 Hz recordings and
#    the 1000 Hz one thinned to 60 and 30 Hz (analysis/study/real_layouts.py), both detectors
#    at their defaults. The 16-sample monocular files are parser tests (thinned by hand) and
#    carry no signal to detect on.
python3 analysis/study/real_layouts.py "$DATA/gaze/eyelink_binocular_example.asc" "$R"
REAL="$DATA/gaze/eyelink_binocular_example.asc $DATA/gaze/eyelink_monocular_no_dummy_example.asc $R/eyelink_binocular_60hz.asc $R/eyelink_binocular_30hz.asc"
for m in idt ivt; do
  $S study agreement $REAL --method $m > "$R/agreement_${m}_default.json" 2> "$R/agreement_${m}_notes.txt"
done
$S study agreement "$R/eyelink_binocular_as_tobii_pro_lab.tsv" --method ivt > "$R/agreement_ivt_tobii_layout.json" 2>/dev/null
# 3. Per-word attention on the real Data Viewer report.
$S study words "$DATA/gaze/18sat_fixfinal.csv" --out "$R/words_18sat.csv"
# 4. The synthetic study through the CLI pipeline.
rm -rf "$O/synthetic"
$S study synth --participants 20 --seed 7 --out "$O/synthetic" > /dev/null
$S study annotate "$O/synthetic/log.jsonl" --gaze-dir "$O/synthetic/gaze" --cursor-dir "$O/synthetic/cursor" --out "$O/synthetic/annotated.jsonl" > /dev/null
$S study fit "$O/synthetic/annotated.jsonl" --qrels "$O/synthetic/qrels.txt" --out "$O/synthetic/fit" > /dev/null
$S study attention "$O/synthetic/annotated.jsonl" --out "$O/synthetic/attention_fixations" > /dev/null
$S study attention "$O/synthetic/annotated.jsonl" --source hovers --out "$O/synthetic/attention_hovers" > /dev/null
# Keep the small outputs, drop the bulky raw signals.
rm -rf "$O/synthetic/gaze" "$O/synthetic/cursor" "$O/synthetic/aoi" "$O/synthetic/log.jsonl" "$O/synthetic/annotated.jsonl" "$O/synthetic/fit-simulation"
