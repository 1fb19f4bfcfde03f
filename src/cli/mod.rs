//! One module per subcommand; `main.rs` only dispatches.

pub mod clicks;
pub mod common;
pub mod compare_rankers;
pub mod eval;
pub mod sessions;
pub mod simulate;
pub mod streams;
pub mod study;
pub mod sublists;
pub mod suggest;
pub mod wordnet;
