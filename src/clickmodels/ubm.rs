//! The user browsing model (UBM): the model, its EM fit (E-step, M-step) and its registration.

use super::driver::{self, EmOptions};
use super::em::EmConfig;
use super::estep::{EStats, EmModel, Scratch, StatsShape};
use super::gibbs::{check_top, ExaminationKernel, GibbsKernel, GibbsModel, LatentSettings, TableSpec};
use super::prior::Axis;
use super::registry::{EmSpec, ModelSpec, PosteriorSpec, UserSpec, UserWalk};
use super::state::EmState;
use super::table::{ModelKind, ParamTable};
use super::{draw, param, ClickModel, ModelConfig, PRIOR};
use crate::error::Result;
use crate::logs::{ClickLog, SessionRef, SessionSource};
use crate::rng::Stream;
use crate::user::{Dynamics, Examination};

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
        let mut state = EmState::from_model(Box::new(Ubm::default()));
        driver::run(&mut state, cfg, &EmOptions { top_examination, ..Default::default() }, src, &mut |_| {})?;
        Ok(state.get::<Ubm>().expect("a ubm fit stays a ubm").clone())
    }

    /// One EM iteration.
    pub fn em_step(src: &mut dyn SessionSource, m: &Ubm) -> Result<Ubm> {
        let stats = driver::e_step(&EmState::from_model(Box::new(m.clone())), src, false)?;
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

impl EmModel for Ubm {
    fn kind(&self) -> ModelKind {
        ModelKind::Ubm
    }
    fn accumulate(&self, s: SessionRef<'_>, stats: &mut EStats, _buf: &mut Scratch) {
        Ubm::accumulate(self, s, stats)
    }
    fn m_step(&self, stats: &EStats) -> Box<dyn EmModel> {
        Box::new(Ubm::m_step(stats))
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
        let mut v: Vec<&mut [f64]> = vec![&mut self.attractiveness];
        v.extend(self.examination.iter_mut().map(Vec::as_mut_slice));
        v
    }
    fn pin_top(&mut self, t: f64) {
        match self.examination.first_mut() {
            Some(row) if !row.is_empty() => row[0] = t,
            _ => self.examination = vec![vec![t]],
        }
    }
    fn encode(&self) -> (u8, Vec<f64>, Vec<&[f64]>) {
        let mut v: Vec<&[f64]> = vec![&self.attractiveness];
        v.extend(self.examination.iter().map(Vec::as_slice));
        (0, vec![], v)
    }
}

/// The starting state: parameters at 0.5.
fn start(cfg: &ModelConfig) -> Result<Box<dyn EmModel>> {
    super::em::check_iterations(cfg.em_config().unwrap_or_default().iterations)?;
    Ok(Box::new(Ubm::default()))
}

fn decode(_flag: bool, scalars: &[f64], lists: Vec<Vec<f64>>) -> std::result::Result<Box<dyn EmModel>, &'static str> {
    let _ = scalars;
    let mut it = lists.into_iter();
    let attractiveness = it.next().ok_or("missing parameters")?;
    Ok(Box::new(Ubm { attractiveness, examination: it.collect() }))
}

fn read(t: &ParamTable, ctx: &str) -> Result<Box<dyn ClickModel>> {
    Ok(Box::new(Ubm { attractiveness: t.get_pair(ctx, "attractiveness")?, examination: t.get_matrix(ctx, "examination")? }))
}

/// Flattened index of UBM cell (0-based rank r, previous click column j: 0 = no click above,
/// else the 1-based rank of the previous click), as the sampler's examination table and
/// posteriors lay out the matrix.
#[inline]
pub fn ubm_cell(r: usize, j: usize) -> usize {
    r * (r + 1) / 2 + j
}

/// UBM's posterior sampler ([`super::gibbs`]): whether each result without a click was
/// examined, P(E = 1 | C = 0) = e (1 - a) / (1 - a e) (clicked results were examined and
/// attractive), then a scaling move ([`scale_step`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UbmSampler {
    /// Pinned examination of rank 1 with no click above (UBM is otherwise identified only up
    /// to scale).
    pub top: Option<f64>,
}

impl GibbsModel for UbmSampler {
    fn tables(&self, depth: usize, pairs: usize) -> Vec<TableSpec> {
        vec![TableSpec::pair("attractiveness", pairs), TableSpec::along("examination", Axis::Matrix, depth * (depth + 1) / 2, self.top)]
    }

    fn validate(&self) -> Result<()> {
        check_top(self.top)
    }

    fn kernel<'a>(&self, log: &'a ClickLog) -> Box<dyn GibbsKernel + 'a> {
        Box::new(ExaminationKernel::new(log, self.top, ubm_cell))
    }
}

/// UBM's sampler from the settings (the pinned top examination).
fn sampler(s: &LatentSettings) -> Box<dyn GibbsModel> {
    Box::new(UbmSampler { top: s.top_examination })
}

/// UBM as a simulated user: examination by rank and last click, never satisfied.
fn walk(t: &ParamTable) -> UserWalk {
    let m = t.find_matrix("examination").map(<[Vec<f64>]>::to_vec).unwrap_or_default();
    UserWalk { dynamics: Dynamics { examination: Examination::ByRankAndLastClick(m.into()), ..Dynamics::default() }, ..UserWalk::default() }
}

/// UBM in the registry.
pub(crate) const SPEC: ModelSpec = ModelSpec {
    kind: ModelKind::Ubm,
    scalars: &[],
    ranks: &[],
    matrices: &["examination"],
    pairs: &["attractiveness"],
    read,
    em: Some(EmSpec {
        shape: StatsShape { tables: &[None], pair_tables: 1, base_tables: 0, eb_at: Some(1) },
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
