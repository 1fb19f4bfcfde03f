//! One module per subcommand; `main.rs` only dispatches.

/// `print!` that returns an error instead of panicking when standard output cannot be
/// written (`> /dev/full`, a closed descriptor). A closed pipe ends the process quietly
/// (SIGPIPE has its default disposition, see `main`).
macro_rules! out {
    ($($t:tt)*) => { $crate::cli::common::write_stdout(format_args!($($t)*)) };
}
/// `println!` with the error handling of [`out!`].
macro_rules! outln {
    () => { $crate::cli::common::write_stdout(format_args!("\n")) };
    ($($t:tt)*) => { $crate::cli::common::write_stdout(format_args!("{}\n", format_args!($($t)*))) };
}

pub mod clicks;
pub mod clicks_generate;
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
