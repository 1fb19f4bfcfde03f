//! The paper presets over the engine: each is a preset of the one user model plus its sweeps
//! and paper tables.
//!
//! - [`sessions`]: time-budgeted multi-query sessions (Maxwell et al. 2015).
//! - [`sublists`]: sublist switching (He et al. 2015).
//! - [`streams`]: modeled stream utility (Baruah, Smucker and Clarke 2015).

pub mod sessions;
pub mod streams;
pub mod sublists;
