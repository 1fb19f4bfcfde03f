//! Per-topic evaluation of TREC runs against judgements.
//!
//! Each topic's judgements are indexed once (docno -> local index); each ranking becomes a
//! `Vec<u32>` of local indices and a `Vec<i32>` of grades, and every metric runs over those
//! flat arrays. Topics are evaluated in parallel (rayon); results do not depend on threads.
//!
//! **Policies.** Topics are the topics of the qrels. A topic missing from a run is scored as an
//! empty ranking, which is 0 for every gain metric ([`MissingTopics::Zero`], like
//! `trec_eval -c`), or left out of that run's mean ([`MissingTopics::Skip`], trec_eval's
//! default). Run topics without judgements are dropped and counted. A document retrieved twice
//! for a topic is an error (from the run parser). Unjudged documents are non-relevant.

use super::cube::{cube_test, SubtopicWeights};
use super::names::{CubeTime, Metric, MetricSpec};
use super::novelty::novelty_utilities;
use super::pres::{pres, pres_est};
use super::trec::{self, RELEVANCE_LEVEL};
use super::user_models::{err, errt, ins, rrt, tbg, tbg_cost};
use crate::collection::trec::{
    duplicate_error, empty_qrels_error, judged_twice_error, parse_qrels_line, parse_run_line, Qrels, Run,
};
use crate::error::{Error, Result};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;

use crate::collection::trec::FastMap;

/// Local index of a retrieved document without a judgement.
pub const UNJUDGED: u32 = u32::MAX;

/// One topic's judgements as flat per-document arrays.
#[derive(Debug, Clone, Default)]
pub struct JudgedTopic {
    /// Topic id.
    pub id: String,
    index: FastMap<String, u32>,
    /// Grade of each judged document.
    pub grades: Vec<i32>,
    /// Number of documents with grade >= 1.
    pub num_rel: usize,
    /// Positive grades sorted descending (the ideal ranking for nDCG).
    pub ideal: Vec<i32>,
    /// Subtopic names, in first-seen order.
    pub subtopic_names: Vec<String>,
    /// Per document: `(subtopic, rel)` with rel = grade / max subtopic grade, in [0, 1].
    pub subtopics: Vec<Vec<(u32, f64)>>,
    /// Raw subtopic weights (Cube Test "p"), per subtopic, if given.
    pub subtopic_weights: Vec<Option<f64>>,
    /// Document length in words, if given.
    pub lengths: Vec<Option<f64>>,
    /// Time to examine the document in seconds, if given.
    pub times: Vec<Option<f64>>,
}

impl JudgedTopic {
    fn doc(&mut self, docno: &str) -> usize {
        if let Some(&i) = self.index.get(docno) {
            return i as usize;
        }
        let i = self.grades.len();
        self.index.insert(docno.to_string(), i as u32);
        self.grades.push(0);
        self.subtopics.push(Vec::new());
        self.lengths.push(None);
        self.times.push(None);
        i
    }

    /// Local index of `docno`, or [`UNJUDGED`].
    pub fn find(&self, docno: &str) -> u32 {
        self.index.get(docno).copied().unwrap_or(UNJUDGED)
    }
}

/// Judgements for every topic, ready for evaluation.
#[derive(Debug, Clone, Default)]
pub struct Judgements {
    /// Topics in qrels order.
    pub topics: Vec<JudgedTopic>,
    /// Largest grade in the qrels (at least 1); ERR and graded gains divide by it.
    pub max_grade: i32,
    index: HashMap<String, usize>,
}

fn fields<'a>(line: &'a str, n: usize, what: &str, source: &str, lineno: usize) -> Result<Option<Vec<&'a str>>> {
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.is_empty() {
        return Ok(None);
    }
    if f.len() != n {
        return Err(Error::parse(source, lineno, format!("expected {n} fields `{what}`, found {}", f.len())));
    }
    Ok(Some(f))
}

impl Judgements {
    /// Indexes graded qrels.
    pub fn from_qrels(qrels: &Qrels) -> Self {
        let mut j = Judgements { max_grade: 1, ..Default::default() };
        for (id, judged) in &qrels.topics {
            let mut t = JudgedTopic { id: id.clone(), ..Default::default() };
            for (doc, grade) in judged {
                let i = t.doc(doc);
                t.grades[i] = *grade;
                j.max_grade = j.max_grade.max(*grade);
            }
            j.index.insert(id.clone(), j.topics.len());
            j.topics.push(t);
        }
        j.refresh();
        j
    }

    /// Parses qrels text straight into judgements (same format, errors and duplicate
    /// rejection as [`Qrels::parse`], one allocation per judged document).
    pub fn parse(text: &str, source: &str) -> Result<Self> {
        let mut j = Judgements { max_grade: 1, ..Default::default() };
        let mut lines: Vec<Vec<u32>> = Vec::new();
        let mut last: (&str, usize) = ("", usize::MAX);
        for (i, line) in text.lines().enumerate() {
            let Some(l) = parse_qrels_line(line, source, i + 1)? else { continue };
            let t = if last.1 != usize::MAX && last.0 == l.topic {
                last.1
            } else {
                let t = match j.index.get(l.topic) {
                    Some(&t) => t,
                    None => {
                        j.index.insert(l.topic.to_string(), j.topics.len());
                        j.topics.push(JudgedTopic { id: l.topic.to_string(), ..Default::default() });
                        lines.push(Vec::new());
                        j.topics.len() - 1
                    }
                };
                last = (l.topic, t);
                t
            };
            let topic = &mut j.topics[t];
            if let Some(&d) = topic.index.get(l.docno) {
                let first = lines[t][d as usize] as usize;
                return Err(judged_twice_error(source, i + 1, l.docno, l.topic, first));
            }
            let d = topic.doc(l.docno);
            topic.grades[d] = l.grade;
            lines[t].push((i + 1) as u32);
            j.max_grade = j.max_grade.max(l.grade);
        }
        if j.topics.is_empty() {
            return Err(empty_qrels_error(source));
        }
        j.refresh();
        Ok(j)
    }

