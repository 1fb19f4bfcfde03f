//! Ranker-switch safety on real outcomes: switch decisions on pairs of logged orderings,
//! checked against what the candidate ordering's real users did.
//!
//! For every query and every ordered pair (production P, candidate C) of two distinct
//! orderings of it (the same shown result list, see [`crate::clickmodels::orderings`]) with at
//! least `min_sessions` sessions each:
//!
//! 1. **Decide** from P's sessions and from the rest of the log *without the query being
//!    decided* (cross-fitted by query): the DBN continuation gamma and Beta priors of
//!    attractiveness and satisfaction are fitted on the other queries' sessions (EM for gamma,
//!    the empirical-Bayes prior of [`super::harness::fitted_prior`]); P's documents get
//!    Algorithm 1 posteriors from P's sessions under that prior, documents P never showed keep
//!    the prior (its mean and spread, not a flat 0.5). K joint draws give the predicted metric
//!    of C and P ([`super::switch::OutcomeMetric::dbn`]: first-click reciprocal rank, clicks in
//!    the top 3 or abandonment, the metric the check scores), and the model error
//!    ([`super::switch::ModelError`]) is fitted on the natural experiments of the other queries
//!    (ordered pairs of their orderings with at least `error_min_sessions` sessions each,
//!    predicted the same way). BARACO answers switch, keep production or cannot tell
//!    ([`super::switch::answer`]). The EM plug-in (DBN EM point estimates from P's sessions with
//!    the same gamma, unseen documents at the prior mean, switch when the estimated
//!    advantage >= -epsilon) and MT (unseen documents condensed away, switch when the estimate exceeds
//!    `mt_margin`) are reference methods on the same metric.
//! 2. **The real outcome**: the candidate's advantage in the metric's mean over C's sessions
//!    against P's (sign flipped for abandonment, so that positive is better for users), with
//!    its standard error `sqrt(v_P / n_P + v_C / n_C)` from the sessions' sample variances. It
//!    is *really worse* when below -epsilon, *clearly worse* when below -epsilon by more than
//!    1.96 standard errors, *clearly not worse* when above -epsilon by more than 1.96, unclear
//!    otherwise.
//!
//! The summary counts switches, abstentions, unsafe (really worse) and clearly unsafe switches,
//! switches among clearly-safe pairs, the AUC and Brier score of P(safe) as a forecast of "not
//! really worse", for each method and for the reference policies *always switch* and *never
//! switch*; every share has a percentile interval from a bootstrap over queries
//! ([`crate::stats::cluster_bootstrap`]), since the pairs of one query are not independent.
//!
//! [`RealConfig::paper`] keeps Grotov et al.'s settings (gamma 0.9, Beta(1, 1) priors, the model
//! taken as true, decisions on the RR metric of the satisfying click, scored on first-click
//! RR): the numbers docs/validation.md reports as "before".

use super::decide::{compare, point_metric, Config};
use super::log::{ProductionLog as BLog, Ranking};
use super::metrics::{SwitchMetric, Unseen};
use super::posterior::{compute_posteriors, compute_posteriors_with_prior, Density, FactoredBeta, Posteriors};
use super::switch::{self, ErrorSample, ModelError, OutcomeMetric, Verdict, NF};
use crate::clickmodels::orderings::{group_orderings, Ordering};
use crate::error::{Error, Result};
use crate::logs::{ClickLog, Vocab};
use crate::stats::cluster_bootstrap::{ascending, weighted_auc, ClusterBootstrap};
use rand::Rng;
use rand_distr::Distribution;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;

/// How the DBN continuation is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GammaChoice {
    /// Fitted by EM on the other queries' sessions (cross-fitted).
    Fitted,
    /// Held fixed (Grotov et al.: 0.9).
    Fixed(f64),
}

/// Priors of attractiveness and satisfaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PriorChoice {
    /// Empirical-Bayes Beta priors fitted on the other queries' sessions (cross-fitted).
    Fitted,
    /// Beta(1, 1) (Grotov et al.).
    Uniform,
}

/// Settings of the real-outcome check.
#[derive(Debug, Clone, PartialEq)]
pub struct RealConfig {
    /// Sessions both orderings of a decided pair need.
    pub min_sessions: usize,
    /// How much worse (in the metric's units, users' direction) the candidate may be.
    pub epsilon: f64,
    /// Switch when P(safe) >= 1 - delta; keep production when P(safe) <= delta.
    pub delta: f64,
    /// Joint posterior draws per production ordering.
    pub samples: usize,
    /// Ranks the predicted metric looks at.
    pub depth: usize,
    /// DBN continuation.
    pub gamma: GammaChoice,
    /// Priors.
    pub prior: PriorChoice,
    /// Add the model error learned from the other queries' natural experiments.
    pub model_error: bool,
    /// The metric decided on and scored.
    pub metric: OutcomeMetric,
    /// Grotov et al.'s decision (see [`RealConfig::paper`]); the other settings are ignored
    /// but `min_sessions`, `epsilon`, `delta`, `samples`, `depth`, `em_iterations`, `mt_margin`,
    /// `seed`, `bootstrap` and `level`.
    pub paper: bool,
    /// Sessions both orderings of a natural experiment need (model error).
    pub error_min_sessions: usize,
    /// EM iterations of the plug-in, MT and the fitted gamma.
    pub em_iterations: usize,
    /// MT: switch when the estimated advantage exceeds this margin.
    pub mt_margin: f64,
    /// Seed of the sampling and the bootstrap.
    pub seed: u64,
    /// Bootstrap resamples over queries.
    pub bootstrap: usize,
    /// Interval level.
    pub level: f64,
}

impl Default for RealConfig {
    fn default() -> Self {
        RealConfig {
            min_sessions: 50,
            epsilon: 0.01,
            delta: 0.05,
            samples: 1000,
            depth: 10,
            gamma: GammaChoice::Fitted,
            prior: PriorChoice::Fitted,
            model_error: true,
            metric: OutcomeMetric::FirstClickRr,
            paper: false,
            error_min_sessions: 20,
            em_iterations: 50,
            mt_margin: 0.0,
            seed: 1,
            bootstrap: 1000,
            level: 0.95,
        }
    }
}

impl RealConfig {
    /// Grotov et al.'s settings: gamma 0.9, Beta(1, 1) priors, no model error, decisions on the
    /// RR metric of the satisfying click (their Eq. 3), scored on first-click RR.
    pub fn paper() -> Self {
        RealConfig { gamma: GammaChoice::Fixed(super::DEFAULT_GAMMA), prior: PriorChoice::Uniform, model_error: false, paper: true, ..RealConfig::default() }
    }

