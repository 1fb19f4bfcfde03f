//! One module per subcommand; `main.rs` only dispatches.

pub mod common;
pub mod eval;
pub mod simulate;