    /// Judgements from rows `(topic, docno, grade)` held in memory (e.g. the columns of a data
    /// frame): the same indexing and duplicate rejection as [`Judgements::parse`], with row
    /// numbers (from 0) in place of line numbers. `source` names the table in errors.
    pub fn from_rows<'a>(rows: impl Iterator<Item = (&'a str, &'a str, i32)>, source: &str) -> Result<Self> {
        let mut j = Judgements { max_grade: 1, ..Default::default() };
        let mut first_row: Vec<Vec<u32>> = Vec::new();
        let mut last: (&str, usize) = ("", usize::MAX);
        for (row, (topic, docno, grade)) in rows.enumerate() {
            let t = if last.1 != usize::MAX && last.0 == topic {
                last.1
            } else {
                let t = match j.index.get(topic) {
                    Some(&t) => t,
                    None => {
                        j.index.insert(topic.to_string(), j.topics.len());
                        j.topics.push(JudgedTopic { id: topic.to_string(), ..Default::default() });
                        first_row.push(Vec::new());
                        j.topics.len() - 1
                    }
                };
                last = (topic, t);
                t
            };
            let judged = &mut j.topics[t];
            if let Some(&d) = judged.index.get(docno) {
                let first = first_row[t][d as usize];
                return Err(Error::Invalid(format!("{source}: row {row}: document `{docno}` judged twice for topic `{topic}` (first at row {first})")));
            }
            let d = judged.doc(docno);
            judged.grades[d] = grade;
            first_row[t].push(row as u32);
            j.max_grade = j.max_grade.max(grade);
        }
        if j.topics.is_empty() {
            return Err(Error::Invalid(format!("{source}: no judgements found (empty qrels)")));
        }
        j.refresh();
        Ok(j)
    }

    fn refresh(&mut self) {
        for t in &mut self.topics {
            t.num_rel = t.grades.iter().filter(|&&g| g >= RELEVANCE_LEVEL).count();
            t.ideal = t.grades.iter().copied().filter(|&g| g > 0).collect();
            t.ideal.sort_unstable_by(|a, b| b.cmp(a));
        }
    }

    /// Index of topic `id`.
    pub fn topic_index(&self, id: &str) -> Option<usize> {
        self.index.get(id).copied()
    }

    fn topic_at(&self, id: &str, source: &str, lineno: usize) -> Result<usize> {
        self.topic_index(id)
            .ok_or_else(|| Error::parse(source, lineno, format!("topic `{id}` is not in the qrels")))
    }

    /// Adds subtopic judgements, lines `topic subtopic docno grade`. Unknown documents are
    /// added with topic grade 0; unknown topics and repeated (subtopic, document) pairs are errors.
    pub fn add_subtopics(&mut self, text: &str, source: &str) -> Result<()> {
        let mut rows = Vec::new();
        let mut max = 0i32;
        for (i, line) in text.lines().enumerate() {
            let Some(f) = fields(line, 4, "topic subtopic docno grade", source, i + 1)? else { continue };
            let grade: i32 = f[3].parse().map_err(|_| {
                Error::parse(source, i + 1, format!("grade `{}` is not an integer", f[3]))
            })?;
            let t = self.topic_at(f[0], source, i + 1)?;
            max = max.max(grade);
            rows.push((i + 1, t, f[1].to_string(), f[2].to_string(), grade));
        }
        if rows.is_empty() {
            return Err(Error::parse(source, 1, "no subtopic judgements found"));
        }
        let max = max.max(1) as f64;
        for (lineno, t, sub, doc, grade) in rows {
            let topic = &mut self.topics[t];
            let s = match topic.subtopic_names.iter().position(|n| *n == sub) {
                Some(s) => s,
                None => {
                    topic.subtopic_names.push(sub.clone());
                    topic.subtopic_weights.push(None);
                    topic.subtopic_names.len() - 1
                }
            } as u32;
            let d = topic.doc(&doc);
            if topic.subtopics[d].iter().any(|&(x, _)| x == s) {
                return Err(Error::parse(source, lineno, format!(
                    "document `{doc}` judged twice for subtopic `{sub}` of topic `{}`", topic.id)));
            }
            topic.subtopics[d].push((s, grade.max(0) as f64 / max));
        }
        self.refresh();
        Ok(())
    }

    /// Adds raw subtopic weights for the Cube Test's "p" weighting, lines `topic subtopic weight`.
    pub fn add_subtopic_weights(&mut self, text: &str, source: &str) -> Result<()> {
        for (i, line) in text.lines().enumerate() {
            let Some(f) = fields(line, 3, "topic subtopic weight", source, i + 1)? else { continue };
            let w: f64 = f[2].parse().ok().filter(|w: &f64| w.is_finite() && *w >= 0.0).ok_or_else(|| {
                Error::parse(source, i + 1, format!("weight `{}` is not a finite number >= 0", f[2]))
            })?;
            let t = self.topic_at(f[0], source, i + 1)?;
            let topic = &mut self.topics[t];
            let s = topic.subtopic_names.iter().position(|n| n == f[1]).ok_or_else(|| {
                Error::parse(source, i + 1, format!("subtopic `{}` has no judgements for topic `{}`", f[1], f[0]))
            })?;
            topic.subtopic_weights[s] = Some(w);
        }
        Ok(())
    }

    /// Adds per-document values, lines `topic docno value`: lengths in words (`times` false)
    /// or examination times in seconds (`times` true).
    pub fn add_document_values(&mut self, text: &str, source: &str, times: bool) -> Result<()> {
        for (i, line) in text.lines().enumerate() {
            let Some(f) = fields(line, 3, "topic docno value", source, i + 1)? else { continue };
            let v: f64 = f[2].parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0).ok_or_else(|| {
                Error::parse(source, i + 1, format!("value `{}` is not a finite number >= 0", f[2]))
            })?;
            let t = self.topic_at(f[0], source, i + 1)?;
            let topic = &mut self.topics[t];
            let d = topic.doc(f[1]);
            if times {
                topic.times[d] = Some(v);
            } else {
                topic.lengths[d] = Some(v);
            }
        }
        self.refresh();
        Ok(())
    }
}

