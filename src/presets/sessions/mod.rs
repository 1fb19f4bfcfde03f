//! Time-budgeted multi-query search sessions (Maxwell et al. 2015, after Baskaya et al.), with
//! query variants, page size, system delays, a hard deadline and threshold sweeps.
//!
//! - [`model`]: the searcher walk and its configuration (common random numbers).
//! - [`queries`]: query variants from TREC runs (`301.1`, `301.2`, ...) or a synthetic generator
//!   (query quality, dud queries, QS1 / QS3 / QS1+3).
//! - [`sweep`]: threshold sweeps, best thresholds, paired tests, the depth / rate-of-gain plot.
//! - [`scenario`]: TOML scenarios for `serpsim sessions`.
//!
//! ```
//! use serpsim::presets::sessions::model::{judgement_key, simulate, Scratch, SessionConfig, SessionTopic};
//! let topic = SessionTopic {
//!     id: "301".into(),
//!     doc_ids: vec!["a".into(), "b".into()],
//!     grades: vec![1, 0],
//!     queries: vec![vec![0, 1]],
//!     query_ids: vec!["301.1".into()],
//! };
//! let out = simulate(&topic, &SessionConfig::default(), judgement_key(1, 301, 0), &mut Scratch::default());
//! assert_eq!(out.queries, 1);
//! ```

pub mod model;
pub mod queries;
pub mod scenario;
pub mod sweep;
