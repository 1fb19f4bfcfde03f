//! Hierarchical Beta priors: the hyper-parameters of a table's Beta(alpha, beta) prior drawn
//! along with the parameters, instead of fixed at their empirical-Bayes (marginal-likelihood)
//! estimate.
//!
//! An empirical-Bayes prior is a point estimate of (alpha, beta). When each entry carries
//! little information (a few sessions per query-document pair) the marginal likelihood is
//! nearly flat in the concentration alpha + beta, and its maximum can sit at a near point mass
//! (the classical collapse of the between-group variance; see `analysis/baraco/`, where the DBN
//! satisfaction prior of the Navigational user was fitted as Beta(891, 137)). Every entry is
//! then pooled to one value. A hierarchical prior averages over the concentrations the data
//! allow instead.
//!
//! The model is the one of Gelman et al., *Bayesian Data Analysis* (3rd ed., §5.3, the rat
//! tumour example): theta_i ~ Beta(alpha, beta) independently, with the hyper-prior
//! p(alpha, beta) ∝ (alpha + beta)^(-5/2) (uniform on (alpha / (alpha + beta),
//! (alpha + beta)^(-1/2))). The sampler works on (l, e) = (logit mu, ln kappa) with
//! mu = alpha / (alpha + beta), kappa = alpha + beta; the Jacobian of (l, e) -> (alpha, beta) is
//! mu (1 - mu) kappa^2, so the hyper-prior in (l, e) is mu (1 - mu) kappa^(-1/2) (BDA's
//! alpha beta (alpha + beta)^(-5/2)), and the log-density of the hyper-parameters given the
//! current values theta_1..n is
//!
//! ```text
//! n [ln Γ(kappa) - ln Γ(mu kappa) - ln Γ((1 - mu) kappa)]
//!   + (mu kappa - 1) S1 + ((1 - mu) kappa - 1) S2 - e / 2 + ln mu + ln(1 - mu)
//! ```
//!
//! with S1 = Σ ln theta_i and S2 = Σ ln(1 - theta_i), the sufficient statistics. Each call
//! of [`Hyper::step`] makes one univariate slice-sampling update (Neal 2003, "Slice sampling",
//! Ann. Statist. 31, stepping out and shrinkage) of l and then of e: a valid Gibbs step for the
//! hyper-parameters given the parameters, with nothing to tune.

use crate::rng::Stream;
use crate::stats::beta_binomial::BetaPrior;
use rand::Rng;
use statrs::function::gamma::ln_gamma;

/// Bounds of the sampled coordinates: logit mu within ±30 (mu within 1e-13 of 0 or 1), and
/// kappa between e^-8 and e^16 (about 8.9e6 pseudo-observations).
const L_BOUND: f64 = 30.0;
const E_RANGE: (f64, f64) = (-8.0, 16.0);
/// Initial width of the slice's stepping out, and its largest number of steps per side.
const WIDTH: f64 = 1.0;
const MAX_STEPS: usize = 32;

/// The hyper-parameters of one table's prior, in the sampler's coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hyper {
    /// logit of the prior mean.
    pub l: f64,
    /// ln of the concentration alpha + beta.
    pub e: f64,
}

/// Sufficient statistics of the current parameter values of a table.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stats {
    /// Number of entries.
    pub n: f64,
    /// Σ ln theta_i.
    pub s1: f64,
    /// Σ ln(1 - theta_i).
    pub s2: f64,
}

impl Stats {
    /// The statistics of `values` (each strictly inside (0, 1)).
    pub fn of(values: impl Iterator<Item = f64>) -> Self {
        values.fold(Stats::default(), |s, x| Stats { n: s.n + 1.0, s1: s.s1 + x.ln(), s2: s.s2 + (-x).ln_1p() })
    }
}

impl Hyper {
    /// Beta(1, 1): mean 1/2, concentration 2 (the starting point of the chains).
    pub const UNIFORM: Hyper = Hyper { l: 0.0, e: std::f64::consts::LN_2 };

    /// The prior Beta(alpha, beta) these hyper-parameters name.
    pub fn prior(&self) -> BetaPrior {
        let mu = logistic(self.l);
        let kappa = self.e.exp();
        BetaPrior { alpha: mu * kappa, beta: (1.0 - mu) * kappa }
    }

