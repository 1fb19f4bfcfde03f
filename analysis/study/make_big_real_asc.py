"""Writes a large EyeLink ASC file by repeating the real binocular 1000 Hz recording
(pymovements' eyelink_binocular_example.asc, read in place from ../shared/data/gaze/ or
$SERPSIM_DATA/gaze/; never copied into the repository) with its time stamps
shifted, for the memory and speed measurements of `serpsim study events` in
docs/performance.md. The header is written once; each repetition is the block from START
to the last line, with every time field (samples, MSG, S*/E* events, START/END) shifted by
the span of the block plus 1 s, so time stamps keep increasing. Not committed: generate it.

Usage: python3 analysis/study/make_big_real_asc.py OUT.asc SIZE_MB
"""
import os, pathlib, re, sys

DATA = pathlib.Path(os.environ.get("SERPSIM_DATA", pathlib.Path(__file__).resolve().parents[3] / "shared/data"))
SRC = DATA / "gaze/eyelink_binocular_example.asc"
lines = SRC.read_text().splitlines(keepends=True)
start = next(i for i, l in enumerate(lines) if l.startswith("START"))
header, block = lines[:start], lines[start:]
# Which whitespace-separated fields hold times, by line kind.
FIELDS = {"MSG": [1], "START": [1], "END": [1], "SFIX": [2], "SSACC": [2], "SBLINK": [2], "EFIX": [2, 3], "ESACC": [2, 3], "EBLINK": [2, 3]}
times = []
for l in block:
    if l[:1].isdigit():
        times.append(float(l.split()[0]))
span = max(times) - min(times) + 1000


def template(line):
    """The line as a format string with its time fields as `{}` holes, and their values."""
    parts = re.split(r"(\s+)", line)
    words = [i for i, p in enumerate(parts) if p and not p.isspace()]
    if not words:
        return line.replace("{", "{{").replace("}", "}}"), []
    kind = parts[words[0]]
    idx = [0] if kind[:1].isdigit() else FIELDS.get(kind, [])
    vals = []
    for i, p in enumerate(parts):
        parts[i] = p.replace("{", "{{").replace("}", "}}")
    for k in idx:
        if k < len(words):
            v = parts[words[k]]
            vals.append(float(v))
            parts[words[k]] = "{:.0f}" if "." not in v else "{:.1f}"
    return "".join(parts), vals


templates = [template(l) for l in block]
target = float(sys.argv[2]) * 1e6
with open(sys.argv[1], "w") as out:
    out.write("".join(header))
    written, rep = 0, 0
    while written < target:
        off = rep * span
        chunk = "".join(t.format(*[v + off for v in vals]) if vals else t for t, vals in templates)
        out.write(chunk)
        written += len(chunk)
        rep += 1
print(f"{sys.argv[1]}: {rep} repetitions, {written / 1e6:.0f} MB")
