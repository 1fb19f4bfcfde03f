//! Word-level LCH for 1 million word pairs with a warm cache (target: < 2 s on one core), and
//! the batch path of `serpsim wordnet lch --pairs`: 1 million TSV pairs read, checked, scored
//! and written as TSV, starting from an empty cache (target, issue 15: >= 500,000 pairs/s on
//! one core after loading WordNet). Needs WordNet 3.0 (`apt-get install wordnet-base` or
//! WNHOME); fails without it.

use criterion::{criterion_group, criterion_main, Criterion};
use rand::Rng;
use serpsim::input::Input;
use serpsim::wordnet::{batch, Measure, Pos, Similarity, WordNet};
use std::hint::black_box;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let wn = WordNet::open_default().unwrap_or_else(|e| panic!("the WordNet benchmark needs WordNet 3.0: {e}"));
    // 20,000 noun and 5,000 verb lemmas (every k-th of the index), 1,000,000 random pairs.
    let mut pools = Vec::new();
    for (pos, n) in [(Pos::Noun, 20_000usize), (Pos::Verb, 5_000)] {
        let db = wn.db(pos);
        let mut words: Vec<String> = (0..db.len() as u32).flat_map(|s| db.lemmas(s).to_vec()).collect();
        words.sort();
        words.dedup();
        let step = (words.len() / n).max(1);
        pools.push((pos, words.into_iter().step_by(step).take(n).collect::<Vec<_>>()));
    }
    let mut rng = serpsim::rng::stream(7, &[1]);
    let pairs: Vec<(Pos, &str, &str)> = (0..1_000_000)
        .map(|i| {
            let (pos, words) = &pools[usize::from(i % 5 == 4)]; // 80 % nouns, 20 % verbs
            (*pos, words[rng.random_range(0..words.len())].as_str(), words[rng.random_range(0..words.len())].as_str())
        })
        .collect();
    let mut sim = Similarity::new(&wn);
    let run = |sim: &mut Similarity| {
        let mut acc = 0.0;
        for &(pos, a, b) in &pairs {
            acc += sim.lch(a, b, pos).unwrap_or(0.0);
        }
        acc
    };
    let cold = std::time::Instant::now();
    black_box(run(&mut sim)); // warms the cache
    eprintln!("cold pass (fills the cache for 25,000 words): {:.2?}", cold.elapsed());
    // The machine may be shared: also report on-CPU time of one warm pass (Linux schedstat).
    let cpu_ns = || -> Option<u64> { std::fs::read_to_string("/proc/self/schedstat").ok()?.split(' ').next()?.parse().ok() };
    let (w0, c0) = (std::time::Instant::now(), cpu_ns());
    black_box(run(&mut sim));
    if let (Some(c0), Some(c1)) = (c0, cpu_ns()) {
        eprintln!("one warm pass: wall {:.2?}, on-CPU {:.3} s", w0.elapsed(), (c1 - c0) as f64 * 1e-9);
    }
    let mut g = c.benchmark_group("wordnet");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.bench_function("lch_1m_word_pairs_warm_cache", |b| b.iter(|| black_box(run(&mut sim))));

    // The batch path: the same pairs as TSV (the pos column on verb rows), parsed, scored
    // from an empty cache and written to a sink, as `wordnet lch --pairs FILE` does.
    let mut tsv = String::new();
    for &(pos, a, b) in &pairs {
        tsv.push_str(a);
        tsv.push('\t');
        tsv.push_str(b);
        tsv.push_str(if pos == Pos::Verb { "\tv\n" } else { "\n" });
    }
    let batch_run = |measure: Measure| {
        let p = batch::read_pairs(Input::from_bytes("bench.tsv", tsv.as_bytes().to_vec()).unwrap(), Pos::Noun).unwrap();
        let mut sim = Similarity::new(&wn);
        let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::sink());
        batch::write_scores(&mut sim, measure, &p, &mut out, None).unwrap()
    };
    let (w0, c0) = (std::time::Instant::now(), cpu_ns());
    black_box(batch_run(Measure::Lch));
    if let (Some(c0), Some(c1)) = (c0, cpu_ns()) {
        let cpu = (c1 - c0) as f64 * 1e-9;
        eprintln!("batch lch, 1M pairs, cold cache: wall {:.2?}, on-CPU {cpu:.3} s = {:.0} pairs/s on one core", w0.elapsed(), 1e6 / cpu);
    }
    g.throughput(criterion::Throughput::Elements(pairs.len() as u64));
    g.bench_function("batch_lch_1m_pairs_tsv_cold_cache", |b| b.iter(|| black_box(batch_run(Measure::Lch))));
    g.bench_function("batch_path_1m_pairs_tsv_cold_cache", |b| b.iter(|| black_box(batch_run(Measure::Path))));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
