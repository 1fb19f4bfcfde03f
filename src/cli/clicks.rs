//! `serpsim clicks fit|eval|simulate`.

use super::common::{progress_bar, with_threads};
use anyhow::Context;
use serpsim::clickmodels::eval::{evaluate, restrict_to_train_queries, split_75_25};
use serpsim::clickmodels::{io, ClickModel, EmConfig, Gamma, ModelConfig, ModelKind};
use serpsim::logs::{ClickLog, FileSource, Format, LogData, ReadReport, SessionRef, SessionSource, Vocab};
use std::path::{Path, PathBuf};

/// Arguments of `serpsim clicks`.
#[derive(clap::Args)]
pub struct ClicksArgs {
    #[command(subcommand)]
    command: ClicksCommand,
}

#[derive(clap::Subcommand)]
enum ClicksCommand {
    /// Fit a click model on a log and save it as JSON.
    Fit(FitArgs),
    /// Fit on a training log and evaluate on test sessions; prints one JSON object.
    Eval(EvalArgs),
    /// Simulate clicks of a fitted or hand-set model (JSON) on the SERPs of a log; writes TSV.
    Simulate(SimulateArgs),
}

#[derive(clap::Args)]
struct ModelArgs {
    /// Click model: cm, dcm, ccm, dbn, sdbn, ubm, pbm, gctr, rctr, dctr.
    #[arg(long)]
    model: String,
    /// Log format: yandex, yandex-rpc, tsv, jsonl, ncm, bracketed:query=N,documents=N,clicks=N[,session=N][,dwell=N], or auto (docs/clickmodels.md).
    #[arg(long, default_value = "yandex")]
    format: String,
    /// EM iterations (dbn, ccm, ubm, pbm).
    #[arg(long, default_value_t = 50)]
    iterations: usize,
    /// EM early-stop tolerance on the largest parameter change (0: run every iteration).
    #[arg(long, default_value_t = 0.0)]
    tolerance: f64,
    /// DBN continuation: `fitted` or a fixed probability such as 0.9.
    #[arg(long, default_value = "fitted")]
    gamma: String,
    /// Count and report malformed lines instead of stopping at the first.
    #[arg(long)]
    skip_bad_lines: bool,
}

impl ModelArgs {
    fn config(&self) -> anyhow::Result<ModelConfig> {
        let kind: ModelKind = self.model.parse()?;
        let em = EmConfig { iterations: self.iterations, tolerance: self.tolerance };
        let mut cfg = ModelConfig::new(kind, em);
        if let ModelConfig::Dbn(d) = &mut cfg {
            d.gamma = parse_gamma(&self.gamma)?;
        } else if self.gamma != "fitted" {
            anyhow::bail!("--gamma applies to the dbn model only");
        }
        Ok(cfg)
    }
    fn format(&self) -> anyhow::Result<Format> {
        Ok(self.format.parse()?)
    }
}

fn parse_gamma(s: &str) -> anyhow::Result<Gamma> {
    if s == "fitted" {
        return Ok(Gamma::Fitted);
    }
    let g: f64 = s.parse().with_context(|| format!("--gamma `{s}`: expected `fitted` or a probability"))?;
    serpsim::error::check_probability("--gamma", "gamma", g)?;
    Ok(Gamma::Fixed(g))
}

/// Shows one progress step per pass over the log (one pass per EM iteration).
struct Progress<'a> {
    inner: &'a mut dyn SessionSource,
    bar: super::common::Bar,
}

impl<'a> Progress<'a> {
    fn new(inner: &'a mut dyn SessionSource, cfg: &ModelConfig) -> Self {
        let passes = match cfg {
            ModelConfig::Dbn(c) => c.iterations,
            ModelConfig::Ccm(c) => c.iterations,
            ModelConfig::Ubm(c) | ModelConfig::Pbm(c) => c.iterations,
            _ => 1,
        };
        let bar = progress_bar("fitting (passes over the log)");
        bar.set_length(passes as u64);
        Progress { inner, bar }
    }
}

impl SessionSource for Progress<'_> {
    fn pass(&mut self, f: &mut dyn FnMut(SessionRef<'_>)) -> serpsim::Result<()> {
        let r = self.inner.pass(f);
        self.bar.inc(1);
        r
    }
    fn pair_count_hint(&self) -> usize {
        self.inner.pair_count_hint()
    }
}


/// Fits on one thread (EM passes are sequential and deterministic).
fn fit_with_progress(cfg: &ModelConfig, src: &mut dyn SessionSource) -> anyhow::Result<Box<dyn ClickModel>> {
    let mut p = Progress::new(src, cfg);
    Ok(cfg.fit(&mut p)?)
}

fn report_skipped(file: &Path, r: &ReadReport) {
    for w in r.warnings(&file.display().to_string()) {
        eprintln!("warning: {w}");
    }
}

#[derive(clap::Args)]
struct FitArgs {
    #[command(flatten)]
    m: ModelArgs,
    /// Training log.
    #[arg(long)]
    train: PathBuf,
    /// Output model file (JSON).
    #[arg(long)]
    out: PathBuf,
    /// Load the whole log into memory before fitting. By default the log is streamed from disk
    /// on every pass: memory then depends on the number of (query, document) pairs, not on the
    /// number of sessions (docs/scale.md), at the same speed. Standard input and pipes are
    /// kept in memory as interned ids (a warning says so).
    #[arg(long, conflicts_with = "stream")]
    in_memory: bool,
    /// Stream the log from disk on every pass (the default; kept for existing scripts).
    #[arg(long)]
    stream: bool,
}

