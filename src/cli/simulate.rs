//! `serpsim simulate`.

use super::common::{print_answer, progress_bar, with_threads, RunOverrides};
use serpsim::scenario::from_files::{parse_topics, FilesScenario};
use std::path::{Path, PathBuf};

/// Which users a scenario made from files simulates (`--users`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserSet {
    /// The default scenario's two users: patient and impatient.
    Default,
    /// Every built-in user: patient, impatient, a DBN user and a PBM user (docs/scenarios.md).
    Robust,
}

/// Arguments of `serpsim simulate`.
#[derive(clap::Args)]
pub struct SimulateArgs {
    /// Scenario file (see docs/scenarios.md); without it (and without --qrels), the embedded
    /// default scenario.
    #[arg(conflicts_with = "qrels")]
    file: Option<PathBuf>,
    /// Your own TREC qrels: with --run, a scenario of these files (docs/scenarios.md, "From
    /// your own files"); --print-scenario writes it out.
    #[arg(long, value_name = "FILE")]
    qrels: Option<PathBuf>,
    /// A TREC run (plain, gzip or zstd), one system each; repeat for several.
    #[arg(long = "run", value_name = "FILE", requires = "qrels")]
    runs: Vec<PathBuf>,
    /// A user: a built-in one (patient, impatient, dbn, pbm) or a click-model JSON file of
    /// `serpsim clicks fit`; repeat for several (default: patient and impatient).
    #[arg(long = "profile", value_name = "NAME|FILE", requires = "qrels")]
    profiles: Vec<String>,
    /// `robust`: every built-in user, and the answer says for how many of them A is better.
    #[arg(long, value_enum, requires = "qrels")]
    users: Option<UserSet>,
    /// Only these topics: ids separated by commas, or @FILE.
    #[arg(long, value_name = "IDS|@FILE", requires = "qrels")]
    topics: Option<String>,
    /// Also simulate the ideal ranking of the judgements (system `ideal`).
    #[arg(long, requires = "qrels")]
    ideal: bool,
    /// Run a comparison in which more than half of the runs' topics have no judgements.
    #[arg(long)]
    allow_partial_judgements: bool,
    /// Print the scenario made from --qrels and --run (keep it, edit it, run it) and exit.
    #[arg(long, requires = "qrels")]
    print_scenario: bool,
    #[command(flatten)]
    run: RunOverrides,
}

pub fn run(args: SimulateArgs) -> anyhow::Result<()> {
    let (text, origin, base) = match (&args.qrels, &args.file) {
        (Some(qrels), _) => {
            let spec = FilesScenario {
                qrels: qrels.clone(),
                runs: args.runs.clone(),
                profiles: args.profiles.clone(),
                robust: args.users == Some(UserSet::Robust),
                topics: args.topics.as_deref().map(parse_topics).transpose()?,
                ideal: args.ideal,
                allow_partial_judgements: args.allow_partial_judgements,
            };
            let text = spec.text()?;
            if args.print_scenario {
                print!("{text}");
                return Ok(());
            }
            (text, "the scenario of --qrels and --run".to_string(), PathBuf::from("."))
        }
        (None, Some(path)) => (serpsim::input::read_to_string(path)?, path.display().to_string(), path.parent().map(Path::to_path_buf).unwrap_or_default()),
        (None, None) => (serpsim::scenario::DEFAULT_SCENARIO.to_string(), "embedded default scenario".to_string(), PathBuf::from(".")),
    };
    let mut overrides = args.run.overrides();
    // In a scenario made from files the switch is already written into it.
    overrides.allow_partial_judgements = args.allow_partial_judgements && args.qrels.is_none();
    let bar = progress_bar("simulating users", "user blocks");
    let run = with_threads(args.run.threads, || {
        serpsim::run::run_text(&text, &origin, &base, &overrides, &|done, total| {
            bar.set_length(total);
            bar.set_position(done);
        })
    })??;
    bar.finish_and_clear();
    if let Some(line) = &run.coverage {
        eprintln!("{line}");
    }
    for w in &run.warnings {
        eprintln!("warning: {w}");
    }
    print_answer(&run.answer, &run.written)
}
