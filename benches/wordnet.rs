//! Word-level LCH for 1 million word pairs with a warm cache (target: < 2 s on one core).
//! Needs WordNet 3.0 (`apt-get install wordnet-base` or WNHOME); skips with a notice otherwise.

use criterion::{criterion_group, criterion_main, Criterion};
use rand::Rng;
use serpsim::wordnet::{Pos, Similarity, WordNet};
use std::hint::black_box;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let wn = match WordNet::open_default() {
        Ok(wn) => wn,
        Err(e) => {
            eprintln!("NOTICE: skipping the WordNet benchmark: {e}");
            return;
        }
    };
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
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
