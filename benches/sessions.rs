//! Session benchmarks: one 1,200 s session, and the sweep of 100,000 sessions x 30 thresholds
//! x 3 stopping strategies (timed once after the criterion groups; set SESSIONS_BENCH_FULL=0 to
//! skip it).

use criterion::{black_box, criterion_group, Criterion};
use serpsim::collection::queries::{QueryStrategy, SessionTopic, SyntheticQueries};
use serpsim::presets::sessions::model::SessionConfig;
use serpsim::presets::sessions::sweep::{grid, paper_rules, run_points, QuerySet};
use serpsim::simulate::walk::{walk, FixedChoice, Outcome, Scratch, SystemOnTopic};
use serpsim::simulate::{session_key, World};
use serpsim::user::ResolvedUser;
use serpsim::user::{Basis, Param, StoppingRuleKind};
use std::time::Instant;

fn topics() -> Vec<SessionTopic> {
    SyntheticQueries::default().generate(QueryStrategy::Qs13).unwrap()
}

/// The topics as a world with the searcher's interface.
fn world(topics: &[SessionTopic], cfg: &SessionConfig) -> World {
    let mut world = serpsim::scenario::world_from_query_sets(&[("QS1+3".into(), topics.to_vec())]).unwrap();
    cfg.apply_interface(&mut world);
    world
}

/// Session `r` of the resolved searcher through the engine's walk (topic `r` mod the topics).
fn session(world: &World, user: &ResolvedUser, r: u64, scratch: &mut Scratch) -> Outcome {
    let t = (r % world.topics.len() as u64) as usize;
    walk(&SystemOnTopic::of(world, t, 0).unwrap(), user, &user.grades, &mut FixedChoice(Vec::new()), session_key(1, t as u64, r), scratch, &mut ())
}

fn one_session(c: &mut Criterion) {
    let topics = topics();
    let mut g = c.benchmark_group("sessions");
    for (name, rule) in [
        ("ss1_x10", StoppingRuleKind::FixedDepth { n: Param::Fixed(10.0) }),
        ("ss3_x3", StoppingRuleKind::ContiguousNonrelevant { n: Param::Fixed(3.0), basis: Basis::Snippet }),
    ] {
        let mut cfg = SessionConfig::default();
        cfg.searcher.stopping = rule;
        let (world, user) = (world(&topics, &cfg), cfg.profile("searcher").resolve(0, 0));
        let mut scratch = Scratch::default();
        let mut r = 0u64;
        g.bench_function(format!("one_1200s_session_{name}"), |b| {
            b.iter(|| {
                r += 1;
                black_box(session(&world, &user, r, &mut scratch))
            })
        });
    }
    g.finish();
}

fn small_sweep(c: &mut Criterion) {
    let sets = vec![QuerySet { label: "QS1+3".into(), topics: topics() }];
    let thresholds: Vec<usize> = (1..=30).collect();
    let points = grid(1, &paper_rules(), &thresholds, &SessionConfig::default());
    let mut g = c.benchmark_group("sessions");
    g.sample_size(10);
    // 50 topics x 20 replicates = 1,000 sessions per point, 90 points.
    g.bench_function("sweep_1000_sessions_x90", |b| b.iter(|| black_box(run_points(&sets, &points, 20, 1, &|_, _| {}).unwrap())));
    g.finish();
}

criterion_group!(benches, one_session, small_sweep);

/// CPU seconds (user + system) from a /proc stat file (Linux; clock ticks of 1/100 s).
fn cpu_seconds(path: &str) -> f64 {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let after = text.rsplit_once(')').map(|x| x.1).unwrap_or("");
    let f: Vec<f64> = after.split_whitespace().map(|x| x.parse().unwrap_or(0.0)).collect();
    if f.len() < 13 {
        return f64::NAN;
    }
    (f[11] + f[12]) / 100.0
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    if std::env::var("SESSIONS_BENCH_FULL").as_deref() == Ok("0") {
        return;
    }
    // CPU time of single sessions on this thread (robust to other load on the machine).
    let all = topics();
    for (name, rule) in [
        ("SS1 x1=10", StoppingRuleKind::FixedDepth { n: Param::Fixed(10.0) }),
        ("SS3 x3=3", StoppingRuleKind::ContiguousNonrelevant { n: Param::Fixed(3.0), basis: Basis::Snippet }),
    ] {
        let mut cfg = SessionConfig::default();
        cfg.searcher.stopping = rule;
        let (world, user) = (world(&all, &cfg), cfg.profile("searcher").resolve(0, 0));
        let mut scratch = Scratch::default();
        let n = 1_000_000u64;
        let (w0, c0) = (Instant::now(), cpu_seconds("/proc/thread-self/stat"));
        let mut snippets = 0u64;
        for r in 0..n {
            snippets += black_box(session(&world, &user, r, &mut scratch)).depth as u64;
        }
        let (w, c) = (w0.elapsed().as_secs_f64(), cpu_seconds("/proc/thread-self/stat") - c0);
        println!(
            "single 1,200 s sessions ({name}): {n} sessions, {:.1} snippets each: wall {:.3} us, thread CPU {:.3} us per session",
            snippets as f64 / n as f64,
            w * 1e6 / n as f64,
            c * 1e6 / n as f64
        );
    }
    // 50 topics x 2,000 replicates = 100,000 sessions per point; 30 thresholds x 3 strategies.
    let sets = vec![QuerySet { label: "QS1+3".into(), topics: all }];
    let thresholds: Vec<usize> = (1..=30).collect();
    let points = grid(1, &paper_rules(), &thresholds, &SessionConfig::default());
    let (start, c0) = (Instant::now(), cpu_seconds("/proc/self/stat"));
    let results = run_points(&sets, &points, 2000, 1, &|_, _| {}).unwrap();
    let secs = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds("/proc/self/stat") - c0;
    let sessions: u64 = results.iter().map(|r| r.sessions).sum();
    println!(
        "full sweep: {} sessions ({} points x {} sessions) in {:.2} s wall on {} threads ({:.2} us per session per thread); process CPU {:.2} s = {:.2} s wall on 2 uncontended cores",
        sessions,
        results.len(),
        results[0].sessions,
        secs,
        rayon::current_num_threads(),
        secs * 1e6 * rayon::current_num_threads() as f64 / sessions as f64,
        cpu,
        cpu / 2.0
    );
}
