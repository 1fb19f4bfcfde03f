//! Descriptive statistics of a sample: moments, quantiles and histograms.

use serde::Serialize;

/// Quantile of sorted data by linear interpolation between order statistics
/// (Hyndman–Fan type 7, the default of R and NumPy). `q` in [0, 1]; `sorted` non-empty.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Mean of a non-empty sample.
pub fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Sample standard deviation (n - 1 denominator); 0 for fewer than two values.
pub fn sd(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let m = mean(xs);
    (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() - 1) as f64).sqrt()
}

/// Median of a non-empty sample.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    quantile_sorted(&v, 0.5)
}

/// Equal-width histogram over `[min, max]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Histogram {
    /// `bins + 1` bin edges; the last bin includes its upper edge.
    pub edges: Vec<f64>,
    /// Count per bin.
    pub counts: Vec<u64>,
}

/// Summary of a sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Sample size.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Standard deviation (n - 1).
    pub sd: f64,
    /// Standard error of the mean.
    pub se: f64,
    /// Minimum.
    pub min: f64,
    /// 5th percentile.
    pub q05: f64,
    /// First quartile.
    pub q25: f64,
    /// Median.
    pub q50: f64,
    /// Third quartile.
    pub q75: f64,
    /// 95th percentile.
    pub q95: f64,
    /// Maximum.
    pub max: f64,
    /// Histogram with the requested number of bins.
    pub histogram: Histogram,
}

impl Summary {
    /// Summarises a non-empty sample with a `bins`-bin histogram.
    pub fn of(xs: &[f64], bins: usize) -> Self {
        let mut sorted = xs.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = xs.len();
        let s = sd(xs);
        Summary {
            n,
            mean: mean(xs),
            sd: s,
            se: s / (n as f64).sqrt(),
            min: sorted[0],
            q05: quantile_sorted(&sorted, 0.05),
            q25: quantile_sorted(&sorted, 0.25),
            q50: quantile_sorted(&sorted, 0.5),
            q75: quantile_sorted(&sorted, 0.75),
            q95: quantile_sorted(&sorted, 0.95),
            max: sorted[n - 1],
            histogram: histogram(&sorted, bins.max(1)),
        }
    }
}

fn histogram(sorted: &[f64], bins: usize) -> Histogram {
    let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
    if lo == hi {
        return Histogram { edges: vec![lo, hi], counts: vec![sorted.len() as u64] };
    }
    let width = (hi - lo) / bins as f64;
    let edges: Vec<f64> = (0..=bins).map(|i| if i == bins { hi } else { lo + width * i as f64 }).collect();
    let mut counts = vec![0u64; bins];
    for &x in sorted {
        let b = (((x - lo) / width) as usize).min(bins - 1);
        counts[b] += 1;
    }
    Histogram { edges, counts }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_numpy_linear() {
        // numpy.percentile([1, 2, 3, 4, 10], [5, 25, 50, 75, 95]) = 1.2, 2, 3, 4, 8.8
        let s = Summary::of(&[4.0, 1.0, 10.0, 3.0, 2.0], 3);
        let got = [s.q05, s.q25, s.q50, s.q75, s.q95];
        for (g, e) in got.iter().zip([1.2, 2.0, 3.0, 4.0, 8.8]) {
            assert!((g - e).abs() < 1e-12, "{got:?}");
        }
        assert!((s.sd - 3.5355339059327378).abs() < 1e-12);
        assert_eq!(s.histogram.counts, vec![3, 1, 1]); // edges 1, 4, 7, 10
        assert_eq!(s.histogram.counts.iter().sum::<u64>(), 5);
    }
}
