//! `serpsim simulate`.

use super::common::{progress_bar, with_threads, RunOverrides};
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
    if let Some(path) = &args.file {
        // A stream scenario (`[collection] source = "streams"`, docs/streams.md) runs on the
        // same engine through its own front end, with the same overrides.
        let text = serpsim::input::read_to_string(path)?;
        if serpsim::streams::scenario::is_stream_scenario(&text) {
            anyhow::ensure!(!args.run.samples, "{}: --samples is not available for stream scenarios (msu.csv and summary.json are written)", path.display());
            let base = path.parent().map(std::path::Path::to_path_buf).unwrap_or_default();
            let bar = progress_bar("simulating stream users");
            let written = with_threads(args.run.threads, || {
                serpsim::streams::scenario::run_scenario(&text, &path.display().to_string(), &base, args.run.out.as_deref(), args.run.replicates, args.run.seed, &|done, total| {
                    bar.set_length(total);
                    bar.set_position(done);
                })
            })??;
            bar.finish_and_clear();
            for f in &written {
                outln!("{}", f.display())?;
            }
            return Ok(());
        }
    }
    let (scenario, base) = match &args.file {
        Some(path) => Scenario::from_file(path)?,
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
    for path in &run.written {
        outln!("{}", path.display())?;
    }
    Ok(())
}
