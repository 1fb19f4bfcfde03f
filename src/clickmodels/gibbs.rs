//! Posterior sampling for the latent-variable click models by Gibbs sampling with data
//! augmentation (Tanner & Wong 1987): the generic sampler. Each model brings its own part in
//! its file, as a [`GibbsModel`] (its tables and fixed settings) with a [`GibbsKernel`] (its
//! fixed counts, Metropolis moves and hidden-variable draws), reached through the registry
//! ([`super::registry::PosteriorSpec::sampler`], [`super::registry::sampler`]); this file names
//! no model.
//!
//! Given the parameters, the hidden variables of a session have an exact posterior (the same
//! one the EM E-steps use, see `em.rs`); given the hidden variables, every parameter is a
//! Bernoulli probability with integer successes and failures, so its conditional is
//! Beta(prior + counts). A sweep draws the model's Metropolis moves, the hidden variables of
//! every session, then every parameter. What each model draws is written at its sampler
//! (`dbn.rs`'s `DbnSampler`, also SDBN's exact one with gamma held at 1; `ccm.rs`, `ubm.rs`,
//! `pbm.rs`; DCM's exact one in `mle.rs`). The attractiveness-times-examination models (UBM,
//! PBM) share the steps at the end of this file ([`examination_hidden`], [`scale_step`]).
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
//! ([`LatentSettings::top_examination`] `Some(1.0)`: the top result is always examined). Unpinned, the chains drift along the
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

/// The fixed settings a sampler may be given; each model reads those it has (the registry's
/// [`super::registry::PosteriorSpec::sampler`] builds the model's sampler from them).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LatentSettings {
    /// A continuation held fixed (DBN's gamma); `None` samples it.
    pub gamma: Option<f64>,
    /// A pinned examination of rank 1 with no click above (UBM, PBM); `None` leaves it free.
    pub top_examination: Option<f64>,
}

/// A latent-variable model the sampler draws from, with its fixed settings: its parameter
/// tables and its sweep. Implemented in each model's file (`dbn.rs`, `ccm.rs`, `ubm.rs`,
/// `pbm.rs`, DCM's in `mle.rs`) and reached through the registry.
pub trait GibbsModel: std::fmt::Debug + Send + Sync {
    /// The parameter tables, in the model's order, for a log whose SERPs have at most `depth`
    /// results and whose pair indices run below `pairs`.
    fn tables(&self, depth: usize, pairs: usize) -> Vec<TableSpec>;

    /// Rejects unusable fixed settings, naming the key.
    fn validate(&self) -> Result<()> {
        Ok(())
    }

    /// The sweep over `log`, with what it precomputes from the log.
    fn kernel<'a>(&self, log: &'a ClickLog) -> Box<dyn GibbsKernel + 'a>;
}

/// One model's draws over one log: the counts its hidden variables do not change, its
/// Metropolis moves and its hidden variables.
pub trait GibbsKernel: Sync {
    /// Adds the successes `s` and failures `f` of every table (sized as the tables, zero at the
    /// start) that do not depend on the hidden variables.
    fn fixed_counts(&self, s: &mut [Vec<f64>], f: &mut [Vec<f64>]);

    /// The Metropolis moves of a sweep, before the hidden variables are drawn; true when the
    /// model has any (their proposal scale then adapts during the warm-up).
    fn metropolis(&self, st: &mut State, rng: &mut Stream) -> bool {
        let _ = (st, rng);
        false
    }

    /// Draws every session's hidden variables and adds their counts to `st` (cleared before).
    fn hidden(&self, st: &mut State, rng: &mut Stream);
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

/// One parameter table of a sampled model, as its [`GibbsModel::tables`] describes it.
#[derive(Debug, Clone)]
pub struct TableSpec {
    /// Parameter name (as in model files).
    pub name: &'static str,
    /// Index kind.
    pub axis: Axis,
    /// Entries.
    pub len: usize,
    /// Entries with a pinned value (never sampled).
    pub pinned: Vec<Option<f64>>,
    /// Updated by a Metropolis step with the hidden variables integrated out (CCM's tau2 and
    /// tau3), not by a Beta draw.
    pub metropolis: bool,
    /// A per-pair table read only after a click (DBN's satisfaction): under a hierarchical
    /// prior only the pairs the log shows clicked carry data.
    pub after_click: bool,
    /// Whether [`sample`] reports it (SDBN's sampler is DBN's with gamma held at 1, which it
    /// does not report).
    pub reported: bool,
}

impl TableSpec {
    /// A per-pair table of `pairs` entries.
    pub fn pair(name: &'static str, pairs: usize) -> Self {
        TableSpec { name, axis: Axis::Pair, len: pairs, pinned: vec![None; pairs], metropolis: false, after_click: false, reported: true }
    }

