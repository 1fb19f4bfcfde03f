//! The click chain model (CCM): the model, its EM fit (E-step, M-step) and its registration.

use super::driver::{self, EmOptions};
use super::em::EmConfig;
use super::estep::{EStats, EmModel, Scratch, StatsShape};
use super::gibbs::{categorical, last_clicks, GibbsKernel, GibbsModel, LatentSettings, State, TableSpec, EDGE};
use super::registry::{EmSpec, ModelSpec, PosteriorSpec, Satisfaction, UserSpec, UserWalk};
use super::state::EmState;
use super::table::{ModelKind, ParamTable};
use super::{draw, param, ClickModel, ModelConfig, PRIOR};
use crate::error::Result;
use crate::logs::{ClickLog, SessionRef, SessionSource};
use crate::rng::Stream;
use crate::user::Dynamics;
use rand::Rng;
use rand_distr::Distribution;

/// Click chain model (Guo et al. 2009) in PyClick's parameterisation: attractiveness
/// doubles as relevance; after no click the user goes on with `tau1`, after a click on a
/// non-relevant result with `tau2`, after a relevant one with `tau3`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ccm {
    /// Attractiveness (= relevance) per pair.
    pub attractiveness: Vec<f64>,
    /// Continuation after no click.
    pub tau1: f64,
    /// Continuation after a click on a non-relevant result.
    pub tau2: f64,
    /// Continuation after a click on a relevant result.
    pub tau3: f64,
}

impl Default for Ccm {
    fn default() -> Self {
        Ccm { attractiveness: Vec::new(), tau1: PRIOR, tau2: PRIOR, tau3: PRIOR }
    }
}

impl Ccm {
    /// Fits by EM from parameters at 0.5 (the shared driver, [`super::driver::run`]).
    pub fn fit(cfg: &EmConfig, src: &mut dyn SessionSource) -> Result<Ccm> {
        let mut state = EmState::from_model(Box::new(Ccm::default()));
        driver::run(&mut state, cfg, &EmOptions::default(), src, &mut |_| {})?;
        Ok(state.get::<Ccm>().expect("a ccm fit stays a ccm").clone())
    }

    /// One EM iteration from `m`.
    pub fn em_step(src: &mut dyn SessionSource, m: &Ccm) -> Result<Ccm> {
        let stats = driver::e_step(&EmState::from_model(Box::new(m.clone())), src, false)?;
        Ok(Ccm::m_step(&stats))
    }

