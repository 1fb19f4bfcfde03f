//! Time-biased gain (Smucker and Clarke): `sum_k 0.64*0.77 exp(-T(k) ln2 / h)` over relevant k.

use super::measure_def::{Built, Cutoff, MeasureDef, Metric, ParamKind, ParamSpec};
use crate::metrics::user_models::TbgParams;

pub(super) static MEASURES: &[MeasureDef] = &[MeasureDef {
    names: &["tbg"],
    shown: &["tbg"],
    about: "time-biased gain",
    cutoff: Cutoff::None,
    params: &[
        ParamSpec { key: "h", kind: ParamKind::Positive, default: "224", about: "half-life in seconds" },
        ParamSpec { key: "len", kind: ParamKind::Positive, default: "1000", about: "words of a document without --doc-lengths" },
    ],
    build: |s| {
        s.cutoff()?;
        Ok(Built::own(Metric::Tbg(TbgParams { half_life: s.number("h")?, default_length: s.number("len")? })))
    },
    compute: None,
}];

#[cfg(test)]
mod tests {
    #[test]
    fn declared_defaults_are_the_library_defaults() {
        let d = crate::metrics::user_models::TbgParams::default();
        let def = &super::MEASURES[0];
        assert_eq!(def.param("h").unwrap().default.parse::<f64>().unwrap(), d.half_life);
        assert_eq!(def.param("len").unwrap().default.parse::<f64>().unwrap(), d.default_length);
    }
}
