//! Posterior inference over DBN attractiveness and satisfaction (Grotov et al. §5.1, Algorithm 1).
//!
//! Every (query, document) pair starts with Beta(1, 1) priors on its attractiveness `a` and
//! satisfaction `s`. Sessions are processed in log order:
//! - at and above the last click examination is known (E = 1): `a` gets a conjugate update
//!   (click: alpha + 1, no click: beta + 1); a clicked document that is not the last click was
//!   not satisfying (the user went on), so its `s` gets beta + 1;
//! - below the last click (Eq. 10) `a_i` gets the factor `1 - q_i a_i`, where `q_i` is the
//!   probability that rank `i` was examined given every other observation of the session,
//!   from exact sum-product on the chain of Fig. 2 (an O(N) forward-backward pass);
//! - the last clicked document's `s` (Eq. 11) gets the factor `u + (1 - u) s`, where `u` is the
//!   probability of no further clicks if the user was not satisfied.
//!
//! The chain uses the posterior means of the pairs before the session (the other `a`s and `s`
//! integrate out to their means). For speed these means come from a Beta matched to the exact
//! first two moments after each update; the posteriors themselves keep every factor exactly:
//! `x^(alpha-1) (1-x)^(beta-1) prod_k (b_k + m_k x)^(n_k)` with equal factors merged.
//! [`Density`] integrates them numerically (see its docs for the accuracy).

use super::log::ProductionLog;
use crate::error::{Error, Result};
use crate::stats::beta_binomial::ln_beta;

/// Continuation probability gamma of the DBN used to interpret clicks (paper: 0.9).
pub const DEFAULT_GAMMA: f64 = 0.9;

/// Probabilities this close to 1 make a factor conjugate (examination known).
const CERTAIN: f64 = 1e-12;

/// A posterior on [0, 1]: `x^(alpha-1) (1-x)^(beta-1) prod_k (b_k + m_k x)^(n_k)` (unnormalised).
///
/// Each linear factor is positive on (0, 1). Attractiveness factors are `1 - q a`
/// (b = 1, m = -q); satisfaction factors are `u + (1 - u) s` (b = u, m = 1 - u).
#[derive(Debug, Clone, PartialEq)]
pub struct FactoredBeta {
    /// Beta exponent + 1 of x.
    pub alpha: f64,
    /// Beta exponent + 1 of (1 - x).
    pub beta: f64,
    /// Linear factors `(b, m, n)`, sorted, equal `(b, m)` merged into multiplicity `n`.
    pub factors: Vec<(f64, f64, u32)>,
}

impl FactoredBeta {
    /// Beta(alpha, beta) with no extra factors.
    pub fn beta(alpha: f64, beta: f64) -> Self {
        FactoredBeta { alpha, beta, factors: Vec::new() }
    }

    /// Sorts the factors and merges equal ones.
    pub fn merge(&mut self) {
        self.factors.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
        let mut out: Vec<(f64, f64, u32)> = Vec::with_capacity(self.factors.len());
        for &(b, m, n) in &self.factors {
            match out.last_mut() {
                Some(last) if last.0 == b && last.1 == m => last.2 += n,
                _ => out.push((b, m, n)),
            }
        }
        self.factors = out;
    }

    /// Log of the unnormalised density at `x` in [0, 1] (may be -inf at the ends).
    #[inline]
    pub fn log_density(&self, x: f64) -> f64 {
        let mut l = 0.0;
        if self.alpha != 1.0 {
            l += (self.alpha - 1.0) * x.ln();
        }
        if self.beta != 1.0 {
            l += (self.beta - 1.0) * (1.0 - x).ln();
        }
        for &(b, m, n) in &self.factors {
            l += n as f64 * (b + m * x).ln();
        }
        l
    }

    /// Derivative of the log density (decreasing: the density is log-concave).
    fn dlog(&self, x: f64) -> f64 {
        let mut d = 0.0;
        if self.alpha != 1.0 {
            d += (self.alpha - 1.0) / x;
        }
        if self.beta != 1.0 {
            d -= (self.beta - 1.0) / (1.0 - x);
        }
        for &(b, m, n) in &self.factors {
            d += n as f64 * m / (b + m * x);
        }
        d
    }
}

/// Running state of one parameter during the pass: the exact factored form plus a Beta
/// matched to its first two moments (used only for the means fed to the chain).
#[derive(Debug, Clone, Copy)]
struct Tracked {
    alpha: f64,
    beta: f64,
    ma: f64,
    mb: f64,
}

impl Tracked {
    fn prior(p: (f64, f64)) -> Tracked {
        Tracked { alpha: p.0, beta: p.1, ma: p.0, mb: p.1 }
    }

