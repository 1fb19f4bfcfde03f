//! The searcher of Maxwell et al. (2015), after Baskaya et al., as a preset of the one user
//! model: query, SERP look, snippets in order, click (read) a snippet judged relevant, mark a
//! document judged relevant; stop per query by SS1/SS2/SS3; stop the session when the time
//! budget (or a hard deadline) runs out. [`SessionConfig::profile`] turns the searcher into a
//! [`UserProfile`] and [`SessionConfig::apply_interface`] sets the interface of a
//! [`World`]; the walk is `simulate::walk`, like every other user's.
//!
//! **Perceived relevance.** SS2 and SS3 count snippets the *simulated searcher* judged
//! non-relevant (not clicked), not TREC non-relevant documents, as in the paper ("stop once they
//! have observed x2 non-relevant snippets") and in SimIIR's decision makers, which count
//! snippets with judgement 0. A snippet seen again under a later query keeps its judgement, so a
//! snippet previously considered non-relevant is counted again (paper, Section 3.2); a document
//! already read is not read again.
//!
//! **Common random numbers.** The two judgements of a document (snippet: click or not; document:
//! mark or not) come from the engine's counter-based stream keyed by `(seed, topic, user,
//! document)` (`simulate::walk`), so they are fixed before the walk and shared by every
//! configuration.
//!
//! **Deadline.** Time pressure (Crescenzi et al.) scales the stopping threshold by
//! `depth_scale` (rounded, at least 1) and the reading time by `document_time_scale`, and caps
//! the budget at the deadline.

use crate::error::{check_probability, Error, Result};
use crate::limits::check_non_negative;
use crate::simulate::world::World;
use crate::user::{
    ActionParams, ActionTable, Basis, Budget, Cascade, ContinuationModel, CreditOn, Delays, GainKind, Param, StoppingRuleKind, SublistUse, UserProfile,
};
use serde::{Deserialize, Serialize};

/// The searcher: judgement probabilities, stopping strategy, times and budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Searcher {
    /// P(click | snippet of a non-relevant, relevant document) = `[P(C|NR), P(C|R)]`.
    pub click: [f64; 2],
    /// P(mark | read non-relevant, relevant document) = `[P(M|NR), P(M|R)]`.
    pub mark: [f64; 2],
    /// Per-query stopping strategy (SS1 `fixed_depth`, SS2 `total_nonrelevant`, SS3
    /// `contiguous_nonrelevant`, or any other foundation rule).
    pub stopping: StoppingRuleKind,
    /// Seconds per action (default: Maxwell et al. Table 1).
    pub times: ActionTable,
    /// Session time budget in seconds (default 1200); `None` or infinity = unlimited.
    pub budget: Option<f64>,
    /// P(continue to the next page) when a page is finished (1 = the stopping rule alone decides).
    pub page_continuation: f64,
}

impl Default for Searcher {
    /// Smucker and Clarke's (2012) probabilities as used by Maxwell et al.: click 0.39 / 0.64,
    /// mark 0.27 / 0.77; SS3 with threshold 3; Table 1 times; 1200 s.
    fn default() -> Self {
        Searcher {
            click: [0.39, 0.64],
            mark: [0.27, 0.77],
            stopping: StoppingRuleKind::ContiguousNonrelevant { n: Param::Fixed(3.0), basis: Basis::Snippet },
            times: ActionTable::DEFAULT_TIME,
            budget: Some(1200.0),
            page_continuation: 1.0,
        }
    }
}

/// Interface and system factors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Interface {
    /// Results per page (Kelly and Azzopardi: 3, 6, 10). 0 = one page holding the whole list.
    pub page_size: usize,
    /// Results visible without scrolling on a page; `None` = all.
    pub fold: Option<usize>,
    /// Extra seconds to reach each result below the fold.
    pub below_fold: f64,
    /// System delay after each query (seconds), e.g. 5 in Crescenzi et al.
    pub query_latency: f64,
    /// System delay after each page request beyond the first.
    pub page_latency: f64,
    /// System delay after each document click.
    pub document_latency: f64,
}

