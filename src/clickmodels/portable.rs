//! Portable users: a click model fitted on one log driving users on another collection.
//!
//! What does not depend on the documents (examination by rank, continuation) carries over as
//! fitted. Per-document parameters (attractiveness, satisfaction, CTR) are mapped to the target
//! collection's relevance grades, either
//!
//! - **fitted per grade** ([`fit_by_grade`], `clicks fit --qrels`): the log's own documents have
//!   labels, and the model is refitted with its per-document parameters tied by grade. Every
//!   (query, document) pair of the log is replaced by its grade, so the unchanged fitter (EM
//!   for DBN, CCM, UBM, PBM; counting for the others) estimates one parameter per grade from
//!   every impression of that grade. For a DBN this is the maximum-likelihood estimate under a
//!   grade-level DBN. We chose it over the session-weighted mean of per-pair estimates because
//!   per-pair estimates of rarely shown pairs sit near the 0.5 start and per-pair satisfaction
//!   is weakly identified (it is only learned from last clicks), so their mean is biased
//!   towards 0.5; the tied fit pools the evidence instead. The planted-truth test checks that
//!   it recovers a known grade-level DBN within Monte-Carlo error.
//! - or by **quantile matching** ([`quantile_by_grade`]), a stated assumption: attractiveness
//!   (and, separately, satisfaction) rises with the grade. The model's per-pair values, sorted,
//!   are cut at the target collection's cumulative grade shares; each grade gets the mean of
//!   its slice of the empirical quantile function, so the mean over the target's results equals
//!   the model's mean over its pairs.
//!
//! `docs/scenarios.md` ("Click-model users") is the one account of what every user component
//! does when a click model is present.

use super::driver::EmOptions;
use super::table::ParamTable;
use super::{ClickModel, ModelConfig, ModelKind};
use crate::collection::trec::Qrels;
use crate::error::{Error, Result};
use crate::logs::{ClickLog, Vocab};
use rand::Rng;
use rayon::prelude::*;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Level of the per-grade intervals (`clicks fit --qrels`): 95 %.
pub const GRADE_INTERVAL_LEVEL: f64 = 0.95;

pub use super::labels::DEFAULT_GRADE_BOOTSTRAP;

/// What the per-grade intervals generalise over: the log's queries (the file's `interval_over`).
pub const INTERVAL_OVER: &str = "queries";

/// Per-document parameters of one relevance grade.
#[derive(Debug, Clone, PartialEq)]
pub struct GradeRow {
    /// The grade.
    pub grade: i32,
    /// Impressions (results shown) of documents of this grade in the training log.
    pub impressions: u64,
    /// Values by pair-parameter name (`attractiveness`, `satisfaction`, `ctr`).
    pub values: Vec<(String, f64)>,
    /// Percentile interval of each value over query resamples, `(name, lower, upper)` in the
    /// order of `values` (the file's `<name>_lower`, `<name>_upper`); empty without a
    /// bootstrap, or when no resample showed the grade.
    pub intervals: Vec<(String, f64, f64)>,
    /// Resamples that showed the grade, the interval's replicates (the file's
    /// `interval_resamples`; 0 without intervals).
    pub interval_resamples: u64,
}

impl GradeRow {
    /// The value of parameter `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.values.iter().find(|(n, _)| n == name).map(|x| x.1)
    }

    /// The interval `(lower, upper)` of parameter `name`.
    pub fn interval(&self, name: &str) -> Option<(f64, f64)> {
        self.intervals.iter().find(|(n, _, _)| n == name).map(|x| (x.1, x.2))
    }
}

/// The query-independent parameters (DBN gamma, CCM taus, DCM continuation, UBM and PBM
/// examination) of the tied fit that produced the per-grade values, which users run with when
/// they use those values (the model file's `grade_fit`).
#[derive(Debug, Clone, PartialEq)]
pub struct GradeFit {
    /// Scalars, ranks and matrices of the tied fit (no pair parameters).
    pub table: ParamTable,
    /// Their interval over query resamples.
    pub interval: Option<QueryInterval>,
}

/// A percentile interval over bootstrap resamples of the log's queries.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryInterval {
    /// Coverage level (0.95).
    pub level: f64,
    /// Resamples drawn.
    pub resamples: u64,
    /// Seed of the resamples.
    pub seed: u64,
    /// Lower ends of the query-independent parameters, shaped as [`GradeFit::table`]; `None`
    /// when some entry was reached by no resample (every rank must be shown in a resample).
    pub lower: Option<ParamTable>,
    /// Upper ends, as `lower`.
    pub upper: Option<ParamTable>,
}

