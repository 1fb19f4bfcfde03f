//! Click-model fitting throughput on the Yandex sample (35,064 sessions, single thread).
//! `cargo bench --bench clickmodels`; figures in docs/performance.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serpsim::clickmodels::{Cm, Dbn, DbnConfig, Gamma, Sdbn};
use serpsim::logs::{Format, LogData};
use std::hint::black_box;
use std::path::PathBuf;

fn bench(c: &mut Criterion) {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("study_logs/clicks/yandex_sample_train.txt");
    let data = LogData::read(&p, Format::Yandex, false).unwrap();
    let log = &data.log;
    let mut g = c.benchmark_group("clickmodels_yandex");
    g.throughput(Throughput::Elements(log.len() as u64));
    g.bench_function("sdbn_fit", |b| b.iter(|| black_box(Sdbn::fit(&mut &*log).unwrap())));
    g.bench_function("cm_fit", |b| b.iter(|| black_box(Cm::fit(&mut &*log).unwrap())));
    let cfg = DbnConfig { gamma: Gamma::Fitted, iterations: 1, tolerance: 0.0 };
    let start = cfg.fit(&mut &*log).unwrap();
    g.bench_function("dbn_em_iteration", |b| b.iter(|| black_box(cfg.em_step(&mut &*log, &start).unwrap())));
    let fixed = DbnConfig { gamma: Gamma::Fixed(0.9), ..cfg };
    g.bench_function("dbn_em_iteration_gamma_fixed", |b| b.iter(|| black_box(fixed.em_step(&mut &*log, &Dbn::default()).unwrap())));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
