#![no_main]
//! Fuzz target `subtopic_qrels`: see `serpsim::fuzzing::subtopic_qrels`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| serpsim::fuzzing::subtopic_qrels(data));
