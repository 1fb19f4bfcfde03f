//! Helpers shared by the subcommands.

use serpsim::progress::{Display, Progress, Reporter};
use std::sync::atomic::{AtomicBool, Ordering};

/// Most worker threads a run may ask for. More threads than cores only add overhead, and a
/// typo such as `--threads 100000` must not start that many.
pub const MAX_THREADS: usize = 256;

static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences progress output (`--quiet`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether `--quiet` was given.
pub fn is_quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Prints a run's short answer (unless `--quiet`) and one line saying where its files are.
pub fn print_answer(answer: &str, written: &[std::path::PathBuf]) -> anyhow::Result<()> {
    if !is_quiet() {
        write_stdout(format_args!("{answer}"))?;
    }
    if let Some(dir) = written.first().and_then(|p| p.parent()) {
        write_stdout(format_args!("wrote {} files to {}\n", written.len(), dir.display()))?;
    }
    Ok(())
}

/// How progress is shown in this process: off with `--quiet`, else a bar on a terminal and
/// periodic lines otherwise.
pub fn display() -> Display {
    if QUIET.load(Ordering::Relaxed) {
        Display::Off
    } else {
        Display::auto()
    }
}

/// Runs `f` on a rayon pool with `threads` workers (all cores when `None`).
pub fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> anyhow::Result<T> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        anyhow::ensure!(t >= 1, "--threads must be at least 1");
        anyhow::ensure!(
            t <= MAX_THREADS,
            "--threads {t} is more than the limit of {MAX_THREADS}; this machine has {} cores",
            std::thread::available_parallelism().map_or(1, |n| n.get())
        );
        builder = builder.num_threads(t);
    }
    Ok(builder.build()?.install(f))
}

/// A progress display for one piece of work: a bar on a terminal, a line every few seconds
/// otherwise, nothing with `--quiet`. It has the methods of an `indicatif::ProgressBar` that
/// the subcommands use.
pub struct Bar {
    progress: Progress,
    _reporter: Option<Reporter>,
}

impl Bar {
    /// The shared handle, for library calls that take a [`Progress`].
    #[allow(dead_code)]
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    pub fn set_length(&self, n: u64) {
        self.progress.set_total(n);
    }

    pub fn set_position(&self, n: u64) {
        self.progress.set_done(n);
    }

    pub fn inc(&self, n: u64) {
        self.progress.inc(n);
    }

    #[allow(dead_code)]
    pub fn set_message(&self, message: impl Into<String>) {
        self.progress.set_message(message);
    }

    /// Stops the display (the bar is cleared from the terminal).
    pub fn finish_and_clear(self) {}
}

/// Starts showing progress of work called `label`, counted in `unit` (plural: `sessions`,
/// `user blocks`): `simulating users: 12/40 user blocks`.
pub fn progress_bar(label: &str, unit: &str) -> Bar {
    let progress = Progress::new(label);
    progress.phase(label, unit, None);
    let reporter = Some(Reporter::start(&progress, display()));
    Bar { progress, _reporter: reporter }
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
    #[arg(long, short = 'o')]
    pub out: Option<std::path::PathBuf>,
    /// Also write every session's outcome (samples.csv, streamed to disk).
    #[arg(long = "write-samples", alias = "samples")]
    pub samples: bool,
    /// How much the report writes: `summary` (what a reader uses) or `full` (also per-topic
    /// rows of every measure and histograms); overrides `[output] detail`.
    #[arg(long, value_name = "summary|full", value_parser = parse_detail)]
    pub detail: Option<serpsim::scenario::Detail>,
}

/// `--detail` values.
pub fn parse_detail(s: &str) -> Result<serpsim::scenario::Detail, String> {
    s.parse().map_err(|e: serpsim::Error| e.to_string())
}

impl RunOverrides {
    /// The scenario overrides (replicates, seed, output directory).
    pub fn overrides(&self) -> serpsim::scenario::Overrides {
        serpsim::scenario::Overrides {
            replicates: self.replicates,
            seed: self.seed,
            out: self.out.clone(),
            samples: self.samples.then_some(true),
            detail: self.detail,
            ..Default::default()
        }
    }
}

/// Writes formatted text to standard output and flushes it; a failed write (disk full,
/// closed descriptor) is an error naming standard output, never a panic.
pub fn write_stdout(args: std::fmt::Arguments) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_fmt(args).and_then(|()| out.flush()).map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}"))
}
