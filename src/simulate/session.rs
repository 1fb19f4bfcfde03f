//! One simulated session of a cascade user on one SERP: the hot loop.

use crate::collection::{Serp, Topic};
use crate::user::{Action, ClickBehaviour, Continuation, CostModel, Costs, GainModel, StoppingRule, UserProfile, WalkState};
use rand::Rng;

/// A SERP flattened for simulation: grades and subtopic masks by rank.
#[derive(Debug, Clone, PartialEq)]
pub struct SerpView {
    /// Grade per rank.
    pub grades: Vec<i32>,
    /// Subtopics each document is relevant to, as a bit mask, per rank.
    pub subtopics: Vec<u64>,
    /// Results per page.
    pub page_size: usize,
}

impl SerpView {
    /// Flattens `serp` of `topic`.
    pub fn new(topic: &Topic, serp: &Serp, page_size: usize) -> Self {
        let docs = serp.docs.iter().map(|&d| &topic.documents[d as usize]);
        SerpView {
            grades: docs.clone().map(|d| d.grade).collect(),
            subtopics: docs
                .map(|d| d.subtopics.iter().filter(|s| s.grade > 0).fold(0u64, |m, s| m | (1u64 << s.subtopic)))
                .collect(),
            page_size: page_size.max(1),
        }
    }

    /// A SERP of plain grades (no subtopics).
    pub fn from_grades(grades: Vec<i32>, page_size: usize) -> Self {
        let subtopics = vec![0; grades.len()];
        SerpView { grades, subtopics, page_size: page_size.max(1) }
    }
}

/// What one simulated session did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Outcome {
    /// Effort spent (weighted actions).
    pub effort: f64,
    /// Time spent in seconds.
    pub time: f64,
    /// Gain collected.
    pub gain: f64,
    /// Results examined.
    pub depth: u32,
    /// Documents clicked (read).
    pub clicks: u32,
    /// Relevant documents read.
    pub relevant_found: u32,
}

/// A Bernoulli draw that consumes no randomness when `p` is 0 or 1.
#[inline]
pub fn bernoulli<R: Rng + ?Sized>(p: f64, rng: &mut R) -> bool {
    if p >= 1.0 {
        true
    } else if p <= 0.0 {
        false
    } else {
        rng.random::<f64>() < p
    }
}

