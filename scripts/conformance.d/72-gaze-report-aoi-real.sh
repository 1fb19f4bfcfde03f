#!/usr/bin/env bash
# The real Data Viewer fixation report (pymovements' 18sat_fixfinal.csv): `study words` gives,
# for every word, F(w) = its fixations and D(w) = the sum of Data Viewer's own
# CURRENT_FIX_INTEREST_AREA_DWELL_TIME over the word's interest areas, computed here from the
# raw CSV with Python's csv module. Then the library's readers on the real report and the real
# character AOI file (toy_text_1_1_aoi.csv): the ignored tests study::fixreport::tests::real_report
# and study::aoi::tests::real_character_aoi_file (same cargo flags as scripts/test.sh, so the
# test binary is reused).
set -euo pipefail
need gaze/18sat_fixfinal.csv gaze/toy_text_1_1_aoi.csv
"$SERPSIM" study words "$DATA/gaze/18sat_fixfinal.csv" --out "$WORK/words.csv"
python3 - "$DATA/gaze/18sat_fixfinal.csv" "$WORK/words.csv" <<'PY'
import csv, sys
per_ia, count = {}, {}
for r in csv.DictReader(open(sys.argv[1], newline="")):
    ia = r["CURRENT_FIX_INTEREST_AREA_ID"].strip()
    if ia in ("", "."):
        continue
    w = r["CURRENT_FIX_INTEREST_AREA_LABEL"].strip()
    while w and not w[0].isalnum():
        w = w[1:]
    while w and not w[-1].isalnum():
        w = w[:-1]
    w = w.lower()
    per_ia[ia] = (w, float(r["CURRENT_FIX_INTEREST_AREA_DWELL_TIME"]))
    count[w] = count.get(w, 0) + 1
want = {}
for w, d in per_ia.values():
    want[w] = want.get(w, 0.0) + d
got = {r["word"]: (int(r["fixations"]), float(r["duration_ms"])) for r in csv.DictReader(open(sys.argv[2]))}
assert len(got) == len(want) and len(want) > 0, (len(got), len(want))
for w, d in want.items():
    assert got[w] == (count[w], d), (w, got[w], (count[w], d))
PY
SERPSIM_DATA="$DATA" cargo test --release --locked --quiet --lib -- --ignored --exact \
  study::fixreport::tests::real_report study::aoi::tests::real_character_aoi_file > "$WORK/ignored.txt" 2>&1 \
  || { cat "$WORK/ignored.txt" >&2; exit 1; }
grep -q 'test result: ok. 2 passed' "$WORK/ignored.txt"
