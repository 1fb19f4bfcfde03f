//! Ground-truth recovery: simulate sessions from known DBN and UBM parameters, fit them back
//! by EM, and measure the parameter error on pairs seen at least [`MIN_IMPRESSIONS`] times.

use super::synthetic::{impressions, SyntheticSerps};
use super::{param, Ccm, Dbn, DbnConfig, EmConfig, Gamma, Ubm};
use rand::Rng;

/// Pairs shown fewer times than this are left out of the error.
pub const MIN_IMPRESSIONS: u64 = 1000;

/// Errors of one recovery run.
#[derive(Debug, Clone, PartialEq)]
pub struct Recovery {
    /// Model name.
    pub model: &'static str,
    /// Simulated sessions.
    pub sessions: usize,
    /// EM iterations.
    pub iterations: usize,
    /// Pairs in the truth, and pairs seen at least `MIN_IMPRESSIONS` times.
    pub pairs: (usize, usize),
    /// (max, mean) absolute error of attractiveness on the checked pairs.
    pub attractiveness: (f64, f64),
    /// (max, mean) absolute error of satisfaction on the checked pairs (DBN).
    pub satisfaction: Option<(f64, f64)>,
    /// (true, fitted) continuation (DBN).
    pub gamma: Option<(f64, f64)>,
    /// (max, mean) absolute error of examination (UBM, cells with at least 1,000 impressions).
    pub examination: Option<(f64, f64)>,
    /// Seconds spent fitting.
    pub fit_seconds: f64,
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let opt = |x: Option<(f64, f64)>| x.map_or("-".to_string(), |(m, a)| format!("{m:.4} / {a:.4}"));
        write!(
            f,
            "| {} | {} | {} | {} of {} | {:.4} / {:.4} | {} | {} | {} | {:.1} |",
            self.model,
            self.sessions,
            self.iterations,
            self.pairs.1,
            self.pairs.0,
            self.attractiveness.0,
            self.attractiveness.1,
            opt(self.satisfaction),
            self.gamma.map_or("-".into(), |(t, g)| format!("{t} -> {g:.4}")),
            opt(self.examination),
            self.fit_seconds
        )
    }
}

/// Five frequent queries (98 % of sessions) and a tail of 1,000 rare ones (about 20 sessions
/// each, so their pairs fall below `MIN_IMPRESSIONS`).
fn serps(sessions: usize, seed: u64) -> SyntheticSerps {
    SyntheticSerps { queries: 5, rare_queries: 1000, rare_share: 0.02, docs_per_query: 10, serp_len: 10, sessions, seed }
}

fn errors(truth: &[f64], fitted: &[f64], keep: &[bool]) -> (f64, f64) {
    let (mut max, mut sum, mut n) = (0.0f64, 0.0, 0usize);
    for (i, &t) in truth.iter().enumerate() {
        if keep[i] {
            let e = (t - param(fitted, i)).abs();
            max = max.max(e);
            sum += e;
            n += 1;
        }
    }
    (max, sum / n.max(1) as f64)
}

/// DBN: attractiveness U(0.15, 0.9), satisfaction U(0.1, 0.9), gamma 0.9; fitted with gamma
/// estimated.
pub fn dbn_recovery(sessions: usize, iterations: usize) -> Recovery {
    let shape = serps(sessions, 11);
    let n = shape.pairs();
    let mut rng = crate::rng::stream(2015, &[1]);
    let truth = Dbn {
        attractiveness: (0..n).map(|_| rng.random_range(0.15..0.9)).collect(),
        satisfaction: (0..n).map(|_| rng.random_range(0.1..0.9)).collect(),
        gamma: 0.9,
    };
    let log = shape.simulate(&truth);
    let keep: Vec<bool> = impressions(&log, n).iter().map(|&k| k >= MIN_IMPRESSIONS).collect();
    let t = std::time::Instant::now();
    let fit = DbnConfig { gamma: Gamma::Fitted, iterations, tolerance: 0.0 }.fit(&mut &log).expect("fit");
    Recovery {
        model: "DBN",
        sessions,
        iterations,
        pairs: (n, keep.iter().filter(|&&k| k).count()),
        attractiveness: errors(&truth.attractiveness, &fit.attractiveness, &keep),
        satisfaction: Some(errors(&truth.satisfaction, &fit.satisfaction, &keep)),
        gamma: Some((truth.gamma, fit.gamma)),
        examination: None,
        fit_seconds: t.elapsed().as_secs_f64(),
    }
}