/// Simulates one session: query, then examine results top-down, clicking, reading, marking,
/// paginating, until a stop after a click, a stopping rule, the continuation draw or the
/// end of the list.
#[inline]
pub fn simulate_session<R: Rng + ?Sized>(serp: &SerpView, profile: &UserProfile, costs: &Costs, rng: &mut R) -> Outcome {
    let mut out = Outcome::default();
    let mut st = WalkState::default();
    let charge = |a: Action, st: &mut WalkState| {
        let (e, t) = costs.charge(a);
        st.effort += e;
        st.time += t;
    };
    if profile.charge_query {
        charge(Action::IssueQuery, &mut st);
        charge(Action::SerpLook, &mut st);
    }
    let mut covered = 0u64;
    let n = serp.grades.len();
    for r in 0..n {
        if r > 0 && r % serp.page_size == 0 {
            charge(Action::Paginate, &mut st);
        }
        charge(Action::ExamineSnippet, &mut st);
        st.depth = r + 1;
        let grade = serp.grades[r];
        let g = grade.max(0) as usize;
        if grade > 0 {
            st.contiguous_nonrelevant = 0;
        } else {
            st.nonrelevant_seen += 1;
            st.contiguous_nonrelevant += 1;
        }
        if bernoulli(profile.clicks.click_prob(g), rng) {
            out.clicks += 1;
            charge(Action::ReadDocument, &mut st);
            out.gain += profile.gain.credit(grade, serp.subtopics[r], &mut covered);
            if grade > 0 {
                st.relevant_found += 1;
            }
            if bernoulli(profile.clicks.mark_prob(g), rng) {
                charge(Action::MarkRelevant, &mut st);
            }
            if bernoulli(profile.clicks.stop_prob(g), rng) {
                break;
            }
        }
        if profile.stopping.iter().any(|rule| rule.should_stop(&st)) {
            break;
        }
        if !bernoulli(profile.continuation.continue_prob(r + 1), rng) {
            break;
        }
    }
    out.effort = st.effort;
    out.time = st.time;
    out.depth = st.depth as u32;
    out.relevant_found = st.relevant_found as u32;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::rbp;
    use crate::user::{Cascade, ContinuationModel, StoppingRuleKind};

    fn run_many(serp: &SerpView, profile: &UserProfile, n: usize) -> Vec<Outcome> {
        let costs = profile.costs();
        (0..n)
            .map(|i| simulate_session(serp, profile, &costs, &mut crate::rng::stream(11, &[i as u64])))
            .collect()
    }

    fn mean_se(xs: impl Iterator<Item = f64>) -> (f64, f64) {
        let v: Vec<f64> = xs.collect();
        (crate::stats::mean(&v), crate::stats::sd(&v) / (v.len() as f64).sqrt())
    }

    #[test]
    fn mean_gain_matches_closed_form_rbp() {
        let grades = vec![1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0];
        let p = 0.8;
        let mut profile = UserProfile::named("rbp");
        profile.continuation = ContinuationModel::Rbp { p };
        profile.clicks = Cascade { click: vec![0.0, 1.0], stop: vec![0.0], mark: vec![0.0, 1.0] };
        let serp = SerpView::from_grades(grades.clone(), 10);
        let outcomes = run_many(&serp, &profile, 100_000);
        let (m, se) = mean_se(outcomes.iter().map(|o| o.gain * (1.0 - p)));
        let rel: Vec<f64> = grades.iter().map(|&g| f64::from(u8::from(g > 0))).collect();
        let (expected, _) = rbp(&rel, p);
        assert!((m - expected).abs() < 3.0 * se, "simulated {m} ± {se}, RBP {expected}");
    }

    #[test]
    fn geometric_continuation_mean_depth() {
        let mut profile = UserProfile::named("geo");
        profile.continuation = ContinuationModel::Rbp { p: 0.8 };
        let serp = SerpView::from_grades(vec![0; 400], 10);
        let outcomes = run_many(&serp, &profile, 100_000);
        let (m, se) = mean_se(outcomes.iter().map(|o| o.depth as f64));
        assert!((m - 5.0).abs() < 3.0 * se, "mean depth {m} ± {se}");
    }

    #[test]
    fn deterministic_walk_costs_and_stopping() {
        // Grades 1,0,0,2,0 with page size 2; click every relevant result, SS3 at 2.
        // Ranks 1-3 examined: a page turn before rank 3, one click on rank 1; SS3 fires at rank 3.
        let mut profile = UserProfile::named("walk");
        profile.continuation = ContinuationModel::Fixed { depth: 100 };
        profile.stopping = vec![StoppingRuleKind::ContiguousNonrelevant { n: 2 }];
        let serp = SerpView::from_grades(vec![1, 0, 0, 2, 0], 2);
        let o = run_many(&serp, &profile, 1)[0];
        assert_eq!((o.depth, o.clicks, o.relevant_found, o.gain), (3, 1, 1, 1.0));
        assert_eq!(o.effort, 3.0 + 1.0);
        let t = 15.1 + 1.1 + 3.0 * 1.3 + 1.1 + 21.45 + 2.57;
        assert!((o.time - t).abs() < 1e-9, "{} vs {t}", o.time);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use crate::user::{Cascade, ContinuationModel};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn outcome_invariants(
            grades in proptest::collection::vec(0i32..3, 1..40),
            page_size in 1usize..12,
            p in 0.0f64..=1.0,
            click in proptest::collection::vec(0.0f64..=1.0, 3),
            stop in 0.0f64..=1.0,
            seed in any::<u64>(),
        ) {
            let mut user = UserProfile::named("prop");
            user.continuation = ContinuationModel::Rbp { p };
            user.clicks = Cascade { click, stop: vec![stop], mark: vec![0.0, 1.0] };
            let serp = SerpView::from_grades(grades.clone(), page_size);
            let o = simulate_session(&serp, &user, &user.costs(), &mut crate::rng::stream(seed, &[]));
            let depth = o.depth as usize;
            prop_assert!(depth >= 1 && depth <= grades.len());
            prop_assert!(o.clicks <= o.depth && o.relevant_found <= o.clicks);
            let relevant_examined = grades[..depth].iter().filter(|&&g| g > 0).count() as f64;
            prop_assert!(o.gain <= relevant_examined);
            // Default effort: one per examined snippet plus one per page turn.
            prop_assert_eq!(o.effort, (depth + (depth - 1) / page_size) as f64);
            let min_time = 15.1 + 1.1 + 1.3 * depth as f64;
            prop_assert!(o.time >= min_time - 1e-9);
        }
    }
}
