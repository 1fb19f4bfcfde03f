//! (A folder of its own, with `observe.rs`: it sits above the EM point fit of `clickmodels`
//! and the `posterior` folder, and neither imports it.)
//!
//! A click-model fit in the params → fit → model shape: [`FitParams`] holds every setting of a
//! fit with its default; [`FitParams::check`] checks them all (limits, which settings go with
//! which model, which go together) and decides what follows from them (the EM prior, the
//! held rank-1 examination, the posterior's settings, whether the log must be in memory),
//! giving a [`FitPlan`]; the plan fits, giving a [`Fitted`] model, and [`Fitted::write`] is the
//! one writer of model files (with the posterior records beside it when asked).
//! [`FitPlan::fit_file`] is the whole of `serpsim clicks fit`: it also decides whether the log
//! is streamed, sharded or read into memory.
//!
//! The shells translate: the CLI's flags and Python's arguments become a `FitParams` field for
//! field, and a [`FitObserver`] shows progress and notes as the shell likes; every default,
//! limit and choice is here.
//!
//! ```
//! use serpsim::clickmodels::fitting::{FitParams, Quiet};
//! use serpsim::clickmodels::ModelKind;
//! use serpsim::logs::{Format, LogData};
//!
//! let text = "q1\td1,d2,d3 : d2\nq1\td1,d2,d3 : d1\nq2\td4,d1 : \n";
//! let data = LogData::parse(text, Format::Yandex, "example", false).unwrap();
//! let plan = FitParams::new(ModelKind::Dbn).check().unwrap();
//! let fitted = plan.fit_log(data, None, &Quiet).unwrap();
//! assert_eq!(fitted.sessions, 3);
//! // How the EM fit ended, as the model file's `fit` key says.
//! assert!(fitted.summary.as_ref().unwrap().passes >= 1);
//! ```

use super::driver::{Accel, EmOptions, EmPrior, FitSummary, PassInfo};
use super::gibbs::{GibbsConfig, MAX_CHAINS};
use super::labels::{read_labels, LabelRequest, LabelSummary};
use super::portable::{fit_by_grade_labeled, ByGrade, ByGradeOptions};
use super::posterior::fit::{fit_em, fit_model};
use super::posterior::{Posterior, PosteriorConfig};
use super::prior::PriorScope;
use super::{io, sharded, ClickModel, EmConfig, EmState, Gamma, ModelConfig, ModelKind};
use crate::collection::trec::Qrels;
use crate::error::{check_probability, Error, Result};
use crate::limits::{check_usize, MAX_ITERATIONS, MAX_SAMPLES};
use crate::logs::read::ReadOptions;
use crate::logs::{ClickLog, FileSource, Format, LogData, SessionSource, Vocab};
use std::path::Path;

mod evaluate;
mod observe;
pub use evaluate::Evaluation;
pub use observe::{posterior_lines, read_notes, summary_line, FitObserver, FitPhase, Quiet};

/// The default memory budget of the sessions a fit keeps (`clicks fit --memory-budget`).
pub const FIT_BUDGET: &str = "1G";
/// The default memory budget of `clicks eval` and `clicks validate`: they also hold the test
/// sessions and the evaluation, and `eval` on a 2 GB log stays under 100 MB resident.
pub const EVAL_BUDGET: &str = "32M";

/// The context of the errors of [`FitParams::check`]: each is an [`Error::Config`] whose
/// `key` names the setting (a `FitParams` field, or `stream` for [`Storage::Stream`]), so that
/// a front end can say it in its own words (the CLI names the flag).
pub const SETTINGS: &str = "fit";

fn setting(key: &str, reason: &str) -> Error {
    Error::config(SETTINGS, key, reason)
}

/// The prior a fit is asked for (`--prior`, Python's `prior`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prior {
    /// One Beta per per-pair table fitted by empirical Bayes within the EM fit (`eb`).
    Eb,
    /// Beta(1, 1) (`uniform`), or a prior of the posterior: fitted by marginal likelihood
    /// (`global`, `query`) or sampled (`hierarchical`).
    Scope(PriorScope),
}

