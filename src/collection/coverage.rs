//! What TREC qrels and runs cover of each other, stated before a comparison speaks.
//!
//! A comparison of runs is only as good as the judgements under it. Loading qrels and runs
//! ([`restrict`], [`Coverage::of`]) counts: topics of the runs without judgements (left out,
//! as trec_eval leaves them out), judged topics no run ranks (left out), judged topics a run
//! does not rank while another does (the pair compares the topics both rank), and, once users
//! have been simulated, the share of judged documents in the depth users reach per system
//! ([`Coverage::set_depths`]; Judged@k as ir_measures defines it: judged documents in the top
//! k / k, the mean over the topics the run ranks that have judgements; unjudged documents count
//! as non-relevant).
//!
//! A run with no judged topic is an error, and so is a comparison in which more than half of
//! the runs' topics have no judgements, unless the scenario allows it
//! (`allow_partial_judgements`, `--allow-partial-judgements`): its answer would speak for a
//! few judged topics as if for all.

use super::trec::{Qrels, Run};
use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// A share at the project's 10 significant digits (undefined: null).
fn ten_digits<S: serde::Serializer>(x: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    if x.is_finite() {
        s.serialize_f64(crate::write::round_sig(*x))
    } else {
        s.serialize_none()
    }
}

fn ten_digits_opt<S: serde::Serializer>(x: &Option<f64>, s: S) -> std::result::Result<S::Ok, S::Error> {
    ten_digits(&x.unwrap_or(f64::NAN), s)
}

/// Judged@k in the depth users reach below which a run gets a warning.
pub const DEPTH_WARNING: f64 = 0.9;

/// Coverage of one run (one system).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemCoverage {
    /// System (the run's name).
    pub system: String,
    /// Topics the run ranks.
    pub topics: usize,
    /// Of those, topics with judgements (the ones simulated).
    pub judged_topics: usize,
    /// Of those, topics without judgements (left out).
    pub unjudged_topics: usize,
    /// Judged topics another run ranks and this one does not (pairs with this system leave
    /// them out).
    pub judged_topics_not_ranked: usize,
    /// The depth users reach on this system (the 95th percentile of `depth` over simulated
    /// sessions, the largest over profiles, rounded up); `None` before simulating.
    pub depth_k: Option<usize>,
    /// Judged@k at `depth_k`: judged documents in the top k / k, the mean over the judged
    /// topics the run ranks.
    #[serde(serialize_with = "ten_digits_opt")]
    pub judged_at_k: Option<f64>,
    /// Judged@10 (as ir_measures' `Judged@10`), for comparison with other tools.
    #[serde(serialize_with = "ten_digits")]
    pub judged_at_10: f64,
    /// Per judged topic ranked: whether each rank's document has a judgement.
    #[serde(skip)]
    judged: Vec<Vec<bool>>,
}

impl SystemCoverage {
    /// Judged@k: judged documents in the top `k` / `k`, the mean over the judged topics the
    /// run ranks (NaN without any).
    pub fn judged_at(&self, k: usize) -> f64 {
        if self.judged.is_empty() || k == 0 {
            return f64::NAN;
        }
        let sum: f64 = self.judged.iter().map(|t| t.iter().take(k).filter(|&&j| j).count() as f64 / k as f64).sum();
        sum / self.judged.len() as f64
    }
}

/// What qrels and runs cover of each other (`summary.json`'s `coverage`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coverage {
    /// Topics with judgements (after `topics` restricted them).
    pub judged_topics: usize,
    /// Topics at least one run ranks.
    pub run_topics: usize,
    /// Topics the runs rank that have no judgements (left out).
    pub unjudged_run_topics: usize,
    /// Judged topics no run ranks (left out).
    pub judged_topics_without_runs: usize,
    /// Judged topics every run ranks.
    pub topics_every_run_ranks: usize,
    /// The scenario allows a comparison where more than half of the runs' topics are unjudged.
    pub allow_partial_judgements: bool,
    /// Per run.
    pub systems: Vec<SystemCoverage>,
}