    fn validate(&self) -> Result<()> {
        let ctx = "clicks validate-switches";
        if self.min_sessions == 0 {
            return Err(Error::config(ctx, "min_sessions", "must be at least 1"));
        }
        if self.error_min_sessions < 2 {
            return Err(Error::config(ctx, "error_min_sessions", "must be at least 2 (a standard error needs two sessions)"));
        }
        if let GammaChoice::Fixed(g) = self.gamma {
            if !(0.0..=1.0).contains(&g) {
                return Err(Error::config(ctx, "gamma", "must be in [0, 1] or `fitted`"));
            }
        }
        if self.paper && self.metric != OutcomeMetric::FirstClickRr {
            return Err(Error::config(ctx, "metric", "the paper's decision is scored on first-click RR only"));
        }
        if self.bootstrap == 0 {
            return Err(Error::config(ctx, "bootstrap", "must be at least 1"));
        }
        crate::limits::check_usize(ctx, "bootstrap", self.bootstrap, crate::limits::MAX_BOOTSTRAP, "bootstrap resamples")?;
        if !(self.level > 0.0 && self.level < 1.0) {
            return Err(Error::config(ctx, "level", "must be in (0, 1)"));
        }
        crate::limits::check_usize(ctx, "em_iterations", self.em_iterations, crate::limits::MAX_ITERATIONS, "EM passes")?;
        Config { epsilon: self.epsilon, delta: self.delta, samples: self.samples, depth: self.depth, ..Config::default() }.validate()
    }
}

/// How the real outcome reads against epsilon, given its own standard error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RealClass {
    /// Below -epsilon by more than 1.96 standard errors.
    ClearlyWorse,
    /// Neither.
    Unclear,
    /// Above -epsilon by more than 1.96 standard errors.
    ClearlyNotWorse,
}

impl RealClass {
    /// Classifies an advantage `d` with standard error `se`.
    pub fn of(d: f64, se: f64, epsilon: f64) -> Self {
        if d + epsilon < -1.96 * se {
            RealClass::ClearlyWorse
        } else if d + epsilon > 1.96 * se {
            RealClass::ClearlyNotWorse
        } else {
            RealClass::Unclear
        }
    }

    /// Column spelling.
    pub fn name(self) -> &'static str {
        match self {
            RealClass::ClearlyWorse => "clearly_worse",
            RealClass::Unclear => "unclear",
            RealClass::ClearlyNotWorse => "clearly_not_worse",
        }
    }
}

/// One ordered pair of orderings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairDecision {
    /// Query id.
    pub query: String,
    /// Index of the production ordering (first appearance order in the log).
    pub production: usize,
    /// Index of the candidate ordering.
    pub candidate: usize,
    /// Sessions of the production ordering.
    pub production_sessions: usize,
    /// Sessions of the candidate ordering.
    pub candidate_sessions: usize,
    /// Share of the candidate's top `depth` never shown in the production sessions.
    pub unseen_share: f64,
    /// Of the candidate's top 5: never shown in production.
    pub unseen_top5: usize,
    /// Of the candidate's top 5: shown but examined in fewer than
    /// [`switch::RARELY_EXAMINED`] production sessions.
    pub rarely_examined_top5: usize,
    /// Model-error features ([`switch::FEATURES`]).
    pub features: [f64; NF],
    /// DBN continuation used.
    pub gamma: f64,
    /// P(advantage >= -epsilon), model error included.
    pub p_safe: f64,
    /// Posterior mean of the advantage.
    pub expected_diff: f64,
    /// Posterior standard deviation of the advantage.
    pub posterior_sd: f64,
    /// Model-error standard deviation at this pair's features.
    pub model_error_sd: f64,
    /// BARACO's answer.
    pub verdict: Verdict,
    /// Candidate sessions an online test would need to settle it (None: not reachable).
    pub candidate_sessions_needed: Option<f64>,
    /// The answer in words.
    pub why: String,
    /// EM plug-in estimate of the advantage.
    pub em_diff: f64,
    /// MT estimate of the advantage.
    pub mt_diff: f64,
    /// EM plug-in switched.
    pub em_switch: bool,
    /// MT switched.
    pub mt_switch: bool,
    /// Real advantage: sign x (mean over C's sessions - mean over P's).
    pub real_diff: f64,
    /// Its standard error over sessions.
    pub real_se: f64,
    /// How the real advantage reads.
    pub real_class: RealClass,
}

impl PairDecision {
    /// The candidate was really worse by more than epsilon.
    pub fn really_worse(&self, epsilon: f64) -> bool {
        self.real_diff < -epsilon
    }
}

/// A share with its percentile interval from the bootstrap over queries.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Share {
    /// Point value (NaN when undefined, for example no switch).
    pub value: f64,
    /// Lower end (over queries).
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
}

/// Counts and shares of one method or reference policy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodSummary {
    /// `baraco`, `em_plugin`, `mt`, `always_switch` or `never_switch`.
    pub method: &'static str,
    /// Ordered pairs decided.
    pub pairs: usize,
    /// Switches.
    pub switches: usize,
    /// "Cannot tell" answers (BARACO only).
    pub abstentions: usize,
    /// Switches to a really worse candidate.
    pub unsafe_switches: usize,
    /// Their share of the switches.
    pub unsafe_share: Share,
    /// Switches to a clearly worse candidate.
    pub clearly_unsafe_switches: usize,
    /// Their share of the switches.
    pub clearly_unsafe_share: Share,
    /// Switches among clearly-safe (clearly not worse) pairs.
    pub clearly_safe_switches: usize,
    /// Their share of the clearly-safe pairs.
    pub clearly_safe_switch_share: Share,
    /// Stays (keep or cannot tell) although the candidate was not really worse.
    pub missed_safe_switches: usize,
    /// Share of pairs decided as the real outcome says (switch iff not really worse).
    pub agreement: Share,
    /// AUC of P(safe) as a score of "not really worse" (BARACO only).
    pub auc: Option<Share>,
    /// Brier score of P(safe) against "not really worse" (BARACO only).
    pub brier: Option<Share>,
}

