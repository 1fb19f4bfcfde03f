//! Fitting simulation parameters from a study log, written as a scenario that
//! `serpsim simulate` runs as is.
//!
//! - **Rank visits** (He et al. 2015 §4.2.1): a search is a `query` and the SERP pages shown
//!   after it. If the participant paginated, every result on the pages before the last page
//!   visited counts as visited; on the last page, the results up to the deepest evidence
//!   (the deepest clicked result: the paper's "last clicked", kept as the deepest when a
//!   participant clicks back up; or the deepest result fixated or hovered, see
//!   [`VisitEvidence`]). The probability of visiting rank r is the number of searches that
//!   visited r over the largest such count (§4.2.2). Continuation for the cascade is
//!   `p_r = v_{r+1} / v_r` (`p[r-1]` in the empirical model), 0 after the last rank.
//! - **P(click | grade)**: clicks over visited results, per grade from the qrels (task id =
//!   topic; unjudged = grade 0). **P(mark | click, grade)** likewise.
//! - **Times per action** (seconds, means): query = gap from the previous event to `query`;
//!   SERP look = from `serp_view` to the first event with a rank on that page; snippet =
//!   total fixation (or hover) time on one result per result attended; document = from
//!   `click` to the next `mark_relevant`, `serp_view`, `query` or `session_end`; mark = from
//!   `mark_relevant` to the next event.
//! - **Sublist choice counts** (§4.2.2): `filter_select` counts per task and sublist, plus
//!   one for "All".

use super::log::{EventKind, LogEvent, StudyLog};
use crate::collection::trec::Qrels;
use crate::error::{Error, Result};
use crate::scenario::{CollectionSource, Scenario, TrecSource};
use crate::user::{ActionTable, Cascade, ContinuationModel, UserProfile};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// What shows that a result on the last page was visited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VisitEvidence {
    /// Clicks only (the paper's rule).
    Clicks,
    /// Fixations with a rank, and clicks.
    Fixations,
    /// Hovers with a rank, and clicks.
    Hovers,
}

/// Options of [`fit`].
#[derive(Debug, Clone)]
pub struct FitOptions {
    /// Evidence on the last page.
    pub evidence: VisitEvidence,
    /// Results per page when a `serp_view` gives no `first_rank`.
    pub page_size: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions { evidence: VisitEvidence::Fixations, page_size: 10 }
    }
}

/// Mean time of one action with its number of observations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct TimeEstimate {
    /// Mean in seconds (NaN without observations).
    pub mean_s: f64,
    /// Observations.
    pub n: usize,
}

/// Fitted parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fit {
    /// Searches (queries) seen.
    pub searches: usize,
    /// Visits per rank (rank 1 first).
    pub visit_counts: Vec<u64>,
    /// v_r = visits / max visits.
    pub rank_visits: Vec<f64>,
    /// p_r = v_{r+1} / v_r, last 0.
    pub continuation: Vec<f64>,
    /// Per grade: (visited, clicked, marked); empty without qrels.
    pub by_grade: Vec<(u64, u64, u64)>,
    /// Times: query, serp_look, snippet, document, mark.
    pub times: BTreeMap<String, TimeEstimate>,
    /// Per task: sublist → choice count (with +1 for "All").
    pub sublists: BTreeMap<String, BTreeMap<String, u64>>,
    /// The evidence used.
    pub evidence: VisitEvidence,
}

#[derive(Default)]
struct Acc {
    sum: f64,
    n: usize,
}

impl Acc {
    fn add(&mut self, ms: f64) {
        self.sum += ms;
        self.n += 1;
    }
    fn est(&self) -> TimeEstimate {
        TimeEstimate { mean_s: if self.n > 0 { self.sum / self.n as f64 / 1000.0 } else { f64::NAN }, n: self.n }
    }
}

