#![no_main]
//! Fuzz target `arrow_ipc`: see `serpsim::fuzzing::arrow_ipc`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| serpsim::fuzzing::arrow_ipc(data));
