//! ERRT(T) = `(1/T) sum_t ((T-1)/T)^(t-1) RRT(t)`.

use super::measure_def::{Built, Cutoff, MeasureDef, Metric, ParamKind, ParamSpec};

pub(super) static MEASURES: &[MeasureDef] = &[MeasureDef {
    names: &["errt"],
    shown: &["errt"],
    about: "expected RRT over targets 1..",
    cutoff: Cutoff::None,
    params: &[ParamSpec { key: "t", kind: ParamKind::Count, default: "1", about: "target T" }],
    build: |s| {
        s.cutoff()?;
        Ok(Built::own(Metric::Errt { t: s.count("t")? }))
    },
    compute: None,
}];
