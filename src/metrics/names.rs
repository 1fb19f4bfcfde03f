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
//! The ir_measures and serpsim names are declared in the registry, [`super::measures`] (one
//! declaration per measure: names, cut-off, parameters, build, compute); this module reads
//! trec_eval's names and hands every other spelling to [`measures::parse`].
//!
//! Unknown names are errors that suggest the closest known name (trec_eval's families and
//! nicknames, then the registry's names); unknown or invalid parameters are errors naming the key.

use super::measures;
use super::trec_eval::{Aggregate, Family, TrecMeasure, ValueKind, NICKNAMES, OTHER_FORMAT_MEASURES};
use crate::error::{Error, Result};

pub use super::measure_def::{ClickMetricKind, CubeTime, MeasureKind, Metric};

/// A parsed serpsim metric with the label it was asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSpec {
    /// The name as given (used in output).
    pub label: String,
    /// The metric.
    pub metric: Metric,
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
            let (kind, rel, depth) = measures::parse(text, unknown)?;
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
        self.measures.iter().any(|m| match &m.kind {
            MeasureKind::Own(Metric::Novelty(_) | Metric::Cube { .. } | Metric::Tbg(_)) => true,
            MeasureKind::Own(Metric::Registered(r)) => r.def.compute.is_some_and(|c| c.needs_docs),
            _ => false,
        })
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

/// Output names of single trec_eval cut-offs, offered as suggestions after the registry's names.
const TREC_OUTPUT_EXAMPLES: [&str; 4] = ["P_10", "ndcg_cut_10", "map_cut_10", "recall_100"];

/// Known names for suggestions: trec_eval's families and nicknames, every registered measure
/// ([`super::REGISTRY`], in its order), then examples of trec_eval output names.
fn known_names() -> Vec<String> {
    let mut v: Vec<String> = Family::all().map(|f| f.name().to_string()).collect();
    v.extend(NICKNAMES.iter().map(|(n, _)| n.to_string()));
    v.extend(measures::shown_names().map(str::to_string));
    v.extend(TREC_OUTPUT_EXAMPLES.iter().map(|s| s.to_string()));
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
    suggest_from(name, known_names())
}

/// The name of `known` closest to `name` (the first of equally close ones).
fn suggest_from(name: &str, known: Vec<String>) -> Option<String> {
    let base = name.split(['@', ':', '(', '.']).next().unwrap_or(name);
    known
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

/// Parses one serpsim or ir_measures name into its metric (compatibility with the old
/// single-metric API; trec_eval names give an error pointing at [`MeasurePlan::parse`]).
pub fn parse_metric(text: &str) -> Result<MetricSpec> {
    match measures::parse(text.trim(), unknown)? {
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

    /// The hand-kept list of suggestions before the registry (commit 5dfa993), frozen: the
    /// names derived from the registry must suggest what it suggested for typos of every name
    /// it held. (A measure registered later may be a closer match for some typo; add its
    /// shown name at the end of this list then.)
    #[test]
    fn suggestions_match_the_former_hand_kept_list() {
        let mut old: Vec<String> = Family::all().map(|f| f.name().to_string()).collect();
        old.extend(NICKNAMES.iter().map(|(n, _)| n.to_string()));
        let listed = [
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
        ];
        old.extend(listed.iter().map(|s| s.to_string()));
        let mut typos = Vec::new();
        for name in &old {
            let base: Vec<char> = name.split(['@', ':', '(']).next().unwrap().chars().collect();
            for i in 0..=base.len() {
                let mut v = base.clone();
                if i < base.len() {
                    v.remove(i);
                    typos.push(v.iter().collect::<String>());
                    let mut w = base.clone();
                    w[i] = 'x';
                    typos.push(w.iter().collect());
                }
                let mut w = base.clone();
                w.insert(i, 'e');
                typos.push(w.iter().collect());
                if i + 1 < base.len() {
                    let mut w = base.clone();
                    w.swap(i, i + 1);
                    typos.push(w.iter().collect());
                }
            }
            typos.push(name.to_uppercase());
        }
        assert!(typos.len() > 1000);
        for t in &typos {
            assert_eq!(suggest(t), suggest_from(t, old.clone()), "typo `{t}`");
        }
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
