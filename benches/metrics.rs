//! `serpsim eval` speed: 10 metrics on a synthetic run of 1,000 topics x 1,000 documents,
//! file parsing included. The files are written once to `target/metrics-bench/` (seeded), so
//! `analysis/metrics/bench_peers.py` can time pytrec_eval (trec_eval's C code) and ir_measures
//! on the very same files.
//!
//! Run: `cargo bench --bench metrics -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion};
use rand::Rng;
use serpsim::collection::trec::{Qrels, Run};
use serpsim::metrics::eval::{evaluate_mapped, MappedRun};
use serpsim::metrics::{evaluate, parse_metric, Judgements, MissingTopics};
use std::fmt::Write;
use std::path::PathBuf;

/// The ten metrics, in trec_eval's names.
pub const METRICS: [&str; 10] =
    ["map", "P_5", "P_10", "recip_rank", "Rprec", "ndcg", "ndcg_cut_10", "recall_100", "map_cut_10", "ndcg_cut_20"];

fn files() -> (PathBuf, PathBuf) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/metrics-bench");
    let (q, r) = (dir.join("qrels.txt"), dir.join("run.txt"));
    if q.exists() && r.exists() {
        return (q, r);
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
    std::fs::write(&r, run).unwrap();
    (q, r)
}

fn bench(c: &mut Criterion) {
    let (q, r) = files();
    let metrics: Vec<_> = METRICS.iter().map(|m| parse_metric(m).unwrap()).collect();
    let mut g = c.benchmark_group("eval_1000x1000");
    g.sample_size(10);
    // What `serpsim eval` does: read both files, parse the run straight onto the judgements.
    g.bench_function("parse_and_evaluate_10_metrics", |b| {
        b.iter(|| {
            let j = Judgements::parse(&std::fs::read_to_string(&q).unwrap(), "qrels.txt").unwrap();
            let text = std::fs::read_to_string(&r).unwrap();
            let run = MappedRun::parse(&j, &text, "run.txt").unwrap();
            evaluate_mapped(&j, &[run], &metrics, MissingTopics::Skip).unwrap()
        })
    });
    // The same through `Run::parse` (owned strings, as other modules use it).
    g.bench_function("parse_run_struct_and_evaluate_10_metrics", |b| {
        b.iter(|| {
            let j = Judgements::from_qrels(&Qrels::from_file(&q).unwrap());
            let run = Run::from_file(&r).unwrap();
            evaluate(&j, &[run], &metrics, MissingTopics::Skip).unwrap()
        })
    });
    let j = Judgements::from_qrels(&Qrels::from_file(&q).unwrap());
    let run = Run::from_file(&r).unwrap();
    g.bench_function("evaluate_only_10_metrics", |b| {
        b.iter(|| evaluate(&j, std::slice::from_ref(&run), &metrics, MissingTopics::Skip).unwrap())
    });
    g.bench_function("parse_qrels_only", |b| {
        b.iter(|| Judgements::parse(&std::fs::read_to_string(&q).unwrap(), "qrels.txt").unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
