//! One module per subcommand; `main.rs` only dispatches.

pub mod clicks;
pub mod common;
pub mod compare_rankers;
pub mod simulate;
