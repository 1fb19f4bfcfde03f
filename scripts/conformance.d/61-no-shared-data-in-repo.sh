#!/usr/bin/env bash
# No file of the repository is a copy of a real public file (issue 30): fails if any tracked
# file has the sha256 of any file under $DATA, and names every offender. (Files derived from
# them, such as subsets or conversions, cannot be caught by a checksum; study_logs/README.md
# lists how every bundled file is made.)
set -euo pipefail
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "61-no-shared-data-in-repo: not a git checkout: $(pwd)" >&2; exit 1; }
find "$DATA" -type f -print0 | xargs -0 -r sha256sum | sort > "$WORK/data.sha"
test -s "$WORK/data.sha" || { echo "61-no-shared-data-in-repo: no files under $DATA" >&2; exit 1; }
git ls-files -z | while IFS= read -r -d '' f; do [ -f "$f" ] && [ ! -L "$f" ] && printf '%s\0' "$f"; done | xargs -0 -r sha256sum | sort > "$WORK/repo.sha"
python3 - "$WORK/data.sha" "$WORK/repo.sha" <<'PY'
import sys
def read(p):
    out = {}
    for line in open(p, encoding="utf-8", errors="replace"):
        h, name = line.rstrip("\n").split("  ", 1)
        out.setdefault(h, []).append(name)
    return out
data, repo = read(sys.argv[1]), read(sys.argv[2])
bad = [(f, d) for h, files in sorted(repo.items()) if h in data for f in files for d in [", ".join(data[h])]]
for f, d in bad:
    print(f"{f}: identical to {d}", file=sys.stderr)
if bad:
    sys.exit(f"{len(bad)} tracked file(s) are copies of files under the real data folder")
print(f"{sum(len(v) for v in repo.values())} tracked files, none identical to the {sum(len(v) for v in data.values())} files of the data folder")
PY
