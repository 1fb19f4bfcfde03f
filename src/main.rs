//! The `serpsim` command line: a thin shell over the library.

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serpsim::scenario::{run_scenario, Overrides, Scenario};
use std::path::PathBuf;
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
    Simulate(SimulateArgs),
}

#[derive(clap::Args)]
struct SimulateArgs {
    /// Scenario file (see docs/scenarios.md).
    file: Option<PathBuf>,
    /// Replicates per (topic, system, profile), overriding the scenario.
    #[arg(long)]
    replicates: Option<usize>,
    /// Master seed, overriding the scenario.
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Output directory, overriding the scenario.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Runs `f` on a rayon pool with `threads` workers (all cores when `None`).
fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> anyhow::Result<T> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        anyhow::ensure!(t >= 1, "--threads must be at least 1");
        builder = builder.num_threads(t);
    }
    Ok(builder.build()?.install(f))
}

fn progress_bar(label: &str) -> ProgressBar {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(label.to_string());
    bar
}

fn simulate(args: SimulateArgs) -> anyhow::Result<()> {
    let (scenario, base) = match &args.file {
        Some(path) => Scenario::from_file(path)?,
        None => (Scenario::embedded_default(), PathBuf::from(".")),
    };
    let overrides = Overrides { replicates: args.replicates, seed: args.seed, out: args.out.clone() };
    let bar = progress_bar("simulating cells");
    let run = with_threads(args.threads, || {
        run_scenario(scenario, &base, &overrides, &|done, total| {
            bar.set_length(total);
            bar.set_position(done);
        })
    })??;
    bar.finish_and_clear();
    for path in &run.written {
        println!("{}", path.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Simulate(args) => simulate(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
