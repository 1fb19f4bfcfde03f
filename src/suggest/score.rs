//! Term scorers and reranking by mean term score.

use super::features::{SessionFeatures, TermFeatures};
use crate::error::{Error, Result};
use serde::Serialize;

/// A way to order a session's candidate suggestions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum Model {
    /// The engine's original order.
    Api,
    /// Gaze-Length-Filter: tf(w, c_A) idf(w, C) (LA(w) + SA(w)).
    Glf,
    /// TAM(w) = alpha F(w) + (1 - alpha) D(w).
    Tam {
        /// Weight of attention frequency.
        alpha: f64,
    },
    /// TAM-R(w) = l LCH(w) + f F(w) + d D(w).
    TamR {
        /// Weight of relatedness.
        l: f64,
        /// Weight of attention frequency.
        f: f64,
        /// Weight of attention duration.
        d: f64,
    },
}

impl Model {
    /// TAM with a checked alpha in [0, 1].
    pub fn tam(alpha: f64) -> Result<Model> {
        crate::error::check_probability("parameters", "alpha", alpha)?;
        Ok(Model::Tam { alpha })
    }

    /// TAM-R with checked weights: each in [0, 1], summing to 1 (within 1e-9).
    pub fn tam_r(l: f64, f: f64, d: f64) -> Result<Model> {
        for (k, v) in [("l", l), ("f", f), ("d", d)] {
            crate::error::check_probability("parameters", &format!("weights.{k}"), v)?;
        }
        if ((l + f + d) - 1.0).abs() > 1e-9 {
            return Err(Error::config("parameters", "weights", format!("l + f + d = {} must be 1", l + f + d)));
        }
        Ok(Model::TamR { l, f, d })
    }

    /// Short name as in Table 9.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Api => "API",
            Model::Glf => "GLF",
            Model::Tam { .. } => "TAM",
            Model::TamR { .. } => "TAM-R",
        }
    }

    /// Parameters in text form (`alpha=0.5`, `l=0.3,f=0.5,d=0.2`).
    pub fn params(&self) -> String {
        match self {
            Model::Api | Model::Glf => String::new(),
            Model::Tam { alpha } => format!("alpha={alpha:.1}"),
            Model::TamR { l, f, d } => format!("l={l:.1},f={f:.1},d={d:.1}"),
        }
    }

    /// Score of one term.
    #[inline]
    pub fn term_score(&self, t: &TermFeatures) -> f64 {
        match *self {
            Model::Api => 0.0,
            Model::Glf => t.glf,
            Model::Tam { alpha } => alpha * t.f + (1.0 - alpha) * t.d,
            Model::TamR { l, f, d } => l * t.lch + f * t.f + d * t.d,
        }
    }

    /// Score of each candidate: the mean of its terms' scores (0 without content terms).
    pub fn candidate_scores(&self, s: &SessionFeatures) -> Vec<f64> {
        s.terms.iter().map(|ts| if ts.is_empty() { 0.0 } else { ts.iter().map(|t| self.term_score(t)).sum::<f64>() / ts.len() as f64 }).collect()
    }

    /// Candidate indices by decreasing score; ties keep the engine's order.
    pub fn rerank(&self, s: &SessionFeatures) -> Vec<usize> {
        let scores = self.candidate_scores(s);
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        order
    }

    /// Reciprocal rank of candidate `accepted` after reranking.
    pub fn reciprocal_rank(&self, s: &SessionFeatures, accepted: usize) -> f64 {
        let rank = self.rerank(s).iter().position(|&c| c == accepted).map_or(0, |p| p + 1);
        if rank == 0 {
            0.0
        } else {
            1.0 / rank as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(f: f64, d: f64, glf: f64, lch: f64) -> TermFeatures {
        TermFeatures { f, d, glf, lch }
    }

    #[test]
    fn mean_term_score_and_stable_ties() {
        // Candidate 0: terms (0.2, 0.4) under TAM alpha=0.5 -> 0.3 each mean 0.3.
        // Candidate 1: no attention -> 0. Candidate 2: one term F=1, D=0 -> 0.5.
        let s = SessionFeatures {
            terms: vec![vec![t(0.2, 0.4, 0.0, 0.0), t(0.4, 0.2, 0.0, 0.0)], vec![t(0.0, 0.0, 1.0, 0.0)], vec![t(1.0, 0.0, 0.0, 0.0)], vec![]],
        };
        let m = Model::tam(0.5).unwrap();
        let sc = m.candidate_scores(&s);
        assert!((sc[0] - 0.3).abs() < 1e-12 && sc[1] == 0.0 && (sc[2] - 0.5).abs() < 1e-12 && sc[3] == 0.0);
        assert_eq!(m.rerank(&s), vec![2, 0, 1, 3]); // 1 and 3 tie: engine order kept
        assert_eq!(Model::Api.rerank(&s), vec![0, 1, 2, 3]);
        assert_eq!(Model::Glf.rerank(&s), vec![1, 0, 2, 3]);
        assert!((m.reciprocal_rank(&s, 0) - 0.5).abs() < 1e-12);
        let r = Model::tam_r(1.0, 0.0, 0.0).unwrap();
        assert_eq!(r.candidate_scores(&s), vec![0.0; 4]);
    }

    #[test]
    fn weights_are_checked() {
        assert!(Model::tam_r(0.3, 0.5, 0.2).is_ok());
        let e = Model::tam_r(0.3, 0.5, 0.3).unwrap_err().to_string();
        assert!(e.contains("weights") && e.contains("must be 1"), "{e}");
        assert!(Model::tam_r(-0.1, 0.6, 0.5).unwrap_err().to_string().contains("weights.l"));
        assert!(Model::tam(f64::NAN).is_err());
    }
}