impl Default for Interface {
    fn default() -> Self {
        Interface { page_size: 10, fold: None, below_fold: 0.0, query_latency: 0.0, page_latency: 0.0, document_latency: 0.0 }
    }
}

/// A hard task deadline (time pressure) and the behaviour that goes with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deadline {
    /// Seconds available (Crescenzi et al.: 300).
    pub seconds: f64,
    /// Stopping threshold multiplier under pressure (rounded, at least 1). Default 0.60 =
    /// view depth per query 8.89 / 14.88 (Crescenzi et al. Table 1).
    #[serde(default = "default_depth_scale")]
    pub depth_scale: f64,
    /// Document reading time multiplier under pressure. Default 0.63 = time per document
    /// 8.82 s / 14.05 s (Crescenzi et al. Table 1).
    #[serde(default = "default_document_time_scale")]
    pub document_time_scale: f64,
}

fn default_depth_scale() -> f64 {
    0.60
}
fn default_document_time_scale() -> f64 {
    0.63
}

/// Everything the walk needs besides the topic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct SessionConfig {
    /// The searcher.
    pub searcher: Searcher,
    /// Interface and system.
    pub interface: Interface,
    /// Optional hard deadline.
    pub deadline: Option<Deadline>,
}

impl SessionConfig {
    /// Checks every value; errors name the key under `prefix`.
    pub fn validate(&self, context: &str, prefix: &str) -> Result<()> {
        let k = |s: &str| format!("{prefix}{s}");
        let s = &self.searcher;
        for i in 0..2 {
            check_probability(context, &k(&format!("searcher.click[{i}]")), s.click[i])?;
            check_probability(context, &k(&format!("searcher.mark[{i}]")), s.mark[i])?;
        }
        check_probability(context, &k("searcher.page_continuation"), s.page_continuation)?;
        s.stopping.validate(context, &k("searcher.stopping"))?;
        s.times.validate(context, &k("searcher.times"))?;
        if let Some(b) = s.budget {
            if b.is_nan() || b < 0.0 {
                return Err(Error::config(context, k("searcher.budget"), format!("{b} must be >= 0 (inf = unlimited)")));
            }
        }
        let i = &self.interface;
        for (name, v) in [
            ("interface.below_fold", i.below_fold),
            ("interface.query_latency", i.query_latency),
            ("interface.page_latency", i.page_latency),
            ("interface.document_latency", i.document_latency),
        ] {
            check_non_negative(context, &k(name), v)?;
        }
        if i.fold == Some(0) {
            return Err(Error::config(context, k("interface.fold"), "must be at least 1 (omit it for no fold)"));
        }
        if let Some(d) = &self.deadline {
            check_non_negative(context, &k("deadline.seconds"), d.seconds)?;
            check_non_negative(context, &k("deadline.depth_scale"), d.depth_scale)?;
            check_non_negative(context, &k("deadline.document_time_scale"), d.document_time_scale)?;
        }
        Ok(())
    }

    /// The configuration with the stopping threshold replaced by `n` (same kind).
    pub fn with_threshold(&self, n: usize) -> SessionConfig {
        let mut c = self.clone();
        c.searcher.stopping = with_threshold(&self.searcher.stopping, n);
        c
    }
}

/// `rule` with its count threshold set to `n` (SS1/SS2/SS3 and satisfaction; others unchanged).
pub fn with_threshold(rule: &StoppingRuleKind, n: usize) -> StoppingRuleKind {
    let n_param = Param::Fixed(n as f64);
    match rule {
        StoppingRuleKind::FixedDepth { .. } => StoppingRuleKind::FixedDepth { n: n_param },
        StoppingRuleKind::TotalNonrelevant { basis, .. } => StoppingRuleKind::TotalNonrelevant { n: n_param, basis: *basis },
        StoppingRuleKind::ContiguousNonrelevant { basis, .. } => StoppingRuleKind::ContiguousNonrelevant { n: n_param, basis: *basis },
        StoppingRuleKind::Satisfaction { .. } => StoppingRuleKind::Satisfaction { k: n_param },
        other => other.clone(),
    }
}

