//! Switch decisions that hold on real outcomes: the per-session metric a switch is judged on
//! and its prediction under a DBN, the model error learned from a log's natural experiments,
//! and the three-way answer (switch, keep production, cannot tell from this log).
//!
//! **The metric.** A decision is scored on what real users of the candidate do, per session:
//! the reciprocal rank of the first click (0 without a click), the clicks in the top
//! [`TOP`] ranks, or abandonment (no click; lower is better). [`OutcomeMetric::dbn`] gives each
//! one's expectation and per-session variance under a DBN with attractiveness `a`,
//! satisfaction `s` and continuation `gamma` (examination of rank r + 1 given rank r examined:
//! `gamma (1 - a_r s_r)`; before the first click `gamma (1 - a_r)` of reaching the next rank
//! without a click), so that the decision and its check measure the same thing.
//!
//! **Model error.** A click model fitted on the production ordering's sessions predicts the
//! candidate's metric, and the prediction misses the real value by more than the posterior
//! spread: orderings of a query are shown to other users at other times, documents interact,
//! users do not follow the model. [`ModelError`] measures that excess from the log's own natural
//! experiments (other queries shown in several orderings): for each such ordered pair, with
//! residual `r = observed difference - predicted difference`, the sampling variance of the
//! observed difference `se^2` and the posterior variance of the prediction `v`,
//! `E[r^2] = tau^2(x) + se^2 + v` when the prediction's posterior is right apart from an
//! independent model error of variance `tau^2(x)`. `tau^2(x) = max(0, theta . x)` is fitted to
//! `z = r^2 - se^2 - v` by weighted least squares with non-negative coefficients (weights
//! `1 / (se^2 + v + tau^2)^2`, the inverse variance of `r^2` for a normal `r`, iterated), on
//! the features [`FEATURES`]: an intercept, the rank-weighted share of the candidate's top
//! results that production users never or rarely examined, and how far the shared documents
//! moved. The caller cross-fits: the query being decided never informs its own `tau^2`.
//! Assumptions: model errors of different pairs are independent given the features, normal,
//! and independent of the sampling noise; pairs of one query are treated as independent in
//! the fit (they are not, so the fit's own uncertainty is understated; it is not propagated).
//!
//! **The answer.** With `K` joint posterior draws `d_k` of the candidate's advantage
//! `D = sign (M_C - M_P)` (sign -1 for abandonment), `P(safe) = P(D >= -epsilon) =
//! mean_k Phi((d_k + epsilon) / tau)`: the posterior convolved with the model error
//! (with `tau = 0`, the share of draws with `d_k >= -epsilon`, Algorithm 2 of Grotov et al.).
//! Switch when `P(safe) >= 1 - delta`; keep production when `P(safe) <= delta` (the candidate
//! is worse by more than epsilon with probability at least `1 - delta`); otherwise the log
//! cannot tell, and [`Answer::why`] says why and how many candidate sessions would settle it.

pub use crate::stats::model_error::{ErrorSample, ModelError, NF};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

/// Ranks of the "clicks at the top" metric.
pub const TOP: usize = 3;

/// A document examined in fewer production sessions than this counts as rarely examined.
pub const RARELY_EXAMINED: u32 = 10;

/// Names of the model-error features, in [`ModelError::coef`] order.
pub const FEATURES: [&str; NF] = ["intercept", "unexamined_share", "displacement"];

/// Power of the sample-size line ([`Answer::candidate_sessions_needed`]).
pub const POWER: f64 = 0.8;

/// The per-session metric a switch decision predicts and is checked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeMetric {
    /// Reciprocal rank of the first click, 0 without a click (higher is better).
    FirstClickRr,
    /// Clicks in the top [`TOP`] ranks (higher is better).
    TopClicks,
    /// 1 when the session has no click (lower is better).
    Abandonment,
}

impl OutcomeMetric {
    /// Every metric, in report order.
    pub const ALL: [OutcomeMetric; 3] = [OutcomeMetric::TopClicks, OutcomeMetric::Abandonment, OutcomeMetric::FirstClickRr];

