//! Stopping rules: checked after every examined result.

use crate::error::{check_non_negative, Error, Result};
use serde::{Deserialize, Serialize};

/// What a stopping rule can see of the walk so far.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WalkState {
    /// Results examined.
    pub depth: usize,
    /// Non-relevant results examined in total (SS2).
    pub nonrelevant_seen: usize,
    /// Non-relevant results examined since the last relevant one (SS3).
    pub contiguous_nonrelevant: usize,
    /// Relevant documents found (read and relevant).
    pub relevant_found: usize,
    /// Effort spent.
    pub effort: f64,
    /// Time spent, in seconds.
    pub time: f64,
}

/// Decides whether the user stops now.
pub trait StoppingRule {
    /// True when the user stops after the current result.
    fn should_stop(&self, state: &WalkState) -> bool;
}

/// The stopping rules of the scenario schema. Several rules combine with "or".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
pub enum StoppingRuleKind {
    /// SS1: stop after `n` results.
    FixedDepth {
        /// Depth.
        n: usize,
    },
    /// SS2: stop after `n` non-relevant results in total.
    TotalNonrelevant {
        /// Threshold.
        n: usize,
    },
    /// SS3: stop after `n` non-relevant results in a row.
    ContiguousNonrelevant {
        /// Threshold.
        n: usize,
    },
    /// Stop once `k` relevant documents are found.
    Satisfaction {
        /// Relevant documents wanted.
        k: usize,
    },
    /// Stop once effort reaches `budget`.
    EffortBudget {
        /// Effort budget.
        budget: f64,
    },
    /// Stop once time reaches `seconds`.
    TimeBudget {
        /// Time budget in seconds.
        seconds: f64,
    },
}

impl StoppingRule for StoppingRuleKind {
    #[inline]
    fn should_stop(&self, s: &WalkState) -> bool {
        match *self {
            StoppingRuleKind::FixedDepth { n } => s.depth >= n,
            StoppingRuleKind::TotalNonrelevant { n } => s.nonrelevant_seen >= n,
            StoppingRuleKind::ContiguousNonrelevant { n } => s.contiguous_nonrelevant >= n,
            StoppingRuleKind::Satisfaction { k } => s.relevant_found >= k,
            StoppingRuleKind::EffortBudget { budget } => s.effort >= budget,
            StoppingRuleKind::TimeBudget { seconds } => s.time >= seconds,
        }
    }
}

impl StoppingRuleKind {
    /// Checks parameters; errors name `key`.
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        match *self {
            StoppingRuleKind::FixedDepth { n }
            | StoppingRuleKind::TotalNonrelevant { n }
            | StoppingRuleKind::ContiguousNonrelevant { n }
                if n == 0 =>
            {
                Err(Error::config(context, format!("{key}.n"), "must be at least 1"))
            }
            StoppingRuleKind::Satisfaction { k: 0 } => Err(Error::config(context, format!("{key}.k"), "must be at least 1")),
            StoppingRuleKind::EffortBudget { budget } => check_non_negative(context, &format!("{key}.budget"), budget),
            StoppingRuleKind::TimeBudget { seconds } => check_non_negative(context, &format!("{key}.seconds"), seconds),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_fire_at_their_thresholds() {
        let s = WalkState { depth: 5, nonrelevant_seen: 3, contiguous_nonrelevant: 2, relevant_found: 1, effort: 4.0, time: 9.0 };
        assert!(StoppingRuleKind::FixedDepth { n: 5 }.should_stop(&s));
        assert!(!StoppingRuleKind::FixedDepth { n: 6 }.should_stop(&s));
        assert!(StoppingRuleKind::TotalNonrelevant { n: 3 }.should_stop(&s));
        assert!(!StoppingRuleKind::ContiguousNonrelevant { n: 3 }.should_stop(&s));
        assert!(StoppingRuleKind::Satisfaction { k: 1 }.should_stop(&s));
        assert!(!StoppingRuleKind::EffortBudget { budget: 4.5 }.should_stop(&s));
        assert!(StoppingRuleKind::TimeBudget { seconds: 9.0 }.should_stop(&s));
    }
}