/// Keeps only `topics` (if given) in the qrels and the runs; a listed topic that neither the
/// qrels nor any run holds is an error (a typo would otherwise go unnoticed).
pub fn restrict(qrels: &mut Qrels, runs: &mut [Run], topics: Option<&[String]>) -> Result<()> {
    let Some(list) = topics else { return Ok(()) };
    let keep: HashSet<&str> = list.iter().map(String::as_str).collect();
    let known: HashSet<&str> =
        qrels.topics.iter().map(|(id, _)| id.as_str()).chain(runs.iter().flat_map(|r| r.topics.iter().map(|(id, _)| id.as_str()))).collect();
    for t in list {
        if !known.contains(t.as_str()) {
            return Err(Error::Invalid(format!("topic `{t}` of `topics` (--topics) is neither in the qrels nor in any run")));
        }
    }
    qrels.topics.retain(|(id, _)| keep.contains(id.as_str()));
    for r in runs.iter_mut() {
        r.topics.retain(|(id, _)| keep.contains(id.as_str()));
    }
    Ok(())
}

impl Coverage {
    /// The coverage of `runs` by `qrels`. Errors: a run none of whose topics is judged, and
    /// (unless `allow_partial`) more than half of the runs' topics without judgements.
    pub fn of(qrels: &Qrels, runs: &[Run], allow_partial: bool) -> Result<Coverage> {
        let judged: HashMap<&str, HashSet<&str>> = qrels.topics.iter().map(|(t, docs)| (t.as_str(), docs.iter().map(|d| d.0.as_str()).collect())).collect();
        let mut run_topics: Vec<&str> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        for r in runs {
            for (t, _) in &r.topics {
                if seen.insert(t.as_str()) {
                    run_topics.push(t);
                }
            }
        }
        let ranked_judged: HashSet<&str> = run_topics.iter().copied().filter(|t| judged.contains_key(t)).collect();
        let mut systems = Vec::with_capacity(runs.len());
        for r in runs {
            let mine: HashSet<&str> = r.topics.iter().map(|(t, _)| t.as_str()).collect();
            let flags: Vec<Vec<bool>> = r
                .topics
                .iter()
                .filter_map(|(t, ranking)| judged.get(t.as_str()).map(|docs| ranking.iter().map(|d| docs.contains(d.docno.as_str())).collect()))
                .collect();
            let judged_topics = flags.len();
            let mut s = SystemCoverage {
                system: r.name.clone(),
                topics: r.topics.len(),
                judged_topics,
                unjudged_topics: r.topics.len() - judged_topics,
                judged_topics_not_ranked: ranked_judged.iter().filter(|t| !mine.contains(**t)).count(),
                depth_k: None,
                judged_at_k: None,
                judged_at_10: f64::NAN,
                judged: flags,
            };
            s.judged_at_10 = s.judged_at(10);
            if judged_topics == 0 {
                return Err(Error::Invalid(format!(
                    "run `{}` has no judged topic: none of its {} topics is in the qrels (check that the qrels belong to this run's topics)",
                    r.name,
                    r.topics.len()
                )));
            }
            systems.push(s);
        }
        let unjudged = run_topics.len() - ranked_judged.len();
        let ranked_by: Vec<HashSet<&str>> = runs.iter().map(|r| r.topics.iter().map(|(t, _)| t.as_str()).collect()).collect();
        let every = qrels.topics.iter().filter(|(t, _)| ranked_by.iter().all(|r| r.contains(t.as_str()))).count();
        let c = Coverage {
            judged_topics: qrels.topics.len(),
            run_topics: run_topics.len(),
            unjudged_run_topics: unjudged,
            judged_topics_without_runs: if runs.is_empty() { 0 } else { qrels.topics.len() - ranked_judged.len() },
            topics_every_run_ranks: every,
            allow_partial_judgements: allow_partial,
            systems,
        };
        if !allow_partial && 2 * unjudged > run_topics.len() {
            return Err(Error::Invalid(format!(
                "the qrels judge {} of the {} topics the runs rank ({unjudged} unjudged, more than half): an answer would speak for the {} judged topics only, as if for all; check that the qrels belong to these runs, or allow it with --allow-partial-judgements ([collection] allow_partial_judgements = true)",
                ranked_judged.len(),
                run_topics.len(),
                ranked_judged.len()
            )));
        }
        Ok(c)
    }

    /// Sets each system's depth users reach and its Judged@k there (`depths` by system name).
    pub fn set_depths(&mut self, depths: &[(String, usize)]) {
        for s in &mut self.systems {
            if let Some((_, k)) = depths.iter().find(|(n, _)| *n == s.system) {
                let k = (*k).max(1);
                s.depth_k = Some(k);
                s.judged_at_k = Some(s.judged_at(k));
            }
        }
    }

