//! `serpsim streams msu|run`: modeled stream utility of one or more systems, thin front ends
//! over the engine's stream path (`simulate::stream`).

use super::common::{progress_bar, with_threads};
use serpsim::presets::streams::model::{msu, MeanSd, Population};
use serpsim::run::streams::{msu_csv, run_scenario};
use serpsim::scenario::{Overrides, Scenario};
use serpsim::simulate::stream_io::StreamData;
use serpsim::write::write_atomic;
use std::path::{Path, PathBuf};

/// Arguments of `serpsim streams`.
#[derive(clap::Args)]
pub struct StreamsArgs {
    #[command(subcommand)]
    command: StreamsCommand,
}

#[derive(clap::Subcommand)]
enum StreamsCommand {
    /// MSU of each updates file (one system each), as CSV.
    Msu(MsuArgs),
    /// Run a stream scenario (docs/scenarios.md): msu.csv and the common report (verdict.csv,
    /// comparison.csv, pooled.csv, summary.json, ...).
    Run(RunArgs),
}

#[derive(clap::Args)]
struct RunArgs {
    /// Scenario (TOML with `[collection] source = "streams"`).
    file: PathBuf,
    /// Output directory (overrides `[output] dir`).
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    /// Simulated users per profile (overrides `users`).
    #[arg(long)]
    users: Option<u64>,
    /// Master seed (overrides `seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// How much the report writes: `summary` (what a reader uses) or `full`; overrides
    /// `[output] detail`.
    #[arg(long, value_name = "summary|full", value_parser = super::common::parse_detail)]
    detail: Option<serpsim::scenario::Detail>,
}

#[derive(clap::Args)]
struct MsuArgs {
    /// Topics file: `topic start end`.
    #[arg(long)]
    topics: PathBuf,
    /// Nuggets file: `topic nugget time`.
    #[arg(long)]
    nuggets: PathBuf,
    /// Matches file: `topic update nugget`.
    #[arg(long)]
    matches: PathBuf,
    /// Updates file of a system: `topic update time confidence words` (repeatable; the system
    /// is named by the file stem).
    #[arg(long, required = true)]
    updates: Vec<PathBuf>,
    /// Simulated users.
    #[arg(long, default_value_t = 1000)]
    users: usize,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Population mean of the mean time away (seconds, or with s/m/h/d).
    #[arg(long, default_value = "3h")]
    away_mean: String,
    /// Population sd of the mean time away.
    #[arg(long, default_value = "1.5h")]
    away_sd: String,
    /// Population mean of the mean session duration.
    #[arg(long, default_value = "2m")]
    duration_mean: String,
    /// Population sd of the mean session duration.
    #[arg(long, default_value = "1m")]
    duration_sd: String,
    /// Log-normal mu of the reading speed (words per second).
    #[arg(long, default_value_t = 1.29)]
    speed_mu: f64,
    /// Log-normal sigma of the reading speed.
    #[arg(long, default_value_t = 0.558)]
    speed_sigma: f64,
    /// Lateness discount L in [0, 1].
    #[arg(long, default_value_t = 0.5)]
    lateness: f64,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Write the CSV here instead of stdout.
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
}

/// Seconds from `90`, `90s`, `2m`, `1.5h`, `1d`.
fn seconds(flag: &str, s: &str) -> anyhow::Result<f64> {
    let (num, unit) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&s[..i], c),
        _ => (s, 's'),
    };
    let mult = match unit {
        's' => 1.0,
        'm' => 60.0,
        'h' => 3600.0,
        'd' => 86400.0,
        _ => anyhow::bail!("{flag}: unknown unit in `{s}` (use s, m, h or d)"),
    };
    let x: f64 = num.parse().map_err(|_| anyhow::anyhow!("{flag}: `{s}` is not a duration"))?;
    anyhow::ensure!(x.is_finite() && x >= 0.0, "{flag}: `{s}` must be >= 0");
    Ok(x * mult)
}

pub fn run(args: StreamsArgs) -> anyhow::Result<()> {
    let a = match args.command {
        StreamsCommand::Msu(a) => a,
        StreamsCommand::Run(r) => {
            anyhow::ensure!(r.users != Some(0), "--users must be at least 1");
            let (mut s, base) = Scenario::from_file(&r.file)?;
            Overrides { replicates: r.users, seed: r.seed, out: r.out, samples: None, detail: r.detail, ..Default::default() }.apply(&mut s)?;
            let bar = progress_bar("simulating stream users", "user blocks");
            let run = with_threads(r.threads, || {
                run_scenario(&s, &base, &|done, total| {
                    bar.set_length(total);
                    bar.set_position(done);
                })
            })??;
            bar.finish_and_clear();
            return super::common::print_answer(&run.answer, &run.written);
        }
    };
    if let Some(o) = &a.out {
        let inputs: Vec<&Path> = [&a.topics, &a.nuggets, &a.matches].into_iter().chain(&a.updates).map(PathBuf::as_path).collect();
        serpsim::output::refuse_input_as_output(o, &inputs)?;
    }
    let population = Population {
        away: MeanSd { mean: seconds("--away-mean", &a.away_mean)?, sd: seconds("--away-sd", &a.away_sd)? },
        duration: MeanSd { mean: seconds("--duration-mean", &a.duration_mean)?, sd: seconds("--duration-sd", &a.duration_sd)? },
        speed: [a.speed_mu, a.speed_sigma],
        lateness: a.lateness,
    };
    population.validate("command line")?;
    let data = StreamData::from_files(&a.topics, &a.nuggets, &a.matches)?;
    let systems = data.systems_from_files(a.updates.iter().map(PathBuf::as_path))?;
    let results = with_threads(a.threads, || msu(&data.topics, &systems, &population, a.users, a.seed))??;
    let csv = msu_csv(&results, false);
    match &a.out {
        Some(p) => {
            write_atomic(p, csv.as_bytes())?;
            outln!("{}", p.display())?;
        }
        None => out!("{csv}")?,
    }
    Ok(())
}
