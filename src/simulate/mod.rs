//! The what-if engine: one user model walked through one interface, for every (profile, user,
//! topic, system), in parallel, with random streams keyed by ids.
//!
//! - [`world`]: topics, systems, query variants and sublists as flat tables.
//! - [`walk`]: one session (the hot loop): query formulation, examination, clicks, costs, gain,
//!   stopping, sublist switching.
//! - [`decisions`]: click and mark decisions made once for the profiles that share them.
//! - [`engine`]: the replicate loop (units of users, rayon, common random numbers) feeding a
//!   [`engine::Sink`].
//! - [`stream`]: the stream path (modeled stream utility): visits at points in time to update
//!   lists, through the same replicate loop and sinks.
//! - [`summary`]: the report's sink (every measure, paired differences, gain curves, budgets,
//!   streamed samples) with memory independent of the number of users.
//!
//! ```
//! use serpsim::simulate::{one_list_world, outcomes, PreparedProfile};
//! use serpsim::user::{ContinuationModel, Param, UserProfile};
//! let world = one_list_world(vec![1, 0, 1, 0, 0], 10);
//! let mut user = UserProfile::named("patient");
//! user.continuation = Some(ContinuationModel::Rbp { p: Param::Fixed(0.8) });
//! let prepared = PreparedProfile::new(&world, &user, 42, None).unwrap();
//! let out = outcomes(&world, &prepared, 1000, 42).unwrap();
//! assert!(out.iter().all(|o| o.depth >= 1 && o.depth <= 5));
//! ```

pub mod decisions;
pub mod engine;
pub mod stream;
pub mod stream_io;
pub mod summary;
pub mod walk;
pub mod world;

pub use crate::rng::bernoulli;
pub use engine::{default_block, run, session_key, PreparedProfile, Record, RunPlan, Sink, Unit};
pub use summary::{Better, MeasureInfo, ReportSink, RunSummary, SinkConfig, MEASURES, N_MEASURES};
pub use walk::{walk, Outcome, Scratch, Step, SystemOnTopic, Trace};
pub use world::{QueryList, Sublists, World, WorldSystem, WorldTopic};

use crate::error::Result;
use std::sync::Mutex;

/// A world of one topic (`t`) and one system (`s`) whose list has the given grades, documents
/// `d0`, `d1`, ...: for examples and tests.
pub fn one_list_world(grades: Vec<i32>, page_size: usize) -> World {
    let topic = WorldTopic {
        id: "t".into(),
        doc_ids: (0..grades.len()).map(|i| format!("d{i}")).collect(),
        relevant: grades.iter().filter(|&&g| g > 0).count(),
        subtopics: vec![0; grades.len()],
        categories: vec![Vec::new(); grades.len()],
        grades,
    };
    let list = QueryList::new(&topic, (0..topic.grades.len() as u32).collect());
    World {
        topics: vec![topic],
        systems: vec![WorldSystem { name: "s".into(), delays: Default::default(), serps: vec![Some(vec![list])] }],
        categories: Vec::new(),
        page_size,
        fold: usize::MAX,
        below_fold: 0.0,
    }
}

/// Collects the outcomes of system 0 on topic 0 in user order.
struct FirstCell(Mutex<Vec<(u64, Outcome)>>);

impl Sink for FirstCell {
    type Acc = Vec<(u64, Outcome)>;
    fn start(&self, _: &Unit) -> Self::Acc {
        Vec::new()
    }
    fn record(&self, acc: &mut Self::Acc, r: &Record) {
        if r.topic == 0 {
            if let Some(o) = r.outcomes[0] {
                acc.push((r.user, o));
            }
        }
    }
    fn finish(&self, _: &Unit, acc: Self::Acc) -> Result<()> {
        self.0.lock().expect("no panics while locked").extend(acc);
        Ok(())
    }
}

