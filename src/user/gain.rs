//! Gain: what a document is worth to the user, and when it is credited.
//!
//! Gain is credited when the user reads a document (`credit_on = "read"`, the default) or
//! when the user marks it relevant (`credit_on = "mark"`, Maxwell et al.'s "documents saved").
//! A document is credited at most once per session.
//!
//! Per-user gain profiles: graded gains may be distributions over users (each grade drawn
//! independently), or `model = "profiles"` lists whole gain vectors (e.g. one per assessor's
//! normalised magnitude estimates, as in Maddalena et al.'s magnitude-estimation judgements)
//! from which each simulated user takes one.

use super::param::{path_id, Param, Pick, Support};
use crate::error::{Error, Result};
use crate::limits::check_non_negative;
use crate::rng::{derive_key, Stream};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// Credits gain for documents the user reads (or marks).
pub trait GainModel {
    /// Gain of a document of `grade` whose subtopic set is `subtopics` (a bit mask), given the
    /// subtopics `covered` so far. Updates `covered`.
    fn credit(&self, grade: i32, subtopics: u64, covered: &mut u64) -> f64;
}

/// When gain is credited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CreditOn {
    /// When the document is read (clicked).
    #[default]
    Read,
    /// When the document is marked relevant.
    Mark,
}

/// The gain models of the scenario schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum GainKind {
    /// 1 for a relevant (grade > 0) document, else 0.
    Binary {
        /// When gain is credited.
        #[serde(default)]
        credit_on: CreditOn,
    },
    /// `gains[grade]` (last entry for higher grades, 0 for grades <= 0); entries may be
    /// distributions over users.
    Graded {
        /// Gain per grade, index = grade.
        gains: Vec<Param>,
        /// When gain is credited.
        #[serde(default)]
        credit_on: CreditOn,
    },
    /// 1 per subtopic covered for the first time; a subtopic is never counted twice.
    Subtopic {
        /// When gain is credited.
        #[serde(default)]
        credit_on: CreditOn,
    },
    /// Per-user gain vectors: each user takes one of `profiles` (index = grade, as `graded`).
    Profiles {
        /// Gain vectors.
        profiles: Vec<Vec<f64>>,
        /// How a user picks a vector (`random`, default, or `cycle`: user u takes u mod n).
        #[serde(default)]
        pick: Pick,
        /// When gain is credited.
        #[serde(default)]
        credit_on: CreditOn,
    },
}

impl Default for GainKind {
    fn default() -> Self {
        GainKind::Binary { credit_on: CreditOn::Read }
    }
}

/// A gain model resolved for one user.
#[derive(Debug, Clone, PartialEq)]
pub enum Gain {
    /// Binary.
    Binary,
    /// Gain by grade.
    Graded(Vec<f64>),
    /// New subtopics.
    Subtopic,
}

impl GainModel for Gain {
    #[inline]
    fn credit(&self, grade: i32, subtopics: u64, covered: &mut u64) -> f64 {
        match self {
            Gain::Binary => f64::from(u8::from(grade > 0)),
            Gain::Graded(gains) => {
                if grade <= 0 {
                    0.0
                } else {
                    gains[(grade as usize).min(gains.len() - 1)]
                }
            }
            Gain::Subtopic => {
                let new = subtopics & !*covered;
                *covered |= subtopics;
                new.count_ones() as f64
            }
        }
    }
}

const PROFILE_TAG: u64 = 0x4741_494e_5052_4f46; // "GAINPROF"

impl GainKind {
    /// When gain is credited.
    pub fn credit_on(&self) -> CreditOn {
        match self {
            GainKind::Binary { credit_on } | GainKind::Graded { credit_on, .. } | GainKind::Subtopic { credit_on } | GainKind::Profiles { credit_on, .. } => {
                *credit_on
            }
        }
    }

