//! `serpsim eval` speed on a synthetic run of 1,000 topics x 1,000 documents against 300,000
//! graded judgements, file reading included. The files are written once (seeded) to
//! `target/metrics-bench/` by `files()`, with a gzip copy of the run, so that
//! `analysis/metrics/bench_cpu.sh` can time trec_eval and `serpsim eval` as whole processes on
//! the very same files.
//!
//! Run: `cargo bench --bench metrics -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion};
use rand::Rng;
use serpsim::metrics::eval::{evaluate, EvalOptions, RankedRun, RunOptions};
use serpsim::metrics::{Judgements, MeasurePlan};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

/// Writes (once) the benchmark qrels, run and gzipped run; returns their paths.
pub fn files() -> (PathBuf, PathBuf, PathBuf) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/metrics-bench");
    let (q, r, gz) = (dir.join("qrels.txt"), dir.join("run.txt"), dir.join("run.txt.gz"));
    if q.exists() && r.exists() && gz.exists() {
        return (q, r, gz);
    }
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = serpsim::rng::stream(2026, &[4]);
    let (mut qrels, mut run) = (String::new(), String::new());
    for t in 0..1000 {
        // 2,000 candidate documents; 300 judged (grades 0-3), the run retrieves 1,000.
        for d in 0..300 {
            let g = match rng.random_range(0..10) {
                0..=5 => 0,
                6 | 7 => 1,
                8 => 2,
                _ => 3,
            };
            let _ = writeln!(qrels, "{} 0 DOC-{t}-{:04} {g}", 1000 + t, d * 3);
        }
        for d in 0..1000 {
            let score: f64 = rng.random::<f64>() * 10.0;
            let _ = writeln!(run, "{} Q0 DOC-{t}-{:04} {} {score:.6} synthetic", 1000 + t, d * 2, d + 1);
        }
    }
    std::fs::write(&q, qrels).unwrap();
    std::fs::write(&r, &run).unwrap();
    let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::default());
    enc.write_all(run.as_bytes()).unwrap();
    enc.finish().unwrap();
    (q, r, gz)
}

fn bench(c: &mut Criterion) {
    let (q, r, gz) = files();
    let official = MeasurePlan::official();
    let all_trec = MeasurePlan::parse(&["all_trec"]).unwrap();
    let opts = RunOptions { keep_docs: false, ..Default::default() };
    let eval_opts = EvalOptions::default();
    let mut g = c.benchmark_group("eval_1000x1000");
    g.sample_size(10);
    // What `serpsim eval` does with no -m: read qrels, stream the run onto them, official set.
    g.bench_function("read_and_evaluate_official", |b| {
        b.iter(|| {
            let j = Judgements::read(&q).unwrap();
            let run = RankedRun::read(&j, &r, &opts).unwrap();
            evaluate(&j, &[run], &official, &eval_opts).unwrap()
        })
    });
    g.bench_function("read_and_evaluate_all_trec", |b| {
        b.iter(|| {
            let j = Judgements::read(&q).unwrap();
            let run = RankedRun::read(&j, &r, &opts).unwrap();
            evaluate(&j, &[run], &all_trec, &eval_opts).unwrap()
        })
    });
    let j = Judgements::read(&q).unwrap();
    g.bench_function("read_qrels_only", |b| b.iter(|| Judgements::read(&q).unwrap()));
    g.bench_function("read_run_only", |b| b.iter(|| RankedRun::read(&j, &r, &opts).unwrap()));
    g.bench_function("read_run_only_gzip", |b| b.iter(|| RankedRun::read(&j, &gz, &opts).unwrap()));
    let run = RankedRun::read(&j, &r, &opts).unwrap();
    g.bench_function("evaluate_only_official", |b| b.iter(|| evaluate(&j, std::slice::from_ref(&run), &official, &eval_opts).unwrap()));
    g.bench_function("evaluate_only_all_trec", |b| b.iter(|| evaluate(&j, std::slice::from_ref(&run), &all_trec, &eval_opts).unwrap()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
