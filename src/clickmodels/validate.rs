//! Validation of a fitted click model against held-out sessions: simulate sessions on the
//! test SERPs and compare them with the real test sessions.
//!
//! Measures (each a distribution over ordered categories, compared real against simulated):
//!
//! | measure | categories |
//! |---|---|
//! | `click_rank` | rank of each click (1..R): where clicks fall; per-rank CTRs are reported too |
//! | `clicks_per_session` | number of clicks of a session (0..R) |
//! | `first_click_rank` | rank of the first click, sessions with a click |
//! | `last_click_rank` | rank of the last click, sessions with a click |
//! | `abandonment` | session without a click or not |
//! | `dwell` | seconds per click (when both logs have dwell times; simulated clicks take a dwell drawn from the training clicks at the same rank) |
//!
//! Distances: total variation `1/2 sum |p - q|` and Kolmogorov–Smirnov `max |P - Q|` on the
//! cumulative distribution (for `dwell`, KS only), each with a percentile bootstrap interval:
//! real and simulated sessions are resampled independently (a multinomial draw over the
//! sessions' click patterns, which is the same as resampling sessions when every measure
//! depends on the pattern only). Distances of resampled data are biased upwards when the
//! true distance is small; the intervals show the sampling spread, not a test.
//!
//! **System-level check.** Queries whose test sessions show at least two distinct result
//! lists, each shown in at least `min_list_sessions` test sessions, define rankers: ranker k shows, for every such query, one of its logged lists
//! (chosen by a hash of (seed, k, query)). Each ranker gets a real score (mean over queries
//! of the mean over that list's real test sessions) and a model score (the same over the
//! simulated sessions on that list), for three click metrics: reciprocal rank of the first
//! click (0 without a click), clicks per session, and click-through (1 - abandonment).
//! Kendall's tau-b between real and model scores says whether the model orders the rankers
//! as the users did.
//!
//! Sessions longer than 64 results count their first 64 ranks.

use super::ClickModel;
use crate::error::{Error, Result};
use crate::logs::ClickLog;
use crate::stats::distance::{ks_discrete, ks_two_sample, multinomial, percentile_interval, total_variation};
use rand::Rng;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;

/// Ranks the measures look at.
pub const MAX_RANK: usize = 64;

/// Most rankers of the system-level check (`--rankers`).
pub const MAX_RANKERS: u64 = 10_000;

/// Settings of a validation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValidateConfig {
    /// Simulated sessions per test session.
    pub replicates: usize,
    /// Bootstrap resamples for the intervals.
    pub bootstrap: usize,
    /// Level of the bootstrap intervals.
    pub level: f64,
    /// Master seed (simulation: stream (seed, session, replicate); bootstrap: (seed, 1, b)).
    pub seed: u64,
    /// Rankers of the system-level check.
    pub rankers: usize,
    /// System-level check: result lists with fewer test sessions are left out (their real
    /// scores would be mostly noise).
    pub min_list_sessions: usize,
}

impl Default for ValidateConfig {
    fn default() -> Self {
        ValidateConfig { replicates: 10, bootstrap: 200, level: 0.95, seed: 1, rankers: 20, min_list_sessions: 10 }
    }
}

impl ValidateConfig {
    /// Replicates such that at least 100,000 sessions are simulated (at most 100).
    pub fn auto_replicates(test_sessions: usize) -> usize {
        100_000usize.div_ceil(test_sessions.max(1)).clamp(1, 100)
    }

    fn validate(&self) -> Result<()> {
        if self.replicates == 0 {
            return Err(Error::config("validate", "replicates", "must be at least 1"));
        }
        if self.bootstrap == 0 {
            return Err(Error::config("validate", "bootstrap", "must be at least 1"));
        }
        crate::limits::check_usize("validate", "replicates", self.replicates, crate::limits::MAX_CLICK_REPLICATES, "simulated sessions per test session")?;
        crate::limits::check_usize("validate", "bootstrap", self.bootstrap, crate::limits::MAX_BOOTSTRAP, "bootstrap resamples")?;
        crate::limits::check_usize("validate", "rankers", self.rankers, MAX_RANKERS, "rankers of the system-level check")?;
        if !(self.level > 0.0 && self.level < 1.0) {
            return Err(Error::config("validate", "level", "must be in (0, 1)"));
        }
        Ok(())
    }
}

/// One measure: real and simulated distributions with their distances.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measure {
    /// Measure name.
    pub measure: String,
    /// Mean of the real statistic (rank, clicks, share or seconds).
    pub real: f64,
    /// Mean of the simulated statistic.
    pub simulated: f64,
    /// simulated - real, with its bootstrap interval.
    pub difference: f64,
    /// Lower end.
    pub difference_lower: f64,
    /// Upper end.
    pub difference_upper: f64,
    /// Total-variation distance (NaN for dwell).
    pub tv: f64,
    /// Bootstrap interval of TV.
    pub tv_lower: f64,
    /// Upper end.
    pub tv_upper: f64,
    /// Kolmogorov–Smirnov distance.
    pub ks: f64,
    /// Bootstrap interval of KS.
    pub ks_lower: f64,
    /// Upper end.
    pub ks_upper: f64,
    /// Category labels (ranks, counts) for the histograms below; empty for dwell.
    #[serde(skip)]
    pub categories: Vec<String>,
    /// Real histogram (shares), per category.
    #[serde(skip)]
    pub real_hist: Vec<f64>,
    /// Simulated histogram (shares), per category.
    #[serde(skip)]
    pub sim_hist: Vec<f64>,
    /// Sorted real values (dwell only, for the plot).
    #[serde(skip)]
    pub real_values: Vec<f64>,
    /// Sorted simulated values (dwell only).
    #[serde(skip)]
    pub sim_values: Vec<f64>,
}

