//! Posterior sampling for the latent-variable click models (DBN, CCM, UBM, PBM) by Gibbs
//! sampling with data augmentation (Tanner & Wong 1987).
//!
//! Given the parameters, the hidden variables of a session have an exact posterior (the same
//! one the EM E-steps use, see `em.rs`); given the hidden variables, every parameter is a
//! Bernoulli probability with integer successes and failures, so its conditional is
//! Beta(prior + counts). A sweep draws the hidden variables of every session, then every
//! parameter. Per model, the hidden variables drawn are:
//!
//! - **DBN**: for a session with a last click at `l`, the pair (S_l, D): whether the user was
//!   satisfied there and, if not, the last examined rank D >= l (ranks l+1..D examined and not
//!   clicked, continuation 1 - gamma at D unless D is the last rank); without clicks, D >= 1.
//!   One categorical draw over at most n + 1 outcomes per session. Above the last click
//!   everything is known (examined; clicked results before `l` were not satisfying).
//! - **CCM**: the relevance R of every click (R ~ Bernoulli(a), continuation tau3 if R, tau2
//!   otherwise); for the last click, (R_l, D) jointly as for DBN, continuation tau1 after
//!   results without a click.
//! - **UBM / PBM**: whether each result without a click was examined (E): P(E = 1 | C = 0) =
//!   e (1 - a) / (1 - a e); clicked results were examined and attractive.
//!
//! Attractiveness is never drawn where the result was not examined: it is integrated out
//! there (a collapsed sampler, which mixes better than drawing A everywhere and has the same
//! stationary distribution). Counts that do not depend on the hidden variables are computed
//! once ("fixed" counts), so a sweep costs one pass over the sessions' hidden parts plus one
//! Beta draw per parameter.
//!
//! **Priors.** Per-pair and per-rank tables take a [`PriorScope`]. Fitted priors are
//! empirical-Bayes priors that maximise the marginal likelihood P(clicks | alpha, beta). With
//! hidden variables that likelihood has no closed form; it is maximised by Monte-Carlo EM
//! (Wei & Tanner 1990): with the parameters integrated out, the complete-data likelihood of the
//! hidden counts is a product of beta-binomial terms, so each round draws hidden counts with
//! the sampler (under the current prior) for `prior_sweeps` sweeps and refits the prior to
//! them by [`crate::stats::beta_binomial::fit_prior`]. After `prior_rounds` rounds the prior
//! is refitted to the counts of the last half of the rounds and fixed; then the chains run.
//!
//! **Identification.** UBM and PBM are identified only up to a common scale of attractiveness
//! and examination. Pinning the examination of rank 1 (with no click above, for UBM) fixes it
//! (`top = Some(1.0)`: the top result is always examined). Unpinned, the chains drift along the
//! scale and the diagnostics say so.
//!
//! Chains are independent (rayon), each with its own random stream `(seed, chain)`, so the
//! draws are the same whatever the thread count.

use super::hyper::{Hyper, Stats};
use super::prior::{Axis, PriorScope, TablePrior};
use crate::error::{Error, Result};
use crate::logs::ClickLog;
use crate::rng::Stream;
use crate::stats::beta_binomial::BetaPrior;
use rand::Rng;
use rand_distr::{Beta, Distribution};
use rayon::prelude::*;

/// Most sampler chains.
pub const MAX_CHAINS: u64 = 1024;
/// Most sweeps of the sampler over the log, all chains together.
pub const MAX_SWEEPS: u64 = 100_000_000;

/// Settings of the sampler.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GibbsConfig {
    /// Independent chains (default 4).
    pub chains: usize,
    /// Sweeps discarded at the start of each chain (default 500).
    pub warmup: usize,
    /// Draws kept per chain (default 1000).
    pub draws: usize,
    /// Sweeps per kept draw (default 1).
    pub thin: usize,
    /// Master seed.
    pub seed: u64,
    /// Monte-Carlo EM rounds that fit the prior (default 20; unused with the uniform prior).
    pub prior_rounds: usize,
    /// Sweeps per Monte-Carlo EM round (default 5).
    pub prior_sweeps: usize,
}

impl Default for GibbsConfig {
    fn default() -> Self {
        GibbsConfig { chains: 4, warmup: 500, draws: 1000, thin: 1, seed: 1, prior_rounds: 20, prior_sweeps: 5 }
    }
}

impl GibbsConfig {
    /// Rejects unusable settings, naming the key.
    pub fn validate(&self) -> Result<()> {
        let positive = [("chains", self.chains), ("draws", self.draws), ("thin", self.thin), ("prior_sweeps", self.prior_sweeps)];
        for (k, v) in positive {
            if v == 0 {
                return Err(Error::config("sampler", k, "must be at least 1"));
            }
        }
        use crate::limits::{check_count, check_product, check_usize, MAX_SAMPLES};
        check_usize("sampler", "chains", self.chains, MAX_CHAINS, "sampler chains")?;
        for (k, v) in
            [("warmup", self.warmup), ("draws", self.draws), ("thin", self.thin), ("prior_rounds", self.prior_rounds), ("prior_sweeps", self.prior_sweeps)]
        {
            check_usize("sampler", k, v, MAX_SAMPLES, "sampler sweeps")?;
        }
        check_product("sampler", "chains * draws", &[self.chains as u64, self.draws as u64], MAX_SAMPLES, "draws kept in memory")?;
        // Every sweep of every chain: chains * (warmup + draws * thin) + prior_rounds * prior_sweeps.
        let per_chain = (self.draws as u64).checked_mul(self.thin as u64).and_then(|d| d.checked_add(self.warmup as u64));
        let sweeps = per_chain
            .and_then(|c| c.checked_mul(self.chains as u64))
            .and_then(|s| s.checked_add(self.prior_rounds as u64 * self.prior_sweeps as u64))
            .unwrap_or(u64::MAX);
        check_count("sampler", "chains * (warmup + draws * thin)", sweeps, MAX_SWEEPS, "sweeps over the log")?;
        Ok(())
    }
}

