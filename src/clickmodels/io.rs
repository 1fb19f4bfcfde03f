//! Click-model JSON files: fitted models are saved and loaded, hand-set models are written
//! in the same format (see `docs/clickmodels.md`).
//!
//! ```json
//! {"format": "serpsim-click-model", "model": "dbn",
//!  "scalars": {"gamma": 0.9}, "ranks": {}, "matrices": {},
//!  "pair_params": ["attractiveness", "satisfaction"],
//!  "pairs": [["q1", "d1", 0.6, 0.3], ["q1", "d2", 0.2, 0.5]]}
//! ```
//! Pairs that are not listed get the prior 0.5, or the values of the optional `unseen` object
//! (`{"attractiveness": 0.21, ...}`: the means of fitted priors, written by posterior fits).
//! The optional `grades` list holds per-grade values fitted with the log's labels (`clicks fit
//! --qrels`): `[{"grade": 1, "impressions": 5400, "attractiveness": 0.4, "satisfaction": 0.3}]`;
//! a scenario uses them for documents the model does not know (`docs/scenarios.md`). With them,
//! the optional `grade_fit` object holds the query-independent parameters of the fit that
//! produced the grade values (`scalars`, `ranks`, `matrices`, as at the top level), which the
//! users run with when they use the grade values, and the description of the rows' intervals
//! (`interval_over`, `interval_level`, `bootstrap_resamples`, `bootstrap_seed`, and the
//! `scalars_lower`, ..., `matrices_upper` of the query-independent parameters). Files without
//! `grade_fit` (older ones) still load. The optional `labels` object says what reading the
//! label file found and assumed (`clicks fit --labels`: format, unjudged value and lines,
//! conflicting pairs, the file's grades and the grade scale fitted; see
//! [`super::labels::LabelSummary`]).

use super::portable::ByGrade;
use super::{param, ClickModel, ModelKind};
use crate::error::{Error, Result};
use crate::logs::Vocab;
use serde_json::{json, Map, Value};
use std::path::Path;

/// The identifying value of the `format` key.
pub const FORMAT: &str = "serpsim-click-model";

pub use super::table::ParamTable;

impl ParamTable {
    /// Builds the model the table describes. `ctx` names the source in errors. With `unseen`
    /// values, pairs not listed take them (see [`super::unseen::WithUnseen`]).
    pub fn into_model(mut self, ctx: &str) -> Result<Box<dyn ClickModel>> {
        if self.unseen.is_empty() {
            return self.into_plain_model(ctx);
        }
        let known = self.pairs.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
        for (n, _) in &self.unseen {
            if !self.pairs.iter().any(|(m, _)| m == n) {
                return Err(Error::config(ctx, format!("unseen.{n}"), "is not a pair parameter of the model"));
            }
        }
        let unseen = std::mem::take(&mut self.unseen);
        for (n, v) in self.pairs.iter_mut() {
            let u = unseen.iter().find(|(m, _)| m == n).map_or(super::PRIOR, |x| x.1);
            v.resize(known, u);
            v.push(u);
        }
        let inner = self.into_plain_model(ctx)?;
        Ok(Box::new(super::unseen::WithUnseen::new(inner, known as u32, unseen)))
    }

    fn into_plain_model(self, ctx: &str) -> Result<Box<dyn ClickModel>> {
        let spec = super::registry::spec(self.model);
        for (n, _) in &self.pairs {
            if !spec.pairs.contains(&n.as_str()) {
                return Err(Error::config(ctx, "pair_params", format!("`{n}` is not a parameter of {}", self.model)));
            }
        }
        (spec.read)(&self, ctx)
    }
}

pub(crate) use super::table::{prob, read_sections, table_sections};

