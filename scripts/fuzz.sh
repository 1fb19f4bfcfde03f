#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader and scenario parser (cargo-fuzz, libFuzzer).
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     # default: 600 s, all targets
#
# Needs a nightly toolchain (`rustup toolchain install nightly`) and cargo-fuzz
# (`cargo install cargo-fuzz --locked`). The seed corpus is built from the bundled files
# (study_logs/, tests/fixtures/, simulations/) with the selector byte each target expects.
# Crashes and hangs are written to fuzz/artifacts/TARGET/; copy each into
# fuzz/regressions/TARGET/ once fixed: tests/fuzz_regressions.rs replays them in `cargo test`.
# A line per target with runs, executions per second and the outcome goes to fuzz/runs.log.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(tables clicks study config arrow_ipc parquet subtopic_qrels labels)
command -v cargo-fuzz >/dev/null || { echo "error: cargo-fuzz is not installed (cargo install cargo-fuzz --locked)" >&2; exit 1; }

seed() { # target selector file...
  local t=$1 sel=$2; shift 2
  mkdir -p "fuzz/corpus/$t"
  for f in "$@"; do
    [ -f "$f" ] || continue
    local n; n=$(basename "$f")
    { printf "\\x$(printf %02x "$sel")"; head -c 65536 "$f"; } > "fuzz/corpus/$t/$sel-$n"
  done
}
seed tables 0 study_logs/trec/qrels.test
seed tables 1 study_logs/letor/*.txt
seed tables 2 tests/fixtures/baraco/log.tsv
seed tables 3 tests/fixtures/baraco/production.tsv
seed tables 4 tests/fixtures/streams/*.tsv
seed tables 5 tests/fixtures/wordnet/*.tsv
# Selector 6: a WordNet noun database (data, index, exceptions separated by \x01).
{ printf '\x06'; cat tests/fixtures/wordnet/mini/data.noun; printf '\x01'; cat tests/fixtures/wordnet/mini/index.noun;
  printf '\x01'; cat tests/fixtures/wordnet/mini/noun.exc; } > fuzz/corpus/tables/6-wordnet-mini
seed clicks 0 study_logs/clicks/synthetic_yandex_layout.txt
seed clicks 1 study_logs/clicks/letor_dbn_clicks.tsv
seed clicks 3 study_logs/clicks/ncm_handmade_train.txt
seed clicks 4 tests/fixtures/clicklogs/rpc_handmade.txt
seed clicks 7 simulations/combined/dbn.json
seed study 0 study_logs/gaze/mono_*.asc
seed study 1 study_logs/gaze/bino_*.asc study_logs/gaze/lowrate/*.asc
seed study 2 study_logs/gaze/pymovements/*.csv study_logs/gaze/csv/*.csv
seed study 3 study_logs/examples/log.jsonl
seed study 4 study_logs/examples/aoi/*.csv study_logs/gaze/fixation_report_reading.csv study_logs/gaze/char_aoi_page.csv
seed study 5 study_logs/cursor/*.csv study_logs/examples/cursor/*.txt
# Columnar logs (issue 42): project-made Parquet (page v1 and v2, list and large_list) and Arrow
# IPC (file and stream) files, written by pyarrow from a small log when it is installed.
mkdir -p fuzz/corpus/arrow_ipc fuzz/corpus/parquet
python3 - <<'PY' || echo "pyarrow missing: the arrow_ipc and parquet targets start from an empty corpus" >&2
import io, pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
rows = [("q%d" % (i % 7), ["d%d" % ((i * 3 + k) % 11) for k in range(1 + i % 4)], [int((i + k) % 3 == 0) for k in range(1 + i % 4)]) for i in range(40)]
for lt, mk in (("list", pa.list_), ("large_list", pa.large_list)):
    t = pa.table({"query_id": [r[0] for r in rows], "docs": pa.array([r[1] for r in rows], mk(pa.string())), "clicks": pa.array([r[2] for r in rows], mk(pa.int8()))})
    for v in ("1.0", "2.0"):
        b = io.BytesIO(); pq.write_table(t, b, data_page_version=v, data_page_size=256)
        open("fuzz/corpus/parquet/0-%s-v%s" % (lt, v), "wb").write(b"\x00" + b.getvalue())
    b = io.BytesIO(); w = ipc.new_file(b, t.schema); w.write_table(t, max_chunksize=16); w.close()
    open("fuzz/corpus/arrow_ipc/0-%s-file" % lt, "wb").write(b"\x00" + b.getvalue())
    b = io.BytesIO(); w = ipc.new_stream(b, t.schema); w.write_table(t, max_chunksize=16); w.close()
    open("fuzz/corpus/arrow_ipc/0-%s-stream" % lt, "wb").write(b"\x00" + b.getvalue())
PY
# Subtopic judgements (qrels NUL subtopics) and labels in each layout (selector byte).
mkdir -p fuzz/corpus/subtopic_qrels fuzz/corpus/labels
printf '1 0 a 1\n1 0 b 0\n2 0 a 2\n\0001 s1 a 1\n1 s2 a 1\n1 s2 b 1\n2 s1 a 0.5\n' > fuzz/corpus/subtopic_qrels/small
printf '\x00q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n' > fuzz/corpus/labels/trec
printf '\x01100\t225\t5\t1\n100\t225\t7\t0\n101\t0\t5\t-1\n' > fuzz/corpus/labels/yandex
printf '\x03q1\td1\t1\nq1\td2\t0\n' > fuzz/corpus/labels/tsv
printf '\x04q1,r1,d1,1\nq1,r1,d2,0\n' > fuzz/corpus/labels/csv
printf '\x05d1 q1 1\nd2 q1 0\n' > fuzz/corpus/labels/whitespace
mkdir -p fuzz/corpus/config
cp simulations/*.toml fuzz/corpus/config/ 2>/dev/null || true
printf 'm:map P@5 ndcg_cut.10 rbp(p=0.8) RBP(p=0.8) nDCG@10 iprec_at_recall.0.5\n' > fuzz/corpus/config/measures
# The size knobs (issue 29): scenario generators, the synthetic study (s:) and suggestions (g:).
cp simulations/sessions/*.toml simulations/sublists/*.toml fuzz/corpus/config/ 2>/dev/null || true
printf 's:participants = 20\ntasks = 3\nqueries = 3\nmax_pages = 2\ntokens_per_result = 12\n' > fuzz/corpus/config/study
printf 'g:sessions = 300\nqueries = 2\ncandidates = 7\nsegments = 8\n' > fuzz/corpus/config/suggest
printf '[collection]\nsource = "synthetic"\ntopics = 3\ndocs_per_topic = 50\ncategories = 4\nlabels_per_doc = 1\n[[profiles]]\nname = "p"\neffort = { read_document = 1e308 }\n[output]\nhistogram_bins = 20\n' > fuzz/corpus/config/knobs

fuzz_one() { # target
  local t=$1 log status=ok runs eps
  mkdir -p "fuzz/artifacts/$t"
  log=$(mktemp)
  cargo +nightly fuzz run -O "$t" "fuzz/corpus/$t" -- -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -max_len=262144 -artifact_prefix="fuzz/artifacts/$t/" -print_final_stats=1 2>"$log" || status=FAILED
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  eps=$(( runs / (secs > 0 ? secs : 1) ))
  echo "$(date -u +%FT%TZ) target=$t seconds=$secs runs=$runs exec_per_s=$eps status=$status load=\"$(cut -d' ' -f1-3 /proc/loadavg)\"" | tee -a fuzz/runs.log
  [ $status = ok ] || { tail -40 "$log" >&2; return 1; }
}

# FUZZ_JOBS=N runs N targets at a time (default 1).
jobs=${FUZZ_JOBS:-1}
cargo +nightly fuzz build -O
failed=0
running=0
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait -n || failed=1; running=$((running - 1)); fi
done
while [ $running -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done
exit $failed
