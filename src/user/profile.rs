//! A user profile: one value (or population distribution) of every behaviour component.
//!
//! [`UserProfile`] is the plain data of a scenario's `[[profiles]]` entry; [`UserProfile::resolve`]
//! turns it into a [`ResolvedUser`] for one simulated user, drawing every parameter that is a
//! distribution (see [`super::param`]). The walk reads only resolved users.

use super::clicks::{Cascade, GradeTables};
use super::continuation::{Cont, ContPaths, ContinuationModel};
use super::costs::{ActionParams, ActionTable, Costs};
use super::gain::{CreditOn, Gain, GainKind};
use super::param::{path_id, Param, Support};
use super::stopping::{Rule, StoppingRuleKind};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Query formulation: which of the topic's query variants the user issues, in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Queries {
    /// Issue at most this many queries (default: every variant the collection lists; 1 = a
    /// single fixed query).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<usize>,
}

/// What a click that satisfies the user ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SatisfiedEnds {
    /// The whole session (the need is met).
    #[default]
    Session,
    /// The current query; the next variant is issued.
    Query,
}

/// The user's prior over sublists (He et al.'s Dirichlet hyperparameters):
/// alpha_k = scale * base_k + smoothing, base = nDCG of sublist k (`ndcg`, the oracle) or 1/K
/// (`random`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriorBase {
    /// The oracle: nDCG of each sublist against the ideal ordering of "All".
    Ndcg,
    /// 1 / K for every sublist.
    #[default]
    Random,
}

/// What a user whose continuation failed does when no other list can be selected (no sublists,
/// or every other sublist exhausted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoAlternative {
    /// End the query (a cascade user).
    #[default]
    Stop,
    /// Go on in the current list at no extra cost (He et al.'s choice, which makes the
    /// "All"-only interface deterministic for their user).
    Stay,
}

/// How the user uses sublists (facets, filters) when the interface offers them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SublistUse {
    /// A failed continuation switches to another sublist (He et al.) instead of ending the query.
    pub switch: bool,
    /// What a failed continuation does when no other list is selectable.
    pub no_alternative: NoAlternative,
    /// Base of the prior.
    pub prior: PriorBase,
    /// Multiplier of the base.
    pub scale: f64,
    /// Added to every alpha (accuracy levels of He et al.: 0, 0.1, 0.5, 1).
    pub smoothing: f64,
}

impl Default for SublistUse {
    fn default() -> Self {
        SublistUse { switch: true, no_alternative: NoAlternative::Stop, prior: PriorBase::Random, scale: 1.0, smoothing: 0.0 }
    }
}

/// A hard session budget: an action that would exceed it is not taken and the session ends
/// (so time never exceeds `seconds`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Budget {
    /// Seconds available (system delays included).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<Param>,
    /// Effort available.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<Param>,
}

/// What to do with documents a click model has no parameters for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Unseen {
    /// `"auto"` (default): `"labels"` when the model file has per-grade values, else
    /// `"grade"` when the model knows some results, else an error listing the choices;
    /// `"labels"`: the file's per-grade values (`clicks fit --qrels`); `"quantile"`: quantile
    /// matching onto the collection's grades; `"prior"`: the model's prior 0.5; `"grade"`: the
    /// profile's grade-based `clicks` tables; `"error"`: refuse to run. A warning reports how
    /// many results were unseen and what they got (docs/scenarios.md, "Click-model users").
    Policy(UnseenPolicy),
    /// Fixed values.
    Values {
        /// P(click | examined).
        attractiveness: f64,
        /// P(satisfied | clicked).
        #[serde(default)]
        satisfaction: f64,
    },
}

/// Named policies for unseen documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnseenPolicy {
    /// Labels if the file has them, else the grade tables if the model knows some results,
    /// else an error listing the choices.
    Auto,
    /// Per-grade values fitted on the log's own labels (`clicks fit --qrels`).
    Labels,
    /// Quantile matching of the model's per-pair values onto the collection's grades.
    Quantile,
    /// The click model's prior 0.5.
    Prior,
    /// The profile's grade tables.
    Grade,
    /// Refuse.
    Error,
}

impl Default for Unseen {
    fn default() -> Self {
        Unseen::Policy(UnseenPolicy::Auto)
    }
}

