"""Project-made gaze test files (seeded oculomotor generator, Python standard library only).

    python3 study_logs/tools/make_gaze.py        (from the repository root)

Writes, under study_logs/gaze/ (every byte made here, fixed seeds, same output on every run):

  mono_1000hz.asc                monocular 1000 Hz, INPUT column, negative-offset SYNCTIME,
                                 a last SSACC that is never ended (no ESACC)
  mono_2000hz_fractional.asc     monocular 2 kHz, half-millisecond time stamps (`1234.5`,
                                 edf2asc -ftime), fractional MSG/INPUT/START/event times
  mono_2000hz_whole_ms.asc       monocular 2 kHz, WHOLE-millisecond time stamps: every
                                 millisecond appears twice (edf2asc without -ftime)
  mono_500hz_no_end.asc          monocular 500 Hz, no END line, recording opens in a long
                                 blink with a gap without samples (ESACC with `.` start
                                 position and an amplitude in exponent form), a MSG with a
                                 blank separator and non-ASCII text, DISPLAY_COORDS on line 13
  bino_1000hz.asc                binocular 1000 Hz, GAZE_COORDS only (no DISPLAY_COORDS),
                                 one blink per eye, a message stamped before the sample
                                 above it, calibration blocks for both eyes
  bino_250hz.asc                 binocular 250 Hz
  lowrate/bino_{30,60}hz.asc     binocular 30 and 60 Hz, generated natively at that rate
                                 (same planted scan path as bino_1000hz.asc)
  fixation_report_reading.csv    EyeLink Data Viewer fixation report (reading, word interest
                                 areas) in the column layout Data Viewer exports
  char_aoi_page.csv              character-level areas of interest of a text page
                                 (`char,top_left_x,...,word,...`, blanks with an empty word)

The signal model (all positions in screen pixels, 1 degree = 60 px, about 68 cm from a
38 cm wide 1920 px screen):
  fixation: drift (a random walk, 0.04 px per sqrt(ms)) + tremor (an 84 Hz oscillation of
            0.3 px with random phase) + tracker noise (Gaussian, 0.15 px);
  saccade:  duration 2.2 ms/deg * amplitude + 21 ms (the main sequence), position along the
            cycloid s(u) = u - sin(2 pi u) / (2 pi), whose velocity is a symmetric bell with
            peak 2 * amplitude / duration;
  blink:    inside a saccade (as EyeLink reports them): samples with `.` position and pupil
            0.0, wrapped by SSACC ... SBLINK ... EBLINK ... ESACC;
  pupil:    area about 800 (binocular: left and right differ), slow 0.4 Hz oscillation.
The event lines (SFIX/EFIX, SSACC/ESACC, SBLINK/EBLINK) are written from the planted
segments and the samples as written: EFIX start/end = first/last sample of the fixation,
duration = end - start + one sample interval (EyeLink's convention), mean x, y and pupil of
its samples; ESACC start/end positions are the samples at its ends, amplitude in degrees,
peak velocity the largest sample-to-sample speed (deg/s).
"""
import csv
import math
import pathlib
import random

ROOT = pathlib.Path(__file__).resolve().parents[2]
GAZE = ROOT / "study_logs" / "gaze"
PPD = 60.0  # pixels per degree

HEADER = [
    "** CONVERTED FROM {edf} using study_logs/tools/make_gaze.py (serpsim, seed {seed})",
    "** DATE: Mon Jan  5 10:{mm:02d}:00 2026",
    "** TYPE: EDF_FILE BINARY EVENT SAMPLE TAGGED",
    "** VERSION: EYELINK II 1",
    "** SOURCE: EYELINK CL",
    "** EYELINK II CL v6.12 Feb  1 2018 (EyeLink 1000 Plus)",
    "** CAMERA: EyeLink USBCAM Version 1.01",
    "** SERIAL NUMBER: GEN-{seed:05d}",
    "** CAMERA_CONFIG: GEN{seed:05d}.SCD",
    "** RECORDED BY serpsim make_gaze",
    "**",
    "",
]


