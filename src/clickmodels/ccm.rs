//! The click chain model (CCM): the model, its EM fit (E-step, M-step) and its registration.

use super::driver::{self, EmOptions};
use super::em::EmConfig;
use super::estep::{EStats, EmModel, Scratch, StatsShape};
use super::registry::{EmSpec, ModelSpec};
use super::state::EmState;
use super::table::{ModelKind, ParamTable};
use super::{draw, param, ClickModel, ModelConfig, PRIOR};
use crate::error::Result;
use crate::logs::{SessionRef, SessionSource};
use crate::rng::Stream;

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
};