/// `click_model = { file = "dbn.json" }`: a fitted or hand-set click-model file (JSON, see
/// docs/clickmodels.md) draws the clicks. Its query ids are the topic ids, its document ids the
/// collection's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClickModelSpec {
    /// Model file, relative to the scenario file.
    pub file: PathBuf,
    /// Documents the model has no parameters for.
    #[serde(default)]
    pub unseen: Unseen,
}

/// A simulated user population.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserProfile {
    /// Profile name, used in outputs.
    pub name: String,
    /// Query formulation.
    #[serde(default)]
    pub queries: Queries,
    /// Continuation (default: RBP persistence 0.8; with a click model, the model's own; with
    /// stopping rules, 1: the rules alone decide when the user stops).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation: Option<ContinuationModel>,
    /// P(go on to the next page) when the next result is on a page not yet shown (Kelly and
    /// Azzopardi); 1 = the continuation alone decides.
    #[serde(default = "one")]
    pub page_continuation: Param,
    /// Cascade click behaviour by grade (also the marks of click-model users, and their clicks
    /// on documents the model does not know with `unseen = "grade"`).
    #[serde(default)]
    pub clicks: Cascade,
    /// A fitted or hand-set click model that draws the clicks instead of the cascade.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub click_model: Option<ClickModelSpec>,
    /// What a satisfying click ends.
    #[serde(default)]
    pub satisfied: SatisfiedEnds,
    /// Stopping rules for the current query, combined with "or".
    #[serde(default)]
    pub stopping: Vec<StoppingRuleKind>,
    /// Stopping rules for the whole session, combined with "or".
    #[serde(default)]
    pub session_stopping: Vec<StoppingRuleKind>,
    /// Hard session budget.
    #[serde(default)]
    pub budget: Budget,
    /// Use of sublists, when the interface offers them.
    #[serde(default)]
    pub sublists: SublistUse,
    /// Gain model (default: binary, credited on reading).
    #[serde(default)]
    pub gain: GainKind,
    /// Effort weights per action; entries not given keep their defaults (1 per snippet, page
    /// turn and sublist selection, He et al.).
    #[serde(default)]
    pub effort: ActionParams,
    /// Seconds per action; entries not given keep their defaults (Maxwell et al. Table 1).
    #[serde(default)]
    pub time: ActionParams,
    /// Charge the query and the first SERP look at the start of each query (default true).
    #[serde(default = "default_true")]
    pub charge_query: bool,
    /// Stream users only (`[collection] source = "streams"`, docs/streams.md): mean time away
    /// A in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub away: Option<Param>,
    /// Stream users only: mean session duration D in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Param>,
    /// Stream users only: reading speed V in words per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Param>,
    /// Stream users only: lateness discount L in [0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lateness: Option<Param>,
}

fn one() -> Param {
    Param::Fixed(1.0)
}
fn default_true() -> bool {
    true
}

/// A user with every parameter resolved: what the walk reads.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedUser {
    /// Queries to issue at most.
    pub max_queries: usize,
    /// Continuation.
    pub continuation: Cont,
    /// Page continuation.
    pub page_continuation: f64,
    /// Grade tables (cascade clicks, marks).
    pub grades: GradeTables,
    /// Whether a click model draws the clicks (its tables come with the topic).
    pub click_model: bool,
    /// What satisfaction ends.
    pub satisfied: SatisfiedEnds,
    /// Query stopping rules.
    pub stopping: Vec<Rule>,
    /// Session stopping rules.
    pub session_stopping: Vec<Rule>,
    /// Hard time budget (infinite when none).
    pub budget_seconds: f64,
    /// Hard effort budget (infinite when none).
    pub budget_effort: f64,
    /// Switch sublists on a failed continuation.
    pub switch: bool,
    /// Go on in the current list when no other list is selectable.
    pub stay: bool,
    /// Gain model.
    pub gain: Gain,
    /// When gain is credited.
    pub credit_on: CreditOn,
    /// Costs.
    pub costs: Costs,
    /// Charge query and SERP look.
    pub charge_query: bool,
}

