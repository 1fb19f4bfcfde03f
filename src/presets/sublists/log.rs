//! RLR usage logs (He et al. §4): format, effort counting (§4.2.1), fitting (§4.2.2),
//! prediction and validation (§4.3-4.4), and a generator of synthetic logs.
//!
//! Format (CSV with this header; one row per event; rows of an instance in time order):
//!
//! ```text
//! instance,user,topic,interface,time,event,sublist,position
//! i1,u7,T3,rlr,0,hover,All,1
//! i1,u7,T3,rlr,1200,click,All,1
//! i1,u7,T3,rlr,2100,filter,news,
//! i1,u7,T3,rlr,3000,paginate,news,2
//! ```
//!
//! `interface` is `basic` or `rlr`; `time` is milliseconds from the task start; `event` is
//! `hover` or `click` on the result at `position` (displayed rank, 1-based) of `sublist`,
//! `filter` (select `sublist`; position empty), or `paginate` (`position` = page now shown of
//! `sublist`). Sublist names are the topic's ("All" for the unfiltered list).

use super::model::{he_profile, world_of, ActionWeights, ContinuationKind, CutOff, TopicSublists};
use super::sweep::{basic_effort, simulate_users, Quartiles};
use crate::error::{Error, Result};
use crate::input::{snippet, ECHO};
use crate::rng::{hash_str, stream};
use crate::simulate::walk::{dirichlet_samplers, draw_dirichlet, walk, FixedChoice, Scratch, Step, SystemOnTopic};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};
use std::collections::HashMap;

/// The interface a task instance used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interface {
    /// "All" only.
    Basic,
    /// "All" plus filters.
    Rlr,
}

impl Interface {
    /// `basic` or `rlr`.
    pub fn name(&self) -> &'static str {
        match self {
            Interface::Basic => "basic",
            Interface::Rlr => "rlr",
        }
    }
}

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// Mouse over a result.
    Hover,
    /// Click on a result.
    Click,
    /// Filter (sublist) selection.
    Filter,
    /// Page change.
    Paginate,
}

/// One logged event, resolved against the topic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    /// Milliseconds from the task start.
    pub time: f64,
    /// Kind.
    pub kind: EventKind,
    /// Sublist index in the topic.
    pub sublist: u32,
    /// Rank (hover, click) or page (paginate), 1-based; 0 for filter.
    pub position: u32,
}

/// One task instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// Instance id.
    pub id: String,
    /// User id.
    pub user: String,
    /// Topic index into the topics given to the parser.
    pub topic: usize,
    /// Interface used.
    pub interface: Interface,
    /// Events in time order.
    pub events: Vec<Event>,
}

/// Parses a usage log against `topics` (names of topics and sublists must exist).
/// Errors carry `source:line`.
pub fn parse_log(text: &str, source: &str, topics: &[TopicSublists]) -> Result<Vec<Instance>> {
    let topic_index: HashMap<&str, usize> = topics.iter().enumerate().map(|(i, t)| (t.id.as_str(), i)).collect();
    let mut out: Vec<Instance> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut lines = crate::input::strip_bom(text).lines().enumerate();
    let header = "instance,user,topic,interface,time,event,sublist,position";
    match lines.next() {
        Some((_, h)) if h.trim() == header => {}
        _ => return Err(Error::parse(source, 1, format!("expected the header `{header}`"))),
    }
    for (i, line) in lines {
        let ln = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != 8 {
            return Err(Error::parse(source, ln, format!("expected 8 fields, found {}", f.len())));
        }
        let topic = *topic_index.get(f[2]).ok_or_else(|| Error::parse(source, ln, format!("unknown topic `{}`", snippet(f[2], ECHO))))?;
        let interface = match f[3] {
            "basic" => Interface::Basic,
            "rlr" => Interface::Rlr,
            x => return Err(Error::parse(source, ln, format!("interface `{}` is neither `basic` nor `rlr`", snippet(x, ECHO)))),
        };
        let time: f64 = f[4]
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| Error::parse(source, ln, format!("time `{}` is not a number >= 0", snippet(f[4], ECHO))))?;
        let kind = match f[5] {
            "hover" => EventKind::Hover,
            "click" => EventKind::Click,
            "filter" => EventKind::Filter,
            "paginate" => EventKind::Paginate,
            x => return Err(Error::parse(source, ln, format!("unknown event `{x}` (hover, click, filter, paginate)"))),
        };
        let t = &topics[topic];
        let sublist =
            t.names.iter().position(|n| n == f[6]).ok_or_else(|| Error::parse(source, ln, format!("topic `{}` has no sublist `{}`", t.id, f[6])))? as u32;
        if interface == Interface::Basic && sublist != 0 {
            return Err(Error::parse(source, ln, "the basic interface has only the sublist `All`"));
        }
        let position = if kind == EventKind::Filter {
            if !f[7].is_empty() {
                return Err(Error::parse(source, ln, "a filter event has no position"));
            }
            0
        } else {
            let p: u32 =
                f[7].parse().ok().filter(|&p| p >= 1).ok_or_else(|| Error::parse(source, ln, format!("position `{}` is not an integer >= 1", f[7])))?;
            let len = t.lists[sublist as usize].len() as u32;
            if matches!(kind, EventKind::Hover | EventKind::Click) && p > len {
                return Err(Error::parse(source, ln, format!("rank {p} is beyond sublist `{}` of {len} results", f[6])));
            }
            p
        };
        let idx = match by_id.get(f[0]) {
            Some(&k) => {
                let inst = &out[k];
                if inst.topic != topic || inst.interface != interface || inst.user != f[1] {
                    return Err(Error::parse(source, ln, format!("instance `{}` changes user, topic or interface", f[0])));
                }
                if inst.events.last().is_some_and(|e| e.time > time) {
                    return Err(Error::parse(source, ln, format!("instance `{}`: events out of time order", f[0])));
                }
                k
            }
            None => {
                by_id.insert(f[0].to_string(), out.len());
                out.push(Instance { id: f[0].to_string(), user: f[1].to_string(), topic, interface, events: Vec::new() });
                out.len() - 1
            }
        };
        out[idx].events.push(Event { time, kind, sublist, position });
    }
    if out.is_empty() {
        return Err(Error::parse(source, 1, "the log has no events"));
    }
    Ok(out)
}

