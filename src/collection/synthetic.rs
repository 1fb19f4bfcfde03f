//! Synthetic collections with controlled relevance, ranking quality and category skew.
//!
//! Each topic has `docs_per_topic` documents; a share `relevant_share` is relevant, with grades
//! 1..=G drawn from `grade_weights`. Each system ranks by `s * grade + z`, z ~ N(0, 1) fixed per
//! (topic, system); the signal `s` is found by bisection so that nDCG@10 hits a target drawn
//! uniformly from the system's `ndcg` range (s < 0 gives worse-than-random rankings).
//! Documents get `labels_per_doc` distinct categories from a Zipf law with exponent
//! `category_skew` (0 = uniform).

use super::ndcg_at;
use super::{Collection, Document, Serp, System, Topic};
use crate::error::{check_probability, Error, Result};
use crate::limits::check_non_negative;
use crate::rng::{hash_str, stream};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

/// A synthetic system and the nDCG@10 range its rankings should reach.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyntheticSystem {
    /// System name.
    pub name: String,
    /// Target nDCG@10 range `[low, high]`; each topic draws its target uniformly from it.
    pub ndcg: [f64; 2],
}

/// Knobs of the synthetic collection generator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyntheticConfig {
    /// Number of topics.
    pub topics: usize,
    /// Documents per topic (all are ranked by every system).
    pub docs_per_topic: usize,
    /// Expected share of relevant documents.
    pub relevant_share: f64,
    /// Relative weights of grades 1, 2, ... among relevant documents.
    pub grade_weights: Vec<f64>,
    /// Systems and their target ranking quality.
    pub systems: Vec<SyntheticSystem>,
    /// Number of categories (0 = none).
    pub categories: usize,
    /// Zipf exponent of category popularity (0 = uniform).
    pub category_skew: f64,
    /// Distinct categories per document (at most `categories`).
    pub labels_per_doc: usize,
    /// Seed of the generator.
    pub seed: u64,
    /// Results per page of the generated collection.
    pub page_size: usize,
}

impl Default for SyntheticConfig {
    fn default() -> Self {
        SyntheticConfig {
            topics: 50,
            docs_per_topic: 100,
            relevant_share: 0.1,
            grade_weights: vec![1.0],
            systems: vec![SyntheticSystem { name: "good".into(), ndcg: [0.6, 0.8] }, SyntheticSystem { name: "poor".into(), ndcg: [0.2, 0.4] }],
            categories: 0,
            category_skew: 0.0,
            labels_per_doc: 1,
            seed: 1,
            page_size: 10,
        }
    }
}

impl SyntheticConfig {
    /// Checks every knob; errors name the key under `prefix` (e.g. `collection.`).
    pub fn validate(&self, context: &str, prefix: &str) -> Result<()> {
        let key = |k: &str| format!("{prefix}{k}");
        if self.topics == 0 {
            return Err(Error::config(context, key("topics"), "must be at least 1"));
        }
        if self.docs_per_topic == 0 {
            return Err(Error::config(context, key("docs_per_topic"), "must be at least 1"));
        }
        use crate::limits::{check_product, check_usize, MAX_CATEGORIES, MAX_DOCS_PER_TOPIC, MAX_DOCUMENTS, MAX_TOPICS};
        check_usize(context, &key("topics"), self.topics, MAX_TOPICS, "topics of a generated collection")?;
        check_usize(context, &key("docs_per_topic"), self.docs_per_topic, MAX_DOCS_PER_TOPIC, "documents per topic")?;
        check_product(
            context,
            &format!("{} * {}", key("topics"), key("docs_per_topic")),
            &[self.topics as u64, self.docs_per_topic as u64],
            MAX_DOCUMENTS,
            "documents of a generated collection",
        )?;
        check_usize(context, &key("categories"), self.categories, MAX_CATEGORIES, "categories")?;
        check_probability(context, &key("relevant_share"), self.relevant_share)?;
        if self.grade_weights.is_empty() {
            return Err(Error::config(context, key("grade_weights"), "must not be empty"));
        }
        for (i, &w) in self.grade_weights.iter().enumerate() {
            check_non_negative(context, &key(&format!("grade_weights[{i}]")), w)?;
        }
        if self.grade_weights.iter().sum::<f64>() <= 0.0 {
            return Err(Error::config(context, key("grade_weights"), "must have a positive sum"));
        }
        if self.systems.is_empty() {
            return Err(Error::config(context, key("systems"), "must list at least one system"));
        }
        for (i, s) in self.systems.iter().enumerate() {
            for (j, &v) in s.ndcg.iter().enumerate() {
                check_probability(context, &key(&format!("systems[{i}].ndcg[{j}]")), v)?;
            }
            if s.ndcg[0] > s.ndcg[1] {
                return Err(Error::config(context, key(&format!("systems[{i}].ndcg")), "low end exceeds high end"));
            }
        }
        check_non_negative(context, &key("category_skew"), self.category_skew)?;
        if self.categories > 0 && (self.labels_per_doc == 0 || self.labels_per_doc > self.categories) {
            return Err(Error::config(context, key("labels_per_doc"), "must be between 1 and `categories`"));
        }
        Ok(())
    }

