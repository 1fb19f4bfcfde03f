//! Metrics with an explicit user model: ERR, RBP, the INSQ/INST family (Moffat et al.;
//! Bailey et al. 2015), RRT and ERRT (Bailey et al. 2015), and time-biased gain (TBG).
//!
//! Gains `r_i` are in [0, 1]. Documents beyond the end of the ranking are treated as
//! non-relevant (the usual lower-bound convention); RBP reports the residual separately.

/// ERR@k (Chapelle et al.): `sum_r 1/r * R_r * prod_{i<r} (1 - R_i)`,
/// `R = (2^g - 1) / 2^g_max`, grades clamped to [0, g_max].
pub fn err(ranked: &[i32], k: usize, max_grade: i32) -> f64 {
    let max_grade = max_grade.max(1);
    let denom = 2f64.powi(max_grade);
    let mut not_stopped = 1.0;
    let mut score = 0.0;
    for (i, &g) in ranked.iter().take(k).enumerate() {
        let g = g.clamp(0, max_grade);
        let r = (2f64.powi(g) - 1.0) / denom;
        score += not_stopped * r / (i + 1) as f64;
        not_stopped *= 1.0 - r;
    }
    score
}

/// The three members of the INSQ family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InsVariant {
    /// INSQ: `C(i) = ((i + 2T - 1) / (i + 2T))^2`, not adaptive.
    Insq,
    /// INSQ' (adaptive): `C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2`, `T_i = max(0, T - sum_{j<=i} r_j)`.
    InsqPrime,
    /// INST (Bailey et al.): as INSQ' but `T_i` may go negative.
    Inst,
}

/// Value and expected depth of a C/W/L metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CwlScore {
    /// Expected rate of gain per document inspected: `sum_i L(i) r_i / sum_i L(i)`.
    pub value: f64,
    /// Expected number of documents inspected, `sum_{i>=1} L(i)`, over an unbounded ranking
    /// whose documents past the end of the list are non-relevant.
    pub expected_depth: f64,
}

/// Trigamma function psi_1(x) for x > 0 (recurrence to x >= 20, then the asymptotic series).
pub fn trigamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < 20.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let x2 = 1.0 / (x * x);
    acc + 1.0 / x + x2 / 2.0 + (1.0 / x) * x2 * (1.0 / 6.0 - x2 * (1.0 / 30.0 - x2 * (1.0 / 42.0 - x2 * (1.0 / 30.0))))
}

/// INSQ, INSQ' or INST with target `t` (> 0) over gains in [0, 1].
///
/// `L(1) = 1`, `L(i + 1) = L(i) C(i)`. Past the ranking the gains are 0, `T_i` is constant and
/// `C(i) = ((i + a - 1) / (i + a))^2`, so the tail telescopes to
/// `L(n + 1) (n + a)^2 psi_1(n + a)`: the expected depth is exact, not truncated.
pub fn ins(gains: &[f64], t: f64, variant: InsVariant) -> CwlScore {
    let offset = |seen: f64| -> f64 {
        match variant {
            InsVariant::Insq => 2.0 * t,
            InsVariant::InsqPrime => t + (t - seen).max(0.0),
            InsVariant::Inst => t + (t - seen),
        }
    };
    let mut l = 1.0;
    let mut depth = 0.0;
    let mut gain = 0.0;
    let mut seen = 0.0;
    for (idx, &r) in gains.iter().enumerate() {
        let i = (idx + 1) as f64;
        depth += l;
        gain += l * r;
        seen += r;
        let a = offset(seen);
        let c = (i + a - 1.0) / (i + a);
        l *= c * c;
    }
    let n = gains.len() as f64;
    let a = offset(seen);
    depth += l * (n + a) * (n + a) * trigamma(n + a);
    CwlScore { value: gain / depth, expected_depth: depth }
}

/// RRT(T): `T / rank of the T-th relevant document`, 0 when fewer than T are retrieved.
/// RRT(1) is the reciprocal rank.
pub fn rrt(relevant: &[bool], t: usize) -> f64 {
    let mut found = 0;
    for (i, &r) in relevant.iter().enumerate() {
        if r {
            found += 1;
            if found == t {
                return t as f64 / (i + 1) as f64;
            }
        }
    }
    0.0
}

/// ERRT(T) = `(1/T) sum_{t>=1} ((T-1)/T)^(t-1) RRT(t)` (Bailey et al. Eq. 2).
pub fn errt(relevant: &[bool], t: usize) -> f64 {
    if t == 0 {
        return 0.0;
    }
    let p = (t as f64 - 1.0) / t as f64;
    let mut weight = 1.0 / t as f64;
    let mut found = 0usize;
    let mut score = 0.0;
    for (i, &r) in relevant.iter().enumerate() {
        if r {
            found += 1;
            score += weight * found as f64 / (i + 1) as f64;
            weight *= p;
        }
    }
    score
}

/// Parameters of time-biased gain (Smucker and Clarke 2012).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TbgParams {
    /// Half-life in seconds (224).
    pub half_life: f64,
    /// Document length in words when none is known (the time to read is `0.018 l + 7.8`).
    pub default_length: f64,
}

