//! Counterfactual validation on held-out orderings: does a click model fitted on some result
//! lists of a query predict what real users did on a list of that query it has not seen?
//!
//! An *ordering* is one distinct shown result list of a query (the same documents in the
//! same order). Real logs hold natural experiments: a query is shown in several orderings,
//! each with its own sessions. For every query with at least two orderings, its orderings
//! are spread over `folds` folds (a shuffle seeded by `(seed, query)`, then round robin, so
//! fold sizes of a query differ by at most one). Queries with a single ordering are never
//! held out; they always train. Fold `f`'s model is fitted on every session whose ordering
//! is not in fold `f` and predicts each ordering of fold `f`:
//!
//! | measure | prediction | error per held-out ordering |
//! |---|---|---|
//! | `ctr_mae` | P(click at rank r) (`click_probs`, exact) | mean over ranks of \|predicted - observed click rate\| |
//! | `abandonment` | P(no click) = product of P(no click at r \| none above) (exact) | \|predicted - observed share of sessions without a click\| |
//! | `clicks_per_session` | sum over ranks of P(click) (exact) | \|predicted - observed mean\| |
//! | `first_click_rank` | mean rank of the first click given a click (exact) | \|predicted - observed mean\| over sessions with a click (weight: those sessions) |
//! | `click_depth_tv` | distribution of the deepest clicked rank, 0 = no click (simulated, `replicates` sessions) | total variation distance |
//!
//! Each error is averaged over held-out orderings weighted by their sessions; its interval is
//! a percentile bootstrap over held-out orderings (it generalises over orderings of these
//! queries, not over queries, and includes the sampling noise of the observed rates: a
//! perfect model does not reach zero). Differences to the two baselines are paired over the
//! same bootstrap resamples. The baselines are two of the ten models: `rctr` (rank-only:
//! one click rate per rank, over all queries) and `dctr` (document-only: each query-document
//! pair's click rate wherever it was shown). Pairs never seen in training get 0.5 in every
//! model (PyClick's convention); the share of held-out impressions of such pairs is reported.
//!
//! **Ordering pairs.** Two held-out orderings of the same query in the same fold (so that
//! one fitted model predicts both), each with at least `min_pair_sessions` sessions, form a
//! pair. For three per-session metrics, the clicks in
//! the top [`TOP`] ranks, abandonment and the reciprocal rank of the first click (0 without
//! a click), a model's *sign* is right when its predicted difference has the sign of the
//! observed difference of the means (pairs with an observed tie are left out; a predicted tie
//! counts one half). Its *probability* that the first ordering's observed mean is the
//! higher is `Phi((m_a - m_b) / sqrt(v_a / n_a + v_b / n_b))` with the predicted means `m`
//! and per-session variances `v` (top clicks: from the simulated sessions; the other two
//! exact) and the observed session counts `n`. Calibration compares this probability, in
//! five bins, with the observed share; the Brier score sums it up. The sign-accuracy
//! interval is Wilson's over pairs; pairs share orderings, so it is too narrow.
//!
//! Deterministic: fold assignment, simulation streams `(seed, 2, ordering, model)` and
//! bootstrap streams `(seed, 3, b)` do not depend on the thread count.

use super::{ClickModel, EmConfig, ModelConfig, ModelKind};
use crate::error::{Error, Result};
use crate::logs::{ClickLog, SessionRef};
use crate::stats::cluster_bootstrap::{ascending, weighted_auc, weighted_ratio, ClusterBootstrap};
use crate::stats::distance::{percentile_interval, total_variation};
use crate::stats::model_error::{ErrorSample, ModelError};
use rand::Rng;
use rayon::prelude::*;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};
use std::collections::HashMap;

/// Ranks of the "clicks at the top" pair metric.
pub const TOP: usize = 3;
/// Ranks an ordering is compared on (longer lists count their first 64).
pub const MAX_RANK: usize = 64;
/// Names of the per-ordering error measures, in table order. A new per-ordering measure (for
/// example SimEval-IR's distributional measures, issue 27 item 4) is a name here, a field of
/// `Outcome` filled by `observe` and `predict`, and a term of `errors`; the tables, intervals
/// and baseline differences follow (the `[f64; 5]` arrays grow with `MEASURES`).
pub const MEASURES: [&str; 5] = ["ctr_mae", "abandonment", "clicks_per_session", "first_click_rank", "click_depth_tv"];
/// Names of the pair metrics.
pub const PAIR_METRICS: [&str; 3] = ["top_clicks", "abandonment", "first_click_rr"];
/// A pair probability at least this far either way is a confident answer (delta = 0.05, as
/// `clicks validate-switches`); between, the model cannot tell.
pub const CONFIDENT: f64 = 0.95;
/// The rank-only and the document-only baseline.
pub const BASELINES: [ModelKind; 2] = [ModelKind::Rctr, ModelKind::Dctr];

/// Settings of an ordering validation.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderingsConfig {
    /// Models to fit and compare (the baselines are compared only when present).
    pub models: Vec<ModelKind>,
    /// Folds over each query's orderings (at least 2).
    pub folds: usize,
    /// Master seed (fold shuffle, simulation, bootstrap).
    pub seed: u64,
    /// EM settings (dbn, ccm, ubm, pbm).
    pub em: EmConfig,
    /// Simulated sessions per held-out ordering and model (click-depth distribution and the
    /// variance of top clicks).
    pub replicates: usize,
    /// Bootstrap resamples over held-out orderings.
    pub bootstrap: usize,
    /// Interval level.
    pub level: f64,
    /// Ordering pairs: both orderings need at least this many sessions.
    pub min_pair_sessions: usize,
}

impl Default for OrderingsConfig {
    fn default() -> Self {
        OrderingsConfig {
            models: ModelKind::all(),
            folds: 5,
            seed: 1,
            em: EmConfig::default(),
            replicates: 1000,
            bootstrap: 1000,
            level: 0.95,
            min_pair_sessions: 50,
        }
    }
}

