//! Offline metrics computed from click-model parameters of the results on a ranking.
//!
//! ```
//! use serpsim::clickmodels::metrics::{err, rr_metric};
//! // One perfect result at rank 2: the user is satisfied there.
//! assert_eq!(rr_metric(&[0.0, 1.0], &[0.0, 1.0]), 0.5);
//! assert_eq!(err(&[0.0, 1.0]), 0.5);
//! ```

use super::{param, Dbn};

/// The three cascade users of Table 1 of Grotov, Whiteson and de Rijke (SIGIR 2015): click and
/// satisfaction probabilities by relevance, for BARACO's study and the `rrmetric`/`ebu` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum UserModel {
    /// P(C|R) 1, P(C|NR) 0, P(s|R) 0, P(s|NR) 0.
    Perfect,
    /// 0.95 / 0.05 / 0.9 / 0.2.
    Navigational,
    /// 0.9 / 0.4 / 0.5 / 0.1.
    Informational,
}

impl UserModel {
    /// All three, in the paper's row order.
    pub const ALL: [UserModel; 3] = [UserModel::Perfect, UserModel::Navigational, UserModel::Informational];
    /// One-letter code of the tables.
    pub fn code(self) -> &'static str {
        match self {
            UserModel::Perfect => "P",
            UserModel::Navigational => "N",
            UserModel::Informational => "I",
        }
    }
    /// Parses `perfect`, `navigational`, `informational` (or P/N/I).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "perfect" | "p" => Some(UserModel::Perfect),
            "navigational" | "n" => Some(UserModel::Navigational),
            "informational" | "i" => Some(UserModel::Informational),
            _ => None,
        }
    }
    /// (attractiveness, satisfaction) of a document with relevance label `grade` (relevant: >= 1).
    pub fn params(self, grade: i32) -> (f64, f64) {
        let (cr, cnr, sr, snr) = match self {
            UserModel::Perfect => (1.0, 0.0, 0.0, 0.0),
            UserModel::Navigational => (0.95, 0.05, 0.9, 0.2),
            UserModel::Informational => (0.9, 0.4, 0.5, 0.1),
        };
        if grade >= 1 {
            (cr, sr)
        } else {
            (cnr, snr)
        }
    }
}

/// rrMetric of Grotov et al. (2015, Eq. 3): sum_i (s_i a_i / i) prod_{j<i} (1 - s_j a_j), the
/// expected reciprocal rank at which a DBN user (continuation 1) is satisfied.
pub fn rr_metric(attractiveness: &[f64], satisfaction: &[f64]) -> f64 {
    let mut not_yet = 1.0;
    let mut m = 0.0;
    for (i, (&a, &s)) in attractiveness.iter().zip(satisfaction).enumerate() {
        m += not_yet * s * a / (i + 1) as f64;
        not_yet *= 1.0 - s * a;
    }
    m
}

/// rrMetric of a ranking of pairs under a fitted [`Dbn`] (unseen pairs get the prior).
pub fn rr_metric_dbn(model: &Dbn, pairs: &[u32]) -> f64 {
    let a: Vec<f64> = pairs.iter().map(|&p| param(&model.attractiveness, p as usize)).collect();
    let s: Vec<f64> = pairs.iter().map(|&p| param(&model.satisfaction, p as usize)).collect();
    rr_metric(&a, &s)
}

/// Expected reciprocal rank (Chapelle et al. 2009): sum_r (R_r / r) prod_{j<r} (1 - R_j), where
/// R_r is the probability that the result at rank r satisfies the user.
pub fn err(satisfaction_probs: &[f64]) -> f64 {
    let mut not_yet = 1.0;
    let mut m = 0.0;
    for (i, &r) in satisfaction_probs.iter().enumerate() {
        m += not_yet * r / (i + 1) as f64;
        not_yet *= 1.0 - r;
    }
    m
}

/// ERR from graded relevance: R = (2^g - 1) / 2^max_grade (negative grades count as 0).
pub fn err_graded(grades: &[i32], max_grade: i32) -> f64 {
    let top = 2f64.powi(max_grade.max(0));
    let r: Vec<f64> = grades.iter().map(|&g| (2f64.powi(g.clamp(0, max_grade.max(0))) - 1.0) / top).collect();
    err(&r)
}

/// Expected browsing utility (Yilmaz et al. 2010) under a DBN user: sum_r P(E_r) a_r u_r,
/// with P(E_1) = 1 and P(E_{r+1}) = P(E_r) gamma (1 - a_r s_r): the expected utility `u` of
/// the clicked results. With `u = s` it is the expected number of satisfying clicks.
pub fn ebu(attractiveness: &[f64], satisfaction: &[f64], utility: &[f64], gamma: f64) -> f64 {
    let mut exam = 1.0;
    let mut m = 0.0;
    for ((&a, &s), &u) in attractiveness.iter().zip(satisfaction).zip(utility) {
        m += exam * a * u;
        exam *= gamma * (1.0 - a * s);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rr_metric_closed_form() {
        // a = (0.5, 0.8), s = (0.4, 0.5): 0.2 + (1 - 0.2) * 0.4 / 2 = 0.36
        let m = rr_metric(&[0.5, 0.8], &[0.4, 0.5]);
        assert!((m - 0.36).abs() < 1e-12, "{m}");
        assert_eq!(rr_metric(&[], &[]), 0.0);
    }

    #[test]
    fn err_matches_chapelle_example() {
        // Grades 2, 0, 1 with max grade 2: R = 3/4, 0, 1/4.
        // ERR = 3/4 + 0 + (1/4)(1/4)(1/3) = 0.75 + 1/48
        let e = err_graded(&[2, 0, 1], 2);
        assert!((e - (0.75 + 1.0 / 48.0)).abs() < 1e-12, "{e}");
    }

    #[test]
    fn ebu_closed_form() {
        // a = (1, 0.5), s = (0.5, 1), u = s, gamma 0.8: 1*1*0.5 + 0.8*(1-0.5) * 0.5 * 1 = 0.7
        let m = ebu(&[1.0, 0.5], &[0.5, 1.0], &[0.5, 1.0], 0.8);
        assert!((m - 0.7).abs() < 1e-12, "{m}");
    }
}
