//! The click and mark decisions of a run's users, made once for the profiles that share them.
//!
//! A walk decides whether a user clicks a document from the session key `(seed, topic, user)`,
//! the document and P(click | grade), and whether the user marks it from the same key and
//! document and P(mark | grade) (see [`walk`](super::walk)'s module docs). Profiles whose users
//! all have the same grade tables (a sweep over stopping rules, budgets or costs) therefore make
//! the same decisions for the same user, topic and document. [`Decisions`] makes them once, two
//! bits per document, and the flat walks of every such profile look them up instead of hashing:
//! the Maxwell sweep's 78 profiles made each decision up to 78 times (docs/performance.md).

use super::engine::{topic_key, user_key};
use super::walk::{click_decision, mark_decision, Decided};
use super::world::World;
use crate::rng::{hash_str, item_key_fast};
use crate::user::{by_grade, GradeTables};
use rayon::prelude::*;
use std::ops::Range;

/// Bits [`Decisions`] may hold in one run, over all grade tables (32 MiB); a run that would need
/// more draws as it goes.
pub const MAX_BITS: u64 = 1 << 28;

/// Profiles that must share a grade table before its decisions are made in advance: making
/// them costs about what two or three profiles' walks spend drawing them as they go (each
/// decision for every document of a topic, against the documents a walk examines).
pub const MIN_SHARING: usize = 4;

/// The click and mark decisions of users `users` on every document of every topic of a world
/// under one pair of grade tables.
#[derive(Debug, Clone, PartialEq)]
pub struct Decisions {
    /// The tables the decisions were made with.
    tables: GradeTables,
    users: Range<u64>,
    /// Per topic: one row of `words[t]` words per user of `users`, in user order.
    rows: Vec<Vec<u64>>,
    words: Vec<usize>,
}

/// Whether two users with these tables make the same click and mark decisions (their stop
/// tables may differ: satisfaction is drawn in the walk).
pub fn decide_alike(a: &GradeTables, b: &GradeTables) -> bool {
    a.click == b.click && a.mark == b.mark
}

/// Words of one user's row on a topic of `docs` documents (two bits per document).
fn words_of(docs: usize) -> usize {
    docs.div_ceil(32)
}

impl Decisions {
    /// Bits the decisions of `users` users on `world` take.
    pub fn bits(world: &World, users: u64) -> u64 {
        let words: u64 = world.topics.iter().map(|t| words_of(t.grades.len()) as u64).sum();
        words.saturating_mul(64).saturating_mul(users)
    }

    /// Makes the decisions of `users` on every topic of `world` with `tables` (in parallel over
    /// topics): bit `2 d` of a row says whether the user clicks document `d` when examining it,
    /// bit `2 d + 1` whether the user marks it when reading it, exactly as the walk decides.
    /// Takes [`Decisions::bits`] of memory: the engine bounds it by [`MAX_BITS`].
    pub fn new(world: &World, seed: u64, tables: &GradeTables, users: Range<u64>) -> Self {
        let rows: Vec<Vec<u64>> = world
            .topics
            .par_iter()
            .map(|topic| {
                let tk = topic_key(seed, hash_str(&topic.id));
                let w = words_of(topic.grades.len());
                let mut row = vec![0u64; w * (users.end - users.start) as usize];
                for (j, u) in users.clone().enumerate() {
                    let key = user_key(tk, u);
                    let out = &mut row[j * w..(j + 1) * w];
                    for (d, &g) in topic.grades.iter().enumerate() {
                        let dk = item_key_fast(key, d as u64);
                        let c = click_decision(by_grade(&tables.click, g), dk);
                        let m = mark_decision(by_grade(&tables.mark, g), dk);
                        out[d >> 5] |= (u64::from(c) | u64::from(m) << 1) << ((d & 31) << 1);
                    }
                }
                row
            })
            .collect();
        let words = world.topics.iter().map(|t| words_of(t.grades.len())).collect();
        Decisions { tables: tables.clone(), users, rows, words }
    }