/// SS2 and SS3 counted on the searcher's own snippet judgements (Maxwell et al.'s reading).
pub fn perceived(rule: &StoppingRuleKind) -> StoppingRuleKind {
    match rule {
        StoppingRuleKind::TotalNonrelevant { n, .. } => StoppingRuleKind::TotalNonrelevant { n: n.clone(), basis: Basis::Snippet },
        StoppingRuleKind::ContiguousNonrelevant { n, .. } => StoppingRuleKind::ContiguousNonrelevant { n: n.clone(), basis: Basis::Snippet },
        other => other.clone(),
    }
}

impl SessionConfig {
    /// The searcher as a profile of the one user model: cascade clicks and marks on binary
    /// relevance, no continuation draw (the stopping rule decides), SS2/SS3 on perceived
    /// relevance, gain = relevant documents marked, Table 1 times, the budget (capped by the
    /// deadline) as a hard time budget.
    pub fn profile(&self, name: &str) -> UserProfile {
        let s = &self.searcher;
        let mut stopping = perceived(&s.stopping);
        let mut times = s.times;
        let mut budget = s.budget.unwrap_or(f64::INFINITY);
        if let Some(d) = &self.deadline {
            budget = budget.min(d.seconds);
            times.read_document *= d.document_time_scale;
            if let Some(n) = threshold_of(&stopping) {
                stopping = with_threshold(&stopping, ((n as f64 * d.depth_scale).round() as usize).max(1));
            }
        }
        let mut p = UserProfile::named(name);
        p.continuation = Some(ContinuationModel::Rbp { p: Param::Fixed(1.0) });
        p.page_continuation = Param::Fixed(s.page_continuation);
        p.clicks = Cascade::fixed(&s.click, &[0.0], &s.mark);
        p.stopping = vec![stopping];
        p.budget = Budget { seconds: budget.is_finite().then_some(Param::Fixed(budget)), effort: None };
        p.sublists = SublistUse { switch: false, ..Default::default() };
        p.gain = GainKind::Binary { credit_on: CreditOn::Mark };
        p.time = ActionParams::fixed(&times);
        p
    }

    /// Sets the interface of `world` (page size 0 = one page; fold; delays of every system).
    pub fn apply_interface(&self, world: &mut World) {
        let i = &self.interface;
        world.page_size = if i.page_size == 0 { usize::MAX } else { i.page_size };
        world.fold = i.fold.unwrap_or(usize::MAX);
        world.below_fold = i.below_fold;
        for s in &mut world.systems {
            s.delays = Delays { query_latency: i.query_latency, page_latency: i.page_latency, document_latency: i.document_latency };
        }
    }
}

