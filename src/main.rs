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
    /// User-study logs: gaze and cursor ingestion, events, attention, fitting (docs/study.md).
    Study(cli::study::StudyArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Simulate(args) => cli::simulate::run(args),
        Command::Study(args) => cli::study::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