/// Fits the parameters of [`Fit`] from a log; `qrels` enables the per-grade tables.
pub fn fit(log: &StudyLog, qrels: Option<&Qrels>, opts: &FitOptions) -> Result<Fit> {
    let grades: HashMap<(&str, &str), i32> =
        qrels.map(|q| q.topics.iter().flat_map(|(t, js)| js.iter().map(move |(d, g)| ((t.as_str(), d.as_str()), *g))).collect()).unwrap_or_default();
    let mut counts: Vec<u64> = Vec::new();
    let mut by_grade: Vec<(u64, u64, u64)> = Vec::new();
    let (mut tq, mut tl, mut ts, mut td, mut tm) = (Acc::default(), Acc::default(), Acc::default(), Acc::default(), Acc::default());
    let mut sublists: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    let mut searches_seen = 0;
    for s in &log.sessions {
        let ev = &s.events;
        let subl = sublists.entry(s.task.clone()).or_default();
        *subl.entry("All".into()).or_insert(0) += 0;
        for (qi, search) in searches(ev) {
            if qi > 0 {
                tq.add(ev[qi].t - ev[qi - 1].t);
            }
            searches_seen += 1;
            let Some(view) = search_view(search, opts) else { continue };
            for v in view.attention.values() {
                ts.add(*v);
            }
            let visited = view.visited;
            if counts.len() < visited {
                counts.resize(visited, 0);
            }
            for c in &mut counts[..visited] {
                *c += 1;
            }
            // Per-grade tables over visited results.
            if qrels.is_some() {
                let marked: Vec<&str> =
                    search.iter().filter_map(|e| if let EventKind::MarkRelevant { document } = &e.kind { Some(document.as_str()) } else { None }).collect();
                for r in 1..=visited as u32 {
                    let Some(doc) = view.doc_at.get(&r) else { continue };
                    let g = grades.get(&(s.task.as_str(), *doc)).copied().unwrap_or(0).max(0) as usize;
                    if by_grade.len() <= g {
                        by_grade.resize(g + 1, (0, 0, 0));
                    }
                    by_grade[g].0 += 1;
                    if view.clicked.contains(&r) {
                        by_grade[g].1 += 1;
                        if marked.contains(doc) {
                            by_grade[g].2 += 1;
                        }
                    }
                }
            }
        }
        // Times of SERP looks, documents, marks; sublist choices.
        for (i, e) in ev.iter().enumerate() {
            let next = |pred: &dyn Fn(&EventKind) -> bool| ev[i + 1..].iter().find(|x| pred(&x.kind)).map(|x| x.t - e.t);
            match &e.kind {
                EventKind::SerpView { page, .. } => {
                    let prev_click = i > 0
                        && ev[..i]
                            .iter()
                            .rev()
                            .find(|x| !matches!(x.kind, EventKind::PageVisit { .. } | EventKind::MarkRelevant { .. }))
                            .is_some_and(|x| matches!(x.kind, EventKind::Click { .. }));
                    if !prev_click {
                        if let Some(d) = next(&|k| match k {
                            EventKind::Fixation { rank: Some(_), page: p, .. } | EventKind::Hover { rank: Some(_), page: p, .. } => p == page,
                            EventKind::Click { .. } => true,
                            _ => false,
                        }) {
                            tl.add(d);
                        }
                    }
                }
                EventKind::Click { .. } => {
                    if let Some(d) =
                        next(&|k| matches!(k, EventKind::MarkRelevant { .. } | EventKind::SerpView { .. } | EventKind::Query { .. } | EventKind::SessionEnd {}))
                    {
                        td.add(d);
                    }
                }
                EventKind::MarkRelevant { .. } => {
                    if let Some(x) = ev.get(i + 1) {
                        tm.add(x.t - e.t);
                    }
                }
                EventKind::FilterSelect { sublist } => *subl.entry(sublist.clone()).or_insert(0) += 1,
                _ => {}
            }
        }
    }
    for m in sublists.values_mut() {
        *m.entry("All".into()).or_insert(0) += 1;
    }
    if searches_seen == 0 {
        return Err(Error::Invalid("the log has no query events: nothing to fit".into()));
    }
    let max = counts.iter().copied().max().unwrap_or(0);
    if max == 0 {
        return Err(Error::Invalid(format!("no search shows a visited result ({:?} evidence): nothing to fit", opts.evidence)));
    }
    let rank_visits: Vec<f64> = counts.iter().map(|&c| c as f64 / max as f64).collect();
    let mut continuation: Vec<f64> = rank_visits.windows(2).map(|w| if w[0] > 0.0 { (w[1] / w[0]).min(1.0) } else { 0.0 }).collect();
    continuation.push(0.0);
    let times =
        [("query", tq), ("serp_look", tl), ("snippet", ts), ("document", td), ("mark", tm)].into_iter().map(|(k, a)| (k.to_string(), a.est())).collect();
    Ok(Fit { searches: searches_seen, visit_counts: counts, rank_visits, continuation, by_grade, times, sublists, evidence: opts.evidence })
}

