//! Statistics of integer-valued samples held as counts per value (index = value).

/// Type-7 quantile (as [`super::quantile_sorted`]) of the sample whose value `v` occurs
/// `counts[v]` times. `q` in [0, 1]; NaN for an empty sample.
pub fn quantile_of_counts(counts: &[u64], q: f64) -> f64 {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return f64::NAN;
    }
    let h = (n - 1) as f64 * q;
    let lo = h.floor() as u64;
    let at = |i: u64| -> f64 {
        let mut seen = 0;
        for (v, &c) in counts.iter().enumerate() {
            seen += c;
            if i < seen {
                return v as f64;
            }
        }
        (counts.len() - 1) as f64
    };
    let a = at(lo);
    let b = at((lo + 1).min(n - 1));
    a + (h - lo as f64) * (b - a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_sorted_quantiles() {
        // Sample 0, 1, 1, 3, 3, 3, 7.
        let mut counts = vec![0u64; 8];
        for v in [0usize, 1, 1, 3, 3, 3, 7] {
            counts[v] += 1;
        }
        let sorted = [0.0, 1.0, 1.0, 3.0, 3.0, 3.0, 7.0];
        for q in [0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0] {
            assert_eq!(quantile_of_counts(&counts, q), crate::stats::quantile_sorted(&sorted, q), "q = {q}");
        }
    }
}
