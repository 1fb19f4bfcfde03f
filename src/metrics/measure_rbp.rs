//! RBP without trec_eval's per-topic normalisation (trec_eval's `rbp` is a family): ir_measures'
//! `RBP(p=0.8)[@k]` (gains are the grades, trectools; `rel=` makes them binary, cwl_eval), and
//! serpsim's `rbp:p=0.8` (binary gains, or `gain=graded`: grade / largest grade).

use super::measure_def::{Built, Cutoff, MeasureDef, Metric, ParamKind, ParamSpec};

pub(super) static MEASURES: &[MeasureDef] = &[MeasureDef {
    names: &["rbp"],
    shown: &["RBP(p=0.8)", "rbp:p=0.8"],
    about: "rank-biased precision `(1-p) sum_i p^(i-1) g_i`",
    cutoff: Cutoff::Custom,
    params: &[
        ParamSpec { key: "p", kind: ParamKind::Probability { open_low: false }, default: "0.8", about: "persistence, < 1" },
        ParamSpec { key: "gain", kind: ParamKind::Choice(&["binary", "graded"]), default: "binary", about: "serpsim's spelling: binary or grade / largest grade" },
        ParamSpec { key: "rel", kind: ParamKind::Number, default: "", about: "ir_measures' spelling: binary gains at this grade" },
    ],
    build,
    compute: None,
}];

fn build(s: &mut super::measure_def::Spelling) -> crate::error::Result<Built> {
    // ir_measures' spelling `RBP(p=0.8)[@k]`: graded gains (the grades themselves) unless `rel`
    // makes them binary, and an optional cut-off. serpsim's `rbp:p=0.8` is binary (or
    // `gain=graded`, grade / g_max) over the whole ranking.
    s.k(s.base)?;
    let ir = s.base == "RBP" && !s.colon;
    let depth = if ir { s.k("RBP")? } else { None };
    if !ir {
        s.no_k()?;
    }
    let p = s.number("p")?;
    if p >= 1.0 {
        return Err(s.err("p", "must be < 1"));
    }
    let graded = if ir { false } else { s.choice("gain")?.as_deref() == Some("graded") };
    let rel = s.opt_number("rel")?;
    let raw = ir && rel.is_none();
    Ok(Built::Own { metric: Metric::Rbp { p, graded, raw }, rel: rel.map(|r| r as i32), depth })
}