impl OrderingsConfig {
    fn validate(&self) -> Result<()> {
        let bad = |field: &str, why: &str| Err(Error::config("clicks validate --split orderings", field, why));
        if self.folds < 2 {
            return bad("folds", "must be at least 2");
        }
        if self.models.is_empty() {
            return bad("models", "give at least one model");
        }
        if self.replicates == 0 {
            return bad("replicates", "must be at least 1");
        }
        if self.bootstrap == 0 {
            return bad("bootstrap", "must be at least 1");
        }
        let ctx = "clicks validate --split orderings";
        crate::limits::check_usize(ctx, "replicates", self.replicates, crate::limits::MAX_CLICK_REPLICATES, "simulated sessions per test session")?;
        crate::limits::check_usize(ctx, "bootstrap", self.bootstrap, crate::limits::MAX_BOOTSTRAP, "bootstrap resamples")?;
        crate::limits::check_usize(ctx, "folds", self.folds, 1_000, "folds")?;
        if !(self.level > 0.0 && self.level < 1.0) {
            return bad("level", "must be in (0, 1)");
        }
        if self.min_pair_sessions == 0 {
            return bad("min_pair_sessions", "must be at least 1");
        }
        Ok(())
    }
}

/// One distinct result list of a query with its sessions.
#[derive(Debug, Clone, PartialEq)]
pub struct Ordering {
    /// Query index.
    pub query: u32,
    /// The shown pairs, in rank order.
    pub pairs: Vec<u32>,
    /// Indices of its sessions in the log.
    pub sessions: Vec<usize>,
    /// Fold that holds it out (None: its query has one ordering, it always trains).
    pub fold: Option<usize>,
}

/// The distinct orderings of `log`, in order of first appearance, without folds.
pub fn group_orderings(log: &ClickLog) -> Vec<Ordering> {
    let mut index: HashMap<(u32, &[u32]), usize> = HashMap::new();
    let mut out: Vec<Ordering> = Vec::new();
    for i in 0..log.len() {
        let s = log.session(i);
        let k = *index.entry((s.query, s.pairs)).or_insert_with(|| {
            out.push(Ordering { query: s.query, pairs: s.pairs.to_vec(), sessions: Vec::new(), fold: None });
            out.len() - 1
        });
        out[k].sessions.push(i);
    }
    out
}

/// Assigns folds: per query with at least two orderings, a Fisher–Yates shuffle of its
/// orderings from the stream `(seed, 1, query)`, then ordering at shuffled position `j`
/// goes to fold `j % folds`.
pub fn assign_folds(orderings: &mut [Ordering], folds: usize, seed: u64) {
    let mut by_query: Vec<(u32, Vec<usize>)> = Vec::new();
    let mut pos: HashMap<u32, usize> = HashMap::new();
    for (i, o) in orderings.iter().enumerate() {
        let k = *pos.entry(o.query).or_insert_with(|| {
            by_query.push((o.query, Vec::new()));
            by_query.len() - 1
        });
        by_query[k].1.push(i);
    }
    for (q, mut idx) in by_query {
        if idx.len() < 2 {
            for &i in &idx {
                orderings[i].fold = None;
            }
            continue;
        }
        let mut rng = crate::rng::stream(seed, &[1, u64::from(q)]);
        for j in (1..idx.len()).rev() {
            let k = rng.random_range(0..=j);
            idx.swap(j, k);
        }
        for (j, &i) in idx.iter().enumerate() {
            orderings[i].fold = Some(j % folds);
        }
    }
}

/// What the sessions of one ordering did, or what a model predicts for it.
#[derive(Debug, Clone, PartialEq, Default)]
struct Outcome {
    ctr: Vec<f64>,
    abandon: f64,
    clicks: f64,
    /// Mean rank (1-based) of the first click among sessions with a click (NaN: none).
    first: f64,
    /// Deepest clicked rank: index 0 no click, r = rank r.
    depth: Vec<f64>,
    top: f64,
    rr: f64,
    /// Per-session variances of top clicks, abandonment and first-click RR: the model's
    /// (predictions) or the sessions' sample variances (observations).
    var: [f64; 3],
}

impl Outcome {
    fn pair_metric(&self, k: usize) -> f64 {
        [self.top, self.abandon, self.rr][k]
    }
}

fn observe(log: &ClickLog, o: &Ordering) -> (Outcome, f64) {
    let l = o.pairs.len().min(MAX_RANK);
    let n = o.sessions.len() as f64;
    let mut out = Outcome { ctr: vec![0.0; l], depth: vec![0.0; l + 1], ..Default::default() };
    let (mut clicked, mut first_sum) = (0.0, 0.0);
    let (mut top2, mut rr2) = (0.0, 0.0);
    for &i in &o.sessions {
        let c = &log.session(i).clicks[..l];
        let mut first = None;
        let mut last = 0;
        let mut top = 0.0;
        for (r, &x) in c.iter().enumerate() {
            if x {
                out.ctr[r] += 1.0;
                out.clicks += 1.0;
                first.get_or_insert(r);
                last = r + 1;
                if r < TOP {
                    top += 1.0;
                }
            }
        }
        out.depth[last] += 1.0;
        out.top += top;
        top2 += top * top;
        match first {
            None => out.abandon += 1.0,
            Some(r) => {
                clicked += 1.0;
                first_sum += (r + 1) as f64;
                out.rr += 1.0 / (r + 1) as f64;
                rr2 += 1.0 / ((r + 1) * (r + 1)) as f64;
            }
        }
    }
    // Sample variances (n - 1) of the three pair metrics; abandonment's sum of squares is its count.
    let var = |sum: f64, sq: f64| if n > 1.0 { ((sq - sum * sum / n) / (n - 1.0)).max(0.0) } else { 0.0 };
    out.var = [var(out.top, top2), var(out.abandon, out.abandon), var(out.rr, rr2)];
    for x in out.ctr.iter_mut().chain(out.depth.iter_mut()) {
        *x /= n;
    }
    out.abandon /= n;
    out.clicks /= n;
    out.top /= n;
    out.rr /= n;
    out.first = if clicked > 0.0 { first_sum / clicked } else { f64::NAN };
    (out, clicked)
}