/// The outcomes of `users` users of one prepared profile on the first topic and system of
/// `world`, in user order (the engine's loop with a collecting sink).
pub fn outcomes(world: &World, prepared: &PreparedProfile, users: u64, seed: u64) -> Result<Vec<Outcome>> {
    let plan = RunPlan { world, profiles: std::slice::from_ref(prepared), users, seed, block: None };
    let sink = FirstCell(Mutex::new(Vec::new()));
    run(&plan, &sink, &|_, _| {})?;
    let mut v = sink.0.into_inner().expect("no panics while locked");
    v.sort_by_key(|x| x.0);
    Ok(v.into_iter().map(|x| x.1).collect())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::user::{ContinuationModel, Dist, Param, UserProfile};

    /// Collects every outcome of every cell: (profile, topic, system) -> outcomes in user order.
    pub(crate) struct All(pub(crate) Mutex<Vec<((usize, usize, usize), u64, Outcome)>>);

    impl Sink for All {
        type Acc = Vec<((usize, usize, usize), u64, Outcome)>;
        fn start(&self, _: &Unit) -> Self::Acc {
            Vec::new()
        }
        fn record(&self, acc: &mut Self::Acc, r: &Record) {
            for (s, o) in r.outcomes.iter().enumerate() {
                if let Some(o) = o {
                    acc.push(((r.unit.profile, r.topic, s), r.user, *o));
                }
            }
        }
        fn finish(&self, _: &Unit, acc: Self::Acc) -> Result<()> {
            self.0.lock().unwrap().extend(acc);
            Ok(())
        }
    }

    pub(crate) fn mean_var(xs: &[f64]) -> (f64, f64) {
        (crate::stats::mean(xs), crate::stats::sd(xs).powi(2))
    }

    /// Depth on a long list of non-relevant results with persistence p: P(D >= k) = p^(k-1), so
    /// E[D | p] = 1 / (1 - p) and E[D^2 | p] = (1 + p) / (1 - p)^2. Over p ~ Beta(a, b):
    /// E[(1 - p)^-1] = (a + b - 1) / (b - 1) and E[(1 - p)^-2] = (a + b - 1)(a + b - 2) /
    /// ((b - 1)(b - 2)) (Beta integrals, by hand). For Beta(12, 8): E[D] = 19/7 = 2.7143,
    /// E[D^2] = 2 x 8.142857 - 2.714286 = 13.5714, Var[D] = 6.2041; a fixed p = 0.6 (the same
    /// mean) gives E[D] = 2.5 and Var[D] = p / (1 - p)^2 = 3.75. The population's spread is wider.
    #[test]
    fn population_spread_matches_closed_forms() {
        let world = one_list_world(vec![0; 400], 1000);
        let users = 200_000u64;
        let depths = |p: Param| -> Vec<f64> {
            let mut prof = UserProfile::named("u");
            prof.continuation = Some(ContinuationModel::Rbp { p });
            let prepared = PreparedProfile::new(&world, &prof, 8, None).unwrap();
            outcomes(&world, &prepared, users, 8).unwrap().iter().map(|o| o.depth as f64).collect()
        };
        let check = |xs: &[f64], mean: f64, var: f64| {
            let n = xs.len() as f64;
            let (m, v) = mean_var(xs);
            let m4 = xs.iter().map(|x| (x - m).powi(4)).sum::<f64>() / n;
            let (se_m, se_v) = ((v / n).sqrt(), ((m4 - v * v) / n).sqrt());
            assert!((m - mean).abs() < 4.0 * se_m, "mean {m} vs {mean} (se {se_m})");
            assert!((v - var).abs() < 4.0 * se_v, "variance {v} vs {var} (se {se_v})");
            (m, v)
        };
        let (_, v_pop) = check(&depths(Param::Dist(Dist::Beta { a: 12.0, b: 8.0 })), 19.0 / 7.0, 13.571428571 - (19.0f64 / 7.0).powi(2));
        let (_, v_fixed) = check(&depths(Param::Fixed(0.6)), 2.5, 3.75);
        assert!(v_pop > v_fixed * 1.5, "population variance {v_pop} vs fixed {v_fixed}");
    }

    /// Common random numbers: the same user meets two identical systems in the same way, so
    /// every paired difference is 0, even with parameters drawn per user.
    #[test]
    fn identical_systems_give_identical_sessions() {
        let mut world = one_list_world(vec![1, 0, 2, 0, 1, 0, 0, 1], 3);
        let twin = WorldSystem { name: "twin".into(), ..world.systems[0].clone() };
        world.systems.push(twin);
        let mut prof = UserProfile::named("u");
        prof.continuation = Some(ContinuationModel::Rbp { p: Param::Dist(Dist::Beta { a: 8.0, b: 2.0 }) });
        prof.clicks = crate::user::Cascade::fixed(&[0.3, 0.7, 0.9], &[0.0, 0.2, 0.4], &[0.0, 1.0]);
        let prepared = [PreparedProfile::new(&world, &prof, 4, None).unwrap()];
        let plan = RunPlan { world: &world, profiles: &prepared, users: 5000, seed: 4, block: None };
        let sink = All(Mutex::new(Vec::new()));
        run(&plan, &sink, &|_, _| {}).unwrap();
        let all = sink.0.into_inner().unwrap();
        let by = |s: usize| {
            let mut v: Vec<(u64, Outcome)> = all.iter().filter(|x| x.0 .2 == s).map(|x| (x.1, x.2)).collect();
            v.sort_by_key(|x| x.0);
            v
        };
        let (a, b) = (by(0), by(1));
        assert_eq!(a.len(), 5000);
        assert_eq!(a, b);
        assert!(a.iter().any(|x| x.1.depth != a[0].1.depth), "sessions vary between users");
    }

    fn cascade(grades: Vec<i32>, page_size: usize, prof: &UserProfile, users: u64) -> Vec<Outcome> {
        let world = one_list_world(grades, page_size);
        let prepared = PreparedProfile::new(&world, prof, 11, None).unwrap();
        outcomes(&world, &prepared, users, 11).unwrap()
    }

    /// With persistence p, clicks on every relevant and no non-relevant result, the expected
    /// gain times (1 - p) is the list's RBP (Moffat and Zobel's closed form, `metrics::rbp`).
    #[test]
    fn mean_gain_matches_closed_form_rbp() {
        let grades = vec![1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0];
        let p = 0.8;
        let mut prof = UserProfile::named("rbp");
        prof.continuation = Some(ContinuationModel::Rbp { p: Param::Fixed(p) });
        let out = cascade(grades.clone(), 10, &prof, 100_000);
        let xs: Vec<f64> = out.iter().map(|o| o.gain * (1.0 - p)).collect();
        let (m, v) = mean_var(&xs);
        let se = (v / xs.len() as f64).sqrt();
        let rel: Vec<f64> = grades.iter().map(|&g| f64::from(u8::from(g > 0))).collect();
        let (expected, _) = crate::metrics::rbp(&rel, p);
        assert!((m - expected).abs() < 4.0 * se, "simulated {m} +- {se}, RBP {expected}");
    }

    /// Geometric continuation: mean depth 1 / (1 - p) = 5 for p = 0.8 on a long list.
    #[test]
    fn geometric_continuation_mean_depth() {
        let mut prof = UserProfile::named("geo");
        prof.continuation = Some(ContinuationModel::Rbp { p: Param::Fixed(0.8) });
        let xs: Vec<f64> = cascade(vec![0; 400], 10, &prof, 100_000).iter().map(|o| o.depth as f64).collect();
        let (m, v) = mean_var(&xs);
        assert!((m - 5.0).abs() < 4.0 * (v / xs.len() as f64).sqrt(), "mean depth {m}");
    }

    /// A deterministic walk, by hand: grades 1, 0, 0, 2, 0, page size 2, clicks on every
    /// relevant result, SS3 at 2. Ranks 1-3 are examined (a page turn before rank 3), one click
    /// on rank 1; SS3 fires at rank 3. Effort 3 snippets + 1 page turn; time (Maxwell et al.
    /// Table 1) 15.1 + 1.1 + 3 x 1.3 + 1.1 + 21.45 + 2.57.
    #[test]
    fn deterministic_walk_costs_and_stopping() {
        let mut prof = UserProfile::named("walk");
        prof.continuation = Some(ContinuationModel::Fixed { depth: Param::Fixed(100.0) });
        prof.stopping = vec![crate::user::StoppingRuleKind::ContiguousNonrelevant { n: Param::Fixed(2.0), basis: crate::user::Basis::Grade }];
        let o = cascade(vec![1, 0, 0, 2, 0], 2, &prof, 1)[0];
        assert_eq!((o.depth, o.clicks, o.relevant_found, o.gain, o.page_turns), (3, 1, 1, 1.0, 1));
        assert_eq!(o.effort, 3.0 + 1.0);
        let t = 15.1 + 1.1 + 3.0 * 1.3 + 1.1 + 21.45 + 2.57;
        assert!((o.time - t).abs() < 1e-9, "{} vs {t}", o.time);
    }

    /// INST as a stopping rule alone (continuation 1) on a list without relevant results stops
    /// after 2.58 results on average for T = 1 (Bailey et al. Table 4; by hand,
    /// sum_k 4 / (k + 1)^2 = 4 (pi^2 / 6 - 1) = 2.5797).
    #[test]
    fn inst_stopping_gives_the_expected_depth() {
        let mut prof = UserProfile::named("inst");
        prof.continuation = Some(ContinuationModel::Rbp { p: Param::Fixed(1.0) });
        prof.stopping = vec![crate::user::StoppingRuleKind::Inst { t: Param::Fixed(1.0) }];
        let xs: Vec<f64> = cascade(vec![0; 5000], 10, &prof, 100_000).iter().map(|o| o.depth as f64).collect();
        let (m, v) = mean_var(&xs);
        let expected = 4.0 * (std::f64::consts::PI.powi(2) / 6.0 - 1.0);
        assert!((m - expected).abs() < 4.0 * (v / xs.len() as f64).sqrt(), "mean depth {m} vs {expected}");
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use crate::user::{Cascade, ContinuationModel, Param, UserProfile};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn outcome_invariants(
            grades in proptest::collection::vec(0i32..3, 1..40),
            page_size in 1usize..12,
            p in 0.0f64..=1.0,
            click in proptest::collection::vec(0.0f64..=1.0, 3),
            stop in 0.0f64..=1.0,
            seed in any::<u64>(),
        ) {
            let mut user = UserProfile::named("prop");
            user.continuation = Some(ContinuationModel::Rbp { p: Param::Fixed(p) });
            user.clicks = Cascade::fixed(&click, &[stop], &[0.0, 1.0]);
            let world = one_list_world(grades.clone(), page_size);
            let r = user.resolve(seed, 0);
            let sys = &world.systems[0];
            let stage = SystemOnTopic { topic: &world.topics[0], queries: sys.serps[0].as_deref().unwrap(), delays: &sys.delays, page_size, fold: usize::MAX, below_fold: 0.0, sublists_from: walk::first_sublist(sys.serps[0].as_deref().unwrap()) };
            let o = walk(&stage, &r, &r.grades, &mut walk::FixedChoice(Vec::new()), seed, &mut Scratch::default(), &mut ());
            let depth = o.depth as usize;
            prop_assert!(depth >= 1 && depth <= grades.len());
            prop_assert!(o.clicks <= o.depth && o.relevant_found <= o.clicks);
            let relevant_examined = grades[..depth].iter().filter(|&&g| g > 0).count() as f64;
            prop_assert!(o.gain <= relevant_examined);
            // Default effort: one per examined snippet plus one per page turn.
            prop_assert_eq!(o.effort, (depth + (depth - 1) / page_size) as f64);
            let min_time = 15.1 + 1.1 + 1.3 * depth as f64;
            prop_assert!(o.time >= min_time - 1e-9);
        }
    }
}