/// Per-grade parameters fitted with the log's labels (the model file's `grades` key), and the
/// fit they come from (`grade_fit`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ByGrade {
    /// One row per grade, ascending.
    pub rows: Vec<GradeRow>,
    /// The tied fit's query-independent parameters and the interval's description; `None` in
    /// files written before `grade_fit` existed (their users run with the per-pair fit's).
    pub fit: Option<GradeFit>,
    /// What reading the label file found and assumed (the model file's `labels`); `None` in
    /// files written before it existed.
    pub labels: Option<super::labels::LabelSummary>,
}

/// What [`fit_by_grade`] saw.
#[derive(Debug, Clone, PartialEq)]
pub struct ByGradeReport {
    /// Impressions whose (query, document) is judged.
    pub judged: u64,
    /// Impressions whose (query, document) is not in the qrels (fitted apart, not stored).
    pub unjudged: u64,
    /// Distinct queries of the log (the units the bootstrap resamples).
    pub queries: usize,
}

/// How [`fit_by_grade_with`] fits.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ByGradeOptions {
    /// The EM driver's options (those of the per-pair fit).
    pub em: EmOptions,
    /// Bootstrap resamples of the log's queries for the intervals; 0: no intervals.
    pub resamples: usize,
    /// Seed of the resamples.
    pub seed: u64,
}

const LOWER: &str = "_lower";
const UPPER: &str = "_upper";
const GRADE_KEYS: [&str; 3] = ["grade", "impressions", "interval_resamples"];
const FIT_KEYS: [&str; 5] = ["interval_over", "interval_level", "bootstrap_resamples", "bootstrap_seed", "note"];

impl ByGrade {
    /// What the per-grade fit of `cfg` found, with its intervals over queries, one line each
    /// (`clicks fit --labels` prints them on stderr; Python keeps them on the model).
    pub fn report_lines(&self, cfg: &ModelConfig, rep: &ByGradeReport) -> Vec<String> {
        let mut out = Vec::new();
        let interval = self.fit.as_ref().and_then(|f| f.interval.as_ref());
        let how = match interval {
            Some(i) => format!(
                "; [{:.0} % interval over queries: {} bootstrap resamples of the log's {} queries, each refitted]",
                100.0 * i.level,
                i.resamples,
                rep.queries
            ),
            None => String::new(),
        };
        out.push(format!(
            "fitted {} by relevance grade on {} judged impressions ({} unjudged impressions fitted apart, not stored){how}:",
            cfg.kind(),
            rep.judged,
            rep.unjudged
        ));
        let with = |x: f64, ci: Option<(f64, f64)>| match ci {
            Some((lo, hi)) => format!("{x:.4} [{lo:.4}, {hi:.4}]"),
            None => format!("{x:.4}"),
        };
        for r in &self.rows {
            let v: Vec<String> = r.values.iter().map(|(n, x)| format!("{n} {}", with(*x, r.interval(n)))).collect();
            let shown = match interval {
                Some(_) if r.intervals.is_empty() => "; no interval: no resample showed the grade".to_string(),
                Some(i) if r.interval_resamples < i.resamples => format!("; interval over the {} resamples that showed the grade", r.interval_resamples),
                _ => String::new(),
            };
            out.push(format!("  grade {}: {} ({} impressions{shown})", r.grade, v.join(", "), r.impressions));
        }
        if let Some(f) = &self.fit {
            let (lo, hi) = interval.map_or((None, None), |i| (i.lower.as_ref(), i.upper.as_ref()));
            let ci = |t: Option<&ParamTable>, n: &str| t.and_then(|t| t.scalars.iter().find(|x| x.0 == n)).map(|x| x.1);
            let mut parts: Vec<String> = f.table.scalars.iter().map(|(n, x)| format!("{n} {}", with(*x, ci(lo, n).zip(ci(hi, n))))).collect();
            parts.extend(f.table.ranks.iter().map(|(n, _)| format!("{n} by rank (in the model file)")));
            parts.extend(f.table.matrices.iter().map(|(n, _)| format!("{n} by rank and last click (in the model file)")));
            if !parts.is_empty() {
                out.push(format!("  query-independent parameters of this fit (users run with them on the grade values): {}", parts.join(", ")));
            }
            if interval.is_some_and(|i| i.lower.is_none()) {
                out.push("  no interval for the query-independent parameters: some rank was shown in no resample".into());
            }
        }
        out
    }

    /// The row of `grade`.
    pub fn row(&self, grade: i32) -> Option<&GradeRow> {
        self.rows.iter().find(|r| r.grade == grade)
    }

    /// As the model file's `grades` value: `[{"grade": 0, "impressions": 10, "attractiveness":
    /// 0.2, "attractiveness_lower": 0.15, "attractiveness_upper": 0.26, "interval_resamples":
    /// 200, ...}, ...]`.
    pub fn to_json(&self) -> Value {
        Value::Array(
            self.rows
                .iter()
                .map(|r| {
                    let mut m = Map::new();
                    m.insert("grade".into(), json!(r.grade));
                    m.insert("impressions".into(), json!(r.impressions));
                    for (n, v) in &r.values {
                        m.insert(n.clone(), json!(v));
                    }
                    for (n, lo, hi) in &r.intervals {
                        m.insert(format!("{n}{LOWER}"), json!(lo));
                        m.insert(format!("{n}{UPPER}"), json!(hi));
                    }
                    if !r.intervals.is_empty() {
                        m.insert("interval_resamples".into(), json!(r.interval_resamples));
                    }
                    Value::Object(m)
                })
                .collect(),
        )
    }

