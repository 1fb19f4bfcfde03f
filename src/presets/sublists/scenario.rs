//! `serpsim sublists ...` reads the one scenario schema (see `simulations/sublists/default.toml`):
//! a collection with category labels, an interface with sublists and a basic twin, one
//! profile (He et al.'s user: `continuation = { model = "exponential", rank_of = "next" }`,
//! `sublists = { switch = true }`), and `[[sweep]]` entries over the task (`stopping[0]`, or
//! `budget.effort` for effort-B), the prior (`sublists.prior`, `sublists.smoothing`) and
//! `continuation.lambda`. This module reads the sweep grid back from the expanded profiles.

use super::analysis::{HelpResponse, HelpSettings};
use super::measures::Prior;
use super::model::{ActionWeights, CutOff, TopicSublists};
use super::sweep::SweepGrid;
use crate::error::{Error, Result};
use crate::scenario::{Loaded, Scenario};
use crate::simulate::world::World;
use crate::user::{ContinuationModel, PriorBase, StoppingRuleKind, UserProfile};
use std::path::Path;

/// A sublist study: the world (the system with sublists and its basic twin), He et al.'s
/// topics, the sweep grid and each profile's place in it.
#[derive(Debug, Clone)]
pub struct SublistStudy {
    /// The loaded scenario.
    pub loaded: Loaded,
    /// The topics with their sublists (system 0, first query).
    pub topics: Vec<TopicSublists>,
    /// The grid.
    pub grid: SweepGrid,
    /// (task, prior, lambda) of each profile.
    pub labels: Vec<(usize, usize, usize)>,
    /// Settings of `sublists when`.
    pub help: HelpSettings,
}

fn task_of(p: &UserProfile) -> Option<CutOff> {
    if let Some(b) = p.budget.effort.as_ref().and_then(|b| b.fixed()) {
        return Some(CutOff::Effort(b));
    }
    match p.stopping.first()? {
        StoppingRuleKind::Satisfaction { k } => Some(CutOff::Find(k.fixed()? as u32)),
        StoppingRuleKind::FindAll => Some(CutOff::FindAll),
        _ => None,
    }
}

fn prior_of(p: &UserProfile) -> Option<Prior> {
    let s = &p.sublists;
    if s.scale != 1.0 {
        return None;
    }
    match (s.prior, s.smoothing) {
        (PriorBase::Ndcg, 0.0) => Some(Prior::Ndcg),
        (PriorBase::Ndcg, x) => Some(Prior::Smoothed(x)),
        (PriorBase::Random, 0.0) => Some(Prior::Random),
        _ => None,
    }
}

fn lambda_of(p: &UserProfile) -> Option<f64> {
    match &p.continuation {
        Some(ContinuationModel::Exponential { lambda, rank_of: crate::user::RankOf::Next }) => lambda.fixed(),
        _ => None,
    }
}

/// He et al.'s topics of `world`'s system 0 (first query of each topic).
pub fn topics_of(world: &World) -> Result<Vec<TopicSublists>> {
    let sys = &world.systems[0];
    let mut out = Vec::new();
    for (t, serp) in sys.serps.iter().enumerate() {
        let Some(list) = serp.as_ref().and_then(|v| v.first()) else { continue };
        let Some(sl) = &list.sublists else {
            return Err(Error::Invalid(format!("system `{}` has no sublists: set [interface] sublists = true", sys.name)));
        };
        let grades: Vec<i32> = list.docs.iter().map(|&d| world.topics[t].grades[d as usize]).collect();
        let named = sl.categories[1..]
            .iter()
            .zip(&sl.lists[1..])
            .map(|(&c, l)| (world.categories.get(c as usize).cloned().unwrap_or_else(|| format!("c{c}")), l.clone()))
            .collect();
        out.push(TopicSublists::new(world.topics[t].id.clone(), grades, named)?);
    }
    Ok(out)
}

/// Index of `x` in `v`, appended if new.
fn index_of<T: PartialEq>(v: &mut Vec<T>, x: T) -> usize {
    match v.iter().position(|y| *y == x) {
        Some(i) => i,
        None => {
            v.push(x);
            v.len() - 1
        }
    }
}

