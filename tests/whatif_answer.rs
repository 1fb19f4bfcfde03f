//! The answer's power line and its line on user models (issue 40): hand-made pair summaries,
//! expected values from statsmodels (the fixture `tests/fixtures/power/`, written by
//! `tests/fixtures/power/make.py` with statsmodels 0.15.0) and from the rule in the doc comment
//! of `users_lines` (by hand).

use serpsim::report::verdict::{power_line, users_lines};
use serpsim::report::{verdict, Verdict};
use serpsim::simulate::summary::{DiffSummary, PairSummary};
use serpsim::simulate::Better;
use serpsim::stats::topics::TopicInference;

/// statsmodels' value of `kind` at `(a, b)` in the fixture.
fn statsmodels(kind: &str, a: &str, b: &str) -> f64 {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/power/statsmodels_ttest_power.csv")).unwrap();
    let line = text.lines().find(|l| l.starts_with(&format!("{kind},{a},{b},"))).unwrap_or_else(|| panic!("no fixture row {kind},{a},{b}"));
    line.rsplit(',').next().unwrap().parse().unwrap()
}

/// A pair whose gain difference over `topics` topics has mean `mean`, standard error `se`
/// over topics (sd of the per-topic differences = se sqrt(topics)) and effect size
/// `mean / sd`, with the 95 % interval `[lo, hi]`.
fn pair(profile: &str, topics: usize, mean: f64, se: f64, lo: f64, hi: f64) -> PairSummary {
    let sd = se * (topics as f64).sqrt();
    let gain = DiffSummary {
        measure: "gain".into(),
        better: Better::Higher,
        n: 1000,
        mean_a: 0.0,
        mean_b: 0.0,
        diff_mean: mean,
        diff_se: 0.01,
        p_a_higher: 0.5,
        p_tie: 0.0,
        p_a_lower: 0.5,
        p_a_better: 0.5,
        diff_quantiles: [f64::NAN; 5],
        exact: false,
        topics: Some(TopicInference {
            topics,
            mean,
            se,
            lo,
            hi,
            p_value: 0.5,
            p_positive: 0.5,
            effect_size: mean / sd,
            mc_se: 0.001,
            topics_positive: 0,
            topics_zero: 0,
            topics_negative: 0,
        }),
    };
    PairSummary {
        profile: profile.into(),
        system_a: "ALPHA".into(),
        system_b: "BETA".into(),
        topic: None,
        measures: vec![gain],
        time_budgets: vec![],
        effort_budgets: vec![],
    }
}

/// A clear difference with d_z = 1.0: statsmodels' solve_power gives 9.9379 pairs, so 10
/// topics; an unclear one with d_z = 0.4 would need 51.009 -> 52, and 10 topics detect
/// d_z = 0.99600 (brentq on statsmodels' power), i.e. 0.99600 x sd.
#[test]
fn power_line_is_statsmodels_solve_power() {
    // sd = 0.25 sqrt(16) = 1; mean 1.0: d_z = 1.
    let v: Verdict = verdict(&pair("p", 16, 1.0, 0.25, 0.47, 1.53));
    let needed = statsmodels("nobs", "1.0", "0.8").ceil();
    assert_eq!(needed, 10.0);
    assert_eq!(v.topics_needed, needed);
    assert_eq!(power_line(&v).unwrap(), "power: 80 % power at this gain difference needs 10 topics (paired t over topics, alpha 0.05); this run has 16");
    // sd = 0.5 sqrt(10) = 1.5811; mean 0.4 x sd: d_z = 0.4; interval includes 0.
    let sd = 0.5 * 10f64.sqrt();
    let v = verdict(&pair("p", 10, 0.4 * sd, 0.5, -0.5, 1.9));
    assert_eq!(v.topics_needed, statsmodels("nobs", "0.4", "0.8").ceil());
    let detectable = statsmodels("effect", "10", "0.8") * sd;
    assert!((v.min_detectable - detectable).abs() < 1e-8 * detectable, "{} against {detectable}", v.min_detectable);
    // 0.99600 x 1.5811 = 1.5747 -> "1.57"; the observed 0.632 -> "+0.632"; 52 topics.
    assert_eq!(
        power_line(&v).unwrap(),
        "power: these 10 topics detect a gain difference of +-1.57 with 80 % power; the observed +0.632 would need 52 topics (paired t over topics, alpha 0.05)"
    );
}

/// Three profiles: two find ALPHA better (intervals above 0), one sees no clear difference:
/// "ALPHA better than BETA for 2 of 3", naming the one that disagrees. When most favour BETA,
/// BETA leads. One profile alone gets no line.
#[test]
fn users_line_counts_models_and_names_dissenters() {
    let clear = |p: &str| verdict(&pair(p, 16, 1.0, 0.25, 0.47, 1.53));
    let unclear = |p: &str| verdict(&pair(p, 16, 0.2, 0.25, -0.3, 0.7));
    let worse = |p: &str| verdict(&pair(p, 16, -1.0, 0.25, -1.53, -0.47));
    let lines = users_lines(&[clear("patient"), unclear("impatient"), clear("dbn")]);
    assert_eq!(
        lines,
        vec!["users: ALPHA better than BETA for 2 of 3 user models (gain, 95 % over topics and users); disagreeing: impatient: no clear difference"]
    );
    let lines = users_lines(&[worse("patient"), worse("impatient"), clear("dbn"), unclear("pbm")]);
    assert_eq!(
        lines,
        vec![
            "users: BETA better than ALPHA for 2 of 4 user models (gain, 95 % over topics and users); disagreeing: dbn: ALPHA better, pbm: no clear difference"
        ]
    );
    let lines = users_lines(&[clear("patient"), clear("pbm")]);
    assert_eq!(lines, vec!["users: ALPHA better than BETA for 2 of 2 user models (gain, 95 % over topics and users); every model agrees"]);
    assert!(users_lines(&[clear("patient")]).is_empty());
}
