#![no_main]
//! Fuzz target `tables`: see `serpsim::fuzzing::tables`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| serpsim::fuzzing::tables(data));
