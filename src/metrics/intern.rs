//! Compact interning of byte strings (document and topic ids) for the evaluator.
//!
//! Ids live back to back in one byte arena; an open-addressing table of `u32` slots maps them
//! to dense indices. A table of n ids costs about `len + 20` bytes per id, against roughly 80
//! for a `HashMap<String, u32>`, and a lookup touches two small arrays.

/// 64-bit hash of a byte string: 8 bytes at a time, then the SplitMix64 finaliser, so every
/// bit of the result (the table uses the low ones) depends on every input byte.
#[inline]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h: u64 = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in chunks.by_ref() {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; 8];
        buf[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(buf)).wrapping_mul(K).rotate_left(29);
    }
    crate::rng::mix64(h)
}

const EMPTY: u32 = u32::MAX;

/// An open-addressing table of dense `u32` ids whose keys are stored elsewhere: the caller
/// supplies the hash and an equality test. Linear probing, load at most 1/2.
#[derive(Debug, Clone, Default)]
pub struct IdTable {
    slots: Vec<u32>,
    /// Low 32 bits of each id's hash (indexed by id), to skip most key comparisons.
    hashes: Vec<u32>,
}

impl IdTable {
    /// An empty table.
    pub fn new() -> Self {
        IdTable::default()
    }

    /// Number of ids.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Whether the table holds no id.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// Makes room for `n` more ids without regrowing.
    pub fn reserve(&mut self, n: usize) {
        self.hashes.reserve(n);
        let need = ((self.hashes.len() + n) * 2).next_power_of_two().max(16);
        if need > self.slots.len() {
            let old = std::mem::replace(&mut self.slots, vec![EMPTY; need]);
            drop(old);
            for id in 0..self.hashes.len() as u32 {
                let h = self.hashes[id as usize] as u64;
                self.place(h, id);
            }
        }
    }

    /// Removes every id, keeping the allocation.
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = EMPTY);
        self.hashes.clear();
    }

    /// The id whose key has hash `h` and satisfies `eq`, if any.
    #[inline]
    pub fn find(&self, h: u64, mut eq: impl FnMut(u32) -> bool) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let s = self.slots[i];
            if s == EMPTY {
                return None;
            }
            if self.hashes[s as usize] == h as u32 && eq(s) {
                return Some(s);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds the next id (`len()`) under hash `h`, without checking for an equal key.
    pub fn insert_new(&mut self, h: u64) -> u32 {
        let id = self.hashes.len() as u32;
        assert!(id < EMPTY, "more than 2^32 - 1 ids");
        if (self.hashes.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        self.hashes.push(h as u32);
        self.place(h, id);
        id
    }

    fn place(&mut self, h: u64, id: u32) {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        while self.slots[i] != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = id;
    }

    fn grow(&mut self) {
        let cap = (self.slots.len() * 2).max(16);
        // The table only keeps 32 bits of each hash; the slot index needs no more than that
        // (tables stay far below 2^32 slots), so re-placing from them is exact.
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; cap]);
        drop(old);
        for id in 0..self.hashes.len() as u32 {
            let h = self.hashes[id as usize] as u64;
            self.place(h, id);
        }
    }
}

/// Interned byte strings: an arena plus an [`IdTable`].
///
/// ```
/// let mut ids = serpsim::metrics::intern::Interner::default();
/// assert_eq!(ids.intern(b"FT911-3"), (0, true));
/// assert_eq!(ids.intern(b"LA0101"), (1, true));
/// assert_eq!(ids.intern(b"FT911-3"), (0, false));
/// assert_eq!(ids.get(1), b"LA0101");
/// assert_eq!(ids.find(b"nope"), None);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Interner {
    arena: Vec<u8>,
    /// End offset of each id in the arena (the start is the previous end).
    ends: Vec<u32>,
    table: IdTable,
}

impl Interner {
    /// Number of ids.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no id has been interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Makes room for `n` more ids of `bytes` bytes in all.
    pub fn reserve(&mut self, n: usize, bytes: usize) {
        self.arena.reserve(bytes);
        self.ends.reserve(n);
        self.table.reserve(n);
    }

    /// Total bytes of the ids.
    pub fn bytes(&self) -> usize {
        self.arena.len()
    }

    /// The bytes of id `i`.
    #[inline]
    pub fn get(&self, i: u32) -> &[u8] {
        let i = i as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.arena[start..self.ends[i] as usize]
    }

    /// The id of `key`, if interned.
    #[inline]
    pub fn find(&self, key: &[u8]) -> Option<u32> {
        self.find_hashed(key, hash_bytes(key))
    }

    /// [`Interner::find`] with the hash already computed.
    #[inline]
    pub fn find_hashed(&self, key: &[u8], h: u64) -> Option<u32> {
        self.table.find(h, |i| self.get(i) == key)
    }

    /// The id of `key`, interning it if new; the flag says whether it was new.
    pub fn intern(&mut self, key: &[u8]) -> (u32, bool) {
        let h = hash_bytes(key);
        if let Some(i) = self.find_hashed(key, h) {
            return (i, false);
        }
        (self.insert_new_hashed(key, h), true)
    }

    /// Adds `key`, whose hash is `h`, as a new id. The caller has checked that it is absent
    /// ([`Interner::find_hashed`] returned `None`): the one probe serves both.
    pub fn insert_new_hashed(&mut self, key: &[u8], h: u64) -> u32 {
        debug_assert!(self.find_hashed(key, h).is_none());
        self.arena.extend_from_slice(key);
        assert!(self.arena.len() <= u32::MAX as usize, "more than 4 GiB of ids");
        self.ends.push(self.arena.len() as u32);
        self.table.insert_new(h)
    }

    /// Bytes held (arena, offsets and table), for memory accounting.
    pub fn heap_bytes(&self) -> usize {
        self.arena.capacity() + self.ends.capacity() * 4 + self.table.slots.capacity() * 4 + self.table.hashes.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interner_round_trips_many_ids_through_growth() {
        let mut ids = Interner::default();
        for i in 0..5000u32 {
            assert_eq!(ids.intern(format!("DOC-{i}").as_bytes()), (i, true));
        }
        for i in (0..5000u32).rev() {
            let key = format!("DOC-{i}");
            assert_eq!(ids.find(key.as_bytes()), Some(i));
            assert_eq!(ids.get(i), key.as_bytes());
            assert_eq!(ids.intern(key.as_bytes()), (i, false));
        }
        assert_eq!(ids.find(b"DOC-5000"), None);
        assert_eq!(ids.find(b""), None);
        assert_eq!(ids.intern(b""), (5000, true));
        assert_eq!(ids.get(5000), b"");
    }

    #[test]
    fn id_table_clear_keeps_working() {
        let keys: Vec<Vec<u8>> = (0..100).map(|i: u32| i.to_le_bytes().to_vec()).collect();
        let mut t = IdTable::new();
        for k in &keys {
            t.insert_new(hash_bytes(k));
        }
        assert_eq!(t.find(hash_bytes(&keys[42]), |i| keys[i as usize] == keys[42]), Some(42));
        t.clear();
        assert!(t.is_empty());
        assert_eq!(t.find(hash_bytes(&keys[42]), |i| keys[i as usize] == keys[42]), None);
        assert_eq!(t.insert_new(hash_bytes(&keys[7])), 0);
        assert_eq!(t.find(hash_bytes(&keys[7]), |i| i == 0), Some(0));
    }
}
