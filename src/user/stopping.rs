//! Stopping rules: checked at the start of every query and after every examined result.
//!
//! A profile lists rules for the current query (`stopping`, the query is abandoned and the next
//! query variant issued) and for the whole session (`session_stopping`). Rules in a list
//! combine with "or"; `{ rule = "any", of = [...] }` and `{ rule = "all", of = [...] }` nest
//! "or" and "and". The set follows SimIIR's decision makers (Maxwell et al. 2015; the SimIIR
//! framework): fixed depth (SS1), total non-relevant (SS2, "frustration"), contiguous
//! non-relevant (SS3), satisfaction, time limits, time since the last relevant find,
//! information-foraging patch leaving (rate of gain below a threshold), INST (Moffat et al.),
//! RBP and random stopping.
//!
//! **What counts as non-relevant** (`basis`): `"grade"` counts examined results whose
//! judged grade is 0 or below (the foundation's reading); `"snippet"` counts snippets the
//! *simulated user* judged non-relevant, i.e. did not click (Maxwell et al. and SimIIR).

use super::param::{path_id, Param, Support};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// What a stopping rule can see of the walk so far, for one scope (the query or the session).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WalkState {
    /// Results examined.
    pub depth: usize,
    /// Examined results with grade <= 0 (SS2 on judged relevance).
    pub nonrelevant_seen: usize,
    /// Examined results with grade <= 0 since the last relevant one (SS3 on judged relevance).
    pub contiguous_nonrelevant: usize,
    /// Snippets the user did not click (SS2 on perceived relevance).
    pub unclicked_seen: usize,
    /// Snippets not clicked since the last click (SS3 on perceived relevance).
    pub contiguous_unclicked: usize,
    /// Relevant documents found: credited with gain (read, or marked; see the gain model).
    pub relevant_found: usize,
    /// Relevant results available: in the current list (query scope) or the topic (session).
    pub relevant_available: usize,
    /// Gain collected.
    pub gain: f64,
    /// Effort spent.
    pub effort: f64,
    /// Time spent, in seconds.
    pub time: f64,
    /// Time (in this scope's clock) of the last relevant document found (marked or credited).
    pub last_found_time: f64,
    /// Time of the last clicked snippet.
    pub last_click_time: f64,
}

/// Non-relevant by the judged grade or by the user's own judgement of the snippet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Judged grade <= 0.
    #[default]
    Grade,
    /// Snippet not clicked.
    Snippet,
}

/// The event that resets `time_since_relevant`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelevantEvent {
    /// A relevant document found (credited).
    #[default]
    Found,
    /// A snippet clicked.
    Click,
}

/// Decides whether the user stops now. `u` is a uniform number in [0, 1) for stochastic
/// rules, drawn afresh for every rule and decision.
pub trait StoppingRule {
    /// True when the user stops after the current result.
    fn should_stop(&self, state: &WalkState, u: &mut dyn FnMut(usize) -> f64) -> bool;
}

/// The stopping rules of the scenario schema. Thresholds may be distributions over users.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
pub enum StoppingRuleKind {
    /// SS1: stop after `n` results.
    FixedDepth {
        /// Depth.
        n: Param,
    },
    /// SS2 ("frustration"): stop after `n` non-relevant results in total.
    TotalNonrelevant {
        /// Threshold.
        n: Param,
        /// Judged grade (default) or the user's snippet judgement.
        #[serde(default)]
        basis: Basis,
    },
    /// SS3: stop after `n` non-relevant results in a row.
    ContiguousNonrelevant {
        /// Threshold.
        n: Param,
        /// Judged grade (default) or the user's snippet judgement.
        #[serde(default)]
        basis: Basis,
    },
    /// Stop once `k` relevant documents are found.
    Satisfaction {
        /// Relevant documents wanted.
        k: Param,
    },
    /// Stop once every relevant result of the list (query scope) or topic (session scope) is
    /// found (He et al.'s find-all task).
    FindAll,
    /// Stop once effort reaches `budget` (checked after each result; the hard `budget` of a
    /// profile never lets an action exceed it instead).
    EffortBudget {
        /// Effort budget.
        budget: Param,
    },
    /// Stop once time reaches `seconds` (checked after each result).
    TimeBudget {
        /// Time budget in seconds.
        seconds: Param,
    },
    /// Stop once `seconds` have passed since the last relevant find (or click), or since the
    /// start of the scope (SimIIR's time-since-relevancy rule).
    TimeSinceRelevant {
        /// Patience in seconds.
        seconds: Param,
        /// Which event resets the clock.
        #[serde(default)]
        on: RelevantEvent,
    },
    /// Information foraging: leave the patch once at least `min_depth` results are examined and
    /// the rate of gain so far (gain / seconds in this scope) is below `rate`.
    Ift {
        /// Threshold rate of gain, gain per second.
        rate: Param,
        /// Results to examine before the rate is trusted (default 1).
        #[serde(default = "one")]
        min_depth: Param,
    },
    /// INST (Moffat et al.): after examining result i with gain R_i so far, go on with
    /// C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - R_i; otherwise stop.
    Inst {
        /// Expected relevant documents T.
        t: Param,
    },
    /// RBP: after each result, stop with probability 1 - p.
    Rbp {
        /// Persistence.
        p: Param,
    },
    /// Random: after each result, stop with probability `p`.
    Random {
        /// Stopping probability.
        p: Param,
    },
    /// Stop when any of the rules says so ("or").
    Any {
        /// The rules.
        of: Vec<StoppingRuleKind>,
    },
    /// Stop only when all of the rules say so ("and").
    All {
        /// The rules.
        of: Vec<StoppingRuleKind>,
    },
}