fn predict(model: &dyn ClickModel, o: &Ordering, replicates: usize, seed: u64, ordering: usize, model_index: usize) -> Outcome {
    let pairs = &o.pairs[..o.pairs.len().min(MAX_RANK)];
    let l = pairs.len();
    let mut out = Outcome { depth: vec![0.0; l + 1], ..Default::default() };
    model.click_probs(pairs, &mut out.ctr);
    out.clicks = out.ctr.iter().sum();
    out.top = out.ctr.iter().take(TOP).sum();
    // P(no click at r | no click above), from a session without clicks.
    let none = vec![false; l];
    let mut q = Vec::new();
    model.observed_probs(SessionRef { query: o.query, pairs, clicks: &none }, &mut q);
    let (mut survive, mut first_sum, mut rr2) = (1.0, 0.0, 0.0);
    for (r, &qr) in q.iter().enumerate() {
        let f = survive * (1.0 - qr);
        first_sum += f * (r + 1) as f64;
        out.rr += f / (r + 1) as f64;
        rr2 += f / ((r + 1) * (r + 1)) as f64;
        survive *= qr;
    }
    out.abandon = survive;
    out.first = if survive < 1.0 { first_sum / (1.0 - survive) } else { f64::NAN };
    // Simulated sessions: click depth and the variance of top clicks.
    let mut rng = crate::rng::stream(seed, &[2, ordering as u64, model_index as u64]);
    let mut clicks = Vec::with_capacity(l);
    let (mut t1, mut t2) = (0.0, 0.0);
    for _ in 0..replicates {
        model.simulate(pairs, &mut rng, &mut clicks);
        let last = clicks.iter().rposition(|&c| c).map_or(0, |r| r + 1);
        out.depth[last] += 1.0;
        let t = clicks.iter().take(TOP).filter(|&&c| c).count() as f64;
        t1 += t;
        t2 += t * t;
    }
    let n = replicates as f64;
    for x in &mut out.depth {
        *x /= n;
    }
    out.var = [(t2 / n - (t1 / n).powi(2)).max(0.0), survive * (1.0 - survive), (rr2 - out.rr * out.rr).max(0.0)];
    out
}

/// A model of the ordering validation fitted on `train`: the document-only baseline is
/// [`DocumentOrRank`], every other model as `clicks fit` fits it.
pub(crate) fn fit_model(kind: ModelKind, em: EmConfig, train: &ClickLog) -> Result<Box<dyn ClickModel>> {
    if kind == ModelKind::Dctr {
        Ok(Box::new(DocumentOrRank::fit(train)))
    } else {
        ModelConfig::new(kind, em).fit(&mut { train })
    }
}

/// The document-only baseline of the ordering validation: each (query, document) pair's plain
/// click rate (clicks / impressions) where training showed it, and the click rate of the rank
/// (over all training sessions) where it did not. PyClick's DCTR (`ModelKind::Dctr`, smoothed
/// `(1 + clicks) / (2 + impressions)`, 0.5 for unseen pairs) pulls every pair towards 0.5,
/// which handicaps a baseline that exists to be beaten.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentOrRank {
    /// Plain click rate per pair (NaN: never shown in training).
    pub pair_ctr: Vec<f64>,
    /// Plain click rate per rank.
    pub rank_ctr: Vec<f64>,
}

impl DocumentOrRank {
    /// Counts `log`.
    pub fn fit(log: &ClickLog) -> Self {
        let npairs = log.pairs.iter().copied().max().map_or(0, |m| m as usize + 1);
        let (mut pc, mut pn) = (vec![0.0; npairs], vec![0.0; npairs]);
        let (mut rc, mut rn): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
        for s in log.iter() {
            for (r, (&p, &c)) in s.pairs.iter().zip(s.clicks).enumerate() {
                let c = f64::from(u8::from(c));
                pc[p as usize] += c;
                pn[p as usize] += 1.0;
                if rc.len() <= r {
                    rc.resize(r + 1, 0.0);
                    rn.resize(r + 1, 0.0);
                }
                rc[r] += c;
                rn[r] += 1.0;
            }
        }
        let ratio = |c: f64, n: f64| if n > 0.0 { c / n } else { f64::NAN };
        DocumentOrRank {
            pair_ctr: pc.iter().zip(&pn).map(|(&c, &n)| ratio(c, n)).collect(),
            rank_ctr: rc.iter().zip(&rn).map(|(&c, &n)| ratio(c, n)).collect(),
        }
    }

    fn at(&self, r: usize, p: u32) -> f64 {
        match self.pair_ctr.get(p as usize) {
            Some(&x) if x.is_finite() => x,
            _ => self.rank_ctr.get(r).copied().filter(|x| x.is_finite()).or_else(|| self.rank_ctr.last().copied()).unwrap_or(super::PRIOR),
        }
    }
}

impl ClickModel for DocumentOrRank {
    fn kind(&self) -> ModelKind {
        ModelKind::Dctr
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

    fn relevance(&self, pair: u32) -> f64 {
        self.pair_ctr.get(pair as usize).copied().filter(|x| x.is_finite()).unwrap_or(0.0)
    }

    fn simulate(&self, pairs: &[u32], rng: &mut crate::rng::Stream, clicks: &mut Vec<bool>) {
        clicks.clear();
        clicks.extend(pairs.iter().enumerate().map(|(r, &p)| super::draw(self.at(r, p), rng)));
    }

    fn to_table(&self) -> super::io::ParamTable {
        let pairs: Vec<f64> = self.pair_ctr.iter().map(|x| if x.is_finite() { *x } else { super::PRIOR }).collect();
        super::io::ParamTable::new(ModelKind::Dctr).pair("ctr", &pairs).rank("rank_ctr", &self.rank_ctr)
    }
}

/// Per-ordering errors of `p` against `o`, in [`MEASURES`] order.
fn errors(p: &Outcome, o: &Outcome) -> [f64; 5] {
    let ctr = p.ctr.iter().zip(&o.ctr).map(|(a, b)| (a - b).abs()).sum::<f64>() / o.ctr.len().max(1) as f64;
    [ctr, (p.abandon - o.abandon).abs(), (p.clicks - o.clicks).abs(), (p.first - o.first).abs(), total_variation(&p.depth, &o.depth)]
}

/// One model's error on one measure, with its interval and paired differences to the baselines.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorRow {
    /// Model name.
    pub model: String,
    /// `baseline` for rctr and dctr, `model` otherwise.
    pub role: &'static str,
    /// Measure ([`MEASURES`]).
    pub measure: &'static str,
    /// Session-weighted mean error over held-out orderings.
    pub error: f64,
    /// Bootstrap interval over held-out orderings.
    pub error_lower: f64,
    /// Upper end.
    pub error_upper: f64,
    /// Error minus the rank-only baseline's (rctr), paired over the same resamples.
    pub minus_rank_only: f64,
    /// Interval of that difference.
    pub minus_rank_only_lower: f64,
    /// Upper end.
    pub minus_rank_only_upper: f64,
    /// Error minus the document-only baseline's (dctr).
    pub minus_document_only: f64,
    /// Interval of that difference.
    pub minus_document_only_lower: f64,
    /// Upper end.
    pub minus_document_only_upper: f64,
}

