//! Fujii and Ishikawa's novelty-based utility (compares each run with the others; computed by
//! [`crate::metrics::novelty`] in `eval`, after every run's ranking is known).

use super::measure_def::{Built, Cutoff, MeasureDef, Metric, ParamKind, ParamSpec};
use crate::metrics::novelty::{InfinitePolicy, NoveltyParams};

const POLICY: ParamKind = ParamKind::Choice(&["floor", "skip", "inf"]);

pub(super) static MEASURES: &[MeasureDef] = &[MeasureDef {
    names: &["novelty", "novelty_utility"],
    shown: &["novelty_utility"],
    about: "Fujii and Ishikawa's utility at depth N (`@N`, default 1000)",
    cutoff: Cutoff::Optional,
    params: &[
        ParamSpec { key: "missed", kind: POLICY, default: "floor", about: "a relevant document the run misses" },
        ParamSpec { key: "unfound", kind: POLICY, default: "floor", about: "a relevant document no other run finds" },
        ParamSpec { key: "eps", kind: ParamKind::Probability { open_low: true }, default: "", about: "floor (default 1/(2N))" },
    ],
    build: |s| {
        let depth = s.cutoff()?.unwrap_or(1000);
        let mut policy = |key: &str| -> crate::error::Result<InfinitePolicy> {
            Ok(match s.choice(key)?.as_deref() {
                None | Some("floor") => InfinitePolicy::Floor,
                Some("skip") => InfinitePolicy::Skip,
                _ => InfinitePolicy::Infinite,
            })
        };
        let missed = policy("missed")?;
        let unfound = policy("unfound")?;
        let eps = s.opt_number("eps")?;
        Ok(Built::own(Metric::Novelty(NoveltyParams { depth, missed, unfound, eps })))
    },
    compute: None,
}];
