//! One module per subcommand; `main.rs` only dispatches.

pub mod common;
pub mod simulate;
pub mod sublists;