/// Per-rank click-rate error of one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankRow {
    /// Model name.
    pub model: String,
    /// Rank (1-based).
    pub rank: usize,
    /// Session-weighted mean observed click rate over held-out orderings.
    pub observed: f64,
    /// Session-weighted mean predicted click rate.
    pub predicted: f64,
    /// Session-weighted mean absolute error over held-out orderings.
    pub mae: f64,
}

/// Sign accuracy and calibration of one model on one pair metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairRow {
    /// Model name.
    pub model: String,
    /// Metric ([`PAIR_METRICS`]).
    pub metric: &'static str,
    /// Pairs with an observed difference.
    pub pairs: usize,
    /// Queries those pairs come from.
    pub queries: usize,
    /// Share of pairs whose predicted difference has the observed sign (a predicted tie 1/2).
    pub sign_accuracy: f64,
    /// Percentile interval from the bootstrap over queries.
    pub sign_accuracy_lower: f64,
    /// Upper end.
    pub sign_accuracy_upper: f64,
    /// Mean squared error of the predicted probability that the first ordering is higher
    /// (model error included).
    pub brier: f64,
    /// Interval over queries.
    pub brier_lower: f64,
    /// Upper end.
    pub brier_upper: f64,
    /// Mean over pairs of the cross-fitted model-error standard deviation added to the
    /// probability's spread.
    pub model_error_sd: f64,
    /// The model predicts the same value for every ordering of a query (gctr, rctr).
    pub ties_every_pair: bool,
    /// AUC (Mann–Whitney) of the probability as a score of the observed sign.
    pub auc: f64,
    /// Interval over queries.
    pub auc_lower: f64,
    /// Upper end.
    pub auc_upper: f64,
    /// Pairs where the probability is at least [`CONFIDENT`] either way: the model speaks.
    pub confident_pairs: usize,
    /// Of those, pairs whose observed sign is the one the model was confident of.
    pub confident_right: usize,
}

/// Sign accuracy of the most accurate model minus another's, paired over query resamples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparisonRow {
    /// Metric.
    pub metric: &'static str,
    /// The model with the highest sign accuracy.
    pub model: String,
    /// The other model.
    pub versus: String,
    /// Difference of sign accuracies.
    pub sign_accuracy_difference: f64,
    /// Percentile interval from the bootstrap over queries.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
}

/// One calibration bin.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CalibrationRow {
    /// Model name.
    pub model: String,
    /// Metric.
    pub metric: &'static str,
    /// Bin `[lower, upper)` of the predicted probability.
    pub bin_lower: f64,
    /// Upper end.
    pub bin_upper: f64,
    /// Pairs in the bin.
    pub pairs: usize,
    /// Mean predicted probability in the bin.
    pub predicted: f64,
    /// Observed share of pairs whose first ordering had the higher mean.
    pub observed: f64,
}

/// Everything an ordering validation reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrderingsValidation {
    /// Folds.
    pub folds: usize,
    /// Distinct orderings in the log.
    pub orderings: usize,
    /// Held-out orderings (of queries with at least two).
    pub held_out_orderings: usize,
    /// Queries with held-out orderings.
    pub held_out_queries: usize,
    /// Sessions of held-out orderings.
    pub held_out_sessions: usize,
    /// Share of held-out impressions (session x rank) whose pair no training session showed.
    pub unseen_impression_share: f64,
    /// Ordering pairs used for the sign checks (before leaving out observed ties).
    pub ordering_pairs: usize,
    /// Interval level.
    pub level: f64,
    /// Errors per model and measure.
    pub errors: Vec<ErrorRow>,
    /// Per-rank errors.
    pub ranks: Vec<RankRow>,
    /// Pair checks.
    pub pairs: Vec<PairRow>,
    /// Calibration bins.
    pub calibration: Vec<CalibrationRow>,
    /// Paired comparisons of sign accuracy, per pair metric.
    pub comparisons: Vec<ComparisonRow>,
    /// Queries the ordering pairs come from.
    pub pair_queries: usize,
    /// The answer in sentences.
    pub answer: Vec<String>,
}

