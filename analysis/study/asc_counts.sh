#!/usr/bin/env bash
# Independent reference counts for the bundled (project-made) EyeLink ASC files, with grep
# only (no serpsim code). Output: study_logs/gaze/expected_counts.csv, read by the Rust and
# Python tests. Usage: bash analysis/study/asc_counts.sh   (from the repository root)
# With a folder argument it prints the counts of that folder's *.asc files instead (the
# conformance suite runs it on the real files: scripts/conformance.d/70-gaze-real-files.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
counts() {
  echo "file,samples,messages,fixations_left,fixations_right,saccades_left,saccades_right,blinks_left,blinks_right"
  local dir=$1; shift
  for rel in "$@"; do
    f=$dir/$rel
    s=$(grep -c '^[0-9]' "$f" || true)
    m=$(grep -c '^MSG' "$f" || true)
    c() { grep -c "^$1 $2" "$f" || true; }
    echo "$rel,$s,$m,$(c EFIX L),$(c EFIX R),$(c ESACC L),$(c ESACC R),$(c EBLINK L),$(c EBLINK R)"
  done
}
if [ $# -gt 0 ]; then
  dir=$1
  counts "$dir" $(cd "$dir" && ls *.asc)
  exit 0
fi
out=study_logs/gaze/expected_counts.csv
counts study_logs/gaze $(cd study_logs/gaze && ls *.asc lowrate/*.asc) > "$out"
cat "$out"
