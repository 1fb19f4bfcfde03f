//! Click models: simulate clicks on a SERP, fit from logs, predict click probabilities and
//! relevance, evaluate by log-likelihood and perplexity.
//!
//! A config fits a log into a fitted model; every fitted model implements [`ClickModel`].
//! Conventions follow PyClick so that numbers are comparable (see `docs/clickmodels.md`):
//! MLE probabilities start from one pseudo-success in two pseudo-trials, EM probabilities
//! start at 0.5 and are clamped to [1e-6, 1 - 1e-6], a pair never seen in training gets the
//! prior 0.5, and an event the model deems impossible gets probability 1e-6.
//!
//! ```
//! use serpsim::clickmodels::{ClickModel, DbnConfig, Gamma};
//! use serpsim::logs::{Format, LogData};
//! let data = LogData::parse("q\ta,b,c : a; q\ta,b,c : b; q\tb,a,c :\n", Format::Yandex, "x", false).unwrap();
//! let dbn = DbnConfig { gamma: Gamma::Fixed(0.9), ..Default::default() }.fit(&mut &data.log).unwrap();
//! let mut probs = Vec::new();
//! dbn.click_probs(data.log.session(0).pairs, &mut probs);
//! assert!(probs.iter().all(|p| (0.0..=1.0).contains(p)));
//! ```

pub mod ccm;
pub mod dbn;
pub mod driver;
pub mod ebprior;
mod em;
pub mod estep;
pub mod eval;
pub mod fitting;
pub mod gibbs;
pub mod hyper;
pub mod io;
pub mod labels;
pub mod manypairs;
pub mod metrics;
mod mle;
pub mod orderings;
pub mod pbm;
pub mod portable;
pub mod posterior;
pub mod prior;
pub mod recovery;
pub mod registry;
pub mod sdbn;
pub mod sharded;
pub mod state;
pub mod synthetic;
pub mod table;
pub mod ubm;
pub mod unseen;
pub mod user;
pub mod validate;

pub use ccm::Ccm;
pub use dbn::{Dbn, DbnConfig};
pub use em::{EmConfig, Gamma};
pub use estep::{Counts, EStats, EmModel, ExactSum};
pub use mle::{count_tables, model_from_tables, Cm, Ctr, CtrKind, Dcm};
pub use pbm::Pbm;
pub use sdbn::Sdbn;
pub use state::EmState;
pub use table::{ModelKind, ParamTable};
pub use ubm::Ubm;

use crate::error::{Error, Result};
use crate::logs::{ClickLog, SessionRef, SessionSource};
use crate::rng::Stream;

/// Probability given to events a model deems impossible, and the EM clamp.
pub const PROB_MIN: f64 = 1e-6;
/// Value of a parameter never updated by training (unseen pairs, unused ranks).
pub const PRIOR: f64 = 0.5;

/// Declares the model files (`mod NAME;`, each with its `SPEC`) and lists every model's spec
/// in order in [`MODELS`]. `mod NAME` is a model in its own file; a path is a spec declared
/// elsewhere.
macro_rules! click_models {
    (@list [$($spec:expr),*]) => {
        /// The registry: every click model, in the order the CLI lists them
        /// ([`registry::ModelSpec`]; lookups in [`registry`]).
        pub static MODELS: &[&registry::ModelSpec] = &[$(&$spec),*];
    };
    (@list [$($spec:expr),*] mod $m:ident $(, $($rest:tt)*)?) => {
        pub mod $m;
        click_models!(@list [$($spec,)* $m::SPEC] $($($rest)*)?);
    };
    (@list [$($spec:expr),*] $p:path $(, $($rest:tt)*)?) => {
        click_models!(@list [$($spec,)* $p] $($($rest)*)?);
    };
}

// The click models. A new model is one file implementing `EmModel` with a `SPEC`
// (docs/recipes/click-model.md) and one line here: `mod NAME,`.
click_models!(@list []
    mle::CM, mle::DCM, ccm::SPEC, dbn::SPEC, sdbn::SPEC, ubm::SPEC, pbm::SPEC, mle::GCTR, mle::RCTR, mle::DCTR,
);

/// A fitted (or hand-set) click model. Results are identified by dense pair indices
/// ([`crate::logs::Vocab`]); rank-dependent parameters use the position in the slice.
pub trait ClickModel: Send + Sync + std::fmt::Debug {
    /// Which model this is.
    fn kind(&self) -> ModelKind;

