//! `serpsim clicks fit|eval|simulate|validate`.

use super::common::{progress_bar, with_threads, Bar};
use anyhow::Context;
use serpsim::clickmodels::driver::PassInfo;
use serpsim::clickmodels::eval::{evaluate, restrict_to_train_queries, split_75_25};
use serpsim::clickmodels::fitting::{
    parse_gamma, summary_line, FitObserver, FitParams, FitPhase, FitPlan, Purpose, SamplerParams, Storage, TopExamination, SETTINGS,
};
use serpsim::clickmodels::posterior::posterior;
use serpsim::clickmodels::validate::{plot_svg, validate as validate_model, Dwell, ValidateConfig};
use serpsim::clickmodels::{io, ClickModel, EmConfig, ModelKind};
use serpsim::logs::{ClickLog, FileSource, Format, LogData, ReadReport, Vocab};
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
    /// Ranker-switch safety on real outcomes: BARACO, the EM plug-in and MT decide between two
    /// logged orderings of a query from the production ordering's sessions only; each
    /// decision is checked against the candidate ordering's real sessions (docs/validation.md).
    ValidateSwitches(ValidateSwitchesArgs),
    /// Convert a click log between the text formats, Parquet and Arrow IPC (streaming; the
    /// output file appears only when the whole log was converted).
    Convert(ConvertArgs),
    /// Generate a seeded click log with millions of distinct (query, document) pairs (Zipf
    /// query frequencies, clicks from a known DBN or UBM), for benchmarks.
    Generate(super::clicks_generate::GenerateArgs),
}

#[derive(clap::Args)]
struct ConvertArgs {
    /// Input log (`-` for standard input; gzip and zstd are detected).
    #[arg(long = "log", alias = "in", value_name = "LOG")]
    input: PathBuf,
    /// Input format (as for `fit`; `auto` also recognises Parquet and Arrow by their magic bytes).
    #[arg(long = "in-format", alias = "format", default_value = "auto")]
    format: String,
    /// Output file.
    #[arg(long, short = 'o')]
    out: PathBuf,
    /// Output format: parquet, arrow, tsv, jsonl, simeval (SimEval-IR sessions) or yandex. Default: from the output file's
    /// extension (.parquet, .arrow/.feather, .tsv, .jsonl).
    #[arg(long = "out-format", alias = "to", value_name = "FORMAT")]
    to: Option<String>,
    /// Count and report malformed lines (rows) instead of stopping at the first.
    #[arg(long)]
    skip_bad_lines: bool,
    /// Worker threads parsing a text log (uncompressed, --format given: byte ranges parsed in
    /// parallel; default: all cores). The output does not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(clap::Args)]
struct ModelArgs {
    /// Click model: cm, dcm, ccm, dbn, sdbn, ubm, pbm, gctr, rctr, dctr.
    #[arg(long)]
    model: String,
    /// Log format: yandex, yandex-rpc, tsv, jsonl, simeval, ncm, bracketed:query=N,documents=N,clicks=N[,session=N][,dwell=N], or auto (docs/clickmodels.md).
    #[arg(long, default_value = "yandex")]
    format: String,
    /// Most EM passes over the log (dbn, ccm, ubm, pbm).
    #[arg(long, default_value_t = 50)]
    iterations: usize,
    /// EM stops after the first pass at which the training log-likelihood changed by at most
    /// this much relative to the pass before; 0 runs every --iterations pass (plain EM, as
    /// PyClick). See docs/clickmodels.md for how the default was chosen.
    #[arg(long, alias = "tol", default_value_t = serpsim::clickmodels::driver::DEFAULT_TOLERANCE)]
    tolerance: f64,
    /// EM acceleration with a tolerance > 0: `squarem` (Varadhan and Roland 2008, with a
    /// safeguard that falls back to the plain EM step), `none`, or `auto` (squarem for dbn,
    /// ubm and pbm; none for ccm, see docs/clickmodels.md).
    #[arg(long, default_value = "auto")]
    accel: String,
    /// DBN continuation: `fitted` or a fixed probability such as 0.9.
    #[arg(long, default_value = "fitted")]
    gamma: String,
    /// Count and report malformed lines instead of stopping at the first.
    #[arg(long)]
    skip_bad_lines: bool,
    /// Prior of the probabilities: `uniform` (Beta(1, 1), PyClick's convention), `eb` (dbn,
    /// ubm, ccm, pbm: one Beta per per-pair table fitted by empirical Bayes within the EM fit,
    /// on each model's informative trials; streams and shards like `uniform`; pairs never seen
    /// get its mean; not with --posterior; docs/clickmodels.md), `global` or `query`
    /// (empirical-Bayes Beta priors fitted by marginal likelihood, posterior means by the
    /// sampler, log in memory), or `hierarchical` (dbn, ubm, pbm, ccm: the per-pair tables'
    /// Beta(alpha, beta) sampled with the parameters under a hyper-prior). Default: `global`
    /// with --posterior, else `eb` for dbn, ubm, ccm and pbm (the best held-out fit) and
    /// `uniform` for the counting models; `uniform` gives PyClick's fit. With `global`, `query` or `hierarchical` the
    /// model holds posterior means and pairs never seen get the prior mean.
    #[arg(long)]
    prior: Option<String>,
    /// UBM/PBM: hold the examination of rank 1 at this value (`free`: not held; UBM and PBM are
    /// then identified only up to scale). Default: `free` for EM fits, 1 for posteriors.
    #[arg(long)]
    top_examination: Option<String>,
    /// Parse once: the most memory for the interned sessions a streamed log keeps after its
    /// first pass, for the later passes (bytes, or with K, M, G, T: 512M, 1G; at most 1T).
    /// Beyond it they go to a temporary file (in TMPDIR), removed at the end; 0 keeps them
    /// all there. Default: 1G for `fit`, 32M for `eval` and `validate` (which also hold the
    /// test sessions and evaluate; docs/performance.md, "EM at scale").
    #[arg(long)]
    memory_budget: Option<String>,
    /// `fit`, `eval` and `validate` of EM models (dbn, ubm, ccm, pbm): shards of a sharded fit. The log
    /// is split by query into this many temporary files and each EM pass takes them one at a
    /// time per thread, so memory is bounded by --memory-budget whatever the number of pairs;
    /// identical sessions are kept once with their count. Default: sharded when the logs are
    /// more than a quarter of --memory-budget (or read from standard input), unless `fit
    /// --stream`, with shards sized from the budget; `--shards 0` never shards. The results do
    /// not depend on it.
    #[arg(long)]
    shards: Option<usize>,
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
    /// Sampler draws kept per chain (at most 10,000,000, and chains * samples at most 10,000,000).
    #[arg(long, default_value_t = 1000)]
    samples: usize,
    /// Sampler sweeps per kept draw.
    #[arg(long, default_value_t = 1)]
    thin: usize,
    /// Seed of the sampler (and of conjugate draws, and of `fit --grade-bootstrap`'s resamples).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// SDBN and DCM: sample the exact posterior, in which a user may go on after the last
    /// click, instead of the conjugate posterior of the counting fit (which assumes the user
    /// stopped there).
    #[arg(long)]
    exact: bool,
}

impl ModelArgs {
    /// The flags as the library's fit settings, field for field: every default, limit and
    /// choice that follows from them is the library's ([`FitParams::check`]).
    fn params(&self, posterior: bool, purpose: Purpose) -> anyhow::Result<FitParams> {
        let s = &self.sampler;
        let mut p = FitParams::new(self.model.parse()?);
        p.iterations = self.iterations;
        p.tolerance = self.tolerance;
        p.accel = self.accel.parse()?;
        p.gamma = parse_gamma(&self.gamma).map_err(|e| anyhow::anyhow!("--{e}"))?;
        p.prior = self.prior.as_deref().map(str::parse).transpose()?;
        p.top_examination = match self.top_examination.as_deref() {
            None => TopExamination::Default,
            Some("free") => TopExamination::Free,
            Some(v) => TopExamination::Held(v.parse().with_context(|| format!("--top-examination `{v}`: expected `free` or a probability"))?),
        };
        p.posterior = posterior;
        p.sampler = SamplerParams { level: s.level, chains: s.chains, warmup: s.warmup, samples: s.samples, thin: s.thin, seed: s.seed, exact: s.exact };
        p.memory_budget = self.memory_budget.as_deref().map(serpsim::logs::stored::parse_budget).transpose()?;
        p.purpose = purpose;
        p.shards = self.shards;
        Ok(p)
    }