    /// A scalar, pinned at `pin` when given.
    pub fn scalar(name: &'static str, pin: Option<f64>) -> Self {
        TableSpec { name, axis: Axis::Scalar, len: 1, pinned: vec![pin], metropolis: false, after_click: false, reported: true }
    }

    /// A table of `len` entries along `axis` (per rank, or the cells of a matrix) whose first
    /// entry is pinned at `first` when given.
    pub fn along(name: &'static str, axis: Axis, len: usize, first: Option<f64>) -> Self {
        let mut pinned = vec![None; len];
        if len > 0 {
            pinned[0] = first;
        }
        TableSpec { name, axis, len, pinned, metropolis: false, after_click: false, reported: true }
    }
}

/// The last click of every session (-1: none), which the cascade models' kernels read.
pub fn last_clicks(log: &ClickLog) -> Vec<i32> {
    log.iter().map(|s| s.last_click().map_or(-1, |l| l as i32)).collect()
}

/// Mutable sampler state: current values and this sweep's hidden counts per table.
pub struct State {
    /// Current value of every entry, table by table.
    pub values: Vec<Vec<f64>>,
    /// This sweep's hidden successes, table by table.
    pub succ: Vec<Vec<f64>>,
    /// This sweep's hidden failures, table by table.
    pub fail: Vec<Vec<f64>>,
    /// Scratch weights for the kernels.
    pub buf: Vec<f64>,
    /// Scratch pairs for the kernels (CCM's Metropolis step: per session (a_l, T)).
    pub tails: Vec<(f64, f64)>,
    /// The Metropolis proposal sd (on the logit or log scale) and its acceptance counts.
    pub mh_sd: f64,
    /// See [`State::mh_sd`].
    pub mh_accepted: u64,
    /// See [`State::mh_sd`].
    pub mh_proposed: u64,
    /// Prior of every entry (the scaling move needs them).
    pub priors: Vec<Vec<BetaPrior>>,
}

impl State {
    fn clear_counts(&mut self) {
        for v in self.succ.iter_mut().chain(self.fail.iter_mut()) {
            v.iter_mut().for_each(|x| *x = 0.0);
        }
    }
}

/// Smallest distance of a drawn probability from 0 and 1 (keeps every weight positive).
pub const EDGE: f64 = 1e-12;

/// Draws index k with probability w[k] / sum(w) (w non-negative, sum > 0).
#[inline]
pub fn categorical(w: &[f64], rng: &mut Stream) -> usize {
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

/// Counts that do not depend on hidden variables: (successes, failures) per table.
fn fixed_counts(kernel: &dyn GibbsKernel, specs: &[TableSpec]) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let mut s: Vec<Vec<f64>> = specs.iter().map(|t| vec![0.0; t.len]).collect();
    let mut f: Vec<Vec<f64>> = specs.iter().map(|t| vec![0.0; t.len]).collect();
    kernel.fixed_counts(&mut s, &mut f);
    (s, f)
}

/// One sweep's draws before the Beta draws: the model's Metropolis steps (whose proposal scale
/// adapts towards an acceptance rate of 0.2-0.4 while `adapt`), then the hidden variables.
fn one_sweep(kernel: &dyn GibbsKernel, st: &mut State, rng: &mut Stream, adapt: bool) {
    let metropolis = kernel.metropolis(st, rng);
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
    st.clear_counts();
    kernel.hidden(st, rng);
}

// The examination models (UBM, PBM): attractiveness (table 0) times an examination (table 1)
// indexed by a cell (a rank, or a rank and the last click above), rank 1's cell optionally
// pinned. Their kernels share these steps.

/// Checks a pinned examination of rank 1 (UBM, PBM).
pub fn check_top(top: Option<f64>) -> Result<()> {
    if let Some(v) = top {
        crate::error::check_probability("sampler", "top_examination", v)?;
    }
    Ok(())
}

/// The kernel of the examination models (UBM, PBM): whether each result without a click was
/// examined ([`examination_hidden`]), then a scaling move ([`scale_step`]). `cell(r, prev)` is
/// the model's examination cell of rank `r` (0-based) when the last click above it was at rank
/// `prev` (1-based; 0: none): PBM's rank, UBM's [`super::ubm::ubm_cell`].
pub struct ExaminationKernel<'a> {
    log: &'a ClickLog,
    top: Option<f64>,
    cell: fn(usize, usize) -> usize,
    /// (pair, cell) of every result without a click whose examination is not pinned.
    items: Vec<(u32, u32)>,
    /// With a pinned top examination: (pair, clicks, non-clicks) in the pinned cell.
    top_obs: Vec<(u32, f64, f64)>,
}