    /// Command-line spelling (`first-click-rr`, `top-clicks`, `abandonment`).
    pub fn name(self) -> &'static str {
        match self {
            OutcomeMetric::FirstClickRr => "first-click-rr",
            OutcomeMetric::TopClicks => "top-clicks",
            OutcomeMetric::Abandonment => "abandonment",
        }
    }

    /// Column spelling (`first_click_rr`, `top_clicks`, `abandonment`).
    pub fn column(self) -> &'static str {
        match self {
            OutcomeMetric::FirstClickRr => "first_click_rr",
            OutcomeMetric::TopClicks => "top_clicks",
            OutcomeMetric::Abandonment => "abandonment",
        }
    }

    /// Parses either spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == s || m.column() == s)
    }

    /// +1 when a higher value is better for users, -1 when lower is (abandonment).
    pub fn sign(self) -> f64 {
        match self {
            OutcomeMetric::Abandonment => -1.0,
            _ => 1.0,
        }
    }

    /// The metric of one real session.
    pub fn of_clicks(self, clicks: &[bool]) -> f64 {
        match self {
            OutcomeMetric::FirstClickRr => clicks.iter().position(|&c| c).map_or(0.0, |r| 1.0 / (r + 1) as f64),
            OutcomeMetric::TopClicks => clicks.iter().take(TOP).filter(|&&c| c).count() as f64,
            OutcomeMetric::Abandonment => f64::from(u8::from(!clicks.contains(&true))),
        }
    }

    /// Expectation and per-session variance under a DBN: `params` are `(a, s)` in rank order,
    /// `gamma` the continuation (module docs).
    pub fn dbn(self, params: &[(f64, f64)], gamma: f64) -> (f64, f64) {
        match self {
            OutcomeMetric::FirstClickRr | OutcomeMetric::Abandonment => {
                // f_r = P(first click at rank r) = a_r prod_{j<r} gamma (1 - a_j).
                let (mut reach, mut m1, mut m2, mut clicked) = (1.0, 0.0, 0.0, 0.0);
                for (r, &(a, _)) in params.iter().enumerate() {
                    let f = reach * a;
                    let inv = 1.0 / (r + 1) as f64;
                    m1 += f * inv;
                    m2 += f * inv * inv;
                    clicked += f;
                    reach *= gamma * (1.0 - a);
                }
                if self == OutcomeMetric::FirstClickRr {
                    (m1, (m2 - m1 * m1).max(0.0))
                } else {
                    let ab = 1.0 - clicked;
                    (ab, ab * (1.0 - ab))
                }
            }
            OutcomeMetric::TopClicks => {
                // dp[c]: P(examining the current rank with c clicks so far); done[c]: stopped.
                let mut dp = [0.0; TOP + 1];
                let mut done = [0.0; TOP + 1];
                dp[0] = 1.0;
                for &(a, s) in params.iter().take(TOP) {
                    let mut next = [0.0; TOP + 1];
                    for c in 0..TOP {
                        let p = dp[c];
                        if p == 0.0 {
                            continue;
                        }
                        // Click, then satisfied (stop) or go on with gamma.
                        done[c + 1] += p * a * (s + (1.0 - s) * (1.0 - gamma));
                        next[c + 1] += p * a * (1.0 - s) * gamma;
                        // No click, then go on with gamma.
                        done[c] += p * (1.0 - a) * (1.0 - gamma);
                        next[c] += p * (1.0 - a) * gamma;
                    }
                    dp = next;
                }
                let (mut m1, mut m2) = (0.0, 0.0);
                for c in 0..=TOP {
                    let p = done[c] + dp[c];
                    m1 += p * c as f64;
                    m2 += p * (c * c) as f64;
                }
                (m1, (m2 - m1 * m1).max(0.0))
            }
        }
    }
}

/// The model-error features of a candidate list against the production list (module docs):
/// `[1, unexamined share, displacement]`. `examined(pair)` is the number of production sessions
/// that examined the pair (0 for a pair production never showed); both lists are cut at
/// `depth`. The unexamined share weighs rank r by 1/r; displacement is the mean of
/// `|rank in candidate - rank in production| / depth` over the candidate's documents that
/// production showed (0 when there is none).
pub fn features(candidate: &[u32], production: &[u32], examined: impl Fn(u32) -> u32, depth: usize) -> [f64; NF] {
    let (mut w, mut u) = (0.0, 0.0);
    let (mut moved, mut shared) = (0.0, 0usize);
    for (r, &p) in candidate.iter().take(depth).enumerate() {
        let wr = 1.0 / (r + 1) as f64;
        w += wr;
        if examined(p) < RARELY_EXAMINED {
            u += wr;
        }
        if let Some(rp) = production.iter().position(|&x| x == p) {
            moved += (r as f64 - rp as f64).abs() / depth as f64;
            shared += 1;
        }
    }
    [1.0, if w > 0.0 { u / w } else { 0.0 }, if shared > 0 { moved / shared as f64 } else { 0.0 }]
}