/// The latent-variable model to sample, with its fixed settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Latent {
    /// DBN; `gamma = Some(g)` holds the continuation fixed.
    Dbn {
        /// Fixed continuation, or `None` to sample it.
        gamma: Option<f64>,
    },
    /// CCM (PyClick's parameterisation).
    Ccm,
    /// DCM, exactly: after the last click the user either stopped (probability 1 - lambda_l)
    /// or went on and examined every result below without clicking.
    Dcm,
    /// UBM; `top = Some(e)` pins the examination of rank 1 with no click above.
    Ubm {
        /// Pinned examination of rank 1.
        top: Option<f64>,
    },
    /// PBM; `top = Some(e)` pins the examination of rank 1.
    Pbm {
        /// Pinned examination of rank 1.
        top: Option<f64>,
    },
}

/// One parameter table as sampled.
#[derive(Debug, Clone)]
pub struct SampledTable {
    /// Parameter name (as in model files).
    pub name: &'static str,
    /// Index kind.
    pub axis: Axis,
    /// Its prior.
    pub prior: TablePrior,
    /// Entries with a pinned value (never sampled).
    pub pinned: Vec<Option<f64>>,
    /// Draws, entry by entry: entry `i` has `chains * draws` values, chain by chain.
    pub draws: Vec<f32>,
    /// Mean over kept draws of the successes of each entry (fixed plus hidden).
    pub successes: Vec<f64>,
    /// Mean over kept draws of the trials of each entry.
    pub trials: Vec<f64>,
}

impl SampledTable {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.pinned.len()
    }
    /// True without entries.
    pub fn is_empty(&self) -> bool {
        self.pinned.is_empty()
    }
    /// The draws of entry `i`, one slice per chain.
    pub fn chains(&self, i: usize, chains: usize) -> Vec<&[f32]> {
        let per = self.draws.len() / self.len().max(1);
        let d = per / chains.max(1);
        (0..chains).map(|c| &self.draws[i * per + c * d..i * per + (c + 1) * d]).collect()
    }
}

/// Output of [`sample`].
#[derive(Debug, Clone)]
pub struct Sampled {
    /// Tables in the model's order.
    pub tables: Vec<SampledTable>,
    /// Settings used.
    pub config: GibbsConfig,
    /// Pair -> query map used for per-query priors.
    pub pair_query: Vec<u32>,
    /// Sessions sampled.
    pub sessions: usize,
}

struct Spec {
    name: &'static str,
    axis: Axis,
    len: usize,
    pinned: Vec<Option<f64>>,
    /// Updated by a Metropolis step with the hidden variables integrated out (CCM's tau2 and
    /// tau3), not by a Beta draw.
    metropolis: bool,
}

/// Flattened index of UBM cell (0-based rank r, previous click column j: 0 = no click above,
/// else the 1-based rank of the previous click).
#[inline]
pub fn ubm_cell(r: usize, j: usize) -> usize {
    r * (r + 1) / 2 + j
}

/// The log with what the kernels need precomputed.
struct Data<'a> {
    log: &'a ClickLog,
    /// Last click per session (-1: none).
    last: Vec<i32>,
    /// UBM/PBM: (pair, cell) of every result without a click whose examination is not pinned.
    items: Vec<(u32, u32)>,
    /// CCM: (pair, number of clicks on it before the session's last click).
    above: Vec<(u32, f64)>,
    /// UBM/PBM with a pinned top examination: (pair, clicks, non-clicks) in the pinned cell.
    pinned_obs: Vec<(u32, f64, f64)>,
}

impl<'a> Data<'a> {
    fn new(model: Latent, log: &'a ClickLog) -> Self {
        let last: Vec<i32> = log.iter().map(|s| s.last_click().map_or(-1, |l| l as i32)).collect();
        let mut above = Vec::new();
        if model == Latent::Ccm {
            let mut c: std::collections::BTreeMap<u32, f64> = Default::default();
            for (s, &l) in log.iter().zip(&last) {
                for r in 0..l.max(0) as usize {
                    if s.clicks[r] {
                        *c.entry(s.pairs[r]).or_insert(0.0) += 1.0;
                    }
                }
            }
            above = c.into_iter().collect();
        }
        let mut pinned_obs = Vec::new();
        if let Latent::Ubm { top: Some(_) } | Latent::Pbm { top: Some(_) } = model {
            // Rank 1 is always in the pinned cell (no click above it).
            let mut c: std::collections::BTreeMap<u32, (f64, f64)> = Default::default();
            for s in log.iter() {
                if let (Some(&p), Some(&k)) = (s.pairs.first(), s.clicks.first()) {
                    let e = c.entry(p).or_insert((0.0, 0.0));
                    if k {
                        e.0 += 1.0;
                    } else {
                        e.1 += 1.0;
                    }
                }
            }
            pinned_obs = c.into_iter().map(|(p, (k, m))| (p, k, m)).collect();
        }
        Data { log, items: model.items(log), last, above, pinned_obs }
    }
}

/// Mutable sampler state: current values and this sweep's hidden counts per table.
struct State {
    values: Vec<Vec<f64>>,
    succ: Vec<Vec<f64>>,
    fail: Vec<Vec<f64>>,
    buf: Vec<f64>,
    /// CCM Metropolis step: per-session (a_l, T) and the proposal sd on the logit scale.
    tails: Vec<(f64, f64)>,
    mh_sd: f64,
    mh_accepted: u64,
    mh_proposed: u64,
    /// Prior of every entry (the scaling move needs them).
    priors: Vec<Vec<BetaPrior>>,
}