    /// As the model file's `grade_fit` value: `{"scalars": {"gamma": 0.87}, "ranks": {},
    /// "matrices": {}, "interval_over": "queries", "interval_level": 0.95,
    /// "bootstrap_resamples": 200, "bootstrap_seed": 1, "scalars_lower": {...}, ...}`; `None`
    /// without a fit.
    pub fn fit_json(&self) -> Option<Value> {
        let f = self.fit.as_ref()?;
        let mut m = super::table::table_sections(&f.table, "");
        if let Some(i) = &f.interval {
            m.insert("interval_over".into(), json!(INTERVAL_OVER));
            m.insert("interval_level".into(), json!(i.level));
            m.insert("bootstrap_resamples".into(), json!(i.resamples));
            m.insert("bootstrap_seed".into(), json!(i.seed));
            match (&i.lower, &i.upper) {
                (Some(lo), Some(hi)) => {
                    m.extend(super::table::table_sections(lo, LOWER));
                    m.extend(super::table::table_sections(hi, UPPER));
                }
                _ => {
                    m.insert("note".into(), json!("no interval for the query-independent parameters: some rank was shown in no resample"));
                }
            }
        }
        Some(Value::Object(m))
    }

    /// Parses the `grades` value of a model file whose pair parameters are `names`; `ctx` names
    /// the file in errors. Rows may carry intervals (`<name>_lower`, `<name>_upper`,
    /// `interval_resamples`) or not. The result has no [`ByGrade::fit`]: see
    /// [`ByGrade::from_file_values`].
    pub fn from_json(v: &Value, names: &[String], ctx: &str) -> Result<Self> {
        let rows = v.as_array().ok_or_else(|| Error::config(ctx, "grades", "must be a list of {grade, impressions, <pair parameters>} objects"))?;
        let mut out = ByGrade::default();
        for (i, r) in rows.iter().enumerate() {
            let key = format!("grades[{i}]");
            let o = r.as_object().ok_or_else(|| Error::config(ctx, &key, "must be an object"))?;
            let grade = o
                .get("grade")
                .and_then(Value::as_i64)
                .and_then(|g| i32::try_from(g).ok())
                .ok_or_else(|| Error::config(ctx, format!("{key}.grade"), "must be an integer grade"))?;
            let count = |k: &str| match o.get(k) {
                None => Ok(0),
                Some(x) => x.as_u64().ok_or_else(|| Error::config(ctx, format!("{key}.{k}"), "must be a non-negative integer")),
            };
            let impressions = count("impressions")?;
            let interval_resamples = count("interval_resamples")?;
            let mut values = Vec::new();
            let mut bounds: Vec<(String, bool, f64)> = Vec::new();
            for (n, x) in o {
                if GRADE_KEYS.contains(&n.as_str()) {
                    continue;
                }
                let (base, bound) = match (n.strip_suffix(LOWER), n.strip_suffix(UPPER)) {
                    (Some(b), _) => (b, Some(true)),
                    (_, Some(b)) => (b, Some(false)),
                    _ => (n.as_str(), None),
                };
                if !names.iter().any(|m| m == base) {
                    return Err(Error::config(
                        ctx,
                        format!("{key}.{n}"),
                        format!("is not a pair parameter of the model ({}) nor its interval", names.join(", ")),
                    ));
                }
                let p = x.as_f64().ok_or_else(|| Error::config(ctx, format!("{key}.{n}"), "must be a number"))?;
                crate::error::check_probability(ctx, &format!("{key}.{n}"), p)?;
                match bound {
                    None => values.push((n.clone(), p)),
                    Some(lower) => bounds.push((base.to_string(), lower, p)),
                }
            }
            // Values in the order of `names` (the model's pair parameters).
            let mut ordered = Vec::new();
            for n in names {
                let v = values.iter().find(|(m, _)| m == n).ok_or_else(|| Error::config(ctx, format!("{key}.{n}"), "is missing"))?;
                ordered.push(v.clone());
            }
            let mut intervals = Vec::new();
            if !bounds.is_empty() {
                for n in names {
                    let find = |lower: bool| bounds.iter().find(|(m, l, _)| m == n && *l == lower).map(|x| x.2);
                    let (lo, hi) = match (find(true), find(false)) {
                        (Some(lo), Some(hi)) => (lo, hi),
                        (None, _) => {
                            return Err(Error::config(ctx, format!("{key}.{n}{LOWER}"), "is missing (an interval gives both ends for every pair parameter)"))
                        }
                        (_, None) => {
                            return Err(Error::config(ctx, format!("{key}.{n}{UPPER}"), "is missing (an interval gives both ends for every pair parameter)"))
                        }
                    };
                    if lo > hi {
                        return Err(Error::config(ctx, format!("{key}.{n}{LOWER}"), format!("{lo} is above {n}{UPPER} {hi}")));
                    }
                    intervals.push((n.clone(), lo, hi));
                }
                if interval_resamples == 0 {
                    return Err(Error::config(
                        ctx,
                        format!("{key}.interval_resamples"),
                        "is missing: an interval needs the number of resamples that showed the grade",
                    ));
                }
            }
            if out.row(grade).is_some() {
                return Err(Error::config(ctx, &key, format!("grade {grade} is listed twice")));
            }
            out.rows.push(GradeRow { grade, impressions, values: ordered, intervals, interval_resamples });
        }
        out.rows.sort_by_key(|r| r.grade);
        Ok(out)
    }

