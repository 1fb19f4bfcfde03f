//! The replicate loop: every (profile, user) meets every topic and every system.
//!
//! Work is split into units of (profile, block of users); the block size depends only on the
//! number of users, never on the thread count. Within a unit, each user's parameters are drawn
//! once ([`UserProfile::resolve`]), then for each topic the user runs one session on every
//! system with the session key `(seed, topic id, user)`: the same random numbers on every
//! system and profile (common random numbers). A [`Sink`] receives every user's outcomes on all
//! systems at once (so it can pair them) and must merge units in an order-independent way (or
//! keep them apart); the output is then the same for any `--threads`.
//!
//! Profiles that share their click and mark tables (a sweep over stopping rules) make the same
//! click and mark decisions for the same user, topic and document: a run makes them once for
//! all such profiles ([`Decisions`]) and their walks look them up, with the same outcomes.

use super::decisions::{decide_alike, Decisions, MAX_BITS, MIN_SHARING};
use super::walk::{may_walk_flat, walk, walk_decided, DirichletChooser, GainEvents, Outcome, Scratch, SystemOnTopic};
use super::world::World;
use crate::error::{Error, Result};
use crate::rng::{derive_key, hash_str};
use crate::user::{ClickSource, ClickTables, Coverage, GradeMapping, GradeTables, ModelClicks, PriorBase, ResolvedUser, Unseen, UnseenPolicy, UserProfile};
use rand_distr::Gamma;
use rayon::prelude::*;
use std::sync::Arc;

/// A profile made ready for a world: its click-model tables per topic and its sublist priors.
#[derive(Debug, Clone)]
pub struct PreparedProfile {
    /// The profile.
    pub profile: UserProfile,
    /// The resolved user when no parameter varies between users.
    pub fixed: Option<ResolvedUser>,
    /// Click-model tables per topic (`None`: grade tables).
    pub clicks: Option<Vec<ClickTables>>,
    /// Gamma(alpha_k, 1) samplers per topic, system, query variant and sublist (empty when the
    /// list has no sublists; no topics at all when the profile does not switch).
    pub samplers: Vec<Vec<Vec<Vec<Option<Gamma<f64>>>>>>,
    /// Warnings to report (e.g. documents a click model does not know).
    pub warnings: Vec<String>,
}

/// The grade of every distinct (topic, document) the world's systems show.
fn shown_grades(world: &World) -> Vec<i32> {
    let mut out = Vec::new();
    for (t, topic) in world.topics.iter().enumerate() {
        let mut seen = vec![false; topic.grades.len()];
        for s in &world.systems {
            for l in s.serps[t].iter().flatten() {
                for &d in &l.docs {
                    if !std::mem::replace(&mut seen[d as usize], true) {
                        out.push(topic.grades[d as usize]);
                    }
                }
            }
        }
    }
    out
}

/// How many documents of the world's result lists a click model knows, per system.
fn coverage(world: &World, tables: &[ClickTables]) -> Vec<(String, Coverage)> {
    world
        .systems
        .iter()
        .map(|s| {
            let mut c = Coverage::default();
            for (t, serp) in s.serps.iter().enumerate() {
                for l in serp.iter().flatten() {
                    for &d in &l.docs {
                        c.total += 1;
                        c.known += usize::from(!tables[t].attractiveness[d as usize].is_nan());
                    }
                }
            }
            (s.name.clone(), c)
        })
        .collect()
}