    #[inline]
    fn mean(&self) -> f64 {
        self.ma / (self.ma + self.mb)
    }

    #[inline]
    fn success(&mut self) {
        self.alpha += 1.0;
        self.ma += 1.0;
    }

    #[inline]
    fn failure(&mut self) {
        self.beta += 1.0;
        self.mb += 1.0;
    }

    /// Moment-matches Beta(ma, mb) * (b + m x).
    #[inline]
    fn factor(&mut self, b: f64, m: f64) {
        let (a, bb) = (self.ma, self.mb);
        let t = a + bb;
        let m1 = a / t;
        let m2 = m1 * (a + 1.0) / (t + 1.0);
        let m3 = m2 * (a + 2.0) / (t + 2.0);
        let z = b + m * m1;
        let e1 = (b * m1 + m * m2) / z;
        let e2 = (b * m2 + m * m3) / z;
        let var = e2 - e1 * e1;
        if var > 0.0 && e1 > 0.0 && e1 < 1.0 {
            let nu = e1 * (1.0 - e1) / var - 1.0;
            if nu > 0.0 && nu.is_finite() {
                self.ma = e1 * nu;
                self.mb = (1.0 - e1) * nu;
            }
        }
    }
}

/// Posteriors of every pair of a log: attractiveness and satisfaction.
#[derive(Debug, Clone)]
pub struct Posteriors {
    /// Attractiveness posterior per pair.
    pub a: Vec<FactoredBeta>,
    /// Satisfaction posterior per pair.
    pub s: Vec<FactoredBeta>,
    /// With a mixture prior ([`compute_posteriors_mixture`]): the prior, and `a`, `s` hold
    /// each pair's likelihood in Beta(1, 1) form (`alpha - 1` successes, `beta - 1` failures,
    /// the factors); component k's posterior adds `alpha_k - 1`, `beta_k - 1` to the shapes.
    pub mixture: Option<super::mixture::MixturePrior>,
}

impl Posteriors {
    /// Component posteriors of pair `p` under the mixture, with their posterior weights:
    /// `(weight, a posterior, s posterior)`. Without a mixture: the pair's posteriors, weight 1.
    pub fn components(&self, p: usize) -> Vec<(f64, FactoredBeta, FactoredBeta)> {
        let (la, ls) = (&self.a[p], &self.s[p]);
        let Some(mix) = &self.mixture else {
            return vec![(1.0, la.clone(), ls.clone())];
        };
        let shift = |l: &FactoredBeta, (al, be): (f64, f64)| FactoredBeta { alpha: l.alpha - 1.0 + al, beta: l.beta - 1.0 + be, factors: l.factors.clone() };
        let mut out: Vec<(f64, FactoredBeta, FactoredBeta)> = Vec::with_capacity(mix.weights.len());
        let mut logw = Vec::with_capacity(mix.weights.len());
        for k in 0..mix.weights.len() {
            let (fa, fs) = (shift(la, mix.a[k]), shift(ls, mix.s[k]));
            // Marginal likelihood of the pair under component k: Z(prior x likelihood) / B(prior).
            let za = if fa.factors.is_empty() { ln_beta(fa.alpha, fa.beta) } else { Density::new(&fa).log_norm };
            let zs = if fs.factors.is_empty() { ln_beta(fs.alpha, fs.beta) } else { Density::new(&fs).log_norm };
            logw.push(mix.weights[k].ln() + za - ln_beta(mix.a[k].0, mix.a[k].1) + zs - ln_beta(mix.s[k].0, mix.s[k].1));
            out.push((0.0, fa, fs));
        }
        let m = logw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = logw.iter().map(|l| (l - m).exp()).sum();
        for (o, l) in out.iter_mut().zip(&logw) {
            o.0 = (l - m).exp() / z;
        }
        out
    }
}

/// Scratch buffers for one session.
#[derive(Default)]
struct Chain {
    abar: Vec<f64>,
    h: Vec<f64>,
}

/// Algorithm 1: the posteriors after processing `log` session by session with continuation
/// `gamma`. Pairs never shown keep Beta(1, 1).
pub fn compute_posteriors(log: &ProductionLog, gamma: f64) -> Result<Posteriors> {
    compute_posteriors_with_prior(log, gamma, (1.0, 1.0), (1.0, 1.0))
}

