//! Models fitted by counting (maximum likelihood with one pseudo-success in two pseudo-trials):
//! CM, DCM, SDBN and the CTR baselines; their registry entries (with DCM's exact posterior
//! sampler and how each drives a simulated user).

use super::estep::{Counts, EStats};
use super::gibbs::{last_clicks, GibbsKernel, GibbsModel, State, TableSpec};
use super::prior::Axis;
use super::registry::{ModelSpec, PosteriorSpec, Satisfaction, UserSpec, UserWalk};
use super::table::{ModelKind, ParamTable};
use super::{draw, param, ClickModel, PRIOR, PROB_MIN};
use crate::error::{Error, Result};
use crate::logs::{ClickLog, SessionRef, SessionSource};
use crate::rng::Stream;
use crate::user::{Dynamics, Examination};
use rand::Rng;

/// Cascade model (Craswell et al. 2008): the user scans top-down and stops at the first click.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cm {
    /// Attractiveness per pair.
    pub attractiveness: Vec<f64>,
}

impl Cm {
    /// Counts clicks on results at or above the first click.
    pub fn fit(src: &mut dyn SessionSource) -> Result<Self> {
        Ok(Cm::from_counts(&count_tables(ModelKind::Cm, src)?))
    }

    /// The model from [`count_tables`]'s tables.
    pub fn from_counts(t: &[Counts]) -> Self {
        Cm { attractiveness: t[0].values(t[0].used_len(), false) }
    }
}

impl ClickModel for Cm {
    fn kind(&self) -> ModelKind {
        ModelKind::Cm
    }

    fn click_probs(&self, pairs: &[u32], out: &mut Vec<f64>) {
        out.clear();
        let mut exam = 1.0;
        for &p in pairs {
            let a = param(&self.attractiveness, p as usize);
            out.push(a * exam);
            exam *= 1.0 - a;
        }
    }

    /// PyClick's convention: up to the first click, the full click probability of the observed
    /// event; every rank below the first click gets [`PROB_MIN`].
    fn observed_probs(&self, s: SessionRef<'_>, out: &mut Vec<f64>) {
        self.click_probs(s.pairs, out);
        let first = s.clicks.iter().position(|&c| c).unwrap_or(s.clicks.len());
        for (r, p) in out.iter_mut().enumerate() {
            if r > first {
                *p = PROB_MIN;
            } else if !s.clicks[r] {
                *p = 1.0 - *p;
            }
        }
    }

    fn relevance(&self, pair: u32) -> f64 {
        param(&self.attractiveness, pair as usize)
    }

    fn simulate(&self, pairs: &[u32], rng: &mut Stream, clicks: &mut Vec<bool>) {
        clicks.clear();
        clicks.resize(pairs.len(), false);
        for (r, &p) in pairs.iter().enumerate() {
            if draw(param(&self.attractiveness, p as usize), rng) {
                clicks[r] = true;
                return;
            }
        }
    }

    fn to_table(&self) -> ParamTable {
        ParamTable::new(ModelKind::Cm).pair("attractiveness", &self.attractiveness)
    }
}

/// Rank of the last click, or the SERP length without clicks (PyClick's `get_last_click_rank`).
#[inline]
fn last_click_or_len(s: &SessionRef<'_>) -> usize {
    s.last_click().unwrap_or(s.clicks.len())
}

/// Dependent click model (Guo et al. 2009), fitted under the assumption that the user is
/// satisfied with the last clicked result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dcm {
    /// Attractiveness per pair.
    pub attractiveness: Vec<f64>,
    /// Continuation after a click, per rank (1 - satisfaction).
    pub continuation: Vec<f64>,
}

impl Dcm {
    /// Counts clicks at or above the last click, and continuations after clicks per rank.
    pub fn fit(src: &mut dyn SessionSource) -> Result<Self> {
        Ok(Dcm::from_counts(&count_tables(ModelKind::Dcm, src)?))
    }

    /// The model from [`count_tables`]'s tables.
    pub fn from_counts(t: &[Counts]) -> Self {
        let (attr, cont) = (&t[0], &t[1]);
        Dcm { attractiveness: attr.values(attr.used_len(), false), continuation: cont.values(cont.used_len().max(10), false) }
    }
}

impl ClickModel for Dcm {
    fn kind(&self) -> ModelKind {
        ModelKind::Dcm
    }

    fn click_probs(&self, pairs: &[u32], out: &mut Vec<f64>) {
        out.clear();
        let mut exam = 1.0;
        for (r, &p) in pairs.iter().enumerate() {
            let a = param(&self.attractiveness, p as usize);
            let l = param(&self.continuation, r);
            out.push(a * exam);
            exam *= l * a + (1.0 - a);
        }
    }

