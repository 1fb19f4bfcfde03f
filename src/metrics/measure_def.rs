//! What a measure declares ([`MeasureDef`]: names, cut-off, parameters, build, compute), what it
//! plans into ([`MeasureKind`], [`Metric`]), and the parsed spelling a build reads ([`Spelling`]).

use crate::error::{Error, Result};
use crate::metrics::cube::CubeParams;
use crate::metrics::cube::SubtopicWeights;
use crate::metrics::novelty::NoveltyParams;
use crate::metrics::qrels::JudgedTopic;
use crate::metrics::runs::RankedTopic;
use crate::metrics::trec::Discount;
use crate::metrics::trec_eval::{Family, TrecMeasure};
use crate::metrics::user_models::{InsVariant, TbgParams};

/// Time model of the Cube Test (Luo et al. Table 2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CubeTime {
    /// "t": one unit per document; only the top 10 are examined unless `@k` says otherwise.
    Top,
    /// "a": every document costs the same number of words read (150).
    Words(f64),
    /// "g": TBG's time, `4.4 + (0.018 l + 7.8) P(C=1|R)`, with `len` words when unknown.
    Tbg {
        /// Document length in words when none is known.
        default_length: f64,
    },
    /// "d": per-document times supplied with the judgements (seconds); missing ones cost `default`.
    PerDocument {
        /// Time of a document without a supplied time.
        default: f64,
    },
}

/// serpsim's own metrics (the trec_eval family is [`crate::metrics::trec_eval::TrecMeasure`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Metric {
    /// nDCG with Järvelin and Kekäläinen's original discount (the `log2(i + 1)` discount is
    /// trec_eval's `ndcg` / `ndcg_cut`).
    Ndcg {
        /// Cut-off (none: the whole ranking).
        k: Option<usize>,
        /// Discount.
        discount: Discount,
    },
    /// ERR with maximum grade (none: the largest grade in the qrels).
    Err {
        /// Cut-off.
        k: Option<usize>,
        /// Maximum grade g_max.
        max_grade: Option<i32>,
    },
    /// RBP with persistence p over binary (grade >= `rel`) or graded gains, without
    /// trec_eval's per-topic gain normalisation (that is trec_eval's `rbp`).
    Rbp {
        /// Persistence.
        p: f64,
        /// Graded gains `grade / g_max` instead of binary.
        graded: bool,
        /// Gains are the grades themselves (negative ones 0), unscaled: ir_measures' `RBP(p=..)`
        /// without `rel`, as its trectools back end computes it. Overrides `graded`.
        raw: bool,
    },
    /// RBP's tail `p^n` for a ranking of n documents: what the score could still gain if
    /// every rank below the list were relevant (unjudged documents inside the list are not
    /// counted; trec_eval's `rbp_resid` counts them).
    RbpTail {
        /// Persistence.
        p: f64,
    },
    /// INSQ, INSQ' or INST rate of gain.
    Ins {
        /// Variant.
        variant: InsVariant,
        /// Target T.
        t: f64,
        /// Graded gains.
        graded: bool,
    },
    /// Expected depth of the INSQ family's user.
    InsDepth {
        /// Variant.
        variant: InsVariant,
        /// Target T.
        t: f64,
        /// Graded gains.
        graded: bool,
    },
    /// RRT(T).
    Rrt {
        /// Target T.
        t: usize,
    },
    /// ERRT(T).
    Errt {
        /// Target T.
        t: usize,
    },
    /// Time-biased gain.
    Tbg(TbgParams),
    /// PRES with cut-off N_max.
    Pres {
        /// N_max.
        n_max: usize,
    },
    /// PRES_est = PRES / min(1, N_max / n).
    PresEst {
        /// N_max.
        n_max: usize,
    },
    /// The Cube Test (needs subtopic qrels).
    Cube {
        /// Equation, cap, gamma.
        params: CubeParams,
        /// Subtopic weights.
        weights: SubtopicWeights,
        /// Time model.
        time: CubeTime,
        /// Depth |D| (default: 10 for time "t", else the whole ranking).
        k: Option<usize>,
    },
    /// Fujii and Ishikawa's novelty-based utility (compares each run with the others).
    Novelty(NoveltyParams),
    /// A metric from click-model parameters (`clickmodels::metrics`): each result's
    /// attractiveness and satisfaction come from its relevance through a Table 1 user model of
    /// Grotov et al. (relevant: grade >= 1).
    ClickModel {
        /// rrMetric or EBU.
        kind: ClickMetricKind,
        /// P(click | relevant), P(click | non-relevant).
        click: [f64; 2],
        /// P(satisfied | click, relevant), P(satisfied | click, non-relevant).
        satisfaction: [f64; 2],
        /// DBN continuation (EBU only).
        gamma: f64,
        /// Cut-off.
        k: Option<usize>,
    },
    /// A measure computed by its own declaration ([`MeasureDef::compute`]): every measure added
    /// through the registry recipe (`docs/recipes/measure.md`) plans into this.
    Registered(Registered),
}