/// Runs the validation (see the module docs).
pub fn validate_orderings(log: &ClickLog, cfg: &OrderingsConfig) -> Result<OrderingsValidation> {
    cfg.validate()?;
    let mut ords = group_orderings(log);
    assign_folds(&mut ords, cfg.folds, cfg.seed);
    let held: Vec<usize> = (0..ords.len()).filter(|&i| ords[i].fold.is_some()).collect();
    if held.is_empty() {
        return Err(Error::Invalid("no query of the log was shown in two or more distinct orderings: nothing to hold out".into()));
    }
    let mut session_fold = vec![None; log.len()];
    for o in &ords {
        for &i in &o.sessions {
            session_fold[i] = o.fold;
        }
    }
    let trains: Vec<ClickLog> = (0..cfg.folds).map(|f| log.subset((0..log.len()).filter(|&i| session_fold[i] != Some(f)))).collect();
    // Unseen pairs per fold.
    let npairs = log.pairs.iter().copied().max().map_or(0, |m| m as usize + 1);
    let (mut unseen, mut impressions) = (0usize, 0usize);
    for (f, t) in trains.iter().enumerate() {
        let mut seen = vec![false; npairs];
        for &p in &t.pairs {
            seen[p as usize] = true;
        }
        for o in ords.iter().filter(|o| o.fold == Some(f)) {
            let l = o.pairs.len().min(MAX_RANK);
            impressions += l * o.sessions.len();
            unseen += o.pairs[..l].iter().filter(|&&p| !seen[p as usize]).count() * o.sessions.len();
        }
    }
    let jobs: Vec<(usize, usize)> = (0..cfg.folds).flat_map(|f| (0..cfg.models.len()).map(move |m| (f, m))).collect();
    let fitted: Vec<Vec<(usize, Outcome)>> = jobs
        .par_iter()
        .map(|&(f, m)| -> Result<Vec<(usize, Outcome)>> {
            let members: Vec<usize> = held.iter().copied().filter(|&i| ords[i].fold == Some(f)).collect();
            if members.is_empty() || trains[f].is_empty() {
                return Ok(Vec::new());
            }
            let model = fit_model(cfg.models[m], cfg.em, &trains[f])?;
            Ok(members.into_iter().map(|i| (i, predict(model.as_ref(), &ords[i], cfg.replicates, cfg.seed, i, m))).collect())
        })
        .collect::<Result<_>>()?;
    // preds[m][h]: prediction of model m for held-out ordering held[h].
    let pos: HashMap<usize, usize> = held.iter().enumerate().map(|(h, &i)| (i, h)).collect();
    let nm = cfg.models.len();
    let mut preds: Vec<Vec<Option<Outcome>>> = vec![vec![None; held.len()]; nm];
    for (&(_, m), v) in jobs.iter().zip(fitted) {
        for (i, p) in v {
            preds[m][pos[&i]] = Some(p);
        }
    }
    if let Some(h) = (0..held.len()).find(|&h| preds[0][h].is_none()) {
        return Err(Error::Invalid(format!("ordering {} of query {} has no training sessions left", held[h], ords[held[h]].query)));
    }
    let observed: Vec<(Outcome, f64)> = held.iter().map(|&i| observe(log, &ords[i])).collect();
    let weights: Vec<[f64; 5]> = held
        .iter()
        .zip(&observed)
        .map(|(&i, (_, clicked))| {
            let n = ords[i].sessions.len() as f64;
            [n, n, n, *clicked, n]
        })
        .collect();
    // err[m][j][h]
    let err: Vec<Vec<Vec<f64>>> = (0..nm)
        .map(|m| {
            let e: Vec<[f64; 5]> = (0..held.len()).map(|h| errors(preds[m][h].as_ref().expect("predicted"), &observed[h].0)).collect();
            (0..5).map(|j| e.iter().map(|x| x[j]).collect()).collect()
        })
        .collect();
    let wmean = |m: usize, j: usize, idx: &mut dyn Iterator<Item = usize>| -> f64 {
        let (mut s, mut w) = (0.0, 0.0);
        for h in idx {
            let (e, wt) = (err[m][j][h], weights[h][j]);
            if wt > 0.0 && e.is_finite() {
                s += e * wt;
                w += wt;
            }
        }
        if w > 0.0 {
            s / w
        } else {
            f64::NAN
        }
    };
    let point: Vec<[f64; 5]> = (0..nm).map(|m| std::array::from_fn(|j| wmean(m, j, &mut (0..held.len())))).collect();
    let boots: Vec<Vec<[f64; 5]>> = (0..cfg.bootstrap)
        .into_par_iter()
        .map(|b| {
            let mut rng = crate::rng::stream(cfg.seed, &[3, b as u64]);
            let idx: Vec<usize> = (0..held.len()).map(|_| rng.random_range(0..held.len())).collect();
            (0..nm).map(|m| std::array::from_fn(|j| wmean(m, j, &mut idx.iter().copied()))).collect()
        })
        .collect();
    let base: Vec<Option<usize>> = BASELINES.iter().map(|k| cfg.models.iter().position(|m| m == k)).collect();
    let interval = |f: &dyn Fn(&Vec<[f64; 5]>) -> f64| -> (f64, f64) {
        let v: Vec<f64> = boots.iter().map(f).collect();
        percentile_interval(&v, cfg.level)
    };
    let mut rows = Vec::new();
    for (m, kind) in cfg.models.iter().enumerate() {
        for (j, &measure) in MEASURES.iter().enumerate() {
            let (lo, hi) = interval(&|b| b[m][j]);
            let diff = |bi: Option<usize>| -> (f64, f64, f64) {
                match bi {
                    Some(b0) if b0 != m => {
                        let (l, u) = interval(&|b| b[m][j] - b[b0][j]);
                        (point[m][j] - point[b0][j], l, u)
                    }
                    Some(_) => (0.0, 0.0, 0.0),
                    None => (f64::NAN, f64::NAN, f64::NAN),
                }
            };
            let (dr, drl, dru) = diff(base[0]);
            let (dd, ddl, ddu) = diff(base[1]);
            rows.push(ErrorRow {
                model: kind.name().to_string(),
                role: if BASELINES.contains(kind) { "baseline" } else { "model" },
                measure,
                error: point[m][j],
                error_lower: lo,
                error_upper: hi,
                minus_rank_only: dr,
                minus_rank_only_lower: drl,
                minus_rank_only_upper: dru,
                minus_document_only: dd,
                minus_document_only_lower: ddl,
                minus_document_only_upper: ddu,
            });
        }
    }
    // Per-rank rows.
    let depth = held.iter().map(|&i| ords[i].pairs.len().min(MAX_RANK)).max().unwrap_or(0);
    let mut ranks = Vec::new();
    for (m, kind) in cfg.models.iter().enumerate() {
        for r in 0..depth {
            let (mut w, mut o, mut p, mut e) = (0.0, 0.0, 0.0, 0.0);
            for h in 0..held.len() {
                let (obs, pr) = (&observed[h].0, preds[m][h].as_ref().expect("predicted"));
                if r < obs.ctr.len() {
                    let n = weights[h][0];
                    w += n;
                    o += n * obs.ctr[r];
                    p += n * pr.ctr[r];
                    e += n * (obs.ctr[r] - pr.ctr[r]).abs();
                }
            }
            ranks.push(RankRow { model: kind.name().to_string(), rank: r + 1, observed: o / w, predicted: p / w, mae: e / w });
        }
    }
    // Ordering pairs.
    let mut pair_list = Vec::new();
    for a in 0..held.len() {
        for b in a + 1..held.len() {
            let (oa, ob) = (&ords[held[a]], &ords[held[b]]);
            // Same query, same fold: one fitted model predicts both, so the predicted
            // difference is not the difference between two folds' fits.
            if oa.query == ob.query && oa.fold == ob.fold && oa.sessions.len() >= cfg.min_pair_sessions && ob.sessions.len() >= cfg.min_pair_sessions {
                pair_list.push((a, b));
            }
        }
    }
    // Pairs are grouped by query for the intervals (bootstrap over queries) and for the
    // cross-fitted model error (a query's pairs never inform their own).
    let mut pair_queries: Vec<u32> = pair_list.iter().map(|&(a, _)| ords[held[a]].query).collect();
    pair_queries.sort_unstable();
    pair_queries.dedup();
    let cluster: Vec<usize> = pair_list.iter().map(|&(a, _)| pair_queries.binary_search(&ords[held[a]].query).expect("listed")).collect();
    let boot = ClusterBootstrap::new(pair_queries.len(), cfg.bootstrap, cfg.seed, 4);
    let normal = Normal::new(0.0, 1.0).expect("standard normal");
    let mut pairs = Vec::new();
    let mut calibration = Vec::new();
    // Per model and metric: right (1, 1/2, 0), squared error and whether the pair counts.
    let mut scored: Vec<Vec<(Vec<f64>, Vec<f64>, Vec<f64>)>> = Vec::new();
    for (m, kind) in cfg.models.iter().enumerate() {
        let mut per_metric = Vec::new();
        for (k, &metric) in PAIR_METRICS.iter().enumerate() {
            // Observed and predicted differences, the model's and the sessions' variances.
            let rows: Vec<(f64, f64, f64, f64)> = pair_list
                .iter()
                .map(|&(a, b)| {
                    let (oa, ob) = (&observed[a].0, &observed[b].0);
                    let (pa, pb) = (preds[m][a].as_ref().expect("predicted"), preds[m][b].as_ref().expect("predicted"));
                    let (na, nb) = (ords[held[a]].sessions.len() as f64, ords[held[b]].sessions.len() as f64);
                    (
                        oa.pair_metric(k) - ob.pair_metric(k),
                        pa.pair_metric(k) - pb.pair_metric(k),
                        pa.var[k] / na + pb.var[k] / nb,
                        oa.var[k] / na + ob.var[k] / nb,
                    )
                })
                .collect();
            // Model error per query, fitted on the other queries' pairs (intercept only).
            let tau2: Vec<f64> = (0..pair_queries.len())
                .map(|g| {
                    let samples: Vec<ErrorSample> = rows
                        .iter()
                        .zip(&cluster)
                        .filter(|(_, &c)| c != g)
                        .map(|(&(d_obs, d_pred, _, se2), _)| ErrorSample { residual: d_obs - d_pred, noise: se2, x: [1.0, 0.0, 0.0] })
                        .collect();
                    ModelError::fit(&samples).variance(&[1.0, 0.0, 0.0])
                })
                .collect();
            let ties_every_pair = rows.iter().all(|r| r.1 == 0.0);
            let (mut right, mut sq, mut used) = (vec![0.0; rows.len()], vec![0.0; rows.len()], vec![0.0; rows.len()]);
            let mut bins = [(0usize, 0.0, 0.0); 5];
            let mut tau_sum = 0.0;
            let (mut probs, mut ys) = (vec![f64::NAN; rows.len()], vec![false; rows.len()]);
            for (i, &(d_obs, d_pred, sd2, _)) in rows.iter().enumerate() {
                if d_obs == 0.0 {
                    continue;
                }
                used[i] = 1.0;
                right[i] = if d_pred == 0.0 {
                    0.5
                } else if (d_pred > 0.0) == (d_obs > 0.0) {
                    1.0
                } else {
                    0.0
                };
                let t2 = tau2[cluster[i]];
                tau_sum += t2.sqrt();
                let sd = (sd2 + t2).sqrt();
                let prob = if sd > 0.0 {
                    normal.cdf(d_pred / sd)
                } else if d_pred == 0.0 {
                    0.5
                } else {
                    f64::from(u8::from(d_pred > 0.0))
                };
                let y = f64::from(u8::from(d_obs > 0.0));
                probs[i] = prob;
                ys[i] = d_obs > 0.0;
                sq[i] = (prob - y).powi(2);
                let bin = ((prob * 5.0) as usize).min(4);
                bins[bin].0 += 1;
                bins[bin].1 += prob;
                bins[bin].2 += y;
            }
            let n = used.iter().filter(|&&u| u > 0.0).count();
            let ratio = |num: &[f64], w: &[u32]| weighted_ratio(w, &cluster, num, &used);
            let ones = vec![1u32; pair_queries.len()];
            let (lo, hi) = boot.interval(cfg.level, |w| ratio(&right, w));
            let (blo, bhi) = boot.interval(cfg.level, |w| ratio(&sq, w));
            // AUC of the probability as a score of the observed sign, over the pairs with an
            // observed difference; confident answers (probability at least CONFIDENT either way).
            let idx: Vec<usize> = (0..rows.len()).filter(|&i| used[i] > 0.0).collect();
            let (sc, lb, cl): (Vec<f64>, Vec<bool>, Vec<usize>) =
                (idx.iter().map(|&i| probs[i]).collect(), idx.iter().map(|&i| ys[i]).collect(), idx.iter().map(|&i| cluster[i]).collect());
            let order = ascending(&sc);
            let (alo, ahi) = boot.interval(cfg.level, |w| weighted_auc(w, &cl, &sc, &lb, &order));
            let auc = weighted_auc(&vec![1; pair_queries.len()], &cl, &sc, &lb, &order);
            let confident: Vec<usize> = idx.iter().copied().filter(|&i| probs[i] >= CONFIDENT || probs[i] <= 1.0 - CONFIDENT).collect();
            let confident_right = confident.iter().filter(|&&i| (probs[i] > 0.5) == ys[i]).count();
            let mut nq: Vec<usize> = cluster.iter().zip(&used).filter(|(_, &u)| u > 0.0).map(|(&c, _)| c).collect();
            nq.sort_unstable();
            nq.dedup();
            pairs.push(PairRow {
                model: kind.name().to_string(),
                metric,
                pairs: n,
                queries: nq.len(),
                sign_accuracy: ratio(&right, &ones),
                sign_accuracy_lower: lo,
                sign_accuracy_upper: hi,
                brier: ratio(&sq, &ones),
                brier_lower: blo,
                brier_upper: bhi,
                model_error_sd: if n > 0 { tau_sum / n as f64 } else { f64::NAN },
                ties_every_pair,
                auc,
                auc_lower: alo,
                auc_upper: ahi,
                confident_pairs: confident.len(),
                confident_right,
            });
            for (i, &(c, p, y)) in bins.iter().enumerate() {
                if c > 0 {
                    calibration.push(CalibrationRow {
                        model: kind.name().to_string(),
                        metric,
                        bin_lower: i as f64 / 5.0,
                        bin_upper: (i + 1) as f64 / 5.0,
                        pairs: c,
                        predicted: p / c as f64,
                        observed: y / c as f64,
                    });
                }
            }
            per_metric.push((right, sq, used));
        }
        scored.push(per_metric);
    }
    // Paired comparisons of sign accuracy over queries: the model with the highest accuracy
    // (models that tie every pair excluded) against every other such model.
    let mut comparisons = Vec::new();
    for (k, &metric) in PAIR_METRICS.iter().enumerate() {
        let rows: Vec<&PairRow> = pairs.iter().filter(|r| r.metric == metric && r.pairs > 0 && !r.ties_every_pair).collect();
        let Some(best) = rows.iter().max_by(|a, b| a.sign_accuracy.total_cmp(&b.sign_accuracy).then(b.brier.total_cmp(&a.brier))) else { continue };
        let bm = cfg.models.iter().position(|m| m.name() == best.model).expect("a model");
        for r in &rows {
            if r.model == best.model {
                continue;
            }
            let om = cfg.models.iter().position(|m| m.name() == r.model).expect("a model");
            let (used, rb, ro) = (&scored[bm][k].2, &scored[bm][k].0, &scored[om][k].0);
            let diff = |w: &[u32]| weighted_ratio(w, &cluster, rb, used) - weighted_ratio(w, &cluster, ro, used);
            let (lower, upper) = boot.interval(cfg.level, diff);
            comparisons.push(ComparisonRow {
                metric,
                model: best.model.clone(),
                versus: r.model.clone(),
                sign_accuracy_difference: diff(&vec![1; pair_queries.len()]),
                lower,
                upper,
            });
        }
    }
    let mut queries: Vec<u32> = held.iter().map(|&i| ords[i].query).collect();
    queries.sort_unstable();
    queries.dedup();
    let mut v = OrderingsValidation {
        folds: cfg.folds,
        orderings: ords.len(),
        held_out_orderings: held.len(),
        held_out_queries: queries.len(),
        held_out_sessions: held.iter().map(|&i| ords[i].sessions.len()).sum(),
        unseen_impression_share: if impressions > 0 { unseen as f64 / impressions as f64 } else { 0.0 },
        ordering_pairs: pair_list.len(),
        level: cfg.level,
        errors: rows,
        ranks,
        pairs,
        calibration,
        comparisons,
        pair_queries: pair_queries.len(),
        answer: Vec::new(),
    };
    v.answer = answer(&v, cfg, &boots);
    Ok(v)
}

