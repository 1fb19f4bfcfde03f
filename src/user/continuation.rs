//! Continuation: the probability of going on from rank r to rank r + 1.
//!
//! A continuation decision is drawn before every result of a list except the first one of a
//! list visit (the start of a query, or the first result after a sublist switch): having
//! examined rank r, the user goes on with `continue_prob(r)`. What a failed decision means
//! depends on the user's sublist policy: stop the query (a cascade user), or switch to another
//! sublist (He et al.'s user).

use super::param::{Param, Support};
use crate::error::{check_probability, Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// Decides whether a user who has just examined rank `rank` (1-based) looks at the next one.
pub trait Continuation {
    /// P(continue to rank + 1 | examined rank).
    fn continue_prob(&self, rank: usize) -> f64;
}

/// The continuation models of the scenario schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum ContinuationModel {
    /// Examine exactly `depth` results (fewer if the list is shorter).
    Fixed {
        /// Number of results examined (a count; may be a distribution over users).
        depth: Param,
    },
    /// RBP-style persistence: continue with probability `p` at every rank.
    Rbp {
        /// Persistence (may be a distribution over users, e.g. Beta(8, 2)).
        p: Param,
    },
    /// Rank-specific continuation p_r = exp(-lambda r).
    Exponential {
        /// Decay rate lambda >= 0 (may be a distribution over users).
        lambda: Param,
        /// Which rank r is: the one just examined (default), or the one about to be examined
        /// (`"next"`, He et al.'s Eq. 3, where p_r is the probability of going on to rank r).
        #[serde(default, skip_serializing_if = "RankOf::is_examined")]
        rank_of: RankOf,
    },
    /// An empirical table: `p[r - 1]` is P(continue | examined rank r); 0 beyond the table.
    /// In a scenario file the table is given inline as `p`, or as a CSV `file` (`rank,p`).
    Empirical {
        /// Continuation probabilities by rank.
        #[serde(default)]
        p: Vec<f64>,
        /// CSV file the table was (or is to be) loaded from, relative to the scenario file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file: Option<std::path::PathBuf>,
        /// Which rank the table is indexed by (as for `exponential`).
        #[serde(default, skip_serializing_if = "RankOf::is_examined")]
        rank_of: RankOf,
    },
    /// The click model's own examination and continuation (e.g. the DBN's gamma); only valid
    /// with a `click_model`, and its default there.
    ClickModel,
}

/// Which rank a rank-dependent continuation is indexed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RankOf {
    /// p_r is the probability of going on after examining rank r.
    #[default]
    Examined,
    /// p_r is the probability of going on to rank r (He et al.).
    Next,
}

impl RankOf {
    fn is_examined(&self) -> bool {
        *self == RankOf::Examined
    }
    fn offset(self) -> usize {
        match self {
            RankOf::Examined => 0,
            RankOf::Next => 1,
        }
    }
}

/// A continuation model with every parameter resolved for one user: what the walk reads.
#[derive(Debug, Clone, PartialEq)]
pub enum Cont {
    /// Examine exactly this many results per list visit.
    Fixed(usize),
    /// Constant persistence.
    Rbp(f64),
    /// exp(-lambda (r + offset)).
    Exponential(f64, usize),
    /// `p[r - 1 + offset]`, 0 beyond the table.
    Table(Arc<[f64]>, usize),
    /// The click model's own continuation.
    ClickModel,
}

impl Continuation for Cont {
    #[inline]
    fn continue_prob(&self, rank: usize) -> f64 {
        match self {
            Cont::Fixed(depth) => f64::from(u8::from(rank < *depth)),
            Cont::Rbp(p) => *p,
            Cont::Exponential(lambda, off) => (-lambda * (rank + off) as f64).exp(),
            Cont::Table(p, off) => p.get((rank + off).wrapping_sub(1)).copied().unwrap_or(0.0),
            Cont::ClickModel => 1.0,
        }
    }
}

/// Path ids of the continuation parameters under a profile's `continuation` key.
#[derive(Debug, Clone, Copy)]
pub struct ContPaths {
    depth: u64,
    p: u64,
    lambda: u64,
}

impl ContPaths {
    /// Path ids under `prefix` (e.g. `continuation`).
    pub fn new(prefix: &str) -> Self {
        let id = |k: &str| super::param::path_id(&format!("{prefix}.{k}"));
        ContPaths { depth: id("depth"), p: id("p"), lambda: id("lambda") }
    }
}

