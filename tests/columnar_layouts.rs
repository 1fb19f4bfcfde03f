//! Issue 42: every valid Parquet layout pyarrow writes (page v1 and v2, `list` and
//! `large_list`, dictionary-encoded or plain, nullable or required columns) and Arrow IPC
//! (file and stream) are read identically by the streamed reader (the page-level Parquet
//! reader of `logs::direct`, then the kept sessions) and the in-memory reader; corrupt files
//! are refused with a clean `FILE: reason` message and no panic text.
//!
//! Expected values: the model file `clicks fit` writes from the project-made text log
//! (`clicks generate`) that the columnar files are converted from, so the text reader is the
//! independent source; each columnar layout must give the same bytes, streamed and in memory.
//! Needs python3 with pyarrow (scripts/test.sh installs it; a missing resource fails the run).

mod common;

use common::serpsim as bin;
use std::path::Path;
use std::process::Command;

/// Converts the Yandex-layout log `log` (`query<TAB>d,d,... : c,c`) into every layout under
/// `dir`, and writes the corrupt variants; prints the file names.
const WRITE_LAYOUTS: &str = r#"
import sys, itertools, pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
log, out = sys.argv[1], sys.argv[2]
rows = []
for line in open(log):
    q, rest = line.rstrip("\n").split("\t")
    docs, _, clicked = rest.partition(":")
    docs = docs.strip().split(",")
    clicked = set(c.strip() for c in clicked.split(",") if c.strip())
    rows.append((q, docs, [int(d in clicked) for d in docs]))
names = []
for (lt, mk), v, dictionary, required in itertools.product([("list", pa.list_), ("large_list", pa.large_list)], ["1.0", "2.0"], [True, False], [False, True]):
    schema = pa.schema([
        pa.field("query_id", pa.string(), nullable=not required),
        pa.field("docs", mk(pa.field("item", pa.string(), nullable=not required)), nullable=not required),
        pa.field("clicks", mk(pa.field("item", pa.int8(), nullable=not required)), nullable=not required),
    ])
    t = pa.table({"query_id": [r[0] for r in rows], "docs": [r[1] for r in rows], "clicks": [r[2] for r in rows]}, schema=schema)
    name = f"{out}/{lt}-v{v}-{'dict' if dictionary else 'plain'}-{'required' if required else 'nullable'}.parquet"
    pq.write_table(t, name, data_page_version=v, use_dictionary=dictionary, data_page_size=2048, row_group_size=1500)
    names.append(name)
# Boolean click flags, and a file with more row groups than pages.
t = pa.table({"query_id": [r[0] for r in rows], "docs": pa.array([r[1] for r in rows], pa.large_list(pa.string())), "clicks": pa.array([[bool(c) for c in r[2]] for r in rows], pa.large_list(pa.bool_()))})
pq.write_table(t, f"{out}/bool-v2.parquet", data_page_version="2.0", row_group_size=700)
names.append(f"{out}/bool-v2.parquet")
for lt, mk in [("list", pa.list_), ("large_list", pa.large_list)]:
    t = pa.table({"query_id": [r[0] for r in rows], "docs": pa.array([r[1] for r in rows], mk(pa.string())), "clicks": pa.array([r[2] for r in rows], mk(pa.int8()))})
    with ipc.new_file(f"{out}/{lt}.arrow", t.schema) as w:
        w.write_table(t, max_chunksize=1000)
    with ipc.new_stream(f"{out}/{lt}-stream.arrow", t.schema) as w:
        w.write_table(t, max_chunksize=1000)
    names += [f"{out}/{lt}.arrow", f"{out}/{lt}-stream.arrow"]
print("\n".join(names))
"#;

fn python(args: &[&str]) -> String {
    let o = Command::new("python3").args(args).output().expect("python3 runs");
    assert!(o.status.success(), "python3 with pyarrow is needed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// `clicks fit` of `log` (format `format`, `extra` options) into `out`; the model file's bytes.
fn fit(log: &str, format: &str, extra: &[&str], out: &Path) -> Vec<u8> {
    let o = bin()
        .args(["--quiet", "clicks", "fit", "--model", "dbn", "--iterations", "5", "--format", format, "--train", log, "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{log} {extra:?}: {}", String::from_utf8_lossy(&o.stderr));
    std::fs::read(out).unwrap()
}

fn small_log(dir: &Path) -> String {
    let log = dir.join("log.txt").display().to_string();
    let o = bin().args(["--quiet", "clicks", "generate", "--sessions", "4000", "--queries", "60", "--docs", "400", "--out", &log]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    log
}

#[test]
fn every_pyarrow_layout_reads_identically_streamed_and_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let log = small_log(dir.path());
    let want = fit(&log, "yandex", &[], &dir.path().join("text.json"));
    let files = python(&["-c", WRITE_LAYOUTS, &log, &dir.path().display().to_string()]);
    let mut n = 0;
    for f in files.lines() {
        let streamed = fit(f, "auto", &[], &dir.path().join("s.json"));
        let in_memory = fit(f, "auto", &["--in-memory"], &dir.path().join("m.json"));
        assert!(streamed == want, "{f}: the streamed reader's model differs from the text log's");
        assert!(in_memory == want, "{f}: the in-memory reader's model differs from the text log's");
        n += 1;
    }
    assert_eq!(n, 21, "16 Parquet layouts, the boolean one and 4 Arrow IPC files");
}

#[test]
fn corrupt_columnar_files_are_refused_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let log = small_log(dir.path());
    let files = python(&["-c", WRITE_LAYOUTS, &log, &dir.path().display().to_string()]);
    let mut refused = 0;
    for f in files.lines().filter(|f| f.contains("large_list-v2.0-dict-nullable") || f.ends_with(".arrow")) {
        let good = std::fs::read(f).unwrap();
        // Bytes overwritten in the middle (pages, buffers) and in the footer, and truncations.
        let mut cases = Vec::new();
        for at in [good.len() / 3, good.len() / 2, good.len() - 40, good.len() - 12] {
            let mut b = good.clone();
            b[at..at + 8].copy_from_slice(&[0xff, 0x7f, 0xff, 0x7f, 0x00, 0x10, 0xff, 0x7f]);
            cases.push(b);
        }
        cases.push(good[..good.len() / 2].to_vec());
        cases.push(good[..good.len() - 3].to_vec());
        for (i, bytes) in cases.into_iter().enumerate() {
            let bad = dir.path().join(format!("bad-{i}-{}", Path::new(f).file_name().unwrap().to_string_lossy()));
            std::fs::write(&bad, bytes).unwrap();
            let name = bad.display().to_string();
            for extra in [&[][..], &["--in-memory"][..]] {
                let o = bin()
                    .args(["--quiet", "clicks", "fit", "--model", "dbn", "--format", "auto", "--train", &name, "--out"])
                    .arg(dir.path().join("x.json"))
                    .args(extra)
                    .output()
                    .unwrap();
                let err = String::from_utf8_lossy(&o.stderr);
                assert!(!err.contains("panicked"), "{name} {extra:?}: {err}");
                if !o.status.success() {
                    refused += 1;
                    assert_eq!(o.status.code(), Some(1), "{name} {extra:?}: {err}");
                    assert!(err.starts_with(&format!("error: {name}")), "{name} {extra:?}: {err}");
                    assert_eq!(err.lines().count(), 1, "{name} {extra:?}: one line: {err}");
                }
            }
        }
    }
    assert!(refused >= 20, "the truncated files at least are refused: {refused}");
}