    /// Whether the decisions were made with tables that decide as `tables` do.
    pub fn fits(&self, tables: &GradeTables) -> bool {
        decide_alike(&self.tables, tables)
    }

    /// The decisions of `user` on topic `topic` (`None` for a user outside the range).
    #[inline]
    pub fn row(&self, topic: usize, user: u64) -> Option<Decided<'_>> {
        if !self.users.contains(&user) {
            return None;
        }
        let w = self.words[topic];
        let j = (user - self.users.start) as usize;
        Some(Decided(&self.rows[topic][j * w..(j + 1) * w]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{derive_key, item_key, mix64, unit};

    #[test]
    fn decisions_are_the_walks_draws() {
        // Reference: the module docs of `walk` (session key `derive_key(seed, [topic hash,
        // user])`, document key `item_key(key, doc)`, click `unit(mix64(dk ^ 1)) < P(click)`,
        // mark `unit(mix64(dk ^ 2)) < P(mark)` drawn only for 0 < P(mark) < 1), computed here
        // with the reference `item_key` rather than the engine's and walk's fast paths.
        let c = crate::collection::synthetic::SyntheticConfig { topics: 3, docs_per_topic: 70, ..Default::default() }.generate().unwrap();
        let world = World::from_collection(&c);
        let tables = GradeTables { click: vec![0.3, 0.6, 0.9], stop: vec![0.0], mark: vec![0.0, 0.5, 1.0] };
        let seed = 11;
        let d = Decisions::new(&world, seed, &tables, 5..9);
        let (mut clicks, mut marks) = (0, 0);
        for (t, topic) in world.topics.iter().enumerate() {
            for u in 5..9 {
                let row = d.row(t, u).expect("user in range");
                assert_eq!(row.0.len(), topic.grades.len().div_ceil(32));
                let key = derive_key(seed, &[hash_str(&topic.id), u]);
                for (doc, &g) in topic.grades.iter().enumerate() {
                    let dk = item_key(key, doc as u64);
                    let pm = by_grade(&tables.mark, g);
                    let click = unit(mix64(dk ^ 1)) < by_grade(&tables.click, g);
                    let mark = pm >= 1.0 || (pm > 0.0 && unit(mix64(dk ^ 2)) < pm);
                    let bits = row.0[doc / 32] >> (2 * (doc % 32)) & 3;
                    assert_eq!(bits, u64::from(click) + 2 * u64::from(mark), "topic {t} user {u} doc {doc}");
                    clicks += usize::from(click);
                    marks += usize::from(mark);
                }
            }
        }
        // Both kinds of decision occur both ways (the comparison above is not of zeros).
        let n = 4 * world.topics.iter().map(|t| t.grades.len()).sum::<usize>();
        assert!(clicks > 0 && clicks < n && marks > 0 && marks < n, "{clicks} clicks, {marks} marks of {n}");
        assert!(d.row(0, 4).is_none() && d.row(0, 9).is_none(), "users outside the range have no row");
        assert!(d.fits(&GradeTables { stop: vec![0.7], ..tables.clone() }), "the stop table is not decided here");
        assert!(!d.fits(&GradeTables { mark: vec![0.0, 0.5, 0.9], ..tables }));
    }

    #[test]
    fn bits_count_two_per_document_in_whole_words() {
        // Hand derivation: topics of 70 documents take ceil(70 / 32) = 3 words (192 bits) per
        // user; 3 topics and 4 users: 3 * 192 * 4 = 2,304 bits.
        let c = crate::collection::synthetic::SyntheticConfig { topics: 3, docs_per_topic: 70, ..Default::default() }.generate().unwrap();
        let world = World::from_collection(&c);
        assert!(world.topics.iter().all(|t| t.grades.len() == 70));
        assert_eq!(Decisions::bits(&world, 4), 2_304);
        assert_eq!(Decisions::bits(&world, u64::MAX), u64::MAX, "saturates instead of wrapping");
    }
}