fn one() -> Param {
    Param::Fixed(1.0)
}

/// A stopping rule resolved for one user: what the walk evaluates.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// SS1.
    FixedDepth(usize),
    /// SS2.
    TotalNonrelevant(usize, Basis),
    /// SS3.
    ContiguousNonrelevant(usize, Basis),
    /// Satisfaction.
    Satisfaction(usize),
    /// Find all.
    FindAll,
    /// Soft effort budget.
    EffortBudget(f64),
    /// Soft time budget.
    TimeBudget(f64),
    /// Time since the last relevant event.
    TimeSinceRelevant(f64, RelevantEvent),
    /// Rate of gain below `rate` after `min_depth` results.
    Ift {
        /// Rate.
        rate: f64,
        /// Minimum depth.
        min_depth: usize,
    },
    /// INST with T; `id` numbers the rule's random draws.
    Inst(f64, usize),
    /// RBP with p; `id` numbers the draws.
    Rbp(f64, usize),
    /// Random with p; `id` numbers the draws.
    Random(f64, usize),
    /// Or.
    Any(Vec<Rule>),
    /// And.
    All(Vec<Rule>),
}

impl Rule {
    /// [`StoppingRule::should_stop`] of a rule that is not `Any`/`All` (`None` for those).
    /// Always inlined, so the walk's common case (one leaf rule, e.g. SS3) costs a compare and
    /// no call; the combinators recurse through [`StoppingRule::should_stop`].
    #[inline(always)]
    pub fn leaf_stop(&self, s: &WalkState, u: &mut dyn FnMut(usize) -> f64) -> Option<bool> {
        Some(match self {
            Rule::FixedDepth(n) => s.depth >= *n,
            Rule::TotalNonrelevant(n, Basis::Grade) => s.nonrelevant_seen >= *n,
            Rule::TotalNonrelevant(n, Basis::Snippet) => s.unclicked_seen >= *n,
            Rule::ContiguousNonrelevant(n, Basis::Grade) => s.contiguous_nonrelevant >= *n,
            Rule::ContiguousNonrelevant(n, Basis::Snippet) => s.contiguous_unclicked >= *n,
            Rule::Satisfaction(k) => s.relevant_found >= *k,
            Rule::FindAll => s.relevant_found >= s.relevant_available,
            Rule::Any(_) | Rule::All(_) => return None,
            // Out of line: inlined, the compiler computed the IFT rate's division and the
            // random rules' hash for every leaf rule before the match (7 % of the Maxwell
            // sweep's walk went to the division of an SS3 rule that never uses it).
            other => other.costly_leaf_stop(s, u),
        })
    }