impl Measure {
    /// A per-rank row (`ctr@r`, `visit@r`): real and simulated value and the bootstrap
    /// interval `(lower, upper)` of their difference; no distances (NaN), no histograms.
    pub fn difference_only(measure: String, real: f64, simulated: f64, (lower, upper): (f64, f64)) -> Measure {
        Measure {
            measure,
            real,
            simulated,
            difference: simulated - real,
            difference_lower: lower,
            difference_upper: upper,
            tv: f64::NAN,
            tv_lower: f64::NAN,
            tv_upper: f64::NAN,
            ks: f64::NAN,
            ks_lower: f64::NAN,
            ks_upper: f64::NAN,
            categories: Vec::new(),
            real_hist: Vec::new(),
            sim_hist: Vec::new(),
            real_values: Vec::new(),
            sim_values: Vec::new(),
        }
    }
}

/// The system-level check for one metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemCheck {
    /// Metric: `first_click_rr`, `clicks` or `click_through`.
    pub metric: &'static str,
    /// Kendall's tau-b between real and model scores of the rankers.
    pub kendall_tau: f64,
    /// Real score per ranker.
    pub real: Vec<f64>,
    /// Model score per ranker.
    pub model: Vec<f64>,
}

/// Everything a validation reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validation {
    /// Test sessions.
    pub test_sessions: usize,
    /// Simulated sessions (test sessions x replicates).
    pub simulated_sessions: usize,
    /// Replicates per test session.
    pub replicates: usize,
    /// Bootstrap resamples.
    pub bootstrap: usize,
    /// Interval level.
    pub level: f64,
    /// Distribution measures.
    pub measures: Vec<Measure>,
    /// Per-rank click-through rate: measure `ctr@r`, difference with its interval; TV and KS NaN.
    pub ctr: Vec<Measure>,
    /// Queries with at least two logged result lists (used by the system check).
    pub system_queries: usize,
    /// Rankers of the system check.
    pub system_rankers: usize,
    /// System-level checks (empty without a query with two lists).
    pub system: Vec<SystemCheck>,
    /// SimEval-IR's distributional measures of the simulated against the real test sessions
    /// ([`crate::stats::simeval`]), from the click patterns; no event times, so the
    /// inter-event-time row is NaN with a note.
    pub simeval: Vec<crate::stats::simeval::SimEvalMeasure>,
}

/// Dwell times for validation: per test session the dwell of each rank (0 without a click),
/// and per rank the dwell times of training clicks.
#[derive(Debug, Clone, Default)]
pub struct Dwell {
    /// Per test session (in test-log order): dwell per rank (NaN or absent where unknown).
    pub test: Vec<Vec<f64>>,
    /// Per 0-based rank: dwell times of clicks in training.
    pub train_by_rank: Vec<Vec<f64>>,
}

/// Click pattern of a session: (length capped at MAX_RANK, click bitmask).
type Pattern = (u8, u64);

#[inline]
fn pattern(clicks: &[bool]) -> Pattern {
    let n = clicks.len().min(MAX_RANK);
    let mut m = 0u64;
    for (r, &c) in clicks[..n].iter().enumerate() {
        if c {
            m |= 1 << r;
        }
    }
    (n as u8, m)
}

/// Per-session statistics for the system check: (first-click RR, clicks, clicked).
#[inline]
fn session_stats(p: Pattern) -> [f64; 3] {
    let (_, m) = p;
    let rr = if m == 0 { 0.0 } else { 1.0 / (m.trailing_zeros() + 1) as f64 };
    [rr, m.count_ones() as f64, f64::from(u8::from(m != 0))]
}

/// Histograms of every measure from pattern counts, plus the CTR per rank
/// (clicks, impressions).
struct Hists {
    click_rank: Vec<f64>,
    clicks: Vec<f64>,
    first: Vec<f64>,
    last: Vec<f64>,
    abandon: Vec<f64>,
    ctr: Vec<(f64, f64)>,
}

fn hists(keys: &[Pattern], counts: &[f64], depth: usize) -> Hists {
    let mut h = Hists {
        click_rank: vec![0.0; depth],
        clicks: vec![0.0; depth + 1],
        first: vec![0.0; depth],
        last: vec![0.0; depth],
        abandon: vec![0.0; 2],
        ctr: vec![(0.0, 0.0); depth],
    };
    for (&(n, m), &w) in keys.iter().zip(counts) {
        if w == 0.0 {
            continue;
        }
        let n = n as usize;
        for r in 0..n {
            h.ctr[r].1 += w;
            if m >> r & 1 == 1 {
                h.ctr[r].0 += w;
                h.click_rank[r] += w;
            }
        }
        h.clicks[m.count_ones() as usize] += w;
        if m == 0 {
            h.abandon[1] += w;
        } else {
            h.abandon[0] += w;
            h.first[m.trailing_zeros() as usize] += w;
            h.last[63 - m.leading_zeros() as usize] += w;
        }
    }
    h
}