/// What to do with a qrels topic that a run does not retrieve for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissingTopics {
    /// Score it as an empty ranking (0 for gain metrics).
    #[default]
    Zero,
    /// Leave it out of the run's mean.
    Skip,
}

/// A ranking mapped onto a topic's judgements.
#[derive(Debug, Clone, Default)]
pub struct RankedTopic {
    /// Local document indices ([`UNJUDGED`] for unjudged documents), in trec_eval order.
    pub docs: Vec<u32>,
    /// Grades (0 for unjudged documents).
    pub grades: Vec<i32>,
}

impl RankedTopic {
    /// Maps a ranking of docnos onto `topic`.
    pub fn map<'a>(topic: &JudgedTopic, docnos: impl Iterator<Item = &'a str>) -> Self {
        let docs: Vec<u32> = docnos.map(|d| topic.find(d)).collect();
        let grades = docs.iter().map(|&d| if d == UNJUDGED { 0 } else { topic.grades[d as usize] }).collect();
        RankedTopic { docs, grades }
    }
}

/// A run mapped onto the judgements: one optional [`RankedTopic`] per qrels topic.
#[derive(Debug, Clone, Default)]
pub struct MappedRun {
    /// Run name (the tag of the first line).
    pub name: String,
    /// Per qrels topic: the ranking, or `None` when the run has no line for the topic.
    pub topics: Vec<Option<RankedTopic>>,
    /// Run topics without judgements (dropped).
    pub dropped_topics: usize,
}

impl MappedRun {
    /// Maps an already parsed [`Run`].
    pub fn from_run(j: &Judgements, run: &Run) -> Self {
        let mut slots: Vec<Option<&[crate::collection::trec::Retrieved]>> = vec![None; j.topics.len()];
        let mut dropped = 0;
        for (tid, docs) in &run.topics {
            match j.topic_index(tid) {
                Some(t) => slots[t] = Some(docs),
                None => dropped += 1,
            }
        }
        let topics = slots
            .par_iter()
            .enumerate()
            .map(|(t, docs)| docs.map(|docs| RankedTopic::map(&j.topics[t], docs.iter().map(|d| d.docno.as_str()))))
            .collect();
        MappedRun { name: run.name.clone(), topics, dropped_topics: dropped }
    }