impl<'a> ExaminationKernel<'a> {
    /// The kernel over `log` with rank 1's examination pinned at `top` when given.
    pub fn new(log: &'a ClickLog, top: Option<f64>, cell: fn(usize, usize) -> usize) -> Self {
        let mut items = Vec::new();
        for sess in log.iter() {
            let mut prev = 0usize;
            for (r, (&p, &c)) in sess.pairs.iter().zip(sess.clicks).enumerate() {
                let k = cell(r, prev);
                if c {
                    prev = r + 1;
                } else if !(k == 0 && top.is_some()) {
                    items.push((p, k as u32));
                }
            }
        }
        let top_obs = if top.is_some() { top_observations(log) } else { Vec::new() };
        ExaminationKernel { log, top, cell, items, top_obs }
    }
}

impl GibbsKernel for ExaminationKernel<'_> {
    fn fixed_counts(&self, s: &mut [Vec<f64>], f: &mut [Vec<f64>]) {
        for sess in self.log.iter() {
            let mut prev = 0usize;
            for (r, (&p, &c)) in sess.pairs.iter().zip(sess.clicks).enumerate() {
                let k = (self.cell)(r, prev);
                if c {
                    s[0][p as usize] += 1.0;
                    s[1][k] += 1.0;
                    prev = r + 1;
                } else if k == 0 && self.top.is_some() {
                    f[0][p as usize] += 1.0;
                }
            }
        }
    }

    fn metropolis(&self, st: &mut State, rng: &mut Stream) -> bool {
        scale_step(&self.top_obs, st, self.top, rng);
        true
    }

    fn hidden(&self, st: &mut State, rng: &mut Stream) {
        examination_hidden(&self.items, st, rng);
    }
}

/// (pair, clicks, non-clicks) of the results at rank 1, whose cell is the pinned one (no click
/// above it).
pub fn top_observations(log: &ClickLog) -> Vec<(u32, f64, f64)> {
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
    c.into_iter().map(|(p, (k, m))| (p, k, m)).collect()
}

