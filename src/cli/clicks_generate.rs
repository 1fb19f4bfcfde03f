//! `serpsim clicks generate`: a seeded click log with millions of distinct pairs
//! (`serpsim::clickmodels::manypairs`); the shell only wires options to the library.

use super::common::{progress_bar, with_threads};
use serpsim::clickmodels::manypairs::{ManyPairs, TrueModel};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// Output log (Yandex sample layout, one session per line; convert it to Parquet with
    /// `clicks convert`).
    #[arg(long)]
    out: PathBuf,
    /// Sessions (at most 1,000,000,000).
    #[arg(long, default_value_t = 1_000_000)]
    sessions: u64,
    /// Queries, drawn with a Zipf law over their ranks (at most 100,000,000).
    #[arg(long, default_value_t = 300_000)]
    queries: u64,
    /// Exponent of the Zipf law of query frequencies (0: uniform; at most 5).
    #[arg(long, default_value_t = 1.0)]
    zipf: f64,
    /// Document pool the candidates are drawn from.
    #[arg(long, default_value_t = 10_000_000)]
    docs: u64,
    /// Candidate documents per query (at most 100; queries * candidates at most 2*10^9).
    #[arg(long, default_value_t = 15)]
    candidates: usize,
    /// Results per SERP (at most --candidates).
    #[arg(long, default_value_t = 10)]
    serp_len: usize,
    /// Share of sessions whose SERP is a random selection and order of the candidates.
    #[arg(long, default_value_t = 0.3)]
    reorder: f64,
    /// Model the clicks are drawn from: dbn or ubm.
    #[arg(long, default_value = "dbn")]
    model: String,
    /// Seed of the queries' candidate documents and click parameters (the population).
    #[arg(long, default_value_t = 1)]
    world: u64,
    /// Seed of the sessions: logs with the same --world and other seeds are samples of the
    /// same population (training and held-out test logs).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores). The log does not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

pub fn generate(a: GenerateArgs) -> anyhow::Result<()> {
    let model: TrueModel = a.model.parse()?;
    let g = ManyPairs {
        sessions: a.sessions,
        queries: a.queries,
        zipf: a.zipf,
        docs: a.docs,
        candidates: a.candidates,
        serp_len: a.serp_len,
        reorder: a.reorder,
        model,
        world: a.world,
        seed: a.seed,
    };
    g.validate()?;
    let bar = progress_bar("generating", "sessions");
    bar.progress().phase("generating", "sessions", Some(a.sessions));
    let p = bar.progress();
    let w = with_threads(a.threads, || g.write_file(&a.out, &mut |n| p.set_done(n)))??;
    bar.finish_and_clear();
    eprintln!("wrote {} sessions ({} clicks, {} bytes)", w.sessions, w.clicks, w.bytes);
    outln!("{}", a.out.display())?;
    Ok(())
}
