#!/usr/bin/env bash
# Independent reference counts for the shared EyeLink ASC files, with grep and awk only
# (no serpsim code). Output: study_logs/gaze/expected_counts.csv, read by the Rust tests.
# Usage: bash analysis/study/asc_counts.sh   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=study_logs/gaze/expected_counts.csv
{
  echo "file,samples,messages,fixations_left,fixations_right,saccades_left,saccades_right,blinks_left,blinks_right"
  for f in study_logs/gaze/*.asc; do
    s=$(grep -c '^[0-9]' "$f" || true)
    m=$(grep -c '^MSG' "$f" || true)
    c() { grep -c "^$1 $2" "$f" || true; }
    echo "$(basename "$f"),$s,$m,$(c EFIX L),$(c EFIX R),$(c ESACC L),$(c ESACC R),$(c EBLINK L),$(c EBLINK R)"
  done
} > "$out"
cat "$out"