/// The three answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// P(safe) >= 1 - delta.
    Switch,
    /// P(safe) <= delta: the candidate is worse by more than epsilon.
    Keep,
    /// Neither: this log cannot tell.
    CannotTell,
}

impl Verdict {
    /// Column spelling.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Switch => "switch",
            Verdict::Keep => "keep_production",
            Verdict::CannotTell => "cannot_tell",
        }
    }
}

/// A calibrated answer for one candidate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer {
    /// P(D >= -epsilon), model error included.
    pub p_safe: f64,
    /// Posterior mean of D (the candidate's advantage, in the metric's units).
    pub expected_diff: f64,
    /// Posterior standard deviation of D (from the draws).
    pub posterior_sd: f64,
    /// Model-error standard deviation `tau` at this pair's features.
    pub model_error_sd: f64,
    /// The answer.
    pub verdict: Verdict,
    /// Candidate sessions an online test would need to settle the question at one-sided level
    /// delta with 80 % power, if the predicted difference is right (None: cannot be reached, the
    /// predicted difference sits at the margin or production's own noise is too large).
    pub candidate_sessions_needed: Option<f64>,
}

/// The answer from the draws `d` of the candidate's advantage and the model-error variance
/// `tau2` (module docs). `v_c` is the candidate's predicted per-session variance of the metric,
/// `v_p` and `n_p` production's observed per-session variance and session count (for the
/// sample-size line).
pub fn answer(d: &[f64], tau2: f64, epsilon: f64, delta: f64, v_c: f64, v_p: f64, n_p: usize) -> Answer {
    let k = d.len().max(1) as f64;
    let mean = d.iter().sum::<f64>() / k;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / k;
    let tau = tau2.max(0.0).sqrt();
    let p_safe = if tau > 0.0 {
        let n = Normal::new(0.0, tau).expect("tau > 0");
        d.iter().map(|x| n.cdf(x + epsilon)).sum::<f64>() / k
    } else {
        d.iter().filter(|&&x| x + epsilon >= 0.0).count() as f64 / k
    };
    let verdict = if p_safe >= 1.0 - delta {
        Verdict::Switch
    } else if p_safe <= delta {
        Verdict::Keep
    } else {
        Verdict::CannotTell
    };
    Answer {
        p_safe,
        expected_diff: mean,
        posterior_sd: var.sqrt(),
        model_error_sd: tau,
        verdict,
        candidate_sessions_needed: sessions_needed(mean + epsilon, delta, v_c, v_p, n_p),
    }
}

/// Candidate sessions `n_c` such that a one-sided z test at level `delta` with power [`POWER`]
/// detects a true margin `gap = D + epsilon` against production's `n_p` sessions:
/// `v_c / n_c + v_p / n_p = (gap / (z_{1-delta} + z_{POWER}))^2`. None when no `n_c` reaches it.
pub fn sessions_needed(gap: f64, delta: f64, v_c: f64, v_p: f64, n_p: usize) -> Option<f64> {
    let n = Normal::new(0.0, 1.0).expect("standard normal");
    if !(delta > 0.0 && delta < 1.0) || !gap.is_finite() || gap == 0.0 {
        return None;
    }
    let z = n.inverse_cdf(1.0 - delta) + n.inverse_cdf(POWER);
    let target = (gap / z).powi(2);
    let room = target - if n_p > 0 { v_p / n_p as f64 } else { 0.0 };
    if room <= 0.0 || v_c <= 0.0 {
        return if v_c <= 0.0 && room > 0.0 { Some(1.0) } else { None };
    }
    Some((v_c / room).ceil().max(1.0))
}

#[cfg(test)]
mod tests;
