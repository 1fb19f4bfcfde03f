//! Models fitted by expectation-maximisation: DBN, CCM, UBM, PBM.
//!
//! Every iteration re-estimates each probability as (1 + expected successes) / (2 + expected
//! trials), clamped to [1e-6, 1 - 1e-6], from parameters that start at 0.5 (PyClick's
//! convention). The E-steps are exact posteriors given all clicks of the session; in
//! particular the examination probability below the last click is conditioned on the
//! clicks above (PyClick uses the unconditional one there, see `docs/clickmodels.md`).

use super::driver::{self, EmOptions};
use super::estep::{EStats, EmState, Scratch};
use super::io::ParamTable;
use super::{draw, param, ClickModel, ModelKind, PRIOR, PROB_MIN};
use crate::error::Result;
use crate::logs::{SessionRef, SessionSource};
use crate::rng::Stream;

/// EM settings shared by the EM models.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmConfig {
    /// Maximum number of iterations (default 50).
    pub iterations: usize,
    /// Stop after the first pass at which the training log-likelihood changed by at most this
    /// much relative to the pass before (default 0: run every iteration, plain EM). A
    /// tolerance > 0 also turns on SQUAREM acceleration (see [`super::driver`]).
    pub tolerance: f64,
}

impl Default for EmConfig {
    fn default() -> Self {
        EmConfig { iterations: 50, tolerance: 0.0 }
    }
}

fn clamp(v: f64) -> f64 {
    v.clamp(PROB_MIN, 1.0 - PROB_MIN)
}

/// DBN continuation (persistence) parameter gamma.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Gamma {
    /// Estimated by EM.
    Fitted,
    /// Held fixed (BARACO uses 0.9).
    Fixed(f64),
}

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
        let mut state = EmState::Dbn(model, matches!(self.gamma, Gamma::Fitted));
        let cfg = EmConfig { iterations: self.iterations, tolerance: self.tolerance };
        driver::run(&mut state, &cfg, &EmOptions::default(), src, &mut |_| {})?;
        match state {
            EmState::Dbn(m, _) => Ok(m),
            _ => unreachable!("a dbn fit stays a dbn"),
        }
    }

    /// One EM iteration: the model re-estimated from `current` (a parallel E-step where the
    /// source splits into parts).
    pub fn em_step(&self, src: &mut dyn SessionSource, current: &Dbn) -> Result<Dbn> {
        let fit_gamma = matches!(self.gamma, Gamma::Fitted);
        let state = EmState::Dbn(current.clone(), fit_gamma);
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
        let mut state = EmState::Ccm(Ccm::default());
        driver::run(&mut state, cfg, &EmOptions::default(), src, &mut |_| {})?;
        match state {
            EmState::Ccm(m) => Ok(m),
            _ => unreachable!("a ccm fit stays a ccm"),
        }
    }

    /// One EM iteration from `m`.
    pub fn em_step(src: &mut dyn SessionSource, m: &Ccm) -> Result<Ccm> {
        let stats = driver::e_step(&EmState::Ccm(m.clone()), src, false)?;
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

/// User browsing model (Dupret & Piwowarski 2008): P(click at r) = attractiveness x
/// examination[r][r'], where r' is the rank of the previous click.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ubm {
    /// Attractiveness per pair.
    pub attractiveness: Vec<f64>,
    /// Examination by 0-based rank r and previous click: index 0 means no click above,
    /// index j > 0 means the previous click was at 0-based rank j - 1.
    pub examination: Vec<Vec<f64>>,
}

impl Ubm {
    #[inline]
    fn exam(&self, r: usize, prev: usize) -> f64 {
        self.examination.get(r).map_or(PRIOR, |row| param(row, prev))
    }

    /// Fits by EM from parameters at 0.5.
    pub fn fit(cfg: &EmConfig, src: &mut dyn SessionSource) -> Result<Self> {
        Self::fit_pinned(cfg, src, None)
    }

    /// Fits by EM; with `top_examination`, the examination of rank 1 is held at that value.
    /// UBM is identified only up to a common scale of attractiveness and examination (every
    /// click probability is their product); pinning one cell fixes the scale.
    pub fn fit_pinned(cfg: &EmConfig, src: &mut dyn SessionSource, top_examination: Option<f64>) -> Result<Self> {
        let mut state = EmState::Ubm(Ubm::default());
        driver::run(&mut state, cfg, &EmOptions { top_examination, ..Default::default() }, src, &mut |_| {})?;
        match state {
            EmState::Ubm(m) => Ok(m),
            _ => unreachable!("a ubm fit stays a ubm"),
        }
    }

    /// One EM iteration.
    pub fn em_step(src: &mut dyn SessionSource, m: &Ubm) -> Result<Ubm> {
        let stats = driver::e_step(&EmState::Ubm(m.clone()), src, false)?;
        Ok(Ubm::m_step(&stats))
    }