fn mean_of(hist: &[f64], value: impl Fn(usize) -> f64) -> f64 {
    let s: f64 = hist.iter().sum();
    if s <= 0.0 {
        return f64::NAN;
    }
    hist.iter().enumerate().map(|(k, &w)| w * value(k)).sum::<f64>() / s
}

fn shares(h: &[f64]) -> Vec<f64> {
    let s: f64 = h.iter().sum();
    h.iter().map(|x| if s > 0.0 { x / s } else { 0.0 }).collect()
}

/// The five click measures of two histograms sets: (name, real hist, sim hist, value of category).
fn measure_list<'a>(r: &'a Hists, s: &'a Hists) -> [(&'static str, &'a [f64], &'a [f64], fn(usize) -> f64); 5] {
    fn rank(k: usize) -> f64 {
        (k + 1) as f64
    }
    fn count(k: usize) -> f64 {
        k as f64
    }
    fn abandoned(k: usize) -> f64 {
        k as f64
    }
    [
        ("click_rank", &r.click_rank, &s.click_rank, rank),
        ("clicks_per_session", &r.clicks, &s.clicks, count),
        ("first_click_rank", &r.first, &s.first, rank),
        ("last_click_rank", &r.last, &s.last, rank),
        ("abandonment", &r.abandon, &s.abandon, abandoned),
    ]
}

/// Simulates `model` on every test session `replicates` times and compares.
pub fn validate(model: &dyn ClickModel, test: &ClickLog, dwell: Option<&Dwell>, cfg: &ValidateConfig) -> Result<Validation> {
    validate_with(&|i, rng, clicks| model.simulate(test.session(i).pairs, rng, clicks), test, dwell, cfg)
}

/// A simulated user for [`validate_with`]: fills `clicks` (one flag per result of test
/// session `i`) from the stream `rng`.
pub type SimulateSession<'a> = dyn Fn(usize, &mut crate::rng::Stream, &mut Vec<bool>) + Sync + 'a;

/// [`validate`] with any simulated user: `simulate(i, rng, clicks)` simulates one session on
/// the result list of test session `i` (used for users that are not click models, such as a
/// user fitted from a study log, [`crate::study::validate`]).
pub fn validate_with(simulate: &SimulateSession, test: &ClickLog, dwell: Option<&Dwell>, cfg: &ValidateConfig) -> Result<Validation> {
    cfg.validate()?;
    if test.is_empty() {
        return Err(Error::Invalid("no test sessions to validate on".into()));
    }
    let mut tally = Tally { depth: test.max_len(), n: test.len(), ..Tally::default() };
    // Real patterns.
    for s in test.iter() {
        tally.add_real(s.clicks);
    }
    // Simulated patterns and per-session sums of the system metrics, in parallel chunks.
    const CHUNK: usize = 4096;
    let n = test.len();
    let with_dwell = dwell.is_some_and(|d| d.test.len() == n && d.train_by_rank.iter().any(|v| !v.is_empty()));
    let pooled_train: Vec<f64> = dwell.map(|d| d.train_by_rank.concat()).unwrap_or_default();
    let parts: Vec<(HashMap<Pattern, f64>, Vec<[f64; 3]>, Vec<f64>)> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut pats: HashMap<Pattern, f64> = HashMap::new();
            let mut stats = Vec::with_capacity(CHUNK);
            let mut dw = Vec::new();
            let mut clicks = Vec::new();
            for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                let mut acc = [0.0; 3];
                for k in 0..cfg.replicates {
                    let mut rng = crate::rng::stream(cfg.seed, &[i as u64, k as u64]);
                    simulate(i, &mut rng, &mut clicks);
                    let p = pattern(&clicks);
                    *pats.entry(p).or_insert(0.0) += 1.0;
                    let st = session_stats(p);
                    for j in 0..3 {
                        acc[j] += st[j];
                    }
                    if with_dwell {
                        let d = dwell.expect("dwell");
                        for (r, &c) in clicks.iter().enumerate() {
                            if c {
                                let pool = d.train_by_rank.get(r).filter(|v| !v.is_empty()).unwrap_or(&pooled_train);
                                dw.push(pool[rng.random_range(0..pool.len())]);
                            }
                        }
                    }
                }
                stats.push(acc.map(|x| x / cfg.replicates as f64));
            }
            (pats, stats, dw)
        })
        .collect();
    let mut sim_stats: Vec<[f64; 3]> = Vec::with_capacity(n);
    let mut sim_dwell: Vec<f64> = Vec::new();
    for (p, st, dw) in parts {
        for (k, v) in p {
            *tally.sim.entry(k).or_insert(0.0) += v;
        }
        sim_stats.extend(st);
        sim_dwell.extend(dw);
    }
    let real_dwell = with_dwell.then(|| {
        let d = dwell.expect("dwell");
        let mut real_d: Vec<f64> = Vec::new();
        for (i, s) in test.iter().enumerate() {
            for (r, &c) in s.clicks.iter().enumerate() {
                // Clicks without a known dwell (NaN: e.g. the session's last click) are left out.
                match d.test[i].get(r) {
                    Some(&t) if c && t.is_finite() => real_d.push(t),
                    _ => {}
                }
            }
        }
        (real_d, sim_dwell)
    });
    let (system_queries, system) = system_check(test, &sim_stats, cfg);
    finish(tally, real_dwell, (system_queries, system), cfg)
}