    /// Parses a model file's `grades` and optional `grade_fit` values for a `kind` model whose
    /// pair parameters are `names`. Files without `grade_fit` (written before it existed) load
    /// with [`ByGrade::fit`] `None`; rows with intervals need `grade_fit` to say what the
    /// interval is over.
    pub fn from_file_values(grades: &Value, grade_fit: Option<&Value>, kind: ModelKind, names: &[String], ctx: &str) -> Result<Self> {
        let mut out = Self::from_json(grades, names, ctx)?;
        out.fit = grade_fit.map(|v| GradeFit::from_json(v, kind, names, ctx)).transpose()?;
        let has_interval = out.fit.as_ref().is_some_and(|f| f.interval.is_some());
        if let Some(i) = out.rows.iter().position(|r| !r.intervals.is_empty()) {
            if !has_interval {
                return Err(Error::config(
                    ctx,
                    format!("grades[{i}]"),
                    "has an interval, but `grade_fit` does not say what it is over (`interval_over`, `interval_level`, `bootstrap_resamples`)",
                ));
            }
        }
        if let Some(i) = out.fit.as_ref().and_then(|f| f.interval.as_ref()) {
            if let Some(r) = out.rows.iter().find(|r| r.interval_resamples > i.resamples) {
                return Err(Error::config(
                    ctx,
                    format!("grades (grade {}).interval_resamples", r.grade),
                    format!("{} is above grade_fit.bootstrap_resamples {}", r.interval_resamples, i.resamples),
                ));
            }
        }
        Ok(out)
    }
}

impl GradeFit {
    /// Parses a model file's `grade_fit` value (see [`ByGrade::fit_json`]).
    pub fn from_json(v: &Value, kind: ModelKind, names: &[String], ctx: &str) -> Result<Self> {
        let o = v.as_object().ok_or_else(|| Error::config(ctx, "grade_fit", "must be an object"))?;
        for k in o.keys() {
            let sections = ["scalars", "ranks", "matrices"];
            let known = FIT_KEYS.contains(&k.as_str()) || sections.iter().any(|s| k == s || *k == format!("{s}{LOWER}") || *k == format!("{s}{UPPER}"));
            if !known {
                return Err(Error::config(ctx, format!("grade_fit.{k}"), "unknown key"));
            }
        }
        let table = super::table::read_sections(o, "", kind, ctx, "grade_fit.")?;
        // The table must hold every query-independent parameter of the model.
        let mut check = table.clone();
        check.pairs = names.iter().map(|n| (n.clone(), Vec::new())).collect();
        check.into_model(&format!("{ctx} (grade_fit)"))?;
        let interval = match o.get("interval_over") {
            None => {
                if let Some(k) = o.keys().find(|k| *k != "scalars" && *k != "ranks" && *k != "matrices") {
                    return Err(Error::config(ctx, format!("grade_fit.{k}"), "needs `interval_over`"));
                }
                None
            }
            Some(over) => {
                if over.as_str() != Some(INTERVAL_OVER) {
                    return Err(Error::config(
                        ctx,
                        "grade_fit.interval_over",
                        format!("must be \"{INTERVAL_OVER}\" (the bootstrap resamples the log's queries)"),
                    ));
                }
                let level = o
                    .get("interval_level")
                    .and_then(Value::as_f64)
                    .filter(|l| *l > 0.0 && *l < 1.0)
                    .ok_or_else(|| Error::config(ctx, "grade_fit.interval_level", "must be a number in (0, 1)"))?;
                let resamples = o
                    .get("bootstrap_resamples")
                    .and_then(Value::as_u64)
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| Error::config(ctx, "grade_fit.bootstrap_resamples", "must be a positive integer"))?;
                crate::limits::check_count(ctx, "grade_fit.bootstrap_resamples", resamples, crate::limits::MAX_BOOTSTRAP, "bootstrap resamples")?;
                let seed = match o.get("bootstrap_seed") {
                    None => 0,
                    Some(s) => s.as_u64().ok_or_else(|| Error::config(ctx, "grade_fit.bootstrap_seed", "must be a non-negative integer"))?,
                };
                let has = |suffix: &str| ["scalars", "ranks", "matrices"].iter().any(|s| o.contains_key(&format!("{s}{suffix}")));
                let (lower, upper) = if has(LOWER) || has(UPPER) {
                    let lo = super::table::read_sections(o, LOWER, kind, ctx, "grade_fit.")?;
                    let hi = super::table::read_sections(o, UPPER, kind, ctx, "grade_fit.")?;
                    check_bounds(&table, &lo, &hi, ctx)?;
                    (Some(lo), Some(hi))
                } else {
                    (None, None)
                };
                Some(QueryInterval { level, resamples, seed, lower, upper })
            }
        };
        Ok(GradeFit { table, interval })
    }
}

