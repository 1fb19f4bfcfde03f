use super::*;
use crate::clickmodels::{ClickModel, Dbn};
use crate::logs::SessionRef;

/// Exact moments of the three metrics by enumerating every click pattern of `len` results, each
/// weighted by the product of the click model's own conditional probabilities
/// (`Dbn::observed_probs`, the PyClick-parity DBN): an implementation independent of
/// `OutcomeMetric::dbn`'s recursions.
fn enumerated(model: &Dbn, len: usize, metric: OutcomeMetric) -> (f64, f64) {
    let pairs: Vec<u32> = (0..len as u32).collect();
    let (mut total, mut m1, mut m2) = (0.0, 0.0, 0.0);
    let mut probs = Vec::new();
    for code in 0..(1u32 << len) {
        let clicks: Vec<bool> = (0..len).map(|r| code & (1 << r) != 0).collect();
        model.observed_probs(SessionRef { query: 0, pairs: &pairs, clicks: &clicks }, &mut probs);
        let p: f64 = probs.iter().product();
        let x = metric.of_clicks(&clicks);
        total += p;
        m1 += p * x;
        m2 += p * x * x;
    }
    assert!((total - 1.0).abs() < 1e-12, "patterns sum to {total}");
    (m1, m2 - m1 * m1)
}

#[test]
fn dbn_moments_equal_the_enumerated_click_patterns() {
    let a = vec![0.7, 0.2, 0.55, 0.05, 0.4];
    let s = vec![0.6, 0.3, 0.9, 0.5, 0.2];
    for gamma in [0.9, 0.5, 1.0] {
        let model = Dbn { attractiveness: a.clone(), satisfaction: s.clone(), gamma };
        let params: Vec<(f64, f64)> = a.iter().copied().zip(s.iter().copied()).collect();
        for metric in OutcomeMetric::ALL {
            let (m, v) = metric.dbn(&params, gamma);
            let (em, ev) = enumerated(&model, a.len(), metric);
            assert!((m - em).abs() < 1e-12 && (v - ev).abs() < 1e-12, "{metric:?} gamma {gamma}: {m} {v} against {em} {ev}");
        }
        // Clicks at the top also equal the model's own click probabilities summed.
        let mut ctr = Vec::new();
        model.click_probs(&[0, 1, 2, 3, 4], &mut ctr);
        let top: f64 = ctr[..TOP].iter().sum();
        assert!((OutcomeMetric::TopClicks.dbn(&params, gamma).0 - top).abs() < 1e-12);
    }
}

#[test]
fn session_values_and_names() {
    let c = [false, true, true, false];
    assert_eq!(OutcomeMetric::FirstClickRr.of_clicks(&c), 0.5);
    assert_eq!(OutcomeMetric::TopClicks.of_clicks(&c), 2.0);
    assert_eq!(OutcomeMetric::Abandonment.of_clicks(&c), 0.0);
    assert_eq!(OutcomeMetric::Abandonment.of_clicks(&[false; 3]), 1.0);
    assert_eq!(OutcomeMetric::FirstClickRr.of_clicks(&[false; 3]), 0.0);
    for m in OutcomeMetric::ALL {
        assert_eq!(OutcomeMetric::parse(m.name()), Some(m));
        assert_eq!(OutcomeMetric::parse(m.column()), Some(m));
    }
    assert_eq!(OutcomeMetric::Abandonment.sign(), -1.0);
    assert_eq!(OutcomeMetric::parse("rr"), None);
}

#[test]
fn answer_convolves_the_draws_with_the_model_error() {
    // One draw at 0, epsilon 0.01, tau 0.02: P(safe) = Phi(0.01 / 0.02) = Phi(0.5) = 0.6914624613
    // (Python's statistics.NormalDist().cdf(0.5)).
    let a = answer(&[0.0], 0.02 * 0.02, 0.01, 0.05, 0.1, 0.1, 100);
    assert!((a.p_safe - 0.6914624612740131).abs() < 1e-9, "{a:?}");
    assert_eq!(a.verdict, Verdict::CannotTell);
    // Two draws, 0 and +0.01: (Phi(0.5) + Phi(1.0)) / 2 = 0.766403603671278.
    let a = answer(&[0.0, 0.01], 0.02 * 0.02, 0.01, 0.05, 0.1, 0.1, 100);
    assert!((a.p_safe - 0.766403603671278).abs() < 1e-9, "{a:?}");
    assert!((a.expected_diff - 0.005).abs() < 1e-15 && (a.posterior_sd - 0.005).abs() < 1e-15 && (a.model_error_sd - 0.02).abs() < 1e-15);
    // Without model error: Grotov et al.'s share of draws with d + epsilon >= 0.
    let a = answer(&[-0.02, -0.01, 0.0, 0.3], 0.0, 0.01, 0.05, 0.1, 0.1, 100);
    assert_eq!(a.p_safe, 0.75);
    assert_eq!(answer(&[0.1; 10], 0.0, 0.01, 0.05, 0.1, 0.1, 100).verdict, Verdict::Switch);
    assert_eq!(answer(&[-0.1; 10], 0.0, 0.01, 0.05, 0.1, 0.1, 100).verdict, Verdict::Keep);
}

#[test]
fn sessions_needed_by_hand() {
    // gap 0.05, delta 0.05, power 0.8: z = 1.6448536 + 0.8416212 = 2.4864749 (NormalDist);
    // (0.05 / z)^2 = 0.000404363; production's share 0.1 / 1000 = 0.0001; room 0.000304363;
    // n = 0.12 / 0.000304363 = 394.27 -> 395 sessions.
    assert_eq!(sessions_needed(0.05, 0.05, 0.12, 0.1, 1000), Some(395.0));
    // Production's own noise already exceeds the target: no candidate sample settles it.
    assert_eq!(sessions_needed(0.05, 0.05, 0.12, 0.1, 100), None);
    // At the margin: never.
    assert_eq!(sessions_needed(0.0, 0.05, 0.12, 0.1, 1000), None);
}

#[test]
fn features_by_hand() {
    // Production shows [1, 2, 3, 4]; examined: 1 in 50 sessions, 2 in 12, 3 in 4 (rarely),
    // 4 never. Candidate [9, 3, 1, 2]: 9 never shown, 3 rarely examined.
    // Unexamined share, rank weights 1, 1/2, 1/3, 1/4 (sum 25/12): (1 + 1/2) / (25/12) = 0.72.
    // Displacement over the shown ones, depth 4: 3 moved 2 -> 1 (1/4), 1 moved 0 -> 2 (2/4),
    // 2 moved 1 -> 3 (2/4): mean 5/12.
    let exam = |p: u32| match p {
        1 => 50,
        2 => 12,
        3 => 4,
        _ => 0,
    };
    let x = features(&[9, 3, 1, 2], &[1, 2, 3, 4], exam, 4);
    assert_eq!(x[0], 1.0);
    assert!((x[1] - 0.72).abs() < 1e-15, "{x:?}");
    assert!((x[2] - 5.0 / 12.0).abs() < 1e-15, "{x:?}");
}
