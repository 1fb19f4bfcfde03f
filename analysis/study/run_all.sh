#!/usr/bin/env bash
# Reproduces every number in analysis/study/README.md. Run from the repository root after
# `cargo build --release`. Outputs go to analysis/study/out/.
set -euo pipefail
cd "$(dirname "$0")/../.."
S=./target/release/serpsim
O=analysis/study/out
mkdir -p "$O"
# 1. Counts of the real ASC files (grep reference: analysis/study/asc_counts.sh).
for f in study_logs/gaze/*.asc; do echo "$(basename "$f") $($S study summary "$f")"; done > "$O/summary.txt"
# 2. Detected fixations vs the tracker's EFIX events, defaults and sensitivity runs.
$S study agreement study_logs/gaze/*.asc > "$O/agreement_idt_default.json"
$S study agreement study_logs/gaze/*.asc --method ivt > "$O/agreement_ivt_default.json"
$S study agreement study_logs/gaze/*.asc --dispersion 2 > "$O/agreement_idt_2deg.json"
$S study agreement study_logs/gaze/*.asc --max-gap 1000 --min-duration 40 > "$O/agreement_idt_gap1000_min40.json"
# 3. Per-word attention on the real Data Viewer report.
$S study words study_logs/gaze/18sat_fixfinal.csv --out "$O/words_18sat.csv"
# 4. The synthetic study through the CLI pipeline.
rm -rf "$O/synthetic"
$S study synth --participants 20 --seed 7 --out "$O/synthetic" > /dev/null
$S study annotate "$O/synthetic/log.jsonl" --gaze-dir "$O/synthetic/gaze" --cursor-dir "$O/synthetic/cursor" --out "$O/synthetic/annotated.jsonl" > /dev/null
$S study fit "$O/synthetic/annotated.jsonl" --qrels "$O/synthetic/qrels.txt" --out "$O/synthetic/fit" > /dev/null
$S study attention "$O/synthetic/annotated.jsonl" --out "$O/synthetic/attention" > /dev/null
$S study attention "$O/synthetic/annotated.jsonl" --source hovers --out "$O/synthetic/attention" > /dev/null
# Keep the small outputs, drop the bulky raw signals.
rm -rf "$O/synthetic/gaze" "$O/synthetic/cursor" "$O/synthetic/aoi" "$O/synthetic/log.jsonl" "$O/synthetic/annotated.jsonl" "$O/synthetic/fit/simulation"
