//! The world the walk moves through, flattened: per topic, documents as indices into flat
//! tables (grades, subtopic masks); per system and topic, the result list of every query
//! variant, with its sublists (facets built from category labels) when the interface has them.
//!
//! Nothing in here is a string once the run starts: names are kept only for reports.

use crate::collection::{Collection, Topic};
use crate::error::{Error, Result};
use crate::rng::{derive_key, hash_str, mix64, unit};
use crate::user::Delays;

/// One topic: its documents as flat tables.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldTopic {
    /// Topic id.
    pub id: String,
    /// Document ids, by document index.
    pub doc_ids: Vec<String>,
    /// Judged grade per document (unjudged: 0).
    pub grades: Vec<i32>,
    /// Subtopics each document is relevant to, as a bit mask (subtopics beyond 64 are ignored).
    pub subtopics: Vec<u64>,
    /// Category labels per document (indices into [`World::categories`]).
    pub categories: Vec<Vec<u32>>,
    /// Documents with grade > 0.
    pub relevant: usize,
}

impl WorldTopic {
    /// A topic from a collection topic.
    pub fn from_topic(t: &Topic) -> Self {
        let docs = &t.documents;
        WorldTopic {
            id: t.id.clone(),
            doc_ids: docs.iter().map(|d| d.id.clone()).collect(),
            grades: docs.iter().map(|d| d.grade).collect(),
            subtopics: docs.iter().map(|d| d.subtopics.iter().filter(|s| s.grade > 0 && s.subtopic < 64).fold(0u64, |m, s| m | (1u64 << s.subtopic))).collect(),
            categories: docs.iter().map(|d| d.categories.clone()).collect(),
            relevant: docs.iter().filter(|d| d.grade > 0).count(),
        }
    }
}

/// The sublists of one result list (He et al.'s result-list refinement): list 0 is "All",
/// every other list holds the positions of "All" carrying one category label, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Sublists {
    /// Category index of each list (list 0, "All", has `u32::MAX`).
    pub categories: Vec<u32>,
    /// Per list, positions into the result list, strictly increasing.
    pub lists: Vec<Vec<u32>>,
    /// nDCG of each list against the ideal ordering of "All" (the oracle prior).
    pub ndcg: Vec<f64>,
    member_start: Vec<u32>,
    members: Vec<(u32, u32)>,
}

impl Sublists {
    /// Sublists from per-position category labels; empty sublists are dropped. `grades` are
    /// the grades of the list's positions.
    pub fn new(grades: &[i32], labels: &[&[u32]]) -> Self {
        let n = grades.len();
        let mut by_cat: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for (pos, ls) in labels.iter().enumerate() {
            for &c in ls.iter() {
                let v = by_cat.entry(c).or_default();
                if v.last() != Some(&(pos as u32)) {
                    v.push(pos as u32);
                }
            }
        }
        let mut categories = vec![u32::MAX];
        let mut lists = vec![(0..n as u32).collect::<Vec<u32>>()];
        for (c, l) in by_cat {
            categories.push(c);
            lists.push(l);
        }
        Self::from_lists(grades, categories, lists)
    }

    /// Sublists from explicit lists (list 0 must be every position in order).
    pub fn from_lists(grades: &[i32], categories: Vec<u32>, lists: Vec<Vec<u32>>) -> Self {
        let n = grades.len();
        let mut count = vec![0u32; n + 1];
        for l in &lists {
            for &r in l {
                count[r as usize + 1] += 1;
            }
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let member_start = count.clone();
        let mut members = vec![(0u32, 0u32); count[n] as usize];
        let mut fill = count;
        for (k, l) in lists.iter().enumerate() {
            for (p, &r) in l.iter().enumerate() {
                members[fill[r as usize] as usize] = (k as u32, p as u32);
                fill[r as usize] += 1;
            }
        }
        let ndcg = lists
            .iter()
            .map(|l| {
                let g: Vec<i32> = l.iter().map(|&r| grades[r as usize]).collect();
                crate::collection::ndcg_at(&g, grades, n)
            })
            .collect();
        Sublists { categories, lists, ndcg, member_start, members }
    }

    /// The (list, index) pairs that hold position `pos` of "All".
    #[inline]
    pub fn members(&self, pos: u32) -> &[(u32, u32)] {
        &self.members[self.member_start[pos as usize] as usize..self.member_start[pos as usize + 1] as usize]
    }

    /// Number of lists, "All" included.
    pub fn k(&self) -> usize {
        self.lists.len()
    }
}

/// The result list of one query.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryList {
    /// Document indices, best first.
    pub docs: Vec<u32>,
    /// Relevant documents in the list.
    pub relevant: usize,
    /// Sublists, when the system's interface offers them.
    pub sublists: Option<Sublists>,
}

