//! Validation of a user fitted from a study log (`serpsim study fit`) against held-out
//! searches of the study (issue 16).
//!
//! The study's sessions are split into a training and a test part ([`split`]: by a hash of
//! the session id and the seed, so the split is the same on every run and machine). The user
//! fitted on the training part ([`super::fit::fit`], [`super::fit::Fit::profile`]) is run by
//! the engine's walk ([`crate::simulate::walk::walk`]) on the result list of every test search
//! (the documents its SERP pages showed, rank by rank, with their grades from the qrels), and
//! what it does is compared with what the participant did in that search:
//!
//! - **`visited_depth`**: the deepest rank visited, by the same pagination rule the fit counts
//!   (He et al. 2015 §4.2.1; the simulated user's examined depth), and per rank the share of
//!   searches visiting it (`visit@r`, the rank-visit profile v_r of the fit, not normalised);
//! - the click measures of `clicks validate` ([`crate::clickmodels::validate`]): click rank,
//!   clicks per search, first and last click rank, abandonment and the CTR per rank.
//!
//! Distances: total variation and Kolmogorov–Smirnov with bootstrap percentile intervals
//! (multinomial resampling of both histograms), as in `clicks validate`.

use super::fit::{fit, search_view, searches, Fit, FitOptions};
use super::log::{EventKind, StudyLog};
use crate::clickmodels::validate::{validate_with, Measure, ValidateConfig, Validation};
use crate::collection::trec::Qrels;
use crate::error::{Error, Result};
use crate::logs::{ClickLog, Vocab};
use crate::rng::{hash_str, mix64, unit};
use crate::simulate::one_list_world;
use crate::simulate::walk::{walk, FixedChoice, Scratch, Step, SystemOnTopic};
use crate::stats::distance::{ks_discrete, multinomial, percentile_interval, total_variation};
use rand::RngCore;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// Splits `log` by session into (training, test): a session goes to the test part when
/// `unit(mix64(seed ^ hash(participant/task))) < test_share`.
pub fn split(log: &StudyLog, test_share: f64, seed: u64) -> Result<(StudyLog, StudyLog)> {
    if !(test_share > 0.0 && test_share < 1.0) {
        return Err(Error::config("study validate", "test_share", format!("{test_share} is not in (0, 1)")));
    }
    let (mut train, mut test) = (StudyLog { sessions: Vec::new(), base: log.base.clone() }, StudyLog { sessions: Vec::new(), base: log.base.clone() });
    for s in &log.sessions {
        if unit(mix64(seed ^ hash_str(&s.id()))) < test_share {
            test.sessions.push(s.clone());
        } else {
            train.sessions.push(s.clone());
        }
    }
    if train.sessions.is_empty() || test.sessions.is_empty() {
        return Err(Error::Invalid(format!(
            "splitting {} sessions at test share {test_share} leaves {} for training and {} for testing: both need at least one (change --test-share or --seed, or give --test)",
            log.sessions.len(),
            train.sessions.len(),
            test.sessions.len()
        )));
    }
    Ok((train, test))
}

/// A validation of a fitted study user: the click measures and CTR per rank of
/// [`Validation`] (with `visited_depth` first among its measures) and the rank-visit profile.
#[derive(Debug, Clone)]
pub struct StudyValidation {
    /// Searches of the training part the fit counted.
    pub train_searches: usize,
    /// The click and depth measures.
    pub validation: Validation,
    /// Per rank r: the share of searches visiting rank r (`visit@r`), real and simulated,
    /// with the bootstrap interval of the difference; TV and KS are NaN.
    pub visits: Vec<Measure>,
}

/// One held-out search: its result list's grades, the real clicks per rank and the real
/// visited depth.
struct TestSearch {
    grades: Vec<i32>,
    visited: usize,
}

/// Fits on `train` and validates on `test` (see the module docs). `qrels` gives the grades
/// (the fitted user's P(click | grade) needs them); `cfg.replicates` simulated searches per
/// test search.
pub fn validate_study(train: &StudyLog, test: &StudyLog, qrels: &Qrels, opts: &FitOptions, cfg: &ValidateConfig) -> Result<StudyValidation> {
    let f = fit(train, Some(qrels), opts)?;
    validate_fit(&f, test, qrels, opts, cfg)
}