    /// Adds one session's expected counts (E-step under `self`) to `stats` (tables:
    /// attractiveness, then examination row r at table 1 + r).
    pub fn accumulate(&self, s: SessionRef<'_>, stats: &mut EStats) {
        let m = self;
        stats.sessions += stats.weight();
        // With a fitted prior's informative trials (EStats::add_eb_tables), their table sits
        // at 1 and the examination rows one place on.
        let off = if stats.has_eb_tables() { 2 } else { 1 };
        if stats.tables.len() < s.pairs.len() + off {
            let fresh = stats.new_table(s.pairs.len() + 1);
            stats.tables.resize_with(s.pairs.len() + off, || fresh.clone());
        }
        let (head, exam) = stats.tables.split_at_mut(off);
        let (attr, eb) = head.split_first_mut().expect("ubm statistics have an attractiveness table");
        // The informative trials of attractiveness: a click is a success of one trial; an
        // unclicked result a failure of weight P(E_r = 1 | C_r = 0, the clicks above) =
        // g (1 - a) / (1 - a g), g the examination of rank r after the previous click (Bayes,
        // as in the examination row's count: given the previous click, E_r and A_r are
        // independent of the rest of the session).
        let mut eb = eb.first_mut();
        {
            let mut prev = 0;
            for (r, (&p, &c)) in s.pairs.iter().zip(s.clicks).enumerate() {
                let a = param(&m.attractiveness, p as usize);
                let g = m.exam(r, prev);
                if c {
                    attr.add(p as usize, 1.0, 1.0);
                    exam[r].add(prev, 1.0, 1.0);
                    if let Some(ea) = eb.as_mut() {
                        ea.add(p as usize, 1.0, 1.0);
                    }
                    prev = r + 1;
                } else {
                    let d = 1.0 - a * g;
                    attr.add(p as usize, a * (1.0 - g) / d, 1.0);
                    exam[r].add(prev, g * (1.0 - a) / d, 1.0);
                    if let Some(ea) = eb.as_mut() {
                        ea.add(p as usize, 0.0, g * (1.0 - a) / d);
                    }
                }
            }
        }
    }

    /// M-step from summed statistics.
    pub fn m_step(stats: &EStats) -> Ubm {
        let (attr, exam) = stats.tables.split_first().expect("ubm statistics have an attractiveness table");
        // Skip a fitted prior's table (EStats::add_eb_tables), before the examination rows.
        let exam = if stats.has_eb_tables() { &exam[1..] } else { exam };
        let examination = exam.iter().enumerate().map(|(r, c)| c.values(r + 1, true)).collect();
        Ubm { attractiveness: attr.values(attr.used_len(), true), examination }
    }
}

impl ClickModel for Ubm {
    fn kind(&self) -> ModelKind {
        ModelKind::Ubm
    }

    fn click_probs(&self, pairs: &[u32], out: &mut Vec<f64>) {
        let n = pairs.len();
        out.clear();
        out.resize(n, 0.0);
        // P(C_r = 1) = sum over the previous click j (or none) of
        // P(C_j = 1) * prod_{j<k<r} (1 - a_k g[k][j]) * a_r g[r][j].
        for j in 0..=n {
            let w = if j == 0 { 1.0 } else { out[j - 1] };
            if w == 0.0 {
                continue;
            }
            let mut none_between = 1.0;
            for r in j..n {
                let q = param(&self.attractiveness, pairs[r] as usize) * self.exam(r, j);
                out[r] += w * none_between * q;
                none_between *= 1.0 - q;
            }
        }
    }

    fn observed_probs(&self, s: SessionRef<'_>, out: &mut Vec<f64>) {
        out.clear();
        let mut prev = 0;
        for (r, (&p, &c)) in s.pairs.iter().zip(s.clicks).enumerate() {
            let q = param(&self.attractiveness, p as usize) * self.exam(r, prev);
            if c {
                out.push(q);
                prev = r + 1;
            } else {
                out.push(1.0 - q);
            }
        }
    }

    fn relevance(&self, pair: u32) -> f64 {
        param(&self.attractiveness, pair as usize)
    }

    fn simulate(&self, pairs: &[u32], rng: &mut Stream, clicks: &mut Vec<bool>) {
        clicks.clear();
        let mut prev = 0;
        for (r, &p) in pairs.iter().enumerate() {
            let c = draw(param(&self.attractiveness, p as usize) * self.exam(r, prev), rng);
            if c {
                prev = r + 1;
            }
            clicks.push(c);
        }
    }

    fn to_table(&self) -> ParamTable {
        ParamTable::new(ModelKind::Ubm).matrix("examination", &self.examination).pair("attractiveness", &self.attractiveness)
    }
}

