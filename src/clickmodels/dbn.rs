//! The dynamic Bayesian network click model (DBN): the model, its EM fit (E-step, M-step)
//! and its registration.

use super::driver::{self, EmOptions};
use super::em::{clamp, EmConfig, Gamma};
use super::estep::{EStats, EmModel, Scratch, StatsShape};
use super::gibbs::{categorical, last_clicks, GibbsKernel, GibbsModel, LatentSettings, State, TableSpec};
use super::registry::{EmSpec, ModelSpec, PosteriorSpec, Satisfaction, UserSpec, UserWalk};
use super::state::EmState;
use super::table::{ModelKind, ParamTable};
use super::{draw, param, ClickModel, ModelConfig, PRIOR};
use crate::error::Result;
use crate::logs::{ClickLog, SessionRef, SessionSource};
use crate::rng::Stream;
use crate::user::Dynamics;

/// How to fit a [`Dbn`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DbnConfig {
    /// Continuation: fitted or fixed.
    pub gamma: Gamma,
    /// Maximum EM iterations (default 50).
    pub iterations: usize,
    /// Early-stop tolerance on the relative change of the training log-likelihood (default 0:
    /// every iteration; see [`EmConfig::tolerance`]).
    pub tolerance: f64,
}

impl Default for DbnConfig {
    fn default() -> Self {
        DbnConfig { gamma: Gamma::Fitted, iterations: 50, tolerance: 0.0 }
    }
}

/// Dynamic Bayesian network click model (Chapelle & Zhang 2009).
///
/// The user examines rank 1; an examined result is clicked with its attractiveness; after a
/// click the user is satisfied with its satisfaction and stops; otherwise the user goes on
/// to the next result with probability `gamma`.
#[derive(Debug, Clone, PartialEq)]
pub struct Dbn {
    /// Attractiveness per pair.
    pub attractiveness: Vec<f64>,
    /// Satisfaction per pair (P(satisfied | click)).
    pub satisfaction: Vec<f64>,
    /// Continuation probability.
    pub gamma: f64,
}

impl Default for Dbn {
    /// Every parameter at the prior 0.5.
    fn default() -> Self {
        Dbn { attractiveness: Vec::new(), satisfaction: Vec::new(), gamma: PRIOR }
    }
}

impl DbnConfig {
    /// Fits from parameters at 0.5 (gamma at its fixed value when fixed).
    pub fn fit(&self, src: &mut dyn SessionSource) -> Result<Dbn> {
        self.fit_from(src, Dbn::default())
    }

    /// Runs EM starting from `init` (its gamma is replaced by the fixed value when fixed), with
    /// the shared driver ([`super::driver::run`]; default options).
    pub fn fit_from(&self, src: &mut dyn SessionSource, mut model: Dbn) -> Result<Dbn> {
        if let Gamma::Fixed(g) = self.gamma {
            crate::error::check_probability("dbn", "gamma", g)?;
            model.gamma = g;
        }
        let mut state = EmState::from_model(Box::new(DbnFit { model, fit_gamma: matches!(self.gamma, Gamma::Fitted) }));
        let cfg = EmConfig { iterations: self.iterations, tolerance: self.tolerance };
        driver::run(&mut state, &cfg, &EmOptions::default(), src, &mut |_| {})?;
        Ok(state.get::<DbnFit>().expect("a dbn fit stays a dbn").model.clone())
    }

    /// One EM iteration: the model re-estimated from `current` (a parallel E-step where the
    /// source splits into parts).
    pub fn em_step(&self, src: &mut dyn SessionSource, current: &Dbn) -> Result<Dbn> {
        let fit_gamma = matches!(self.gamma, Gamma::Fitted);
        let state = EmState::from_model(Box::new(DbnFit { model: current.clone(), fit_gamma }));
        let stats = driver::e_step(&state, src, false)?;
        Ok(current.m_step(fit_gamma, &stats))
    }
}

