//! Examination and clicks.
//!
//! [`ClickBehaviour`] is what the walk asks at every result it reaches: is the snippet
//! examined, is it clicked, does the clicked document satisfy the user, and — for click
//! models that bring their own — what is the probability of going on. Two implementations
//! exist: [`GradeTables`], the cascade user whose probabilities depend on the judged grade
//! (Maxwell et al.'s and the foundation's user), and [`ClickTables`], flat per-document
//! parameters prepared once per topic from any [`ClickSource`] — every fitted click model
//! (CM, DCM, CCM, DBN, SDBN, UBM, PBM, CTR) implements that trait in `clickmodels::user`.

use super::param::{path_id, Param, Support};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The questions the walk asks about one result. Ranks are 1-based displayed ranks in the
/// current list; `last_click` is the rank of the last click in this list visit (0: none).
pub trait ClickBehaviour {
    /// P(the snippet is examined | the user reached it).
    fn examine_prob(&self, rank: usize, last_click: usize) -> f64;
    /// P(click | examined) for document `doc` (index into the topic's documents) of `grade`.
    fn click_prob(&self, doc: usize, grade: i32) -> f64;
    /// P(satisfied, ending the query or session | clicked).
    fn satisfied_prob(&self, doc: usize, grade: i32, rank: usize) -> f64;
    /// The model's own probability of going on after `rank` (1 for models without one; the
    /// user's continuation then decides).
    fn own_continuation(&self, rank: usize, clicked: bool) -> f64;
    /// True when [`examine_prob`](Self::examine_prob) is 1 at every rank (the walk may then
    /// take its fast path for single-list sessions).
    fn examines_all(&self) -> bool {
        false
    }
}

/// A cascade user. Tables are indexed by grade (negative grades use index 0); a grade above a
/// table uses its last entry. Entries may be distributions over users.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Cascade {
    /// P(click | examined, grade).
    pub click: Vec<Param>,
    /// P(stop | click, grade): the user is satisfied.
    pub stop: Vec<Param>,
    /// P(mark relevant | read, grade).
    pub mark: Vec<Param>,
}

impl Default for Cascade {
    /// Clicks every relevant and no non-relevant snippet, never stops on a click, marks
    /// every relevant document.
    fn default() -> Self {
        let p = |v: &[f64]| v.iter().map(|&x| Param::Fixed(x)).collect();
        Cascade { click: p(&[0.0, 1.0]), stop: p(&[0.0]), mark: p(&[0.0, 1.0]) }
    }
}

impl Cascade {
    /// A cascade with fixed tables.
    pub fn fixed(click: &[f64], stop: &[f64], mark: &[f64]) -> Self {
        let p = |v: &[f64]| v.iter().map(|&x| Param::Fixed(x)).collect();
        Cascade { click: p(click), stop: p(stop), mark: p(mark) }
    }

    /// Checks the tables; errors name `key`.
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        for (name, table) in [("click", &self.click), ("stop", &self.stop), ("mark", &self.mark)] {
            if table.is_empty() {
                return Err(Error::config(context, format!("{key}.{name}"), "must list at least one probability (index = grade)"));
            }
            for (i, p) in table.iter().enumerate() {
                p.validate(context, &format!("{key}.{name}[{i}]"), Support::Probability)?;
            }
        }
        Ok(())
    }

    /// The tables of user `user` (distributions drawn, key paths under `prefix`).
    pub fn resolve(&self, seed: u64, user: u64, prefix: &str) -> GradeTables {
        let t = |name: &str, v: &[Param]| -> Vec<f64> {
            v.iter().enumerate().map(|(i, p)| p.value(seed, path_id(&format!("{prefix}.{name}[{i}]")), user, Support::Probability)).collect()
        };
        GradeTables { click: t("click", &self.click), stop: t("stop", &self.stop), mark: t("mark", &self.mark) }
    }

    /// True when some entry is a distribution over users.
    pub fn varies(&self) -> bool {
        self.click.iter().chain(&self.stop).chain(&self.mark).any(|p| p.fixed().is_none())
    }
}

