//! `serpsim eval`: trec_eval-compatible evaluation, plus serpsim's own measures and intervals.

use super::common::with_threads;
use serpsim::metrics::ci::{differences, mean_intervals, CiSettings, TestKind};
use serpsim::metrics::eval::{evaluate, EvalOptions, RankedRun, RunOptions};
use serpsim::metrics::output::{agreement_csv, ci_csv, ci_json, comparisons_csv, paired_comparisons, ranking_agreement, to_csv, to_json, to_trec};
use serpsim::metrics::trec_eval::Settings;
use serpsim::metrics::{Judgements, MeasurePlan};
use serpsim::stats::bootstrap::CiMethod;
use std::path::{Path, PathBuf};

/// Output format of `serpsim eval`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// `run,metric,topic,value`.
    Csv,
    /// One object per run.
    Json,
    /// trec_eval's output, byte for byte: `measure<TAB>topic<TAB>value`.
    Trec,
}

/// Interval method of `--ci`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum CiMethodArg {
    /// Bias-corrected and accelerated (scipy.stats.bootstrap's default).
    Bca,
    /// Percentile.
    Percentile,
    /// Basic (reverse percentile).
    Basic,
}

/// Paired test of `--ci`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum TestArg {
    /// Fisher's randomisation test (sign flips), exact for small topic sets.
    Randomisation,
    /// Sakai's studentised paired bootstrap test.
    Bootstrap,
}

/// Arguments of `serpsim eval`.
#[derive(clap::Args)]
pub struct EvalArgs {
    /// Qrels file (`topic iteration docno grade`); gzip/zstd detected, `-` for stdin.
    qrels: PathBuf,
    /// Run files (`topic Q0 docno rank score tag [ignored...]`); gzip/zstd detected, `-` for
    /// stdin. The tag of the last line names the run.
    #[arg(required = true)]
    runs: Vec<PathBuf>,
    /// One measure per -m (repeat it): trec_eval names and parameters (`map`, `P.5,10`,
    /// `ndcg_cut.10`, `rbp.p=0.8`), nicknames (`official`, `all_trec`, `set`), ir_measures names
    /// (`nDCG@10`, `AP`, `RBP(p=0.8)`), serpsim's (`err@10`, `inst:t=3`, `novelty_utility`).
    /// Default: trec_eval's `official`. See docs/metrics.md.
    #[arg(short = 'm', long = "measure", alias = "metric", num_args = 1, action = clap::ArgAction::Append)]
    measures: Vec<String>,
    /// Also print one value per topic (trec_eval -q).
    #[arg(short = 'q', long = "per-topic", alias = "query-eval-wanted")]
    per_topic: bool,
    /// Average over every qrels topic, scoring topics missing from a run (trec_eval -c).
    #[arg(short = 'c', long = "complete")]
    complete: bool,
    /// Minimum grade of a relevant document (trec_eval -l).
    #[arg(short = 'l', long = "level-for-rel", default_value_t = 1, allow_negative_numbers = true)]
    level: i32,
    /// Evaluate at most this many documents per topic (trec_eval -M).
    #[arg(short = 'M', long = "max-retrieved")]
    max_retrieved: Option<usize>,
    /// Drop retrieved documents without a judgement before evaluating (trec_eval -J).
    #[arg(short = 'J', long = "judged-only")]
    judged_only: bool,
    /// Number of documents in the collection, for utility's 4th coefficient (trec_eval -N).
    #[arg(short = 'N', long = "num-docs", default_value_t = 0)]
    num_docs: i64,
    /// No summary lines (trec_eval -n).
    #[arg(short = 'n', long = "no-summary")]
    no_summary: bool,
    /// Output format.
    #[arg(long = "out-format", alias = "format", value_enum, default_value = "csv")]
    format: Format,
    /// Print bootstrap confidence intervals of each run's mean per measure, and paired tests
    /// between runs, instead of the values (CSV or JSON).
    #[arg(long)]
    ci: bool,
    /// Interval method of --ci.
    #[arg(long, value_enum, default_value = "bca")]
    ci_method: CiMethodArg,
    /// Confidence level of --ci.
    #[arg(long, default_value_t = 0.95)]
    ci_level: f64,
    /// Paired test of --ci between runs.
    #[arg(long, value_enum, default_value = "randomisation")]
    test: TestArg,
    /// Subtopic qrels (`topic subtopic docno grade`), for the Cube Test.
    #[arg(long)]
    subtopics: Option<PathBuf>,
    /// Subtopic weights (`topic subtopic weight`), for `ct:weights=p`.
    #[arg(long)]
    subtopic_weights: Option<PathBuf>,
    /// Document lengths in words (`topic docno words`), for TBG and the Cube Test's time "g".
    #[arg(long)]
    doc_lengths: Option<PathBuf>,
    /// Document examination times in seconds (`topic docno seconds`), for `ct:time=d`.
    #[arg(long)]
    doc_times: Option<PathBuf>,
    /// Write the agreement of the run rankings between every pair of measures (CSV) here.
    #[arg(long)]
    agreement: Option<PathBuf>,
    /// Write paired comparisons of every pair of runs (t-test, Wilcoxon, 95 % percentile bootstrap CI; CSV) here.
    #[arg(long)]
    compare: Option<PathBuf>,
    /// Seed of the bootstrap and randomisation draws (--ci, --compare).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Resamples of --ci and --compare (at most 1,000,000).
    #[arg(long, default_value_t = 10_000)]
    resamples: usize,
    /// Output file (default: stdout). Written whole or not at all.
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Accepted for compatibility: leaving missing topics out is now the default (see -c).
    #[arg(long, hide = true)]
    skip_missing: bool,
}