impl PreparedProfile {
    /// Prepares `profile` for `world`; `clicks` is the loaded click model when the profile has
    /// one. Documents the model does not know follow the profile's `unseen` policy (mapped by
    /// grade with `"labels"` or `"quantile"`, see `clickmodels::portable`); a warning says what
    /// they got. Errors when the model knows no document of the world and the profile does not
    /// say how to map it (the error lists the choices), when no mapping is possible, or when it
    /// knows too few under `unseen = "error"`.
    pub fn new(world: &World, profile: &UserProfile, seed: u64, clicks: Option<&Arc<dyn ClickSource>>) -> Result<Self> {
        let mut warnings = Vec::new();
        let tables = match (&profile.click_model, clicks) {
            (Some(spec), Some(src)) => {
                let mut tables: Vec<ClickTables> = Vec::with_capacity(world.topics.len());
                for t in &world.topics {
                    tables.push(src.tables(&t.id, &t.doc_ids).0);
                }
                let cov = coverage(world, &tables);
                let (known, total) = cov.iter().fold((0, 0), |a, (_, c)| (a.0 + c.known, a.1 + c.total));
                let mismatch = || {
                    let ex = src.example_queries();
                    format!(
                        "profile `{}`: click model {} knows none of the {total} results in the collection (its query ids look like {}; the topics are {})",
                        profile.name,
                        src.describe(),
                        ex.iter().take(3).map(|q| format!("`{q}`")).collect::<Vec<_>>().join(", "),
                        world.topics.iter().take(3).map(|t| format!("`{}`", t.id)).collect::<Vec<_>>().join(", ")
                    )
                };
                let policy = match &spec.unseen {
                    Unseen::Policy(UnseenPolicy::Auto) if src.has_labels() => Unseen::Policy(UnseenPolicy::Labels),
                    Unseen::Policy(UnseenPolicy::Auto) if known > 0 => Unseen::Policy(UnseenPolicy::Grade),
                    Unseen::Policy(UnseenPolicy::Auto) => {
                        return Err(Error::Invalid(format!(
                            "{}. If the model was fitted on this collection, its query and document ids must be the collection's topic and document ids. \
                             Otherwise say how its attractiveness and satisfaction map to this collection's relevance grades, in the profile: \
                             `click_model = {{ file = \"...\", unseen = \"quantile\" }}` (assume they rise with the grade: quantile matching), \
                             `unseen = \"labels\"` (per-grade values: refit with `serpsim clicks fit --qrels FILE` on the log's own labels), \
                             `unseen = \"grade\"` (the profile's `clicks` tables), `unseen = \"prior\"` (0.5) or \
                             `unseen = {{ attractiveness = A, satisfaction = S }}` (docs/scenarios.md, \"Click-model users\")",
                            mismatch()
                        )))
                    }
                    u => u.clone(),
                };
                // Per-grade values for the unknown documents, from the labels or quantile matching.
                let map = match &policy {
                    Unseen::Policy(p @ (UnseenPolicy::Labels | UnseenPolicy::Quantile)) if known < total => {
                        let how = if *p == UnseenPolicy::Labels { GradeMapping::Labels } else { GradeMapping::Quantile };
                        let map = src.grade_map(how, &shown_grades(world)).map_err(|e| Error::Invalid(format!("profile `{}`: {e}", profile.name)))?;
                        if let Some(w) = &map.warning {
                            warnings.push(format!("profile `{}`: click model {}: {w}", profile.name, src.describe()));
                        }
                        let values: Vec<String> = map.rows.iter().map(|(g, a, s)| format!("grade {g}: attractiveness {a:.4}, satisfaction {s:.4}")).collect();
                        warnings.push(format!(
                            "profile `{}`: click model {} knows {known} of the {total} results ({:.1} % unseen); the unseen ones get attractiveness and satisfaction by relevance grade from {}: {}",
                            profile.name,
                            src.describe(),
                            100.0 * (total - known) as f64 / total.max(1) as f64,
                            map.assumption,
                            values.join("; ")
                        ));
                        Some(map)
                    }
                    _ => None,
                };
                for (name, c) in &cov {
                    if c.known < c.total {
                        let share = 100.0 * (c.total - c.known) as f64 / c.total.max(1) as f64;
                        let policy = match &policy {
                            Unseen::Policy(UnseenPolicy::Error) => {
                                if known == 0 {
                                    return Err(Error::Invalid(format!("{}, and `unseen = \"error\"`", mismatch())));
                                }
                                return Err(Error::Invalid(format!(
                                    "profile `{}`: click model {} has no parameters for {} of the {} results of system `{name}` ({share:.1} %), and `unseen = \"error\"`",
                                    profile.name,
                                    src.describe(),
                                    c.total - c.known,
                                    c.total
                                )));
                            }
                            Unseen::Policy(UnseenPolicy::Prior) => "get the prior 0.5".to_string(),
                            Unseen::Policy(UnseenPolicy::Grade | UnseenPolicy::Auto) => "use the profile's grade tables (`clicks`)".to_string(),
                            Unseen::Policy(UnseenPolicy::Labels | UnseenPolicy::Quantile) => {
                                format!("get values by relevance grade from {}", map.as_ref().map_or("", |m| m.assumption.as_str()))
                            }
                            Unseen::Values { attractiveness, satisfaction } => {
                                format!("get attractiveness {attractiveness} and satisfaction {satisfaction}")
                            }
                        };
                        warnings.push(format!(
                            "profile `{}`: click model {} has no parameters for {} of the {} results of system `{name}` ({share:.1} %); they {policy}",
                            profile.name,
                            src.describe(),
                            c.total - c.known,
                            c.total
                        ));
                    }
                }
                // The grade values' own query-independent parameters (`clicks fit --qrels`) run
                // the topics that take every value from them; a topic that mixes known
                // results and grade values keeps the model's, and a warning counts them.
                let grade_dynamics = map.as_ref().and_then(|m| m.dynamics.clone());
                let mut mixed = 0usize;
                for (t, topic) in tables.iter_mut().zip(&world.topics) {
                    if let Some(d) = &grade_dynamics {
                        let unknown = t.attractiveness.iter().filter(|a| a.is_nan()).count();
                        if unknown == t.attractiveness.len() {
                            t.dynamics = d.clone();
                        } else if unknown > 0 {
                            mixed += 1;
                        }
                    }
                    for ((a, s), &grade) in t.attractiveness.iter_mut().zip(t.satisfaction.iter_mut()).zip(&topic.grades) {
                        if a.is_nan() {
                            match &policy {
                                Unseen::Policy(UnseenPolicy::Prior) => {
                                    *a = crate::user::UNFITTED;
                                    *s = crate::user::UNFITTED;
                                }
                                Unseen::Values { attractiveness, satisfaction } => {
                                    *a = *attractiveness;
                                    *s = *satisfaction;
                                }
                                _ => {
                                    if let Some((ma, ms)) = map.as_ref().and_then(|m| m.get(grade)) {
                                        *a = ma;
                                        *s = ms;
                                    }
                                }
                            }
                        }
                    }
                }
                if mixed > 0 {
                    warnings.push(format!(
                        "profile `{}`: click model {}: {mixed} topic(s) mix results the model knows with results valued by grade; they run with the per-pair fit's examination and continuation, not those the grade values were fitted with",
                        profile.name,
                        src.describe()
                    ));
                }
                Some(tables)
            }
            (Some(_), None) => return Err(Error::Invalid(format!("profile `{}`: its click model was not loaded", profile.name))),
            (None, _) => None,
        };
        let su = &profile.sublists;
        // Only a user who switches sublists draws from the samplers: without sublists in the world,
        // or without switching, keep none (an empty
        // list per topic and system would cost a vector per query variant, 200 MB in a sweep of
        // 78 profiles over 50 topics, 3 systems and 80 variants).
        let any_sublists = world.systems.iter().any(|s| s.serps.iter().any(|t| t.iter().flatten().any(|l| l.sublists.is_some())));
        let topics_with_samplers = if su.switch && any_sublists { world.topics.len() } else { 0 };
        let mut samplers = Vec::with_capacity(topics_with_samplers);
        for t in 0..topics_with_samplers {
            let mut per_system = Vec::with_capacity(world.systems.len());
            for s in &world.systems {
                let mut per_variant = Vec::new();
                for l in s.serps[t].iter().flatten() {
                    match (&l.sublists, su.switch) {
                        (Some(sl), true) => {
                            let k = sl.k();
                            let alpha: Vec<f64> = (0..k)
                                .map(|i| {
                                    let base = match su.prior {
                                        PriorBase::Ndcg => sl.ndcg[i],
                                        PriorBase::Random => 1.0 / k as f64,
                                    };
                                    su.scale * base + su.smoothing
                                })
                                .collect();
                            per_variant.push(super::walk::dirichlet_samplers(&alpha)?);
                        }
                        _ => per_variant.push(Vec::new()),
                    }
                }
                per_system.push(per_variant);
            }
            samplers.push(per_system);
        }
        let fixed = (!profile.varies()).then(|| profile.resolve(seed, 0));
        Ok(PreparedProfile { profile: profile.clone(), fixed, clicks: tables, samplers, warnings })
    }