/// The model as a JSON value, naming pairs by their query and document ids from `vocab`.
pub fn to_json(model: &dyn ClickModel, vocab: &Vocab) -> Value {
    let t = model.to_table();
    let mut sections = table_sections(&t, "");
    let scalars = sections.remove("scalars").expect("written");
    let ranks = sections.remove("ranks").expect("written");
    let matrices = sections.remove("matrices").expect("written");
    let names: Vec<&str> = t.pairs.iter().map(|(n, _)| n.as_str()).collect();
    let len = t.pairs.iter().map(|(_, v)| v.len()).max().unwrap_or(0).min(vocab.pairs.len());
    let rows: Vec<Value> = (0..len)
        .map(|i| {
            let (q, d) = vocab.pairs[i];
            let mut row = vec![json!(vocab.queries[q as usize]), json!(vocab.docs[d as usize])];
            row.extend(t.pairs.iter().map(|(_, v)| json!(param(v, i))));
            Value::Array(row)
        })
        .collect();
    let mut v = json!({
        "format": FORMAT,
        "model": t.model.name(),
        "scalars": scalars,
        "ranks": ranks,
        "matrices": matrices,
        "pair_params": names,
        "pairs": rows,
    });
    if !t.unseen.is_empty() {
        v["unseen"] = Value::Object(t.unseen.iter().map(|(n, x)| (n.clone(), json!(x))).collect());
    }
    v
}

/// Writes the model file atomically.
pub fn save(path: &Path, model: &dyn ClickModel, vocab: &Vocab) -> Result<()> {
    save_full(path, model, vocab, None, None)
}

/// Writes the model file atomically, with per-grade parameters (`grades` key) when given.
pub fn save_with_grades(path: &Path, model: &dyn ClickModel, vocab: &Vocab, grades: Option<&ByGrade>) -> Result<()> {
    save_full(path, model, vocab, None, grades)
}

/// Writes the model file atomically, with the EM fit's summary (`fit`) and the per-grade
/// parameters (`grades`) when given.
pub fn save_full(path: &Path, model: &dyn ClickModel, vocab: &Vocab, fit: Option<&super::driver::FitSummary>, grades: Option<&ByGrade>) -> Result<()> {
    let text = full_text(model, vocab, fit, grades)?;
    crate::write::write_atomic(path, text.as_bytes())
}

/// The text [`save_full`] writes, for callers that write it together with other files. The
/// pairs are written row by row (not built as a JSON tree first), as [`write_pair_row`] writes
/// them, so a sharded fit ([`super::sharded`]) writing the same rows gives the same bytes.
pub fn full_text(model: &dyn ClickModel, vocab: &Vocab, fit: Option<&super::driver::FitSummary>, grades: Option<&ByGrade>) -> Result<String> {
    let (head, tail) = head_and_tail_full(model, fit, grades)?;
    let t = model.to_table();
    let len = t.pairs.iter().map(|(_, v)| v.len()).max().unwrap_or(0).min(vocab.pairs.len());
    let mut out = head.into_bytes();
    out.reserve(len * 48 + tail.len());
    for i in 0..len {
        if i > 0 {
            out.push(b',');
        }
        let (q, d) = vocab.pairs[i];
        write_pair_row(&mut out, &vocab.queries[q as usize], &vocab.docs[d as usize], t.pairs.iter().map(|(_, v)| param(v, i)))
            .map_err(|e| Error::Invalid(e.to_string()))?;
    }
    out.extend_from_slice(tail.as_bytes());
    String::from_utf8(out).map_err(|e| Error::Invalid(e.to_string()))
}

/// One row of a model file's `pairs` list, `["q","d",0.25,0.5]`, as `serde_json` writes the
/// same list (strings escaped, numbers shortest round-trip, non-finite numbers `null`).
pub(crate) fn write_pair_row(out: &mut Vec<u8>, q: &str, d: &str, values: impl Iterator<Item = f64>) -> std::io::Result<()> {
    out.push(b'[');
    serde_json::to_writer(&mut *out, q).map_err(std::io::Error::other)?;
    out.push(b',');
    serde_json::to_writer(&mut *out, d).map_err(std::io::Error::other)?;
    for x in values {
        out.push(b',');
        serde_json::to_writer(&mut *out, &x).map_err(std::io::Error::other)?;
    }
    out.push(b']');
    Ok(())
}

/// The text of a model file before and after the rows of its `pairs` list (the model's pair
/// tables are not read): a writer puts the rows, comma-separated, between them.
pub(crate) fn head_and_tail(model: &dyn ClickModel, fit: Option<&super::driver::FitSummary>) -> Result<(String, String)> {
    head_and_tail_full(model, fit, None)
}

