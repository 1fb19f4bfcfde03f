//! Bootstrap over clusters (queries): every resample draws the clusters with replacement and
//! keeps every unit of a drawn cluster, as often as the cluster was drawn.
//!
//! Pairs of orderings, switch decisions and held-out sessions of one query share documents,
//! users and the query's own quirks, so an interval that treats them as independent is too
//! narrow (Wilson's over pairs was about 2.8 times too narrow on the public Yandex sample). An
//! interval from this bootstrap generalises over queries: it says how much a figure would move
//! with other queries drawn like these (Davison and Hinkley 1997, §3.8, "the cluster
//! bootstrap", strategy 1: resample clusters, keep their members).
//!
//! A resample is a vector of multiplicities, one per cluster, summing to the number of
//! clusters; a statistic is a function of those multiplicities (for example a ratio of
//! cluster-weighted sums). Resample `b` draws from [`crate::rng::stream`]`(seed, [tag, b])`, so
//! intervals do not depend on the thread count. Intervals are percentile intervals
//! ([`super::distance::percentile_interval`]).

use rand::Rng;
use rayon::prelude::*;

/// The multiplicities of `resamples` cluster-bootstrap resamples of `clusters` clusters.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterBootstrap {
    /// `weights[b][g]`: how many times resample `b` drew cluster `g`.
    pub weights: Vec<Vec<u32>>,
}

impl ClusterBootstrap {
    /// Draws the resamples (seeded, see the module docs). `clusters` 0 gives resamples with no
    /// cluster, whose statistics are whatever the statistic gives on no data (usually NaN).
    pub fn new(clusters: usize, resamples: usize, seed: u64, tag: u64) -> Self {
        let weights = (0..resamples)
            .into_par_iter()
            .map(|b| {
                let mut w = vec![0u32; clusters];
                if clusters > 0 {
                    let mut rng = crate::rng::stream(seed, &[tag, b as u64]);
                    for _ in 0..clusters {
                        w[rng.random_range(0..clusters)] += 1;
                    }
                }
                w
            })
            .collect();
        ClusterBootstrap { weights }
    }

    /// The statistic under every resample.
    pub fn replicates(&self, stat: impl Fn(&[u32]) -> f64 + Sync) -> Vec<f64> {
        self.weights.par_iter().map(|w| stat(w)).collect()
    }

    /// Percentile interval of the statistic at `level` (NaN ends when no resample gives a
    /// finite value).
    pub fn interval(&self, level: f64, stat: impl Fn(&[u32]) -> f64 + Sync) -> (f64, f64) {
        super::distance::percentile_interval(&self.replicates(stat), level)
    }
}

/// `sum_i w[c_i] num_i / sum_i w[c_i] den_i`: a ratio of cluster-weighted sums over units with
/// cluster `cluster[i]` (NaN when the denominator is 0). With every weight 1 it is the plain
/// ratio, so the point estimate and the resamples use one formula.
pub fn weighted_ratio(w: &[u32], cluster: &[usize], num: &[f64], den: &[f64]) -> f64 {
    let (mut n, mut d) = (0.0, 0.0);
    for ((&c, &x), &y) in cluster.iter().zip(num).zip(den) {
        let k = f64::from(w[c]);
        n += k * x;
        d += k * y;
    }
    if d > 0.0 {
        n / d
    } else {
        f64::NAN
    }
}

/// Area under the ROC curve (Mann–Whitney, ties count one half) of `scores` for `labels`, each
/// unit weighted by its cluster's multiplicity `w[cluster[i]]`; `order` is the units sorted by
/// ascending score (from [`ascending`]). NaN when a class has no weight. With every weight 1 it
/// equals [`super::roc_auc`].
pub fn weighted_auc(w: &[u32], cluster: &[usize], scores: &[f64], labels: &[bool], order: &[usize]) -> f64 {
    // Walk the scores upwards in groups of ties: each positive scores the negative weight below
    // its group plus half of the negative weight inside it.
    let (mut below_neg, mut sum, mut pos, mut neg) = (0.0, 0.0, 0.0, 0.0);
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        let (mut gp, mut gn) = (0.0, 0.0);
        while j < order.len() && scores[order[j]] == scores[order[i]] {
            let u = order[j];
            let k = f64::from(w[cluster[u]]);
            if labels[u] {
                gp += k;
            } else {
                gn += k;
            }
            j += 1;
        }
        sum += gp * (below_neg + 0.5 * gn);
        below_neg += gn;
        pos += gp;
        neg += gn;
        i = j;
    }
    if pos > 0.0 && neg > 0.0 {
        sum / (pos * neg)
    } else {
        f64::NAN
    }
}