/// Validates an existing fit on `test`.
pub fn validate_fit(f: &Fit, test: &StudyLog, qrels: &Qrels, opts: &FitOptions, cfg: &ValidateConfig) -> Result<StudyValidation> {
    let grade_of: HashMap<(&str, &str), i32> = qrels.topics.iter().flat_map(|(t, js)| js.iter().map(move |(d, g)| ((t.as_str(), d.as_str()), *g))).collect();
    let lists = result_lists(test, opts);
    let mut vocab = Vocab::default();
    let mut log = ClickLog::new();
    let mut tests: Vec<TestSearch> = Vec::new();
    for s in &test.sessions {
        let q = vocab.intern_query(&s.task);
        for (_, search) in searches(&s.events) {
            let Some(view) = search_view(search, opts) else { continue };
            let Some(docs) = lists.get(&(s.task.as_str(), query_text(search))) else { continue };
            let len = docs.len();
            let grades: Vec<i32> = docs.iter().map(|d| grade_of.get(&(s.task.as_str(), *d)).copied().unwrap_or(0)).collect();
            let pairs: Vec<u32> = docs
                .iter()
                .map(|d| {
                    let di = vocab.intern_doc(d);
                    vocab.intern_pair(q, di)
                })
                .collect();
            let mut clicks = vec![false; len];
            for &r in &view.clicked {
                if (1..=len as u32).contains(&r) {
                    clicks[r as usize - 1] = true;
                }
            }
            log.push(q, &pairs, &clicks);
            tests.push(TestSearch { grades, visited: view.visited.min(len) });
        }
    }
    if tests.is_empty() {
        return Err(Error::Invalid("the test part has no search with a SERP page: nothing to validate on".into()));
    }
    let user = f.profile("fitted").resolve(cfg.seed, 0);
    let page_size = opts.page_size.max(1);
    let worlds: Vec<_> = tests.iter().map(|t| one_list_world(t.grades.clone(), page_size)).collect();
    // One walk of the fitted user on test search `i` from the stream `rng`: clicks per rank
    // and the depth examined.
    let run = |i: usize, rng: &mut crate::rng::Stream, clicks: &mut Vec<bool>| -> usize {
        let world = &worlds[i];
        let sys = &world.systems[0];
        let stage = SystemOnTopic {
            topic: &world.topics[0],
            queries: sys.serps[0].as_deref().unwrap_or(&[]),
            delays: &sys.delays,
            page_size,
            fold: usize::MAX,
            below_fold: 0.0,
            sublists_from: crate::simulate::walk::first_sublist(sys.serps[0].as_deref().unwrap_or(&[])),
        };
        let mut trace: Vec<Step> = Vec::new();
        let out = walk(&stage, &user, &user.grades, &mut FixedChoice(Vec::new()), rng.next_u64(), &mut Scratch::default(), &mut trace);
        clicks.clear();
        clicks.resize(world.topics[0].grades.len(), false);
        for s in &trace {
            if let Step::Examine { rank, clicked: true, .. } = s {
                clicks[*rank as usize - 1] = true;
            }
        }
        out.depth as usize
    };
    // The simulated depths are counted while `validate_with` runs the walks (integer counts:
    // the same whatever the thread order), so each simulated search is walked once.
    let max_len = tests.iter().map(|t| t.grades.len()).max().unwrap_or(1);
    let sim_counts: Vec<AtomicU64> = (0..=max_len).map(|_| AtomicU64::new(0)).collect();
    let mut validation = validate_with(
        &|i, rng, clicks| {
            let depth = run(i, rng, clicks).min(max_len);
            sim_counts[depth].fetch_add(1, Ordering::Relaxed);
        },
        &log,
        None,
        cfg,
    )?;
    let mut real = vec![0.0; max_len + 1];
    for t in &tests {
        real[t.visited] += 1.0;
    }
    let sim: Vec<f64> = sim_counts.iter().map(|c| c.load(Ordering::Relaxed) as f64).collect();
    let (depth, visits) = depth_measures(&real, &sim, cfg);
    validation.measures.insert(0, depth);
    Ok(StudyValidation { train_searches: f.searches, validation, visits })
}

/// The text of a search's query event.
fn query_text(search: &[crate::study::log::LogEvent]) -> &str {
    match search.first().map(|e| &e.kind) {
        Some(EventKind::Query { query }) => query,
        _ => "",
    }
}

