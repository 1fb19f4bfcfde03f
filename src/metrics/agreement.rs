//! The exhaustive disagreement study of Jones et al. (2015): score every binary ranking of
//! length k with two metrics and count the ranking pairs on which they disagree.
//!
//! Two metrics agree on a pair (A, B) when both prefer A, both prefer B, or both tie. A metric
//! that is undefined on a ranking (the self-normalised SN-AP and SN-DCG on a ranking with no
//! relevant document) scores NaN there; "undefined" is its own outcome, so it agrees only with
//! "undefined".
//!
//! Ties between mathematically equal scores depend on floating-point details, so both are
//! settings ([`Arithmetic`]): [`Arithmetic::EXACT_TIES`] finds exactly the ties of exact
//! rational arithmetic; [`Arithmetic::JONES2015`] is the arithmetic that reproduces the
//! paper's Table 2 (numpy's pairwise summation for the DCG family, ties at |d| < 2^-53).

/// How a sum of discounts is accumulated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Summation {
    /// Left to right over the relevant positions.
    Sequential,
    /// numpy's `np.sum`: pairwise with an 8-way unrolled block, over the whole length-k vector
    /// (zeros at non-relevant positions) for DCG and over the first n discounts for the ideal.
    NumpyPairwise,
}

/// When two scores count as tied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tie {
    /// |a - b| <= epsilon.
    AtMost(f64),
    /// |a - b| < epsilon.
    Below(f64),
}

/// Floating-point conventions of a disagreement study.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arithmetic {
    /// Summation of the DCG family.
    pub summation: Summation,
    /// Tie rule.
    pub tie: Tie,
}

impl Arithmetic {
    /// Sequential sums and ties at |d| <= 2^-53: the tie structure of exact arithmetic
    /// (checked against rationals for AP vs RBP.50: 94,255 disagreeing pairs either way).
    pub const EXACT_TIES: Arithmetic = Arithmetic { summation: Summation::Sequential, tie: Tie::AtMost(TIE_2_53) };
    /// The arithmetic behind Jones et al.'s Table 2 as printed: numpy sums, ties at |d| < 2^-53.
    pub const JONES2015: Arithmetic = Arithmetic { summation: Summation::NumpyPairwise, tie: Tie::Below(TIE_2_53) };
}

const TIE_2_53: f64 = 1.0 / 9_007_199_254_740_992.0;