/// A run path that does not exist but reads as a measure name: `-m map P_10` put `P_10`
/// among the runs.
fn check_run_paths(runs: &[PathBuf]) -> anyhow::Result<()> {
    for p in runs {
        if serpsim::input::is_stdin(p) || p.exists() {
            continue;
        }
        let text = p.to_string_lossy();
        if MeasurePlan::parse(&[text.as_ref()]).is_ok() {
            anyhow::bail!("{text}: no such file, and it reads as a measure name: -m takes exactly one value (write `-m map -m {text}`)");
        }
    }
    Ok(())
}

/// Reading a large run allocates tens of megabytes in small steps, and glibc grows its heaps
/// 128 KiB at a time, one system call each. Growing them 64 MiB at a time (address space only:
/// pages cost nothing until written) cuts the evaluator's system time by about 40 %
/// (docs/performance.md). Peak memory is unchanged.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a tuning parameter of glibc's allocator (it takes the
    // allocator's own lock); it is called before the evaluator's threads start.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
    }
}

pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    tune_allocator();
    if let Some(o) = &args.out {
        let optional = [&args.subtopics, &args.subtopic_weights, &args.doc_lengths, &args.doc_times, &args.agreement, &args.compare];
        let inputs: Vec<&std::path::Path> = std::iter::once(args.qrels.as_path())
            .chain(args.runs.iter().map(PathBuf::as_path))
            .chain(optional.into_iter().flatten().map(PathBuf::as_path))
            .collect();
        serpsim::output::refuse_input_as_output(o, &inputs)?;
    }
    let plan = MeasurePlan::parse(&args.measures)?;
    anyhow::ensure!(args.resamples >= 1, "--resamples must be at least 1");
    serpsim::limits::check_usize("eval", "--resamples", args.resamples, serpsim::limits::MAX_RESAMPLES, "bootstrap and randomisation resamples")?;
    anyhow::ensure!(args.ci_level > 0.0 && args.ci_level < 1.0, "--ci-level must be in (0, 1)");
    if args.ci && args.format == Format::Trec {
        anyhow::bail!("--ci prints intervals and tests as a table: use --out-format csv (default) or json");
    }
    let stdin_uses = std::iter::once(&args.qrels).chain(&args.runs).filter(|p| serpsim::input::is_stdin(p)).count();
    anyhow::ensure!(stdin_uses <= 1, "`-` (standard input) can be given once only");
    check_run_paths(&args.runs)?;
    let opts = EvalOptions { relevance_level: args.level, complete: args.complete, settings: Settings { num_docs_in_coll: args.num_docs } };
    let run_opts = RunOptions { max_per_topic: args.max_retrieved.unwrap_or(usize::MAX), judged_only: args.judged_only, keep_docs: plan.needs_docs() };
    if args.max_retrieved == Some(0) {
        anyhow::bail!("-M must be at least 1");
    }
    let ci = CiSettings {
        method: match args.ci_method {
            CiMethodArg::Bca => CiMethod::Bca,
            CiMethodArg::Percentile => CiMethod::Percentile,
            CiMethodArg::Basic => CiMethod::Basic,
        },
        level: args.ci_level,
        resamples: args.resamples,
        seed: args.seed,
        test: match args.test {
            TestArg::Randomisation => TestKind::Randomisation,
            TestArg::Bootstrap => TestKind::Bootstrap,
        },
    };
    let (per_topic, format) = (args.per_topic, args.format);
    let (output, agreement, comparison, dropped) = with_threads(args.threads, || -> anyhow::Result<_> {
        let mut judgements = Judgements::read(&args.qrels)?;
        if let Some(p) = &args.subtopics {
            judgements.add_subtopics_file(p)?;
        }
        if let Some(p) = &args.subtopic_weights {
            judgements.add_subtopic_weights_file(p)?;
        }
        if let Some(p) = &args.doc_lengths {
            judgements.add_document_values_file(p, false)?;
        }
        if let Some(p) = &args.doc_times {
            judgements.add_document_values_file(p, true)?;
        }
        let runs = {
            use rayon::prelude::*;
            args.runs.par_iter().map(|p| RankedRun::read(&judgements, p, &run_opts)).collect::<Result<Vec<_>, _>>()?
        };
        let e = evaluate(&judgements, &runs, &plan, &opts)?;
        let output = if args.ci {
            let means = mean_intervals(&e, &ci);
            let diffs = differences(&e, &ci);
            match format {
                Format::Json => ci_json(&means, &diffs, &ci),
                _ => ci_csv(&means, &diffs, &ci),
            }
        } else {
            match format {
                Format::Csv => to_csv(&e, per_topic),
                Format::Json => to_json(&e, per_topic),
                Format::Trec => to_trec(&e, per_topic, !args.no_summary),
            }
        };
        let agreement = if args.agreement.is_some() {
            anyhow::ensure!(e.runs.len() >= 2, "--agreement needs at least two runs");
            Some(agreement_csv(&ranking_agreement(&e)))
        } else {
            None
        };
        let comparison = if args.compare.is_some() {
            anyhow::ensure!(e.runs.len() >= 2, "--compare needs at least two runs");
            Some(comparisons_csv(&paired_comparisons(&e, args.seed, args.resamples)))
        } else {
            None
        };
        let dropped: Vec<(String, usize)> = e.runs.iter().cloned().zip(e.dropped_topics.iter().copied()).filter(|(_, d)| *d > 0).collect();
        Ok((output, agreement, comparison, dropped))
    })??;
    for (run, n) in dropped {
        eprintln!("note: run `{run}`: {n} topic(s) without judgements were ignored");
    }
    // One set, all or nothing: the side files and the main output (when it goes to a file)
    // are written together (output::write_files); standard output comes after the files.
    let mut files: Vec<(&Path, &[u8])> = Vec::new();
    if let (Some(path), Some(csv)) = (&args.agreement, &agreement) {
        files.push((path, csv.as_bytes()));
    }
    if let (Some(path), Some(csv)) = (&args.compare, &comparison) {
        files.push((path, csv.as_bytes()));
    }
    if let Some(path) = &args.out {
        files.push((path, output.as_bytes()));
    }
    if !files.is_empty() {
        serpsim::output::write_files(&files)?;
    }
    if args.out.is_none() {
        out!("{output}")?;
    }
    Ok(())
}