/// Which click-model metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClickMetricKind {
    /// rrMetric (Grotov et al. Eq. 3).
    RrMetric,
    /// Expected browsing utility (Yilmaz et al.), utility 1 per relevant clicked result.
    Ebu,
}

/// What one planned measure computes.
#[derive(Debug, Clone, PartialEq)]
pub enum MeasureKind {
    /// A trec_eval measure (one column per cut-off).
    Trec(TrecMeasure),
    /// A serpsim measure (one column).
    Own(Metric),
}

/// How a measure takes `@k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cutoff {
    /// No cut-off: `@k` is an error.
    None,
    /// An optional positive integer (none: the whole ranking, or the measure's own default).
    Optional,
    /// A required positive integer.
    Required,
    /// Not an integer: the measure reads `@` itself (`IPrec@0.5`).
    Custom,
}

/// What a parameter's value must be. Each kind has its check and its error message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// A finite number.
    Number,
    /// A number > 0.
    Positive,
    /// A number in [0, 1], or (0, 1] when `open_low`.
    Probability {
        /// Whether 0 is refused.
        open_low: bool,
    },
    /// An integer > 0.
    Count,
    /// One of these words (case-insensitive).
    Choice(&'static [&'static str]),
    /// Any text, checked by the measure's build.
    Text,
}

/// One parameter a measure accepts (`key=value` after `:` or inside `(...)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamSpec {
    /// Key, lower case.
    pub key: &'static str,
    /// Kind and range.
    pub kind: ParamKind,
    /// Default, as text (a number for the numeric kinds when the default is a constant; read by
    /// [`Spelling::number`]); empty when the default depends on something else (`about` says).
    pub default: &'static str,
    /// One line for documentation and suggestions.
    pub about: &'static str,
}

/// The parts of a measure's entry that say what it computes once planned.
#[derive(Clone, Copy)]
pub struct Compute {
    /// The value on one ranked topic.
    pub value: fn(&TopicInput, &Registered) -> f64,
    /// Whether it reads document identities (`RankedTopic::docs`).
    pub needs_docs: bool,
}

/// One measure's declaration: its names, cut-off, parameters, how a spelling of it is turned
/// into a planned measure, and (for measures added through the registry) how it is computed.
#[derive(Clone, Copy)]
pub struct MeasureDef {
    /// Spellings, lower case (the parser compares case-insensitively); the first is the name
    /// used in messages.
    pub names: &'static [&'static str],
    /// How it is shown in "did you mean" suggestions, in suggestion order.
    pub shown: &'static [&'static str],
    /// One line for documentation.
    pub about: &'static str,
    /// How it takes `@k`.
    pub cutoff: Cutoff,
    /// The parameters it accepts.
    pub params: &'static [ParamSpec],
    /// Reads a spelling into a planned measure. [`generic_build`] is the generic build: the
    /// cut-off as [`MeasureDef::cutoff`] says, every parameter at its default unless given.
    pub build: fn(&mut Spelling) -> Result<Built>,
    /// How the measure is computed when it plans into [`Metric::Registered`] (measures whose
    /// value is a [`Metric`] variant or a trec_eval family compute there: `None`).
    pub compute: Option<Compute>,
}