    /// The leaf rules that compute (times, rates, random draws): see [`Rule::leaf_stop`].
    #[inline(never)]
    fn costly_leaf_stop(&self, s: &WalkState, u: &mut dyn FnMut(usize) -> f64) -> bool {
        match self {
            Rule::EffortBudget(b) => s.effort >= *b,
            Rule::TimeBudget(t) => s.time >= *t,
            Rule::TimeSinceRelevant(secs, on) => {
                let last = match on {
                    RelevantEvent::Found => s.last_found_time,
                    RelevantEvent::Click => s.last_click_time,
                };
                s.time - last >= *secs
            }
            Rule::Ift { rate, min_depth } => s.depth >= (*min_depth).max(1) && s.time > 0.0 && s.gain / s.time < *rate,
            Rule::Inst(t, id) => {
                if s.depth == 0 {
                    return false;
                }
                let i = s.depth as f64;
                let ti = t - s.gain;
                let x = i + t + ti;
                let c = if x <= 1.0 { 0.0 } else { ((x - 1.0) / x).powi(2) };
                u(*id) >= c
            }
            Rule::Rbp(p, id) => s.depth > 0 && u(*id) >= *p,
            Rule::Random(p, id) => s.depth > 0 && u(*id) < *p,
            Rule::FixedDepth(_)
            | Rule::TotalNonrelevant(..)
            | Rule::ContiguousNonrelevant(..)
            | Rule::Satisfaction(_)
            | Rule::FindAll
            | Rule::Any(_)
            | Rule::All(_) => unreachable!("answered by Rule::leaf_stop"),
        }
    }
}

impl StoppingRule for Rule {
    #[inline]
    fn should_stop(&self, s: &WalkState, u: &mut dyn FnMut(usize) -> f64) -> bool {
        match self {
            Rule::Any(of) => of.iter().any(|r| r.should_stop(s, u)),
            Rule::All(of) => !of.is_empty() && of.iter().all(|r| r.should_stop(s, u)),
            // `leaf_stop` answers every other rule.
            leaf => leaf.leaf_stop(s, u).unwrap_or(false),
        }
    }
}

