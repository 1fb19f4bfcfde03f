//! RRT(T) = T / rank of the T-th relevant document, 0 if fewer (RRT(1) = RR).

use super::measure_def::{Built, Cutoff, MeasureDef, Metric, ParamKind, ParamSpec};

pub(super) static MEASURES: &[MeasureDef] = &[MeasureDef {
    names: &["rrt"],
    shown: &["rrt"],
    about: "T / rank of the T-th relevant document",
    cutoff: Cutoff::None,
    params: &[ParamSpec { key: "t", kind: ParamKind::Count, default: "1", about: "target T" }],
    build: |s| {
        s.cutoff()?;
        Ok(Built::own(Metric::Rrt { t: s.count("t")? }))
    },
    compute: None,
}];
