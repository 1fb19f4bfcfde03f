"""Peer-tool fixtures and layout copies of the project-made gaze recordings (run from the
repository root after `python3 study_logs/tools/make_gaze.py`):

    python3 -m venv /tmp/pm && /tmp/pm/bin/pip install pymovements==0.28.0
    /tmp/pm/bin/python analysis/study/make_fixtures.py

Every input is project-made (study_logs/tools/make_gaze.py); nothing here reads a public file.

1. pymovements/{bino_1000hz,mono_500hz_no_end}.csv: the generated recordings written by
   pymovements 0.28.0 with `pm.gaze.from_asc(...).save_samples(...)`: pymovements' own CSV
   layout, produced by pymovements itself.
2. pymovements/mono_2000hz_whole_ms.csv and mono_2000hz_whole_ms_events.csv: pymovements
   0.28.0's reading of the 2 kHz recording with whole-millisecond time stamps
   (`from_asc(path, events=True)`): its samples (`save_samples`; pymovements keeps each
   repeated millisecond as written, so every time appears twice) and its EyeLink events
   (`events.frame`: name, eye, onset, offset). The reference of
   `study::asc::tests::whole_ms_2khz_matches_pymovements`.
3. tobii/bino_1000hz_as_tobii_pro_lab.tsv: the generated binocular recording written in the
   column layout of a Tobii Pro Lab data export (Recording timestamp in microseconds,
   Sensor, Gaze point left/right X/Y, Gaze point X/Y as the mean of the valid eyes,
   Pupil diameter, Validity, Recording resolution, and Eye movement type / index / Gaze
   event duration / Fixation point filled from the EFIX events of the left eye).
   It is NOT a Tobii recording: it tests the Tobii reader's column handling.
"""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
GAZE = ROOT / "study_logs" / "gaze"


def pymovements_csv():
    import pymovements as pm
    out = GAZE / "pymovements"
    out.mkdir(exist_ok=True)
    for name in ["bino_1000hz", "mono_500hz_no_end"]:
        g = pm.gaze.from_asc(str(GAZE / f"{name}.asc"))
        g.save_samples(out / f"{name}.csv")
    g = pm.gaze.from_asc(str(GAZE / "mono_2000hz_whole_ms.asc"), events=True)
    g.save_samples(out / "mono_2000hz_whole_ms.csv")
    g.events.frame.select(["name", "eye", "onset", "offset"]).write_csv(out / "mono_2000hz_whole_ms_events.csv")


def tobii(src=None, dst=None):
    """The recording `src` (default: the generated bino_1000hz.asc) in Tobii Pro Lab's layout."""
    src = src or GAZE / "bino_1000hz.asc"
    lines = pathlib.Path(src).read_text().splitlines()
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
    if dst is None:
        d = GAZE / "tobii"
        d.mkdir(exist_ok=True)
        dst = d / "bino_1000hz_as_tobii_pro_lab.tsv"
    pathlib.Path(dst).write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    pymovements_csv()
    tobii()
