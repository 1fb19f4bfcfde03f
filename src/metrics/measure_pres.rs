//! PRES (Magdy and Jones) with cut-off N_max, and PRES_est = PRES / min(1, N_max / n).

use super::measure_def::{Built, Cutoff, MeasureDef, Metric};

pub(super) static MEASURES: &[MeasureDef] = &[
    MeasureDef {
        names: &["pres"],
        shown: &["pres@N"],
        about: "patent retrieval evaluation score at N_max = N",
        cutoff: Cutoff::Required,
        params: &[],
        build: |s| Ok(Built::own(Metric::Pres { n_max: s.cutoff()?.expect("required") })),
        compute: None,
    },
    MeasureDef {
        names: &["pres_est"],
        shown: &["pres_est@N"],
        about: "PRES / min(1, N_max / n)",
        cutoff: Cutoff::Required,
        params: &[],
        build: |s| Ok(Built::own(Metric::PresEst { n_max: s.cutoff()?.expect("required") })),
        compute: None,
    },
];
