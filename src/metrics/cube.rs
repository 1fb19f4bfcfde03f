//! The Cube Test (Luo et al. 2013): subtopic gain that fills a unit "task cube", divided by time.
//!
//! `Gain(Q, d_j) = sum_i Gamma theta_i rel(d_j, c_i) I(sum_{k<j} rel(d_k, c_i) < MaxHeight)`
//! with `Gamma = gamma^nrel(c_i, j-1)` (Eq. 8-9), `Gain(Q, D) = sum_j Gain(Q, d_j)` (Eq. 10),
//! `CT = Gain(Q, D) / Time(D)` (Eq. 11) or `CT = (1/|D|) sum_t Gain(Q, D^t) / Time(D^t)` (Eq. 13).
//!
//! Choices the paper leaves open, all selectable:
//! - the cap: [`CapMode::Indicator`] is Eq. 8 as printed (the document that crosses MaxHeight
//!   still adds its whole gain); [`CapMode::Truncate`] adds only what still fits;
//!   [`CapMode::Decay`] is the paper's "c-bar" variant: no cap, `rel * e^(a (-t)^b)` with a = b = 1.
//! - `Time(D^t)`: with [`TimeOrigin::Inclusive`] (default) it is the time spent up to and
//!   including document t, so it is never 0; with [`TimeOrigin::Literal`] it is the time
//!   before document t (`Time(1) = 0` in model "g"), and terms whose time is 0 are dropped from
//!   Eq. 13's sum (the sum is still divided by |D|); Eq. 11 is 0 when the time is 0.

/// How MaxHeight caps a subtopic's gain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapMode {
    /// Eq. 8 as printed: full gain while the earlier sum is below MaxHeight.
    Indicator,
    /// Gain truncated at the room left below MaxHeight.
    Truncate,
    /// No cap; relevance discounted by `e^(-t)` at rank t ("c-bar" in Table 2).
    Decay,
}

/// Which equation turns gain and time into the score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CubeEquation {
    /// Eq. 11: total gain over total time.
    Eq11,
    /// Eq. 13: average over cut-offs t of gain over time (default).
    Eq13,
}

/// Where `Time(D^t)` starts counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeOrigin {
    /// Time up to and including document t (`sum_{j<=t} cost_j`).
    Inclusive,
    /// Time before document t (`sum_{j<t} cost_j`), as printed for model "g".
    Literal,
}

/// Parameters of the Cube Test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubeParams {
    /// Novelty discount gamma in (0, 1].
    pub gamma: f64,
    /// Height of the cube (1).
    pub max_height: f64,
    /// Cap mode.
    pub cap: CapMode,
    /// Eq. 11 or Eq. 13.
    pub equation: CubeEquation,
    /// Time origin.
    pub time_origin: TimeOrigin,
}

impl Default for CubeParams {
    fn default() -> Self {
        CubeParams { gamma: 0.5, max_height: 1.0, cap: CapMode::Indicator, equation: CubeEquation::Eq13, time_origin: TimeOrigin::Inclusive }
    }
}

/// Subtopic weights theta for `m` subtopics, normalised to sum 1.
#[derive(Debug, Clone, PartialEq)]
pub enum SubtopicWeights {
    /// All equal.
    Uniform,
    /// "l": `theta_k` proportional to `1 / log2(1 + k)` for subtopic k = 1, 2, ... (file order).
    Log,
    /// "p": given raw weights (e.g. 1 for independent and 0.5 for dependent claims).
    Given(Vec<f64>),
}

impl SubtopicWeights {
    /// The normalised weights for `m` subtopics. `Given` must have length `m`.
    pub fn theta(&self, m: usize) -> Vec<f64> {
        let raw: Vec<f64> = match self {
            SubtopicWeights::Uniform => vec![1.0; m],
            SubtopicWeights::Log => (1..=m).map(|k| 1.0 / ((1 + k) as f64).log2()).collect(),
            SubtopicWeights::Given(w) => w.clone(),
        };
        let total: f64 = raw.iter().sum();
        if total > 0.0 {
            raw.iter().map(|w| w / total).collect()
        } else {
            raw
        }
    }
}

