//! Engine throughput.
//!
//! - `cascade_10_results/sessions_single_thread`: the plain cascade user (RBP 0.8, SS3 at 5) on
//!   a 10-result SERP, the walk alone with its per-session key derivation, one thread
//!   (target: >= 10 M sessions/s).
//! - `engine_report`: the engine with the report's sink (every measure, pairs, curves) on 20
//!   synthetic topics x 2 systems, 1 and 2 threads.
//! - after the criterion groups (skip with `SIMULATE_BENCH_FULL=0`): whole scenario runs timed
//!   once each (load, simulate, summarise, write): the 250,000-user cascade scenario with 1 and
//!   2 threads (target: >= 1.8x), and the combined scenario of `simulations/combined.toml` at
//!   10,000 users x 2 systems x 50 topics on 2 threads (target: < 10 s).
//!
//! cargo bench --bench simulate -- --warm-up-time 1 --measurement-time 3

use criterion::{black_box, criterion_group, BenchmarkId, Criterion, Throughput};
use serpsim::collection::synthetic::SyntheticConfig;
use serpsim::simulate::engine::{topic_key, user_key};
use serpsim::simulate::walk::{walk, FixedChoice, Scratch, SystemOnTopic};
use serpsim::simulate::{one_list_world, PreparedProfile, ReportSink, RunPlan, SinkConfig};
use serpsim::user::{Basis, Cascade, ContinuationModel, Param, StoppingRuleKind, UserProfile};
use std::time::Instant;

fn cascade_user() -> UserProfile {
    let mut u = UserProfile::named("cascade");
    u.continuation = Some(ContinuationModel::Rbp { p: Param::Fixed(0.8) });
    u.clicks = Cascade::fixed(&[0.2, 0.8], &[0.0, 0.3], &[0.0, 1.0]);
    u.stopping = vec![StoppingRuleKind::ContiguousNonrelevant { n: Param::Fixed(5.0), basis: Basis::Grade }];
    u
}

