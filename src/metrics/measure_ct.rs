//! The Cube Test (Luo et al.): gain over subtopics with a capped height, per unit of time
//! (needs subtopic qrels; computed by [`crate::metrics::cube`]).

use super::measure_def::{Built, CubeTime, Cutoff, MeasureDef, Metric, ParamKind, ParamSpec};
use crate::metrics::cube::{CapMode, CubeEquation, CubeParams, SubtopicWeights, TimeOrigin};

pub(super) static MEASURES: &[MeasureDef] = &[MeasureDef {
    names: &["ct", "cube"],
    shown: &["ct"],
    about: "the Cube Test (docs/metrics.md)",
    cutoff: Cutoff::Optional,
    params: &[
        ParamSpec { key: "gamma", kind: ParamKind::Probability { open_low: true }, default: "0.5", about: "discount of repeated subtopic gain" },
        ParamSpec { key: "height", kind: ParamKind::Positive, default: "1", about: "MaxHeight" },
        ParamSpec { key: "cap", kind: ParamKind::Choice(&["indicator", "truncate", "decay"]), default: "indicator", about: "how MaxHeight caps gain" },
        ParamSpec { key: "eq", kind: ParamKind::Choice(&["11", "13"]), default: "13", about: "Eq. 11 or Eq. 13" },
        ParamSpec { key: "time0", kind: ParamKind::Choice(&["inclusive", "literal"]), default: "inclusive", about: "whether Time(D^t) includes document t" },
        ParamSpec { key: "weights", kind: ParamKind::Choice(&["uniform", "l", "p"]), default: "uniform", about: "subtopic weights" },
        ParamSpec { key: "time", kind: ParamKind::Choice(&["t", "a", "g", "d"]), default: "g", about: "time model" },
        ParamSpec { key: "words", kind: ParamKind::Positive, default: "150", about: "words per document (time=a)" },
        ParamSpec { key: "default", kind: ParamKind::Positive, default: "1", about: "seconds of a document without --doc-times (time=d)" },
        ParamSpec { key: "len", kind: ParamKind::Positive, default: "1000", about: "words of a document without --doc-lengths (time=g)" },
    ],
    build: |s| {
        let k = s.cutoff()?;
        let gamma = s.number("gamma")?;
        let max_height = s.number("height")?;
        let cap = match s.choice("cap")?.as_deref() {
            Some("truncate") => CapMode::Truncate,
            Some("decay") => CapMode::Decay,
            _ => CapMode::Indicator,
        };
        let equation = match s.choice("eq")?.as_deref() {
            Some("11") => CubeEquation::Eq11,
            _ => CubeEquation::Eq13,
        };
        let time_origin = match s.choice("time0")?.as_deref() {
            Some("literal") => TimeOrigin::Literal,
            _ => TimeOrigin::Inclusive,
        };
        let weights = match s.choice("weights")?.as_deref() {
            Some("l") => SubtopicWeights::Log,
            Some("p") => SubtopicWeights::Given(Vec::new()),
            _ => SubtopicWeights::Uniform,
        };
        let time = match s.choice("time")?.as_deref() {
            Some("t") => CubeTime::Top,
            Some("a") => CubeTime::Words(s.number("words")?),
            Some("d") => CubeTime::PerDocument { default: s.number("default")? },
            _ => CubeTime::Tbg { default_length: s.number("len")? },
        };
        let k = match (k, time) {
            (None, CubeTime::Top) => Some(10),
            (k, _) => k,
        };
        Ok(Built::own(Metric::Cube { params: CubeParams { gamma, max_height, cap, equation, time_origin }, weights, time, k }))
    },
    compute: None,
}];

#[cfg(test)]
mod tests {
    #[test]
    fn declared_defaults_are_the_library_defaults() {
        let def = &super::MEASURES[0];
        let num = |k: &str| def.param(k).unwrap().default.parse::<f64>().unwrap();
        let d = crate::metrics::cube::CubeParams::default();
        assert_eq!((num("gamma"), num("height")), (d.gamma, d.max_height));
        assert_eq!(num("len"), crate::metrics::user_models::TbgParams::default().default_length);
    }
}
