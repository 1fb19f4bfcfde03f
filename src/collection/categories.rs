//! Category labels for sublists (facets, filters): binned LETOR features, and a synthetic
//! generator whose knobs shape how relevant documents spread over categories (He et al.'s
//! sublist relevance Rq and entropy Hq).

use super::letor::LetorData;
use super::synthetic::SyntheticConfig;
use super::Collection;
use crate::error::{check_probability, Error, Result};
use crate::limits::check_non_negative;
use crate::rng::{hash_str, stream};
use rand::seq::SliceRandom;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// The synthetic generator of the foundation, plus knobs that shape the sublists.
///
/// Per topic, categories are shuffled and relevant documents draw their labels from a Zipf law
/// with exponent `relevant_skew` (drawn uniformly from the range per topic): a larger exponent
/// concentrates relevant documents in few sublists, lowering the sublist entropy Hq.
/// Non-relevant documents draw labels with weights `base_k * (1 - purity * rel_k / max rel)`,
/// where `base` is the generator's own `category_skew` law and `purity` is drawn from
/// `sublist_purity`: higher purity keeps non-relevant documents out of the sublists that hold
/// the relevant ones, raising the sublist relevance Rq.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SublistSyntheticConfig {
    /// The foundation's generator (its `categories`, `category_skew`, `labels_per_doc` apply).
    pub collection: SyntheticConfig,
    /// Range of the Zipf exponent of relevant documents' categories (Hq knob).
    pub relevant_skew: [f64; 2],
    /// Range of the purity of the relevant documents' sublists, in [0, 1] (Rq knob).
    pub sublist_purity: [f64; 2],
}

impl Default for SublistSyntheticConfig {
    fn default() -> Self {
        SublistSyntheticConfig {
            collection: SyntheticConfig {
                topics: 50,
                docs_per_topic: 400,
                relevant_share: 0.06,
                systems: vec![crate::collection::synthetic::SyntheticSystem { name: "ql".into(), ndcg: [0.1, 0.6] }],
                categories: 24,
                category_skew: 0.5,
                labels_per_doc: 1,
                ..SyntheticConfig::default()
            },
            relevant_skew: [0.0, 2.5],
            sublist_purity: [0.0, 0.9],
        }
    }
}

impl SublistSyntheticConfig {
    /// Checks every knob; errors name the key under `prefix`.
    pub fn validate(&self, context: &str, prefix: &str) -> Result<()> {
        self.collection.validate(context, &format!("{prefix}collection."))?;
        if self.collection.categories == 0 {
            return Err(Error::config(context, format!("{prefix}collection.categories"), "sublists need at least 1 category"));
        }
        for (i, &v) in self.relevant_skew.iter().enumerate() {
            check_non_negative(context, &format!("{prefix}relevant_skew[{i}]"), v)?;
        }
        for (i, &v) in self.sublist_purity.iter().enumerate() {
            check_probability(context, &format!("{prefix}sublist_purity[{i}]"), v)?;
        }
        if self.relevant_skew[0] > self.relevant_skew[1] {
            return Err(Error::config(context, format!("{prefix}relevant_skew"), "low end exceeds high end"));
        }
        if self.sublist_purity[0] > self.sublist_purity[1] {
            return Err(Error::config(context, format!("{prefix}sublist_purity"), "low end exceeds high end"));
        }
        Ok(())
    }

    /// Generates the collection (categories of every document re-drawn as described above).
    pub fn generate(&self) -> Result<Collection> {
        self.validate("synthetic sublist collection", "")?;
        let mut c = self.collection.generate()?;
        let k = self.collection.categories;
        let labels = self.collection.labels_per_doc.min(k);
        let base: Vec<f64> = (1..=k).map(|i| (i as f64).powf(-self.collection.category_skew)).collect();
        for (t, topic) in c.topics.iter_mut().enumerate() {
            let mut rng = stream(self.collection.seed, &[hash_str("sublist-categories"), t as u64]);
            let skew = self.relevant_skew[0] + (self.relevant_skew[1] - self.relevant_skew[0]) * rng.random::<f64>();
            let purity = self.sublist_purity[0] + (self.sublist_purity[1] - self.sublist_purity[0]) * rng.random::<f64>();
            let mut order: Vec<usize> = (0..k).collect();
            order.shuffle(&mut rng);
            let mut rel = vec![0.0; k];
            for (i, &cat) in order.iter().enumerate() {
                rel[cat] = ((i + 1) as f64).powf(-skew);
            }
            let max_rel = rel.iter().cloned().fold(0.0, f64::max);
            let non: Vec<f64> = base.iter().zip(&rel).map(|(b, r)| b * (1.0 - purity * r / max_rel)).collect();
            // Keep at least some mass: with purity 1 and k = 1 every weight could vanish.
            let non = if non.iter().sum::<f64>() > 0.0 { non } else { base.clone() };
            for doc in &mut topic.documents {
                let w = if doc.grade > 0 { &rel } else { &non };
                doc.categories = draw_distinct(w, labels, &mut rng);
            }
        }
        Ok(c)
    }
}

fn draw_distinct<R: Rng>(weights: &[f64], n: usize, rng: &mut R) -> Vec<u32> {
    let mut w = weights.to_vec();
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let total: f64 = w.iter().sum();
        if total <= 0.0 {
            break;
        }
        let mut u = rng.random::<f64>() * total;
        let mut pick = w.iter().rposition(|&x| x > 0.0).unwrap_or(0);
        for (i, &x) in w.iter().enumerate() {
            if u < x {
                pick = i;
                break;
            }
            u -= x;
        }
        out.push(pick as u32);
        w[pick] = 0.0;
    }
    out.sort_unstable();
    out
}

/// The LETOR recipe: categories from binned feature values.
///
/// For each chosen feature (1-based, as in the file), the query's documents are split into
/// `bins` equal-frequency bins of that feature's value (ties stay in one bin: a document's bin
/// is the number of bin edges, taken at quantiles j/bins of the query's values, strictly below
/// its value). Category `f{feature}:b{bin}` (bin 1 = lowest values) is a filter value; every
/// document gets one label per chosen feature. "All" is the ranking of `weights`.
pub fn letor_with_categories(data: &LetorData, weights: &[f64], features: &[usize], bins: usize) -> Result<Collection> {
    if bins < 2 {
        return Err(Error::Invalid("LETOR sublists: `bins` must be at least 2".into()));
    }
    if features.is_empty() {
        return Err(Error::Invalid("LETOR sublists: choose at least one feature".into()));
    }
    for &f in features {
        if f == 0 || f > data.n_features {
            return Err(Error::Invalid(format!("LETOR sublists: feature {f} is outside 1..={}", data.n_features)));
        }
    }
    let mut c = data.to_collection(&[("linear".to_string(), weights.to_vec())])?;
    c.categories = features.iter().flat_map(|f| (1..=bins).map(move |b| format!("f{f}:b{b}"))).collect();
    for (q, query) in data.queries.iter().enumerate() {
        for (fi, &f) in features.iter().enumerate() {
            let mut values: Vec<f64> = query.docs.iter().map(|d| d.features.get(f - 1).copied().unwrap_or(0.0)).collect();
            let doc_values = values.clone();
            values.sort_by(f64::total_cmp);
            let edges: Vec<f64> = (1..bins).map(|j| crate::stats::quantile_sorted(&values, j as f64 / bins as f64)).collect();
            for (d, &v) in doc_values.iter().enumerate() {
                let bin = edges.iter().filter(|&&e| e < v).count();
                c.topics[q].documents[d].categories.push((fi * bins + bin) as u32);
            }
        }
    }
    Ok(c)
}