impl std::fmt::Debug for MeasureDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeasureDef").field("names", &self.names).field("cutoff", &self.cutoff).field("params", &self.params).finish()
    }
}

impl MeasureDef {
    /// The name used in messages.
    pub fn name(&self) -> &'static str {
        self.names[0]
    }

    /// The declaration of parameter `key`.
    pub fn param(&self, key: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.key == key)
    }
}

/// A planned measure computed by its declaration: the declaration, the cut-off and every
/// parameter's value (in [`MeasureDef::params`] order; `Choice` and `Text` parameters as the
/// index of the option, or NaN).
#[derive(Clone)]
pub struct Registered {
    /// The declaration.
    pub def: &'static MeasureDef,
    /// Cut-off.
    pub k: Option<usize>,
    /// Parameter values, in declaration order.
    pub params: Vec<f64>,
}

impl Registered {
    /// The value of parameter `key`.
    pub fn param(&self, key: &str) -> f64 {
        let i = self.def.params.iter().position(|p| p.key == key).unwrap_or_else(|| panic!("`{}` declares no parameter `{key}`", self.def.name()));
        self.params[i]
    }
}

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registered").field("measure", &self.def.name()).field("k", &self.k).field("params", &self.params).finish()
    }
}

impl PartialEq for Registered {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.def, other.def) && self.k == other.k && self.params == other.params
    }
}

/// What a measure sees of one ranked topic.
pub struct TopicInput<'a> {
    /// The topic's judgements.
    pub topic: &'a JudgedTopic,
    /// The ranking: trec_eval's relevance value per rank (`rels`; `NONPOOL` for a document not
    /// in the qrels) and the documents (when some measure needs them). Not cut at `depth`.
    pub ranked: &'a RankedTopic,
    /// The grade per rank (negative grades as 0), cut at ir_measures' `@k` depth when given.
    pub grades: &'a [i32],
    /// Minimum grade of a relevant document.
    pub level: i32,
    /// The largest grade in the qrels.
    pub max_grade: i32,
}

/// What a build returns.
#[derive(Debug, Clone, PartialEq)]
pub enum Built {
    /// A trec_eval family's measure; the parser then checks the cut-off (as the declaration
    /// says), reads `rel` and `judged_only`, and refuses unknown parameters.
    Trec {
        /// The measure.
        measure: TrecMeasure,
        /// Evaluate only the first `depth` ranks (`RR@10`).
        depth: Option<usize>,
    },
    /// A serpsim measure; the parser then refuses unknown parameters.
    Own {
        /// The metric.
        metric: Metric,
        /// Relevance level (`RBP(rel=2,p=0.8)`).
        rel: Option<i32>,
        /// Evaluate only the first `depth` ranks (`RBP(p=0.8)@10`).
        depth: Option<usize>,
    },
}

impl Built {
    /// A serpsim metric with the evaluation's relevance level and the whole ranking.
    pub fn own(metric: Metric) -> Built {
        Built::Own { metric, rel: None, depth: None }
    }

    /// A trec_eval family at its default parameters (`Some`: trec_eval's parameter text).
    pub fn trec(family: Family, params: Option<String>) -> Result<Built> {
        let measure = match params {
            Some(s) => TrecMeasure::parse(family, &s)?,
            None => TrecMeasure::default_of(family),
        };
        Ok(Built::Trec { measure, depth: None })
    }
}

/// One spelling being read: `name[(k=v,...)][@k][:k=v,...]`, split, with the parameters not yet
/// read. A build reads the cut-off and parameters it needs; the parser refuses the rest.
pub struct Spelling<'a> {
    /// The whole text as given.
    pub text: &'a str,
    /// The name as given (before `(`, `@` and `:`).
    pub base: &'a str,
    /// The text after `@`.
    pub at: Option<&'a str>,
    /// Whether parameters were given after `:` (serpsim's spelling).
    pub colon: bool,
    /// Whether parameters were given in `(...)` (ir_measures' spelling).
    pub paren: bool,
    /// The declaration matched.
    pub def: &'static MeasureDef,
    pairs: Vec<(String, String, bool)>,
}

