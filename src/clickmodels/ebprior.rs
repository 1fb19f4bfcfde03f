//! Empirical-Bayes Beta priors of the per-pair tables inside the EM fit (`--prior eb`).
//!
//! PyClick's EM re-estimates a pair parameter as `(1 + num) / (2 + den)` from its expected
//! counts: a Beta(1, 1) prior, which pulls a pair seen in few sessions towards 0.5. With an
//! empirical-Bayes prior every per-pair table (DBN's attractiveness and satisfaction; UBM's,
//! PBM's and CCM's attractiveness) gets its own Beta(a, b) and the M-step is
//! `(a + num) / (a + b + den)`; pairs never seen in training (a test log's new documents)
//! take the prior mean `a / (a + b)`, which the model file keeps under `unseen`.
//!
//! **How (a, b) is fitted.** By the beta-binomial marginal likelihood of the expected counts,
//! `sum over pairs with data of ln B(num + a, den - num + b) - ln B(a, b)` (the same objective
//! as [`crate::stats::beta_binomial::fit_prior`], with fractional counts), one Newton step on
//! (ln a, ln b) per EM pass: the pass's E-step gives the counts, each pair adds its gradient
//! and Hessian terms ([`EbTerms`], exact fixed-point sums, so the step does not depend on the
//! order of the pairs, the threads or the shards), and the step gives the prior of the next
//! M-step. A point of the fit carries the prior its pairs were computed with (`used`) and the
//! one the next pass uses (`next`); the fit has converged only when the prior has settled too
//! (the last step moved ln a and ln b by at most [`SETTLED`]). The map from a point to the next
//! depends on the point only, so SQUAREM, the sharded fit and the in-memory fit take the same
//! steps; an extrapolated point keeps the prior of the last EM point.
//!
//! Every pass starts from Beta(1, 1), so the first pass is PyClick's. Scalars and rank
//! tables (gamma, taus, examination) keep Beta(1, 1): they are estimated from every session.

use super::estep::{Counts, FineSum};
use super::{ModelKind, PROB_MIN};
use crate::error::{Error, Result};
use crate::stats::beta_binomial::{trigamma, KAPPA_MAX, KAPPA_MIN};
use statrs::function::gamma::digamma;

/// The fit counts as converged only once the last prior step moved ln a and ln b by at most
/// this much.
pub const SETTLED: f64 = 1e-3;
/// Largest prior step on (ln a, ln b) per pass (Euclidean length).
const MAX_STEP: f64 = 1.0;
/// Smallest a and b (keeps every term of [`EbTerms`] within the fixed-point range).
const AB_MIN: f64 = 1e-3;
/// The first bytes of [`EbTerms::to_bytes`].
const TERMS_MAGIC: &[u8; 8] = b"SSEBTRM1";
/// Pairs with data a table needs before its prior moves from Beta(1, 1).
pub const MIN_PAIRS: u64 = 3;

/// The priors of a fit's per-pair tables (one `(a, b)` per table, in the model's table order).
#[derive(Debug, Clone, PartialEq)]
pub struct PairPrior {
    /// The prior the point's pair parameters were computed with.
    pub used: Vec<(f64, f64)>,
    /// The prior the next M-step uses (one Newton step on from `used`).
    pub next: Vec<(f64, f64)>,
}

impl PairPrior {
    /// Beta(1, 1) for `tables` tables (the start of a fit).
    pub fn uniform(tables: usize) -> Self {
        PairPrior { used: vec![(1.0, 1.0); tables], next: vec![(1.0, 1.0); tables] }
    }

    /// The value of a pair of table `t` without data under the prior used: the mean, clamped
    /// as the M-step clamps.
    pub fn mean(&self, t: usize) -> f64 {
        let (a, b) = self.used[t];
        value(a, b, 0.0, 0.0)
    }

    /// Whether the last prior step was small enough to stop ([`SETTLED`]).
    pub fn settled(&self) -> bool {
        self.used.iter().zip(&self.next).all(|(&(a, b), &(c, d))| (c.ln() - a.ln()).abs() <= SETTLED && (d.ln() - b.ln()).abs() <= SETTLED)
    }
}

/// The M-step value of a pair with expected counts `num` of `den` under Beta(a, b), clamped to
/// [PROB_MIN, 1 - PROB_MIN] as every EM value is.
#[inline]
pub fn value(a: f64, b: f64, num: f64, den: f64) -> f64 {
    ((a + num) / (a + b + den)).clamp(PROB_MIN, 1.0 - PROB_MIN)
}

/// Gradient and Hessian terms of the marginal likelihood of one table's pairs at a prior, as
/// exact sums (see the module).
#[derive(Debug, Clone, Default)]
pub struct EbTerms {
    /// Per table: d/da, d/db, d2/da2, d2/db2, d2/dadb of the pairs' terms that depend on the
    /// counts (the terms in a and a + b alone are added from the number of pairs).
    sums: Vec<[FineSum; 5]>,
    /// Per table: pairs with data.
    pairs: Vec<u64>,
}

