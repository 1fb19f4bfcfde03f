//! trec_eval 10's measures, computed the way trec_eval computes them.
//!
//! Every measure of trec_eval's `all_trec` set (and `dcg`, `ideal_dcg`) is here, with trec_eval's
//! names, default parameters, parameter syntax (`P.5,10`, `ndcg.1=3,2=9`, `rbp.p=0.8`), output
//! names (`P_5`, `iprec_at_recall_0.10`, `utility_2,-1,0,0`), per-topic and summary rules, and
//! the same floating-point operations in the same order, so that four-decimal output agrees
//! character for character. Source: usnistgov/trec_eval v10.0 (commit f425365, `m_*.c`).
//!
//! A topic is seen as trec_eval's `RES_RELS`: the relevance value of every retrieved document in
//! rank order, where a document absent from the qrels is [`NONPOOL`] (-1) and one in the qrels
//! with a negative grade is [`UNJUDGED_IN_POOL`] (-2), plus the number of qrels judgements at
//! each grade >= 0 ([`TopicRels::rel_levels`]).
//!
//! Deliberate differences (documented in `docs/metrics.md`):
//! - `rbp` reads two uninitialised variables in trec_eval 10 (`min`, `max` in `m_rbp.c`); its
//!   output there depends on the compiler. Here they start at 0, which is what trec_eval's own
//!   test outputs (`test/out.test.*`) show and what a zero-initialised build prints.
//! - Unknown keys in `name=value` parameters (`rbp.q=0.5`) are an error here; trec_eval
//!   ignores them.

use crate::error::{Error, Result};

/// Relevance value of a retrieved document that is not in the qrels.
pub const NONPOOL: i32 = -1;
/// Relevance value of a retrieved document that is in the qrels with a negative grade
/// ("in the pool but not judged", as infAP's sampled pools write it).
pub const UNJUDGED_IN_POOL: i32 = -2;

/// trec_eval's `MIN_GEO_MEAN`: the floor of a topic's score in a geometric mean.
pub const MIN_GEO_MEAN: f64 = 0.00001;
const INFAP_EPSILON: f64 = 0.00001;

/// One topic as trec_eval's measures see it (`RES_RELS`).
#[derive(Debug, Clone, Copy)]
pub struct TopicRels<'a> {
    /// Relevance value of each retrieved document, best first (after `-M` and `-J`).
    pub rels: &'a [i32],
    /// Number of qrels judgements at each grade 0, 1, 2, ... of this topic (negative grades
    /// are not counted). Trailing zeros do not matter.
    pub rel_levels: &'a [u64],
    /// Minimum grade of a relevant document (`-l`).
    pub relevance_level: i32,
    /// Judged relevant documents: the sum of `rel_levels` from `relevance_level` up.
    pub num_rel: i64,
    /// Relevant documents retrieved.
    pub num_rel_ret: i64,
    /// Retrieved documents not in the qrels.
    pub num_nonpool: i64,
    /// Retrieved documents in the qrels with a negative grade.
    pub num_unjudged_in_pool: i64,
    /// One more than the largest grade with a judgement (0 when there is none).
    pub num_rel_levels: usize,
}

impl<'a> TopicRels<'a> {
    /// Counts what trec_eval's `form_res_rels` counts.
    pub fn new(rels: &'a [i32], rel_levels: &'a [u64], relevance_level: i32) -> Self {
        let mut num_rel_ret = 0;
        let mut num_nonpool = 0;
        let mut num_unjudged_in_pool = 0;
        for &r in rels {
            if r == NONPOOL {
                num_nonpool += 1;
            } else if r == UNJUDGED_IN_POOL {
                num_unjudged_in_pool += 1;
            } else if r >= relevance_level {
                num_rel_ret += 1;
            }
        }
        let num_rel_levels = rel_levels.iter().rposition(|&c| c > 0).map_or(0, |i| i + 1);
        let num_rel = rel_levels.iter().enumerate().filter(|&(i, _)| i as i64 >= relevance_level as i64).map(|(_, &c)| c as i64).sum();
        TopicRels { rels, rel_levels, relevance_level, num_rel, num_rel_ret, num_nonpool, num_unjudged_in_pool, num_rel_levels }
    }

    fn num_ret(&self) -> i64 {
        self.rels.len() as i64
    }

    #[inline]
    fn is_rel(&self, r: i32) -> bool {
        r >= self.relevance_level
    }
}

/// Settings that apply to every topic (trec_eval's command-line options).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Settings {
    /// `-N`: number of documents in the collection (utility's fourth coefficient).
    pub num_docs_in_coll: i64,
}

/// The measure families, in trec_eval's order (`te_trec_measures` in `measures.c`), which is
/// the order trec_eval prints them in whatever order they were asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum Family {
    RunId,
    NumQ,
    NumRet,
    NumRel,
    NumRelRet,
    Map,
    GmMap,
    Rprec,
    Bpref,
    RecipRank,
    IprecAtRecall,
    P,
    Relstring,
    Recall,
    InfAp,
    GmBpref,
    RprecMult,
    Utility,
    ElevenPtAvg,
    BinG,
    G,
    Dcg,
    IdealDcg,
    Ndcg,
    NdcgRel,
    Rndcg,
    NdcgCut,
    MapCut,
    RelativeP,
    Success,
    SetP,
    SetRelativeP,
    SetRecall,
    SetMap,
    SetF,
    NumNonrelJudgedRet,
    Rbp,
    RbpResid,
    Unj,
}

/// How a family takes parameters after the `.`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum ParamKind {
    None,
    /// Integer cut-offs, sorted, one value each (`P.5,10`).
    LongCutoffs(&'static [usize]),
    /// Fractional cut-offs, sorted, one value each (`iprec_at_recall.0.1,0.5`).
    DoubleCutoffs(&'static [f64]),
    /// A list of numbers for one value (`utility.1,-1,0,0`).
    Doubles(&'static [f64]),
    /// `name=value` pairs for one value (`ndcg.1=3,2=9`, `rbp.p=0.8`).
    Pairs,
}

/// How the `all` line combines the topics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    /// Arithmetic mean over the evaluated topics (all qrels topics with `-c`).
    Mean,
    /// Sum over topics (counts).
    Sum,
    /// `num_rel`: the sum, except with `-c` the number of qrels judgements with grade > 0
    /// over every qrels topic.
    NumRel,
    /// Geometric mean of the per-topic values, each floored at [`MIN_GEO_MEAN`]
    /// (the per-topic value stored is its logarithm).
    GeoMean,
    /// Number of topics.
    NumQ,
    /// The run's name (`runid`).
    RunId,
    /// No summary (`relstring`).
    None,
}

/// How a value is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// `%6.4f`.
    Double,
    /// An integer (`%ld` of the truncated value).
    Long,
    /// A quoted string (`relstring`).
    Text,
}