/// The searches of a session: each `query` event with the events up to the next `query`,
/// as (index of the query event, events).
pub(crate) fn searches(ev: &[LogEvent]) -> impl Iterator<Item = (usize, &[LogEvent])> {
    let starts: Vec<usize> = ev.iter().enumerate().filter(|(_, e)| matches!(e.kind, EventKind::Query { .. })).map(|(i, _)| i).collect();
    (0..starts.len()).map(move |k| (starts[k], &ev[starts[k]..starts.get(k + 1).copied().unwrap_or(ev.len())]))
}

/// What one search showed and what it visited, by the pagination rule of the module docs.
pub(crate) struct SearchView<'a> {
    /// Ranks 1..=visited were visited (0: none).
    pub visited: usize,
    /// Ranks clicked, in event order.
    pub clicked: Vec<u32>,
    /// Fixation (or hover) time per rank, ms, with the chosen evidence.
    pub attention: BTreeMap<u32, f64>,
    /// The document shown at each rank.
    pub doc_at: HashMap<u32, &'a str>,
}

/// [`SearchView`] of one search (`None` when it shows no SERP page).
pub(crate) fn search_view<'a>(search: &'a [LogEvent], opts: &FitOptions) -> Option<SearchView<'a>> {
    // SERP pages: page id -> (serp_page, first_rank, results).
    let mut pages: HashMap<&str, (u32, u32, &Vec<String>)> = HashMap::new();
    let mut last_page: Option<(u32, u32, usize)> = None; // (serp_page, first_rank, n)
    for e in search {
        if let EventKind::SerpView { page, serp_page, results, first_rank, .. } = &e.kind {
            let fr = first_rank.unwrap_or((serp_page - 1) * opts.page_size as u32 + 1);
            pages.insert(page.as_str(), (*serp_page, fr, results));
            if last_page.is_none_or(|(sp, ..)| *serp_page >= sp) {
                last_page = Some((*serp_page, fr, results.len()));
            }
        }
    }
    let (_, last_first, last_n) = last_page?;
    let on_last = |r: u32| r >= last_first && (r as usize) < last_first as usize + last_n;
    let mut deepest = 0u32;
    let mut clicked: Vec<u32> = Vec::new();
    let mut attention: BTreeMap<u32, f64> = BTreeMap::new();
    for e in search {
        match &e.kind {
            EventKind::Click { rank, .. } => {
                clicked.push(*rank);
                if on_last(*rank) {
                    deepest = deepest.max(*rank);
                }
            }
            EventKind::Fixation { rank: Some(r), duration, page, .. } if opts.evidence == VisitEvidence::Fixations && pages.contains_key(page.as_str()) => {
                *attention.entry(*r).or_insert(0.0) += duration;
                if on_last(*r) {
                    deepest = deepest.max(*r);
                }
            }
            EventKind::Hover { rank: Some(r), duration, page, .. } if opts.evidence == VisitEvidence::Hovers && pages.contains_key(page.as_str()) => {
                *attention.entry(*r).or_insert(0.0) += duration;
                if on_last(*r) {
                    deepest = deepest.max(*r);
                }
            }
            _ => {}
        }
    }
    let visited = if deepest > 0 { deepest as usize } else { last_first as usize - 1 };
    let mut doc_at: HashMap<u32, &str> = HashMap::new();
    for (_, fr, results) in pages.values() {
        for (i, d) in results.iter().enumerate() {
            doc_at.insert(fr + i as u32, d.as_str());
        }
    }
    Some(SearchView { visited, clicked, attention, doc_at })
}

