//! The full what-if sweep of He et al. Fig. 6: 7 lambdas x 2 priors x 3 tasks x 50 topics x
//! 1,000 users, on the RLR interface and its basic twin, with the engine, on the collection of
//! simulations/sublists/default.toml.
//!
//! cargo bench --bench sublists -- --warm-up-time 1 --measurement-time 3

use criterion::{criterion_group, criterion_main, Criterion};
use serpsim::presets::sublists::scenario::SublistStudy;
use serpsim::presets::sublists::sweep::run_sweep_world;
use serpsim::scenario::Scenario;
use std::path::Path;

fn bench(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("simulations/sublists/default.toml");
    let (s, base) = Scenario::from_file(&path).unwrap();
    let study = SublistStudy::from_scenario(&s, &base, "default.toml").unwrap();
    let mut g = c.benchmark_group("sublists");
    g.sample_size(10);
    g.bench_function("full_sweep_7x2x3x50x1000", |b| {
        b.iter(|| run_sweep_world(&study.loaded.world, &study.loaded.prepared, &study.labels, &study.grid, &|_, _| {}).unwrap().len())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
