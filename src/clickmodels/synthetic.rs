//! Synthetic click logs from known parameters: for ground-truth recovery and benchmarks.
//!
//! Query `q` has documents with pair indices `q * docs_per_query .. (q + 1) * docs_per_query`;
//! every session shows a random selection of `serp_len` of them in random order, so every
//! pair is seen at many ranks. A share of sessions goes to a long tail of rare queries.

use super::ClickModel;
use crate::logs::ClickLog;
use rand::seq::SliceRandom;
use rand::Rng;
use rayon::prelude::*;

/// Shape of a synthetic log.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticSerps {
    /// Frequent queries.
    pub queries: usize,
    /// Rare (long-tail) queries after the frequent ones.
    pub rare_queries: usize,
    /// Share of sessions that go to rare queries.
    pub rare_share: f64,
    /// Documents per query.
    pub docs_per_query: usize,
    /// Results per SERP (at most `docs_per_query`).
    pub serp_len: usize,
    /// Sessions.
    pub sessions: usize,
    /// Seed.
    pub seed: u64,
}

impl SyntheticSerps {
    /// Number of pairs (frequent and rare queries).
    pub fn pairs(&self) -> usize {
        (self.queries + self.rare_queries) * self.docs_per_query
    }

    /// The SERP of session `i` (query index, pair indices), from its own stream.
    pub fn serp(&self, i: usize, pairs: &mut Vec<u32>, rng: &mut crate::rng::Stream) -> u32 {
        let rare = self.rare_queries > 0 && rng.random::<f64>() < self.rare_share;
        let q = if rare { self.queries + rng.random_range(0..self.rare_queries) } else { rng.random_range(0..self.queries) };
        let _ = i;
        pairs.clear();
        let base = (q * self.docs_per_query) as u32;
        pairs.extend((0..self.docs_per_query as u32).map(|d| base + d));
        pairs.shuffle(rng);
        pairs.truncate(self.serp_len.min(self.docs_per_query));
        q as u32
    }

    /// Simulates the log: session `i` uses the stream `(seed, i)` for its SERP and clicks.
    /// Deterministic whatever the thread count. Chunks are simulated in parallel a batch at a
    /// time, so memory stays close to the size of the final log.
    pub fn simulate(&self, model: &dyn ClickModel) -> ClickLog {
        const CHUNK: usize = 1 << 14;
        let n_chunks = self.sessions.div_ceil(CHUNK);
        let batch = rayon::current_num_threads().max(1) * 4;
        let mut log = ClickLog::new();
        let total = self.sessions * self.serp_len.min(self.docs_per_query);
        log.pairs.reserve_exact(total);
        log.clicks.reserve_exact(total);
        log.queries.reserve_exact(self.sessions);
        log.offsets.reserve_exact(self.sessions + 1);
        for first in (0..n_chunks).step_by(batch) {
            let chunks: Vec<ClickLog> = (first..(first + batch).min(n_chunks))
                .into_par_iter()
                .map(|c| {
                    let mut part = ClickLog::new();
                    let (mut pairs, mut clicks) = (Vec::new(), Vec::new());
                    for i in c * CHUNK..((c + 1) * CHUNK).min(self.sessions) {
                        let mut rng = crate::rng::stream(self.seed, &[i as u64]);
                        let q = self.serp(i, &mut pairs, &mut rng);
                        model.simulate(&pairs, &mut rng, &mut clicks);
                        part.push(q, &pairs, &clicks);
                    }
                    part
                })
                .collect();
            for c in chunks {
                for s in c.iter() {
                    log.push(s.query, s.pairs, s.clicks);
                }
            }
        }
        log
    }
}

/// Impressions (sessions showing the pair) per pair.
pub fn impressions(log: &ClickLog, pairs: usize) -> Vec<u64> {
    let mut n = vec![0u64; pairs];
    for &p in &log.pairs {
        if let Some(x) = n.get_mut(p as usize) {
            *x += 1;
        }
    }
    n
}
