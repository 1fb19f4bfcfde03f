//! Per-topic evaluation of TREC runs against judgements, averaged the way trec_eval averages.
//!
//! Judgements ([`Judgements`], `qrels.rs`) and runs ([`RankedRun`], `runs.rs`) arrive as flat
//! per-topic arrays; every measure of a [`MeasurePlan`] runs over them, topics in parallel (rayon).
//! Results do not depend on the thread count: each topic's values are computed on their own
//! and summed in topic order.
//!
//! **Topics (trec_eval's rules).** Topics are the qrels topics, in byte order of their ids.
//! By default a topic the run has no line for is left out of that run's summary (trec_eval's
//! documented default; trec_eval 10.0 itself exits with "result qid not found" there, a
//! regression of 10.0). With [`EvalOptions::complete`] (`-c`) every qrels topic counts: a
//! missing topic is scored as trec_eval scores it, on a one-document ranking of a document that
//! is not in the pool, with `num_ret`, `utility`, `relstring`, `unj*` and `rbp_resid` then set to
//! 0 (as `trec_eval.c` does, matching those names exactly); serpsim's own measures score it as
//! an empty ranking. Run topics without judgements are dropped and counted.
//!
//! **Summaries.** Means are sums in topic order divided by the number of topics; counts are
//! summed; `gm_map` and `gm_bpref` are geometric means of values floored at 1e-5; `num_rel` with
//! `-c` is the number of judgements with grade > 0 in the whole qrels (trec_eval's rule).

use super::cube::{cube_test, SubtopicWeights};
use super::names::{Column, CubeTime, MeasureKind, MeasurePlan, Metric, PlannedMeasure};
use super::novelty::novelty_utilities;
use super::pres::{pres, pres_est};
use super::trec_eval::{Aggregate, Family, Settings, TopicRels, NONPOOL, UNJUDGED_IN_POOL};
use super::user_models::{err, errt, ins, rrt, tbg, tbg_cost};
use crate::error::{Error, Result};
use rayon::prelude::*;
use serde::Serialize;

pub use super::qrels::{JudgedTopic, Judgements};
pub use super::runs::{RankedRun, RankedTopic, RunOptions, UNKNOWN_DOC};

/// Options of an evaluation (trec_eval's `-l`, `-c`, `-N`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvalOptions {
    /// `-l`: minimum grade of a relevant document (default 1).
    pub relevance_level: i32,
    /// `-c`: average over every qrels topic, scoring topics missing from a run.
    pub complete: bool,
    /// Settings passed to every trec_eval measure (`-N`).
    pub settings: Settings,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions { relevance_level: 1, complete: false, settings: Settings::default() }
    }
}

/// Per-topic values and summaries of every run on every column.
#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    /// Output columns, in output order.
    #[serde(skip)]
    pub columns: Vec<Column>,
    /// Run names (trec_eval's `runid`: the tag of each run's last line).
    pub runs: Vec<String>,
    /// Topic ids (the qrels topics, sorted).
    pub topics: Vec<String>,
    /// `values[run][column][topic]`; `None` when the topic was not evaluated for that run.
    /// Text columns (`relstring`) hold `None`; their values are in [`Evaluation::texts`].
    pub values: Vec<Vec<Vec<Option<f64>>>>,
    /// `texts[run][column][topic]` for text columns (empty vectors for the others).
    pub texts: Vec<Vec<Vec<Option<String>>>>,
    /// `evaluated[run][topic]`.
    pub evaluated: Vec<Vec<bool>>,
    /// Per run: run topics dropped because they have no judgements.
    pub dropped_topics: Vec<usize>,
    /// Whether `-c` was in force.
    pub complete: bool,
    /// Judgements with grade > 0 over the whole qrels (the `-c` `num_rel` summary).
    pub positive_judgements: u64,
}

impl Evaluation {
    /// Number of topics evaluated for `run`.
    pub fn topics_evaluated(&self, run: usize) -> usize {
        self.evaluated[run].iter().filter(|&&e| e).count()
    }

    /// The per-topic values of `column` for `run`, in topic order (evaluated topics only).
    pub fn topic_values(&self, run: usize, column: usize) -> Vec<f64> {
        self.values[run][column].iter().flatten().copied().collect()
    }

