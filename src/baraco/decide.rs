//! The switching problem (Algorithm 2) and the difference estimation problem (Algorithm 3),
//! plus the Manual Thresholding (MT) baseline on point estimates.

use super::log::{ProductionLog, Ranking};
use super::metrics::{evaluated_list, expected_metric, SwitchMetric, Unseen};
use super::posterior::{Density, Posteriors};
use super::sampling::Sampler;
use crate::error::{check_probability, Error, Result};
use rayon::prelude::*;

/// Settings of a BARACO comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// How much worse the candidate may be (paper: 0.01).
    pub epsilon: f64,
    /// Allowed probability of being more than epsilon worse (switch when P(safe) >= 1 - delta).
    pub delta: f64,
    /// Joint samples K (paper: 1000).
    pub samples: usize,
    /// Results per SERP that the metric looks at.
    pub depth: usize,
    /// Metric.
    pub metric: SwitchMetric,
    /// Sampler for the posteriors.
    pub sampler: Sampler,
    /// Master seed.
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config { epsilon: 0.01, delta: 0.05, samples: 1000, depth: 10, metric: SwitchMetric::RrMetric, sampler: Sampler::InverseCdf, seed: 1 }
    }
}

/// Most ranks BARACO models (`depth`, `--depth`).
pub const MAX_DEPTH: u64 = 1_000;

impl Config {
    /// Rejects unusable settings, naming the key.
    pub fn validate(&self) -> Result<()> {
        check_probability("baraco", "delta", self.delta)?;
        if !self.epsilon.is_finite() {
            return Err(Error::config("baraco", "epsilon", "must be finite"));
        }
        if self.samples == 0 {
            return Err(Error::config("baraco", "samples", "must be at least 1"));
        }
        if self.depth == 0 {
            return Err(Error::config("baraco", "depth", "must be at least 1"));
        }
        crate::limits::check_usize("baraco", "samples", self.samples, crate::limits::MAX_SAMPLES, "Monte-Carlo samples")?;
        crate::limits::check_usize("baraco", "depth", self.depth, MAX_DEPTH, "ranks")?;
        if let Sampler::MetropolisHastings { proposal_variance, .. } = self.sampler {
            if !(proposal_variance > 0.0 && proposal_variance.is_finite()) {
                return Err(Error::config("baraco", "sampler.proposal_variance", "must be > 0"));
            }
        }
        Ok(())
    }
}

/// BARACO's answer for one candidate.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Answer {
    /// Candidate name.
    pub candidate: String,
    /// p(M_c + epsilon >= M_p | L), Algorithm 2.
    pub p_safe: f64,
    /// E[M_c - M_p | L], Algorithm 3.
    pub expected_diff: f64,
    /// Switch: p_safe >= 1 - delta.
    pub switch: bool,
    /// Share of the candidate's evaluated results (over logged queries) never shown in the log.
    pub unseen_share: f64,
}

/// p(q): share of the log's sessions per query.
pub fn query_weights(log: &ProductionLog) -> Vec<f64> {
    let n = log.len().max(1) as f64;
    log.query_sessions.iter().map(|&c| c as f64 / n).collect()
}

/// Lists cut at `depth` (unseen documents kept).
fn cut(r: &Ranking, depth: usize) -> Vec<Vec<u32>> {
    r.lists.iter().map(|l| l[..l.len().min(depth)].to_vec()).collect()
}

/// Share of evaluated results, over queries with sessions, that are unseen.
pub fn unseen_share(log: &ProductionLog, r: &Ranking, depth: usize) -> f64 {
    let (mut n, mut u) = (0usize, 0usize);
    for (q, l) in r.lists.iter().enumerate() {
        if log.query_sessions[q] == 0 {
            continue;
        }
        for &p in &l[..l.len().min(depth)] {
            n += 1;
            u += usize::from(!log.seen[p as usize]);
        }
    }
    if n == 0 {
        0.0
    } else {
        u as f64 / n as f64
    }
}

/// The evaluated lists of production (index 0) and every candidate: per logged query with
/// sessions, its weight p(q) and its top `depth` as slots into `used` (the pairs any list
/// shows, in first-use order).
pub(crate) struct EvalLists {
    /// Pair of every slot.
    pub used: Vec<u32>,
    /// Per ranker (production first), per query with sessions: (p(q), slots in rank order).
    pub lists: Vec<Vec<(f64, Vec<u32>)>>,
}