impl State {
    fn clear_counts(&mut self) {
        for v in self.succ.iter_mut().chain(self.fail.iter_mut()) {
            v.iter_mut().for_each(|x| *x = 0.0);
        }
    }
}

/// Metropolis steps on CCM's (tau2, tau3) per sweep.
const CCM_TAU_STEPS: usize = 3;

/// Smallest distance of a drawn probability from 0 and 1 (keeps every weight positive).
const EDGE: f64 = 1e-12;

/// Draws index k with probability w[k] / sum(w) (w non-negative, sum > 0).
#[inline]
fn categorical(w: &[f64], rng: &mut Stream) -> usize {
    let total: f64 = w.iter().sum();
    let mut u = rng.random::<f64>() * total;
    for (k, &x) in w.iter().enumerate() {
        if u < x {
            return k;
        }
        u -= x;
    }
    w.iter().rposition(|&x| x > 0.0).unwrap_or(0)
}

impl Latent {
    fn specs(&self, log: &ClickLog, pairs: usize) -> Vec<Spec> {
        let depth = log.max_len();
        let pair = |name| Spec { name, axis: Axis::Pair, len: pairs, pinned: vec![None; pairs], metropolis: false };
        let scalar = |name, pin: Option<f64>| Spec { name, axis: Axis::Scalar, len: 1, pinned: vec![pin], metropolis: false };
        match *self {
            Latent::Dbn { gamma } => vec![pair("attractiveness"), pair("satisfaction"), scalar("gamma", gamma)],
            Latent::Ccm => vec![
                pair("attractiveness"),
                scalar("tau1", None),
                Spec { metropolis: true, ..scalar("tau2", None) },
                Spec { metropolis: true, ..scalar("tau3", None) },
            ],
            Latent::Dcm => {
                vec![pair("attractiveness"), Spec { name: "continuation", axis: Axis::Rank, len: depth, pinned: vec![None; depth], metropolis: false }]
            }
            Latent::Ubm { top } => {
                let len = depth * (depth + 1) / 2;
                let mut pinned = vec![None; len];
                if len > 0 {
                    pinned[0] = top;
                }
                vec![pair("attractiveness"), Spec { name: "examination", axis: Axis::Matrix, len, pinned, metropolis: false }]
            }
            Latent::Pbm { top } => {
                let mut pinned = vec![None; depth];
                if depth > 0 {
                    pinned[0] = top;
                }
                vec![pair("attractiveness"), Spec { name: "examination", axis: Axis::Rank, len: depth, pinned, metropolis: false }]
            }
        }
    }

    fn validate(&self) -> Result<()> {
        let (key, v) = match *self {
            Latent::Dbn { gamma } => ("gamma", gamma),
            Latent::Ubm { top } | Latent::Pbm { top } => ("top_examination", top),
            Latent::Ccm | Latent::Dcm => return Ok(()),
        };
        if let Some(v) = v {
            crate::error::check_probability("sampler", key, v)?;
        }
        Ok(())
    }

