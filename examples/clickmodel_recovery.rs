//! Ground-truth recovery: simulate 10^6 sessions from known DBN and UBM parameters, fit them
//! back, and print the parameter errors on pairs seen at least 1,000 times.
//!
//! `cargo run --release --example clickmodel_recovery` (table in analysis/clickmodels/).

use serpsim::clickmodels::recovery::{ccm_recovery, dbn_recovery, ubm_recovery};

fn main() {
    let t = std::time::Instant::now();
    let d = dbn_recovery(1_000_000, 50);
    println!("{d}");
    let u = ubm_recovery(1_000_000, 50);
    println!("{u}");
    let (c, tau) = ccm_recovery(300_000, 50);
    println!("{c} taus (0.85, 0.6, 0.3) -> ({:.4}, {:.4}, {:.4})", tau[0], tau[1], tau[2]);
    eprintln!("{:.1} s", t.elapsed().as_secs_f64());
}
