//! Query variants (moved to [`crate::collection::queries`], where the scenario loader uses
//! them for every command; re-exported here).

pub use crate::collection::queries::*;
