//! Simulation engine throughput: cascade users on 10-result SERPs.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serpsim::collection::synthetic::SyntheticConfig;
use serpsim::simulate::{run, simulate_session, Plan, SerpView};
use serpsim::user::{Cascade, ContinuationModel, StoppingRuleKind, UserProfile};

fn cascade_user() -> UserProfile {
    let mut u = UserProfile::named("cascade");
    u.continuation = ContinuationModel::Rbp { p: 0.8 };
    u.clicks = Cascade { click: vec![0.2, 0.8], stop: vec![0.0, 0.3], mark: vec![0.0, 1.0] };
    u.stopping = vec![StoppingRuleKind::ContiguousNonrelevant { n: 5 }];
    u
}

fn single_thread_sessions(c: &mut Criterion) {
    let serp = SerpView::from_grades(vec![1, 0, 0, 1, 0, 1, 0, 0, 0, 1], 10);
    let user = cascade_user();
    let costs = user.costs();
    const N: u64 = 100_000;
    let mut group = c.benchmark_group("cascade_10_results");
    group.throughput(Throughput::Elements(N));
    group.bench_function("sessions_single_thread", |b| {
        b.iter(|| {
            let mut gain = 0.0;
            for i in 0..N {
                let mut rng = serpsim::rng::stream(1, &[7, i]);
                gain += simulate_session(&serp, &user, &costs, &mut rng).gain;
            }
            gain
        })
    });
    group.finish();
}

fn engine_scaling(c: &mut Criterion) {
    let collection = SyntheticConfig { topics: 20, docs_per_topic: 10, relevant_share: 0.3, ..Default::default() }
        .generate()
        .unwrap();
    let profiles = [cascade_user()];
    let replicates = 50_000;
    let sessions = (collection.topics.len() * collection.systems.len() * replicates) as u64;
    let mut group = c.benchmark_group("engine_run");
    group.throughput(Throughput::Elements(sessions));
    group.sample_size(10);
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        group.bench_with_input(BenchmarkId::new("threads", threads), &threads, |b, _| {
            b.iter(|| {
                let plan = Plan { collection: &collection, profiles: &profiles, replicates, seed: 3, scenario: "bench" };
                pool.install(|| run(&plan, &|| {}).unwrap().len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, single_thread_sessions, engine_scaling);
criterion_main!(benches);