    fn observed_probs(&self, s: SessionRef<'_>, out: &mut Vec<f64>) {
        out.clear();
        let mut exam = 1.0;
        for (r, (&p, &c)) in s.pairs.iter().zip(s.clicks).enumerate() {
            let a = param(&self.attractiveness, p as usize);
            if c {
                out.push(a * exam);
                exam = param(&self.continuation, r);
            } else {
                let q = 1.0 - a * exam;
                out.push(q);
                exam *= (1.0 - a) / q;
            }
        }
    }

    fn relevance(&self, pair: u32) -> f64 {
        param(&self.attractiveness, pair as usize)
    }

    fn simulate(&self, pairs: &[u32], rng: &mut Stream, clicks: &mut Vec<bool>) {
        clicks.clear();
        clicks.resize(pairs.len(), false);
        for (r, &p) in pairs.iter().enumerate() {
            if draw(param(&self.attractiveness, p as usize), rng) {
                clicks[r] = true;
                if !draw(param(&self.continuation, r), rng) {
                    return;
                }
            }
        }
    }

    fn to_table(&self) -> ParamTable {
        ParamTable::new(ModelKind::Dcm).pair("attractiveness", &self.attractiveness).rank("continuation", &self.continuation)
    }
}

/// What a CTR baseline's single parameter depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CtrKind {
    /// One probability for everything (GCTR, the random click model).
    Global,
    /// One probability per rank (RCTR).
    Rank,
    /// One probability per query-document pair (DCTR).
    Document,
}

/// Click-through-rate baselines: clicks are independent Bernoulli draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Ctr {
    /// Which baseline.
    pub kind: CtrKind,
    /// The CTR per pair (Document), per rank (Rank) or a single value (Global).
    pub ctr: Vec<f64>,
}

impl Ctr {
    /// Counts clicks per pair, rank or overall.
    pub fn fit(kind: CtrKind, src: &mut dyn SessionSource) -> Result<Self> {
        Ok(Ctr::from_counts(kind, &count_tables(ctr_model(kind), src)?))
    }

    /// The model from [`count_tables`]'s table.
    pub fn from_counts(kind: CtrKind, t: &[Counts]) -> Self {
        let ctr = &t[0];
        let len = match kind {
            CtrKind::Global => 1,
            CtrKind::Rank => ctr.used_len().max(10),
            CtrKind::Document => ctr.used_len(),
        };
        Ctr { kind, ctr: ctr.values(len, false) }
    }

    #[inline]
    fn at(&self, r: usize, p: u32) -> f64 {
        match self.kind {
            CtrKind::Global => param(&self.ctr, 0),
            CtrKind::Rank => param(&self.ctr, r),
            CtrKind::Document => param(&self.ctr, p as usize),
        }
    }
}

impl ClickModel for Ctr {
    fn kind(&self) -> ModelKind {
        ctr_model(self.kind)
    }

    fn click_probs(&self, pairs: &[u32], out: &mut Vec<f64>) {
        out.clear();
        out.extend(pairs.iter().enumerate().map(|(r, &p)| self.at(r, p)));
    }

    fn observed_probs(&self, s: SessionRef<'_>, out: &mut Vec<f64>) {
        self.click_probs(s.pairs, out);
        for (p, &c) in out.iter_mut().zip(s.clicks) {
            if !c {
                *p = 1.0 - *p;
            }
        }
    }

    /// GCTR: the global CTR; RCTR: 0 (it cannot rank documents); DCTR: the pair's CTR.
    fn relevance(&self, pair: u32) -> f64 {
        match self.kind {
            CtrKind::Global => param(&self.ctr, 0),
            CtrKind::Rank => 0.0,
            CtrKind::Document => param(&self.ctr, pair as usize),
        }
    }

    fn simulate(&self, pairs: &[u32], rng: &mut Stream, clicks: &mut Vec<bool>) {
        clicks.clear();
        clicks.extend(pairs.iter().enumerate().map(|(r, &p)| draw(self.at(r, p), rng)));
    }

    fn to_table(&self) -> ParamTable {
        let t = ParamTable::new(self.kind());
        match self.kind {
            CtrKind::Global => t.scalar("ctr", param(&self.ctr, 0)),
            CtrKind::Rank => t.rank("ctr", &self.ctr),
            CtrKind::Document => t.pair("ctr", &self.ctr),
        }
    }
}

