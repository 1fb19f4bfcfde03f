//! PRES, the patent retrieval evaluation score (Magdy and Jones 2010), with the formula as
//! corrected in the reading notes: `PRES = 1 - (sum_i r_i / n - (n + 1) / 2) / N_max`.
//!
//! Relevant documents not retrieved in the top `N_max` are placed right after it, at ranks
//! `N_max + k + 1 .. N_max + n` (k = number found), so the worst case is 0 and ranks 1..n give 1.

/// PRES from the 1-based ranks of the retrieved relevant documents (any order; ranks above
/// `n_max` are ignored), the number of relevant documents `n` and the cut-off `n_max`.
/// 0 when `n` = 0 or `n_max` = 0.
pub fn pres_from_ranks(ranks: &[usize], n: usize, n_max: usize) -> f64 {
    if n == 0 || n_max == 0 {
        return 0.0;
    }
    let found: Vec<usize> = ranks.iter().copied().filter(|&r| r >= 1 && r <= n_max).collect();
    let k = found.len().min(n);
    let missing = (n - k) as f64;
    let sum: f64 = found.iter().take(n).map(|&r| r as f64).sum::<f64>() + missing * (n_max + n) as f64 - missing * (missing - 1.0) / 2.0;
    let n = n as f64;
    1.0 - (sum / n - (n + 1.0) / 2.0) / n_max as f64
}

/// PRES over a ranked list of relevance flags.
pub fn pres(relevant: &[bool], n: usize, n_max: usize) -> f64 {
    let ranks: Vec<usize> = relevant.iter().take(n_max).enumerate().filter(|(_, &r)| r).map(|(i, _)| i + 1).collect();
    pres_from_ranks(&ranks, n, n_max)
}

/// PRES_est for `n_max < n`: PRES divided by the best reachable recall `R_max = min(1, N_max / n)`.
pub fn pres_est(relevant: &[bool], n: usize, n_max: usize) -> f64 {
    if n == 0 || n_max == 0 {
        return 0.0;
    }
    let r_max = (n_max as f64 / n as f64).min(1.0);
    pres(relevant, n, n_max) / r_max
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn magdy_tables_1_and_2() {
        // n = 4, N_max = 100 (Tables 1-2 and the text). {50,51,53,54} is 0.505 with the
        // corrected formula (the paper prints 0.51).
        let cases: [(&[usize], f64); 5] = [(&[1], 0.25), (&[50, 51, 53, 54], 0.505), (&[1, 2, 3, 4], 1.0), (&[1, 98, 99, 100], 0.28), (&[], 0.0)];
        for (ranks, expect) in cases {
            let v = pres_from_ranks(ranks, 4, 100);
            assert!((v - expect).abs() < 1e-9, "{ranks:?}: {v} vs {expect}");
        }
    }

    #[test]
    fn magdy_table3_and_text() {
        assert!((pres_from_ranks(&[32, 35, 46], 3, 1000) - 0.96433).abs() < 5e-6);
        assert!((pres_from_ranks(&[32, 35, 46], 3, 100) - 0.643333).abs() < 5e-7);
        let v = pres_from_ranks(&[1, 33, 354, 548, 733, 840, 841], 7, 1000);
        assert!((v - 0.52543).abs() < 5e-6, "{v}");
        // Every row of Table 3 (N_max = 1000, the column printed "N" is n), PRES as printed
        // with 3 decimals: the value must round to it.
        let rows: [(&[usize], usize, f64); 8] = [
            (&[98, 296], 41, 0.039),
            (&[23, 272, 345], 6, 0.394),
            (&[2, 517, 761], 6, 0.288),
            (&[660, 741], 3, 0.201),
            (&[41, 54], 3, 0.636),
            (&[1, 781], 3, 0.407),
            (&[1, 33, 354, 548, 733, 840, 841], 7, 0.525),
            (&[32, 35, 46], 3, 0.964),
        ];
        for (ranks, n, printed) in rows {
            let v = pres_from_ranks(ranks, n, 1000);
            assert!((v - printed).abs() <= 0.0005 + 1e-12, "{ranks:?}: {v} vs printed {printed}");
        }
    }

    #[test]
    fn pres_est_rescales_by_reachable_recall() {
        // n = 10, N_max = 5, top 5 all relevant: PRES = 1 - (sum/n - 5.5)/5 with
        // sum = 15 + 5 * 15 - 10 = 80 -> 1 - 2.5/5 = 0.5 = R_max, so PRES_est = 1.
        let rel = [true; 5];
        assert!((pres(&rel, 10, 5) - 0.5).abs() < 1e-12);
        assert!((pres_est(&rel, 10, 5) - 1.0).abs() < 1e-12);
    }

    proptest! {
        #[test]
        fn pres_lies_between_its_bounds(flags in proptest::collection::vec(any::<bool>(), 0..60),
                                        extra in 0usize..20, n_max in 1usize..80) {
            let found = flags.iter().take(n_max).filter(|&&r| r).count();
            let n = found + extra;
            prop_assume!(n > 0 && n <= n_max);
            let recall = found as f64 / n as f64;
            let v = pres(&flags, n, n_max);
            prop_assert!(v <= recall + 1e-12, "PRES {} > recall {}", v, recall);
            prop_assert!(v >= n as f64 * recall * recall / n_max as f64 - 1e-12);
        }
    }
}