/// The Cube Test over a ranking. `docs[j]` lists `(subtopic, rel)` of the j-th document with
/// rel in [0, 1]; `theta[i]` is the weight of subtopic i; `costs[j]` the time to examine the
/// j-th document. Returns 0 for an empty ranking.
pub fn cube_test(docs: &[&[(u32, f64)]], theta: &[f64], costs: &[f64], p: &CubeParams) -> f64 {
    let n = docs.len();
    if n == 0 {
        return 0.0;
    }
    let m = theta.len();
    let mut filled = vec![0.0; m];
    let mut nrel = vec![0i32; m];
    let mut gain = 0.0;
    let mut time_before = 0.0;
    let mut eq13 = 0.0;
    let mut time_at = 0.0;
    for (j, subs) in docs.iter().enumerate() {
        let rank = (j + 1) as f64;
        let mut g = 0.0;
        for &(s, rel) in subs.iter() {
            let s = s as usize;
            if s >= m || rel <= 0.0 {
                continue;
            }
            let big_gamma = p.gamma.powi(nrel[s]);
            let add = match p.cap {
                CapMode::Indicator => {
                    if filled[s] < p.max_height {
                        rel
                    } else {
                        0.0
                    }
                }
                CapMode::Truncate => rel.min((p.max_height - filled[s]).max(0.0)),
                CapMode::Decay => rel * (-rank).exp(),
            };
            g += big_gamma * theta[s] * add;
            filled[s] += rel;
            nrel[s] += 1;
        }
        gain += g;
        let cost = costs.get(j).copied().unwrap_or(1.0);
        time_at = match p.time_origin {
            TimeOrigin::Inclusive => time_before + cost,
            TimeOrigin::Literal => time_before,
        };
        time_before += cost;
        if time_at > 0.0 {
            eq13 += gain / time_at;
        }
    }
    match p.equation {
        CubeEquation::Eq11 => {
            if time_at > 0.0 {
                gain / time_at
            } else {
                0.0
            }
        }
        CubeEquation::Eq13 => eq13 / n as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::user_models::tbg_cost;

    // Hand-worked toy. Two subtopics, theta = (0.5, 0.5), gamma = 0.5, MaxHeight = 1,
    // rel = grade / 2. Ranking:
    //   d1: c1 rel 0.5      d2: c2 rel 1.0      d3: c1 rel 1.0      d4: c1 rel 0.5
    // Indicator (Eq. 8 as printed):
    //   d1: c1 earlier sum 0 < 1, nrel 0, Gamma 1:      0.5 * 0.5        = 0.25
    //   d2: c2 earlier sum 0, Gamma 1:                   0.5 * 1.0        = 0.5
    //   d3: c1 earlier sum 0.5 < 1, nrel 1, Gamma 0.5:   0.5 * 0.5 * 1.0  = 0.25
    //   d4: c1 earlier sum 1.5, not < 1:                                  = 0
    //   cumulative gain 0.25, 0.75, 1.0, 1.0
    // Truncate: d3 adds only the 0.5 that fits: 0.5 * 0.5 * 0.5 = 0.125;
    //   cumulative 0.25, 0.75, 0.875, 0.875
    // Unit time per document, inclusive origin: Time(D^t) = t.
    //   Eq. 11: indicator 1.0 / 4 = 0.25; truncate 0.875 / 4 = 0.21875
    //   Eq. 13: indicator (0.25/1 + 0.75/2 + 1/3 + 1/4) / 4 = 0.30208333...
    //           truncate  (0.25/1 + 0.75/2 + 0.875/3 + 0.875/4) / 4 = 0.28385416...
    const D1: &[(u32, f64)] = &[(0, 0.5)];
    const D2: &[(u32, f64)] = &[(1, 1.0)];
    const D3: &[(u32, f64)] = &[(0, 1.0)];
    const D4: &[(u32, f64)] = &[(0, 0.5)];

    fn toy(cap: CapMode, equation: CubeEquation, origin: TimeOrigin, costs: &[f64]) -> f64 {
        let p = CubeParams { gamma: 0.5, max_height: 1.0, cap, equation, time_origin: origin };
        cube_test(&[D1, D2, D3, D4], &[0.5, 0.5], costs, &p)
    }

    #[test]
    fn hand_computed_toy_eq11_and_eq13() {
        let unit = [1.0; 4];
        let inc = TimeOrigin::Inclusive;
        assert!((toy(CapMode::Indicator, CubeEquation::Eq11, inc, &unit) - 0.25).abs() < 1e-12);
        assert!((toy(CapMode::Truncate, CubeEquation::Eq11, inc, &unit) - 0.21875).abs() < 1e-12);
        assert!((toy(CapMode::Indicator, CubeEquation::Eq13, inc, &unit) - 0.3020833333333333).abs() < 1e-12);
        assert!((toy(CapMode::Truncate, CubeEquation::Eq13, inc, &unit) - 0.2838541666666667).abs() < 1e-12);
    }

    #[test]
    fn literal_time_model_g_drops_the_zero_time_term() {
        // Model "g", every document relevant, length 100: cost 4.4 + 9.6 * 0.64 = 10.544 s.
        // Literal Time(t) = (t - 1) * 10.544, so t = 1 is dropped:
        //   Eq. 13 = (0.75/10.544 + 1.0/21.088 + 1.0/31.632) / 4; Eq. 11 = 1.0 / 31.632.
        let c = tbg_cost(true, 100.0);
        assert!((c - 10.544).abs() < 1e-12);
        let costs = [c; 4];
        let lit = TimeOrigin::Literal;
        let e13 = toy(CapMode::Indicator, CubeEquation::Eq13, lit, &costs);
        assert!((e13 - (0.75 / 10.544 + 1.0 / 21.088 + 1.0 / 31.632) / 4.0).abs() < 1e-12);
        let e11 = toy(CapMode::Indicator, CubeEquation::Eq11, lit, &costs);
        assert!((e11 - 1.0 / 31.632).abs() < 1e-12);
    }

    #[test]
    fn decay_variant_has_no_cap() {
        // d1: 0.5*0.5*e^-1; d2: 0.5*1*e^-2; d3 (nrel c1 = 1, Gamma .5): .5*.5*1*e^-3;
        // d4: nrel c1 = 2, Gamma .25: .25*.5*.5*e^-4. Eq. 11 with unit time divides by 4.
        let e = f64::exp;
        let total = 0.25 * e(-1.0) + 0.5 * e(-2.0) + 0.25 * e(-3.0) + 0.0625 * e(-4.0);
        let v = toy(CapMode::Decay, CubeEquation::Eq11, TimeOrigin::Inclusive, &[1.0; 4]);
        assert!((v - total / 4.0).abs() < 1e-12);
    }

    #[test]
    fn weights_normalise() {
        let l = SubtopicWeights::Log.theta(2);
        let (a, b) = (1.0, 1.0 / 3f64.log2());
        assert!((l[0] - a / (a + b)).abs() < 1e-12 && (l[1] - b / (a + b)).abs() < 1e-12);
        assert_eq!(SubtopicWeights::Given(vec![1.0, 0.5, 0.5]).theta(3), vec![0.5, 0.25, 0.25]);
    }
}