/// Probabilities by grade, resolved for one user.
#[derive(Debug, Clone, PartialEq)]
pub struct GradeTables {
    /// P(click | grade).
    pub click: Vec<f64>,
    /// P(stop | click, grade).
    pub stop: Vec<f64>,
    /// P(mark | read, grade).
    pub mark: Vec<f64>,
}

/// `table[grade]`, index 0 for negative grades and the last entry above the table.
#[inline]
pub fn by_grade(table: &[f64], grade: i32) -> f64 {
    table[(grade.max(0) as usize).min(table.len() - 1)]
}

impl ClickBehaviour for GradeTables {
    #[inline]
    fn examine_prob(&self, _rank: usize, _last_click: usize) -> f64 {
        1.0
    }
    #[inline]
    fn click_prob(&self, _doc: usize, grade: i32) -> f64 {
        by_grade(&self.click, grade)
    }
    #[inline]
    fn satisfied_prob(&self, _doc: usize, grade: i32, _rank: usize) -> f64 {
        by_grade(&self.stop, grade)
    }
    #[inline]
    fn own_continuation(&self, _rank: usize, _clicked: bool) -> f64 {
        1.0
    }
    #[inline]
    fn examines_all(&self) -> bool {
        true
    }
}

/// How a click model examines results.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Examination {
    /// Every reached result is examined (cascade models).
    #[default]
    All,
    /// P(examined) by 0-based rank (PBM, rank CTR); [`UNFITTED`] beyond the table.
    ByRank(Arc<[f64]>),
    /// P(examined) by 0-based rank and last click (UBM): row r, column 0 = no click above,
    /// column j = last click at 0-based rank j - 1.
    ByRankAndLastClick(Arc<[Vec<f64>]>),
}

/// What a click model brings besides per-document parameters: its examination and its own
/// continuation. Shared by every topic.
#[derive(Debug, Clone, PartialEq)]
pub struct Dynamics {
    /// Examination.
    pub examination: Examination,
    /// Continuation after a result that was not clicked (DBN gamma, CCM tau1, 1 for CM/DCM).
    pub after_skip: f64,
    /// Continuation after a click that did not satisfy (DBN gamma, 1 otherwise).
    pub after_click: f64,
    /// Satisfaction by 0-based rank instead of by document (DCM: 1 - lambda_r); [`UNFITTED`]
    /// beyond the table.
    pub satisfaction_by_rank: Option<Arc<[f64]>>,
}

impl Default for Dynamics {
    fn default() -> Self {
        Dynamics { examination: Examination::All, after_skip: 1.0, after_click: 1.0, satisfaction_by_rank: None }
    }
}

/// Per-document parameters of one topic from a click model. A NaN entry means "not in the
/// model": the walk then uses the profile's grade tables (the `unseen = "grade"` policy).
#[derive(Debug, Clone, PartialEq)]
pub struct ClickTables {
    /// P(click | examined) per document of the topic.
    pub attractiveness: Vec<f64>,
    /// P(satisfied | clicked) per document.
    pub satisfaction: Vec<f64>,
    /// The model's dynamics.
    pub dynamics: Arc<Dynamics>,
}

/// [`ClickTables`] with the user's grade tables for documents the model does not know.
#[derive(Debug, Clone, Copy)]
pub struct ModelClicks<'a> {
    /// The topic's tables.
    pub tables: &'a ClickTables,
    /// The user's grade tables.
    pub grades: &'a GradeTables,
}

/// Value of a rank parameter a click model never fitted (ranks beyond its tables): the
/// click models' prior 0.5, as `clickmodels::PRIOR` (a test there checks they agree).
pub const UNFITTED: f64 = 0.5;

#[inline]
fn lookup_rank(v: &[f64], rank: usize) -> f64 {
    v.get(rank - 1).copied().unwrap_or(UNFITTED)
}