/// Writes instances in the log format.
pub fn write_log(instances: &[Instance], topics: &[TopicSublists]) -> String {
    let mut s = String::from("instance,user,topic,interface,time,event,sublist,position\n");
    for inst in instances {
        let t = &topics[inst.topic];
        for e in &inst.events {
            let (ev, pos) = match e.kind {
                EventKind::Hover => ("hover", e.position.to_string()),
                EventKind::Click => ("click", e.position.to_string()),
                EventKind::Filter => ("filter", String::new()),
                EventKind::Paginate => ("paginate", e.position.to_string()),
            };
            s += &format!("{},{},{},{},{},{},{},{}\n", inst.id, inst.user, t.id, inst.interface.name(), e.time, ev, t.names[e.sublist as usize], pos);
        }
    }
    s
}

/// User effort of one instance (§4.2.1) and the displayed ranks it counts as visited.
#[derive(Debug, Clone, PartialEq)]
pub struct CountedEffort {
    /// Weighted effort: visited results + filter selections + page turns.
    pub effort: f64,
    /// Distinct results visited.
    pub visited: u32,
    /// Filter selections.
    pub filters: u32,
    /// Page turns.
    pub paginations: u32,
    /// Displayed ranks counted as visited, one entry per (view, rank).
    pub rank_visits: Vec<u32>,
}

/// Counts effort as §4.2.1: a page the user paginated away from counts as seen in full; on
/// the last page of a sublist visit (left by a filter selection or the end of the task),
/// results count up to the last clicked one. Results are counted once even when shown in
/// several sublists. Every filter selection and page turn is one action.
pub fn count_effort(inst: &Instance, topic: &TopicSublists, page_size: u32, w: &ActionWeights) -> CountedEffort {
    let mut seen = vec![false; topic.grades.len()];
    let mut out = CountedEffort { effort: 0.0, visited: 0, filters: 0, paginations: 0, rank_visits: Vec::new() };
    let (mut cur, mut page, mut last_click) = (0u32, 1u32, 0u32);
    let mut count = |list: u32, from: u32, to: u32, out: &mut CountedEffort| {
        let l = &topic.lists[list as usize];
        for r in from..=to.min(l.len() as u32) {
            if r == 0 {
                continue;
            }
            out.rank_visits.push(r);
            let a = l[r as usize - 1] as usize;
            if !seen[a] {
                seen[a] = true;
                out.visited += 1;
            }
        }
    };
    for e in &inst.events {
        match e.kind {
            EventKind::Hover => {}
            EventKind::Click => {
                if e.sublist == cur {
                    last_click = last_click.max(e.position);
                }
            }
            EventKind::Paginate => {
                count(cur, (page - 1) * page_size + 1, page * page_size, &mut out);
                out.paginations += 1;
                page = e.position;
                last_click = 0;
            }
            EventKind::Filter => {
                count(cur, (page - 1) * page_size + 1, last_click, &mut out);
                out.filters += 1;
                cur = e.sublist;
                page = 1;
                last_click = 0;
            }
        }
    }
    count(cur, (page - 1) * page_size + 1, last_click, &mut out);
    out.effort = out.visited as f64 * w.examine + out.filters as f64 * w.select + out.paginations as f64 * w.paginate;
    out
}

