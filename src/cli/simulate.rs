//! `serpsim simulate`.

use super::common::{print_answer, progress_bar, with_threads, RunOverrides};
use std::path::{Path, PathBuf};

/// Arguments of `serpsim simulate`.
#[derive(clap::Args)]
pub struct SimulateArgs {
    /// Scenario file (see docs/scenarios.md); without it, the embedded default scenario.
    file: Option<PathBuf>,
    #[command(flatten)]
    run: RunOverrides,
}

pub fn run(args: SimulateArgs) -> anyhow::Result<()> {
    let (text, origin, base) = match &args.file {
        Some(path) => (serpsim::input::read_to_string(path)?, path.display().to_string(), path.parent().map(Path::to_path_buf).unwrap_or_default()),
        None => (serpsim::scenario::DEFAULT_SCENARIO.to_string(), "embedded default scenario".to_string(), PathBuf::from(".")),
    };
    let overrides = args.run.overrides();
    let bar = progress_bar("simulating users", "user blocks");
    let run = with_threads(args.run.threads, || {
        serpsim::run::run_text(&text, &origin, &base, &overrides, &|done, total| {
            bar.set_length(total);
            bar.set_position(done);
        })
    })??;
    bar.finish_and_clear();
    for w in &run.warnings {
        eprintln!("warning: {w}");
    }
    print_answer(&run.answer, &run.written)
}
