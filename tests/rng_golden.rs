//! Golden test of the random streams (src/rng.rs) against an independent re-implementation.
//!
//! Every expected value comes from `tests/fixtures/rng/streams.json`, written by
//! `python3 analysis/rng/streams.py` (Python 3.11.7, standard library only), a separate
//! re-implementation of SplitMix64, the key derivation documented in src/rng.rs, and the
//! Xoshiro256++ generator seeded the rand_xoshiro way; that script checks itself against the
//! published outputs of the reference C programs. Comparisons are exact (u64 equality; floats
//! by their bit patterns). Changing any constant or step of the key derivation changes every
//! simulated session, and fails this test.

use rand::{Rng, RngCore};
use serde_json::Value;
use serpsim::rng;

fn fixture() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rng/streams.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a u64: {v}"))
}

fn ids(v: &Value) -> Vec<u64> {
    v.as_array().expect("ids").iter().map(u).collect()
}

fn rows<'a>(f: &'a Value, name: &str) -> &'a Vec<Value> {
    let r = f[name].as_array().unwrap_or_else(|| panic!("fixture has no {name}"));
    assert!(!r.is_empty(), "fixture's {name} is empty");
    r
}

#[test]
fn mix_unit_and_hash_match_the_python_reimplementation() {
    let f = fixture();
    for r in rows(&f, "mix64") {
        assert_eq!(rng::mix64(u(&r["x"])), u(&r["mix64"]), "mix64({})", r["x"]);
    }
    for r in rows(&f, "unit") {
        assert_eq!(rng::unit(u(&r["x"])).to_bits(), u(&r["unit_bits"]), "unit({})", r["x"]);
    }
    for r in rows(&f, "hash_str") {
        let s = r["s"].as_str().unwrap();
        assert_eq!(rng::hash_str(s), u(&r["hash_str"]), "hash_str({s:?})");
    }
}

#[test]
fn derived_keys_match_the_python_reimplementation() {
    let f = fixture();
    let r = rows(&f, "derive_key");
    assert_eq!(r.len(), 42);
    for r in r {
        let (seed, path) = (u(&r["seed"]), ids(&r["ids"]));
        assert_eq!(rng::derive_key(seed, &path), u(&r["key"]), "derive_key({seed}, {path:?})");
    }
}

#[test]
fn counter_based_draws_match_the_python_reimplementation() {
    let f = fixture();
    for r in rows(&f, "item_key") {
        let (key, item) = (u(&r["key"]), u(&r["item"]));
        assert_eq!(rng::item_key(key, item), u(&r["item_key"]), "item_key({key}, {item})");
        assert_eq!(rng::item_key_fast(key, item), u(&r["item_key"]), "item_key_fast({key}, {item})");
    }
    let r = rows(&f, "uniform_at");
    assert_eq!(r.len(), 200);
    for r in r {
        let (key, tag, i) = (u(&r["key"]), u(&r["tag"]), u(&r["i"]));
        let want = u(&r["bits"]);
        assert_eq!(rng::uniform_at(key, tag, i).to_bits(), want, "uniform_at({key}, {tag}, {i})");
        // The precomputed tables, with counters inside and past their end.
        assert_eq!(rng::TaggedDraws::<64>::new(tag).at(key, i).to_bits(), want, "TaggedDraws<64>({tag}).at({key}, {i})");
        assert_eq!(rng::TaggedDraws::<1024>::new(tag).at(key, i).to_bits(), want, "TaggedDraws<1024>");
    }
}

#[test]
fn streams_match_the_python_xoshiro256plusplus() {
    let f = fixture();
    let r = rows(&f, "stream");
    assert_eq!(r.len(), 42);
    for r in r {
        let (seed, path) = (u(&r["seed"]), ids(&r["ids"]));
        let want: Vec<u64> = r["next_u64"].as_array().unwrap().iter().map(u).collect();
        let mut s = rng::stream(seed, &path);
        let got: Vec<u64> = want.iter().map(|_| s.next_u64()).collect();
        assert_eq!(got, want, "stream({seed}, {path:?}).next_u64()");
        // The draws the simulators make: rand's f64 from the same stream.
        let want: Vec<u64> = r["f64_bits"].as_array().unwrap().iter().map(u).collect();
        let mut s = rng::stream(seed, &path);
        let got: Vec<u64> = want.iter().map(|_| s.random::<f64>().to_bits()).collect();
        assert_eq!(got, want, "stream({seed}, {path:?}).random::<f64>()");
    }
}