    /// The checked plan of a fit without a posterior (`eval`, `validate`).
    fn eval_plan(&self) -> anyhow::Result<FitPlan> {
        check(&self.params(false, Purpose::Evaluate)?)
    }

    fn format(&self) -> anyhow::Result<Format> {
        Ok(self.format.parse()?)
    }

    fn read_options(&self) -> anyhow::Result<serpsim::logs::read::ReadOptions> {
        Ok(serpsim::logs::read::ReadOptions::new(self.format()?).skip_bad_lines(self.skip_bad_lines))
    }
}

/// Checks fit settings ([`FitParams::check`]), naming a refused setting by its flag:
/// ``fit: key `top_examination`: applies to ubm and pbm only`` is said as
/// `--top-examination applies to ubm and pbm only`.
fn check(params: &FitParams) -> anyhow::Result<FitPlan> {
    params.check().map_err(|e| match e {
        serpsim::Error::Config { context, key, reason } if context == SETTINGS => {
            let flag = match key.as_str() {
                "keep_draws" => "draws".to_string(),
                k => k.replace('_', "-"),
            };
            anyhow::anyhow!("--{flag} {reason}")
        }
        e => e.into(),
    })
}

/// Shows a fit's progress as bars on standard error and its notes as lines there.
#[derive(Default)]
struct Shown {
    /// The bars of the phases begun and not ended, innermost last (`None`: a phase without one).
    bars: std::sync::Mutex<Vec<(u8, Option<Bar>)>>,
}

const PASSES: u8 = 0;
const SWEEPS: u8 = 1;

impl Shown {
    /// Shows the EM passes of `plan`'s fit (a fit run outside [`FitPlan`], as the sharded
    /// `eval` and `validate` are).
    fn passes(plan: &FitPlan) -> Self {
        let shown = Shown::default();
        shown.phase(FitPhase::Passes(plan.config().kind(), plan.passes()));
        shown
    }

