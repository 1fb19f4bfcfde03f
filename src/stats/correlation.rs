//! Correlation between two scorings of the same items (systems, runs): Pearson, Spearman,
//! Kendall tau-a and tau-b, and the head-weighted tau_AP (Yilmaz et al.) and tau_GAP
//! (Gao and Oard 2015).

use super::wilcoxon::average_ranks;

/// Pearson's r (NaN when either sample has zero variance or the lengths differ or are < 2).
pub fn pearson(x: &[f64], y: &[f64]) -> f64 {
    if x.len() != y.len() || x.len() < 2 {
        return f64::NAN;
    }
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        return f64::NAN;
    }
    sxy / (sxx * syy).sqrt()
}

/// Spearman's rho: Pearson's r of the average ranks (ties share their mean rank).
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    pearson(&average_ranks(x), &average_ranks(y))
}

/// Concordant, discordant, tied-in-x-only... counts of all pairs.
struct PairCounts {
    concordant: f64,
    discordant: f64,
    pairs: f64,
    ties_x: f64,
    ties_y: f64,
}

fn pair_counts(x: &[f64], y: &[f64]) -> PairCounts {
    let n = x.len();
    let mut c = PairCounts { concordant: 0.0, discordant: 0.0, pairs: 0.0, ties_x: 0.0, ties_y: 0.0 };
    for i in 0..n {
        for j in i + 1..n {
            let dx = x[i] - x[j];
            let dy = y[i] - y[j];
            c.pairs += 1.0;
            if dx == 0.0 {
                c.ties_x += 1.0;
            }
            if dy == 0.0 {
                c.ties_y += 1.0;
            }
            let s = dx * dy;
            if s > 0.0 {
                c.concordant += 1.0;
            } else if s < 0.0 {
                c.discordant += 1.0;
            }
        }
    }
    c
}

/// Kendall's tau-a: `(C - D) / (n (n - 1) / 2)`.
pub fn kendall_tau_a(x: &[f64], y: &[f64]) -> f64 {
    if x.len() != y.len() || x.len() < 2 {
        return f64::NAN;
    }
    let c = pair_counts(x, y);
    (c.concordant - c.discordant) / c.pairs
}

/// Kendall's tau-b: `(C - D) / sqrt((n0 - n1)(n0 - n2))` with n1, n2 the pairs tied in x, in y.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> f64 {
    if x.len() != y.len() || x.len() < 2 {
        return f64::NAN;
    }
    let c = pair_counts(x, y);
    let denom = ((c.pairs - c.ties_x) * (c.pairs - c.ties_y)).sqrt();
    if denom == 0.0 {
        f64::NAN
    } else {
        (c.concordant - c.discordant) / denom
    }
}

/// Items ordered by `predicted`, descending (ties by index).
fn prediction_order(predicted: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..predicted.len()).collect();
    order.sort_by(|&a, &b| predicted[b].total_cmp(&predicted[a]).then(a.cmp(&b)));
    order
}

/// tau_AP = `2/(N-1) sum_{i=2..N} C(i)/(i-1) - 1`, where the items are ranked by `predicted`
/// and C(i) counts the items above rank i that `truth` also scores strictly higher.
pub fn tau_ap(truth: &[f64], predicted: &[f64]) -> f64 {
    let n = truth.len();
    if n != predicted.len() || n < 2 {
        return f64::NAN;
    }
    let order = prediction_order(predicted);
    let mut sum = 0.0;
    for i in 1..n {
        let item = order[i];
        let correct = order[..i].iter().filter(|&&above| truth[above] > truth[item]).count();
        sum += correct as f64 / i as f64;
    }
    2.0 / (n - 1) as f64 * sum - 1.0
}

/// tau_GAP (Gao and Oard Eq. 3): as tau_AP, but each pair (j above i) counts with weight
/// `|truth_j - truth_i|`: `2/(N-1) sum_i (sum_{j<i} |CG_ji| / sum_{j<i} |G_ji|) - 1`.
/// A rank whose gaps are all 0 counts as fully correct.
pub fn tau_gap(truth: &[f64], predicted: &[f64]) -> f64 {
    let n = truth.len();
    if n != predicted.len() || n < 2 {
        return f64::NAN;
    }
    let order = prediction_order(predicted);
    let mut sum = 0.0;
    for i in 1..n {
        let item = order[i];
        let (mut correct, mut total) = (0.0, 0.0);
        for &above in &order[..i] {
            let gap = (truth[above] - truth[item]).abs();
            total += gap;
            if truth[above] > truth[item] {
                correct += gap;
            }
        }
        sum += if total > 0.0 { correct / total } else { 1.0 };
    }
    2.0 / (n - 1) as f64 * sum - 1.0
}

/// Pearson's r with its significance test.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PearsonTest {
    /// r.
    pub r: f64,
    /// Pairs.
    pub n: usize,
    /// Two-sided p-value of t = r sqrt((n - 2) / (1 - r^2)) on n - 2 degrees of freedom
    /// (as R's `cor.test`); NaN for n < 3.
    pub p: f64,
}