    /// Full (unconditional) click probabilities P(C_r = 1) for the results `pairs`.
    fn click_probs(&self, pairs: &[u32], out: &mut Vec<f64>);

    /// Probability of the observed event at each rank (click or no click) given the
    /// session's clicks above it, P(C_r = c_r | C_1..C_{r-1}), as PyClick's
    /// `get_conditional_click_probs` computes it.
    fn observed_probs(&self, session: SessionRef<'_>, out: &mut Vec<f64>);

    /// Predicted relevance of a pair (PyClick's `predict_relevance`).
    fn relevance(&self, pair: u32) -> f64;

    /// Simulates one user's clicks on `pairs`.
    fn simulate(&self, pairs: &[u32], rng: &mut Stream, clicks: &mut Vec<bool>);

    /// Parameters as named tables (for JSON files).
    fn to_table(&self) -> ParamTable;

    /// Conditional click probabilities P(C_r = 1 | C_1..C_{r-1}) given the session's clicks.
    fn conditional_click_probs(&self, session: SessionRef<'_>, out: &mut Vec<f64>) {
        self.observed_probs(session, out);
        for (p, &c) in out.iter_mut().zip(session.clicks) {
            if !c {
                *p = 1.0 - *p;
            }
        }
    }
}

/// Which model to fit and how: one value per model.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelConfig {
    /// CM by counting.
    Cm,
    /// DCM by counting.
    Dcm,
    /// SDBN by counting.
    Sdbn,
    /// A CTR baseline by counting.
    Ctr(CtrKind),
    /// DBN by EM.
    Dbn(DbnConfig),
    /// CCM by EM.
    Ccm(EmConfig),
    /// UBM by EM.
    Ubm(EmConfig),
    /// PBM by EM.
    Pbm(EmConfig),
    /// Another model of the registry fitted from E-step statistics, with its EM settings.
    Em(ModelKind, EmConfig),
}

impl ModelConfig {
    /// The default config of `kind` with the given EM settings.
    pub fn new(kind: ModelKind, em: EmConfig) -> Self {
        match kind {
            ModelKind::Cm => ModelConfig::Cm,
            ModelKind::Dcm => ModelConfig::Dcm,
            ModelKind::Sdbn => ModelConfig::Sdbn,
            ModelKind::Gctr => ModelConfig::Ctr(CtrKind::Global),
            ModelKind::Rctr => ModelConfig::Ctr(CtrKind::Rank),
            ModelKind::Dctr => ModelConfig::Ctr(CtrKind::Document),
            ModelKind::Dbn => ModelConfig::Dbn(DbnConfig { gamma: Gamma::Fitted, iterations: em.iterations, tolerance: em.tolerance }),
            ModelKind::Ccm => ModelConfig::Ccm(em),
            ModelKind::Ubm => ModelConfig::Ubm(em),
            ModelKind::Pbm => ModelConfig::Pbm(em),
            _ => ModelConfig::Em(kind, em),
        }
    }

    /// The EM settings (most passes, relative log-likelihood tolerance) of a model fitted from
    /// E-step statistics (SDBN: one pass); `None` for the models fitted by a single count.
    pub fn em_config(&self) -> Option<EmConfig> {
        match self {
            ModelConfig::Dbn(c) => Some(EmConfig { iterations: c.iterations, tolerance: c.tolerance }),
            ModelConfig::Ubm(c) | ModelConfig::Ccm(c) | ModelConfig::Pbm(c) => Some(*c),
            ModelConfig::Sdbn => Some(EmConfig { iterations: 1, tolerance: 0.0 }),
            ModelConfig::Em(kind, c) => registry::em_spec(*kind).map(|e| if e.iterative { *c } else { EmConfig { iterations: 1, tolerance: 0.0 } }),
            _ => None,
        }
    }

