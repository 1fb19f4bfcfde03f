//! Costs: effort weights and times per action.

use crate::error::{check_non_negative, Result};
use serde::{Deserialize, Serialize};

/// An action of the user on the interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Issue (type and submit) a query.
    IssueQuery,
    /// First look at a result page.
    SerpLook,
    /// Examine one snippet.
    ExamineSnippet,
    /// Read (click) a document.
    ReadDocument,
    /// Mark a document as relevant.
    MarkRelevant,
    /// Go to the next page of results.
    Paginate,
    /// Select a sublist (facet or filter).
    SelectSublist,
}

/// One number per action.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionTable {
    /// Issue a query.
    pub issue_query: f64,
    /// Initial look at a result page.
    pub serp_look: f64,
    /// Examine a snippet.
    pub examine_snippet: f64,
    /// Read a document.
    pub read_document: f64,
    /// Mark a document relevant.
    pub mark_relevant: f64,
    /// Paginate.
    pub paginate: f64,
    /// Select a sublist.
    pub select_sublist: f64,
}

impl ActionTable {
    /// The value for `action`.
    #[inline]
    pub fn of(&self, action: Action) -> f64 {
        match action {
            Action::IssueQuery => self.issue_query,
            Action::SerpLook => self.serp_look,
            Action::ExamineSnippet => self.examine_snippet,
            Action::ReadDocument => self.read_document,
            Action::MarkRelevant => self.mark_relevant,
            Action::Paginate => self.paginate,
            Action::SelectSublist => self.select_sublist,
        }
    }

    /// Default effort weights: 1 per examined snippet, page turn and sublist selection
    /// (He et al.'s action weights), 0 for the rest.
    pub const DEFAULT_EFFORT: ActionTable = ActionTable {
        issue_query: 0.0,
        serp_look: 0.0,
        examine_snippet: 1.0,
        read_document: 0.0,
        mark_relevant: 0.0,
        paginate: 1.0,
        select_sublist: 1.0,
    };

    /// Default times in seconds: Maxwell et al. (2015) Table 1 (query 15.1, SERP look 1.1,
    /// snippet 1.3, document 21.45, mark 2.57). A page turn or sublist selection costs a new
    /// page look (1.1 s), which the paper does not list.
    pub const DEFAULT_TIME: ActionTable = ActionTable {
        issue_query: 15.1,
        serp_look: 1.1,
        examine_snippet: 1.3,
        read_document: 21.45,
        mark_relevant: 2.57,
        paginate: 1.1,
        select_sublist: 1.1,
    };

    /// Checks that every entry is finite and non-negative; errors name `key`.
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        let entries = [
            ("issue_query", self.issue_query),
            ("serp_look", self.serp_look),
            ("examine_snippet", self.examine_snippet),
            ("read_document", self.read_document),
            ("mark_relevant", self.mark_relevant),
            ("paginate", self.paginate),
            ("select_sublist", self.select_sublist),
        ];
        entries.iter().try_for_each(|(name, v)| check_non_negative(context, &format!("{key}.{name}"), *v))
    }
}

/// An [`ActionTable`] with every entry optional, for partial overrides in scenario files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartialActionTable {
    issue_query: Option<f64>,
    serp_look: Option<f64>,
    examine_snippet: Option<f64>,
    read_document: Option<f64>,
    mark_relevant: Option<f64>,
    paginate: Option<f64>,
    select_sublist: Option<f64>,
}

impl PartialActionTable {
    /// `base` with the given entries replaced.
    pub fn over(&self, base: ActionTable) -> ActionTable {
        ActionTable {
            issue_query: self.issue_query.unwrap_or(base.issue_query),
            serp_look: self.serp_look.unwrap_or(base.serp_look),
            examine_snippet: self.examine_snippet.unwrap_or(base.examine_snippet),
            read_document: self.read_document.unwrap_or(base.read_document),
            mark_relevant: self.mark_relevant.unwrap_or(base.mark_relevant),
            paginate: self.paginate.unwrap_or(base.paginate),
            select_sublist: self.select_sublist.unwrap_or(base.select_sublist),
        }
    }
}

/// Charges effort and time for actions.
pub trait CostModel {
    /// `(effort, seconds)` of one action.
    fn charge(&self, action: Action) -> (f64, f64);
}

/// Per-action effort weights and times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    /// Effort weight per action.
    pub effort: ActionTable,
    /// Seconds per action.
    pub time: ActionTable,
}

impl Default for Costs {
    fn default() -> Self {
        Costs { effort: ActionTable::DEFAULT_EFFORT, time: ActionTable::DEFAULT_TIME }
    }
}

impl CostModel for Costs {
    #[inline]
    fn charge(&self, action: Action) -> (f64, f64) {
        (self.effort.of(action), self.time.of(action))
    }
}