/// The click patterns of a validation's real and simulated sessions, counted (what every
/// measure, interval and SimEval-IR row is computed from), with the longest test session and
/// the number of test sessions. Counts are whole numbers, so tallies of parts (the shards of
/// a sharded validation, [`super::sharded::validate`]) add up to the same bits in any order.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    real: HashMap<Pattern, f64>,
    sim: HashMap<Pattern, f64>,
    /// Results of the longest test session.
    pub depth: usize,
    /// Test sessions.
    pub n: usize,
}

impl Tally {
    /// Counts one real test session's clicks.
    pub fn add_real(&mut self, clicks: &[bool]) {
        *self.real.entry(pattern(clicks)).or_insert(0.0) += 1.0;
    }

    /// Counts one simulated session's clicks; returns its system-check statistics
    /// (first-click reciprocal rank, clicks, clicked).
    pub fn add_sim(&mut self, clicks: &[bool]) -> [f64; 3] {
        let p = pattern(clicks);
        *self.sim.entry(p).or_insert(0.0) += 1.0;
        session_stats(p)
    }

    /// Adds another part's counts.
    pub fn merge(&mut self, other: Tally) {
        for (k, v) in other.real {
            *self.real.entry(k).or_insert(0.0) += v;
        }
        for (k, v) in other.sim {
            *self.sim.entry(k).or_insert(0.0) += v;
        }
        self.depth = self.depth.max(other.depth);
        self.n += other.n;
    }
}

/// The system-check statistics of one real session (first-click reciprocal rank, clicks,
/// clicked).
pub fn real_stats(clicks: &[bool]) -> [f64; 3] {
    session_stats(pattern(clicks))
}

/// One logged result list of a query in the system-level check: its test sessions, and the
/// sums (in test-session order) of their real and of their simulated statistics (the
/// simulated one of a session is the mean over its replicates).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ListSums {
    /// Test sessions that showed the list.
    pub sessions: usize,
    /// Sum of the sessions' real statistics.
    pub real: [f64; 3],
    /// Sum of the sessions' simulated statistics.
    pub sim: [f64; 3],
}

impl ListSums {
    /// Adds one session.
    pub fn add(&mut self, real: [f64; 3], sim: [f64; 3]) {
        self.sessions += 1;
        for m in 0..3 {
            self.real[m] += real[m];
            self.sim[m] += sim[m];
        }
    }
}