    /// Fits the model with the EM driver's options, calling `on_pass` after every pass over
    /// the log; returns the model and, for models fitted from E-step statistics (SDBN, DBN,
    /// UBM, CCM, PBM), the driver's report. Models fitted otherwise take one sequential pass.
    pub fn fit_with(
        &self,
        src: &mut dyn SessionSource,
        opts: &driver::EmOptions,
        on_pass: &mut dyn FnMut(&driver::PassInfo),
    ) -> Result<(Box<dyn ClickModel>, Option<driver::EmReport>)> {
        let Some(em) = self.em_config() else {
            if opts.top_examination.is_some() {
                return Err(Error::Invalid("top_examination applies to ubm and pbm only".into()));
            }
            // Refused as the EM models other than DBN, UBM, CCM and PBM refuse it.
            driver::start_prior(self.kind(), opts)?;
            let m = self.fit(src)?;
            return Ok((m, None));
        };
        let mut state = EmState::new(self)?;
        let report = driver::run(&mut state, &em, opts, src, on_pass)?;
        let model = match &report.prior {
            Some(p) => state.model_with_prior(p)?,
            None => state.model(),
        };
        Ok((model, Some(report)))
    }

    /// The model this config fits.
    pub fn kind(&self) -> ModelKind {
        match self {
            ModelConfig::Cm => ModelKind::Cm,
            ModelConfig::Dcm => ModelKind::Dcm,
            ModelConfig::Sdbn => ModelKind::Sdbn,
            ModelConfig::Ctr(CtrKind::Global) => ModelKind::Gctr,
            ModelConfig::Ctr(CtrKind::Rank) => ModelKind::Rctr,
            ModelConfig::Ctr(CtrKind::Document) => ModelKind::Dctr,
            ModelConfig::Dbn(_) => ModelKind::Dbn,
            ModelConfig::Ccm(_) => ModelKind::Ccm,
            ModelConfig::Ubm(_) => ModelKind::Ubm,
            ModelConfig::Pbm(_) => ModelKind::Pbm,
            ModelConfig::Em(kind, _) => *kind,
        }
    }

    /// Fits the model on every session of `src`.
    pub fn fit(&self, src: &mut dyn SessionSource) -> Result<Box<dyn ClickModel>> {
        Ok(match self {
            ModelConfig::Cm => Box::new(Cm::fit(src)?),
            ModelConfig::Dcm => Box::new(Dcm::fit(src)?),
            ModelConfig::Sdbn => Box::new(Sdbn::fit(src)?),
            ModelConfig::Ctr(k) => Box::new(Ctr::fit(*k, src)?),
            ModelConfig::Dbn(c) => Box::new(c.fit(src)?),
            ModelConfig::Ccm(c) => Box::new(Ccm::fit(c, src)?),
            ModelConfig::Ubm(c) => Box::new(Ubm::fit(c, src)?),
            ModelConfig::Pbm(c) => Box::new(Pbm::fit(c, src)?),
            ModelConfig::Em(..) => self.fit_with(src, &driver::EmOptions::default(), &mut |_| {})?.0,
        })
    }
}

/// A parameter by index, the prior when out of range (unseen pair or rank).
#[inline]
pub(crate) fn param(v: &[f64], i: usize) -> f64 {
    match v.get(i) {
        Some(&x) => x,
        None => PRIOR,
    }
}

/// A Bernoulli draw.
#[inline]
pub(crate) fn draw(p: f64, rng: &mut Stream) -> bool {
    crate::rng::bernoulli(p, rng)
}

#[cfg(test)]
mod tests;

/// Simulates `replicates` sessions of `model` on every SERP of `serps` (in order; replicate
/// `k` of SERP `i` uses the stream `(seed, i, k)`), in parallel. The output is the same
/// whatever the thread count.
pub fn simulate_log(model: &dyn ClickModel, serps: &ClickLog, replicates: usize, seed: u64) -> ClickLog {
    use rayon::prelude::*;
    let chunks: Vec<Vec<bool>> = (0..serps.len())
        .into_par_iter()
        .with_min_len(256)
        .map(|i| {
            let s = serps.session(i);
            let mut out = Vec::with_capacity(s.pairs.len() * replicates);
            let mut clicks = Vec::with_capacity(s.pairs.len());
            for k in 0..replicates {
                let mut rng = crate::rng::stream(seed, &[i as u64, k as u64]);
                model.simulate(s.pairs, &mut rng, &mut clicks);
                out.extend_from_slice(&clicks);
            }
            out
        })
        .collect();
    let mut log = ClickLog::new();
    for (i, clicks) in chunks.iter().enumerate() {
        let s = serps.session(i);
        for k in 0..replicates {
            let n = s.pairs.len();
            log.push(s.query, s.pairs, &clicks[k * n..(k + 1) * n]);
        }
    }
    log
}
