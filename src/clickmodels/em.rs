//! Settings shared by the models fitted by expectation-maximisation (DBN, CCM, UBM, PBM, one
//! file each: `dbn.rs`, `ccm.rs`, `ubm.rs`, `pbm.rs`).
//!
//! Every iteration re-estimates each probability as (1 + expected successes) / (2 + expected
//! trials), clamped to [1e-6, 1 - 1e-6], from parameters that start at 0.5 (PyClick's
//! convention). The E-steps are exact posteriors given all clicks of the session; in
//! particular the examination probability below the last click is conditioned on the
//! clicks above (PyClick uses the unconditional one there, see `docs/clickmodels.md`).

use super::PROB_MIN;

/// EM settings shared by the EM models.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmConfig {
    /// Maximum number of iterations (default 50).
    pub iterations: usize,
    /// Stop after the first pass at which the training log-likelihood changed by at most this
    /// much relative to the pass before (default 0: run every iteration, plain EM). A
    /// tolerance > 0 also turns on SQUAREM acceleration (see [`super::driver`]).
    pub tolerance: f64,
}

impl Default for EmConfig {
    fn default() -> Self {
        EmConfig { iterations: 50, tolerance: 0.0 }
    }
}

/// `v` clamped to [PROB_MIN, 1 - PROB_MIN] (the EM clamp).
pub(crate) fn clamp(v: f64) -> f64 {
    v.clamp(PROB_MIN, 1.0 - PROB_MIN)
}

/// DBN continuation (persistence) parameter gamma.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Gamma {
    /// Estimated by EM.
    Fitted,
    /// Held fixed (BARACO uses 0.9).
    Fixed(f64),
}

/// Refuses a fit of no passes.
pub(crate) fn check_iterations(iterations: usize) -> crate::error::Result<()> {
    if iterations == 0 {
        Err(crate::error::Error::config("em", "iterations", "must be at least 1"))
    } else {
        Ok(())
    }
}