impl std::str::FromStr for Prior {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "eb" => Ok(Prior::Eb),
            s => Ok(Prior::Scope(s.parse().map_err(|_| Error::Invalid(format!("unknown prior `{s}` (expected uniform, eb, global, query or hierarchical)")))?)),
        }
    }
}

/// UBM's and PBM's examination of rank 1 (`--top-examination`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum TopExamination {
    /// Not said: free for EM fits, held at 1 for posteriors.
    #[default]
    Default,
    /// Not held (`free`): UBM and PBM are then identified only up to scale.
    Free,
    /// Held at this probability.
    Held(f64),
}

impl std::str::FromStr for TopExamination {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        if s == "free" {
            return Ok(TopExamination::Free);
        }
        let x: f64 = s.parse().map_err(|_| Error::Invalid(format!("top_examination `{s}`: expected `free` or a probability")))?;
        Ok(TopExamination::Held(x))
    }
}

/// Parses DBN's continuation: `fitted` or a fixed probability.
pub fn parse_gamma(s: &str) -> Result<Gamma> {
    if s == "fitted" {
        return Ok(Gamma::Fitted);
    }
    let g: f64 = s.parse().map_err(|_| Error::Invalid(format!("gamma `{s}`: expected `fitted` or a probability")))?;
    check_probability("gamma", "gamma", g)?;
    Ok(Gamma::Fixed(g))
}

/// Where the sessions of a fit are kept (`clicks fit --stream | --in-memory`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Storage {
    /// Streamed (parsed once, kept within the memory budget) or sharded, as the log's size
    /// and the budget say; in memory when the settings need the whole log.
    #[default]
    Auto,
    /// Streamed, never sharded (refused with settings that need the log in memory).
    Stream,
    /// Read whole into memory.
    InMemory,
}

/// What a fit is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Purpose {
    /// A model file (`clicks fit`).
    #[default]
    Fit,
    /// Scores on held-out sessions (`clicks eval`, `clicks validate`), which also hold the
    /// test sessions: a smaller default budget.
    Evaluate,
}

/// The sampler's settings for posteriors.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplerParams {
    /// Credible level of the intervals (default 0.9).
    pub level: f64,
    /// Chains (default 4, at most [`MAX_CHAINS`]).
    pub chains: usize,
    /// Sweeps discarded per chain (default 500).
    pub warmup: usize,
    /// Draws kept per chain (default 1000).
    pub samples: usize,
    /// Sweeps per kept draw (default 1).
    pub thin: usize,
    /// Seed of the sampler, of conjugate draws and of the per-grade bootstrap (default 1).
    pub seed: u64,
    /// SDBN and DCM: the exact posterior (a user may go on after the last click).
    pub exact: bool,
}

impl Default for SamplerParams {
    fn default() -> Self {
        SamplerParams { level: 0.9, chains: 4, warmup: 500, samples: 1000, thin: 1, seed: 1, exact: false }
    }
}

/// Every setting of a click-model fit, each with its default (see [`FitParams::new`]).
#[derive(Debug, Clone, PartialEq)]
pub struct FitParams {
    /// The model.
    pub model: ModelKind,
    /// Most EM passes (default 50, at most [`MAX_ITERATIONS`]).
    pub iterations: usize,
    /// Relative log-likelihood change at which EM stops (default
    /// [`super::driver::DEFAULT_TOLERANCE`]; 0 runs every pass).
    pub tolerance: f64,
    /// EM acceleration (default auto).
    pub accel: Accel,
    /// DBN's continuation (default fitted; dbn only).
    pub gamma: Gamma,
    /// The prior; `None`: `global` with a posterior, else the model's EM default
    /// ([`EmPrior::default_for`]).
    pub prior: Option<Prior>,
    /// UBM's and PBM's held rank-1 examination.
    pub top_examination: TopExamination,
    /// Compute the posterior of every parameter.
    pub posterior: bool,
    /// Posterior draws kept per parameter in the records.
    pub keep_draws: usize,
    /// The sampler's settings.
    pub sampler: SamplerParams,
    /// Where the sessions are kept.
    pub storage: Storage,
    /// Memory for the sessions kept after the first pass, in bytes; `None`: [`FIT_BUDGET`]
    /// for a fit, [`EVAL_BUDGET`] for an evaluation.
    pub memory_budget: Option<u64>,
    /// What the fit is for (it sets the default memory budget).
    pub purpose: Purpose,
    /// Shards of a sharded fit; `None`: as the log's size and the budget say; 0: never.
    pub shards: Option<usize>,
    /// Relevance labels of the log's pairs: also fit the per-grade values.
    pub labels: Option<LabelRequest>,
    /// The name the label notes give the label file (default: its path).
    pub labels_name: Option<String>,
}

