//! Gain: what a read document is worth to the user.

use crate::error::{check_non_negative, Error, Result};
use serde::{Deserialize, Serialize};

/// Credits gain for documents the user reads.
pub trait GainModel {
    /// Gain of reading a document of `grade` whose subtopic set is `subtopics` (a bit mask),
    /// given the subtopics `covered` so far. Updates `covered`.
    fn credit(&self, grade: i32, subtopics: u64, covered: &mut u64) -> f64;
}

/// The gain models of the scenario schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum GainKind {
    /// 1 for a relevant (grade > 0) document, else 0.
    Binary,
    /// `gains[grade]` (last entry for higher grades, 0 for grades <= 0).
    Graded {
        /// Gain per grade, index = grade.
        gains: Vec<f64>,
    },
    /// 1 per subtopic covered for the first time; a subtopic is never counted twice.
    Subtopic,
}

impl GainModel for GainKind {
    #[inline]
    fn credit(&self, grade: i32, subtopics: u64, covered: &mut u64) -> f64 {
        match self {
            GainKind::Binary => f64::from(u8::from(grade > 0)),
            GainKind::Graded { gains } => {
                if grade <= 0 {
                    0.0
                } else {
                    gains[(grade as usize).min(gains.len() - 1)]
                }
            }
            GainKind::Subtopic => {
                let new = subtopics & !*covered;
                *covered |= subtopics;
                new.count_ones() as f64
            }
        }
    }
}

impl GainKind {
    /// Checks parameters; errors name `key`.
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        if let GainKind::Graded { gains } = self {
            if gains.is_empty() {
                return Err(Error::config(context, format!("{key}.gains"), "must not be empty"));
            }
            for (i, &g) in gains.iter().enumerate() {
                check_non_negative(context, &format!("{key}.gains[{i}]"), g)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtopics_count_once() {
        let mut covered = 0;
        assert_eq!(GainKind::Subtopic.credit(1, 0b011, &mut covered), 2.0);
        assert_eq!(GainKind::Subtopic.credit(1, 0b110, &mut covered), 1.0);
        assert_eq!(GainKind::Subtopic.credit(1, 0b111, &mut covered), 0.0);
        let g = GainKind::Graded { gains: vec![0.0, 1.0, 3.0] };
        assert_eq!((g.credit(2, 0, &mut covered), g.credit(5, 0, &mut covered), g.credit(-1, 0, &mut covered)), (3.0, 3.0, 0.0));
    }
}
