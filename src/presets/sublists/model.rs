//! The sublist-switching interaction model of He et al. (2015) §3.
//!
//! A user starts on "All" (sublist 0). Before examining the next unseen result, at displayed
//! rank r of the current sublist, the user continues with probability p_r (a Bernoulli draw);
//! otherwise the user switches to another sublist drawn from Categorical(c_u) restricted to the
//! sublists that are neither current nor exhausted, and examines its next unseen result
//! (constraint A2: no decision is drawn for it). Seen results are skipped everywhere (A2);
//! every list is scanned top to bottom (A1); the walk stops at a deterministic cut-off (A3):
//! a gain target (effort measures) or an effort budget (gain measures), or when every result
//! has been seen.
//!
//! The walk itself is `simulate::walk` (the engine's, shared by every user); this module keeps
//! He et al.'s vocabulary: topics with sublists, continuation tables, tasks (cut-offs), action
//! paths, and [`he_profile`], the profile that makes the one user model He et al.'s user.
//!
//! Choices that the paper leaves open, fixed here and documented in `docs/sublists.md`:
//! - the very first result of "All" is examined without a decision (as after a switch);
//! - a failed continuation with no other selectable sublist continues in the current list
//!   at no extra cost (so the basic interface, "All" only, is deterministic);
//! - selecting a sublist shows its first page; reaching a result on page p from the page
//!   shown costs one `paginate` per page turned;
//! - gain is binary: each examined result with grade > 0 adds 1.

use crate::simulate::world::{QueryList, Sublists, World, WorldSystem, WorldTopic};
use crate::user::{
    ActionParams, ActionTable, Budget, Cascade, ContinuationModel, NoAlternative, Param, PriorBase, RankOf, StoppingRuleKind, SublistUse, UserProfile,
};
use serde::{Deserialize, Serialize};

/// One topic as an RLR interface shows it: the ranked "All" list and its sublists.
///
/// Flat on purpose: sublists hold 0-based ranks into the "All" list, in the original order.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicSublists {
    /// Topic identifier.
    pub id: String,
    /// Grade of the result at each rank of "All" (index 0 = rank 1).
    pub grades: Vec<i32>,
    /// Sublist names; index 0 is "All".
    pub names: Vec<String>,
    /// Per sublist, 0-based ranks into "All", strictly increasing. `lists[0]` is every rank.
    pub lists: Vec<Vec<u32>>,
}

impl TopicSublists {
    /// A topic from "All" grades and named category sublists (ranks into "All", 0-based).
    /// Empty sublists are dropped (an interface shows no filter without results); ranks are
    /// sorted and deduplicated so each sublist keeps the original order.
    pub fn new(id: impl Into<String>, grades: Vec<i32>, sublists: Vec<(String, Vec<u32>)>) -> crate::Result<Self> {
        let id = id.into();
        let n = grades.len() as u32;
        if n == 0 {
            return Err(crate::Error::Invalid(format!("topic `{id}`: the ranked list is empty")));
        }
        let mut names = vec!["All".to_string()];
        let mut lists = vec![(0..n).collect::<Vec<u32>>()];
        for (name, mut ranks) in sublists {
            ranks.sort_unstable();
            ranks.dedup();
            if let Some(&r) = ranks.iter().find(|&&r| r >= n) {
                return Err(crate::Error::Invalid(format!("topic `{id}`: sublist `{name}` has rank {} beyond the list of {n}", r + 1)));
            }
            if !ranks.is_empty() {
                names.push(name);
                lists.push(ranks);
            }
        }
        Ok(TopicSublists { id, grades, names, lists })
    }

    /// The same topic with only "All": the basic interface.
    pub fn basic(&self) -> TopicSublists {
        TopicSublists { id: self.id.clone(), grades: self.grades.clone(), names: vec!["All".into()], lists: vec![self.lists[0].clone()] }
    }

