//! # serpsim
//!
//! Simulate search-engine users on result pages and analyse user studies.
//!
//! Data flows through the modules in this order:
//! `collection` (qrels, runs, LETOR, synthetic) → `user` (behaviour components, profiles) →
//! `simulate` (Monte-Carlo engine) → `stats` (distributions, tests) → `report` (CSV, JSON, SVG).
//! `scenario` reads TOML files that wire these together.
//!
//! ```
//! use serpsim::simulate::{one_list_world, outcomes, Prepared};
//! use serpsim::user::UserProfile;
//! let world = one_list_world(vec![1, 0, 1, 0, 0], 10);
//! let prepared = Prepared::new(&world, &UserProfile::named("patient"), 42, None).unwrap();
//! let sessions = outcomes(&world, &prepared, 100, 42).unwrap();
//! assert!(sessions.iter().all(|o| o.depth >= 1 && o.depth <= 5));
//! ```
#![warn(missing_docs)]

pub mod baraco;
pub mod clickmodels;
pub mod collection;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod input;
pub mod interrupt;
pub mod limits;
pub mod logs;
pub mod metrics;
pub mod output;
pub mod presets;
#[cfg(test)]
mod readers_table;
pub mod progress;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod simulate;
pub mod stats;
pub mod study;
pub mod suggest;
pub mod user;
pub mod wordnet;
pub mod write;

pub use error::{Error, Result};