impl QueryList {
    /// A plain list of `docs` of `topic`.
    pub fn new(topic: &WorldTopic, docs: Vec<u32>) -> Self {
        let relevant = docs.iter().filter(|&&d| topic.grades[d as usize] > 0).count();
        QueryList { docs, relevant, sublists: None }
    }

    /// Adds sublists from the documents' category labels.
    pub fn with_sublists(mut self, topic: &WorldTopic) -> Self {
        let grades: Vec<i32> = self.docs.iter().map(|&d| topic.grades[d as usize]).collect();
        let labels: Vec<&[u32]> = self.docs.iter().map(|&d| topic.categories[d as usize].as_slice()).collect();
        self.sublists = Some(Sublists::new(&grades, &labels));
        self
    }
}

/// A system: a result list per topic and query variant, and its interface delays.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldSystem {
    /// System name.
    pub name: String,
    /// System delays.
    pub delays: Delays,
    /// Per topic, the lists of the query variants in issue order (`None`: nothing returned).
    pub serps: Vec<Option<Vec<QueryList>>>,
}

/// Everything the engine walks through.
#[derive(Debug, Clone, PartialEq)]
pub struct World {
    /// Topics.
    pub topics: Vec<WorldTopic>,
    /// Systems.
    pub systems: Vec<WorldSystem>,
    /// Category names.
    pub categories: Vec<String>,
    /// Results per page.
    pub page_size: usize,
    /// Results visible without scrolling on a page (`usize::MAX`: all).
    pub fold: usize,
    /// Extra seconds to reach a result below the fold.
    pub below_fold: f64,
}

/// How query variants are formed from a collection with one ranking per topic and system.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Perturbation {
    /// Variants per topic (the first is the system's own ranking).
    pub count: usize,
    /// Noise sd, in units of the normal scores of the ranks.
    pub noise: f64,
    /// Seed of the noise.
    pub seed: u64,
}

impl World {
    /// A world with one query per topic from a collection.
    pub fn from_collection(c: &Collection) -> Self {
        let topics: Vec<WorldTopic> = c.topics.iter().map(WorldTopic::from_topic).collect();
        let systems = c
            .systems
            .iter()
            .map(|s| WorldSystem {
                name: s.name.clone(),
                delays: Delays::default(),
                serps: s
                    .serps
                    .iter()
                    .enumerate()
                    .map(|(t, serp)| serp.as_ref().filter(|x| !x.docs.is_empty()).map(|x| vec![QueryList::new(&topics[t], x.docs.clone())]))
                    .collect(),
            })
            .collect();
        World { topics, systems, categories: c.categories.clone(), page_size: c.page_size.max(1), fold: usize::MAX, below_fold: 0.0 }
    }

    /// Adds synthetic query variants: variant v > 1 of system s on topic t ranks the documents
    /// of the system's list by their normal score z_i = Phi^-1(1 - (i + 0.5) / n) (i the rank
    /// in the original list) plus `noise` x e, e ~ N(0, 1) drawn once per (seed, topic,
    /// variant, document) and shared by every system: a reformulated query reshuffles the same
    /// documents the same way under every ranker.
    pub fn perturb_variants(&mut self, p: &Perturbation) {
        use statrs::distribution::{ContinuousCDF, Normal};
        let normal = Normal::new(0.0, 1.0).expect("standard normal");
        for s in &mut self.systems {
            for (t, serp) in s.serps.iter_mut().enumerate() {
                let Some(lists) = serp else { continue };
                let topic = &self.topics[t];
                let base = lists[0].docs.clone();
                let n = base.len() as f64;
                for v in 1..p.count {
                    let key = derive_key(p.seed, &[hash_str("query-variant"), hash_str(&topic.id), v as u64]);
                    let mut scored: Vec<(f64, u32)> = base
                        .iter()
                        .enumerate()
                        .map(|(i, &d)| {
                            let z = normal.inverse_cdf(1.0 - (i as f64 + 0.5) / n);
                            let h = hash_str(&topic.doc_ids[d as usize]);
                            let (u1, u2) = (unit(mix64(key ^ h)).max(1e-300), unit(mix64(key ^ h ^ 0x9E37_79B9)));
                            let e = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                            (z + p.noise * e, d)
                        })
                        .collect();
                    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                    lists.push(QueryList::new(topic, scored.into_iter().map(|x| x.1).collect()));
                }
            }
        }
    }

    /// Gives the lists of the named systems (all when `systems` is empty) sublists from the
    /// documents' category labels. Errors when no document carries a label.
    pub fn add_sublists(&mut self, systems: &[String]) -> Result<()> {
        if self.categories.is_empty() || self.topics.iter().all(|t| t.categories.iter().all(|c| c.is_empty())) {
            return Err(Error::Invalid(
                "the interface asks for sublists, but no document has a category label (give `docinfo` categories, or LETOR `categories`)".into(),
            ));
        }
        for name in systems {
            if !self.systems.iter().any(|s| &s.name == name) {
                return Err(Error::Invalid(format!("interface.sublists: unknown system `{name}`")));
            }
        }
        for s in &mut self.systems {
            if !systems.is_empty() && !systems.contains(&s.name) {
                continue;
            }
            for (t, serp) in s.serps.iter_mut().enumerate() {
                if let Some(lists) = serp {
                    for l in lists.iter_mut() {
                        *l = std::mem::replace(l, QueryList { docs: Vec::new(), relevant: 0, sublists: None }).with_sublists(&self.topics[t]);
                    }
                }
            }
        }
        Ok(())
    }

