//! BARACO: Bayesian ranker comparison from clicks logged under the production ranker
//! (Grotov, Whiteson and de Rijke, SIGIR 2015).
//!
//! [`posterior`] infers DBN attractiveness/satisfaction posteriors (Algorithm 1),
//! [`sampling`] draws from them, [`metrics`] evaluates rankings, [`decide`] answers the
//! switching problem (Algorithm 2) and the difference estimation problem (Algorithm 3), and
//! [`harness`] runs the LETOR evaluation of §6.1. [`model_posterior`] runs Algorithms 2 and 3
//! on joint posterior draws of any latent-variable click model (DBN, UBM, PBM, CCM). File formats: `docs/baraco.md`.

pub mod decide;
pub mod harness;
pub mod log;
pub mod metrics;
pub mod mixture;
pub(crate) mod model_posterior;
pub mod plot;
pub mod posterior;
pub mod real;
pub(crate) mod sampling;
pub mod switch;

pub use decide::{compare, point_metric, Answer, Config};
pub use log::{parse_rankings, parse_weights, ProductionLog, Ranking};
pub use metrics::{SwitchMetric, Unseen};
pub use model_posterior::{compare_model, ModelDraws, ModelPosteriorConfig, PosteriorModel};
pub use posterior::{compute_posteriors, compute_posteriors_mixture, Density, FactoredBeta, Posteriors, DEFAULT_GAMMA};
pub use sampling::Sampler;