/// What one cross-fitting fold (one decided query) used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FoldInfo {
    /// The decided query.
    pub query: String,
    /// DBN continuation fitted without it.
    pub gamma: f64,
    /// Attractiveness prior Beta(alpha, beta).
    pub prior_attractiveness: (f64, f64),
    /// Satisfaction prior.
    pub prior_satisfaction: (f64, f64),
    /// Model error fitted on the other queries' natural experiments.
    pub model_error: ModelError,
}

/// Everything the check reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RealValidation {
    /// The metric.
    pub metric: OutcomeMetric,
    /// Epsilon used.
    pub epsilon: f64,
    /// Delta used.
    pub delta: f64,
    /// Interval level.
    pub level: f64,
    /// Grotov et al.'s settings.
    pub paper: bool,
    /// Queries with decided pairs.
    pub queries: usize,
    /// Ordered pairs whose candidate was really worse.
    pub really_worse: usize,
    /// Ordered pairs whose candidate was clearly worse.
    pub clearly_worse: usize,
    /// Ordered pairs whose candidate was clearly not worse.
    pub clearly_not_worse: usize,
    /// Median standard error of the real differences.
    pub median_real_se: f64,
    /// Per cross-fitting fold (empty with the paper's settings).
    pub folds: Vec<FoldInfo>,
    /// Per pair.
    pub decisions: Vec<PairDecision>,
    /// Per method and reference policy.
    pub summary: Vec<MethodSummary>,
    /// The answer in sentences.
    pub answer: Vec<String>,
}

/// Mean and sample variance of the metric over one ordering's sessions.
fn observed(log: &ClickLog, o: &Ordering, metric: OutcomeMetric) -> (f64, f64) {
    let v: Vec<f64> = o.sessions.iter().map(|&i| metric.of_clicks(log.session(i).clicks)).collect();
    mean_var(&v)
}

/// Mean and sample variance (n - 1; 0 for fewer than two values).
pub fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 { v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (m, var)
}

/// The real advantage of candidate `(m_c, v_c, n_c)` over production `(m_p, v_p, n_p)`: sign x
/// difference of the means, and its standard error `sqrt(v_p / n_p + v_c / n_c)`.
pub fn real_advantage(metric: OutcomeMetric, (m_p, v_p, n_p): (f64, f64, usize), (m_c, v_c, n_c): (f64, f64, usize)) -> (f64, f64) {
    (metric.sign() * (m_c - m_p), (v_p / n_p as f64 + v_c / n_c as f64).sqrt())
}

/// The sessions of `sessions` (one query) as a BARACO log whose documents are the pair ids.
fn blog_of(log: &ClickLog, sessions: &[usize]) -> Result<BLog> {
    let mut b = BLog::new();
    let mut ids = Vec::new();
    for &i in sessions {
        let s = log.session(i);
        let q = b.query_id(&s.query.to_string());
        ids.clear();
        for &p in s.pairs {
            ids.push(b.pair_id(q, &p.to_string()));
        }
        b.push_session(q, &ids, s.clicks).map_err(|e| Error::Invalid(format!("session {i}: {e}")))?;
    }
    Ok(b)
}

/// What one fold's decisions use: the continuation, the priors and the model error.
#[derive(Debug, Clone, Copy)]
struct Context {
    fold: u64,
    gamma: f64,
    prior_a: (f64, f64),
    prior_s: (f64, f64),
}

/// One production ordering's posterior, its draws, and what its sessions examined.
struct Production<'a> {
    ctx: Context,
    index: usize,
    blog: BLog,
    post: Posteriors,
    examined: HashMap<u32, u32>,
    /// The log's pair id -> this production log's pair index.
    bid: HashMap<u32, usize>,
    draws: HashMap<u32, (Vec<f64>, Vec<f64>)>,
    /// Production's own metric under every draw, once computed.
    own: Option<Vec<f64>>,
    samples: usize,
    seed: u64,
    list: &'a [u32],
}

impl<'a> Production<'a> {
    fn new(log: &ClickLog, o: &'a Ordering, index: usize, ctx: Context, samples: usize, seed: u64) -> Result<Self> {
        let blog = blog_of(log, &o.sessions)?;
        let post = compute_posteriors_with_prior(&blog, ctx.gamma, ctx.prior_a, ctx.prior_s)?;
        let mut examined: HashMap<u32, u32> = HashMap::new();
        for &i in &o.sessions {
            let s = log.session(i);
            let last = s.clicks.iter().rposition(|&c| c).unwrap_or(0);
            for &p in &s.pairs[..=last.min(s.pairs.len().saturating_sub(1))] {
                *examined.entry(p).or_insert(0) += 1;
            }
        }
        let bid = blog.pairs.iter().enumerate().filter(|(b, _)| blog.seen[*b]).filter_map(|(b, (_, d))| d.parse::<u32>().ok().map(|p| (p, b))).collect();
        Ok(Production { ctx, index, blog, post, examined, bid, draws: HashMap::new(), own: None, samples, seed, list: &o.pairs })
    }

    fn examined(&self, p: u32) -> u32 {
        self.examined.get(&p).copied().unwrap_or(0)
    }

    /// Makes sure `pair` has draws: from its posterior when production showed it, from the
    /// prior otherwise. Streams `(seed, 6, fold, production, pair, a|s)`.
    fn ensure(&mut self, pair: u32) {
        if self.draws.contains_key(&pair) {
            return;
        }
        let k = self.samples;
        let bid = self.bid.get(&pair).copied();
        let mut out = (vec![0.0; k], vec![0.0; k]);
        for which in 0..2 {
            let mut rng = crate::rng::stream(self.seed, &[6, self.ctx.fold, self.index as u64, u64::from(pair), which]);
            let dst = if which == 0 { &mut out.0 } else { &mut out.1 };
            let prior = if which == 0 { self.ctx.prior_a } else { self.ctx.prior_s };
            match bid {
                Some(b) => {
                    let fb = if which == 0 { &self.post.a[b] } else { &self.post.s[b] };
                    draw_posterior(fb, &mut rng, dst);
                }
                None => draw_beta(prior, &mut rng, dst),
            }
        }
        self.draws.insert(pair, out);
    }