/// Indices of `scores` in ascending order (ties by index).
pub fn ascending(scores: &[f64]) -> Vec<usize> {
    let mut o: Vec<usize> = (0..scores.len()).collect();
    o.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(a.cmp(&b)));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every ordered resample of `g` clusters (g^g of them, equally likely): an independent,
    /// exact account of the cluster bootstrap's distribution, written apart from `new`.
    fn exact_resamples(g: usize) -> Vec<Vec<u32>> {
        let total = g.pow(g as u32);
        (0..total)
            .map(|mut code| {
                let mut w = vec![0u32; g];
                for _ in 0..g {
                    w[code % g] += 1;
                    code /= g;
                }
                w
            })
            .collect()
    }

    #[test]
    fn matches_the_exact_bootstrap_distribution() {
        // Four queries with 1, 3, 2 and 4 pairs; the statistic is the share of right signs over
        // pairs, a ratio of query sums. Its exact bootstrap mean and standard deviation come from
        // enumerating all 4^4 = 256 resamples (`exact_resamples`); 20,000 random resamples
        // must match both within Monte-Carlo error (4 standard errors).
        let cluster = [0, 1, 1, 1, 2, 2, 3, 3, 3, 3];
        let right = [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0];
        let one = [1.0; 10];
        let stat = |w: &[u32]| weighted_ratio(w, &cluster, &right, &one);
        let exact: Vec<f64> = exact_resamples(4).iter().map(|w| stat(w)).collect();
        let m = exact.iter().sum::<f64>() / exact.len() as f64;
        let sd = (exact.iter().map(|x| (x - m).powi(2)).sum::<f64>() / exact.len() as f64).sqrt();
        let boot = ClusterBootstrap::new(4, 20_000, 7, 1).replicates(stat);
        let bm = boot.iter().sum::<f64>() / boot.len() as f64;
        let bsd = (boot.iter().map(|x| (x - bm).powi(2)).sum::<f64>() / boot.len() as f64).sqrt();
        let mc = sd / (boot.len() as f64).sqrt();
        assert!((bm - m).abs() < 4.0 * mc, "mean {bm} against exact {m} (MC se {mc})");
        // The sd of a sample sd: about sd / sqrt(2 B).
        assert!((bsd - sd).abs() < 4.0 * sd / (2.0 * boot.len() as f64).sqrt(), "sd {bsd} against exact {sd}");
        // At weights 1 the statistic is the plain share: 6 right of 10.
        assert_eq!(stat(&[1, 1, 1, 1]), 0.6);
    }

    #[test]
    fn deterministic_whatever_the_threads() {
        let a = ClusterBootstrap::new(7, 300, 3, 9);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let b = pool.install(|| ClusterBootstrap::new(7, 300, 3, 9));
        assert_eq!(a, b);
        assert!(a.weights.iter().all(|w| w.iter().sum::<u32>() == 7));
    }

    #[test]
    fn weighted_auc_is_mann_whitney() {
        // Hand count: scores (label) 0.1 (n), 0.4 (p), 0.4 (n), 0.8 (p), 0.9 (n). Positive 0.4
        // beats the negative 0.1 and ties the negative 0.4: 1.5; positive 0.8 beats 0.1 and
        // 0.4: 2. AUC = 3.5 / (2 * 3) = 0.5833...
        let scores = [0.1, 0.4, 0.4, 0.8, 0.9];
        let labels = [false, true, false, true, false];
        let cluster = [0, 1, 2, 3, 4];
        let order = ascending(&scores);
        let auc = weighted_auc(&[1; 5], &cluster, &scores, &labels, &order);
        assert!((auc - 3.5 / 6.0).abs() < 1e-15, "{auc}");
        assert!((auc - super::super::roc_auc(&scores, &labels)).abs() < 1e-15);
        // Drawing the first negative twice: 1.5 + 1 -> positive 0.4 scores 2 (0.1 twice) + 0.5;
        // positive 0.8 scores 2 + 1 = 3; negatives weigh 4: (2.5 + 3) / (2 * 4).
        let auc = weighted_auc(&[2, 1, 1, 1, 1], &cluster, &scores, &labels, &order);
        assert!((auc - 5.5 / 8.0).abs() < 1e-15, "{auc}");
    }
}
