//! Every clause of a verdict names its system (issue 40, item 7).
//!
//! The pairs are made by hand, so each case of the costs branch of `verdict()` occurs with
//! known intervals. The expected sentences are derived by hand from the rule in the doc
//! comment of `src/report/verdict.rs` and docs/guide.md ("Consequences read as
//! consequences"): the verdict first says which system finds more (gain's interval over topics
//! and users), then reads costs against it: a system that costs less and finds less "costs less
//! because it finds less"; one that finds more and costs less "also costs less"; with no clear
//! difference in gain, a system with a lower cost "is cheaper at equal gain". A measure favours
//! a system when its 95 % interval excludes 0 in that system's direction (lower for costs).
//! Figures: `fmt_num` writes 3 significant digits (two decimals from 1 to 100, three below 1).

use serpsim::report::verdict;
use serpsim::simulate::summary::{DiffSummary, PairSummary};
use serpsim::simulate::Better;
use serpsim::stats::topics::TopicInference;

/// A difference A - B over `topics` topics with the 95 % interval `[lo, hi]` over topics and
/// users (NaN with one topic) and, for one topic, the users-only standard error `se`.
fn diff(measure: &str, better: Better, mean: f64, lo: f64, hi: f64, topics: usize, se: f64) -> DiffSummary {
    DiffSummary {
        measure: measure.into(),
        better,
        n: 1000,
        mean_a: 0.0,
        mean_b: 0.0,
        diff_mean: mean,
        diff_se: se,
        p_a_higher: 0.5,
        p_tie: 0.0,
        p_a_lower: 0.5,
        p_a_better: 0.5,
        diff_quantiles: [f64::NAN; 5],
        exact: false,
        topics: Some(TopicInference {
            topics,
            mean,
            se: if topics >= 2 { 0.25 } else { f64::NAN },
            lo,
            hi,
            p_value: if topics >= 2 { 0.01 } else { f64::NAN },
            p_positive: if topics >= 2 { 0.99 } else { f64::NAN },
            effect_size: f64::NAN,
            mc_se: 0.01,
            topics_positive: 0,
            topics_zero: 0,
            topics_negative: 0,
        }),
    }
}

/// A pair of systems `ALPHA` (A) and `BETA` (B) with these gain, effort and depth differences,
/// each `(mean, lo, hi)`; 12 topics (no "only N topics" clause, which starts below 10).
fn pair(gain: (f64, f64, f64), effort: (f64, f64, f64), depth: (f64, f64, f64)) -> PairSummary {
    let d = |m, b, (x, lo, hi): (f64, f64, f64)| diff(m, b, x, lo, hi, 12, 0.1);
    PairSummary {
        profile: "p".into(),
        system_a: "ALPHA".into(),
        system_b: "BETA".into(),
        topic: None,
        measures: vec![d("gain", Better::Higher, gain), d("effort", Better::Lower, effort), d("depth", Better::Lower, depth)],
        time_budgets: vec![],
        effort_budgets: vec![],
    }
}

// Effort lower for A: favours A. Depth higher for A: favours B (depth is a cost).
const A_CHEAPER_EFFORT: (f64, f64, f64) = (-1.5, -2.0, -1.0);
const B_CHEAPER_DEPTH: (f64, f64, f64) = (1.5, 1.0, 2.0);

#[test]
fn a_finds_more_and_each_system_is_cheaper_on_a_different_cost() {
    // Gain interval [0.5, 1.5] > 0: ALPHA finds more. ALPHA is cheaper in effort: it finds
    // more, so it "also costs less". BETA is cheaper in depth: it finds less, so it "costs less
    // because it finds less". The one that finds more comes first.
    let v = verdict(&pair((1.0, 0.5, 1.5), A_CHEAPER_EFFORT, B_CHEAPER_DEPTH));
    assert_eq!(v.headline, "ALPHA finds more; ALPHA also costs less (effort); BETA costs less (depth) because it finds less");
    assert_eq!(
        v.verdict,
        "ALPHA finds more: gain A - B +1.00 [+0.500, +1.50] (95 %, topics and users); \
         ALPHA also costs less (effort -1.50 weighted actions); \
         BETA costs less because it finds less (depth +1.50 results examined)"
    );
}