    /// Adds, for every system with sublists, a twin named `<name> (All only)` without them:
    /// the basic interface to compare with.
    pub fn add_basic_twins(&mut self) {
        let twins: Vec<WorldSystem> = self
            .systems
            .iter()
            .filter(|s| s.serps.iter().flatten().flatten().any(|l| l.sublists.is_some()))
            .map(|s| {
                let mut twin = s.clone();
                twin.name = format!("{} (All only)", s.name);
                for l in twin.serps.iter_mut().flatten().flatten() {
                    l.sublists = None;
                }
                twin
            })
            .collect();
        self.systems.extend(twins);
    }

    /// Checks the world can be simulated.
    pub fn validate(&self) -> Result<()> {
        if self.topics.is_empty() {
            return Err(Error::Invalid("the collection has no topics".into()));
        }
        if self.systems.is_empty() {
            return Err(Error::Invalid("the collection has no systems (runs)".into()));
        }
        if self.page_size == 0 {
            return Err(Error::Invalid("page size must be at least 1".into()));
        }
        for s in &self.systems {
            if s.serps.len() != self.topics.len() {
                return Err(Error::Invalid(format!("system `{}` has a result table of the wrong size", s.name)));
            }
            if s.serps.iter().all(|x| x.is_none()) {
                return Err(Error::Invalid(format!("system `{}` returned no results for any topic", s.name)));
            }
            for (t, serp) in s.serps.iter().enumerate() {
                for l in serp.iter().flatten() {
                    let n = self.topics[t].grades.len() as u32;
                    if let Some(&d) = l.docs.iter().find(|&&d| d >= n) {
                        return Err(Error::Invalid(format!("system `{}`, topic `{}`: document {d} out of range", s.name, self.topics[t].id)));
                    }
                }
            }
        }
        if let Some((i, _)) = self.systems.iter().enumerate().find(|(i, s)| self.systems[..*i].iter().any(|o| o.name == s.name)) {
            return Err(Error::Invalid(format!("two systems are named `{}`", self.systems[i].name)));
        }
        Ok(())
    }

    /// Index of system `name`.
    pub fn system_index(&self, name: &str) -> Option<usize> {
        self.systems.iter().position(|s| s.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sublists_index_members_and_ndcg() {
        // "All": grades 1 0 1 0; category 7 on positions 0 and 2, category 3 on 1 and 3.
        let s = Sublists::new(&[1, 0, 1, 0], &[&[7], &[3], &[7], &[3]]);
        assert_eq!(s.categories, vec![u32::MAX, 3, 7]);
        assert_eq!(s.lists, vec![vec![0, 1, 2, 3], vec![1, 3], vec![0, 2]]);
        assert_eq!(s.members(2), &[(0, 2), (2, 1)]);
        // nDCG of [1, 1] against the ideal of "All" is 1; of [0, 0] is 0; "All" is
        // (1 + 1/log2 4) / (1 + 1/log2 3) (hand computation, as sublists::measures).
        assert!((s.ndcg[2] - 1.0).abs() < 1e-12 && s.ndcg[1] == 0.0);
        let all = (1.0 + 1.0 / 4f64.log2()) / (1.0 + 1.0 / 3f64.log2());
        assert!((s.ndcg[0] - all).abs() < 1e-12);
    }

    #[test]
    fn perturbed_variants_keep_documents_and_share_noise_across_systems() {
        let c = crate::collection::synthetic::SyntheticConfig { topics: 2, docs_per_topic: 30, ..Default::default() }.generate().unwrap();
        let mut w = World::from_collection(&c);
        w.perturb_variants(&Perturbation { count: 3, noise: 0.5, seed: 1 });
        for s in &w.systems {
            for lists in s.serps.iter().flatten() {
                assert_eq!(lists.len(), 3);
                let mut a = lists[0].docs.clone();
                let mut b = lists[2].docs.clone();
                a.sort();
                b.sort();
                assert_eq!(a, b, "a variant ranks the same documents");
                assert_ne!(lists[0].docs, lists[1].docs, "noise 0.5 reorders 30 documents");
            }
        }
        // With zero noise every variant is the original ranking.
        let mut z = World::from_collection(&c);
        z.perturb_variants(&Perturbation { count: 2, noise: 0.0, seed: 1 });
        let l = z.systems[0].serps[0].as_ref().unwrap();
        assert_eq!(l[0].docs, l[1].docs);
    }
}
