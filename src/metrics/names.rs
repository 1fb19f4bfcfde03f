//! Metric names: one text form per metric that parses back to the same metric.
//!
//! Syntax: `name[@k][:key=value,key=value]`, case-insensitive, e.g. `ndcg@10`,
//! `ndcg@10:discount=jarvelin`, `rbp:p=0.8`, `pres@1000`, `ct:gamma=0.5,time=g`.
//! trec_eval's names are accepted as well: `map`, `map_cut_K`, `P_K`, `recall_K`,
//! `recip_rank`, `Rprec`, `ndcg`, `ndcg_cut_K`, `num_ret`, `num_rel`, `num_rel_ret`.
//! Unknown names and unknown or invalid parameters are errors naming the key.
//!
//! Click-model metrics: `rrmetric[@k][:user=navigational]` and
//! `ebu[@k][:user=informational,gamma=0.9]`, with `user` one of Grotov et al.'s Table 1 models
//! (perfect, navigational, informational) or explicit `click_rel`, `click_nonrel`, `sat_rel`,
//! `sat_nonrel`; they call `clickmodels::metrics`. ERR from graded relevance is `err`.

use super::cube::{CapMode, CubeEquation, CubeParams, SubtopicWeights, TimeOrigin};
use super::novelty::{InfinitePolicy, NoveltyParams};
use super::trec::Discount;
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