fn head_and_tail_full(model: &dyn ClickModel, fit: Option<&super::driver::FitSummary>, grades: Option<&ByGrade>) -> Result<(String, String)> {
    let text = tree_text(model, &Vocab::default(), fit, grades)?;
    const MARK: &str = "\"pairs\":[]";
    let at = text.find(MARK).ok_or_else(|| Error::Invalid("model file: no pairs list".into()))?;
    if text.rfind(MARK) != Some(at) {
        return Err(Error::Invalid("model file: two pairs lists".into()));
    }
    let split = at + MARK.len() - 1;
    Ok((text[..split].to_string(), text[split..].to_string()))
}

/// The model file's text built as a JSON tree (the pairs named from `vocab`).
fn tree_text(model: &dyn ClickModel, vocab: &Vocab, fit: Option<&super::driver::FitSummary>, grades: Option<&ByGrade>) -> Result<String> {
    let mut v = to_json(model, vocab);
    if let Some(f) = fit {
        v["fit"] = serde_json::to_value(f).map_err(|e| Error::Invalid(e.to_string()))?;
    }
    if let Some(g) = grades {
        v["grades"] = g.to_json();
        if let Some(f) = g.fit_json() {
            v["grade_fit"] = f;
        }
        if let Some(l) = &g.labels {
            v["labels"] = l.to_json();
        }
    }
    serde_json::to_string(&v).map_err(|e| Error::Invalid(e.to_string()))
}

/// The scalars, per-rank vectors and matrices of each model (as `to_table` writes them).
fn parameter_names(model: ModelKind) -> [&'static [&'static str]; 3] {
    let spec = super::registry::spec(model);
    [spec.scalars, spec.ranks, spec.matrices]
}

