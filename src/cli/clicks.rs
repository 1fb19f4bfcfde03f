//! `serpsim clicks fit|eval|simulate|validate`.

use super::common::{progress_bar, with_threads};
use anyhow::Context;
use serpsim::clickmodels::eval::{evaluate, restrict_to_train_queries, split_75_25};
use serpsim::clickmodels::gibbs::GibbsConfig;
use serpsim::clickmodels::posterior::{posterior, Posterior, PosteriorConfig};
use serpsim::clickmodels::prior::PriorScope;
use serpsim::clickmodels::validate::{plot_svg, validate as validate_model, Dwell, ValidateConfig};
use serpsim::clickmodels::{io, ClickModel, EmConfig, Gamma, ModelConfig, ModelKind};
use serpsim::logs::{ClickLog, FileSource, Format, LogData, ReadReport, SessionReader, SessionRef, SessionSource, Vocab};
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
    /// Fit on a training log, simulate the test SERPs and compare with the real test sessions
    /// (distances with bootstrap intervals, system-level Kendall tau); prints one JSON object.
    Validate(ValidateArgs),
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
    /// Prior of the probabilities: `uniform` (Beta(1, 1), PyClick's convention), `global` or
    /// `query` (empirical-Bayes Beta priors fitted by marginal likelihood). Default: `global`
    /// with --posterior, `uniform` otherwise. With a fitted prior the model holds posterior
    /// means and pairs never seen get the prior mean.
    #[arg(long)]
    prior: Option<String>,
    /// UBM/PBM: hold the examination of rank 1 at this value (`free`: not held; UBM and PBM are
    /// then identified only up to scale). Default: `free` for EM fits, 1 for posteriors.
    #[arg(long)]
    top_examination: Option<String>,
    #[command(flatten)]
    sampler: SamplerArgs,
}

/// Settings of posteriors and the sampler.
#[derive(clap::Args)]
struct SamplerArgs {
    /// Credible level of the posterior intervals.
    #[arg(long, default_value_t = 0.9)]
    level: f64,
    /// Sampler chains (dbn, ccm, ubm, pbm; sdbn and dcm with --exact).
    #[arg(long, default_value_t = 4)]
    chains: usize,
    /// Sampler sweeps discarded per chain.
    #[arg(long, default_value_t = 500)]
    warmup: usize,
    /// Sampler draws kept per chain.
    #[arg(long, default_value_t = 1000)]
    samples: usize,
    /// Sampler sweeps per kept draw.
    #[arg(long, default_value_t = 1)]
    thin: usize,
    /// Seed of the sampler (and of conjugate draws).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// SDBN and DCM: sample the exact posterior, in which a user may go on after the last
    /// click, instead of the conjugate posterior of the counting fit (which assumes the user
    /// stopped there).
    #[arg(long)]
    exact: bool,
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

    /// The prior scope, defaulting to `global` when a posterior is asked for.
    fn prior(&self, posterior: bool) -> anyhow::Result<PriorScope> {
        match &self.prior {
            Some(p) => Ok(p.parse()?),
            None if posterior => Ok(PriorScope::Global),
            None => Ok(PriorScope::Uniform),
        }
    }

    /// The held rank-1 examination: None for `free`.
    fn top(&self, default: Option<f64>) -> anyhow::Result<Option<f64>> {
        let kind: ModelKind = self.model.parse()?;
        match self.top_examination.as_deref() {
            None => Ok(if matches!(kind, ModelKind::Ubm | ModelKind::Pbm) { default } else { None }),
            Some(_) if !matches!(kind, ModelKind::Ubm | ModelKind::Pbm) => anyhow::bail!("--top-examination applies to ubm and pbm only"),
            Some("free") => Ok(None),
            Some(v) => {
                let x: f64 = v.parse().with_context(|| format!("--top-examination `{v}`: expected `free` or a probability"))?;
                serpsim::error::check_probability("--top-examination", "top_examination", x)?;
                Ok(Some(x))
            }
        }
    }