def plan(rng, n, start, screen=(1920, 1080)):
    """Fixation targets and durations (ms): a left-to-right reading-like path."""
    x, y = start
    out = []
    for i in range(n):
        out.append((x, y, rng.uniform(180, 320)))
        amp = rng.uniform(3.0, 7.0) * PPD
        ang = rng.uniform(-0.5, 0.5) + (math.pi if x > screen[0] * 0.7 else 0.0)
        x = min(max(x + amp * math.cos(ang), 80), screen[0] - 80)
        y = min(max(y + amp * math.sin(ang) * 0.5, 80), screen[1] - 80)
    return out


class Eye:
    """Continuous-time eye position for one eye along the planted segments."""

    def __init__(self, rng, fixes, t0, offset=(0.0, 0.0), drift=0.04, blinks=(), lead=0.0):
        # segments: (kind, a, b, p0, p1, blink?) in ms from t0
        self.rng = rng
        self.segs = []
        t = t0 + lead
        for i, (fx, fy, dur) in enumerate(fixes):
            p = (fx + offset[0], fy + offset[1])
            self.segs.append(("fix", t, t + dur, p, p, None))
            t += dur
            if i + 1 < len(fixes):
                nx, ny, _ = fixes[i + 1]
                q = (nx + offset[0], ny + offset[1])
                amp = math.hypot(q[0] - p[0], q[1] - p[1]) / PPD
                d = 2.2 * amp + 21.0
                blink = None
                if i in blinks:
                    # the eye moves (main sequence) while the lid is closed; 8 ms after it opens
                    bs, bl = blinks[i]
                    blink = (bs, bl, d)
                    d = bs + bl + 8.0
                self.segs.append(("sac", t, t + d, p, q, blink))
                t += d
        self.end = t
        self.drift = [0.0, 0.0]
        self.last_t = None
        self.phase = rng.uniform(0, 2 * math.pi)
        self.pupil0 = rng.uniform(700, 900)

    def seg_at(self, t):
        if t < self.segs[0][1]:
            return 0, self.segs[0]
        for k, s in enumerate(self.segs):
            if s[1] <= t < s[2]:
                return k, s
        return len(self.segs) - 1, self.segs[-1]

    def sample(self, t):
        """(x, y, pupil) or None (blink); advances the drift random walk."""
        k, (kind, a, b, p0, p1, blink) = self.seg_at(t)
        dt = 0.0 if self.last_t is None else t - self.last_t
        self.last_t = t
        if kind == "fix":
            sd = self.drift_sd * math.sqrt(max(dt, 0.0)) if hasattr(self, "drift_sd") else 0.04 * math.sqrt(max(dt, 0.0))
            self.drift[0] += self.rng.gauss(0, sd)
            self.drift[1] += self.rng.gauss(0, sd)
            x, y = p0
        else:
            self.drift = [0.0, 0.0]
            a0, d0 = a, b - a
            if blink is not None:
                bs = a + blink[0]
                if bs <= t < bs + blink[1]:
                    return None
                a0, d0 = bs + (blink[1] - blink[2]) / 2, blink[2]
            u = min(max((t - a0) / d0, 0.0), 1.0)
            s = u - math.sin(2 * math.pi * u) / (2 * math.pi)
            x, y = p0[0] + (p1[0] - p0[0]) * s, p0[1] + (p1[1] - p0[1]) * s
        trem = 0.3 * math.sin(2 * math.pi * 0.084 * t + self.phase)
        x += self.drift[0] + trem + self.rng.gauss(0, 0.15)
        y += self.drift[1] + 0.7 * trem + self.rng.gauss(0, 0.15)
        pupil = self.pupil0 + 25 * math.sin(2 * math.pi * 0.0004 * t)
        return (x, y, pupil)


def fmt_time(t, mode):
    if mode == "frac":
        return f"{t:.1f}"
    if mode == "whole":
        return str(int(math.floor(t + 1e-9)))
    return str(int(round(t)))


