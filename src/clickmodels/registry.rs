//! The registry of click models. A [`ModelSpec`] describes one model: its name, the names of
//! its parameters as its model file lists them, the model-file reader and, for a model fitted
//! from E-step statistics, an [`EmSpec`] (how a fit starts, how its statistics are laid out,
//! how its state is decoded, and which driver options apply). `super::MODELS` lists every
//! model; the driver, the model-file reader, the CLI and Python look models up here instead of
//! naming them. A [`PosteriorSpec`] gives a model's conjugate tables or its Gibbs sampler (the
//! posteriors), a [`UserSpec`] how its parameters drive a simulated user (the scenario users).

use super::estep::{EStats, EmModel, StatsShape};
use super::gibbs::{GibbsModel, LatentSettings};
use super::prior::Axis;
use super::table::{ModelKind, ParamTable};
use super::{ClickModel, ModelConfig, MODELS};
use crate::error::{Error, Result};
use crate::user::Dynamics;

/// One click model as the registry knows it.
#[derive(Debug)]
pub struct ModelSpec {
    /// Its name.
    pub kind: ModelKind,
    /// Its scalars, per-rank vectors, matrices and per-pair vectors, as `to_table` writes
    /// them (a model file naming others is refused).
    pub scalars: &'static [&'static str],
    /// See [`ModelSpec::scalars`].
    pub ranks: &'static [&'static str],
    /// See [`ModelSpec::scalars`].
    pub matrices: &'static [&'static str],
    /// See [`ModelSpec::scalars`].
    pub pairs: &'static [&'static str],
    /// Builds the model from its parameter table (`ctx` names the source in errors).
    pub read: fn(&ParamTable, &str) -> Result<Box<dyn ClickModel>>,
    /// How it is fitted from E-step statistics; `None` for the models fitted by one count.
    pub em: Option<EmSpec>,
    /// How its posterior is computed ([`super::posterior`]).
    pub posterior: PosteriorSpec,
    /// How its parameters drive a simulated user ([`super::user`]).
    pub user: UserSpec,
}

/// How a model's posterior is computed ([`super::posterior`]).
#[derive(Debug)]
pub struct PosteriorSpec {
    /// A counting model's tables, names and axes in [`super::count_tables`]'s order: its
    /// conjugate posterior (empty for a model fitted by EM).
    pub counted: &'static [(&'static str, Axis)],
    /// Its Gibbs sampler given the fixed settings ([`super::gibbs`]): the posterior of a model
    /// fitted by EM, and of a counting model with `exact`. `None`: no sampler.
    pub sampler: Option<fn(&LatentSettings) -> Box<dyn GibbsModel>>,
}

impl PosteriorSpec {
    /// A model without a posterior sampler or conjugate tables.
    pub const NONE: PosteriorSpec = PosteriorSpec { counted: &[], sampler: None };
}

/// How a model's parameters drive a simulated user ([`super::user`]; the table of
/// `docs/scenarios.md`, "Click-model users").
#[derive(Debug)]
pub struct UserSpec {
    /// The per-pair table read as the click probability of an examined document, and the name
    /// of its per-grade values (`attractiveness`; DCTR's `ctr`).
    pub attractiveness: &'static str,
    /// The per-pair table read as the satisfaction after a click (DBN, SDBN), if any.
    pub satisfaction: Option<&'static str>,
    /// The walk from the model's query-independent parameters (the per-pair fit's table, or
    /// the tied fit's of its per-grade values).
    pub walk: fn(&ParamTable) -> UserWalk,
}

impl UserSpec {
    /// Its attractiveness, nothing else: every reached result examined, never satisfied, the
    /// walk going on (the mapping of a model that gives no other).
    pub const ATTRACTIVENESS: UserSpec = UserSpec { attractiveness: "attractiveness", satisfaction: None, walk: |_| UserWalk::default() };
}

/// A model's query-independent parameters as a simulated user's walk.
#[derive(Debug, Clone, Default)]
pub struct UserWalk {
    /// Examination and continuation.
    pub dynamics: Dynamics,
    /// Every document's (attractiveness, satisfaction) when the model has no per-pair values
    /// (GCTR, RCTR).
    pub global: Option<(f64, f64)>,
    /// Satisfaction after a click.
    pub satisfaction: Satisfaction,
}

/// Satisfaction after clicking a document: `rule(a, s, params)` of its attractiveness `a`, its
/// per-pair satisfaction `s` (NaN for a model without one) and the model's query-independent
/// `params` (CCM's tau2 and tau3).
#[derive(Debug, Clone)]
pub struct Satisfaction {
    /// The rule.
    pub rule: fn(f64, f64, &[f64]) -> f64,
    /// The parameters it reads.
    pub params: Vec<f64>,
}

impl Satisfaction {
    /// A constant.
    pub fn constant(v: f64) -> Self {
        Satisfaction { rule: |_, _, p| p[0], params: vec![v] }
    }

