//! Query variants: the variant suffix of TREC query ids (`301.1`, `301.2`; the scenario loader
//! builds worlds from them), and a synthetic generator with controlled query quality, "dud" queries (P@10 = 0) and the
//! querying strategies QS1, QS3 and the interleaved QS1+3 of Maxwell et al. (2015).

use crate::error::{check_probability, Error, Result};
use crate::limits::check_non_negative;
use crate::rng::{hash_str, stream};
use rand::Rng;
use rand_distr::{Beta, Distribution};
use serde::{Deserialize, Serialize};

/// One topic of a session simulation: judged documents and the ranked list of every query
/// variant, in the order the searcher issues them.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionTopic {
    /// Topic id.
    pub id: String,
    /// Document ids, indexed by document number.
    pub doc_ids: Vec<String>,
    /// TREC grade per document (> 0 is relevant; unjudged documents are 0).
    pub grades: Vec<i32>,
    /// Query variants in issue order: each a ranked list of document numbers.
    pub queries: Vec<Vec<u32>>,
    /// Names of the query variants (e.g. `301.1`), parallel to `queries`.
    pub query_ids: Vec<String>,
}

impl SessionTopic {
    /// Checks that every ranked document exists and the topic has at least one query.
    pub fn validate(&self) -> Result<()> {
        if self.queries.is_empty() {
            return Err(Error::Invalid(format!("topic `{}` has no queries", self.id)));
        }
        if self.grades.len() != self.doc_ids.len() || self.query_ids.len() != self.queries.len() {
            return Err(Error::Invalid(format!("topic `{}`: inconsistent tables", self.id)));
        }
        let n = self.grades.len() as u32;
        for (q, list) in self.queries.iter().enumerate() {
            if let Some(&d) = list.iter().find(|&&d| d >= n) {
                return Err(Error::Invalid(format!("topic `{}` query {q}: document {d} out of range", self.id)));
            }
        }
        Ok(())
    }

    /// Precision at `k` of query `q` (TREC relevance).
    pub fn precision_at(&self, q: usize, k: usize) -> f64 {
        let list = &self.queries[q];
        list.iter().take(k).filter(|&&d| self.grades[d as usize] > 0).count() as f64 / k as f64
    }
}

/// Splits a query id `301.2` into `("301", 2)`. An id without a numeric suffix is variant 0.
pub fn split_variant(qid: &str) -> (&str, u64) {
    if let Some((topic, suffix)) = qid.rsplit_once('.') {
        if !topic.is_empty() && !suffix.is_empty() && suffix.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(v) = suffix.parse() {
                return (topic, v);
            }
        }
    }
    (qid, 0)
}

/// Quality of one querying strategy's queries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryQuality {
    /// Share of dud queries: no relevant document in the top 10.
    pub dud_share: f64,
    /// Mean precision at the top of a non-dud query (Beta-distributed across queries).
    pub precision_mean: f64,
    /// Beta concentration (alpha + beta) of the per-query precision; larger = less spread.
    #[serde(default = "default_concentration")]
    pub concentration: f64,
}

fn default_concentration() -> f64 {
    4.0
}

/// How a topic's query sequence is formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryStrategy {
    /// Only QS1 queries.
    Qs1,
    /// Only QS3 queries.
    Qs3,
    /// QS1 and QS3 queries interleaved: QS1[0], QS3[0], QS1[1], QS3[1], ...
    Qs13,
}

impl QueryStrategy {
    /// All three, in the paper's order.
    pub const ALL: [QueryStrategy; 3] = [QueryStrategy::Qs1, QueryStrategy::Qs13, QueryStrategy::Qs3];
    /// Paper name.
    pub fn name(self) -> &'static str {
        match self {
            QueryStrategy::Qs1 => "QS1",
            QueryStrategy::Qs3 => "QS3",
            QueryStrategy::Qs13 => "QS1+3",
        }
    }
}

/// Synthetic collection of topics with query variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyntheticQueries {
    /// Topics.
    pub topics: usize,
    /// Documents per topic.
    pub docs_per_topic: usize,
    /// Relevant documents per topic.
    pub relevant_per_topic: usize,
    /// Queries generated per strategy and topic.
    pub queries_per_strategy: usize,
    /// Length of each ranked list.
    pub list_length: usize,
    /// Precision decays by this factor per rank: P(relevant at rank r) = q * decay^(r - 1).
    pub decay: f64,
    /// Quality of QS1 (single-term) queries.
    pub qs1: QueryQuality,
    /// Quality of QS3 (three-term) queries.
    pub qs3: QueryQuality,
    /// Generator seed.
    pub seed: u64,
}

