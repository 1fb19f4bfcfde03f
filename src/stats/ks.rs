//! One-sample Kolmogorov–Smirnov test against a continuous CDF.

/// The statistic D = sup |F_n(x) - F(x)| of `xs` against `cdf`.
pub fn ks_statistic(xs: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let mut d: f64 = 0.0;
    for (i, &x) in v.iter().enumerate() {
        let f = cdf(x);
        d = d.max((i + 1) as f64 / n - f).max(f - i as f64 / n);
    }
    d
}

/// Asymptotic p-value of D for `n` draws: Kolmogorov's distribution at
/// `(sqrt(n) + 0.12 + 0.11 / sqrt(n)) D` (Stephens' correction, as in Numerical Recipes).
pub fn ks_p_value(d: f64, n: usize) -> f64 {
    let sn = (n as f64).sqrt();
    let lambda = (sn + 0.12 + 0.11 / sn) * d;
    if lambda < 1e-3 {
        return 1.0;
    }
    let mut sum = 0.0;
    for j in 1..=100 {
        let j = j as f64;
        let term = 2.0 * (if j as i64 % 2 == 1 { 1.0 } else { -1.0 }) * (-2.0 * j * j * lambda * lambda).exp();
        sum += term;
        if term.abs() < 1e-16 {
            break;
        }
    }
    sum.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_reference_values() {
        // R: ks.test(c(0.1, 0.4, 0.7), "punif") gives D = 0.3 (exact p differs; asymptotic
        // Q_KS(lambda) with lambda = (sqrt(3) + 0.12 + 0.11/sqrt(3)) * 0.3 = 0.5747).
        let d = ks_statistic(&[0.7, 0.1, 0.4], |x| x);
        assert!((d - 0.3).abs() < 1e-15);
        // Q_KS(1.36) ≈ 0.0494 (the 5 % critical value of the Kolmogorov distribution is 1.358).
        let n = 1_000_000;
        assert!((ks_p_value(1.358 / (n as f64).sqrt(), n) - 0.05).abs() < 1e-3);
        assert!((ks_p_value(1.628 / (n as f64).sqrt(), n) - 0.01).abs() < 1e-3);
    }
}