    /// Counts that do not depend on hidden variables: (successes, failures) per table.
    fn fixed_counts(&self, data: &Data, specs: &[Spec]) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let mut s: Vec<Vec<f64>> = specs.iter().map(|t| vec![0.0; t.len]).collect();
        let mut f: Vec<Vec<f64>> = specs.iter().map(|t| vec![0.0; t.len]).collect();
        let log = data.log;
        for (i, sess) in log.iter().enumerate() {
            let l = data.last[i];
            match *self {
                Latent::Dbn { gamma } => {
                    for r in 0..=l.max(-1) {
                        let (r, p) = (r as usize, sess.pairs[r as usize] as usize);
                        if sess.clicks[r] {
                            s[0][p] += 1.0;
                        } else {
                            f[0][p] += 1.0;
                        }
                        if (r as i32) < l {
                            if sess.clicks[r] {
                                f[1][p] += 1.0;
                            }
                            if gamma.is_none() {
                                s[2][0] += 1.0;
                            }
                        }
                    }
                }
                Latent::Ccm => {
                    for r in 0..=l.max(-1) {
                        let (r, p) = (r as usize, sess.pairs[r as usize] as usize);
                        if sess.clicks[r] {
                            s[0][p] += 1.0;
                        } else {
                            f[0][p] += 1.0;
                            // Not clicked above the last click: examined and went on (tau1).
                            s[1][0] += 1.0;
                        }
                    }
                }
                Latent::Dcm => {
                    // Without clicks every result was examined; with clicks, every result down
                    // to the last click, and each click before the last was followed.
                    let end = if l < 0 { sess.pairs.len() as i32 - 1 } else { l };
                    for r in 0..=end.max(-1) {
                        let (r, p) = (r as usize, sess.pairs[r as usize] as usize);
                        if sess.clicks[r] {
                            s[0][p] += 1.0;
                            if (r as i32) < l {
                                s[1][r] += 1.0;
                            }
                        } else {
                            f[0][p] += 1.0;
                        }
                    }
                }
                Latent::Ubm { top } => {
                    let mut prev = 0usize;
                    for (r, (&p, &c)) in sess.pairs.iter().zip(sess.clicks).enumerate() {
                        let k = ubm_cell(r, prev);
                        if c {
                            s[0][p as usize] += 1.0;
                            s[1][k] += 1.0;
                            prev = r + 1;
                        } else if k == 0 && top.is_some() {
                            f[0][p as usize] += 1.0;
                        }
                    }
                }
                Latent::Pbm { top } => {
                    for (r, (&p, &c)) in sess.pairs.iter().zip(sess.clicks).enumerate() {
                        if c {
                            s[0][p as usize] += 1.0;
                            s[1][r] += 1.0;
                        } else if r == 0 && top.is_some() {
                            f[0][p as usize] += 1.0;
                        }
                    }
                }
            }
        }
        (s, f)
    }

    fn items(&self, log: &ClickLog) -> Vec<(u32, u32)> {
        let mut items = Vec::new();
        match *self {
            Latent::Ubm { top } => {
                for sess in log.iter() {
                    let mut prev = 0usize;
                    for (r, (&p, &c)) in sess.pairs.iter().zip(sess.clicks).enumerate() {
                        let k = ubm_cell(r, prev);
                        if c {
                            prev = r + 1;
                        } else if !(k == 0 && top.is_some()) {
                            items.push((p, k as u32));
                        }
                    }
                }
            }
            Latent::Pbm { top } => {
                for sess in log.iter() {
                    for (r, (&p, &c)) in sess.pairs.iter().zip(sess.clicks).enumerate() {
                        if !c && !(r == 0 && top.is_some()) {
                            items.push((p, r as u32));
                        }
                    }
                }
            }
            _ => {}
        }
        items
    }

    /// One sweep's draws before the Beta draws: CCM's Metropolis steps on (tau2, tau3) (whose
    /// proposal scale adapts towards an acceptance rate of 0.2-0.4 while `adapt`), then the
    /// hidden variables.
    fn sweep(&self, data: &Data, st: &mut State, rng: &mut Stream, adapt: bool) {
        let metropolis = match *self {
            Latent::Ccm => {
                for _ in 0..CCM_TAU_STEPS {
                    ccm_tau_step(data, st, rng);
                }
                true
            }
            Latent::Ubm { top } | Latent::Pbm { top } => {
                scale_step(data, st, top, rng);
                true
            }
            _ => false,
        };
        if metropolis && adapt && st.mh_proposed >= 30 {
            let rate = st.mh_accepted as f64 / st.mh_proposed as f64;
            if rate > 0.4 {
                st.mh_sd *= 1.3;
            } else if rate < 0.2 {
                st.mh_sd /= 1.3;
            }
            st.mh_accepted = 0;
            st.mh_proposed = 0;
        }
        self.sweep_hidden(data, st, rng);
    }

    /// Draws every session's hidden variables and adds their counts to `st`.
    fn sweep_hidden(&self, data: &Data, st: &mut State, rng: &mut Stream) {
        st.clear_counts();
        match *self {
            Latent::Dbn { gamma } => sweep_dbn(data, st, gamma.is_none(), rng),
            Latent::Ccm => sweep_ccm(data, st, rng),
            Latent::Dcm => sweep_dcm(data, st, rng),
            Latent::Ubm { .. } | Latent::Pbm { .. } => {
                let State { values, succ, fail, .. } = st;
                let (a, e) = (&values[0], &values[1]);
                let (sa, se) = succ.split_at_mut(1);
                let (fa, fe) = fail.split_at_mut(1);
                let (fa, sa, se, fe) = (&mut fa[0], &mut sa[0], &mut se[0], &mut fe[0]);
                let _ = sa;
                for &(p, k) in &data.items {
                    let (av, ev) = (a[p as usize], e[k as usize]);
                    let pe = ev * (1.0 - av) / (1.0 - av * ev);
                    if rng.random::<f64>() < pe {
                        fa[p as usize] += 1.0;
                        se[k as usize] += 1.0;
                    } else {
                        fe[k as usize] += 1.0;
                    }
                }
            }
        }
    }
}

fn sweep_dbn(data: &Data, st: &mut State, fit_gamma: bool, rng: &mut Stream) {
    let log = data.log;
    let State { values, succ, fail, buf, .. } = st;
    let (a, s, g) = (&values[0], &values[1], values[2][0]);
    let (mut gs, mut gf) = (0.0, 0.0);
    for (i, &l) in data.last.iter().enumerate() {
        let (lo, hi) = (log.offsets[i] as usize, log.offsets[i + 1] as usize);
        let pairs = &log.pairs[lo..hi];
        let n = pairs.len();
        if n == 0 {
            continue;
        }
        buf.clear();
        if l >= 0 {
            let l = l as usize;
            let sl = s[pairs[l] as usize];
            // Outcome 0: satisfied at l. Outcome 1 + (d - l): not satisfied, last examined d.
            buf.push(sl);
            let mut prod = 1.0 - sl;
            for d in l..n {
                if d > l {
                    prod *= g * (1.0 - a[pairs[d] as usize]);
                }
                buf.push(prod * if d + 1 < n { 1.0 - g } else { 1.0 });
            }
            let k = categorical(buf, rng);
            let pl = pairs[l] as usize;
            if k == 0 {
                succ[1][pl] += 1.0;
                continue;
            }
            fail[1][pl] += 1.0;
            let d = l + k - 1;
            if fit_gamma && l + 1 < n {
                if d > l {
                    gs += 1.0;
                } else {
                    gf += 1.0;
                }
            }
            for j in l + 1..=d {
                fail[0][pairs[j] as usize] += 1.0;
                if fit_gamma && j + 1 < n {
                    if j < d {
                        gs += 1.0;
                    } else {
                        gf += 1.0;
                    }
                }
            }
        } else {
            let mut prod = 1.0;
            for d in 0..n {
                prod *= if d > 0 { g } else { 1.0 } * (1.0 - a[pairs[d] as usize]);
                buf.push(prod * if d + 1 < n { 1.0 - g } else { 1.0 });
            }
            let d = categorical(buf, rng);
            for j in 0..=d {
                fail[0][pairs[j] as usize] += 1.0;
                if fit_gamma && j + 1 < n {
                    if j < d {
                        gs += 1.0;
                    } else {
                        gf += 1.0;
                    }
                }
            }
        }
    }
    succ[2][0] += gs;
    fail[2][0] += gf;
}

