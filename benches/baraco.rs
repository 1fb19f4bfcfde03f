//! BARACO throughput: posterior computation (sessions/s, one core) and the switching decision
//! for 1,000 candidates with K = 1,000 on the 36 queries of the project's LETOR-layout sample
//! (study_logs/letor/letor_sample.txt; all cores).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serpsim::baraco::harness::{simulate_clicks, GenModel, Study, StudyConfig, Trainer};
use serpsim::baraco::{compare, compute_posteriors, Config, ProductionLog};
use serpsim::clickmodels::metrics::UserModel;
use serpsim::collection::letor::LetorData;

fn study() -> Study {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/study_logs/letor/letor_sample.txt");
    Study::new(LetorData::from_file(std::path::Path::new(path)).expect("LETOR sample"), 10, Trainer::AdaRank)
}

/// `n` DBN sessions (navigational users) over 36 queries x 10 results.
fn synthetic_log(n: usize) -> ProductionLog {
    let mut log = ProductionLog::new();
    let mut serps = Vec::new();
    let mut a = Vec::new();
    let mut s = Vec::new();
    for q in 0..36 {
        let qi = log.query_id(&format!("q{q}"));
        let serp: Vec<u32> = (0..10).map(|d| log.pair_id(qi, &format!("d{d}"))).collect();
        for (d, _) in serp.iter().enumerate() {
            let (x, y) = UserModel::Navigational.params(i32::from((q + d) % 4 == 0));
            a.push(x);
            s.push(y);
        }
        serps.push(serp);
    }
    let mut rng = serpsim::rng::stream(9, &[]);
    let mut clicks = Vec::new();
    for j in 0..n {
        let q = j % 36;
        simulate_clicks(GenModel::Dbn, &serps[q], &a, &s, &mut rng, &mut clicks);
        log.push_session(q as u32, &serps[q], &clicks).unwrap();
    }
    log
}

/// CPU time of the calling thread in seconds (Linux `/proc/thread-self/schedstat`), if available.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(text.split_whitespace().next()?.parse::<f64>().ok()? * 1e-9)
}

fn posterior_throughput(c: &mut Criterion) {
    const N: usize = 1_000_000;
    let log = synthetic_log(N);
    // On a shared machine wall time overstates the cost: also report sessions per CPU-second
    // of the (single) thread that runs Algorithm 1.
    if let Some(t0) = thread_cpu_seconds() {
        let wall = std::time::Instant::now();
        for _ in 0..5 {
            criterion::black_box(compute_posteriors(&log, 0.9).unwrap());
        }
        let cpu = thread_cpu_seconds().unwrap_or(t0) - t0;
        eprintln!(
            "compute_posteriors: {:.0} sessions per CPU-second of one thread ({:.0} per wall second) over 5 x {N}",
            5.0 * N as f64 / cpu,
            5.0 * N as f64 / wall.elapsed().as_secs_f64()
        );
    }
    let mut g = c.benchmark_group("baraco_posteriors");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("compute_posteriors_1M_sessions_one_core", |b| b.iter(|| compute_posteriors(&log, 0.9).unwrap().a.len()));
    g.finish();
}

fn switching_decision(c: &mut Criterion) {
    let st = study();
    let cfg = StudyConfig::default();
    let (prod, cands) = st.rankers(&cfg, 0);
    let log = st.generate_log(&cfg, &prod, GenModel::Dbn, UserModel::Informational, 0);
    let post = compute_posteriors(&log, 0.9).unwrap();
    let bcfg = Config::default();
    let mut g = c.benchmark_group("baraco_switching");
    g.sample_size(10);
    g.bench_function("1000_candidates_K1000_36_queries", |b| b.iter(|| compare(&log, &post, &prod, &cands, &bcfg).unwrap().len()));
    g.finish();
}

criterion_group!(benches, posterior_throughput, switching_decision);
criterion_main!(benches);