/// The result list of every (task, query) of `log`: the document at each rank as any SERP
/// page of any search for that query showed it (the first seen wins), from rank 1 to the
/// first rank no page showed. A simulated user walks this whole list, not only the pages its
/// participant happened to open (which would cut the simulated walk where the real one
/// stopped).
fn result_lists<'a>(log: &'a StudyLog, opts: &FitOptions) -> HashMap<(&'a str, &'a str), Vec<&'a str>> {
    let mut ranks: HashMap<(&str, &str), std::collections::BTreeMap<u32, &str>> = HashMap::new();
    for s in &log.sessions {
        for (_, search) in searches(&s.events) {
            let m = ranks.entry((s.task.as_str(), query_text(search))).or_default();
            for e in search {
                if let EventKind::SerpView { results, first_rank, serp_page, .. } = &e.kind {
                    let fr = first_rank.unwrap_or((serp_page - 1) * opts.page_size as u32 + 1);
                    for (i, d) in results.iter().enumerate() {
                        m.entry(fr + i as u32).or_insert(d.as_str());
                    }
                }
            }
        }
    }
    ranks
        .into_iter()
        .map(|(k, m)| {
            let list: Vec<&str> = m.iter().enumerate().take_while(|(i, (r, _))| **r == *i as u32 + 1).map(|(_, (_, d))| *d).collect();
            (k, list)
        })
        .filter(|(_, l)| !l.is_empty())
        .collect()
}