def events_for(eye_name, eye, samples, dt, mode):
    """Event lines keyed by the sample index they follow (end lines) or precede (start lines)."""
    before, after = {}, {}
    times = [s[0] for s in samples]
    for kind, a, b, p0, p1, blink in eye.segs:
        idx = [i for i, t in enumerate(times) if a <= t < b]
        if not idx:
            continue
        i0, i1 = idx[0], idx[-1]
        ts, te = times[i0], times[i1]
        T = lambda t: fmt_time(t, mode)
        dur = te - ts + dt
        D = f"{dur:.1f}" if mode == "frac" else str(int(round(dur)))
        vals = [samples[i][1] for i in idx]
        if kind == "fix":
            ok = [v for v in vals if v is not None]
            if not ok:
                continue
            mx = sum(v[0] for v in ok) / len(ok)
            my = sum(v[1] for v in ok) / len(ok)
            mp = sum(v[2] for v in ok) / len(ok)
            before.setdefault(i0, []).append(f"SFIX {eye_name}   {T(ts)}")
            after.setdefault(i1, []).append(f"EFIX {eye_name}   {T(ts)}\t{T(te)}\t{D}\t{mx:7.1f}\t{my:7.1f}\t{mp:7.0f}")
        else:
            before.setdefault(i0, []).append(f"SSACC {eye_name}  {T(ts)}")
            sv, ev = vals[0], vals[-1]
            pv = 0.0
            for j in range(1, len(idx)):
                u, v = samples[idx[j - 1]][1], samples[idx[j]][1]
                if u is not None and v is not None:
                    pv = max(pv, math.hypot(v[0] - u[0], v[1] - u[1]) / PPD / ((times[idx[j]] - times[idx[j - 1]]) / 1000.0))
            if blink is not None:
                bi = [i for i in idx if samples[i][1] is None]
                if bi:
                    bs, be = times[bi[0]], times[bi[-1]]
                    bd = be - bs + dt
                    BD = f"{bd:.1f}" if mode == "frac" else str(int(round(bd)))
                    before.setdefault(bi[0], []).append(f"SBLINK {eye_name} {T(bs)}")
                    after.setdefault(bi[-1], []).append(f"EBLINK {eye_name} {T(bs)}\t{T(be)}\t{BD}")
            if sv is None:
                # EyeLink's missing-position value (1e8) enters the amplitude: exponent form.
                amp = math.hypot(1e8 - ev[0], 1e8 - ev[1]) / PPD
                sx, sy, am = "   .", "   .", f"{amp:.1e}"
            else:
                amp = math.hypot(ev[0] - sv[0], ev[1] - sv[1]) / PPD
                sx, sy, am = f"{sv[0]:7.1f}", f"{sv[1]:7.1f}", f"{amp:7.2f}"
            if ev is None:
                continue
            after.setdefault(i1, []).append(
                f"ESACC {eye_name}  {T(ts)}\t{T(te)}\t{D}\t{sx}\t{sy}\t{ev[0]:7.1f}\t{ev[1]:7.1f}\t{am}\t{pv:7.0f}")
    return before, after


def sample_times(t0, rate, n_ms, mode):
    dt = 1000.0 / rate
    k, out = 0, []
    while k * dt < n_ms:
        t = t0 + k * dt
        out.append(round(t) if mode == "int" and rate <= 1000 and dt == int(dt) else t)
        k += 1
    if mode == "int" and dt != int(dt):
        out = [float(round(t)) for t in out]
    return out