    /// Number of sublists K, "All" included.
    pub fn k(&self) -> usize {
        self.lists.len()
    }

    /// Number of relevant results (grade > 0) in "All".
    pub fn relevant(&self) -> usize {
        self.grades.iter().filter(|&&g| g > 0).count()
    }

    /// Grades of sublist `k` in its order.
    pub fn sublist_grades(&self, k: usize) -> Vec<i32> {
        self.lists[k].iter().map(|&r| self.grades[r as usize]).collect()
    }
}

/// Continuation probabilities p_r.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ContinuationKind {
    /// p_r = exp(-lambda r) (Eq. 3), for what-if runs.
    Exponential {
        /// Decay rate, >= 0.
        lambda: f64,
    },
    /// An empirical rank-visit table: `probs[r - 1]` = p_r; ranks beyond the table get 0.
    Empirical {
        /// p_1, p_2, ...
        probs: Vec<f64>,
    },
}

impl ContinuationKind {
    /// p_r for r = 1..=n.
    pub fn table(&self, n: usize) -> Vec<f64> {
        match self {
            ContinuationKind::Exponential { lambda } => (1..=n).map(|r| (-lambda * r as f64).exp()).collect(),
            ContinuationKind::Empirical { probs } => (0..n).map(|i| probs.get(i).copied().unwrap_or(0.0)).collect(),
        }
    }

    /// Rejects negative or NaN lambda and probabilities outside [0, 1].
    pub fn validate(&self, context: &str, key: &str) -> crate::Result<()> {
        match self {
            ContinuationKind::Exponential { lambda } => crate::limits::check_non_negative(context, &format!("{key}.lambda"), *lambda),
            ContinuationKind::Empirical { probs } => {
                if probs.is_empty() {
                    return Err(crate::Error::config(context, format!("{key}.probs"), "must not be empty"));
                }
                for (i, &p) in probs.iter().enumerate() {
                    crate::error::check_probability(context, &format!("{key}.probs[{i}]"), p)?;
                }
                Ok(())
            }
        }
    }
}

/// Effort weight of each action (default 1 each, as in the paper).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ActionWeights {
    /// Examine a result.
    pub examine: f64,
    /// Go to the next page of the current sublist.
    pub paginate: f64,
    /// Select a sublist (filter value).
    pub select: f64,
}

impl Default for ActionWeights {
    fn default() -> Self {
        ActionWeights { examine: 1.0, paginate: 1.0, select: 1.0 }
    }
}

impl From<&crate::user::ActionTable> for ActionWeights {
    fn from(t: &crate::user::ActionTable) -> Self {
        ActionWeights { examine: t.examine_snippet, paginate: t.paginate, select: t.select_sublist }
    }
}

/// The deterministic cut-off of A3.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CutOff {
    /// Stop once `n` relevant results are found (find-1, find-10, ...): an effort measure.
    Find(u32),
    /// Stop once every relevant result of "All" is found: an effort measure.
    FindAll,
    /// Stop before the action that would exceed this effort: a gain measure.
    Effort(f64),
}

impl CutOff {
    /// Short name: `find-1`, `find-all`, `effort-50`.
    pub fn name(&self) -> String {
        match self {
            CutOff::Find(n) => format!("find-{n}"),
            CutOff::FindAll => "find-all".into(),
            CutOff::Effort(b) => format!("effort-{}", crate::write::fmt_f64(*b)),
        }
    }

    /// The measure a cut-off calls for: `effort` for gain targets, `gain` for effort budgets.
    pub fn measure_name(&self) -> &'static str {
        match self {
            CutOff::Effort(_) => "gain",
            _ => "effort",
        }
    }

    /// Parses the names of [`CutOff::name`].
    pub fn parse(s: &str) -> Option<CutOff> {
        if s == "find-all" {
            return Some(CutOff::FindAll);
        }
        if let Some(n) = s.strip_prefix("find-") {
            return n.parse().ok().filter(|&n| n > 0).map(CutOff::Find);
        }
        s.strip_prefix("effort-").and_then(|b| b.parse().ok()).filter(|b: &f64| b.is_finite() && *b >= 0.0).map(CutOff::Effort)
    }
}

