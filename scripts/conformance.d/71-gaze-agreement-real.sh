#!/usr/bin/env bash
# I-DT and I-VT at their defaults against the EyeLink parser's own EFIX events on the real
# binocular 1000 Hz recording, on that recording thinned to 60 and 30 Hz, and on its copy in
# Tobii Pro Lab's layout (both written here by analysis/study/real_layouts.py, never
# committed): every EFIX fixation of each eye is matched (onset within 20 ms + one sample
# interval), by as many detected fixations. The EFIX counts and left-eye starts come from
# grep/awk on the file at check time. (Moved here from tests/study_cli.rs; the same
# assertions run in `cargo test` on the project-made recordings.)
set -euo pipefail
need gaze/eyelink_binocular_example.asc
src="$DATA/gaze/eyelink_binocular_example.asc"
python3 analysis/study/real_layouts.py "$src" "$WORK/gaze_layouts"
nl=$(grep -c '^EFIX L' "$src"); nr=$(grep -c '^EFIX R' "$src")
starts=$(awk '/^EFIX L/ {printf "%s%s", sep, $3; sep=","}' "$src")
samples=$(grep -c '^[0-9]' "$src")
for f in "$src" "$WORK/gaze_layouts/eyelink_binocular_60hz.asc" "$WORK/gaze_layouts/eyelink_binocular_30hz.asc"; do
  for m in idt ivt; do
    "$SERPSIM" study agreement "$f" --method "$m" > "$WORK/agree.json" 2>/dev/null
    python3 - "$WORK/agree.json" "$nl" "$nr" "$f $m" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
want = {"left": int(sys.argv[2]), "right": int(sys.argv[3])}
assert len(rows) == 2, sys.argv[4]
for r in rows:
    n = want[r["eye"]]
    assert abs(r["onset_tolerance_ms"] - (20 + r["sample_interval_ms"])) < 1e-9
    assert (r["reference"], r["onset_matched"], r["detected"]) == (n, n, n), (sys.argv[4], r)
PY
  done
done
"$SERPSIM" study agreement "$WORK/gaze_layouts/eyelink_binocular_as_tobii_pro_lab.tsv" > "$WORK/tobii.json" 2> "$WORK/tobii_notes.txt"
grep -q 'layout: Tobii Pro Lab export' "$WORK/tobii_notes.txt"
python3 - "$WORK/tobii.json" "$starts" "$samples" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r) == 1
starts = [p["start"] for p in r[0]["pairs"]]
assert starts == [float(x) for x in sys.argv[2].split(",")], starts
assert r[0]["samples"] == int(sys.argv[3]) and r[0]["onset_matched"] == len(starts), r[0]
PY