impl ContinuationModel {
    /// Checks parameters; errors name `key`.
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        match self {
            ContinuationModel::Fixed { depth } => depth.validate(context, &format!("{key}.depth"), Support::Count),
            ContinuationModel::Rbp { p } => p.validate(context, &format!("{key}.p"), Support::Probability),
            ContinuationModel::Exponential { lambda, .. } => lambda.validate(context, &format!("{key}.lambda"), Support::NonNegative),
            ContinuationModel::Empirical { p, file, .. } => {
                if p.is_empty() && file.is_none() {
                    return Err(Error::config(context, format!("{key}.p"), "the table must not be empty (give `p` or a CSV `file`)"));
                }
                p.iter().enumerate().try_for_each(|(i, &v)| check_probability(context, &format!("{key}.p[{i}]"), v))
            }
            ContinuationModel::ClickModel => Ok(()),
        }
    }

    /// The model for user `user` (distributions drawn; see [`super::param`]).
    pub fn resolve(&self, seed: u64, user: u64, paths: &ContPaths) -> Cont {
        match self {
            ContinuationModel::Fixed { depth } => Cont::Fixed(depth.value(seed, paths.depth, user, Support::Count) as usize),
            ContinuationModel::Rbp { p } => Cont::Rbp(p.value(seed, paths.p, user, Support::Probability)),
            ContinuationModel::Exponential { lambda, rank_of } => {
                Cont::Exponential(lambda.value(seed, paths.lambda, user, Support::NonNegative), rank_of.offset())
            }
            ContinuationModel::Empirical { p, rank_of, .. } => Cont::Table(p.clone().into(), rank_of.offset()),
            ContinuationModel::ClickModel => Cont::ClickModel,
        }
    }

    /// True when some parameter is a distribution over users.
    pub fn varies(&self) -> bool {
        match self {
            ContinuationModel::Fixed { depth: x } | ContinuationModel::Rbp { p: x } | ContinuationModel::Exponential { lambda: x, .. } => x.fixed().is_none(),
            _ => false,
        }
    }

    /// Loads the CSV table of an `Empirical` model that names a `file` (relative to `base`).
    pub fn resolve_files(&mut self, base: &Path) -> Result<()> {
        if let ContinuationModel::Empirical { p, file: Some(f), rank_of } = self {
            if p.is_empty() {
                let path = base.join(&*f);
                let r = *rank_of;
                *self = Self::empirical_from_csv(&path)?;
                if let ContinuationModel::Empirical { rank_of, .. } = self {
                    *rank_of = r;
                }
            }
        }
        Ok(())
    }

    /// Loads an empirical table from CSV with columns `rank,p` (header required, ranks 1..n in order).
    pub fn empirical_from_csv(path: &Path) -> Result<Self> {
        let file = path.display().to_string();
        let mut reader = csv::ReaderBuilder::new().trim(csv::Trim::All).from_path(path).map_err(|e| Error::Invalid(format!("{file}: {e}")))?;
        let headers = reader.headers().map_err(|e| Error::parse(&file, 1, e.to_string()))?.clone();
        if headers.len() != 2 || &headers[0] != "rank" || &headers[1] != "p" {
            return Err(Error::parse(&file, 1, "expected the header `rank,p`"));
        }
        let mut p = Vec::new();
        for (i, rec) in reader.records().enumerate() {
            let line = i + 2;
            let rec = rec.map_err(|e| Error::parse(&file, line, e.to_string()))?;
            let rank: usize = rec[0].parse().map_err(|_| Error::parse(&file, line, format!("rank `{}` is not a whole number", &rec[0])))?;
            if rank != p.len() + 1 {
                return Err(Error::parse(&file, line, format!("expected rank {}, found {rank}", p.len() + 1)));
            }
            let v: f64 = rec[1].parse().map_err(|_| Error::parse(&file, line, format!("`{}` is not a number", &rec[1])))?;
            if !(0.0..=1.0).contains(&v) {
                return Err(Error::parse(&file, line, format!("probability {v} is outside [0, 1]")));
            }
            p.push(v);
        }
        if p.is_empty() {
            return Err(Error::parse(&file, 2, "the table has no rows"));
        }
        Ok(ContinuationModel::Empirical { p, file: Some(path.to_path_buf()), rank_of: RankOf::Examined })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_give_documented_probabilities() {
        assert_eq!(Cont::Fixed(3).continue_prob(2), 1.0);
        assert_eq!(Cont::Fixed(3).continue_prob(3), 0.0);
        assert!((Cont::Exponential(0.5, 0).continue_prob(2) - (-1f64).exp()).abs() < 1e-15);
        // He et al.'s indexing: after rank 1, going on to rank 2 has p_2 = exp(-2 lambda).
        assert!((Cont::Exponential(0.5, 1).continue_prob(1) - (-1f64).exp()).abs() < 1e-15);
        let e = Cont::Table(vec![0.9, 0.5].into(), 0);
        assert_eq!((e.continue_prob(2), e.continue_prob(3)), (0.5, 0.0));
        assert_eq!(Cont::Table(vec![0.9, 0.5].into(), 1).continue_prob(1), 0.5);
        let paths = ContPaths::new("continuation");
        assert_eq!(ContinuationModel::Rbp { p: Param::Fixed(0.7) }.resolve(1, 2, &paths), Cont::Rbp(0.7));
    }

    #[test]
    fn csv_table_errors_carry_line_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("p.csv");
        std::fs::write(&f, "rank,p\n1,0.9\n2,1.2\n").unwrap();
        let err = ContinuationModel::empirical_from_csv(&f).unwrap_err().to_string();
        assert!(err.contains("p.csv:3:") && err.contains("outside"), "{err}");
        std::fs::write(&f, "rank,p\n1,0.9\n2,0.4\n").unwrap();
        let m = ContinuationModel::empirical_from_csv(&f).unwrap();
        assert_eq!(m.resolve(0, 0, &ContPaths::new("c")).continue_prob(2), 0.4);
    }
}