/// Empirical rank-visit probabilities (§4.2.2): visits of each displayed rank over the
/// instances, divided by the largest count. Index r - 1 holds rank r.
pub fn rank_visit_table(counted: &[&CountedEffort]) -> Vec<f64> {
    let max_rank = counted.iter().flat_map(|c| c.rank_visits.iter()).copied().max().unwrap_or(0) as usize;
    let mut n = vec![0.0; max_rank];
    for c in counted {
        for &r in &c.rank_visits {
            n[r as usize - 1] += 1.0;
        }
    }
    let m = n.iter().cloned().fold(0.0, f64::max);
    if m > 0.0 {
        n.iter_mut().for_each(|x| *x /= m);
    }
    n
}

/// Sublist choice counts of one topic's RLR instances, with +1 for "All" (§4.2.2): the
/// Dirichlet parameters alpha_u used for prediction.
pub fn choice_counts(instances: &[&Instance], topic: &TopicSublists) -> Vec<f64> {
    let mut c = vec![0.0; topic.k()];
    c[0] = 1.0;
    for inst in instances {
        for e in &inst.events {
            if e.kind == EventKind::Filter {
                c[e.sublist as usize] += 1.0;
            }
        }
    }
    c
}

/// The model's decisions read back from an RLR instance by replaying it on the topic.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decisions {
    /// (rank, continued?) for each continuation decision.
    pub continuations: Vec<(u32, bool)>,
    /// (chosen sublist, selectable sublists) for each switch.
    pub choices: Vec<(u32, Vec<u32>)>,
}

/// Replays an instance under the model's rules: in each sublist visit the user examined the
/// unseen results from the entry point down to the deepest hovered or clicked rank (at least
/// the first, examined without a decision); each further one is a continuation at its rank,
/// and a visit left by a filter selection ends with a failed continuation at the next unseen
/// rank (none if the sublist was exhausted, which forces the switch). Selectable sublists at
/// a switch are the others not yet exhausted.
pub fn decisions(inst: &Instance, topic: &TopicSublists) -> Decisions {
    let mut seen = vec![false; topic.grades.len()];
    let mut d = Decisions::default();
    let mut cur = 0u32;
    let mut deepest = 0u32;
    let next_unseen = |list: u32, seen: &[bool]| topic.lists[list as usize].iter().position(|&a| !seen[a as usize]).map(|p| p as u32 + 1);
    let close_visit = |cur: u32, deepest: u32, switched: bool, seen: &mut [bool], d: &mut Decisions| {
        let l = &topic.lists[cur as usize];
        let mut first = true;
        let mut r = match l.iter().position(|&a| !seen[a as usize]) {
            Some(p) => p as u32 + 1,
            None => return,
        };
        let last = deepest.max(r);
        while r as usize <= l.len() && r <= last {
            let a = l[r as usize - 1] as usize;
            if !seen[a] {
                if !first {
                    d.continuations.push((r, true));
                }
                first = false;
                seen[a] = true;
            }
            r += 1;
        }
        if switched {
            if let Some(p) = l.iter().position(|&a| !seen[a as usize]) {
                d.continuations.push((p as u32 + 1, false));
            }
        }
    };
    for e in &inst.events {
        match e.kind {
            EventKind::Hover | EventKind::Click => {
                if e.sublist == cur {
                    deepest = deepest.max(e.position);
                }
            }
            EventKind::Paginate => {}
            EventKind::Filter => {
                close_visit(cur, deepest, true, &mut seen, &mut d);
                let avail: Vec<u32> = (0..topic.k() as u32).filter(|&k| k != cur && next_unseen(k, &seen).is_some()).collect();
                if avail.contains(&e.sublist) {
                    d.choices.push((e.sublist, avail));
                }
                cur = e.sublist;
                deepest = 0;
            }
        }
    }
    close_visit(cur, deepest, false, &mut seen, &mut d);
    d
}

