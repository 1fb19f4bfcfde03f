//! (Under `posterior`: it chooses between the EM point fit of `clickmodels` and the posterior,
//! and sits above both, so neither imports it.)
//!
//! The fit every front end asks for (`serpsim clicks`, Python's `fit_posterior`): which fit
//! follows from the settings is decided here, once, and the shells only pass their progress
//! callbacks.

use super::{model_and_posterior, Posterior, PosteriorConfig};
use crate::clickmodels::driver::{EmOptions, FitSummary, PassInfo};
use crate::clickmodels::{ClickModel, ModelConfig};
use crate::error::Result;
use crate::logs::{ClickLog, SessionSource};

/// Fits `cfg` over `src` with the EM driver's options (counting models take one pass),
/// calling `on_pass` after every pass. Returns the model and, for EM fits allowed more than
/// one pass, how the fit ended (the `fit` key of a model file).
pub fn fit_em(
    cfg: &ModelConfig,
    opts: &EmOptions,
    src: &mut dyn SessionSource,
    on_pass: &mut dyn FnMut(&PassInfo),
) -> Result<(Box<dyn ClickModel>, Option<FitSummary>)> {
    let (model, report) = cfg.fit_with(src, opts, on_pass)?;
    let summary = report.zip(cfg.em_config()).filter(|(_, em)| em.iterations > 1).map(|(r, em)| FitSummary::new(cfg.kind(), &r, em.tolerance, opts));
    Ok((model, summary))
}

/// Fits `cfg` on `log` (`pairs` query-document pairs) with or without a posterior. Without
/// one (`posterior` is `None`: the uniform prior, nothing sampled) the model is [`fit_em`]'s.
/// With one, the model is [`model_and_posterior`]'s: under the uniform prior still the usual
/// fit of `cfg` with `opts` (so asking for a posterior does not change the model), else the
/// posterior means. `on_pass` receives EM passes, `progress` sampler sweeps. Returns the
/// model, the posterior when computed, and how an EM fit ended.
pub fn fit_model(
    cfg: &ModelConfig,
    opts: &EmOptions,
    log: &ClickLog,
    pairs: usize,
    posterior: Option<&PosteriorConfig>,
    on_pass: &(dyn Fn(&PassInfo) + Sync),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Box<dyn ClickModel>, Option<Posterior>, Option<FitSummary>)> {
    let summary = std::sync::Mutex::new(None);
    let em = |log: &ClickLog| -> Result<Box<dyn ClickModel>> {
        let (model, s) = fit_em(cfg, opts, &mut &*log, &mut |p| on_pass(p))?;
        *summary.lock().expect("no panics while locked") = s;
        Ok(model)
    };
    let Some(pc) = posterior else {
        let model = em(log)?;
        return Ok((model, None, summary.into_inner().expect("no panics while locked")));
    };
    let (model, post) = model_and_posterior(cfg.kind(), log, pairs, pc, &em, progress)?;
    Ok((model, Some(post), summary.into_inner().expect("no panics while locked")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clickmodels::gibbs::GibbsConfig;
    use crate::clickmodels::prior::PriorScope;
    use crate::clickmodels::EmConfig;
    use crate::logs::{Format, LogData};

    /// Which fit follows from the settings: without a posterior the EM fit, run for exactly
    /// its 7 passes with tolerance 0 (one `on_pass` call each, and a summary saying so); with
    /// a posterior under the uniform prior the same model (asking for a posterior does not
    /// change it); under a fitted prior the posterior means. A counting model has no summary.
    #[test]
    fn the_settings_choose_the_fit() {
        let data = LogData::parse("q\ta,b : a\nq\tb,a : a\nq\tb,a : b\nq\ta,b,c :\n", Format::Yandex, "x", false).unwrap();
        let (log, pairs) = (&data.log, data.vocab.pair_count());
        let cfg = ModelConfig::Ubm(EmConfig { iterations: 7, tolerance: 0.0 });
        let opts = EmOptions::default();
        let passes = std::sync::atomic::AtomicUsize::new(0);
        let on_pass = |_: &PassInfo| {
            passes.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        };
        let (em, post, summary) = fit_model(&cfg, &opts, log, pairs, None, &on_pass, &|_| {}).unwrap();
        assert!(post.is_none());
        assert_eq!(passes.load(std::sync::atomic::Ordering::Relaxed), 7);
        let s = summary.unwrap();
        assert_eq!((s.passes, s.max_passes, s.converged), (7, 7, false));
        let sampler = GibbsConfig { chains: 2, warmup: 20, draws: 20, ..Default::default() };
        let uniform = PosteriorConfig { sampler, ..Default::default() };
        let (m, post, _) = fit_model(&cfg, &opts, log, pairs, Some(&uniform), &|_| {}, &|_| {}).unwrap();
        let post = post.unwrap();
        assert_eq!(m.to_table(), em.to_table());
        assert_ne!(post.point_model().to_table(), em.to_table(), "the posterior means differ from the EM fit, so the check above can fail");
        let global = PosteriorConfig { prior: PriorScope::Global, sampler, ..Default::default() };
        let (m, post, _) = fit_model(&cfg, &opts, log, pairs, Some(&global), &|_| {}, &|_| {}).unwrap();
        assert_eq!(m.to_table(), post.unwrap().point_model().to_table());
        let (_, _, summary) = fit_model(&ModelConfig::Cm, &opts, log, pairs, None, &|_| {}, &|_| {}).unwrap();
        assert!(summary.is_none());
    }
}