/// Draws whether each result without a click, `items` (pair, examination cell), was examined:
/// P(E = 1 | C = 0) = e (1 - a) / (1 - a e).
pub fn examination_hidden(items: &[(u32, u32)], st: &mut State, rng: &mut Stream) {
    let State { values, succ, fail, .. } = st;
    let (a, e) = (&values[0], &values[1]);
    let (sa, se) = succ.split_at_mut(1);
    let (fa, fe) = fail.split_at_mut(1);
    let (fa, sa, se, fe) = (&mut fa[0], &mut sa[0], &mut se[0], &mut fe[0]);
    let _ = sa;
    for &(p, k) in items {
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

/// A Metropolis move along the scale on which attractiveness and examination
/// trade off: every attractiveness times c and every free examination divided by c, with
/// ln c ~ N(0, sd^2) (a scaling move in the sense of Liu & Sabatti 2000). Products of
/// attractiveness and a free examination do not change, so the likelihood ratio (hidden
/// examinations integrated out) involves only the observations in the pinned cell (`top_obs`,
/// [`top_observations`]), where the
/// click probability is a * top; the rest is the prior ratio and the Jacobian c^(P - K) for P
/// attractiveness and K free examination values. Gibbs sweeps alone move slowly along this
/// direction.
pub fn scale_step(top_obs: &[(u32, f64, f64)], st: &mut State, top: Option<f64>, rng: &mut Stream) {
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
        for &(p, clicks, misses) in top_obs {
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

/// Draws every free parameter from its Beta conditional.
fn draw_params(specs: &[TableSpec], fixed: &(Vec<Vec<f64>>, Vec<Vec<f64>>), st: &mut State, rng: &mut Stream) {
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
fn expand_priors(specs: &[TableSpec], tables: &[TablePrior], pair_query: &[u32]) -> Vec<Vec<BetaPrior>> {
    specs.iter().zip(tables).map(|(s, t)| (0..s.len).map(|i| if s.axis == Axis::Pair { t.of(i, pair_query) } else { t.global }).collect()).collect()
}

fn initial_state(specs: &[TableSpec], priors: &[Vec<BetaPrior>], rng: &mut Stream) -> State {
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
fn informed_entries(log: &ClickLog, specs: &[TableSpec]) -> Vec<(usize, Vec<usize>)> {
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
    specs.iter().enumerate().filter(|(_, s)| s.axis == Axis::Pair).map(|(t, s)| (t, if s.after_click { clicked.clone() } else { shown.clone() })).collect()
}

/// Samples the posterior of `model` on `log` (whose pair indices run below `pairs`).
/// `progress` is called with the number of sweeps done since the last call.
pub fn sample(model: &dyn GibbsModel, log: &ClickLog, pairs: usize, scope: PriorScope, cfg: &GibbsConfig, progress: &(dyn Fn(u64) + Sync)) -> Result<Sampled> {
    sample_with_queries(model, log, pairs, scope, cfg, None, progress)
}

/// [`sample`] with the query of every pair given (`queries[pair]`, `u32::MAX` for none), for
/// pairs the log never shows but whose query is known (BARACO's unseen documents): with
/// per-query priors they are drawn from their query's prior. `None`: the queries the log
/// shows each pair with.
pub fn sample_with_queries(
    model: &dyn GibbsModel,
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
    let specs = model.tables(log.max_len(), pairs);
    let total: usize = specs.iter().map(|s| s.len).sum();
    let floats = total as u128 * (cfg.chains * cfg.draws) as u128;
    if floats > 1u128 << 30 {
        return Err(Error::Invalid(format!(
            "keeping {} draws of {total} parameters needs {} GB: lower --draws or --chains",
            cfg.chains * cfg.draws,
            floats * 4 / 1_000_000_000
        )));
    }
    let kernel = model.kernel(log);
    let kernel = &*kernel;
    let fixed = fixed_counts(kernel, &specs);
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
                one_sweep(kernel, &mut st, &mut rng, true);
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
                one_sweep(kernel, &mut st, &mut rng, sweep < cfg.warmup);
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
        if spec.reported {
            out_tables.push(SampledTable { name: spec.name, axis: spec.axis, prior: tables[t].clone(), pinned: spec.pinned.clone(), draws, successes, trials });
        }
        offset += spec.len;
    }
    Ok(Sampled { tables: out_tables, config: *cfg, pair_query, sessions: log.len() })
}

/// Sweeps of `model`'s sampler on `log` with the uniform prior, without keeping
/// draws: for benchmarks (session-sweeps per second).
pub fn bench_sweeps(model: &dyn GibbsModel, log: &ClickLog, sweeps: usize, seed: u64) -> f64 {
    let pairs = log.pairs.iter().map(|&p| p as usize + 1).max().unwrap_or(0);
    let specs = model.tables(log.max_len(), pairs);
    let kernel = model.kernel(log);
    let fixed = fixed_counts(&*kernel, &specs);
    let tables: Vec<TablePrior> = specs.iter().map(|_| TablePrior::uniform()).collect();
    let priors = expand_priors(&specs, &tables, &[]);
    let mut rng = crate::rng::stream(seed, &[]);
    let mut st = initial_state(&specs, &priors, &mut rng);
    for _ in 0..sweeps {
        one_sweep(&*kernel, &mut st, &mut rng, false);
        draw_params(&specs, &fixed, &mut st, &mut rng);
    }
    st.values[0].iter().sum()
}
