//! The ground of the click-model folder: a model's name ([`ModelKind`]) and its parameters as
//! named tables ([`ParamTable`]), which every model writes and the model-file reader and
//! writer, the users and the posteriors read. Imports nothing else from `clickmodels`.

use crate::error::{check_probability, Error, Result};
use serde_json::{json, Map, Value};

/// A click model, by its lower-case name (`cm`, `dbn`, ...). The models are those of the
/// registry (`clickmodels::MODELS`); the constants name the built-in ones.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModelKind(&'static str);

#[allow(non_upper_case_globals)]
impl ModelKind {
    /// Cascade model.
    pub const Cm: ModelKind = ModelKind("cm");
    /// Dependent click model.
    pub const Dcm: ModelKind = ModelKind("dcm");
    /// Click chain model.
    pub const Ccm: ModelKind = ModelKind("ccm");
    /// Dynamic Bayesian network.
    pub const Dbn: ModelKind = ModelKind("dbn");
    /// Simplified DBN (continuation 1).
    pub const Sdbn: ModelKind = ModelKind("sdbn");
    /// User browsing model.
    pub const Ubm: ModelKind = ModelKind("ubm");
    /// Position-based model.
    pub const Pbm: ModelKind = ModelKind("pbm");
    /// Global click-through rate.
    pub const Gctr: ModelKind = ModelKind("gctr");
    /// Rank click-through rate.
    pub const Rctr: ModelKind = ModelKind("rctr");
    /// Document (query-document) click-through rate.
    pub const Dctr: ModelKind = ModelKind("dctr");

    /// The model named `name` (lower case); a model file declares its own with it and lists
    /// it in the registry.
    pub const fn new(name: &'static str) -> Self {
        ModelKind(name)
    }

    /// Lower-case name (`cm`, `dbn`, ...).
    pub fn name(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Display for ModelKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::fmt::Debug for ModelKind {
    /// As the enum it was printed (`Dbn`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut c = self.0.chars();
        if let Some(first) = c.next() {
            write!(f, "{}{}", first.to_ascii_uppercase(), c.as_str())?;
        }
        Ok(())
    }
}

/// A model's parameters as named tables, indexed like the model (pairs by pair index).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamTable {
    /// Which model.
    pub model: ModelKind,
    /// Single values (gamma, tau1, ...).
    pub scalars: Vec<(String, f64)>,
    /// Values per 0-based rank.
    pub ranks: Vec<(String, Vec<f64>)>,
    /// Values per rank and second index (UBM examination).
    pub matrices: Vec<(String, Vec<Vec<f64>>)>,
    /// Values per pair index.
    pub pairs: Vec<(String, Vec<f64>)>,
    /// Values of pairs not listed (empty: 0.5), by pair parameter; written as `unseen`.
    pub unseen: Vec<(String, f64)>,
}

impl ParamTable {
    /// An empty table for `model`.
    pub fn new(model: ModelKind) -> Self {
        ParamTable { model, scalars: Vec::new(), ranks: Vec::new(), matrices: Vec::new(), pairs: Vec::new(), unseen: Vec::new() }
    }
    /// Adds a scalar.
    pub fn scalar(mut self, name: &str, v: f64) -> Self {
        self.scalars.push((name.into(), v));
        self
    }
    /// Adds a per-rank vector.
    pub fn rank(mut self, name: &str, v: &[f64]) -> Self {
        self.ranks.push((name.into(), v.to_vec()));
        self
    }
    /// Adds a matrix.
    pub fn matrix(mut self, name: &str, v: &[Vec<f64>]) -> Self {
        self.matrices.push((name.into(), v.to_vec()));
        self
    }
    /// Adds a per-pair vector.
    pub fn pair(mut self, name: &str, v: &[f64]) -> Self {
        self.pairs.push((name.into(), v.to_vec()));
        self
    }

    /// The scalar `name`, if the table has it.
    pub fn find_scalar(&self, name: &str) -> Option<f64> {
        self.scalars.iter().find(|(n, _)| n == name).map(|x| x.1)
    }
    /// The per-rank vector `name`, if the table has it.
    pub fn find_rank(&self, name: &str) -> Option<&[f64]> {
        self.ranks.iter().find(|(n, _)| n == name).map(|x| x.1.as_slice())
    }
    /// The matrix `name`, if the table has it.
    pub fn find_matrix(&self, name: &str) -> Option<&[Vec<f64>]> {
        self.matrices.iter().find(|(n, _)| n == name).map(|x| x.1.as_slice())
    }