/// Maximum-likelihood lambda of p_r = exp(-lambda r) from continuation decisions: the root of
/// sum_fail r / (exp(lambda r) - 1) = sum_success r, found by bisection. 0 without failures.
pub fn fit_lambda(decisions: &[(u32, bool)]) -> f64 {
    let s: f64 = decisions.iter().filter(|d| d.1).map(|d| d.0 as f64).sum();
    let fails: Vec<f64> = decisions.iter().filter(|d| !d.1).map(|d| d.0 as f64).collect();
    if fails.is_empty() {
        return 0.0;
    }
    if s == 0.0 {
        return f64::INFINITY;
    }
    let g = |l: f64| fails.iter().map(|&r| r / (l * r).exp_m1()).sum::<f64>() - s;
    let (mut lo, mut hi) = (1e-12, 1.0);
    while g(hi) > 0.0 && hi < 1e6 {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Choice probabilities by maximum likelihood under Categorical(c) restricted to the
/// selectable sublists (Luce's choice axiom), by Hunter's MM iterations. Sublists never
/// selectable keep their share of the uniform start; the result sums to 1.
pub fn fit_choices(choices: &[(u32, Vec<u32>)], k: usize) -> Vec<f64> {
    let mut c = vec![1.0 / k as f64; k];
    let mut wins = vec![0.0; k];
    for (chosen, _) in choices {
        wins[*chosen as usize] += 1.0;
    }
    for _ in 0..2000 {
        let mut denom = vec![0.0; k];
        for (_, avail) in choices {
            let s: f64 = avail.iter().map(|&j| c[j as usize]).sum();
            for &j in avail {
                denom[j as usize] += 1.0 / s;
            }
        }
        let mut next: Vec<f64> = (0..k).map(|j| if denom[j] > 0.0 { wins[j] / denom[j] } else { c[j] }).collect();
        let t: f64 = next.iter().sum();
        next.iter_mut().for_each(|x| *x /= t);
        let change = next.iter().zip(&c).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        c = next;
        if change < 1e-12 {
            break;
        }
    }
    c
}

/// Per-topic comparison of user and predicted effort (§4.3-4.4).
#[derive(Debug, Clone, PartialEq)]
pub struct TopicPrediction {
    /// Topic id.
    pub topic: String,
    /// Median user effort on the basic interface (y_b), NaN without instances.
    pub user_basic: f64,
    /// Median user effort on the RLR interface (y_r), NaN without instances.
    pub user_rlr: f64,
    /// Median of the simulated RLR efforts (y^_r).
    pub predicted_rlr: f64,
    /// Quartiles of the simulated RLR efforts.
    pub predicted_q25: f64,
    /// Third quartile.
    pub predicted_q75: f64,
    /// Effort of the basic interface as the model walks it.
    pub model_basic: f64,
}

/// Agreement on which interface needs less effort, one class at a time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassAgreement {
    /// Precision of predicting the class.
    pub precision: f64,
    /// Recall of the class.
    pub recall: f64,
    /// F1.
    pub f1: f64,
}

/// The validation of §4.3-4.4.
#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    /// Topics with both user and predicted RLR effort.
    pub topics: usize,
    /// Pearson correlation of predicted with user RLR effort, and its p-value.
    pub pearson: crate::stats::PearsonTest,
    /// Topics where sign(y_b - y^_r) = sign(y_b - y_r).
    pub agree: usize,
    /// Topics with both y_b and y_r.
    pub compared: usize,
    /// "RLR needs less effort" (difference > 0).
    pub rlr_better: ClassAgreement,
    /// "Basic needs less effort" (difference < 0).
    pub basic_better: ClassAgreement,
}

/// What a fit of a log yields.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedLog {
    /// Rank-visit table of the RLR interface (the continuation probabilities p_r).
    pub rlr_rank_visits: Vec<f64>,
    /// Rank-visit table of the basic interface.
    pub basic_rank_visits: Vec<f64>,
    /// Per topic, choice counts with +1 for "All" (alpha_u).
    pub choice_counts: Vec<Vec<f64>>,
    /// Maximum-likelihood lambda of exp(-lambda r) from the replayed decisions.
    pub lambda: f64,
    /// Per topic, MLE choice probabilities (Luce).
    pub choice_probs: Vec<Vec<f64>>,
    /// Per instance, counted user effort.
    pub effort: Vec<CountedEffort>,
}

/// Fits the model's parameters from a log (§4.2.2).
pub fn fit_log(instances: &[Instance], topics: &[TopicSublists], page_size: u32, w: &ActionWeights) -> FittedLog {
    let effort: Vec<CountedEffort> = instances.iter().map(|i| count_effort(i, &topics[i.topic], page_size, w)).collect();
    let of = |iface: Interface| -> Vec<&CountedEffort> { instances.iter().zip(&effort).filter(|(i, _)| i.interface == iface).map(|(_, e)| e).collect() };
    let mut cont = Vec::new();
    let mut choices: Vec<Vec<(u32, Vec<u32>)>> = vec![Vec::new(); topics.len()];
    for inst in instances.iter().filter(|i| i.interface == Interface::Rlr) {
        let d = decisions(inst, &topics[inst.topic]);
        cont.extend(d.continuations);
        choices[inst.topic].extend(d.choices);
    }
    let choice_counts = topics
        .iter()
        .enumerate()
        .map(|(t, topic)| {
            let insts: Vec<&Instance> = instances.iter().filter(|i| i.topic == t && i.interface == Interface::Rlr).collect();
            choice_counts(&insts, topic)
        })
        .collect();
    FittedLog {
        rlr_rank_visits: rank_visit_table(&of(Interface::Rlr)),
        basic_rank_visits: rank_visit_table(&of(Interface::Basic)),
        choice_counts,
        lambda: fit_lambda(&cont),
        choice_probs: topics.iter().enumerate().map(|(t, topic)| fit_choices(&choices[t], topic.k())).collect(),
        effort,
    }
}

