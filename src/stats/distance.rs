//! Distances between two samples of one measure, and resampling for their intervals.
//!
//! - [`total_variation`]: `TV(p, q) = 1/2 sum_k |p_k - q_k|` between two histograms over the
//!   same categories (normalised first);
//! - [`ks_discrete`]: the Kolmogorov–Smirnov distance `max_k |P_k - Q_k|` between the
//!   cumulative histograms over ordered categories (ranks, counts);
//! - [`ks_two_sample`]: `sup_x |F_n(x) - G_m(x)|` between two samples of a continuous measure;
//! - [`multinomial`]: a multinomial draw over histogram cells, which resamples `n`
//!   observations with replacement when the measure depends on the cell only (a bootstrap
//!   replicate of a histogram in O(cells));
//! - [`percentile_interval`]: the percentile interval of bootstrap replicates.
//!
//! ```
//! use serpsim::stats::distance::{ks_discrete, total_variation};
//! let p = [2.0, 2.0, 0.0];
//! let q = [0.0, 2.0, 2.0];
//! assert_eq!(total_variation(&p, &q), 0.5);
//! assert_eq!(ks_discrete(&p, &q), 0.5);
//! ```

use rand::Rng;
use rand_distr::{Binomial, Distribution};

fn normalised(p: &[f64]) -> impl Iterator<Item = f64> + '_ {
    let s: f64 = p.iter().sum();
    p.iter().map(move |x| if s > 0.0 { x / s } else { 0.0 })
}

/// Total-variation distance between two histograms over the same categories (missing
/// trailing categories count as 0). NaN when either histogram is empty.
pub fn total_variation(p: &[f64], q: &[f64]) -> f64 {
    if p.iter().sum::<f64>() <= 0.0 || q.iter().sum::<f64>() <= 0.0 {
        return f64::NAN;
    }
    let n = p.len().max(q.len());
    let (pp, qq): (Vec<f64>, Vec<f64>) = (normalised(p).collect(), normalised(q).collect());
    0.5 * (0..n).map(|k| (pp.get(k).copied().unwrap_or(0.0) - qq.get(k).copied().unwrap_or(0.0)).abs()).sum::<f64>()
}

/// Kolmogorov–Smirnov distance between two histograms over the same ordered categories.
/// NaN when either histogram is empty.
pub fn ks_discrete(p: &[f64], q: &[f64]) -> f64 {
    if p.iter().sum::<f64>() <= 0.0 || q.iter().sum::<f64>() <= 0.0 {
        return f64::NAN;
    }
    let n = p.len().max(q.len());
    let (pp, qq): (Vec<f64>, Vec<f64>) = (normalised(p).collect(), normalised(q).collect());
    let (mut a, mut b, mut d) = (0.0, 0.0, 0.0f64);
    for k in 0..n {
        a += pp.get(k).copied().unwrap_or(0.0);
        b += qq.get(k).copied().unwrap_or(0.0);
        d = d.max((a - b).abs());
    }
    d
}

/// Two-sample Kolmogorov–Smirnov statistic of sorted samples `x` and `y` (ties handled: the
/// CDFs are compared after every distinct value). NaN when either sample is empty.
pub fn ks_two_sample(x: &[f64], y: &[f64]) -> f64 {
    if x.is_empty() || y.is_empty() {
        return f64::NAN;
    }
    debug_assert!(x.windows(2).all(|w| w[0] <= w[1]) && y.windows(2).all(|w| w[0] <= w[1]));
    let (n, m) = (x.len() as f64, y.len() as f64);
    let (mut i, mut j, mut d) = (0usize, 0usize, 0.0f64);
    while i < x.len() && j < y.len() {
        let v = x[i].min(y[j]);
        while i < x.len() && x[i] <= v {
            i += 1;
        }
        while j < y.len() && y[j] <= v {
            j += 1;
        }
        d = d.max((i as f64 / n - j as f64 / m).abs());
    }
    d
}

