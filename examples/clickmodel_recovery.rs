//! Ground-truth recovery: simulate 10^6 sessions from known DBN and UBM parameters, fit them
//! back, and print the parameter errors on pairs seen at least 1,000 times.
//!
//! `cargo run --release --example clickmodel_recovery` (table in analysis/clickmodels/).

use serpsim::clickmodels::recovery::{dbn_recovery, ubm_recovery};

fn main() {
    let t = std::time::Instant::now();
    let d = dbn_recovery(1_000_000, 50);
    println!("{d}");
    let u = ubm_recovery(1_000_000, 50);
    println!("{u}");
    eprintln!("{:.1} s", t.elapsed().as_secs_f64());
}