/// numpy's pairwise sum of a short contiguous float64 array (`pairwise_sum` for n <= 128).
pub fn numpy_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        return a.iter().fold(0.0, |s, &x| s + x);
    }
    assert!(n <= 128, "numpy_sum emulates the unblocked case only");
    let mut r = [0.0; 8];
    r.copy_from_slice(&a[..8]);
    let mut i = 8;
    while i < n - n % 8 {
        for j in 0..8 {
            r[j] += a[i + j];
        }
        i += 8;
    }
    let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for &x in &a[i..] {
        res += x;
    }
    res
}

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
    /// Score of one binary ranking, with sequential sums.
    pub fn score(&self, ranking: &[bool]) -> f64 {
        self.score_with(ranking, Summation::Sequential)
    }

    /// Score of one binary ranking, summing the DCG family as `summation` says.
    pub fn score_with(&self, ranking: &[bool], summation: Summation) -> f64 {
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
        let discount = |i: usize| 1.0 / ((i + 2) as f64).log2();
        let dcg = || match summation {
            Summation::Sequential => ranking.iter().enumerate().filter(|(_, &r)| r).fold(0.0, |s, (i, _)| s + discount(i)),
            Summation::NumpyPairwise => {
                let terms: Vec<f64> = ranking.iter().enumerate().map(|(i, &r)| if r { discount(i) } else { 0.0 }).collect();
                numpy_sum(&terms)
            }
        };
        let ideal_dcg = |n: usize| match summation {
            Summation::Sequential => (0..n).fold(0.0, |s, i| s + discount(i)),
            Summation::NumpyPairwise => numpy_sum(&(0..n).map(discount).collect::<Vec<_>>()),
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
            BinaryMetric::Dcg => dcg(),
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
                    dcg() / ideal_dcg(found)
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

fn outcome(d: f64, tie: Tie) -> i8 {
    let tied = match tie {
        Tie::AtMost(eps) => d.abs() <= eps,
        Tie::Below(eps) => d.abs() < eps,
    };
    if d.is_nan() {
        2
    } else if tied {
        0
    } else if d > 0.0 {
        1
    } else {
        -1
    }
}

/// Fraction of unordered pairs of items on which the score vectors `a` and `b` disagree.
pub fn disagreement(a: &[f64], b: &[f64], tie: Tie) -> f64 {
    assert_eq!(a.len(), b.len());
    let n = a.len();
    let mut disagree = 0u64;
    for i in 0..n {
        for j in i + 1..n {
            if outcome(a[i] - a[j], tie) != outcome(b[i] - b[j], tie) {
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
pub fn disagreement_table(metrics: &[BinaryMetric], k: usize, arithmetic: Arithmetic) -> Vec<Vec<f64>> {
    use rayon::prelude::*;
    let rankings = all_binary_rankings(k);
    let scores: Vec<Vec<f64>> = metrics.iter().map(|m| rankings.iter().map(|r| m.score_with(r, arithmetic.summation)).collect()).collect();
    let n = metrics.len();
    let cells: Vec<(usize, usize, f64)> = (0..n)
        .flat_map(|i| (0..i).map(move |j| (i, j)))
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|(i, j)| (i, j, 100.0 * disagreement(&scores[i], &scores[j], arithmetic.tie)))
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

    /// Jones et al. Table 2 in the paper's column order, and the printed cells (row i >= 1,
    /// column j < i).
    fn table2() -> ([BinaryMetric; 9], [&'static [f64]; 8]) {
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
        (metrics, printed)
    }

    /// Cells of `table` that miss the printed value at 2 decimals.
    fn misses(table: &[Vec<f64>], printed: &[&[f64]]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (row, cells) in printed.iter().enumerate() {
            for (j, &expect) in cells.iter().enumerate() {
                if (table[row + 1][j] - expect).abs() > 0.005 + 1e-9 {
                    out.push((row + 1, j));
                }
            }
        }
        out
    }

    #[test]
    fn jones_table2() {
        // k = 10, R = 10, DCG = sum 1/log2(i+1), numpy sums and ties at |d| < 2^-53. Every cell
        // but RBP.50 vs SN-AP matches; that cell contradicts two others (next test).
        let (metrics, printed) = table2();
        let table = disagreement_table(&metrics, 10, Arithmetic::JONES2015);
        assert_eq!(misses(&table, &printed), vec![(7, 6)]);
        // 8.2461 is the numpy cross-check's value (analysis/metrics/jones_float.py).
        assert!((table[7][6] - 8.2461).abs() < 5e-5, "{}", table[7][6]);
    }

    #[test]
    fn jones_table2_exact_ties() {
        // With the ties of exact arithmetic, AP vs RBP.50 disagree on 94,255 of 523,776 pairs,
        // the count from rational arithmetic (analysis/metrics/jones_float.py); the paper's
        // 17.99 needs its float ties. The SN-DCG cells move with the summation order.
        let (metrics, printed) = table2();
        let table = disagreement_table(&metrics, 10, Arithmetic::EXACT_TIES);
        assert!((table[7][4] - 100.0 * 94_255.0 / 523_776.0).abs() < 1e-9);
        assert_eq!(misses(&table, &printed), vec![(7, 4), (7, 6), (8, 1), (8, 3)]);
    }

    #[test]
    fn jones_printed_sn_cells_contradict_each_other() {
        // Only pairs with the all-zero ranking Z depend on how SN-AP and SN-DCG treat Z.
        // On each such pair RBP.50 prefers the other ranking. Let z(m, m') count the Z pairs on
        // which m and m' disagree: z(SN-DCG, RBP.50) <= z(SN-AP, RBP.50) + z(SN-DCG, SN-AP)
        // for any outcomes whatsoever. The printed cells require the opposite.
        let (metrics, printed) = table2();
        let rankings = all_binary_rankings(10);
        let n = rankings.len() as f64;
        let pairs = n * (n - 1.0) / 2.0;
        let scores: Vec<Vec<f64>> = metrics.iter().map(|m| rankings[1..].iter().map(|r| m.score_with(r, Summation::NumpyPairwise)).collect()).collect();
        // Range of Z-pair disagreements that keeps cell (i, j) at its printed value.
        let z_range = |i: usize, j: usize| {
            let without_z = disagreement(&scores[i], &scores[j], Arithmetic::JONES2015.tie);
            let m = n - 1.0;
            let without_z = without_z * m * (m - 1.0) / 2.0;
            let p = printed[i - 1][j];
            let lo = ((p - 0.005) * pairs / 100.0 - without_z).ceil().max(0.0);
            let hi = ((p + 0.005) * pairs / 100.0 - without_z).floor().min(1023.0);
            (lo, hi)
        };
        let (_, hi_ap_rbp) = z_range(7, 6);
        let (_, hi_dcg_ap) = z_range(8, 6);
        let (lo_dcg_rbp, _) = z_range(8, 7);
        assert!(lo_dcg_rbp > hi_ap_rbp + hi_dcg_ap, "{lo_dcg_rbp} vs {hi_ap_rbp} + {hi_dcg_ap}");
    }

    #[test]
    fn numpy_sum_matches_numpy_order() {
        // np.sum([0.1] * 10) == 1.0 (pairwise), while a left-to-right sum gives 0.9999999999999999.
        let a = [0.1; 10];
        assert_eq!(numpy_sum(&a), 1.0);
        assert_eq!(a.iter().fold(0.0, |s, &x| s + x), 0.9999999999999999);
        assert_eq!(numpy_sum(&a[..7]), a[..7].iter().fold(0.0, |s, &x| s + x));
    }

    #[test]
    fn pair_count_and_ties() {
        assert_eq!(all_binary_rankings(3).len(), 8);
        // Identical metrics never disagree; a metric against its negation always does
        // (except on ties).
        let a = [0.1, 0.2, 0.3];
        let tie = Tie::AtMost(0.0);
        assert_eq!(disagreement(&a, &a, tie), 0.0);
        assert_eq!(disagreement(&a, &[0.3, 0.2, 0.1], tie), 1.0);
        assert!((disagreement(&a, &[0.0, 0.0, 1.0], tie) - 1.0 / 3.0).abs() < 1e-12);
        // A difference of exactly epsilon ties under AtMost, not under Below.
        assert_eq!(disagreement(&[0.0, 0.5], &[0.0, 0.0], Tie::AtMost(0.5)), 0.0);
        assert_eq!(disagreement(&[0.0, 0.5], &[0.0, 0.0], Tie::Below(0.5)), 1.0);
    }
}