#[test]
fn b_finds_more_and_each_system_is_cheaper_on_a_different_cost() {
    // Gain interval [-1.5, -0.5] < 0: BETA finds more; BETA (cheaper in depth) "also costs
    // less", ALPHA (cheaper in effort) "costs less because it finds less". The old headline read
    // "ALPHA costs less (effort) because it finds less; it also costs less (depth)", where "it"
    // was BETA.
    let v = verdict(&pair((-1.0, -1.5, -0.5), A_CHEAPER_EFFORT, B_CHEAPER_DEPTH));
    assert_eq!(v.headline, "BETA finds more; BETA also costs less (depth); ALPHA costs less (effort) because it finds less");
    assert_eq!(
        v.verdict,
        "BETA finds more: gain A - B -1.00 [-1.50, -0.500] (95 %, topics and users); \
         BETA also costs less (depth +1.50 results examined); \
         ALPHA costs less because it finds less (effort -1.50 weighted actions)"
    );
}

#[test]
fn no_clear_gain_difference_each_system_cheaper_at_equal_gain() {
    // Gain interval [-0.5, 0.7] holds 0: no clear difference; each cheaper system "is cheaper
    // at equal gain".
    let v = verdict(&pair((0.1, -0.5, 0.7), A_CHEAPER_EFFORT, B_CHEAPER_DEPTH));
    assert_eq!(v.headline, "no clear difference in gain; ALPHA is cheaper at equal gain (effort); BETA is cheaper at equal gain (depth)");
    assert_eq!(
        v.verdict,
        "no clear difference in gain: A - B +0.100 [-0.500, +0.700] (95 %, topics and users); \
         ALPHA is cheaper at equal gain (effort -1.50 weighted actions); \
         BETA is cheaper at equal gain (depth +1.50 results examined)"
    );
}

/// The same pair on one topic: no interval over topics, the users-only interval (mean +- 1.96
/// se, se 0.1) decides who is favoured.
fn one_topic(gain: f64) -> PairSummary {
    let d = |m, b, x: f64| diff(m, b, x, f64::NAN, f64::NAN, 1, 0.1);
    PairSummary {
        profile: "p".into(),
        system_a: "ALPHA".into(),
        system_b: "BETA".into(),
        topic: None,
        measures: vec![d("gain", Better::Higher, gain), d("effort", Better::Lower, -1.5), d("depth", Better::Lower, 1.5)],
        time_budgets: vec![],
        effort_budgets: vec![],
    }
}

#[test]
fn one_topic_clauses_name_their_system() {
    // Gain +1 +- 0.196 > 0 on users only: ALPHA finds more on this topic; the costs read as
    // above (effort -1.5 +- 0.196 favours ALPHA, depth +1.5 +- 0.196 favours BETA).
    let v = verdict(&one_topic(1.0));
    assert_eq!(v.headline, "ALPHA finds more on this one topic (users only); ALPHA also costs less (effort); BETA costs less (depth) because it finds less");
    // Gain -1: BETA finds more and comes first.
    let v = verdict(&one_topic(-1.0));
    assert_eq!(v.headline, "BETA finds more on this one topic (users only); BETA also costs less (depth); ALPHA costs less (effort) because it finds less");
    // Gain 0.1 +- 0.196 holds 0 and there is no interval over topics: nothing is "cheaper at
    // equal gain" (equal gain is not established), so no cost clause.
    let v = verdict(&one_topic(0.1));
    assert_eq!(v.headline, "no clear difference in gain on this one topic (users only)");
}
