//! Helpers shared by the subcommands.

use indicatif::{ProgressBar, ProgressStyle};

/// Runs `f` on a rayon pool with `threads` workers (all cores when `None`).
pub fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> anyhow::Result<T> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        anyhow::ensure!(t >= 1, "--threads must be at least 1");
        builder = builder.num_threads(t);
    }
    Ok(builder.build()?.install(f))
}

pub fn progress_bar(label: &str) -> ProgressBar {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(label.to_string());
    bar
}


/// Overrides shared by the scenario-driven subcommands (`simulate`, `sessions`, `sublists`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct RunOverrides {
    /// Simulated users per profile (each meets every topic and system), overriding the scenario.
    #[arg(long, alias = "users")]
    pub replicates: Option<u64>,
    /// Master seed, overriding the scenario.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output directory, overriding the scenario.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Also write every session's outcome (samples.csv, streamed to disk).
    #[arg(long)]
    pub samples: bool,
}

impl RunOverrides {
    /// The scenario overrides (replicates, seed, output directory).
    pub fn overrides(&self) -> serpsim::scenario::Overrides {
        serpsim::scenario::Overrides { replicates: self.replicates, seed: self.seed, out: self.out.clone(), samples: self.samples.then_some(true) }
    }
}
