//! Measure names: trec_eval's, ir_measures', and serpsim's own, parsed into a [`MeasurePlan`] of
//! output columns.
//!
//! One `-m` value is one of:
//! - a trec_eval nickname: `official` (trec_eval's default), `all_trec`, `set`;
//! - a trec_eval measure, case-sensitive, with trec_eval's parameter syntax after a `.`:
//!   `map`, `P`, `P.5,10`, `ndcg_cut.10`, `rbp.p=0.8`, `utility.2,-1,0,0`,
//!   `iprec_at_recall..10,.50`, `relstring.20` (see [`super::trec_eval`]);
//! - a trec_eval output name of one cut-off: `P_10`, `ndcg_cut_10`, `map_cut_100`,
//!   `recall_1000`, `iprec_at_recall_0.50`, `Rprec_mult_1.00`, `success_5`, `unj_20`;
//! - an ir_measures name: `AP`, `AP@10`, `P@5`, `R@100`, `nDCG`, `nDCG@10`, `RR`, `RR@10`,
//!   `Rprec`, `Bpref`, `infAP`, `NumRet`, `NumRel`, `NumRelRet`, `NumQ`, `SetP`, `SetR`, `SetF`,
//!   `SetAP`, `SetRelP`, `Success@5`, `IPrec@0.5`, `RBP(p=0.8)`, `ERR@10`, with `(rel=2)` for
//!   the relevance level where it applies; their values are those of ir_measures' back ends:
//!   trec_eval's definitions for the trec_eval family, trectools' `RBP(p=..)[@k]` (gains are
//!   the grades; `RBP(rel=2,p=..)` is binary at grade 2, as cwl_eval), gdeval's `ERR@k`
//!   (g_max fixed at 4). `judged_only=True` and `nDCG(dcg=exp-log2)` are refused;
//! - a serpsim measure: `name[@k][:key=value,...]`, case-insensitive: `ndcg@10:discount=jarvelin`,
//!   `rbp:p=0.8`, `rbp_tail:p=0.8`, `err@10`, `inst:t=3`, `insq`, `insq'`, `*_depth`, `rrt`, `errt`,
//!   `tbg`, `pres@1000`, `pres_est@100`, `ct[@k]`, `novelty_utility[@N]`, `rrmetric`, `ebu`.
//!
//! A trec_eval name always means what trec_eval 10 means (`rbp` is p = 0.9 with trec_eval's
//! gain normalisation, `utility` is trec_eval's contingency utility); serpsim's measures have
//! names trec_eval does not use (Fujii and Ishikawa's utility is `novelty_utility`) or an
//! explicit parameter (`rbp:p=0.8`, `RBP(p=0.8)`).
//!
//! Unknown names are errors that suggest the closest known name; unknown or invalid
//! parameters are errors naming the key.

use super::cube::{CapMode, CubeEquation, CubeParams, SubtopicWeights, TimeOrigin};
use super::novelty::{InfinitePolicy, NoveltyParams};
use super::trec::Discount;
use super::trec_eval::{Aggregate, Family, TrecMeasure, ValueKind, NICKNAMES, OTHER_FORMAT_MEASURES};
use super::user_models::{InsVariant, TbgParams};
use crate::error::{Error, Result};

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

/// serpsim's own metrics (the trec_eval family is [`super::trec_eval::TrecMeasure`]).
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
}

/// Which click-model metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClickMetricKind {
    /// rrMetric (Grotov et al. Eq. 3).
    RrMetric,
    /// Expected browsing utility (Yilmaz et al.), utility 1 per relevant clicked result.
    Ebu,
}

/// A parsed serpsim metric with the label it was asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSpec {
    /// The name as given (used in output).
    pub label: String,
    /// The metric.
    pub metric: Metric,
}

struct Params<'a> {
    name: &'a str,
    pairs: Vec<(String, String, bool)>,
}

impl<'a> Params<'a> {
    fn new(name: &'a str, text: Option<&str>) -> Result<Self> {
        let mut pairs = Vec::new();
        if let Some(text) = text {
            for item in text.split(',').filter(|s| !s.is_empty()) {
                let (k, v) = item.split_once('=').ok_or_else(|| Error::config(format!("metric `{name}`"), item, "expected key=value"))?;
                let k = k.trim().to_ascii_lowercase();
                if pairs.iter().any(|(pk, _, _): &(String, String, bool)| *pk == k) {
                    return Err(Error::config(format!("metric `{name}`"), k, "given twice"));
                }
                pairs.push((k, v.trim().to_string(), false));
            }
        }
        Ok(Params { name, pairs })
    }

    fn err(&self, key: &str, reason: impl Into<String>) -> Error {
        Error::config(format!("metric `{}`", self.name), key, reason)
    }