    /// Parses run text straight onto the judgements, without allocating per document: the
    /// same line format, errors, duplicate rejection and trec_eval ordering as [`Run::parse`]
    /// (a malformed line is reported before any duplicate).
    pub fn parse(j: &Judgements, text: &str, source: &str) -> Result<Self> {
        // Split the text at line boundaries into one chunk per worker; each chunk is scanned
        // on its own, then the per-topic groups are concatenated in file order.
        let workers = rayon::current_num_threads().max(1);
        let bytes = text.as_bytes();
        let mut bounds = vec![0usize];
        for w in 1..workers {
            let mut at = (bytes.len() * w / workers).max(*bounds.last().expect("non-empty"));
            while at < bytes.len() && bytes[at - 1] != b'\n' {
                at += 1;
            }
            bounds.push(at);
        }
        bounds.push(bytes.len());
        bounds.dedup();
        let chunks: Vec<(usize, &str)> = bounds
            .windows(2)
            .map(|w| (w[0], &text[w[0]..w[1]]))
            .collect();
        // First line number of each chunk.
        let mut first_line = Vec::with_capacity(chunks.len());
        let mut line_no = 1usize;
        for (start, chunk) in &chunks {
            first_line.push(line_no);
            let _ = start;
            line_no += chunk.as_bytes().iter().filter(|&&b| b == b'\n').count();
        }
        type Group<'a> = (&'a str, Vec<(f64, &'a str, u32)>);
        let scanned: Vec<Result<(Vec<Group>, Option<&str>)>> = chunks
            .par_iter()
            .zip(first_line.par_iter())
            .map(|((_, chunk), &first)| {
                let mut groups: Vec<Group> = Vec::new();
                let mut pos: FastMap<&str, usize> = FastMap::default();
                let mut last: (&str, usize) = ("", usize::MAX);
                let mut tag = None;
                for (i, line) in chunk.lines().enumerate() {
                    let lineno = first + i;
                    let Some(l) = parse_run_line(line, source, lineno)? else { continue };
                    tag.get_or_insert(l.tag);
                    let g = if last.1 != usize::MAX && last.0 == l.topic {
                        last.1
                    } else {
                        let g = *pos.entry(l.topic).or_insert_with(|| {
                            groups.push((l.topic, Vec::new()));
                            groups.len() - 1
                        });
                        last = (l.topic, g);
                        g
                    };
                    groups[g].1.push((l.score, l.docno, lineno as u32));
                }
                Ok((groups, tag))
            })
            .collect();
        let mut groups: Vec<Group> = Vec::new();
        let mut pos: FastMap<&str, usize> = FastMap::default();
        let mut name = String::new();
        for part in scanned {
            let (part, tag) = part?;
            if name.is_empty() {
                if let Some(tag) = tag {
                    name = tag.to_string();
                }
            }
            for (topic, docs) in part {
                match pos.get(topic) {
                    Some(&g) => groups[g].1.extend(docs),
                    None => {
                        pos.insert(topic, groups.len());
                        groups.push((topic, docs));
                    }
                }
            }
        }
        if groups.is_empty() {
            return Err(Error::parse(source, 1, "no results found (empty run)"));
        }
        // Duplicates and trec_eval order, per topic in parallel; report the duplicate whose
        // repeat comes first in the file.
        let dup = groups
            .par_iter_mut()
            .filter_map(|(topic, docs)| {
                let mut seen: FastMap<&str, u32> = FastMap::default();
                seen.reserve(docs.len());
                let mut found: Option<(u32, u32, &str)> = None;
                for &(_, d, line) in docs.iter() {
                    if let Some(first) = seen.insert(d, line) {
                        if found.is_none_or(|(_, l, _)| line < l) {
                            found = Some((first, line, d));
                        }
                    }
                }
                docs.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.as_bytes().cmp(a.1.as_bytes())));
                found.map(|(first, line, d)| (line, first, d, *topic))
            })
            .min_by_key(|x| x.0);
        if let Some((line, first, d, topic)) = dup {
            return Err(duplicate_error(source, line as usize, d, topic, first as usize));
        }
        let mut slots: Vec<Option<usize>> = vec![None; j.topics.len()];
        let mut dropped = 0;
        for (g, (topic, _)) in groups.iter().enumerate() {
            match j.topic_index(topic) {
                Some(t) => slots[t] = Some(g),
                None => dropped += 1,
            }
        }
        let topics = slots
            .par_iter()
            .enumerate()
            .map(|(t, g)| {
                g.map(|g| RankedTopic::map(&j.topics[t], groups[g].1.iter().map(|d| d.1)))
            })
            .collect();
        Ok(MappedRun { name, topics, dropped_topics: dropped })
    }
}

impl MappedRun {
    /// Maps rows `(topic, docno, score)` of a run held in memory (e.g. the columns of a data
    /// frame) onto the judgements: the same grouping, trec_eval ordering (score descending,
    /// ties by docno descending) and duplicate rejection as [`MappedRun::parse`], with row
    /// numbers (from 0) in place of line numbers. `source` names the table in errors.
    pub fn from_rows<'a>(j: &Judgements, name: &str, rows: impl Iterator<Item = (&'a str, &'a str, f64)>, source: &str) -> Result<Self> {
        type Group<'a> = (&'a str, Vec<(f64, &'a str, u32)>);
        let mut groups: Vec<Group> = Vec::new();
        let mut pos: FastMap<&str, usize> = FastMap::default();
        let mut last: (&str, usize) = ("", usize::MAX);
        for (row, (topic, docno, score)) in rows.enumerate() {
            if score.is_nan() {
                return Err(Error::Invalid(format!("{source}: row {row}: score is NaN")));
            }
            let g = if last.1 != usize::MAX && last.0 == topic {
                last.1
            } else {
                let g = *pos.entry(topic).or_insert_with(|| {
                    groups.push((topic, Vec::new()));
                    groups.len() - 1
                });
                last = (topic, g);
                g
            };
            groups[g].1.push((score, docno, row as u32));
        }
        if groups.is_empty() {
            return Err(Error::Invalid(format!("{source}: no results found (empty run)")));
        }
        let dup = groups
            .par_iter_mut()
            .filter_map(|(topic, docs)| {
                let mut seen: FastMap<&str, u32> = FastMap::default();
                seen.reserve(docs.len());
                let mut found: Option<(u32, u32, &str)> = None;
                for &(_, d, row) in docs.iter() {
                    if let Some(first) = seen.insert(d, row) {
                        if found.is_none_or(|(_, r, _)| row < r) {
                            found = Some((first, row, d));
                        }
                    }
                }
                docs.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.as_bytes().cmp(a.1.as_bytes())));
                found.map(|(first, row, d)| (row, first, d, *topic))
            })
            .min_by_key(|x| x.0);
        if let Some((row, first, d, topic)) = dup {
            return Err(Error::Invalid(format!("{source}: row {row}: document `{d}` retrieved twice for topic `{topic}` (first at row {first})")));
        }
        let mut slots: Vec<Option<usize>> = vec![None; j.topics.len()];
        let mut dropped = 0;
        for (g, (topic, _)) in groups.iter().enumerate() {
            match j.topic_index(topic) {
                Some(t) => slots[t] = Some(g),
                None => dropped += 1,
            }
        }
        let topics = slots
            .par_iter()
            .enumerate()
            .map(|(t, g)| g.map(|g| RankedTopic::map(&j.topics[t], groups[g].1.iter().map(|d| d.1))))
            .collect();
        Ok(MappedRun { name: name.to_string(), topics, dropped_topics: dropped })
    }
}