/// The model kind of a CTR baseline.
fn ctr_model(kind: CtrKind) -> ModelKind {
    match kind {
        CtrKind::Global => ModelKind::Gctr,
        CtrKind::Rank => ModelKind::Rctr,
        CtrKind::Document => ModelKind::Dctr,
    }
}

/// The success and trial counts a counting model is fitted on, from one pass over `src`: one
/// table per parameter in the model's order (CM: attractiveness; DCM: attractiveness,
/// continuation per rank; SDBN: attractiveness, satisfaction; CTR models: ctr). The fit
/// ([`model_from_tables`]) and the conjugate posterior ([`super::posterior::fit_with_posterior`]) are
/// both made from these tables.
pub fn count_tables(kind: ModelKind, src: &mut dyn SessionSource) -> Result<Vec<Counts>> {
    let pairs = src.pair_count_hint();
    let success = |c: bool| f64::from(u8::from(c));
    match kind {
        ModelKind::Cm => {
            let mut attr = Counts::with_len(pairs);
            src.pass(&mut |s| {
                for (&p, &c) in s.pairs.iter().zip(s.clicks) {
                    attr.add(p as usize, success(c), 1.0);
                    if c {
                        break;
                    }
                }
            })?;
            Ok(vec![attr])
        }
        ModelKind::Dcm => {
            let (mut attr, mut cont) = (Counts::with_len(pairs), Counts::with_len(10));
            src.pass(&mut |s| {
                let last = last_click_or_len(&s);
                for (r, (&p, &c)) in s.pairs.iter().zip(s.clicks).enumerate() {
                    if r <= last {
                        attr.add(p as usize, success(c), 1.0);
                    }
                    if c {
                        cont.add(r, success(r != last), 1.0);
                    }
                }
            })?;
            Ok(vec![attr, cont])
        }
        ModelKind::Sdbn => {
            let mut stats = EStats::new(ModelKind::Sdbn, pairs);
            src.pass(&mut |s| super::Sdbn::accumulate(s, &mut stats))?;
            Ok(stats.tables)
        }
        ModelKind::Gctr | ModelKind::Rctr | ModelKind::Dctr => {
            let mut ctr = Counts::with_len(match kind {
                ModelKind::Gctr => 1,
                ModelKind::Rctr => 10,
                _ => pairs,
            });
            src.pass(&mut |s| {
                for (r, (&p, &c)) in s.pairs.iter().zip(s.clicks).enumerate() {
                    let i = match kind {
                        ModelKind::Gctr => 0,
                        ModelKind::Rctr => r,
                        _ => p as usize,
                    };
                    ctr.add(i, success(c), 1.0);
                }
            })?;
            Ok(vec![ctr])
        }
        _ => Err(Error::Invalid(format!("{kind} is not fitted by counting"))),
    }
}

/// The counting model of `kind` fitted on [`count_tables`]'s tables.
pub fn model_from_tables(kind: ModelKind, t: &[Counts]) -> Box<dyn ClickModel> {
    match kind {
        ModelKind::Cm => Box::new(Cm::from_counts(t)),
        ModelKind::Dcm => Box::new(Dcm::from_counts(t)),
        ModelKind::Sdbn => Box::new(super::Sdbn::from_counts(t)),
        ModelKind::Gctr => Box::new(Ctr::from_counts(CtrKind::Global, t)),
        ModelKind::Rctr => Box::new(Ctr::from_counts(CtrKind::Rank, t)),
        _ => Box::new(Ctr::from_counts(CtrKind::Document, t)),
    }
}

/// DCM's exact posterior sampler ([`super::gibbs`], `--exact`): after the last click the user
/// either stopped (probability 1 - lambda_l) or went on and examined every result below
/// without clicking.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DcmSampler;

impl GibbsModel for DcmSampler {
    fn tables(&self, depth: usize, pairs: usize) -> Vec<TableSpec> {
        vec![TableSpec::pair("attractiveness", pairs), TableSpec::along("continuation", Axis::Rank, depth, None)]
    }

    fn kernel<'a>(&self, log: &'a ClickLog) -> Box<dyn GibbsKernel + 'a> {
        Box::new(DcmKernel { log, last: last_clicks(log) })
    }
}

struct DcmKernel<'a> {
    log: &'a ClickLog,
    last: Vec<i32>,
}