impl Dbn {
    /// Adds one session's expected counts (E-step under `self`) to `stats`
    /// (tables: attractiveness, satisfaction, gamma).
    pub fn accumulate(&self, fit_gamma: bool, s: SessionRef<'_>, stats: &mut EStats, buf: &mut Scratch) {
        let current = self;
        let g = current.gamma;
        stats.sessions += stats.weight();
        let (own, eb) = stats.tables.split_at_mut(3);
        let [attr, sat, gam] = own else { unreachable!("dbn statistics have three tables") };
        // A fitted prior's informative trials (EStats::add_eb_tables): attractiveness as a
        // click of an examination (ranks down to the last click examined for sure, the ranks
        // below with their examination posterior), satisfaction of a click followed by another
        // as a failure, of the last click as a success of weight gamma * P(a click below).
        let mut eb = match eb {
            [ea, es] => Some((ea, es)),
            _ => None,
        };
        {
            let n = s.pairs.len();
            buf.a.clear();
            buf.s.clear();
            for &p in s.pairs {
                buf.a.push(param(&current.attractiveness, p as usize));
                buf.s.push(param(&current.satisfaction, p as usize));
            }
            // car[r] = P(a click at rank r or below | E_r = 1)
            buf.car.clear();
            buf.car.resize(n + 1, 0.0);
            for r in (0..n).rev() {
                buf.car[r] = buf.a[r] + (1.0 - buf.a[r]) * g * buf.car[r + 1];
            }
            let last = s.last_click();
            let mut eps = 1.0; // P(E_r = 1 | clicks above r)
            if let Some(l) = last {
                for r in 0..=l {
                    let p = s.pairs[r] as usize;
                    if let Some((ea, es)) = eb.as_mut() {
                        ea.add(p, f64::from(u8::from(s.clicks[r])), 1.0);
                        if s.clicks[r] && r < l {
                            es.add(p, 0.0, 1.0);
                        } else if s.clicks[r] {
                            // Informative when the user, unsatisfied, would have clicked below
                            // (probability w = gamma * P(a click below)): given no click below,
                            // that happened with probability w s / (1 - w (1 - s)), and then
                            // the user was satisfied.
                            let (sv, w) = (buf.s[r], g * buf.car[r + 1]);
                            let q = w * sv / (1.0 - w * (1.0 - sv));
                            es.add(p, q, q);
                        }
                    }
                    if s.clicks[r] {
                        attr.add(p, 1.0, 1.0);
                        if r < l {
                            sat.add(p, 0.0, 1.0);
                            if fit_gamma {
                                gam.add(0, 1.0, 1.0);
                            }
                        } else {
                            let (sv, c1) = (buf.s[r], buf.car[r + 1]);
                            let post = sv / (1.0 - (1.0 - sv) * g * c1);
                            sat.add(p, post, 1.0);
                            if fit_gamma && r + 1 < n {
                                let w = 1.0 - post;
                                gam.add(0, w * g * (1.0 - c1) / (1.0 - g * c1), w);
                            }
                        }
                    } else {
                        attr.add(p, 0.0, 1.0);
                        if fit_gamma {
                            gam.add(0, 1.0, 1.0);
                        }
                    }
                }
                eps = g * (1.0 - buf.s[l]);
            }
            for r in last.map_or(0, |l| l + 1)..n {
                let (a, c) = (buf.a[r], buf.car[r]);
                let d = 1.0 - eps * c;
                attr.add(s.pairs[r] as usize, a * (1.0 - eps) / d, 1.0);
                if let Some((ea, _)) = eb.as_mut() {
                    ea.add(s.pairs[r] as usize, 0.0, eps * (1.0 - c) / d);
                }
                if fit_gamma && r + 1 < n {
                    let pe = eps * (1.0 - c) / d;
                    let c1 = buf.car[r + 1];
                    gam.add(0, pe * g * (1.0 - c1) / (1.0 - g * c1), pe);
                }
                eps = g * eps * (1.0 - a) / (1.0 - eps * a);
            }
        }
    }

    /// M-step: the model re-estimated from summed statistics (gamma kept unless `fit_gamma`).
    pub fn m_step(&self, fit_gamma: bool, stats: &EStats) -> Dbn {
        let (attr, sat, gam) = (&stats.tables[0], &stats.tables[1], &stats.tables[2]);
        let len = attr.used_len().max(sat.used_len());
        Dbn {
            attractiveness: attr.values(len, true),
            satisfaction: sat.values(len, true),
            gamma: if fit_gamma { clamp(gam.values(1, false)[0]) } else { self.gamma },
        }
    }
}

impl ClickModel for Dbn {
    fn kind(&self) -> ModelKind {
        ModelKind::Dbn
    }

    fn click_probs(&self, pairs: &[u32], out: &mut Vec<f64>) {
        out.clear();
        let mut exam = 1.0;
        for &p in pairs {
            let (a, s) = (param(&self.attractiveness, p as usize), param(&self.satisfaction, p as usize));
            out.push(a * exam);
            exam *= self.gamma * ((1.0 - s) * a + (1.0 - a));
        }
    }

