//! rrMetric and EBU from click-model parameters ([`crate::clickmodels::metrics`]): each result's
//! attractiveness and satisfaction come from its relevance through one of Grotov et al.'s
//! Table 1 user models.

use super::measure_def::{Built, ClickMetricKind, Cutoff, MeasureDef, Metric, ParamKind, ParamSpec};
use crate::clickmodels::metrics::UserModel;

const PARAMS: &[ParamSpec] = &[
    ParamSpec { key: "user", kind: ParamKind::Text, default: "navigational", about: "perfect, navigational or informational" },
    ParamSpec { key: "click_rel", kind: ParamKind::Probability { open_low: false }, default: "", about: "P(click | relevant) (default: the user's)" },
    ParamSpec { key: "click_nonrel", kind: ParamKind::Probability { open_low: false }, default: "", about: "P(click | non-relevant)" },
    ParamSpec { key: "sat_rel", kind: ParamKind::Probability { open_low: false }, default: "", about: "P(satisfied | click, relevant)" },
    ParamSpec { key: "sat_nonrel", kind: ParamKind::Probability { open_low: false }, default: "", about: "P(satisfied | click, non-relevant)" },
    ParamSpec { key: "gamma", kind: ParamKind::Probability { open_low: false }, default: "0.9", about: "continuation (ebu only)" },
];
/// rrMetric has no continuation.
const RR_PARAMS: &[ParamSpec] = PARAMS.split_at(5).0;

pub(super) static MEASURES: &[MeasureDef] = &[
    MeasureDef { names: &["rrmetric"], shown: &["rrmetric"], about: "rrMetric (Grotov et al. Eq. 3)", cutoff: Cutoff::Optional, params: RR_PARAMS, build, compute: None },
    MeasureDef { names: &["ebu"], shown: &["ebu"], about: "expected browsing utility (Yilmaz et al.)", cutoff: Cutoff::Optional, params: PARAMS, build, compute: None },
];

fn build(s: &mut super::measure_def::Spelling) -> crate::error::Result<Built> {
    let k = s.cutoff()?;
    let user = match s.raw("user") {
        None => UserModel::Navigational,
        Some(u) => UserModel::parse(&u).ok_or_else(|| s.err("user", format!("`{u}` is not perfect, navigational or informational")))?,
    };
    let ((cr, sr), (cn, sn)) = (user.params(1), user.params(0));
    let click = [s.opt_number("click_rel")?.unwrap_or(cr), s.opt_number("click_nonrel")?.unwrap_or(cn)];
    let satisfaction = [s.opt_number("sat_rel")?.unwrap_or(sr), s.opt_number("sat_nonrel")?.unwrap_or(sn)];
    let (kind, gamma) = if s.def.name() == "ebu" { (ClickMetricKind::Ebu, s.number("gamma")?) } else { (ClickMetricKind::RrMetric, 1.0) };
    Ok(Built::own(Metric::ClickModel { kind, click, satisfaction, gamma, k }))
}