    /// Replaces the sublist prior of query variant `variant` of `system` on `topic` with
    /// Dirichlet(`alpha`), one weight per sublist ("All" first), instead of the profile's.
    pub fn set_prior(&mut self, topic: usize, system: usize, variant: usize, alpha: &[f64]) -> Result<()> {
        let Some(slot) = self.samplers.get_mut(topic).and_then(|s| s.get_mut(system)).and_then(|v| v.get_mut(variant)) else {
            return Err(Error::Invalid(format!("profile `{}`: no sublist prior at topic {topic}, system {system}, variant {variant}", self.profile.name)));
        };
        if slot.len() != alpha.len() {
            return Err(Error::Invalid(format!("profile `{}`: {} prior weights for {} sublists", self.profile.name, alpha.len(), slot.len())));
        }
        *slot = super::walk::dirichlet_samplers(alpha)?;
        Ok(())
    }
}

/// What to simulate: the walk's world and prepared profiles by default, or the stream path's
/// (`simulate::stream::StreamPlan`).
#[derive(Debug)]
pub struct RunPlan<'a, W = World, P = PreparedProfile> {
    /// Topics, systems, interface.
    pub world: &'a W,
    /// Prepared profiles.
    pub profiles: &'a [P],
    /// Simulated users per profile (each meets every topic and system).
    pub users: u64,
    /// Master seed.
    pub seed: u64,
    /// Users per unit of work (`None`: [`default_block`]).
    pub block: Option<u64>,
}