    /// The summary (`all`) value, as trec_eval computes it.
    pub fn summary(&self, run: usize, column: usize) -> f64 {
        let n = self.topics_evaluated(run) as f64;
        // trec_eval accumulates in topic order, starting from 0.
        let sum = self.values[run][column].iter().flatten().fold(0.0, |a, &v| a + v);
        match self.columns[column].aggregate {
            Aggregate::Mean => {
                if n > 0.0 {
                    sum / n
                } else {
                    f64::NAN
                }
            }
            Aggregate::Sum => sum,
            Aggregate::NumRel => {
                if self.complete {
                    self.positive_judgements as f64
                } else {
                    sum
                }
            }
            Aggregate::GeoMean => {
                if n > 0.0 {
                    (sum / n).exp()
                } else {
                    f64::NAN
                }
            }
            Aggregate::NumQ => n,
            Aggregate::RunId | Aggregate::None => f64::NAN,
        }
    }

    /// Mean over the evaluated topics (NaN when none) - the summary of mean columns.
    pub fn mean(&self, run: usize, column: usize) -> f64 {
        let xs = self.topic_values(run, column);
        if xs.is_empty() {
            f64::NAN
        } else {
            xs.iter().fold(0.0, |a, &v| a + v) / xs.len() as f64
        }
    }
}

/// Checks that the judgements carry what `measure` needs.
fn check_requirements(j: &Judgements, m: &PlannedMeasure, label: &str) -> Result<()> {
    if let MeasureKind::Own(Metric::Cube { weights, .. }) = &m.kind {
        if j.topics.iter().all(|t| t.subtopic_names.is_empty()) {
            return Err(Error::Invalid(format!("`{label}` needs subtopic judgements (`topic subtopic docno grade`, --subtopics)")));
        }
        if matches!(weights, SubtopicWeights::Given(_)) {
            for t in &j.topics {
                if let Some(s) = t.subtopic_weights.iter().position(|w| w.is_none()) {
                    return Err(Error::Invalid(format!("`{label}` uses weights=p but subtopic `{}` of topic `{}` has no weight", t.subtopic_names[s], t.id)));
                }
            }
        }
    }
    Ok(())
}

/// The document trec_eval scores for a topic missing from a run under `-c`.
const BOGUS_DOCNO: &[u8] = b"ceci_nest_pas_un_docno";

fn bogus_ranking(topic: &JudgedTopic) -> RankedTopic {
    match topic.find(BOGUS_DOCNO) {
        Some(d) => {
            let g = topic.grades[d as usize];
            let rel = if g == super::qrels::NOT_IN_QRELS {
                NONPOOL
            } else if g < 0 {
                UNJUDGED_IN_POOL
            } else {
                g
            };
            RankedTopic { rels: vec![rel], docs: vec![d] }
        }
        None => RankedTopic { rels: vec![NONPOOL], docs: vec![UNKNOWN_DOC] },
    }
}

/// One topic's row: a value per column, and the text of text columns.
struct Row {
    values: Vec<f64>,
    texts: Vec<(usize, String)>,
}

fn topic_row(plan: &MeasurePlan, j: &Judgements, t: usize, ranked: &RankedTopic, opts: &EvalOptions, bogus: bool) -> Row {
    let topic = &j.topics[t];
    let mut values = vec![0.0; plan.columns.len()];
    let mut texts = Vec::new();
    let base = TopicRels::new(&ranked.rels, &topic.rel_levels, opts.relevance_level);
    let empty = RankedTopic::default();
    let has_own = plan.measures.iter().any(|m| matches!(m.kind, MeasureKind::Own(_)));
    let grades: Vec<i32> = if has_own && !bogus { ranked.grades() } else { Vec::new() };
    for m in &plan.measures {
        let level = m.relevance_level.unwrap_or(opts.relevance_level);
        let out = &mut values[m.first_column..m.first_column + m.width()];
        match &m.kind {
            MeasureKind::Trec(tm) => {
                let rels = match m.depth {
                    Some(k) => &ranked.rels[..ranked.rels.len().min(k)],
                    None => &ranked.rels[..],
                };
                let view = if level == opts.relevance_level && m.depth.is_none() { base } else { TopicRels::new(rels, &topic.rel_levels, level) };
                if tm.family == Family::Relstring {
                    texts.push((m.first_column, tm.relstring(&view)));
                    out[0] = f64::NAN;
                } else {
                    tm.compute(&view, &opts.settings, out);
                }
            }
            MeasureKind::Own(metric) => {
                let r = if bogus { &empty } else { ranked };
                // ir_measures' cut-off (`RBP(p=0.8)@10`): only the first `depth` ranks.
                let g = match m.depth {
                    Some(k) => &grades[..grades.len().min(k)],
                    None => &grades[..],
                };
                out[0] = own_value(metric, topic, r, g, level, j.max_grade) + 0.0;
            }
        }
    }
    if bogus {
        // trec_eval.c, after scoring the bogus ranking: "clean up leftovers".
        for (c, col) in plan.columns.iter().enumerate() {
            let n = col.name.as_str();
            if n == "num_ret" || n == "utility" || n.starts_with("unj") || n == "rbp_resid" {
                values[c] = 0.0;
            } else if n == "relstring" {
                for (tc, s) in texts.iter_mut() {
                    if *tc == c {
                        s.clear();
                    }
                }
            }
        }
    }
    Row { values, texts }
}