/// Predicts each topic's RLR effort as the median of `replicates` simulations with the
/// fitted rank-visit table and choice counts, and collects the users' median efforts.
#[allow(clippy::too_many_arguments)]
pub fn predict(
    instances: &[Instance],
    topics: &[TopicSublists],
    fitted: &FittedLog,
    cutoff: CutOff,
    page_size: u32,
    w: &ActionWeights,
    replicates: usize,
    seed: u64,
) -> Result<Vec<TopicPrediction>> {
    use rayon::prelude::*;
    if let CutOff::Effort(_) = cutoff {
        return Err(Error::Invalid("prediction from usage logs compares effort: use a gain target (find-N, find-all)".into()));
    }
    let cont = ContinuationKind::Empirical { probs: fitted.rlr_rank_visits.clone() }.table(topics.iter().map(|t| t.grades.len()).max().unwrap_or(0));
    topics
        .par_iter()
        .enumerate()
        .map(|(t, topic)| {
            let med = |iface: Interface| {
                let v: Vec<f64> = instances.iter().zip(&fitted.effort).filter(|(i, _)| i.topic == t && i.interface == iface).map(|(_, e)| e.effort).collect();
                if v.is_empty() {
                    f64::NAN
                } else {
                    crate::stats::median(&v)
                }
            };
            let mut sims = simulate_users(topic, &cont, &fitted.choice_counts[t], cutoff, page_size, w, replicates, seed)?;
            let q = Quartiles::of(&mut sims);
            Ok(TopicPrediction {
                topic: topic.id.clone(),
                user_basic: med(Interface::Basic),
                user_rlr: med(Interface::Rlr),
                predicted_rlr: q.median,
                predicted_q25: q.q25,
                predicted_q75: q.q75,
                model_basic: basic_effort(topic, cutoff, page_size, w),
            })
        })
        .collect()
}

fn agreement(pred: &[bool], truth: &[bool]) -> ClassAgreement {
    let tp = pred.iter().zip(truth).filter(|(p, t)| **p && **t).count() as f64;
    let np = pred.iter().filter(|p| **p).count() as f64;
    let nt = truth.iter().filter(|t| **t).count() as f64;
    let precision = if np > 0.0 { tp / np } else { f64::NAN };
    let recall = if nt > 0.0 { tp / nt } else { f64::NAN };
    let f1 = if precision + recall > 0.0 { 2.0 * precision * recall / (precision + recall) } else { f64::NAN };
    ClassAgreement { precision, recall, f1 }
}

/// Pearson of y^_r with y_r, and agreement of effort_p = y_b - y^_r with effort_u = y_b - y_r
/// (§4.4), over topics with the needed medians.
pub fn validate(preds: &[TopicPrediction]) -> Result<Validation> {
    let both: Vec<&TopicPrediction> = preds.iter().filter(|p| p.user_rlr.is_finite() && p.predicted_rlr.is_finite()).collect();
    let x: Vec<f64> = both.iter().map(|p| p.predicted_rlr).collect();
    let y: Vec<f64> = both.iter().map(|p| p.user_rlr).collect();
    let pearson = crate::stats::pearson_test(&x, &y)?;
    let cmp: Vec<&TopicPrediction> = both.iter().copied().filter(|p| p.user_basic.is_finite()).collect();
    let du: Vec<f64> = cmp.iter().map(|p| p.user_basic - p.user_rlr).collect();
    let dp: Vec<f64> = cmp.iter().map(|p| p.user_basic - p.predicted_rlr).collect();
    let agree = du.iter().zip(&dp).filter(|(a, b)| a.signum() == b.signum() || (**a == 0.0 && **b == 0.0)).count();
    let pos = |v: &[f64]| v.iter().map(|&d| d > 0.0).collect::<Vec<bool>>();
    let neg = |v: &[f64]| v.iter().map(|&d| d < 0.0).collect::<Vec<bool>>();
    Ok(Validation {
        topics: both.len(),
        pearson,
        agree,
        compared: cmp.len(),
        rlr_better: agreement(&pos(&dp), &pos(&du)),
        basic_better: agreement(&neg(&dp), &neg(&du)),
    })
}