fn answer(v: &OrderingsValidation, cfg: &OrderingsConfig, boots: &[Vec<[f64; 5]>]) -> Vec<String> {
    let pct = (cfg.level * 100.0).round();
    let mut out = vec![format!(
        "{} held-out orderings of {} queries ({} sessions), {} folds; {:.1} % of held-out impressions show a pair no training session showed (0.5 in the click models; the rank's click rate in the document-only baseline).",
        v.held_out_orderings,
        v.held_out_queries,
        v.held_out_sessions,
        v.folds,
        100.0 * v.unseen_impression_share
    )];
    let ctr: Vec<&ErrorRow> = v.errors.iter().filter(|r| r.measure == "ctr_mae").collect();
    let get = |k: ModelKind| ctr.iter().find(|r| r.model == k.name());
    let models: Vec<&&ErrorRow> = ctr.iter().filter(|r| r.role == "model").collect();
    if let Some(best) = models.iter().min_by(|a, b| a.error.total_cmp(&b.error)) {
        let bi = cfg.models.iter().position(|m| m.name() == best.model).expect("a model");
        // Paired differences to every other model over the same resamples of orderings.
        let (mut below, mut tied) = (Vec::new(), Vec::new());
        for r in models.iter().filter(|r| r.model != best.model) {
            let oi = cfg.models.iter().position(|m| m.name() == r.model).expect("a model");
            let d: Vec<f64> = boots.iter().map(|b| b[bi][0] - b[oi][0]).collect();
            let (_, hi) = percentile_interval(&d, cfg.level);
            if hi < 0.0 {
                below.push(r.model.as_str())
            } else {
                tied.push(r.model.as_str())
            }
        }
        let lead = if models.len() == 1 {
            format!("model {}", best.model)
        } else if tied.is_empty() {
            format!("best model {} (below every other model, paired intervals over orderings)", best.model)
        } else {
            format!("lowest error {} (not distinguishable from {}: paired {pct} % intervals over orderings include 0)", best.model, tied.join(", "))
        };
        let mut s = format!(
            "Held-out per-rank click rates (session-weighted mean absolute error, {pct} % interval over held-out orderings): {lead} {:.4} [{:.4}, {:.4}]",
            best.error, best.error_lower, best.error_upper
        );
        for (k, label) in BASELINES.iter().zip(["rank-only", "document-only"]) {
            if let Some(b) = get(*k) {
                s += &format!("; {label} ({}) {:.4} [{:.4}, {:.4}]", b.model, b.error, b.error_lower, b.error_upper);
            }
        }
        s.push('.');
        out.push(s);
        if get(BASELINES[0]).is_some() && get(BASELINES[1]).is_some() {
            let beats: Vec<&str> = ctr
                .iter()
                .filter(|r| r.role == "model" && r.minus_rank_only_upper < 0.0 && r.minus_document_only_upper < 0.0)
                .map(|r| r.model.as_str())
                .collect();
            out.push(format!(
                "{} minus rank-only {:+.4} [{:+.4}, {:+.4}], minus document-only {:+.4} [{:+.4}, {:+.4}]. Models whose error is below both baselines' (interval of the paired difference below 0): {}.",
                best.model,
                best.minus_rank_only,
                best.minus_rank_only_lower,
                best.minus_rank_only_upper,
                best.minus_document_only,
                best.minus_document_only_lower,
                best.minus_document_only_upper,
                if beats.is_empty() { "none".to_string() } else { beats.join(", ") }
            ));
        }
    }
    let tying: Vec<&str> = v.pairs.iter().filter(|r| r.metric == PAIR_METRICS[0] && r.ties_every_pair).map(|r| r.model.as_str()).collect();
    for metric in PAIR_METRICS {
        let rows: Vec<&PairRow> = v.pairs.iter().filter(|r| r.metric == metric && r.pairs > 0 && !r.ties_every_pair).collect();
        let Some(best) = rows.iter().max_by(|a, b| a.sign_accuracy.total_cmp(&b.sign_accuracy).then(b.brier.total_cmp(&a.brier))) else {
            out.push(format!("Ordering pairs, {metric}: no pair of orderings of a query with at least {} sessions each and an observed difference, or every model ties every pair.", cfg.min_pair_sessions));
            continue;
        };
        let cmp: Vec<&ComparisonRow> = v.comparisons.iter().filter(|c| c.metric == metric).collect();
        let tied: Vec<&str> = cmp.iter().filter(|c| c.lower <= 0.0).map(|c| c.versus.as_str()).collect();
        let lead = if cmp.is_empty() {
            format!("sign accuracy {}", best.model)
        } else if tied.is_empty() {
            format!("best sign accuracy {} (above every other model, paired intervals over queries)", best.model)
        } else {
            format!("highest sign accuracy {}, not distinguishable from {} (paired {pct} % intervals over queries include 0)", best.model, tied.join(", "))
        };
        let worst_brier = rows.iter().map(|r| r.brier).fold(f64::NAN, f64::max);
        out.push(format!(
            "Ordering pairs, {metric}: {lead}: {:.3} [{:.3}, {:.3}] over {} pairs of {} queries ({pct} % interval over queries; 0.5 is a coin); Brier {:.3} (worst model {:.3}; 0.25 is a constant 0.5), model error included; AUC of its probability {:.3} [{:.3}, {:.3}]; it is confident (probability {CONFIDENT} or more either way) in {} of the {} pairs, right in {}, and cannot tell in the rest.",
            best.sign_accuracy, best.sign_accuracy_lower, best.sign_accuracy_upper, best.pairs, best.queries, best.brier, worst_brier, best.auc, best.auc_lower, best.auc_upper, best.confident_pairs, best.pairs, best.confident_right
        ));
    }
    if !tying.is_empty() {
        let (verb, they) = if tying.len() == 1 { ("predicts", "it ties") } else { ("predict", "they tie") };
        out.push(format!(
            "{} {verb} the same value for every ordering of a query: {they} every pair (sign accuracy 0.5 by construction) and {} not ranked.",
            tying.join(" and "),
            if tying.len() == 1 { "is" } else { "are" }
        ));
    }
    out
}