def calibration(t, eyes, rng):
    out = [f"MSG\t{t} !CAL"]
    for e in eyes:
        out.append(f">>>>>>> CALIBRATION (HV9,P-CR) FOR {e}: <<<<<<<<<")
        out.append(f"MSG\t{t} !CAL Calibration points:")
        for px, py in [(0, 227), (0, -2267), (0, 2624), (-3291, 227), (3291, 227), (-3358, -2267), (3358, -2267), (-3227, 2624), (3227, 2624)]:
            out.append(f"MSG\t{t} !CAL {rng.uniform(-60, -5):.1f}, {rng.uniform(-66, -30):.1f}  {px:8d}, {py:6d}")
        out.append(f"MSG\t{t} !CAL eye check box: (L,R,T,B)")
        out.append(f"\t  {rng.randint(-70, -60)}     {rng.randint(5, 9)}   {rng.randint(-75, -60)}     {rng.randint(4, 8)}")
        out.append(f"MSG\t{t} !CAL href cal range: (L,R,T,B)")
        out.append("\t-5037  5037 -3489  3847")
        out.append(f"   {rng.uniform(-1, 1):.5g},  {rng.uniform(0, 1e-4):.4e}")
        out.append(f"MSG\t{t + 1} !CAL CALIBRATION HV9 {e[0]} {e}    GOOD")
    for e in eyes:
        err = rng.uniform(0.2, 0.4)
        out.append(f"MSG\t{t + 900} !CAL VALIDATION HV9 {e[0]} {e}  GOOD ERROR {err:.2f} avg. {err + 0.2:.2f} max  OFFSET 0.15 deg. 7.8,4.8 pix.")
        for k, (vx, vy) in enumerate([(960, 540), (960, 92), (960, 987), (115, 540), (1804, 540)]):
            out.append(f"MSG\t{t + 900} VALIDATE {e[0]} POINT {k}  {e}  at {vx},{vy}  OFFSET {rng.uniform(0.1, 0.4):.2f} deg.  {rng.uniform(-15, 15):.1f},{rng.uniform(-15, 15):.1f} pix.")
    return out


