//! The position-based model (PBM): the model, its EM fit (E-step, M-step) and its
//! registration.

use super::driver::{self, EmOptions};
use super::em::EmConfig;
use super::estep::{EStats, EmModel, Scratch, StatsShape};
use super::gibbs::{check_top, ExaminationKernel, GibbsKernel, GibbsModel, LatentSettings, TableSpec};
use super::prior::Axis;
use super::registry::{EmSpec, ModelSpec, PosteriorSpec, UserSpec, UserWalk};
use super::state::EmState;
use super::table::{ModelKind, ParamTable};
use super::{draw, param, ClickModel, ModelConfig};
use crate::error::Result;
use crate::logs::{ClickLog, SessionRef, SessionSource};
use crate::rng::Stream;
use crate::user::{Dynamics, Examination};

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
        let mut state = EmState::from_model(Box::new(Pbm::default()));
        driver::run(&mut state, cfg, &EmOptions { top_examination, ..Default::default() }, src, &mut |_| {})?;
        Ok(state.get::<Pbm>().expect("a pbm fit stays a pbm").clone())
    }

    /// One EM iteration.
    pub fn em_step(src: &mut dyn SessionSource, m: &Pbm) -> Result<Pbm> {
        let stats = driver::e_step(&EmState::from_model(Box::new(m.clone())), src, false)?;
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

impl EmModel for Pbm {
    fn kind(&self) -> ModelKind {
        ModelKind::Pbm
    }
    fn accumulate(&self, s: SessionRef<'_>, stats: &mut EStats, _buf: &mut Scratch) {
        Pbm::accumulate(self, s, stats)
    }
    fn m_step(&self, stats: &EStats) -> Box<dyn EmModel> {
        Box::new(Pbm::m_step(stats))
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
        vec![&mut self.attractiveness, &mut self.examination]
    }
    fn pin_top(&mut self, t: f64) {
        match self.examination.first_mut() {
            Some(e) => *e = t,
            None => self.examination = vec![t],
        }
    }
    fn encode(&self) -> (u8, Vec<f64>, Vec<&[f64]>) {
        (0, vec![], vec![&self.attractiveness, &self.examination])
    }
}

/// The starting state: parameters at 0.5.
fn start(cfg: &ModelConfig) -> Result<Box<dyn EmModel>> {
    super::em::check_iterations(cfg.em_config().unwrap_or_default().iterations)?;
    Ok(Box::new(Pbm::default()))
}

fn decode(_flag: bool, scalars: &[f64], lists: Vec<Vec<f64>>) -> std::result::Result<Box<dyn EmModel>, &'static str> {
    let _ = scalars;
    let mut it = lists.into_iter();
    let attractiveness = it.next().ok_or("missing parameters")?;
    Ok(Box::new(Pbm { attractiveness, examination: it.next().ok_or("missing parameters")? }))
}

fn read(t: &ParamTable, ctx: &str) -> Result<Box<dyn ClickModel>> {
    Ok(Box::new(Pbm { attractiveness: t.get_pair(ctx, "attractiveness")?, examination: t.get_rank(ctx, "examination")? }))
}

/// PBM's posterior sampler ([`super::gibbs`]): whether each result without a click was
/// examined, P(E = 1 | C = 0) = e (1 - a) / (1 - a e) (clicked results were examined and
/// attractive), then a scaling move ([`scale_step`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PbmSampler {
    /// Pinned examination of rank 1 (PBM is otherwise identified only up to scale).
    pub top: Option<f64>,
}

impl GibbsModel for PbmSampler {
    fn tables(&self, depth: usize, pairs: usize) -> Vec<TableSpec> {
        vec![TableSpec::pair("attractiveness", pairs), TableSpec::along("examination", Axis::Rank, depth, self.top)]
    }

    fn validate(&self) -> Result<()> {
        check_top(self.top)
    }

    fn kernel<'a>(&self, log: &'a ClickLog) -> Box<dyn GibbsKernel + 'a> {
        Box::new(ExaminationKernel::new(log, self.top, |r, _| r))
    }
}

/// PBM's sampler from the settings (the pinned top examination).
fn sampler(s: &LatentSettings) -> Box<dyn GibbsModel> {
    Box::new(PbmSampler { top: s.top_examination })
}

/// PBM as a simulated user: examination by rank, never satisfied.
fn walk(t: &ParamTable) -> UserWalk {
    let e = t.find_rank("examination").map(<[f64]>::to_vec).unwrap_or_default();
    UserWalk { dynamics: Dynamics { examination: Examination::ByRank(e.into()), ..Dynamics::default() }, ..UserWalk::default() }
}

/// PBM in the registry.
pub(crate) const SPEC: ModelSpec = ModelSpec {
    kind: ModelKind::Pbm,
    scalars: &[],
    ranks: &["examination"],
    matrices: &[],
    pairs: &["attractiveness"],
    read,
    em: Some(EmSpec {
        shape: StatsShape { tables: &[None, Some(10)], pair_tables: 1, base_tables: 2, eb_at: Some(2) },
        start,
        decode,
        iterative: true,
        squarem: true,
        fitted_prior: true,
        top_examination: true,
    }),
    posterior: PosteriorSpec { counted: &[], sampler: Some(sampler) },
    user: UserSpec { attractiveness: "attractiveness", satisfaction: None, walk },
};