impl UserProfile {
    /// A profile with every default and the given name.
    pub fn named(name: impl Into<String>) -> Self {
        UserProfile {
            name: name.into(),
            queries: Queries::default(),
            continuation: None,
            page_continuation: one(),
            clicks: Cascade::default(),
            click_model: None,
            satisfied: SatisfiedEnds::Session,
            stopping: Vec::new(),
            session_stopping: Vec::new(),
            budget: Budget::default(),
            sublists: SublistUse::default(),
            gain: GainKind::default(),
            effort: ActionParams::default(),
            time: ActionParams::default(),
            charge_query: true,
            away: None,
            duration: None,
            speed: None,
            lateness: None,
        }
    }

    /// The continuation model in effect (the default when none is given).
    pub fn continuation_model(&self) -> ContinuationModel {
        match &self.continuation {
            Some(c) => c.clone(),
            None if self.click_model.is_some() => ContinuationModel::ClickModel,
            // "Stop after 3 non-relevant" means the rule decides: a hidden RBP draw would end
            // sessions early and change the answer silently (issue 26: 0.73 instead of 1.76).
            None if !self.stopping.is_empty() => ContinuationModel::Rbp { p: Param::Fixed(1.0) },
            None => ContinuationModel::Rbp { p: Param::Fixed(0.8) },
        }
    }