def recording(name, seed, rate, eyes, mode, t0, n_fix, *, input_col=False, end=True, display="DISPLAY_COORDS",
              blinks=None, open_blink=None, late_message=False, dangling_ssacc=False, mono_quirks=False, fixes=None,
              edf_min=0, drift2=None):
    rng = random.Random(seed)
    fixes = fixes or plan(random.Random(seed * 7 + 1), n_fix, (960.0, 540.0))
    dt = 1000.0 / rate
    lines = [h.format(edf=f"{name}.edf", seed=seed, mm=edf_min) for h in HEADER]
    mt = t0 - 60000
    T = lambda t: fmt_time(t, mode)
    msgs = []
    if display == "DISPLAY_COORDS":
        msgs.append(f"MSG\t{T(mt)} DISPLAY_COORDS 0 0 1919 1079")
    if mono_quirks:
        msgs.append(f"MSG {mt + 9000} ENCODING TEST ÄÖÜ")
    msgs += [f"MSG\t{T(mt + 10)} !CMD 1 select_parser_configuration 0", f"MSG\t{T(mt + 19)} !CMD 0 fixation_update_interval = 50",
             f"MSG\t{T(mt + 19)} RETRACE_INTERVAL  16.646125144", f"MSG\t{T(mt + 31)} !CMD 1 auto_calibration_messages = YES"]
    msgs.append(f"INPUT\t{fmt_time(mt + 40, mode)}\t0")
    eyes_names = {"L": ["LEFT"], "R": ["RIGHT"], "LR": ["LEFT", "RIGHT"]}[eyes]
    msgs += calibration(mt + 20000, eyes_names, rng)
    cfg = {"L": "L", "R": "R", "LR": "LR"}[eyes]
    msgs += [f"MSG\t{T(t0 - 1)} RECCFG CR {int(rate)} 2 1 {cfg}", f"MSG\t{T(t0 - 1)} ELCLCFG BTABLER",
             f"MSG\t{T(t0 - 1)} GAZE_COORDS 0.00 0.00 {'1920.00 1080.00' if display == 'GAZE_COORDS' else '1919.00 1079.00'}",
             f"MSG\t{T(t0 - 1)} ELCL_PROC CENTROID (3)", f"MSG\t{T(t0)} !MODE RECORD CR {int(rate)} 2 1 {cfg}"]
    lines += msgs
    side = "\t".join(eyes_names)
    lines.append(f"START\t{T(t0)} \t{side}\tSAMPLES\tEVENTS")
    lines += ["PRESCALER\t1", "VPRESCALER\t1", "PUPIL\tAREA"]
    r = f"{rate:7.2f}"
    lines.append(f"EVENTS\tGAZE\t{side}\tRATE\t{r}\tTRACKING\tCR\tFILTER\t2")
    lines.append(f"SAMPLES\tGAZE\t{side}\tRATE\t{r}\tTRACKING\tCR\tFILTER\t2" + ("\tINPUT" if input_col else ""))
    if input_col:
        lines.append(f"INPUT\t{T(t0)}\t0")
    # eyes
    blinks = blinks or {}
    left = Eye(random.Random(seed + 100), fixes, t0 + (open_blink or 0), blinks=blinks.get("L", {}))
    right = Eye(random.Random(seed + 200), fixes, t0 + (open_blink or 0), offset=(-6.0, 4.0), blinks=blinks.get("R", {}), lead=0.0)
    total = left.end - t0
    times = []
    k = 0
    while k * dt < total:
        times.append(t0 + k * dt)
        k += 1
    if mode == "int" and dt != int(dt):
        times = sorted(set(float(round(t)) for t in times))
    rows = []  # (t, L, R)
    for t in times:
        if open_blink and t < t0 + open_blink - 20:
            if t0 + 12 <= t < t0 + open_blink - 40:
                continue  # the tracker lost the eye: no sample lines at all
            rows.append((t, None, None))
            continue
        if drift2 is not None and left.seg_at(t)[0] == 2:
            a = left.segs[2][1]
            left.drift = [drift2[0] * (t - a) / 300.0, drift2[1] * (t - a) / 300.0]
        rows.append((t, left.sample(t), right.sample(t) if eyes == "LR" else None))
    # events (per eye)
    sl = [(t, l) for t, l, _ in rows]
    segs_l = left
    if open_blink:
        # the opening blink: a saccade + blink from the first sample to the first fixation
        first_fix = left.segs[0][1]
        segs_l.segs.insert(0, ("sac", t0, first_fix, None, None, (0.0, first_fix - t0 - 20)))
    before, after = events_for("L" if eyes != "R" else "R", segs_l, sl, dt, mode)
    if eyes == "LR":
        b2, a2 = events_for("R", right, [(t, rr) for t, _, rr in rows], dt, mode)
        for d, d2 in ((before, b2), (after, a2)):
            for key, v in d2.items():
                d.setdefault(key, []).extend(v)
    trial_at = len(rows) // 3
    late_at = len(rows) // 2
    for i, (t, l, rr) in enumerate(rows):
        if i == trial_at:
            off = " -4" if not mono_quirks else ""
            lines.append(f"MSG\t{T(t)}{off} SYNCTIME 766 0" if not mono_quirks else f"MSG\t{T(t)} SYNCTIME")
            lines.append(f"MSG\t{T(t)} TRIALID T{seed}")
        if late_message and i == late_at:
            lines.append(f"MSG\t{T(t - 3 * dt)} GAZE TARGET ON")
        lines += before.get(i, [])
        def g(v, pad=True):
            if v is None:
                return "\t   .\t   .\t    0.0"
            return f"\t{v[0]:7.1f}\t{v[1]:7.1f}\t{v[2]:7.1f}"
        if eyes == "LR":
            flags = "\t....." if (l is not None and rr is not None) else "\t.C.C."
            line = T(t) + g(l) + g(rr) + flags
        else:
            line = T(t) + g(l) + ("\t    0.0" if input_col else "") + "\t..."
        lines.append(line)
        lines += after.get(i, [])
    if dangling_ssacc:
        t = rows[-1][0]
        lines.append(f"SSACC L  {T(t + dt)}")
        for k in range(1, 4):
            v = (rows[-1][1][0] + 9 * k, rows[-1][1][1] + 2 * k, rows[-1][1][2])
            lines.append(T(t + k * dt) + f"\t{v[0]:7.1f}\t{v[1]:7.1f}\t{v[2]:7.1f}" + ("\t    0.0" if input_col else "") + "\t...")
        rows.append((t + 3 * dt, None, None))
    last = rows[-1][0]
    lines.append(f"MSG\t{T(last)} stop_trial")
    if end:
        lines.append(f"END\t{int(last + 1)} \tSAMPLES\tEVENTS\tRES\t  37.17\t  37.75")
    return "\n".join(lines) + "\n"