/// Checks that `lo` and `hi` have the shape of `t` and `lo <= hi` entry by entry.
fn check_bounds(t: &ParamTable, lo: &ParamTable, hi: &ParamTable, ctx: &str) -> Result<()> {
    let (a, b, c) = (flatten(t), flatten(lo), flatten(hi));
    let shape = |x: &[(String, f64)]| x.iter().map(|e| e.0.clone()).collect::<Vec<_>>();
    if shape(&b) != shape(&a) || shape(&c) != shape(&a) {
        return Err(Error::config(ctx, "grade_fit", "its `_lower` and `_upper` sections must list exactly the entries of `scalars`, `ranks` and `matrices`"));
    }
    for ((name, l), (_, h)) in b.iter().zip(&c) {
        if l > h {
            return Err(Error::config(ctx, format!("grade_fit.{}", lower_key(name)), format!("{l} is above its upper end {h}")));
        }
    }
    Ok(())
}

/// `scalars.gamma` -> `scalars_lower.gamma`.
fn lower_key(name: &str) -> String {
    match name.split_once('.') {
        Some((s, rest)) => format!("{s}{LOWER}.{rest}"),
        None => name.to_string(),
    }
}

/// The entries of a table's scalars, ranks and matrices, named (`scalars.gamma`,
/// `ranks.examination[2]`, `matrices.examination[1][0]`), in a fixed order.
fn flatten(t: &ParamTable) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    let mut s: Vec<&(String, f64)> = t.scalars.iter().collect();
    s.sort_by(|a, b| a.0.cmp(&b.0));
    for (n, v) in s {
        out.push((format!("scalars.{n}"), *v));
    }
    let mut r: Vec<&(String, Vec<f64>)> = t.ranks.iter().collect();
    r.sort_by(|a, b| a.0.cmp(&b.0));
    for (n, v) in r {
        out.extend(v.iter().enumerate().map(|(i, x)| (format!("ranks.{n}[{i}]"), *x)));
    }
    let mut m: Vec<&(String, Vec<Vec<f64>>)> = t.matrices.iter().collect();
    m.sort_by(|a, b| a.0.cmp(&b.0));
    for (n, v) in m {
        for (i, row) in v.iter().enumerate() {
            out.extend(row.iter().enumerate().map(|(j, x)| (format!("matrices.{n}[{i}][{j}]"), *x)));
        }
    }
    out
}

/// The query-independent part of a fitted model's table (its pair parameters dropped).
fn query_independent(model: &dyn ClickModel) -> ParamTable {
    let mut t = model.to_table();
    t.pairs.clear();
    t.unseen.clear();
    t
}

/// The entries of `t` at the positions of `shape`'s entries (NaN where `t` has none: a rank
/// no session of the resample reached).
fn entries_like(shape: &ParamTable, t: &ParamTable) -> Vec<f64> {
    let mut out = Vec::new();
    for (n, _) in &shape.scalars {
        out.push(t.scalars.iter().find(|x| &x.0 == n).map_or(f64::NAN, |x| x.1));
    }
    for (n, v) in &shape.ranks {
        let w = t.ranks.iter().find(|x| &x.0 == n).map(|x| x.1.as_slice()).unwrap_or(&[]);
        out.extend((0..v.len()).map(|i| w.get(i).copied().unwrap_or(f64::NAN)));
    }
    for (n, m) in &shape.matrices {
        let w = t.matrices.iter().find(|x| &x.0 == n).map(|x| x.1.as_slice()).unwrap_or(&[]);
        for (i, row) in m.iter().enumerate() {
            out.extend((0..row.len()).map(|j| w.get(i).and_then(|r| r.get(j)).copied().unwrap_or(f64::NAN)));
        }
    }
    out
}

