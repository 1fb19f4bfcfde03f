//! Error and discrimination measures: RMSE, ROC curve and its area.

/// Root mean squared error of `estimate` against `truth`.
pub fn rmse(estimate: &[f64], truth: &[f64]) -> f64 {
    let n = estimate.len().min(truth.len());
    if n == 0 {
        return f64::NAN;
    }
    (estimate.iter().zip(truth).map(|(e, t)| (e - t) * (e - t)).sum::<f64>() / n as f64).sqrt()
}

/// Area under the ROC curve of `scores` for binary `labels` (Mann–Whitney, ties count 1/2):
/// the area under the curve traced by every threshold. NaN when one class is empty.
pub fn roc_auc(scores: &[f64], labels: &[bool]) -> f64 {
    let ranks = super::average_ranks(scores);
    let pos = labels.iter().filter(|&&l| l).count();
    let neg = labels.len() - pos;
    if pos == 0 || neg == 0 {
        return f64::NAN;
    }
    let rank_sum: f64 = ranks.iter().zip(labels).filter(|(_, &l)| l).map(|(r, _)| r).sum();
    (rank_sum - (pos * (pos + 1)) as f64 / 2.0) / (pos * neg) as f64
}

/// ROC points (false positive rate, true positive rate) for "positive when score >= t", over
/// every distinct threshold, from (0, 0) to (1, 1).
pub fn roc_points(scores: &[f64], labels: &[bool]) -> Vec<(f64, f64)> {
    let pos = labels.iter().filter(|&&l| l).count().max(1) as f64;
    let neg = labels.iter().filter(|&&l| !l).count().max(1) as f64;
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut pts = vec![(0.0, 0.0)];
    let (mut tp, mut fp) = (0.0, 0.0);
    for (k, &i) in idx.iter().enumerate() {
        if labels[i] {
            tp += 1.0
        } else {
            fp += 1.0
        }
        if k + 1 == idx.len() || scores[idx[k + 1]] != scores[i] {
            pts.push((fp / neg, tp / pos));
        }
    }
    pts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_values() {
        assert!((rmse(&[1., 2.], &[1., 4.]) - 2f64.sqrt()).abs() < 1e-15);
        // 2 positives (0.9, 0.4), 2 negatives (0.5, 0.1): pairs won 3 of 4.
        assert_eq!(roc_auc(&[0.9, 0.4, 0.5, 0.1], &[true, true, false, false]), 0.75);
        assert_eq!(roc_auc(&[0.5, 0.5], &[true, false]), 0.5);
        let pts = roc_points(&[0.9, 0.4, 0.5, 0.1], &[true, true, false, false]);
        assert_eq!(pts, [(0.0, 0.0), (0.0, 0.5), (0.5, 0.5), (0.5, 1.0), (1.0, 1.0)]);
    }
}