    /// Adds one session's expected counts (E-step under `self`) to `stats` (tables:
    /// attractiveness, tau1..tau3).
    pub fn accumulate(&self, s: SessionRef<'_>, stats: &mut EStats, buf: &mut Scratch) {
        let m = self;
        let (t1, t2, t3) = (m.tau1, m.tau2, m.tau3);
        stats.sessions += stats.weight();
        let (own, eb) = stats.tables.split_at_mut(2);
        let [attr, tau] = own else { unreachable!("ccm statistics have two tables") };
        // A fitted prior's informative trials of attractiveness (EStats::add_eb_tables): a
        // click is a success of one trial; an unclicked result at or above the last click a
        // failure of one trial (CCM is a cascade: a click at l means ranks 1..l were examined);
        // an unclicked result r below the last click (or in a session without clicks) a
        // failure of weight P(E_r = 1 | no click from r on) = eps (1 - c) / (1 - eps c), with
        // eps = P(E_r = 1 | the clicks above r) and c = car[r] = P(a click at r or below |
        // E_r = 1): P(E_r = 1, no click from r on) = eps (1 - c) and P(no click from r on) =
        // 1 - eps c. (The relevance half of a clicked result's attractiveness count is left
        // out: it is a posterior, not an observation.)
        let mut eb = match eb {
            [ea] => Some(ea),
            _ => None,
        };
        {
            let n = s.pairs.len();
            buf.a.clear();
            buf.a.extend(s.pairs.iter().map(|&p| param(&m.attractiveness, p as usize)));
            buf.car.clear();
            buf.car.resize(n + 1, 0.0);
            for r in (0..n).rev() {
                buf.car[r] = buf.a[r] + (1.0 - buf.a[r]) * t1 * buf.car[r + 1];
            }
            let last = s.last_click();
            let mut eps = 1.0;
            if let Some(l) = last {
                for r in 0..=l {
                    let (p, a) = (s.pairs[r] as usize, buf.a[r]);
                    if let Some(ea) = eb.as_mut() {
                        ea.add_trial(p, s.clicks[r]);
                    }
                    if !s.clicks[r] {
                        attr.add(p, 0.0, 1.0);
                        tau.add(0, 1.0, 1.0);
                        continue;
                    }
                    // Clicked: attractiveness certain, relevance (S) uncertain.
                    let q = if r < l {
                        a * t3 / ((1.0 - a) * t2 + a * t3)
                    } else {
                        let c1 = buf.car[r + 1];
                        let x1 = a * (1.0 - t3 * c1);
                        let x0 = (1.0 - a) * (1.0 - t2 * c1);
                        x1 / (x1 + x0)
                    };
                    attr.add(p, 1.0 + q, 2.0);
                    if r < l {
                        tau.add(2, q, q);
                        tau.add(1, 1.0 - q, 1.0 - q);
                    } else if r + 1 < n {
                        let c1 = buf.car[r + 1];
                        tau.add(2, q * t3 * (1.0 - c1) / (1.0 - t3 * c1), q);
                        tau.add(1, (1.0 - q) * t2 * (1.0 - c1) / (1.0 - t2 * c1), 1.0 - q);
                    }
                }
                let a = buf.a[l];
                eps = (1.0 - a) * t2 + a * t3;
            }
            for r in last.map_or(0, |l| l + 1)..n {
                let (a, c) = (buf.a[r], buf.car[r]);
                let d = 1.0 - eps * c;
                attr.add(s.pairs[r] as usize, a * (1.0 - eps) / d, 1.0);
                if let Some(ea) = eb.as_mut() {
                    ea.add(s.pairs[r] as usize, 0.0, eps * (1.0 - c) / d);
                }
                if r + 1 < n {
                    let pe = eps * (1.0 - c) / d;
                    let c1 = buf.car[r + 1];
                    tau.add(0, pe * t1 * (1.0 - c1) / (1.0 - t1 * c1), pe);
                }
                eps = t1 * eps * (1.0 - a) / (1.0 - eps * a);
            }
        }
    }

    /// M-step from summed statistics.
    pub fn m_step(stats: &EStats) -> Ccm {
        let (attr, tau) = (&stats.tables[0], &stats.tables[1]);
        let t = tau.values(3, true);
        Ccm { attractiveness: attr.values(attr.used_len(), true), tau1: t[0], tau2: t[1], tau3: t[2] }
    }
}

impl ClickModel for Ccm {
    fn kind(&self) -> ModelKind {
        ModelKind::Ccm
    }

    fn click_probs(&self, pairs: &[u32], out: &mut Vec<f64>) {
        out.clear();
        let mut exam = 1.0;
        for &p in pairs {
            let a = param(&self.attractiveness, p as usize);
            out.push(a * exam);
            exam *= (1.0 - a) * self.tau1 + a * ((1.0 - a) * self.tau2 + a * self.tau3);
        }
    }

    fn observed_probs(&self, s: SessionRef<'_>, out: &mut Vec<f64>) {
        out.clear();
        let mut exam = 1.0;
        for (&p, &c) in s.pairs.iter().zip(s.clicks) {
            let a = param(&self.attractiveness, p as usize);
            if c {
                out.push(a * exam);
                exam = self.tau2 * (1.0 - a) + self.tau3 * a;
            } else {
                let q = 1.0 - a * exam;
                out.push(q);
                exam *= self.tau1 * (1.0 - a) / q;
            }
        }
    }

    /// PyClick: attractiveness squared.
    fn relevance(&self, pair: u32) -> f64 {
        param(&self.attractiveness, pair as usize).powi(2)
    }