impl<W, P> Clone for RunPlan<'_, W, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<W, P> Copy for RunPlan<'_, W, P> {}

impl<W, P> RunPlan<'_, W, P> {
    /// The plan's units of work, in order (profile-major, then blocks of users): the same
    /// partition for every front end of the engine.
    pub fn units(&self) -> Vec<Unit> {
        let block = self.block.unwrap_or_else(|| default_block(self.users, self.profiles.len())).max(1);
        let mut out = Vec::new();
        for p in 0..self.profiles.len() {
            let mut first = 0;
            while first < self.users {
                let end = (first + block).min(self.users);
                out.push(Unit { index: out.len(), profile: p, first, end });
                first = end;
            }
        }
        out
    }
}

/// One unit of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    /// Index of the unit (profile-major, then user blocks).
    pub index: usize,
    /// Profile index.
    pub profile: usize,
    /// First user.
    pub first: u64,
    /// One past the last user.
    pub end: u64,
}

/// Units a run aims at: 8 per core on 16 cores, so the last units to finish leave little idle.
const TARGET_UNITS: u64 = 128;

/// Users per unit: at most 1,024 and at least 16, aiming at 32 units per profile, or fewer per
/// profile when there are more than 4 profiles (about [`TARGET_UNITS`] in all, at least one
/// per profile). Depends on the numbers of users and profiles only, so every thread count and
/// shard of a run cuts the same units. Fewer, larger units matter in sweeps: each unit merges
/// its per-topic sums into the run's cells once per topic and sets up its own accumulators
/// (docs/performance.md measures the Maxwell sweep's CPU time at several unit sizes).
pub fn default_block(users: u64, profiles: usize) -> u64 {
    let per_profile = (TARGET_UNITS / (profiles.max(1) as u64)).clamp(1, 32);
    users.div_ceil(per_profile).clamp(16, 1024)
}