struct FamilyInfo {
    family: Family,
    name: &'static str,
    params: ParamKind,
    kind: ValueKind,
    aggregate: Aggregate,
    per_topic: bool,
}

const CUTS: &[usize] = &[5, 10, 15, 20, 30, 100, 200, 500, 1000];
const RECALL_POINTS: &[f64] = &[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
const RPREC_MULTS: &[f64] = &[0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0];

const fn info(family: Family, name: &'static str, params: ParamKind, kind: ValueKind, aggregate: Aggregate, per_topic: bool) -> FamilyInfo {
    FamilyInfo { family, name, params, kind, aggregate, per_topic }
}

use Aggregate as A;
use ParamKind as K;
use ValueKind as V;

static FAMILIES: &[FamilyInfo] = &[
    info(Family::RunId, "runid", K::None, V::Text, A::RunId, false),
    info(Family::NumQ, "num_q", K::None, V::Long, A::NumQ, false),
    info(Family::NumRet, "num_ret", K::None, V::Long, A::Sum, true),
    info(Family::NumRel, "num_rel", K::None, V::Long, A::NumRel, true),
    info(Family::NumRelRet, "num_rel_ret", K::None, V::Long, A::Sum, true),
    info(Family::Map, "map", K::None, V::Double, A::Mean, true),
    info(Family::GmMap, "gm_map", K::None, V::Double, A::GeoMean, false),
    info(Family::Rprec, "Rprec", K::None, V::Double, A::Mean, true),
    info(Family::Bpref, "bpref", K::None, V::Double, A::Mean, true),
    info(Family::RecipRank, "recip_rank", K::None, V::Double, A::Mean, true),
    info(Family::IprecAtRecall, "iprec_at_recall", K::DoubleCutoffs(RECALL_POINTS), V::Double, A::Mean, true),
    info(Family::P, "P", K::LongCutoffs(CUTS), V::Double, A::Mean, true),
    info(Family::Relstring, "relstring", K::Doubles(&[10.0]), V::Text, A::None, true),
    info(Family::Recall, "recall", K::LongCutoffs(CUTS), V::Double, A::Mean, true),
    info(Family::InfAp, "infAP", K::None, V::Double, A::Mean, true),
    info(Family::GmBpref, "gm_bpref", K::None, V::Double, A::GeoMean, false),
    info(Family::RprecMult, "Rprec_mult", K::DoubleCutoffs(RPREC_MULTS), V::Double, A::Mean, true),
    info(Family::Utility, "utility", K::Doubles(&[1.0, -1.0, 0.0, 0.0]), V::Double, A::Mean, true),
    info(Family::ElevenPtAvg, "11pt_avg", K::Doubles(RECALL_POINTS), V::Double, A::Mean, true),
    info(Family::BinG, "binG", K::None, V::Double, A::Mean, true),
    info(Family::G, "G", K::Pairs, V::Double, A::Mean, true),
    info(Family::Dcg, "dcg", K::Pairs, V::Double, A::Mean, true),
    info(Family::IdealDcg, "ideal_dcg", K::Pairs, V::Double, A::Mean, true),
    info(Family::Ndcg, "ndcg", K::Pairs, V::Double, A::Mean, true),
    info(Family::NdcgRel, "ndcg_rel", K::Pairs, V::Double, A::Mean, true),
    info(Family::Rndcg, "Rndcg", K::Pairs, V::Double, A::Mean, true),
    info(Family::NdcgCut, "ndcg_cut", K::LongCutoffs(CUTS), V::Double, A::Mean, true),
    info(Family::MapCut, "map_cut", K::LongCutoffs(CUTS), V::Double, A::Mean, true),
    info(Family::RelativeP, "relative_P", K::LongCutoffs(CUTS), V::Double, A::Mean, true),
    info(Family::Success, "success", K::LongCutoffs(&[1, 5, 10]), V::Double, A::Mean, true),
    info(Family::SetP, "set_P", K::None, V::Double, A::Mean, true),
    info(Family::SetRelativeP, "set_relative_P", K::None, V::Double, A::Mean, true),
    info(Family::SetRecall, "set_recall", K::None, V::Double, A::Mean, true),
    info(Family::SetMap, "set_map", K::None, V::Double, A::Mean, true),
    info(Family::SetF, "set_F", K::Doubles(&[1.0]), V::Double, A::Mean, true),
    info(Family::NumNonrelJudgedRet, "num_nonrel_judged_ret", K::None, V::Long, A::Sum, true),
    info(Family::Rbp, "rbp", K::Pairs, V::Double, A::Mean, true),
    info(Family::RbpResid, "rbp_resid", K::Pairs, V::Double, A::Mean, true),
    info(Family::Unj, "unj", K::LongCutoffs(&[5, 10, 20]), V::Double, A::Mean, true),
];

/// trec_eval's nicknames for measure sets (`-m official`, `-m all_trec`, `-m set`).
pub static NICKNAMES: &[(&str, &[&str])] = &[
    ("official", &["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"]),
    ("set", &["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P", "set_map", "set_F"]),
    (
        "all_trec",
        &[
            "runid",
            "num_q",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "map",
            "gm_map",
            "Rprec",
            "bpref",
            "recip_rank",
            "iprec_at_recall",
            "P",
            "relstring",
            "recall",
            "unj",
            "rbp",
            "rbp_resid",
            "infAP",
            "gm_bpref",
            "utility",
            "11pt_avg",
            "ndcg",
            "relative_P",
            "Rprec_mult",
            "success",
            "map_cut",
            "ndcg_cut",
            "ndcg_rel",
            "Rndcg",
            "binG",
            "G",
            "set_P",
            "set_recall",
            "set_relative_P",
            "set_map",
            "set_F",
            "num_nonrel_judged_ret",
        ],
    ),
];

/// trec_eval measures that need other input formats (`-R prefs`, `-R qrels_jg`); serpsim
/// does not compute them.
pub static OTHER_FORMAT_MEASURES: &[&str] = &[
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
    "map_avgjg",
    "P_avgjg",
    "Rprec_mult_avgjg",
    "yaap",
    "all_prefs",
    "prefs",
    "qrels_jg",
];

impl Family {
    fn info(self) -> &'static FamilyInfo {
        &FAMILIES[self as usize]
    }

    /// trec_eval's name of the family (`P`, `ndcg_cut`, ...).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The family with trec_eval name `name` (case-sensitive, as trec_eval).
    pub fn from_name(name: &str) -> Option<Family> {
        FAMILIES.iter().find(|f| f.name == name).map(|f| f.family)
    }

    /// Every family, in trec_eval's order.
    pub fn all() -> impl Iterator<Item = Family> {
        FAMILIES.iter().map(|f| f.family)
    }

    /// How values of this family are printed.
    pub fn kind(self) -> ValueKind {
        self.info().kind
    }

    /// How the summary combines topics.
    pub fn aggregate(self) -> Aggregate {
        self.info().aggregate
    }

    /// Whether trec_eval prints per-topic values of this family with `-q`.
    pub fn per_topic(self) -> bool {
        self.info().per_topic
    }

    /// Whether parameters are integer cut-offs (merged when asked twice).
    pub fn has_long_cutoffs(self) -> bool {
        matches!(self.info().params, K::LongCutoffs(_))
    }

    /// Whether parameters are fractional cut-offs.
    pub fn has_double_cutoffs(self) -> bool {
        matches!(self.info().params, K::DoubleCutoffs(_))
    }
}