/// Every metric serpsim evaluates per topic.
#[derive(Debug, Clone, PartialEq)]
pub enum Metric {
    /// Number of retrieved documents.
    NumRet,
    /// Number of judged relevant documents.
    NumRel,
    /// Number of relevant documents retrieved.
    NumRelRet,
    /// P@k.
    Precision {
        /// Cut-off.
        k: usize,
    },
    /// R@k.
    Recall {
        /// Cut-off.
        k: usize,
    },
    /// Average precision, optionally cut at k (trec_eval `map_cut_k`).
    Ap {
        /// Cut-off.
        k: Option<usize>,
    },
    /// Reciprocal rank.
    Rr,
    /// R-precision.
    Rprec,
    /// nDCG with its discount.
    Ndcg {
        /// Cut-off (none: the whole ranking, trec_eval `ndcg`).
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
    /// RBP with persistence p (residual reported by [`Metric::RbpResidual`]).
    Rbp {
        /// Persistence.
        p: f64,
        /// Graded gains `grade / g_max` instead of binary.
        graded: bool,
    },
    /// RBP's residual `p^n` for a ranking of n documents.
    RbpResidual {
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

/// A parsed metric with the label it was asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSpec {
    /// The name as given (used in output, so trec_eval names stay trec_eval names).
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
                let (k, v) = item.split_once('=').ok_or_else(|| {
                    Error::config(format!("metric `{name}`"), item, "expected key=value")
                })?;
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

fn trec_eval_name(name: &str) -> Option<Result<Metric>> {
    let cut = |prefix: &str| -> Option<Result<usize>> {
        name.strip_prefix(prefix).map(|k| {
            k.parse::<usize>().ok().filter(|&k| k > 0).ok_or_else(|| {
                Error::config(format!("metric `{name}`"), "cut-off", format!("`{k}` is not a positive integer"))
            })
        })
    };
    if let Some(k) = cut("P_") {
        return Some(k.map(|k| Metric::Precision { k }));
    }
    if let Some(k) = cut("recall_") {
        return Some(k.map(|k| Metric::Recall { k }));
    }
    if let Some(k) = cut("map_cut_") {
        return Some(k.map(|k| Metric::Ap { k: Some(k) }));
    }
    if let Some(k) = cut("ndcg_cut_") {
        return Some(k.map(|k| Metric::Ndcg { k: Some(k), discount: Discount::Log2 }));
    }
    let m = match name {
        "map" => Metric::Ap { k: None },
        "recip_rank" => Metric::Rr,
        "Rprec" => Metric::Rprec,
        "ndcg" => Metric::Ndcg { k: None, discount: Discount::Log2 },
        "num_ret" => Metric::NumRet,
        "num_rel" => Metric::NumRel,
        "num_rel_ret" => Metric::NumRelRet,
        _ => return None,
    };
    Some(Ok(m))
}

/// Parses a metric name (see the module docs).
pub fn parse_metric(text: &str) -> Result<MetricSpec> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Error::Invalid("empty metric name".into()));
    }
    if let Some(m) = trec_eval_name(text) {
        return Ok(MetricSpec { label: text.to_string(), metric: m? });
    }
    let (head, param_text) = match text.split_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (text, None),
    };
    let (base, k) = match head.split_once('@') {
        Some((b, k)) => {
            let k = k.parse::<usize>().ok().filter(|&k| k > 0).ok_or_else(|| {
                Error::config(format!("metric `{text}`"), "@", format!("cut-off `{k}` is not a positive integer"))
            })?;
            (b.to_ascii_lowercase(), Some(k))
        }
        None => (head.to_ascii_lowercase(), None),
    };
    let mut p = Params::new(text, param_text)?;
    let need_k = |what: &str| -> Result<usize> {
        k.ok_or_else(|| Error::config(format!("metric `{text}`"), "@", format!("{what} needs a cut-off, e.g. {what}@10")))
    };
    let no_k = |p: &Params| -> Result<()> {
        if k.is_some() {
            return Err(p.err("@", "this metric takes no cut-off"));
        }
        Ok(())
    };
    let ins_variant = |b: &str| match b {
        "insq" | "insq_depth" => Some(InsVariant::Insq),
        "insq'" | "insqp" | "insq'_depth" | "insqp_depth" => Some(InsVariant::InsqPrime),
        "inst" | "inst_depth" => Some(InsVariant::Inst),
        _ => None,
    };
    let metric = match base.as_str() {
        "rrmetric" | "ebu" => {
            let user = match p.raw("user") {
                None => crate::baraco::harness::UserModel::Navigational,
                Some(u) => crate::baraco::harness::UserModel::parse(&u)
                    .ok_or_else(|| p.err("user", format!("`{u}` is not perfect, navigational or informational")))?,
            };
            let ((cr, sr), (cn, sn)) = (user.params(1), user.params(0));
            let click = [p.probability("click_rel", false)?.unwrap_or(cr), p.probability("click_nonrel", false)?.unwrap_or(cn)];
            let satisfaction = [p.probability("sat_rel", false)?.unwrap_or(sr), p.probability("sat_nonrel", false)?.unwrap_or(sn)];
            let (kind, gamma) = if base == "ebu" {
                (ClickMetricKind::Ebu, p.probability("gamma", false)?.unwrap_or(0.9))
            } else {
                (ClickMetricKind::RrMetric, 1.0)
            };
            Metric::ClickModel { kind, click, satisfaction, gamma, k }
        }
        "p" | "precision" => Metric::Precision { k: need_k("p")? },
        "r" | "recall" => Metric::Recall { k: need_k("recall")? },
        "ap" | "map" => Metric::Ap { k },
        "rr" | "mrr" => {
            no_k(&p)?;
            Metric::Rr
        }
        "rprec" => {
            no_k(&p)?;
            Metric::Rprec
        }
        "ndcg" => {
            let discount = match p.choice("discount", &["log2", "jarvelin"])?.as_deref() {
                Some("jarvelin") => Discount::Jarvelin { base: p.positive("b")?.unwrap_or(2.0) },
                _ => Discount::Log2,
            };
            if let Discount::Jarvelin { base } = discount {
                if base <= 1.0 {
                    return Err(p.err("b", format!("{base} must be > 1")));
                }
            }
            Metric::Ndcg { k, discount }
        }
        "err" => {
            let max_grade = p.usize("max")?.map(|g| g as i32);
            Metric::Err { k, max_grade }
        }
        "rbp" => {
            no_k(&p)?;
            let pp = p.probability("p", false)?.unwrap_or(0.8);
            if pp >= 1.0 {
                return Err(p.err("p", "must be < 1"));
            }
            Metric::Rbp { p: pp, graded: p.gain()? }
        }
        "rbp_res" | "rbp_residual" => {
            no_k(&p)?;
            let pp = p.probability("p", false)?.unwrap_or(0.8);
            Metric::RbpResidual { p: pp }
        }
        b if ins_variant(b).is_some() => {
            no_k(&p)?;
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
            no_k(&p)?;
            Metric::Rrt { t: p.usize("t")?.unwrap_or(1) }
        }
        "errt" => {
            no_k(&p)?;
            Metric::Errt { t: p.usize("t")?.unwrap_or(1) }
        }
        "tbg" => {
            no_k(&p)?;
            let d = TbgParams::default();
            Metric::Tbg(TbgParams {
                half_life: p.positive("h")?.unwrap_or(d.half_life),
                default_length: p.positive("len")?.unwrap_or(d.default_length),
            })
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
        "novelty" | "utility" => {
            let depth = k.unwrap_or(1000);
            let missed = policy(&mut p, "missed")?;
            let unfound = policy(&mut p, "unfound")?;
            let eps = p.probability("eps", true)?;
            Metric::Novelty(NoveltyParams { depth, missed, unfound, eps })
        }
        _ => {
            return Err(Error::Invalid(format!(
                "unknown metric `{text}`; known: p@k, recall@k, ap[@k], rr, rprec, ndcg[@k], err[@k], rbp, \
                 rbp_res, inst, insq, insq', inst_depth, insq_depth, insq'_depth, rrt, errt, tbg, pres@N, \
                 pres_est@N, ct[@k], novelty[@N], rrmetric[@k], ebu[@k], and trec_eval's map, map_cut_K, P_K, recall_K, recip_rank, \
                 Rprec, ndcg, ndcg_cut_K, num_ret, num_rel, num_rel_ret"
            )))
        }
    };
    p.finish()?;
    Ok(MetricSpec { label: text.to_string(), metric })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse() {
        assert_eq!(parse_metric("ndcg@10").unwrap().metric, Metric::Ndcg { k: Some(10), discount: Discount::Log2 });
        assert_eq!(parse_metric("ndcg_cut_10").unwrap().metric, parse_metric("nDCG@10").unwrap().metric);
        assert_eq!(parse_metric("P_5").unwrap().metric, Metric::Precision { k: 5 });
        assert_eq!(parse_metric("rbp:p=0.8").unwrap().metric, Metric::Rbp { p: 0.8, graded: false });
        assert_eq!(parse_metric("pres@1000").unwrap().metric, Metric::Pres { n_max: 1000 });
        match parse_metric("ct:gamma=0.5,time=g").unwrap().metric {
            Metric::Cube { params, time, .. } => {
                assert_eq!(params.gamma, 0.5);
                assert!(matches!(time, CubeTime::Tbg { .. }));
            }
            m => panic!("{m:?}"),
        }
        assert_eq!(parse_metric("map").unwrap().label, "map");
        assert!(matches!(parse_metric("ndcg:discount=jarvelin").unwrap().metric,
            Metric::Ndcg { discount: Discount::Jarvelin { base }, .. } if base == 2.0));
    }

    #[test]
    fn bad_names_are_errors_naming_the_key() {
        let e = parse_metric("rbp:q=0.8").unwrap_err().to_string();
        assert!(e.contains("`q`") && e.contains("unknown parameter"), "{e}");
        let e = parse_metric("rbp:p=1.5").unwrap_err().to_string();
        assert!(e.contains("`p`"), "{e}");
        assert!(parse_metric("rbp:p=nan").is_err());
        assert!(parse_metric("pres").is_err());
        assert!(parse_metric("P_x").is_err());
        assert!(parse_metric("foo").unwrap_err().to_string().contains("unknown metric"));
        assert!(parse_metric("ct:time=z").unwrap_err().to_string().contains("`time`"));
    }
}