/// UBM: attractiveness U(0.15, 0.9); examination 0.85^(d - 1) x 0.97^r for a result at
/// 0-based rank r at distance d from the previous click (or from the top), so rank 1 is
/// always examined. The fit pins that cell at 1 to fix UBM's unidentified scale.
pub fn ubm_recovery(sessions: usize, iterations: usize) -> Recovery {
    let shape = serps(sessions, 12);
    let n = shape.pairs();
    let mut rng = crate::rng::stream(2015, &[2]);
    let examination: Vec<Vec<f64>> = (0..10)
        .map(|r| {
            (0..=r)
                .map(|j| {
                    let d = if j == 0 { r + 1 } else { r + 1 - j };
                    0.85f64.powi(d - 1) * 0.97f64.powi(r)
                })
                .collect()
        })
        .collect();
    let truth = Ubm { attractiveness: (0..n).map(|_| rng.random_range(0.15..0.9)).collect(), examination };
    let log = shape.simulate(&truth);
    let keep: Vec<bool> = impressions(&log, n).iter().map(|&k| k >= MIN_IMPRESSIONS).collect();
    let t = std::time::Instant::now();
    let fit = Ubm::fit_pinned(&EmConfig { iterations, tolerance: 0.0 }, &mut &log, Some(1.0)).expect("fit");
    let fit_seconds = t.elapsed().as_secs_f64();
    // Examination cells seen at least MIN_IMPRESSIONS times.
    let mut cells = vec![vec![0u64; 11]; 10];
    for s in log.iter() {
        let mut prev = 0;
        for (r, &c) in s.clicks.iter().enumerate() {
            cells[r][prev] += 1;
            if c {
                prev = r + 1;
            }
        }
    }
    let (mut emax, mut esum, mut en) = (0.0f64, 0.0, 0);
    #[allow(clippy::needless_range_loop)]
    for r in 0..10 {
        for j in 0..=r {
            if cells[r][j] >= MIN_IMPRESSIONS {
                let e = (truth.examination[r][j] - fit.examination.get(r).map_or(0.5, |row| param(row, j))).abs();
                emax = emax.max(e);
                esum += e;
                en += 1;
            }
        }
    }
    Recovery {
        model: "UBM",
        sessions,
        iterations,
        pairs: (n, keep.iter().filter(|&&k| k).count()),
        attractiveness: errors(&truth.attractiveness, &fit.attractiveness, &keep),
        satisfaction: None,
        gamma: None,
        examination: Some((emax, esum / en.max(1) as f64)),
        fit_seconds,
    }
}

/// CCM: attractiveness U(0.15, 0.9), tau = (0.85, 0.6, 0.3), all fitted. Returns the
/// recovery (taus in `gamma`-free form) and the fitted taus.
pub fn ccm_recovery(sessions: usize, iterations: usize) -> (Recovery, [f64; 3]) {
    let shape = SyntheticSerps { rare_share: 0.0, rare_queries: 0, ..serps(sessions, 13) };
    let n = shape.pairs();
    let mut rng = crate::rng::stream(2015, &[3]);
    let truth = Ccm { attractiveness: (0..n).map(|_| rng.random_range(0.15..0.9)).collect(), tau1: 0.85, tau2: 0.6, tau3: 0.3 };
    let log = shape.simulate(&truth);
    let keep: Vec<bool> = impressions(&log, n).iter().map(|&k| k >= MIN_IMPRESSIONS).collect();
    let t = std::time::Instant::now();
    let fit = Ccm::fit(&EmConfig { iterations, tolerance: 0.0 }, &mut &log).expect("fit");
    let rec = Recovery {
        model: "CCM",
        sessions,
        iterations,
        pairs: (n, keep.iter().filter(|&&k| k).count()),
        attractiveness: errors(&truth.attractiveness, &fit.attractiveness, &keep),
        satisfaction: None,
        gamma: None,
        examination: None,
        fit_seconds: t.elapsed().as_secs_f64(),
    };
    (rec, [fit.tau1, fit.tau2, fit.tau3])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dbn_parameters_are_recovered() {
        let d = dbn_recovery(1_000_000, 50);
        assert!(d.pairs.1 >= 50, "{d}");
        assert!(d.attractiveness.0 <= 0.02, "DBN attractiveness: {d}");
        assert!(d.satisfaction.unwrap().0 <= 0.02, "DBN satisfaction: {d}");
        let (t, g) = d.gamma.unwrap();
        assert!((t - g).abs() <= 0.02, "DBN gamma: {d}");
    }

    #[test]
    fn ubm_parameters_are_recovered() {
        let u = ubm_recovery(1_000_000, 50);
        assert!(u.attractiveness.0 <= 0.02, "UBM attractiveness: {u}");
    }

    #[test]
    fn ccm_parameters_are_recovered() {
        let (c, tau) = ccm_recovery(300_000, 50);
        assert!(c.attractiveness.0 <= 0.02, "CCM attractiveness: {c}");
        for (got, want) in tau.iter().zip([0.85, 0.6, 0.3]) {
            assert!((got - want).abs() <= 0.02, "CCM taus {tau:?}");
        }
    }
}
