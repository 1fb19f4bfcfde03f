//! Costs: effort weights and times per action (the user's), and system delays (the
//! interface's: query latency, page latency, document load delay, as in Crescenzi et al. and
//! Kelly and Azzopardi).

use super::param::{path_id, Param, Support};
use crate::error::Result;
use crate::limits::check_non_negative;
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
    pub const DEFAULT_EFFORT: ActionTable =
        ActionTable { issue_query: 0.0, serp_look: 0.0, examine_snippet: 1.0, read_document: 0.0, mark_relevant: 0.0, paginate: 1.0, select_sublist: 1.0 };

    /// Default times in seconds: Maxwell et al. (2015) Table 1 (query 15.1, SERP look 1.1,
    /// snippet 1.3, document 21.45, mark 2.57). A page turn or sublist selection costs a new
    /// page look (1.1 s), which the paper does not list.
    pub const DEFAULT_TIME: ActionTable =
        ActionTable { issue_query: 15.1, serp_look: 1.1, examine_snippet: 1.3, read_document: 21.45, mark_relevant: 2.57, paginate: 1.1, select_sublist: 1.1 };

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

/// Names of the actions, in [`ActionTable`] field order.
pub const ACTION_NAMES: [&str; 7] = ["issue_query", "serp_look", "examine_snippet", "read_document", "mark_relevant", "paginate", "select_sublist"];

impl ActionTable {
    /// The entries in [`ACTION_NAMES`] order.
    pub fn entries(&self) -> [f64; 7] {
        [self.issue_query, self.serp_look, self.examine_snippet, self.read_document, self.mark_relevant, self.paginate, self.select_sublist]
    }
    /// A table from entries in [`ACTION_NAMES`] order.
    pub fn from_entries(e: [f64; 7]) -> Self {
        ActionTable {
            issue_query: e[0],
            serp_look: e[1],
            examine_snippet: e[2],
            read_document: e[3],
            mark_relevant: e[4],
            paginate: e[5],
            select_sublist: e[6],
        }
    }
}

/// An action table in a scenario file: entries not given keep their defaults; entries may be
/// distributions over users (e.g. reading time `read_document = { dist = "lognormal", mean = 21.45, sd = 10 }`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionParams {
    /// Issue a query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue_query: Option<Param>,
    /// First look at a result page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serp_look: Option<Param>,
    /// Examine a snippet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub examine_snippet: Option<Param>,
    /// Read a document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_document: Option<Param>,
    /// Mark a document relevant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_relevant: Option<Param>,
    /// Paginate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paginate: Option<Param>,
    /// Select a sublist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select_sublist: Option<Param>,
}

impl ActionParams {
    /// A table with every entry fixed.
    pub fn fixed(t: &ActionTable) -> Self {
        let e = t.entries().map(|v| Some(Param::Fixed(v)));
        let [issue_query, serp_look, examine_snippet, read_document, mark_relevant, paginate, select_sublist] = e;
        ActionParams { issue_query, serp_look, examine_snippet, read_document, mark_relevant, paginate, select_sublist }
    }

    fn params(&self) -> [&Option<Param>; 7] {
        [&self.issue_query, &self.serp_look, &self.examine_snippet, &self.read_document, &self.mark_relevant, &self.paginate, &self.select_sublist]
    }

    /// Checks every given entry is a number >= 0 (or such a distribution); errors name `key`.
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        for (name, p) in ACTION_NAMES.iter().zip(self.params()) {
            if let Some(p) = p {
                p.validate(context, &format!("{key}.{name}"), Support::NonNegative)?;
            }
        }
        Ok(())
    }

    /// The table of user `user`: given entries resolved over `base` (key paths under `prefix`).
    pub fn resolve(&self, base: ActionTable, seed: u64, user: u64, prefix: &str) -> ActionTable {
        let mut e = base.entries();
        for (i, (name, p)) in ACTION_NAMES.iter().zip(self.params()).enumerate() {
            if let Some(p) = p {
                e[i] = p.value(seed, path_id(&format!("{prefix}.{name}")), user, Support::NonNegative);
            }
        }
        ActionTable::from_entries(e)
    }

    /// True when some entry is a distribution over users.
    pub fn varies(&self) -> bool {
        self.params().iter().any(|p| p.as_ref().is_some_and(|p| p.fixed().is_none()))
    }
}

/// System delays of the interface, in seconds: they count towards time (and the time budget)
/// but are not the user's effort; `adjusted_time` leaves them out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Delays {
    /// After each query (e.g. 5 s in Crescenzi et al.'s delay condition).
    pub query_latency: f64,
    /// After each page request beyond the first page of a list.
    pub page_latency: f64,
    /// After each document click, before the document is shown (document load delay).
    pub document_latency: f64,
}

impl Delays {
    /// Checks every delay is finite and >= 0.
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        check_non_negative(context, &format!("{key}query_latency"), self.query_latency)?;
        check_non_negative(context, &format!("{key}page_latency"), self.page_latency)?;
        check_non_negative(context, &format!("{key}document_latency"), self.document_latency)
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