impl Fit {
    /// A user profile with the fitted continuation, click and mark tables and times
    /// (actions without observations keep the defaults of Maxwell et al.).
    pub fn profile(&self, name: &str) -> UserProfile {
        let mut u = UserProfile::named(name);
        u.continuation = Some(ContinuationModel::Empirical { p: self.continuation.clone(), file: None, rank_of: Default::default() });
        if !self.by_grade.is_empty() {
            let ratio = |a: u64, b: u64| if b > 0 { a as f64 / b as f64 } else { 0.0 };
            let click: Vec<f64> = self.by_grade.iter().map(|g| ratio(g.1, g.0)).collect();
            let mark: Vec<f64> = self.by_grade.iter().map(|g| ratio(g.2, g.1)).collect();
            u.clicks = Cascade::fixed(&click, &[0.0], &mark);
        }
        let mut t = ActionTable::DEFAULT_TIME;
        let get = |k: &str, d: f64| self.times.get(k).filter(|e| e.n > 0 && e.mean_s.is_finite()).map_or(d, |e| e.mean_s);
        t.issue_query = get("query", t.issue_query);
        t.serp_look = get("serp_look", t.serp_look);
        t.examine_snippet = get("snippet", t.examine_snippet);
        t.read_document = get("document", t.read_document);
        t.mark_relevant = get("mark", t.mark_relevant);
        u.time = crate::user::ActionParams::fixed(&t);
        u
    }

    /// A scenario running the fitted profile. With `trec = Some((qrels, run))` the
    /// collection is those files; otherwise the synthetic generator's defaults.
    pub fn scenario(&self, name: &str, trec: Option<(PathBuf, PathBuf)>, page_size: usize) -> Scenario {
        let collection = match trec {
            Some((qrels, run)) => CollectionSource::Trec(TrecSource {
                qrels,
                runs: vec![run],
                subtopic_qrels: None,
                docinfo: None,
                topics: None,
                allow_partial_judgements: false,
                ideal_system: None,
                page_size: Some(page_size),
            }),
            None => CollectionSource::Synthetic(crate::collection::synthetic::SyntheticConfig { page_size, ..Default::default() }),
        };
        Scenario {
            name: name.to_string(),
            seed: 1,
            replicates: 10_000,
            collection,
            variants: Default::default(),
            categories: Default::default(),
            interface: Default::default(),
            profiles: vec![self.profile("fitted")],
            sweep: Vec::new(),
            output: Default::default(),
            compare: Default::default(),
            report: Default::default(),
            when: None,
        }
    }