def main():
    out = {}
    out["mono_1000hz.asc"] = recording("mono_1000hz", 11, 1000.0, "L", "int", 2154556, 5, input_col=True, dangling_ssacc=True, edf_min=1)
    out["mono_2000hz_fractional.asc"] = recording("mono_2000hz_fractional", 12, 2000.0, "L", "frac", 2154556.5, 4, input_col=True, edf_min=2)
    out["mono_2000hz_whole_ms.asc"] = recording("mono_2000hz_whole_ms", 13, 2000.0, "L", "whole", 3154556, 4, edf_min=3)
    out["mono_500hz_no_end.asc"] = recording("mono_500hz_no_end", 14, 500.0, "L", "int", 643197, 3, end=False, open_blink=900,
                                             mono_quirks=True, blinks={"L": {1: (10.0, 110.0)}}, edf_min=4, drift2=(24.0, 30.0))
    bino_fix = plan(random.Random(15 * 7 + 1), 5, (960.0, 540.0))
    bino_blinks = {"L": {1: (8.0, 95.0)}, "R": {1: (14.0, 89.0)}}
    out["bino_1000hz.asc"] = recording("bino_1000hz", 15, 1000.0, "LR", "int", 1408660, 5, display="GAZE_COORDS",
                                       blinks=bino_blinks, late_message=True, fixes=bino_fix, edf_min=5)
    out["bino_250hz.asc"] = recording("bino_250hz", 16, 250.0, "LR", "int", 1508660, 5, display="GAZE_COORDS",
                                      blinks={"L": {2: (10.0, 100.0)}, "R": {2: (10.0, 100.0)}}, edf_min=6)
    for rate in (60, 30):
        out[f"lowrate/bino_{rate}hz.asc"] = recording(f"bino_{rate}hz", 15, float(rate), "LR", "int", 1408660, 5,
                                                       display="GAZE_COORDS", blinks=bino_blinks, fixes=bino_fix, edf_min=7)
    for name, text in out.items():
        p = GAZE / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    fixation_report()
    char_aoi()


TEXT = ("Searchers scan the result page from the top, reading the first titles closely and the "
        "later ones only in passing; a query term in a snippet draws the eye, and a long "
        "snippet is rarely read to its end.")


def layout_words(words, x0, y0, cw, lh, width):
    """Word boxes (word, x, y, w, h, line) of `words` wrapped at `width` px."""
    out, x, y, line = [], x0, y0, 0
    for w in words:
        wpx = len(w) * cw
        if x + wpx > x0 + width and x > x0:
            x, y, line = x0, y + lh, line + 1
        out.append((w, x, y, wpx, lh, line))
        x += wpx + cw
    return out