    /// The document's own per-pair satisfaction.
    pub fn per_pair() -> Self {
        Satisfaction { rule: |_, s, _| s, params: Vec::new() }
    }

    /// The satisfaction of a document with attractiveness `a` and per-pair satisfaction `s`.
    pub fn of(&self, a: f64, s: f64) -> f64 {
        (self.rule)(a, s, &self.params)
    }
}

impl Default for Satisfaction {
    /// Never satisfied.
    fn default() -> Self {
        Satisfaction { rule: |_, _, _| 0.0, params: Vec::new() }
    }
}

/// Decodes a state from [`EmModel::encode`]'s flag, scalars and vectors, or says what is
/// missing.
pub type Decode = fn(bool, &[f64], Vec<Vec<f64>>) -> std::result::Result<Box<dyn EmModel>, &'static str>;

/// How a model is fitted from E-step statistics (the driver, [`super::driver`]).
#[derive(Debug)]
pub struct EmSpec {
    /// The layout of its statistics.
    pub shape: StatsShape,
    /// The starting state of a fit of `cfg` (refuses settings it does not take).
    pub start: fn(&ModelConfig) -> Result<Box<dyn EmModel>>,
    /// The state from [`EmModel::encode`]'s flag, scalars and vectors; what is missing when
    /// something is.
    pub decode: Decode,
    /// EM (a pass per iteration), or counts final after one pass (SDBN).
    pub iterative: bool,
    /// Whether `--accel auto` uses SQUAREM for it (with a tolerance > 0).
    pub squarem: bool,
    /// Whether it takes a prior fitted within the fit (`--prior eb`, its default).
    pub fitted_prior: bool,
    /// Whether its rank-1 examination may be held (`--top-examination`).
    pub top_examination: bool,
}

/// The spec of `kind` (every `ModelKind` names a registered model).
pub fn spec(kind: ModelKind) -> &'static ModelSpec {
    MODELS.iter().copied().find(|m| m.kind == kind).unwrap_or_else(|| panic!("click model `{kind}` is not in the registry (clickmodels::MODELS)"))
}

/// The EM spec of `kind`, `None` for a model fitted by one count.
pub fn em_spec(kind: ModelKind) -> Option<&'static EmSpec> {
    spec(kind).em.as_ref()
}

/// The posterior sampler of `kind` with the fixed `settings` (each model reads those it has);
/// an error for a model without one.
pub fn sampler(kind: ModelKind, settings: &LatentSettings) -> Result<Box<dyn GibbsModel>> {
    match spec(kind).posterior.sampler {
        Some(f) => Ok(f(settings)),
        None => Err(Error::Invalid(format!("{kind} has no posterior sampler"))),
    }
}

/// The layout of `kind`'s statistics (no tables for a model fitted by one count).
pub fn shape(kind: ModelKind) -> StatsShape {
    em_spec(kind).map_or(StatsShape::NONE, |e| e.shape)
}

/// Pair-indexed tables of `kind`'s statistics (see [`StatsShape::pair_tables`]).
pub fn pair_tables(kind: ModelKind) -> usize {
    shape(kind).pair_tables
}

/// See [`StatsShape::base_tables`].
pub fn base_tables(kind: ModelKind) -> usize {
    shape(kind).base_tables
}

impl ModelKind {
    /// Every registered model, in the registry's order.
    pub fn all() -> Vec<ModelKind> {
        MODELS.iter().map(|m| m.kind).collect()
    }

    /// The model's spec.
    pub fn spec(self) -> &'static ModelSpec {
        spec(self)
    }

    /// The model's place in the registry (0-based; the built-in ones in the order cm, dcm,
    /// ccm, dbn, sdbn, ubm, pbm, gctr, rctr, dctr).
    pub fn index(self) -> usize {
        MODELS.iter().position(|m| m.kind == self).unwrap_or_else(|| panic!("click model `{self}` is not in the registry"))
    }

    /// True for models fitted by EM (more than one pass).
    pub fn is_em(self) -> bool {
        em_spec(self).is_some_and(|e| e.iterative)
    }
}

impl std::str::FromStr for ModelKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        MODELS.iter().map(|m| m.kind).find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<&str> = MODELS.iter().map(|m| m.kind.name()).collect();
            Error::Invalid(format!("unknown click model `{s}` (expected one of {})", names.join(", ")))
        })
    }
}

impl EStats {
    /// Empty statistics of `kind`, with pair tables sized for `pairs` pairs.
    pub fn new(kind: ModelKind, pairs: usize) -> Self {
        EStats::with_shape(kind, shape(kind), pairs)
    }

    /// Decodes [`EStats::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        EStats::from_bytes_with(bytes, &|name| {
            let kind: ModelKind = name.parse()?;
            Ok((kind, shape(kind)))
        })
    }
}
