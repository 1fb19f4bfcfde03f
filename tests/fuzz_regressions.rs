//! Replays every input kept from fuzzing (`fuzz/regressions/TARGET/*`, found by
//! `scripts/fuzz.sh`) through the same entry points as the fuzz targets. Each of these inputs
//! once made a reader panic, hang or allocate without bound; now it must return (an error is
//! fine). The file name says what it found; docs/reliability.md lists them.

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions").join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|f| f == "README.md") {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let start = std::time::Instant::now();
        run(&data);
        // A hang shows as a test that does not end; this bound catches a slow regression
        // (the fuzzer's timeout was 10 s).
        assert!(start.elapsed().as_secs() < 10, "{}: took {:?}", path.display(), start.elapsed());
        n += 1;
    }
    n
}

#[test]
fn tables_regressions() {
    replay("tables", serpsim::fuzzing::tables);
}

#[test]
fn clicks_regressions() {
    replay("clicks", serpsim::fuzzing::clicks);
}

#[test]
fn study_regressions() {
    replay("study", serpsim::fuzzing::study);
}

#[test]
fn config_regressions() {
    replay("config", serpsim::fuzzing::config);
}

#[test]
fn arrow_ipc_regressions() {
    replay("arrow_ipc", serpsim::fuzzing::arrow_ipc);
}

#[test]
fn parquet_regressions() {
    replay("parquet", serpsim::fuzzing::parquet);
}

#[test]
fn subtopic_qrels_regressions() {
    replay("subtopic_qrels", serpsim::fuzzing::subtopic_qrels);
}

#[test]
fn labels_regressions() {
    replay("labels", serpsim::fuzzing::labels);
}