    /// The metric of `list` (cut at `depth`) under every draw, and under the posterior means.
    fn metric(&mut self, list: &[u32], depth: usize, metric: OutcomeMetric) -> (Vec<f64>, (f64, f64)) {
        let l = &list[..list.len().min(depth)];
        for &p in l {
            self.ensure(p);
        }
        let mut params = Vec::with_capacity(l.len());
        let vals = (0..self.samples)
            .map(|k| {
                params.clear();
                params.extend(l.iter().map(|p| {
                    let d = &self.draws[p];
                    (d.0[k], d.1[k])
                }));
                metric.dbn(&params, self.ctx.gamma).0
            })
            .collect();
        let means: Vec<(f64, f64)> = l
            .iter()
            .map(|p| {
                let d = &self.draws[p];
                (d.0.iter().sum::<f64>() / d.0.len() as f64, d.1.iter().sum::<f64>() / d.1.len() as f64)
            })
            .collect();
        (vals, metric.dbn(&means, self.ctx.gamma))
    }

    /// The candidate's advantage under every draw, and its predicted per-session variance.
    /// (Production's own per-draw metric is computed once and kept: every candidate of this
    /// production ordering is compared with the same draws, at one depth and metric per run.)
    fn advantage(&mut self, candidate: &[u32], depth: usize, metric: OutcomeMetric) -> (Vec<f64>, f64) {
        let (c, (_, v_c)) = self.metric(candidate, depth, metric);
        if self.own.is_none() {
            let list = self.list;
            self.own = Some(self.metric(list, depth, metric).0);
        }
        let p = self.own.as_ref().expect("computed above");
        (c.iter().zip(p).map(|(c, p)| metric.sign() * (c - p)).collect(), v_c)
    }

    fn features(&self, candidate: &[u32], depth: usize) -> [f64; NF] {
        switch::features(candidate, self.list, |p| self.examined(p), depth)
    }
}

/// Draws from a posterior: Beta draws when it has no extra factor, the tabulated inverse CDF
/// otherwise.
fn draw_posterior(fb: &FactoredBeta, rng: &mut crate::rng::Stream, out: &mut [f64]) {
    if fb.factors.is_empty() {
        draw_beta((fb.alpha, fb.beta), rng, out);
    } else {
        super::Sampler::InverseCdf.draw(&Density::new(fb), rng, out);
    }
}

fn draw_beta((a, b): (f64, f64), rng: &mut crate::rng::Stream, out: &mut [f64]) {
    if a == 1.0 && b == 1.0 {
        for x in out.iter_mut() {
            *x = rng.random::<f64>();
        }
    } else {
        let d = rand_distr::Beta::new(a, b).expect("positive shapes");
        for x in out.iter_mut() {
            *x = d.sample(rng);
        }
    }
}

/// The candidate's advantage from DBN EM point estimates on P's sessions (gamma fixed): unseen
/// documents at the prior means (`Unseen::Prior`) or condensed away (`Unseen::Condense`).
fn point_advantage(prod: &Production, ea: &[f64], es: &[f64], candidate: &[u32], depth: usize, metric: OutcomeMetric, unseen: Unseen) -> f64 {
    let (ma, ms) = (prod.ctx.prior_a.0 / (prod.ctx.prior_a.0 + prod.ctx.prior_a.1), prod.ctx.prior_s.0 / (prod.ctx.prior_s.0 + prod.ctx.prior_s.1));
    let value = |list: &[u32]| -> f64 {
        let params: Vec<(f64, f64)> = list
            .iter()
            .filter_map(|&p| match (prod.bid.get(&p).copied(), unseen) {
                (Some(b), _) => Some((ea[b], es[b])),
                (None, Unseen::Prior) => Some((ma, ms)),
                (None, _) => None,
            })
            .take(depth)
            .collect();
        metric.dbn(&params, prod.ctx.gamma).0
    };
    let l = |x: &[u32]| -> Vec<u32> {
        if unseen == Unseen::Prior {
            x[..x.len().min(depth)].to_vec()
        } else {
            x.to_vec()
        }
    };
    metric.sign() * (value(&l(candidate)) - value(&l(prod.list)))
}

/// Runs the check on `log` (with its vocabulary, for query names). See the module docs.
pub fn validate_real(log: &ClickLog, vocab: &Vocab, cfg: &RealConfig) -> Result<RealValidation> {
    validate_real_with(log, vocab, cfg, &|_, _| {})
}

/// [`validate_real`] with a progress callback `(folds done, folds)`.
pub fn validate_real_with(log: &ClickLog, vocab: &Vocab, cfg: &RealConfig, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<RealValidation> {
    cfg.validate()?;
    let ords = group_orderings(log);
    let big: Vec<usize> = (0..ords.len()).filter(|&i| ords[i].sessions.len() >= cfg.min_sessions).collect();
    let mut pairs = Vec::new();
    for &p in &big {
        for &c in &big {
            if p != c && ords[p].query == ords[c].query {
                pairs.push((p, c));
            }
        }
    }
    if pairs.is_empty() {
        return Err(Error::Invalid(format!("no query has two orderings with at least {} sessions each", cfg.min_sessions)));
    }
    let metric = cfg.metric;
    let obs: Vec<(f64, f64)> = ords.iter().map(|o| observed(log, o, metric)).collect();
    let stats = |i: usize| (obs[i].0, obs[i].1, ords[i].sessions.len());
    let query_name = |q: u32| vocab.queries.get(q as usize).cloned().unwrap_or_else(|| q.to_string());
    let mut decided: Vec<u32> = pairs.iter().map(|&(p, _)| ords[p].query).collect();
    decided.sort_unstable();
    decided.dedup();
    let (decisions, folds) = if cfg.paper {
        (paper_decisions(log, &ords, &pairs, cfg, &stats, &query_name)?, Vec::new())
    } else {
        let done = std::sync::atomic::AtomicUsize::new(0);
        let per_fold: Vec<(Vec<PairDecision>, FoldInfo)> = decided
            .par_iter()
            .map(|&q| -> Result<(Vec<PairDecision>, FoldInfo)> {
                let r = fold_decisions(log, &ords, &pairs, q, cfg, &stats, &query_name)?;
                progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, decided.len());
                Ok(r)
            })
            .collect::<Result<_>>()?;
        let mut d = Vec::new();
        let mut f = Vec::new();
        for (x, y) in per_fold {
            d.extend(x);
            f.push(y);
        }
        // Pairs in the order they were listed (production, then candidate).
        let pos: HashMap<(usize, usize), usize> = pairs.iter().enumerate().map(|(i, &k)| (k, i)).collect();
        d.sort_by_key(|x| pos[&(x.production, x.candidate)]);
        (d, f)
    };
    let mut v = summarise(decisions, folds, decided.len(), cfg, |d| ords[d.production].query);
    v.answer = answer_lines(&v);
    Ok(v)
}