    fn raw(&mut self, key: &str) -> Option<String> {
        self.pairs.iter_mut().find(|(k, _, _)| k == key).map(|(_, v, used)| {
            *used = true;
            v.clone()
        })
    }

    fn f64(&mut self, key: &str) -> Result<Option<f64>> {
        match self.raw(key) {
            None => Ok(None),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(Some(x)),
                _ => Err(self.err(key, format!("`{v}` is not a finite number"))),
            },
        }
    }

    fn positive(&mut self, key: &str) -> Result<Option<f64>> {
        let v = self.f64(key)?;
        if let Some(x) = v {
            if x <= 0.0 {
                return Err(self.err(key, format!("{x} must be > 0")));
            }
        }
        Ok(v)
    }

    fn probability(&mut self, key: &str, open_low: bool) -> Result<Option<f64>> {
        let v = self.f64(key)?;
        if let Some(x) = v {
            if !(0.0..=1.0).contains(&x) || (open_low && x == 0.0) {
                return Err(self.err(key, format!("{x} is outside {}0, 1]", if open_low { "(" } else { "[" })));
            }
        }
        Ok(v)
    }

    fn usize(&mut self, key: &str) -> Result<Option<usize>> {
        match self.raw(key) {
            None => Ok(None),
            Some(v) => match v.parse::<usize>() {
                Ok(x) if x > 0 => Ok(Some(x)),
                _ => Err(self.err(key, format!("`{v}` is not a positive integer"))),
            },
        }
    }

    fn choice(&mut self, key: &str, options: &[&str]) -> Result<Option<String>> {
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

    fn gain(&mut self) -> Result<bool> {
        Ok(self.choice("gain", &["binary", "graded"])?.as_deref() == Some("graded"))
    }

    fn finish(self) -> Result<()> {
        if let Some((k, _, _)) = self.pairs.iter().find(|(_, _, used)| !used) {
            return Err(self.err(k, "unknown parameter"));
        }
        Ok(())
    }
}

fn policy(p: &mut Params, key: &str) -> Result<InfinitePolicy> {
    Ok(match p.choice(key, &["floor", "skip", "inf"])?.as_deref() {
        None | Some("floor") => InfinitePolicy::Floor,
        Some("skip") => InfinitePolicy::Skip,
        _ => InfinitePolicy::Infinite,
    })
}

/// What one planned measure computes.
#[derive(Debug, Clone, PartialEq)]
pub enum MeasureKind {
    /// A trec_eval measure (one column per cut-off).
    Trec(TrecMeasure),
    /// A serpsim measure (one column).
    Own(Metric),
}

/// One output column: a value per topic and a summary.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The name printed (`P_10` for trec_eval measures, the label as given otherwise).
    pub name: String,
    /// How values are printed.
    pub kind: ValueKind,
    /// How the summary combines topics.
    pub aggregate: Aggregate,
    /// Whether per-topic values are printed (`-q`).
    pub per_topic: bool,
}

/// One measure to compute and where its values go.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedMeasure {
    /// The measure.
    pub kind: MeasureKind,
    /// Relevance level for this measure (ir_measures' `rel=`); `None`: the evaluation's (`-l`).
    pub relevance_level: Option<i32>,
    /// Evaluate only the first `depth` ranks (ir_measures' `RR@10`).
    pub depth: Option<usize>,
    /// Index of its first column in [`MeasurePlan::columns`].
    pub first_column: usize,
}

impl PlannedMeasure {
    /// Number of columns.
    pub fn width(&self) -> usize {
        match &self.kind {
            MeasureKind::Trec(t) => t.width(),
            MeasureKind::Own(_) => 1,
        }
    }
}

/// The measures of one evaluation, in output order: trec_eval's measures in trec_eval's order
/// (the order trec_eval prints them in, whatever the order asked), then the others in the
/// order asked.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeasurePlan {
    /// Measures.
    pub measures: Vec<PlannedMeasure>,
    /// Columns.
    pub columns: Vec<Column>,
}

/// A request for a trec_eval family, before merging.
#[derive(Default)]
struct FamilyRequests {
    /// Parameter texts given with `.` (distinct, in order).
    dotted: Vec<String>,
    /// Cut-offs asked by output name (`P_10`), as parameter text.
    by_name: Vec<String>,
    /// Asked without parameters (directly or through a nickname).
    plain: bool,
}

impl MeasurePlan {
    /// trec_eval's default: `-m official`.
    pub fn official() -> MeasurePlan {
        MeasurePlan::parse(&["official"]).expect("official parses")
    }

