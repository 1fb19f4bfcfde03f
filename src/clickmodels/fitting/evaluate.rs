//! `serpsim clicks eval` as one call: fit a plan on a training log and score it on held-out
//! sessions (the last quarter of the log, or a test log restricted to the training queries).
//! Which way the logs are read is decided here, as for a fit: in shards when they are larger
//! than the budget allows ([`crate::clickmodels::sharded::evaluate`]), parsed once and
//! streamed otherwise, and in memory when the settings need it (a fitted prior). The numbers
//! are the same whichever way.

use super::{read_notes, summary_line, FitObserver, FitPhase, FitPlan};
use crate::clickmodels::eval::{evaluate, evaluate_stream, restrict_to_train_queries, split_75_25, Scores};
use crate::clickmodels::{io, sharded, ClickModel, ModelKind};
use crate::error::{Error, Result};
use crate::logs::read::ReadOptions;
use crate::logs::{ClickLog, LogData, SessionSource};
use std::path::Path;

/// What [`FitPlan::evaluate_file`] found.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The model evaluated.
    pub model: ModelKind,
    /// Sessions it was fitted on.
    pub train_sessions: u64,
    /// Held-out sessions it was scored on.
    pub test_sessions: u64,
    /// The scores.
    pub scores: Scores,
}

impl FitPlan {
    /// Fits the plan on the log at `train` and scores it on `test` (restricted to the queries
    /// of training), or without `test` on the last quarter of `train` (the 75/25 protocol);
    /// writes the fitted model to `save` when given (without the fit's summary). Notes what
    /// reading skipped and how EM ended.
    pub fn evaluate_file(&self, train: &Path, test: Option<&Path>, read: &ReadOptions, save: Option<&Path>, obs: &dyn FitObserver) -> Result<Evaluation> {
        if self.needs_memory() {
            return self.evaluate_in_memory(train, test, read, save, obs);
        }
        let logs: Vec<&Path> = std::iter::once(train).chain(test).collect();
        if self.shards_logs(&logs) {
            let held = test.map_or(sharded::HeldOut::LastQuarter, |t| sharded::HeldOut::File(t.to_path_buf()));
            obs.phase(FitPhase::Passes(self.config().kind(), self.passes()));
            let r = sharded::evaluate(train, &held, read, self.config(), self.em_options(), &self.shard_options(), save, &mut |p| obs.pass(p));
            obs.end_phase();
            let r = r?;
            obs.note(&summary_line(&r.fit.fit_summary));
            let mut notes = read_notes(&train.display().to_string(), &r.fit.read);
            if let (Some(t), Some(rep)) = (test, &r.test_read) {
                notes.extend(read_notes(&t.display().to_string(), rep));
            }
            notes.push(r.fit.summary());
            for n in notes {
                obs.note(&n);
            }
            return Ok(Evaluation { model: self.config().kind(), train_sessions: r.fit.sessions, test_sessions: r.test_sessions, scores: r.scores });
        }
        self.evaluate_streamed(train, test, read, save, obs)
    }

    /// The streamed way: the training log is parsed once into stored sessions (memory by the
    /// budget and the pairs), the fit and the evaluation replay them; a test log is evaluated
    /// while it is read.
    fn evaluate_streamed(&self, train: &Path, test: Option<&Path>, read: &ReadOptions, save: Option<&Path>, obs: &dyn FitObserver) -> Result<Evaluation> {
        let mut src = self.file_source(train, read.format.clone(), read.skip_bad_lines);
        src.load()?;
        let st = src.stored().expect("load keeps the sessions");
        let n = st.len();
        let n_train = if test.is_none() { n * 3 / 4 } else { n };
        if n_train == 0 {
            return Err(Error::Invalid(format!("{}: no training sessions", train.display())));
        }
        let mut sessions = st.range(0..n_train);
        let (model, _) = self.fit_source(&mut sessions, obs)?;
        // Queries of the training sessions: test sessions of other queries are left out.
        let mut seen = vec![false; src.vocab.queries.len()];
        st.replay(0..n_train, &mut |s| seen[s.query as usize] = true)?;
        let model_ref: &dyn ClickModel = model.as_ref();
        let mut test_sessions = 0u64;
        let train_name = train.display().to_string();
        let (scores, vocab) = match test {
            None => {
                let scores = evaluate_stream(model_ref, &mut |f| {
                    st.replay(n_train..n, &mut |s| {
                        if seen[s.query as usize] {
                            test_sessions += 1;
                            f(s);
                        }
                    })
                })?;
                for line in read_notes(&train_name, &src.report) {
                    obs.note(&line);
                }
                (scores, std::mem::take(&mut src.vocab))
            }
            Some(t) => {
                for line in read_notes(&train_name, &src.report) {
                    obs.note(&line);
                }
                // The test log is read into the training vocabulary (as `read_more` does) and
                // evaluated session by session.
                let mut test = self.file_source(t, read.format.clone(), read.skip_bad_lines);
                test.vocab = std::mem::take(&mut src.vocab);
                let scores = evaluate_stream(model_ref, &mut |f| {
                    test.pass(&mut |s| {
                        if seen.get(s.query as usize).copied().unwrap_or(false) {
                            test_sessions += 1;
                            f(s);
                        }
                    })
                });
                for line in read_notes(&t.display().to_string(), &test.report) {
                    obs.note(&line);
                }
                (scores?, test.vocab)
            }
        };
        if let Some(path) = save {
            io::save(path, model.as_ref(), &vocab)?;
        }
        if let Some(line) = src.stored_summary() {
            obs.note(&line);
        }
        Ok(Evaluation { model: model.kind(), train_sessions: n_train, test_sessions, scores })
    }

    /// The in-memory way (a fitted prior: the posterior means are scored).
    fn evaluate_in_memory(&self, train: &Path, test: Option<&Path>, read: &ReadOptions, save: Option<&Path>, obs: &dyn FitObserver) -> Result<Evaluation> {
        let mut data = LogData::read(train, read.format.clone(), read.skip_bad_lines)?;
        for line in read_notes(&train.display().to_string(), &data.report) {
            obs.note(&line);
        }
        let (train_log, test_log): (ClickLog, ClickLog) = match test {
            None => {
                let s = split_75_25(&data.log);
                (s.train, s.test)
            }
            Some(t) => {
                let (test, report) = data.read_more(t, read.format.clone(), read.skip_bad_lines)?;
                for line in read_notes(&t.display().to_string(), &report) {
                    obs.note(&line);
                }
                let train_log = std::mem::take(&mut data.log);
                let test = restrict_to_train_queries(&train_log, &test);
                (train_log, test)
            }
        };
        if train_log.is_empty() {
            return Err(Error::Invalid(format!("{}: no training sessions", train.display())));
        }
        let (model, _, _) = self.fit_sessions(&train_log, data.vocab.pair_count(), obs)?;
        let scores = evaluate(model.as_ref(), &test_log)?;
        if let Some(path) = save {
            io::save(path, model.as_ref(), &data.vocab)?;
        }
        Ok(Evaluation { model: model.kind(), train_sessions: train_log.len() as u64, test_sessions: test_log.len() as u64, scores })
    }
}
