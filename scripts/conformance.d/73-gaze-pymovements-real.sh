#!/usr/bin/env bash
# The real binocular EyeLink recording read by serpsim as ASC equals pymovements 0.28.0's
# reading of it, written in pymovements' own CSV layout (`from_asc(...).save_samples(...)`):
# `study events` gives the same fixations from both, for I-DT and I-VT (the comparison
# tests/study_cli.rs::events_read_asc_gzip_and_pymovements_csv_alike makes on the project-made
# recording). pymovements: $PYMOVEMENTS_PYTHON if set, else python3 if it imports
# pymovements, else pymovements==0.28.0 installed from PyPI into a virtual environment in
# $WORK. If it cannot be had, this check fails.
set -euo pipefail
need gaze/eyelink_binocular_example.asc
src="$DATA/gaze/eyelink_binocular_example.asc"
PY=${PYMOVEMENTS_PYTHON:-}
if [ -z "$PY" ]; then
  if python3 -c 'import pymovements' 2>/dev/null; then PY=python3; else
    python3 -m venv "$WORK/pm" && "$WORK/pm/bin/pip" install -q pymovements==0.28.0 >&2
    PY="$WORK/pm/bin/python"
  fi
fi
(cd "$WORK" && "$PY" -c 'import sys, pymovements as pm; print(pm.__version__, file=sys.stderr); import pathlib; pm.gaze.from_asc(sys.argv[1]).save_samples(pathlib.Path(sys.argv[2]))' "$src" "$WORK/pm_bino.csv")
for m in idt ivt; do
  "$SERPSIM" study events "$src" --method "$m" --out "$WORK/a.csv" 2>/dev/null
  # GAZE_COORDS 0.00 0.00 1920.00 1080.00 in the file: 1921 x 1081 pixels.
  "$SERPSIM" study events "$WORK/pm_bino.csv" --method "$m" --screen-px 1921,1081 --out "$WORK/c.csv" 2>/dev/null
  test "$(wc -l < "$WORK/a.csv")" -gt 1
  cmp "$WORK/a.csv" "$WORK/c.csv"
done