impl<'a> Spelling<'a> {
    /// Reads the `key=value` pairs of a spelling (before its name is looked up, so that a
    /// malformed list is reported first).
    pub(super) fn pairs(text: &str, params: Option<&str>) -> Result<Vec<(String, String, bool)>> {
        let mut pairs = Vec::new();
        if let Some(params) = params {
            for item in params.split(',').filter(|s| !s.is_empty()) {
                let (k, v) = item.split_once('=').ok_or_else(|| Error::config(format!("metric `{text}`"), item, "expected key=value"))?;
                let k = k.trim().to_ascii_lowercase();
                if pairs.iter().any(|(pk, _, _): &(String, String, bool)| *pk == k) {
                    return Err(Error::config(format!("metric `{text}`"), k, "given twice"));
                }
                pairs.push((k, v.trim().to_string(), false));
            }
        }
        Ok(pairs)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        text: &'a str,
        base: &'a str,
        at: Option<&'a str>,
        colon: bool,
        paren: bool,
        pairs: Vec<(String, String, bool)>,
        def: &'static MeasureDef,
    ) -> Self {
        Spelling { text, base, at, colon, paren, def, pairs }
    }

    /// An error about parameter `key`.
    pub fn err(&self, key: &str, reason: impl Into<String>) -> Error {
        Error::config(format!("metric `{}`", self.text), key, reason)
    }

    /// An error about the cut-off.
    pub fn err_at(&self, reason: impl Into<String>) -> Error {
        err_at(self.text, reason)
    }

    /// Whether every parameter given is one of `keys`.
    pub fn only(&self, keys: &[&str]) -> bool {
        self.pairs.iter().all(|(k, _, _)| keys.contains(&k.as_str()))
    }

