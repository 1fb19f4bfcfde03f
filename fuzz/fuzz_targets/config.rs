#![no_main]
//! Fuzz target `config`: see `serpsim::fuzzing::config`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| serpsim::fuzzing::config(data));
