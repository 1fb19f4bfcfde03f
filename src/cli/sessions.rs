//! `serpsim sessions run|sweep SCENARIO.toml`: thin front ends over the engine (docs/sessions.md).

use super::common::{progress_bar, with_threads, RunOverrides};
use serpsim::presets::sessions::scenario::{run_sessions, run_sweep};
use serpsim::scenario::Scenario;
use std::path::PathBuf;

/// Arguments of `serpsim sessions`.
#[derive(clap::Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    command: SessionsCommand,
}

#[derive(clap::Subcommand)]
enum SessionsCommand {
    /// Simulate the scenario: the common report plus sessions.csv (Maxwell et al.'s measures) and query_quality.csv.
    Run(Common),
    /// Sweep the scenario's [[sweep]] (stopping strategies x thresholds): sweep.csv, best.csv, tests.csv, depth_vs_rate.svg.
    Sweep(Common),
}

#[derive(clap::Args)]
struct Common {
    /// Scenario (TOML, see docs/scenarios.md and docs/sessions.md).
    file: PathBuf,
    #[command(flatten)]
    run: RunOverrides,
}

pub fn run(args: SessionsArgs) -> anyhow::Result<()> {
    let (sweep, c) = match args.command {
        SessionsCommand::Run(c) => (false, c),
        SessionsCommand::Sweep(c) => (true, c),
    };
    let (scenario, base) = Scenario::from_file(&c.file)?;
    let overrides = c.run.overrides();
    let bar = progress_bar(if sweep { "sweeping" } else { "simulating users" }, "user blocks");
    let progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let written = with_threads(c.run.threads, || {
        if sweep {
            run_sweep(scenario, &base, &overrides, &progress)
        } else {
            run_sessions(scenario, &base, &overrides, &progress)
        }
    })??;
    bar.finish_and_clear();
    if sweep {
        for f in &written.files {
            outln!("{}", f.display())?;
        }
        Ok(())
    } else {
        super::common::print_answer(&written.answer, &written.files)
    }
}
