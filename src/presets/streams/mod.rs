//! Stream users and modeled stream utility, MSU (Baruah, Smucker and Clarke 2015).
//!
//! - [`model`]: population, user-traces, reading and gain, MSU.
//! - The documented input formats (topics, nuggets, updates, matches) are read by
//!   [`crate::simulate::stream_io`], and stream scenarios (`serpsim streams run`) run through
//!   [`crate::run::streams`].
//!
//! ```
//! use serpsim::presets::streams::model::user_gain;
//! use serpsim::simulate::stream::{Update, Visit};
//! let ups = vec![Update { id: "u".into(), time: 5.0, confidence: 1.0, words: 30.0, nuggets: vec![0] }];
//! // One 60 s session at t = 10 reading 1 word per second: the nugget (time 0) is on time.
//! let g = user_gain(&ups, &[0.0], &[Visit { start: 10.0, duration: 60.0 }], 1.0, 0.5);
//! assert_eq!(g, 1.0);
//! ```

pub mod model;
