//! The simplified DBN (SDBN): the model, fitted by counting in one pass of the E-step shape
//! (its counts are final after one pass), and its registration.

use super::dbn::DbnSampler;
use super::estep::{Counts, EStats, EmModel, Scratch, StatsShape};
use super::gibbs::{GibbsModel, LatentSettings};
use super::prior::Axis;
use super::registry::{EmSpec, ModelSpec, PosteriorSpec, Satisfaction, UserSpec, UserWalk};
use super::table::{ModelKind, ParamTable};
use super::{draw, param, ClickModel, ModelConfig};
use crate::error::Result;
use crate::logs::{SessionRef, SessionSource};
use crate::rng::Stream;

/// Simplified DBN (Chapelle & Zhang 2009, continuation 1): every result down to the last
/// click is examined, none below it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sdbn {
    /// Attractiveness per pair.
    pub attractiveness: Vec<f64>,
    /// Satisfaction per pair (P(satisfied | click)).
    pub satisfaction: Vec<f64>,
}

impl Sdbn {
    /// Counts clicks at or above the last click, and last clicks among clicks.
    pub fn fit(src: &mut dyn SessionSource) -> Result<Self> {
        let mut stats = EStats::new(ModelKind::Sdbn, src.pair_count_hint());
        src.pass(&mut |s| Sdbn::accumulate(s, &mut stats))?;
        Ok(Sdbn::from_counts(&stats.tables))
    }

    /// Adds one session's counts to `stats` (tables: attractiveness, satisfaction).
    pub fn accumulate(s: SessionRef<'_>, stats: &mut EStats) {
        stats.sessions += stats.weight();
        let [attr, sat] = &mut stats.tables[..] else { unreachable!("sdbn statistics have two tables") };
        let last = s.last_click().unwrap_or(s.clicks.len());
        for (r, (&p, &c)) in s.pairs.iter().zip(s.clicks).enumerate().take(last + 1) {
            attr.add_trial(p as usize, c);
            if c {
                sat.add_trial(p as usize, r == last);
            }
        }
    }

    /// The model from summed counts.
    pub fn m_step(stats: &EStats) -> Sdbn {
        Sdbn::from_counts(&stats.tables)
    }

    /// The model from [`super::count_tables`]'s tables (attractiveness, satisfaction).
    pub fn from_counts(t: &[Counts]) -> Self {
        let (attr, sat) = (&t[0], &t[1]);
        let len = attr.used_len().max(sat.used_len());
        Sdbn { attractiveness: attr.values(len, false), satisfaction: sat.values(len, false) }
    }
}

impl ClickModel for Sdbn {
    fn kind(&self) -> ModelKind {
        ModelKind::Sdbn
    }

    fn click_probs(&self, pairs: &[u32], out: &mut Vec<f64>) {
        out.clear();
        let mut exam = 1.0;
        for &p in pairs {
            let (a, s) = (param(&self.attractiveness, p as usize), param(&self.satisfaction, p as usize));
            out.push(a * exam);
            exam *= (1.0 - s) * a + (1.0 - a);
        }
    }

    fn observed_probs(&self, s: SessionRef<'_>, out: &mut Vec<f64>) {
        out.clear();
        let mut exam = 1.0;
        for (&p, &c) in s.pairs.iter().zip(s.clicks) {
            let a = param(&self.attractiveness, p as usize);
            if c {
                out.push(a * exam);
                exam = 1.0 - param(&self.satisfaction, p as usize);
            } else {
                let q = 1.0 - a * exam;
                out.push(q);
                exam *= (1.0 - a) / q;
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
        }
    }

    fn to_table(&self) -> ParamTable {
        ParamTable::new(ModelKind::Sdbn).pair("attractiveness", &self.attractiveness).pair("satisfaction", &self.satisfaction)
    }
}

impl EmModel for Sdbn {
    fn kind(&self) -> ModelKind {
        ModelKind::Sdbn
    }
    fn accumulate(&self, s: SessionRef<'_>, stats: &mut EStats, _buf: &mut Scratch) {
        Sdbn::accumulate(s, stats)
    }
    fn m_step(&self, stats: &EStats) -> Box<dyn EmModel> {
        Box::new(Sdbn::m_step(stats))
    }
    fn model(&self) -> &dyn ClickModel {
        self
    }
    fn fitted(&self) -> Box<dyn ClickModel> {
        Box::new(self.clone())
    }
    /// Always: the counts do not depend on the parameters.
    fn pair_free(&self) -> bool {
        true
    }
    fn pair_vecs(&mut self) -> Vec<&mut Vec<f64>> {
        vec![&mut self.attractiveness, &mut self.satisfaction]
    }
    fn params_mut(&mut self) -> Vec<&mut [f64]> {
        vec![&mut self.attractiveness, &mut self.satisfaction]
    }
    fn encode(&self) -> (u8, Vec<f64>, Vec<&[f64]>) {
        (0, vec![], vec![&self.attractiveness, &self.satisfaction])
    }
}

/// The starting state (no counts).
fn start(_cfg: &ModelConfig) -> Result<Box<dyn EmModel>> {
    Ok(Box::new(Sdbn::default()))
}

fn decode(_flag: bool, _scalars: &[f64], lists: Vec<Vec<f64>>) -> std::result::Result<Box<dyn EmModel>, &'static str> {
    let mut it = lists.into_iter();
    let attractiveness = it.next().ok_or("missing parameters")?;
    Ok(Box::new(Sdbn { attractiveness, satisfaction: it.next().ok_or("missing parameters")? }))
}

fn read(t: &ParamTable, ctx: &str) -> Result<Box<dyn ClickModel>> {
    Ok(Box::new(Sdbn { attractiveness: t.get_pair(ctx, "attractiveness")?, satisfaction: t.get_pair(ctx, "satisfaction")? }))
}

/// SDBN's exact sampler: DBN's with gamma held at 1, not reported.
fn sampler(_: &LatentSettings) -> Box<dyn GibbsModel> {
    Box::new(DbnSampler { gamma: Some(1.0), report_gamma: false })
}

/// SDBN as a simulated user: the pair's satisfaction, the walk going on otherwise.
fn walk(_: &ParamTable) -> UserWalk {
    UserWalk { satisfaction: Satisfaction::per_pair(), ..UserWalk::default() }
}

/// SDBN in the registry.
pub(crate) const SPEC: ModelSpec = ModelSpec {
    kind: ModelKind::Sdbn,
    scalars: &[],
    ranks: &[],
    matrices: &[],
    pairs: &["attractiveness", "satisfaction"],
    read,
    em: Some(EmSpec {
        // Tables: attractiveness, satisfaction (per pair).
        shape: StatsShape { tables: &[None, None], pair_tables: 2, base_tables: 0, eb_at: None },
        start,
        decode,
        iterative: false,
        squarem: false,
        fitted_prior: false,
        top_examination: false,
    }),
    posterior: PosteriorSpec { counted: &[("attractiveness", Axis::Pair), ("satisfaction", Axis::Pair)], sampler: Some(sampler) },
    user: UserSpec { attractiveness: "attractiveness", satisfaction: Some("satisfaction"), walk },
};
