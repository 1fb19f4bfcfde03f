//! A fit in progress: [`EmState`], the current state of a model fitted from E-step statistics
//! behind the [`EmModel`] trait, with the calls the driver, the sharded fit and Python's
//! distributed fit make on it.

use super::ebprior::{pair_parameters, value};
use super::estep::{EStats, EmModel, Reader, Scratch};
use super::registry::em_spec;
use super::table::ModelKind;
use super::{ClickModel, ModelConfig};
use crate::error::{Error, Result};
use crate::logs::SessionRef;

/// A fit in progress of a model whose parameters come from E-step statistics (SDBN, DBN,
/// UBM, CCM, PBM, and any model registered with an [`super::registry::EmSpec`]): the current
/// model, the E-step and the M-step. SDBN takes one pass (its counts are final), the EM
/// models one pass per iteration.
#[derive(Debug)]
pub struct EmState(Box<dyn EmModel>);

impl Clone for EmState {
    fn clone(&self) -> Self {
        EmState(self.0.clone_box())
    }
}

impl EmState {
    /// The state holding `model`.
    pub fn from_model(model: Box<dyn EmModel>) -> Self {
        EmState(model)
    }

    /// The model's state.
    pub fn inner(&self) -> &dyn EmModel {
        &*self.0
    }

    /// The model's state as its concrete type `T` (`None` for another model).
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref()
    }

    /// The starting state of `cfg` (parameters at 0.5; DBN's gamma at its fixed value).
    /// Models fitted otherwise (CM, DCM, the CTR baselines) are refused.
    pub fn new(cfg: &ModelConfig) -> Result<Self> {
        match em_spec(cfg.kind()) {
            Some(em) => Ok(EmState((em.start)(cfg)?)),
            None => Err(Error::Invalid(format!(
                "{} is fitted by a single count, not from E-step statistics (supported: {})",
                match cfg.kind() {
                    ModelKind::Cm => "cm",
                    ModelKind::Dcm => "dcm",
                    _ => "a CTR baseline",
                },
                ModelKind::all().into_iter().filter(|k| em_spec(*k).is_some()).map(ModelKind::name).collect::<Vec<_>>().join(", ")
            ))),
        }
    }

    /// Passes over the log a full fit of `cfg` takes.
    pub fn passes_of(cfg: &ModelConfig) -> usize {
        cfg.em_config().map_or(1, |em| em.iterations)
    }

    /// The model's kind.
    pub fn kind(&self) -> ModelKind {
        self.0.kind()
    }

    /// Whether every pair has the same parameters (none fitted yet: the starting state), so
    /// that an E-step does not depend on how pairs are numbered.
    pub fn pair_free(&self) -> bool {
        self.0.pair_free()
    }

    /// Empty statistics for this model.
    pub fn new_stats(&self) -> EStats {
        EStats::new(self.kind(), 0)
    }

    /// E-step: adds one session under the current model.
    pub fn accumulate(&self, s: SessionRef<'_>, stats: &mut EStats) {
        self.accumulate_with(s, stats, &mut Scratch::default())
    }

    /// E-step with reusable buffers.
    #[inline]
    pub fn accumulate_with(&self, s: SessionRef<'_>, stats: &mut EStats, buf: &mut Scratch) {
        self.0.accumulate(s, stats, buf)
    }

    /// M-step: replaces the model by the one re-estimated from `stats` (the sum over every
    /// session of the log).
    pub fn m_step(&mut self, stats: &EStats) -> Result<()> {
        if stats.kind != self.kind() {
            return Err(Error::Invalid(format!("{} statistics given to a {} fit", stats.kind, self.kind())));
        }
        self.0 = self.0.m_step(stats);
        Ok(())
    }

    /// M-step with the per-pair tables re-estimated under Beta priors (`prior[t]` for the
    /// state's `t`-th pair vector, [`EmState::pair_vecs`]) instead of Beta(1, 1): `(a + num) /
    /// (a + b + den)` ([`super::ebprior::value`]); the other parameters as [`EmState::m_step`].
    pub fn m_step_prior(&mut self, stats: &EStats, prior: &[(f64, f64)]) -> Result<()> {
        self.m_step(stats)?;
        for (t, v) in self.pair_vecs().into_iter().enumerate() {
            let (a, b) = prior[t];
            let table = &stats.tables[t];
            for (i, x) in v.iter_mut().enumerate() {
                let (num, den) = table.sums(i);
                *x = super::ebprior::value(a, b, num, den);
            }
        }
        Ok(())
    }

    /// The per-pair parameter vectors, in the order of the statistics' pair tables
    /// ([`super::registry::pair_tables`]).
    pub fn pair_vecs(&mut self) -> Vec<&mut Vec<f64>> {
        self.0.pair_vecs()
    }

    /// Every probability as slices, in the model's fixed order (SQUAREM works on them).
    pub fn params_mut(&mut self) -> Vec<&mut [f64]> {
        self.0.params_mut()
    }

    /// Holds the examination of rank 1 at `t` (UBM, PBM).
    pub fn pin_top(&mut self, t: f64) {
        self.0.pin_top(t)
    }

    /// Moves the per-pair vectors out (leaving them empty): the query-independent state.
    pub fn take_pair_vecs(&mut self) -> Vec<Vec<f64>> {
        self.pair_vecs().into_iter().map(std::mem::take).collect()
    }

    /// Puts per-pair vectors in, in the order of [`EmState::pair_vecs`].
    pub fn put_pair_vecs(&mut self, vecs: Vec<Vec<f64>>) {
        for (slot, v) in self.pair_vecs().into_iter().zip(vecs) {
            *slot = v;
        }
    }

    /// The current parameters as a click model (borrowed).
    pub fn click_model(&self) -> &dyn ClickModel {
        self.0.model()
    }

    /// The current model.
    pub fn model(&self) -> Box<dyn ClickModel> {
        self.0.fitted()
    }
}