/// Pearson's r and its t-test. Errors on unequal lengths, fewer than 2 pairs, non-finite
/// values, or a constant sample.
///
/// ```
/// let p = serpsim::stats::correlation::pearson_test(&[1.0, 2.0, 3.0, 4.0], &[2.0, 4.0, 6.0, 8.5]).unwrap();
/// assert!(p.r > 0.99);
/// ```
pub fn pearson_test(x: &[f64], y: &[f64]) -> crate::error::Result<PearsonTest> {
    use crate::error::Error;
    use statrs::distribution::{ContinuousCDF, StudentsT};
    if x.len() != y.len() || x.len() < 2 {
        return Err(Error::Invalid(format!("Pearson: need two equal-length samples of at least 2 values (got {} and {})", x.len(), y.len())));
    }
    if x.iter().chain(y).any(|v| !v.is_finite()) {
        return Err(Error::Invalid("Pearson: values must be finite".into()));
    }
    let r = pearson(x, y);
    if r.is_nan() {
        return Err(Error::Invalid("Pearson: a sample is constant".into()));
    }
    let r = r.clamp(-1.0, 1.0);
    let n = x.len();
    let p = if n < 3 {
        f64::NAN
    } else if r.abs() == 1.0 {
        0.0
    } else {
        let df = (n - 2) as f64;
        let t = r * (df / (1.0 - r * r)).sqrt();
        2.0 * StudentsT::new(0.0, 1.0, df).map(|d| d.sf(t.abs())).unwrap_or(f64::NAN)
    };
    Ok(PearsonTest { r, n, p })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pearson_test_matches_r_cor_test() {
        // R: cor.test(c(1,2,3,4,5), c(2,1,4,3,5)) -> r = 0.8, t = 2.3094, p = 0.1041
        let p = pearson_test(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 1.0, 4.0, 3.0, 5.0]).unwrap();
        assert!((p.r - 0.8).abs() < 1e-12);
        assert!((p.p - 0.104088).abs() < 1e-5, "{}", p.p);
        assert!(pearson_test(&[1.0, 1.0], &[1.0, 2.0]).is_err());
    }

    #[test]
    fn gao_toy_tau_ap_and_tau_gap() {
        // Truth A .5, B .21, C .2, D .1; predicted order A, C, B, D.
        let truth = [0.5, 0.21, 0.2, 0.1];
        let predicted = [4.0, 2.0, 3.0, 1.0];
        assert!((tau_ap(&truth, &predicted) - 0.6667).abs() < 5e-5);
        assert!((tau_gap(&truth, &predicted) - 0.9778).abs() < 5e-5);
        assert!((tau_ap(&truth, &truth) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn kendall_by_hand_and_pearson() {
        // C = 7, D = 1 of 10 pairs; one tie in x, one in y (scipy: tau-b 0.6667).
        let x = [1.0, 2.0, 2.0, 3.0, 4.0];
        let y = [1.0, 3.0, 2.0, 2.0, 5.0];
        assert!((kendall_tau_a(&x, &y) - 0.6).abs() < 1e-12);
        assert!((kendall_tau_b(&x, &y) - 6.0 / 9.0).abs() < 1e-12);
        // scipy.stats.pearsonr
        let a = [0.31, 0.45, 0.12, 0.5, 0.33, 0.29, 0.41];
        let b = [0.28, 0.40, 0.15, 0.41, 0.30, 0.30, 0.35];
        assert!((pearson(&a, &b) - 0.9876350958120439).abs() < 1e-12);
        assert!(pearson(&[1.0, 1.0], &[1.0, 2.0]).is_nan());
    }

    /// Magdy and Jones Table 4 (48 CLEF-IP runs, transcribed in study_logs/metrics/pres_table4.csv):
    /// Spearman 0.970 / 0.812 / 0.709 and Kendall tau-b .878 / .665 / .561 for
    /// PRES-Recall, PRES-MAP and MAP-Recall.
    #[test]
    fn magdy_table4_correlations() {
        let text = include_str!("../../study_logs/metrics/pres_table4.csv");
        let (mut map, mut recall, mut pres) = (vec![], vec![], vec![]);
        for line in text.lines().skip(1) {
            let f: Vec<f64> = line.split(',').skip(1).map(|v| v.parse().unwrap()).collect();
            map.push(f[0]);
            recall.push(f[1]);
            pres.push(f[2]);
        }
        assert_eq!(map.len(), 48);
        let close = |a: f64, b: f64| (a - b).abs() < 5e-4;
        assert!(close(spearman(&pres, &recall), 0.970), "{}", spearman(&pres, &recall));
        assert!(close(spearman(&pres, &map), 0.812), "{}", spearman(&pres, &map));
        assert!(close(spearman(&map, &recall), 0.709), "{}", spearman(&map, &recall));
        assert!(close(kendall_tau_b(&pres, &recall), 0.878), "{}", kendall_tau_b(&pres, &recall));
        assert!(close(kendall_tau_b(&pres, &map), 0.665), "{}", kendall_tau_b(&pres, &map));
        assert!(close(kendall_tau_b(&map, &recall), 0.561), "{}", kendall_tau_b(&map, &recall));
    }
}
