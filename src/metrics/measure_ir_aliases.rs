//! ir_measures' names of trec_eval families (`AP`, `P@5`, `RR@10`, `SetF(beta=2)`, ...): one
//! declaration each; the values are trec_eval's ([`super::trec_eval`]). Every one takes
//! `rel` (minimum relevant grade) and `judged_only` (only False), read by the parser.

use super::measure_def::{Built, Cutoff, MeasureDef, ParamKind, ParamSpec};
use crate::metrics::trec_eval::Family;

/// `rel=`: ir_measures' minimum relevant grade.
pub(super) const REL: ParamSpec = ParamSpec { key: "rel", kind: ParamKind::Number, default: "", about: "minimum grade of a relevant document (default: -l)" };
/// `judged_only=`: only False is accepted.
pub(super) const JUDGED_ONLY: ParamSpec =
    ParamSpec { key: "judged_only", kind: ParamKind::Text, default: "false", about: "False (True is refused: unjudged documents are non-relevant, as trec_eval)" };
const TREC: &[ParamSpec] = &[REL, JUDGED_ONLY];

/// A family at its trec_eval defaults, without a cut-off.
macro_rules! plain {
    ($names:expr, $shown:expr, $family:expr, $about:expr) => {
        MeasureDef { names: $names, shown: $shown, about: $about, cutoff: Cutoff::None, params: TREC, build: |_| Built::trec($family, None), compute: None }
    };
}

pub(super) static MEASURES: &[MeasureDef] = &[
    MeasureDef {
        names: &["ap", "map"],
        shown: &["AP"],
        about: "average precision (trec_eval `map`; `AP@k`: `map_cut`)",
        cutoff: Cutoff::Optional,
        params: TREC,
        build: |s| match s.k("AP")? {
            Some(k) => Built::trec(Family::MapCut, Some(k.to_string())),
            None => Built::trec(Family::Map, None),
        },
        compute: None,
    },
    MeasureDef {
        names: &["p", "precision"],
        shown: &["P@k"],
        about: "precision at k (trec_eval `P`)",
        cutoff: Cutoff::Required,
        params: TREC,
        build: |s| Built::trec(Family::P, Some(s.need_k("P")?.to_string())),
        compute: None,
    },
    MeasureDef {
        names: &["r", "recall"],
        shown: &["R@k"],
        about: "recall at k (trec_eval `recall`)",
        cutoff: Cutoff::Required,
        params: TREC,
        build: |s| Built::trec(Family::Recall, Some(s.need_k("R")?.to_string())),
        compute: None,
    },
    MeasureDef {
        names: &["rr", "mrr", "recip_rank"],
        shown: &["RR"],
        about: "reciprocal rank (trec_eval `recip_rank`), of the first k ranks with `@k`",
        cutoff: Cutoff::Optional,
        params: TREC,
        build: |s| {
            let depth = s.k("RR")?;
            Ok(Built::Trec { measure: crate::metrics::trec_eval::TrecMeasure::default_of(Family::RecipRank), depth })
        },
        compute: None,
    },
    MeasureDef {
        names: &["rprec"],
        shown: &["Rprec"],
        about: "precision at rank R, the number of relevant documents (trec_eval `Rprec`)",
        cutoff: Cutoff::None,
        params: TREC,
        build: |_| Built::trec(Family::Rprec, None),
        compute: None,
    },
    plain!(&["bpref"], &["Bpref"], Family::Bpref, "binary preference (trec_eval `bpref`)"),
    plain!(&["infap"], &["infAP"], Family::InfAp, "inferred AP (trec_eval `infAP`)"),
    plain!(&["numret"], &["NumRet"], Family::NumRet, "documents retrieved (trec_eval `num_ret`)"),
    plain!(&["numrel"], &["NumRel"], Family::NumRel, "relevant documents (trec_eval `num_rel`)"),
    plain!(&["numrelret"], &["NumRelRet"], Family::NumRelRet, "relevant documents retrieved (trec_eval `num_rel_ret`)"),
    plain!(&["numq"], &["NumQ"], Family::NumQ, "topics (trec_eval `num_q`)"),
    plain!(&["setp"], &["SetP"], Family::SetP, "set precision (trec_eval `set_P`)"),
    plain!(&["setr"], &["SetR"], Family::SetRecall, "set recall (trec_eval `set_recall`)"),
    MeasureDef {
        names: &["setf"],
        shown: &["SetF"],
        about: "set F-measure (trec_eval `set_F`)",
        cutoff: Cutoff::None,
        params: &[ParamSpec { key: "beta", kind: ParamKind::Positive, default: "1", about: "weight of recall" }, REL, JUDGED_ONLY],
        build: |s| {
            let beta = s.number("beta")?;
            Built::trec(Family::SetF, Some(format!("{beta}")))
        },
        compute: None,
    },
    plain!(&["setap"], &["SetAP"], Family::SetMap, "set average precision (trec_eval `set_map`)"),
    plain!(&["setrelp"], &["SetRelP"], Family::SetRelativeP, "relative set precision (trec_eval `set_relative_P`)"),
    MeasureDef {
        names: &["success"],
        shown: &["Success@k"],
        about: "1 if a relevant document is in the top k (trec_eval `success`)",
        cutoff: Cutoff::Required,
        params: TREC,
        build: |s| Built::trec(Family::Success, Some(s.need_k("Success")?.to_string())),
        compute: None,
    },
    MeasureDef {
        names: &["iprec"],
        shown: &["IPrec@r"],
        about: "interpolated precision at recall level r in [0, 1] (trec_eval `iprec_at_recall`)",
        cutoff: Cutoff::Custom,
        params: TREC,
        build: |s| {
            let r = s
                .at
                .and_then(|r| r.parse::<f64>().ok())
                .filter(|r| (0.0..=1.0).contains(r))
                .ok_or_else(|| s.err_at("IPrec needs a recall level in [0, 1], e.g. IPrec@0.5"))?;
            Built::trec(Family::IprecAtRecall, Some(format!("{r}")))
        },
        compute: None,
    },
];