    /// Warnings for what is left out or unjudged (empty when the qrels cover every run).
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.unjudged_run_topics > 0 {
            let per: Vec<String> = self.systems.iter().filter(|s| s.unjudged_topics > 0).map(|s| format!("{} {}", s.system, s.unjudged_topics)).collect();
            out.push(format!(
                "the qrels judge {} of the {} topics the runs rank: {} without judgements left out (per run: {}){}",
                self.run_topics - self.unjudged_run_topics,
                self.run_topics,
                topics_n(self.unjudged_run_topics, "topic"),
                per.join(", "),
                if self.allow_partial_judgements && 2 * self.unjudged_run_topics > self.run_topics {
                    "; more than half, allowed by allow_partial_judgements"
                } else {
                    ""
                }
            ));
        }
        if self.judged_topics_without_runs > 0 {
            out.push(format!("{} ranked by no run: left out", topics_n(self.judged_topics_without_runs, "judged topic")));
        }
        for s in &self.systems {
            if s.judged_topics_not_ranked > 0 {
                out.push(format!(
                    "run {} does not rank {} that another run ranks: its comparisons use only the topics both systems rank",
                    s.system,
                    topics_n(s.judged_topics_not_ranked, "judged topic")
                ));
            }
        }
        out
    }

    /// The warning for unjudged documents in the depth users reach (after
    /// [`set_depths`](Self::set_depths)), if a system's Judged@k there is below
    /// [`DEPTH_WARNING`] (the coverage line and `summary.json` give every share).
    pub fn depth_warning(&self) -> Option<String> {
        let shallow: Vec<String> = self
            .systems
            .iter()
            .filter_map(|s| match (s.depth_k, s.judged_at_k) {
                (Some(k), Some(j)) if j < DEPTH_WARNING => Some(format!("{} judged@{k} {}", s.system, crate::write::fmt_f64(j))),
                _ => None,
            })
            .collect();
        (!shallow.is_empty()).then(|| {
            format!(
                "unjudged documents in the depth users reach (95 % of simulated sessions end within k results) count as non-relevant: {}",
                shallow.join(", ")
            )
        })
    }

    /// One line for the screen: what the comparison stands on.
    pub fn line(&self) -> String {
        let sys: Vec<String> = self
            .systems
            .iter()
            .map(|s| match (s.depth_k, s.judged_at_k) {
                (Some(k), Some(j)) => {
                    format!("{} judged@{k} {}", s.system, crate::write::fmt_f64(j))
                }
                _ => format!("{} judged@10 {}", s.system, crate::write::fmt_f64(s.judged_at_10)),
            })
            .collect();
        format!(
            "coverage: {} judged topics, {} ranked by every run, {} run topics unjudged; {}",
            self.judged_topics,
            self.topics_every_run_ranks,
            self.unjudged_run_topics,
            sys.join(", ")
        )
    }
}