    fn posterior_config(&self, scope: PriorScope, keep_draws: usize) -> anyhow::Result<PosteriorConfig> {
        let s = &self.sampler;
        let gamma = parse_gamma(&self.gamma)?;
        if s.exact && !matches!(self.model.as_str(), "sdbn" | "dcm") {
            anyhow::bail!("--exact applies to sdbn and dcm (the other models are exact already)");
        }
        Ok(PosteriorConfig {
            prior: scope,
            level: s.level,
            sampler: GibbsConfig { chains: s.chains, warmup: s.warmup, draws: s.samples, thin: s.thin, seed: s.seed, ..Default::default() },
            keep_draws,
            gamma,
            top_examination: self.top(Some(1.0))?,
            exact: s.exact,
        })
    }

    /// Fits the model: the usual fit with the uniform prior (EM or counting), posterior means
    /// under a fitted prior. Returns the model and, when computed, the posterior.
    fn fit(&self, log: &ClickLog, pairs: usize, want_posterior: bool, keep_draws: usize) -> anyhow::Result<(Box<dyn ClickModel>, Option<Posterior>)> {
        let scope = self.prior(want_posterior)?;
        let cfg = self.config()?;
        let top = self.top(None)?;
        let em = |log: &ClickLog| -> anyhow::Result<Box<dyn ClickModel>> {
            let mut src: &ClickLog = log;
            Ok(match (&cfg, top) {
                (ModelConfig::Ubm(c), Some(t)) => Box::new(serpsim::clickmodels::Ubm::fit_pinned(c, &mut Progress::new(&mut src, &cfg), Some(t))?),
                (ModelConfig::Pbm(c), Some(t)) => Box::new(serpsim::clickmodels::Pbm::fit_pinned(c, &mut Progress::new(&mut src, &cfg), Some(t))?),
                _ => fit_with_progress(&cfg, &mut src)?,
            })
        };
        if !want_posterior && scope == PriorScope::Uniform {
            return Ok((em(log)?, None));
        }
        let pc = self.posterior_config(scope, keep_draws)?;
        let post = run_posterior(self.model.parse()?, log, pairs, &pc)?;
        for line in post.summary_lines() {
            eprintln!("{line}");
        }
        if let Some(d) = post.diagnostics() {
            if d.flagged > 0 {
                eprintln!(
                    "WARNING: {} of {} parameters have not converged (R-hat > 1.01 or too few effective draws): run longer chains (--warmup, --samples) before trusting their intervals",
                    d.flagged, d.checked
                );
            }
        }
        let model = if scope == PriorScope::Uniform { em(log)? } else { post.point_model() };
        Ok((model, Some(post)))
    }
}

/// Runs the posterior with a progress bar over the sampler's sweeps.
fn run_posterior(kind: ModelKind, log: &ClickLog, pairs: usize, cfg: &PosteriorConfig) -> anyhow::Result<Posterior> {
    let g = &cfg.sampler;
    let sampled = kind.is_em() || cfg.exact;
    let bar = progress_bar("sampling (sweeps)");
    if sampled {
        let mcem = if cfg.prior == PriorScope::Uniform { 0 } else { g.prior_rounds * g.prior_sweeps };
        bar.set_length((mcem + g.chains * (g.warmup + g.draws * g.thin)) as u64);
    }
    let tick = |n: u64| bar.inc(n);
    let post = posterior(kind, log, pairs, cfg, &tick);
    bar.finish_and_clear();
    Ok(post?)
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
    /// Stream the log from disk on every pass instead of loading it (for logs larger than memory;
    /// not with --posterior or a fitted prior).
    #[arg(long)]
    stream: bool,
    /// Also write the posterior of every parameter (mean, sd, credible interval, R-hat and ESS
    /// for sampled models) as JSON records, one object per parameter entry.
    #[arg(long)]
    posterior: Option<PathBuf>,
    /// Posterior draws kept per parameter in the records (`draws` key).
    #[arg(long, default_value_t = 0)]
    draws: usize,
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
        ClicksCommand::Validate(a) => validate(a),
    }
}