    /// Plans the measures asked for (no request: trec_eval's default, `official`).
    ///
    /// ```
    /// use serpsim::metrics::names::MeasurePlan;
    /// let plan = MeasurePlan::parse(&["ndcg_cut.10", "map", "P_5", "P_10", "nDCG@10"]).unwrap();
    /// let names: Vec<&str> = plan.columns.iter().map(|c| c.name.as_str()).collect();
    /// assert_eq!(names, ["map", "P_5", "P_10", "ndcg_cut_10", "nDCG@10"]);
    /// ```
    pub fn parse<S: AsRef<str>>(requests: &[S]) -> Result<MeasurePlan> {
        let mut families: Vec<(Family, FamilyRequests)> = Vec::new();
        let mut others: Vec<(String, MeasureKind, Option<i32>, Option<usize>)> = Vec::new();
        fn family(families: &mut Vec<(Family, FamilyRequests)>, f: Family) -> usize {
            match families.iter().position(|(g, _)| *g == f) {
                Some(i) => i,
                None => {
                    families.push((f, FamilyRequests::default()));
                    families.len() - 1
                }
            }
        }
        let defaulted: Vec<&str> = if requests.is_empty() { vec!["official"] } else { requests.iter().map(|r| r.as_ref()).collect() };
        for raw in defaulted {
            let text = raw.trim();
            if text.is_empty() {
                return Err(Error::Invalid("empty measure name".into()));
            }
            // trec_eval: nickname, or family, or family.params.
            let (head, params) = match text.split_once('.') {
                Some((h, p)) if Family::from_name(h).is_some() || NICKNAMES.iter().any(|(n, _)| *n == h) => (h, Some(p)),
                _ => (text, None),
            };
            if let Some((_, names)) = NICKNAMES.iter().find(|(n, _)| *n == head) {
                if params.is_some() {
                    return Err(Error::Invalid(format!("`{text}`: the nickname `{head}` takes no parameters")));
                }
                for n in names.iter() {
                    let i = family(&mut families, Family::from_name(n).expect("nickname members are families"));
                    families[i].1.plain = true;
                }
                continue;
            }
            if let Some(f) = Family::from_name(head) {
                let i = family(&mut families, f);
                match params {
                    Some(p) => {
                        TrecMeasure::parse(f, p)?;
                        if !families[i].1.dotted.iter().any(|d| d == p) {
                            families[i].1.dotted.push(p.to_string());
                        }
                    }
                    None => families[i].1.plain = true,
                }
                continue;
            }
            if OTHER_FORMAT_MEASURES.contains(&head) {
                return Err(Error::Invalid(format!(
                    "`{text}` is a trec_eval measure for preference or judgement-group qrels (-R prefs, -R qrels_jg), which serpsim does not read"
                )));
            }
            if let Some((f, cut)) = trec_output_name(text) {
                TrecMeasure::parse(f, cut)?;
                let i = family(&mut families, f);
                families[i].1.by_name.push(cut.to_string());
                continue;
            }
            let (kind, rel, depth) = parse_other(text)?;
            if !others.iter().any(|o| o.0 == text) {
                others.push((text.to_string(), kind, rel, depth));
            }
        }
        let mut plan = MeasurePlan::default();
        families.sort_by_key(|(f, _)| *f);
        for (f, req) in families {
            let measure = if req.dotted.len() > 1 {
                return Err(Error::Invalid(format!(
                    "`{}` is asked with different parameters (`{}`); trec_eval would use only the first. Give one list, e.g. `{}.{}`",
                    f.name(),
                    req.dotted.join("` and `"),
                    f.name(),
                    req.dotted.join(",")
                )));
            } else if let Some(p) = req.dotted.first() {
                if !req.by_name.is_empty() {
                    return Err(Error::Invalid(format!(
                        "`{}` is asked both as `{}.{p}` and by output name (`{}_{}`); give one list",
                        f.name(),
                        f.name(),
                        f.name(),
                        req.by_name[0]
                    )));
                }
                TrecMeasure::parse(f, p)?
            } else if !req.by_name.is_empty() {
                merge_cutoffs(f, &req.by_name, req.plain)?
            } else {
                TrecMeasure::default_of(f)
            };
            plan.push(MeasureKind::Trec(measure), None, None, None);
        }
        for (label, kind, rel, depth) in others {
            plan.push(kind, Some(label), rel, depth);
        }
        Ok(plan)
    }

    fn push(&mut self, kind: MeasureKind, label: Option<String>, relevance_level: Option<i32>, depth: Option<usize>) {
        let first_column = self.columns.len();
        match &kind {
            MeasureKind::Trec(t) => {
                let f = t.family;
                let names = match &label {
                    Some(l) => vec![l.clone()],
                    None => t.column_names(),
                };
                for name in names {
                    self.columns.push(Column { name, kind: f.kind(), aggregate: f.aggregate(), per_topic: f.per_topic() });
                }
            }
            MeasureKind::Own(_) => self.columns.push(Column {
                name: label.expect("own measures carry their label"),
                kind: ValueKind::Double,
                aggregate: Aggregate::Mean,
                per_topic: true,
            }),
        }
        self.measures.push(PlannedMeasure { kind, relevance_level, depth, first_column });
    }

