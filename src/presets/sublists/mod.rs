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
//! let topic = TopicSublists::new("q", vec![0, 1, 0, 1], vec![("news".into(), vec![1, 3])]).unwrap();
//! let cont = ContinuationKind::Exponential { lambda: 0.1 }.table(4);
//! let mut rng = serpsim::rng::stream(1, &[0]);
//! let out = simulate_path(&topic, &cont, &[0.5, 0.5], 10, &ActionWeights::default(),
//!                         CutOff::FindAll, &mut rng, &mut Scratch::default(), None);
//! assert_eq!(out.gain, 2);
//! ```

pub mod analysis;
pub mod collection;
pub mod log;
pub mod measures;
pub mod model;
pub mod scenario;
pub mod sweep;