#[derive(clap::Args)]
struct ValidateArgs {
    #[command(flatten)]
    m: ModelArgs,
    /// Training log (with --model); the fitted model is simulated on the test SERPs.
    #[arg(long)]
    train: Option<PathBuf>,
    /// Test log: its SERPs are simulated and its sessions are the real side.
    #[arg(long)]
    test: PathBuf,
    /// A fitted or hand-set model file instead of --train (its ids name the test pairs).
    #[arg(long, conflicts_with = "train")]
    model_file: Option<PathBuf>,
    /// Simulated sessions per test session (`auto`: enough for 100,000 simulated sessions).
    #[arg(long, default_value = "auto")]
    replicates: String,
    /// Bootstrap resamples for the intervals.
    #[arg(long, default_value_t = 200)]
    bootstrap: usize,
    /// Level of the bootstrap intervals.
    #[arg(long, default_value_t = 0.95)]
    ci_level: f64,
    /// Seed of the simulation and the bootstrap.
    #[arg(long, default_value_t = 1)]
    validate_seed: u64,
    /// Rankers of the system-level check.
    #[arg(long, default_value_t = 20)]
    rankers: usize,
    /// Distance table (CSV): model,measure,real,simulated,difference(+interval),tv(+interval),ks(+interval).
    #[arg(long)]
    csv: Option<PathBuf>,
    /// SVG plot of real against simulated sessions per measure.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

/// Reads a log into `data`'s vocabulary, keeping each session's dwell times when logged.
fn read_with_dwell(data: &mut LogData, path: &Path, format: Format, skip: bool) -> anyhow::Result<(ClickLog, Vec<Option<Vec<f64>>>)> {
    let mut reader = SessionReader::open(path, format, skip)?;
    let mut log = ClickLog::new();
    let mut dwell = Vec::new();
    for s in reader.by_ref() {
        let s = s?;
        let q = data.vocab.intern_query(&s.query);
        let pairs: Vec<u32> = s
            .docs
            .iter()
            .map(|d| {
                let d = data.vocab.intern_doc(d);
                data.vocab.intern_pair(q, d)
            })
            .collect();
        log.push(q, &pairs, &s.clicks);
        dwell.push(s.dwell);
    }
    report_skipped(path, &reader.report);
    anyhow::ensure!(!log.is_empty(), "{}: no sessions", path.display());
    Ok((log, dwell))
}

fn validate(a: ValidateArgs) -> anyhow::Result<()> {
    let format = a.m.format()?;
    let mut data = LogData::default();
    let (train_dwell, loaded) = match (&a.train, &a.model_file) {
        (Some(train), None) => {
            let (log, dwell) = read_with_dwell(&mut data, train, format, a.m.skip_bad_lines)?;
            data.log = log;
            (dwell, None)
        }
        (None, Some(file)) => {
            let (m, vocab) = io::load(file)?;
            data.vocab = vocab;
            (Vec::new(), Some(m))
        }
        _ => anyhow::bail!("give --train (with --model) or --model-file"),
    };
    let (test, test_dwell) = read_with_dwell(&mut data, &a.test, format, a.m.skip_bad_lines)?;
    let model: Box<dyn ClickModel> = match loaded {
        Some(m) => m,
        None => match a.m.prior(false)? {
            PriorScope::Uniform => a.m.fit(&data.log, data.vocab.pair_count(), false, 0)?.0,
            scope => {
                // Test pairs never seen in training get their query's prior mean.
                let pc = a.m.posterior_config(scope, 0)?;
                let post = run_posterior(a.m.model.parse()?, &data.log, data.vocab.pair_count(), &pc)?;
                for line in post.summary_lines() {
                    eprintln!("{line}");
                }
                let pq: Vec<u32> = data.vocab.pairs.iter().map(|&(q, _)| q).collect();
                post.point_model_for(&pq)
            }
        },
    };
    let model_name = model.kind().name().to_string();
    let replicates = match a.replicates.as_str() {
        "auto" => ValidateConfig::auto_replicates(test.len()),
        r => r.parse().with_context(|| format!("--replicates `{r}`: expected `auto` or a whole number"))?,
    };
    let cfg = ValidateConfig { replicates, bootstrap: a.bootstrap, level: a.ci_level, seed: a.validate_seed, rankers: a.rankers };
    // Dwell only when every test session and some training session logged it.
    let dwell = if !test_dwell.is_empty() && test_dwell.iter().all(Option::is_some) && train_dwell.iter().any(Option::is_some) {
        let depth = test.max_len().max(data.log.max_len());
        let mut by_rank = vec![Vec::new(); depth];
        for (s, d) in data.log.iter().zip(&train_dwell) {
            if let Some(d) = d {
                for (r, (&c, &t)) in s.clicks.iter().zip(d).enumerate() {
                    if c {
                        by_rank[r].push(t);
                    }
                }
            }
        }
        Some(Dwell { test: test_dwell.into_iter().map(|d| d.expect("checked")).collect(), train_by_rank: by_rank })
    } else {
        if test_dwell.iter().any(Option::is_some) {
            eprintln!("dwell: not compared (it needs dwell times in every test session and in the training log)");
        }
        None
    };
    let model_ref: &dyn ClickModel = model.as_ref();
    let v = with_threads(a.threads, || validate_model(model_ref, &test, dwell.as_ref(), &cfg))??;
    let rows = || v.measures.iter().chain(&v.ctr);
    if let Some(path) = &a.csv {
        serpsim::report::write_atomic_with(path, |w| {
            writeln!(w, "model,measure,real,simulated,difference,difference_lower,difference_upper,tv,tv_lower,tv_upper,ks,ks_lower,ks_upper")?;
            let f = |x: f64| if x.is_finite() { x.to_string() } else { String::new() };
            for m in rows() {
                writeln!(
                    w,
                    "{model_name},{},{},{},{},{},{},{},{},{},{},{},{}",
                    m.measure,
                    f(m.real),
                    f(m.simulated),
                    f(m.difference),
                    f(m.difference_lower),
                    f(m.difference_upper),
                    f(m.tv),
                    f(m.tv_lower),
                    f(m.tv_upper),
                    f(m.ks),
                    f(m.ks_lower),
                    f(m.ks_upper)
                )?;
            }
            Ok(())
        })?;
    }
    if let Some(path) = &a.plot {
        let svg = plot_svg(&v, &format!("{model_name}: real test sessions against {} simulated", v.simulated_sessions))?;
        serpsim::report::write_atomic(path, svg.as_bytes())?;
    }
    let mut out = serde_json::to_value(&v)?;
    out["model"] = model_name.into();
    out["train_sessions"] = data.log.len().into();
    println!("{out}");
    Ok(())
}

fn fit(a: FitArgs) -> anyhow::Result<()> {
    let cfg = a.m.config()?;
    let format = a.m.format()?;
    let fitted_prior = a.m.prior(a.posterior.is_some())? != PriorScope::Uniform;
    if a.stream {
        anyhow::ensure!(a.posterior.is_none() && !fitted_prior, "--stream fits by EM or counting only: drop --posterior and --prior");
        anyhow::ensure!(a.m.top_examination.is_none(), "--top-examination is not available with --stream");
        let mut src = FileSource::new(&a.train, format, a.m.skip_bad_lines);
        let model = fit_with_progress(&cfg, &mut src)?;
        report_skipped(&a.train, &src.report);
        io::save(&a.out, model.as_ref(), &src.vocab)?;
        eprintln!("fitted {} on {} sessions ({} query-document pairs)", model.kind(), src.report.sessions, src.vocab.pair_count());
        println!("{}", a.out.display());
        return Ok(());
    }
    let data = LogData::read(&a.train, format, a.m.skip_bad_lines)?;
    report_skipped(&a.train, &data.report);
    anyhow::ensure!(!data.log.is_empty(), "{}: no sessions", a.train.display());
    let (model, post) = a.m.fit(&data.log, data.vocab.pair_count(), a.posterior.is_some(), a.draws)?;
    // Write the posterior first: if it fails, no model file claims a posterior fit.
    if let (Some(path), Some(post)) = (&a.posterior, &post) {
        let records = post.records(&data.vocab);
        serpsim::report::write_atomic_with(path, |w| {
            serde_json::to_writer(&mut *w, &records).map_err(std::io::Error::other)?;
            writeln!(w)
        })?;
        eprintln!("posterior: {} ({} records)", path.display(), records.len());
    }
    io::save(&a.out, model.as_ref(), &data.vocab)?;
    eprintln!("fitted {} on {} sessions ({} query-document pairs)", model.kind(), data.log.len(), data.vocab.pair_count());
    println!("{}", a.out.display());
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
    let _ = cfg;
    let (model, _) = a.m.fit(&train, data.vocab.pair_count(), false, 0)?;
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
    println!("{out}");
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
    println!("{}", a.out.display());
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
