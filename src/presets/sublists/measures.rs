//! Per-topic sublist measures (Rq, Hq), the oracle prior and user accuracy levels.

use super::model::TopicSublists;
use crate::collection::ndcg_at;
use serde::{Deserialize, Serialize};

/// nDCG over the whole of sublist `k` (nDCG@all), against the ideal ordering of every result
/// of "All": a sublist scores high when it holds many relevant results near its top.
pub fn sublist_ndcg(topic: &TopicSublists, k: usize) -> f64 {
    let g = topic.sublist_grades(k);
    ndcg_at(&g, &topic.grades, topic.grades.len())
}

/// Sublist relevance Rq: mean [`sublist_ndcg`] over the category sublists ("All" excluded);
/// 0 when the topic has none.
pub fn sublist_relevance(topic: &TopicSublists) -> f64 {
    let k = topic.k();
    if k < 2 {
        return 0.0;
    }
    (1..k).map(|i| sublist_ndcg(topic, i)).sum::<f64>() / (k - 1) as f64
}

/// Sublist entropy Hq = -sum_i p_i ln p_i (nats), with p_i the share of relevant results
/// (counted with multiplicity over labels) falling in category sublist i ("All" excluded).
/// 0 without relevant results.
pub fn sublist_entropy(topic: &TopicSublists) -> f64 {
    let counts: Vec<f64> = topic.lists[1..].iter().map(|l| l.iter().filter(|&&r| topic.grades[r as usize] > 0).count() as f64).collect();
    let total: f64 = counts.iter().sum();
    if total == 0.0 {
        return 0.0;
    }
    -counts.iter().filter(|&&c| c > 0.0).map(|&c| (c / total) * (c / total).ln()).sum::<f64>()
}

/// The user's prior over sublists (the Dirichlet hyperparameters alpha_u).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Prior {
    /// alpha_k = nDCG of sublist k (the oracle).
    Ndcg,
    /// alpha_k = 1 / K.
    Random,
    /// alpha_k = nDCG_k + s: the oracle smoothed towards uniform by `s`.
    Smoothed(f64),
}

impl Prior {
    /// Name for outputs: `ndcg`, `random`, `smoothed-0.5`.
    pub fn name(&self) -> String {
        match self {
            Prior::Ndcg => "ndcg".into(),
            Prior::Random => "random".into(),
            Prior::Smoothed(s) => format!("smoothed-{s}"),
        }
    }

    /// alpha for every sublist of `topic` ("All" included).
    pub fn alpha(&self, topic: &TopicSublists) -> Vec<f64> {
        let k = topic.k();
        match self {
            Prior::Random => vec![1.0 / k as f64; k],
            Prior::Ndcg => (0..k).map(|i| sublist_ndcg(topic, i)).collect(),
            Prior::Smoothed(s) => (0..k).map(|i| sublist_ndcg(topic, i) + s).collect(),
        }
    }
}

/// User accuracy levels 1-4: the smoothing added to the oracle (0, 0.1, 0.5, 1).
pub const ACCURACY_SMOOTHING: [f64; 4] = [0.0, 0.1, 0.5, 1.0];

/// KL(p || q) in nats of the normalised vectors; `None` when p is all zero or q is zero
/// where p is not.
pub fn kl_divergence(p: &[f64], q: &[f64]) -> Option<f64> {
    let (sp, sq): (f64, f64) = (p.iter().sum(), q.iter().sum());
    if sp <= 0.0 || sq <= 0.0 {
        return None;
    }
    let mut kl = 0.0;
    for (&a, &b) in p.iter().zip(q) {
        let (a, b) = (a / sp, b / sq);
        if a > 0.0 {
            if b <= 0.0 {
                return None;
            }
            kl += a * (a / b).ln();
        }
    }
    Some(kl)
}

/// KL divergence of a prior's expected choice probabilities E[c] = alpha / sum(alpha) from the
/// oracle's: KL(oracle || prior). `None` for topics without relevant results.
pub fn kl_from_oracle(topic: &TopicSublists, prior: Prior) -> Option<f64> {
    kl_divergence(&Prior::Ndcg.alpha(topic), &prior.alpha(topic))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_match_hand_values() {
        // All: grades 1 0 1 0; sublist a = ranks 1, 3 (both relevant), b = rank 2, 4 (none).
        let t = TopicSublists::new("t", vec![1, 0, 1, 0], vec![("a".into(), vec![0, 2]), ("b".into(), vec![1, 3])]).unwrap();
        assert!((sublist_ndcg(&t, 1) - 1.0).abs() < 1e-12);
        assert_eq!(sublist_ndcg(&t, 2), 0.0);
        let all = (1.0 + 1.0 / 4f64.log2()) / (1.0 + 1.0 / 3f64.log2());
        assert!((sublist_ndcg(&t, 0) - all).abs() < 1e-12);
        assert!((sublist_relevance(&t) - 0.5).abs() < 1e-12);
        assert_eq!(sublist_entropy(&t), 0.0);
        // Two sublists with one relevant each: ln 2.
        let t2 = TopicSublists::new("t", vec![1, 0, 1, 0], vec![("a".into(), vec![0]), ("b".into(), vec![2])]).unwrap();
        assert!((sublist_entropy(&t2) - 2f64.ln()).abs() < 1e-12);
        // KL of the random prior from the oracle (all, a, b) = (all, 1, 0) vs uniform.
        let p = [all / (all + 1.0), 1.0 / (all + 1.0)];
        let expect = p.iter().map(|x| x * (x * 3.0).ln()).sum::<f64>();
        assert!((kl_from_oracle(&t, Prior::Random).unwrap() - expect).abs() < 1e-12);
        assert_eq!(kl_from_oracle(&t, Prior::Smoothed(0.0)), Some(0.0));
        let k1 = kl_from_oracle(&t, Prior::Smoothed(0.1)).unwrap();
        let k2 = kl_from_oracle(&t, Prior::Smoothed(1.0)).unwrap();
        assert!(0.0 < k1 && k1 < k2 && k2 < expect);
    }
}
