//! The measure registry: every measure with a name of its own (ir_measures' and serpsim's;
//! trec_eval's families are the table of [`super::trec_eval`]) declared once, as a
//! [`MeasureDef`] (names, cut-off, parameters with defaults and ranges, build, compute; the
//! types are in [`super::measure_def`]), one file `measure_<name>.rs` per measure beside this
//! one (the ir_measures names of trec_eval families are one table, `measure_ir_aliases.rs`),
//! each listed once in the `registry!` line of `src/metrics/mod.rs`, which makes
//! [`super::REGISTRY`]. One parser reads every spelling, `Name@k`, `Name(key=value,...)@k` or
//! `name@k:key=value,...`, and the "did you mean" suggestions are the registry's names.
//!
//! Imports go one way: `names` and `eval` use this file; this file and the measure files use
//! `measure_def` and the computing modules (`trec_eval`, `cube`, ...), never `names` or `eval`.

use super::measure_def::{self, Built as B, Cutoff, MeasureDef, MeasureKind, Registered, Spelling, TopicInput};
use crate::error::{Error, Result};

/// Every registered measure, in suggestion order.
pub fn all() -> impl Iterator<Item = &'static MeasureDef> {
    super::REGISTRY.iter().flat_map(|file| file.iter())
}

/// The declaration answering to `name` (case-insensitive).
pub fn find(name: &str) -> Option<&'static MeasureDef> {
    let lower = name.to_ascii_lowercase();
    all().find(|d| d.names.contains(&lower.as_str()))
}

/// The names shown in suggestions, in registry order.
pub fn shown_names() -> impl Iterator<Item = &'static str> {
    all().flat_map(|d| d.shown.iter().copied())
}

/// Parses an ir_measures or serpsim spelling into a measure, its relevance level and depth.
/// `unknown` makes the error for a name no declaration answers to.
pub fn parse(text: &str, unknown: impl Fn(&str) -> Error) -> Result<(MeasureKind, Option<i32>, Option<usize>)> {
    // name[(k=v,...)][@k][:k=v,...]
    let (head, own_params) = match text.split_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (text, None),
    };
    let (head, at) = match head.rsplit_once('@') {
        Some((h, k)) => (h, Some(k)),
        None => (head, None),
    };
    let (base, paren) = match head.split_once('(') {
        Some((b, rest)) => {
            let inner = rest.strip_suffix(')').ok_or_else(|| Error::Invalid(format!("`{text}`: missing `)`")))?;
            (b, Some(inner))
        }
        None => (head, None),
    };
    if paren.is_some() && own_params.is_some() {
        return Err(Error::Invalid(format!("`{text}`: give parameters either as (k=v) or after `:`, not both")));
    }
    let pairs = Spelling::pairs(text, paren.or(own_params))?;
    let Some(def) = find(base) else {
        // A malformed cut-off is reported before an unknown name.
        measure_def::at_k(text, at, base)?;
        return Err(unknown(text));
    };
    let mut s = Spelling::new(text, base, at, own_params.is_some(), paren.is_some(), pairs, def);
    match (def.build)(&mut s)? {
        B::Trec { measure, depth } => {
            // The ir_measures names of trec_eval families: cut-off as declared, `rel`,
            // `judged_only` (only False), and no unknown parameter.
            if def.cutoff == Cutoff::None {
                s.no_k()?;
            }
            let rel = s.opt_number("rel")?.map(|r| r as i32);
            if let Some(v) = s.raw("judged_only") {
                match v.to_ascii_lowercase().as_str() {
                    "false" | "0" => {}
                    "true" | "1" => {
                        return Err(s.err(
                            "judged_only",
                            "is not supported: serpsim scores unjudged documents as non-relevant, as trec_eval does; remove them from the run to evaluate judged documents only",
                        ))
                    }
                    _ => return Err(s.err("judged_only", format!("`{v}` is not True or False"))),
                }
            }
            if matches!(measure.family, super::trec_eval::Family::Ndcg | super::trec_eval::Family::NdcgCut) && rel.is_some() {
                return Err(s.err("rel", "nDCG uses the grades as gains; `rel` does not apply"));
            }
            s.finish()?;
            Ok((MeasureKind::Trec(measure), rel, depth))
        }
        B::Own { metric, rel, depth } => {
            s.finish()?;
            Ok((MeasureKind::Own(metric), rel, depth))
        }
    }
}

/// The value of a [`Metric::Registered`] measure on one topic.
pub fn registered_value(m: &Registered, input: &TopicInput) -> f64 {
    match &m.def.compute {
        Some(c) => (c.value)(input, m),
        None => panic!("`{}` plans into Metric::Registered but declares no compute", m.def.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::measure_def::{Metric, ParamKind};

    #[test]
    fn declarations_are_consistent() {
        let mut seen: Vec<&str> = Vec::new();
        for d in all() {
            assert!(!d.names.is_empty() && !d.shown.is_empty(), "{d:?}");
            for n in d.names {
                assert_eq!(*n, n.to_ascii_lowercase(), "names are lower case: {n}");
                assert!(!seen.contains(n), "`{n}` is declared twice");
                seen.push(n);
            }
            for p in d.params {
                assert_eq!(p.key, p.key.to_ascii_lowercase());
                match p.kind {
                    ParamKind::Choice(options) => assert!(p.default.is_empty() || options.contains(&p.default), "{}: {}", d.name(), p.key),
                    ParamKind::Text => {}
                    _ => assert!(p.default.is_empty() || p.default.parse::<f64>().is_ok(), "{}: {}", d.name(), p.key),
                }
            }
        }
    }

    #[test]
    fn every_shown_name_parses() {
        for d in all() {
            for shown in d.shown {
                let text = shown.replace("@k", "@10").replace("@N", "@10").replace("@r", "@0.5");
                let r = parse(&text, |t| Error::Invalid(format!("unknown {t}")));
                assert!(r.is_ok(), "`{text}`: {r:?}");
                // A measure planned as Registered is computed by its declaration.
                if let Ok((MeasureKind::Own(Metric::Registered(m)), _, _)) = r {
                    assert!(m.def.compute.is_some(), "`{text}` declares no compute");
                }
            }
        }
    }
}