    /// Generates the collection.
    pub fn generate(&self) -> Result<Collection> {
        self.validate("synthetic collection", "")?;
        let mut c = Collection::new();
        c.page_size = self.page_size;
        c.categories = (0..self.categories).map(|i| format!("c{}", i + 1)).collect();
        let zipf: Vec<f64> = (1..=self.categories).map(|k| (k as f64).powf(-self.category_skew)).collect();
        let grade_total: f64 = self.grade_weights.iter().sum();
        for t in 0..self.topics {
            let mut rng = stream(self.seed, &[hash_str("topic"), t as u64]);
            let mut topic = Topic::new(format!("T{}", t + 1));
            for d in 0..self.docs_per_topic {
                let grade = if rng.random::<f64>() < self.relevant_share { draw_index(&self.grade_weights, grade_total, &mut rng) as i32 + 1 } else { 0 };
                let mut doc = Document::new(format!("T{}-D{}", t + 1, d + 1), grade);
                doc.categories = draw_distinct(&zipf, self.labels_per_doc.min(self.categories), &mut rng);
                topic.push(doc);
            }
            c.topics.push(topic);
        }
        for (si, s) in self.systems.iter().enumerate() {
            let serps = c
                .topics
                .iter()
                .enumerate()
                .map(|(t, topic)| {
                    let mut rng = stream(self.seed, &[hash_str("system"), si as u64, t as u64]);
                    let target = s.ndcg[0] + (s.ndcg[1] - s.ndcg[0]) * rng.random::<f64>();
                    Some(Serp { docs: rank_to_target(topic, target, &mut rng) })
                })
                .collect();
            c.systems.push(System { name: s.name.clone(), serps });
        }
        Ok(c)
    }
}

fn draw_index<R: Rng>(weights: &[f64], total: f64, rng: &mut R) -> usize {
    let mut u = rng.random::<f64>() * total;
    for (i, &w) in weights.iter().enumerate() {
        if u < w {
            return i;
        }
        u -= w;
    }
    weights.len() - 1
}

fn draw_distinct<R: Rng>(weights: &[f64], n: usize, rng: &mut R) -> Vec<u32> {
    let mut w = weights.to_vec();
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let total: f64 = w.iter().sum();
        let i = draw_index(&w, total, rng);
        out.push(i as u32);
        w[i] = 0.0;
    }
    out.sort_unstable();
    out
}

/// Ranks by `s * grade + z` with `s` bisected so nDCG@10 is as close to `target` as it gets.
fn rank_to_target<R: Rng>(topic: &Topic, target: f64, rng: &mut R) -> Vec<u32> {
    let grades: Vec<i32> = topic.documents.iter().map(|d| d.grade).collect();
    let noise: Vec<f64> = grades.iter().map(|_| StandardNormal.sample(rng)).collect();
    let rank = |s: f64| -> Vec<u32> {
        let score: Vec<f64> = grades.iter().zip(&noise).map(|(&g, &z)| s * g as f64 + z).collect();
        let mut order: Vec<u32> = (0..grades.len() as u32).collect();
        order.sort_by(|&a, &b| score[b as usize].total_cmp(&score[a as usize]));
        order
    };
    let quality = |order: &[u32]| {
        let ranked: Vec<i32> = order.iter().take(10).map(|&d| grades[d as usize]).collect();
        ndcg_at(&ranked, &grades, 10)
    };
    let (mut lo, mut hi) = (-30.0f64, 30.0f64);
    let mut best = rank(0.0);
    let mut best_gap = (quality(&best) - target).abs();
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        let order = rank(mid);
        let q = quality(&order);
        if (q - target).abs() < best_gap {
            best_gap = (q - target).abs();
            best = order;
        }
        if q < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rankings_land_in_target_ndcg_range() {
        let cfg = SyntheticConfig { topics: 20, docs_per_topic: 200, relevant_share: 0.15, ..Default::default() };
        let c = cfg.generate().unwrap();
        for (si, s) in cfg.systems.iter().enumerate() {
            let mean: f64 = c
                .topics
                .iter()
                .enumerate()
                .map(|(t, topic)| {
                    let serp = c.systems[si].serps[t].as_ref().unwrap();
                    let ranked: Vec<i32> = serp.docs.iter().map(|&d| topic.documents[d as usize].grade).collect();
                    let judged: Vec<i32> = topic.documents.iter().map(|d| d.grade).collect();
                    ndcg_at(&ranked, &judged, 10)
                })
                .sum::<f64>()
                / c.topics.len() as f64;
            assert!(mean > s.ndcg[0] - 0.05 && mean < s.ndcg[1] + 0.05, "{}: mean nDCG {mean}", s.name);
        }
    }

    #[test]
    fn categories_follow_skew_and_generation_is_deterministic() {
        let cfg = SyntheticConfig { categories: 4, category_skew: 2.0, seed: 9, ..Default::default() };
        let a = cfg.generate().unwrap();
        let b = cfg.generate().unwrap();
        let mut counts = [0usize; 4];
        for t in &a.topics {
            for d in &t.documents {
                counts[d.categories[0] as usize] += 1;
            }
        }
        assert!(counts[0] > 2 * counts[1] && counts[1] > counts[3], "{counts:?}");
        assert_eq!(a.systems[0].serps, b.systems[0].serps);
    }

    #[test]
    fn invalid_knobs_name_the_key() {
        let cfg = SyntheticConfig { relevant_share: 1.5, ..Default::default() };
        let err = cfg.validate("s.toml", "collection.").unwrap_err().to_string();
        assert!(err.contains("collection.relevant_share"), "{err}");
    }
}
