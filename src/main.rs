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
    /// Sublist switching (result-list refinement): sweep, when, gen-log, fit, glm.
    Sublists(cli::sublists::SublistsArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Simulate(args) => cli::simulate::run(args),
        Command::Sublists(args) => cli::sublists::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