/// Everything a sink learns about one user on one topic.
#[derive(Debug)]
pub struct Record<'a> {
    /// The unit.
    pub unit: &'a Unit,
    /// Topic index.
    pub topic: usize,
    /// User id.
    pub user: u64,
    /// Outcome per system (`None`: the system returned nothing for the topic).
    pub outcomes: &'a [Option<Outcome>],
    /// Gain events per system.
    pub events: &'a [GainEvents],
}

/// Receives outcomes. `finish` is called once per unit, from any thread and in any order.
pub trait Sink: Sync {
    /// The per-unit accumulator.
    type Acc: Send;
    /// A fresh accumulator for `unit`.
    fn start(&self, unit: &Unit) -> Self::Acc;
    /// One user on one topic.
    fn record(&self, acc: &mut Self::Acc, r: &Record);
    /// Every user of the unit has done `topic` (a place to flush per-topic state).
    fn topic_done(&self, _acc: &mut Self::Acc, _unit: &Unit, _topic: usize) {}
    /// The unit is done.
    fn finish(&self, unit: &Unit, acc: Self::Acc) -> Result<()>;
}

/// Two sinks fed by one run (the report's sink and a preset's, e.g. the stream path's MSU sink
/// or the sessions sweep's tables).
impl<A: Sink, B: Sink> Sink for (A, B) {
    type Acc = (A::Acc, B::Acc);

    fn start(&self, unit: &Unit) -> Self::Acc {
        (self.0.start(unit), self.1.start(unit))
    }

    fn record(&self, acc: &mut Self::Acc, r: &Record) {
        self.0.record(&mut acc.0, r);
        self.1.record(&mut acc.1, r);
    }

    fn topic_done(&self, acc: &mut Self::Acc, unit: &Unit, topic: usize) {
        self.0.topic_done(&mut acc.0, unit, topic);
        self.1.topic_done(&mut acc.1, unit, topic);
    }

    fn finish(&self, unit: &Unit, acc: Self::Acc) -> Result<()> {
        self.0.finish(unit, acc.0)?;
        self.1.finish(unit, acc.1)
    }
}

/// The units of `plan`, in order.
pub fn units(plan: &RunPlan) -> Vec<Unit> {
    plan.units()
}

/// The session key of `user` on topic `topic_id`: shared by every system and profile.
#[inline]
pub fn session_key(seed: u64, topic_hash: u64, user: u64) -> u64 {
    user_key(topic_key(seed, topic_hash), user)
}

/// The part of [`session_key`] shared by every user of a topic (`derive_key(seed, &[topic_hash])`).
#[inline]
pub fn topic_key(seed: u64, topic_hash: u64) -> u64 {
    derive_key(seed, &[topic_hash])
}

/// [`session_key`] from the topic's [`topic_key`]: `derive_key` extends a key by one id with
/// the same formula as `item_key`, so this equals `derive_key(seed, &[topic_hash, user])`.
#[inline]
pub fn user_key(topic_key: u64, user: u64) -> u64 {
    crate::rng::item_key_fast(topic_key, user)
}

