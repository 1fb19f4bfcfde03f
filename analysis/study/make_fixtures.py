"""Derived gaze fixtures in study_logs/gaze/ (run from the repository root):

    python3 analysis/study/make_fixtures.py

1. pymovements/*.csv: the bundled real EyeLink recordings written by pymovements 0.28.0
   (`pip install pymovements==0.28.0`) with `pm.gaze.from_asc(...).save_samples(...)`:
   pymovements' own CSV layout, produced by pymovements itself.
2. downsampled/eyelink_binocular_{30,60}hz.asc: the real 1000 Hz binocular recording
   (eyelink_binocular_example.asc) thinned to 30 and 60 Hz: every sample line is kept whose
   time is the first at or after t0 + k * 1000 / rate (k = 0, 1, ...); all other lines
   (messages, EFIX/ESACC/EBLINK events) are kept unchanged, and the SAMPLES/EVENTS RATE is
   rewritten. The tracker's EFIX events therefore still describe the 1000 Hz recording.
3. tobii/eyelink_binocular_as_tobii_pro_lab.tsv: the same real recording written in the
   column layout of a Tobii Pro Lab data export (Recording timestamp in microseconds,
   Sensor, Gaze point left/right X/Y, Gaze point X/Y as the mean of the valid eyes,
   Pupil diameter, Validity, Recording resolution, and Eye movement type / index / Gaze
   event duration / Fixation point filled from the EyeLink EFIX events of the left eye).
   It is NOT a Tobii recording: it tests the Tobii reader's column handling on real
   samples; no Tobii export with a licence that allows redistribution was at hand.
"""
import math, pathlib, re

ROOT = pathlib.Path(__file__).resolve().parents[2]
GAZE = ROOT / "study_logs" / "gaze"


def pymovements_csv():
    import pymovements as pm
    out = GAZE / "pymovements"
    out.mkdir(exist_ok=True)
    for name in ["eyelink_binocular_example", "eyelink_monocular_no_dummy_example"]:
        g = pm.gaze.from_asc(str(GAZE / f"{name}.asc"))
        g.save_samples(out / f"{name}.csv")


def downsample(rate):
    src = (GAZE / "eyelink_binocular_example.asc").read_text()
    out, next_t, t0 = [], None, None
    step = 1000.0 / rate
    for line in src.splitlines(keepends=True):
        if line[:1].isdigit():
            t = float(line.split()[0])
            if t0 is None:
                t0, k = t, 0
                next_t = t0
            if t + 1e-9 >= next_t:
                out.append(line)
                k = math.floor((t - t0) / step) + 1
                next_t = t0 + k * step
            continue
        if line.startswith(("SAMPLES", "EVENTS")):
            line = re.sub(r"RATE\t[0-9.]+", f"RATE\t{rate:.2f}", line)
        out.append(line)
    d = GAZE / "downsampled"
    d.mkdir(exist_ok=True)
    (d / f"eyelink_binocular_{rate}hz.asc").write_text("".join(out))


def tobii():
    lines = (GAZE / "eyelink_binocular_example.asc").read_text().splitlines()
    efix = []
    for l in lines:
        if l.startswith("EFIX L"):
            f = l.split()
            efix.append((float(f[2]), float(f[3]), float(f[4]), float(f[5]), float(f[6])))
    cols = ["Recording timestamp [μs]", "Sensor", "Recording resolution width", "Recording resolution height",
            "Gaze point X", "Gaze point Y", "Gaze point left X", "Gaze point left Y", "Gaze point right X",
            "Gaze point right Y", "Pupil diameter left", "Pupil diameter right", "Validity left", "Validity right",
            "Eye movement type", "Gaze event duration", "Eye movement type index", "Fixation point X", "Fixation point Y"]
    rows = ["\t".join(cols)]
    fmt = lambda v: "" if v is None else f"{v:.1f}"
    for l in lines:
        if not l[:1].isdigit():
            continue
        f = l.split()
        t = float(f[0])
        v = [None if x == "." else float(x) for x in f[1:7]]
        lx, ly, lp, rx, ry, rp = v
        okl, okr = lx is not None, rx is not None
        xs = [a for a in (lx if okl else None, rx if okr else None) if a is not None]
        ys = [a for a in (ly if okl else None, ry if okr else None) if a is not None]
        gx = sum(xs) / len(xs) if xs else None
        gy = sum(ys) / len(ys) if ys else None
        kind, dur, idx, fx, fy = "Unclassified", "", "", "", ""
        for i, (s, e, d, x, y) in enumerate(efix):
            if s <= t <= e:
                kind, dur, idx, fx, fy = "Fixation", f"{d:.0f}", str(i + 1), f"{x:.1f}", f"{y:.1f}"
        rows.append("\t".join([f"{t * 1000:.0f}", "Eye Tracker", "1920", "1080", fmt(gx), fmt(gy), fmt(lx if okl else None),
                               fmt(ly if okl else None), fmt(rx if okr else None), fmt(ry if okr else None),
                               fmt(lp if okl else None), fmt(rp if okr else None), "Valid" if okl else "Invalid",
                               "Valid" if okr else "Invalid", kind, dur, idx, fx, fy]))
    d = GAZE / "tobii"
    d.mkdir(exist_ok=True)
    (d / "eyelink_binocular_as_tobii_pro_lab.tsv").write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    pymovements_csv()
    downsample(30)
    downsample(60)
    tobii()