impl ClickBehaviour for ModelClicks<'_> {
    #[inline]
    fn examine_prob(&self, rank: usize, last_click: usize) -> f64 {
        match &self.tables.dynamics.examination {
            Examination::All => 1.0,
            Examination::ByRank(v) => lookup_rank(v, rank),
            Examination::ByRankAndLastClick(m) => m.get(rank - 1).and_then(|row| row.get(last_click)).copied().unwrap_or(UNFITTED),
        }
    }
    #[inline]
    fn click_prob(&self, doc: usize, grade: i32) -> f64 {
        let a = self.tables.attractiveness[doc];
        if a.is_nan() {
            by_grade(&self.grades.click, grade)
        } else {
            a
        }
    }
    #[inline]
    fn satisfied_prob(&self, doc: usize, grade: i32, rank: usize) -> f64 {
        if let Some(s) = &self.tables.dynamics.satisfaction_by_rank {
            return lookup_rank(s, rank);
        }
        let s = self.tables.satisfaction[doc];
        if s.is_nan() {
            by_grade(&self.grades.stop, grade)
        } else {
            s
        }
    }
    #[inline]
    fn own_continuation(&self, _rank: usize, clicked: bool) -> f64 {
        if clicked {
            self.tables.dynamics.after_click
        } else {
            self.tables.dynamics.after_skip
        }
    }
}

/// How many of a topic's documents a click model knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Coverage {
    /// Documents with fitted parameters.
    pub known: usize,
    /// Documents looked up.
    pub total: usize,
}

/// Anything that yields per-document click parameters for a topic: every fitted click model
/// (see `clickmodels::user`).
pub trait ClickSource: Send + Sync + std::fmt::Debug {
    /// A short description for reports, e.g. `dbn (models/dbn.json)`.
    fn describe(&self) -> String;
    /// Parameters of the documents `doc_ids` of topic `topic_id` (NaN where the model has no
    /// parameters for the pair) and how many it knows.
    fn tables(&self, topic_id: &str, doc_ids: &[String]) -> (ClickTables, Coverage);
    /// Some query ids the model knows (for error messages about mismatched ids).
    fn example_queries(&self) -> Vec<String>;
    /// True when the model carries per-grade values fitted on its log's own labels.
    fn has_labels(&self) -> bool {
        false
    }
    /// Attractiveness and satisfaction by relevance grade for the documents the model does not
    /// know, mapped by `how`; `target` holds the grade of every result of the target
    /// collection (for quantile matching). Errors when no mapping is possible.
    fn grade_map(&self, how: GradeMapping, target: &[i32]) -> Result<GradeMap> {
        let _ = target;
        Err(Error::Invalid(format!("{}: cannot map its parameters to grades by {how:?}", self.describe())))
    }
}

/// How a click model's per-document parameters reach documents it does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GradeMapping {
    /// Per-grade values fitted with the log's own labels (`clicks fit --qrels`).
    Labels,
    /// Quantile matching of the model's per-pair values onto the target's grade distribution.
    Quantile,
}

/// Attractiveness and satisfaction by grade, and the assumption that produced them.
#[derive(Debug, Clone, PartialEq)]
pub struct GradeMap {
    /// `(grade, attractiveness, satisfaction)`, ascending by grade.
    pub rows: Vec<(i32, f64, f64)>,
    /// What was assumed (for the run's warnings).
    pub assumption: String,
    /// The query-independent parameters (examination, continuation) the rows were fitted
    /// with, when they are not the model's own (`clicks fit --qrels`): a topic whose results
    /// all take the rows' values runs with them.
    pub dynamics: Option<Arc<Dynamics>>,
    /// A warning about the mapping (e.g. the labels' grade scale differs from the
    /// collection's), for the run's warnings.
    pub warning: Option<String>,
}

impl GradeMap {
    /// The values of `grade`.
    pub fn get(&self, grade: i32) -> Option<(f64, f64)> {
        self.rows.iter().find(|r| r.0 == grade).map(|r| (r.1, r.2))
    }
}
