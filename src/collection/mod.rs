//! The data model: topics with judged documents, and systems that rank them into SERPs.
//!
//! Documents live in per-topic tables and SERPs hold indices into them, so the simulation's
//! hot loop never touches strings.

pub mod categories;
pub(crate) mod coverage;
pub mod docinfo;
pub mod letor;
pub mod queries;
pub mod synthetic;
pub mod trec;

use crate::error::{Error, Result};
use std::collections::HashMap;

/// Relevance of a document to one subtopic (aspect, nugget) of its topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubtopicGrade {
    /// Index into [`Topic::subtopics`].
    pub subtopic: u32,
    /// Graded relevance to that subtopic (> 0 means relevant).
    pub grade: i32,
}

/// A document as judged for one topic.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// External identifier (TREC docno, LETOR docid, ...).
    pub id: String,
    /// Graded relevance; 0 or below is non-relevant, unjudged documents get 0.
    pub grade: i32,
    /// Grades per subtopic, if subtopic judgements were loaded.
    pub subtopics: Vec<SubtopicGrade>,
    /// Length in words, when known (time models that read documents use it).
    pub length: Option<u32>,
    /// Category labels (indices into [`Collection::categories`]); each defines a sublist.
    pub categories: Vec<u32>,
}

impl Document {
    /// An unjudged or plain document with a grade and nothing else.
    pub fn new(id: impl Into<String>, grade: i32) -> Self {
        Document { id: id.into(), grade, subtopics: Vec::new(), length: None, categories: Vec::new() }
    }
}

/// A topic (query) and every document known for it: judged ones and ones a system retrieved.
#[derive(Debug, Clone, Default)]
pub struct Topic {
    /// Topic identifier as in the qrels.
    pub id: String,
    /// Document table; SERPs refer to documents by index into it.
    pub documents: Vec<Document>,
    /// Subtopic names, indexed by [`SubtopicGrade::subtopic`].
    pub subtopics: Vec<String>,
    index: HashMap<String, u32>,
}

impl Topic {
    /// An empty topic.
    pub fn new(id: impl Into<String>) -> Self {
        Topic { id: id.into(), ..Default::default() }
    }

    /// Index of document `id`, if known.
    pub fn find(&self, id: &str) -> Option<u32> {
        self.index.get(id).copied()
    }

    /// Index of document `id`, adding it as unjudged (grade 0) if it is new.
    pub fn find_or_add(&mut self, id: &str) -> u32 {
        if let Some(&i) = self.index.get(id) {
            return i;
        }
        self.push(Document::new(id, 0))
    }

    /// Adds a document and returns its index. A document with the same id is replaced.
    pub fn push(&mut self, doc: Document) -> u32 {
        if let Some(&i) = self.index.get(&doc.id) {
            self.documents[i as usize] = doc;
            return i;
        }
        let i = self.documents.len() as u32;
        self.index.insert(doc.id.clone(), i);
        self.documents.push(doc);
        i
    }

    /// Index of subtopic `name`, adding it if new.
    pub fn subtopic_index(&mut self, name: &str) -> u32 {
        match self.subtopics.iter().position(|s| s == name) {
            Some(i) => i as u32,
            None => {
                self.subtopics.push(name.to_string());
                (self.subtopics.len() - 1) as u32
            }
        }
    }
}

/// One system's ranked result list for one topic.
#[derive(Debug, Clone, PartialEq)]
pub struct Serp {
    /// Indices into the topic's document table, best first.
    pub docs: Vec<u32>,
}

/// A ranking system: one SERP per topic (or none when it returned nothing).
#[derive(Debug, Clone)]
pub struct System {
    /// System name (run tag, file stem or configured name).
    pub name: String,
    /// SERP per topic, indexed like [`Collection::topics`].
    pub serps: Vec<Option<Serp>>,
}

/// Topics, the systems that rank them, and the interface's page size.
#[derive(Debug, Clone)]
pub struct Collection {
    /// Topics in load order.
    pub topics: Vec<Topic>,
    /// Systems in load order.
    pub systems: Vec<System>,
    /// Category names, indexed by [`Document::categories`].
    pub categories: Vec<String>,
    /// Results shown per page.
    pub page_size: usize,
}

impl Collection {
    /// An empty collection with page size 10.
    pub fn new() -> Self {
        Collection { topics: Vec::new(), systems: Vec::new(), categories: Vec::new(), page_size: 10 }
    }

    /// Index of topic `id`.
    pub fn topic_index(&self, id: &str) -> Option<usize> {
        self.topics.iter().position(|t| t.id == id)
    }

    /// Index of system `name`.
    pub fn system_index(&self, name: &str) -> Option<usize> {
        self.systems.iter().position(|s| s.name == name)
    }

    /// Adds the "ideal" system: every topic's documents sorted by grade, best first
    /// (ties keep the document table order). Useful as an upper bound.
    pub fn add_ideal_system(&mut self, name: &str) -> Result<()> {
        if self.system_index(name).is_some() {
            return Err(Error::Invalid(format!("a system named `{name}` already exists")));
        }
        let serps = self
            .topics
            .iter()
            .map(|t| {
                let mut docs: Vec<u32> = (0..t.documents.len() as u32).collect();
                docs.sort_by_key(|&d| std::cmp::Reverse(t.documents[d as usize].grade));
                Some(Serp { docs })
            })
            .collect();
        self.systems.push(System { name: name.to_string(), serps });
        Ok(())
    }
}

impl Default for Collection {
    fn default() -> Self {
        Self::new()
    }
}

/// Gain of a grade for nDCG: the grade itself if positive, else 0 (trec_eval's convention).
/// nDCG here is the data model's own measure of a ranking (the synthetic generator places
/// systems by it); the evaluation measures are in `metrics`.
pub fn linear_gain(grade: i32) -> f64 {
    grade.max(0) as f64
}

/// DCG@k with the log2(i + 1) discount (rank i from 1) and linear gains.
pub fn dcg_at(grades: &[i32], k: usize) -> f64 {
    grades.iter().take(k).enumerate().map(|(i, &g)| linear_gain(g) / ((i + 2) as f64).log2()).sum()
}

/// nDCG@k: DCG of `ranked` over DCG of the ideal ordering of `judged` (all judged grades).
/// Returns 0 when the topic has no relevant document.
pub fn ndcg_at(ranked: &[i32], judged: &[i32], k: usize) -> f64 {
    let mut ideal: Vec<i32> = judged.iter().copied().filter(|&g| g > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg = dcg_at(&ideal, k);
    if idcg == 0.0 {
        0.0
    } else {
        dcg_at(ranked, k) / idcg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndcg_of_ideal_is_one_and_hand_computed() {
        assert!((ndcg_at(&[2, 1, 0], &[0, 1, 2], 10) - 1.0).abs() < 1e-12);
        let expect = (1.0 / 2f64.log2() + 2.0 / 4f64.log2()) / (2.0 + 1.0 / 3f64.log2());
        assert!((ndcg_at(&[1, 0, 2], &[2, 1, 0], 10) - expect).abs() < 1e-12);
    }
}