fn num(x: f64) -> String {
    // The house number format: 10 significant digits, an empty cell where undefined.
    crate::write::fmt_f64(x)
}

impl OrderingsValidation {
    /// `errors.csv`: one row per model and measure.
    pub fn write_errors(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(w, "model,role,measure,error_over_orderings,error_lower,error_upper,minus_rank_only,minus_rank_only_lower,minus_rank_only_upper,minus_document_only,minus_document_only_lower,minus_document_only_upper")?;
        for r in &self.errors {
            writeln!(
                w,
                "{},{},{},{},{},{},{},{},{},{},{},{}",
                r.model,
                r.role,
                r.measure,
                num(r.error),
                num(r.error_lower),
                num(r.error_upper),
                num(r.minus_rank_only),
                num(r.minus_rank_only_lower),
                num(r.minus_rank_only_upper),
                num(r.minus_document_only),
                num(r.minus_document_only_lower),
                num(r.minus_document_only_upper)
            )?;
        }
        Ok(())
    }

    /// `ranks.csv`: per model and rank, session-weighted observed and predicted click rates.
    pub fn write_ranks(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(w, "model,rank,observed_ctr,predicted_ctr,mae_over_orderings")?;
        for r in &self.ranks {
            writeln!(w, "{},{},{},{},{}", r.model, r.rank, num(r.observed), num(r.predicted), num(r.mae))?;
        }
        Ok(())
    }

