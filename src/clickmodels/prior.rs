//! Beta priors of click-model parameters: PyClick's Beta(1, 1), or empirical-Bayes priors
//! fitted by the beta-binomial marginal likelihood ([`crate::stats::beta_binomial`]).
//!
//! A parameter table (attractiveness per pair, examination per rank, ...) gets its prior by
//! [`PriorScope`]:
//! - `uniform`: Beta(1, 1) everywhere (one pseudo-success in two pseudo-trials);
//! - `global`: one Beta fitted over every entry of the table;
//! - `query`: per-pair tables get one Beta per query, fitted over that query's pairs; a query
//!   with fewer than [`MIN_QUERY_GROUPS`] pairs with data, or whose fit fails, takes the global
//!   fit (the number of such queries is reported). Rank tables use the global fit.
//! - `hierarchical`: per-pair tables get one Beta whose (alpha, beta) are not fixed but drawn
//!   with the parameters under a hyper-prior ([`crate::clickmodels::hyper`]); only the Gibbs
//!   sampler (the latent-variable models' posteriors) takes it. Other tables keep Beta(1, 1).
//!
//! Scalars (DBN's gamma, CCM's taus, GCTR) keep Beta(1, 1): one value cannot inform a prior.

use crate::error::{Error, Result};
use crate::stats::beta_binomial::{fit_prior, BetaPrior, PriorFit};
use serde::Serialize;

/// Pairs with data a query needs for its own prior under [`PriorScope::Query`].
pub const MIN_QUERY_GROUPS: usize = 3;

/// How the priors of a model's parameter tables are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PriorScope {
    /// Beta(1, 1) (PyClick's convention).
    #[default]
    Uniform,
    /// One fitted Beta per parameter table.
    Global,
    /// One fitted Beta per query for per-pair tables; global for rank tables.
    Query,
    /// Per-pair tables: a Beta whose hyper-parameters are sampled with the parameters
    /// (Gibbs sampler only).
    Hierarchical,
}

impl std::str::FromStr for PriorScope {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "uniform" => Ok(PriorScope::Uniform),
            "global" => Ok(PriorScope::Global),
            "query" => Ok(PriorScope::Query),
            "hierarchical" => Ok(PriorScope::Hierarchical),
            _ => Err(Error::Invalid(format!("unknown prior `{s}` (expected uniform, global, query or hierarchical)"))),
        }
    }
}

impl PriorScope {
    /// Whether the prior is fitted by marginal likelihood before sampling (`global`, `query`);
    /// `uniform` is fixed and `hierarchical` is sampled with the parameters.
    pub fn is_fitted(self) -> bool {
        matches!(self, PriorScope::Global | PriorScope::Query)
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            PriorScope::Uniform => "uniform",
            PriorScope::Global => "global",
            PriorScope::Query => "query",
            PriorScope::Hierarchical => "hierarchical",
        }
    }
}

/// What a table's entries are indexed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Axis {
    /// Query-document pair.
    Pair,
    /// 0-based rank.
    Rank,
    /// (0-based rank, previous click) flattened row by row: row r has r + 1 cells.
    Matrix,
    /// A single value.
    Scalar,
}

/// One fitted group of a table's prior (the whole table, or one query).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupFit {
    /// Query index for per-query groups; `None` for the table-wide fit.
    pub query: Option<u32>,
    /// The fit.
    pub fit: PriorFit,
}

/// The prior of every entry of one table.
#[derive(Debug, Clone, PartialEq)]
pub struct TablePrior {
    /// Scope used.
    pub scope: PriorScope,
    /// Table-wide prior (the fit, or Beta(1, 1)).
    pub global: BetaPrior,
    /// The table-wide fit, when fitted.
    pub global_fit: Option<PriorFit>,
    /// Per-query priors (query index -> prior), for per-query scope on per-pair tables.
    pub per_query: Vec<Option<BetaPrior>>,
    /// Per-query fits that were made.
    pub query_fits: Vec<GroupFit>,
    /// Queries that fell back to the table-wide prior.
    pub fallbacks: usize,
}

