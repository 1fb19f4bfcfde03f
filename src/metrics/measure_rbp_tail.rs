//! RBP's tail `p^n` for a ranking of n documents (trec_eval's `rbp_resid` also counts unjudged
//! documents inside the list).

use super::measure_def::{Built, Cutoff, MeasureDef, Metric, ParamKind, ParamSpec};

pub(super) static MEASURES: &[MeasureDef] = &[MeasureDef {
    names: &["rbp_tail"],
    shown: &["rbp_tail:p=0.8"],
    about: "RBP's tail p^n for n retrieved documents",
    cutoff: Cutoff::None,
    params: &[ParamSpec { key: "p", kind: ParamKind::Probability { open_low: false }, default: "0.8", about: "persistence" }],
    build: |s| {
        s.cutoff()?;
        Ok(Built::own(Metric::RbpTail { p: s.number("p")? }))
    },
    compute: None,
}];