    pub(crate) fn get_scalar(&self, ctx: &str, name: &str) -> Result<f64> {
        self.scalars.iter().find(|(n, _)| n == name).map(|x| x.1).ok_or_else(|| Error::config(ctx, format!("scalars.{name}"), "is missing"))
    }
    pub(crate) fn get_rank(&self, ctx: &str, name: &str) -> Result<Vec<f64>> {
        self.ranks.iter().find(|(n, _)| n == name).map(|x| x.1.clone()).ok_or_else(|| Error::config(ctx, format!("ranks.{name}"), "is missing"))
    }
    pub(crate) fn get_matrix(&self, ctx: &str, name: &str) -> Result<Vec<Vec<f64>>> {
        self.matrices.iter().find(|(n, _)| n == name).map(|x| x.1.clone()).ok_or_else(|| Error::config(ctx, format!("matrices.{name}"), "is missing"))
    }
    pub(crate) fn get_pair(&self, ctx: &str, name: &str) -> Result<Vec<f64>> {
        self.pairs.iter().find(|(n, _)| n == name).map(|x| x.1.clone()).ok_or_else(|| Error::config(ctx, "pair_params", format!("must list `{name}`")))
    }
}

/// A table's scalars, ranks and matrices as the JSON objects `scalars{suffix}`,
/// `ranks{suffix}`, `matrices{suffix}` (pair parameters are not written).
pub(crate) fn table_sections(t: &ParamTable, suffix: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(format!("scalars{suffix}"), Value::Object(t.scalars.iter().map(|(n, v)| (n.clone(), json!(v))).collect()));
    m.insert(format!("ranks{suffix}"), Value::Object(t.ranks.iter().map(|(n, v)| (n.clone(), json!(v))).collect()));
    m.insert(format!("matrices{suffix}"), Value::Object(t.matrices.iter().map(|(n, v)| (n.clone(), json!(v))).collect()));
    m
}

/// Reads the objects `scalars{suffix}`, `ranks{suffix}` and `matrices{suffix}` of `obj` (each
/// optional) into a table of `model` without pair parameters; every value must be a
/// probability. `prefix` goes before the keys in errors (`grade_fit.`).
pub(crate) fn read_sections(obj: &Map<String, Value>, suffix: &str, model: ModelKind, ctx: &str, prefix: &str) -> Result<ParamTable> {
    let mut t = ParamTable::new(model);
    let section = |name: &str| -> Result<Map<String, Value>> {
        let key = format!("{name}{suffix}");
        match obj.get(&key) {
            None => Ok(Map::new()),
            Some(Value::Object(m)) => Ok(m.clone()),
            Some(_) => Err(Error::config(ctx, format!("{prefix}{key}"), "must be an object")),
        }
    };
    for (n, x) in section("scalars")? {
        t.scalars.push((n.clone(), prob(ctx, &format!("{prefix}scalars{suffix}.{n}"), &x)?));
    }
    for (n, x) in section("ranks")? {
        t.ranks.push((n.clone(), prob_list(ctx, &format!("{prefix}ranks{suffix}.{n}"), &x)?));
    }
    for (n, x) in section("matrices")? {
        let key = format!("{prefix}matrices{suffix}.{n}");
        let rows = x.as_array().ok_or_else(|| Error::config(ctx, &key, "must be a list of lists"))?;
        let m = rows.iter().enumerate().map(|(i, r)| prob_list(ctx, &format!("{key}[{i}]"), r)).collect::<Result<Vec<_>>>()?;
        t.matrices.push((n.clone(), m));
    }
    Ok(t)
}

/// A probability at `key` of a model file.
pub(crate) fn prob(ctx: &str, key: &str, v: &Value) -> Result<f64> {
    let x = v.as_f64().ok_or_else(|| Error::config(ctx, key, "must be a number"))?;
    check_probability(ctx, key, x)?;
    Ok(x)
}

/// A list of probabilities at `key` of a model file.
pub(crate) fn prob_list(ctx: &str, key: &str, v: &Value) -> Result<Vec<f64>> {
    let a = v.as_array().ok_or_else(|| Error::config(ctx, key, "must be a list of probabilities"))?;
    a.iter().enumerate().map(|(i, x)| prob(ctx, &format!("{key}[{i}]"), x)).collect()
}