impl TablePrior {
    /// Beta(1, 1) everywhere.
    pub fn uniform() -> Self {
        TablePrior { scope: PriorScope::Uniform, global: BetaPrior::UNIFORM, global_fit: None, per_query: Vec::new(), query_fits: Vec::new(), fallbacks: 0 }
    }

    /// The prior of entry `i` (for per-pair tables `pair_query[i]` names its query).
    #[inline]
    pub fn of(&self, i: usize, pair_query: &[u32]) -> BetaPrior {
        if self.per_query.is_empty() {
            return self.global;
        }
        pair_query.get(i).and_then(|&q| self.per_query.get(q as usize).copied().flatten()).unwrap_or(self.global)
    }

    /// Prior of a pair of query `q` that has no entry (unseen): the query's prior or the global one.
    pub fn of_query(&self, q: Option<u32>) -> BetaPrior {
        q.and_then(|q| self.per_query.get(q as usize).copied().flatten()).unwrap_or(self.global)
    }

    /// Fits the prior of a table from its entries' `(successes, failures)`.
    /// `pair_query` maps entries to queries (per-pair tables; empty otherwise).
    pub fn fit(scope: PriorScope, axis: Axis, counts: &[(f64, f64)], pair_query: &[u32]) -> Result<Self> {
        if scope == PriorScope::Uniform || axis == Axis::Scalar {
            return Ok(TablePrior::uniform());
        }
        if scope == PriorScope::Hierarchical {
            return Err(Error::Invalid(
                "the hierarchical prior is sampled with the parameters: only the latent-variable models' Gibbs sampler (dbn, ubm, pbm, ccm, or --exact) takes it; use --prior global for the counting models".into(),
            ));
        }
        if counts.iter().all(|(s, f)| s + f <= 0.0) {
            // Nothing observed: nothing to fit; keep Beta(1, 1) and say so through global_fit = None.
            return Ok(TablePrior { scope, ..TablePrior::uniform() });
        }
        let g = fit_prior(counts)?;
        let mut t = TablePrior { scope, global: g.prior, global_fit: Some(g), per_query: Vec::new(), query_fits: Vec::new(), fallbacks: 0 };
        if scope == PriorScope::Query && axis == Axis::Pair {
            // Pairs without a query (u32::MAX: absent from the log, e.g. test-only pairs of a
            // validation) have no data and take the table-wide prior.
            let nq = pair_query.iter().filter(|&&q| q != u32::MAX).map(|&q| q as usize + 1).max().unwrap_or(0);
            let mut groups: Vec<Vec<(f64, f64)>> = vec![Vec::new(); nq];
            for (i, &c) in counts.iter().enumerate() {
                if let Some(&q) = pair_query.get(i).filter(|&&q| q != u32::MAX) {
                    if c.0 + c.1 > 0.0 {
                        groups[q as usize].push(c);
                    }
                }
            }
            t.per_query = vec![None; nq];
            for (q, g) in groups.iter().enumerate() {
                if g.len() < MIN_QUERY_GROUPS {
                    t.fallbacks += usize::from(!g.is_empty());
                    continue;
                }
                match fit_prior(g) {
                    Ok(f) => {
                        t.per_query[q] = Some(f.prior);
                        t.query_fits.push(GroupFit { query: Some(q as u32), fit: f });
                    }
                    Err(_) => t.fallbacks += 1,
                }
            }
        }
        Ok(t)
    }