impl StoppingRuleKind {
    /// Checks parameters; errors name `key`.
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        let k = |n: &str| format!("{key}.{n}");
        match self {
            StoppingRuleKind::FixedDepth { n } | StoppingRuleKind::TotalNonrelevant { n, .. } | StoppingRuleKind::ContiguousNonrelevant { n, .. } => {
                n.validate(context, &k("n"), Support::Count)
            }
            StoppingRuleKind::Satisfaction { k: x } => x.validate(context, &k("k"), Support::Count),
            StoppingRuleKind::FindAll => Ok(()),
            StoppingRuleKind::EffortBudget { budget } => budget.validate(context, &k("budget"), Support::NonNegative),
            StoppingRuleKind::TimeBudget { seconds } | StoppingRuleKind::TimeSinceRelevant { seconds, .. } => {
                seconds.validate(context, &k("seconds"), Support::NonNegative)
            }
            StoppingRuleKind::Ift { rate, min_depth } => {
                rate.validate(context, &k("rate"), Support::NonNegative)?;
                min_depth.validate(context, &k("min_depth"), Support::Count)
            }
            StoppingRuleKind::Inst { t } => {
                t.validate(context, &k("t"), Support::NonNegative)?;
                if t.fixed() == Some(0.0) {
                    return Err(Error::config(context, k("t"), "must be > 0"));
                }
                Ok(())
            }
            StoppingRuleKind::Rbp { p } | StoppingRuleKind::Random { p } => p.validate(context, &k("p"), Support::Probability),
            StoppingRuleKind::Any { of } | StoppingRuleKind::All { of } => {
                if of.is_empty() {
                    return Err(Error::config(context, k("of"), "must list at least one rule"));
                }
                of.iter().enumerate().try_for_each(|(i, r)| r.validate(context, &format!("{key}.of[{i}]")))
            }
        }
    }

    /// The rule for user `user`; `path` is the rule's key path (e.g. `stopping[0]`), `next_id`
    /// numbers the stochastic rules' draws.
    pub fn resolve(&self, seed: u64, user: u64, path: &str, next_id: &mut usize) -> Rule {
        let v = |p: &Param, name: &str, s: Support| p.value(seed, path_id(&format!("{path}.{name}")), user, s);
        let mut id = || {
            *next_id += 1;
            *next_id - 1
        };
        match self {
            StoppingRuleKind::FixedDepth { n } => Rule::FixedDepth(v(n, "n", Support::Count) as usize),
            StoppingRuleKind::TotalNonrelevant { n, basis } => Rule::TotalNonrelevant(v(n, "n", Support::Count) as usize, *basis),
            StoppingRuleKind::ContiguousNonrelevant { n, basis } => Rule::ContiguousNonrelevant(v(n, "n", Support::Count) as usize, *basis),
            StoppingRuleKind::Satisfaction { k } => Rule::Satisfaction(v(k, "k", Support::Count) as usize),
            StoppingRuleKind::FindAll => Rule::FindAll,
            StoppingRuleKind::EffortBudget { budget } => Rule::EffortBudget(v(budget, "budget", Support::NonNegative)),
            StoppingRuleKind::TimeBudget { seconds } => Rule::TimeBudget(v(seconds, "seconds", Support::NonNegative)),
            StoppingRuleKind::TimeSinceRelevant { seconds, on } => Rule::TimeSinceRelevant(v(seconds, "seconds", Support::NonNegative), *on),
            StoppingRuleKind::Ift { rate, min_depth } => {
                Rule::Ift { rate: v(rate, "rate", Support::NonNegative), min_depth: v(min_depth, "min_depth", Support::Count) as usize }
            }
            StoppingRuleKind::Inst { t } => Rule::Inst(v(t, "t", Support::NonNegative), id()),
            StoppingRuleKind::Rbp { p } => Rule::Rbp(v(p, "p", Support::Probability), id()),
            StoppingRuleKind::Random { p } => Rule::Random(v(p, "p", Support::Probability), id()),
            StoppingRuleKind::Any { of } => Rule::Any(of.iter().enumerate().map(|(i, r)| r.resolve(seed, user, &format!("{path}.of[{i}]"), next_id)).collect()),
            StoppingRuleKind::All { of } => Rule::All(of.iter().enumerate().map(|(i, r)| r.resolve(seed, user, &format!("{path}.of[{i}]"), next_id)).collect()),
        }
    }

    /// True when some threshold is a distribution over users.
    pub fn varies(&self) -> bool {
        let d = |p: &Param| p.fixed().is_none();
        match self {
            StoppingRuleKind::FixedDepth { n } | StoppingRuleKind::TotalNonrelevant { n, .. } | StoppingRuleKind::ContiguousNonrelevant { n, .. } => d(n),
            StoppingRuleKind::Satisfaction { k } => d(k),
            StoppingRuleKind::FindAll => false,
            StoppingRuleKind::EffortBudget { budget } => d(budget),
            StoppingRuleKind::TimeBudget { seconds } | StoppingRuleKind::TimeSinceRelevant { seconds, .. } => d(seconds),
            StoppingRuleKind::Ift { rate, min_depth } => d(rate) || d(min_depth),
            StoppingRuleKind::Inst { t } => d(t),
            StoppingRuleKind::Rbp { p } | StoppingRuleKind::Random { p } => d(p),
            StoppingRuleKind::Any { of } | StoppingRuleKind::All { of } => of.iter().any(|r| r.varies()),
        }
    }

    /// Short name (SS1, SS2, SS3 for the paper's strategies; the schema name otherwise).
    pub fn short_name(&self) -> &'static str {
        match self {
            StoppingRuleKind::FixedDepth { .. } => "SS1",
            StoppingRuleKind::TotalNonrelevant { .. } => "SS2",
            StoppingRuleKind::ContiguousNonrelevant { .. } => "SS3",
            StoppingRuleKind::Satisfaction { .. } => "satisfaction",
            StoppingRuleKind::FindAll => "find_all",
            StoppingRuleKind::EffortBudget { .. } => "effort_budget",
            StoppingRuleKind::TimeBudget { .. } => "time_budget",
            StoppingRuleKind::TimeSinceRelevant { .. } => "time_since_relevant",
            StoppingRuleKind::Ift { .. } => "ift",
            StoppingRuleKind::Inst { .. } => "inst",
            StoppingRuleKind::Rbp { .. } => "rbp",
            StoppingRuleKind::Random { .. } => "random",
            StoppingRuleKind::Any { .. } => "any",
            StoppingRuleKind::All { .. } => "all",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(r: &StoppingRuleKind) -> Rule {
        r.resolve(1, 0, "stopping[0]", &mut 0)
    }

    #[test]
    fn rules_fire_at_their_thresholds() {
        let s = WalkState {
            depth: 5,
            nonrelevant_seen: 3,
            contiguous_nonrelevant: 2,
            unclicked_seen: 4,
            contiguous_unclicked: 1,
            relevant_found: 1,
            relevant_available: 2,
            gain: 1.0,
            effort: 4.0,
            time: 9.0,
            last_found_time: 2.0,
            last_click_time: 5.0,
        };
        let never = &mut |_: usize| -> f64 { panic!("deterministic rules draw nothing") };
        let n = |x: f64| Param::Fixed(x);
        let check = |r: StoppingRuleKind, expect: bool| assert_eq!(resolve(&r).should_stop(&s, &mut |_| 0.5), expect, "{r:?}");
        check(StoppingRuleKind::FixedDepth { n: n(5.0) }, true);
        check(StoppingRuleKind::FixedDepth { n: n(6.0) }, false);
        check(StoppingRuleKind::TotalNonrelevant { n: n(3.0), basis: Basis::Grade }, true);
        check(StoppingRuleKind::TotalNonrelevant { n: n(5.0), basis: Basis::Snippet }, false);
        check(StoppingRuleKind::TotalNonrelevant { n: n(4.0), basis: Basis::Snippet }, true);
        check(StoppingRuleKind::ContiguousNonrelevant { n: n(3.0), basis: Basis::Grade }, false);
        check(StoppingRuleKind::Satisfaction { k: n(1.0) }, true);
        check(StoppingRuleKind::FindAll, false);
        check(StoppingRuleKind::EffortBudget { budget: n(4.5) }, false);
        check(StoppingRuleKind::TimeBudget { seconds: n(9.0) }, true);
        // 9 - 2 = 7 s since the last find, 4 s since the last click.
        check(StoppingRuleKind::TimeSinceRelevant { seconds: n(7.0), on: RelevantEvent::Found }, true);
        check(StoppingRuleKind::TimeSinceRelevant { seconds: n(7.0), on: RelevantEvent::Click }, false);
        // Rate 1 / 9 = 0.111 gain per second.
        check(StoppingRuleKind::Ift { rate: n(0.12), min_depth: n(3.0) }, true);
        check(StoppingRuleKind::Ift { rate: n(0.11), min_depth: n(3.0) }, false);
        check(StoppingRuleKind::Ift { rate: n(0.12), min_depth: n(6.0) }, false);
        let any = StoppingRuleKind::Any { of: vec![StoppingRuleKind::FixedDepth { n: n(9.0) }, StoppingRuleKind::Satisfaction { k: n(1.0) }] };
        let all = StoppingRuleKind::All { of: vec![StoppingRuleKind::FixedDepth { n: n(9.0) }, StoppingRuleKind::Satisfaction { k: n(1.0) }] };
        assert!(resolve(&any).should_stop(&s, never));
        assert!(!resolve(&all).should_stop(&s, never));
    }

    #[test]
    fn stochastic_rules_use_their_draws() {
        let s = WalkState { depth: 1, ..Default::default() };
        let rbp = resolve(&StoppingRuleKind::Rbp { p: Param::Fixed(0.8) });
        assert!(!rbp.should_stop(&s, &mut |_| 0.79) && rbp.should_stop(&s, &mut |_| 0.8));
        let random = resolve(&StoppingRuleKind::Random { p: Param::Fixed(0.25) });
        assert!(random.should_stop(&s, &mut |_| 0.2) && !random.should_stop(&s, &mut |_| 0.3));
        // INST with T = 1, no gain: C(1) = ((1 + 1 + 1 - 1) / 3)^2 = 4/9 (Moffat et al. Eq. for C(i)).
        let inst = resolve(&StoppingRuleKind::Inst { t: Param::Fixed(1.0) });
        assert!(!inst.should_stop(&s, &mut |_| 0.44) && inst.should_stop(&s, &mut |_| 0.45));
        // Nothing stochastic fires before the first result.
        assert!(!rbp.should_stop(&WalkState::default(), &mut |_| 0.99));
        // Draw ids number the stochastic rules in order.
        let mut next = 0;
        let both = StoppingRuleKind::Any { of: vec![StoppingRuleKind::Rbp { p: Param::Fixed(0.5) }, StoppingRuleKind::Random { p: Param::Fixed(0.5) }] };
        assert_eq!(both.resolve(0, 0, "s", &mut next), Rule::Any(vec![Rule::Rbp(0.5, 0), Rule::Random(0.5, 1)]));
    }

    #[test]
    fn validation_names_nested_keys() {
        let r = StoppingRuleKind::All { of: vec![StoppingRuleKind::FixedDepth { n: Param::Fixed(0.0) }] };
        let e = r.validate("s.toml", "profiles[0].stopping[1]").unwrap_err().to_string();
        assert!(e.contains("profiles[0].stopping[1].of[0].n"), "{e}");
        let e = StoppingRuleKind::Any { of: vec![] }.validate("s.toml", "x").unwrap_err().to_string();
        assert!(e.contains("x.of"), "{e}");
    }
}