fn sweep_dcm(data: &Data, st: &mut State, rng: &mut Stream) {
    let log = data.log;
    let State { values, succ, fail, .. } = st;
    let (a, lam) = (&values[0], &values[1]);
    for (i, &l) in data.last.iter().enumerate() {
        if l < 0 {
            continue;
        }
        let (lo, hi) = (log.offsets[i] as usize, log.offsets[i + 1] as usize);
        let pairs = &log.pairs[lo..hi];
        let l = l as usize;
        if l + 1 >= pairs.len() {
            continue; // nothing below: the continuation after the last click is not observed
        }
        let mut tail = lam[l];
        for &p in &pairs[l + 1..] {
            tail *= 1.0 - a[p as usize];
        }
        if rng.random::<f64>() * (tail + 1.0 - lam[l]) < tail {
            succ[1][l] += 1.0;
            for &p in &pairs[l + 1..] {
                fail[0][p as usize] += 1.0;
            }
        } else {
            fail[1][l] += 1.0;
        }
    }
}

/// CCM: one Metropolis step per call on (tau2, tau3) with every hidden variable integrated
/// out, given attractiveness and tau1 (a random walk on the logit scale). Without it the
/// taus mix slowly: they are learnt only through the relevance of clicks, which the sampler
/// would otherwise draw from their current values.
fn ccm_tau_step(data: &Data, st: &mut State, rng: &mut Stream) {
    let log = data.log;
    let a = &st.values[0];
    let t1 = st.values[1][0];
    // T_s = sum over d > l of prod_{l<k<=d} (1 - a_k) tau1^(d-l-1) (1 - tau1 unless last).
    st.tails.clear();
    for (i, &l) in data.last.iter().enumerate() {
        if l < 0 {
            continue;
        }
        let (lo, hi) = (log.offsets[i] as usize, log.offsets[i + 1] as usize);
        let pairs = &log.pairs[lo..hi];
        let (l, n) = (l as usize, pairs.len());
        if l + 1 >= n {
            continue;
        }
        let (mut prod, mut tail) = (1.0, 0.0);
        for d in l + 1..n {
            if d > l + 1 {
                prod *= t1;
            }
            prod *= 1.0 - a[pairs[d] as usize];
            tail += prod * if d + 1 < n { 1.0 - t1 } else { 1.0 };
        }
        st.tails.push((a[pairs[l] as usize], tail));
    }
    let loglik = |t2: f64, t3: f64| -> f64 {
        let mut ll = 0.0;
        for &(p, c) in &data.above {
            let ap = a[p as usize];
            ll += c * (ap * t3 + (1.0 - ap) * t2).ln();
        }
        for &(al, tail) in &st.tails {
            ll += (al * (1.0 - t3 + t3 * tail) + (1.0 - al) * (1.0 - t2 + t2 * tail)).ln();
        }
        ll
    };
    let logit = |x: f64| (x / (1.0 - x)).ln();
    let expit = |y: f64| 1.0 / (1.0 + (-y).exp());
    let (t2, t3) = (st.values[2][0], st.values[3][0]);
    // Target on the logit scale: likelihood x Beta(1, 1) prior x Jacobian t (1 - t).
    let cur = loglik(t2, t3) + (t2 * (1.0 - t2)).ln() + (t3 * (1.0 - t3)).ln();
    let normal = rand_distr::StandardNormal;
    let z2: f64 = normal.sample(rng);
    let z3: f64 = normal.sample(rng);
    let (n2, n3) = (expit(logit(t2) + st.mh_sd * z2).clamp(EDGE, 1.0 - EDGE), expit(logit(t3) + st.mh_sd * z3).clamp(EDGE, 1.0 - EDGE));
    let new = loglik(n2, n3) + (n2 * (1.0 - n2)).ln() + (n3 * (1.0 - n3)).ln();
    let accept = new >= cur || rng.random::<f64>() < (new - cur).exp();
    if accept {
        st.values[2][0] = n2;
        st.values[3][0] = n3;
    }
    st.mh_accepted += u64::from(accept);
    st.mh_proposed += 1;
}

/// UBM/PBM: a Metropolis move along the scale on which attractiveness and examination
/// trade off: every attractiveness times c and every free examination divided by c, with
/// ln c ~ N(0, sd^2) (a scaling move in the sense of Liu & Sabatti 2000). Products of
/// attractiveness and a free examination do not change, so the likelihood ratio (hidden
/// examinations integrated out) involves only the observations in the pinned cell, where the
/// click probability is a * top; the rest is the prior ratio and the Jacobian c^(P - K) for P
/// attractiveness and K free examination values. Gibbs sweeps alone move slowly along this
/// direction.
fn scale_step(data: &Data, st: &mut State, top: Option<f64>, rng: &mut Stream) {
    let u: f64 = rand_distr::StandardNormal.sample(rng);
    let c = (st.mh_sd * u).exp();
    let (a, e) = (&st.values[0], &st.values[1]);
    let free_e: Vec<usize> = (0..e.len()).filter(|&k| !(k == 0 && top.is_some())).collect();
    if a.iter().any(|&x| x * c >= 1.0 - EDGE) || free_e.iter().any(|&k| e[k] / c >= 1.0 - EDGE) {
        st.mh_proposed += 1;
        return;
    }
    let ln_c = c.ln();
    let mut ratio = (a.len() as f64 - free_e.len() as f64) * ln_c;
    if let Some(t) = top {
        for &(p, clicks, misses) in &data.pinned_obs {
            let ap = a[p as usize];
            ratio += clicks * ln_c + misses * ((1.0 - c * ap * t).ln() - (1.0 - ap * t).ln());
        }
    }
    // Prior ratio: Beta(alpha, beta) densities at the scaled values.
    for (i, &x) in a.iter().enumerate() {
        let pr = st.priors[0][i];
        ratio += (pr.alpha - 1.0) * ln_c + (pr.beta - 1.0) * ((1.0 - c * x).ln() - (1.0 - x).ln());
    }
    for &k in &free_e {
        let pr = st.priors[1][k];
        ratio += -(pr.alpha - 1.0) * ln_c + (pr.beta - 1.0) * ((1.0 - e[k] / c).ln() - (1.0 - e[k]).ln());
    }
    let accept = ratio >= 0.0 || rng.random::<f64>() < ratio.exp();
    if accept {
        for x in st.values[0].iter_mut() {
            *x *= c;
        }
        for &k in &free_e {
            st.values[1][k] /= c;
        }
    }
    st.mh_accepted += u64::from(accept);
    st.mh_proposed += 1;
}

