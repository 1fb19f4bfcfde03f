//! User behaviour components. Each is a small trait with several implementations; a
//! [`UserProfile`] combines one of each.

mod clicks;
mod continuation;
mod costs;
mod gain;
mod profile;
mod stopping;

pub use clicks::{Cascade, ClickBehaviour};
pub use continuation::{Continuation, ContinuationModel};
pub use costs::{Action, ActionTable, CostModel, Costs};
pub use gain::{GainKind, GainModel};
pub use profile::UserProfile;
pub use stopping::{StoppingRule, StoppingRuleKind, WalkState};
