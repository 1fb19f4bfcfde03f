#![no_main]
//! Fuzz target `study`: see `serpsim::fuzzing::study`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| serpsim::fuzzing::study(data));