fn sweep_ccm(data: &Data, st: &mut State, rng: &mut Stream) {
    let log = data.log;
    let State { values, succ, fail, buf, .. } = st;
    let a = &values[0];
    let tau = [values[1][0], values[2][0], values[3][0]];
    let mut ts = [0.0f64; 3];
    let mut tf = [0.0f64; 3];
    for (i, &l) in data.last.iter().enumerate() {
        let (lo, hi) = (log.offsets[i] as usize, log.offsets[i + 1] as usize);
        let (pairs, clicks) = (&log.pairs[lo..hi], &log.clicks[lo..hi]);
        let n = pairs.len();
        if n == 0 {
            continue;
        }
        buf.clear();
        if l >= 0 {
            let l = l as usize;
            // Clicks above the last: relevance given that the user went on.
            for r in 0..l {
                if clicks[r] {
                    let p = pairs[r] as usize;
                    let x1 = a[p] * tau[2];
                    let x0 = (1.0 - a[p]) * tau[1];
                    if rng.random::<f64>() * (x0 + x1) < x1 {
                        succ[0][p] += 1.0;
                        ts[2] += 1.0;
                    } else {
                        fail[0][p] += 1.0;
                        ts[1] += 1.0;
                    }
                }
            }
            // T(d) for d > l: prod_{l<k<=d} (1 - a_k) tau1^(d-l-1) (1 - tau1 unless last rank).
            let mut prod = 1.0;
            for d in l + 1..n {
                if d > l + 1 {
                    prod *= tau[0];
                }
                prod *= 1.0 - a[pairs[d] as usize];
                buf.push(prod * if d + 1 < n { 1.0 - tau[0] } else { 1.0 });
            }
            let tail: f64 = buf.iter().sum();
            let pl = pairs[l] as usize;
            let al = a[pl];
            let stop = |t: f64| if l + 1 < n { 1.0 - t } else { 1.0 };
            let w1 = al * (stop(tau[2]) + tau[2] * tail);
            let w0 = (1.0 - al) * (stop(tau[1]) + tau[1] * tail);
            let rel = rng.random::<f64>() * (w0 + w1) < w1;
            let t = if rel { tau[2] } else { tau[1] };
            let ti = if rel { 2 } else { 1 };
            if rel {
                succ[0][pl] += 1.0;
            } else {
                fail[0][pl] += 1.0;
            }
            // Continue past l? P(stop) = stop(t), P(go on and end at d) = t T(d).
            let go = l + 1 < n && rng.random::<f64>() * (stop(t) + t * tail) >= stop(t);
            if l + 1 < n {
                if go {
                    ts[ti] += 1.0;
                } else {
                    tf[ti] += 1.0;
                }
            }
            if go {
                let d = l + 1 + categorical(buf, rng);
                for j in l + 1..=d {
                    fail[0][pairs[j] as usize] += 1.0;
                    if j + 1 < n {
                        if j < d {
                            ts[0] += 1.0;
                        } else {
                            tf[0] += 1.0;
                        }
                    }
                }
            }
        } else {
            let mut prod = 1.0;
            for d in 0..n {
                prod *= if d > 0 { tau[0] } else { 1.0 } * (1.0 - a[pairs[d] as usize]);
                buf.push(prod * if d + 1 < n { 1.0 - tau[0] } else { 1.0 });
            }
            let d = categorical(buf, rng);
            for j in 0..=d {
                fail[0][pairs[j] as usize] += 1.0;
                if j + 1 < n {
                    if j < d {
                        ts[0] += 1.0;
                    } else {
                        tf[0] += 1.0;
                    }
                }
            }
        }
    }
    for k in 0..3 {
        succ[1 + k][0] += ts[k];
        fail[1 + k][0] += tf[k];
    }
}

/// Draws every free parameter from its Beta conditional.
fn draw_params(specs: &[Spec], fixed: &(Vec<Vec<f64>>, Vec<Vec<f64>>), st: &mut State, rng: &mut Stream) {
    for (t, spec) in specs.iter().enumerate() {
        if spec.metropolis {
            continue;
        }
        for i in 0..spec.len {
            if let Some(v) = spec.pinned[i] {
                st.values[t][i] = v;
                continue;
            }
            let pr = st.priors[t][i];
            let a = pr.alpha + fixed.0[t][i] + st.succ[t][i];
            let b = pr.beta + fixed.1[t][i] + st.fail[t][i];
            let x = Beta::new(a, b).map(|d| d.sample(rng)).unwrap_or(a / (a + b));
            st.values[t][i] = x.clamp(EDGE, 1.0 - EDGE);
        }
    }
}

/// Prior of every entry of every table.
fn expand_priors(specs: &[Spec], tables: &[TablePrior], pair_query: &[u32]) -> Vec<Vec<BetaPrior>> {
    specs.iter().zip(tables).map(|(s, t)| (0..s.len).map(|i| if s.axis == Axis::Pair { t.of(i, pair_query) } else { t.global }).collect()).collect()
}

fn initial_state(specs: &[Spec], priors: &[Vec<BetaPrior>], rng: &mut Stream) -> State {
    let values = specs
        .iter()
        .zip(priors)
        .map(|(s, p)| {
            (0..s.len)
                .map(|i| match s.pinned[i] {
                    Some(v) => v,
                    None => Beta::new(p[i].alpha, p[i].beta).map(|d| d.sample(rng)).unwrap_or(0.5).clamp(0.02, 0.98),
                })
                .collect()
        })
        .collect();
    State {
        values,
        succ: specs.iter().map(|s| vec![0.0; s.len]).collect(),
        fail: specs.iter().map(|s| vec![0.0; s.len]).collect(),
        buf: Vec::new(),
        tails: Vec::new(),
        mh_sd: 0.1,
        mh_accepted: 0,
        mh_proposed: 0,
        priors: priors.to_vec(),
    }
}

