//! Sublist switching (result-list refinement, RLR) after He, Bron, de Vries, Azzopardi and
//! de Rijke (SIGIR 2015): a what-if engine, analysis of when RLR helps, and fitting from
//! usage logs.
//!
//! - [`model`]: the interaction model of §3 (continuation, switching, constraints A1-A3).
//! - [`collection`]: topics with sublists from category labels (synthetic, LETOR).
//! - [`measures`]: Rq, Hq, the oracle prior and user accuracy levels.
//! - [`sweep`]: the lambda x prior x task sweep and its Fig. 6 plot.
//! - [`analysis`]: per-topic Dq, Rq, Hq, Ulevel and the binomial GLM of "RLR helps".
//! - [`log`]: the usage-log format, effort counting (§4.2.1), fitting and prediction (§4.2-4.4).
//!
//! ```
//! use serpsim::presets::sublists::model::*;
//! use serpsim::simulate::{outcomes, PreparedProfile};
//! let topic = TopicSublists::new("q", vec![0, 1, 0, 1], vec![("news".into(), vec![1, 3])]).unwrap();
//! let cont = ContinuationKind::Exponential { lambda: 0.1 }.table(4);
//! let world = world_of(&[topic], true, 10);
//! let user = he_profile("he", &cont, &ActionWeights::default(), CutOff::FindAll);
//! let prepared = PreparedProfile::new(&world, &user, 1, None).unwrap();
//! assert!(outcomes(&world, &prepared, 10, 1).unwrap().iter().all(|o| o.relevant_found == 2));
//! ```

pub mod analysis;
pub mod collection;
pub mod log;
pub mod measures;
pub mod model;
pub mod scenario;
pub mod sweep;