    fn with_bar(&self, which: u8, f: impl FnOnce(&Bar)) {
        let bars = self.bars.lock().expect("no panics while locked");
        if let Some((_, Some(bar))) = bars.iter().rev().find(|(w, _)| *w == which) {
            f(bar);
        }
    }
}

impl FitObserver for Shown {
    fn phase(&self, phase: FitPhase<'_>) {
        let entry = match phase {
            FitPhase::Passes(_, total) => {
                let bar = progress_bar("fitting", "EM passes over the log");
                bar.set_length(total);
                (PASSES, Some(bar))
            }
            FitPhase::Sweeps(_, total) => {
                let bar = progress_bar("sampling the posterior", "sweeps");
                if let Some(total) = total {
                    bar.set_length(total);
                }
                (SWEEPS, Some(bar))
            }
            _ => (u8::MAX, None),
        };
        self.bars.lock().expect("no panics while locked").push(entry);
    }
    fn end_phase(&self) {
        if let Some((_, Some(bar))) = self.bars.lock().expect("no panics while locked").pop() {
            bar.finish_and_clear();
        }
    }
    fn pass(&self, p: &PassInfo) {
        self.with_bar(PASSES, |bar| {
            bar.set_position(p.pass as u64);
            if p.log_likelihood.is_finite() {
                bar.set_message(format!("train log-likelihood {:.6e}, relative change {:.3e}", p.log_likelihood, p.relative_change));
            }
        });
    }
    fn sweeps(&self, n: u64) {
        self.with_bar(SWEEPS, |bar| bar.inc(n));
    }
    fn note(&self, line: &str) {
        eprintln!("{line}");
    }
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
    #[arg(long = "log", alias = "train", value_name = "LOG")]
    train: PathBuf,
    /// Output model file (JSON).
    #[arg(long, short = 'o')]
    out: PathBuf,
    /// Load the whole log into memory before fitting. By default the log is streamed: its text
    /// is parsed once (in parallel byte ranges), and a multi-pass fit keeps the interned
    /// sessions in a compact form, in memory up to --memory-budget and in a temporary file
    /// beyond it, so memory depends on the number of (query, document) pairs and the budget,
    /// not on the log (docs/scale.md), and a later pass costs about what an in-memory pass
    /// costs (docs/performance.md). Standard input and pipes are kept the same way (a warning
    /// says so). --posterior and a fitted --prior need the log in memory and imply this option.
    #[arg(long, conflicts_with = "stream")]
    in_memory: bool,
    /// Stream the log (the default: parsed once, its sessions kept within --memory-budget;
    /// kept for existing scripts; not with --posterior or a fitted --prior).
    #[arg(long)]
    stream: bool,
    /// Also write the posterior of every parameter (mean, sd, credible interval, R-hat and ESS
    /// for sampled models) as JSON records, one object per parameter entry.
    #[arg(long)]
    posterior: Option<PathBuf>,
    /// Posterior draws kept per parameter in the records (`draws` key).
    #[arg(long, default_value_t = 0)]
    draws: usize,
    /// Worker threads of the E-steps (default: all cores). The model file does not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Relevance labels of the log's own (query, document) pairs (ids as in the log), in the
    /// layout of --label-format: also fit the per-document parameters tied by relevance grade
    /// and store them in the model file (`grades`, with `labels` saying what was assumed), so
    /// that a scenario can use the model on a collection it does not cover (docs/scenarios.md,
    /// "Click-model users"; docs/clickmodels.md, "Labels"). Implies --in-memory.
    #[arg(long, conflicts_with = "qrels")]
    labels: Option<PathBuf>,
    /// Layout of --labels: trec (qrels), yandex (relevance-prediction challenge
    /// `QueryID<TAB>RegionID<TAB>URLID<TAB>Label`, query ids `QueryID_RegionID`), tiangong
    /// (TianGong-ST `human_label.txt`), or tsv, csv, whitespace with --label-columns.
    #[arg(long, default_value = "trec", requires = "labels")]
    label_format: String,
    /// Columns of a tsv, csv or whitespace label file, 1-based: `query=1,doc=3,label=6`, and
    /// optionally `region=2` (appended to the query id as `query_region`).
    #[arg(long, requires = "labels")]
    label_columns: Option<String>,
    /// The first line of a tsv, csv or whitespace label file is a header.
    #[arg(long, requires = "labels")]
    label_header: bool,
    /// The label value that marks unjudged documents (e.g. -2): such lines are skipped and
    /// counted, and their documents stay unjudged (fitted apart), not grade 0.
    #[arg(long, allow_negative_numbers = true)]
    unjudged: Option<i32>,
    /// With --unjudged: take unjudged documents as this grade instead of skipping them.
    #[arg(long, allow_negative_numbers = true, requires = "unjudged")]
    unjudged_grade: Option<i32>,
    /// Rewrite the labels' grades (after the majority vote) onto another scale, e.g.
    /// `0:0,1:1,2:1,3:2,4:2` for 0-4 labels and a 0-2 collection; every grade of the file must
    /// be mapped.
    #[arg(long, allow_hyphen_values = true)]
    grade_map: Option<String>,
    /// TREC qrels of the log's own collection: the same as `--labels FILE --label-format trec`.
    #[arg(long)]
    qrels: Option<PathBuf>,
    /// With --labels or --qrels: bootstrap resamples of the log's queries for the 95 %
    /// intervals of the per-grade values and of the tied fit's query-independent parameters
    /// (every session of a drawn query comes along; seeded by --seed; the same whatever
    /// --threads); 0: no intervals. Default 200, at most 1,000,000.
    #[arg(long)]
    grade_bootstrap: Option<usize>,
}

#[derive(clap::Args)]
struct EvalArgs {
    #[command(flatten)]
    m: ModelArgs,
    /// Training log.
    #[arg(long = "log", alias = "train", value_name = "LOG")]
    train: PathBuf,
    /// Test log; without it, the first 75 % of the training file train and the rest test.
    #[arg(long)]
    test: Option<PathBuf>,
    /// Also save the fitted model (JSON).
    #[arg(long)]
    save: Option<PathBuf>,
    /// Worker threads of the E-steps (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(clap::Args)]
struct SimulateArgs {
    /// Model file (JSON, fitted or hand-set).
    #[arg(long)]
    model_file: PathBuf,
    /// Log whose SERPs (query and ranked documents) are simulated; its clicks are ignored.
    #[arg(long = "log", alias = "serps", value_name = "LOG")]
    serps: PathBuf,
    /// Format of the SERP log (as for `fit`: yandex, yandex-rpc, tsv, jsonl, simeval, ncm, bracketed:..., auto).
    #[arg(long, default_value = "yandex")]
    format: String,
    /// Simulated sessions per SERP (at most 1,000,000, and at most 100,000,000 sessions in all).
    #[arg(long, default_value_t = 1)]
    replicates: usize,
    /// Master seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output log (TSV session format).
    #[arg(long, short = 'o')]
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
        ClicksCommand::ValidateSwitches(a) => validate_switches(a),
        ClicksCommand::Convert(a) => convert(a),
        ClicksCommand::Generate(a) => super::clicks_generate::generate(a),
    }
}

#[derive(clap::Args)]
struct ValidateArgs {
    #[command(flatten)]
    m: ModelArgs,
    /// Training log (with --model); the fitted model is simulated on the test SERPs.
    #[arg(long = "log", alias = "train", value_name = "LOG")]
    train: Option<PathBuf>,
    /// Test log: its SERPs are simulated and its sessions are the real side. Without it, the
    /// `clicks eval` protocol: the first 75 % of the --log file train, the rest (sessions of
    /// training queries) test.
    #[arg(long)]
    test: Option<PathBuf>,
    /// A fitted or hand-set model file instead of --log (its ids name the test pairs).
    #[arg(long, conflicts_with = "train")]
    model_file: Option<PathBuf>,
    /// Simulated sessions per test session (`auto`: enough for 100,000 simulated sessions).
    #[arg(long, default_value = "auto")]
    replicates: String,
    /// Bootstrap resamples for the intervals (at most 1,000,000).
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
    /// System-level check: result lists shown in fewer test sessions are left out.
    #[arg(long, default_value_t = 10)]
    min_list_sessions: usize,
    /// Without --test: `75-25` (the `clicks eval` protocol: the first 75 % of sessions in file
    /// order train) or `interleaved` (every fourth session tests, so every query of a log
    /// sorted by query is in both parts). Test sessions of queries unseen in training are
    /// dropped either way. `orderings`: hold out whole orderings (distinct result lists) of
    /// each query in --folds folds and predict what their real sessions did, for every model
    /// of --model (`all` or a comma list) against the rank-only (rctr) and document-only
    /// (dctr) baselines, and compare each model's log-likelihood and perplexity on held-out
    /// sessions of orderings seen in training against orderings never seen (`shift.csv`,
    /// intervals over queries) (docs/validation.md).
    #[arg(long, default_value = "75-25")]
    split: String,
    /// --split orderings: folds over each query's orderings.
    #[arg(long, default_value_t = 5)]
    folds: usize,
    /// --split orderings: ordering pairs need at least this many sessions in both orderings.
    #[arg(long, default_value_t = 50)]
    min_pair_sessions: usize,
    /// Output directory (written all or nothing): `distances.csv` (per measure and per-rank CTR:
    /// real, simulated, difference, TV and KS with bootstrap intervals), `system.csv` (ranker
    /// scores and Kendall tau), `validation.svg` (real against simulated per measure),
    /// `validation.json` (everything) and `manifest.json`.
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

impl ValidateArgs {
    /// `--replicates`: a number, or `None` for `auto`.
    fn replicates(&self) -> anyhow::Result<Option<usize>> {
        match self.replicates.as_str() {
            "auto" => Ok(None),
            r => Ok(Some(r.parse().with_context(|| format!("--replicates `{r}`: expected `auto` or a whole number"))?)),
        }
    }
}

/// The validation settings of `a` with `replicates` simulated sessions per test session.
fn validate_config(a: &ValidateArgs, replicates: usize) -> ValidateConfig {
    ValidateConfig { replicates, bootstrap: a.bootstrap, level: a.ci_level, seed: a.validate_seed, rankers: a.rankers, min_list_sessions: a.min_list_sessions }
}

/// [`dwell_by_rank`] of a streamed training log, read again for its dwell times (its
/// stored sessions hold none); `None` when no session of it has dwell.
fn streamed_dwell_by_rank(src: &FileSource, depth: usize) -> anyhow::Result<Option<Vec<Vec<f64>>>> {
    let mut by_rank = vec![Vec::new(); depth];
    let mut any = false;
    let opts = serpsim::logs::ReadOptions::new(src.format.clone()).skip_bad_lines(src.skip_bad_lines);
    serpsim::logs::for_each_session(serpsim::input::open(&src.path)?, &opts, &mut |s| {
        any |= !s.dwell.is_empty();
        for (r, (&c, &t)) in s.clicks.iter().zip(&s.dwell).enumerate() {
            // As the in-memory log holds it (f32).
            let t = t as f32;
            if c && t.is_finite() && r < depth {
                by_rank[r].push(f64::from(t));
            }
        }
        Ok(())
    })?;
    Ok(any.then_some(by_rank))
}

/// Dwell times of clicks per 0-based rank (known dwell only), from a log that has dwell.
fn dwell_by_rank(log: &ClickLog, depth: usize) -> Vec<Vec<f64>> {
    let mut by_rank = vec![Vec::new(); depth];
    for i in 0..log.len() {
        if let Some(d) = log.session_dwell(i) {
            for (r, (&c, &t)) in log.session(i).clicks.iter().zip(d).enumerate() {
                if c && t.is_finite() && r < depth {
                    by_rank[r].push(f64::from(t));
                }
            }
        }
    }
    by_rank
}

fn validate(a: ValidateArgs) -> anyhow::Result<()> {
    if let Some(o) = &a.out {
        let inputs: Vec<&Path> = [a.train.as_deref(), a.test.as_deref(), a.model_file.as_deref()].into_iter().flatten().collect();
        serpsim::output::refuse_input_as_output(o, &inputs)?;
    }
    if a.split == "orderings" {
        return validate_orderings(a);
    }
    let format = a.m.format()?;
    if let Some(out) = &a.out {
        serpsim::output::check_output_dir(out)?;
    }
    if let Some(r) = validate_sharded(&a)? {
        return r;
    }
    let plan = if a.model_file.is_none() { Some(a.m.eval_plan()?) } else { None };
    let em_fit = plan.as_ref().is_some_and(|p| !p.needs_memory());
    let mut data = LogData::default();
    // With --test and the usual fit, the training log is parsed once into stored sessions
    // (memory by the budget and the pairs) and the fit replays them.
    let mut streamed: Option<FileSource> = None;
    let loaded = match (&a.train, &a.model_file) {
        (Some(train), None) if a.test.is_some() && em_fit && serpsim::logs::is_rereadable(train) => {
            let plan = plan.as_ref().expect("a plan with --log");
            let mut src = plan.file_source(train, format.clone(), a.m.skip_bad_lines);
            with_threads(a.threads, || src.load().map(|_| ()))??;
            report_skipped(train, &src.report);
            data.vocab = std::mem::take(&mut src.vocab);
            streamed = Some(src);
            None
        }
        (Some(train), None) => {
            data = LogData::read(train, format.clone(), a.m.skip_bad_lines)?;
            report_skipped(train, &data.report);
            anyhow::ensure!(!data.log.is_empty(), "{}: no sessions", train.display());
            None
        }
        (None, Some(file)) => {
            let (m, vocab) = io::load(file)?;
            data.vocab = vocab;
            Some(m)
        }
        _ => anyhow::bail!("give --log (with --model) or --model-file"),
    };
    let test = match &a.test {
        Some(path) => {
            let (test, report) = data.read_more(path, format, a.m.skip_bad_lines)?;
            report_skipped(path, &report);
            anyhow::ensure!(!test.is_empty(), "{}: no sessions", path.display());
            test
        }
        None => {
            anyhow::ensure!(loaded.is_none(), "--model-file needs --test");
            let split = match a.split.as_str() {
                "75-25" => split_75_25(&data.log),
                "interleaved" => {
                    let train = data.log.subset((0..data.log.len()).filter(|i| i % 4 != 3));
                    let test = data.log.subset((0..data.log.len()).filter(|i| i % 4 == 3));
                    let test = restrict_to_train_queries(&train, &test);
                    serpsim::clickmodels::eval::Split { train, test }
                }
                s => anyhow::bail!("--split `{s}`: expected 75-25, interleaved or orderings"),
            };
            data.log = split.train;
            anyhow::ensure!(!split.test.is_empty(), "no test sessions: no test session has a query seen in training");
            split.test
        }
    };
    let model: Box<dyn ClickModel> = match (loaded, &plan) {
        (Some(m), _) => m,
        (None, None) => unreachable!("a model file or a plan"),
        (None, Some(plan)) => match plan.posterior_config() {
            None if streamed.is_some() => {
                let st = streamed.as_ref().and_then(FileSource::stored).expect("loaded");
                let mut train = st.range(0..st.len());
                with_threads(a.threads, || plan.fit_source(&mut train, &Shown::default()))??.0
            }
            None => with_threads(a.threads, || plan.fit_sessions(&data.log, data.vocab.pair_count(), &Shown::default()))??.0,
            Some(pc) => {
                // Test pairs never seen in training get their query's prior mean.
                let kind = plan.config().kind();
                let shown = Shown::default();
                shown.phase(FitPhase::Sweeps(kind, pc.sweeps(kind)));
                let post = posterior(kind, &data.log, data.vocab.pair_count(), pc, &|n| shown.sweeps(n));
                shown.end_phase();
                let post = post?;
                for line in post.summary_lines() {
                    eprintln!("{line}");
                }
                let pq: Vec<u32> = data.vocab.pairs.iter().map(|&(q, _)| q).collect();
                post.point_model_for(&pq)
            }
        },
    };
    let model_name = model.kind().name().to_string();
    let cfg = validate_config(&a, a.replicates()?.unwrap_or_else(|| ValidateConfig::auto_replicates(test.len())));
    // Dwell only when the test log and the training log both logged it.
    let train_sessions = streamed.as_ref().and_then(FileSource::stored).map_or(data.log.len(), |st| st.len() as usize);
    let streamed_dwell = match &streamed {
        Some(src) if !test.dwell.is_empty() => {
            let depth = test.max_len().max(src.stored().map_or(0, |st| st.max_len()));
            streamed_dwell_by_rank(src, depth)?
        }
        _ => None,
    };
    let train_by_rank = match streamed_dwell {
        Some(by_rank) => Some(by_rank),
        None if !test.dwell.is_empty() && !data.log.dwell.is_empty() => Some(dwell_by_rank(&data.log, test.max_len().max(data.log.max_len()))),
        None => {
            if !test.dwell.is_empty() {
                eprintln!("warning: dwell not compared: the test log has dwell times but the training log has none");
            }
            None
        }
    };
    let dwell = train_by_rank.map(|train_by_rank| Dwell {
        test: (0..test.len()).map(|i| test.session_dwell(i).map(|d| d.iter().map(|&x| f64::from(x)).collect()).unwrap_or_default()).collect(),
        train_by_rank,
    });
    let model_ref: &dyn ClickModel = model.as_ref();
    let v = with_threads(a.threads, || validate_model(model_ref, &test, dwell.as_ref(), &cfg))??;
    // Perplexity and log-likelihood on the same test sessions, to set the distances beside.
    let scores = evaluate(model.as_ref(), &test)?;
    write_validation(&a, &model_name, &v, &scores, train_sessions)
}

/// `clicks validate` of an EM model in shards, when the logs are larger than the budget allows
/// in memory (as `fit` and `eval` decide): the numbers of the in-memory validation, with
/// memory bounded by the budget. `None`: not sharded (a model file, a posterior prior, a
/// counting model, `--split orderings`, or logs that fit).
fn validate_sharded(a: &ValidateArgs) -> anyhow::Result<Option<anyhow::Result<()>>> {
    use serpsim::clickmodels::sharded;
    let Some(train) = &a.train else { return Ok(None) };
    if a.model_file.is_some() {
        return Ok(None);
    }
    let plan = a.m.eval_plan()?;
    let logs: Vec<&Path> = std::iter::once(train.as_path()).chain(a.test.as_deref()).collect();
    if !plan.shards_logs(&logs) {
        return Ok(None);
    }
    let cfg = plan.config();
    let held = match (&a.test, a.split.as_str()) {
        (Some(t), _) => sharded::HeldOut::File(t.clone()),
        (None, "75-25") => sharded::HeldOut::LastQuarter,
        (None, "interleaved") => sharded::HeldOut::Interleaved,
        (None, s) => anyhow::bail!("--split `{s}`: expected 75-25, interleaved or orderings"),
    };
    let replicates = a.replicates()?;
    // `replicates` replaces the placeholder 1 once the held-out sessions are counted.
    let vcfg = validate_config(a, replicates.unwrap_or(1));
    let opts = plan.em_options();
    let shard_opts = plan.shard_options();
    let read_opts = a.m.read_options()?;
    let shown = Shown::passes(&plan);
    // A --test log is validated whole (as in memory); a split leaves out held-out sessions of
    // queries without training sessions.
    let restrict = a.test.is_none();
    let r =
        with_threads(a.threads, || sharded::validate(train, &held, restrict, &read_opts, cfg, opts, &shard_opts, &vcfg, replicates, &mut |p| shown.pass(p)));
    shown.end_phase();
    let r = r??;
    shown.note(&summary_line(&r.fit.fit_summary));
    report_skipped(train, &r.fit.read);
    if let (Some(t), Some(rep)) = (&a.test, &r.test_read) {
        report_skipped(t, rep);
    }
    eprintln!("{}", r.fit.summary());
    if r.dwell_in_logs {
        eprintln!("warning: dwell not compared: a sharded validation keeps no dwell times (--shards 0 compares them, in memory)");
    }
    Ok(Some(write_validation(a, cfg.kind().name(), &r.validation, &r.scores, r.fit.sessions as usize)))
}

/// Prints a validation (JSON on standard output) and writes its output directory.
fn write_validation(
    a: &ValidateArgs,
    model_name: &str,
    v: &serpsim::clickmodels::validate::Validation,
    scores: &serpsim::clickmodels::eval::Scores,
    train_sessions: usize,
) -> anyhow::Result<()> {
    let mut json = serde_json::to_value(v)?;
    json["model"] = model_name.into();
    json["train_sessions"] = train_sessions.into();
    json["perplexity"] = scores.perplexity.into();
    json["log_likelihood"] = scores.log_likelihood.into();
    if let Some(out) = &a.out {
        let mut info = serpsim::output::RunInfo::new("clicks validate");
        info.seed = Some(a.validate_seed);
        info.args = serpsim::output::recorded_args(std::env::args());
        let mut run = serpsim::output::RunDir::begin(out, info)?;
        run.write_with("distances.csv", |w| write_distances(w, model_name, v.measures.iter().chain(&v.ctr)))?;
        run.write_with("system.csv", |w| {
            writeln!(w, "model,metric,kendall_tau,ranker,real,model_score")?;
            for c in &v.system {
                for (k, (r, m)) in c.real.iter().zip(&c.model).enumerate() {
                    let f = serpsim::write::fmt_f64;
                    writeln!(w, "{model_name},{},{},{k},{},{}", c.metric, f(c.kendall_tau), f(*r), f(*m))?;
                }
            }
            Ok(())
        })?;
        run.write("simeval.csv", serpsim::stats::simeval::to_csv(&v.simeval).as_bytes())?;
        let svg = plot_svg(v, &format!("{model_name}: {} real test sessions against {} simulated", v.test_sessions, v.simulated_sessions))?;
        run.write("validation.svg", svg.as_bytes())?;
        let text = serde_json::to_string_pretty(&json)?;
        run.write("validation.json", format!("{text}\n").as_bytes())?;
        run.commit()?;
    }
    outln!("{json}")?;
    Ok(())
}

#[derive(clap::Args)]
struct ValidateSwitchesArgs {
    /// The click log.
    #[arg(long = "log", alias = "train", value_name = "LOG")]
    train: PathBuf,
    /// Log format (as for `fit`).
    #[arg(long, default_value = "yandex")]
    format: String,
    /// Count and report malformed lines instead of stopping at the first.
    #[arg(long)]
    skip_bad_lines: bool,
    /// Both orderings of a decided pair need at least this many sessions.
    #[arg(long, default_value_t = 50)]
    min_sessions: usize,
    /// The per-session metric decided on and scored: `first-click-rr` (reciprocal rank of the
    /// first click, 0 without), `top-clicks` (clicks in ranks 1-3) or `abandonment` (no click;
    /// lower is better).
    #[arg(long, default_value = "first-click-rr", value_name = "first-click-rr|top-clicks|abandonment")]
    metric: String,
    /// How much worse (in the metric's units) a candidate may be.
    #[arg(long, default_value_t = 0.01)]
    epsilon: f64,
    /// Switch when P(safe) >= 1 - delta; keep production when P(safe) <= delta; otherwise
    /// "cannot tell from this log".
    #[arg(long, default_value_t = 0.05)]
    delta: f64,
    /// Joint posterior draws per production ordering.
    #[arg(long, default_value_t = 1000)]
    samples: usize,
    /// Ranks the predicted metric looks at.
    #[arg(long, default_value_t = 10)]
    depth: usize,
    /// DBN continuation: `fitted` (EM on the other queries' sessions; the default) or a fixed
    /// value (the paper, and `--paper`'s default: 0.9).
    #[arg(long, value_name = "fitted|GAMMA")]
    gamma: Option<String>,
    /// Attractiveness and satisfaction priors: `fitted` (empirical Bayes on the other queries'
    /// sessions; the default) or `uniform` (Beta(1, 1), the paper; the only choice with `--paper`).
    #[arg(long, value_name = "fitted|uniform")]
    prior: Option<String>,
    /// Take the click model as true: no model error from the log's natural experiments (the
    /// paper).
    #[arg(long)]
    no_model_error: bool,
    /// Grotov et al.'s settings throughout: gamma 0.9, uniform priors, no model error,
    /// decisions on the RR metric of the satisfying click (scored on first-click RR).
    #[arg(long)]
    paper: bool,
    /// Both orderings of a natural experiment (model error) need at least this many sessions.
    #[arg(long, default_value_t = 20)]
    error_min_sessions: usize,
    /// EM iterations of the fitted gamma, the plug-in and MT.
    #[arg(long, default_value_t = 50)]
    iterations: usize,
    /// MT switches when the estimated advantage exceeds this margin.
    #[arg(long, default_value_t = 0.0)]
    mt_margin: f64,
    /// Bootstrap resamples over queries for the intervals.
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    /// Level of the intervals.
    #[arg(long, default_value_t = 0.95)]
    ci_level: f64,
    /// Seed of the sampling and the bootstrap.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output directory: `decisions.csv` (per ordered pair), `summary.csv` (per method and
    /// reference policy), `switches.json` and `manifest.json`.
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

/// `clicks validate-switches`: the wiring of [`serpsim::baraco::real`].
fn validate_switches(a: ValidateSwitchesArgs) -> anyhow::Result<()> {
    use serpsim::baraco::real::{validate_real_with, GammaChoice, PriorChoice, RealConfig};
    use serpsim::baraco::switch::OutcomeMetric;
    serpsim::limits::check_usize("clicks validate-switches", "--samples", a.samples, serpsim::limits::MAX_SAMPLES, "Monte-Carlo samples")?;
    serpsim::limits::check_usize("clicks validate-switches", "--depth", a.depth, serpsim::baraco::decide::MAX_DEPTH, "ranks")?;
    serpsim::limits::check_usize("clicks validate-switches", "--iterations", a.iterations, serpsim::limits::MAX_ITERATIONS, "EM passes")?;
    let metric =
        OutcomeMetric::parse(&a.metric).ok_or_else(|| anyhow::anyhow!("--metric `{}`: expected first-click-rr, top-clicks or abandonment", a.metric))?;
    let gamma = match a.gamma.as_deref() {
        None => None,
        Some("fitted") => Some(GammaChoice::Fitted),
        Some(g) => Some(GammaChoice::Fixed(g.parse().map_err(|_| anyhow::anyhow!("--gamma `{g}`: expected `fitted` or a number in [0, 1]"))?)),
    };
    let prior = match a.prior.as_deref() {
        None => None,
        Some("fitted") => Some(PriorChoice::Fitted),
        Some("uniform") => Some(PriorChoice::Uniform),
        Some(p) => anyhow::bail!("--prior `{p}`: expected `fitted` or `uniform`"),
    };
    if a.paper {
        // The paper's settings: a given fixed gamma is kept; nothing else is silently dropped.
        anyhow::ensure!(gamma != Some(GammaChoice::Fitted), "--paper holds gamma fixed: give a number or drop --gamma");
        anyhow::ensure!(prior.is_none() || prior == Some(PriorChoice::Uniform), "--paper uses uniform priors: drop --prior");
        anyhow::ensure!(metric == OutcomeMetric::FirstClickRr, "--paper decides on its RR metric and is scored on first-click RR: drop --metric");
    }
    if let Some(out) = &a.out {
        serpsim::output::refuse_input_as_output(out, &[&a.train])?;
        serpsim::output::check_output_dir(out)?;
    }
    let data = LogData::read(&a.train, a.format.parse()?, a.skip_bad_lines)?;
    report_skipped(&a.train, &data.report);
    anyhow::ensure!(!data.log.is_empty(), "{}: no sessions", a.train.display());
    let base = if a.paper {
        RealConfig { gamma: gamma.unwrap_or(RealConfig::paper().gamma), ..RealConfig::paper() }
    } else {
        let d = RealConfig::default();
        RealConfig { gamma: gamma.unwrap_or(d.gamma), prior: prior.unwrap_or(d.prior), model_error: !a.no_model_error, ..d }
    };
    let cfg = RealConfig {
        min_sessions: a.min_sessions,
        epsilon: a.epsilon,
        delta: a.delta,
        samples: a.samples,
        depth: a.depth,
        metric,
        error_min_sessions: a.error_min_sessions,
        em_iterations: a.iterations,
        mt_margin: a.mt_margin,
        seed: a.seed,
        bootstrap: a.bootstrap,
        level: a.ci_level,
        ..base
    };
    let bar = progress_bar("validate-switches: cross-fitting", "query folds");
    let v = with_threads(a.threads, || {
        validate_real_with(&data.log, &data.vocab, &cfg, &|done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        })
    })??;
    bar.finish_and_clear();
    if let Some(out) = &a.out {
        let mut info = serpsim::output::RunInfo::new("clicks validate-switches");
        info.seed = Some(a.seed);
        info.args = serpsim::output::recorded_args(std::env::args());
        let mut run = serpsim::output::RunDir::begin(out, info)?;
        run.write_with("decisions.csv", |w| v.write_decisions(w))?;
        run.write_with("summary.csv", |w| v.write_summary(w))?;
        let text = serde_json::to_string_pretty(&v)?;
        run.write("switches.json", format!("{text}\n").as_bytes())?;
        run.commit()?;
    }
    let mut buf = Vec::new();
    v.write_summary(&mut buf)?;
    outln!("{}", String::from_utf8_lossy(&buf).trim_end())?;
    for line in &v.answer {
        outln!("{line}")?;
    }
    Ok(())
}

/// `clicks validate --split orderings`: the wiring of [`serpsim::clickmodels::orderings`].
fn validate_orderings(a: ValidateArgs) -> anyhow::Result<()> {
    use serpsim::clickmodels::orderings::{shift::shift_robustness, validate_orderings, OrderingsConfig};
    anyhow::ensure!(a.test.is_none() && a.model_file.is_none(), "--split orderings holds out orderings of --log; it takes no --test or --model-file");
    let train = a.train.as_ref().ok_or_else(|| anyhow::anyhow!("--split orderings needs --log"))?;
    anyhow::ensure!(a.m.prior.is_none() && a.m.gamma == "fitted" && a.m.top_examination.is_none(), "--split orderings fits every model by PyClick's conventions (uniform prior, fitted gamma, free top examination); --prior, --gamma and --top-examination are not supported with it");
    let models: Vec<ModelKind> =
        if a.m.model == "all" { ModelKind::all() } else { a.m.model.split(',').map(|m| m.trim().parse()).collect::<Result<_, _>>()? };
    if let Some(out) = &a.out {
        serpsim::output::check_output_dir(out)?;
    }
    let data = LogData::read(train, a.m.format()?, a.m.skip_bad_lines)?;
    report_skipped(train, &data.report);
    anyhow::ensure!(!data.log.is_empty(), "{}: no sessions", train.display());
    let replicates = a.replicates()?.unwrap_or(1000);
    let cfg = OrderingsConfig {
        models,
        folds: a.folds,
        seed: a.validate_seed,
        em: EmConfig { iterations: a.m.iterations, tolerance: a.m.tolerance },
        replicates,
        bootstrap: a.bootstrap,
        level: a.ci_level,
        min_pair_sessions: a.min_pair_sessions,
    };
    let v = with_threads(a.threads, || validate_orderings(&data.log, &cfg))??;
    let shift = with_threads(a.threads, || shift_robustness(&data.log, &cfg))??;
    if let Some(out) = &a.out {
        let mut info = serpsim::output::RunInfo::new("clicks validate");
        info.seed = Some(a.validate_seed);
        info.args = serpsim::output::recorded_args(std::env::args());
        let mut run = serpsim::output::RunDir::begin(out, info)?;
        run.write_with("errors.csv", |w| v.write_errors(w))?;
        run.write_with("ranks.csv", |w| v.write_ranks(w))?;
        run.write_with("pairs.csv", |w| v.write_pairs(w))?;
        run.write_with("calibration.csv", |w| v.write_calibration(w))?;
        run.write_with("comparisons.csv", |w| v.write_comparisons(w))?;
        run.write_with("shift.csv", |w| shift.write_csv(w))?;
        let text = serde_json::to_string_pretty(&v)?;
        run.write("orderings.json", format!("{text}\n").as_bytes())?;
        run.commit()?;
    }
    outln!("model,role,ctr_mae_over_orderings,lower,upper")?;
    for r in v.errors.iter().filter(|r| r.measure == "ctr_mae") {
        outln!("{},{},{:.4},{:.4},{:.4}", r.model, r.role, r.error, r.error_lower, r.error_upper)?;
    }
    for line in v.answer.iter().chain(shift.answer()) {
        outln!("{line}")?;
    }
    Ok(())
}

/// The `distances.csv` of a validation: one row per measure, `label` in the first column.
pub(super) fn write_distances<'a>(
    w: &mut dyn std::io::Write,
    label: &str,
    measures: impl Iterator<Item = &'a serpsim::clickmodels::validate::Measure>,
) -> std::io::Result<()> {
    writeln!(w, "model,measure,real,simulated,difference,difference_lower,difference_upper,tv,tv_lower,tv_upper,ks,ks_lower,ks_upper")?;
    let f = serpsim::write::fmt_f64;
    for m in measures {
        writeln!(
            w,
            "{label},{},{},{},{},{},{},{},{},{},{},{},{}",
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
}

fn convert(a: ConvertArgs) -> anyhow::Result<()> {
    use serpsim::logs::convert;
    serpsim::output::refuse_input_as_output(&a.out, &[&a.input])?;
    let format: Format = a.format.parse()?;
    let to = match &a.to {
        Some(t) => convert::parse_target(t)?,
        None => convert::target_from_extension(&a.out)
            .ok_or_else(|| anyhow::anyhow!("{}: give --to parquet|arrow|tsv|jsonl|simeval|yandex (the file name does not say)", a.out.display()))?,
    };
    let opts = serpsim::logs::ReadOptions::new(format).skip_bad_lines(a.skip_bad_lines);
    let bar = progress_bar("converting", "sessions");
    bar.progress().phase("converting", "sessions", None);
    let progress = bar.progress();
    let report = with_threads(a.threads, || convert::convert_path(&a.input, &opts, &to, &a.out, Some(progress)))??;
    bar.finish_and_clear();
    report_skipped(&a.input, &report.read);
    for w in report.warnings(&to) {
        eprintln!("warning: {w}");
    }
    let from = report.read.format.as_ref().map_or_else(|| a.format.clone(), |f| f.to_string());
    eprintln!("converted {} sessions from {from} to {to}", report.read.sessions);
    outln!("{}", a.out.display())?;
    Ok(())
}

fn fit(a: FitArgs) -> anyhow::Result<()> {
    let mut params = a.m.params(a.posterior.is_some(), Purpose::Fit)?;
    params.keep_draws = a.draws;
    params.storage = match (a.stream, a.in_memory) {
        (true, _) => Storage::Stream,
        (_, true) => Storage::InMemory,
        _ => Storage::Auto,
    };
    params.labels = serpsim::clickmodels::labels::LabelInputs {
        labels: a.labels.as_deref(),
        qrels: a.qrels.as_deref(),
        format: Some(&a.label_format),
        columns: a.label_columns.as_deref(),
        header: a.label_header,
        unjudged: a.unjudged,
        unjudged_grade: a.unjudged_grade,
        grade_map: a.grade_map.as_deref(),
        grade_bootstrap: a.grade_bootstrap,
    }
    .resolve()?;
    let plan = check(&params)?;
    let read = a.m.read_options()?;
    with_threads(a.threads, || plan.fit_file(&a.train, &read, &a.out, a.posterior.as_deref(), &Shown::default()))??;
    outln!("{}", a.out.display())?;
    Ok(())
}

fn eval(a: EvalArgs) -> anyhow::Result<()> {
    let plan = a.m.eval_plan()?;
    let read = a.m.read_options()?;
    let e = with_threads(a.threads, || plan.evaluate_file(&a.train, a.test.as_deref(), &read, a.save.as_deref(), &Shown::default()))??;
    print_eval(e.model.name(), e.train_sessions, e.test_sessions, &e.scores)
}

fn simulate(a: SimulateArgs) -> anyhow::Result<()> {
    serpsim::output::refuse_input_as_output(&a.out, &[&a.model_file, &a.serps])?;
    anyhow::ensure!(a.replicates >= 1, "--replicates must be at least 1");
    serpsim::limits::check_usize("clicks simulate", "--replicates", a.replicates, serpsim::limits::MAX_CLICK_REPLICATES, "simulated sessions per SERP")?;
    let format: Format = a.format.parse()?;
    let (model, vocab) = io::load(&a.model_file)?;
    let mut data = LogData { vocab, ..Default::default() };
    let (serps, report) = data.read_more(&a.serps, format, a.skip_bad_lines)?;
    report_skipped(&a.serps, &report);
    serpsim::limits::check_product(
        "clicks simulate",
        "--replicates * SERPs",
        &[a.replicates as u64, serps.len() as u64],
        serpsim::limits::MAX_SIMULATED_SESSIONS,
        "simulated sessions held in memory",
    )?;
    let model: &dyn ClickModel = model.as_ref();
    let sim = with_threads(a.threads, || serpsim::clickmodels::simulate_log(model, &serps, a.replicates, a.seed))?;
    write_tsv(&a.out, &sim, &data.vocab, a.replicates)?;
    eprintln!("simulated {} sessions with {}", sim.len(), model.kind());
    outln!("{}", a.out.display())?;
    Ok(())
}

/// Writes a log in the TSV session format; session ids are `serp-replicate` (1-based).
fn write_tsv(path: &Path, log: &ClickLog, vocab: &Vocab, replicates: usize) -> anyhow::Result<()> {
    serpsim::write::write_atomic_with(path, |w| {
        writeln!(w, "session_id\tquery\tdocuments\tclicks")?;
        for (i, s) in log.iter().enumerate() {
            let docs: Vec<&str> = s.pairs.iter().map(|&p| vocab.docs[vocab.pairs[p as usize].1 as usize].as_str()).collect();
            let clicks: Vec<&str> = s.clicks.iter().map(|&c| if c { "1" } else { "0" }).collect();
            writeln!(w, "{}-{}\t{}\t{}\t{}", i / replicates + 1, i % replicates + 1, vocab.queries[s.query as usize], docs.join(","), clicks.join(","))?;
        }
        Ok(())
    })?;
    Ok(())
}

/// Prints the JSON object of `clicks eval` (the in-memory and the streamed paths).
fn print_eval(model: &str, train_sessions: u64, test_sessions: u64, scores: &serpsim::clickmodels::eval::Scores) -> anyhow::Result<()> {
    let out = serde_json::json!({
        "model": model,
        "train_sessions": train_sessions,
        "test_sessions": test_sessions,
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