/// The per-pair tables of a hierarchical prior and, for each, the entries with data: the pairs
/// the log shows (attractiveness) or, for a per-pair table read only after a click (DBN's
/// satisfaction), the pairs it shows clicked. The other entries never enter a session's
/// likelihood, so their values are draws from the prior alone.
fn informed_entries(log: &ClickLog, specs: &[Spec]) -> Vec<(usize, Vec<usize>)> {
    let (mut shown, mut clicked) = (Vec::new(), Vec::new());
    for s in log.iter() {
        for (&p, &c) in s.pairs.iter().zip(s.clicks) {
            shown.push(p as usize);
            if c {
                clicked.push(p as usize);
            }
        }
    }
    for v in [&mut shown, &mut clicked] {
        v.sort_unstable();
        v.dedup();
    }
    specs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.axis == Axis::Pair)
        .map(|(t, s)| (t, if s.name == "satisfaction" { clicked.clone() } else { shown.clone() }))
        .collect()
}

/// Samples the posterior of `model` on `log` (whose pair indices run below `pairs`).
/// `progress` is called with the number of sweeps done since the last call.
pub fn sample(model: Latent, log: &ClickLog, pairs: usize, scope: PriorScope, cfg: &GibbsConfig, progress: &(dyn Fn(u64) + Sync)) -> Result<Sampled> {
    sample_with_queries(model, log, pairs, scope, cfg, None, progress)
}