type Stats<'a> = dyn Fn(usize) -> (f64, f64, usize) + Sync + 'a;

/// Grotov et al.'s per-pair decisions (the code of the first real-outcome check, unchanged).
fn paper_decisions(
    log: &ClickLog,
    ords: &[Ordering],
    pairs: &[(usize, usize)],
    cfg: &RealConfig,
    stats: &Stats,
    query_name: &(dyn Fn(u32) -> String + Sync),
) -> Result<Vec<PairDecision>> {
    let gamma = match cfg.gamma {
        GammaChoice::Fixed(g) => g,
        GammaChoice::Fitted => return Err(Error::config("clicks validate-switches", "gamma", "the paper's settings hold gamma fixed (0.9 unless given)")),
    };
    let bcfg = Config {
        epsilon: cfg.epsilon,
        delta: cfg.delta,
        samples: cfg.samples,
        depth: cfg.depth,
        metric: SwitchMetric::RrMetric,
        seed: cfg.seed,
        ..Config::default()
    };
    pairs
        .par_iter()
        .map(|&(p, c)| -> Result<PairDecision> {
            let mut b = BLog::new();
            let q = b.query_id("q");
            let prod: Vec<u32> = ords[p].pairs.iter().map(|&x| b.pair_id(q, &x.to_string())).collect();
            for &i in &ords[p].sessions {
                b.push_session(q, &prod, log.session(i).clicks).map_err(|e| Error::Invalid(format!("ordering {p}: {e}")))?;
            }
            let cand: Vec<u32> = ords[c].pairs.iter().map(|&x| b.pair_id(q, &x.to_string())).collect();
            let production = Ranking { name: "production".into(), lists: vec![prod] };
            let candidate = Ranking { name: "candidate".into(), lists: vec![cand] };
            let post = compute_posteriors(&b, gamma)?;
            let pair_seed = crate::rng::derive_key(cfg.seed, &[p as u64, c as u64]);
            let answer = compare(&b, &post, &production, std::slice::from_ref(&candidate), &Config { seed: pair_seed, ..bcfg })?.remove(0);
            let (ea, es) = super::harness::dbn_em(&b, gamma, cfg.em_iterations)?;
            let pm = |r: &Ranking, u: Unseen| point_metric(&b, r, &ea, &es, SwitchMetric::RrMetric, cfg.depth, u);
            let em_diff = pm(&candidate, Unseen::Prior) - pm(&production, Unseen::Prior);
            let mt_diff = pm(&candidate, Unseen::Condense) - pm(&production, Unseen::Condense);
            let (real_diff, real_se) = real_advantage(cfg.metric, stats(p), stats(c));
            let top5 = &ords[c].pairs[..ords[c].pairs.len().min(5)];
            let unseen_top5 = top5.iter().filter(|x| !ords[p].pairs.contains(x)).count();
            let verdict = if answer.switch { Verdict::Switch } else { Verdict::Keep };
            Ok(PairDecision {
                query: query_name(ords[p].query),
                production: p,
                candidate: c,
                production_sessions: ords[p].sessions.len(),
                candidate_sessions: ords[c].sessions.len(),
                unseen_share: answer.unseen_share,
                unseen_top5,
                rarely_examined_top5: 0,
                features: [1.0, f64::NAN, f64::NAN],
                gamma,
                p_safe: answer.p_safe,
                expected_diff: answer.expected_diff,
                posterior_sd: f64::NAN,
                model_error_sd: 0.0,
                verdict,
                candidate_sessions_needed: None,
                why: format!("P(safe) {:.3} in the RR metric of the satisfying click (Grotov et al.'s settings)", answer.p_safe),
                em_diff,
                mt_diff,
                em_switch: em_diff >= -cfg.epsilon,
                mt_switch: mt_diff > cfg.mt_margin,
                real_diff,
                real_se,
                real_class: RealClass::of(real_diff, real_se, cfg.epsilon),
            })
        })
        .collect()
}

/// What query `q`'s decisions use, learned without it: gamma, the priors and the model error
/// (see the module docs). Public for inspection and tests: the decided query never informs it.
pub fn cross_fitted(log: &ClickLog, vocab: &Vocab, query: &str, cfg: &RealConfig) -> Result<FoldInfo> {
    cfg.validate()?;
    let q = (0..vocab.queries.len()).find(|&i| vocab.queries[i] == query).ok_or_else(|| Error::Invalid(format!("query `{query}` is not in the log")))? as u32;
    let ords = group_orderings(log);
    let metric = cfg.metric;
    let obs: Vec<(f64, f64)> = ords.iter().map(|o| observed(log, o, metric)).collect();
    let stats = |i: usize| (obs[i].0, obs[i].1, ords[i].sessions.len());
    let query_name = |q: u32| vocab.queries.get(q as usize).cloned().unwrap_or_else(|| q.to_string());
    let (ctx, model_error) = fold_context(log, &ords, q, cfg, &stats, &query_name)?;
    Ok(FoldInfo { query: query.to_string(), gamma: ctx.gamma, prior_attractiveness: ctx.prior_a, prior_satisfaction: ctx.prior_s, model_error })
}