/// Parameters of one instance of a family.
#[derive(Debug, Clone, PartialEq)]
pub enum Params {
    /// No parameters.
    None,
    /// Integer cut-offs, ascending.
    Cutoffs(Vec<usize>),
    /// Fractional cut-offs, ascending.
    Fractions(Vec<f64>),
    /// Numbers, in the order given.
    Numbers(Vec<f64>),
    /// `name=value` pairs, in the order given.
    Pairs(Vec<(String, f64)>),
}

/// One trec_eval measure with its parameters: a family and what followed the `.`.
#[derive(Debug, Clone, PartialEq)]
pub struct TrecMeasure {
    /// The family.
    pub family: Family,
    /// The parameters (the defaults when none were given).
    pub params: Params,
    /// The parameter text as given, which trec_eval appends to the name of single-valued
    /// measures (`utility_2,-1,0,0`, `rbp_p=0.8`); `None` for the defaults.
    pub printable: Option<String>,
}

fn param_error(measure: &str, reason: impl Into<String>) -> Error {
    Error::config(format!("measure `{measure}`"), "parameters", reason)
}

/// C's `atol`: an optional sign and the leading digits; `None` when there are no digits.
fn c_atol(s: &str) -> Option<i64> {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let end = digits.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(digits.len());
    if end == 0 {
        return None;
    }
    let v: i64 = digits[..end].parse().ok()?;
    Some(if neg { -v } else { v })
}

/// A number as trec_eval's `atof` would read it, but refusing text that is not a number.
fn number(measure: &str, s: &str) -> Result<f64> {
    let t = s.trim();
    // C accepts ".5" and "5."; Rust's parser does too.
    t.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| param_error(measure, format!("`{s}` is not a number")))
}

impl TrecMeasure {
    /// The family with its default parameters.
    pub fn default_of(family: Family) -> Self {
        let params = match family.info().params {
            K::None | K::Pairs => {
                if family.info().params == K::Pairs {
                    Params::Pairs(Vec::new())
                } else {
                    Params::None
                }
            }
            K::LongCutoffs(c) => Params::Cutoffs(c.to_vec()),
            K::DoubleCutoffs(c) => Params::Fractions(c.to_vec()),
            K::Doubles(d) => Params::Numbers(d.to_vec()),
        };
        TrecMeasure { family, params, printable: None }
    }

    /// Parses trec_eval's parameter text for `family` (what follows the `.` in `-m`).
    /// Cut-offs follow `atol`/`atof` as trec_eval does (`ndcg_cut.23.4` is cut-off 23) but
    /// text that is no number is an error; cut-offs must be positive and distinct.
    pub fn parse(family: Family, text: &str) -> Result<Self> {
        let full = format!("{}.{text}", family.name());
        if text.is_empty() {
            return Err(param_error(&full, "empty parameter list after `.`"));
        }
        let items: Vec<&str> = text.split(',').collect();
        let params = match family.info().params {
            K::None => return Err(param_error(&full, format!("`{}` takes no parameters", family.name()))),
            K::LongCutoffs(_) => {
                let mut cuts = Vec::with_capacity(items.len());
                for it in &items {
                    let v = c_atol(it).ok_or_else(|| param_error(&full, format!("cut-off `{it}` is not a number")))?;
                    if v <= 0 {
                        return Err(param_error(&full, format!("cut-off {v} must be positive (trec_eval: negative cutoff)")));
                    }
                    cuts.push(v as usize);
                }
                cuts.sort_unstable();
                if cuts.windows(2).any(|w| w[0] == w[1]) {
                    return Err(param_error(&full, "duplicate cut-offs"));
                }
                Params::Cutoffs(cuts)
            }
            K::DoubleCutoffs(_) => {
                let mut cuts = items.iter().map(|it| number(&full, it)).collect::<Result<Vec<f64>>>()?;
                cuts.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
                if cuts.windows(2).any(|w| w[0] == w[1]) {
                    return Err(param_error(&full, "duplicate cut-offs"));
                }
                Params::Fractions(cuts)
            }
            K::Doubles(_) => {
                let values = items.iter().map(|it| number(&full, it)).collect::<Result<Vec<f64>>>()?;
                match family {
                    Family::Utility if values.len() != 4 => {
                        return Err(param_error(&full, format!("utility takes 4 coefficients (a, b, c, d), got {}", values.len())))
                    }
                    Family::Relstring | Family::SetF if values.len() != 1 => {
                        return Err(param_error(&full, format!("`{}` takes one number, got {}", family.name(), values.len())))
                    }
                    _ => {}
                }
                Params::Numbers(values)
            }
            K::Pairs => {
                let mut pairs = Vec::with_capacity(items.len());
                for it in &items {
                    let (k, v) =
                        it.split_once('=').ok_or_else(|| param_error(&full, format!("`{it}` is not name=value (trec_eval: malformed pair parameters)")))?;
                    let value = number(&full, v)?;
                    let is_level = c_atol(k).is_some() && k.trim().trim_start_matches(['-', '+']).bytes().all(|b| b.is_ascii_digit());
                    let ok = match family {
                        Family::Rbp | Family::RbpResid => k == "p" || (family == Family::Rbp && is_level),
                        _ => is_level,
                    };
                    if !ok {
                        let expected = match family {
                            Family::Rbp => "`p=` or `grade=gain`",
                            Family::RbpResid => "`p=`",
                            _ => "`grade=gain`",
                        };
                        return Err(param_error(&full, format!("unknown parameter `{k}` (expected {expected})")));
                    }
                    if k == "p" && !(value > 0.0 && value < 1.0) {
                        return Err(param_error(&full, format!("p = {value} must be in (0, 1)")));
                    }
                    pairs.push((k.to_string(), value));
                }
                Params::Pairs(pairs)
            }
        };
        Ok(TrecMeasure { family, params, printable: Some(text.to_string()) })
    }

