//! A position-based model whose examination is shared by each pair of ranks (ranks 1-2, 3-4,
//! ...): half as many examination parameters as PBM. The example of
//! `docs/recipes/click-model.md`: one file (the model, its EM fit, its `SPEC`) and one line in
//! the registry (`clickmodels/mod.rs`).

use super::estep::{EStats, EmModel, Scratch, StatsShape};
use super::registry::{EmSpec, ModelSpec};
use super::table::{ModelKind, ParamTable};
use super::{draw, param, ClickModel, ModelConfig};
use crate::error::Result;
use crate::logs::SessionRef;
use crate::rng::Stream;

/// The model's name (`--model pbmpair`).
pub const KIND: ModelKind = ModelKind::new("pbmpair");

/// P(click at r) = attractiveness x examination[r / 2] (0-based ranks).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PbmPair {
    /// Attractiveness per pair.
    pub attractiveness: Vec<f64>,
    /// Examination per pair of 0-based ranks (index r / 2).
    pub examination: Vec<f64>,
}

impl ClickModel for PbmPair {
    fn kind(&self) -> ModelKind {
        KIND
    }

    fn click_probs(&self, pairs: &[u32], out: &mut Vec<f64>) {
        out.clear();
        out.extend(pairs.iter().enumerate().map(|(r, &p)| param(&self.attractiveness, p as usize) * param(&self.examination, r / 2)));
    }

    fn observed_probs(&self, s: SessionRef<'_>, out: &mut Vec<f64>) {
        self.click_probs(s.pairs, out);
        for (p, &c) in out.iter_mut().zip(s.clicks) {
            if !c {
                *p = 1.0 - *p;
            }
        }
    }

    fn relevance(&self, pair: u32) -> f64 {
        param(&self.attractiveness, pair as usize)
    }

    fn simulate(&self, pairs: &[u32], rng: &mut Stream, clicks: &mut Vec<bool>) {
        clicks.clear();
        clicks.extend(pairs.iter().enumerate().map(|(r, &p)| draw(param(&self.attractiveness, p as usize) * param(&self.examination, r / 2), rng)));
    }

    fn to_table(&self) -> ParamTable {
        ParamTable::new(KIND).rank("examination", &self.examination).pair("attractiveness", &self.attractiveness)
    }
}

impl EmModel for PbmPair {
    fn kind(&self) -> ModelKind {
        KIND
    }

    /// PBM's E-step with the examination counted at r / 2 (tables: attractiveness,
    /// examination): a click is a success of one trial of both; no click adds the posterior
    /// a (1 - g) / (1 - a g) to attractiveness and g (1 - a) / (1 - a g) to examination.
    fn accumulate(&self, s: SessionRef<'_>, stats: &mut EStats, _buf: &mut Scratch) {
        stats.sessions += stats.weight();
        let [attr, exam, ..] = &mut stats.tables[..] else { unreachable!("pbmpair statistics have two tables") };
        for (r, (&p, &c)) in s.pairs.iter().zip(s.clicks).enumerate() {
            let (a, g) = (param(&self.attractiveness, p as usize), param(&self.examination, r / 2));
            if c {
                attr.add_trial(p as usize, true);
                exam.add_trial(r / 2, true);
            } else {
                let d = 1.0 - a * g;
                attr.add(p as usize, a * (1.0 - g) / d, 1.0);
                exam.add(r / 2, g * (1.0 - a) / d, 1.0);
            }
        }
    }

    fn m_step(&self, stats: &EStats) -> Box<dyn EmModel> {
        let (attr, exam) = (&stats.tables[0], &stats.tables[1]);
        Box::new(PbmPair { attractiveness: attr.values(attr.used_len(), true), examination: exam.values(exam.used_len(), true) })
    }

    fn model(&self) -> &dyn ClickModel {
        self
    }

    fn fitted(&self) -> Box<dyn ClickModel> {
        Box::new(self.clone())
    }

    fn pair_free(&self) -> bool {
        self.attractiveness.is_empty()
    }
    fn pair_vecs(&mut self) -> Vec<&mut Vec<f64>> {
        vec![&mut self.attractiveness]
    }

    fn params_mut(&mut self) -> Vec<&mut [f64]> {
        vec![&mut self.attractiveness, &mut self.examination]
    }

    fn encode(&self) -> (u8, Vec<f64>, Vec<&[f64]>) {
        (0, vec![], vec![&self.attractiveness, &self.examination])
    }

    fn clone_box(&self) -> Box<dyn EmModel> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The starting state: every parameter at 0.5.
fn start(cfg: &ModelConfig) -> Result<Box<dyn EmModel>> {
    super::em::check_iterations(cfg.em_config().unwrap_or_default().iterations)?;
    Ok(Box::new(PbmPair::default()))
}

fn decode(_flag: bool, _scalars: &[f64], lists: Vec<Vec<f64>>) -> std::result::Result<Box<dyn EmModel>, &'static str> {
    let mut it = lists.into_iter();
    let attractiveness = it.next().ok_or("missing parameters")?;
    Ok(Box::new(PbmPair { attractiveness, examination: it.next().ok_or("missing parameters")? }))
}

fn read(t: &ParamTable, ctx: &str) -> Result<Box<dyn ClickModel>> {
    Ok(Box::new(PbmPair { attractiveness: t.get_pair(ctx, "attractiveness")?, examination: t.get_rank(ctx, "examination")? }))
}

/// The model in the registry.
pub(crate) const SPEC: ModelSpec = ModelSpec {
    kind: KIND,
    scalars: &[],
    ranks: &["examination"],
    matrices: &[],
    pairs: &["attractiveness"],
    read,
    em: Some(EmSpec {
        // Tables: attractiveness (per pair), examination (per pair of ranks).
        shape: StatsShape { tables: &[None, Some(5)], pair_tables: 1, base_tables: 2, eb_at: None },
        start,
        decode,
        iterative: true,
        squarem: true,
        fitted_prior: false,
        top_examination: false,
    }),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clickmodels::EmConfig;
    use crate::logs::{Format, LogData};

    /// One EM pass from 0.5 on three sessions of q with a, b, c (pairs 0, 1, 2): `a,b,c : a`,
    /// `a,b,c :`, `b,a,c : c`. By hand (docs/recipes/click-model.md): an unclicked result adds
    /// 0.5 * 0.5 / (1 - 0.25) = 1/3 in one trial to its attractiveness and to its examination,
    /// a click 1 in 1. Attractiveness a: 1 + 1/3 + 1/3 in 3, (1 + 5/3) / (2 + 3) = 8/15; b: 1
    /// in 3, 2/5; c: 5/3 in 3, 8/15. Examination of ranks 1-2: 1 + 5 * 1/3 in 6,
    /// (1 + 8/3) / (2 + 6) = 11/24; of rank 3: 5/3 in 3, 8/15.
    #[test]
    fn one_pass_matches_the_hand_derivation() {
        let data = LogData::parse("q\ta,b,c : a\nq\ta,b,c :\nq\tb,a,c : c\n", Format::Yandex, "x", false).unwrap();
        let model = ModelConfig::new(KIND, EmConfig { iterations: 1, tolerance: 0.0 }).fit(&mut &data.log).unwrap();
        let t = model.to_table();
        assert_eq!(t.model, KIND);
        let close = |got: &[f64], want: &[f64]| got.len() == want.len() && got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-12);
        assert!(close(&t.pairs[0].1, &[8.0 / 15.0, 2.0 / 5.0, 8.0 / 15.0]), "{t:?}");
        assert!(close(&t.ranks[0].1, &[11.0 / 24.0, 8.0 / 15.0]), "{t:?}");
    }
}