/// Evaluates every run on every planned measure, per qrels topic.
pub fn evaluate(j: &Judgements, runs: &[RankedRun], plan: &MeasurePlan, opts: &EvalOptions) -> Result<Evaluation> {
    if plan.columns.is_empty() {
        return Err(Error::Invalid("no measure given".into()));
    }
    if runs.is_empty() {
        return Err(Error::Invalid("no run given".into()));
    }
    for m in &plan.measures {
        check_requirements(j, m, &plan.columns[m.first_column].name)?;
    }
    for (i, r) in runs.iter().enumerate() {
        if let Some(o) = runs[..i].iter().find(|o| o.name == r.name) {
            return Err(Error::Invalid(format!(
                "runs {} and {} are both named `{}` (the tag of the last line names a run); rename one",
                o.source, r.source, r.name
            )));
        }
        if !opts.complete && r.topics_with_results() == 0 {
            return Err(Error::Invalid(format!(
                "{}: no topic of the run has judgements in {} (trec_eval: no queries with both results and relevance info)",
                r.source, j.source
            )));
        }
    }
    let text_columns: Vec<bool> = plan.columns.iter().map(|c| c.kind == super::trec_eval::ValueKind::Text).collect();
    let mut values = Vec::with_capacity(runs.len());
    let mut texts = Vec::with_capacity(runs.len());
    let mut evaluated = Vec::with_capacity(runs.len());
    for run in runs {
        let rows: Vec<Option<Row>> = (0..j.topics.len())
            .into_par_iter()
            .map(|t| match (&run.topics[t], opts.complete) {
                (Some(r), _) => Some(topic_row(plan, j, t, r, opts, false)),
                (None, true) => Some(topic_row(plan, j, t, &bogus_ranking(&j.topics[t]), opts, true)),
                (None, false) => None,
            })
            .collect();
        let mut v: Vec<Vec<Option<f64>>> = vec![Vec::with_capacity(j.topics.len()); plan.columns.len()];
        let mut tx: Vec<Vec<Option<String>>> = text_columns.iter().map(|&is| if is { vec![None; j.topics.len()] } else { Vec::new() }).collect();
        let mut ev = Vec::with_capacity(j.topics.len());
        for (t, row) in rows.into_iter().enumerate() {
            ev.push(row.is_some());
            match row {
                Some(row) => {
                    for (c, x) in row.values.into_iter().enumerate() {
                        v[c].push(if text_columns[c] { None } else { Some(x) });
                    }
                    for (c, s) in row.texts {
                        tx[c][t] = Some(s);
                    }
                }
                None => v.iter_mut().for_each(|col| col.push(None)),
            }
        }
        values.push(v);
        texts.push(tx);
        evaluated.push(ev);
    }
    // The novelty utility compares each run with the others, topic by topic.
    for m in &plan.measures {
        let MeasureKind::Own(Metric::Novelty(params)) = &m.kind else { continue };
        let level = m.relevance_level.unwrap_or(opts.relevance_level);
        for (t, topic) in j.topics.iter().enumerate() {
            let relevant: Vec<u32> = (0..topic.len() as u32).filter(|&d| topic.grade_of(d) >= level).collect();
            let ranks: Vec<Vec<Option<usize>>> = runs
                .iter()
                .map(|run| {
                    let mut rank_of = std::collections::HashMap::new();
                    if let Some(r) = &run.topics[t] {
                        for (i, &d) in r.docs.iter().take(params.depth).enumerate() {
                            if d != UNKNOWN_DOC {
                                rank_of.insert(d, i + 1);
                            }
                        }
                    }
                    relevant.iter().map(|d| rank_of.get(d).copied()).collect()
                })
                .collect();
            let u = novelty_utilities(&ranks, params);
            for run in 0..runs.len() {
                if evaluated[run][t] {
                    values[run][m.first_column][t] = Some(u[run]);
                }
            }
        }
    }
    Ok(Evaluation {
        columns: plan.columns.clone(),
        runs: runs.iter().map(|r| r.name.clone()).collect(),
        topics: j.topics.iter().map(|t| t.id.clone()).collect(),
        values,
        texts,
        evaluated,
        dropped_topics: runs.iter().map(|r| r.dropped_topics).collect(),
        complete: opts.complete,
        positive_judgements: j.positive_judgements,
    })
}