fn fold_context(
    log: &ClickLog,
    ords: &[Ordering],
    q: u32,
    cfg: &RealConfig,
    stats: &Stats,
    query_name: &(dyn Fn(u32) -> String + Sync),
) -> Result<(Context, ModelError)> {
    let others: Vec<usize> = (0..log.len()).filter(|&i| log.session(i).query != q).collect();
    if others.is_empty() {
        return Err(Error::Invalid(format!("query {} is the log's only query: cross-fitting needs other queries to learn gamma, the priors and the model error from (use the paper's settings)", query_name(q))));
    }
    let gamma = match cfg.gamma {
        GammaChoice::Fixed(g) => g,
        GammaChoice::Fitted => {
            use crate::clickmodels::{DbnConfig, Gamma};
            let ctx_log = log.subset(others.iter().copied());
            DbnConfig { gamma: Gamma::Fitted, iterations: cfg.em_iterations, tolerance: 0.0 }.fit(&mut &ctx_log)?.gamma
        }
    };
    let (prior_a, prior_s) = match cfg.prior {
        PriorChoice::Uniform => ((1.0, 1.0), (1.0, 1.0)),
        PriorChoice::Fitted => super::harness::fitted_prior(&blog_of(log, &others)?, gamma, crate::rng::derive_key(cfg.seed, &[7, u64::from(q)]))?,
    };
    let ctx = Context { fold: u64::from(q), gamma, prior_a, prior_s };
    let metric = cfg.metric;
    // Natural experiments of the other queries.
    let model_error = if cfg.model_error {
        let exp: Vec<usize> = (0..ords.len()).filter(|&i| ords[i].query != q && ords[i].sessions.len() >= cfg.error_min_sessions).collect();
        let samples: Vec<Vec<ErrorSample>> = exp
            .par_iter()
            .map(|&p| -> Result<Vec<ErrorSample>> {
                let mates: Vec<usize> = exp.iter().copied().filter(|&c| c != p && ords[c].query == ords[p].query).collect();
                if mates.is_empty() {
                    return Ok(Vec::new());
                }
                let mut prod = Production::new(log, &ords[p], p, ctx, cfg.samples, cfg.seed)?;
                Ok(mates
                    .into_iter()
                    .map(|c| {
                        let (d, _) = prod.advantage(&ords[c].pairs, cfg.depth, metric);
                        let (m, v) = mean_var(&d);
                        let (real, se) = real_advantage(metric, stats(p), stats(c));
                        ErrorSample {
                            residual: real - m,
                            noise: se * se + v * (d.len() as f64 - 1.0) / d.len() as f64,
                            x: prod.features(&ords[c].pairs, cfg.depth),
                        }
                    })
                    .collect())
            })
            .collect::<Result<_>>()?;
        ModelError::fit(&samples.concat())
    } else {
        ModelError::NONE
    };
    Ok((ctx, model_error))
}

/// The decisions of query `q`'s pairs, cross-fitted: gamma, priors and model error from the
/// other queries only.
fn fold_decisions(
    log: &ClickLog,
    ords: &[Ordering],
    pairs: &[(usize, usize)],
    q: u32,
    cfg: &RealConfig,
    stats: &Stats,
    query_name: &(dyn Fn(u32) -> String + Sync),
) -> Result<(Vec<PairDecision>, FoldInfo)> {
    let (ctx, model_error) = fold_context(log, ords, q, cfg, stats, query_name)?;
    let (gamma, prior_a, prior_s) = (ctx.gamma, ctx.prior_a, ctx.prior_s);
    let metric = cfg.metric;
    let mine: Vec<(usize, usize)> = pairs.iter().copied().filter(|&(p, _)| ords[p].query == q).collect();
    let mut prods: Vec<usize> = mine.iter().map(|x| x.0).collect();
    prods.dedup();
    let out: Vec<Vec<PairDecision>> = prods
        .par_iter()
        .map(|&p| -> Result<Vec<PairDecision>> {
            let mut prod = Production::new(log, &ords[p], p, ctx, cfg.samples, cfg.seed)?;
            let (ea, es) = super::harness::dbn_em(&prod.blog, gamma, cfg.em_iterations)?;
            let (m_p, v_p, n_p) = stats(p);
            let _ = m_p;
            let mut out = Vec::new();
            for &(_, c) in mine.iter().filter(|x| x.0 == p) {
                let cand = &ords[c].pairs;
                let (d, v_c) = prod.advantage(cand, cfg.depth, metric);
                let x = prod.features(cand, cfg.depth);
                let tau2 = model_error.variance(&x);
                let a = switch::answer(&d, tau2, cfg.epsilon, cfg.delta, v_c, v_p, n_p);
                let em_diff = point_advantage(&prod, &ea, &es, cand, cfg.depth, metric, Unseen::Prior);
                let mt_diff = point_advantage(&prod, &ea, &es, cand, cfg.depth, metric, Unseen::Condense);
                let (real_diff, real_se) = real_advantage(metric, stats(p), stats(c));
                let top: Vec<u32> = cand.iter().take(cfg.depth).copied().collect();
                let unseen = top.iter().filter(|x| !ords[p].pairs.contains(x)).count();
                let top5 = &cand[..cand.len().min(5)];
                let unseen_top5 = top5.iter().filter(|x| !ords[p].pairs.contains(x)).count();
                let rarely_examined_top5 = top5.iter().filter(|&&x| ords[p].pairs.contains(&x) && prod.examined(x) < switch::RARELY_EXAMINED).count();
                let why = explain(&a, unseen_top5, rarely_examined_top5, top5.len(), cfg, metric);
                out.push(PairDecision {
                    query: query_name(q),
                    production: p,
                    candidate: c,
                    production_sessions: n_p,
                    candidate_sessions: ords[c].sessions.len(),
                    unseen_share: if top.is_empty() { 0.0 } else { unseen as f64 / top.len() as f64 },
                    unseen_top5,
                    rarely_examined_top5,
                    features: x,
                    gamma,
                    p_safe: a.p_safe,
                    expected_diff: a.expected_diff,
                    posterior_sd: a.posterior_sd,
                    model_error_sd: a.model_error_sd,
                    verdict: a.verdict,
                    candidate_sessions_needed: a.candidate_sessions_needed,
                    why,
                    em_diff,
                    mt_diff,
                    em_switch: em_diff >= -cfg.epsilon,
                    mt_switch: mt_diff > cfg.mt_margin,
                    real_diff,
                    real_se,
                    real_class: RealClass::of(real_diff, real_se, cfg.epsilon),
                });
            }
            Ok(out)
        })
        .collect::<Result<_>>()?;
    let info = FoldInfo { query: query_name(q), gamma, prior_attractiveness: prior_a, prior_satisfaction: prior_s, model_error };
    Ok((out.concat(), info))
}