/// Knobs of the synthetic usage-log generator. Users follow the model exactly, with noise.
#[derive(Debug, Clone, PartialEq)]
pub struct LogGenerator {
    /// True lambda of exp(-lambda r).
    pub lambda: f64,
    /// Per-user heterogeneity: lambda_u = lambda * exp(sigma z), z ~ N(0, 1).
    pub lambda_sigma: f64,
    /// True alpha per topic (Dirichlet of each user's c_u); `None` = the oracle times
    /// `concentration` plus 0.01.
    pub alpha: Option<Vec<Vec<f64>>>,
    /// Scale of the oracle alpha when `alpha` is `None`.
    pub concentration: f64,
    /// Probability that a switch picks a selectable sublist uniformly instead.
    pub random_switch: f64,
    /// Probability that an examined result's hover is not logged.
    pub hover_dropout: f64,
    /// Probability of clicking an examined non-relevant result.
    pub false_click: f64,
    /// RLR instances per topic.
    pub rlr_instances: usize,
    /// Basic instances per topic.
    pub basic_instances: usize,
    /// Task.
    pub cutoff: CutOff,
    /// Results per page.
    pub page_size: u32,
    /// Seed.
    pub seed: u64,
}

impl Default for LogGenerator {
    fn default() -> Self {
        LogGenerator {
            lambda: 0.05,
            lambda_sigma: 0.3,
            alpha: None,
            concentration: 20.0,
            random_switch: 0.1,
            hover_dropout: 0.1,
            false_click: 0.05,
            rlr_instances: 5,
            basic_instances: 3,
            cutoff: CutOff::Find(10),
            page_size: 10,
            seed: 4,
        }
    }
}

impl LogGenerator {
    /// The true alpha of topic `t`.
    pub fn alpha_of(&self, topics: &[TopicSublists], t: usize) -> Vec<f64> {
        match &self.alpha {
            Some(a) => a[t].clone(),
            None => super::measures::Prior::Ndcg.alpha(&topics[t]).iter().map(|a| a * self.concentration + 0.01).collect(),
        }
    }

    /// Checks the knobs against their bounds (`src/limits.rs`) for `topics`; errors name the
    /// `sublists gen-log` option.
    pub fn validate(&self, topics: &[TopicSublists]) -> Result<()> {
        use crate::limits::{check_count, check_estimate, check_non_negative, MAX_LOG_EVENTS, MAX_LOG_INSTANCES};
        let ctx = "sublists gen-log";
        check_non_negative(ctx, "--lambda", self.lambda)?;
        check_non_negative(ctx, "--lambda-sigma", self.lambda_sigma)?;
        // exp(sigma z) for a normal z stays finite up to |z| = 70 at sigma 10 (709 / 10).
        if self.lambda_sigma > 10.0 {
            return Err(crate::error::Error::config(
                ctx,
                "--lambda-sigma",
                format!("{} is above the upper bound of 10 (a larger log-normal spread makes lambda overflow)", self.lambda_sigma),
            ));
        }
        check_non_negative(ctx, "concentration", self.concentration)?;
        for (k, v) in [("--rlr-instances", self.rlr_instances), ("--basic-instances", self.basic_instances)] {
            check_count(ctx, k, v as u64, MAX_LOG_INSTANCES, "task instances per topic")?;
        }
        // Worst case per instance: a hover and a click on every result of the longest list,
        // and a filter or page event before each.
        let max_n = topics.iter().map(|t| t.grades.len()).max().unwrap_or(0) as f64;
        let instances = topics.len() as f64 * (self.rlr_instances as f64 + self.basic_instances as f64);
        check_estimate(
            ctx,
            "topics * (--rlr-instances + --basic-instances) * documents per topic",
            instances * (3.0 * max_n + 1.0),
            MAX_LOG_EVENTS,
            "events of the log (every result examined and clicked), held in memory",
            32.0,
        )
    }