    /// Checks parameters; errors name `key`.
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        match self {
            GainKind::Graded { gains, .. } => {
                if gains.is_empty() {
                    return Err(Error::config(context, format!("{key}.gains"), "must not be empty"));
                }
                for (i, g) in gains.iter().enumerate() {
                    g.validate(context, &format!("{key}.gains[{i}]"), Support::NonNegative)?;
                }
            }
            GainKind::Profiles { profiles, .. } => {
                if profiles.is_empty() {
                    return Err(Error::config(context, format!("{key}.profiles"), "must list at least one gain vector"));
                }
                for (i, p) in profiles.iter().enumerate() {
                    if p.is_empty() {
                        return Err(Error::config(context, format!("{key}.profiles[{i}]"), "must not be empty"));
                    }
                    for (j, &g) in p.iter().enumerate() {
                        check_non_negative(context, &format!("{key}.profiles[{i}][{j}]"), g)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The model of user `user` (key paths under `prefix`).
    pub fn resolve(&self, seed: u64, user: u64, prefix: &str) -> Gain {
        match self {
            GainKind::Binary { .. } => Gain::Binary,
            GainKind::Subtopic { .. } => Gain::Subtopic,
            GainKind::Graded { gains, .. } => Gain::Graded(
                gains.iter().enumerate().map(|(i, g)| g.value(seed, path_id(&format!("{prefix}.gains[{i}]")), user, Support::NonNegative)).collect(),
            ),
            GainKind::Profiles { profiles, pick, .. } => {
                let i = match pick {
                    Pick::Cycle => (user % profiles.len() as u64) as usize,
                    Pick::Random => Stream::seed_from_u64(derive_key(seed, &[PROFILE_TAG, path_id(prefix), user])).random_range(0..profiles.len()),
                };
                Gain::Graded(profiles[i].clone())
            }
        }
    }

    /// True when the gain differs between users.
    pub fn varies(&self) -> bool {
        match self {
            GainKind::Graded { gains, .. } => gains.iter().any(|g| g.fixed().is_none()),
            GainKind::Profiles { profiles, .. } => profiles.len() > 1,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtopics_count_once_and_grades_look_up() {
        let mut covered = 0;
        assert_eq!(Gain::Subtopic.credit(1, 0b011, &mut covered), 2.0);
        assert_eq!(Gain::Subtopic.credit(1, 0b110, &mut covered), 1.0);
        assert_eq!(Gain::Subtopic.credit(1, 0b111, &mut covered), 0.0);
        let g = Gain::Graded(vec![0.0, 1.0, 3.0]);
        assert_eq!((g.credit(2, 0, &mut covered), g.credit(5, 0, &mut covered), g.credit(-1, 0, &mut covered)), (3.0, 3.0, 0.0));
    }

    #[test]
    fn profiles_give_each_user_one_vector() {
        let k = GainKind::Profiles { profiles: vec![vec![0.0, 1.0], vec![0.0, 4.0]], pick: Pick::Cycle, credit_on: CreditOn::Read };
        assert_eq!(k.resolve(1, 0, "gain"), Gain::Graded(vec![0.0, 1.0]));
        assert_eq!(k.resolve(1, 3, "gain"), Gain::Graded(vec![0.0, 4.0]));
        let r = GainKind::Profiles { profiles: vec![vec![0.0, 1.0], vec![0.0, 4.0]], pick: Pick::Random, credit_on: CreditOn::Read };
        let fours = (0..2000).filter(|&u| r.resolve(1, u, "gain") == Gain::Graded(vec![0.0, 4.0])).count();
        // Binomial(2000, 1/2): sd 22.4.
        assert!((fours as f64 - 1000.0).abs() < 4.0 * 22.4, "{fours}");
        let e = GainKind::Profiles { profiles: vec![vec![]], pick: Pick::Random, credit_on: CreditOn::Read }.validate("s", "gain").unwrap_err();
        assert!(e.to_string().contains("gain.profiles[0]"));
    }
}
