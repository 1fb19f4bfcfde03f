//! Evaluation: reciprocal rank (RR) of the accepted suggestion, MRR and RR variance over the
//! sessions with an accepted suggestion, weight sweeps, Wilcoxon signed-rank tests of RR against
//! the engine's order (and GLF), and the paper's Table 9.

use super::features::{session_features, Idf, SessionFeatures};
use super::score::Model;
use super::Session;
use crate::stats::{mean, wilcoxon_signed_rank, SignedRank};
use crate::wordnet::Similarity;
use serde::Serialize;

/// Sessions with an accepted suggestion, their features, and the accepted candidate.
#[derive(Debug, Clone)]
pub struct AcceptedSessions {
    /// Session ids.
    pub ids: Vec<String>,
    /// Features per session.
    pub features: Vec<SessionFeatures>,
    /// Index of the accepted candidate (engine order) per session.
    pub accepted: Vec<usize>,
    /// Sessions left out because nothing was accepted.
    pub skipped: usize,
}

/// Computes features for every session with an accepted suggestion. idf uses all sessions.
pub fn prepare(sessions: &[Session], mut sim: Option<&mut Similarity<'_>>, progress: &dyn Fn(u64, u64)) -> AcceptedSessions {
    let idf = Idf::from_sessions(sessions);
    let mut p = AcceptedSessions { ids: Vec::new(), features: Vec::new(), accepted: Vec::new(), skipped: 0 };
    for (i, s) in sessions.iter().enumerate() {
        match s.accepted {
            Some(a) => {
                p.features.push(session_features(s, &idf, sim.as_deref_mut()));
                p.accepted.push(a);
                p.ids.push(s.id.clone());
            }
            None => p.skipped += 1,
        }
        progress(i as u64 + 1, sessions.len() as u64);
    }
    p
}

/// RR of the accepted suggestion in every prepared session under `model`.
pub fn reciprocal_ranks(p: &AcceptedSessions, model: &Model) -> Vec<f64> {
    p.features.iter().zip(&p.accepted).map(|(f, &a)| model.reciprocal_rank(f, a)).collect()
}

/// Mean of `rr` (0 for none).
pub fn mrr(rr: &[f64]) -> f64 {
    if rr.is_empty() {
        0.0
    } else {
        mean(rr)
    }
}

/// Sample variance (n - 1 denominator) of `rr`; 0 for fewer than two values.
pub fn variance(rr: &[f64]) -> f64 {
    if rr.len() < 2 {
        return 0.0;
    }
    let m = mean(rr);
    rr.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (rr.len() - 1) as f64
}

/// Sweeps TAM's alpha over 0, 0.1, ..., 1; returns the best model and its MRR
/// (ties: the smallest alpha).
pub fn sweep_tam(p: &AcceptedSessions) -> (Model, f64) {
    best_of((0..=10).map(|i| Model::Tam { alpha: i as f64 / 10.0 }), p)
}

/// The TAM-R weight grid: (l, f, d) in steps of 0.1 with l + f + d = 1 (66 points), l outer.
pub fn tam_r_grid() -> Vec<Model> {
    let mut out = Vec::new();
    for i in 0..=10u32 {
        for j in 0..=(10 - i) {
            let k = 10 - i - j;
            out.push(Model::TamR { l: i as f64 / 10.0, f: j as f64 / 10.0, d: k as f64 / 10.0 });
        }
    }
    out
}

/// Sweeps TAM-R's weights over [`tam_r_grid`]. The paper calls its sweep greedy; with 66
/// points every one is evaluated, so the result is the best on the grid (ties: first in grid
/// order). Returns the best model, its MRR and the MRR of every grid point.
pub fn sweep_tam_r(p: &AcceptedSessions) -> (Model, f64, Vec<(Model, f64)>) {
    let all: Vec<(Model, f64)> = tam_r_grid().into_iter().map(|m| (m, mrr(&reciprocal_ranks(p, &m)))).collect();
    let (m, v) = all.iter().fold((all[0].0, f64::NEG_INFINITY), |acc, &(m, v)| if v > acc.1 { (m, v) } else { acc });
    (m, v, all)
}

fn best_of(models: impl Iterator<Item = Model>, p: &AcceptedSessions) -> (Model, f64) {
    let mut best = (Model::Api, f64::NEG_INFINITY);
    for m in models {
        let v = mrr(&reciprocal_ranks(p, &m));
        if v > best.1 {
            best = (m, v);
        }
    }
    best
}

/// One row of Table 9.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The model and its parameters.
    pub model: Model,
    /// Sessions evaluated.
    pub n: usize,
    /// Mean reciprocal rank.
    pub mrr: f64,
    /// Sample variance of RR.
    pub rr_variance: f64,
    /// Sample standard deviation of RR.
    pub rr_sd: f64,
    /// Wilcoxon signed-rank test of RR against the engine's order (None for the API row).
    pub vs_api: Option<SignedRank>,
    /// Wilcoxon signed-rank test of RR against GLF (TAM and TAM-R rows).
    pub vs_glf: Option<SignedRank>,
}

