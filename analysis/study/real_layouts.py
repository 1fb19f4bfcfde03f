"""Layout copies of the REAL binocular EyeLink recording for the reproductions in
analysis/study/README.md (run by run_all.sh; nothing here is committed):

    python3 analysis/study/real_layouts.py SRC.asc OUTDIR

SRC is ../shared/data/gaze/eyelink_binocular_example.asc (pymovements' test file, read in
place). Writes to OUTDIR:
- eyelink_binocular_{30,60}hz.asc: SRC thinned to 30 and 60 Hz: every sample line is kept
  whose time is the first at or after t0 + k * 1000 / rate (k = 0, 1, ...); all other lines
  (messages, EFIX/ESACC/EBLINK events) are kept unchanged, and the SAMPLES/EVENTS RATE is
  rewritten. The tracker's EFIX events therefore still describe the 1000 Hz recording.
- eyelink_binocular_as_tobii_pro_lab.tsv: SRC in Tobii Pro Lab's column layout
  (make_fixtures.tobii).
"""
import math
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_fixtures import tobii  # noqa: E402


def thin(src, rate, dst):
    out, next_t, t0 = [], None, None
    step = 1000.0 / rate
    for line in pathlib.Path(src).read_text().splitlines(keepends=True):
        if line[:1].isdigit():
            t = float(line.split()[0])
            if t0 is None:
                t0 = t
                next_t = t0
            if t + 1e-9 >= next_t:
                out.append(line)
                k = math.floor((t - t0) / step) + 1
                next_t = t0 + k * step
            continue
        if line.startswith(("SAMPLES", "EVENTS")):
            line = re.sub(r"RATE\t[0-9.]+", f"RATE\t{rate:.2f}", line)
        out.append(line)
    pathlib.Path(dst).write_text("".join(out))


if __name__ == "__main__":
    src, outdir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    outdir.mkdir(parents=True, exist_ok=True)
    for rate in (30, 60):
        thin(src, rate, outdir / f"eyelink_binocular_{rate}hz.asc")
    tobii(src, outdir / "eyelink_binocular_as_tobii_pro_lab.tsv")
