//! `serpsim study ...`: user-study logs (gaze, cursor, attention, fitting). See docs/study.md.

use serpsim::study::asc;
use std::path::PathBuf;

/// Arguments of `serpsim study`.
#[derive(clap::Args)]
pub struct StudyArgs {
    #[command(subcommand)]
    command: StudyCommand,
}

#[derive(clap::Subcommand)]
enum StudyCommand {
    /// Print the counts of an EyeLink ASC file as one JSON object: samples, fixations,
    /// saccades, blinks, messages (per eye under `left` and `right` for a binocular file).
    Summary {
        /// EyeLink ASC file.
        file: PathBuf,
    },
}

pub fn run(args: StudyArgs) -> anyhow::Result<()> {
    match args.command {
        StudyCommand::Summary { file } => {
            let s = asc::summarize_file(&file)?;
            println!("{}", serde_json::to_string(&s)?);
        }
    }
    Ok(())
}