/// Table 9 for `models` (API first is added when missing), with tests against API and GLF.
pub fn table9(p: &AcceptedSessions, models: &[Model]) -> Vec<Row> {
    let api = reciprocal_ranks(p, &Model::Api);
    let glf = reciprocal_ranks(p, &Model::Glf);
    let mut list = vec![Model::Api];
    list.extend(models.iter().copied().filter(|m| *m != Model::Api));
    list.into_iter()
        .map(|m| {
            let rr = reciprocal_ranks(p, &m);
            let var = variance(&rr);
            Row {
                model: m,
                n: rr.len(),
                mrr: mrr(&rr),
                rr_variance: var,
                rr_sd: var.sqrt(),
                vs_api: (m != Model::Api).then(|| wilcoxon_signed_rank(&rr, &api)),
                vs_glf: matches!(m, Model::Tam { .. } | Model::TamR { .. }).then(|| wilcoxon_signed_rank(&rr, &glf)),
            }
        })
        .collect()
}

/// Table 9 as Markdown: `*` marks a significant improvement over API, `†` over GLF
/// (two-sided Wilcoxon p < `level` and higher MRR).
pub fn table9_markdown(rows: &[Row], level: f64) -> String {
    let mut s = String::from("| Method | Parameters | MRR | RR variance | RR sd | n | p vs API | p vs GLF |\n|---|---|---|---|---|---|---|---|\n");
    let api_mrr = rows.iter().find(|r| r.model == Model::Api).map_or(0.0, |r| r.mrr);
    let glf_mrr = rows.iter().find(|r| r.model == Model::Glf).map(|r| r.mrr);
    for r in rows {
        let mut mark = String::new();
        if let Some(t) = &r.vs_api {
            if t.p_value < level && r.mrr > api_mrr {
                mark.push('*');
            }
        }
        if let (Some(t), Some(g)) = (&r.vs_glf, glf_mrr) {
            if t.p_value < level && r.mrr > g {
                mark.push('†');
            }
        }
        let p = |t: &Option<SignedRank>| t.as_ref().map_or("".to_string(), |t| format!("{:.3e}", t.p_value));
        let name = match r.model {
            Model::Api => "API output",
            Model::Glf => "Gaze-Length-Filter (GLF)",
            Model::Tam { .. } => "Term-Attention-Model (TAM)",
            Model::TamR { .. } => "Term-Attention-Model + Relatedness (TAM-R)",
        };
        s.push_str(&format!(
            "| {name} | {} | {:.4}{mark} | {:.4} | {:.4} | {} | {} | {} |\n",
            r.model.params(),
            r.mrr,
            r.rr_variance,
            r.rr_sd,
            r.n,
            p(&r.vs_api),
            p(&r.vs_glf)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suggest::features::TermFeatures;

    #[test]
    fn grid_has_66_points_summing_to_one() {
        let g = tam_r_grid();
        assert_eq!(g.len(), 66);
        for m in g {
            let Model::TamR { l, f, d } = m else { panic!() };
            assert!((l + f + d - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn mrr_variance_and_table() {
        // Three sessions of two candidates; attention favours candidate 1 in sessions 0 and 1.
        let tf = |f: f64| vec![TermFeatures { f, d: f, glf: 0.0, lch: 0.0 }];
        let p = AcceptedSessions {
            ids: vec!["a".into(), "b".into(), "c".into()],
            features: vec![
                SessionFeatures { terms: vec![tf(0.1), tf(0.9)] },
                SessionFeatures { terms: vec![tf(0.1), tf(0.9)] },
                SessionFeatures { terms: vec![tf(0.9), tf(0.1)] },
            ],
            accepted: vec![1, 1, 1],
            skipped: 0,
        };
        // API: RR = 0.5, 0.5, 0.5. TAM: 1, 1, 0.5 -> MRR 5/6, variance of (1,1,.5) = 1/12.
        assert_eq!(reciprocal_ranks(&p, &Model::Api), vec![0.5; 3]);
        let rows = table9(&p, &[Model::Tam { alpha: 0.5 }]);
        assert_eq!(rows.len(), 2);
        assert!((rows[1].mrr - 5.0 / 6.0).abs() < 1e-12);
        assert!((rows[1].rr_variance - 1.0 / 12.0).abs() < 1e-12);
        let t = rows[1].vs_api.as_ref().unwrap();
        assert_eq!((t.n, t.statistic), (2, 3.0)); // two non-zero differences, both positive
        let md = table9_markdown(&rows, 0.05);
        assert!(md.contains("| API output |") && md.contains("0.8333"), "{md}");
        assert!(!md.contains('*'), "n = 2 cannot be significant: {md}");
        let (best, v) = sweep_tam(&p);
        assert_eq!(best, Model::Tam { alpha: 0.0 });
        assert!((v - 5.0 / 6.0).abs() < 1e-12);
    }
}