/// The `visited_depth` measure and the `visit@r` rows from the real and simulated depth
/// histograms (index = deepest rank visited, 0 = none), with bootstrap intervals.
fn depth_measures(real: &[f64], sim: &[f64], cfg: &ValidateConfig) -> (Measure, Vec<Measure>) {
    let mean = |h: &[f64]| {
        let n: f64 = h.iter().sum();
        h.iter().enumerate().map(|(k, c)| k as f64 * c).sum::<f64>() / n
    };
    // Share of searches visiting rank r = P(depth >= r), r = 1..
    let visit = |h: &[f64]| -> Vec<f64> {
        let n: f64 = h.iter().sum();
        (1..h.len()).map(|r| h[r..].iter().sum::<f64>() / n).collect()
    };
    let (nr, ns) = (real.iter().sum::<f64>() as u64, sim.iter().sum::<f64>() as u64);
    let boots: Vec<([f64; 3], Vec<f64>)> = (0..cfg.bootstrap)
        .into_par_iter()
        .map(|b| {
            // A stream apart from the click measures' bootstrap (u64::MAX - 1, not u64::MAX).
            let mut rng = crate::rng::stream(cfg.seed, &[u64::MAX - 1, b as u64]);
            let (mut r, mut s) = (Vec::new(), Vec::new());
            multinomial(nr, real, &mut rng, &mut r);
            multinomial(ns, sim, &mut rng, &mut s);
            let (vr, vs) = (visit(&r), visit(&s));
            ([total_variation(&r, &s), ks_discrete(&r, &s), mean(&s) - mean(&r)], vs.iter().zip(&vr).map(|(a, b)| a - b).collect())
        })
        .collect();
    let interval = |f: &dyn Fn(&([f64; 3], Vec<f64>)) -> f64| percentile_interval(&boots.iter().map(f).collect::<Vec<_>>(), cfg.level);
    let shares = |h: &[f64]| {
        let n: f64 = h.iter().sum();
        h.iter().map(|c| c / n).collect::<Vec<f64>>()
    };
    let (tl, tu) = interval(&|b| b.0[0]);
    let (kl, ku) = interval(&|b| b.0[1]);
    let (dl, du) = interval(&|b| b.0[2]);
    let (mr, ms) = (mean(real), mean(sim));
    let depth = Measure {
        measure: "visited_depth".into(),
        real: mr,
        simulated: ms,
        difference: ms - mr,
        difference_lower: dl,
        difference_upper: du,
        tv: total_variation(real, sim),
        tv_lower: tl,
        tv_upper: tu,
        ks: ks_discrete(real, sim),
        ks_lower: kl,
        ks_upper: ku,
        categories: (0..real.len()).map(|k| k.to_string()).collect(),
        real_hist: shares(real),
        sim_hist: shares(sim),
        real_values: Vec::new(),
        sim_values: Vec::new(),
    };
    let (vr, vs) = (visit(real), visit(sim));
    let visits = (0..vr.len()).map(|k| Measure::difference_only(format!("visit@{}", k + 1), vr[k], vs[k], interval(&|b| b.1[k]))).collect();
    (depth, visits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::log::StudyLog;
    use crate::study::pipeline::annotate;
    use crate::study::synthetic::{generate_with, StudyConfig};
    use crate::study::Eye;

    /// A synthetic study (the generator's planted fixations mapped to ranks) and its qrels.
    fn study(continuation: f64, seed: u64) -> (StudyLog, Qrels) {
        let c = StudyConfig { participants: 40, tasks: 5, queries: 4, continuation, seed, sample_rate_hz: 60.0, ..Default::default() };
        let mut jsonl = String::new();
        let (_, qrels) = generate_with(&c, &mut |s| {
            let truth: Vec<crate::study::Fixation> = s
                .true_fixations
                .iter()
                .map(|&(_, x, y, start, d)| crate::study::Fixation { eye: Eye::Left, start, end: start + d, duration: d, x, y, pupil: f64::NAN })
                .collect();
            jsonl.push_str(&StudyLog::to_jsonl(&annotate(&s.events, &truth, &[], &s.aois, 100.0)));
        })
        .unwrap();
        let qtext: String = qrels.iter().map(|(t, d, g)| format!("{t} 0 {d} {g}\n")).collect();
        (StudyLog::parse(&jsonl, "synthetic.jsonl").unwrap(), Qrels::parse(&qtext, "qrels").unwrap())
    }

    fn cfg() -> ValidateConfig {
        ValidateConfig { replicates: 100, bootstrap: 200, ..Default::default() }
    }

    /// Hand derivation: the generator goes on from rank r with probability c up to 20 ranks
    /// (2 pages of 10), so E[depth] = sum_{r=1}^{20} c^(r-1) = (1 - c^20) / (1 - c):
    /// 6.408 for c = 0.85 and 2.500 for c = 0.6.
    fn mean_depth(c: f64) -> f64 {
        (1.0 - c.powi(20)) / (1.0 - c)
    }

    #[test]
    fn held_out_searches_of_the_same_users_agree() {
        let (log, q) = study(0.85, 5);
        let (train, test) = split(&log, 0.5, 1).unwrap();
        let v = validate_study(&train, &test, &q, &FitOptions::default(), &cfg()).unwrap();
        let d = &v.validation.measures[0];
        assert_eq!(d.measure, "visited_depth");
        // The real and simulated depth agree: the bootstrap interval of the difference holds 0,
        // and both are near the planted mean (6.41; about 400 test searches, sd of a depth
        // about 4.7, so the standard error of the real mean is about 0.24).
        assert!(d.difference_lower <= 0.0 && 0.0 <= d.difference_upper, "{d:?}");
        assert!((d.real - mean_depth(0.85)).abs() < 0.75 && (d.simulated - mean_depth(0.85)).abs() < 0.75, "{d:?}");
        // The rank-visit profile: rank 1 is visited in (nearly) every search by both.
        assert!(v.visits[0].real > 0.9 && v.visits[0].simulated > 0.9, "{:?}", v.visits[0]);
        // The click measures of `clicks validate` come along, on the same test searches.
        let names: Vec<&str> = v.validation.measures.iter().map(|m| m.measure.as_str()).collect();
        assert_eq!(names, ["visited_depth", "click_rank", "clicks_per_session", "first_click_rank", "last_click_rank", "abandonment"]);
        let clicks = &v.validation.measures[2];
        assert!(clicks.difference_lower <= 0.0 && 0.0 <= clicks.difference_upper, "{clicks:?}");
    }

    #[test]
    fn a_user_fitted_on_other_users_is_told_apart() {
        // Trained on users who go on with 0.85, tested on users who go on with 0.6. The
        // simulated user walks the lists the test study showed: 20 ranks where a participant
        // opened page 2, else 10 (with c = 0.6 few did: 0.6^10 = 0.6 %). Hand derivation: its
        // mean depth lies between (1 - 0.85^10) / 0.15 = 5.35 (lists of 10) and 6.41 (lists
        // of 20), the real one is 2.50, so the difference lies in [2.85, 3.91].
        let (train, q) = study(0.85, 5);
        let (test, q_test) = study(0.6, 6);
        let f = fit(&train, Some(&q), &FitOptions::default()).unwrap();
        let v = validate_fit(&f, &test, &q_test, &FitOptions::default(), &cfg()).unwrap();
        let d = &v.validation.measures[0];
        assert!(d.difference_lower > 0.0, "{d:?}");
        let (lo, hi) = ((1.0 - 0.85f64.powi(10)) / 0.15 - mean_depth(0.6), mean_depth(0.85) - mean_depth(0.6));
        assert!(d.difference > lo - 0.25 && d.difference < hi + 0.25, "{d:?} not in [{lo}, {hi}]");
        let (same, q_same) = study(0.85, 6);
        let w = validate_fit(&f, &same, &q_same, &FitOptions::default(), &cfg()).unwrap();
        assert!(w.validation.measures[0].tv_upper < d.tv_lower, "same users {:?} vs other users {d:?}", w.validation.measures[0]);
    }

    #[test]
    fn bad_splits_are_refused() {
        let (log, _) = study(0.85, 5);
        assert!(split(&log, 1.0, 1).unwrap_err().to_string().contains("not in (0, 1)"));
        let one = StudyLog { sessions: log.sessions[..1].to_vec(), base: Default::default() };
        assert!(split(&one, 0.5, 1).unwrap_err().to_string().contains("both need at least one"));
    }
}