/// A table shaped as `shape` holding `values` (in [`entries_like`]'s order).
fn table_like(shape: &ParamTable, values: &[f64]) -> ParamTable {
    let mut it = values.iter().copied();
    let mut t = ParamTable::new(shape.model);
    for (n, _) in &shape.scalars {
        t.scalars.push((n.clone(), it.next().expect("one value per entry")));
    }
    for (n, v) in &shape.ranks {
        t.ranks.push((n.clone(), (0..v.len()).map(|_| it.next().expect("one value per entry")).collect()));
    }
    for (n, m) in &shape.matrices {
        t.matrices.push((n.clone(), m.iter().map(|row| (0..row.len()).map(|_| it.next().expect("one value per entry")).collect()).collect()));
    }
    t
}

/// The log with every (query, document) replaced by its grade's group: what the tied fit sees.
struct Tied {
    /// Sessions of the log, pairs replaced by group indices (grades ascending, then the
    /// unjudged group), query ids kept.
    log: ClickLog,
    /// The judged grades, ascending (group `i` is `grades[i]`).
    grades: Vec<i32>,
    /// Impressions per group (the last: unjudged).
    impressions: Vec<u64>,
    /// Session indices of each distinct query, by ascending query id.
    by_query: Vec<Vec<usize>>,
    /// Impressions per group of each query's sessions.
    query_impressions: Vec<Vec<u64>>,
}

fn tie(cfg: &ModelConfig, log: &ClickLog, vocab: &Vocab, qrels: &Qrels) -> Result<Tied> {
    let kind = cfg.kind();
    if matches!(kind, ModelKind::Gctr | ModelKind::Rctr) {
        return Err(Error::Invalid(format!("--qrels: {kind} has no per-document parameters to fit by grade")));
    }
    let mut label: HashMap<(&str, &str), i32> = HashMap::new();
    for (t, docs) in &qrels.topics {
        for (d, g) in docs {
            label.insert((t.as_str(), d.as_str()), *g);
        }
    }
    let mut grades: Vec<i32> = Vec::new();
    let pair_grade: Vec<Option<i32>> =
        vocab.pairs.iter().map(|&(q, d)| label.get(&(vocab.queries[q as usize].as_str(), vocab.docs[d as usize].as_str())).copied()).collect();
    for g in pair_grade.iter().flatten() {
        if !grades.contains(g) {
            grades.push(*g);
        }
    }
    grades.sort_unstable();
    let unjudged = grades.len() as u32;
    let group: Vec<u32> = pair_grade.iter().map(|g| g.map_or(unjudged, |g| grades.binary_search(&g).expect("listed") as u32)).collect();
    let mut tied = ClickLog::new();
    let mut impressions = vec![0u64; grades.len() + 1];
    let mut query_index: Vec<Option<usize>> = Vec::new();
    let mut by_query: Vec<Vec<usize>> = Vec::new();
    let mut query_impressions: Vec<Vec<u64>> = Vec::new();
    let mut buf = Vec::new();
    for (i, s) in log.iter().enumerate() {
        buf.clear();
        let q = s.query as usize;
        if query_index.len() <= q {
            query_index.resize(q + 1, None);
        }
        let k = *query_index[q].get_or_insert_with(|| {
            by_query.push(Vec::new());
            query_impressions.push(vec![0; grades.len() + 1]);
            by_query.len() - 1
        });
        by_query[k].push(i);
        for &p in s.pairs {
            let g = group.get(p as usize).copied().unwrap_or(unjudged);
            impressions[g as usize] += 1;
            query_impressions[k][g as usize] += 1;
            buf.push(g);
        }
        tied.push(s.query, &buf, s.clicks);
    }
    // By ascending query id, whatever the order of the sessions' first appearance.
    let mut order: Vec<(u32, usize)> = query_index.iter().enumerate().filter_map(|(q, k)| k.map(|k| (q as u32, k))).collect();
    order.sort_unstable();
    let by_query = order.iter().map(|&(_, k)| std::mem::take(&mut by_query[k])).collect();
    let query_impressions = order.iter().map(|&(_, k)| std::mem::take(&mut query_impressions[k])).collect();
    let judged: u64 = impressions[..grades.len()].iter().sum();
    if judged == 0 {
        let ex: Vec<String> = vocab.pairs.iter().take(2).map(|&(q, d)| format!("({}, {})", vocab.queries[q as usize], vocab.docs[d as usize])).collect();
        let qx: Vec<&str> = qrels.topics.iter().take(2).map(|t| t.0.as_str()).collect();
        return Err(Error::Invalid(format!(
            "--qrels judges none of the log's (query, document) pairs (the log has {}, the qrels topics {}): the qrels must use the log's query and document ids",
            ex.join(", "),
            qx.join(", ")
        )));
    }
    Ok(Tied { log: tied, grades, impressions, by_query, query_impressions })
}

/// One bootstrap resample's tied fit: per grade its pair values (NaN when the resample shows
/// no document of the grade), and the query-independent parameters.
#[derive(Debug, Clone)]
pub(crate) struct Replicate {
    /// `values[g][j]`: pair parameter `j` of grade `grades[g]`.
    pub values: Vec<Vec<f64>>,
    /// The query-independent parameters.
    pub table: ParamTable,
}