    /// `pairs.csv`: sign accuracy and Brier score per model and pair metric, intervals over queries.
    pub fn write_pairs(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(w, "model,metric,pairs,queries,sign_accuracy_over_pairs,sign_accuracy_lower_over_queries,sign_accuracy_upper_over_queries,brier,brier_lower_over_queries,brier_upper_over_queries,model_error_sd,ties_every_pair,auc,auc_lower_over_queries,auc_upper_over_queries,confident_pairs,confident_right")?;
        for r in &self.pairs {
            writeln!(
                w,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                r.model,
                r.metric,
                r.pairs,
                r.queries,
                num(r.sign_accuracy),
                num(r.sign_accuracy_lower),
                num(r.sign_accuracy_upper),
                num(r.brier),
                num(r.brier_lower),
                num(r.brier_upper),
                num(r.model_error_sd),
                r.ties_every_pair,
                num(r.auc),
                num(r.auc_lower),
                num(r.auc_upper),
                r.confident_pairs,
                r.confident_right
            )?;
        }
        Ok(())
    }

    /// `comparisons.csv`: per pair metric, the most accurate model's sign accuracy minus every
    /// other model's, paired over query resamples.
    pub fn write_comparisons(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(w, "metric,model,versus,sign_accuracy_difference,lower_over_queries,upper_over_queries")?;
        for c in &self.comparisons {
            writeln!(w, "{},{},{},{},{},{}", c.metric, c.model, c.versus, num(c.sign_accuracy_difference), num(c.lower), num(c.upper))?;
        }
        Ok(())
    }

    /// `calibration.csv`: predicted probability against the observed share, per bin.
    pub fn write_calibration(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(w, "model,metric,bin_lower,bin_upper,pairs,predicted_p,observed_share")?;
        for r in &self.calibration {
            writeln!(w, "{},{},{},{},{},{},{}", r.model, r.metric, r.bin_lower, r.bin_upper, r.pairs, num(r.predicted), num(r.observed))?;
        }
        Ok(())
    }
}

pub mod shift;

#[cfg(test)]
mod tests;
