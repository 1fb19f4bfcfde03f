//! Click-log reading: the bundled log in the Yandex sample layout (3.5 MB, 30,000 SERPs, project-made) repeated 10 times (35 MB),
//! read and interned from memory as plain text, gzip and zstd. Target (issue 15): gzip input
//! costs at most 2x plain input. Throughput is in bytes of uncompressed text per second.
//!
//! Parse rate (issue 18): the same 30 MB with one impression per line (so no impression
//! repeats the SERP of the one before it on its line, and every SERP is interned), and the
//! 30 MB log converted to Parquet and read from a file; throughput in bytes of the text.
//!
//! `cargo bench --bench clicklogs`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serpsim::input::Input;
use serpsim::logs::{Container, Format, LogData, ReadOptions};
use std::hint::black_box;
use std::io::Write;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/clicks/synthetic_yandex_layout.txt");
    let one = std::fs::read(&path).expect("the bundled click log");
    let plain: Vec<u8> = one.repeat(10);
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&plain).unwrap();
        e.finish().unwrap()
    };
    let zst = {
        let tmp = std::env::temp_dir().join(format!("serpsim-bench-{}.txt", std::process::id()));
        std::fs::write(&tmp, &plain).unwrap();
        let out = std::process::Command::new("zstd").args(["-q", "-c", "-3"]).arg(&tmp).output().ok().filter(|o| o.status.success());
        let _ = std::fs::remove_file(&tmp);
        out.map(|o| o.stdout)
    };
    eprintln!("plain {} bytes, gzip {} bytes ({:.1} %)", plain.len(), gz.len(), 100.0 * gz.len() as f64 / plain.len() as f64);
    let opts = ReadOptions::new(Format::Yandex);
    let read = |bytes: &[u8]| {
        let d = LogData::from_input(Input::from_bytes("bench", bytes.to_vec()).unwrap(), &opts).unwrap();
        assert_eq!(d.log.len(), 350_640);
        d.log.len()
    };
    let mut g = c.benchmark_group("clicklogs");
    g.sample_size(10).measurement_time(Duration::from_secs(8)).throughput(Throughput::Bytes(plain.len() as u64));
    g.bench_function("read_yandex_30MB_plain", |b| b.iter(|| black_box(read(&plain))));
    g.bench_function("read_yandex_30MB_gzip", |b| b.iter(|| black_box(read(&gz))));
    if let Some(z) = &zst {
        g.bench_function("read_yandex_30MB_zstd", |b| b.iter(|| black_box(read(z))));
    } else {
        eprintln!("NOTICE: the zstd tool is missing; the zstd case is not measured");
    }
    let split: Vec<u8> = String::from_utf8(plain.clone()).unwrap().split(';').map(str::trim).collect::<Vec<_>>().join("\n").into_bytes();
    g.bench_function("read_yandex_30MB_one_impression_per_line", |b| b.iter(|| black_box(read(&split))));
    let dir = tempfile::tempdir().unwrap();
    let pq = dir.path().join("log.parquet");
    let input = Input::from_bytes("bench", plain.clone()).unwrap();
    serpsim::logs::convert::convert(input, &opts, &Format::Columnar(Container::Parquet, Default::default()), &pq, None).unwrap();
    g.bench_function("read_yandex_30MB_as_parquet", |b| {
        b.iter(|| {
            let d = LogData::read(&pq, Format::Auto, false).unwrap();
            assert_eq!(d.log.len(), 350_640);
            black_box(d.log.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