    /// The output names, one per value (`P_5`, `P_10`; `ndcg`; `utility_2,-1,0,0`).
    pub fn column_names(&self) -> Vec<String> {
        let name = self.family.name();
        match &self.params {
            Params::Cutoffs(c) => c.iter().map(|k| format!("{name}_{k}")).collect(),
            Params::Fractions(c) => c.iter().map(|k| format!("{name}_{k:.2}")).collect(),
            _ => vec![match &self.printable {
                Some(p) => format!("{name}_{p}"),
                None => name.to_string(),
            }],
        }
    }

    /// Number of values.
    pub fn width(&self) -> usize {
        match &self.params {
            Params::Cutoffs(c) => c.len(),
            Params::Fractions(c) => c.len(),
            _ => 1,
        }
    }

    fn cutoffs(&self) -> &[usize] {
        match &self.params {
            Params::Cutoffs(c) => c,
            _ => &[],
        }
    }

    fn fractions(&self) -> &[f64] {
        match &self.params {
            Params::Fractions(c) | Params::Numbers(c) => c,
            _ => &[],
        }
    }

    fn pairs(&self) -> &[(String, f64)] {
        match &self.params {
            Params::Pairs(p) => p,
            _ => &[],
        }
    }

    fn p(&self) -> f64 {
        self.pairs().iter().filter(|(k, _)| k == "p").map(|&(_, v)| v).next_back().unwrap_or(0.9)
    }

    /// Computes the measure on one topic into `out` (length [`TrecMeasure::width`]), as
    /// trec_eval does: `out` starts at 0 and a measure that has nothing to say leaves it so.
    pub fn compute(&self, t: &TopicRels, s: &Settings, out: &mut [f64]) {
        out.iter_mut().for_each(|v| *v = 0.0);
        match self.family {
            Family::RunId | Family::Relstring => {}
            Family::NumQ => out[0] = 1.0,
            Family::NumRet => out[0] = t.num_ret() as f64,
            Family::NumRel => out[0] = t.num_rel as f64,
            Family::NumRelRet => out[0] = t.num_rel_ret as f64,
            Family::Map => {
                let (sum, rel_so_far) = ap_sum(t, t.rels.len());
                if rel_so_far > 0 {
                    out[0] = sum / t.num_rel as f64;
                }
            }
            Family::GmMap => {
                let (mut sum, rel_so_far) = ap_sum(t, t.rels.len());
                if rel_so_far > 0 {
                    sum /= t.num_rel as f64;
                }
                out[0] = sum.max(MIN_GEO_MEAN).ln();
            }
            Family::Rprec => {
                let n = t.num_ret().min(t.num_rel) as usize;
                if n > 0 {
                    let rel = t.rels[..n].iter().filter(|&&r| t.is_rel(r)).count();
                    out[0] = rel as f64 / t.num_rel as f64;
                }
            }
            Family::Bpref => out[0] = bpref(t),
            Family::GmBpref => out[0] = bpref(t).max(MIN_GEO_MEAN).ln(),
            Family::RecipRank => {
                if let Some(i) = t.rels.iter().position(|&r| t.is_rel(r)) {
                    out[0] = 1.0 / (i + 1) as f64;
                }
            }
            Family::IprecAtRecall => iprec_at_recall(t, self.fractions(), out),
            Family::P => cut_loop(t, self.cutoffs(), out, |rel_so_far, i, _| rel_so_far as f64 / i as f64),
            Family::Recall => {
                if t.num_rel > 0 {
                    let n = t.num_rel as f64;
                    cut_loop(t, self.cutoffs(), out, |rel_so_far, _, _| rel_so_far as f64 / n);
                }
            }
            Family::RelativeP => {
                if t.num_rel > 0 {
                    let nr = t.num_rel as usize;
                    cut_loop(t, self.cutoffs(), out, |rel_so_far, i, _| rel_so_far as f64 / i.min(nr) as f64);
                }
            }
            Family::Success => cut_loop(t, self.cutoffs(), out, |rel_so_far, _, _| if rel_so_far > 0 { 1.0 } else { 0.0 }),
            Family::MapCut => map_cut(t, self.cutoffs(), out),
            Family::NdcgCut => ndcg_cut(t, self.cutoffs(), out),
            Family::Unj => unj(t, self.cutoffs(), out),
            Family::InfAp => out[0] = inf_ap(t),
            Family::RprecMult => rprec_mult(t, self.fractions(), out),
            Family::Utility => {
                let c = self.fractions();
                out[0] = c[0] * t.num_rel_ret as f64
                    + c[1] * (t.num_ret() - t.num_rel_ret) as f64
                    + c[2] * (t.num_rel - t.num_rel_ret) as f64
                    + c[3] * (s.num_docs_in_coll + t.num_rel_ret - t.num_ret() - t.num_rel) as f64;
            }
            Family::ElevenPtAvg => out[0] = eleven_pt_avg(t, self.fractions()),
            Family::BinG => {
                let mut rel_so_far = 0i64;
                let mut sum = 0.0;
                for (i, &r) in t.rels.iter().enumerate() {
                    if t.is_rel(r) {
                        rel_so_far += 1;
                        sum += 1.0 / ((3 + i as i64 - rel_so_far) as f64).log2();
                    }
                }
                if rel_so_far > 0 {
                    out[0] = sum / t.num_rel as f64;
                }
            }
            Family::G => out[0] = g_measure(t, &Gains::new(self.pairs(), t)),
            Family::Dcg | Family::IdealDcg | Family::Ndcg => {
                let (dcg, ideal) = ndcg(t, &Gains::new(self.pairs(), t));
                out[0] = match self.family {
                    Family::Dcg => dcg,
                    Family::IdealDcg => ideal,
                    _ if ideal > 0.0 => dcg / ideal,
                    _ => 0.0,
                };
            }
            Family::NdcgRel => out[0] = ndcg_rel(t, &Gains::new(self.pairs(), t)),
            Family::Rndcg => {
                if t.num_rel > 0 {
                    out[0] = rndcg(t, &Gains::new(self.pairs(), t));
                }
            }
            Family::SetP => {
                if t.num_ret() > 0 {
                    out[0] = t.num_rel_ret as f64 / t.num_ret() as f64;
                }
            }
            Family::SetRelativeP => {
                if t.num_ret() > 0 && t.num_rel > 0 {
                    out[0] = t.num_rel_ret as f64 / t.num_ret().min(t.num_rel) as f64;
                }
            }
            Family::SetRecall => {
                if t.num_rel > 0 {
                    out[0] = t.num_rel_ret as f64 / t.num_rel as f64;
                }
            }
            Family::SetMap => {
                if t.num_ret() > 0 && t.num_rel > 0 {
                    out[0] = (t.num_rel_ret as f64 * t.num_rel_ret as f64) / (t.num_ret() as f64 * t.num_rel as f64);
                }
            }
            Family::SetF => {
                if t.num_rel_ret > 0 {
                    let p = t.num_rel_ret as f64 / t.num_ret() as f64;
                    let r = t.num_rel_ret as f64 / t.num_rel as f64;
                    let x = self.fractions()[0];
                    out[0] = (x + 1.0) * p * r / (x * p + r);
                }
            }
            Family::NumNonrelJudgedRet => {
                out[0] = (t.num_ret() - t.num_nonpool - t.num_unjudged_in_pool - t.num_rel_ret) as f64;
            }
            Family::Rbp => out[0] = rbp(t, &Gains::new(self.pairs(), t), self.p()),
            Family::RbpResid => out[0] = rbp_resid(t, self.p()),
        }
    }