/// Algorithm 1 with Beta(alpha, beta) priors on every pair's attractiveness (`prior_a`) and
/// satisfaction (`prior_s`), e.g. empirical-Bayes priors fitted to the log
/// ([`super::fitted_prior`]). Pairs never shown keep the prior. Both shape parameters must be
/// at least 1 (the numerical integration of [`Density`] relies on a log-concave density).
pub fn compute_posteriors_with_prior(log: &ProductionLog, gamma: f64, prior_a: (f64, f64), prior_s: (f64, f64)) -> Result<Posteriors> {
    if !(0.0..=1.0).contains(&gamma) {
        return Err(Error::config("baraco", "gamma", format!("{gamma} is outside [0, 1]")));
    }
    for (name, (a, b)) in [("attractiveness prior", prior_a), ("satisfaction prior", prior_s)] {
        if !(a >= 1.0 && b >= 1.0 && a.is_finite() && b.is_finite()) {
            return Err(Error::config("baraco", name, format!("Beta({a}, {b}): both shape parameters must be finite and at least 1")));
        }
    }
    Ok(pass(log, gamma, prior_a, prior_s))
}

/// Algorithm 1 with a mixture prior ([`super::mixture`]): the chain's messages use the means
/// of a Beta matched to the mixture's marginal moments (updated as in Algorithm 1); every
/// pair's exact likelihood is kept, and [`Posteriors::components`] turns it into the
/// per-component posteriors and weights.
pub fn compute_posteriors_mixture(log: &ProductionLog, gamma: f64, mix: &super::mixture::MixturePrior) -> Result<Posteriors> {
    if !(0.0..=1.0).contains(&gamma) {
        return Err(Error::config("baraco", "gamma", format!("{gamma} is outside [0, 1]")));
    }
    mix.validate()?;
    let (ta, ts) = (mix.marginal_a(), mix.marginal_s());
    let mut post = pass(log, gamma, ta, ts);
    // Back to likelihood form: the conjugate counts are integers.
    for (fb, t) in post.a.iter_mut().map(|f| (f, ta)).chain(post.s.iter_mut().map(|f| (f, ts))) {
        fb.alpha = (fb.alpha - t.0).round() + 1.0;
        fb.beta = (fb.beta - t.1).round() + 1.0;
    }
    post.mixture = Some(mix.clone());
    Ok(post)
}

/// The pass of Algorithm 1 with Beta priors of any positive shapes (not validated).
fn pass(log: &ProductionLog, gamma: f64, prior_a: (f64, f64), prior_s: (f64, f64)) -> Posteriors {
    let n = log.pairs.len();
    let mut ta = vec![Tracked::prior(prior_a); n];
    let mut ts = vec![Tracked::prior(prior_s); n];
    // (pair, q) factors `1 - q a` and (pair, u) factors `u + (1 - u) s`, grouped at the end.
    let mut fa: Vec<(u32, f64)> = Vec::new();
    let mut fs: Vec<(u32, f64)> = Vec::new();
    let mut chain = Chain::default();
    for j in 0..log.len() {
        let (_, docs, clicks) = log.session(j);
        update_session(docs, clicks, gamma, &mut ta, &mut ts, &mut fa, &mut fs, &mut chain);
    }
    // Orders match FactoredBeta::merge: ascending (b, m), i.e. q descending and u ascending.
    Posteriors { a: finish(&ta, &fa, true, |q| (1.0, -q)), s: finish(&ts, &fs, false, |u| (u, 1.0 - u)), mixture: None }
}