/// Stream id of the query resamples (`rng::stream(seed, &[GRADE_BOOTSTRAP_STREAM, b])`).
const GRADE_BOOTSTRAP_STREAM: u64 = 0x6772_6164_655f_6273; // "grade_bs"

/// The queries (indices into `by_query`) of resample `b`: as many draws with replacement as
/// there are queries, from the stream `(seed, GRADE_BOOTSTRAP_STREAM, b)`.
pub(crate) fn resample_queries(queries: usize, seed: u64, b: usize) -> Vec<usize> {
    let mut rng = crate::rng::stream(seed, &[GRADE_BOOTSTRAP_STREAM, b as u64]);
    (0..queries).map(|_| rng.random_range(0..queries)).collect()
}

/// The tied refits of `resamples` bootstrap resamples of the log's queries (every session of a
/// drawn query comes along, as often as it is drawn), in parallel; the result does not depend
/// on the thread count (each resample has its own stream, and the fits are exact sums).
fn replicates(cfg: &ModelConfig, tied: &Tied, opts: &ByGradeOptions) -> Result<Vec<Replicate>> {
    let q = tied.by_query.len();
    let g = tied.grades.len();
    (0..opts.resamples)
        .into_par_iter()
        .map(|b| {
            crate::interrupt::check()?;
            let drawn = resample_queries(q, opts.seed, b);
            let mut shown = vec![0u64; g];
            let sessions: Vec<usize> = drawn
                .iter()
                .flat_map(|&k| {
                    for (s, n) in shown.iter_mut().zip(&tied.query_impressions[k]) {
                        *s += n;
                    }
                    tied.by_query[k].iter().copied()
                })
                .collect();
            let sub = tied.log.subset(sessions);
            let (model, _) = cfg.fit_with(&mut &sub, &opts.em, &mut |_| {})?;
            let t = model.to_table();
            let values = (0..g).map(|i| t.pairs.iter().map(|(_, v)| if shown[i] > 0 { super::param(v, i) } else { f64::NAN }).collect()).collect();
            Ok(Replicate { values, table: query_independent(model.as_ref()) })
        })
        .collect()
}

/// [`fit_by_grade_with`] on the labels [`super::labels::read_labels`] read, with what the
/// reader found and assumed kept in the result ([`ByGrade::labels`], the model file's
/// `labels`): what `clicks fit --labels` and Python's `fit(..., qrels=...)` store.
pub fn fit_by_grade_labeled(
    cfg: &ModelConfig,
    log: &ClickLog,
    vocab: &Vocab,
    labels: &(Qrels, super::labels::LabelSummary),
    opts: &ByGradeOptions,
) -> Result<(ByGrade, ByGradeReport)> {
    let (mut g, rep) = fit_by_grade_with(cfg, log, vocab, &labels.0, opts)?;
    g.labels = Some(labels.1.clone());
    Ok((g, rep))
}

/// The bootstrap replicates of [`fit_by_grade_with`], for tests.
#[cfg(test)]
pub(crate) fn bootstrap_replicates(
    cfg: &ModelConfig,
    log: &ClickLog,
    vocab: &Vocab,
    qrels: &Qrels,
    opts: &ByGradeOptions,
) -> Result<(Vec<i32>, Vec<Replicate>)> {
    let tied = tie(cfg, log, vocab, qrels)?;
    Ok((tied.grades.clone(), replicates(cfg, &tied, opts)?))
}

/// Fits `cfg` on `log` with its per-document parameters tied by relevance grade (see the module
/// docs), with the default EM options and no intervals: [`fit_by_grade_with`].
pub fn fit_by_grade(cfg: &ModelConfig, log: &ClickLog, vocab: &Vocab, qrels: &Qrels) -> Result<(ByGrade, ByGradeReport)> {
    fit_by_grade_with(cfg, log, vocab, qrels, &ByGradeOptions::default())
}

