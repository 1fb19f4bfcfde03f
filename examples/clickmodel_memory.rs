//! Peak memory of fitting 10 million synthetic sessions with 1 million distinct
//! query-document pairs (100,000 queries x 10 documents, SERPs of 10 in random order).
//! The whole log is held in memory (the worst case; `FileSource` streams instead).
//!
//! `/usr/bin/time -v cargo run --release --example clickmodel_memory` (see docs/performance.md).

use rand::Rng;
use serpsim::clickmodels::synthetic::SyntheticSerps;
use serpsim::clickmodels::{Dbn, DbnConfig, Gamma, Sdbn};
use std::time::Instant;

fn main() {
    let sessions: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10_000_000);
    let shape = SyntheticSerps { queries: 100_000, rare_queries: 0, rare_share: 0.0, docs_per_query: 10, serp_len: 10, sessions, seed: 5 };
    let n = shape.pairs();
    let mut rng = serpsim::rng::stream(5, &[0]);
    let truth = Dbn {
        attractiveness: (0..n).map(|_| rng.random_range(0.05..0.9)).collect(),
        satisfaction: (0..n).map(|_| rng.random_range(0.1..0.9)).collect(),
        gamma: 0.9,
    };
    let t = Instant::now();
    let log = shape.simulate(&truth);
    eprintln!("simulated {} sessions over {n} pairs in {:.1} s", log.len(), t.elapsed().as_secs_f64());
    let t = Instant::now();
    let sdbn = Sdbn::fit(&mut &log).unwrap();
    eprintln!("SDBN fit: {:.2} s ({} pairs)", t.elapsed().as_secs_f64(), sdbn.attractiveness.len());
    let t = Instant::now();
    let dbn = DbnConfig { gamma: Gamma::Fitted, iterations: 2, tolerance: 0.0 }.fit(&mut &log).unwrap();
    eprintln!("DBN fit, 2 EM iterations: {:.2} s (gamma {:.4})", t.elapsed().as_secs_f64(), dbn.gamma);
}