/// Position-based model: P(click at r) = attractiveness x examination[r].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pbm {
    /// Attractiveness per pair.
    pub attractiveness: Vec<f64>,
    /// Examination per 0-based rank.
    pub examination: Vec<f64>,
}

impl Pbm {
    /// Fits by EM from parameters at 0.5.
    pub fn fit(cfg: &EmConfig, src: &mut dyn SessionSource) -> Result<Self> {
        Self::fit_pinned(cfg, src, None)
    }

    /// Fits by EM; with `top_examination`, the examination of rank 1 is held at that value
    /// (PBM, like UBM, is identified only up to a common scale).
    pub fn fit_pinned(cfg: &EmConfig, src: &mut dyn SessionSource, top_examination: Option<f64>) -> Result<Self> {
        let mut state = EmState::Pbm(Pbm::default());
        driver::run(&mut state, cfg, &EmOptions { top_examination, ..Default::default() }, src, &mut |_| {})?;
        match state {
            EmState::Pbm(m) => Ok(m),
            _ => unreachable!("a pbm fit stays a pbm"),
        }
    }

    /// One EM iteration.
    pub fn em_step(src: &mut dyn SessionSource, m: &Pbm) -> Result<Pbm> {
        let stats = driver::e_step(&EmState::Pbm(m.clone()), src, false)?;
        Ok(Pbm::m_step(&stats))
    }

    /// Adds one session's expected counts (E-step under `self`) to `stats` (tables:
    /// attractiveness, examination per rank).
    pub fn accumulate(&self, s: SessionRef<'_>, stats: &mut EStats) {
        let m = self;
        stats.sessions += stats.weight();
        let (own, eb) = stats.tables.split_at_mut(2);
        let [attr, exam] = own else { unreachable!("pbm statistics have two tables") };
        // A fitted prior's informative trials (EStats::add_eb_tables): a click is a success of
        // one trial (examined for sure); an unclicked result a failure of weight
        // P(E_r = 1 | C_r = 0) = g (1 - a) / (1 - a g) (Bayes: P(C_r = 0 | E_r = 1) = 1 - a,
        // P(C_r = 0) = 1 - a g; ranks are independent in PBM, so the other clicks say nothing),
        // the examination table's own expected count.
        let mut eb = match eb {
            [ea] => Some(ea),
            _ => None,
        };
        {
            for (r, (&p, &c)) in s.pairs.iter().zip(s.clicks).enumerate() {
                let (a, g) = (param(&m.attractiveness, p as usize), param(&m.examination, r));
                if c {
                    attr.add(p as usize, 1.0, 1.0);
                    exam.add(r, 1.0, 1.0);
                    if let Some(ea) = eb.as_mut() {
                        ea.add(p as usize, 1.0, 1.0);
                    }
                } else {
                    let d = 1.0 - a * g;
                    attr.add(p as usize, a * (1.0 - g) / d, 1.0);
                    exam.add(r, g * (1.0 - a) / d, 1.0);
                    if let Some(ea) = eb.as_mut() {
                        ea.add(p as usize, 0.0, g * (1.0 - a) / d);
                    }
                }
            }
        }
    }

    /// M-step from summed statistics.
    pub fn m_step(stats: &EStats) -> Pbm {
        let (attr, exam) = (&stats.tables[0], &stats.tables[1]);
        Pbm { attractiveness: attr.values(attr.used_len(), true), examination: exam.values(exam.used_len(), true) }
    }
}

impl ClickModel for Pbm {
    fn kind(&self) -> ModelKind {
        ModelKind::Pbm
    }

    fn click_probs(&self, pairs: &[u32], out: &mut Vec<f64>) {
        out.clear();
        out.extend(pairs.iter().enumerate().map(|(r, &p)| param(&self.attractiveness, p as usize) * param(&self.examination, r)));
    }

    fn observed_probs(&self, s: SessionRef<'_>, out: &mut Vec<f64>) {
        self.click_probs(s.pairs, out);
        for (p, &c) in out.iter_mut().zip(s.clicks) {
            if !c {
                *p = 1.0 - *p;
            }
        }
    }

    fn relevance(&self, pair: u32) -> f64 {
        param(&self.attractiveness, pair as usize)
    }

    fn simulate(&self, pairs: &[u32], rng: &mut Stream, clicks: &mut Vec<bool>) {
        clicks.clear();
        clicks.extend(pairs.iter().enumerate().map(|(r, &p)| draw(param(&self.attractiveness, p as usize) * param(&self.examination, r), rng)));
    }

    fn to_table(&self) -> ParamTable {
        ParamTable::new(ModelKind::Pbm).rank("examination", &self.examination).pair("attractiveness", &self.attractiveness)
    }
}
