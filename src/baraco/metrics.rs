//! Ranking metrics over DBN parameters, and how unseen documents enter them.

/// The metric used to compare rankers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SwitchMetric {
    /// Eq. 3: `sum_i s_i a_i / i * prod_{j<i} (1 - s_j a_j)` (expected reciprocal rank of the
    /// satisfying click).
    #[default]
    RrMetric,
    /// DCG with the DBN relevance `a_i s_i` as gain: `sum_i a_i s_i / log2(i + 1)`.
    Dcg,
}

impl SwitchMetric {
    /// Value of the metric for a ranked list given `(a_i, s_i)` in rank order.
    #[inline]
    pub fn value(self, params: impl Iterator<Item = (f64, f64)>) -> f64 {
        match self {
            SwitchMetric::RrMetric => {
                let (mut m, mut cont) = (0.0, 1.0);
                for (i, (a, s)) in params.enumerate() {
                    let r = a * s;
                    m += cont * r / (i + 1) as f64;
                    cont *= 1.0 - r;
                }
                m
            }
            SwitchMetric::Dcg => params.enumerate().map(|(i, (a, s))| a * s / ((i + 2) as f64).log2()).sum(),
        }
    }

    /// Parses `rrmetric` or `dcg`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "rrmetric" | "rr-metric" => Some(SwitchMetric::RrMetric),
            "dcg" => Some(SwitchMetric::Dcg),
            _ => None,
        }
    }
}

/// Treatment of documents never shown in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unseen {
    /// Keep them, with parameters drawn from the Beta(1, 1) prior (BARACO).
    Prior,
    /// Remove them from the ranking before cutting at the depth, so lower seen documents move
    /// up ("condensing" as in Sakai's condensed lists).
    Condense,
    /// Cut at the depth first, then remove them: the SERP gets shorter and unseen documents
    /// contribute nothing ("do not contribute to the metric", Grotov et al. §7.1).
    Exclude,
}

/// The evaluated list: the first `depth` pairs of `ranking`, after condensing if asked.
pub fn evaluated_list(ranking: &[u32], seen: &[bool], unseen: Unseen, depth: usize, out: &mut Vec<u32>) {
    out.clear();
    match unseen {
        Unseen::Prior => out.extend(ranking.iter().copied().take(depth)),
        Unseen::Condense => out.extend(ranking.iter().copied().filter(|&p| seen[p as usize]).take(depth)),
        Unseen::Exclude => out.extend(ranking.iter().copied().take(depth).filter(|&p| seen[p as usize])),
    }
}

/// `M_x = sum_q p(q) metric(q)` from point values per pair (used by the MT baseline and the
/// ground truth); `lists[q]` are the evaluated lists, `weights[q]` = p(q).
pub fn expected_metric(metric: SwitchMetric, lists: &[Vec<u32>], weights: &[f64], a: &[f64], s: &[f64]) -> f64 {
    lists.iter().zip(weights).filter(|(_, w)| **w > 0.0).map(|(l, w)| w * metric.value(l.iter().map(|&p| (a[p as usize], s[p as usize])))).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rr_metric_by_hand() {
        // r = (0.5, 0.2, 1.0): 0.5/1 + 0.5*0.2/2 + 0.5*0.8*1.0/3 = 0.5 + 0.05 + 0.1333...
        let v = SwitchMetric::RrMetric.value([(1.0, 0.5), (0.4, 0.5), (1.0, 1.0)].into_iter());
        assert!((v - (0.55 + 0.4 / 3.0)).abs() < 1e-15, "{v}");
        let d = SwitchMetric::Dcg.value([(1.0, 1.0), (1.0, 1.0), (0.5, 1.0)].into_iter());
        assert!((d - (1.0 + 1.0 / 3f64.log2() + 0.5 / 2.0)).abs() < 1e-15);
    }

    #[test]
    fn condensing_drops_unseen_then_cuts() {
        let seen = [true, false, true, true];
        let mut out = Vec::new();
        evaluated_list(&[1, 0, 2, 3], &seen, Unseen::Condense, 2, &mut out);
        assert_eq!(out, [0, 2]);
        evaluated_list(&[1, 0, 2, 3], &seen, Unseen::Prior, 2, &mut out);
        assert_eq!(out, [1, 0]);
        // Excluding cuts first: the unseen document leaves a shorter list.
        evaluated_list(&[1, 0, 2, 3], &seen, Unseen::Exclude, 2, &mut out);
        assert_eq!(out, [0]);
    }
}