    /// Log-density of the hyper-parameters given the statistics: the sum of the Beta
    /// log-densities of the entries plus the log hyper-prior in (l, e) (whose own normalising
    /// constant is undefined: the prior is improper). Checked against SciPy in
    /// tests/hyper_density.rs.
    pub fn ln_density(&self, s: &Stats) -> f64 {
        if !(self.l.abs() <= L_BOUND && self.e >= E_RANGE.0 && self.e <= E_RANGE.1) {
            return f64::NEG_INFINITY;
        }
        let mu = logistic(self.l);
        let kappa = self.e.exp();
        let (a, b) = (mu * kappa, (1.0 - mu) * kappa);
        let ln_mu = -(-self.l).exp().ln_1p();
        let ln_1mu = -self.l.exp().ln_1p();
        s.n * (ln_gamma(kappa) - ln_gamma(a) - ln_gamma(b)) + (a - 1.0) * s.s1 + (b - 1.0) * s.s2 - 0.5 * self.e + ln_mu + ln_1mu
    }

    /// One slice-sampling update of each coordinate given the statistics.
    pub fn step(&mut self, s: &Stats, rng: &mut Stream) {
        let l = slice(self.l, &|l| Hyper { l, e: self.e }.ln_density(s), rng);
        self.l = l;
        let e = slice(self.e, &|e| Hyper { l, e }.ln_density(s), rng);
        self.e = e;
    }
}

fn logistic(l: f64) -> f64 {
    1.0 / (1.0 + (-l).exp())
}