impl SublistStudy {
    /// Reads the study from a scenario (paths relative to `base`).
    pub fn from_scenario(s: &Scenario, base: &Path, context: &str) -> Result<Self> {
        let loaded = s.load(base)?;
        if loaded.world.systems.len() != 2 || !loaded.world.systems[1].name.ends_with("(All only)") {
            return Err(Error::Invalid(format!(
                "{context}: the sublist commands need one system with sublists and its basic twin: one run or ranker, [interface] sublists = true and basic_twin = true"
            )));
        }
        let topics = topics_of(&loaded.world)?;
        let mut grid = SweepGrid {
            lambdas: Vec::new(),
            priors: Vec::new(),
            tasks: Vec::new(),
            replicates: s.replicates as usize,
            seed: s.seed,
            page_size: loaded.world.page_size as u32,
            weights: ActionWeights::default(),
        };
        let mut labels = Vec::new();
        for p in &loaded.prepared {
            let prof = &p.profile;
            let bad = |what: &str| {
                Error::Invalid(format!(
                    "{context}: profile `{}`: {what} (the sublist commands read He et al.'s user: an exponential continuation with rank_of = \"next\", a find-N, find-all or effort-budget task, and an ndcg, random or ndcg + smoothing prior)",
                    prof.name
                ))
            };
            let task = task_of(prof).ok_or_else(|| bad("no task (stopping[0] satisfaction or find_all, or budget.effort)"))?;
            let prior = prior_of(prof).ok_or_else(|| bad("no prior of the paper"))?;
            let lambda = lambda_of(prof).ok_or_else(|| bad("no fixed exponential lambda"))?;
            labels.push((index_of(&mut grid.tasks, task), index_of(&mut grid.priors, prior), index_of(&mut grid.lambdas, lambda)));
            let e = prof.effort.resolve(crate::user::ActionTable::DEFAULT_EFFORT, 0, 0, "effort");
            grid.weights = ActionWeights { examine: e.examine_snippet, paginate: e.paginate, select: e.select_sublist };
        }
        let when = s.when.clone().unwrap_or_default();
        let tasks = when
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                CutOff::parse(t).ok_or_else(|| Error::config(context, format!("when.tasks[{i}]"), format!("`{t}` is not find-N, find-all or effort-B")))
            })
            .collect::<Result<Vec<_>>>()?;
        crate::limits::check_non_negative(context, "when.lambda", when.lambda)?;
        if when.hl_groups < 3 {
            return Err(Error::config(context, "when.hl_groups", "must be at least 3"));
        }
        crate::limits::check_usize(context, "when.hl_groups", when.hl_groups, crate::limits::MAX_HL_GROUPS, "Hosmer-Lemeshow groups")?;
        if let Some(r) = when.replicates {
            crate::limits::check_usize(context, "when.replicates", r, crate::limits::MAX_REPLICATES, "simulated users per topic, task and level")?;
        }
        if when.smoothing.is_empty() {
            return Err(Error::config(context, "when.smoothing", "must not be empty"));
        }
        let response = match when.response.as_str() {
            "users" => HelpResponse::Users,
            "median" => HelpResponse::Median,
            other => return Err(Error::config(context, "when.response", format!("`{other}` is not `users` or `median`"))),
        };
        let help = HelpSettings {
            lambda: when.lambda,
            tasks,
            smoothing: when.smoothing.clone(),
            replicates: when.replicates.unwrap_or(s.replicates as usize),
            seed: s.seed,
            page_size: grid.page_size,
            weights: grid.weights,
            hl_groups: when.hl_groups,
            response,
        };
        Ok(SublistStudy { loaded, topics, grid, labels, help })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_study_reads_the_papers_grid() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("simulations/sublists/default.toml");
        let (s, base) = Scenario::from_file(&path).unwrap();
        let study = SublistStudy::from_scenario(&s, &base, "default.toml").unwrap();
        assert_eq!(study.grid.lambdas, vec![1.0, 0.5, 0.1, 0.05, 0.01, 0.005, 0.001]);
        assert_eq!(study.grid.tasks, vec![CutOff::Find(1), CutOff::Find(10), CutOff::FindAll]);
        assert_eq!(study.grid.priors, vec![Prior::Ndcg, Prior::Random]);
        assert_eq!(study.labels.len(), 42);
        assert_eq!(study.topics.len(), 50);
    }
}