impl Default for TbgParams {
    fn default() -> Self {
        TbgParams { half_life: 224.0, default_length: 1000.0 }
    }
}

/// P(C = 1 | R) of TBG and the Cube Test's time model "g".
pub fn tbg_click_probability(relevant: bool) -> f64 {
    if relevant {
        0.64
    } else {
        0.39
    }
}

/// Seconds a TBG user spends on a document: `4.4 + (0.018 l + 7.8) P(C = 1 | R)`.
pub fn tbg_cost(relevant: bool, length: f64) -> f64 {
    4.4 + (0.018 * length + 7.8) * tbg_click_probability(relevant)
}

/// TBG = `sum_k g_k exp(-T(k) ln 2 / h)`, `g_k = 0.64 * 0.77` for relevant documents,
/// `T(k) = sum_{j<k}` [`tbg_cost`]. `lengths` (words) may be shorter than the ranking.
pub fn tbg(relevant: &[bool], lengths: &[f64], params: TbgParams) -> f64 {
    let mut time = 0.0;
    let mut score = 0.0;
    for (i, &r) in relevant.iter().enumerate() {
        if r {
            score += 0.64 * 0.77 * (-time * std::f64::consts::LN_2 / params.half_life).exp();
        }
        let l = lengths.get(i).copied().unwrap_or(params.default_length);
        time += tbg_cost(r, l);
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bailey_table4_expected_depths() {
        // Bailey et al. Table 4: T = 1, 3, 10, 30. No relevant document: INSQ = INSQ' = INST
        // ("upper"); every document relevant ("lower"): INSQ, INSQ', INST.
        let upper = [2.58, 6.53, 20.51, 60.50];
        let lower_insq_prime = [1.64, 4.36, 13.93, 41.29];
        let lower_inst = [1.33, 3.27, 10.26, 30.25];
        let all_rel = vec![1.0; 5000];
        for (i, &t) in [1.0, 3.0, 10.0, 30.0].iter().enumerate() {
            for v in [InsVariant::Insq, InsVariant::InsqPrime, InsVariant::Inst] {
                let d = ins(&[], t, v).expected_depth;
                assert!((d - upper[i]).abs() < 0.005, "{v:?} T={t}: {d}");
            }
            let insq = ins(&all_rel, t, InsVariant::Insq).expected_depth;
            assert!((insq - upper[i]).abs() < 0.005, "INSQ all relevant T={t}: {insq}");
            let p = ins(&all_rel, t, InsVariant::InsqPrime).expected_depth;
            assert!((p - lower_insq_prime[i]).abs() < 0.005, "INSQ' T={t}: {p}");
            let s = ins(&all_rel, t, InsVariant::Inst).expected_depth;
            assert!((s - lower_inst[i]).abs() < 0.005, "INST T={t}: {s}");
            // With every document relevant the rate of gain is exactly 1.
            assert!((ins(&all_rel, t, InsVariant::Inst).value - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn ins_tail_is_exact() {
        // Closed form for INSQ T = 1 on an empty ranking: 4 (pi^2/6 - 1).
        let d = ins(&[], 1.0, InsVariant::Insq).expected_depth;
        assert!((d - 4.0 * (std::f64::consts::PI.powi(2) / 6.0 - 1.0)).abs() < 1e-12);
        // A ranking of zeros gives the same depth as an empty one.
        let z = ins(&[0.0; 7], 3.0, InsVariant::Inst).expected_depth;
        assert!((z - ins(&[], 3.0, InsVariant::Inst).expected_depth).abs() < 1e-10);
    }

    #[test]
    fn rrt_errt_and_err_by_hand() {
        let rel = [false, true, false, true];
        assert_eq!(rrt(&rel, 1), 0.5);
        assert_eq!(rrt(&rel, 2), 0.5);
        assert_eq!(rrt(&rel, 3), 0.0);
        assert_eq!(errt(&rel, 1), 0.5); // ERRT(1) = RR
                                        // ERRT(2) = 1/2 * (RRT(1) + 1/2 RRT(2)) = 1/2 * (0.5 + 0.25)
        assert!((errt(&rel, 2) - 0.375).abs() < 1e-12);
        // ERR with g_max = 1: R = 1/2 at each relevant rank: 1/2 * 1/2 + (1/2)(1/2)/4
        assert!((err(&[0, 1, 0, 1], 10, 1) - (0.25 + 0.0625)).abs() < 1e-12);
        assert!((trigamma(1.0) - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-12);
    }

    #[test]
    fn tbg_by_hand() {
        // N R with length 100: T(2) = 4.4 + (1.8 + 7.8) * 0.39 = 8.144 s.
        let v = tbg(&[false, true], &[100.0, 100.0], TbgParams::default());
        let expect = 0.64 * 0.77 * (-8.144f64 * std::f64::consts::LN_2 / 224.0).exp();
        assert!((v - expect).abs() < 1e-12);
    }
}
