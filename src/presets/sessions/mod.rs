//! Time-budgeted multi-query search sessions (Maxwell et al. 2015, after Baskaya et al.), with
//! query variants, page size, system delays, a hard deadline and threshold sweeps.
//!
//! - [`model`]: the searcher as a profile of the one user model, and its interface. Query
//!   variants come from `collection::queries`; the walk is the engine's.
//! - [`sweep`]: threshold sweeps, best thresholds, paired tests, the depth / rate-of-gain plot.
//! - [`scenario`]: TOML scenarios for `serpsim sessions`.
//!
//! ```
//! use serpsim::collection::queries::SessionTopic;
//! use serpsim::presets::sessions::model::SessionConfig;
//! use serpsim::simulate::{outcomes, PreparedProfile};
//! let topic = SessionTopic {
//!     id: "301".into(),
//!     doc_ids: vec!["a".into(), "b".into()],
//!     grades: vec![1, 0],
//!     queries: vec![vec![0, 1]],
//!     query_ids: vec!["301.1".into()],
//! };
//! let cfg = SessionConfig::default();
//! let mut world = serpsim::scenario::world_from_query_sets(&[("s".into(), vec![topic])]).unwrap();
//! cfg.apply_interface(&mut world);
//! let prepared = PreparedProfile::new(&world, &cfg.profile("searcher"), 1, None).unwrap();
//! assert!(outcomes(&world, &prepared, 10, 1).unwrap().iter().all(|o| o.queries == 1));
//! ```

pub mod model;
pub mod scenario;
pub mod sweep;