/// One univariate slice-sampling update of `x0` under the log-density `f` (Neal 2003, §4:
/// stepping out with width [`WIDTH`], then shrinkage).
fn slice(x0: f64, f: &dyn Fn(f64) -> f64, rng: &mut Stream) -> f64 {
    let f0 = f(x0);
    if !f0.is_finite() {
        return x0;
    }
    let level = f0 + rng.random::<f64>().ln();
    let mut lo = x0 - WIDTH * rng.random::<f64>();
    let mut hi = lo + WIDTH;
    let steps = rng.random_range(0..MAX_STEPS);
    for _ in 0..steps {
        if f(lo) <= level {
            break;
        }
        lo -= WIDTH;
    }
    for _ in 0..MAX_STEPS - 1 - steps {
        if f(hi) <= level {
            break;
        }
        hi += WIDTH;
    }
    loop {
        let x = lo + (hi - lo) * rng.random::<f64>();
        if f(x) > level {
            return x;
        }
        if x < x0 {
            lo = x;
        } else {
            hi = x;
        }
        if hi - lo < 1e-12 {
            return x0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Posterior means of mu and ln kappa by quadrature on a fine grid of (l, e): the
    /// independent reference for the slice sampler (same density, different method).
    fn grid_means(s: &Stats) -> (f64, f64) {
        let (mut z, mut m_mu, mut m_e) = (0.0, 0.0, 0.0);
        let ls: Vec<f64> = (0..=1200).map(|i| -6.0 + 12.0 * i as f64 / 1200.0).collect();
        let es: Vec<f64> = (0..=1200).map(|i| E_RANGE.0 + (E_RANGE.1 - E_RANGE.0) * i as f64 / 1200.0).collect();
        let mut peak = f64::NEG_INFINITY;
        for &l in &ls {
            for &e in &es {
                peak = peak.max(Hyper { l, e }.ln_density(s));
            }
        }
        for &l in &ls {
            for &e in &es {
                let w = (Hyper { l, e }.ln_density(s) - peak).exp();
                z += w;
                m_mu += w * logistic(l);
                m_e += w * e;
            }
        }
        (m_mu / z, m_e / z)
    }

    #[test]
    fn slice_draws_match_the_quadrature_posterior() {
        // Twelve values in (0, 1), spread like satisfaction probabilities; their hyper
        // posterior is wide in kappa (few entries), the case the sampler must get right.
        let thetas = [0.15, 0.22, 0.31, 0.48, 0.52, 0.6, 0.66, 0.71, 0.8, 0.84, 0.9, 0.93];
        let s = Stats::of(thetas.iter().copied());
        let (want_mu, want_e) = grid_means(&s);
        let mut rng = crate::rng::stream(7, &[1]);
        let mut h = Hyper::UNIFORM;
        let (mut m_mu, mut m_e, n) = (0.0, 0.0, 200_000);
        for _ in 0..1000 {
            h.step(&s, &mut rng);
        }
        for _ in 0..n {
            h.step(&s, &mut rng);
            m_mu += logistic(h.l);
            m_e += h.e;
        }
        let (m_mu, m_e) = (m_mu / n as f64, m_e / n as f64);
        // Monte-Carlo error: posterior sd of mu about 0.07 and of ln kappa about 0.5 (grid),
        // slice updates nearly independent: 3 sd / sqrt(n / 10) = 0.0015 and 0.011.
        assert!((m_mu - want_mu).abs() < 0.0015, "mu {m_mu} vs quadrature {want_mu}");
        assert!((m_e - want_e).abs() < 0.011, "ln kappa {m_e} vs quadrature {want_e}");
    }

    /// The p-quantile of Beta(2, 5), by bisection on its closed-form CDF
    /// I_x(2, 5) = 1 - (1 - x)^5 (1 + 5x) (hand derivation: integrate 30 x (1 - x)^4 by parts).
    fn beta25_quantile(p: f64) -> f64 {
        let cdf = |x: f64| 1.0 - (1.0 - x).powi(5) * (1.0 + 5.0 * x);
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..60 {
            let m = 0.5 * (lo + hi);
            if cdf(m) < p {
                lo = m
            } else {
                hi = m
            }
        }
        0.5 * (lo + hi)
    }

    #[test]
    fn many_entries_concentrate_the_hyper_posterior_on_the_truth() {
        // 4,000 values with the quantiles of Beta(2, 5) (mean 2/7, concentration 7).
        let thetas: Vec<f64> = (0..4000).map(|i| beta25_quantile((i as f64 + 0.5) / 4000.0)).collect();
        let s = Stats::of(thetas.iter().copied());
        let mut rng = crate::rng::stream(3, &[0]);
        let mut h = Hyper::UNIFORM;
        let (mut a, mut b, n) = (0.0, 0.0, 4000);
        for _ in 0..500 {
            h.step(&s, &mut rng);
        }
        for _ in 0..n {
            h.step(&s, &mut rng);
            let p = h.prior();
            a += p.alpha;
            b += p.beta;
        }
        let (a, b) = (a / n as f64, b / n as f64);
        // With 4,000 entries the posterior sd of alpha is about 0.04 and of beta about 0.11
        // (Fisher information of the Beta family at (2, 5)); 0.15 and 0.4 are about 4 sd.
        assert!((a - 2.0).abs() < 0.15 && (b - 5.0).abs() < 0.4, "Beta({a}, {b}) vs Beta(2, 5)");
    }

    #[test]
    fn hierarchical_dbn_recovers_the_generating_priors() {
        use crate::clickmodels::gibbs::GibbsConfig;
        use crate::clickmodels::posterior::{posterior, PosteriorConfig};
        use crate::clickmodels::prior::PriorScope;
        use crate::clickmodels::synthetic::SyntheticSerps;
        use crate::clickmodels::{Dbn, ModelKind};
        // 600 pairs whose attractiveness are the 600 mid-quantiles of Beta(2, 5) and whose
        // satisfaction are those of Beta(5, 2) (1 - x of the same, by symmetry), shuffled
        // against each other.
        let quantile = beta25_quantile;
        let shape = SyntheticSerps { queries: 60, rare_queries: 0, rare_share: 0.0, docs_per_query: 10, serp_len: 10, sessions: 60_000, seed: 11 };
        let n = shape.pairs();
        let a: Vec<f64> = (0..n).map(|i| quantile((((i * 7) % n) as f64 + 0.5) / n as f64)).collect();
        let s: Vec<f64> = (0..n).map(|i| 1.0 - quantile((((i * 13) % n) as f64 + 0.5) / n as f64)).collect();
        let log = shape.simulate(&Dbn { attractiveness: a, satisfaction: s, gamma: 0.9 });
        let cfg = PosteriorConfig {
            prior: PriorScope::Hierarchical,
            sampler: GibbsConfig { chains: 2, warmup: 300, draws: 300, ..Default::default() },
            ..PosteriorConfig::default()
        };
        let post = posterior(ModelKind::Dbn, &log, n, &cfg, &|_| {}).unwrap();
        // Tolerances: with 600 exactly known values the posterior sd of (alpha, beta) would be
        // about (0.10, 0.28) (Fisher information of the Beta family, scaled from 4,000 entries
        // in the test above); estimation noise in the values widens it. 4 sd: 0.4 and 1.1.
        for (name, (ta, tb)) in [("attractiveness", (2.0, 5.0)), ("satisfaction", (5.0, 2.0))] {
            let g = post.param(name).unwrap().prior.global;
            let (da, db) = ((g.alpha - ta).abs(), (g.beta - tb).abs());
            let (tol_a, tol_b) = if ta < tb { (0.4, 1.1) } else { (1.1, 0.4) };
            assert!(da < tol_a && db < tol_b, "{name}: Beta({}, {}) vs Beta({ta}, {tb})", g.alpha, g.beta);
        }
    }
}