impl EvalLists {
    /// Lists of `production` and `candidates` cut at `depth` (unseen documents kept).
    pub(crate) fn new(log: &ProductionLog, production: &Ranking, candidates: &[Ranking], depth: usize) -> Self {
        let npairs = log.pairs.len();
        let weights = query_weights(log);
        let mut slot = vec![u32::MAX; npairs];
        let mut used: Vec<u32> = Vec::new();
        let lists: Vec<Vec<Vec<u32>>> = std::iter::once(production)
            .chain(candidates)
            .map(|r| {
                let mut l = cut(r, depth);
                for (q, list) in l.iter_mut().enumerate() {
                    if weights[q] == 0.0 {
                        list.clear();
                    }
                }
                l
            })
            .collect();
        for r in &lists {
            for l in r {
                for &p in l {
                    if slot[p as usize] == u32::MAX {
                        slot[p as usize] = used.len() as u32;
                        used.push(p);
                    }
                }
            }
        }
        let lists = lists
            .into_iter()
            .map(|r| {
                r.into_iter()
                    .enumerate()
                    .filter(|(q, l)| weights[*q] > 0.0 && !l.is_empty())
                    .map(|(q, l)| (weights[q], l.into_iter().map(|p| slot[p as usize]).collect()))
                    .collect()
            })
            .collect();
        EvalLists { used, lists }
    }

    /// Every ranker's `M = sum_q p(q) metric(q)` under each of `k` joint draws;
    /// `metric(j, slots)` is the metric of one evaluated list under draw `j`.
    pub(crate) fn per_draw(&self, k: usize, metric: impl Fn(usize, &[u32]) -> f64 + Sync) -> Vec<Vec<f64>> {
        (0..k).into_par_iter().map(|j| self.lists.iter().map(|r| r.iter().map(|(w, l)| w * metric(j, l)).sum::<f64>()).collect()).collect()
    }
}

/// Algorithms 2 and 3 from the rankers' metric under every joint draw (`per_k[k][0]` is
/// production's, `per_k[k][c + 1]` candidate c's).
pub(crate) fn answers(log: &ProductionLog, per_k: &[Vec<f64>], candidates: &[Ranking], cfg: &Config) -> Vec<Answer> {
    let k = per_k.len();
    let mut out = Vec::with_capacity(candidates.len());
    for (c, cand) in candidates.iter().enumerate() {
        let (mut safe, mut diff) = (0usize, 0.0);
        for m in per_k {
            safe += usize::from(m[c + 1] + cfg.epsilon >= m[0]);
            diff += m[c + 1] - m[0];
        }
        let p_safe = safe as f64 / k as f64;
        out.push(Answer {
            candidate: cand.name.clone(),
            p_safe,
            expected_diff: diff / k as f64,
            switch: p_safe >= 1.0 - cfg.delta,
            unseen_share: unseen_share(log, cand, cfg.depth),
        });
    }
    out
}

/// Algorithms 2 and 3 for every candidate against `production`, from one set of K joint
/// samples of every pair the rankers show. Deterministic for a seed whatever the threads.
pub fn compare(log: &ProductionLog, post: &Posteriors, production: &Ranking, candidates: &[Ranking], cfg: &Config) -> Result<Vec<Answer>> {
    cfg.validate()?;
    let npairs = log.pairs.len();
    if post.a.len() != npairs {
        return Err(Error::Invalid(format!("posteriors cover {} pairs but the log has {npairs}", post.a.len())));
    }
    let ev = EvalLists::new(log, production, candidates, cfg.depth);
    let k = cfg.samples;
    // Draws per slot: [slot][k] for a, then s.
    let draws: Vec<(Vec<f64>, Vec<f64>)> = ev
        .used
        .par_iter()
        .map(|&p| {
            if post.mixture.is_some() {
                return draw_mixture(post, p as usize, cfg, k);
            }
            let mut a = vec![0.0; k];
            let mut s = vec![0.0; k];
            for (which, (fb, out)) in [(&post.a[p as usize], &mut a), (&post.s[p as usize], &mut s)].into_iter().enumerate() {
                let mut rng = crate::rng::stream(cfg.seed, &[p as u64, which as u64]);
                if fb.factors.is_empty() && fb.alpha == 1.0 && fb.beta == 1.0 {
                    use rand::Rng;
                    for x in out.iter_mut() {
                        *x = rng.random::<f64>();
                    }
                } else {
                    cfg.sampler.draw(&Density::new(fb), &mut rng, out);
                }
            }
            (a, s)
        })
        .collect();
    // Per sample k: every ranker's metric from the (a, s) of its slots.
    let per_k = ev.per_draw(k, |j, l| cfg.metric.value(l.iter().map(|&i| (draws[i as usize].0[j], draws[i as usize].1[j]))));
    Ok(answers(log, &per_k, candidates, cfg))
}