/// The answer for one pair in words.
fn explain(a: &switch::Answer, unseen5: usize, rare5: usize, top: usize, cfg: &RealConfig, metric: OutcomeMetric) -> String {
    let m = metric.name();
    let head = format!(
        "P(safe) {:.3}; predicted advantage in {m} {:+.3} (posterior sd {:.3}, model error sd {:.3})",
        a.p_safe, a.expected_diff, a.posterior_sd, a.model_error_sd
    );
    match a.verdict {
        Verdict::Switch => format!("switch: {head}"),
        Verdict::Keep => format!("keep production: the candidate is worse by more than {} with probability {:.3}; {head}", cfg.epsilon, 1.0 - a.p_safe),
        Verdict::CannotTell => {
            let mut why = Vec::new();
            if rare5 > 0 {
                why.push(format!(
                    "{} of the candidate's top {top} were never or rarely examined in production ({unseen5} never shown, {rare5} examined in fewer than {} sessions)",
                    unseen5 + rare5,
                    switch::RARELY_EXAMINED
                ));
            } else if unseen5 > 0 {
                why.push(format!("{unseen5} of the candidate's top {top} were never shown in production"));
            }
            if a.model_error_sd > a.posterior_sd {
                why.push(format!("on other queries' orderings the model's predicted differences miss the real ones by about {:.3} (one sd)", a.model_error_sd));
            } else {
                why.push(format!("the production sessions leave the prediction uncertain (sd {:.3})", a.posterior_sd));
            }
            let n = match a.candidate_sessions_needed {
                Some(n) if n <= 1e7 => format!("about {} candidate sessions in an online test would settle it", crate::write::fmt_f64(n)),
                Some(_) => "more than 10 million candidate sessions would be needed to settle it: the predicted difference is at the margin".to_string(),
                None => "no number of candidate sessions settles it against this production log: the predicted difference is at the margin".to_string(),
            };
            format!("cannot tell from this log: {}; {head}; {n}", why.join("; "))
        }
    }
}

/// Tallies, shares and their intervals over queries.
fn summarise(decisions: Vec<PairDecision>, folds: Vec<FoldInfo>, queries: usize, cfg: &RealConfig, query_of: impl Fn(&PairDecision) -> u32) -> RealValidation {
    let eps = cfg.epsilon;
    // Cluster index of every pair.
    let mut qid: Vec<u32> = decisions.iter().map(&query_of).collect();
    let mut uniq = qid.clone();
    uniq.sort_unstable();
    uniq.dedup();
    for x in qid.iter_mut() {
        *x = uniq.binary_search(x).expect("listed") as u32;
    }
    let cluster: Vec<usize> = qid.iter().map(|&x| x as usize).collect();
    let boot = ClusterBootstrap::new(uniq.len(), cfg.bootstrap, cfg.seed, 8);
    let share = |num: &[f64], den: &[f64]| -> Share {
        let stat = |w: &[u32]| crate::stats::cluster_bootstrap::weighted_ratio(w, &cluster, num, den);
        let (lower, upper) = boot.interval(cfg.level, stat);
        Share { value: stat(&vec![1; uniq.len()]), lower, upper }
    };
    let b = |x: bool| f64::from(u8::from(x));
    let worse: Vec<bool> = decisions.iter().map(|d| d.really_worse(eps)).collect();
    let clearly_worse: Vec<bool> = decisions.iter().map(|d| d.real_class == RealClass::ClearlyWorse).collect();
    let clearly_safe: Vec<bool> = decisions.iter().map(|d| d.real_class == RealClass::ClearlyNotWorse).collect();
    let methods: [(&'static str, Box<dyn Fn(&PairDecision) -> bool>); 5] = [
        ("baraco", Box::new(|d: &PairDecision| d.verdict == Verdict::Switch)),
        ("em_plugin", Box::new(|d: &PairDecision| d.em_switch)),
        ("mt", Box::new(|d: &PairDecision| d.mt_switch)),
        ("always_switch", Box::new(|_: &PairDecision| true)),
        ("never_switch", Box::new(|_: &PairDecision| false)),
    ];
    let summary = methods
        .iter()
        .map(|(name, sw)| {
            let s: Vec<bool> = decisions.iter().map(&sw).collect();
            let sf: Vec<f64> = s.iter().map(|&x| b(x)).collect();
            let unsafe_: Vec<f64> = s.iter().zip(&worse).map(|(&a, &w)| b(a && w)).collect();
            let clearly: Vec<f64> = s.iter().zip(&clearly_worse).map(|(&a, &w)| b(a && w)).collect();
            let safe_den: Vec<f64> = clearly_safe.iter().map(|&x| b(x)).collect();
            let safe_sw: Vec<f64> = s.iter().zip(&clearly_safe).map(|(&a, &w)| b(a && w)).collect();
            let agree: Vec<f64> = s.iter().zip(&worse).map(|(&a, &w)| b(a != w)).collect();
            let one = vec![1.0; s.len()];
            let is_baraco = *name == "baraco";
            let (auc, brier) = if is_baraco {
                let scores: Vec<f64> = decisions.iter().map(|d| d.p_safe).collect();
                let labels: Vec<bool> = worse.iter().map(|&w| !w).collect();
                let order = ascending(&scores);
                let stat = |w: &[u32]| weighted_auc(w, &cluster, &scores, &labels, &order);
                let (lower, upper) = boot.interval(cfg.level, stat);
                let auc = Share { value: stat(&vec![1; uniq.len()]), lower, upper };
                let sq: Vec<f64> = scores.iter().zip(&labels).map(|(p, &l)| (p - b(l)).powi(2)).collect();
                (Some(auc), Some(share(&sq, &one)))
            } else {
                (None, None)
            };
            MethodSummary {
                method: name,
                pairs: s.len(),
                switches: s.iter().filter(|&&x| x).count(),
                abstentions: if is_baraco { decisions.iter().filter(|d| d.verdict == Verdict::CannotTell).count() } else { 0 },
                unsafe_switches: unsafe_.iter().filter(|&&x| x > 0.0).count(),
                unsafe_share: share(&unsafe_, &sf),
                clearly_unsafe_switches: clearly.iter().filter(|&&x| x > 0.0).count(),
                clearly_unsafe_share: share(&clearly, &sf),
                clearly_safe_switches: safe_sw.iter().filter(|&&x| x > 0.0).count(),
                clearly_safe_switch_share: share(&safe_sw, &safe_den),
                missed_safe_switches: s.iter().zip(&worse).filter(|(&a, &w)| !a && !w).count(),
                agreement: share(&agree, &one),
                auc,
                brier,
            }
        })
        .collect();
    let mut se: Vec<f64> = decisions.iter().map(|d| d.real_se).collect();
    se.sort_by(f64::total_cmp);
    RealValidation {
        metric: cfg.metric,
        epsilon: eps,
        delta: cfg.delta,
        level: cfg.level,
        paper: cfg.paper,
        queries,
        really_worse: worse.iter().filter(|&&x| x).count(),
        clearly_worse: clearly_worse.iter().filter(|&&x| x).count(),
        clearly_not_worse: clearly_safe.iter().filter(|&&x| x).count(),
        median_real_se: se.get(se.len() / 2).copied().unwrap_or(f64::NAN),
        folds,
        decisions,
        summary,
        answer: Vec::new(),
    }
}

fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{:.1} %", 100.0 * x)
    } else {
        "n/a".into()
    }
}