/// Fits `cfg` on `log` with its per-document parameters tied by relevance grade (see the module
/// docs): `vocab` names the log's pairs, `qrels` judges the log's own (query, document) pairs
/// with the log's ids. Pairs not in the qrels form one more group, fitted but not returned.
/// The result holds the tied fit's query-independent parameters ([`ByGrade::fit`]), which
/// users run with when they use the per-grade values.
///
/// With `opts.resamples > 0`, every value gets a [`GRADE_INTERVAL_LEVEL`] percentile interval
/// over bootstrap resamples of the log's queries: each resample draws as many queries as the
/// log has, with replacement, takes every session of each drawn query, and refits the tied
/// model. The interval says how much the values would move with another sample of queries
/// from the same population (the sessions within a query are not independent, so resampling
/// sessions would understate it). A grade shown in no session of a resample has no value
/// there; its interval is over the resamples that showed it (`interval_resamples`).
pub fn fit_by_grade_with(cfg: &ModelConfig, log: &ClickLog, vocab: &Vocab, qrels: &Qrels, opts: &ByGradeOptions) -> Result<(ByGrade, ByGradeReport)> {
    crate::limits::check_usize("grade bootstrap", "resamples", opts.resamples, crate::limits::MAX_BOOTSTRAP, "bootstrap resamples")?;
    let tied = tie(cfg, log, vocab, qrels)?;
    let queries = tied.by_query.len();
    if opts.resamples > 0 && queries < 2 {
        return Err(Error::Invalid(format!(
            "the per-grade intervals resample the log's queries, and the log has {queries} query: give 0 resamples (`--grade-bootstrap 0`) for values without intervals"
        )));
    }
    let (model, _) = cfg.fit_with(&mut &tied.log, &opts.em, &mut |_| {})?;
    let t = model.to_table();
    let table = query_independent(model.as_ref());
    let mut rows: Vec<GradeRow> = tied
        .grades
        .iter()
        .enumerate()
        .map(|(i, &grade)| GradeRow {
            grade,
            impressions: tied.impressions[i],
            values: t.pairs.iter().map(|(n, v)| (n.clone(), super::param(v, i))).collect(),
            intervals: Vec::new(),
            interval_resamples: 0,
        })
        .collect();
    let mut interval = None;
    if opts.resamples > 0 {
        let reps = replicates(cfg, &tied, opts)?;
        let level = GRADE_INTERVAL_LEVEL;
        let ci = |xs: &[f64]| crate::stats::distance::percentile_interval(xs, level);
        for (i, row) in rows.iter_mut().enumerate() {
            let shown = reps.iter().filter(|r| r.values[i].iter().all(|x| x.is_finite())).count();
            if shown == 0 {
                continue;
            }
            row.interval_resamples = shown as u64;
            for (j, (n, _)) in row.values.iter().enumerate() {
                let xs: Vec<f64> = reps.iter().map(|r| r.values[i][j]).collect();
                let (lo, hi) = ci(&xs);
                row.intervals.push((n.clone(), lo, hi));
            }
        }
        let shape = &table;
        let entries: Vec<Vec<f64>> = reps.iter().map(|r| entries_like(shape, &r.table)).collect();
        let n = entries_like(shape, shape).len();
        let mut lower = Vec::with_capacity(n);
        let mut upper = Vec::with_capacity(n);
        for e in 0..n {
            let (lo, hi) = ci(&entries.iter().map(|x| x[e]).collect::<Vec<_>>());
            lower.push(lo);
            upper.push(hi);
        }
        let complete = lower.iter().chain(&upper).all(|x| x.is_finite());
        interval = Some(QueryInterval {
            level,
            resamples: opts.resamples as u64,
            seed: opts.seed,
            lower: complete.then(|| table_like(shape, &lower)),
            upper: complete.then(|| table_like(shape, &upper)),
        });
    }
    let report = ByGradeReport { judged: tied.impressions[..tied.grades.len()].iter().sum(), unjudged: tied.impressions[tied.grades.len()], queries };
    Ok((ByGrade { rows, fit: Some(GradeFit { table, interval }), labels: None }, report))
}

/// Quantile matching: `values` (the model's per-pair values) onto the grade distribution of
/// `target` (one grade per target result). Returns `(grade, value)` ascending by grade: the
/// mean of the empirical quantile function of `values` over the grade's share of the target,
/// the lowest grades taking the lowest values. `None` when `values` or `target` is empty.
pub fn quantile_by_grade(values: &[f64], target: &[i32]) -> Option<Vec<(i32, f64)>> {
    if values.is_empty() || target.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mut grades = target.to_vec();
    grades.sort_unstable();
    let (n, m) = (v.len() as f64, grades.len() as f64);
    // Integral of the empirical quantile function Q(u) = v[ceil(u n) - 1] over (lo, hi].
    let integral = |lo: f64, hi: f64| -> f64 {
        let mut sum = 0.0;
        let first = ((lo * n).floor() as usize).min(v.len() - 1);
        for (i, x) in v.iter().enumerate().skip(first) {
            let (a, b) = (i as f64 / n, (i + 1) as f64 / n);
            if a >= hi {
                break;
            }
            sum += x * (b.min(hi) - a.max(lo)).max(0.0);
        }
        sum
    };
    let mut out = Vec::new();
    let mut start = 0;
    while start < grades.len() {
        let g = grades[start];
        let end = grades[start..].iter().position(|&x| x != g).map_or(grades.len(), |k| start + k);
        let (lo, hi) = (start as f64 / m, end as f64 / m);
        out.push((g, integral(lo, hi) / (hi - lo)));
        start = end;
    }
    Some(out)
}

#[cfg(test)]
mod tests;