/// Runs `plan` on the current rayon pool; `progress(done, total)` is called after each unit.
pub fn run<S: Sink>(plan: &RunPlan, sink: &S, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<()> {
    run_units(plan, sink, 0..usize::MAX, progress)
}

/// Runs the units of `plan` whose index is in `range` (clamped to the plan's units): a shard
/// of the run for another process or machine (the Spark simulation). The units, their users
/// and their random streams are those of the whole plan, so the shards of a partition of
/// `0..units(plan).len()` together feed a sink exactly what [`run`] feeds it.
pub fn run_units<S: Sink>(plan: &RunPlan, sink: &S, range: std::ops::Range<usize>, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<()> {
    plan.world.validate()?;
    if plan.profiles.is_empty() {
        return Err(Error::Invalid("no user profiles to simulate".into()));
    }
    if plan.users == 0 {
        return Err(Error::Invalid("users (replicates) must be at least 1".into()));
    }
    let all = units(plan);
    let units = &all[range.start.min(all.len())..range.end.min(all.len())];
    let decisions = shared_decisions(plan, units);
    drive(units, sink, progress, |unit| run_unit(plan, sink, unit, &decisions))
}

/// The decisions made in advance for `units` ([`Decisions`]): one set per pair of click and
/// mark tables that at least [`MIN_SHARING`] of the units' profiles share (profiles whose users
/// do not vary, click by their grade tables and may walk flat), while they fit in [`MAX_BITS`]
/// together.
fn shared_decisions(plan: &RunPlan, units: &[Unit]) -> Vec<Decisions> {
    let mut shared: Vec<(&GradeTables, Vec<usize>)> = Vec::new();
    for unit in units {
        let p = &plan.profiles[unit.profile];
        let (Some(user), None) = (&p.fixed, &p.clicks) else { continue };
        if !may_walk_flat(user, plan.world) {
            continue;
        }
        let g = &user.grades;
        match shared.iter_mut().find(|(t, _)| decide_alike(t, g)) {
            Some((_, profiles)) if !profiles.contains(&unit.profile) => profiles.push(unit.profile),
            Some(_) => {}
            None => shared.push((g, vec![unit.profile])),
        }
    }
    let (Some(first), Some(end)) = (units.iter().map(|u| u.first).min(), units.iter().map(|u| u.end).max()) else { return Vec::new() };
    let bits = Decisions::bits(plan.world, end - first);
    let mut left = MAX_BITS;
    let mut out = Vec::new();
    for (tables, profiles) in shared {
        if profiles.len() >= MIN_SHARING && bits <= left {
            left -= bits;
            out.push(Decisions::new(plan.world, plan.seed, tables, first..end));
        }
    }
    out
}

/// Runs `work` on every unit in parallel on the current rayon pool and hands each result to
/// `sink.finish`; `progress(done, total)` is called after each unit. The replicate loop shared
/// by the walk ([`run_units`]) and the stream path (`simulate::stream`).
pub fn drive<S: Sink>(units: &[Unit], sink: &S, progress: &(dyn Fn(u64, u64) + Sync), work: impl Fn(&Unit) -> S::Acc + Sync) -> Result<()> {
    let total = units.len() as u64;
    let done = std::sync::atomic::AtomicU64::new(0);
    units.par_iter().try_for_each(|unit| -> Result<()> {
        // Ctrl-C (the CLI's handler, the Python binding's cancel) stops the run between units.
        crate::interrupt::check()?;
        let acc = work(unit);
        sink.finish(unit, acc)?;
        let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        progress(d, total);
        Ok(())
    })
}

fn run_unit<S: Sink>(plan: &RunPlan, sink: &S, unit: &Unit, decisions: &[Decisions]) -> S::Acc {
    let world = plan.world;
    let prepared = &plan.profiles[unit.profile];
    let decided = match (&prepared.fixed, &prepared.clicks) {
        (Some(user), None) => decisions.iter().find(|d| d.fits(&user.grades)),
        _ => None,
    };
    let users: Vec<ResolvedUser> = match &prepared.fixed {
        Some(_) => Vec::new(),
        None => (unit.first..unit.end).map(|u| prepared.profile.resolve(plan.seed, u)).collect(),
    };
    let mut acc = sink.start(unit);
    let mut scratch = Scratch::default();
    let n_sys = world.systems.len();
    let mut outcomes: Vec<Option<Outcome>> = vec![None; n_sys];
    let mut events: Vec<GainEvents> = vec![GainEvents::default(); n_sys];
    for (t, topic) in world.topics.iter().enumerate() {
        let th = hash_str(&topic.id);
        let tk = topic_key(plan.seed, th);
        let stages: Vec<Option<SystemOnTopic>> = (0..world.systems.len()).map(|s| SystemOnTopic::of(world, t, s)).collect();
        if stages.iter().all(|s| s.is_none()) {
            continue;
        }
        let tables = prepared.clicks.as_ref().map(|c| &c[t]);
        let mut choosers: Vec<DirichletChooser> =
            (0..n_sys).map(|s| DirichletChooser::new(prepared.samplers.get(t).and_then(|p| p.get(s)).map_or(&[][..], Vec::as_slice))).collect();
        for u in unit.first..unit.end {
            let user = match &prepared.fixed {
                Some(f) => f,
                None => &users[(u - unit.first) as usize],
            };
            let key = user_key(tk, u);
            let row = decided.and_then(|d| d.row(t, u));
            for (s, stage) in stages.iter().enumerate() {
                events[s].0.clear();
                outcomes[s] = stage.as_ref().map(|stage| {
                    let chooser = &mut choosers[s];
                    chooser.begin(key);
                    match tables {
                        Some(tables) => walk(stage, user, &ModelClicks { tables, grades: &user.grades }, chooser, key, &mut scratch, &mut events[s]),
                        None => walk_decided(stage, user, &user.grades, chooser, key, &mut scratch, &mut events[s], row),
                    }
                });
            }
            sink.record(&mut acc, &Record { unit, topic: t, user: u, outcomes: &outcomes, events: &events });
        }
        sink.topic_done(&mut acc, unit, t);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn session_key_is_the_documented_derivation() {
        // The key of the module docs, `derive_key(seed, [topic hash, user])`, computed the long
        // way; the per-topic split must not change a single key (every stored result uses them).
        for (seed, th) in [(0u64, 0u64), (7, 0xabc), (u64::MAX, 12345)] {
            for u in [0u64, 1, 1023, 1024, 99_999_999] {
                assert_eq!(session_key(seed, th, u), derive_key(seed, &[th, u]));
            }
        }
    }

    /// Collects every outcome in (profile, topic, user, system) order.
    struct Collect(Mutex<Vec<(usize, usize, u64, usize, Outcome)>>);

    impl Sink for Collect {
        type Acc = Vec<(usize, usize, u64, usize, Outcome)>;
        fn start(&self, _: &Unit) -> Self::Acc {
            Vec::new()
        }
        fn record(&self, acc: &mut Self::Acc, r: &Record) {
            for (s, o) in r.outcomes.iter().enumerate() {
                if let Some(o) = o {
                    acc.push((r.unit.profile, r.topic, r.user, s, *o));
                }
            }
        }
        fn finish(&self, _: &Unit, acc: Self::Acc) -> Result<()> {
            self.0.lock().unwrap().extend(acc);
            Ok(())
        }
    }

    #[test]
    fn default_block_aims_at_32_units_per_profile_and_128_in_all() {
        // Hand derivation: 2,000 users / 32 = 62.5 -> 63; 300 / 32 -> 10, raised to 16;
        // 4 profiles keep 32 per profile (128 / 4); 8 profiles: 16 per profile, 2,000 / 16 =
        // 125; 9: 128 / 9 = 14, 2,000 / 14 = 142.9 -> 143; 78 profiles: one unit each (300);
        // 10^6 users cap at 1,024; 5 users in 1,000 profiles: one unit each, raised to 16.
        assert_eq!(default_block(2000, 1), 63);
        assert_eq!(default_block(300, 1), 16);
        assert_eq!(default_block(2000, 4), 63);
        assert_eq!(default_block(2000, 8), 125);
        assert_eq!(default_block(2000, 9), 143);
        assert_eq!(default_block(300, 78), 300);
        assert_eq!(default_block(1_000_000, 1), 1024);
        assert_eq!(default_block(5, 1000), 16);
    }

    #[test]
    fn decisions_made_in_advance_change_no_session() {
        // Five profiles with the same click and mark tables and different stopping rules (SS1
        // to SS3 as in the Maxwell sweep), and one with other tables: run together, the five
        // share decisions made in advance; run one at a time (below `MIN_SHARING`) every
        // decision is drawn in the walk. Every session must be the same.
        use crate::user::{Basis, Param, StoppingRuleKind};
        let c = crate::collection::synthetic::SyntheticConfig { topics: 3, docs_per_topic: 60, ..Default::default() }.generate().unwrap();
        let world = World::from_collection(&c);
        let profile = |name: &str, stop: StoppingRuleKind, click: [f64; 2]| {
            let mut p = UserProfile::named(name);
            p.clicks.click = click.iter().map(|&x| Param::Fixed(x)).collect();
            p.clicks.mark = vec![Param::Fixed(0.3), Param::Fixed(0.8)];
            p.continuation = Some(crate::user::ContinuationModel::Rbp { p: Param::Fixed(1.0) });
            p.stopping = vec![stop];
            PreparedProfile::new(&world, &p, 9, None).unwrap()
        };
        let (fd, tn, cn) = (
            |n| StoppingRuleKind::FixedDepth { n: Param::Fixed(n) },
            |n| StoppingRuleKind::TotalNonrelevant { n: Param::Fixed(n), basis: Basis::Snippet },
            |n| StoppingRuleKind::ContiguousNonrelevant { n: Param::Fixed(n), basis: Basis::Snippet },
        );
        let prepared = [
            profile("a", fd(3.0), [0.4, 0.7]),
            profile("b", fd(12.0), [0.4, 0.7]),
            profile("c", tn(4.0), [0.4, 0.7]),
            profile("d", cn(2.0), [0.4, 0.7]),
            profile("e", cn(5.0), [0.4, 0.7]),
            profile("f", fd(8.0), [0.2, 0.9]),
        ];
        let collect = |profiles: &[PreparedProfile]| {
            let plan = RunPlan { world: &world, profiles, users: 40, seed: 9, block: None };
            let sink = Collect(Mutex::new(Vec::new()));
            run(&plan, &sink, &|_, _| {}).unwrap();
            let mut v = sink.0.into_inner().unwrap();
            v.sort_by_key(|a| (a.0, a.1, a.2, a.3));
            (v, shared_decisions(&plan, &plan.units()).len())
        };
        let (together, made) = collect(&prepared);
        assert_eq!(made, 1, "the five profiles with equal tables share one set of decisions");
        assert_eq!(world.systems.len(), 2);
        assert_eq!(together.len(), 6 * 3 * 40 * 2, "every profile, topic, user and system");
        for (p, one) in prepared.iter().enumerate() {
            let (alone, made) = collect(std::slice::from_ref(one));
            assert_eq!(made, 0);
            let expected: Vec<_> = alone.into_iter().map(|(_, t, u, s, o)| (p, t, u, s, o)).collect();
            let got: Vec<_> = together.iter().filter(|r| r.0 == p).copied().collect();
            assert_eq!(got, expected, "profile {p}");
        }
        // Three profiles sharing tables are too few.
        let (_, made) = collect(&prepared[..3]);
        assert_eq!(made, 0);
        // Users who may turn pages at random never walk flat: nothing is made for them.
        let paging: Vec<PreparedProfile> = prepared
            .iter()
            .map(|p| {
                let mut profile = p.profile.clone();
                profile.page_continuation = crate::user::Param::Fixed(0.9);
                PreparedProfile::new(&world, &profile, 9, None).unwrap()
            })
            .collect();
        let (_, made) = collect(&paging);
        assert_eq!(made, 0);
    }

    #[test]
    fn thread_count_does_not_change_outcomes_and_blocks_do_not_either() {
        let c = crate::collection::synthetic::SyntheticConfig { topics: 3, docs_per_topic: 30, ..Default::default() }.generate().unwrap();
        let world = World::from_collection(&c);
        let prepared = [PreparedProfile::new(&world, &UserProfile::named("a"), 5, None).unwrap()];
        let run_with = |threads: usize, block: Option<u64>| {
            let plan = RunPlan { world: &world, profiles: &prepared, users: 2000, seed: 5, block };
            let sink = Collect(Mutex::new(Vec::new()));
            rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| run(&plan, &sink, &|_, _| {}).unwrap());
            let mut v = sink.0.into_inner().unwrap();
            v.sort_by_key(|a| (a.0, a.1, a.2, a.3));
            v
        };
        let one = run_with(1, None);
        assert_eq!(one.len(), 3 * 2 * 2000);
        assert_eq!(one, run_with(2, None));
        assert_eq!(one, run_with(2, Some(7)), "the user block size does not change any session");
    }
}
