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

use super::{ClickModel, ModelConfig, ModelKind};
use crate::collection::trec::Qrels;
use crate::error::{Error, Result};
use crate::logs::{ClickLog, Vocab};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Per-document parameters of one relevance grade.
#[derive(Debug, Clone, PartialEq)]
pub struct GradeRow {
    /// The grade.
    pub grade: i32,
    /// Impressions (results shown) of documents of this grade in the training log.
    pub impressions: u64,
    /// Values by pair-parameter name (`attractiveness`, `satisfaction`, `ctr`).
    pub values: Vec<(String, f64)>,
}

impl GradeRow {
    /// The value of parameter `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.values.iter().find(|(n, _)| n == name).map(|x| x.1)
    }
}

/// Per-grade parameters fitted with the log's labels (the model file's `grades` key).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ByGrade {
    /// One row per grade, ascending.
    pub rows: Vec<GradeRow>,
}

/// What [`fit_by_grade`] saw.
#[derive(Debug, Clone, PartialEq)]
pub struct ByGradeReport {
    /// Impressions whose (query, document) is judged.
    pub judged: u64,
    /// Impressions whose (query, document) is not in the qrels (fitted apart, not stored).
    pub unjudged: u64,
}

impl ByGrade {
    /// The row of `grade`.
    pub fn row(&self, grade: i32) -> Option<&GradeRow> {
        self.rows.iter().find(|r| r.grade == grade)
    }

    /// As the model file's `grades` value: `[{"grade": 0, "impressions": 10, "attractiveness": 0.2, ...}, ...]`.
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
                    Value::Object(m)
                })
                .collect(),
        )
    }

    /// Parses the `grades` value of a model file whose pair parameters are `names`; `ctx` names
    /// the file in errors.
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
            let impressions = match o.get("impressions") {
                None => 0,
                Some(x) => x.as_u64().ok_or_else(|| Error::config(ctx, format!("{key}.impressions"), "must be a non-negative integer"))?,
            };
            let mut values = Vec::new();
            for (n, x) in o {
                if n == "grade" || n == "impressions" {
                    continue;
                }
                if !names.contains(n) {
                    return Err(Error::config(ctx, format!("{key}.{n}"), format!("is not a pair parameter of the model ({})", names.join(", "))));
                }
                let p = x.as_f64().ok_or_else(|| Error::config(ctx, format!("{key}.{n}"), "must be a number"))?;
                crate::error::check_probability(ctx, &format!("{key}.{n}"), p)?;
                values.push((n.clone(), p));
            }
            for n in names {
                if !values.iter().any(|(m, _)| m == n) {
                    return Err(Error::config(ctx, format!("{key}.{n}"), "is missing"));
                }
            }
            if out.row(grade).is_some() {
                return Err(Error::config(ctx, &key, format!("grade {grade} is listed twice")));
            }
            out.rows.push(GradeRow { grade, impressions, values });
        }
        out.rows.sort_by_key(|r| r.grade);
        Ok(out)
    }
}

/// Fits `cfg` on `log` with its per-document parameters tied by relevance grade (see the module
/// docs): `vocab` names the log's pairs, `qrels` judges the log's own (query, document) pairs
/// with the log's ids. Pairs not in the qrels form one more group, fitted but not returned.
pub fn fit_by_grade(cfg: &ModelConfig, log: &ClickLog, vocab: &Vocab, qrels: &Qrels) -> Result<(ByGrade, ByGradeReport)> {
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
    let pair_grade: Vec<Option<i32>> = vocab
        .pairs
        .iter()
        .map(|&(q, d)| label.get(&(vocab.queries[q as usize].as_str(), vocab.docs[d as usize].as_str())).copied())
        .collect();
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
    let mut buf = Vec::new();
    for s in log.iter() {
        buf.clear();
        for &p in s.pairs {
            let g = group.get(p as usize).copied().unwrap_or(unjudged);
            impressions[g as usize] += 1;
            buf.push(g);
        }
        tied.push(0, &buf, s.clicks);
    }
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
    let model: Box<dyn ClickModel> = cfg.fit(&mut &tied)?;
    let t = model.to_table();
    let rows = grades
        .iter()
        .enumerate()
        .map(|(i, &grade)| GradeRow {
            grade,
            impressions: impressions[i],
            values: t.pairs.iter().map(|(n, v)| (n.clone(), super::param(v, i))).collect(),
        })
        .collect();
    Ok((ByGrade { rows }, ByGradeReport { judged, unjudged: impressions[grades.len()] }))
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
