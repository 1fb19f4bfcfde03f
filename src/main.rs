//! The `serpsim` command line: a thin shell over the library.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "serpsim", version, about = "Simulate search-engine users and analyse user studies")]
struct Cli {
    /// No progress output on stderr (errors and warnings are still printed).
    #[arg(long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// User-study logs: gaze and cursor ingestion, events, attention, fitting (docs/study.md).
    Study(cli::study::StudyArgs),
    /// Click models: fit, evaluate, simulate (see docs/clickmodels.md).
    Clicks(cli::clicks::ClicksArgs),
    /// Run a what-if scenario (TOML); without FILE, the embedded default scenario.
    Simulate(cli::simulate::SimulateArgs),
    /// Time-budgeted multi-query search sessions: run a scenario or sweep stopping thresholds.
    Sessions(cli::sessions::SessionsArgs),
    /// Sublist switching (result-list refinement): sweep, when, gen-log, fit, glm.
    Sublists(cli::sublists::SublistsArgs),
    /// Stream users: modeled stream utility (MSU).
    Streams(cli::streams::StreamsArgs),
    /// Evaluate TREC runs against qrels (trec_eval names accepted; see docs/metrics.md).
    Eval(cli::eval::EvalArgs),
    /// BARACO: is it safe to switch from the production ranker to each candidate? (clicks of production only)
    CompareRankers(cli::compare_rankers::CompareRankersArgs),
    /// Rerank query suggestions by term-level attention (GLF, TAM, TAM-R) and evaluate; `generate` writes a synthetic study.
    Suggest(Box<cli::suggest::SuggestArgs>),
    /// WordNet tools: `lch WORD1 WORD2 [--pos n|v]`.
    Wordnet(cli::wordnet::WordnetArgs),
}

fn main() -> ExitCode {
    // Writing to a closed pipe (`serpsim eval ... | head -1`) ends the process quietly, as it
    // does for other Unix tools, instead of failing every later write.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Ctrl-C and SIGTERM: remove this run's staging directories and temporary files, so the
    // output directory keeps its previous complete set, and stop at once.
    let _ = ctrlc::set_handler(|| {
        serpsim::output::abandon_pending();
        let _ = std::io::Write::write_all(&mut std::io::stderr(), b"serpsim: interrupted\n");
        std::process::exit(130);
    });
    let cli = Cli::parse();
    cli::common::set_quiet(cli.quiet);
    let result = match cli.command {
        Command::Study(args) => cli::study::run(args),
        Command::Clicks(args) => cli::clicks::run(args),
        Command::Simulate(args) => cli::simulate::run(args),
        Command::Sessions(args) => cli::sessions::run(args),
        Command::Sublists(args) => cli::sublists::run(args),
        Command::Streams(args) => cli::streams::run(args),
        Command::Eval(args) => cli::eval::run(args),
        Command::CompareRankers(args) => cli::compare_rankers::run(args),
        Command::Suggest(args) => cli::suggest::run(*args),
        Command::Wordnet(args) => cli::wordnet::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