/// Groups factors by pair (counting sort), sorts each group and merges equal values.
fn finish(t: &[Tracked], f: &[(u32, f64)], descending: bool, factor: impl Fn(f64) -> (f64, f64)) -> Vec<FactoredBeta> {
    let mut start = vec![0usize; t.len() + 1];
    for &(p, _) in f {
        start[p as usize + 1] += 1;
    }
    for i in 0..t.len() {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut values = vec![0.0f64; f.len()];
    for &(p, v) in f {
        values[fill[p as usize]] = v;
        fill[p as usize] += 1;
    }
    t.iter()
        .enumerate()
        .map(|(p, tr)| {
            let group = &mut values[start[p]..start[p + 1]];
            if descending {
                group.sort_unstable_by(|x, y| y.total_cmp(x));
            } else {
                group.sort_unstable_by(f64::total_cmp);
            }
            let mut factors: Vec<(f64, f64, u32)> = Vec::new();
            let mut last = f64::NAN;
            for &v in group.iter() {
                if v == last {
                    factors.last_mut().expect("non-empty").2 += 1;
                } else {
                    let (b, m) = factor(v);
                    factors.push((b, m, 1));
                    last = v;
                }
            }
            FactoredBeta { alpha: tr.alpha, beta: tr.beta, factors }
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn update_session(
    docs: &[u32],
    clicks: &[bool],
    gamma: f64,
    ta: &mut [Tracked],
    ts: &mut [Tracked],
    fa: &mut Vec<(u32, f64)>,
    fs: &mut Vec<(u32, f64)>,
    chain: &mut Chain,
) {
    let n = docs.len();
    let last = clicks.iter().rposition(|&c| c);
    // Start of the unobserved-examination chain and P(E_start = 1 | above).
    let (start, e0) = match last {
        Some(c) => (c + 1, gamma * (1.0 - ts[docs[c] as usize].mean())),
        None => (0, 1.0),
    };
    // Messages use the means before this session.
    chain.abar.clear();
    chain.abar.extend(docs[start..].iter().map(|&p| ta[p as usize].mean()));
    let m = n - start;
    // h[k] = P(no clicks at chain positions > k | E_k = 1, C_k = 0); g = (1 - abar_k) h[k].
    chain.h.clear();
    chain.h.resize(m, 1.0);
    let mut g_next = 1.0; // g at the position after k (unused for the last position)
    for k in (0..m).rev() {
        let h = if k + 1 == m { 1.0 } else { (1.0 - gamma) + gamma * g_next };
        chain.h[k] = h;
        g_next = (1.0 - chain.abar[k]) * h;
    }
    let g_start = if m > 0 { g_next } else { 1.0 };
    let z = (1.0 - e0) + e0 * g_start;
    // Conjugate part: examination known.
    if let Some(c) = last {
        for i in 0..=c {
            let p = docs[i] as usize;
            if clicks[i] {
                ta[p].success();
                if i < c {
                    ts[p].failure();
                }
            } else {
                ta[p].failure();
            }
        }
        // Eq. 11 for the last click, when results follow it.
        if m > 0 {
            let u = (1.0 - gamma) + gamma * g_start;
            let p = docs[c];
            if u <= CERTAIN {
                ts[p as usize].success();
            } else if u < 1.0 {
                ts[p as usize].factor(u, 1.0 - u);
                fs.push((p, u));
            }
        }
    }
    // Eq. 10 below the last click: q_k = P(E_k = 1 | all other observations).
    let mut f = e0;
    for k in 0..m {
        let fh = f * chain.h[k];
        let q = fh / (z + chain.abar[k] * fh);
        let p = docs[start + k];
        if q >= 1.0 - CERTAIN {
            ta[p as usize].failure();
        } else if q > 0.0 {
            ta[p as usize].factor(1.0, -q);
            fa.push((p, q));
        }
        f *= (1.0 - chain.abar[k]) * gamma;
    }
}

/// Gauss–Legendre nodes and weights on [-1, 1], 8 points (also the mixture prior's grid).
pub(super) const GL8: [(f64, f64); 8] = [
    (-0.960_289_856_497_536_3, 0.101_228_536_290_376_26),
    (-0.796_666_477_413_626_7, 0.222_381_034_453_374_47),
    (-0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (-0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (0.796_666_477_413_626_7, 0.222_381_034_453_374_47),
    (0.960_289_856_497_536_3, 0.101_228_536_290_376_26),
];

/// Number of cells of the tabulated density.
pub const CELLS: usize = 256;
/// The support is cut where the log density is this far below its maximum (e^-50 ≈ 2e-22).
pub const LOG_CUT: f64 = 50.0;

/// A posterior integrated numerically: normaliser, mean, variance, CDF and inverse CDF.
///
/// Method: the density is log-concave, so its mode is found by bisection on the derivative
/// of the log density and the support is cut where the log density falls [`LOG_CUT`] below
/// the maximum (relative mass lost < 1e-20). The remaining interval is split into [`CELLS`]
/// equal cells, each integrated with 8-point Gauss–Legendre (exact for polynomials of degree
/// 15 per cell). Tests against the exact polynomial expansion give relative errors below
/// 1e-10 for the normaliser, mean, variance and CDF. The inverse CDF locates the cell exactly
/// and inverts inside it with the log density interpolated linearly (error far below the
/// Monte-Carlo error of 10^4 draws; checked by Kolmogorov–Smirnov tests).
#[derive(Debug, Clone)]
pub struct Density {
    post: FactoredBeta,
    /// Log of the maximum of the unnormalised density.
    pub log_max: f64,
    /// Support after cutting.
    pub lo: f64,
    /// Support after cutting.
    pub hi: f64,
    /// log Z: log of the normalising constant of the unnormalised density.
    pub log_norm: f64,
    /// Posterior mean.
    pub mean: f64,
    /// Posterior variance.
    pub variance: f64,
    /// Cumulative probability at the cell boundaries (`CELLS + 1` values, from 0 to 1).
    cum: Vec<f64>,
    /// Log density (minus `log_max`) at the cell boundaries.
    edge: Vec<f64>,
}

impl Density {
    /// Integrates `post`.
    pub fn new(post: &FactoredBeta) -> Self {
        let post = post.clone();
        let mode = find_mode(&post);
        let log_max = post.log_density(mode);
        let target = log_max - LOG_CUT;
        let lo = if post.log_density(0.0) >= target { 0.0 } else { bisect_level(&post, 0.0, mode, target, true) };
        let hi = if post.log_density(1.0) >= target { 1.0 } else { bisect_level(&post, mode, 1.0, target, false) };
        let width = (hi - lo).max(0.0);
        let h = width / CELLS as f64;
        let mut cum = Vec::with_capacity(CELLS + 1);
        let mut edge = Vec::with_capacity(CELLS + 1);
        cum.push(0.0);
        let (mut m0, mut m1, mut m2) = (0.0, 0.0, 0.0);
        for c in 0..=CELLS {
            let x = lo + h * c as f64;
            edge.push(post.log_density(x) - log_max);
            if c == CELLS {
                break;
            }
            let mid = x + 0.5 * h;
            for &(t, w) in &GL8 {
                let xi = mid + 0.5 * h * t;
                let f = (post.log_density(xi) - log_max).exp() * w * 0.5 * h;
                m0 += f;
                m1 += f * xi;
                m2 += f * xi * xi;
            }
            cum.push(m0);
        }
        if h == 0.0 || m0 <= 0.0 {
            // Degenerate (a point mass at lo): never happens for finite counts.
            return Density { post, log_max, lo, hi: lo, log_norm: log_max, mean: lo, variance: 0.0, cum: vec![0.0; CELLS + 1], edge };
        }
        for c in cum.iter_mut() {
            *c /= m0;
        }
        let mean = m1 / m0;
        let variance = (m2 / m0 - mean * mean).max(0.0);
        Density { post, log_max, lo, hi, log_norm: log_max + m0.ln(), mean, variance, cum, edge }
    }

    /// The posterior this density integrates.
    pub fn posterior(&self) -> &FactoredBeta {
        &self.post
    }

    /// Normalised density at `x`.
    pub fn pdf(&self, x: f64) -> f64 {
        if !(0.0..=1.0).contains(&x) {
            return 0.0;
        }
        (self.post.log_density(x) - self.log_norm).exp()
    }

    /// Cumulative distribution function.
    pub fn cdf(&self, x: f64) -> f64 {
        if x <= self.lo {
            return 0.0;
        }
        if x >= self.hi {
            return 1.0;
        }
        let h = (self.hi - self.lo) / CELLS as f64;
        let c = (((x - self.lo) / h) as usize).min(CELLS - 1);
        let a = self.lo + h * c as f64;
        let mid = 0.5 * (a + x);
        let half = 0.5 * (x - a);
        let mut part = 0.0;
        for &(t, w) in &GL8 {
            part += (self.post.log_density(mid + half * t) - self.log_norm).exp() * w * half;
        }
        (self.cum[c] + part).clamp(0.0, 1.0)
    }

    /// Inverse CDF at `u` in [0, 1).
    pub fn quantile(&self, u: f64) -> f64 {
        if self.hi <= self.lo {
            return self.lo;
        }
        // Cell c with cum[c] <= u < cum[c + 1].
        let c = match self.cum.binary_search_by(|v| v.total_cmp(&u)) {
            Ok(i) => i.min(CELLS - 1),
            Err(i) => i.saturating_sub(1).min(CELLS - 1),
        };
        let h = (self.hi - self.lo) / CELLS as f64;
        let mass = self.cum[c + 1] - self.cum[c];
        let rho = if mass > 0.0 { ((u - self.cum[c]) / mass).clamp(0.0, 1.0) } else { 0.5 };
        let (l0, l1) = (self.edge[c], self.edge[c + 1]);
        let t = if !l0.is_finite() || !l1.is_finite() {
            // Density vanishes at an end (x^k or (1-x)^k with k > 0): power-law cell.
            let k = if !l0.is_finite() { self.post.alpha - 1.0 } else { self.post.beta - 1.0 };
            let r = rho.powf(1.0 / (k + 1.0));
            if !l0.is_finite() {
                r
            } else {
                1.0 - (1.0 - rho).powf(1.0 / (k + 1.0))
            }
        } else {
            let d = l1 - l0;
            if d.abs() < 1e-9 {
                rho
            } else {
                (rho * d.exp_m1()).ln_1p() / d
            }
        };
        (self.lo + h * (c as f64 + t)).clamp(self.lo, self.hi)
    }
}

fn find_mode(p: &FactoredBeta) -> f64 {
    // dlog is decreasing; at the ends use one-sided limits.
    let d0 = if p.alpha > 1.0 { f64::INFINITY } else { p.dlog(0.0) };
    if d0 <= 0.0 {
        return 0.0;
    }
    let d1 = if p.beta > 1.0 { f64::NEG_INFINITY } else { p.dlog(1.0) };
    if d1 >= 0.0 {
        return 1.0;
    }
    let (mut a, mut b) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let m = 0.5 * (a + b);
        if m <= a || m >= b {
            break;
        }
        if p.dlog(m) > 0.0 {
            a = m;
        } else {
            b = m;
        }
    }
    0.5 * (a + b)
}

/// Bisection for log_density = target on [a, b], where it is increasing (`rising`) or decreasing.
fn bisect_level(p: &FactoredBeta, mut a: f64, mut b: f64, target: f64, rising: bool) -> f64 {
    for _ in 0..200 {
        let m = 0.5 * (a + b);
        if m <= a || m >= b {
            break;
        }
        let above = p.log_density(m) >= target;
        if above == rising {
            b = m;
        } else {
            a = m;
        }
    }
    if rising {
        a
    } else {
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact expansion in the Bernstein-like basis x^i (1-x)^(deg-i): every factor is
    /// `c1 x + c0 (1 - x)` with c0, c1 >= 0, so the coefficients never cancel.
    fn expand(p: &FactoredBeta) -> (Vec<f64>, usize) {
        let mut deg = (p.alpha - 1.0 + p.beta - 1.0) as usize;
        let mut c = vec![0.0; deg + 1];
        c[p.alpha as usize - 1] = 1.0;
        for &(b, m, n) in &p.factors {
            for _ in 0..n {
                let (c0, c1) = (b, b + m);
                let mut out = vec![0.0; deg + 2];
                for (i, v) in c.iter().enumerate() {
                    out[i] += c0 * v;
                    out[i + 1] += c1 * v;
                }
                c = out;
                deg += 1;
            }
        }
        (c, deg)
    }

    /// ∫_0^x of the expanded polynomial times t^j, via incomplete Beta functions.
    fn integral(e: &(Vec<f64>, usize), x: f64, j: usize) -> f64 {
        use statrs::function::beta::{beta_reg, ln_beta};
        let (c, deg) = e;
        c.iter()
            .enumerate()
            .filter(|(_, v)| **v != 0.0)
            .map(|(i, v)| {
                let (a, b) = ((i + j + 1) as f64, (deg - i + 1) as f64);
                let full = ln_beta(a, b).exp();
                v * full * if x >= 1.0 { 1.0 } else { beta_reg(a, b, x) }
            })
            .sum()
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn numerical_integration_matches_exact_expansion() {
        let cases = [
            FactoredBeta::beta(1.0, 1.0),
            FactoredBeta::beta(3.0, 7.0),
            FactoredBeta { alpha: 2.0, beta: 5.0, factors: vec![(1.0, -0.3, 2), (1.0, -0.8, 1)] },
            FactoredBeta { alpha: 1.0, beta: 1.0, factors: vec![(1.0, -0.95, 6), (0.2, 0.8, 3)] },
            FactoredBeta { alpha: 12.0, beta: 4.0, factors: vec![(1.0, -0.5, 10), (1.0, -0.25, 5)] },
        ];
        for p in &cases {
            let c = expand(p);
            let z = integral(&c, 1.0, 0);
            let mean = integral(&c, 1.0, 1) / z;
            let var = integral(&c, 1.0, 2) / z - mean * mean;
            let d = Density::new(p);
            assert!(close(d.log_norm.exp(), z, 1e-10), "{p:?}: {} vs {z}", d.log_norm.exp());
            assert!(close(d.mean, mean, 1e-10), "{p:?}: {} vs {mean}", d.mean);
            assert!(close(d.variance, var, 1e-9), "{p:?}: {} vs {var}", d.variance);
            for x in [0.05, 0.2, 0.37, 0.5, 0.81, 0.99] {
                let exact = integral(&c, x, 0) / z;
                assert!((d.cdf(x) - exact).abs() < 1e-10, "{p:?} at {x}: {} vs {exact}", d.cdf(x));
                let q = d.quantile(exact);
                if exact > 1e-6 && exact < 1.0 - 1e-6 {
                    assert!((q - x).abs() < 2e-3, "{p:?}: quantile({exact}) = {q}, want {x}");
                }
            }
        }
    }

    #[test]
    fn large_counts_stay_finite() {
        // Thousands of factors: expanded coefficients would overflow; the log form does not.
        let p = FactoredBeta { alpha: 400.0, beta: 1600.0, factors: vec![(1.0, -0.6, 3000), (1.0, -0.1, 2000)] };
        let d = Density::new(&p);
        assert!(d.mean.is_finite() && d.mean > 0.0 && d.mean < 0.2, "{}", d.mean);
        assert!(d.variance > 0.0 && d.variance < 1e-3);
        assert!((d.cdf(d.hi) - 1.0).abs() < 1e-12 && d.cdf(d.lo) == 0.0);
        // Refinement check: a 4x finer grid on the same interval agrees.
        let h = (d.hi - d.lo) / (4 * CELLS) as f64;
        let (mut m0, mut m1) = (0.0, 0.0);
        for c in 0..4 * CELLS {
            let mid = d.lo + h * (c as f64 + 0.5);
            for &(t, w) in &GL8 {
                let x = mid + 0.5 * h * t;
                let f = (p.log_density(x) - d.log_max).exp() * w * 0.5 * h;
                m0 += f;
                m1 += f * x;
            }
        }
        assert!(close(d.log_norm, d.log_max + m0.ln(), 1e-12));
        assert!(close(d.mean, m1 / m0, 1e-12));
    }

    /// One session, gamma 0.9, three results, a click on the first only. Hand derivation
    /// (priors Beta(1,1), so all means are 1/2 before the session):
    /// P(E_2 = 1) = 0.9 * (1 - 1/2) = 0.45.
    /// a_1: clicked, examined: density 2a (Beta(2,1)).
    /// a_2: L = 0.55 + 0.45 (1 - a_2)(0.1 + 0.9 * 1/2) = 0.7975 - 0.2475 a_2.
    /// a_3: L = 0.55 + 0.45 * (1/2) * (0.1 + 0.9 (1 - a_3)) = 0.775 - 0.2025 a_3.
    /// s_1: L = s + (1 - s)(0.1 + 0.9 * (1/2)(0.1 + 0.9 * 1/2)) = 0.3475 + 0.6525 s.
    #[test]
    fn one_session_matches_hand_derived_polynomials() {
        let log = ProductionLog::parse("q\td1 d2 d3\t1 0 0\n", "t").unwrap();
        let post = compute_posteriors(&log, 0.9).unwrap();
        // Normalised hand polynomials: density = (c0 + c1 x) / (c0 + c1 / 2).
        let hand = |c0: f64, c1: f64, x: f64| (c0 + c1 * x) / (c0 + c1 / 2.0);
        let hand_mean = |c0: f64, c1: f64| (c0 / 2.0 + c1 / 3.0) / (c0 + c1 / 2.0);
        let checks: [(&FactoredBeta, f64, f64); 3] = [(&post.a[1], 0.7975, -0.2475), (&post.a[2], 0.775, -0.2025), (&post.s[0], 0.3475, 0.6525)];
        for (p, c0, c1) in checks {
            let d = Density::new(p);
            for x in [0.1, 0.5, 0.9] {
                assert!(close(d.pdf(x), hand(c0, c1, x), 1e-12), "{p:?} at {x}: {} vs {}", d.pdf(x), hand(c0, c1, x));
            }
            assert!(close(d.mean, hand_mean(c0, c1), 1e-12));
        }
        assert_eq!(post.a[0], FactoredBeta::beta(2.0, 1.0));
        assert_eq!(post.s[1], FactoredBeta::beta(1.0, 1.0));
        let d = Density::new(&post.a[0]);
        assert!(close(d.pdf(0.3), 0.6, 1e-12));
    }

    #[test]
    fn no_click_session_and_known_examination() {
        // No clicks: rank 1 is examined for sure (conjugate beta + 1), rank 2 gets 1 - q a.
        // q_2 = 0.9 * 1 / (Z + 0.5 * 0.9), Z = P(no click at 1, 2) = 0.5 (0.1 + 0.9 * 0.5) = 0.275.
        let log = ProductionLog::parse("q\tx y\t0 0\nq\tx y\t1 1\n", "t").unwrap();
        let post = compute_posteriors(&log, 0.9).unwrap();
        assert_eq!((post.a[0].alpha, post.a[0].beta), (2.0, 2.0));
        assert!(post.a[0].factors.is_empty());
        let q = 0.9 * 0.5 / (0.275 + 0.5 * 0.9 * 0.5);
        assert_eq!(post.a[1].factors.len(), 1);
        assert!(close(-post.a[1].factors[0].1, q, 1e-12), "{:?} vs {q}", post.a[1].factors);
        assert_eq!((post.a[1].alpha, post.a[1].beta), (2.0, 1.0));
        // x clicked then y clicked: s_x failed (beta + 1); y is the last result, s_y unchanged.
        assert_eq!(post.s[0], FactoredBeta::beta(1.0, 2.0));
        assert_eq!(post.s[1], FactoredBeta::beta(1.0, 1.0));
        assert!(compute_posteriors(&log, 1.5).is_err());
    }

    /// The same two sessions with Beta(2, 3) priors on attractiveness and Beta(1.5, 4) on
    /// satisfaction. Hand derivation: the conjugate counts add to the prior shapes (x: examined
    /// twice, clicked once: Beta(3, 4); s_x: one failure: Beta(1.5, 5)); y keeps its
    /// satisfaction prior; the factor for a_2 uses the prior mean 2/5 of both attractivenesses:
    /// after the click-less first session, P(no click at 1, 2) = Z = (1 - 0.4)(0.1 + 0.9 (1 - 0.4))
    /// = 0.384 and q_2 = 0.9 * 0.6 / (Z + 0.4 * 0.9 * 0.6) (no factor for the second session,
    /// where y's examination is known).
    #[test]
    fn fitted_priors_replace_beta_one_one() {
        let log = ProductionLog::parse("q\tx y\t0 0\nq\tx y\t1 1\n", "t").unwrap();
        let post = compute_posteriors_with_prior(&log, 0.9, (2.0, 3.0), (1.5, 4.0)).unwrap();
        assert_eq!((post.a[0].alpha, post.a[0].beta), (3.0, 4.0));
        assert_eq!(post.s[0], FactoredBeta::beta(1.5, 5.0));
        assert_eq!(post.s[1], FactoredBeta::beta(1.5, 4.0));
        let q = 0.9 * 0.6 / (0.384 + 0.4 * 0.9 * 0.6);
        assert!(close(-post.a[1].factors[0].1, q, 1e-12), "{:?} vs {q}", post.a[1].factors);
        assert_eq!((post.a[1].alpha, post.a[1].beta), (3.0, 3.0));
        // Shapes below 1 would make the density non-log-concave: refused, naming the prior.
        let e = compute_posteriors_with_prior(&log, 0.9, (0.5, 3.0), (1.0, 1.0)).unwrap_err().to_string();
        assert!(e.contains("attractiveness prior"), "{e}");
    }

    #[test]
    fn grouped_factors_are_in_merge_order() {
        let log = ProductionLog::parse("q\tx y z\t1 0 0\nq\tx z y\t0 1 0\nq\ty x z\t1 0 0\nq\tx y z\t1 0 0\n", "t").unwrap();
        let post = compute_posteriors(&log, 0.9).unwrap();
        for p in post.a.iter().chain(&post.s) {
            let mut m = p.clone();
            m.merge();
            assert_eq!(&m, p);
        }
    }

    #[test]
    fn moment_matched_mean_tracks_the_exact_mean() {
        // The chain's inputs come from the moment-matched Beta; check it against the exact mean.
        // Exact for the first two (moment matching of a Beta times one factor is exact in the
        // first two moments); measured errors then 1.5e-4 .. 1.0e-3, and 0.0047 after a strong
        // factor (1 - 0.9a) at step 7.
        let mut t = Tracked::prior((1.0, 1.0));
        let mut exact = FactoredBeta::beta(1.0, 1.0);
        let steps: [(f64, f64); 8] = [(1.0, -0.3), (1.0, -0.5), (0.4, 0.6), (1.0, -0.8), (1.0, -0.45), (0.7, 0.3), (1.0, -0.2), (1.0, -0.9)];
        for (i, &(b, m)) in steps.iter().enumerate() {
            if i % 3 == 0 {
                t.success();
                exact.alpha += 1.0;
            }
            t.factor(b, m);
            exact.factors.push((b, m, 1));
            let d = Density::new(&exact);
            let tol = if i < 2 {
                1e-12
            } else if i < 7 {
                3e-3
            } else {
                6e-3
            };
            assert!((t.mean() - d.mean).abs() < tol, "step {i}: {} vs {}", t.mean(), d.mean);
        }
    }

    #[test]
    fn equal_factors_merge() {
        let mut p = FactoredBeta { alpha: 1.0, beta: 1.0, factors: vec![(1.0, -0.2, 1), (1.0, -0.1, 2), (1.0, -0.2, 3)] };
        p.merge();
        assert_eq!(p.factors, [(1.0, -0.2, 4), (1.0, -0.1, 2)]);
    }
}
