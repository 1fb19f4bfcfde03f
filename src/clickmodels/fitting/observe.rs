//! How a fit shows itself: the [`FitObserver`] a front end implements (progress bars, notes)
//! and the lines a fit notes (how EM ended, the posterior's diagnostics, what reading skipped).

use crate::clickmodels::driver::{FitSummary, PassInfo};
use crate::clickmodels::posterior::Posterior;
use crate::clickmodels::ModelKind;
use crate::logs::ReadReport;

/// What a fit is doing, for progress displays.
#[derive(Debug, Clone, Copy)]
pub enum FitPhase<'a> {
    /// EM passes over the log of a model: the model and most passes.
    Passes(ModelKind, u64),
    /// Sweeps of the posterior's sampler: the model and the sweeps when known.
    Sweeps(ModelKind, Option<u64>),
    /// The per-grade fit of a model with labels.
    ByGrade(ModelKind),
    /// Reading the file of this name.
    Reading(&'a str),
}

/// Watches a fit: progress and the lines a user should read (what was skipped, how EM ended,
/// the posterior's priors and diagnostics), as they come. Every method does nothing by default.
pub trait FitObserver: Sync {
    /// A phase starts.
    fn phase(&self, _phase: FitPhase<'_>) {}
    /// The phase that started last has ended.
    fn end_phase(&self) {}
    /// An EM pass ended.
    fn pass(&self, _p: &PassInfo) {}
    /// `n` more sampler sweeps are done.
    fn sweeps(&self, _n: u64) {}
    /// A line for the user.
    fn note(&self, _line: &str) {}
}

/// An observer that shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl FitObserver for Quiet {}

/// The lines [`FitObserver::note`] receives for how an EM fit ended.
pub fn summary_line(s: &FitSummary) -> String {
    let change = s.relative_change.map_or_else(|| "not computed (--tolerance 0)".to_string(), |c| format!("{c:.3e}"));
    format!(
        "EM: {} of at most {} passes ({}; acceleration {}); last relative log-likelihood change {change}; largest parameter change {:.3e}",
        s.passes,
        s.max_passes,
        if s.converged {
            "converged"
        } else if s.tolerance > 0.0 {
            "tolerance not reached"
        } else {
            "fixed passes"
        },
        s.acceleration,
        s.parameter_change
    )
}

/// The posterior's priors and diagnostics, with a warning when chains have not mixed.
pub fn posterior_lines(post: &Posterior) -> Vec<String> {
    let mut lines = post.summary_lines();
    if let Some(d) = post.diagnostics() {
        if d.flagged > 0 {
            lines.push(format!(
                "WARNING: {} of {} parameters have not converged (R-hat > 1.01 or too few effective draws): run longer chains (--warmup, --samples) before trusting their intervals",
                d.flagged, d.checked
            ));
        }
    }
    lines
}

/// The warnings of a read report, as notes.
pub fn read_notes(name: &str, r: &ReadReport) -> Vec<String> {
    r.warnings(name).into_iter().map(|w| format!("warning: {w}")).collect()
}