    /// Generates task instances (deterministic in `seed`).
    pub fn generate(&self, topics: &[TopicSublists]) -> Result<Vec<Instance>> {
        self.validate(topics)?;
        let mut out = Vec::new();
        let max_n = topics.iter().map(|t| t.grades.len()).max().unwrap_or(0);
        let mut scratch = Scratch::default();
        let w = ActionWeights::default();
        let mut c = Vec::new();
        let mut trace = Vec::new();
        for (t, topic) in topics.iter().enumerate() {
            let gammas = dirichlet_samplers(&self.alpha_of(topics, t))?;
            let worlds = [world_of(&[topic.basic()], true, self.page_size), world_of(std::slice::from_ref(topic), true, self.page_size)];
            for (iface, count) in [(Interface::Rlr, self.rlr_instances), (Interface::Basic, self.basic_instances)] {
                for i in 0..count {
                    let mut rng = stream(self.seed, &[hash_str("sublists-log"), t as u64, iface as u64, i as u64]);
                    let z: f64 = StandardNormal.sample(&mut rng);
                    let lambda = self.lambda * (self.lambda_sigma * z).exp();
                    let cont = ContinuationKind::Exponential { lambda }.table(max_n);
                    let choice = match iface {
                        Interface::Rlr => {
                            draw_dirichlet(&gammas, &mut rng, &mut c);
                            let k = c.len() as f64;
                            c.iter().map(|x| (1.0 - self.random_switch) * x + self.random_switch / k).collect()
                        }
                        Interface::Basic => vec![1.0],
                    };
                    // One action path of He et al.'s user through the engine's walk, keyed by a number from `rng`.
                    let user = he_profile("he", &cont, &w, self.cutoff).resolve(0, 0);
                    let stage = SystemOnTopic::of(&worlds[iface as usize], 0, 0).expect("one topic, one system"); // Basic = 0, Rlr = 1
                    trace.clear();
                    walk(&stage, &user, &user.grades, &mut FixedChoice(choice), rng.random(), &mut scratch, &mut trace);
                    let mut events = Vec::new();
                    let mut time = 0.0;
                    for &s in trace.iter().filter(|s| matches!(s, Step::Select { .. } | Step::Paginate { .. } | Step::Examine { .. })) {
                        time += 500.0 + 1500.0 * rng.random::<f64>();
                        match s {
                            Step::Select { list: sublist } => events.push(Event { time, kind: EventKind::Filter, sublist, position: 0 }),
                            Step::Paginate { list: sublist, page } => events.push(Event { time, kind: EventKind::Paginate, sublist, position: page }),
                            Step::Examine { list: sublist, rank, relevant, .. } => {
                                if rng.random::<f64>() >= self.hover_dropout {
                                    events.push(Event { time, kind: EventKind::Hover, sublist, position: rank });
                                }
                                if relevant || rng.random::<f64>() < self.false_click {
                                    time += 300.0;
                                    events.push(Event { time, kind: EventKind::Click, sublist, position: rank });
                                }
                            }
                            _ => {}
                        }
                    }
                    out.push(Instance {
                        id: format!("{}-{}-{}", topic.id, iface.name(), i + 1),
                        user: format!("u{}", i + 1),
                        topic: t,
                        interface: iface,
                        events,
                    });
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::sublists::collection::{topics_from_collection, SublistSyntheticConfig};

    fn toy() -> TopicSublists {
        // All: 25 results; sublist "a" = All ranks 2, 4, 6, ..., 24.
        let mut g = vec![0; 25];
        g[3] = 1;
        g[21] = 1;
        TopicSublists::new("T", g, vec![("a".into(), (0..12).map(|i| 2 * i + 1).collect())]).unwrap()
    }

    #[test]
    fn generator_knobs_are_bounded() {
        // Issue 42: bounds from src/limits.rs (docs/reliability.md's table). The toy topic has
        // 25 results: worst case 3 * 25 + 1 = 76 events per instance.
        let topics = vec![toy()];
        let err = |g: LogGenerator| g.generate(&topics).unwrap_err().to_string();
        let e = err(LogGenerator { rlr_instances: 1_000_001, ..Default::default() });
        assert!(e.contains("key `--rlr-instances`: 1000001 is above the upper bound of 1000000"), "{e}");
        let e = err(LogGenerator { basic_instances: usize::MAX, ..Default::default() });
        assert!(e.contains("key `--basic-instances`") && e.contains("upper bound of 1000000"), "{e}");
        // 1 topic * 1,000,000 instances * 76 = 7.6 * 10^7 events.
        let e = err(LogGenerator { rlr_instances: 1_000_000, basic_instances: 0, ..Default::default() });
        assert!(e.contains("an estimated 76000000 events") && e.contains("upper bound of 50000000"), "{e}");
        let e = err(LogGenerator { lambda_sigma: 11.0, ..Default::default() });
        assert!(e.contains("key `--lambda-sigma`: 11 is above the upper bound of 10"), "{e}");
        let e = err(LogGenerator { lambda: 1e10, ..Default::default() });
        assert!(e.contains("key `--lambda`: 10000000000 is above the upper bound of 1e9"), "{e}");
        LogGenerator::default().generate(&topics).unwrap();
    }

    #[test]
    fn effort_counting_follows_section_4_2_1() {
        let topics = vec![toy()];
        let log = "instance,user,topic,interface,time,event,sublist,position\n\
            i,u,T,rlr,0,hover,All,1\n\
            i,u,T,rlr,1,click,All,4\n\
            i,u,T,rlr,2,hover,All,6\n\
            i,u,T,rlr,3,paginate,All,2\n\
            i,u,T,rlr,4,click,All,13\n\
            i,u,T,rlr,5,filter,a,\n\
            i,u,T,rlr,6,paginate,a,2\n\
            i,u,T,rlr,7,click,a,11\n";
        let inst = parse_log(log, "x.csv", &topics).unwrap();
        let c = count_effort(&inst[0], &topics[0], 10, &ActionWeights::default());
        // All page 1: 10 results (paginated away); All page 2: up to rank 13 -> 3 more (11-13);
        // a page 1 (paginated away): ranks 1-10 = All 2, 4, ..., 20, of which All 1-13 are
        // already counted -> 14, 16, 18, 20 new = 4; a page 2: up to rank 11 = All 22 (new).
        // Visited = 10 + 3 + 4 + 1 = 18; filters 1; paginations 2 -> effort 21.
        assert_eq!((c.visited, c.filters, c.paginations, c.effort), (18, 1, 2, 21.0));
        assert_eq!(c.rank_visits.len(), 10 + 3 + 10 + 1);
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let topics = vec![toy()];
        let head = "instance,user,topic,interface,time,event,sublist,position\n";
        for (body, want) in [
            ("i,u,X,rlr,0,hover,All,1\n", "x.csv:2: unknown topic"),
            ("i,u,T,rlr,0,hover,b,1\n", "x.csv:2: topic `T` has no sublist"),
            ("i,u,T,rlr,0,hover,a,13\n", "x.csv:2: rank 13 is beyond"),
            ("i,u,T,rlr,5,hover,All,1\ni,u,T,rlr,4,hover,All,2\n", "x.csv:3: instance `i`: events out of time order"),
            ("i,u,T,basic,0,filter,a,\n", "x.csv:2: the basic interface"),
            ("i,u,T,rlr,0,scroll,All,1\n", "x.csv:2: unknown event"),
            ("i,u,T,rlr,-1,hover,All,1\n", "x.csv:2: time"),
        ] {
            let err = parse_log(&format!("{head}{body}"), "x.csv", &topics).unwrap_err().to_string();
            assert!(err.starts_with(want), "{err}");
        }
        assert!(parse_log("nope\n", "x.csv", &topics).unwrap_err().to_string().starts_with("x.csv:1:"));
    }

    #[test]
    fn lambda_mle_closed_form() {
        // One success at rank 1 and one failure at rank 1: e^{-l} = 1/2 -> l = ln 2.
        assert!((fit_lambda(&[(1, true), (1, false)]) - 2f64.ln()).abs() < 1e-9);
        assert_eq!(fit_lambda(&[(3, true)]), 0.0);
        // Luce MLE with full availability is the share of choices.
        let ch = vec![(0, vec![0, 1, 2]), (0, vec![0, 1, 2]), (1, vec![0, 1, 2]), (2, vec![0, 1, 2])];
        let c = fit_choices(&ch, 3);
        assert!((c[0] - 0.5).abs() < 1e-9 && (c[1] - 0.25).abs() < 1e-9);
    }

    fn synthetic(topics: usize) -> Vec<TopicSublists> {
        let mut cfg = SublistSyntheticConfig::default();
        cfg.collection.topics = topics;
        cfg.collection.categories = 8;
        topics_from_collection(&cfg.generate().unwrap(), 0).unwrap()
    }

    #[test]
    fn generated_logs_round_trip_and_recover_parameters() {
        let topics = synthetic(4);
        // Known choice probabilities: a fixed vector, concentrated (users nearly identical).
        let alpha: Vec<Vec<f64>> = topics.iter().map(|t| (0..t.k()).map(|k| 400.0 * (1.0 + (k % 3) as f64) / t.k() as f64).collect()).collect();
        let gen = LogGenerator {
            lambda: 0.08,
            lambda_sigma: 0.0,
            alpha: Some(alpha.clone()),
            random_switch: 0.0,
            rlr_instances: 300,
            basic_instances: 1,
            cutoff: CutOff::FindAll,
            ..Default::default()
        };
        let inst = gen.generate(&topics).unwrap();
        let text = write_log(&inst, &topics);
        let back = parse_log(&text, "gen.csv", &topics).unwrap();
        assert_eq!(back, inst);
        let fitted = fit_log(&back, &topics, 10, &ActionWeights::default());
        assert!((fitted.lambda / 0.08 - 1.0).abs() < 0.1, "lambda {}", fitted.lambda);
        for (t, a) in alpha.iter().enumerate() {
            let s: f64 = a.iter().sum();
            for (k, &ak) in a.iter().enumerate() {
                let err = (fitted.choice_probs[t][k] - ak / s).abs();
                assert!(err < 0.03, "topic {t} sublist {k}: {} vs {}", fitted.choice_probs[t][k], ak / s);
            }
        }
    }

    #[test]
    fn predicted_effort_correlates_with_user_effort() {
        let topics = synthetic(50);
        let gen = LogGenerator::default();
        let inst = gen.generate(&topics).unwrap();
        let fitted = fit_log(&inst, &topics, 10, &ActionWeights::default());
        let preds = predict(&inst, &topics, &fitted, gen.cutoff, 10, &ActionWeights::default(), 1000, 9).unwrap();
        let v = validate(&preds).unwrap();
        assert_eq!(v.topics, 50);
        assert!(v.pearson.r >= 0.7, "Pearson {}", v.pearson.r);
        assert!((fitted.lambda / gen.lambda - 1.0).abs() < 0.3, "lambda {}", fitted.lambda);
    }
}