    /// Whether some measure looks at document identities or metadata (novelty, Cube Test, TBG).
    pub fn needs_docs(&self) -> bool {
        self.measures.iter().any(|m| matches!(&m.kind, MeasureKind::Own(Metric::Novelty(_) | Metric::Cube { .. } | Metric::Tbg(_))))
    }

    /// Index of the column named `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }
}

/// `P_10` → (P, "10"); `iprec_at_recall_0.50` → (iprec_at_recall, "0.50").
fn trec_output_name(text: &str) -> Option<(Family, &str)> {
    let mut best: Option<(Family, &str)> = None;
    for f in Family::all() {
        if !(f.has_long_cutoffs() || f.has_double_cutoffs()) {
            continue;
        }
        if let Some(rest) = text.strip_prefix(f.name()).and_then(|r| r.strip_prefix('_')) {
            let numeric = !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit() || (f.has_double_cutoffs() && b == b'.'));
            if numeric && best.is_none_or(|(g, _)| g.name().len() < f.name().len()) {
                best = Some((f, rest));
            }
        }
    }
    best
}

fn merge_cutoffs(f: Family, by_name: &[String], plain: bool) -> Result<TrecMeasure> {
    let mut parts: Vec<String> = by_name.to_vec();
    if plain {
        if let super::trec_eval::Params::Cutoffs(c) = TrecMeasure::default_of(f).params {
            parts.extend(c.iter().map(|k| k.to_string()));
        } else if let super::trec_eval::Params::Fractions(c) = TrecMeasure::default_of(f).params {
            parts.extend(c.iter().map(|k| format!("{k}")));
        }
    }
    // Distinct values only (asking `P_10` twice is not an error).
    let mut seen: Vec<f64> = Vec::new();
    let mut text = Vec::new();
    for p in parts {
        let v: f64 = p.parse().unwrap_or(f64::NAN);
        let v = if f.has_long_cutoffs() { v.trunc() } else { v };
        if !seen.contains(&v) {
            seen.push(v);
            text.push(p);
        }
    }
    TrecMeasure::parse(f, &text.join(","))
}