impl Default for SyntheticQueries {
    /// Shaped on Maxwell et al. Table 3 (AQUAINT): QS1 mean P@10 about 0.21 with 35 % duds,
    /// QS3 about 0.41 with 25 % duds, so QS1+3 has 30 % duds.
    fn default() -> Self {
        SyntheticQueries {
            topics: 50,
            docs_per_topic: 1000,
            relevant_per_topic: 130,
            queries_per_strategy: 40,
            list_length: 100,
            decay: 0.98,
            qs1: QueryQuality { dud_share: 0.35, precision_mean: 0.38, concentration: 4.0 },
            qs3: QueryQuality { dud_share: 0.25, precision_mean: 0.62, concentration: 4.0 },
            seed: 1,
        }
    }
}

impl SyntheticQueries {
    /// Checks every knob; errors name the key under `prefix`.
    pub fn validate(&self, context: &str, prefix: &str) -> Result<()> {
        let k = |s: &str| format!("{prefix}{s}");
        for (name, v) in [
            ("topics", self.topics),
            ("docs_per_topic", self.docs_per_topic),
            ("queries_per_strategy", self.queries_per_strategy),
            ("list_length", self.list_length),
        ] {
            if v == 0 {
                return Err(Error::config(context, k(name), "must be at least 1"));
            }
        }
        use crate::limits::{check_product, check_usize, MAX_DOCS_PER_TOPIC, MAX_DOCUMENTS, MAX_GENERATED_QUERIES, MAX_QUERIES_PER_STRATEGY, MAX_TOPICS};
        check_usize(context, &k("topics"), self.topics, MAX_TOPICS, "topics of a generated collection")?;
        check_usize(context, &k("docs_per_topic"), self.docs_per_topic, MAX_DOCS_PER_TOPIC, "documents per topic")?;
        check_usize(context, &k("queries_per_strategy"), self.queries_per_strategy, MAX_QUERIES_PER_STRATEGY, "queries per strategy and topic")?;
        check_product(
            context,
            &format!("{} * {}", k("topics"), k("docs_per_topic")),
            &[self.topics as u64, self.docs_per_topic as u64],
            MAX_DOCUMENTS,
            "documents of a generated collection",
        )?;
        check_product(
            context,
            &format!("{} * {}", k("topics"), k("queries_per_strategy")),
            &[self.topics as u64, self.queries_per_strategy as u64],
            MAX_GENERATED_QUERIES,
            "queries of a generated collection, per strategy",
        )?;
        if self.relevant_per_topic == 0 || self.relevant_per_topic >= self.docs_per_topic {
            return Err(Error::config(context, k("relevant_per_topic"), "must be between 1 and docs_per_topic - 1"));
        }
        if self.list_length > self.docs_per_topic {
            return Err(Error::config(context, k("list_length"), "must not exceed docs_per_topic"));
        }
        check_probability(context, &k("decay"), self.decay)?;
        for (name, q) in [("qs1", &self.qs1), ("qs3", &self.qs3)] {
            check_probability(context, &k(&format!("{name}.dud_share")), q.dud_share)?;
            check_probability(context, &k(&format!("{name}.precision_mean")), q.precision_mean)?;
            check_non_negative(context, &k(&format!("{name}.concentration")), q.concentration)?;
            if q.precision_mean <= 0.0 || q.precision_mean >= 1.0 || q.concentration <= 0.0 {
                return Err(Error::config(context, k(&format!("{name}.precision_mean")), "must be in (0, 1) with a positive concentration"));
            }
        }
        Ok(())
    }

    /// Generates the topics for `strategy`. QS1 and QS3 lists are the same in every strategy
    /// (QS1+3 interleaves exactly the QS1 and QS3 lists), so strategies compare on the same queries.
    pub fn generate(&self, strategy: QueryStrategy) -> Result<Vec<SessionTopic>> {
        self.validate("synthetic queries", "")?;
        (0..self.topics).map(|t| self.topic(t, strategy)).collect()
    }