    /// Checks every component; errors name the key under `key` (e.g. `profiles[0]`).
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        let k = |s: &str| format!("{key}.{s}");
        if self.name.trim().is_empty() {
            return Err(Error::config(context, k("name"), "must not be empty"));
        }
        if self.queries.max == Some(0) {
            return Err(Error::config(context, k("queries.max"), "must be at least 1 (omit it to issue every variant)"));
        }
        let cont = self.continuation_model();
        cont.validate(context, &k("continuation"))?;
        if cont == ContinuationModel::ClickModel && self.click_model.is_none() {
            return Err(Error::config(context, k("continuation.model"), "`click_model` continuation needs a `click_model = { file = ... }` in the profile"));
        }
        self.page_continuation.validate(context, &k("page_continuation"), Support::Probability)?;
        self.clicks.validate(context, &k("clicks"))?;
        if let Some(cm) = &self.click_model {
            if cm.file.as_os_str().is_empty() {
                return Err(Error::config(context, k("click_model.file"), "must not be empty"));
            }
            if let Unseen::Values { attractiveness, satisfaction } = cm.unseen {
                crate::error::check_probability(context, &k("click_model.unseen.attractiveness"), attractiveness)?;
                crate::error::check_probability(context, &k("click_model.unseen.satisfaction"), satisfaction)?;
            }
        }
        for (i, r) in self.stopping.iter().enumerate() {
            r.validate(context, &format!("{key}.stopping[{i}]"))?;
        }
        for (i, r) in self.session_stopping.iter().enumerate() {
            r.validate(context, &format!("{key}.session_stopping[{i}]"))?;
        }
        if let Some(s) = &self.budget.seconds {
            s.validate(context, &k("budget.seconds"), Support::NonNegative)?;
        }
        if let Some(e) = &self.budget.effort {
            e.validate(context, &k("budget.effort"), Support::NonNegative)?;
        }
        crate::limits::check_non_negative(context, &k("sublists.scale"), self.sublists.scale)?;
        crate::limits::check_non_negative(context, &k("sublists.smoothing"), self.sublists.smoothing)?;
        self.gain.validate(context, &k("gain"))?;
        self.effort.validate(context, &k("effort"))?;
        self.time.validate(context, &k("time"))
    }

    /// True when some parameter is a distribution over users.
    pub fn varies(&self) -> bool {
        self.continuation_model().varies()
            || self.page_continuation.fixed().is_none()
            || self.clicks.varies()
            || self.stopping.iter().chain(&self.session_stopping).any(|r| r.varies())
            || self.budget.seconds.as_ref().is_some_and(|p| p.fixed().is_none())
            || self.budget.effort.as_ref().is_some_and(|p| p.fixed().is_none())
            || self.gain.varies()
            || self.effort.varies()
            || self.time.varies()
    }

    /// The user `user` of this population: every distribution drawn (keyed by `seed`, the
    /// parameter's key path and `user`; see [`super::param`]).
    pub fn resolve(&self, seed: u64, user: u64) -> ResolvedUser {
        let mut ids = 0;
        let stopping = self.stopping.iter().enumerate().map(|(i, r)| r.resolve(seed, user, &format!("stopping[{i}]"), &mut ids)).collect();
        let session_stopping =
            self.session_stopping.iter().enumerate().map(|(i, r)| r.resolve(seed, user, &format!("session_stopping[{i}]"), &mut ids)).collect();
        let value = |p: &Option<Param>, path: &str| p.as_ref().map_or(f64::INFINITY, |p| p.value(seed, path_id(path), user, Support::NonNegative));
        ResolvedUser {
            max_queries: self.queries.max.unwrap_or(usize::MAX),
            continuation: self.continuation_model().resolve(seed, user, &ContPaths::new("continuation")),
            page_continuation: self.page_continuation.value(seed, path_id("page_continuation"), user, Support::Probability),
            grades: self.clicks.resolve(seed, user, "clicks"),
            click_model: self.click_model.is_some(),
            satisfied: self.satisfied,
            stopping,
            session_stopping,
            budget_seconds: value(&self.budget.seconds, "budget.seconds"),
            budget_effort: value(&self.budget.effort, "budget.effort"),
            switch: self.sublists.switch,
            stay: self.sublists.no_alternative == NoAlternative::Stay,
            gain: self.gain.resolve(seed, user, "gain"),
            credit_on: self.gain.credit_on(),
            costs: Costs {
                effort: self.effort.resolve(ActionTable::DEFAULT_EFFORT, seed, user, "effort"),
                time: self.time.resolve(ActionTable::DEFAULT_TIME, seed, user, "time"),
            },
            charge_query: self.charge_query,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::user::Dist;

    /// Issue 26 item 6, the documented choice (docs/scenarios.md): stopping rules without a
    /// continuation leave the stopping to the rules (continuation 1); without rules the default
    /// stays RBP 0.8; a given continuation is kept.
    #[test]
    fn stopping_rules_alone_decide_without_a_continuation() {
        let with_rules: UserProfile = toml::from_str("name = 'u'\nstopping = [{ rule = 'contiguous_nonrelevant', n = 3 }]\n").unwrap();
        assert_eq!(with_rules.continuation_model(), ContinuationModel::Rbp { p: Param::Fixed(1.0) });
        assert_eq!(UserProfile::named("u").continuation_model(), ContinuationModel::Rbp { p: Param::Fixed(0.8) });
        let given: UserProfile =
            toml::from_str("name = 'u'\ncontinuation = { model = 'rbp', p = 0.5 }\nstopping = [{ rule = 'contiguous_nonrelevant', n = 3 }]\n").unwrap();
        assert_eq!(given.continuation_model(), ContinuationModel::Rbp { p: Param::Fixed(0.5) });
    }

    #[test]
    fn partial_cost_tables_keep_defaults() {
        let p: UserProfile = toml::from_str("name = 'u'\n[time]\nread_document = 30.0\n[effort]\nread_document = 2.0\n").unwrap();
        let u = p.resolve(1, 0);
        assert_eq!(u.costs.time.read_document, 30.0);
        assert_eq!(u.costs.time.issue_query, 15.1);
        assert_eq!((u.costs.effort.read_document, u.costs.effort.examine_snippet), (2.0, 1.0));
        assert!(toml::from_str::<UserProfile>("name = 'u'\n[time]\nread_doc = 3.0\n").unwrap_err().to_string().contains("read_doc"));
    }

    #[test]
    fn defaults_and_populations_resolve() {
        let p = UserProfile::named("u");
        assert!(!p.varies());
        let u = p.resolve(1, 0);
        assert_eq!(u.continuation, Cont::Rbp(0.8));
        assert_eq!((u.budget_seconds, u.max_queries), (f64::INFINITY, usize::MAX));
        let mut q = p.clone();
        q.continuation = Some(ContinuationModel::Rbp { p: Param::Dist(Dist::Beta { a: 8.0, b: 2.0 }) });
        assert!(q.varies());
        let (a, b) = (q.resolve(1, 0).continuation, q.resolve(1, 1).continuation);
        assert_ne!(a, b);
        assert_eq!(a, q.resolve(1, 0).continuation, "the same user draws the same value");
        // A click-model continuation without a click model is refused.
        let mut r = p.clone();
        r.continuation = Some(ContinuationModel::ClickModel);
        assert!(r.validate("s.toml", "profiles[0]").unwrap_err().to_string().contains("profiles[0].continuation.model"));
    }
}