impl FitParams {
    /// The defaults for `model` (those of `serpsim clicks fit --model MODEL`).
    pub fn new(model: ModelKind) -> Self {
        FitParams {
            model,
            iterations: 50,
            tolerance: super::driver::DEFAULT_TOLERANCE,
            accel: Accel::Auto,
            gamma: Gamma::Fitted,
            prior: None,
            top_examination: TopExamination::Default,
            posterior: false,
            keep_draws: 0,
            sampler: SamplerParams::default(),
            storage: Storage::Auto,
            memory_budget: None,
            purpose: Purpose::Fit,
            shards: None,
            labels: None,
            labels_name: None,
        }
    }

    /// Checks every setting and decides what follows from them.
    pub fn check(&self) -> Result<FitPlan> {
        let kind = self.model;
        check_usize(SETTINGS, "iterations", self.iterations, MAX_ITERATIONS, "EM passes")?;
        let mut cfg = ModelConfig::new(kind, EmConfig { iterations: self.iterations, tolerance: self.tolerance });
        match (&mut cfg, self.gamma) {
            (ModelConfig::Dbn(d), g) => d.gamma = g,
            (_, Gamma::Fitted) => {}
            (_, Gamma::Fixed(_)) => return Err(setting("gamma", "applies to the dbn model only")),
        }
        if let Gamma::Fixed(g) = self.gamma {
            check_probability(SETTINGS, "gamma", g)?;
        }
        let holds_top = kind.spec().em.as_ref().is_some_and(|e| e.top_examination);
        match self.top_examination {
            TopExamination::Default => {}
            _ if !holds_top => return Err(setting("top_examination", "applies to ubm and pbm only")),
            TopExamination::Free => {}
            TopExamination::Held(x) => check_probability(SETTINGS, "top_examination", x)?,
        }
        let scope = match self.prior {
            Some(Prior::Eb) if self.posterior => return Err(setting("prior", "eb is a prior of the EM fit; a posterior takes global, query or hierarchical")),
            // The EM fit's own prior: the EM paths (streamed, sharded) take it.
            Some(Prior::Eb) => PriorScope::Uniform,
            Some(Prior::Scope(s)) => s,
            None if self.posterior => PriorScope::Global,
            None => PriorScope::Uniform,
        };
        // `eb` or no prior: the library's default for the model (which refuses `eb` where the
        // model takes none); a posterior scope keeps the EM fit at Beta(1, 1).
        let em_prior = match self.prior {
            None => EmPrior::default_for(kind),
            Some(Prior::Eb) => EmPrior::named(Some("eb"), kind)?,
            Some(Prior::Scope(_)) => EmPrior::Uniform,
        };
        let top = |default: Option<f64>| match self.top_examination {
            TopExamination::Default if holds_top => default,
            TopExamination::Default | TopExamination::Free => None,
            TopExamination::Held(x) => Some(x),
        };
        let em = EmOptions { accel: self.accel, top_examination: top(None), prior: em_prior };
        // `eb` where the model takes no fitted prior is refused now, as the driver would.
        super::driver::start_prior(kind, &em)?;
        if self.iterations == 0 {
            return Err(setting("iterations", "must be at least 1"));
        }
        if !(self.tolerance >= 0.0 && self.tolerance.is_finite()) {
            return Err(setting("tolerance", "must be a finite number >= 0"));
        }
        let posterior = if self.posterior || scope != PriorScope::Uniform {
            let s = &self.sampler;
            check_usize(SETTINGS, "chains", s.chains, MAX_CHAINS, "sampler chains")?;
            for (k, v) in [("warmup", s.warmup), ("samples", s.samples), ("thin", s.thin), ("draws", self.keep_draws)] {
                check_usize(SETTINGS, k, v, MAX_SAMPLES, "sampler sweeps or draws")?;
            }
            if s.exact && !matches!(kind, ModelKind::Sdbn | ModelKind::Dcm) {
                return Err(setting("exact", "applies to sdbn and dcm (the other models are exact already)"));
            }
            let pc = PosteriorConfig {
                prior: scope,
                level: s.level,
                sampler: GibbsConfig { chains: s.chains, warmup: s.warmup, draws: s.samples, thin: s.thin, seed: s.seed, ..Default::default() },
                keep_draws: self.keep_draws,
                gamma: self.gamma,
                top_examination: top(Some(1.0)),
                exact: s.exact,
            };
            pc.sampler.validate()?;
            Some(pc)
        } else {
            None
        };
        let needs_memory = self.posterior || scope != PriorScope::Uniform || self.labels.is_some();
        if self.storage == Storage::Stream && needs_memory {
            return Err(setting("stream", "fits by EM or counting only: not with a posterior, a fitted prior or labels"));
        }
        let budget = match self.memory_budget {
            Some(b) => b,
            None => crate::logs::stored::parse_budget(match self.purpose {
                Purpose::Fit => FIT_BUDGET,
                Purpose::Evaluate => EVAL_BUDGET,
            })?,
        };
        Ok(FitPlan { params: self.clone(), cfg, em, scope, posterior, needs_memory, budget })
    }
}

