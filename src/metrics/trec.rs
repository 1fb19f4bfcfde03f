//! The trec_eval family over one ranked list of grades: P@k, R@k, AP, RR, R-prec, nDCG.
//!
//! Conventions follow trec_eval: a document is relevant when its grade is at least
//! [`RELEVANCE_LEVEL`] (1); P@k always divides by k, even when fewer than k documents were
//! retrieved; AP and R-prec divide by the number of judged relevant documents (`num_rel`);
//! nDCG uses the grades as gains (negative grades count 0), the discount `log2(i + 1)`, and an
//! ideal ranking built from every judged document of the topic.

/// Grade at or above which a document counts as relevant (trec_eval's default `-l 1`).
pub const RELEVANCE_LEVEL: i32 = 1;

#[inline]
fn is_rel(g: i32) -> bool {
    g >= RELEVANCE_LEVEL
}

/// Number of relevant documents in the first `k` ranks.
pub fn relevant_in(ranked: &[i32], k: usize) -> usize {
    ranked.iter().take(k).filter(|&&g| is_rel(g)).count()
}

/// P@k: relevant documents in the top `k`, divided by `k`.
pub fn precision_at(ranked: &[i32], k: usize) -> f64 {
    if k == 0 {
        return 0.0;
    }
    relevant_in(ranked, k) as f64 / k as f64
}

/// R@k: relevant documents in the top `k`, divided by `num_rel` (0 when `num_rel` = 0).
pub fn recall_at(ranked: &[i32], k: usize, num_rel: usize) -> f64 {
    if num_rel == 0 {
        return 0.0;
    }
    relevant_in(ranked, k) as f64 / num_rel as f64
}

/// Average precision over the first `k` ranks (all of them for `usize::MAX`), divided by
/// `num_rel` (0 when the topic has no relevant document).
pub fn average_precision(ranked: &[i32], k: usize, num_rel: usize) -> f64 {
    if num_rel == 0 {
        return 0.0;
    }
    let mut found = 0usize;
    let mut sum = 0.0;
    for (i, &g) in ranked.iter().take(k).enumerate() {
        if is_rel(g) {
            found += 1;
            sum += found as f64 / (i + 1) as f64;
        }
    }
    sum / num_rel as f64
}

/// Reciprocal rank of the first relevant document (0 if none is retrieved).
pub fn reciprocal_rank(ranked: &[i32]) -> f64 {
    ranked.iter().position(|&g| is_rel(g)).map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

/// R-precision: precision at rank `num_rel` (0 when `num_rel` = 0).
pub fn r_precision(ranked: &[i32], num_rel: usize) -> f64 {
    if num_rel == 0 {
        return 0.0;
    }
    relevant_in(ranked, num_rel) as f64 / num_rel as f64
}

/// The rank discount of DCG.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Discount {
    /// `1 / log2(i + 1)` for rank i from 1 (Burges et al.; trec_eval's `ndcg`).
    Log2,
    /// Järvelin and Kekäläinen's original: no discount for ranks i < b, then `1 / log_b(i)`.
    Jarvelin {
        /// Logarithm base b (2 in the original paper).
        base: f64,
    },
}

impl Discount {
    /// Weight of rank `i` (1-based).
    #[inline]
    pub fn weight(&self, i: usize) -> f64 {
        match *self {
            Discount::Log2 => 1.0 / ((i + 1) as f64).log2(),
            Discount::Jarvelin { base } => {
                if (i as f64) < base {
                    1.0
                } else {
                    base.ln() / (i as f64).ln()
                }
            }
        }
    }
}

/// DCG over the first `k` ranks with gains = grades (negative grades count 0).
pub fn dcg(ranked: &[i32], k: usize, discount: Discount) -> f64 {
    ranked.iter().take(k).enumerate().filter(|(_, &g)| g > 0).map(|(i, &g)| g as f64 * discount.weight(i + 1)).sum()
}

/// nDCG@k. `ideal` holds the judged positive grades of the topic sorted descending.
/// 0 when the topic has no positive grade.
pub fn ndcg(ranked: &[i32], ideal: &[i32], k: usize, discount: Discount) -> f64 {
    let idcg = dcg(ideal, k, discount);
    if idcg <= 0.0 {
        0.0
    } else {
        dcg(ranked, k, discount) / idcg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_binary_metrics() {
        // Ranking R N R N N, 3 relevant judged: AP = (1/1 + 2/3) / 3 = 0.5555...
        let r = [1, 0, 1, 0, 0];
        assert!((average_precision(&r, usize::MAX, 3) - (1.0 + 2.0 / 3.0) / 3.0).abs() < 1e-12);
        assert_eq!(precision_at(&r, 10), 0.2); // trec_eval divides by k even past the list end
        assert!((r_precision(&r, 3) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(reciprocal_rank(&[0, 0, 2]), 1.0 / 3.0);
        assert_eq!(recall_at(&r, 1, 4), 0.25);
    }

    #[test]
    fn jarvelin_discount_leaves_first_ranks_undiscounted() {
        let d = Discount::Jarvelin { base: 2.0 };
        assert_eq!(d.weight(1), 1.0);
        assert_eq!(d.weight(2), 1.0);
        assert!((d.weight(4) - 0.5).abs() < 1e-12);
        // DCG of [3, 2, 3] = 3 + 2 + 3 / log2(3)
        assert!((dcg(&[3, 2, 3], 10, d) - (5.0 + 3.0 / 3f64.log2())).abs() < 1e-12);
    }
}