/// [`sample`] with the query of every pair given (`queries[pair]`, `u32::MAX` for none), for
/// pairs the log never shows but whose query is known (BARACO's unseen documents): with
/// per-query priors they are drawn from their query's prior. `None`: the queries the log
/// shows each pair with.
pub fn sample_with_queries(
    model: Latent,
    log: &ClickLog,
    pairs: usize,
    scope: PriorScope,
    cfg: &GibbsConfig,
    queries: Option<&[u32]>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Sampled> {
    cfg.validate()?;
    model.validate()?;
    if log.is_empty() {
        return Err(Error::Invalid("no sessions to sample from".into()));
    }
    let pairs = pairs.max(log.pairs.iter().map(|&p| p as usize + 1).max().unwrap_or(0));
    let specs = model.specs(log, pairs);
    let total: usize = specs.iter().map(|s| s.len).sum();
    let floats = total as u128 * (cfg.chains * cfg.draws) as u128;
    if floats > 1u128 << 30 {
        return Err(Error::Invalid(format!(
            "keeping {} draws of {total} parameters needs {} GB: lower --draws or --chains",
            cfg.chains * cfg.draws,
            floats * 4 / 1_000_000_000
        )));
    }
    let data = Data::new(model, log);
    let fixed = model.fixed_counts(&data, &specs);
    let mut pair_query = super::prior::pair_queries(log, pairs);
    if let Some(q) = queries {
        for (mine, &given) in pair_query.iter_mut().zip(q) {
            if *mine == u32::MAX {
                *mine = given;
            }
        }
    }

    // Priors: Beta(1, 1), or Monte-Carlo EM.
    let mut tables: Vec<TablePrior> = specs.iter().map(|_| TablePrior::uniform()).collect();
    if scope.is_fitted() {
        let mut rng = crate::rng::stream(cfg.seed, &[u64::MAX]);
        let mut priors = expand_priors(&specs, &tables, &pair_query);
        let mut st = initial_state(&specs, &priors, &mut rng);
        let rounds = cfg.prior_rounds.max(1);
        let keep_from = rounds / 2;
        let mut pooled: Vec<Vec<(f64, f64)>> = specs.iter().map(|_| Vec::new()).collect();
        let mut pooled_q: Vec<u32> = Vec::new();
        for round in 0..rounds {
            let mut this: Vec<Vec<(f64, f64)>> = specs.iter().map(|_| Vec::new()).collect();
            let mut this_q: Vec<u32> = Vec::new();
            for _ in 0..cfg.prior_sweeps {
                model.sweep(&data, &mut st, &mut rng, true);
                for (t, spec) in specs.iter().enumerate() {
                    if spec.axis == Axis::Scalar {
                        continue;
                    }
                    for i in 0..spec.len {
                        // Pinned entries are not drawn: they do not inform the prior.
                        this[t].push(match spec.pinned[i] {
                            None => (fixed.0[t][i] + st.succ[t][i], fixed.1[t][i] + st.fail[t][i]),
                            Some(_) => (0.0, 0.0),
                        });
                    }
                }
                this_q.extend_from_slice(&pair_query);
                draw_params(&specs, &fixed, &mut st, &mut rng);
                progress(1);
            }
            for (t, spec) in specs.iter().enumerate() {
                let q: &[u32] = if spec.axis == Axis::Pair { &this_q } else { &[] };
                tables[t] = TablePrior::fit(scope, spec.axis, &this[t], q)?;
            }
            if round >= keep_from {
                for t in 0..specs.len() {
                    pooled[t].extend_from_slice(&this[t]);
                }
                pooled_q.extend_from_slice(&this_q);
            }
            priors = expand_priors(&specs, &tables, &pair_query);
            st.priors = priors.clone();
        }
        for (t, spec) in specs.iter().enumerate() {
            let q: &[u32] = if spec.axis == Axis::Pair { &pooled_q } else { &[] };
            let mut fit = TablePrior::fit(scope, spec.axis, &pooled[t], q)?;
            // Report log marginals per sweep, not summed over the pooled sweeps.
            let sweeps = (rounds - keep_from) as f64 * cfg.prior_sweeps as f64;
            if let Some(g) = fit.global_fit.as_mut() {
                g.ln_marginal /= sweeps;
                g.groups = (g.groups as f64 / sweeps).round() as usize;
            }
            for g in fit.query_fits.iter_mut() {
                g.fit.ln_marginal /= sweeps;
                g.fit.groups = (g.fit.groups as f64 / sweeps).round() as usize;
            }
            tables[t] = fit;
        }
    }
    let priors = expand_priors(&specs, &tables, &pair_query);
    // Hierarchical priors: the per-pair tables and the entries that carry data.
    let hier: Vec<(usize, Vec<usize>)> = if scope == PriorScope::Hierarchical { informed_entries(log, &specs) } else { Vec::new() };

    // Chains.
    let chains: Vec<(Vec<f32>, Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<(f64, f64)>)> = (0..cfg.chains)
        .into_par_iter()
        .map(|c| {
            let mut rng = crate::rng::stream(cfg.seed, &[c as u64]);
            let mut st = initial_state(&specs, &priors, &mut rng);
            let mut out = Vec::with_capacity(cfg.draws * total);
            let mut msucc: Vec<Vec<f64>> = specs.iter().map(|s| vec![0.0; s.len]).collect();
            let mut mtrials: Vec<Vec<f64>> = specs.iter().map(|s| vec![0.0; s.len]).collect();
            let mut hypers = vec![Hyper::UNIFORM; hier.len()];
            let mut hyper_sums = vec![(0.0, 0.0); hier.len()];
            let mut since = 0u64;
            for sweep in 0..cfg.warmup + cfg.draws * cfg.thin {
                model.sweep(&data, &mut st, &mut rng, sweep < cfg.warmup);
                let keep = sweep >= cfg.warmup && (sweep - cfg.warmup + 1).is_multiple_of(cfg.thin);
                if keep {
                    for t in 0..specs.len() {
                        for i in 0..specs[t].len {
                            let s = fixed.0[t][i] + st.succ[t][i];
                            msucc[t][i] += s;
                            mtrials[t][i] += s + fixed.1[t][i] + st.fail[t][i];
                        }
                    }
                }
                // Entries without data are drawn from the prior of this sweep: they are not part
                // of the hyper-parameters' conditional, which is the model with them integrated out.
                draw_params(&specs, &fixed, &mut st, &mut rng);
                if keep {
                    for v in &st.values {
                        out.extend(v.iter().map(|&x| x as f32));
                    }
                }
                for ((t, entries), (h, sum)) in hier.iter().zip(hypers.iter_mut().zip(hyper_sums.iter_mut())) {
                    h.step(&Stats::of(entries.iter().map(|&i| st.values[*t][i])), &mut rng);
                    let pr = h.prior();
                    st.priors[*t].iter_mut().for_each(|p| *p = pr);
                    if keep {
                        sum.0 += pr.alpha;
                        sum.1 += pr.beta;
                    }
                }
                since += 1;
                if since == 16 {
                    progress(since);
                    since = 0;
                }
            }
            progress(since);
            (out, msucc, mtrials, hyper_sums)
        })
        .collect();
    for (h, (t, _)) in hier.iter().enumerate() {
        let n = (cfg.chains * cfg.draws) as f64;
        let (a, b) = chains.iter().fold((0.0, 0.0), |acc, c| (acc.0 + c.3[h].0, acc.1 + c.3[h].1));
        tables[*t] = TablePrior { scope, global: BetaPrior { alpha: a / n, beta: b / n }, ..TablePrior::uniform() };
    }

    // Entry-major draws per table.
    let per = cfg.chains * cfg.draws;
    let mut out_tables = Vec::with_capacity(specs.len());
    let mut offset = 0;
    for (t, spec) in specs.iter().enumerate() {
        let mut draws = vec![0f32; spec.len * per];
        for (c, (buf, _, _, _)) in chains.iter().enumerate() {
            for k in 0..cfg.draws {
                let row = &buf[k * total + offset..k * total + offset + spec.len];
                for (i, &v) in row.iter().enumerate() {
                    draws[i * per + c * cfg.draws + k] = v;
                }
            }
        }
        let denom = per as f64;
        let successes = (0..spec.len).map(|i| chains.iter().map(|c| c.1[t][i]).sum::<f64>() / denom).collect();
        let trials = (0..spec.len).map(|i| chains.iter().map(|c| c.2[t][i]).sum::<f64>() / denom).collect();
        out_tables.push(SampledTable { name: spec.name, axis: spec.axis, prior: tables[t].clone(), pinned: spec.pinned.clone(), draws, successes, trials });
        offset += spec.len;
    }
    Ok(Sampled { tables: out_tables, config: *cfg, pair_query, sessions: log.len() })
}

/// Sweeps of the DBN sampler on `log` with gamma fixed and the uniform prior, without keeping
/// draws: for benchmarks (session-sweeps per second).
pub fn bench_sweeps(model: Latent, log: &ClickLog, sweeps: usize, seed: u64) -> f64 {
    let pairs = log.pairs.iter().map(|&p| p as usize + 1).max().unwrap_or(0);
    let specs = model.specs(log, pairs);
    let data = Data::new(model, log);
    let fixed = model.fixed_counts(&data, &specs);
    let tables: Vec<TablePrior> = specs.iter().map(|_| TablePrior::uniform()).collect();
    let priors = expand_priors(&specs, &tables, &[]);
    let mut rng = crate::rng::stream(seed, &[]);
    let mut st = initial_state(&specs, &priors, &mut rng);
    for _ in 0..sweeps {
        model.sweep(&data, &mut st, &mut rng, false);
        draw_params(&specs, &fixed, &mut st, &mut rng);
    }
    st.values[0].iter().sum()
}