    /// `relstring`: one character per retrieved document in the first `len` ranks: the grade
    /// 0-9, `>` above 9, `-` not in the qrels, `.` in the qrels with a negative grade.
    pub fn relstring(&self, t: &TopicRels) -> String {
        let len = self.fractions().first().copied().unwrap_or(10.0);
        // C: MIN((long) params[0], num_ret), at least 0.
        let len = (len.trunc() as i64).min(t.num_ret()).max(0) as usize;
        t.rels[..len]
            .iter()
            .map(|&r| match r {
                r if r > 9 => '>',
                r if r >= 0 => (b'0' + r as u8) as char,
                NONPOOL => '-',
                UNJUDGED_IN_POOL => '.',
                _ => '<',
            })
            .collect()
    }
}

fn ap_sum(t: &TopicRels, depth: usize) -> (f64, i64) {
    let mut rel_so_far = 0i64;
    let mut sum = 0.0;
    for (i, &r) in t.rels.iter().take(depth).enumerate() {
        if t.is_rel(r) {
            rel_so_far += 1;
            sum += rel_so_far as f64 / (i + 1) as f64;
        }
    }
    (sum, rel_so_far)
}

/// The loop shared by P, recall, relative_P and success: the value at cut-off k is taken
/// when rank k has been passed, from the relevant documents in the top k.
fn cut_loop(t: &TopicRels, cutoffs: &[usize], out: &mut [f64], value: impl Fn(i64, usize, usize) -> f64) {
    let mut ci = 0;
    let mut rel_so_far = 0i64;
    for (i, &r) in t.rels.iter().enumerate() {
        if i == cutoffs[ci] {
            out[ci] = value(rel_so_far, i, ci);
            ci += 1;
            if ci == cutoffs.len() {
                return;
            }
        }
        if t.is_rel(r) {
            rel_so_far += 1;
        }
    }
    while ci < cutoffs.len() {
        out[ci] = value(rel_so_far, cutoffs[ci], ci);
        ci += 1;
    }
}

fn map_cut(t: &TopicRels, cutoffs: &[usize], out: &mut [f64]) {
    if t.num_rel == 0 {
        return;
    }
    let n = t.num_rel as f64;
    let mut ci = 0;
    let mut rel_so_far = 0i64;
    let mut sum = 0.0;
    for (i, &r) in t.rels.iter().enumerate() {
        if i == cutoffs[ci] {
            out[ci] = sum / n;
            ci += 1;
            if ci == cutoffs.len() {
                return;
            }
        }
        if t.is_rel(r) {
            rel_so_far += 1;
            sum += rel_so_far as f64 / (i + 1) as f64;
        }
    }
    while ci < cutoffs.len() {
        out[ci] = sum / n;
        ci += 1;
    }
}

fn unj(t: &TopicRels, cutoffs: &[usize], out: &mut [f64]) {
    let mut ci = 0;
    let mut unj_so_far = 0i64;
    for (i, &r) in t.rels.iter().enumerate() {
        if i == cutoffs[ci] {
            out[ci] = unj_so_far as f64 / i as f64;
            ci += 1;
            if ci == cutoffs.len() {
                return;
            }
        }
        if r == NONPOOL || r == UNJUDGED_IN_POOL {
            unj_so_far += 1;
        }
    }
    while ci < cutoffs.len() {
        out[ci] = unj_so_far as f64 / cutoffs[ci] as f64;
        ci += 1;
    }
}

fn ndcg_cut(t: &TopicRels, cutoffs: &[usize], out: &mut [f64]) {
    let mut ci = 0;
    let mut sum = 0.0;
    let mut done = false;
    for (i, &r) in t.rels.iter().enumerate() {
        if i == cutoffs[ci] {
            out[ci] = sum;
            ci += 1;
            if ci == cutoffs.len() {
                done = true;
                break;
            }
        }
        let gain = r as f64;
        if gain > 0.0 {
            sum += gain / ((i + 2) as f64).log2();
        }
    }
    if !done {
        while ci < cutoffs.len() {
            out[ci] = sum;
            ci += 1;
        }
    }
    // Ideal DCG from the judgement counts, best grade first; grade 0 ends it.
    let mut ci = 0;
    let mut cur_lvl = t.num_rel_levels as i64 - 1;
    let mut lvl_count = 0u64;
    let mut ideal = 0.0;
    let mut i = 0usize;
    loop {
        lvl_count += 1;
        while cur_lvl > 0 && lvl_count > t.rel_levels[cur_lvl as usize] {
            cur_lvl -= 1;
            lvl_count = 1;
        }
        if cur_lvl <= 0 {
            // C: `if (cur_lvl == 0) break;` (cur_lvl is -1 only for a topic without judgements)
            break;
        }
        if i == cutoffs[ci] {
            if ideal > 0.0 {
                out[ci] /= ideal;
            }
            ci += 1;
            if ci == cutoffs.len() {
                return;
            }
        }
        ideal += cur_lvl as f64 / ((i + 2) as f64).log2();
        i += 1;
    }
    while ci < cutoffs.len() {
        if ideal > 0.0 {
            out[ci] /= ideal;
        }
        ci += 1;
    }
}

fn bpref(t: &TopicRels) -> f64 {
    let num_nonrel: i64 = (0..t.relevance_level.max(0) as usize).map(|j| t.rel_levels.get(j).copied().unwrap_or(0) as i64).sum();
    let mut nonrel_so_far = 0i64;
    let mut bpref = 0.0;
    for &r in t.rels {
        if r == NONPOOL || r == UNJUDGED_IN_POOL {
            continue;
        }
        if r >= 0 && r < t.relevance_level {
            nonrel_so_far += 1;
        } else if nonrel_so_far > 0 {
            bpref += 1.0 - (nonrel_so_far.min(t.num_rel) as f64 / num_nonrel.min(t.num_rel) as f64);
        } else {
            bpref += 1.0;
        }
    }
    if t.num_rel > 0 {
        bpref /= t.num_rel as f64;
    }
    bpref
}