    fn spec(&self, key: &str) -> &'static ParamSpec {
        self.def.param(key).unwrap_or_else(|| panic!("`{}` reads parameter `{key}` without declaring it", self.def.name()))
    }

    /// The text of parameter `key`, marked read.
    pub fn raw(&mut self, key: &str) -> Option<String> {
        self.spec(key);
        self.pairs.iter_mut().find(|(k, _, _)| k == key).map(|(_, v, used)| {
            *used = true;
            v.clone()
        })
    }

    /// Numeric parameter `key`, checked as its [`ParamKind`] says (`None`: not given).
    pub fn opt_number(&mut self, key: &str) -> Result<Option<f64>> {
        let kind = self.spec(key).kind;
        let v = match self.raw(key) {
            None => return Ok(None),
            Some(v) => v,
        };
        if kind == ParamKind::Count {
            return match v.parse::<usize>() {
                Ok(x) if x > 0 => Ok(Some(x as f64)),
                _ => Err(self.err(key, format!("`{v}` is not a positive integer"))),
            };
        }
        let x = match v.parse::<f64>() {
            Ok(x) if x.is_finite() => x,
            _ => return Err(self.err(key, format!("`{v}` is not a finite number"))),
        };
        match kind {
            ParamKind::Positive if x <= 0.0 => Err(self.err(key, format!("{x} must be > 0"))),
            ParamKind::Probability { open_low } if !(0.0..=1.0).contains(&x) || (open_low && x == 0.0) => {
                Err(self.err(key, format!("{x} is outside {}0, 1]", if open_low { "(" } else { "[" })))
            }
            _ => Ok(Some(x)),
        }
    }

    /// Numeric parameter `key`, or its declared default.
    pub fn number(&mut self, key: &str) -> Result<f64> {
        let spec = self.spec(key);
        match self.opt_number(key)? {
            Some(x) => Ok(x),
            None => Ok(spec.default.parse().unwrap_or_else(|_| panic!("`{}`: parameter `{key}` has no numeric default", self.def.name()))),
        }
    }

    /// Integer parameter `key` (a [`ParamKind::Count`]), or its declared default.
    pub fn count(&mut self, key: &str) -> Result<usize> {
        Ok(self.number(key)? as usize)
    }

    /// Choice parameter `key`, lower case (`None`: not given).
    pub fn choice(&mut self, key: &str) -> Result<Option<String>> {
        let ParamKind::Choice(options) = self.spec(key).kind else { panic!("`{key}` is not a choice") };
        match self.raw(key) {
            None => Ok(None),
            Some(v) => {
                let lower = v.to_ascii_lowercase();
                if options.contains(&lower.as_str()) {
                    Ok(Some(lower))
                } else {
                    Err(self.err(key, format!("`{v}` is not one of {}", options.join(", "))))
                }
            }
        }
    }

    /// `@k` as a positive integer (`what` names the measure in the message).
    pub fn k(&self, what: &str) -> Result<Option<usize>> {
        at_k(self.text, self.at, what)
    }

    /// `@k`, required.
    pub fn need_k(&self, what: &str) -> Result<usize> {
        self.k(what)?.ok_or_else(|| self.err_at(format!("{what} needs a cut-off, e.g. {what}@10")))
    }

    /// Refuses `@k`.
    pub fn no_k(&self) -> Result<()> {
        if self.at.is_some() {
            return Err(self.err_at("this measure takes no cut-off"));
        }
        Ok(())
    }

    /// The cut-off of a serpsim measure, as [`MeasureDef::cutoff`] says: `@k` is first read as a
    /// positive integer, then refused (`None`) or required (`Required`).
    pub fn cutoff(&self) -> Result<Option<usize>> {
        let k = self.k(self.base)?;
        match self.def.cutoff {
            Cutoff::None => self.no_k().map(|_| None),
            Cutoff::Required => self.need_k(self.def.name()).map(Some),
            Cutoff::Optional | Cutoff::Custom => Ok(k),
        }
    }

    /// The generic build: the cut-off as declared, then every declared parameter (numbers at
    /// their default unless given; a choice as the index of its option, the first when not
    /// given), planned as [`Metric::Registered`].
    pub fn registered(&mut self) -> Result<Built> {
        let k = self.cutoff()?;
        let mut params = Vec::with_capacity(self.def.params.len());
        for spec in self.def.params {
            let v = match spec.kind {
                ParamKind::Choice(options) => {
                    let given = self.choice(spec.key)?;
                    let word = given.as_deref().unwrap_or(spec.default);
                    options.iter().position(|o| *o == word).unwrap_or(0) as f64
                }
                ParamKind::Text => {
                    self.raw(spec.key);
                    f64::NAN
                }
                _ => self.number(spec.key)?,
            };
            params.push(v);
        }
        Ok(Built::own(Metric::Registered(Registered { def: self.def, k, params })))
    }

    /// Refuses parameters no build read.
    pub(super) fn finish(self) -> Result<()> {
        if let Some((k, _, _)) = self.pairs.iter().find(|(_, _, used)| !used) {
            return Err(self.err(k, "unknown parameter"));
        }
        Ok(())
    }
}

/// The generic build ([`Spelling::registered`]) as a [`MeasureDef::build`]: the cut-off as
/// declared, every parameter at its default unless given, planned as [`Metric::Registered`].
pub fn generic_build(s: &mut Spelling) -> Result<Built> {
    s.registered()
}

fn err_at(text: &str, reason: impl Into<String>) -> Error {
    Error::config(format!("measure `{text}`"), "@", reason)
}

/// `@k` of spelling `text` as a positive integer (`what` names the measure in the message).
pub(super) fn at_k(text: &str, at: Option<&str>, what: &str) -> Result<Option<usize>> {
    at.map(|k| k.parse::<usize>().ok().filter(|&k| k > 0).ok_or_else(|| err_at(text, format!("{what} cut-off `{k}` is not a positive integer")))).transpose()
}