    /// Mean over per-query priors and the global one, for display.
    pub fn describe(&self) -> String {
        match (&self.global_fit, self.scope) {
            (_, PriorScope::Hierarchical) => format!(
                "hierarchical: Beta(alpha, beta) sampled under p(alpha, beta) ∝ (alpha + beta)^(-5/2); posterior means Beta({:.4}, {:.4})",
                self.global.alpha, self.global.beta
            ),
            (None, PriorScope::Uniform) => "Beta(1, 1)".into(),
            (None, _) => "Beta(1, 1) (no data to fit)".into(),
            (Some(f), PriorScope::Query) => format!(
                "per query: {} fitted, {} on the table-wide Beta({:.4}, {:.4}) (mean {:.4}{})",
                self.query_fits.len(),
                self.fallbacks,
                f.prior.alpha,
                f.prior.beta,
                f.prior.mean(),
                if f.at_bound { ", at the concentration bound" } else { "" }
            ),
            (Some(f), _) => format!(
                "Beta({:.4}, {:.4}) (mean {:.4}, fitted on {} entries{})",
                f.prior.alpha,
                f.prior.beta,
                f.prior.mean(),
                f.groups,
                if f.at_bound { ", at the concentration bound" } else { "" }
            ),
        }
    }
}

/// The query of every pair index seen in `log` (pairs absent from the log get `u32::MAX`).
pub fn pair_queries(log: &crate::logs::ClickLog, pairs: usize) -> Vec<u32> {
    let mut q = vec![u32::MAX; pairs];
    for s in log.iter() {
        for &p in s.pairs {
            if let Some(x) = q.get_mut(p as usize) {
                *x = s.query;
            }
        }
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes() {
        // Query 0: three pairs near 0.2; query 1: three pairs near 0.8; query 2 one pair.
        let counts = [(2.0, 8.0), (1.0, 9.0), (3.0, 7.0), (8.0, 2.0), (9.0, 1.0), (7.0, 3.0), (5.0, 5.0)];
        let pq = [0, 0, 0, 1, 1, 1, 2];
        let u = TablePrior::fit(PriorScope::Uniform, Axis::Pair, &counts, &pq).unwrap();
        assert_eq!(u.of(0, &pq), BetaPrior::UNIFORM);
        let g = TablePrior::fit(PriorScope::Global, Axis::Pair, &counts, &pq).unwrap();
        assert_eq!(g.of(0, &pq), g.of(5, &pq));
        let q = TablePrior::fit(PriorScope::Query, Axis::Pair, &counts, &pq).unwrap();
        assert!(q.of(0, &pq).mean() < 0.3 && q.of(4, &pq).mean() > 0.7, "{q:?}");
        // Query 2 has one pair with data: it falls back to the global fit.
        assert_eq!(q.fallbacks, 1);
        assert_eq!(q.of(6, &pq), g.global);
        assert_eq!(q.of_query(Some(0)), q.of(0, &pq));
        assert_eq!(q.of_query(None), g.global);
        // Pairs absent from the log (query u32::MAX) take the global prior; before the fix
        // their query index sized a table of 2^32 groups (a 103 GB allocation).
        let mut pq_unseen = pq.to_vec();
        pq_unseen.push(u32::MAX);
        let mut counts_unseen = counts.to_vec();
        counts_unseen.push((0.0, 0.0));
        let qu = TablePrior::fit(PriorScope::Query, Axis::Pair, &counts_unseen, &pq_unseen).unwrap();
        assert_eq!(qu.per_query.len(), q.per_query.len());
        assert_eq!(qu.of(counts.len(), &pq_unseen), g.global);
        // Rank tables ignore the per-query scope; scalars are never fitted.
        let r = TablePrior::fit(PriorScope::Query, Axis::Rank, &counts, &[]).unwrap();
        assert!(r.per_query.is_empty() && r.global_fit.is_some());
        assert_eq!(TablePrior::fit(PriorScope::Global, Axis::Scalar, &counts[..1], &[]).unwrap().global, BetaPrior::UNIFORM);
        assert!("flat".parse::<PriorScope>().unwrap_err().to_string().contains("uniform, global, query or hierarchical"));
        // The hierarchical prior is sampled, never fitted here: a clear refusal.
        let h = TablePrior::fit(PriorScope::Hierarchical, Axis::Pair, &counts, &pq).unwrap_err().to_string();
        assert!(h.contains("Gibbs sampler") && h.contains("--prior global"), "{h}");
    }
}