/// [`validate_with`] from its parts: the pattern tally, the real and simulated dwell times
/// (when compared) and the system check.
pub fn finish(
    tally: Tally,
    dwell: Option<(Vec<f64>, Vec<f64>)>,
    (system_queries, system): (usize, Vec<SystemCheck>),
    cfg: &ValidateConfig,
) -> Result<Validation> {
    cfg.validate()?;
    if tally.n == 0 {
        return Err(Error::Invalid("no test sessions to validate on".into()));
    }
    let depth = tally.depth.clamp(1, MAX_RANK);
    let n = tally.n;
    let (real, sim) = (tally.real, tally.sim);
    // One ordered support of patterns for both.
    let mut keys: Vec<Pattern> = real.keys().chain(sim.keys()).copied().collect();
    keys.sort_unstable();
    keys.dedup();
    let rc: Vec<f64> = keys.iter().map(|k| real.get(k).copied().unwrap_or(0.0)).collect();
    let sc: Vec<f64> = keys.iter().map(|k| sim.get(k).copied().unwrap_or(0.0)).collect();
    let (nr, ns) = (rc.iter().sum::<f64>() as u64, sc.iter().sum::<f64>() as u64);
    let hr = hists(&keys, &rc, depth);
    let hs = hists(&keys, &sc, depth);

    // Bootstrap replicates: per measure (tv, ks, difference); per rank the CTR difference.
    let boots: Vec<(Vec<[f64; 3]>, Vec<f64>)> = (0..cfg.bootstrap)
        .into_par_iter()
        .map(|b| {
            let mut rng = crate::rng::stream(cfg.seed, &[u64::MAX, b as u64]);
            let (mut r, mut s) = (Vec::new(), Vec::new());
            multinomial(nr, &rc, &mut rng, &mut r);
            multinomial(ns, &sc, &mut rng, &mut s);
            let (br, bs) = (hists(&keys, &r, depth), hists(&keys, &s, depth));
            let m = measure_list(&br, &bs).map(|(_, x, y, v)| [total_variation(x, y), ks_discrete(x, y), mean_of(y, v) - mean_of(x, v)]);
            let ctr = (0..depth).map(|k| ratio(bs.ctr[k]) - ratio(br.ctr[k])).collect();
            (m.to_vec(), ctr)
        })
        .collect();
    let interval = |f: &dyn Fn(&(Vec<[f64; 3]>, Vec<f64>)) -> f64| -> (f64, f64) {
        let v: Vec<f64> = boots.iter().map(f).collect();
        percentile_interval(&v, cfg.level)
    };
    let mut measures = Vec::new();
    for (j, (name, x, y, v)) in measure_list(&hr, &hs).into_iter().enumerate() {
        let (tl, tu) = interval(&|b| b.0[j][0]);
        let (kl, ku) = interval(&|b| b.0[j][1]);
        let (dl, du) = interval(&|b| b.0[j][2]);
        let categories: Vec<String> = match name {
            "clicks_per_session" => (0..x.len()).map(|k| k.to_string()).collect(),
            "abandonment" => vec!["clicked".into(), "abandoned".into()],
            _ => (1..=x.len()).map(|k| k.to_string()).collect(),
        };
        let (mr, ms) = (mean_of(x, v), mean_of(y, v));
        measures.push(Measure {
            measure: name.to_string(),
            real: mr,
            simulated: ms,
            difference: ms - mr,
            difference_lower: dl,
            difference_upper: du,
            tv: total_variation(x, y),
            tv_lower: tl,
            tv_upper: tu,
            ks: ks_discrete(x, y),
            ks_lower: kl,
            ks_upper: ku,
            categories,
            real_hist: shares(x),
            sim_hist: shares(y),
            real_values: Vec::new(),
            sim_values: Vec::new(),
        });
    }
    if let Some((real_d, sim_d)) = dwell {
        measures.push(dwell_measure(real_d, sim_d, cfg)?);
    }
    let ctr = (0..depth)
        .map(|k| {
            let (lo, hi) = interval(&|b| b.1[k]);
            Measure::difference_only(format!("ctr@{}", k + 1), ratio(hr.ctr[k]), ratio(hs.ctr[k]), (lo, hi))
        })
        .collect();
    let simeval = simeval_measures(&keys, &rc, &sc);
    Ok(Validation {
        test_sessions: n,
        simulated_sessions: n * cfg.replicates,
        replicates: cfg.replicates,
        bootstrap: cfg.bootstrap,
        level: cfg.level,
        measures,
        ctr,
        system_queries,
        system_rankers: if system.is_empty() { 0 } else { cfg.rankers },
        system,
        simeval,
    })
}

/// SimEval-IR's measures ([`crate::stats::simeval::compare`]) of the simulated against the
/// real sessions, from their click patterns: click depth (pooled over clicks), session
/// length (events: the query and its clicks; pooled over sessions), action types (pooled
/// over events). Neither side has event times here (simulated clicks have none), so the
/// inter-event-time row is NaN with a note. Ranks beyond 64 are not seen (as for every measure).
fn simeval_measures(keys: &[Pattern], real: &[f64], sim: &[f64]) -> Vec<crate::stats::simeval::SimEvalMeasure> {
    use crate::stats::simeval::{compare, SessionSample};
    let sample = |counts: &[f64]| {
        let mut s = SessionSample::new();
        let mut ranks = Vec::new();
        for (&(_, m), &w) in keys.iter().zip(counts) {
            if w > 0.0 {
                ranks.clear();
                ranks.extend((0..64u32).filter(|r| m >> r & 1 == 1).map(|r| r + 1));
                s.push(&ranks, None, w as u64);
            }
        }
        s
    };
    compare(&sample(real), &sample(sim))
}

fn ratio((a, b): (f64, f64)) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        f64::NAN
    }
}

/// KS between dwell samples, with a bootstrap over the pooled distinct values.
fn dwell_measure(mut real: Vec<f64>, mut sim: Vec<f64>, cfg: &ValidateConfig) -> Result<Measure> {
    if real.is_empty() || sim.is_empty() {
        return Err(Error::Invalid("dwell: the test log has dwell times but no clicks to compare".into()));
    }
    real.sort_by(f64::total_cmp);
    sim.sort_by(f64::total_cmp);
    let mut support: Vec<f64> = real.iter().chain(&sim).copied().collect();
    support.sort_by(f64::total_cmp);
    support.dedup();
    let counts = |v: &[f64]| -> Vec<f64> {
        let mut c = vec![0.0; support.len()];
        let mut j = 0;
        for &x in v {
            while support[j] < x {
                j += 1;
            }
            c[j] += 1.0;
        }
        c
    };
    let (rc, sc) = (counts(&real), counts(&sim));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let boots: Vec<(f64, f64)> = (0..cfg.bootstrap)
        .into_par_iter()
        .map(|b| {
            let mut rng = crate::rng::stream(cfg.seed, &[u64::MAX - 1, b as u64]);
            let (mut r, mut s) = (Vec::new(), Vec::new());
            multinomial(real.len() as u64, &rc, &mut rng, &mut r);
            multinomial(sim.len() as u64, &sc, &mut rng, &mut s);
            let m = |c: &[f64]| c.iter().zip(&support).map(|(w, x)| w * x).sum::<f64>() / c.iter().sum::<f64>();
            (ks_discrete(&r, &s), m(&s) - m(&r))
        })
        .collect();
    let (kl, ku) = percentile_interval(&boots.iter().map(|b| b.0).collect::<Vec<_>>(), cfg.level);
    let (dl, du) = percentile_interval(&boots.iter().map(|b| b.1).collect::<Vec<_>>(), cfg.level);
    let (mr, ms) = (mean(&real), mean(&sim));
    Ok(Measure {
        measure: "dwell".into(),
        real: mr,
        simulated: ms,
        difference: ms - mr,
        difference_lower: dl,
        difference_upper: du,
        tv: f64::NAN,
        tv_lower: f64::NAN,
        tv_upper: f64::NAN,
        ks: ks_two_sample(&real, &sim),
        ks_lower: kl,
        ks_upper: ku,
        categories: Vec::new(),
        real_hist: Vec::new(),
        sim_hist: Vec::new(),
        real_values: real,
        sim_values: sim,
    })
}

