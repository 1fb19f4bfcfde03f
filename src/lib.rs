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
//!
//! # Layers
//!
//! Each module uses only modules of its own row or of the rows above it (lower layers), and
//! modules of one row do not use each other both ways round; `tests/layers.rs` reads this table
//! and every `crate::`/`super::` path in `src/` and fails on an import that points down the table
//! or closes a circle.
//!
//! | layer | modules |
//! |---|---|
//! | floor | `error`, `limits`, `rng`, `progress`, `interrupt`, `output`, `input`, `write` |
//! | models | `stats`, `user` |
//! | readers | `collection`, `logs`, `wordnet` |
//! | measures | `metrics` |
//! | fitting | `clickmodels` |
//! | engine | `simulate` |
//! | scenarios | `scenario` |
//! | summaries | `report` |
//! | orchestrator | `run` |
//! | presets | `presets`, `sessions`, `sublists`, `streams` |
//! | applications | `baraco`, `suggest`, `study` |
//! | harnesses | `fuzzing`, `readers_table` |
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
#[cfg(test)]
mod readers_table;
pub mod progress;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod sessions;
pub mod simulate;
pub mod stats;
pub mod streams;
pub mod study;
pub mod sublists;
pub mod suggest;
pub mod user;
pub mod wordnet;
pub mod write;

pub use error::{Error, Result};
