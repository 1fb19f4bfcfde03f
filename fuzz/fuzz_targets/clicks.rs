#![no_main]
//! Fuzz target `clicks`: see `serpsim::fuzzing::clicks`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| serpsim::fuzzing::clicks(data));