/// Rankers from logged result-list variants; Kendall tau-b of real against model scores.
fn system_check(test: &ClickLog, sim_stats: &[[f64; 3]], cfg: &ValidateConfig) -> (usize, Vec<SystemCheck>) {
    // Per query: distinct lists with their sessions' sums, in first-seen order.
    let mut lists: HashMap<u32, Vec<(&[u32], ListSums)>> = HashMap::new();
    for (i, s) in test.iter().enumerate() {
        let v = lists.entry(s.query).or_default();
        let at = match v.iter().position(|(l, _)| *l == s.pairs) {
            Some(at) => at,
            None => {
                v.push((s.pairs, ListSums::default()));
                v.len() - 1
            }
        };
        v[at].1.add(real_stats(s.clicks), sim_stats[i]);
    }
    let mut queries: Vec<(u64, Vec<ListSums>)> = lists.into_iter().map(|(q, v)| (u64::from(q), v.into_iter().map(|(_, s)| s).collect())).collect();
    queries.sort_unstable_by_key(|(q, _)| *q);
    system_from_lists(queries, cfg)
}

/// The system-level check from each query's list sums: `queries` holds (query key, lists in
/// first-seen order) in the order of the keys (the key is the query's number in the log's
/// vocabulary, the order queries were first seen; it seeds which list a ranker shows). Lists
/// of fewer than `min_list_sessions` sessions are left out, then queries with fewer than two
/// lists. Returns the queries used and the checks.
pub fn system_from_lists(queries: Vec<(u64, Vec<ListSums>)>, cfg: &ValidateConfig) -> (usize, Vec<SystemCheck>) {
    let queries: Vec<(u64, Vec<ListSums>)> = queries
        .into_iter()
        .map(|(q, v)| (q, v.into_iter().filter(|l| l.sessions >= cfg.min_list_sessions.max(1)).collect::<Vec<_>>()))
        .filter(|(_, v)| v.len() >= 2)
        .collect();
    if queries.is_empty() || cfg.rankers < 2 {
        return (queries.len(), Vec::new());
    }
    let names = ["first_click_rr", "clicks", "click_through"];
    let mut real = vec![vec![0.0; cfg.rankers]; 3];
    let mut model = vec![vec![0.0; cfg.rankers]; 3];
    for k in 0..cfg.rankers {
        for (q, v) in &queries {
            let pick = (crate::rng::derive_key(cfg.seed, &[2, k as u64, *q]) % v.len() as u64) as usize;
            let l = &v[pick];
            for m in 0..3 {
                real[m][k] += l.real[m] / l.sessions as f64 / queries.len() as f64;
                model[m][k] += l.sim[m] / l.sessions as f64 / queries.len() as f64;
            }
        }
    }
    let checks = (0..3)
        .map(|m| SystemCheck {
            metric: names[m],
            kendall_tau: crate::stats::kendall_tau_b(&real[m], &model[m]),
            real: real[m].clone(),
            model: model[m].clone(),
        })
        .collect();
    (queries.len(), checks)
}

/// Okabe–Ito blue (real sessions) and orange (simulated): distinguishable with any colour vision.
const REAL_COLOUR: plotters::style::RGBColor = plotters::style::RGBColor(0x00, 0x72, 0xB2);
const SIM_COLOUR: plotters::style::RGBColor = plotters::style::RGBColor(0xE6, 0x9F, 0x00);

