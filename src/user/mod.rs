//! The simulated user, as components. Each concept is one small trait with plain-data
//! implementations; a [`UserProfile`] combines one of each and may make any numeric parameter
//! a distribution over users ([`param`]).
//!
//! | concept | trait | what it decides |
//! |---|---|---|
//! | continuation | [`Continuation`] | go on to the next result of the list |
//! | stopping | [`StoppingRule`] | abandon the query or the session |
//! | clicks | [`ClickBehaviour`] | examine, click, be satisfied (cascade tables or a click model) |
//! | costs | [`CostModel`] | effort and seconds per action |
//! | gain | [`GainModel`] | what a read or marked document is worth |
//!
//! Query formulation ([`Queries`]), sublist use ([`SublistUse`]) and budgets ([`Budget`]) are
//! plain settings of the profile; the walk that combines them lives in `simulate`.

mod clicks;
mod continuation;
mod costs;
mod gain;
pub mod param;
mod profile;
mod stopping;

pub use clicks::{
    by_grade, Cascade, ClickBehaviour, ClickSource, ClickTables, Coverage, Dynamics, Examination, GradeMap, GradeMapping, GradeTables, ModelClicks, UNFITTED,
};
pub use continuation::{Cont, ContPaths, Continuation, ContinuationModel, RankOf};
pub use costs::{Action, ActionParams, ActionTable, CostModel, Costs, Delays, ACTION_NAMES};
pub use gain::{CreditOn, Gain, GainKind, GainModel};
pub use param::{Dist, Param, Pick, Support};
pub use profile::{Budget, ClickModelSpec, NoAlternative, PriorBase, Queries, ResolvedUser, SatisfiedEnds, SublistUse, Unseen, UnseenPolicy, UserProfile};
pub use stopping::{Basis, RelevantEvent, Rule, StoppingRule, StoppingRuleKind, WalkState};
