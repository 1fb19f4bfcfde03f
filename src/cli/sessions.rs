//! `serpsim sessions run|sweep SCENARIO.toml`.

use super::common::{progress_bar, with_threads, RunOverrides};
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
    #[command(flatten)]
    run: RunOverrides,
}

pub fn run(args: SessionsArgs) -> anyhow::Result<()> {
    let (sweep, c) = match args.command {
        SessionsCommand::Run(c) => (false, c),
        SessionsCommand::Sweep(c) => (true, c),
    };
    let (mut scenario, base) = SessionScenario::from_file(&c.file)?;
    if let Some(r) = c.run.replicates {
        anyhow::ensure!(r >= 1, "--replicates must be at least 1");
        scenario.replicates = r;
    }
    if let Some(s) = c.run.seed {
        scenario.seed = s;
    }
    let bar = progress_bar(if sweep { "sweeping topics" } else { "simulating topics" });
    let progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let written = with_threads(c.run.threads, || {
        if sweep {
            run_sweep(&scenario, &base, c.run.out.as_deref(), &progress)
        } else {
            run_sessions(&scenario, &base, c.run.out.as_deref(), &progress)
        }
    })??;
    bar.finish_and_clear();
    for f in &written.files {
        println!("{}", f.display());
    }
    Ok(())
}