    fn simulate(&self, pairs: &[u32], rng: &mut Stream, clicks: &mut Vec<bool>) {
        clicks.clear();
        clicks.resize(pairs.len(), false);
        for (r, &p) in pairs.iter().enumerate() {
            let a = param(&self.attractiveness, p as usize);
            let go_on = if draw(a, rng) {
                clicks[r] = true;
                if draw(a, rng) {
                    self.tau3
                } else {
                    self.tau2
                }
            } else {
                self.tau1
            };
            if !draw(go_on, rng) {
                return;
            }
        }
    }

    fn to_table(&self) -> ParamTable {
        ParamTable::new(ModelKind::Ccm)
            .scalar("tau1", self.tau1)
            .scalar("tau2", self.tau2)
            .scalar("tau3", self.tau3)
            .pair("attractiveness", &self.attractiveness)
    }
}

impl EmModel for Ccm {
    fn kind(&self) -> ModelKind {
        ModelKind::Ccm
    }
    fn accumulate(&self, s: SessionRef<'_>, stats: &mut EStats, buf: &mut Scratch) {
        Ccm::accumulate(self, s, stats, buf)
    }
    fn m_step(&self, stats: &EStats) -> Box<dyn EmModel> {
        Box::new(Ccm::m_step(stats))
    }
    fn model(&self) -> &dyn ClickModel {
        self
    }
    fn fitted(&self) -> Box<dyn ClickModel> {
        Box::new(self.clone())
    }
    fn pair_free(&self) -> bool {
        self.attractiveness.is_empty()
    }
    fn pair_vecs(&mut self) -> Vec<&mut Vec<f64>> {
        vec![&mut self.attractiveness]
    }
    fn params_mut(&mut self) -> Vec<&mut [f64]> {
        vec![&mut self.attractiveness, std::slice::from_mut(&mut self.tau1), std::slice::from_mut(&mut self.tau2), std::slice::from_mut(&mut self.tau3)]
    }
    fn encode(&self) -> (u8, Vec<f64>, Vec<&[f64]>) {
        (0, vec![self.tau1, self.tau2, self.tau3], vec![&self.attractiveness])
    }
}

/// The starting state: parameters at 0.5.
fn start(cfg: &ModelConfig) -> Result<Box<dyn EmModel>> {
    super::em::check_iterations(cfg.em_config().unwrap_or_default().iterations)?;
    Ok(Box::new(Ccm::default()))
}

fn decode(_flag: bool, scalars: &[f64], lists: Vec<Vec<f64>>) -> std::result::Result<Box<dyn EmModel>, &'static str> {
    let s = |i: usize| scalars.get(i).copied().ok_or("missing scalar parameter");
    let (tau1, tau2, tau3) = (s(0)?, s(1)?, s(2)?);
    let attractiveness = lists.into_iter().next().ok_or("missing parameters")?;
    Ok(Box::new(Ccm { tau1, tau2, tau3, attractiveness }))
}

fn read(t: &ParamTable, ctx: &str) -> Result<Box<dyn ClickModel>> {
    Ok(Box::new(Ccm {
        attractiveness: t.get_pair(ctx, "attractiveness")?,
        tau1: t.get_scalar(ctx, "tau1")?,
        tau2: t.get_scalar(ctx, "tau2")?,
        tau3: t.get_scalar(ctx, "tau3")?,
    }))
}

/// Metropolis steps on CCM's (tau2, tau3) per sweep.
const TAU_STEPS: usize = 3;

/// CCM's posterior sampler ([`super::gibbs`]). Given the parameters, the hidden variables are
/// the relevance R of every click (R ~ Bernoulli(a), continuation tau3 if R, tau2 otherwise)
/// and, for the last click, (R_l, D) jointly as for DBN, continuation tau1 after results
/// without a click. Each sweep starts with Metropolis steps on (tau2, tau3).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CcmSampler;

impl GibbsModel for CcmSampler {
    fn tables(&self, _depth: usize, pairs: usize) -> Vec<TableSpec> {
        vec![
            TableSpec::pair("attractiveness", pairs),
            TableSpec::scalar("tau1", None),
            TableSpec { metropolis: true, ..TableSpec::scalar("tau2", None) },
            TableSpec { metropolis: true, ..TableSpec::scalar("tau3", None) },
        ]
    }

