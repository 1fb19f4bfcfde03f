//! `nDCG[@k]`: ir_measures' name of trec_eval's `ndcg` / `ndcg_cut` (gains are the grades,
//! `dcg=log2` only); with `discount=jarvelin`, serpsim's nDCG with Järvelin and Kekäläinen's
//! original discount (no discount for ranks < b, then `1/log_b(i)`).

use super::measure_ir_aliases::{JUDGED_ONLY, REL};
use super::measure_def::{Built, Cutoff, MeasureDef, Metric, ParamKind, ParamSpec};
use crate::metrics::trec::Discount;
use crate::metrics::trec_eval::Family;

pub(super) static MEASURES: &[MeasureDef] = &[MeasureDef {
    names: &["ndcg"],
    shown: &["nDCG", "nDCG@k"],
    about: "nDCG (trec_eval's `ndcg`, `ndcg_cut` at @k), or with `discount=jarvelin` Järvelin and Kekäläinen's",
    cutoff: Cutoff::Optional,
    params: &[
        REL,
        ParamSpec { key: "dcg", kind: ParamKind::Text, default: "log2", about: "ir_measures' gain and discount: log2 only" },
        JUDGED_ONLY,
        ParamSpec { key: "discount", kind: ParamKind::Choice(&["log2", "jarvelin"]), default: "log2", about: "jarvelin: serpsim's nDCG" },
        ParamSpec { key: "b", kind: ParamKind::Positive, default: "2", about: "base of the jarvelin discount (> 1)" },
    ],
    build,
    compute: None,
}];

fn build(s: &mut super::measure_def::Spelling) -> crate::error::Result<Built> {
    if s.only(&["rel", "dcg"]) {
        if let Some(d) = s.raw("dcg") {
            if !d.eq_ignore_ascii_case("log2") {
                return Err(s.err("dcg", format!("`{d}` is not supported (only log2: gains are the grades, as trec_eval)")));
            }
        }
        return match s.k("nDCG")? {
            Some(k) => Built::trec(Family::NdcgCut, Some(k.to_string())),
            None => Built::trec(Family::Ndcg, None),
        };
    }
    let k = s.cutoff()?;
    let discount = match s.choice("discount")?.as_deref() {
        Some("jarvelin") => Discount::Jarvelin { base: s.number("b")? },
        _ => return Err(s.err("discount", "serpsim's nDCG differs from trec_eval's only with discount=jarvelin")),
    };
    if let Discount::Jarvelin { base } = discount {
        if base <= 1.0 {
            return Err(s.err("b", format!("{base} must be > 1")));
        }
    }
    Ok(Built::own(Metric::Ndcg { k, discount }))
}
