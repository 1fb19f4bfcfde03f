#!/usr/bin/env python3
"""Runs every documented command of README.md and docs/*.md from a fresh clone.

Convention (docs/contributing.md): a fenced block tagged `sh` holds commands a reader can
paste; each line that starts with `serpsim`, `$ serpsim`, `python3` or `cargo run` (with `\\`
continuations) is run, in order, in a fresh `git clone` of the working tree's HEAD, after the
README's set-up only: the freshly built binary stands where the set-up's build leaves it
(`target/release/serpsim` in the clone, which `cargo run --release --` lines run), and the
README's own `export PATH=...` line is what puts `serpsim` on PATH (nothing else does). In a block whose commands start with `$ `, the lines
after a command up to the next `$ ` are its expected standard output, compared exactly.
Blocks without a tag or tagged `text` are synopses (placeholders in capitals) and are not
run. `bash scripts/test.sh` lines are not run (this script is part of it).

Also checks that every repository path written in backquotes in those files exists.

    python3 scripts/check_docs.py [--bin target/release/serpsim]
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_PREFIXES = ("serpsim ", "python3 ", "cargo run ", "export PATH=")
PATH_RE = re.compile(r"`((?:simulations|study_logs|docs|analysis|tests|scripts|python|benches|examples)/[A-Za-z0-9_./{},*-]+)`")


def blocks(path):
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"^```([^\n]*)\n(.*?)^```", text, re.S | re.M):
        yield m.group(1).strip(), m.group(2), text[: m.start()].count("\n") + 2


def commands(body, first_line):
    """(line number, command, expected output or None) for each runnable line."""
    lines = body.split("\n")
    prompt = any(l.startswith("$ ") for l in lines)
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if prompt:
            if not line.startswith("$ "):
                i += 1
                continue
            cmd, start = line[2:], i
            i += 1
            expected = []
            while i < len(lines) and not lines[i].startswith("$ "):
                expected.append(lines[i])
                i += 1
            while expected and expected[-1] == "":
                expected.pop()
            out.append((first_line + start, cmd, "\n".join(expected)))
            continue
        start = i
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i].strip()
        i += 1
        if line.startswith(RUN_PREFIXES) and not line.startswith("bash scripts/test.sh"):
            out.append((first_line + start, line, None))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/serpsim"))
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    if not os.access(binary, os.X_OK):
        sys.exit(f"error: {binary}: no serpsim binary (cargo build --release first)")
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    failures = []
    # Paths named in the docs exist.
    for f in files:
        rel = os.path.relpath(f, ROOT)
        for n, line in enumerate(open(f, encoding="utf-8"), 1):
            for p in PATH_RE.findall(line):
                if any(c in p for c in "*{}") or p.endswith("/"):
                    if not glob.glob(os.path.join(ROOT, re.sub(r"\{[^}]*\}", "*", p))):
                        failures.append(f"{rel}:{n}: `{p}` matches nothing")
                elif not os.path.exists(os.path.join(ROOT, p)):
                    failures.append(f"{rel}:{n}: `{p}` does not exist")
    work = tempfile.mkdtemp(prefix="serpsim-docs-")
    clone = os.path.join(work, "clone")
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", ROOT, clone], check=True)
    # What the set-up's build leaves: target/release/serpsim in the clone (default target dir).
    built = os.path.join(clone, "target", "release", "serpsim")
    os.makedirs(os.path.dirname(built))
    shutil.copy(binary, built)
    env = dict(os.environ, SERPSIM_PROGRESS_SECS="3600")
    env.pop("CARGO_TARGET_DIR", None)
    # No serpsim on PATH but the README's: a stale installed one must not answer for it.
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not os.path.exists(os.path.join(p, "serpsim")))
    ran = 0
    for f in files:
        rel = os.path.relpath(f, ROOT)
        for tag, body, first in blocks(f):
            if tag.split()[:1] != ["sh"]:
                continue
            for line, cmd, expected in commands(body, first):
                # `cargo run --release --` runs the binary the set-up built (no second build).
                if cmd.startswith("cargo run --release -- "):
                    cmd = built + " " + cmd[len("cargo run --release -- "):]
                if cmd.startswith("export PATH="):
                    # Run as written; later commands see the PATH it sets.
                    p = subprocess.run(["bash", "-c", cmd.split("#")[0] + '; printf %s "$PATH"'], cwd=clone, env=env, capture_output=True, text=True)
                    ran += 1
                    print(f"{rel}:{line}: {'ok ' if p.returncode == 0 else 'FAIL'}    0.0 s  {cmd}", flush=True)
                    if p.returncode != 0:
                        failures.append(f"{rel}:{line}: `{cmd}` exited {p.returncode}: {p.stderr.strip()[-500:]}")
                    else:
                        env["PATH"] = p.stdout
                    continue
                t0 = time.time()
                p = subprocess.run(cmd, shell=True, cwd=clone, env=env, capture_output=True, text=True)
                ran += 1
                took = time.time() - t0
                print(f"{rel}:{line}: {'ok ' if p.returncode == 0 else 'FAIL'} {took:6.1f} s  {cmd}", flush=True)
                if p.returncode != 0:
                    failures.append(f"{rel}:{line}: `{cmd}` exited {p.returncode}: {p.stderr.strip()[-500:]}")
                elif expected is not None and p.stdout.rstrip("\n") != expected:
                    failures.append(f"{rel}:{line}: `{cmd}` printed\n{p.stdout}\nthe docs show\n{expected}")
    shutil.rmtree(work, ignore_errors=True)
    print(f"{ran} documented commands run, {len(failures)} problem(s)")
    for f in failures:
        print("error: " + f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
