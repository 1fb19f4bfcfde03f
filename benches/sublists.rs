//! The full what-if sweep of He et al. Fig. 6: 7 lambdas x 2 priors x 3 tasks x 50 topics x
//! 1,000 replicates (RLR; the basic interface is deterministic and walked once per topic and
//! task), on the collection of simulations/sublists/default.toml.
//!
//! cargo bench --bench sublists -- --warm-up-time 1 --measurement-time 3

use criterion::{criterion_group, criterion_main, Criterion};
use serpsim::sublists::scenario::SublistScenario;
use serpsim::sublists::sweep::run_sweep;
use std::path::Path;

fn bench(c: &mut Criterion) {
    let s = SublistScenario::from_str(include_str!("../simulations/sublists/default.toml"), "sublists.toml").unwrap();
    let grid = s.grid("sublists.toml").unwrap();
    let topics = s.topics(Path::new("."), "sublists.toml").unwrap();
    let mut g = c.benchmark_group("sublists");
    g.sample_size(10);
    g.bench_function("full_sweep_7x2x3x50x1000", |b| b.iter(|| run_sweep(&topics, &grid, &|_, _| {}).unwrap().len()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