    fn kernel<'a>(&self, log: &'a ClickLog) -> Box<dyn GibbsKernel + 'a> {
        let last = last_clicks(log);
        let mut c: std::collections::BTreeMap<u32, f64> = Default::default();
        for (s, &l) in log.iter().zip(&last) {
            for r in 0..l.max(0) as usize {
                if s.clicks[r] {
                    *c.entry(s.pairs[r]).or_insert(0.0) += 1.0;
                }
            }
        }
        Box::new(CcmKernel { log, last, above: c.into_iter().collect() })
    }
}

struct CcmKernel<'a> {
    log: &'a ClickLog,
    /// Last click per session (-1: none).
    last: Vec<i32>,
    /// (pair, number of clicks on it before the session's last click).
    above: Vec<(u32, f64)>,
}

impl CcmKernel<'_> {
    /// CCM: one Metropolis step per call on (tau2, tau3) with every hidden variable integrated
    /// out, given attractiveness and tau1 (a random walk on the logit scale). Without it the
    /// taus mix slowly: they are learnt only through the relevance of clicks, which the sampler
    /// would otherwise draw from their current values.
    fn tau_step(&self, st: &mut State, rng: &mut Stream) {
        let log = self.log;
        let a = &st.values[0];
        let t1 = st.values[1][0];
        // T_s = sum over d > l of prod_{l<k<=d} (1 - a_k) tau1^(d-l-1) (1 - tau1 unless last).
        st.tails.clear();
        for (i, &l) in self.last.iter().enumerate() {
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
            for &(p, c) in &self.above {
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
}

impl GibbsKernel for CcmKernel<'_> {
    fn fixed_counts(&self, s: &mut [Vec<f64>], f: &mut [Vec<f64>]) {
        for (i, sess) in self.log.iter().enumerate() {
            let l = self.last[i];
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
    }

    fn metropolis(&self, st: &mut State, rng: &mut Stream) -> bool {
        for _ in 0..TAU_STEPS {
            self.tau_step(st, rng);
        }
        true
    }

    fn hidden(&self, st: &mut State, rng: &mut Stream) {
        let log = self.log;
        let State { values, succ, fail, buf, .. } = st;
        let a = &values[0];
        let tau = [values[1][0], values[2][0], values[3][0]];
        let mut ts = [0.0f64; 3];
        let mut tf = [0.0f64; 3];
        for (i, &l) in self.last.iter().enumerate() {
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
}

/// CCM's sampler (no fixed settings).
fn sampler(_: &LatentSettings) -> Box<dyn GibbsModel> {
    Box::new(CcmSampler)
}

/// CCM as a simulated user: tau1 after a skip; satisfied after a click with probability
/// 1 - (a tau3 + (1 - a) tau2) (its second draw, whether the clicked document is relevant, only
/// decides whether the user goes on).
fn walk(t: &ParamTable) -> UserWalk {
    let (tau1, tau2, tau3) = (t.find_scalar("tau1").unwrap_or(PRIOR), t.find_scalar("tau2").unwrap_or(PRIOR), t.find_scalar("tau3").unwrap_or(PRIOR));
    UserWalk {
        dynamics: Dynamics { after_skip: tau1, ..Dynamics::default() },
        global: None,
        satisfaction: Satisfaction { rule: |a, _, taus| 1.0 - (a * taus[1] + (1.0 - a) * taus[0]), params: vec![tau2, tau3] },
    }
}

/// CCM in the registry.
pub(crate) const SPEC: ModelSpec = ModelSpec {
    kind: ModelKind::Ccm,
    scalars: &["tau1", "tau2", "tau3"],
    ranks: &[],
    matrices: &[],
    pairs: &["attractiveness"],
    read,
    em: Some(EmSpec {
        shape: StatsShape { tables: &[None, Some(3)], pair_tables: 1, base_tables: 2, eb_at: Some(2) },
        start,
        decode,
        iterative: true,
        squarem: false,
        fitted_prior: true,
        top_examination: false,
    }),
    posterior: PosteriorSpec { counted: &[], sampler: Some(sampler) },
    user: UserSpec { attractiveness: "attractiveness", satisfaction: None, walk },
};
