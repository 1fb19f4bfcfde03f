//! Coverage of the verdict's 95 % interval over topics and users, and of the users-only interval,
//! on the calibration population of `serpsim::run::calibration` (the table in docs/guide.md).
//!
//! `cargo run --release --example coverage [experiments]` (default 2000 per row).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let experiments: u64 = std::env::args().nth(1).map(|a| a.parse()).transpose()?.unwrap_or(2000);
    println!("population difference {:.6}", serpsim::run::calibration::population_difference());
    println!("| topics | users per topic | experiments | covered: topics and users | covered: users only |");
    println!("|---:|---:|---:|---:|---:|");
    for topics in [10, 25, 50] {
        let (cov, users_only) = serpsim::run::calibration::coverage(topics, 20, experiments, 26)?;
        println!("| {topics} | 20 | {experiments} | {:.1} % | {:.1} % |", 100.0 * cov, 100.0 * users_only);
    }
    Ok(())
}