/// An SVG of real against simulated sessions, one panel per measure (shares of sessions or
/// clicks per category as paired bars; CTR per rank; dwell as ECDFs), the distances in each
/// panel's title, and one legend above the panels.
pub fn plot_svg(v: &Validation, title: &str) -> Result<String> {
    use crate::write::plot::{fit, plot_err, ticked_chart, y_area, Ticks, DESC_FONT, TICK_FONT};
    use plotters::prelude::*;
    let dwell = v.measures.iter().find(|m| m.measure == "dwell");
    let panels = v.measures.iter().filter(|m| m.measure != "dwell").count() + 1 + usize::from(dwell.is_some());
    let rows = panels.div_ceil(2);
    let (w, h) = (1100u32, 60 + 300 * rows as u32);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (top, body) = root.split_vertically(60);
        top.draw(&Text::new(fit(title, w as f64 - 40.0, 20.0), (20, 8), ("sans-serif", 20).into_font())).map_err(plot_err)?;
        for (i, (label, colour)) in [("real (test sessions)", REAL_COLOUR), ("simulated", SIM_COLOUR)].into_iter().enumerate() {
            let x = 20 + 230 * i as i32;
            top.draw(&Rectangle::new([(x, 38), (x + 18, 52)], colour.filled())).map_err(plot_err)?;
            top.draw(&Text::new(label.to_string(), (x + 24, 38), ("sans-serif", 15).into_font())).map_err(plot_err)?;
        }
        let areas = body.split_evenly((rows, 2));
        let mut k = 0;
        for m in v.measures.iter().filter(|m| m.measure != "dwell") {
            let (xdesc, ydesc) = match m.measure.as_str() {
                "click_rank" => ("rank of the click", "share of clicks"),
                "clicks_per_session" => ("clicks in the session", "share of sessions"),
                "first_click_rank" => ("rank of the first click", "share of sessions with a click"),
                "last_click_rank" => ("rank of the last click", "share of sessions with a click"),
                "visited_depth" => ("deepest rank visited", "share of searches"),
                _ => ("session", "share of sessions"),
            };
            let n = m.categories.len().max(1);
            let ymax = m.real_hist.iter().chain(&m.sim_hist).copied().fold(0.0f64, f64::max).max(1e-9) * 1.1;
            let cats = m.categories.clone();
            // Category labels: every k-th, as many as fit side by side.
            let widest = cats.iter().map(|c| crate::write::plot::text_width(c, TICK_FONT)).fold(0.0, f64::max) + 10.0;
            let every = ((widest * n as f64 / 420.0).ceil() as usize).max(1);
            let xt = Ticks { lo: -0.5, hi: n as f64 - 0.5, points: (0..n).step_by(every).map(|i| i as f64).collect(), step: 1.0 };
            let yt = Ticks::new(0.0, ymax, 200.0, false, false);
            let mut chart = ChartBuilder::on(&areas[k])
                .caption(fit(&format!("{}: TV {:.3}, KS {:.3}", m.measure, m.tv, m.ks), 520.0, 15.0), ("sans-serif", 15))
                .margin(10)
                .x_label_area_size(44)
                .y_label_area_size(y_area(&yt))
                .build_cartesian_2d(xt.range(), yt.range())
                .map_err(plot_err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(xt.points.len())
                .y_labels(yt.points.len())
                .x_label_formatter(&|x| cats.get(x.round().max(0.0) as usize).cloned().unwrap_or_default())
                .y_label_formatter(&|y| yt.label(*y))
                .label_style(("sans-serif", TICK_FONT))
                .axis_desc_style(("sans-serif", DESC_FONT))
                .x_desc(xdesc)
                .y_desc(ydesc)
                .draw()
                .map_err(plot_err)?;
            for (hist, colour, off) in [(&m.real_hist, REAL_COLOUR, -0.4), (&m.sim_hist, SIM_COLOUR, 0.0)] {
                chart
                    .draw_series(hist.iter().enumerate().map(|(i, &y)| Rectangle::new([(i as f64 + off, 0.0), (i as f64 + off + 0.4, y)], colour.filled())))
                    .map_err(plot_err)?;
            }
            k += 1;
        }
        // CTR per rank.
        {
            let n = v.ctr.len().max(1);
            let ymax = v.ctr.iter().flat_map(|c| [c.real, c.simulated]).filter(|x| x.is_finite()).fold(0.0f64, f64::max).max(1e-9) * 1.1;
            let xt = Ticks::new(0.5, n as f64 + 0.5, 420.0, true, true);
            let yt = Ticks::new(0.0, ymax, 200.0, false, false);
            let mut chart = ticked_chart(&areas[k], ("click-through rate per rank", 15.0), 10, (&xt, &yt), ("rank", "clicks / impressions"), true)?;
            for (colour, get) in [(REAL_COLOUR, (|c: &Measure| c.real) as fn(&Measure) -> f64), (SIM_COLOUR, |c: &Measure| c.simulated)] {
                let pts: Vec<(f64, f64)> = v.ctr.iter().enumerate().filter(|(_, c)| get(c).is_finite()).map(|(i, c)| ((i + 1) as f64, get(c))).collect();
                chart.draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2))).map_err(plot_err)?;
                chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 4, colour.filled()))).map_err(plot_err)?;
            }
            k += 1;
        }
        if let Some(d) = dwell {
            let hi = d.real_values.last().copied().unwrap_or(1.0).max(d.sim_values.last().copied().unwrap_or(1.0)).max(1e-9);
            let xt = Ticks::new(0.0, hi, 420.0, true, false);
            let yt = Ticks::new(0.0, 1.0, 200.0, false, false);
            let title = format!("dwell: KS {:.3}", d.ks);
            let mut chart = ticked_chart(&areas[k], (&title, 15.0), 10, (&xt, &yt), ("dwell time of a click (seconds)", "P(dwell <= x)"), true)?;
            for (vals, colour) in [(&d.real_values, REAL_COLOUR), (&d.sim_values, SIM_COLOUR)] {
                let n = vals.len();
                let step = (n / 500).max(1);
                let mut pts: Vec<(f64, f64)> = (0..n).step_by(step).map(|i| (vals[i], (i + 1) as f64 / n as f64)).collect();
                if let Some(&l) = vals.last() {
                    pts.push((l, 1.0));
                }
                chart.draw_series(LineSeries::new(pts, colour.stroke_width(2))).map_err(plot_err)?;
            }
        }
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clickmodels::{Ctr, CtrKind, Dbn};

    fn log_of(rows: &[(u32, &[u32], &[bool])]) -> ClickLog {
        let mut l = ClickLog::new();
        for (q, p, c) in rows {
            l.push(*q, p, c);
        }
        l
    }

    #[test]
    fn histograms_by_hand() {
        // Patterns: (clicks at 1 and 3), (none), (click at 2): click ranks 1, 2, 3 once each;
        // clicks per session 0, 1, 2 once each; first clicks at 1 and 2, last at 3 and 2;
        // one abandoned session of three; CTR at rank 1: 1/3.
        let log = log_of(&[(0, &[0, 1, 2], &[true, false, true]), (0, &[0, 1, 2], &[false; 3]), (0, &[0, 1, 2], &[false, true, false])]);
        let mut keys = Vec::new();
        let mut counts = Vec::new();
        for s in log.iter() {
            keys.push(pattern(s.clicks));
            counts.push(1.0);
        }
        let h = hists(&keys, &counts, 3);
        assert_eq!(h.click_rank, [1.0, 1.0, 1.0]);
        assert_eq!(h.clicks, [1.0, 1.0, 1.0, 0.0]);
        assert_eq!(h.first, [1.0, 1.0, 0.0]);
        assert_eq!(h.last, [0.0, 1.0, 1.0]);
        assert_eq!(h.abandon, [2.0, 1.0]);
        assert_eq!(h.ctr[0], (1.0, 3.0));
    }

    /// A model that reproduces the data-generating model gives distances near 0; a wrong one
    /// (a rank-independent CTR against a cascade) gives large ones whose intervals exclude 0.
    #[test]
    fn right_model_is_close_wrong_model_is_far() {
        let n = 20;
        let truth = Dbn { attractiveness: (0..n).map(|i| 0.2 + 0.6 * (i % 5) as f64 / 5.0).collect(), satisfaction: vec![0.6; n], gamma: 0.8 };
        let mut test = ClickLog::new();
        let mut clicks = Vec::new();
        let mut rng = crate::rng::stream(1, &[]);
        for i in 0..20_000u32 {
            let q = i % 2;
            let pairs: Vec<u32> = (0..10).map(|r| q * 10 + (r + i / 2 % 3) % 10).collect();
            truth.simulate(&pairs, &mut rng, &mut clicks);
            test.push(q, &pairs, &clicks);
        }
        let cfg = ValidateConfig { replicates: 2, bootstrap: 100, ..Default::default() };
        let good = validate(&truth, &test, None, &cfg).unwrap();
        let flat = Ctr { kind: CtrKind::Global, ctr: vec![0.1] };
        let bad = validate(&flat, &test, None, &cfg).unwrap();
        for (g, b) in good.measures.iter().zip(&bad.measures) {
            // Sampling noise of TV over ~10 categories at 20,000 vs 40,000 sessions is below 0.02.
            assert!(g.tv < 0.02 && g.ks < 0.02, "{g:?}");
            assert!(b.tv_lower > 0.05 || b.measure == "abandonment" && b.tv_lower > 0.01, "{b:?}");
        }
        // Three result lists per query: both queries qualify; the true model orders rankers well.
        assert_eq!(good.system_queries, 2);
        assert_eq!(good.system.len(), 3);
        assert!(good.system[0].kendall_tau.is_finite());
        // Deterministic whatever the thread count.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let again = pool.install(|| validate(&truth, &test, None, &cfg).unwrap());
        assert_eq!(format!("{again:?}"), format!("{good:?}"));
        let svg = plot_svg(&good, "DBN on its own sessions").unwrap();
        assert!(svg.contains("<svg") && svg.contains("click_rank: TV") && svg.contains("simulated"));
    }

    #[test]
    fn dwell_uses_training_dwell_per_rank() {
        // Every session clicks rank 1; training dwell at rank 1 is always 30 s, test dwell 30 s:
        // KS 0. With test dwell 10 s, KS 1.
        let log = log_of(&[(0, &[0, 1], &[true, false]), (0, &[0, 1], &[true, false])]);
        let always = Ctr { kind: CtrKind::Rank, ctr: vec![1.0, 0.0] };
        let mut d = Dwell { test: vec![vec![30.0, 0.0]; 2], train_by_rank: vec![vec![30.0], vec![]] };
        let cfg = ValidateConfig { replicates: 3, bootstrap: 20, ..Default::default() };
        let v = validate(&always, &log, Some(&d), &cfg).unwrap();
        let m = v.measures.iter().find(|m| m.measure == "dwell").unwrap();
        assert_eq!((m.ks, m.real, m.simulated), (0.0, 30.0, 30.0));
        d.test = vec![vec![10.0, 0.0]; 2];
        let v = validate(&always, &log, Some(&d), &cfg).unwrap();
        assert_eq!(v.measures.iter().find(|m| m.measure == "dwell").unwrap().ks, 1.0);
    }
}