/// Known names for suggestions.
fn known_names() -> Vec<String> {
    let mut v: Vec<String> = Family::all().map(|f| f.name().to_string()).collect();
    v.extend(NICKNAMES.iter().map(|(n, _)| n.to_string()));
    v.extend(
        [
            "AP",
            "P@k",
            "R@k",
            "nDCG",
            "nDCG@k",
            "RR",
            "Bpref",
            "infAP",
            "NumRet",
            "NumRel",
            "NumRelRet",
            "NumQ",
            "SetP",
            "SetR",
            "SetF",
            "SetAP",
            "SetRelP",
            "Success@k",
            "IPrec@r",
            "RBP(p=0.8)",
            "ERR@k",
            "err",
            "rbp:p=0.8",
            "rbp_tail:p=0.8",
            "inst",
            "insq",
            "insq'",
            "inst_depth",
            "insq_depth",
            "insq'_depth",
            "rrt",
            "errt",
            "tbg",
            "pres@N",
            "pres_est@N",
            "ct",
            "novelty_utility",
            "rrmetric",
            "ebu",
            "P_10",
            "ndcg_cut_10",
            "map_cut_10",
            "recall_100",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    v
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The known name closest to `name`, if close enough to be a likely typo.
pub fn suggest(name: &str) -> Option<String> {
    let base = name.split(['@', ':', '(', '.']).next().unwrap_or(name);
    known_names()
        .into_iter()
        .map(|k| {
            let kb = k.split(['@', ':', '(']).next().unwrap_or(&k).to_string();
            (edit_distance(base, &kb), k)
        })
        .filter(|(d, k)| *d <= (k.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn unknown(text: &str) -> Error {
    let hint = match suggest(text) {
        Some(s) => format!("; did you mean `{s}`?"),
        None => String::new(),
    };
    Error::Invalid(format!(
        "unknown measure `{text}`{hint} (trec_eval names such as map, P.5,10, ndcg_cut.10, rbp, utility, -m all_trec; ir_measures names such as nDCG@10, P@5, AP, RBP(p=0.8); serpsim's own such as err@10, inst:t=3, novelty_utility; see docs/metrics.md)"
    ))
}

/// Parses an ir_measures or serpsim name into a measure, its relevance level and depth.
fn parse_other(text: &str) -> Result<(MeasureKind, Option<i32>, Option<usize>)> {
    // name[(k=v,...)][@k][:k=v,...]
    let (head, own_params) = match text.split_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (text, None),
    };
    let (head, at) = match head.rsplit_once('@') {
        Some((h, k)) => (h, Some(k)),
        None => (head, None),
    };
    let (base, paren) = match head.split_once('(') {
        Some((b, rest)) => {
            let inner = rest.strip_suffix(')').ok_or_else(|| Error::Invalid(format!("`{text}`: missing `)`")))?;
            (b, Some(inner))
        }
        None => (head, None),
    };
    if paren.is_some() && own_params.is_some() {
        return Err(Error::Invalid(format!("`{text}`: give parameters either as (k=v) or after `:`, not both")));
    }
    let lower = base.to_ascii_lowercase();
    let mut p = Params::new(text, paren.or(own_params))?;
    let k_usize = |what: &str| -> Result<Option<usize>> {
        at.map(|k| {
            k.parse::<usize>()
                .ok()
                .filter(|&k| k > 0)
                .ok_or_else(|| Error::config(format!("measure `{text}`"), "@", format!("{what} cut-off `{k}` is not a positive integer")))
        })
        .transpose()
    };
    let need_k = |what: &str| -> Result<usize> {
        k_usize(what)?.ok_or_else(|| Error::config(format!("measure `{text}`"), "@", format!("{what} needs a cut-off, e.g. {what}@10")))
    };
    let no_k = || -> Result<()> {
        if at.is_some() {
            return Err(Error::config(format!("measure `{text}`"), "@", "this measure takes no cut-off"));
        }
        Ok(())
    };
    // Measures with trec_eval's definitions (ir_measures names and serpsim's old spellings).
    let trec = |f: Family, params: Option<String>| -> Result<TrecMeasure> {
        match params {
            Some(s) => TrecMeasure::parse(f, &s),
            None => Ok(TrecMeasure::default_of(f)),
        }
    };
    let mut depth = None;
    let trec_kind: Option<TrecMeasure> = match lower.as_str() {
        "p" | "precision" => Some(trec(Family::P, Some(need_k("P")?.to_string()))?),
        "r" | "recall" => Some(trec(Family::Recall, Some(need_k("R")?.to_string()))?),
        "ap" | "map" => match k_usize("AP")? {
            Some(k) => Some(trec(Family::MapCut, Some(k.to_string()))?),
            None => Some(trec(Family::Map, None)?),
        },
        "rr" | "mrr" | "recip_rank" => {
            depth = k_usize("RR")?;
            Some(trec(Family::RecipRank, None)?)
        }
        "rprec" => {
            no_k()?;
            Some(trec(Family::Rprec, None)?)
        }
        "ndcg" if p.pairs.iter().all(|(k, _, _)| k == "rel" || k == "dcg") => {
            if let Some(d) = p.raw("dcg") {
                if !d.eq_ignore_ascii_case("log2") {
                    return Err(p.err("dcg", format!("`{d}` is not supported (only log2: gains are the grades, as trec_eval)")));
                }
            }
            match k_usize("nDCG")? {
                Some(k) => Some(trec(Family::NdcgCut, Some(k.to_string()))?),
                None => Some(trec(Family::Ndcg, None)?),
            }
        }
        "bpref" => Some(trec(Family::Bpref, None)?),
        "infap" => Some(trec(Family::InfAp, None)?),
        "numret" => Some(trec(Family::NumRet, None)?),
        "numrel" => Some(trec(Family::NumRel, None)?),
        "numrelret" => Some(trec(Family::NumRelRet, None)?),
        "numq" => Some(trec(Family::NumQ, None)?),
        "setp" => Some(trec(Family::SetP, None)?),
        "setr" => Some(trec(Family::SetRecall, None)?),
        "setap" => Some(trec(Family::SetMap, None)?),
        "setrelp" => Some(trec(Family::SetRelativeP, None)?),
        "setf" => {
            let beta = p.positive("beta")?.unwrap_or(1.0);
            Some(trec(Family::SetF, Some(format!("{beta}")))?)
        }
        "success" => Some(trec(Family::Success, Some(need_k("Success")?.to_string()))?),
        "iprec" => {
            let r = at
                .and_then(|r| r.parse::<f64>().ok())
                .filter(|r| (0.0..=1.0).contains(r))
                .ok_or_else(|| Error::config(format!("measure `{text}`"), "@", "IPrec needs a recall level in [0, 1], e.g. IPrec@0.5"))?;
            Some(trec(Family::IprecAtRecall, Some(format!("{r}")))?)
        }
        _ => None,
    };
    if let Some(t) = trec_kind {
        if matches!(t.family, Family::RecipRank) || depth.is_some() {
            // depth already taken from @k
        } else if !matches!(t.family, Family::P | Family::Recall | Family::MapCut | Family::NdcgCut | Family::Success | Family::IprecAtRecall) {
            no_k()?;
        }
        let rel = p.f64("rel")?.map(|r| r as i32);
        if let Some(v) = p.raw("judged_only") {
            match v.to_ascii_lowercase().as_str() {
                "false" | "0" => {}
                "true" | "1" => {
                    return Err(p.err(
                        "judged_only",
                        "is not supported: serpsim scores unjudged documents as non-relevant, as trec_eval does; remove them from the run to evaluate judged documents only",
                    ))
                }
                _ => return Err(p.err("judged_only", format!("`{v}` is not True or False"))),
            }
        }
        if matches!(t.family, Family::Ndcg | Family::NdcgCut) && rel.is_some() {
            return Err(p.err("rel", "nDCG uses the grades as gains; `rel` does not apply"));
        }
        p.finish()?;
        return Ok((MeasureKind::Trec(t), rel, depth));
    }
    let k = k_usize(base)?;
    let ins_variant = |b: &str| match b {
        "insq" | "insq_depth" => Some(InsVariant::Insq),
        "insq'" | "insqp" | "insq'_depth" | "insqp_depth" => Some(InsVariant::InsqPrime),
        "inst" | "inst_depth" => Some(InsVariant::Inst),
        _ => None,
    };
    let metric = match lower.as_str() {
        "rrmetric" | "ebu" => {
            let user = match p.raw("user") {
                None => crate::clickmodels::metrics::UserModel::Navigational,
                Some(u) => crate::clickmodels::metrics::UserModel::parse(&u)
                    .ok_or_else(|| p.err("user", format!("`{u}` is not perfect, navigational or informational")))?,
            };
            let ((cr, sr), (cn, sn)) = (user.params(1), user.params(0));
            let click = [p.probability("click_rel", false)?.unwrap_or(cr), p.probability("click_nonrel", false)?.unwrap_or(cn)];
            let satisfaction = [p.probability("sat_rel", false)?.unwrap_or(sr), p.probability("sat_nonrel", false)?.unwrap_or(sn)];
            let (kind, gamma) =
                if lower == "ebu" { (ClickMetricKind::Ebu, p.probability("gamma", false)?.unwrap_or(0.9)) } else { (ClickMetricKind::RrMetric, 1.0) };
            Metric::ClickModel { kind, click, satisfaction, gamma, k }
        }
        "ndcg" => {
            let discount = match p.choice("discount", &["log2", "jarvelin"])?.as_deref() {
                Some("jarvelin") => Discount::Jarvelin { base: p.positive("b")?.unwrap_or(2.0) },
                _ => return Err(p.err("discount", "serpsim's nDCG differs from trec_eval's only with discount=jarvelin")),
            };
            if let Discount::Jarvelin { base } = discount {
                if base <= 1.0 {
                    return Err(p.err("b", format!("{base} must be > 1")));
                }
            }
            Metric::Ndcg { k, discount }
        }
        "err" => {
            // ir_measures' `ERR@k` is gdeval's: gains (2^g - 1) / 2^4 (its MAX_JUDGMENT = 4);
            // serpsim's `err@k` takes g_max from the qrels unless `max` is given.
            let gdeval = base == "ERR" && own_params.is_none() && paren.is_none();
            let max_grade = p.usize("max")?.map(|g| g as i32).or(gdeval.then_some(4));
            Metric::Err { k, max_grade }
        }
        "rbp" => {
            // ir_measures' spelling `RBP(p=0.8)[@k]`: graded gains (the grades themselves)
            // unless `rel` makes them binary, and an optional cut-off. serpsim's `rbp:p=0.8` is
            // binary (or `gain=graded`, grade / g_max) over the whole ranking.
            let ir = base == "RBP" && own_params.is_none();
            let depth = if ir { k_usize("RBP")? } else { None };
            if !ir {
                no_k()?;
            }
            let pp = p.probability("p", false)?.unwrap_or(0.8);
            if pp >= 1.0 {
                return Err(p.err("p", "must be < 1"));
            }
            let graded = if ir { false } else { p.gain()? };
            let rel = p.f64("rel")?;
            let raw = ir && rel.is_none();
            p.finish()?;
            return Ok((MeasureKind::Own(Metric::Rbp { p: pp, graded, raw }), rel.map(|r| r as i32), depth));
        }
        "rbp_tail" => {
            no_k()?;
            Metric::RbpTail { p: p.probability("p", false)?.unwrap_or(0.8) }
        }
        b if ins_variant(b).is_some() => {
            no_k()?;
            let variant = ins_variant(b).expect("checked");
            let t = p.positive("t")?.unwrap_or(3.0);
            if t < 0.5 {
                return Err(p.err("t", format!("{t} must be >= 0.5 (C(i) is defined for T >= 1/2)")));
            }
            let graded = p.gain()?;
            if b.ends_with("_depth") {
                Metric::InsDepth { variant, t, graded }
            } else {
                Metric::Ins { variant, t, graded }
            }
        }
        "rrt" => {
            no_k()?;
            Metric::Rrt { t: p.usize("t")?.unwrap_or(1) }
        }
        "errt" => {
            no_k()?;
            Metric::Errt { t: p.usize("t")?.unwrap_or(1) }
        }
        "tbg" => {
            no_k()?;
            let d = TbgParams::default();
            Metric::Tbg(TbgParams { half_life: p.positive("h")?.unwrap_or(d.half_life), default_length: p.positive("len")?.unwrap_or(d.default_length) })
        }
        "pres" => Metric::Pres { n_max: need_k("pres")? },
        "pres_est" => Metric::PresEst { n_max: need_k("pres_est")? },
        "ct" | "cube" => {
            let d = CubeParams::default();
            let gamma = p.probability("gamma", true)?.unwrap_or(d.gamma);
            let max_height = p.positive("height")?.unwrap_or(d.max_height);
            let cap = match p.choice("cap", &["indicator", "truncate", "decay"])?.as_deref() {
                Some("truncate") => CapMode::Truncate,
                Some("decay") => CapMode::Decay,
                _ => CapMode::Indicator,
            };
            let equation = match p.choice("eq", &["11", "13"])?.as_deref() {
                Some("11") => CubeEquation::Eq11,
                _ => CubeEquation::Eq13,
            };
            let time_origin = match p.choice("time0", &["inclusive", "literal"])?.as_deref() {
                Some("literal") => TimeOrigin::Literal,
                _ => TimeOrigin::Inclusive,
            };
            let weights = match p.choice("weights", &["uniform", "l", "p"])?.as_deref() {
                Some("l") => SubtopicWeights::Log,
                Some("p") => SubtopicWeights::Given(Vec::new()),
                _ => SubtopicWeights::Uniform,
            };
            let time = match p.choice("time", &["t", "a", "g", "d"])?.as_deref() {
                Some("t") => CubeTime::Top,
                Some("a") => CubeTime::Words(p.positive("words")?.unwrap_or(150.0)),
                Some("d") => CubeTime::PerDocument { default: p.positive("default")?.unwrap_or(1.0) },
                _ => CubeTime::Tbg { default_length: p.positive("len")?.unwrap_or(TbgParams::default().default_length) },
            };
            let k = match (k, time) {
                (None, CubeTime::Top) => Some(10),
                (k, _) => k,
            };
            Metric::Cube { params: CubeParams { gamma, max_height, cap, equation, time_origin }, weights, time, k }
        }
        "novelty" | "novelty_utility" => {
            let depth = k.unwrap_or(1000);
            let missed = policy(&mut p, "missed")?;
            let unfound = policy(&mut p, "unfound")?;
            let eps = p.probability("eps", true)?;
            Metric::Novelty(NoveltyParams { depth, missed, unfound, eps })
        }
        _ => return Err(unknown(text)),
    };
    p.finish()?;
    Ok((MeasureKind::Own(metric), None, None))
}

/// Parses one serpsim or ir_measures name into its metric (compatibility with the old
/// single-metric API; trec_eval names give an error pointing at [`MeasurePlan::parse`]).
pub fn parse_metric(text: &str) -> Result<MetricSpec> {
    match parse_other(text.trim())? {
        (MeasureKind::Own(metric), _, _) => Ok(MetricSpec { label: text.trim().to_string(), metric }),
        (MeasureKind::Trec(_), _, _) => Err(Error::Invalid(format!("`{text}` is a trec_eval measure; plan it with MeasurePlan::parse"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(req: &[&str]) -> Vec<String> {
        MeasurePlan::parse(req).unwrap().columns.into_iter().map(|c| c.name).collect()
    }

    #[test]
    fn official_is_the_default_and_in_trec_eval_order() {
        // trec_eval 10 `-m official` prints (test/out.test): runid num_q num_ret num_rel
        // num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall_0.00..1.00 P_5..P_1000.
        let cols = names(&[]);
        assert_eq!(cols.len(), 10 + 11 + 9);
        assert_eq!(&cols[..6], ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]);
        assert_eq!(cols[10], "iprec_at_recall_0.00");
        assert_eq!(cols.last().unwrap(), "P_1000");
        assert_eq!(names(&["P", "map"]), names(&["map", "P"]));
    }

    #[test]
    fn trec_eval_syntax_output_names_and_nicknames() {
        assert_eq!(names(&["P.5,10", "ndcg_cut.10"]), ["P_5", "P_10", "ndcg_cut_10"]);
        assert_eq!(names(&["P_10", "P_5", "P_10"]), ["P_5", "P_10"]);
        assert_eq!(names(&["iprec_at_recall_0.50"]), ["iprec_at_recall_0.50"]);
        // As trec_eval: the parameters given with `.` replace the defaults.
        assert_eq!(names(&["rbp", "rbp.p=0.5"]), ["rbp_p=0.5"]);
        assert_eq!(names(&["official"]), names(&["official", "map", "P"]));
        // test/out.test.a has 99 summary lines; relstring has none.
        assert_eq!(names(&["all_trec"]).len(), 100);
    }

    #[test]
    fn conflicts_and_unknown_names_are_clear_errors() {
        let e = MeasurePlan::parse(&["P.5", "P.10"]).unwrap_err().to_string();
        assert!(e.contains("different parameters") && e.contains("P.5,10"), "{e}");
        let e = MeasurePlan::parse(&["mpa"]).unwrap_err().to_string();
        assert!(e.contains("unknown measure `mpa`") && e.contains("did you mean `map`"), "{e}");
        let e = MeasurePlan::parse(&["ndcg_cutt.10"]).unwrap_err().to_string();
        assert!(e.contains("did you mean `ndcg_cut`"), "{e}");
        let e = MeasurePlan::parse(&["prefs_simp"]).unwrap_err().to_string();
        assert!(e.contains("-R prefs"), "{e}");
        assert!(MeasurePlan::parse(&["official.5"]).is_err());
        assert!(MeasurePlan::parse(&["P."]).is_err());
        assert!(MeasurePlan::parse(&["rbp:q=0.8"]).unwrap_err().to_string().contains("`q`"));
        assert!(MeasurePlan::parse(&["pres"]).is_err());
    }

    #[test]
    fn ir_measures_and_own_names() {
        let plan = MeasurePlan::parse(&["nDCG@10", "P@5", "AP", "RBP(p=0.8)", "rbp:p=0.8", "novelty_utility@4", "RR@10", "P(rel=2)@5"]).unwrap();
        let c: Vec<&str> = plan.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(c, ["nDCG@10", "P@5", "AP", "RBP(p=0.8)", "rbp:p=0.8", "novelty_utility@4", "RR@10", "P(rel=2)@5"]);
        assert_eq!(plan.measures[0].kind, MeasureKind::Trec(TrecMeasure::parse(Family::NdcgCut, "10").unwrap()));
        assert_eq!(plan.measures[3].kind, MeasureKind::Own(Metric::Rbp { p: 0.8, graded: false, raw: true }));
        // serpsim's spelling is binary RBP; ir_measures' gains are the grades themselves.
        assert_eq!(plan.measures[4].kind, MeasureKind::Own(Metric::Rbp { p: 0.8, graded: false, raw: false }));
        let irm = MeasurePlan::parse(&["RBP(p=0.5)@10", "RBP(rel=2,p=0.8)", "ERR@10", "err@10"]).unwrap();
        assert_eq!((irm.measures[0].kind.clone(), irm.measures[0].depth), (MeasureKind::Own(Metric::Rbp { p: 0.5, graded: false, raw: true }), Some(10)));
        assert_eq!(irm.measures[1].kind, MeasureKind::Own(Metric::Rbp { p: 0.8, graded: false, raw: false }));
        assert_eq!(irm.measures[1].relevance_level, Some(2));
        // gdeval's ERR (ir_measures' back end) fixes g_max at 4.
        assert_eq!(irm.measures[2].kind, MeasureKind::Own(Metric::Err { k: Some(10), max_grade: Some(4) }));
        assert_eq!(irm.measures[3].kind, MeasureKind::Own(Metric::Err { k: Some(10), max_grade: None }));
        let e = MeasurePlan::parse(&["P(judged_only=True)@5"]).unwrap_err().to_string();
        assert!(e.contains("judged_only") && e.contains("not supported"), "{e}");
        assert!(MeasurePlan::parse(&["P(judged_only=False)@5"]).is_ok());
        assert!(MeasurePlan::parse(&["rbp:p=0.8@10"]).is_err() && MeasurePlan::parse(&["RBP(p=0.8,gain=graded)"]).is_err());
        assert_eq!(plan.measures[6].depth, Some(10));
        assert_eq!(plan.measures[7].relevance_level, Some(2));
        assert!(plan.needs_docs());
        // `utility` is trec_eval's now; Fujii and Ishikawa's is novelty_utility.
        assert!(matches!(MeasurePlan::parse(&["utility"]).unwrap().measures[0].kind, MeasureKind::Trec(_)));
    }
}
