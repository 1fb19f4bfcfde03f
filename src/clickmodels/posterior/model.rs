//! The model and its posterior together, as `serpsim clicks fit --posterior` and the Python
//! binding's `fit_posterior` give them.

use super::{fit_with_posterior, posterior, Posterior, PosteriorConfig};
use crate::clickmodels::prior::PriorScope;
use crate::clickmodels::{ClickModel, ModelKind};
use crate::error::Result;
use crate::logs::ClickLog;

/// Fits `kind` on `log` and computes its posterior. Counting models: model and conjugate
/// posterior from one counting pass ([`fit_with_posterior`]). Sampled models (and `exact`):
/// the Gibbs sampler's posterior, with the model fitted by `em` under the uniform prior (the
/// usual EM fit, unchanged by asking for a posterior) or the posterior means under any other
/// prior. `progress` receives sampler sweeps.
pub fn model_and_posterior(
    kind: ModelKind,
    log: &ClickLog,
    pairs: usize,
    cfg: &PosteriorConfig,
    em: &dyn Fn(&ClickLog) -> Result<Box<dyn ClickModel>>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Box<dyn ClickModel>, Posterior)> {
    if !kind.is_em() && !cfg.exact {
        return fit_with_posterior(kind, log, pairs, cfg);
    }
    let post = posterior(kind, log, pairs, cfg, progress)?;
    let model = if cfg.prior == PriorScope::Uniform { em(log)? } else { post.point_model() };
    Ok((model, post))
}