/// Per-topic and mean scores of every run on every metric.
#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    /// Metric labels, as asked for.
    pub metrics: Vec<String>,
    /// Run names (the run tag).
    pub runs: Vec<String>,
    /// Topic ids (the qrels topics).
    pub topics: Vec<String>,
    /// `values[run][metric][topic]`; `None` when the topic was skipped for that run.
    pub values: Vec<Vec<Vec<Option<f64>>>>,
    /// Per run: run topics dropped because they have no judgements.
    pub dropped_topics: Vec<usize>,
    /// Per metric: whether it is a count (`num_ret`, ...), summed over topics as trec_eval does.
    pub is_count: Vec<bool>,
}

impl Evaluation {
    /// Mean over the evaluated topics (NaN when none).
    pub fn mean(&self, run: usize, metric: usize) -> f64 {
        let xs: Vec<f64> = self.values[run][metric].iter().flatten().copied().collect();
        if xs.is_empty() {
            f64::NAN
        } else {
            xs.iter().sum::<f64>() / xs.len() as f64
        }
    }

    /// The `all` value: the sum over topics for counts, else the mean.
    pub fn aggregate(&self, run: usize, metric: usize) -> f64 {
        if self.is_count[metric] {
            self.values[run][metric].iter().flatten().sum::<f64>() + 0.0
        } else {
            self.mean(run, metric)
        }
    }

    /// Number of topics evaluated for `run`.
    pub fn topics_evaluated(&self, run: usize) -> usize {
        self.values[run].first().map_or(0, |v| v.iter().flatten().count())
    }
}

fn gains(grades: &[i32], graded: bool, max_grade: i32) -> Vec<f64> {
    grades
        .iter()
        .map(|&g| {
            if graded {
                (g.max(0) as f64 / max_grade.max(1) as f64).min(1.0)
            } else if g >= RELEVANCE_LEVEL {
                1.0
            } else {
                0.0
            }
        })
        .collect()
}

/// Checks that the judgements carry what `metric` needs.
pub fn check_requirements(j: &Judgements, metric: &MetricSpec) -> Result<()> {
    if let Metric::Cube { weights, .. } = &metric.metric {
        if j.topics.iter().all(|t| t.subtopic_names.is_empty()) {
            return Err(Error::Invalid(format!("`{}` needs subtopic judgements (`topic subtopic docno grade`)", metric.label)));
        }
        if matches!(weights, SubtopicWeights::Given(_)) {
            for t in &j.topics {
                if let Some(s) = t.subtopic_weights.iter().position(|w| w.is_none()) {
                    return Err(Error::Invalid(format!(
                        "`{}` uses weights=p but subtopic `{}` of topic `{}` has no weight", metric.label, t.subtopic_names[s], t.id)));
                }
            }
        }
    }
    Ok(())
}

/// One metric on one ranked topic (every metric except the novelty utility, which needs all runs).
pub fn topic_value(metric: &Metric, topic: &JudgedTopic, r: &RankedTopic, max_grade: i32) -> f64 {
    let g = &r.grades;
    let rel = || -> Vec<bool> { g.iter().map(|&x| x >= RELEVANCE_LEVEL).collect() };
    match metric {
        Metric::NumRet => g.len() as f64,
        Metric::NumRel => topic.num_rel as f64,
        Metric::NumRelRet => trec::relevant_in(g, usize::MAX) as f64,
        Metric::Precision { k } => trec::precision_at(g, *k),
        Metric::Recall { k } => trec::recall_at(g, *k, topic.num_rel),
        Metric::Ap { k } => trec::average_precision(g, k.unwrap_or(usize::MAX), topic.num_rel),
        Metric::Rr => trec::reciprocal_rank(g),
        Metric::Rprec => trec::r_precision(g, topic.num_rel),
        Metric::Ndcg { k, discount } => trec::ndcg(g, &topic.ideal, k.unwrap_or(usize::MAX), *discount),
        Metric::Err { k, max_grade: m } => err(g, k.unwrap_or(usize::MAX), m.unwrap_or(max_grade)),
        Metric::Rbp { p, graded } => super::rbp(&gains(g, *graded, max_grade), *p).0,
        Metric::RbpResidual { p } => p.powi(g.len() as i32),
        Metric::Ins { variant, t, graded } => ins(&gains(g, *graded, max_grade), *t, *variant).value,
        Metric::InsDepth { variant, t, graded } => ins(&gains(g, *graded, max_grade), *t, *variant).expected_depth,
        Metric::Rrt { t } => rrt(&rel(), *t),
        Metric::Errt { t } => errt(&rel(), *t),
        Metric::Tbg(params) => {
            let lengths: Vec<f64> = r
                .docs
                .iter()
                .map(|&d| if d == UNJUDGED { None } else { topic.lengths[d as usize] }.unwrap_or(params.default_length))
                .collect();
            tbg(&rel(), &lengths, *params)
        }
        Metric::Pres { n_max } => pres(&rel(), topic.num_rel, *n_max),
        Metric::PresEst { n_max } => pres_est(&rel(), topic.num_rel, *n_max),
        Metric::Cube { params, weights, time, k } => {
            let depth = k.unwrap_or(usize::MAX).min(r.docs.len());
            let empty: &[(u32, f64)] = &[];
            let docs: Vec<&[(u32, f64)]> = r.docs[..depth]
                .iter()
                .map(|&d| if d == UNJUDGED { empty } else { topic.subtopics[d as usize].as_slice() })
                .collect();
            let weights = match weights {
                SubtopicWeights::Given(_) => SubtopicWeights::Given(
                    topic.subtopic_weights.iter().map(|w| w.unwrap_or(0.0)).collect(),
                ),
                w => w.clone(),
            };
            let theta = weights.theta(topic.subtopic_names.len());
            let costs: Vec<f64> = r.docs[..depth]
                .iter()
                .enumerate()
                .map(|(j, &d)| {
                    let known = |v: &Vec<Option<f64>>| if d == UNJUDGED { None } else { v[d as usize] };
                    match *time {
                        CubeTime::Top => 1.0,
                        CubeTime::Words(w) => w,
                        CubeTime::Tbg { default_length } => {
                            let relevant = g[j] >= RELEVANCE_LEVEL || docs[j].iter().any(|&(_, x)| x > 0.0);
                            tbg_cost(relevant, known(&topic.lengths).unwrap_or(default_length))
                        }
                        CubeTime::PerDocument { default } => known(&topic.times).unwrap_or(default),
                    }
                })
                .collect();
            cube_test(&docs, &theta, &costs, params)
        }
        Metric::Novelty(_) => f64::NAN,
        Metric::ClickModel { kind, click, satisfaction, gamma, k } => {
            let depth = k.unwrap_or(usize::MAX).min(g.len());
            let pick = |pair: &[f64; 2], grade: i32| if grade >= RELEVANCE_LEVEL { pair[0] } else { pair[1] };
            let a: Vec<f64> = g[..depth].iter().map(|&x| pick(click, x)).collect();
            let s: Vec<f64> = g[..depth].iter().map(|&x| pick(satisfaction, x)).collect();
            match kind {
                super::names::ClickMetricKind::RrMetric => crate::clickmodels::metrics::rr_metric(&a, &s),
                super::names::ClickMetricKind::Ebu => {
                    let u: Vec<f64> = g[..depth].iter().map(|&x| f64::from(u8::from(x >= RELEVANCE_LEVEL))).collect();
                    crate::clickmodels::metrics::ebu(&a, &s, &u, *gamma)
                }
            }
        }
    }
}