    fn observed_probs(&self, s: SessionRef<'_>, out: &mut Vec<f64>) {
        out.clear();
        let mut exam = 1.0;
        for (&p, &c) in s.pairs.iter().zip(s.clicks) {
            let a = param(&self.attractiveness, p as usize);
            if c {
                out.push(a * exam);
                exam = self.gamma * (1.0 - param(&self.satisfaction, p as usize));
            } else {
                let q = 1.0 - a * exam;
                out.push(q);
                exam *= self.gamma * (1.0 - a) / q;
            }
        }
    }

    fn relevance(&self, pair: u32) -> f64 {
        param(&self.attractiveness, pair as usize) * param(&self.satisfaction, pair as usize)
    }

    fn simulate(&self, pairs: &[u32], rng: &mut Stream, clicks: &mut Vec<bool>) {
        clicks.clear();
        clicks.resize(pairs.len(), false);
        for (r, &p) in pairs.iter().enumerate() {
            if draw(param(&self.attractiveness, p as usize), rng) {
                clicks[r] = true;
                if draw(param(&self.satisfaction, p as usize), rng) {
                    return;
                }
            }
            if !draw(self.gamma, rng) {
                return;
            }
        }
    }

    fn to_table(&self) -> ParamTable {
        ParamTable::new(ModelKind::Dbn).scalar("gamma", self.gamma).pair("attractiveness", &self.attractiveness).pair("satisfaction", &self.satisfaction)
    }
}

/// A DBN fit in progress: the model and whether gamma is fitted (held otherwise).
#[derive(Debug, Clone)]
pub struct DbnFit {
    /// The current parameters.
    pub model: Dbn,
    /// Whether gamma is fitted.
    pub fit_gamma: bool,
}

impl EmModel for DbnFit {
    fn kind(&self) -> ModelKind {
        ModelKind::Dbn
    }
    fn accumulate(&self, s: SessionRef<'_>, stats: &mut EStats, buf: &mut Scratch) {
        self.model.accumulate(self.fit_gamma, s, stats, buf)
    }
    fn m_step(&self, stats: &EStats) -> Box<dyn EmModel> {
        Box::new(DbnFit { model: self.model.m_step(self.fit_gamma, stats), fit_gamma: self.fit_gamma })
    }
    fn model(&self) -> &dyn ClickModel {
        &self.model
    }
    fn fitted(&self) -> Box<dyn ClickModel> {
        Box::new(self.model.clone())
    }
    fn pair_free(&self) -> bool {
        self.model.attractiveness.is_empty() && self.model.satisfaction.is_empty()
    }
    fn pair_vecs(&mut self) -> Vec<&mut Vec<f64>> {
        vec![&mut self.model.attractiveness, &mut self.model.satisfaction]
    }
    fn params_mut(&mut self) -> Vec<&mut [f64]> {
        let m = &mut self.model;
        vec![&mut m.attractiveness, &mut m.satisfaction, std::slice::from_mut(&mut m.gamma)]
    }
    fn encode(&self) -> (u8, Vec<f64>, Vec<&[f64]>) {
        (u8::from(self.fit_gamma), vec![self.model.gamma], vec![&self.model.attractiveness, &self.model.satisfaction])
    }
}

/// The starting state: parameters at 0.5, gamma at its fixed value when fixed.
fn start(cfg: &ModelConfig) -> Result<Box<dyn EmModel>> {
    let c = match cfg {
        ModelConfig::Dbn(c) => *c,
        other => {
            let em = other.em_config().unwrap_or_default();
            DbnConfig { gamma: Gamma::Fitted, iterations: em.iterations, tolerance: em.tolerance }
        }
    };
    super::em::check_iterations(c.iterations)?;
    let mut m = Dbn::default();
    if let Gamma::Fixed(g) = c.gamma {
        crate::error::check_probability("dbn", "gamma", g)?;
        m.gamma = g;
    }
    Ok(Box::new(DbnFit { model: m, fit_gamma: matches!(c.gamma, Gamma::Fitted) }))
}

fn decode(fit_gamma: bool, scalars: &[f64], lists: Vec<Vec<f64>>) -> std::result::Result<Box<dyn EmModel>, &'static str> {
    let gamma = *scalars.first().ok_or("missing scalar parameter")?;
    let mut it = lists.into_iter();
    let (attractiveness, satisfaction) = (it.next().ok_or("missing parameters")?, it.next().ok_or("missing parameters")?);
    Ok(Box::new(DbnFit { model: Dbn { gamma, attractiveness, satisfaction }, fit_gamma }))
}

