//! ERR, `sum_r 1/r R_r prod_{i<r}(1-R_i)` with `R = (2^g-1)/2^gmax`: ir_measures' `ERR@k` is
//! gdeval's (g_max fixed at 4, its MAX_JUDGMENT); serpsim's `err[@k]` takes g_max from the qrels
//! unless `max` is given.

use super::measure_def::{Built, Cutoff, MeasureDef, Metric, ParamKind, ParamSpec};

pub(super) static MEASURES: &[MeasureDef] = &[MeasureDef {
    names: &["err"],
    shown: &["ERR@k", "err"],
    about: "expected reciprocal rank",
    cutoff: Cutoff::Optional,
    params: &[ParamSpec { key: "max", kind: ParamKind::Count, default: "", about: "maximum grade g_max (default: the largest grade in the qrels; ERR@k: 4)" }],
    build: |s| {
        let k = s.cutoff()?;
        let gdeval = s.base == "ERR" && !s.colon && !s.paren;
        let max_grade = s.opt_number("max")?.map(|g| g as i32).or(gdeval.then_some(4));
        Ok(Built::own(Metric::Err { k, max_grade }))
    },
    compute: None,
}];
