//! `serpsim sessions run|sweep SCENARIO.toml`.

use super::common::{progress_bar, with_threads};
use serpsim::sessions::scenario::{run_sessions, run_sweep, SessionScenario};
use std::path::PathBuf;

/// Arguments of `serpsim sessions`.
#[derive(clap::Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    command: SessionsCommand,
}

#[derive(clap::Subcommand)]
enum SessionsCommand {
    /// Simulate the scenario's searcher on every query set.
    Run(Common),
    /// Sweep stopping thresholds for every query set and stopping strategy.
    Sweep(Common),
}

#[derive(clap::Args)]
struct Common {
    /// Session scenario (TOML, see docs/sessions.md).
    file: PathBuf,
    /// Sessions per topic and configuration, overriding the scenario.
    #[arg(long)]
    replicates: Option<usize>,
    /// Master seed, overriding the scenario.
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Output folder, overriding the scenario.
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(args: SessionsArgs) -> anyhow::Result<()> {
    let (sweep, c) = match args.command {
        SessionsCommand::Run(c) => (false, c),
        SessionsCommand::Sweep(c) => (true, c),
    };
    let (mut scenario, base) = SessionScenario::from_file(&c.file)?;
    if let Some(r) = c.replicates {
        anyhow::ensure!(r >= 1, "--replicates must be at least 1");
        scenario.replicates = r;
    }
    if let Some(s) = c.seed {
        scenario.seed = s;
    }
    let bar = progress_bar(if sweep { "sweeping topics" } else { "simulating topics" });
    let progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let written = with_threads(c.threads, || {
        if sweep {
            run_sweep(&scenario, &base, c.out.as_deref(), &progress)
        } else {
            run_sessions(&scenario, &base, c.out.as_deref(), &progress)
        }
    })??;
    bar.finish_and_clear();
    for f in &written.files {
        println!("{}", f.display());
    }
    Ok(())
}