/// Refuses a scalar, rank vector or matrix the model does not have (an SDBN file with a
/// `gamma` loaded and ignored it; docs/formats.md, "Silent cases").
fn check_parameter_names(t: &ParamTable, ctx: &str) -> Result<()> {
    let [scalars, ranks, matrices] = parameter_names(t.model);
    let given = [
        ("scalars", t.scalars.iter().map(|x| &x.0).collect::<Vec<_>>(), scalars),
        ("ranks", t.ranks.iter().map(|x| &x.0).collect(), ranks),
        ("matrices", t.matrices.iter().map(|x| &x.0).collect(), matrices),
    ];
    for (section, names, known) in given {
        if let Some(n) = names.into_iter().find(|n| !known.contains(&n.as_str())) {
            let has = if known.is_empty() { "none".to_string() } else { known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ") };
            return Err(Error::config(ctx, format!("{section}.{n}"), format!("is not a parameter of {} (its {section}: {has})", t.model)));
        }
    }
    Ok(())
}

/// Reads a model file with its per-grade parameters (the optional `grades` key, written by
/// `clicks fit --qrels`).
pub fn load_with_grades(path: &Path) -> Result<(Box<dyn ClickModel>, Vocab, Option<ByGrade>)> {
    let text = crate::input::read_to_string(path)?;
    from_json_str_with_grades(&text, &path.display().to_string())
}

/// Reads a model file (plain, gzip or zstd; `-` for standard input): the model and the
/// vocabulary naming its pair indices.
pub fn load(path: &Path) -> Result<(Box<dyn ClickModel>, Vocab)> {
    let text = crate::input::read_to_string(path)?;
    from_json_str(&text, &path.display().to_string())
}

/// Parses a model file's text; `ctx` names it in errors.
pub fn from_json_str(text: &str, ctx: &str) -> Result<(Box<dyn ClickModel>, Vocab)> {
    from_json_str_with_grades(text, ctx).map(|(m, v, _)| (m, v))
}

/// Parses a model file's text with its per-grade parameters; `ctx` names it in errors.
pub fn from_json_str_with_grades(text: &str, ctx: &str) -> Result<(Box<dyn ClickModel>, Vocab, Option<ByGrade>)> {
    // A key given twice is an error, not the last one silently (docs/formats.md, "Silent cases").
    let v: Value = crate::input::parse_json(text).map_err(|e| Error::config(ctx, "(document)", format!("invalid JSON: {e}")))?;
    let obj = v.as_object().ok_or_else(|| Error::config(ctx, "(document)", "must be a JSON object"))?;
    const KEYS: [&str; 12] = ["format", "model", "scalars", "ranks", "matrices", "pair_params", "pairs", "unseen", "fit", "grades", "grade_fit", "labels"];
    for k in obj.keys() {
        if !KEYS.contains(&k.as_str()) {
            return Err(Error::config(ctx, k.clone(), "unknown key"));
        }
    }
    if let Some(f) = obj.get("format") {
        if f.as_str() != Some(FORMAT) {
            return Err(Error::config(ctx, "format", format!("must be \"{FORMAT}\"")));
        }
    }
    let model: ModelKind = obj
        .get("model")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::config(ctx, "model", "is missing (cm, dcm, ccm, dbn, sdbn, ubm, pbm, gctr, rctr, dctr)"))?
        .parse()
        .map_err(|e: Error| Error::config(ctx, "model", e.to_string()))?;
    let mut t = read_sections(obj, "", model, ctx, "")?;
    check_parameter_names(&t, ctx)?;
    let section = |name: &str| -> Result<Map<String, Value>> {
        match obj.get(name) {
            None => Ok(Map::new()),
            Some(Value::Object(m)) => Ok(m.clone()),
            Some(_) => Err(Error::config(ctx, name, "must be an object")),
        }
    };
    let names: Vec<String> = match obj.get("pair_params") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| x.as_str().map(str::to_string).ok_or_else(|| Error::config(ctx, "pair_params", "must be a list of names")))
            .collect::<Result<_>>()?,
        Some(_) => return Err(Error::config(ctx, "pair_params", "must be a list of names")),
    };
    let mut vocab = Vocab::default();
    let mut cols: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let rows = match obj.get("pairs") {
        None => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => return Err(Error::config(ctx, "pairs", "must be a list of [query, document, values...] rows")),
    };
    for (i, row) in rows.iter().enumerate() {
        let key = format!("pairs[{i}]");
        let r = row
            .as_array()
            .filter(|r| r.len() == 2 + names.len())
            .ok_or_else(|| Error::config(ctx, &key, format!("must be [query, document, {}]", names.join(", "))))?;
        let id = |x: &Value| match x {
            Value::String(s) if !s.is_empty() => Ok(s.clone()),
            Value::Number(n) => Ok(n.to_string()),
            _ => Err(Error::config(ctx, &key, "query and document must be non-empty strings")),
        };
        let (q, d) = (vocab.intern_query(&id(&r[0])?), vocab.intern_doc(&id(&r[1])?));
        let before = vocab.pair_count();
        vocab.intern_pair(q, d);
        if vocab.pair_count() == before {
            return Err(Error::config(ctx, &key, "the pair is listed twice"));
        }
        for (j, col) in cols.iter_mut().enumerate() {
            col.push(prob(ctx, &format!("{key}[{}]", j + 2), &r[j + 2])?);
        }
    }
    let grades = match (obj.get("grades"), obj.get("grade_fit")) {
        (None, None) => None,
        (None, Some(_)) => return Err(Error::config(ctx, "grade_fit", "needs the `grades` list it was fitted with")),
        (Some(g), fit) => Some(ByGrade::from_file_values(g, fit, model, &names, ctx)?),
    };
    let grades = match (grades, obj.get("labels")) {
        (None, Some(_)) => return Err(Error::config(ctx, "labels", "needs the `grades` list fitted with them")),
        (Some(mut g), Some(l)) => {
            g.labels = Some(super::labels::LabelSummary::from_json(l, ctx)?);
            Some(g)
        }
        (g, None) => g,
    };
    t.pairs = names.into_iter().zip(cols).collect();
    for (n, x) in section("unseen")? {
        t.unseen.push((n.clone(), prob(ctx, &format!("unseen.{n}"), &x)?));
    }
    Ok((t.into_model(ctx)?, vocab, grades))
}