fn read(t: &ParamTable, ctx: &str) -> Result<Box<dyn ClickModel>> {
    Ok(Box::new(Dbn { attractiveness: t.get_pair(ctx, "attractiveness")?, satisfaction: t.get_pair(ctx, "satisfaction")?, gamma: t.get_scalar(ctx, "gamma")? }))
}

/// DBN's posterior sampler ([`super::gibbs`]). Given the parameters, a session with a last
/// click at `l` has one hidden pair (S_l, D): whether the user was satisfied there and, if not,
/// the last examined rank D >= l (ranks l+1..D examined and not clicked, continuation
/// 1 - gamma at D unless D is the last rank); without clicks, D >= 1. One categorical draw
/// over at most n + 1 outcomes per session. Above the last click everything is known
/// (examined; clicked results before `l` were not satisfying).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DbnSampler {
    /// Fixed continuation, or `None` to sample it.
    pub gamma: Option<f64>,
    /// Whether the sampled tables include gamma (SDBN's sampler, gamma held at 1, leaves it out).
    pub report_gamma: bool,
}

impl DbnSampler {
    /// DBN's sampler, gamma fixed at `gamma` or (`None`) sampled.
    pub fn new(gamma: Option<f64>) -> Self {
        DbnSampler { gamma, report_gamma: true }
    }
}

impl GibbsModel for DbnSampler {
    fn tables(&self, _depth: usize, pairs: usize) -> Vec<TableSpec> {
        let satisfaction = TableSpec { after_click: true, ..TableSpec::pair("satisfaction", pairs) };
        vec![TableSpec::pair("attractiveness", pairs), satisfaction, TableSpec { reported: self.report_gamma, ..TableSpec::scalar("gamma", self.gamma) }]
    }

    fn validate(&self) -> Result<()> {
        if let Some(v) = self.gamma {
            crate::error::check_probability("sampler", "gamma", v)?;
        }
        Ok(())
    }

    fn kernel<'a>(&self, log: &'a ClickLog) -> Box<dyn GibbsKernel + 'a> {
        Box::new(DbnKernel { log, last: last_clicks(log), gamma: self.gamma })
    }
}

struct DbnKernel<'a> {
    log: &'a ClickLog,
    last: Vec<i32>,
    gamma: Option<f64>,
}

impl GibbsKernel for DbnKernel<'_> {
    fn fixed_counts(&self, s: &mut [Vec<f64>], f: &mut [Vec<f64>]) {
        for (i, sess) in self.log.iter().enumerate() {
            let l = self.last[i];
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
                    if self.gamma.is_none() {
                        s[2][0] += 1.0;
                    }
                }
            }
        }
    }

    fn hidden(&self, st: &mut State, rng: &mut Stream) {
        let (log, fit_gamma) = (self.log, self.gamma.is_none());
        let State { values, succ, fail, buf, .. } = st;
        let (a, s, g) = (&values[0], &values[1], values[2][0]);
        let (mut gs, mut gf) = (0.0, 0.0);
        for (i, &l) in self.last.iter().enumerate() {
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
}

/// DBN's sampler from the settings (gamma).
fn sampler(s: &LatentSettings) -> Box<dyn GibbsModel> {
    Box::new(DbnSampler::new(s.gamma))
}

/// DBN as a simulated user: gamma after every result.
fn walk(t: &ParamTable) -> UserWalk {
    let g = t.find_scalar("gamma").unwrap_or(PRIOR);
    UserWalk { dynamics: Dynamics { after_skip: g, after_click: g, ..Dynamics::default() }, global: None, satisfaction: Satisfaction::per_pair() }
}

/// DBN in the registry.
pub(crate) const SPEC: ModelSpec = ModelSpec {
    kind: ModelKind::Dbn,
    scalars: &["gamma"],
    ranks: &[],
    matrices: &[],
    pairs: &["attractiveness", "satisfaction"],
    read,
    em: Some(EmSpec {
        // Tables: attractiveness, satisfaction (per pair), gamma.
        shape: StatsShape { tables: &[None, None, Some(1)], pair_tables: 2, base_tables: 3, eb_at: Some(3) },
        start,
        decode,
        iterative: true,
        squarem: true,
        fitted_prior: true,
        top_examination: false,
    }),
    posterior: PosteriorSpec { counted: &[], sampler: Some(sampler) },
    user: UserSpec { attractiveness: "attractiveness", satisfaction: Some("satisfaction"), walk },
};
