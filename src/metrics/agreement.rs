//! The exhaustive disagreement study of Jones et al. (2015): score every binary ranking of
//! length k with two metrics and count the ranking pairs on which they disagree.
//!
//! Two metrics agree on a pair (A, B) when both prefer A, both prefer B, or both tie
//! (|difference| <= `tie_epsilon`, 2^-53 in the paper). A metric that is undefined on a
//! ranking (the self-normalised SN-AP and SN-DCG on a ranking with no relevant document)
//! scores NaN there; "undefined" is its own outcome, so it agrees only with "undefined".

/// Metrics over binary rankings, as in Moffat (2013) and Jones et al. Table 2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BinaryMetric {
    /// Precision at k (agrees completely with recall at k).
    Precision,
    /// RBP with persistence p (the score, not the residual).
    Rbp(f64),
    /// DCG with the `1 / log2(i + 1)` discount (agrees with nDCG and SDCG on one topic).
    Dcg,
    /// AP with R relevant documents in the collection (agrees with SP).
    Ap {
        /// Number of relevant documents R.
        r: usize,
    },
    /// Reciprocal rank (agrees with ERR on binary rankings).
    Rr,
    /// AP normalised by the relevant documents in the ranking; undefined when there are none.
    SnAp,
    /// DCG over the ideal DCG of the ranking's own relevant documents; undefined when none.
    SnDcg,
}

impl BinaryMetric {
    /// Score of one binary ranking.
    pub fn score(&self, ranking: &[bool]) -> f64 {
        let found = ranking.iter().filter(|&&r| r).count();
        let ap_sum = || {
            let mut seen = 0;
            let mut s = 0.0;
            for (i, &r) in ranking.iter().enumerate() {
                if r {
                    seen += 1;
                    s += seen as f64 / (i + 1) as f64;
                }
            }
            s
        };
        let dcg = |xs: &mut dyn Iterator<Item = bool>| -> f64 {
            xs.enumerate().filter(|(_, r)| *r).map(|(i, _)| 1.0 / ((i + 2) as f64).log2()).sum()
        };
        match *self {
            BinaryMetric::Precision => found as f64 / ranking.len().max(1) as f64,
            BinaryMetric::Rbp(p) => {
                let mut w = 1.0 - p;
                let mut s = 0.0;
                for &r in ranking {
                    if r {
                        s += w;
                    }
                    w *= p;
                }
                s
            }
            BinaryMetric::Dcg => dcg(&mut ranking.iter().copied()),
            BinaryMetric::Ap { r } => ap_sum() / r.max(1) as f64,
            BinaryMetric::Rr => ranking.iter().position(|&r| r).map_or(0.0, |i| 1.0 / (i + 1) as f64),
            BinaryMetric::SnAp => {
                if found == 0 {
                    f64::NAN
                } else {
                    ap_sum() / found as f64
                }
            }
            BinaryMetric::SnDcg => {
                if found == 0 {
                    f64::NAN
                } else {
                    dcg(&mut ranking.iter().copied()) / dcg(&mut (0..found).map(|_| true))
                }
            }
        }
    }
}

/// Every binary ranking of length `k` (2^k of them), ranking m having rank i relevant when
/// bit `k - 1 - i` of m is set.
pub fn all_binary_rankings(k: usize) -> Vec<Vec<bool>> {
    assert!(k < 32, "2^k rankings must fit in memory");
    (0..1u32 << k).map(|m| (0..k).map(|i| (m >> (k - 1 - i)) & 1 == 1).collect()).collect()
}

fn outcome(d: f64, eps: f64) -> i8 {
    if d.is_nan() {
        2
    } else if d.abs() <= eps {
        0
    } else if d > 0.0 {
        1
    } else {
        -1
    }
}