impl GibbsKernel for DcmKernel<'_> {
    fn fixed_counts(&self, s: &mut [Vec<f64>], f: &mut [Vec<f64>]) {
        for (i, sess) in self.log.iter().enumerate() {
            let l = self.last[i];
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
    }

    fn hidden(&self, st: &mut State, rng: &mut Stream) {
        let log = self.log;
        let State { values, succ, fail, .. } = st;
        let (a, lam) = (&values[0], &values[1]);
        for (i, &l) in self.last.iter().enumerate() {
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
}

/// A counting model as a simulated user: the per-pair table `attractiveness` and the walk
/// (SDBN, in its own file, is the counting model with a per-pair satisfaction).
const fn counting_user(attractiveness: &'static str, walk: fn(&ParamTable) -> UserWalk) -> UserSpec {
    UserSpec { attractiveness, satisfaction: None, walk }
}

/// The counting models in the registry (fitted by [`count_tables`], not from E-step
/// statistics).
const fn counting(
    kind: ModelKind,
    scalars: &'static [&'static str],
    ranks: &'static [&'static str],
    pairs: &'static [&'static str],
    read: fn(&ParamTable, &str) -> Result<Box<dyn ClickModel>>,
    posterior: PosteriorSpec,
    user: UserSpec,
) -> ModelSpec {
    ModelSpec { kind, scalars, ranks, matrices: &[], pairs, read, em: None, posterior, user }
}

/// A counting model's conjugate posterior of the tables `counted`, without a sampler.
const fn conjugate(counted: &'static [(&'static str, Axis)]) -> PosteriorSpec {
    PosteriorSpec { counted, sampler: None }
}

/// CM in the registry: satisfied by every click.
pub(crate) const CM: ModelSpec = counting(
    ModelKind::Cm,
    &[],
    &[],
    &["attractiveness"],
    |t, ctx| Ok(Box::new(Cm { attractiveness: t.get_pair(ctx, "attractiveness")? })),
    conjugate(&[("attractiveness", Axis::Pair)]),
    counting_user("attractiveness", |_| UserWalk { satisfaction: Satisfaction::constant(1.0), ..UserWalk::default() }),
);
/// DCM in the registry: satisfied after a click at rank r with probability 1 - lambda_r.
pub(crate) const DCM: ModelSpec = counting(
    ModelKind::Dcm,
    &[],
    &["continuation"],
    &["attractiveness"],
    |t, ctx| Ok(Box::new(Dcm { attractiveness: t.get_pair(ctx, "attractiveness")?, continuation: t.get_rank(ctx, "continuation")? })),
    PosteriorSpec { counted: &[("attractiveness", Axis::Pair), ("continuation", Axis::Rank)], sampler: Some(|_| Box::new(DcmSampler)) },
    counting_user("attractiveness", |t| {
        let by_rank = t.find_rank("continuation").unwrap_or_default().iter().map(|l| 1.0 - l).collect::<Vec<_>>();
        UserWalk { dynamics: Dynamics { satisfaction_by_rank: Some(by_rank.into()), ..Dynamics::default() }, ..UserWalk::default() }
    }),
);
/// GCTR in the registry: every document clicked with the one CTR.
pub(crate) const GCTR: ModelSpec = counting(
    ModelKind::Gctr,
    &["ctr"],
    &[],
    &[],
    |t, ctx| Ok(Box::new(Ctr { kind: CtrKind::Global, ctr: vec![t.get_scalar(ctx, "ctr")?] })),
    conjugate(&[("ctr", Axis::Scalar)]),
    counting_user("attractiveness", |t| UserWalk { global: Some((t.find_scalar("ctr").unwrap_or(PRIOR), 0.0)), ..UserWalk::default() }),
);
/// RCTR in the registry: examination by rank (its CTR), every examined document clicked.
pub(crate) const RCTR: ModelSpec = counting(
    ModelKind::Rctr,
    &[],
    &["ctr"],
    &[],
    |t, ctx| Ok(Box::new(Ctr { kind: CtrKind::Rank, ctr: t.get_rank(ctx, "ctr")? })),
    conjugate(&[("ctr", Axis::Rank)]),
    counting_user("attractiveness", |t| {
        let ctr = t.find_rank("ctr").map(<[f64]>::to_vec).unwrap_or_default();
        UserWalk { dynamics: Dynamics { examination: Examination::ByRank(ctr.into()), ..Dynamics::default() }, global: Some((1.0, 0.0)), ..UserWalk::default() }
    }),
);
/// DCTR in the registry: the pair's CTR as its attractiveness.
pub(crate) const DCTR: ModelSpec = counting(
    ModelKind::Dctr,
    &[],
    &[],
    &["ctr"],
    |t, ctx| Ok(Box::new(Ctr { kind: CtrKind::Document, ctr: t.get_pair(ctx, "ctr")? })),
    conjugate(&[("ctr", Axis::Pair)]),
    counting_user("ctr", |_| UserWalk::default()),
);
