//! The INSQ family (Bailey et al. 2015): C/W/L rate of gain `sum_i L(i) r_i / sum_i L(i)` of
//! INSQ, INSQ' and INST, and their user's expected depth (`*_depth`).

use super::measure_def::{Built, Cutoff, MeasureDef, Metric, ParamKind, ParamSpec};
use crate::metrics::user_models::InsVariant;

pub(super) static MEASURES: &[MeasureDef] = &[MeasureDef {
    names: &["inst", "insq", "insq'", "insqp", "inst_depth", "insq_depth", "insq'_depth", "insqp_depth"],
    shown: &["inst", "insq", "insq'", "inst_depth", "insq_depth", "insq'_depth"],
    about: "INSQ, INSQ' (insqp), INST rate of gain; `_depth`: expected depth",
    cutoff: Cutoff::None,
    params: &[
        ParamSpec { key: "t", kind: ParamKind::Positive, default: "3", about: "target T (>= 0.5)" },
        ParamSpec { key: "gain", kind: ParamKind::Choice(&["binary", "graded"]), default: "binary", about: "binary or grade / largest grade" },
    ],
    build: |s| {
        s.cutoff()?;
        let name = s.base.to_ascii_lowercase();
        let variant = match name.trim_end_matches("_depth") {
            "insq" => InsVariant::Insq,
            "inst" => InsVariant::Inst,
            _ => InsVariant::InsqPrime,
        };
        let t = s.number("t")?;
        if t < 0.5 {
            return Err(s.err("t", format!("{t} must be >= 0.5 (C(i) is defined for T >= 1/2)")));
        }
        let graded = s.choice("gain")?.as_deref() == Some("graded");
        Ok(Built::own(if name.ends_with("_depth") { Metric::InsDepth { variant, t, graded } } else { Metric::Ins { variant, t, graded } }))
    },
    compute: None,
}];