#[derive(clap::Args)]
struct EvalArgs {
    #[command(flatten)]
    m: ModelArgs,
    /// Training log.
    #[arg(long)]
    train: PathBuf,
    /// Test log; without it, the first 75 % of the training file train and the rest test.
    #[arg(long)]
    test: Option<PathBuf>,
    /// Also save the fitted model (JSON).
    #[arg(long)]
    save: Option<PathBuf>,
}

#[derive(clap::Args)]
struct SimulateArgs {
    /// Model file (JSON, fitted or hand-set).
    #[arg(long)]
    model_file: PathBuf,
    /// Log whose SERPs (query and ranked documents) are simulated; its clicks are ignored.
    #[arg(long)]
    serps: PathBuf,
    /// Format of the SERP log (as for `fit`: yandex, yandex-rpc, tsv, jsonl, ncm, bracketed:..., auto).
    #[arg(long, default_value = "yandex")]
    format: String,
    /// Simulated sessions per SERP.
    #[arg(long, default_value_t = 1)]
    replicates: usize,
    /// Master seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output log (TSV session format).
    #[arg(long)]
    out: PathBuf,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Count and report malformed lines instead of stopping at the first.
    #[arg(long)]
    skip_bad_lines: bool,
}

pub fn run(args: ClicksArgs) -> anyhow::Result<()> {
    match args.command {
        ClicksCommand::Fit(a) => fit(a),
        ClicksCommand::Eval(a) => eval(a),
        ClicksCommand::Simulate(a) => simulate(a),
    }
}

fn fit(a: FitArgs) -> anyhow::Result<()> {
    let cfg = a.m.config()?;
    let format = a.m.format()?;
    let (model, vocab, sessions) = if !a.in_memory {
        let mut src = FileSource::new(&a.train, format, a.m.skip_bad_lines);
        let model = fit_with_progress(&cfg, &mut src)?;
        report_skipped(&a.train, &src.report);
        (model, src.vocab, src.report.sessions)
    } else {
        let data = LogData::read(&a.train, format, a.m.skip_bad_lines)?;
        report_skipped(&a.train, &data.report);
        let model = fit_with_progress(&cfg, &mut &data.log)?;
        let n = data.log.len();
        (model, data.vocab, n)
    };
    io::save(&a.out, model.as_ref(), &vocab)?;
    eprintln!("fitted {} on {sessions} sessions ({} query-document pairs)", model.kind(), vocab.pair_count());
    outln!("{}", a.out.display())?;
    Ok(())
}

fn eval(a: EvalArgs) -> anyhow::Result<()> {
    let cfg = a.m.config()?;
    let format = a.m.format()?;
    let mut data = LogData::read(&a.train, format, a.m.skip_bad_lines)?;
    report_skipped(&a.train, &data.report);
    let (train, test): (ClickLog, ClickLog) = match &a.test {
        None => {
            let s = split_75_25(&data.log);
            (s.train, s.test)
        }
        Some(t) => {
            let (test, report) = data.read_more(t, format, a.m.skip_bad_lines)?;
            report_skipped(t, &report);
            let train = std::mem::take(&mut data.log);
            let test = restrict_to_train_queries(&train, &test);
            (train, test)
        }
    };
    anyhow::ensure!(!train.is_empty(), "{}: no training sessions", a.train.display());
    let model = fit_with_progress(&cfg, &mut &train)?;
    let scores = evaluate(model.as_ref(), &test)?;
    if let Some(path) = &a.save {
        io::save(path, model.as_ref(), &data.vocab)?;
    }
    let out = serde_json::json!({
        "model": model.kind().name(),
        "train_sessions": train.len(),
        "test_sessions": test.len(),
        "log_likelihood": scores.log_likelihood,
        "perplexity": scores.perplexity,
        "perplexity_at_rank": scores.perplexity_at_rank,
        "conditional_perplexity": scores.conditional_perplexity,
        "conditional_perplexity_at_rank": scores.conditional_perplexity_at_rank,
        "ctr_rmse": scores.ctr_rmse,
    });
    outln!("{out}")?;
    Ok(())
}

fn simulate(a: SimulateArgs) -> anyhow::Result<()> {
    anyhow::ensure!(a.replicates >= 1, "--replicates must be at least 1");
    let format: Format = a.format.parse()?;
    let (model, vocab) = io::load(&a.model_file)?;
    let mut data = LogData { vocab, ..Default::default() };
    let (serps, report) = data.read_more(&a.serps, format, a.skip_bad_lines)?;
    report_skipped(&a.serps, &report);
    let model: &dyn ClickModel = model.as_ref();
    let sim = with_threads(a.threads, || serpsim::clickmodels::simulate_log(model, &serps, a.replicates, a.seed))?;
    write_tsv(&a.out, &sim, &data.vocab, a.replicates)?;
    eprintln!("simulated {} sessions with {}", sim.len(), model.kind());
    outln!("{}", a.out.display())?;
    Ok(())
}

/// Writes a log in the TSV session format; session ids are `serp-replicate` (1-based).
fn write_tsv(path: &Path, log: &ClickLog, vocab: &Vocab, replicates: usize) -> anyhow::Result<()> {
    serpsim::report::write_atomic_with(path, |w| {
        writeln!(w, "session_id\tquery\tdocuments\tclicks")?;
        for (i, s) in log.iter().enumerate() {
            let docs: Vec<&str> = s.pairs.iter().map(|&p| vocab.docs[vocab.pairs[p as usize].1 as usize].as_str()).collect();
            let clicks: Vec<&str> = s.clicks.iter().map(|&c| if c { "1" } else { "0" }).collect();
            writeln!(
                w,
                "{}-{}\t{}\t{}\t{}",
                i / replicates + 1,
                i % replicates + 1,
                vocab.queries[s.query as usize],
                docs.join(","),
                clicks.join(",")
            )?;
        }
        Ok(())
    })?;
    Ok(())
}