/// Evaluates every run on every metric, per qrels topic.
pub fn evaluate(j: &Judgements, runs: &[Run], metrics: &[MetricSpec], missing: MissingTopics) -> Result<Evaluation> {
    let mapped: Vec<MappedRun> = runs.iter().map(|r| MappedRun::from_run(j, r)).collect();
    evaluate_mapped(j, &mapped, metrics, missing)
}

/// [`evaluate`] on runs already mapped onto the judgements (e.g. by [`MappedRun::parse`]).
pub fn evaluate_mapped(j: &Judgements, runs: &[MappedRun], metrics: &[MetricSpec], missing: MissingTopics) -> Result<Evaluation> {
    if metrics.is_empty() {
        return Err(Error::Invalid("no metric given".into()));
    }
    if runs.is_empty() {
        return Err(Error::Invalid("no run given".into()));
    }
    for m in metrics {
        check_requirements(j, m)?;
    }
    for (i, r) in runs.iter().enumerate() {
        if runs[..i].iter().any(|o| o.name == r.name) {
            return Err(Error::Invalid(format!("two runs are named `{}`; rename one (the tag names the run)", r.name)));
        }
    }
    let empty = RankedTopic::default();
    let ranked: Vec<Vec<Option<&RankedTopic>>> = runs
        .iter()
        .map(|run| {
            run.topics
                .iter()
                .map(|r| match (r, missing) {
                    (Some(r), _) => Some(r),
                    (None, MissingTopics::Zero) => Some(&empty),
                    (None, MissingTopics::Skip) => None,
                })
                .collect()
        })
        .collect();
    let dropped_topics: Vec<usize> = runs.iter().map(|r| r.dropped_topics).collect();
    let mut values: Vec<Vec<Vec<Option<f64>>>> = ranked
        .iter()
        .map(|per_topic| {
            let by_topic: Vec<Vec<Option<f64>>> = per_topic
                .par_iter()
                .enumerate()
                .map(|(t, r)| {
                    metrics
                        .iter()
                        // `+ 0.0` turns the -0.0 of empty float sums into 0.
                        .map(|m| r.as_ref().map(|r| topic_value(&m.metric, &j.topics[t], r, j.max_grade) + 0.0))
                        .collect()
                })
                .collect();
            (0..metrics.len()).map(|m| by_topic.iter().map(|v| v[m]).collect()).collect()
        })
        .collect();
    // The novelty utility compares each run with the others, topic by topic.
    for (mi, m) in metrics.iter().enumerate() {
        let Metric::Novelty(params) = &m.metric else { continue };
        for (t, topic) in j.topics.iter().enumerate() {
            let relevant: Vec<u32> =
                (0..topic.grades.len() as u32).filter(|&d| topic.grades[d as usize] >= RELEVANCE_LEVEL).collect();
            let ranks: Vec<Vec<Option<usize>>> = ranked
                .iter()
                .map(|per_topic| {
                    let mut rank_of: HashMap<u32, usize> = HashMap::new();
                    if let Some(r) = &per_topic[t] {
                        for (i, &d) in r.docs.iter().take(params.depth).enumerate() {
                            if d != UNJUDGED {
                                rank_of.insert(d, i + 1);
                            }
                        }
                    }
                    relevant.iter().map(|d| rank_of.get(d).copied()).collect()
                })
                .collect();
            let u = novelty_utilities(&ranks, params);
            for (run, per_topic) in ranked.iter().enumerate() {
                values[run][mi][t] = per_topic[t].as_ref().map(|_| u[run]);
            }
        }
    }
    Ok(Evaluation {
        metrics: metrics.iter().map(|m| m.label.clone()).collect(),
        runs: runs.iter().map(|r| r.name.clone()).collect(),
        topics: j.topics.iter().map(|t| t.id.clone()).collect(),
        values,
        dropped_topics,
        is_count: metrics
            .iter()
            .map(|m| matches!(m.metric, Metric::NumRet | Metric::NumRel | Metric::NumRelRet))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::names::parse_metric;

    fn specs(names: &[&str]) -> Vec<MetricSpec> {
        names.iter().map(|n| parse_metric(n).unwrap()).collect()
    }

    #[test]
    fn judgement_rows_index_like_qrels_text() {
        // Hand derivation: the same judgements as text and as rows give the same topics,
        // grades and relevant counts; a repeated (topic, doc) is refused with both rows.
        let text = Judgements::parse("1 0 a 1\n1 0 b 0\n2 0 c 2\n1 0 d 3\n", "q").unwrap();
        let rows = [("1", "a", 1), ("1", "b", 0), ("2", "c", 2), ("1", "d", 3)];
        let j = Judgements::from_rows(rows.iter().copied(), "qrels").unwrap();
        assert_eq!(j.topics.len(), 2);
        for (x, y) in j.topics.iter().zip(&text.topics) {
            assert_eq!((&x.id, &x.grades, x.num_rel, &x.ideal), (&y.id, &y.grades, y.num_rel, &y.ideal));
        }
        assert_eq!(j.max_grade, 3);
        let dup = [("1", "a", 1), ("2", "a", 1), ("1", "a", 0)];
        let e = Judgements::from_rows(dup.iter().copied(), "qrels").unwrap_err().to_string();
        assert!(e.contains("qrels: row 2: document `a` judged twice for topic `1` (first at row 0)"), "{e}");
    }

    #[test]
    fn rows_map_like_run_text() {
        // Hand derivation: ties on score are broken by docno descending (trec_eval), so topic 1
        // ranks c, b, a whatever the row order; topic 9 has no judgements and is dropped.
        let j = Judgements::parse("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n", "q").unwrap();
        let rows = [("1", "a", 1.0), ("9", "x", 1.0), ("1", "b", 2.0), ("1", "c", 2.0)];
        let r = MappedRun::from_rows(&j, "r", rows.iter().copied(), "run").unwrap();
        let t = r.topics[0].as_ref().unwrap();
        assert_eq!(t.grades, vec![2, 0, 1]);
        assert!(r.topics[1].is_none());
        assert_eq!(r.dropped_topics, 1);
        let text = MappedRun::parse(&j, "1 Q0 a 1 1 r\n9 Q0 x 1 1 r\n1 Q0 b 2 2 r\n1 Q0 c 3 2 r\n", "t").unwrap();
        assert_eq!(text.topics[0].as_ref().unwrap().docs, t.docs);
        let dup = [("1", "a", 1.0), ("1", "b", 2.0), ("1", "a", 3.0)];
        let e = MappedRun::from_rows(&j, "r", dup.iter().copied(), "run").unwrap_err().to_string();
        assert!(e.contains("run: row 2: document `a` retrieved twice for topic `1` (first at row 0)"), "{e}");
    }

    #[test]
    fn missing_topics_zero_or_skip() {
        let qrels = Qrels::parse("1 0 a 1\n1 0 b 0\n2 0 c 1\n", "q").unwrap();
        let run = Run::parse("1 Q0 b 1 3 r\n1 Q0 a 2 2 r\n9 Q0 a 1 1 r\n", "r").unwrap();
        let j = Judgements::from_qrels(&qrels);
        let m = specs(&["map", "P_1", "recip_rank"]);
        let e = evaluate(&j, std::slice::from_ref(&run), &m, MissingTopics::Zero).unwrap();
        assert_eq!(e.values[0][0], vec![Some(0.5), Some(0.0)]);
        assert_eq!(e.mean(0, 0), 0.25);
        assert_eq!(e.dropped_topics, vec![1]);
        let e = evaluate(&j, &[run], &m, MissingTopics::Skip).unwrap();
        assert_eq!(e.values[0][2], vec![Some(0.5), None]);
        assert_eq!(e.mean(0, 2), 0.5);
    }

    #[test]
    fn cube_needs_subtopics_and_reads_them() {
        let qrels = Qrels::parse("1 0 d1 1\n", "q").unwrap();
        let mut j = Judgements::from_qrels(&qrels);
        let m = specs(&["ct:gamma=0.5,time=t,eq=11"]);
        let run = Run::parse("1 Q0 d1 1 4 r\n1 Q0 d2 2 3 r\n1 Q0 d3 3 2 r\n1 Q0 d4 4 1 r\n", "r").unwrap();
        assert!(evaluate(&j, std::slice::from_ref(&run), &m, MissingTopics::Zero).is_err());
        // The cube.rs toy: grades 1, 2, 2, 1 over max grade 2.
        j.add_subtopics("1 c1 d1 1\n1 c2 d2 2\n1 c1 d3 2\n1 c1 d4 1\n", "sq").unwrap();
        let e = evaluate(&j, &[run], &m, MissingTopics::Zero).unwrap();
        assert!((e.values[0][0][0].unwrap() - 0.25).abs() < 1e-12);
        let bad = j.clone().add_subtopics("1 c9 x 1\n1 c9 x 2\n", "sq").unwrap_err().to_string();
        assert!(bad.starts_with("sq:2:"), "{bad}");
        let bad = j.add_subtopics("1 c1 d1\n", "sq").unwrap_err().to_string();
        assert!(bad.starts_with("sq:1:"), "{bad}");
    }

    /// Parity with trec_eval (via pytrec_eval, `analysis/metrics/trec_parity.py`), per topic
    /// and "all", to 1e-4, on the trec_eval test files and a graded case with ties.
    #[test]
    fn trec_eval_parity() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../study_logs/metrics/trec_parity.json")).unwrap();
        let cases = [
            ("trec_test", include_str!("../../study_logs/trec/qrels.test"), include_str!("../../study_logs/trec/results.test")),
            ("graded", include_str!("../../study_logs/metrics/graded_qrels.txt"), include_str!("../../study_logs/metrics/graded_run.txt")),
        ];
        let names: Vec<String> =
            fixture["measures"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        let m: Vec<MetricSpec> = names.iter().map(|n| parse_metric(n).unwrap()).collect();
        for (case, q, r) in cases {
            let j = Judgements::from_qrels(&Qrels::parse(q, "qrels").unwrap());
            let run = Run::parse(r, "run").unwrap();
            let e = evaluate(&j, &[run], &m, MissingTopics::Skip).unwrap();
            let expect = &fixture["cases"][case];
            let per_topic = expect["per_topic"].as_object().unwrap();
            assert_eq!(e.topics_evaluated(0), per_topic.len(), "{case}: topic count");
            for (mi, name) in names.iter().enumerate() {
                for (topic, values) in per_topic {
                    let t = e.topics.iter().position(|x| x == topic).unwrap();
                    let got = e.values[0][mi][t].unwrap();
                    let want = values[name].as_f64().unwrap();
                    assert!((got - want).abs() < 1e-4, "{case} {name} topic {topic}: {got} vs {want}");
                }
                let want = expect["all"][name].as_f64().unwrap();
                assert!((e.mean(0, mi) - want).abs() < 1e-4, "{case} {name} all: {} vs {want}", e.mean(0, mi));
            }
        }
    }

    #[test]
    fn judgements_parse_agrees_with_qrels_parse() {
        let text = "1 0 a 1\n1 0 b 2\n\n2 0 c 1\n1 0 d 0\n";
        let a = Judgements::parse(text, "q").unwrap();
        let b = Judgements::from_qrels(&Qrels::parse(text, "q").unwrap());
        assert_eq!(a.topics.len(), 2);
        assert_eq!((a.topics[0].grades.clone(), a.topics[0].num_rel, a.max_grade), (b.topics[0].grades.clone(), b.topics[0].num_rel, b.max_grade));
        for bad in ["1 0 a 1\n2 0 a 1\n1 0 a 2\n", "1 0 a 1\n1 0 b\n", "1 0 a x\n", "\n"] {
            let x = Judgements::parse(bad, "q").unwrap_err().to_string();
            assert_eq!(x, Qrels::parse(bad, "q").unwrap_err().to_string());
        }
    }

    #[test]
    fn streaming_parse_agrees_with_run_parse() {
        let qrels = Qrels::parse("1 0 a 1\n1 0 b 2\n2 0 c 1\n", "q").unwrap();
        let j = Judgements::from_qrels(&qrels);
        // Ties (a, b, z at 2.0) break by docno descending; topic 9 has no judgements.
        let text = "1 Q0 a 1 2.0 r\n1 Q0 z 2 2.0 r\n1 Q0 b 3 2.0 r\n9 Q0 a 1 1 r\n1 Q0 y 4 5 r\n";
        let streamed = MappedRun::parse(&j, text, "run").unwrap();
        let owned = MappedRun::from_run(&j, &Run::parse(text, "run").unwrap());
        assert_eq!(streamed.topics[0].as_ref().unwrap().grades, vec![0, 0, 2, 1]);
        assert_eq!(streamed.topics[0].as_ref().unwrap().docs, owned.topics[0].as_ref().unwrap().docs);
        assert!(streamed.topics[1].is_none());
        assert_eq!((streamed.dropped_topics, streamed.name.as_str()), (1, "r"));
        let dup = "1 Q0 a 1 2 r\n2 Q0 c 1 2 r\n2 Q0 c 2 1 r\n1 Q0 a 3 1 r\n";
        let e = MappedRun::parse(&j, dup, "run").unwrap_err().to_string();
        assert_eq!(e, Run::parse(dup, "run").unwrap_err().to_string());
        assert!(e.starts_with("run:3:"), "{e}");
        let e = MappedRun::parse(&j, "1 Q0 a 1 x r\n", "run").unwrap_err().to_string();
        assert!(e.starts_with("run:1:") && e.contains("not a number"), "{e}");
    }

    #[test]
    fn chunked_parse_is_independent_of_thread_count() {
        let j = Judgements::parse(include_str!("../../study_logs/trec/qrels.test"), "q").unwrap();
        let text = include_str!("../../study_logs/trec/results.test");
        let reference = MappedRun::from_run(&j, &Run::parse(text, "r").unwrap());
        for threads in [1, 3, 7] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let m = pool.install(|| MappedRun::parse(&j, text, "r").unwrap());
            for (a, b) in m.topics.iter().zip(&reference.topics) {
                assert_eq!(a.as_ref().unwrap().docs, b.as_ref().unwrap().docs, "{threads} threads");
            }
            // A duplicate far into the file is found with its line numbers, whatever the split.
            let dup = format!("{text}301 Q0 FR940202-2-00150 9 1.0 STANDARD\n");
            let e = pool.install(|| MappedRun::parse(&j, &dup, "r").unwrap_err().to_string());
            assert!(e.starts_with("r:1501:") && e.contains("first at line 1"), "{e}");
        }
    }
}