impl EbTerms {
    /// Adds the pairs of `counts` (one per-pair table, any pair numbering) at the prior `(a, b)`.
    pub fn add(&mut self, table: usize, counts: &Counts, (a, b): (f64, f64)) {
        if self.sums.len() <= table {
            self.sums.resize(table + 1, Default::default());
            self.pairs.resize(table + 1, 0);
        }
        let s = &mut self.sums[table];
        let mut n = 0u64;
        for i in 0..counts.len() {
            let (num, den) = counts.sums(i);
            if den <= 0.0 {
                continue;
            }
            n += 1;
            let num = num.clamp(0.0, den);
            let fail = den - num;
            let dn = digamma(a + b + den);
            let tn = trigamma(a + b + den);
            s[0].add(digamma(a + num) - dn);
            s[1].add(digamma(b + fail) - dn);
            s[2].add(trigamma(a + num) - tn);
            s[3].add(trigamma(b + fail) - tn);
            s[4].add(-tn);
        }
        self.pairs[table] += n;
    }

    /// Adds another set of terms (made at the same prior).
    pub fn merge(&mut self, other: EbTerms) {
        if self.sums.len() < other.sums.len() {
            self.sums.resize(other.sums.len(), Default::default());
            self.pairs.resize(other.sums.len(), 0);
        }
        for (t, (s, n)) in other.sums.into_iter().zip(other.pairs).enumerate() {
            for (x, y) in self.sums[t].iter_mut().zip(s) {
                x.merge(y);
            }
            self.pairs[t] += n;
        }
    }

    /// A little-endian encoding, exact (for terms summed on other machines: the Spark fit).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12 + self.sums.len() * 88);
        out.extend_from_slice(TERMS_MAGIC);
        out.extend_from_slice(&(self.sums.len() as u32).to_le_bytes());
        for (s, n) in self.sums.iter().zip(&self.pairs) {
            for x in s {
                out.extend_from_slice(&x.to_bits().to_le_bytes());
            }
            out.extend_from_slice(&n.to_le_bytes());
        }
        out
    }

    /// The terms of [`EbTerms::to_bytes`]; an error for anything else.
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        let bad = || Error::Invalid("empirical-Bayes prior terms: not serpsim's encoding, or truncated".into());
        if b.len() < 12 || &b[..8] != TERMS_MAGIC {
            return Err(bad());
        }
        let n = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes")) as usize;
        if b.len() != 12 + n * 88 {
            return Err(bad());
        }
        let mut t = EbTerms { sums: Vec::with_capacity(n), pairs: Vec::with_capacity(n) };
        for rec in b[12..].chunks_exact(88) {
            let mut s = [FineSum::default(); 5];
            for (k, x) in s.iter_mut().enumerate() {
                *x = FineSum::from_bits(i128::from_le_bytes(rec[16 * k..16 * k + 16].try_into().expect("16 bytes")));
            }
            t.sums.push(s);
            t.pairs.push(u64::from_le_bytes(rec[80..88].try_into().expect("8 bytes")));
        }
        Ok(t)
    }

    /// Pairs with data in table `t`.
    pub fn pairs(&self, t: usize) -> u64 {
        self.pairs.get(t).copied().unwrap_or(0)
    }

    /// One Newton step on (ln a, ln b) per table from `prior` (the prior the terms were made
    /// at): the Newton direction when the Hessian is negative definite, the gradient direction
    /// otherwise, at most [`MAX_STEP`] long, then clamped to a, b >= 1e-3 and
    /// [`KAPPA_MIN`] <= a + b <= [`KAPPA_MAX`]. A table with fewer than [`MIN_PAIRS`] pairs with
    /// data keeps its prior.
    pub fn step(&self, prior: &[(f64, f64)]) -> Vec<(f64, f64)> {
        prior
            .iter()
            .enumerate()
            .map(|(t, &(a, b))| {
                let n = self.pairs(t);
                if n < MIN_PAIRS {
                    return (a, b);
                }
                let s = &self.sums[t];
                let k = n as f64;
                let (pab, pa, pb) = (digamma(a + b), digamma(a), digamma(b));
                let (tab, ta, tb) = (trigamma(a + b), trigamma(a), trigamma(b));
                let ga = s[0].value() + k * (pab - pa);
                let gb = s[1].value() + k * (pab - pb);
                let haa = s[2].value() + k * (tab - ta);
                let hbb = s[3].value() + k * (tab - tb);
                let hab = s[4].value() + k * tab;
                // Chain rule to (x, y) = (ln a, ln b).
                let (gx, gy) = (a * ga, b * gb);
                let (hxx, hyy, hxy) = (a * a * haa + gx, b * b * hbb + gy, a * b * hab);
                let det = hxx * hyy - hxy * hxy;
                let (mut dx, mut dy) = if hxx < 0.0 && det > 0.0 { (-(hyy * gx - hxy * gy) / det, -(hxx * gy - hxy * gx) / det) } else { (gx / k, gy / k) };
                let len = (dx * dx + dy * dy).sqrt();
                if !len.is_finite() {
                    return (a, b);
                }
                if len > MAX_STEP {
                    dx *= MAX_STEP / len;
                    dy *= MAX_STEP / len;
                }
                clamp_prior(a * dx.exp(), b * dy.exp())
            })
            .collect()
    }
}