    fn topic(&self, t: usize, strategy: QueryStrategy) -> Result<SessionTopic> {
        let id = format!("{}", 301 + t);
        let n = self.docs_per_topic;
        let rel = self.relevant_per_topic;
        // Documents 0..rel are relevant.
        let grades: Vec<i32> = (0..n).map(|d| (d < rel) as i32).collect();
        let make = |which: u64, quality: &QueryQuality| -> Result<Vec<Vec<u32>>> {
            let mut rng = stream(self.seed, &[hash_str("synthetic-queries"), t as u64, which]);
            let m = quality.precision_mean;
            let beta = Beta::new(m * quality.concentration, (1.0 - m) * quality.concentration).map_err(|e| Error::Invalid(format!("query quality: {e}")))?;
            let mut lists = Vec::with_capacity(self.queries_per_strategy);
            for _ in 0..self.queries_per_strategy {
                let dud = rng.random::<f64>() < quality.dud_share;
                let q = beta.sample(&mut rng);
                let mut rel_slots: Vec<bool> = (0..self.list_length).map(|r| !(dud && r < 10) && rng.random::<f64>() < q * self.decay.powi(r as i32)).collect();
                if !dud && !rel_slots.iter().take(10).any(|&x| x) {
                    let r = rng.random_range(0..10.min(self.list_length));
                    rel_slots[r] = true;
                }
                let mut list = Vec::with_capacity(self.list_length);
                let mut used = vec![false; n];
                for is_rel in rel_slots {
                    let (lo, hi) = if is_rel { (0, rel) } else { (rel, n) };
                    // Rejection sampling without replacement within the list.
                    let mut d;
                    let mut tries = 0;
                    loop {
                        d = rng.random_range(lo..hi);
                        tries += 1;
                        if !used[d] || tries > 64 {
                            break;
                        }
                    }
                    if used[d] {
                        match (lo..hi).find(|&x| !used[x]) {
                            Some(x) => d = x,
                            None => continue,
                        }
                    }
                    used[d] = true;
                    list.push(d as u32);
                }
                lists.push(list);
            }
            Ok(lists)
        };
        let qs1 = make(1, &self.qs1)?;
        let qs3 = make(3, &self.qs3)?;
        let (queries, query_ids): (Vec<Vec<u32>>, Vec<String>) = match strategy {
            QueryStrategy::Qs1 => qs1.into_iter().enumerate().map(|(i, l)| (l, format!("{id}.qs1.{}", i + 1))).unzip(),
            QueryStrategy::Qs3 => qs3.into_iter().enumerate().map(|(i, l)| (l, format!("{id}.qs3.{}", i + 1))).unzip(),
            QueryStrategy::Qs13 => {
                qs1.into_iter().zip(qs3).enumerate().flat_map(|(i, (a, b))| [(a, format!("{id}.qs1.{}", i + 1)), (b, format!("{id}.qs3.{}", i + 1))]).unzip()
            }
        };
        Ok(SessionTopic { id, doc_ids: (0..n).map(|d| format!("doc{d}")).collect(), grades, queries, query_ids })
    }
}

/// Mean and sd of P@k over all queries of `topics`, and the share of duds (P@10 = 0).
pub fn query_quality(topics: &[SessionTopic], k: usize) -> (f64, f64, f64) {
    let mut ps = Vec::new();
    let mut duds = 0usize;
    for t in topics {
        for q in 0..t.queries.len() {
            ps.push(t.precision_at(q, k));
            duds += (t.precision_at(q, 10) == 0.0) as usize;
        }
    }
    let n = ps.len().max(1) as f64;
    (crate::stats::mean(&ps), crate::stats::sd(&ps), duds as f64 / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_suffixes_map_to_topics_in_order() {
        assert_eq!(split_variant("301.2"), ("301", 2));
        assert_eq!(split_variant("301"), ("301", 0));
        assert_eq!(split_variant("a.b"), ("a.b", 0));
        // Building worlds from variants: `scenario::load::tests::trec_variants_map_to_topics_in_order`.
    }

    #[test]
    fn synthetic_duds_and_interleaving() {
        let g = SyntheticQueries { topics: 40, ..Default::default() };
        let q1 = g.generate(QueryStrategy::Qs1).unwrap();
        let q3 = g.generate(QueryStrategy::Qs3).unwrap();
        let q13 = g.generate(QueryStrategy::Qs13).unwrap();
        assert_eq!(q13[0].queries[0], q1[0].queries[0]);
        assert_eq!(q13[0].queries[1], q3[0].queries[0]);
        assert_eq!(q13[0].queries[3], q3[0].queries[1]);
        let (_, _, d1) = query_quality(&q1, 10);
        let (_, _, d3) = query_quality(&q3, 10);
        let (p13, _, d13) = query_quality(&q13, 10);
        // 1600 queries per strategy: the dud shares are within 4 points of the targets.
        assert!((d1 - 0.35).abs() < 0.04 && (d3 - 0.25).abs() < 0.04 && (d13 - 0.30).abs() < 0.03, "{d1} {d3} {d13}");
        assert!(p13 > 0.1 && p13 < 0.6);
        for t in &q13 {
            for l in &t.queries {
                let mut s = l.clone();
                s.sort();
                s.dedup();
                assert_eq!(s.len(), l.len(), "a list repeats a document");
            }
        }
    }
}