    /// The scenario as TOML, with the fit's provenance in comments.
    pub fn scenario_toml(&self, scenario: &Scenario) -> Result<String> {
        let body = toml::to_string(scenario).map_err(|e| Error::Invalid(format!("cannot write the scenario: {e}")))?;
        let mut head = format!(
            "# Fitted by `serpsim study fit` from {} searches ({:?} evidence on the last page,\n# pagination rule of He et al. 2015 section 4.2.1).\n# rank visits v_r: {}\n",
            self.searches,
            self.evidence,
            self.rank_visits.iter().map(|v| format!("{v:.4}")).collect::<Vec<_>>().join(" ")
        );
        for (task, m) in &self.sublists {
            if m.len() > 1 {
                head.push_str(&format!("# sublist choice counts, task {task}: {}\n", m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")));
            }
        }
        Ok(format!("{head}{body}"))
    }
}

/// A TREC run (`topic Q0 doc rank score study`) of the first result list each task showed,
/// so a fitted scenario can simulate the study's own rankings.
pub fn study_run(log: &StudyLog) -> String {
    let mut per_task: BTreeMap<&str, BTreeMap<u32, &str>> = BTreeMap::new();
    for s in &log.sessions {
        for e in &s.events {
            if let EventKind::SerpView { results, first_rank, serp_page, .. } = &e.kind {
                let fr = first_rank.unwrap_or((serp_page - 1) * 10 + 1);
                let m = per_task.entry(s.task.as_str()).or_default();
                for (i, d) in results.iter().enumerate() {
                    if !m.values().any(|x| x == d) {
                        m.entry(fr + i as u32).or_insert(d.as_str());
                    }
                }
            }
        }
    }
    let mut out = String::new();
    for (t, m) in per_task {
        let n = m.len();
        for (i, (_, d)) in m.into_iter().enumerate() {
            out.push_str(&format!("{t} Q0 {d} {} {} study\n", i + 1, n - i));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(t: f64, kind: &str) -> String {
        format!("{{\"t\":{t},\"participant\":\"p\",\"task\":\"t1\",{kind}}}\n")
    }

    /// Two searches: one paginates to page 2 and clicks rank 13; one clicks rank 3 on page 1.
    fn log() -> StudyLog {
        let results = |a: u32| (a..a + 10).map(|i| format!("\"d{i}\"")).collect::<Vec<_>>().join(",");
        let mut s = String::new();
        s += &line(0.0, "\"event\":\"session_start\"");
        s += &line(10000.0, "\"event\":\"query\",\"query\":\"a b\"");
        s += &line(10500.0, &format!("\"event\":\"serp_view\",\"page\":\"s1\",\"serp_page\":1,\"results\":[{}]", results(1)));
        s += &line(11500.0, "\"event\":\"fixation\",\"page\":\"s1\",\"x\":1,\"y\":1,\"duration\":300,\"rank\":1");
        s += &line(12000.0, "\"event\":\"filter_select\",\"sublist\":\"news\"");
        s += &line(13000.0, &format!("\"event\":\"serp_view\",\"page\":\"s2\",\"serp_page\":2,\"results\":[{}]", results(11)));
        s += &line(14000.0, "\"event\":\"click\",\"rank\":13,\"document\":\"d13\"");
        s += &line(34000.0, "\"event\":\"mark_relevant\",\"document\":\"d13\"");
        s += &line(36000.0, "\"event\":\"query\",\"query\":\"a c\"");
        s += &line(36500.0, &format!("\"event\":\"serp_view\",\"page\":\"s3\",\"serp_page\":1,\"results\":[{}]", results(1)));
        s += &line(38500.0, "\"event\":\"click\",\"rank\":3,\"document\":\"d3\"");
        s += &line(48500.0, "\"event\":\"session_end\"");
        StudyLog::parse(&s, "l").unwrap()
    }

    #[test]
    fn pagination_rule_by_hand() {
        let f = fit(&log(), None, &FitOptions { evidence: VisitEvidence::Clicks, page_size: 10 }).unwrap();
        // Search 1 visits ranks 1..13, search 2 ranks 1..3: counts 2,2,2,1 x10.
        assert_eq!(f.visit_counts, [vec![2; 3], vec![1; 10]].concat());
        assert_eq!(f.rank_visits[3], 0.5);
        assert_eq!(f.continuation[2], 0.5);
        assert_eq!(f.continuation[0], 1.0);
        assert_eq!(*f.continuation.last().unwrap(), 0.0);
        // Times: queries at +10000 after session_start and +2000 after the mark; SERP look
        // 1000 ms (fixation on rank 1) and 2000 ms (click); document: 20000 (to the mark) and
        // 10000 (to session end); mark: 2000.
        assert_eq!(f.times["query"], TimeEstimate { mean_s: 6.0, n: 2 });
        assert_eq!(f.times["serp_look"].n, 3);
        assert_eq!(f.times["document"], TimeEstimate { mean_s: 15.0, n: 2 });
        assert_eq!(f.times["mark"], TimeEstimate { mean_s: 2.0, n: 1 });
        assert_eq!(f.sublists["t1"], BTreeMap::from([("All".to_string(), 1), ("news".to_string(), 1)]));
    }

    #[test]
    fn grades_and_scenario() {
        let q = Qrels::parse("t1 0 d13 1\nt1 0 d3 1\nt1 0 d1 0\n", "q").unwrap();
        let f = fit(&log(), Some(&q), &FitOptions { evidence: VisitEvidence::Clicks, page_size: 10 }).unwrap();
        // Visited: search 1 ranks 1..13 (d1..d13), search 2 ranks 1..3. Relevant visited:
        // d3 twice, d13 once; clicked d13 and d3 (search 2), marked d13.
        assert_eq!(f.by_grade, vec![(13, 0, 0), (3, 2, 1)]);
        let p = f.profile("u");
        assert_eq!(p.clicks.click, vec![0.0, 2.0 / 3.0].into_iter().map(crate::user::Param::Fixed).collect::<Vec<_>>());
        assert_eq!(p.clicks.mark, vec![0.0, 0.5].into_iter().map(crate::user::Param::Fixed).collect::<Vec<_>>());
        let sc = f.scenario("fitted", None, 10);
        let text = f.scenario_toml(&sc).unwrap();
        let back = Scenario::parse(&text, "fitted.toml").unwrap();
        assert_eq!(back.profiles[0].continuation, p.continuation);
        assert!(text.contains("news=1"));
        let run = study_run(&log());
        assert!(run.starts_with("t1 Q0 d1 1 20 study\n") && run.lines().count() == 20, "{run}");
    }
}