fn single_thread_sessions(c: &mut Criterion) {
    let world = one_list_world(vec![1, 0, 0, 1, 0, 1, 0, 0, 0, 1], 10);
    let user = cascade_user().resolve(1, 0);
    let sys = &world.systems[0];
    let stage = SystemOnTopic {
        topic: &world.topics[0],
        queries: sys.serps[0].as_deref().unwrap(),
        delays: &sys.delays,
        page_size: 10,
        fold: usize::MAX,
        below_fold: 0.0,
        sublists_from: serpsim::simulate::walk::first_sublist(sys.serps[0].as_deref().unwrap()),
    };
    const N: u64 = 100_000;
    let mut scratch = Scratch::default();
    let mut chooser = FixedChoice(Vec::new());
    let mut group = c.benchmark_group("cascade_10_results");
    group.throughput(Throughput::Elements(N));
    let mut run_sessions = || {
        let mut gain = 0.0;
        // The engine's per-session key: the topic's part once, then the user's.
        let tk = topic_key(1, 7);
        for i in 0..N {
            let key = user_key(tk, i);
            gain += walk(&stage, &user, &user.grades, &mut chooser, key, &mut scratch, &mut ()).gain;
        }
        gain
    };
    // Timed in CPU time of this thread (not wall time), so a loaded machine does not inflate it.
    group.bench_function("sessions_single_thread", |b| {
        b.iter_custom(|iters| {
            let start = thread_cpu();
            for _ in 0..iters {
                black_box(run_sessions());
            }
            thread_cpu() - start
        })
    });
    group.finish();
}

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`).
fn thread_cpu() -> std::time::Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux supports.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn report_config(pairs: Vec<(usize, usize)>) -> SinkConfig {
    SinkConfig {
        per_topic_sketches: true,
        time_grid: serpsim::simulate::summary::Grid::to(100.0, 61),
        effort_grid: serpsim::simulate::summary::Grid::to(10.0, 61),
        time_budgets: vec![25.0, 50.0, 100.0],
        effort_budgets: vec![2.5, 5.0, 10.0],
        pairs,
        samples: None,
    }
}

fn engine_scaling(c: &mut Criterion) {
    let collection = SyntheticConfig { topics: 20, docs_per_topic: 10, relevant_share: 0.3, ..Default::default() }.generate().unwrap();
    let world = serpsim::simulate::World::from_collection(&collection);
    let prepared = [PreparedProfile::new(&world, &cascade_user(), 3, None).unwrap()];
    let users = 50_000u64;
    let sessions = world.topics.len() as u64 * world.systems.len() as u64 * users;
    let mut group = c.benchmark_group("engine_report");
    group.throughput(Throughput::Elements(sessions));
    group.sample_size(10);
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        group.bench_with_input(BenchmarkId::new("threads", threads), &threads, |b, _| {
            b.iter(|| {
                let plan = RunPlan { world: &world, profiles: &prepared, users, seed: 3, block: None };
                let sink = ReportSink::new(&world, vec!["cascade".into()], report_config(vec![(0, 1)])).unwrap();
                pool.install(|| serpsim::simulate::run(&plan, &sink, &|_, _| {}).unwrap());
                black_box(sink.finish_summary().cells.len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, single_thread_sessions, engine_scaling);

/// Runs a whole scenario (load, simulate, summarise, write) on `threads` threads; wall seconds.
fn whole(scenario: &serpsim::scenario::Scenario, base: &std::path::Path, out: &std::path::Path, threads: usize) -> f64 {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let overrides = serpsim::scenario::Overrides {
        replicates: None,
        seed: None,
        out: Some(out.to_path_buf()),
        samples: None,
        detail: None,
        allow_partial_judgements: false,
    };
    let start = Instant::now();
    pool.install(|| serpsim::run::run_scenario(scenario.clone(), base, &overrides, &|_, _| {}).unwrap());
    start.elapsed().as_secs_f64()
}

/// A 50-query LETOR file and its DBN file (see `main`), written under `dir`.
fn combined50(root: &std::path::Path, dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let text = std::fs::read_to_string(root.join("study_logs/letor/letor_sample.txt")).unwrap();
    let mut qids: Vec<String> = Vec::new();
    for l in text.lines() {
        let q = l.split_whitespace().nth(1).unwrap().to_string();
        if !qids.contains(&q) {
            qids.push(q);
        }
    }
    let extra: Vec<String> = qids[..14].to_vec();
    let mut out = text.clone();
    for l in text.lines() {
        let q = l.split_whitespace().nth(1).unwrap();
        if extra.iter().any(|e| e == q) {
            out.push_str(&l.replacen(q, &format!("{q}b"), 1));
            out.push('\n');
        }
    }
    let letor = dir.join("letor_50.txt");
    std::fs::write(&letor, out).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(root.join("simulations/combined/dbn.json")).unwrap()).unwrap();
    let pairs = json["pairs"].as_array().unwrap().clone();
    let more: Vec<serde_json::Value> = pairs
        .iter()
        .filter(|p| extra.iter().any(|e| format!("qid:{}", p[0].as_str().unwrap()) == *e))
        .map(|p| {
            let mut p = p.clone();
            p[0] = serde_json::Value::String(format!("{}b", p[0].as_str().unwrap()));
            p
        })
        .collect();
    json["pairs"].as_array_mut().unwrap().extend(more);
    let dbn = dir.join("dbn50.json");
    std::fs::write(&dbn, serde_json::to_string(&json).unwrap()).unwrap();
    (letor, dbn)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).unwrap_or_default()
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    if std::env::var("SIMULATE_BENCH_FULL").as_deref() == Ok("0") {
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("serpsim-bench-{}", std::process::id()));
    // The cascade scenario of the scaling item (250,000 users, 20 topics x 2 systems).
    let text = "name = 'cascade-scaling'\nseed = 7\nreplicates = 250000\n[collection]\nsource = 'synthetic'\ntopics = 20\ndocs_per_topic = 10\nrelevant_share = 0.3\n\
                [[profiles]]\nname = 'cascade'\ncontinuation = { model = 'rbp', p = 0.8 }\nclicks = { click = [0.2, 0.8], stop = [0.0, 0.3], mark = [0.0, 1.0] }\n\
                stopping = [{ rule = 'contiguous_nonrelevant', n = 5 }]\n";
    let s = serpsim::scenario::Scenario::parse(text, "cascade-scaling").unwrap();
    let t1 = whole(&s, root, &out.join("c1"), 1);
    let t2 = whole(&s, root, &out.join("c2"), 2);
    println!(
        "whole scenario, 250,000 users x 20 topics x 2 systems (10 M sessions): 1 thread {t1:.2} s, 2 threads {t2:.2} s, speed-up {:.2}x (load average {})",
        t1 / t2,
        load_average()
    );
    // The combined scenario at 50 topics: the 36 LETOR queries plus the first 14 again under
    // new ids (`<qid>b`, with their fitted DBN parameters copied), so every topic costs what a
    // real one costs.
    let (mut s, base) = serpsim::scenario::Scenario::from_file(&root.join("simulations/combined.toml")).unwrap();
    let (letor, dbn) = combined50(root, &out);
    if let serpsim::scenario::CollectionSource::Letor(l) = &mut s.collection {
        l.file = letor;
    }
    s.profiles[0].click_model.as_mut().unwrap().file = dbn;
    s.replicates = 10_000;
    let t = whole(&s, &base, &out.join("combined"), 2);
    println!(
        "combined scenario, 10,000 users x 2 systems x 50 topics (1,000,000 sessions of 3 queries), 2 threads: {t:.2} s (load average {})",
        load_average()
    );
    let _ = std::fs::remove_dir_all(&out);
}