/// A world of `topics` as one system, `rlr` (documents named by their rank, `r1`, `r2`, ...):
/// list 0 of each topic's result list is "All" and, `with_sublists`, the sublists are the
/// topic's `lists`; `page_size` results per page (at least 1).
pub fn world_of(topics: &[TopicSublists], with_sublists: bool, page_size: u32) -> World {
    let mut world = World {
        topics: Vec::new(),
        systems: vec![WorldSystem { name: "rlr".into(), delays: Default::default(), serps: Vec::new() }],
        categories: topics.first().map_or(Vec::new(), |t| t.names[1..].to_vec()),
        page_size: page_size.max(1) as usize,
        fold: usize::MAX,
        below_fold: 0.0,
    };
    for topic in topics {
        let n = topic.grades.len();
        let wt = WorldTopic {
            id: topic.id.clone(),
            doc_ids: (1..=n).map(|r| format!("r{r}")).collect(),
            grades: topic.grades.clone(),
            subtopics: vec![0; n],
            categories: vec![Vec::new(); n],
            relevant: topic.relevant(),
        };
        let mut list = QueryList::new(&wt, (0..n as u32).collect());
        if with_sublists {
            let cats = (0..topic.k() as u32).map(|k| if k == 0 { u32::MAX } else { k - 1 }).collect();
            list.sublists = Some(Sublists::from_lists(&topic.grades, cats, topic.lists.clone()));
        }
        world.topics.push(wt);
        world.systems[0].serps.push(Some(vec![list]));
    }
    world
}