fn inf_ap(t: &TopicRels) -> f64 {
    let mut nonrel_so_far = 0i64;
    let mut rel_so_far = 0i64;
    let mut pool_unjudged_so_far = 0i64;
    let mut inf_ap = 0.0;
    for (j, &r) in t.rels.iter().enumerate() {
        if r == NONPOOL {
            continue;
        }
        if r == UNJUDGED_IN_POOL {
            pool_unjudged_so_far += 1;
            continue;
        }
        if r >= 0 && r < t.relevance_level {
            nonrel_so_far += 1;
        } else {
            rel_so_far += 1;
            if j == 0 {
                inf_ap += 1.0;
            } else {
                let fj = j as f64;
                inf_ap += 1.0 / (fj + 1.0)
                    + (fj / (fj + 1.0))
                        * ((rel_so_far - 1 + nonrel_so_far + pool_unjudged_so_far) as f64 / fj)
                        * (((rel_so_far - 1) as f64 + INFAP_EPSILON) / ((rel_so_far - 1 + nonrel_so_far) as f64 + 2.0 * INFAP_EPSILON));
            }
        }
    }
    if t.num_rel > 0 {
        inf_ap /= t.num_rel as f64;
    }
    inf_ap
}

/// C's `lround`: nearest, halves away from zero.
fn lround(x: f64) -> i64 {
    x.round() as i64
}

fn iprec_at_recall(t: &TopicRels, fractions: &[f64], out: &mut [f64]) {
    let cutoffs: Vec<i64> = fractions.iter().map(|&p| lround(p * t.num_rel as f64)).collect();
    let mut current = cutoffs.len() as i64 - 1;
    while current >= 0 && cutoffs[current as usize] > t.num_rel_ret {
        current -= 1;
    }
    let mut int_precis = t.num_rel_ret as f64 / t.num_ret() as f64;
    let mut rel_so_far = t.num_rel_ret;
    let mut i = t.rels.len();
    while i > 0 && rel_so_far > 0 {
        let precis = rel_so_far as f64 / i as f64;
        if int_precis < precis {
            int_precis = precis;
        }
        if t.is_rel(t.rels[i - 1]) {
            while current >= 0 && rel_so_far == cutoffs[current as usize] {
                out[current as usize] = int_precis;
                current -= 1;
            }
            rel_so_far -= 1;
        }
        i -= 1;
    }
    while current >= 0 {
        out[current as usize] = int_precis;
        current -= 1;
    }
}

fn eleven_pt_avg(t: &TopicRels, fractions: &[f64]) -> f64 {
    let cutoffs: Vec<i64> = fractions.iter().map(|&p| lround(p * t.num_rel as f64)).collect();
    let mut current = cutoffs.len() as i64 - 1;
    while current >= 0 && cutoffs[current as usize] > t.num_rel_ret {
        current -= 1;
    }
    let mut sum = 0.0;
    let mut int_precis = t.num_rel_ret as f64 / t.num_ret() as f64;
    let mut rel_so_far = t.num_rel_ret;
    let mut i = t.rels.len();
    while i > 0 && rel_so_far > 0 {
        let precis = rel_so_far as f64 / i as f64;
        if int_precis < precis {
            int_precis = precis;
        }
        if t.is_rel(t.rels[i - 1]) {
            while current >= 0 && rel_so_far == cutoffs[current as usize] {
                sum += int_precis;
                current -= 1;
            }
            rel_so_far -= 1;
        }
        i -= 1;
    }
    while current >= 0 {
        sum += int_precis;
        current -= 1;
    }
    sum / fractions.len() as f64
}

fn rprec_mult(t: &TopicRels, fractions: &[f64], out: &mut [f64]) {
    // C: (long) (cutoff_percents[i] * num_rel + 0.9), truncation towards zero.
    let cutoffs: Vec<i64> = fractions.iter().map(|&p| (p * t.num_rel as f64 + 0.9) as i64).collect();
    let mut int_precis = t.num_rel_ret as f64 / t.num_ret() as f64;
    let mut current = cutoffs.len() as i64 - 1;
    while current >= 0 && cutoffs[current as usize] > t.num_ret() {
        out[current as usize] = t.num_rel_ret as f64 / cutoffs[current as usize] as f64;
        current -= 1;
    }
    let mut rel_so_far = t.num_rel_ret;
    let mut i = t.rels.len();
    while i > 0 && rel_so_far > 0 {
        let precis = rel_so_far as f64 / i as f64;
        if int_precis < precis {
            int_precis = precis;
        }
        while current >= 0 && i as i64 == cutoffs[current as usize] {
            out[current as usize] = precis;
            current -= 1;
        }
        if t.is_rel(t.rels[i - 1]) {
            rel_so_far -= 1;
        }
        i -= 1;
    }
}

/// trec_eval's `GAINS`: a gain per grade, from `grade=gain` parameters or the grade itself,
/// sorted by gain as trec_eval's `qsort` with its integer-truncating comparator leaves them.
struct Gains {
    /// `(grade, gain, number of judgements at the grade)`, ascending gain.
    levels: Vec<(i64, f64, u64)>,
}

impl Gains {
    fn new(pairs: &[(String, f64)], t: &TopicRels) -> Self {
        let mut levels: Vec<(i64, f64, u64)> = Vec::new();
        for (k, v) in pairs {
            // valid_int: optional sign then digits only.
            let body = k.strip_prefix(['-', '+']).unwrap_or(k);
            if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            levels.push((c_atol(k).unwrap_or(0), *v, 0));
        }
        let given = levels.len();
        for i in 0..t.num_rel_levels {
            match levels[..given].iter().position(|l| l.0 == i as i64) {
                Some(j) => levels[j].2 = t.rel_levels[i],
                None => levels.push((i as i64, i as f64, t.rel_levels[i])),
            }
        }
        // qsort(comp_rel_gain) returns (int)(gain1 - gain2); glibc sorts with a stable merge
        // sort for arrays this small, so equal-comparing entries keep their order.
        let cmp = |a: &(i64, f64, u64), b: &(i64, f64, u64)| (a.1 - b.1) as i32;
        for i in 1..levels.len() {
            let mut j = i;
            while j > 0 && cmp(&levels[j - 1], &levels[j]) > 0 {
                levels.swap(j - 1, j);
                j -= 1;
            }
        }
        Gains { levels }
    }

    #[inline]
    fn gain(&self, rel: i32) -> f64 {
        self.levels.iter().find(|l| l.0 == rel as i64).map_or(0.0, |l| l.1)
    }

    fn top(&self) -> i64 {
        self.levels.len() as i64 - 1
    }

    fn gain_at(&self, level: i64) -> f64 {
        if level >= 0 {
            self.levels[level as usize].1
        } else {
            0.0
        }
    }

    fn count_at(&self, level: i64) -> u64 {
        self.levels[level as usize].2
    }
}

