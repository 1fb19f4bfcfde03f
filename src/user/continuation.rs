//! Continuation: the probability of going on from rank r to rank r + 1.

use crate::error::{check_non_negative, check_probability, Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

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
        /// Number of results examined.
        depth: usize,
    },
    /// RBP-style persistence: continue with probability `p` at every rank.
    Rbp {
        /// Persistence.
        p: f64,
    },
    /// Rank-specific continuation p_r = exp(-lambda r).
    Exponential {
        /// Decay rate lambda >= 0.
        lambda: f64,
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
    },
}

impl Continuation for ContinuationModel {
    #[inline]
    fn continue_prob(&self, rank: usize) -> f64 {
        match self {
            ContinuationModel::Fixed { depth } => f64::from(u8::from(rank < *depth)),
            ContinuationModel::Rbp { p } => *p,
            ContinuationModel::Exponential { lambda } => (-lambda * rank as f64).exp(),
            ContinuationModel::Empirical { p, .. } => p.get(rank - 1).copied().unwrap_or(0.0),
        }
    }
}

impl ContinuationModel {
    /// Checks parameters; errors name `key`.
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        match self {
            ContinuationModel::Fixed { depth } if *depth == 0 => {
                Err(Error::config(context, format!("{key}.depth"), "must be at least 1"))
            }
            ContinuationModel::Fixed { .. } => Ok(()),
            ContinuationModel::Rbp { p } => check_probability(context, &format!("{key}.p"), *p),
            ContinuationModel::Exponential { lambda } => check_non_negative(context, &format!("{key}.lambda"), *lambda),
            ContinuationModel::Empirical { p, file } => {
                if p.is_empty() && file.is_none() {
                    return Err(Error::config(context, format!("{key}.p"), "the table must not be empty (give `p` or a CSV `file`)"));
                }
                p.iter().enumerate().try_for_each(|(i, &v)| check_probability(context, &format!("{key}.p[{i}]"), v))
            }
        }
    }

    /// Loads the CSV table of an `Empirical` model that names a `file` (relative to `base`).
    pub fn resolve_files(&mut self, base: &Path) -> Result<()> {
        if let ContinuationModel::Empirical { p, file: Some(f) } = self {
            if p.is_empty() {
                let path = base.join(&*f);
                *self = Self::empirical_from_csv(&path)?;
            }
        }
        Ok(())
    }

    /// Loads an empirical table from CSV with columns `rank,p` (header required, ranks 1..n in order).
    pub fn empirical_from_csv(path: &Path) -> Result<Self> {
        let file = path.display().to_string();
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_path(path)
            .map_err(|e| Error::Invalid(format!("{file}: {e}")))?;
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
        Ok(ContinuationModel::Empirical { p, file: Some(path.to_path_buf()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_give_documented_probabilities() {
        assert_eq!(ContinuationModel::Fixed { depth: 3 }.continue_prob(2), 1.0);
        assert_eq!(ContinuationModel::Fixed { depth: 3 }.continue_prob(3), 0.0);
        assert!((ContinuationModel::Exponential { lambda: 0.5 }.continue_prob(2) - (-1f64).exp()).abs() < 1e-15);
        let e = ContinuationModel::Empirical { p: vec![0.9, 0.5], file: None };
        assert_eq!((e.continue_prob(2), e.continue_prob(3)), (0.5, 0.0));
    }

    #[test]
    fn csv_table_errors_carry_line_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("p.csv");
        std::fs::write(&f, "rank,p\n1,0.9\n2,1.2\n").unwrap();
        let err = ContinuationModel::empirical_from_csv(&f).unwrap_err().to_string();
        assert!(err.contains("p.csv:3:") && err.contains("outside"), "{err}");
        std::fs::write(&f, "rank,p\n1,0.9\n2,0.4\n").unwrap();
        assert_eq!(ContinuationModel::empirical_from_csv(&f).unwrap().continue_prob(2), 0.4);
    }
}