/// He et al.'s user as a profile of the one user model: continuation `cont` indexed as in the
/// paper (`cont[r - 1]` = p_r, the probability of going on to rank r), switching to a sublist on
/// a failed continuation, every relevant result found on examination (binary gain), effort
/// weights for examining, page turns and selections, and the task's cut-off as a stopping rule
/// (find-N, find-all) or a hard effort budget (effort-B). The sublist prior is the profile's
/// (replace it with `PreparedProfile::set_prior` for explicit alphas).
pub fn he_profile(name: &str, cont: &[f64], weights: &ActionWeights, cutoff: CutOff) -> UserProfile {
    let mut p = UserProfile::named(name);
    p.continuation = Some(ContinuationModel::Empirical { p: cont.to_vec(), file: None, rank_of: RankOf::Next });
    p.clicks = Cascade::fixed(&[0.0, 1.0], &[0.0], &[0.0]);
    p.sublists = SublistUse { switch: true, no_alternative: NoAlternative::Stay, prior: PriorBase::Ndcg, scale: 1.0, smoothing: 0.0 };
    p.effort = ActionParams::fixed(&ActionTable {
        issue_query: 0.0,
        serp_look: 0.0,
        examine_snippet: weights.examine,
        read_document: 0.0,
        mark_relevant: 0.0,
        paginate: weights.paginate,
        select_sublist: weights.select,
    });
    match cutoff {
        CutOff::Find(n) => p.stopping = vec![StoppingRuleKind::Satisfaction { k: Param::Fixed(n as f64) }],
        CutOff::FindAll => p.stopping = vec![StoppingRuleKind::FindAll],
        CutOff::Effort(b) => p.budget = Budget { seconds: None, effort: Some(Param::Fixed(b)) },
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::walk::{walk, FixedChoice, Outcome, Scratch, Step, SystemOnTopic};

    /// One action path of He et al.'s user on `topic` (the engine's walk): continuation table
    /// `cont`, choice weights `choice` over the sublists, steps (selections, page turns,
    /// examinations) pushed to `trace`.
    #[allow(clippy::too_many_arguments)]
    fn path(
        topic: &TopicSublists,
        cont: &[f64],
        choice: &[f64],
        page_size: u32,
        w: &ActionWeights,
        cutoff: CutOff,
        key: u64,
        trace: &mut Vec<Step>,
    ) -> Outcome {
        let world = world_of(std::slice::from_ref(topic), true, page_size);
        let user = he_profile("he", cont, w, cutoff).resolve(0, 0);
        let mut steps = Vec::new();
        let o =
            walk(&SystemOnTopic::of(&world, 0, 0).unwrap(), &user, &user.grades, &mut FixedChoice(choice.to_vec()), key, &mut Scratch::default(), &mut steps);
        trace.extend(steps.into_iter().filter(|s| matches!(s, Step::Select { .. } | Step::Paginate { .. } | Step::Examine { .. })));
        o
    }

    /// The examination of displayed `rank` of `list`, rank `all` of "All" (document `all - 1`),
    /// clicked when relevant (He et al.'s user finds every relevant result examined).
    fn ex(list: u32, rank: u32, all: u32, relevant: bool) -> Step {
        Step::Examine { list, rank, position: all, doc: all - 1, relevant, clicked: relevant }
    }

    // Hand-computed toy. "All" has 6 results with grades 0 1 0 1 0 1; sublist "c1" holds
    // All ranks 2, 4, 5, 6 (0-based 1, 3, 4, 5). Page size 2. Continuation table
    // p = (1, 1, 0, 0, ...): a user continues to ranks 1 and 2 and never to rank >= 3.
    // With one other sublist, every switch is forced in its target. Path, by hand:
    // 1. examine All#1 (forced start; grade 0)
    // 2. p_2 = 1: examine All#2 (rel, gain 1)
    // 3. next unseen All#3: p_3 = 0 -> switch to c1 (select); c1's first unseen is its
    //    rank 2 (All#4; its rank 1 = All#2 is seen); page 1 holds ranks 1-2: examine (rel, gain 2)
    // 4. next in c1: rank 3 (All#5), p_3 = 0 -> switch to All (select); All's next unseen is
    //    All#3 on page 2: paginate once, examine (grade 0)
    // 5. next unseen in All: All#5 (All#4 seen), rank 5, p_5 = 0 -> switch to c1 (select);
    //    c1's next unseen is rank 3 (All#5) on page 2: paginate, examine (grade 0)
    // 6. next in c1: rank 4 (All#6), p_4 = 0 -> switch to All (select); All's next unseen is
    //    All#6 on page 3: paginate twice (from page 1), examine (rel, gain 3) -> find-all met.
    // Effort = 6 examines + 4 selects + 4 paginations = 14.
    #[test]
    fn toy_path_matches_hand_computation() {
        let topic = TopicSublists::new("toy", vec![0, 1, 0, 1, 0, 1], vec![("c1".into(), vec![1, 3, 4, 5])]).unwrap();
        let cont = ContinuationKind::Empirical { probs: vec![1.0, 1.0, 0.0] }.table(6);
        let mut trace = Vec::new();
        let d = ActionWeights::default();
        let out = path(&topic, &cont, &[0.5, 0.5], 2, &d, CutOff::FindAll, 1, &mut trace);
        use Step::*;
        let expect = vec![
            ex(0, 1, 1, false),
            ex(0, 2, 2, true),
            Select { list: 1 },
            ex(1, 2, 4, true),
            Select { list: 0 },
            Paginate { list: 0, page: 2 },
            ex(0, 3, 3, false),
            Select { list: 1 },
            Paginate { list: 1, page: 2 },
            ex(1, 3, 5, false),
            Select { list: 0 },
            Paginate { list: 0, page: 2 },
            Paginate { list: 0, page: 3 },
            ex(0, 6, 6, true),
        ];
        assert_eq!(trace, expect);
        assert_eq!((out.effort, out.relevant_found, out.depth, out.page_turns, out.switches), (14.0, 3, 6, 4, 4));
        // Weights scale each action kind: 6 * 2 + 4 * 0.5 + 4 * 3 = 26.
        let w = ActionWeights { examine: 2.0, paginate: 0.5, select: 3.0 };
        let o = path(&topic, &cont, &[0.5, 0.5], 2, &w, CutOff::FindAll, 2, &mut Vec::new());
        assert_eq!(o.effort, 26.0);
        // Actions cost 1 each: examine, examine, select + examine (effort 4), then the select of
        // step 4 still fits a budget of 5 but its page turn would exceed it: the walk stops
        // before that action, with effort 5, gain 2 and 3 results examined. (The earlier
        // sublist walker refused the whole step and reported effort 4; the gain, which an
        // effort budget measures, is the same.)
        let o = path(&topic, &cont, &[0.5, 0.5], 2, &d, CutOff::Effort(5.0), 3, &mut Vec::new());
        assert_eq!((o.effort, o.relevant_found, o.depth), (5.0, 2, 3));
        // find-1 stops after All#2.
        let o = path(&topic, &cont, &[0.5, 0.5], 2, &d, CutOff::Find(1), 4, &mut Vec::new());
        assert_eq!((o.effort, o.relevant_found), (2.0, 1));
    }

    #[test]
    fn basic_interface_is_deterministic_and_walks_down_all() {
        let topic = TopicSublists::new("t", vec![0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1], vec![("c".into(), vec![2, 11])]).unwrap();
        let basic = topic.basic();
        let cont = ContinuationKind::Exponential { lambda: 1.0 }.table(12);
        let d = ActionWeights::default();
        for key in 0..20 {
            let o = path(&basic, &cont, &[1.0], 10, &d, CutOff::FindAll, key, &mut Vec::new());
            // 12 examines + 1 page turn.
            assert_eq!((o.effort, o.depth, o.page_turns), (13.0, 12, 1));
        }
        // The RLR user may save effort through the sublist, never examines a result twice and
        // never exceeds the results available.
        for key in 0..200 {
            let mut trace = Vec::new();
            let o = path(&topic, &cont, &[0.5, 0.5], 10, &d, CutOff::FindAll, crate::rng::derive_key(key, &[]), &mut trace);
            let mut seen: Vec<u32> = trace.iter().filter_map(|s| if let Step::Examine { position, .. } = s { Some(*position) } else { None }).collect();
            let n = seen.len();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), n);
            assert_eq!(o.relevant_found, 2);
            assert!(o.depth <= 12);
        }
    }

    #[test]
    fn exhausted_sublists_are_not_chosen_and_walk_ends_when_all_seen() {
        // Zero continuation: switch at every step. Sublist c (All#1 only) is exhausted after
        // the first result, so switches from All can only go to d, and back.
        let topic = TopicSublists::new("t", vec![0; 5], vec![("c".into(), vec![0]), ("d".into(), vec![3, 4])]).unwrap();
        let cont = vec![0.0; 5];
        let mut trace = Vec::new();
        let d = ActionWeights::default();
        let o = path(&topic, &cont, &[1.0, 1.0, 1.0], 10, &d, CutOff::FindAll, 3, &mut trace);
        // Find-all with no relevant result: target 0 met at once.
        assert_eq!(o.depth, 0);
        let o = path(&topic, &cont, &[1.0, 1.0, 1.0], 10, &d, CutOff::Find(1), 3, &mut trace);
        assert_eq!(o.depth, 5);
        assert!(!trace.contains(&Step::Select { list: 1 }));
    }

    #[test]
    fn cutoff_names_round_trip() {
        for c in [CutOff::Find(1), CutOff::Find(10), CutOff::FindAll, CutOff::Effort(50.0)] {
            assert_eq!(CutOff::parse(&c.name()), Some(c));
        }
        assert_eq!(CutOff::parse("find-0"), None);
        assert_eq!(CutOff::parse("find-x"), None);
    }
}