/// The count threshold of SS1/SS2/SS3/satisfaction rules.
pub fn threshold_of(rule: &StoppingRuleKind) -> Option<usize> {
    match rule {
        StoppingRuleKind::FixedDepth { n } | StoppingRuleKind::TotalNonrelevant { n, .. } | StoppingRuleKind::ContiguousNonrelevant { n, .. } => {
            n.fixed().map(|x| x as usize)
        }
        StoppingRuleKind::Satisfaction { k } => k.fixed().map(|x| x as usize),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::queries::SessionTopic;
    use crate::simulate::walk::{walk, FixedChoice, Outcome, Scratch, Step, SystemOnTopic};

    /// One session of `topic` through the engine's walk (as the replicate loop runs it), its
    /// steps pushed to `trace`; `key` is the session key.
    fn session(topic: &SessionTopic, cfg: &SessionConfig, key: u64, trace: &mut Vec<Step>) -> Outcome {
        let mut world = crate::scenario::world_from_query_sets(&[("s".into(), vec![topic.clone()])]).unwrap();
        cfg.apply_interface(&mut world);
        let user = cfg.profile("searcher").resolve(0, 0);
        walk(&SystemOnTopic::of(&world, 0, 0).unwrap(), &user, &user.grades, &mut FixedChoice(Vec::new()), key, &mut Scratch::default(), trace)
    }

    fn simulate(topic: &SessionTopic, cfg: &SessionConfig, key: u64) -> Outcome {
        session(topic, cfg, key, &mut Vec::new())
    }

    /// Five documents d0..d4; grades 1,0,1,0,0; two queries.
    fn fixture() -> SessionTopic {
        SessionTopic {
            id: "t".into(),
            doc_ids: (0..5).map(|i| format!("d{i}")).collect(),
            grades: vec![1, 0, 1, 0, 0],
            queries: vec![vec![0, 1, 3, 4, 2], vec![1, 2, 4, 0]],
            query_ids: vec!["t.1".into(), "t.2".into()],
        }
    }

    fn perfect(stopping: StoppingRuleKind) -> SessionConfig {
        let mut c = SessionConfig::default();
        c.searcher.click = [0.0, 1.0];
        c.searcher.mark = [0.0, 1.0];
        c.searcher.stopping = stopping;
        c.searcher.budget = None;
        c
    }

    #[test]
    fn deterministic_walk_matches_hand_computation() {
        // SS3, x3 = 2, perfect judgements, no time limit, page size 10.
        // Query 1: d0 R (read, mark), d1 NR, d3 NR -> 2 contiguous NR: stop at depth 3.
        // Query 2: d1 NR, d2 R (read, mark), d4 NR, d0 R seen (already read: no read), end of list.
        // Time = 2 x (15.1 + 1.1) + 7 x 1.3 + 2 x (21.45 + 2.57) = 32.4 + 9.1 + 48.04 = 89.54.
        let cfg = perfect(StoppingRuleKind::ContiguousNonrelevant { n: Param::Fixed(2.0), basis: Basis::Grade });
        let mut steps = Vec::new();
        let out = session(&fixture(), &cfg, 99, &mut steps);
        assert_eq!(out.gain, 2.0);
        assert_eq!(out.queries, 2);
        assert_eq!(out.depth, 7);
        assert_eq!(out.clicks, 2);
        assert_eq!(out.marks, 2);
        assert_eq!(out.depth, 3 + 4);
        assert!((out.time - 89.54).abs() < 1e-9, "{}", out.time);
        assert_eq!(out.adjusted_time, out.time);
        let snippets: Vec<(u32, u32)> = steps.iter().filter_map(|s| if let Step::Examine { rank, doc, .. } = s { Some((*rank, *doc)) } else { None }).collect();
        assert_eq!(snippets, vec![(1, 0), (2, 1), (3, 3), (1, 1), (2, 2), (3, 4), (4, 0)]);
    }

    #[test]
    fn ss1_and_ss2_hand_walks() {
        // SS1 x1 = 2: q1 d0 (R), d1; q2 d1, d2 (R). Time 32.4 + 4 x 1.3 + 2 x 24.02 = 85.64.
        let out = simulate(&fixture(), &perfect(StoppingRuleKind::FixedDepth { n: Param::Fixed(2.0) }), 1);
        assert_eq!((out.gain, out.depth, out.depth), (2.0, 4, 4));
        assert!((out.time - 85.64).abs() < 1e-9);
        // SS2 x2 = 1: q1 d0 R, d1 NR stop; q2 d1 NR stop. Gain 1, 3 snippets.
        let out = simulate(&fixture(), &perfect(StoppingRuleKind::TotalNonrelevant { n: Param::Fixed(1.0), basis: Basis::Grade }), 1);
        assert_eq!((out.gain, out.depth, out.depth, out.clicks), (1.0, 3, 3, 1));
        // A foundation time_budget rule sees the time spent on the current query: 20 s.
        // q1: 16.2 + 1.3 + 24.02 = 41.52 after d0: stop. q2: d1 at 17.5, d2 read: stop. 3 snippets.
        let out = simulate(&fixture(), &perfect(StoppingRuleKind::TimeBudget { seconds: Param::Fixed(20.0) }), 1);
        assert_eq!((out.gain, out.depth, out.queries), (2.0, 3, 2));
    }

    #[test]
    fn budget_pages_delays_and_fold() {
        // Budget 40 s, SS1 x1 = 10, perfect: q1 15.1 + 1.1 = 16.2; d0 snippet 17.5; read 38.95;
        // mark would reach 41.52 > 40: session ends before the mark, gain 0.
        let mut cfg = perfect(StoppingRuleKind::FixedDepth { n: Param::Fixed(10.0) });
        cfg.searcher.budget = Some(40.0);
        let out = simulate(&fixture(), &cfg, 1);
        assert_eq!((out.gain, out.clicks, out.depth), (0.0, 1, 1));
        assert!((out.time - 38.95).abs() < 1e-9);
        // Page size 2, page latency 3, query latency 5, document latency 5, fold 1 with 0.5 s.
        let mut cfg = perfect(StoppingRuleKind::FixedDepth { n: Param::Fixed(3.0) });
        cfg.interface = Interface { page_size: 2, fold: Some(1), below_fold: 0.5, query_latency: 5.0, page_latency: 3.0, document_latency: 5.0 };
        let out = simulate(&fixture(), &cfg, 1);
        // q1: d0 (pos 0), d1 (pos 1, below fold), page 2, d3 (pos 0). q2: d1, d2 (below fold, R), page, d4.
        assert_eq!(out.page_turns, 2);
        let adjusted = 2.0 * 16.2 + 6.0 * 1.3 + 2.0 * 0.5 + 2.0 * 1.1 + 2.0 * 24.02;
        let delays = 2.0 * 5.0 + 2.0 * 3.0 + 2.0 * 5.0;
        assert!((out.adjusted_time - adjusted).abs() < 1e-9, "{}", out.adjusted_time);
        assert!((out.time - adjusted - delays).abs() < 1e-9);
        // Page continuation 0: never leaves the first page.
        cfg.searcher.page_continuation = 0.0;
        let out = simulate(&fixture(), &cfg, 1);
        assert_eq!((out.page_turns, out.depth), (0, 4));
    }

    #[test]
    fn pages_per_query_are_geometric() {
        // Only the per-page continuation stops: pages viewed ~ Geometric, mean 1 / (1 - c) =
        // 3.571 for c = 0.72 (Kelly and Azzopardi's 3.56 SERPs per query on 3RPP).
        let topic = SessionTopic {
            id: "g".into(),
            doc_ids: (0..300).map(|i| i.to_string()).collect(),
            grades: vec![0; 300],
            queries: vec![(0..300).collect()],
            query_ids: vec!["g.1".into()],
        };
        let mut cfg = perfect(StoppingRuleKind::FixedDepth { n: Param::Fixed(1000.0) });
        cfg.searcher.page_continuation = 0.72;
        cfg.interface.page_size = 3;
        let n = 40_000;
        let pages: u64 = (0..n).map(|r| 1 + simulate(&topic, &cfg, crate::simulate::session_key(2, 0, r)).page_turns as u64).sum();
        let mean = pages as f64 / n as f64;
        // sd of a geometric with p = 0.28 is sqrt(0.72) / 0.28 = 3.03; se = 0.015.
        assert!((mean - 1.0 / 0.28).abs() < 0.06, "{mean}");
    }

    #[test]
    fn deadline_scales_threshold_and_reading() {
        let mut cfg = perfect(StoppingRuleKind::FixedDepth { n: Param::Fixed(4.0) });
        cfg.deadline = Some(Deadline { seconds: 1e9, depth_scale: 0.5, document_time_scale: 0.0 });
        let out = simulate(&fixture(), &cfg, 1);
        // Threshold 2, reading free: 32.4 + 4 x 1.3 + 2 x 2.57.
        assert_eq!(out.depth, 4);
        assert!((out.time - (32.4 + 5.2 + 5.14)).abs() < 1e-9);
    }

    #[test]
    fn common_random_numbers_across_thresholds() {
        // A larger random topic; realistic probabilities; thresholds differ only.
        use rand::Rng;
        let mut rng = crate::rng::stream(3, &[1]);
        let docs = 300;
        let topic = SessionTopic {
            id: "x".into(),
            doc_ids: (0..docs).map(|i| i.to_string()).collect(),
            grades: (0..docs).map(|_| rng.random_bool(0.3) as i32).collect(),
            queries: (0..20)
                .map(|_| (0..60).map(|_| rng.random_range(0..docs as u32)).collect::<Vec<_>>())
                .map(|mut v: Vec<u32>| {
                    v.dedup();
                    v
                })
                .collect(),
            query_ids: (0..20).map(|i| format!("x.{i}")).collect(),
        };
        for kind in [
            StoppingRuleKind::FixedDepth { n: Param::Fixed(1.0) },
            StoppingRuleKind::TotalNonrelevant { n: Param::Fixed(1.0), basis: Basis::Grade },
            StoppingRuleKind::ContiguousNonrelevant { n: Param::Fixed(1.0), basis: Basis::Grade },
        ] {
            for rep in 0..20u64 {
                let key = crate::simulate::session_key(7, 11, rep);
                let mut judged: std::collections::HashMap<u32, (bool, Option<bool>)> = Default::default();
                let mut shared = 0;
                for n in [2usize, 5, 13] {
                    let mut cfg = SessionConfig::default();
                    cfg.searcher.stopping = with_threshold(&kind, n);
                    let mut last_clicked: Option<u32> = None;
                    let mut seen_here: std::collections::HashMap<u32, (bool, Option<bool>)> = Default::default();
                    let mut steps = Vec::new();
                    session(&topic, &cfg, key, &mut steps);
                    steps.into_iter().for_each(|s| match s {
                        Step::Examine { doc, clicked, .. } => {
                            let e = seen_here.entry(doc).or_insert((clicked, None));
                            assert_eq!(e.0, clicked, "snippet judgement changed within a session");
                            last_clicked = clicked.then_some(doc);
                        }
                        Step::Read { doc, marked } => {
                            assert_eq!(last_clicked, Some(doc));
                            seen_here.get_mut(&doc).unwrap().1 = Some(marked);
                        }
                        _ => {}
                    });
                    for (doc, j) in seen_here {
                        if let Some(prev) = judged.get_mut(&doc) {
                            shared += 1;
                            assert_eq!(prev.0, j.0, "snippet judgement of {doc} differs between thresholds");
                            match (prev.1, j.1) {
                                (Some(a), Some(b)) => assert_eq!(a, b, "mark of {doc} differs between thresholds"),
                                (None, Some(b)) => prev.1 = Some(b),
                                _ => {}
                            }
                        } else {
                            judged.insert(doc, j);
                        }
                    }
                }
                assert!(shared > 0);
            }
        }
    }

    #[test]
    fn click_rates_match_probabilities() {
        // Over many replicates, P(click | R) on the first snippet is 0.64 (Smucker and Clarke),
        // counted from what the simulator did (its trace), not from the random numbers.
        let topic = fixture();
        let mut cfg = SessionConfig::default();
        cfg.searcher.stopping = StoppingRuleKind::FixedDepth { n: Param::Fixed(1.0) };
        let n = 40_000;
        let mut clicks = 0;
        for rep in 0..n {
            let mut first = None;
            let mut steps = Vec::new();
            session(&topic, &cfg, crate::simulate::session_key(5, 0, rep), &mut steps);
            for step in steps {
                if let Step::Examine { rank: 1, doc, clicked, .. } = step {
                    first.get_or_insert((doc, clicked));
                }
            }
            // First snippet of query 1 is d0 (relevant).
            let (doc, clicked) = first.expect("the first snippet is examined");
            assert_eq!(doc, 0);
            clicks += clicked as u32;
        }
        // Binomial(40000, 0.64): sd 0.0024, so 0.01 is about 4 sd.
        let p = clicks as f64 / n as f64;
        assert!((p - 0.64).abs() < 0.01, "{p}");
    }

    #[test]
    fn validation_names_keys() {
        let mut c = SessionConfig::default();
        c.searcher.click[1] = 1.5;
        let e = c.validate("s.toml", "").unwrap_err().to_string();
        assert!(e.contains("searcher.click[1]"), "{e}");
        let mut c = SessionConfig::default();
        c.interface.query_latency = f64::NAN;
        assert!(c.validate("s.toml", "").unwrap_err().to_string().contains("interface.query_latency"));
    }
}
