//! The Monte-Carlo engine: N replicates per (topic, system, profile), in parallel, each with its
//! own random stream derived from `(seed, scenario, topic, system, profile, replicate)`.

mod session;

pub use session::{bernoulli, simulate_session, Outcome, SerpView};

use crate::collection::Collection;
use crate::error::{Error, Result};
use crate::rng::{hash_str, stream};
use crate::user::UserProfile;
use rayon::prelude::*;

/// What to simulate.
#[derive(Debug, Clone)]
pub struct Plan<'a> {
    /// Topics and systems.
    pub collection: &'a Collection,
    /// User populations.
    pub profiles: &'a [UserProfile],
    /// Replicates per cell.
    pub replicates: usize,
    /// Master seed.
    pub seed: u64,
    /// Scenario name (part of every stream's key).
    pub scenario: &'a str,
}

/// The replicates of one (topic, system, profile) cell, in replicate order.
#[derive(Debug, Clone, PartialEq)]
pub struct CellSamples {
    /// Topic index.
    pub topic: usize,
    /// System index.
    pub system: usize,
    /// Profile index.
    pub profile: usize,
    /// One outcome per replicate.
    pub outcomes: Vec<Outcome>,
}

/// Key of the stream of one replicate. Ids are hashed names, so adding a topic or system
/// does not change the streams of the others.
pub fn replicate_stream(seed: u64, scenario: &str, topic: &str, system: &str, profile: &str, replicate: u64) -> crate::rng::Stream {
    stream(seed, &[hash_str(scenario), hash_str(topic), hash_str(system), hash_str(profile), replicate])
}

/// Runs the plan on the current rayon pool. Cells whose system returned nothing for the topic
/// are skipped. `progress` is called once per finished cell.
pub fn run(plan: &Plan, progress: &(dyn Fn() + Sync)) -> Result<Vec<CellSamples>> {
    plan.collection.validate()?;
    if plan.profiles.is_empty() {
        return Err(Error::Invalid("no user profiles to simulate".into()));
    }
    if plan.replicates == 0 {
        return Err(Error::Invalid("replicates must be at least 1".into()));
    }
    let c = plan.collection;
    let mut cells = Vec::new();
    for (t, topic) in c.topics.iter().enumerate() {
        for (s, system) in c.systems.iter().enumerate() {
            if let Some(serp) = system.serps[t].as_ref().filter(|x| !x.docs.is_empty()) {
                for p in 0..plan.profiles.len() {
                    cells.push((t, s, p, SerpView::new(topic, serp, c.page_size)));
                }
            }
        }
    }
    let results = cells
        .into_par_iter()
        .map(|(t, s, p, view)| {
            let profile = &plan.profiles[p];
            let costs = profile.costs();
            let key = [
                hash_str(plan.scenario),
                hash_str(&c.topics[t].id),
                hash_str(&c.systems[s].name),
                hash_str(&profile.name),
            ];
            let click_model = profile.click_model.as_ref().and_then(|u| {
                let serp = c.systems[s].serps[t].as_ref()?;
                Some((u.model()?, u.pairs_for(&c.topics[t], serp)))
            });
            let replicates = (0..plan.replicates).into_par_iter().with_min_len(4096);
            let outcomes: Vec<Outcome> = match &click_model {
                None => replicates
                    .map(|i| {
                        let mut rng = stream(plan.seed, &[key[0], key[1], key[2], key[3], i as u64]);
                        simulate_session(&view, profile, &costs, &mut rng)
                    })
                    .collect(),
                Some((m, pairs)) => replicates
                    .map_init(Vec::new, |clicks, i| {
                        let mut rng = stream(plan.seed, &[key[0], key[1], key[2], key[3], i as u64]);
                        crate::clickmodels::user::simulate_click_model_session(&view, pairs, *m, profile, &costs, &mut rng, clicks)
                    })
                    .collect(),
            };
            progress();
            CellSamples { topic: t, system: s, profile: p, outcomes }
        })
        .collect();
    Ok(results)
}

/// The named measures of an outcome, in output order.
pub const MEASURES: [&str; 6] = ["effort", "time", "gain", "depth", "clicks", "relevant_found"];

impl Outcome {
    /// The value of measure `MEASURES[i]`.
    pub fn measure(&self, i: usize) -> f64 {
        match i {
            0 => self.effort,
            1 => self.time,
            2 => self.gain,
            3 => self.depth as f64,
            4 => self.clicks as f64,
            _ => self.relevant_found as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::synthetic::SyntheticConfig;

    #[test]
    fn thread_count_does_not_change_samples() {
        let c = SyntheticConfig { topics: 3, docs_per_topic: 30, ..Default::default() }.generate().unwrap();
        let profiles = [UserProfile::named("a")];
        let plan = Plan { collection: &c, profiles: &profiles, replicates: 10_000, seed: 5, scenario: "t" };
        let on = |threads| {
            rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| run(&plan, &|| {}).unwrap())
        };
        assert_eq!(on(1), on(2));
    }
}