def fixation_report():
    rng = random.Random(21)
    words = TEXT.split()
    boxes = layout_words(words, 60.0, 100.0, 14.0, 60.0, 1100.0)
    cols = ("RECORDING_SESSION_LABEL,TRIAL_INDEX,CURRENT_FIX_X,CURRENT_FIX_Y,CURRENT_FIX_PUPIL,CURRENT_FIX_DURATION,"
            "CURRENT_FIX_INTEREST_AREA_ID,CURRENT_FIX_INTEREST_AREA_LABEL,CURRENT_FIX_INTEREST_AREA_PIXEL_AREA,"
            "CURRENT_FIX_INTEREST_AREA_RUN_ID,CURRENT_FIX_INTEREST_AREA_DWELL_TIME,PREVIOUS_SAC_DIRECTION,"
            "PREVIOUS_SAC_ANGLE,PREVIOUS_SAC_AMPLITUDE,PREVIOUS_SAC_AVG_VELOCITY,PREVIOUS_SAC_CONTAINS_BLINK,"
            "PREVIOUS_SAC_BLINK_DURATION,Session_Name_,Trial_Index_,Trial_Recycled_,total_page,type,book_name,book,page,"
            "RT,answer,correct_answer,page_name")
    # reading order with skips and regressions; some fixations land outside every word
    fixes = []  # (x, y, dur, ia index or None)
    fixes.append((30.0 + rng.uniform(-5, 5), 60.0 + rng.uniform(-5, 5), rng.randint(18, 30), None))
    i = 0
    while i < len(boxes):
        w, x, y, bw, bh, _ = boxes[i]
        fixes.append((x + bw * rng.uniform(0.25, 0.6), y + bh * rng.uniform(0.35, 0.65), rng.randint(120, 330), i))
        if rng.random() < 0.2:  # refixation
            fixes.append((x + bw * rng.uniform(0.6, 0.9), y + bh * rng.uniform(0.35, 0.65), rng.randint(100, 250), i))
        if rng.random() < 0.12 and i > 2:  # regression
            j = i - rng.randint(1, 3)
            w2, x2, y2, bw2, bh2, _ = boxes[j]
            fixes.append((x2 + bw2 * 0.5, y2 + bh2 * 0.5, rng.randint(150, 300), j))
        i += 2 if (len(w) <= 3 and rng.random() < 0.5) else 1
    fixes.append((1250.0, 620.0, rng.randint(200, 400), None))
    dwell, runs = {}, {}
    for _, _, d, ia in fixes:
        if ia is not None:
            dwell[ia] = dwell.get(ia, 0) + d
    prev_ia, run = None, {}
    rows = [cols]
    px = py = None
    for k, (x, y, d, ia) in enumerate(fixes):
        if ia is not None and ia != prev_ia:
            run[ia] = run.get(ia, 0) + 1
        prev_ia = ia
        if px is None:
            sac = [""] * 6
        else:
            dx, dy = x - px, y - py
            amp = math.hypot(dx, dy) / PPD * 0.6
            direction = ("RIGHT" if dx >= 0 else "LEFT") if abs(dx) >= abs(dy) else ("DOWN" if dy > 0 else "UP")
            sac = [direction, f"{math.degrees(math.atan2(-dy, dx)):.2f}", f"{amp:.2f}", f"{amp / 0.03 + 20:.2f}", "false", ""]
        px, py = x, y
        if ia is None:
            iac = ["", "", "", "", ""] if k == 0 else [".", ".", ".", ".", "."]
        else:
            w, bx, by, bw, bh, _ = boxes[ia]
            iac = [str(ia + 1), w, f"{bw * bh:.2f}", str(run[ia]), str(dwell[ia])]
        pupil = f"{rng.uniform(1300, 1500):.1f}"
        rows.append(["p001", "1", f"{x:.1f}", f"{y:.1f}", pupil, str(d)] + iac + sac +
                    ["p001", "1", "True", "3", "reading", "serp", "1", "1", "31022.5184131", "1", "-99", "reading-serp-1"])
    # Labels with a comma (`top,`) are quoted, as Data Viewer's CSV export does.
    with open(GAZE / "fixation_report_reading.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols.split(","))
        w.writerows(rows[1:])


def char_aoi():
    lines = ["SUMMARY", "serpsim: simulated searchers on result pages, with eye-tracking studies to fit them.",
             "Each character box is 14.97 px wide; blanks belong to no word."]
    rows = [["char", "top_left_x", "top_left_y", "width", "height", "char_idx_in_line", "line_idx", "page", "word",
             "bottom_left_x", "bottom_left_y"]]
    for li, text in enumerate(lines):
        # line 0: whole-pixel boxes; later lines: the float widths and offsets of a text
        # renderer (repr keeps every digit, as such files do)
        cw = 15.0 if li == 0 else 1093.0 / 73.0
        h = 18 if li == 0 else 23
        y = 122.0 if li == 0 else 122.0 + li * 92.85148514851485
        x, ci = 400.0, 0
        words = text.split(" ")
        for wi, w in enumerate(words):
            for ch in w:
                rows.append([ch, repr(x), repr(y), repr(cw), str(h), str(ci), str(li), "page_1", w, repr(x + cw), repr(y + h)])
                x += cw
                ci += 1
            if wi < len(words) - 1:
                rows.append([" ", repr(x), repr(y), repr(cw), str(h), str(ci), str(li), "page_1", "", repr(x + cw), repr(y + h)])
                x += cw
                ci += 1
    with open(GAZE / "char_aoi_page.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


if __name__ == "__main__":
    main()
