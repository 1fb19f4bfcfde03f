//! A fitted model whose pairs never seen in training take given values (the means of fitted
//! priors) instead of 0.5.
//!
//! The inner model holds its per-pair parameters for pair indices `0..known`, plus one extra
//! slot at index `known` that holds the unseen values. Every pair index at or above `known`
//! (pairs interned after fitting, and `u32::MAX` for pairs unknown to a scenario) is mapped
//! to that slot before the inner model sees it.

use super::table::ParamTable;
use super::{ClickModel, ModelKind};
use crate::logs::SessionRef;
use crate::rng::Stream;

/// See the module docs.
#[derive(Debug)]
pub struct WithUnseen {
    inner: Box<dyn ClickModel>,
    known: u32,
    unseen: Vec<(String, f64)>,
}

impl WithUnseen {
    /// Wraps `inner`, whose per-pair vectors have length `known + 1` with the unseen values
    /// (`unseen`, by parameter name) in the last slot.
    pub fn new(inner: Box<dyn ClickModel>, known: u32, unseen: Vec<(String, f64)>) -> Self {
        WithUnseen { inner, known, unseen }
    }

    /// Pairs the inner model knows (indices `0..known`).
    pub fn known(&self) -> u32 {
        self.known
    }

    /// The values of unseen pairs, by parameter.
    pub fn unseen(&self) -> &[(String, f64)] {
        &self.unseen
    }

    #[inline]
    fn with_mapped<R>(&self, pairs: &[u32], f: impl FnOnce(&[u32]) -> R) -> R {
        if pairs.iter().all(|&p| p < self.known) {
            return f(pairs);
        }
        let k = self.known;
        let mut stack = [0u32; 32];
        if pairs.len() <= stack.len() {
            for (s, &p) in stack.iter_mut().zip(pairs) {
                *s = p.min(k);
            }
            f(&stack[..pairs.len()])
        } else {
            let v: Vec<u32> = pairs.iter().map(|&p| p.min(k)).collect();
            f(&v)
        }
    }
}

impl ClickModel for WithUnseen {
    fn kind(&self) -> ModelKind {
        self.inner.kind()
    }

    fn click_probs(&self, pairs: &[u32], out: &mut Vec<f64>) {
        self.with_mapped(pairs, |p| self.inner.click_probs(p, out))
    }

    fn observed_probs(&self, s: SessionRef<'_>, out: &mut Vec<f64>) {
        self.with_mapped(s.pairs, |p| self.inner.observed_probs(SessionRef { query: s.query, pairs: p, clicks: s.clicks }, out))
    }

    fn relevance(&self, pair: u32) -> f64 {
        self.inner.relevance(pair.min(self.known))
    }

    fn simulate(&self, pairs: &[u32], rng: &mut Stream, clicks: &mut Vec<bool>) {
        self.with_mapped(pairs, |p| self.inner.simulate(p, rng, clicks))
    }

    fn to_table(&self) -> ParamTable {
        let mut t = self.inner.to_table();
        for (_, v) in t.pairs.iter_mut() {
            v.truncate(self.known as usize);
        }
        t.unseen = self.unseen.clone();
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clickmodels::Dbn;

    #[test]
    fn unseen_pairs_take_the_slot_values() {
        // Two known pairs, slot 2 holds a = 0.2, s = 0.3 for every unseen pair.
        let inner = Dbn { attractiveness: vec![0.9, 0.1, 0.2], satisfaction: vec![0.5, 0.5, 0.3], gamma: 0.8 };
        let m = WithUnseen::new(Box::new(inner), 2, vec![("attractiveness".into(), 0.2), ("satisfaction".into(), 0.3)]);
        assert_eq!(m.relevance(7), 0.2 * 0.3);
        assert_eq!(m.relevance(u32::MAX), 0.2 * 0.3);
        assert_eq!(m.relevance(0), 0.9 * 0.5);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        m.click_probs(&[5, 0, u32::MAX], &mut a);
        m.inner.click_probs(&[2, 0, 2], &mut b);
        assert_eq!(a, b);
        // Long SERPs take the heap path.
        let long: Vec<u32> = (0..40).collect();
        let mapped: Vec<u32> = (0..40).map(|p: u32| p.min(2)).collect();
        m.click_probs(&long, &mut a);
        m.inner.click_probs(&mapped, &mut b);
        assert_eq!(a, b);
        let t = m.to_table();
        assert_eq!(t.pairs[0].1, vec![0.9, 0.1]);
        assert_eq!(t.unseen[1], ("satisfaction".to_string(), 0.3));
    }
}