/// K joint draws of pair `p`'s (a, s) under a mixture prior: the component of each draw from
/// the posterior component weights (a and s share it), then a and s from that component's
/// posteriors. Deterministic per (seed, pair).
fn draw_mixture(post: &Posteriors, p: usize, cfg: &Config, k: usize) -> (Vec<f64>, Vec<f64>) {
    use rand::Rng;
    let comps = post.components(p);
    let mut rng = crate::rng::stream(cfg.seed, &[p as u64, 2]);
    let assign: Vec<usize> = (0..k)
        .map(|_| {
            let mut u = rng.random::<f64>();
            for (c, (w, _, _)) in comps.iter().enumerate() {
                if u < *w {
                    return c;
                }
                u -= w;
            }
            comps.len() - 1
        })
        .collect();
    let (mut a, mut s) = (vec![0.0; k], vec![0.0; k]);
    let mut buf = Vec::new();
    for (c, (_, fa, fs)) in comps.iter().enumerate() {
        let n = assign.iter().filter(|&&x| x == c).count();
        if n == 0 {
            continue;
        }
        for (which, (fb, out)) in [(fa, &mut a), (fs, &mut s)].into_iter().enumerate() {
            let mut rng = crate::rng::stream(cfg.seed, &[p as u64, which as u64, 3 + c as u64]);
            buf.resize(n, 0.0);
            cfg.sampler.draw(&Density::new(fb), &mut rng, &mut buf);
            let mut it = buf.iter();
            for (j, &x) in assign.iter().enumerate() {
                if x == c {
                    out[j] = *it.next().expect("n draws");
                }
            }
        }
    }
    (a, s)
}

/// Metric of a ranker from point values per pair: `unseen` says whether unseen documents are
/// condensed away (MT) or kept (ground truth, where every pair has a value).
pub fn point_metric(log: &ProductionLog, r: &Ranking, a: &[f64], s: &[f64], metric: SwitchMetric, depth: usize, unseen: Unseen) -> f64 {
    let weights = query_weights(log);
    let mut buf = Vec::new();
    let lists: Vec<Vec<u32>> = r
        .lists
        .iter()
        .map(|l| {
            evaluated_list(l, &log.seen, unseen, depth, &mut buf);
            buf.clone()
        })
        .collect();
    expected_metric(metric, &lists, &weights, a, s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baraco::{compute_posteriors, parse_rankings};

    fn setup() -> (ProductionLog, Vec<Ranking>) {
        // d1 is clicked and satisfying almost always; d2 is never clicked.
        let mut text = String::new();
        for _ in 0..200 {
            text.push_str("q\td1 d2 d3\t1 0 0\n");
        }
        let mut log = ProductionLog::parse(&text, "t").unwrap();
        let (r, _) = parse_rankings("p\tq\td1 d2 d3\nworse\tq\td2 d3 d1\nsame\tq\td1 d2 d3\nnew\tq\td9 d1 d2\n", "r", &mut log).unwrap();
        (log, r)
    }

    #[test]
    fn obvious_cases() {
        let (log, r) = setup();
        let post = compute_posteriors(&log, 0.9).unwrap();
        let cfg = Config { samples: 500, ..Config::default() };
        let ans = compare(&log, &post, &r[0], &r[1..], &cfg).unwrap();
        let worse = &ans[0];
        assert!(worse.p_safe < 0.01 && worse.expected_diff < -0.3 && !worse.switch, "{worse:?}");
        let same = &ans[1];
        assert_eq!(same.p_safe, 1.0);
        assert_eq!(same.expected_diff, 0.0);
        assert!(same.switch);
        // A candidate with an unseen document on top still gets an answer.
        let new = &ans[2];
        assert!((new.unseen_share - 1.0 / 3.0).abs() < 1e-12, "{new:?}");
        assert!(new.p_safe < 0.5 && new.expected_diff < 0.0 && new.expected_diff > -1.0, "{new:?}");
        // Deterministic whatever the thread count.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let again = pool.install(|| compare(&log, &post, &r[0], &r[1..], &cfg).unwrap());
        assert_eq!(again, ans);
    }

    #[test]
    fn expected_diff_matches_direct_integration() {
        // One query, production shows x only, candidate shows y only; both pure Beta posteriors:
        // E[M_c - M_p] = E[a_y]E[s_y] - E[a_x]E[s_x] by independence.
        let mut log = ProductionLog::new();
        let q = log.query_id("q");
        let (x, y) = (log.pair_id(q, "x"), log.pair_id(q, "y"));
        for i in 0..30 {
            log.push_session(q, &[x], &[i % 3 == 0]).unwrap();
            log.push_session(q, &[y], &[i % 2 == 0]).unwrap();
        }
        let post = compute_posteriors(&log, 0.9).unwrap();
        let p = Ranking { name: "p".into(), lists: vec![vec![x]] };
        let c = Ranking { name: "c".into(), lists: vec![vec![y]] };
        let mean = |f: &crate::baraco::FactoredBeta| f.alpha / (f.alpha + f.beta);
        let want = mean(&post.a[y as usize]) * mean(&post.s[y as usize]) - mean(&post.a[x as usize]) * mean(&post.s[x as usize]);
        let cfg = Config { samples: 20_000, ..Config::default() };
        let got = compare(&log, &post, &p, &[c], &cfg).unwrap()[0].expected_diff;
        assert!((got - want).abs() < 0.01, "{got} vs {want}");
    }

    #[test]
    fn bad_settings_name_the_key() {
        let e = Config { delta: 1.5, ..Config::default() }.validate().unwrap_err().to_string();
        assert!(e.contains("delta"), "{e}");
        let e = Config { samples: 0, ..Config::default() }.validate().unwrap_err().to_string();
        assert!(e.contains("samples"), "{e}");
    }
}
