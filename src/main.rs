//! The `serpsim` command line: a thin shell over the library.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "serpsim", version, about = "Simulate search-engine users and analyse user studies")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a what-if scenario (TOML); without FILE, the embedded default scenario.
    Simulate(cli::simulate::SimulateArgs),
    /// Click models: fit, evaluate, simulate (see docs/clickmodels.md).
    Clicks(cli::clicks::ClicksArgs),
    /// BARACO: is it safe to switch from the production ranker to each candidate? (clicks of production only)
    CompareRankers(cli::compare_rankers::CompareRankersArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Simulate(args) => cli::simulate::run(args),
        Command::Clicks(args) => cli::clicks::run(args),
        Command::CompareRankers(args) => cli::compare_rankers::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