fn share_text(s: &Share) -> String {
    format!("{} [{}, {}]", pct(s.value), pct(s.lower), pct(s.upper))
}

/// The printed answer, in words a search team can act on.
fn answer_lines(v: &RealValidation) -> Vec<String> {
    let get = |m: &str| v.summary.iter().find(|s| s.method == m).expect("every method summarised");
    let (b, always) = (get("baraco"), get("always_switch"));
    let lvl = (v.level * 100.0).round();
    let mut out = vec![format!(
        "{} ordered pairs of orderings of {} queries, scored on real {} (epsilon {}): the candidate was really worse in {} ({} clearly), clearly not worse in {}; median standard error of the real difference {:.3}.",
        v.decisions.len(),
        v.queries,
        v.metric.name(),
        v.epsilon,
        v.really_worse,
        v.clearly_worse,
        v.clearly_not_worse,
        v.median_real_se
    )];
    out.push(format!(
        "BARACO ({}) switched in {} pairs, kept production in {}, and said \"cannot tell from this log\" in {}. Of its switches {} went to a really worse candidate and {} to a clearly worse one ({lvl} % intervals over queries); it switched in {} of the clearly-safe pairs.",
        if v.paper { "Grotov et al.'s settings: gamma 0.9, flat priors, model taken as true" } else { "fitted gamma and priors, model error from other queries, cross-fitted by query" },
        b.switches,
        b.pairs - b.switches - b.abstentions,
        b.abstentions,
        share_text(&b.unsafe_share),
        share_text(&b.clearly_unsafe_share),
        share_text(&b.clearly_safe_switch_share),
    ));
    if let (Some(auc), Some(brier)) = (&b.auc, &b.brier) {
        out.push(format!(
            "P(safe) as a forecast of \"not really worse\": AUC {:.3} [{:.3}, {:.3}] (0.5 is chance), Brier {:.3} [{:.3}, {:.3}] (0.25 is a constant 0.5).",
            auc.value, auc.lower, auc.upper, brier.value, brier.lower, brier.upper
        ));
    }
    out.push(format!(
        "Reference policies: always switch would have gone to a really worse candidate in {} of pairs and to a clearly worse one in {}; never switch misses every safe switch ({} pairs). Agreement with the real outcome: BARACO {}, always switch {}.",
        share_text(&always.unsafe_share),
        share_text(&always.clearly_unsafe_share),
        get("never_switch").missed_safe_switches,
        share_text(&b.agreement),
        share_text(&always.agreement)
    ));
    let safe_share = b.clearly_unsafe_share.value;
    out.push(if b.switches == 0 {
        "In words: on this log BARACO never says \"safe to switch\"; where it cannot tell, an online test of the candidate is the way to know.".to_string()
    } else if safe_share <= v.delta {
        format!(
            "In words: a \"safe to switch\" held on real users: {} of its switches went to a clearly worse candidate (delta {}); \"cannot tell\" means run the candidate online.",
            pct(safe_share),
            v.delta
        )
    } else {
        format!(
            "In words: do not trust a \"safe to switch\" from this log alone: {} of the switches went to a clearly worse candidate, above delta {}.",
            pct(safe_share),
            v.delta
        )
    });
    out
}

fn opt(x: Option<f64>) -> String {
    x.map_or(String::new(), crate::write::fmt_f64)
}

impl RealValidation {
    /// `decisions.csv`: one row per ordered pair.
    pub fn write_decisions(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let f = crate::write::fmt_f64;
        let m = self.metric.column();
        writeln!(
            w,
            "query,production,candidate,production_sessions,candidate_sessions,unseen_share,unseen_top5,rarely_examined_top5,unexamined_share,displacement,gamma,p_safe,expected_{m}_advantage,posterior_sd,model_error_sd,decision,candidate_sessions_needed,em_{m}_advantage,mt_{m}_advantage,em_switch,mt_switch,real_{m}_advantage,real_se_over_sessions,real_outcome,why"
        )?;
        for d in &self.decisions {
            writeln!(
                w,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},\"{}\"",
                d.query,
                d.production,
                d.candidate,
                d.production_sessions,
                d.candidate_sessions,
                f(d.unseen_share),
                d.unseen_top5,
                d.rarely_examined_top5,
                f(d.features[1]),
                f(d.features[2]),
                f(d.gamma),
                f(d.p_safe),
                f(d.expected_diff),
                f(d.posterior_sd),
                f(d.model_error_sd),
                d.verdict.name(),
                opt(d.candidate_sessions_needed),
                f(d.em_diff),
                f(d.mt_diff),
                d.em_switch,
                d.mt_switch,
                f(d.real_diff),
                f(d.real_se),
                d.real_class.name(),
                d.why.replace('"', "'")
            )?;
        }
        Ok(())
    }

    /// `summary.csv`: one row per method and reference policy; intervals over queries.
    pub fn write_summary(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let f = crate::write::fmt_f64;
        writeln!(
            w,
            "method,ordered_pairs,switches,cannot_tell,unsafe_switches,unsafe_share_of_switches,unsafe_share_lower_over_queries,unsafe_share_upper_over_queries,clearly_unsafe_switches,clearly_unsafe_share_of_switches,clearly_unsafe_share_lower_over_queries,clearly_unsafe_share_upper_over_queries,clearly_safe_switches,switch_share_of_clearly_safe,switch_share_of_clearly_safe_lower_over_queries,switch_share_of_clearly_safe_upper_over_queries,missed_safe_switches,agreement_over_pairs,agreement_lower_over_queries,agreement_upper_over_queries,auc_p_safe,auc_lower_over_queries,auc_upper_over_queries,brier_p_safe,brier_lower_over_queries,brier_upper_over_queries"
        )?;
        for s in &self.summary {
            let tri = |x: &Share| format!("{},{},{}", f(x.value), f(x.lower), f(x.upper));
            let otri = |x: &Option<Share>| x.as_ref().map_or(",,".to_string(), tri);
            writeln!(
                w,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                s.method,
                s.pairs,
                s.switches,
                s.abstentions,
                s.unsafe_switches,
                tri(&s.unsafe_share),
                s.clearly_unsafe_switches,
                tri(&s.clearly_unsafe_share),
                s.clearly_safe_switches,
                tri(&s.clearly_safe_switch_share),
                s.missed_safe_switches,
                tri(&s.agreement),
                otri(&s.auc),
                otri(&s.brier)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