/// Draws `n` observations with replacement from the histogram `counts` (a multinomial with
/// cell probabilities proportional to `counts`) into `out`, by conditional binomials.
pub fn multinomial<R: Rng>(n: u64, counts: &[f64], rng: &mut R, out: &mut Vec<f64>) {
    out.clear();
    let mut rest: f64 = counts.iter().sum();
    let mut left = n;
    for &c in counts {
        if left == 0 || rest <= 0.0 {
            out.push(0.0);
            continue;
        }
        let p = (c / rest).clamp(0.0, 1.0);
        let k = if p >= 1.0 { left } else { Binomial::new(left, p).expect("p in [0, 1]").sample(rng) };
        out.push(k as f64);
        left -= k;
        rest -= c;
    }
}

/// Percentile interval of bootstrap replicates at `level` (e.g. 0.95), ignoring NaN
/// replicates; (NaN, NaN) when none is finite. Quantiles by linear interpolation (type 7).
pub fn percentile_interval(replicates: &[f64], level: f64) -> (f64, f64) {
    let mut v: Vec<f64> = replicates.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    v.sort_by(f64::total_cmp);
    let a = (1.0 - level) / 2.0;
    (crate::stats::quantile_sorted(&v, a), crate::stats::quantile_sorted(&v, 1.0 - a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_by_hand() {
        // p = (0.5, 0.5, 0), q = (0.25, 0.25, 0.5): TV = (0.25 + 0.25 + 0.5) / 2 = 0.5;
        // cumulative (0.5, 1, 1) vs (0.25, 0.5, 1): KS = 0.5.
        assert_eq!(total_variation(&[1.0, 1.0], &[1.0, 1.0, 2.0]), 0.5);
        assert_eq!(ks_discrete(&[1.0, 1.0], &[1.0, 1.0, 2.0]), 0.5);
        // Shifting all mass by one category: TV 1, KS 1.
        assert_eq!(total_variation(&[3.0, 0.0], &[0.0, 5.0]), 1.0);
        assert!(total_variation(&[], &[1.0]).is_nan());
    }

    #[test]
    fn two_sample_ks_by_hand() {
        // By hand: distinct values 1,2,3,4,5,6,7. F: .2,.6,.8,.8,.8,.8,1; G: 0,.25,.25,.5,.75,1,1.
        // |F - G|: .2,.35,.55,.3,.05,.2,0: D = 0.55.
        let d = ks_two_sample(&[1.0, 2.0, 2.0, 3.0, 7.0], &[2.0, 4.0, 5.0, 6.0]);
        assert!((d - 0.55).abs() < 1e-12, "{d}");
        assert!(ks_two_sample(&[], &[1.0]).is_nan());
    }

    #[test]
    fn multinomial_keeps_the_total_and_the_means() {
        // E[k_i] = n c_i / sum(c); over 2,000 draws of n = 1,000 the mean of cell 1
        // (p = 0.3) has sd sqrt(1000 * 0.21 / 2000) = 0.32: tolerance 1.5 is 4.7 sd.
        let mut rng = crate::rng::stream(3, &[]);
        let counts = [2.0, 3.0, 0.0, 5.0];
        let mut out = Vec::new();
        let mut sum1 = 0.0;
        for _ in 0..2000 {
            multinomial(1000, &counts, &mut rng, &mut out);
            assert_eq!(out.iter().sum::<f64>(), 1000.0);
            assert_eq!(out[2], 0.0);
            sum1 += out[1];
        }
        assert!((sum1 / 2000.0 - 300.0).abs() < 1.5, "{}", sum1 / 2000.0);
        let (lo, hi) = percentile_interval(&[4.0, 1.0, 3.0, 2.0, f64::NAN, 5.0], 0.5);
        // Type-7 quantiles of 1..5 at 0.25 and 0.75: 2 and 4.
        assert_eq!((lo, hi), (2.0, 4.0));
    }
}
