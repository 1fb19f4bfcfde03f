#![no_main]
//! Fuzz target `labels`: see `serpsim::fuzzing::labels`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| serpsim::fuzzing::labels(data));