/// Checked settings of a fit and what follows from them ([`FitParams::check`]).
#[derive(Debug, Clone)]
pub struct FitPlan {
    params: FitParams,
    cfg: ModelConfig,
    em: EmOptions,
    scope: PriorScope,
    posterior: Option<PosteriorConfig>,
    needs_memory: bool,
    budget: u64,
}

/// A fitted click model with what the fit found.
#[derive(Debug)]
pub struct Fitted {
    /// The model.
    pub model: Box<dyn ClickModel>,
    /// The log's queries, documents and pairs (the model's pair indices).
    pub vocab: Vocab,
    /// Sessions fitted on.
    pub sessions: u64,
    /// How the EM fit ended (EM fits allowed more than one pass).
    pub summary: Option<FitSummary>,
    /// The posterior, when asked for or when the prior is fitted.
    pub posterior: Option<Posterior>,
    /// The per-grade values, when fitted with labels.
    pub grades: Option<ByGrade>,
    /// What the label reader found and assumed.
    pub label_notes: Vec<String>,
    /// The per-grade fit's report.
    pub grade_report: Vec<String>,
}

impl Fitted {
    /// The model file's text (with the `fit` and `grades` keys when known).
    pub fn model_text(&self) -> Result<String> {
        io::full_text(self.model.as_ref(), &self.vocab, self.summary.as_ref(), self.grades.as_ref())
    }

    /// Writes the model file to `out` and, when given and computed, the posterior records to
    /// `posterior` (JSON, one object per parameter entry): both or neither. Returns the number
    /// of records written.
    pub fn write(&self, out: &Path, posterior: Option<&Path>) -> Result<Option<usize>> {
        let text = self.model_text()?;
        match (posterior, &self.posterior) {
            (Some(path), Some(post)) => {
                let records = post.records(&self.vocab);
                let mut json = serde_json::to_vec(&records).map_err(|e| Error::Invalid(e.to_string()))?;
                json.push(b'\n');
                crate::output::write_files(&[(path, &json), (out, text.as_bytes())])?;
                Ok(Some(records.len()))
            }
            (Some(_), None) => Err(Error::Invalid("no posterior to write: the fit computed none".into())),
            (None, _) => {
                crate::write::write_atomic(out, text.as_bytes())?;
                Ok(None)
            }
        }
    }
}

/// What [`FitPlan::fit_file`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Parsed once and streamed, the sessions kept within the budget.
    Streamed,
    /// Split by query into shards fitted one at a time per thread.
    Sharded,
    /// Read whole into memory (a posterior, a fitted prior, labels, or asked for).
    InMemory,
}

