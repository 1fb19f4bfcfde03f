//! Examination and clicks: a cascade user with grade-dependent click, stop and mark probabilities.

use crate::error::{check_probability, Error, Result};
use serde::{Deserialize, Serialize};

/// How a user reacts to an examined snippet of a given grade.
pub trait ClickBehaviour {
    /// P(click | examined, grade).
    fn click_prob(&self, grade: usize) -> f64;
    /// P(stop | clicked, grade): the user is satisfied and ends the session.
    fn stop_prob(&self, grade: usize) -> f64;
    /// P(mark relevant | read, grade).
    fn mark_prob(&self, grade: usize) -> f64;
}

/// Cascade user. Tables are indexed by grade (negative grades use index 0); a grade above the
/// table uses its last entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Cascade {
    /// P(click | grade).
    pub click: Vec<f64>,
    /// P(stop | click, grade).
    pub stop: Vec<f64>,
    /// P(mark relevant | read, grade).
    pub mark: Vec<f64>,
}

impl Default for Cascade {
    /// Clicks every relevant and no non-relevant snippet, never stops on a click, marks
    /// every relevant document.
    fn default() -> Self {
        Cascade { click: vec![0.0, 1.0], stop: vec![0.0], mark: vec![0.0, 1.0] }
    }
}

#[inline]
fn lookup(table: &[f64], grade: usize) -> f64 {
    table[grade.min(table.len() - 1)]
}

impl ClickBehaviour for Cascade {
    #[inline]
    fn click_prob(&self, grade: usize) -> f64 {
        lookup(&self.click, grade)
    }
    #[inline]
    fn stop_prob(&self, grade: usize) -> f64 {
        lookup(&self.stop, grade)
    }
    #[inline]
    fn mark_prob(&self, grade: usize) -> f64 {
        lookup(&self.mark, grade)
    }
}

impl Cascade {
    /// Checks the tables; errors name `key`.
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        for (name, table) in [("click", &self.click), ("stop", &self.stop), ("mark", &self.mark)] {
            if table.is_empty() {
                return Err(Error::config(context, format!("{key}.{name}"), "must list at least one probability (index = grade)"));
            }
            for (i, &p) in table.iter().enumerate() {
                check_probability(context, &format!("{key}.{name}[{i}]"), p)?;
            }
        }
        Ok(())
    }
}
