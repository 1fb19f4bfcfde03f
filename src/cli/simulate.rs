//! `serpsim simulate`.

use super::common::{print_answer, progress_bar, with_threads, RunOverrides};
use serpsim::scenario::{run_scenario, Scenario};
use std::path::PathBuf;

/// Arguments of `serpsim simulate`.
#[derive(clap::Args)]
pub struct SimulateArgs {
    /// Scenario file (see docs/scenarios.md); without it, the embedded default scenario.
    file: Option<PathBuf>,
    #[command(flatten)]
    run: RunOverrides,
}

pub fn run(args: SimulateArgs) -> anyhow::Result<()> {
    let (scenario, base) = match &args.file {
        Some(path) => {
            let text = serpsim::input::read_to_string(path)?;
            (Scenario::parse(&text, &path.display().to_string())?, path.parent().map(std::path::Path::to_path_buf).unwrap_or_default())
        }
        None => (Scenario::embedded_default(), PathBuf::from(".")),
    };
    let overrides = args.run.overrides();
    let bar = progress_bar("simulating users");
    let run = with_threads(args.run.threads, || {
        run_scenario(scenario, &base, &overrides, &|done, total| {
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
