//! `serpsim clicks generate`: a seeded click log with millions of distinct pairs
//! (`serpsim::clickmodels::manypairs`); the shell only wires options to the library.

use super::common::{progress_bar, with_threads};
use serpsim::clickmodels::manypairs::{FittedParams, ManyPairs, TrueModel};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// Output log (Yandex sample layout, one session per line; convert it to Parquet with
    /// `clicks convert`).
    #[arg(long, short = 'o')]
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
    /// DBN model file (`clicks fit --model dbn`) whose fitted pairs give the per-pair
    /// parameters: each (query, candidate) takes the (attractiveness, satisfaction) of the
    /// floor(u n)-th of the file's n pairs (u its hash uniform of --world), and gamma is the
    /// model's, instead of 0.9 u^2, 0.2 + 0.6 u' and 0.9. Only with --model dbn; a file that is
    /// not DBN or lists no pairs is refused.
    #[arg(long, value_name = "MODEL.json")]
    params_from: Option<PathBuf>,
    /// Worker threads (default: all cores). The log does not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

pub fn generate(a: GenerateArgs) -> anyhow::Result<()> {
    let model: TrueModel = a.model.parse()?;
    let params_from = a.params_from.as_deref().map(FittedParams::from_model_file).transpose()?;
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
        params_from,
    };
    g.validate()?;
    if let (Some(f), Some(path)) = (&g.params_from, &a.params_from) {
        eprintln!("pair parameters from {} fitted pairs of {} (gamma {})", f.pairs.len(), path.display(), f.gamma);
    }
    let bar = progress_bar("generating", "sessions");
    bar.progress().phase("generating", "sessions", Some(a.sessions));
    let p = bar.progress();
    let w = with_threads(a.threads, || g.write_file(&a.out, &mut |n| p.set_done(n)))??;
    bar.finish_and_clear();
    eprintln!("wrote {} sessions ({} clicks, {} bytes)", w.sessions, w.clicks, w.bytes);
    outln!("{}", a.out.display())?;
    Ok(())
}
