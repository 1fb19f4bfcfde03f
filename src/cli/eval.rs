//! `serpsim eval`: trec_eval-style evaluation with serpsim's metric names.

use super::common::with_threads;
use serpsim::error::Error;
use serpsim::metrics::output::{
    agreement_csv, comparisons_csv, paired_comparisons, ranking_agreement, to_csv, to_json, to_trec,
};
use serpsim::metrics::eval::{evaluate_mapped, MappedRun};
use serpsim::metrics::{parse_metric, Judgements, MissingTopics};
use serpsim::report::write_atomic;
use std::path::{Path, PathBuf};

/// Output format of `serpsim eval`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Format {
    /// `run,metric,topic,value`.
    Csv,
    /// One object per run.
    Json,
    /// trec_eval's `measure topic value` columns.
    Trec,
}

/// Arguments of `serpsim eval`.
#[derive(clap::Args)]
pub struct EvalArgs {
    /// Qrels file (`topic iteration docno grade`).
    qrels: PathBuf,
    /// Run files (`topic Q0 docno rank score tag`); the tag names the run.
    #[arg(required = true)]
    runs: Vec<PathBuf>,
    /// Metrics, e.g. `map P_10 ndcg@10 rbp:p=0.8 pres@1000 ct:gamma=0.5,time=g` (see docs/metrics.md).
    #[arg(short = 'm', long = "metric", required = true, num_args = 1..)]
    metrics: Vec<String>,
    /// Also print one value per topic.
    #[arg(long, short = 'q')]
    per_topic: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "csv")]
    format: Format,
    /// Leave topics a run does not retrieve for out of its mean (trec_eval's default) instead
    /// of scoring them as empty rankings (trec_eval -c).
    #[arg(long)]
    skip_missing: bool,
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
    /// Write the agreement of the run rankings between every pair of metrics (CSV) here.
    #[arg(long)]
    agreement: Option<PathBuf>,
    /// Write paired comparisons of every pair of runs (t-test, Wilcoxon, 95 % bootstrap CI; CSV) here.
    #[arg(long)]
    compare: Option<PathBuf>,
    /// Seed of the bootstrap in `--compare`.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Bootstrap resamples in `--compare`.
    #[arg(long, default_value_t = 10_000)]
    resamples: usize,
    /// Output file (default: stdout).
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

fn read(path: &Path) -> anyhow::Result<String> {
    Ok(std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?)
}

pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    let metrics = args.metrics.iter().map(|m| parse_metric(m)).collect::<Result<Vec<_>, _>>()?;
    let missing = if args.skip_missing { MissingTopics::Skip } else { MissingTopics::Zero };
    let (text, per_topic, format) = (args.out.clone(), args.per_topic, args.format);
    anyhow::ensure!(args.resamples >= 1, "--resamples must be at least 1");
    let (output, agreement, comparison, dropped) = with_threads(args.threads, || -> anyhow::Result<_> {
        let mut judgements = Judgements::parse(&read(&args.qrels)?, &args.qrels.display().to_string())?;
        if let Some(p) = &args.subtopics {
            judgements.add_subtopics(&read(p)?, &p.display().to_string())?;
        }
        if let Some(p) = &args.subtopic_weights {
            judgements.add_subtopic_weights(&read(p)?, &p.display().to_string())?;
        }
        if let Some(p) = &args.doc_lengths {
            judgements.add_document_values(&read(p)?, &p.display().to_string(), false)?;
        }
        if let Some(p) = &args.doc_times {
            judgements.add_document_values(&read(p)?, &p.display().to_string(), true)?;
        }
        let runs = {
            use rayon::prelude::*;
            args.runs
                .par_iter()
                .map(|p| -> anyhow::Result<MappedRun> {
                    Ok(MappedRun::parse(&judgements, &read(p)?, &p.display().to_string())?)
                })
                .collect::<anyhow::Result<Vec<_>>>()?
        };
        let e = evaluate_mapped(&judgements, &runs, &metrics, missing)?;
        let output = match format {
            Format::Csv => to_csv(&e, per_topic),
            Format::Json => to_json(&e, per_topic),
            Format::Trec => to_trec(&e, per_topic),
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
        let dropped: Vec<(String, usize)> =
            e.runs.iter().cloned().zip(e.dropped_topics.iter().copied()).filter(|(_, d)| *d > 0).collect();
        Ok((output, agreement, comparison, dropped))
    })??;
    for (run, n) in dropped {
        eprintln!("note: run `{run}`: {n} topic(s) without judgements were ignored");
    }
    match &text {
        Some(path) => write_atomic(path, output.as_bytes())?,
        None => out!("{output}")?,
    }
    if let (Some(path), Some(csv)) = (&args.agreement, agreement) {
        write_atomic(path, csv.as_bytes())?;
    }
    if let (Some(path), Some(csv)) = (&args.compare, comparison) {
        write_atomic(path, csv.as_bytes())?;
    }
    Ok(())
}