/// Fraction of unordered pairs of items on which the score vectors `a` and `b` disagree.
pub fn disagreement(a: &[f64], b: &[f64], tie_epsilon: f64) -> f64 {
    assert_eq!(a.len(), b.len());
    let n = a.len();
    let mut disagree = 0u64;
    for i in 0..n {
        for j in i + 1..n {
            if outcome(a[i] - a[j], tie_epsilon) != outcome(b[i] - b[j], tie_epsilon) {
                disagree += 1;
            }
        }
    }
    let pairs = (n * n.saturating_sub(1) / 2) as f64;
    if pairs == 0.0 {
        0.0
    } else {
        disagree as f64 / pairs
    }
}

/// Percentage of disagreeing pairs for every pair of `metrics` over all binary rankings of
/// length `k`: `table[i][j]`, symmetric, 0 on the diagonal.
pub fn disagreement_table(metrics: &[BinaryMetric], k: usize, tie_epsilon: f64) -> Vec<Vec<f64>> {
    use rayon::prelude::*;
    let rankings = all_binary_rankings(k);
    let scores: Vec<Vec<f64>> = metrics.iter().map(|m| rankings.iter().map(|r| m.score(r)).collect()).collect();
    let n = metrics.len();
    let cells: Vec<(usize, usize, f64)> = (0..n)
        .flat_map(|i| (0..i).map(move |j| (i, j)))
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|(i, j)| (i, j, 100.0 * disagreement(&scores[i], &scores[j], tie_epsilon)))
        .collect();
    let mut table = vec![vec![0.0; n]; n];
    for (i, j, v) in cells {
        table[i][j] = v;
        table[j][i] = v;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jones_table2() {
        // Jones et al. Table 2, k = 10, R = 10, ties at 2^-53. Column order of the paper.
        let metrics = [
            BinaryMetric::Precision,
            BinaryMetric::Rbp(0.95),
            BinaryMetric::Dcg,
            BinaryMetric::Rbp(0.85),
            BinaryMetric::Ap { r: 10 },
            BinaryMetric::Rr,
            BinaryMetric::SnAp,
            BinaryMetric::Rbp(0.5),
            BinaryMetric::SnDcg,
        ];
        let printed: [&[f64]; 8] = [
            &[17.57],
            &[23.99, 8.65],
            &[23.75, 6.87, 5.32],
            &[23.06, 7.02, 3.01, 2.88],
            &[54.09, 50.79, 43.02, 45.73, 45.04],
            &[36.45, 20.41, 13.25, 13.59, 13.43, 38.31],
            &[39.99, 24.95, 16.30, 18.29, 17.99, 33.27, 8.05],
            &[38.34, 23.00, 14.35, 16.31, 16.05, 35.24, 4.25, 4.41],
        ];
        // Cells that do not reproduce (analysis/metrics/README.md): AP vs RBP.50 (17.9953 here;
        // exact rational arithmetic agrees) and three cells involving the SN metrics, which the
        // paper does not define. They are asserted to still miss, so a fix shows up here.
        let misses = [(7, 4), (7, 6), (8, 1), (8, 3)];
        let table = disagreement_table(&metrics, 10, 2f64.powi(-53));
        let mut matched = 0;
        for (row, cells) in printed.iter().enumerate() {
            let i = row + 1;
            for (j, &expect) in cells.iter().enumerate() {
                let got = table[i][j];
                if misses.contains(&(i, j)) {
                    assert!((got - expect).abs() > 0.005, "known miss ({i},{j}) now matches: update the list");
                    continue;
                }
                assert!((got - expect).abs() <= 0.005 + 1e-9, "cell ({i},{j}): {got:.4} vs {expect}");
                matched += 1;
            }
        }
        assert_eq!(matched, 32);
    }

    #[test]
    fn pair_count_and_ties() {
        assert_eq!(all_binary_rankings(3).len(), 8);
        // Identical metrics never disagree; a metric against its negation always does
        // (except on ties).
        let a = [0.1, 0.2, 0.3];
        assert_eq!(disagreement(&a, &a, 0.0), 0.0);
        assert_eq!(disagreement(&a, &[0.3, 0.2, 0.1], 0.0), 1.0);
        assert!((disagreement(&a, &[0.0, 0.0, 1.0], 0.0) - 1.0 / 3.0).abs() < 1e-12);
    }
}