/// A fitted prior as the model file's `fit.prior` lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TablePrior {
    /// The pair parameter (`attractiveness`, `satisfaction`).
    pub parameter: &'static str,
    /// Beta's alpha.
    pub alpha: f64,
    /// Beta's beta.
    pub beta: f64,
}

/// The pair parameters of `kind` in the order of its per-pair tables.
pub fn pair_parameters(kind: ModelKind) -> &'static [&'static str] {
    match super::registry::spec(kind).pairs {
        [] => &["attractiveness"],
        names => names,
    }
}

/// The fitted priors `prior` (one per per-pair table of `kind`), named.
pub fn table_priors(kind: ModelKind, prior: &[(f64, f64)]) -> Vec<TablePrior> {
    pair_parameters(kind).iter().zip(prior).map(|(&parameter, &(alpha, beta))| TablePrior { parameter, alpha, beta }).collect()
}

/// (a, b) within the bounds: a, b >= 1e-3, then the concentration a + b scaled into
/// [`KAPPA_MIN`], [`KAPPA_MAX`] at the same mean.
fn clamp_prior(a: f64, b: f64) -> (f64, f64) {
    let (a, b) = (a.max(AB_MIN), b.max(AB_MIN));
    let k = a + b;
    let target = k.clamp(KAPPA_MIN, KAPPA_MAX);
    if target == k {
        (a, b)
    } else {
        (a / k * target, b / k * target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::beta_binomial::fit_prior;

    /// Counts of one table from whole (successes, trials).
    fn counts(groups: &[(f64, f64)]) -> Counts {
        let mut c = Counts::default();
        for (i, &(s, n)) in groups.iter().enumerate() {
            c.add(i, s, n);
        }
        c
    }

    #[test]
    fn repeated_steps_reach_the_marginal_likelihood_maximum() {
        // Independent reference: `fit_prior` (Newton with a line search on the summed
        // objective, written separately in stats::beta_binomial) on the same groups.
        let groups: Vec<(f64, f64)> = (0..400).map(|i| (((i * 37) % 11) as f64 * 0.5, 6.0 + (i % 5) as f64)).collect();
        let want = fit_prior(&groups.iter().map(|&(s, n)| (s, n - s)).collect::<Vec<_>>()).unwrap().prior;
        let c = counts(&groups);
        let mut p = vec![(1.0, 1.0)];
        for _ in 0..60 {
            let mut t = EbTerms::default();
            t.add(0, &c, p[0]);
            p = t.step(&p);
        }
        assert!((p[0].0 - want.alpha).abs() < 1e-9 * want.alpha, "{p:?} vs {want:?}");
        assert!((p[0].1 - want.beta).abs() < 1e-9 * want.beta, "{p:?} vs {want:?}");
    }

    #[test]
    fn terms_do_not_depend_on_how_the_pairs_are_split() {
        let groups: Vec<(f64, f64)> = (0..300).map(|i| ((i % 7) as f64 * 0.37, 1.0 + (i % 9) as f64)).collect();
        let mut whole = EbTerms::default();
        whole.add(0, &counts(&groups), (2.0, 3.0));
        let mut parts = EbTerms::default();
        for chunk in groups.chunks(37).rev() {
            let mut t = EbTerms::default();
            t.add(0, &counts(chunk), (2.0, 3.0));
            parts.merge(t);
        }
        assert_eq!(whole.step(&[(2.0, 3.0)]), parts.step(&[(2.0, 3.0)]));
        assert_eq!(whole.pairs(0), 300);
    }

    #[test]
    fn few_pairs_keep_the_prior_and_steps_are_bounded() {
        let mut t = EbTerms::default();
        t.add(0, &counts(&[(1.0, 1.0), (0.0, 1.0)]), (1.0, 1.0));
        assert_eq!(t.step(&[(1.0, 1.0)]), vec![(1.0, 1.0)]);
        // Every pair clicked every time: the prior mean heads for 1, one bounded step a pass.
        let mut t = EbTerms::default();
        t.add(0, &counts(&vec![(5.0, 5.0); 100]), (1.0, 1.0));
        let (a, b) = t.step(&[(1.0, 1.0)])[0];
        assert!(((a.ln()).powi(2) + (b.ln()).powi(2)).sqrt() <= MAX_STEP + 1e-12, "{a} {b}");
        assert!(a > 1.0 || b < 1.0);
    }
}
