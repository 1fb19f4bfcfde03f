#![no_main]
//! Fuzz target `parquet`: see `serpsim::fuzzing::parquet`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| serpsim::fuzzing::parquet(data));
