"""Independent re-implementation of serpsim's random streams (src/rng.rs), for tests/rng_golden.rs.

Writes tests/fixtures/rng/streams.json. Written from the published definitions, not from the
Rust code line by line:

- SplitMix64 (Steele, Lea & Flood 2014; reference C by Vigna, https://prng.di.unimi.it/splitmix64.c):
  state += 0x9E3779B97F4A7C15; z = state; z = (z ^ z>>30) * 0xBF58476D1CE4E5B9;
  z = (z ^ z>>27) * 0x94D049BB133111EB; return z ^ z>>31.
  serpsim's mix64(x) is the output of one SplitMix64 step from state x (add, then finalise).
- The key derivation, as documented in src/rng.rs: key = mix64(seed), then for each id
  key = mix64(key ^ mix64(id + 0x2545F4914F6CDD1D)); item_key(key, item) is one more such step;
  uniform_at(key, tag, i) = unit(mix64(key ^ mix64(tag ^ mix64(i)))); unit(x) = (x >> 11) / 2^53.
  hash_str is FNV-1a 64 (offset 0xcbf29ce484222325, prime 0x100000001b3) then mix64.
- The generator behind stream(seed, ids): rand_xoshiro 0.7's Xoshiro256PlusPlus, seeded by
  seed_from_u64(derive_key(seed, ids)), which (rand_xoshiro docs) fills the 256-bit state with
  four consecutive outputs of SplitMix64 started at that u64 (little-endian words, s[0] first).
  Xoshiro256++ (Blackman & Vigna, reference C https://prng.di.unimi.it/xoshiro256plusplus.c):
  result = rotl(s0 + s3, 23) + s0; t = s1 << 17; s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3;
  s2 ^= t; s3 = rotl(s3, 45).
  rand 0.9's StandardUniform f64 draw is (next_u64 >> 11) * 2^-53 (multiply method, [0, 1)).

Self-checks against published reference outputs (so a slip here is noticed before the fixture
is written): SplitMix64 from 1477776061723855037 and Xoshiro256++ from s = (1, 2, 3, 4), both
first values as printed by the reference C programs (quoted in rand_xoshiro's tests).

Python 3.11.7, standard library only. Run from the repository root:
    python3 analysis/rng/streams.py
"""
import json
import sys

COMMAND = "python3 analysis/rng/streams.py"
M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
ID_OFFSET = 0x2545F4914F6CDD1D


def splitmix64_next(state):
    """One SplitMix64 step: returns (new_state, output)."""
    state = (state + GOLDEN) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def mix64(x):
    return splitmix64_next(x)[1]


def hash_str(s):
    h = 0xCBF29CE484222325
    for b in s.encode("utf-8"):
        h = ((h ^ b) * 0x100000001B3) & M64
    return mix64(h)


def derive_key(seed, ids):
    k = mix64(seed)
    for i in ids:
        k = mix64(k ^ mix64((i + ID_OFFSET) & M64))
    return k


def item_key(key, item):
    return mix64(key ^ mix64((item + ID_OFFSET) & M64))


def unit(x):
    # (x >> 11) < 2^53 is exact in a double, and so is the product by 2^-53.
    return (x >> 11) * 2.0 ** -53


def uniform_at(key, tag, i):
    return unit(mix64(key ^ mix64(tag ^ mix64(i))))


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


class Xoshiro256pp:
    def __init__(self, s):
        self.s = list(s)

    @classmethod
    def seed_from_u64(cls, seed):
        state, s = seed, []
        for _ in range(4):
            state, out = splitmix64_next(state)
            s.append(out)
        return cls(s)

    def next_u64(self):
        s = self.s
        result = (rotl((s[0] + s[3]) & M64, 23) + s[0]) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result


def f64_bits(x):
    import struct

    return struct.unpack("<Q", struct.pack("<d", x))[0]


def self_check():
    # splitmix64.c from 1477776061723855037: first outputs 1985237415132408290, 2979275885539914483.
    st, a = splitmix64_next(1477776061723855037)
    st, b = splitmix64_next(st)
    assert (a, b) == (1985237415132408290, 2979275885539914483), (a, b)
    # xoshiro256plusplus.c from s = {1, 2, 3, 4}: rotl(1 + 4, 23) + 1 = 41943041 (by hand), then
    # 58720359 and 3588806011781223 (reference C output).
    g = Xoshiro256pp([1, 2, 3, 4])
    got = [g.next_u64() for _ in range(3)]
    assert got == [41943041, 58720359, 3588806011781223], got


SEEDS = [0, 1, 7, 42, 20260026, M64]
ID_PATHS = [[], [0], [1, 2, 3], [1, 2, 4], [2, 1, 3], [M64, 0, 1 << 63], [hash_str("baseline"), 5, 0, 9]]
TAGS = [0, 1, 0x1234_5678, M64]
COUNTERS = [0, 1, 2, 63, 64, 65, 1023, 1024, 1 << 32, M64]
ITEMS = [0, 1, 7, 1023, 1024, 1 << 40, M64]
STRINGS = ["", "a", "baseline", "Navigational", "é→ü"]
DRAWS = 6


def main():
    self_check()
    mix = [{"x": x, "mix64": mix64(x)} for x in [0, 1, GOLDEN, ID_OFFSET, 1 << 63, M64]]
    units = [{"x": x, "unit_bits": f64_bits(unit(x))} for x in [0, 1, 2047, 2048, 1 << 63, M64]]
    hashes = [{"s": s, "hash_str": hash_str(s)} for s in STRINGS]
    keys, streams = [], []
    for seed in SEEDS:
        for ids in ID_PATHS:
            k = derive_key(seed, ids)
            keys.append({"seed": seed, "ids": ids, "key": k})
            g = Xoshiro256pp.seed_from_u64(k)
            u = [g.next_u64() for _ in range(DRAWS)]
            streams.append({"seed": seed, "ids": ids, "next_u64": u, "f64_bits": [f64_bits(unit(x)) for x in u]})
    counter_keys = [0, 1, 0xDEADBEEF, derive_key(7, [1, 2, 3]), M64]
    items = [{"key": k, "item": it, "item_key": item_key(k, it)} for k in counter_keys for it in ITEMS]
    uniforms = [
        {"key": k, "tag": t, "i": i, "bits": f64_bits(uniform_at(k, t, i))}
        for k in counter_keys
        for t in TAGS
        for i in COUNTERS
    ]
    out = {
        "source": "independent Python re-implementation, analysis/rng/streams.py",
        "command": COMMAND,
        "python": sys.version.split()[0],
        "note": "u64 values as JSON integers; floats as their IEEE-754 bit patterns (u64) for a bit-for-bit comparison",
        "mix64": mix,
        "unit": units,
        "hash_str": hashes,
        "derive_key": keys,
        "item_key": items,
        "uniform_at": uniforms,
        "stream": streams,
    }
    with open("tests/fixtures/rng/streams.json", "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote tests/fixtures/rng/streams.json: {len(keys)} keys, {len(streams)} streams, {len(uniforms)} uniforms")


if __name__ == "__main__":
    main()