/// `n` and `what`, plural unless `n` is 1.
fn topics_n(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Drops judged topics that no run ranks (they would add empty result pages); nothing when
/// there are no runs.
pub fn drop_unranked(qrels: &mut Qrels, runs: &[Run]) {
    if runs.is_empty() {
        return;
    }
    let ranked: HashSet<&str> = runs.iter().flat_map(|r| r.topics.iter().map(|(t, _)| t.as_str())).collect();
    qrels.topics.retain(|(t, _)| ranked.contains(t.as_str()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, topics: &[(&str, &[&str])]) -> Run {
        let mut text = String::new();
        for (t, docs) in topics {
            for (i, d) in docs.iter().enumerate() {
                text += &format!("{t} Q0 {d} {} {} {name}\n", i + 1, 100 - i);
            }
        }
        Run::parse(&text, name).unwrap()
    }

    /// Hand-made qrels (topics 1, 2, 3, 9) and runs A (topics 1, 2, 4) and B (1, 3, 4, 5):
    /// counts derived by hand below.
    #[test]
    fn counts_are_the_hand_derived_ones() {
        let qrels = Qrels::parse("1 0 a 1\n1 0 b 0\n2 0 c 2\n3 0 d 1\n9 0 z 1\n", "q").unwrap();
        let a = run("A", &[("1", &["a", "x", "b", "y"]), ("2", &["c"]), ("4", &["e"])]);
        let b = run("B", &[("1", &["y"]), ("3", &["d", "q"]), ("4", &["e"]), ("5", &["f"])]);
        // Run topics: 1, 2, 4, 3, 5 (5); judged among them: 1, 2, 3 (3); unjudged: 4, 5 (2).
        // Judged topics no run ranks: 9 (1). Every run ranks: topic 1 (2 is A's only, 3 B's).
        let c = Coverage::of(&qrels, &[a, b], false).unwrap();
        assert_eq!((c.judged_topics, c.run_topics, c.unjudged_run_topics, c.judged_topics_without_runs, c.topics_every_run_ranks), (4, 5, 2, 1, 1));
        // A ranks 1, 2, 4: judged 1, 2; unjudged 4; does not rank judged topic 3 (B ranks it).
        let sa = &c.systems[0];
        assert_eq!((sa.topics, sa.judged_topics, sa.unjudged_topics, sa.judged_topics_not_ranked), (3, 2, 1, 1));
        // B ranks 1, 3, 4, 5: judged 1, 3; unjudged 4, 5; does not rank judged topic 2.
        let sb = &c.systems[1];
        assert_eq!((sb.topics, sb.judged_topics, sb.unjudged_topics, sb.judged_topics_not_ranked), (4, 2, 2, 1));
        // Judged@2 of A: topic 1 top 2 = a (judged), x (not): 1/2; topic 2 top 2 = c: 1/2 (k
        // is the denominator, as ir_measures). Mean 0.5. Judged@4 of A: topic 1: a, b judged
        // of 4 -> 2/4; topic 2: 1/4; mean 0.375.
        assert_eq!(sa.judged_at(2), 0.5);
        assert_eq!(sa.judged_at(4), 0.375);
        // B judged@2: topic 1: y unjudged -> 0; topic 3: d judged, q not -> 1/2; mean 0.25.
        assert_eq!(sb.judged_at(2), 0.25);
        let w = c.warnings();
        assert_eq!(w[0], "the qrels judge 3 of the 5 topics the runs rank: 2 topics without judgements left out (per run: A 1, B 2)");
        assert_eq!(w[1], "1 judged topic ranked by no run: left out");
        assert!(w[2].starts_with("run A does not rank 1 judged topic that"));
        assert!(w[3].starts_with("run B does not rank 1 judged topic that"));
        assert_eq!(w.len(), 4);
        let mut c = c;
        c.set_depths(&[("A".into(), 2), ("B".into(), 2)]);
        assert_eq!(c.depth_warning().unwrap(), "unjudged documents in the depth users reach (95 % of simulated sessions end within k results) count as non-relevant: A judged@2 0.5, B judged@2 0.25");
    }

    /// More than half of the runs' topics unjudged is refused unless allowed; a run without a
    /// judged topic is refused always; exactly half is not "more than half".
    #[test]
    fn refusals() {
        let qrels = Qrels::parse("1 0 a 1\n", "q").unwrap();
        let a = run("A", &[("1", &["a"]), ("2", &["b"]), ("3", &["c"])]);
        let e = Coverage::of(&qrels, std::slice::from_ref(&a), false).unwrap_err().to_string();
        assert!(e.contains("the qrels judge 1 of the 3 topics the runs rank (2 unjudged, more than half)"), "{e}");
        assert!(e.contains("--allow-partial-judgements"), "{e}");
        let c = Coverage::of(&qrels, std::slice::from_ref(&a), true).unwrap();
        assert!(c.warnings()[0].ends_with("more than half, allowed by allow_partial_judgements"));
        let half = run("A", &[("1", &["a"]), ("2", &["b"])]);
        assert!(Coverage::of(&qrels, &[half], false).is_ok());
        let none = run("N", &[("7", &["a"])]);
        let e = Coverage::of(&qrels, &[a, none], true).unwrap_err().to_string();
        assert!(e.contains("run `N` has no judged topic: none of its 1 topics is in the qrels"), "{e}");
    }

    #[test]
    fn restrict_keeps_listed_topics_and_refuses_unknown_ones() {
        let mut qrels = Qrels::parse("1 0 a 1\n2 0 b 1\n", "q").unwrap();
        let mut runs = vec![run("A", &[("1", &["a"]), ("2", &["b"]), ("3", &["c"])])];
        restrict(&mut qrels, &mut runs, Some(&["2".to_string(), "3".to_string()])).unwrap();
        assert_eq!(qrels.topics.len(), 1);
        assert_eq!(runs[0].topics.iter().map(|t| t.0.as_str()).collect::<Vec<_>>(), vec!["2", "3"]);
        let e = restrict(&mut qrels, &mut runs, Some(&["42".to_string()])).unwrap_err().to_string();
        assert!(e.contains("topic `42`"), "{e}");
    }
}