impl EmState {
    /// The fitted model under the per-pair priors `prior` (the `used` priors of the end
    /// point): pairs without data in a table, and pairs never seen in training, take the
    /// table's prior mean ([`super::unseen::WithUnseen`]; the model file lists them under
    /// `unseen`).
    pub fn model_with_prior(&self, prior: &[(f64, f64)]) -> Result<Box<dyn ClickModel>> {
        let mut t = self.0.to_table();
        t.unseen = pair_parameters(self.kind()).iter().zip(prior).map(|(&n, &(a, b))| (n.to_string(), value(a, b, 0.0, 0.0))).collect();
        t.into_model("fitted model")
    }
}

const STATE_MAGIC: &[u8; 8] = b"SSEMST01";

impl EmState {
    /// The current parameters as little-endian bytes (what a distributed fit broadcasts to
    /// its workers each iteration); [`EmState::from_bytes`] restores the state bit for bit.
    pub fn to_bytes(&self) -> Vec<u8> {
        let (flag, scalars, vecs) = self.0.encode();
        let mut out = Vec::new();
        out.extend_from_slice(STATE_MAGIC);
        let name = self.kind().name().as_bytes();
        out.push(name.len() as u8);
        out.extend_from_slice(name);
        out.push(flag);
        for list in std::iter::once(scalars.as_slice()).chain(vecs.iter().copied()) {
            out.extend_from_slice(&(list.len() as u64).to_le_bytes());
            for x in list {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out
    }

    /// Decodes [`EmState::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = |why: &str| Error::Invalid(format!("click-model state: {why}"));
        let mut r = Reader { b: bytes, at: 0 };
        if r.take(8).ok_or_else(|| bad("truncated"))? != STATE_MAGIC {
            return Err(bad("not a serpsim click-model state (bad magic)"));
        }
        let n = r.take(1).ok_or_else(|| bad("truncated"))?[0] as usize;
        let name = std::str::from_utf8(r.take(n).ok_or_else(|| bad("truncated"))?).map_err(|_| bad("bad model name"))?;
        let kind: ModelKind = name.parse()?;
        let flag = r.take(1).ok_or_else(|| bad("truncated"))?[0] != 0;
        let mut lists = Vec::new();
        while r.at < bytes.len() {
            let len = r.u64().ok_or_else(|| bad("truncated"))? as usize;
            let raw = r.take(len.checked_mul(8).ok_or_else(|| bad("corrupt length"))?).ok_or_else(|| bad("truncated"))?;
            lists.push(raw.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect::<Vec<f64>>());
        }
        let Some(em) = em_spec(kind) else { return Err(bad(&format!("{kind} has no EM state"))) };
        if lists.is_empty() {
            return Err(bad("missing parameters"));
        }
        let scalars = lists.remove(0);
        (em.decode)(flag, &scalars, lists).map(EmState).map_err(bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clickmodels::dbn::DbnFit;
    use crate::clickmodels::registry::pair_tables;
    use crate::clickmodels::{Dbn, EmConfig, Ubm};

    #[test]
    fn a_fitted_priors_tables_leave_the_models_own_statistics_as_they_are() {
        // The informative-trial tables sit after the model's own (UBM: between attractiveness
        // and the examination rows); with them dropped the statistics, and with them in the
        // M-step's model, are those of a fit without them. Two passes, so that the second
        // E-step runs at fitted (not all-equal) parameters.
        use crate::logs::{Format, LogData};
        let data = LogData::parse("q\ta,b,c,d : b; q\tb,a,d :; q\ta,b,c : a,c\nr\tc,d,e,f,g : d,g\n", Format::Yandex, "x", false).unwrap();
        for kind in [ModelKind::Dbn, ModelKind::Ubm, ModelKind::Ccm, ModelKind::Pbm] {
            let mut state = EmState::new(&ModelConfig::new(kind, EmConfig::default())).unwrap();
            for _ in 0..2 {
                let (mut plain, mut eb) = (state.new_stats(), state.new_stats());
                eb.add_eb_tables(0);
                assert!(eb.has_eb_tables() && eb.tables.len() == plain.tables.len() + pair_tables(kind), "{kind}");
                for s in data.log.iter() {
                    state.accumulate(s, &mut plain);
                    state.accumulate(s, &mut eb);
                }
                let (mut a, mut b) = (state.clone(), state.clone());
                a.m_step(&plain).unwrap();
                b.m_step(&eb).unwrap();
                assert_eq!(a.to_bytes(), b.to_bytes(), "{kind}");
                // A click is a success of one trial: 5 clicks in all.
                assert_eq!(eb.eb_counts(0).entries().map(|(_, n, _)| n).sum::<i128>(), 5 << 60, "{kind}");
                eb.drop_eb_tables();
                assert_eq!(eb, plain, "{kind}");
                state = a;
            }
        }
    }

    #[test]
    fn statistics_round_trip_through_bytes() {
        let mut st = EStats::new(ModelKind::Dbn, 4);
        st.tables[0].add(2, 0.25, 1.0);
        st.tables[2].add(0, 1.0 / 3.0, 0.5);
        st.sessions = 3;
        let back = EStats::from_bytes(&st.to_bytes()).unwrap();
        assert_eq!(back, st);
        let mut bytes = st.to_bytes();
        bytes.pop();
        assert!(EStats::from_bytes(&bytes).is_err());
        assert!(EStats::from_bytes(b"nonsense").is_err());
        let state = EmState::from_model(Box::new(DbnFit {
            model: Dbn { attractiveness: vec![0.25, 1.0 / 3.0], satisfaction: vec![0.5], gamma: 0.7 },
            fit_gamma: true,
        }));
        let back = EmState::from_bytes(&state.to_bytes()).unwrap();
        assert_eq!(back.to_bytes(), state.to_bytes());
        let ubm = EmState::from_model(Box::new(Ubm { attractiveness: vec![0.1], examination: vec![vec![0.9], vec![0.8, 0.7]] }));
        assert_eq!(EmState::from_bytes(&ubm.to_bytes()).unwrap().model().to_table(), ubm.model().to_table());
    }
}
