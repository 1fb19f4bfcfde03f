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
//! use serpsim::simulate::{simulate_session, SerpView};
//! use serpsim::user::{ContinuationModel, UserProfile};
//! let serp = SerpView::from_grades(vec![1, 0, 1, 0, 0], 10);
//! let mut user = UserProfile::named("patient");
//! user.continuation = ContinuationModel::Rbp { p: 0.8 };
//! let mut rng = serpsim::rng::stream(42, &[0]);
//! let outcome = simulate_session(&serp, &user, &user.costs(), &mut rng);
//! assert!(outcome.depth >= 1 && outcome.depth <= 5);
//! ```
#![warn(missing_docs)]

pub mod baraco;
pub mod clickmodels;
pub mod collection;
pub mod error;
pub mod input;
pub mod interrupt;
pub mod logs;
pub mod metrics;
pub mod output;
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

pub use error::{Error, Result};
