#!/usr/bin/env bash
# The real EyeLink recordings (pymovements' test files) parse, and serpsim's counts equal a
# grep count made here (analysis/study/asc_counts.sh DIR: sample lines, MSG lines, EFIX /
# ESACC / EBLINK lines per eye). Among them the real 2 kHz file (half-millisecond stamps):
# read by `study summary` and `study events`, its times kept to the half millisecond.
set -euo pipefail
need gaze/eyelink_binocular_example.asc gaze/eyelink_monocular_2khz_example.asc \
  gaze/eyelink_monocular_example.asc gaze/eyelink_monocular_no_dummy_example.asc
bash analysis/study/asc_counts.sh "$DATA/gaze" > "$WORK/gaze_counts.csv"
for f in "$DATA"/gaze/*.asc; do
  printf '%s\t%s\n' "$(basename "$f")" "$("$SERPSIM" study summary "$f")"
done > "$WORK/gaze_summary.tsv"
python3 - "$WORK/gaze_counts.csv" "$WORK/gaze_summary.tsv" <<'PY'
import csv, json, sys
want = {r["file"]: r for r in csv.DictReader(open(sys.argv[1]))}
got = dict(line.rstrip("\n").split("\t", 1) for line in open(sys.argv[2]))
assert set(want) == set(got) and len(want) == 4, (sorted(want), sorted(got))
bad = []
for name, w in want.items():
    s = json.loads(got[name])
    n = lambda k: int(w[k])
    exp = {"samples": n("samples"), "messages": n("messages"),
           "fixations": n("fixations_left") + n("fixations_right"),
           "saccades": n("saccades_left") + n("saccades_right"),
           "blinks": n("blinks_left") + n("blinks_right")}
    for k, v in exp.items():
        if s[k] != v:
            bad.append(f"{name}: {k} {s[k]} (serpsim) != {v} (grep)")
    if n("fixations_right") > 0:
        for eye in ("left", "right"):
            e = eye[0]
            per = {"samples": n("samples"), "fixations": n(f"fixations_{eye}"), "saccades": n(f"saccades_{eye}"), "blinks": n(f"blinks_{eye}")}
            if s.get(eye) != per:
                bad.append(f"{name}: {eye} {s.get(eye)} != {per}")
if bad:
    sys.exit("\n".join(bad))
PY
# The real 2 kHz file: read at 0.5 ms per sample, with its time stamps as written (the first
# detected run starts at the first sample line's time, taken here by awk), and its EFIX
# events as the reference.
k2="$DATA/gaze/eyelink_monocular_2khz_example.asc"
first=$(awk '/^[0-9]/ {print $1; exit}' "$k2")
"$SERPSIM" study events "$k2" --method ivt --min-duration 0 --out "$WORK/2khz.csv" 2> "$WORK/2khz_notes.txt"
grep -q "sampling: 2000 Hz from the file's RATE" "$WORK/2khz_notes.txt"
test "$(sed -n 2p "$WORK/2khz.csv" | cut -d, -f2)" = "$first"
"$SERPSIM" study agreement "$k2" > "$WORK/2khz.json" 2>/dev/null
python3 - "$WORK/2khz.json" "$(grep -c '^[0-9]' "$k2")" "$(grep -c '^EFIX' "$k2")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))[0]
assert (r["sample_interval_ms"], r["samples"], r["reference"]) == (0.5, int(sys.argv[2]), int(sys.argv[3])), r
PY