/// Walks the ideal ranking one rank at a time: returns the gain at the next rank.
struct IdealWalk<'g> {
    gains: &'g Gains,
    cur_level: i64,
    num_at_level: u64,
    ideal_gain: f64,
}

impl<'g> IdealWalk<'g> {
    fn new(gains: &'g Gains) -> Self {
        let cur_level = gains.top();
        IdealWalk { gains, cur_level, num_at_level: 0, ideal_gain: gains.gain_at(cur_level) }
    }

    fn step(&mut self) {
        self.num_at_level += 1;
        while self.cur_level >= 0 && self.num_at_level > self.gains.count_at(self.cur_level) {
            self.num_at_level = 1;
            self.cur_level -= 1;
            self.ideal_gain = self.gains.gain_at(self.cur_level);
        }
    }
}

fn ndcg(t: &TopicRels, gains: &Gains) -> (f64, f64) {
    let mut results_dcg = 0.0;
    let mut ideal_dcg = 0.0;
    let mut w = IdealWalk::new(gains);
    let n = t.rels.len();
    let mut i = 0;
    while i < n && w.ideal_gain > 0.0 {
        let g = gains.gain(t.rels[i]);
        if g != 0.0 {
            results_dcg += g / ((i + 2) as f64).log2();
        }
        w.step();
        if w.ideal_gain > 0.0 {
            ideal_dcg += w.ideal_gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    while i < n {
        let g = gains.gain(t.rels[i]);
        if g != 0.0 {
            results_dcg += g / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    while w.ideal_gain > 0.0 {
        w.step();
        if w.ideal_gain > 0.0 {
            ideal_dcg += w.ideal_gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    (results_dcg, ideal_dcg)
}

fn ndcg_rel(t: &TopicRels, gains: &Gains) -> f64 {
    let mut results_dcg = 0.0;
    let mut ideal_dcg = 0.0;
    let mut sum = 0.0;
    let mut num_rel_ret = 0i64;
    let mut num_rel = 0i64;
    let mut w = IdealWalk::new(gains);
    let n = t.rels.len();
    let mut i = 0;
    while i < n && w.ideal_gain > 0.0 {
        let g = gains.gain(t.rels[i]);
        if g != 0.0 {
            results_dcg += g / ((i + 2) as f64).log2();
        }
        w.step();
        if w.ideal_gain > 0.0 {
            num_rel += 1;
            ideal_dcg += w.ideal_gain / ((i + 2) as f64).log2();
        }
        if g > 0.0 {
            sum += results_dcg / ideal_dcg;
            num_rel_ret += 1;
        }
        i += 1;
    }
    while i < n {
        let g = gains.gain(t.rels[i]);
        if g != 0.0 {
            results_dcg += g / ((i + 2) as f64).log2();
        }
        if g > 0.0 {
            sum += results_dcg / ideal_dcg;
            num_rel_ret += 1;
        }
        i += 1;
    }
    while w.ideal_gain > 0.0 {
        w.step();
        if w.ideal_gain > 0.0 {
            num_rel += 1;
            ideal_dcg += w.ideal_gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    sum += (num_rel - num_rel_ret) as f64 * results_dcg / ideal_dcg;
    if sum > 0.0 {
        sum / num_rel as f64
    } else {
        0.0
    }
}

fn rndcg(t: &TopicRels, gains: &Gains) -> f64 {
    let mut results_dcg = 0.0;
    let mut ideal_dcg = 0.0;
    let mut sum = 0.0;
    let mut changes = 0i64;
    let mut w = IdealWalk::new(gains);
    let mut old_ideal_gain = w.ideal_gain;
    let n = t.rels.len();
    let mut i = 0;
    while i < n && w.ideal_gain > 0.0 {
        let g = gains.gain(t.rels[i]);
        w.step();
        if old_ideal_gain != w.ideal_gain {
            if ideal_dcg > 0.0 {
                sum += results_dcg / ideal_dcg;
                changes += 1;
            }
            old_ideal_gain = w.ideal_gain;
        }
        if g != 0.0 {
            results_dcg += g / ((i + 2) as f64).log2();
        }
        if w.ideal_gain > 0.0 {
            ideal_dcg += w.ideal_gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    if i < n {
        while i < n {
            let g = gains.gain(t.rels[i]);
            if g != 0.0 {
                results_dcg += g / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        if ideal_dcg > 0.0 {
            sum += results_dcg / ideal_dcg;
            changes += 1;
        }
    }
    while w.ideal_gain > 0.0 {
        w.step();
        if old_ideal_gain != w.ideal_gain {
            if ideal_dcg > 0.0 {
                sum += results_dcg / ideal_dcg;
                changes += 1;
            }
            old_ideal_gain = w.ideal_gain;
        }
        if w.ideal_gain > 0.0 {
            ideal_dcg += w.ideal_gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    sum / changes as f64
}

fn g_measure(t: &TopicRels, gains: &Gains) -> f64 {
    let mut results_g = 0.0;
    let mut sum_results = 0.0;
    let mut sum_ideal = 0.0;
    let mut sum_cost = 0.0;
    let min_cost = 1.0;
    let mut w = IdealWalk::new(gains);
    let n = t.rels.len();
    let mut i = 0;
    while i < n && w.ideal_gain > 0.0 {
        let g = gains.gain(t.rels[i]);
        sum_results += g;
        w.step();
        if w.ideal_gain > 0.0 {
            sum_ideal += w.ideal_gain;
        }
        if w.ideal_gain >= min_cost {
            sum_cost += w.ideal_gain;
        } else {
            sum_cost += min_cost;
        }
        if g != 0.0 {
            results_g += g / (2.0 + sum_cost - sum_results).log2();
        }
        i += 1;
    }
    while i < n {
        let g = gains.gain(t.rels[i]);
        sum_results += g;
        sum_cost += min_cost;
        if g != 0.0 {
            results_g += g / (2.0 + sum_cost - sum_results).log2();
        }
        i += 1;
    }
    while w.ideal_gain > 0.0 {
        w.step();
        if w.ideal_gain > 0.0 {
            sum_ideal += w.ideal_gain;
        }
    }
    if sum_ideal > 0.0 {
        results_g / sum_ideal
    } else {
        0.0
    }
}

fn rbp(t: &TopicRels, gains: &Gains, p: f64) -> f64 {
    // trec_eval 10 leaves `min` and `max` uninitialised; 0 is what its test outputs show.
    let (mut min, mut max) = (0.0f64, 0.0f64);
    for l in &gains.levels {
        if l.1 < min {
            min = l.1;
        }
        if l.1 > max {
            max = l.1;
        }
    }
    let normalise = min < 0.0 || max > 1.0;
    let gain = |rel: i32| {
        let g = gains.gain(rel);
        // Only gains of listed grades are normalised; others stay 0 (get_gain's default).
        if normalise && gains.levels.iter().any(|l| l.0 == rel as i64) {
            (g - min) / (max - min)
        } else {
            g
        }
    };
    let mut sum = 0.0;
    let mut cur_p = 1.0;
    for &r in t.rels {
        let g = gain(r);
        if g != 0.0 {
            sum += g * cur_p;
        }
        cur_p *= p;
    }
    (1.0 - p) * sum
}

fn rbp_resid(t: &TopicRels, p: f64) -> f64 {
    let mut unj = 0;
    let mut sum = 0.0;
    let mut cur_p = 1.0;
    for &r in t.rels {
        if r < 0 {
            unj += 1;
            sum += cur_p;
        }
        cur_p *= p;
    }
    if unj > 0 {
        cur_p + (1.0 - p) * sum
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topic<'a>(rels: &'a [i32], levels: &'a [u64]) -> TopicRels<'a> {
        TopicRels::new(rels, levels, 1)
    }

    fn value(m: &str, t: &TopicRels) -> Vec<f64> {
        let (name, params) = m.split_once('.').map_or((m, None), |(a, b)| (a, Some(b)));
        let f = Family::from_name(name).unwrap();
        let tm = match params {
            Some(p) => TrecMeasure::parse(f, p).unwrap(),
            None => TrecMeasure::default_of(f),
        };
        let mut out = vec![0.0; tm.width()];
        tm.compute(t, &Settings::default(), &mut out);
        out
    }

    #[test]
    fn hand_worked_binary_topic() {
        // Ranking R N - R . (relevant, judged non-relevant, not in qrels, relevant, pool-unjudged);
        // the qrels judge 3 relevant and 4 non-relevant documents.
        let rels = [1, 0, NONPOOL, 1, UNJUDGED_IN_POOL];
        let levels = [4, 3];
        let t = topic(&rels, &levels);
        assert_eq!((t.num_rel, t.num_rel_ret, t.num_nonpool, t.num_unjudged_in_pool), (3, 2, 1, 1));
        // AP = (1/1 + 2/4) / 3 = 0.5.
        assert_eq!(value("map", &t), [0.5]);
        // P@2 = 1/2; P@10 = 2/10 (always divided by the cut-off).
        assert_eq!(value("P.2,10", &t), [0.5, 0.2]);
        // Rprec: 1 relevant in the top 3 / 3.
        assert_eq!(value("Rprec", &t), [1.0 / 3.0]);
        // bpref: first relevant has no non-relevant above (1); the second has 1 of min(4, 3) = 3
        // above: 1 - 1/3. (1 + 2/3) / 3.
        assert!((value("bpref", &t)[0] - (1.0 + 2.0 / 3.0) / 3.0).abs() < 1e-15);
        // utility (defaults 1, -1, 0, 0): 2 relevant retrieved - 3 non-relevant retrieved = -1.
        assert_eq!(value("utility", &t), [-1.0]);
        // unj@5: 2 of 5 are not judged.
        assert_eq!(value("unj.5", &t), [0.4]);
        // rbp, p = 0.9: (1 - 0.9) (1 + 0.9^3) = 0.1729.
        assert!((value("rbp", &t)[0] - 0.1 * (1.0 + 0.729)).abs() < 1e-12);
        // rbp_resid: p^5 + (1 - p)(p^2 + p^4) = 0.59049 + 0.1 * (0.81 + 0.6561).
        assert!((value("rbp_resid", &t)[0] - (0.59049 + 0.1 * 1.4661)).abs() < 1e-12);
        // num_nonrel_judged_ret: 5 - 1 - 1 - 2 = 1.
        assert_eq!(value("num_nonrel_judged_ret", &t), [1.0]);
        // success@1 = 1, recip_rank = 1.
        assert_eq!(value("success.1", &t), [1.0]);
        assert_eq!(value("relstring", &t).len(), 1);
        let rs = TrecMeasure::default_of(Family::Relstring).relstring(&t);
        assert_eq!(rs, "10-1.");
    }

    #[test]
    fn names_and_parameters_follow_trec_eval() {
        let m = TrecMeasure::parse(Family::P, "10,5").unwrap();
        assert_eq!(m.column_names(), ["P_5", "P_10"]);
        let m = TrecMeasure::parse(Family::IprecAtRecall, ".10,.20").unwrap();
        assert_eq!(m.column_names(), ["iprec_at_recall_0.10", "iprec_at_recall_0.20"]);
        let m = TrecMeasure::parse(Family::NdcgCut, "10,20,23.4").unwrap();
        assert_eq!(m.column_names(), ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]);
        let m = TrecMeasure::parse(Family::Utility, "2,-1,0,0").unwrap();
        assert_eq!(m.column_names(), ["utility_2,-1,0,0"]);
        assert_eq!(TrecMeasure::default_of(Family::Rbp).column_names(), ["rbp"]);
        assert_eq!(TrecMeasure::parse(Family::Rbp, "p=0.8").unwrap().column_names(), ["rbp_p=0.8"]);
        assert!(TrecMeasure::parse(Family::P, "0").is_err());
        assert!(TrecMeasure::parse(Family::P, "5,5").is_err());
        assert!(TrecMeasure::parse(Family::P, "x").is_err());
        assert!(TrecMeasure::parse(Family::Utility, "1,2").is_err());
        assert!(TrecMeasure::parse(Family::Rbp, "q=0.5").unwrap_err().to_string().contains("`q`"));
        assert!(TrecMeasure::parse(Family::Map, "5").is_err());
        assert!(TrecMeasure::parse(Family::Ndcg, "1=3,2").is_err());
    }

    #[test]
    fn graded_gains_ndcg_and_rbp_normalisation() {
        // Grades 2, 0, 1 retrieved; qrels: one each of grades 0, 1, 2.
        let rels = [2, 0, 1];
        let levels = [1, 1, 1];
        let t = topic(&rels, &levels);
        // DCG = 2/log2(2) + 1/log2(4) = 2.5; ideal = 2 + 1/log2(3).
        let ideal = 2.0 + 1.0 / 3f64.log2();
        assert!((value("ndcg", &t)[0] - 2.5 / ideal).abs() < 1e-15);
        assert_eq!(value("dcg", &t), [2.5]);
        // rbp normalises gains to [0, 1] by the largest gain (2): (0.1)(1 + 0.81 * 0.5).
        assert!((value("rbp", &t)[0] - 0.1 * (1.0 + 0.405)).abs() < 1e-12);
        // ndcg with gains 1=3, 2=9: DCG = 9 + 3/2, ideal = 9 + 3/log2(3).
        let v = value("ndcg.1=3,2=9", &t)[0];
        assert!((v - 10.5 / (9.0 + 3.0 / 3f64.log2())).abs() < 1e-15);
    }
}
