//! # serpsim
//!
//! Simulate search-engine users on result pages and analyse user studies.
//!
//! Data flows: logs → parse → fit → parameters → simulate → distributions → report.
//! Click logs and user-study recordings are parsed (`logs`, the readers of `study`), click
//! models and behaviour models are fitted to them (`clickmodels`, `study`), the fitted
//! parameters become user components of a scenario (`user`, `scenario`), `simulate` runs those
//! users on the result pages of a collection (`collection`) into distributions of every session
//! measure (`simulate::summary` over `stats`), and `report` renders them (CSV, JSON, SVG). `run`
//! drives one scenario through these steps and stages the files.
//!
//! ```
//! use serpsim::simulate::{one_list_world, outcomes, PreparedProfile};
//! use serpsim::user::UserProfile;
//! let world = one_list_world(vec![1, 0, 1, 0, 0], 10);
//! let prepared = PreparedProfile::new(&world, &UserProfile::named("patient"), 42, None).unwrap();
//! let sessions = outcomes(&world, &prepared, 100, 42).unwrap();
//! assert!(sessions.iter().all(|o| o.depth >= 1 && o.depth <= 5));
//! ```
//!
//! A program starts from [`prelude`]: `use serpsim::prelude::*;` brings what running a
//! scenario, fitting and scoring a click model, evaluating a TREC run and deciding a ranker
//! switch need, with an example of each.
//!
//! # Layers
//!
//! A module uses only modules of its own row or of the rows above it (lower layers), and two
//! modules of one row never use each other both ways round, directly or through others.
//! `tests/layers.rs` reads this table and every `crate::`/`super::` path of `src/` outside
//! `#[cfg(test)]` code, and names each path that points down the table or closes a circle.
//! The shell (`src/main.rs`, `src/cli/`) is the binary crate on top and may use every layer;
//! `fuzzing` (entry points of the fuzz targets) and `readers_table` (a unit test over every
//! reader) are harnesses above everything, used by nothing in the library.
//!
//! | layer | modules |
//! |---|---|
//! | floor | `error`, `limits`, `rng`, `progress`, `interrupt`, `output`, `input`, `write` |
//! | models | `stats`, `user` |
//! | readers | `collection`, `logs`, `wordnet` |
//! | fitting | `clickmodels` |
//! | measures | `metrics` |
//! | engine | `simulate` |
//! | scenarios | `scenario` |
//! | summaries | `report` |
//! | orchestrator | `run` |
//! | presets | `presets` |
//! | applications | `baraco`, `suggest`, `study` |
//! | front door | `prelude` |
//! | harnesses | `fuzzing`, `readers_table` |
//!
//! The paper presets (`sessions`, `sublists`, `streams`) are folders of `presets`.
#![warn(missing_docs)]

// floor
pub mod error;
pub mod input;
pub mod interrupt;
pub mod limits;
pub mod output;
pub mod progress;
pub mod rng;
pub mod write;
// models
pub mod stats;
pub mod user;
// readers
pub mod collection;
pub mod logs;
pub mod wordnet;
// fitting
pub mod clickmodels;
// measures
pub mod metrics;
// engine
pub mod simulate;
// scenarios
pub mod scenario;
// summaries
pub mod report;
// orchestrator
pub mod run;
// presets
pub mod presets;
// applications
pub mod baraco;
pub mod study;
pub mod suggest;

/// The front door (see the module): `use serpsim::prelude::*;`.
pub mod prelude;
// harnesses
#[doc(hidden)]
pub mod fuzzing;
#[cfg(test)]
mod readers_table;

pub use error::{Error, Result};