/// The outcome of [`FitPlan::fit_file`].
#[derive(Debug, Clone)]
pub struct FileFit {
    /// How the log was fitted.
    pub route: Route,
    /// Sessions fitted on.
    pub sessions: u64,
    /// Query-document pairs of the log.
    pub pairs: usize,
    /// Posterior records written, when asked.
    pub records: Option<usize>,
}

/// The label file, as read, with its notes.
pub struct ReadLabels {
    labels: (Qrels, LabelSummary),
    resamples: usize,
    notes: Vec<String>,
}

impl FitPlan {
    /// The settings checked.
    pub fn params(&self) -> &FitParams {
        &self.params
    }
    /// The model's configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.cfg
    }
    /// The EM driver's options (acceleration, held rank-1 examination, EM prior).
    pub fn em_options(&self) -> &EmOptions {
        &self.em
    }
    /// The posterior's prior scope (`uniform` without a posterior or fitted prior).
    pub fn scope(&self) -> PriorScope {
        self.scope
    }
    /// The posterior's settings, when a posterior is asked for or the prior is fitted.
    pub fn posterior_config(&self) -> Option<&PosteriorConfig> {
        self.posterior.as_ref()
    }
    /// Whether the fit needs the whole log in memory (a posterior, a fitted prior, labels).
    pub fn needs_memory(&self) -> bool {
        self.needs_memory
    }
    /// The memory budget of the kept sessions, in bytes.
    pub fn memory_budget(&self) -> u64 {
        self.budget
    }
    /// Most passes a fit makes (for progress totals).
    pub fn passes(&self) -> u64 {
        EmState::passes_of(&self.cfg) as u64
    }
    /// The options of the sharded paths.
    pub fn shard_options(&self) -> sharded::ShardOptions {
        sharded::ShardOptions { memory_budget: self.budget, dir: None, shards: self.params.shards }
    }
    /// Whether the logs at `paths` are fitted in shards (see [`sharded::decide`]); never with
    /// settings that need the log in memory.
    pub fn shards_logs(&self, paths: &[&Path]) -> bool {
        !self.needs_memory && sharded::decide(&self.cfg, self.params.shards, sharded::logs_size(paths), self.budget, self.params.storage == Storage::Stream)
    }
    /// A streamed source over `path` with the plan's memory budget.
    pub fn file_source(&self, path: &Path, format: Format, skip_bad_lines: bool) -> FileSource {
        let mut src = FileSource::new(path, format, skip_bad_lines);
        src.store.memory_budget = self.budget;
        src
    }

    /// Reads the label file of the plan (before fitting: a bad label file fails fast).
    pub fn read_labels(&self, obs: &dyn FitObserver) -> Result<Option<ReadLabels>> {
        let Some(r) = &self.params.labels else { return Ok(None) };
        let name = self.params.labels_name.clone().unwrap_or_else(|| r.path.display().to_string());
        obs.phase(FitPhase::Reading(&name));
        let labels = read_labels(&r.path, &r.options);
        obs.end_phase();
        let labels = labels?;
        let notes = labels.1.notes(&name);
        for n in &notes {
            obs.note(n);
        }
        Ok(Some(ReadLabels { labels, resamples: r.resamples, notes }))
    }

    /// Fits a source the EM driver (or one count) can replay, showing the passes; notes how
    /// EM ended.
    pub fn fit_source(&self, src: &mut dyn SessionSource, obs: &dyn FitObserver) -> Result<(Box<dyn ClickModel>, Option<FitSummary>)> {
        obs.phase(FitPhase::Passes(self.cfg.kind(), self.passes()));
        let out = fit_em(&self.cfg, &self.em, src, &mut |p| obs.pass(p));
        obs.end_phase();
        let (model, summary) = out?;
        if let Some(s) = &summary {
            obs.note(&summary_line(s));
        }
        Ok((model, summary))
    }

    /// Fits `log` (`pairs` query-document pairs) in memory: the EM or counting fit, or under
    /// a fitted prior (or with a posterior asked for) the posterior and its means. Returns the
    /// model, the posterior when computed, and how an EM fit ended. The E-steps and the
    /// sampler run on the current rayon pool.
    pub fn fit_sessions(&self, log: &ClickLog, pairs: usize, obs: &dyn FitObserver) -> Result<(Box<dyn ClickModel>, Option<Posterior>, Option<FitSummary>)> {
        if log.is_empty() {
            return Err(Error::Invalid("no sessions to fit on".into()));
        }
        let kind = self.cfg.kind();
        obs.phase(FitPhase::Passes(kind, self.passes()));
        let on_pass = |p: &PassInfo| obs.pass(p);
        let out = match &self.posterior {
            None => fit_model(&self.cfg, &self.em, log, pairs, None, &on_pass, &|_| {}),
            Some(pc) => {
                obs.phase(FitPhase::Sweeps(kind, pc.sweeps(kind)));
                let out = fit_model(&self.cfg, &self.em, log, pairs, Some(pc), &on_pass, &|n| obs.sweeps(n));
                obs.end_phase();
                out
            }
        };
        obs.end_phase();
        let (model, posterior, summary) = out?;
        if let Some(s) = &summary {
            obs.note(&summary_line(s));
        }
        if let Some(p) = &posterior {
            for line in posterior_lines(p) {
                obs.note(&line);
            }
        }
        Ok((model, posterior, summary))
    }

    /// Fits the sessions of `data` in memory ([`FitPlan::fit_sessions`]), then the per-grade
    /// values when `labels` (from [`FitPlan::read_labels`]) are given.
    pub fn fit_log(&self, data: LogData, labels: Option<ReadLabels>, obs: &dyn FitObserver) -> Result<Fitted> {
        let kind = self.cfg.kind();
        let (model, posterior, summary) = self.fit_sessions(&data.log, data.vocab.pair_count(), obs)?;
        let (grades, grade_report, label_notes) = match labels {
            None => (None, Vec::new(), Vec::new()),
            Some(l) => {
                obs.phase(FitPhase::ByGrade(kind));
                let opts = ByGradeOptions { em: self.em, resamples: l.resamples, seed: self.params.sampler.seed };
                let out = fit_by_grade_labeled(&self.cfg, &data.log, &data.vocab, &l.labels, &opts);
                obs.end_phase();
                let (g, rep) = out?;
                let report = g.report_lines(&self.cfg, &rep);
                for line in &report {
                    obs.note(line);
                }
                (Some(g), report, l.notes)
            }
        };
        Ok(Fitted { model, vocab: data.vocab, sessions: data.log.len() as u64, summary, posterior, grades, label_notes, grade_report })
    }

    /// `serpsim clicks fit`: fits the log at `path` and writes the model file to `out` (and
    /// the posterior records to `posterior`). The log is sharded when it is larger than a
    /// quarter of the budget allows (see [`sharded::decide`]), streamed otherwise, and read
    /// into memory when the settings need it (a posterior, a fitted prior, labels) or
    /// [`Storage::InMemory`] asks; the model file is the same bytes whichever way.
    pub fn fit_file(&self, path: &Path, read: &ReadOptions, out: &Path, posterior: Option<&Path>, obs: &dyn FitObserver) -> Result<FileFit> {
        let label_path = self.params.labels.as_ref().map(|r| r.path.clone());
        let inputs: Vec<&Path> = [Some(path), posterior, label_path.as_deref()].into_iter().flatten().collect();
        crate::output::refuse_input_as_output(out, &inputs)?;
        if posterior.is_some() && !self.params.posterior {
            return Err(Error::Invalid("a posterior file needs the posterior (FitParams::posterior)".into()));
        }
        let name = path.display().to_string();
        let kind = self.cfg.kind();
        if self.params.storage != Storage::InMemory && !self.needs_memory {
            if self.shards_logs(&[path]) {
                obs.phase(FitPhase::Passes(kind, self.passes()));
                let fit = sharded::fit_to_file(path, read, &self.cfg, &self.em, &self.shard_options(), out, &mut |p| obs.pass(p));
                obs.end_phase();
                let fit = fit?;
                obs.note(&summary_line(&fit.fit_summary));
                for n in read_notes(&name, &fit.read) {
                    obs.note(&n);
                }
                obs.note(&fit.summary());
                obs.note(&format!("fitted {kind} on {} sessions ({} query-document pairs)", fit.sessions, fit.pairs));
                return Ok(FileFit { route: Route::Sharded, sessions: fit.sessions, pairs: fit.pairs as usize, records: None });
            }
            let mut src = self.file_source(path, read.format.clone(), read.skip_bad_lines);
            let (model, summary) = self.fit_source(&mut src, obs)?;
            for n in read_notes(&name, &src.report) {
                obs.note(&n);
            }
            if let Some(line) = src.stored_summary() {
                obs.note(&line);
            }
            let sessions = src.report.sessions as u64;
            let fitted = Fitted {
                model,
                vocab: std::mem::take(&mut src.vocab),
                sessions,
                summary,
                posterior: None,
                grades: None,
                label_notes: Vec::new(),
                grade_report: Vec::new(),
            };
            fitted.write(out, None)?;
            let pairs = fitted.vocab.pair_count();
            obs.note(&format!("fitted {kind} on {sessions} sessions ({pairs} query-document pairs)"));
            return Ok(FileFit { route: Route::Streamed, sessions, pairs, records: None });
        }
        let data = LogData::read(path, read.format.clone(), read.skip_bad_lines)?;
        for n in read_notes(&name, &data.report) {
            obs.note(&n);
        }
        if data.log.is_empty() {
            return Err(Error::Invalid(format!("{name}: no sessions")));
        }
        let labels = self.read_labels(obs)?;
        let fitted = self.fit_log(data, labels, obs)?;
        let records = fitted.write(out, posterior)?;
        if let (Some(path), Some(n)) = (posterior, records) {
            obs.note(&format!("posterior: {} ({n} records)", path.display()));
        }
        let pairs = fitted.vocab.pair_count();
        obs.note(&format!("fitted {kind} on {} sessions ({pairs} query-document pairs)", fitted.sessions));
        Ok(FileFit { route: Route::InMemory, sessions: fitted.sessions, pairs, records })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(f: impl FnOnce(&mut FitParams), kind: ModelKind) -> Result<FitPlan> {
        let mut p = FitParams::new(kind);
        f(&mut p);
        p.check()
    }

    /// What follows from the settings, as docs/clickmodels.md and `clicks fit --help` state
    /// it: the `eb` prior for the EM models with per-pair tables and Beta(1, 1) for the
    /// counting ones; a posterior defaults to the `global` prior and keeps the EM fit at
    /// Beta(1, 1); rank 1's examination is free for EM fits and held at 1 for posteriors; the
    /// budget is 1G for a fit and 32M for an evaluation.
    #[test]
    fn the_defaults_follow_the_documented_rules() {
        let dbn = check(|_| {}, ModelKind::Dbn).unwrap();
        assert_eq!(dbn.em_options().prior, EmPrior::Fitted);
        assert_eq!(dbn.scope(), PriorScope::Uniform);
        assert!(dbn.posterior_config().is_none() && !dbn.needs_memory());
        assert_eq!(dbn.memory_budget(), 1 << 30);
        assert_eq!(check(|_| {}, ModelKind::Cm).unwrap().em_options().prior, EmPrior::Uniform);
        let post = check(|p| p.posterior = true, ModelKind::Ubm).unwrap();
        assert_eq!(post.scope(), PriorScope::Global);
        assert_eq!(post.em_options().prior, EmPrior::Fitted);
        assert_eq!(post.em_options().top_examination, None);
        assert_eq!(post.posterior_config().unwrap().top_examination, Some(1.0));
        assert!(post.needs_memory());
        let global = check(|p| p.prior = Some(Prior::Scope(PriorScope::Global)), ModelKind::Ubm).unwrap();
        assert_eq!(global.em_options().prior, EmPrior::Uniform);
        assert!(global.needs_memory() && global.posterior_config().is_some());
        let held = check(|p| p.top_examination = TopExamination::Held(0.8), ModelKind::Pbm).unwrap();
        assert_eq!(held.em_options().top_examination, Some(0.8));
        let free = check(|p| (p.posterior, p.top_examination) = (true, TopExamination::Free), ModelKind::Pbm).unwrap();
        assert_eq!(free.posterior_config().unwrap().top_examination, None);
        assert_eq!(check(|p| p.purpose = Purpose::Evaluate, ModelKind::Dbn).unwrap().memory_budget(), 32 << 20);
        assert_eq!(check(|p| p.memory_budget = Some(7), ModelKind::Dbn).unwrap().memory_budget(), 7);
    }

    /// Settings that do not go with the model or with each other are refused, with the
    /// setting named.
    #[test]
    fn settings_that_do_not_go_together_are_refused() {
        let err = |f: fn(&mut FitParams), kind| check(f, kind).unwrap_err().to_string();
        assert_eq!(err(|p| p.gamma = Gamma::Fixed(0.9), ModelKind::Ubm), "fit: key `gamma`: applies to the dbn model only");
        assert_eq!(err(|p| p.gamma = Gamma::Fixed(1.5), ModelKind::Dbn), "fit: key `gamma`: 1.5 is outside [0, 1]");
        assert_eq!(err(|p| p.top_examination = TopExamination::Free, ModelKind::Dbn), "fit: key `top_examination`: applies to ubm and pbm only");
        assert_eq!(err(|p| p.top_examination = TopExamination::Held(-0.1), ModelKind::Ubm), "fit: key `top_examination`: -0.1 is outside [0, 1]");
        assert!(err(|p| (p.prior, p.posterior) = (Some(Prior::Eb), true), ModelKind::Dbn).starts_with("fit: key `prior`: eb is a prior of the EM fit"));
        assert!(err(|p| p.prior = Some(Prior::Eb), ModelKind::Cm).contains("is for the EM models (dbn, ubm, ccm, pbm), not cm"));
        assert_eq!(err(|p| p.iterations = 0, ModelKind::Cm), "fit: key `iterations`: must be at least 1");
        assert_eq!(err(|p| p.tolerance = f64::NAN, ModelKind::Dbn), "fit: key `tolerance`: must be a finite number >= 0");
        assert!(err(|p| (p.posterior, p.storage) = (true, Storage::Stream), ModelKind::Dbn).starts_with("fit: key `stream`: fits by EM or counting only"));
        assert!(err(|p| (p.posterior, p.sampler.exact) = (true, true), ModelKind::Dbn).starts_with("fit: key `exact`: applies to sdbn and dcm"));
        assert!(err(|p| (p.posterior, p.sampler.chains) = (true, 0), ModelKind::Dbn).contains("chains"));
        assert!(err(|p| p.iterations = usize::MAX, ModelKind::Dbn).starts_with("fit: key `iterations`:"));
        assert_eq!("flat".parse::<Prior>().unwrap_err().to_string(), "unknown prior `flat` (expected uniform, eb, global, query or hierarchical)");
        assert_eq!("eb".parse::<Prior>().unwrap(), Prior::Eb);
        assert_eq!("query".parse::<Prior>().unwrap(), Prior::Scope(PriorScope::Query));
        assert_eq!("free".parse::<TopExamination>().unwrap(), TopExamination::Free);
        assert_eq!("0.5".parse::<TopExamination>().unwrap(), TopExamination::Held(0.5));
    }

    /// The in-memory fit of a plan is the driver's fit with the plan's settings (the same
    /// model, bit for bit, as calling the driver directly), and its model file is
    /// [`io::full_text`]'s with the summary.
    #[test]
    fn a_plan_fits_as_the_driver_does() {
        let text = "q1\td1,d2,d3 : d2\nq1\td1,d2,d3 : d1\nq2\td4,d1 : \nq1\td2,d1,d3 : d2,d3\n";
        let data = LogData::parse(text, Format::Yandex, "t", false).unwrap();
        let plan = FitParams::new(ModelKind::Ubm).check().unwrap();
        let opts = EmOptions { prior: EmPrior::Fitted, ..Default::default() };
        let (want, want_summary) = fit_em(plan.config(), &opts, &mut &data.log, &mut |_| {}).unwrap();
        let want_text = io::full_text(want.as_ref(), &data.vocab, want_summary.as_ref(), None).unwrap();
        let fitted = plan.fit_log(data, None, &Quiet).unwrap();
        assert_eq!(fitted.sessions, 4);
        assert_eq!(fitted.model_text().unwrap(), want_text);
        assert!(want_text.contains("\"fit\""));
    }
}