fn gains(grades: &[i32], graded: bool, max_grade: i32, level: i32) -> Vec<f64> {
    grades
        .iter()
        .map(|&g| {
            if graded {
                (g.max(0) as f64 / max_grade.max(1) as f64).min(1.0)
            } else if g >= level {
                1.0
            } else {
                0.0
            }
        })
        .collect()
}

/// One of serpsim's own metrics on one ranked topic (not the novelty utility, which needs
/// every run). `g` holds the grades per rank (negative values as 0).
fn own_value(metric: &Metric, topic: &JudgedTopic, r: &RankedTopic, g: &[i32], level: i32, max_grade: i32) -> f64 {
    let rel = || -> Vec<bool> { g.iter().map(|&x| x >= level).collect() };
    let num_rel = topic.rel_levels.iter().enumerate().filter(|&(i, _)| i as i64 >= level as i64).map(|(_, &c)| c as usize).sum();
    match metric {
        Metric::Ndcg { k, discount } => super::trec::ndcg(g, &topic.ideal, k.unwrap_or(usize::MAX), *discount),
        Metric::Err { k, max_grade: m } => err(g, k.unwrap_or(usize::MAX), m.unwrap_or(max_grade)),
        Metric::Rbp { p, raw: true, .. } => super::rbp(&g.iter().map(|&x| f64::from(x.max(0))).collect::<Vec<_>>(), *p).0,
        Metric::Rbp { p, graded, .. } => super::rbp(&gains(g, *graded, max_grade, level), *p).0,
        Metric::RbpTail { p } => p.powi(g.len() as i32),
        Metric::Ins { variant, t, graded } => ins(&gains(g, *graded, max_grade, level), *t, *variant).value,
        Metric::InsDepth { variant, t, graded } => ins(&gains(g, *graded, max_grade, level), *t, *variant).expected_depth,
        Metric::Rrt { t } => rrt(&rel(), *t),
        Metric::Errt { t } => errt(&rel(), *t),
        Metric::Tbg(params) => {
            let lengths: Vec<f64> =
                (0..g.len()).map(|i| r.docs.get(i).filter(|&&d| d != UNKNOWN_DOC).and_then(|&d| topic.length_of(d)).unwrap_or(params.default_length)).collect();
            tbg(&rel(), &lengths, *params)
        }
        Metric::Pres { n_max } => pres(&rel(), num_rel, *n_max),
        Metric::PresEst { n_max } => pres_est(&rel(), num_rel, *n_max),
        Metric::Cube { params, weights, time, k } => {
            let depth = k.unwrap_or(usize::MAX).min(g.len());
            let doc = |i: usize| r.docs.get(i).copied().unwrap_or(UNKNOWN_DOC);
            let docs: Vec<&[(u32, f64)]> = (0..depth).map(|i| if doc(i) == UNKNOWN_DOC { &[][..] } else { topic.subtopics_of(doc(i)) }).collect();
            let weights = match weights {
                SubtopicWeights::Given(_) => SubtopicWeights::Given(topic.subtopic_weights.iter().map(|w| w.unwrap_or(0.0)).collect()),
                w => w.clone(),
            };
            let theta = weights.theta(topic.subtopic_names.len());
            let costs: Vec<f64> = (0..depth)
                .map(|i| {
                    let d = doc(i);
                    match *time {
                        CubeTime::Top => 1.0,
                        CubeTime::Words(w) => w,
                        CubeTime::Tbg { default_length } => {
                            let relevant = g[i] >= level || docs[i].iter().any(|&(_, x)| x > 0.0);
                            let len = if d == UNKNOWN_DOC { None } else { topic.length_of(d) };
                            tbg_cost(relevant, len.unwrap_or(default_length))
                        }
                        CubeTime::PerDocument { default } => (if d == UNKNOWN_DOC { None } else { topic.time_of(d) }).unwrap_or(default),
                    }
                })
                .collect();
            cube_test(&docs, &theta, &costs, params)
        }
        Metric::Novelty(_) => f64::NAN,
        Metric::Registered(m) => super::measures::registered_value(m, &super::measure_def::TopicInput { topic, ranked: r, grades: g, level, max_grade }),
        Metric::ClickModel { kind, click, satisfaction, gamma, k } => {
            let depth = k.unwrap_or(usize::MAX).min(g.len());
            let pick = |pair: &[f64; 2], grade: i32| if grade >= level { pair[0] } else { pair[1] };
            let a: Vec<f64> = g[..depth].iter().map(|&x| pick(click, x)).collect();
            let s: Vec<f64> = g[..depth].iter().map(|&x| pick(satisfaction, x)).collect();
            match kind {
                super::names::ClickMetricKind::RrMetric => crate::clickmodels::metrics::rr_metric(&a, &s),
                super::names::ClickMetricKind::Ebu => {
                    let u: Vec<f64> = g[..depth].iter().map(|&x| f64::from(u8::from(x >= level))).collect();
                    crate::clickmodels::metrics::ebu(&a, &s, &u, *gamma)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(q: &str, r: &str, m: &[&str], complete: bool) -> Evaluation {
        let j = Judgements::parse(q, "q").unwrap();
        let plan = MeasurePlan::parse(m).unwrap();
        let opts = RunOptions { keep_docs: plan.needs_docs(), ..Default::default() };
        let run = RankedRun::parse(&j, r, "r", &opts).unwrap();
        evaluate(&j, &[run], &plan, &EvalOptions { complete, ..Default::default() }).unwrap()
    }

    #[test]
    fn missing_topics_skipped_by_default_scored_with_c() {
        // Topic 2 is judged but not retrieved; topic 9 is retrieved but not judged.
        let q = "1 0 a 1\n1 0 b 0\n2 0 c 1\n";
        let r = "1 Q0 b 1 3 r\n1 Q0 a 2 2 r\n9 Q0 a 1 1 r\n";
        let m = ["map", "P.1", "num_ret", "num_rel", "num_q", "utility"];
        let e = eval(q, r, &m, false);
        let col = |n: &str| e.columns.iter().position(|c| c.name == n).unwrap();
        // Output order is trec_eval's, not the order asked.
        let names: Vec<&str> = e.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["num_q", "num_ret", "num_rel", "map", "P_1", "utility"]);
        // Topic 1: ranking b (0), a (1): AP = (1/2) / 1.
        assert_eq!(e.values[0][col("map")], vec![Some(0.5), None]);
        assert_eq!((e.summary(0, col("map")), e.summary(0, col("num_q"))), (0.5, 1.0));
        assert_eq!(e.dropped_topics, vec![1]);
        let e = eval(q, r, &m, true);
        assert_eq!(e.values[0][col("map")], vec![Some(0.5), Some(0.0)]);
        assert_eq!(e.summary(0, col("map")), 0.25);
        // The missing topic's num_ret and utility are reset to 0; num_rel counts it.
        assert_eq!(e.values[0][col("num_ret")], vec![Some(2.0), Some(0.0)]);
        assert_eq!((e.summary(0, col("num_rel")), e.summary(0, col("num_q"))), (2.0, 2.0));
        assert_eq!(e.values[0][col("utility")][1], Some(0.0));
    }

    #[test]
    fn own_and_ir_measures_agree_with_trec_eval_names() {
        let q = include_str!("../../study_logs/trec/qrels.test");
        let r = include_str!("../../study_logs/trec/results.test");
        let e = eval(q, r, &["map", "AP", "ndcg_cut.10", "nDCG@10", "ndcg@10", "P_5", "P@5", "recip_rank", "RR"], false);
        let col = |n: &str| e.columns.iter().position(|c| c.name == n).unwrap();
        for (a, b) in [("map", "AP"), ("ndcg_cut_10", "nDCG@10"), ("ndcg_cut_10", "ndcg@10"), ("P_5", "P@5"), ("recip_rank", "RR")] {
            assert_eq!(e.values[0][col(a)], e.values[0][col(b)], "{a} vs {b}");
        }
        // trec_eval 10 on these files (tests/fixtures/trec_eval/out/all_trec.txt): map 0.4312.
        assert_eq!(format!("{:.4}", e.summary(0, col("map"))), "0.4312");
    }

    /// Parity with trec_eval's C code as pytrec_eval-terrier 0.5.11 runs it
    /// (`analysis/metrics/trec_parity.py`, `study_logs/metrics/trec_parity.json`), per topic and
    /// "all", on a graded case with tied scores, unjudged documents, a qrels topic the run does
    /// not retrieve and a run topic without judgements, and on the bundled 50-topic collection
    /// (also compared with trec_eval 10 itself in `tests/metrics_cli.rs`). pytrec_eval returns
    /// doubles, so the comparison is to 1e-12.
    #[test]
    fn pytrec_eval_parity_on_a_graded_case() {
        let fixture: serde_json::Value = serde_json::from_str(include_str!("../../study_logs/metrics/trec_parity.json")).unwrap();
        let names: Vec<String> = fixture["measures"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        let req: Vec<&str> = names.iter().map(String::as_str).collect();
        for (case, q, r) in [
            ("trec_test", include_str!("../../study_logs/trec/qrels.test"), include_str!("../../study_logs/trec/results.test")),
            ("graded", include_str!("../../study_logs/metrics/graded_qrels.txt"), include_str!("../../study_logs/metrics/graded_run.txt")),
        ] {
            let e = eval(q, r, &req, false);
            let expect = &fixture["cases"][case];
            let per_topic = expect["per_topic"].as_object().unwrap();
            assert_eq!(e.topics_evaluated(0), per_topic.len(), "{case}: topic count");
            for name in &names {
                let c = e.columns.iter().position(|col| &col.name == name).unwrap();
                for (topic, values) in per_topic {
                    let t = e.topics.iter().position(|x| x == topic).unwrap();
                    let (got, want) = (e.values[0][c][t].unwrap(), values[name].as_f64().unwrap());
                    assert!((got - want).abs() < 1e-12, "{case} {name} topic {topic}: {got} vs {want}");
                }
                let want = expect["all"][name].as_f64().unwrap();
                assert!((e.summary(0, c) - want).abs() < 1e-12, "{case} {name} all: {} vs {want}", e.summary(0, c));
            }
        }
    }

    #[test]
    fn cube_needs_subtopics_and_reads_them() {
        let mut j = Judgements::parse("1 0 d1 1\n", "q").unwrap();
        let plan = MeasurePlan::parse(&["ct:gamma=0.5,time=t,eq=11"]).unwrap();
        let text = "1 Q0 d1 1 4 r\n1 Q0 d2 2 3 r\n1 Q0 d3 3 2 r\n1 Q0 d4 4 1 r\n";
        let run = RankedRun::parse(&j, text, "r", &RunOptions::default()).unwrap();
        assert!(evaluate(&j, std::slice::from_ref(&run), &plan, &EvalOptions::default()).is_err());
        // The cube.rs toy: grades 1, 2, 2, 1 over max grade 2.
        j.add_subtopics("1 c1 d1 1\n1 c2 d2 2\n1 c1 d3 2\n1 c1 d4 1\n", "sq").unwrap();
        let run = RankedRun::parse(&j, text, "r", &RunOptions::default()).unwrap();
        let e = evaluate(&j, &[run], &plan, &EvalOptions::default()).unwrap();
        assert!((e.values[0][0][0].unwrap() - 0.25).abs() < 1e-12);
        let bad = j.clone().add_subtopics("1 c9 x 1\n1 c9 x 2\n", "sq").unwrap_err().to_string();
        assert!(bad.starts_with("sq:2:"), "{bad}");
    }

    #[test]
    fn results_do_not_depend_on_threads() {
        let q = include_str!("../../study_logs/trec/qrels.test");
        let r = include_str!("../../study_logs/trec/results.test");
        let reference = eval(q, r, &["all_trec"], true);
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let again = pool.install(|| eval(q, r, &["all_trec"], true));
            assert_eq!(again.values, reference.values);
        }
    }
}
