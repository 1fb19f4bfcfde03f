//! Long calls as jobs: the work runs on its own thread without the GIL, counting on a
//! [`Progress`]; Python polls the job (showing a bar), and on Ctrl-C cancels it through the
//! library's interrupt flag. The result is converted to Python objects only when collected.

use crate::errors;
use pyo3::prelude::*;
use serpsim::progress::Progress;
use std::sync::Mutex;
use std::thread::JoinHandle;

/// Turns a finished job's value into Python objects (runs with the GIL).
pub type Finish = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

type Outcome = std::thread::Result<serpsim::Result<Finish>>;

/// A running or finished library call.
#[pyclass(module = "serpsim._serpsim")]
pub struct Job {
    progress: Progress,
    handle: Mutex<Option<JoinHandle<Outcome>>>,
    finished: std::sync::Arc<(Mutex<bool>, std::sync::Condvar)>,
}

/// Starts `work` on a new thread, on a rayon pool of `threads` workers (all cores when None).
pub fn spawn<W>(label: &str, threads: Option<usize>, work: W) -> PyResult<Job>
where
    W: FnOnce(&Progress) -> serpsim::Result<Finish> + Send + 'static,
{
    let progress = Progress::new(label);
    let p = progress.clone();
    let pool = match threads {
        None => None,
        Some(0) => return Err(pyo3::exceptions::PyValueError::new_err("threads must be at least 1")),
        Some(t) if t > 256 => return Err(pyo3::exceptions::PyValueError::new_err(format!("threads={t} is more than the limit of 256"))),
        Some(t) => Some(rayon::ThreadPoolBuilder::new().num_threads(t).build().map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?),
    };
    serpsim::interrupt::reset();
    let finished = std::sync::Arc::new((Mutex::new(false), std::sync::Condvar::new()));
    let signal = finished.clone();
    let handle = std::thread::Builder::new()
        .name("serpsim-job".into())
        .spawn(move || {
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || match pool {
                Some(pool) => pool.install(|| work(&p)),
                None => work(&p),
            }));
            let (lock, cv) = &*signal;
            if let Ok(mut done) = lock.lock() {
                *done = true;
            }
            cv.notify_all();
            out
        })
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    Ok(Job { progress, handle: Mutex::new(Some(handle)), finished })
}

#[pymethods]
impl Job {
    /// `(label, unit, done, total or None, message, elapsed seconds)`.
    fn poll(&self) -> (String, String, u64, Option<u64>, String, f64) {
        let s = self.progress.snapshot();
        (s.label, s.unit, s.done, s.total, s.message, s.elapsed)
    }

    /// Whether the work has finished (successfully or not).
    fn done(&self) -> bool {
        self.handle.lock().map(|h| h.as_ref().is_none_or(|h| h.is_finished())).unwrap_or(true)
    }

    /// Waits up to `seconds` (without the GIL) for the work to finish; returns whether it has.
    fn wait(&self, py: Python<'_>, seconds: f64) -> bool {
        let finished = self.finished.clone();
        let timeout = std::time::Duration::from_secs_f64(seconds.clamp(0.0, 3600.0));
        py.detach(move || {
            let (lock, cv) = &*finished;
            let Ok(done) = lock.lock() else { return true };
            match cv.wait_timeout_while(done, timeout, |d| !*d) {
                Ok((d, _)) => *d,
                Err(_) => true,
            }
        })
    }

    /// Asks the work to stop at its next check.
    fn cancel(&self) {
        serpsim::interrupt::request();
    }

    /// Waits for the work (without the GIL) and returns its value, or raises its error.
    fn result(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let handle = self
            .handle
            .lock()
            .map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("job state poisoned"))?
            .take()
            .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("the result of this job was already taken"))?;
        let joined = py.detach(move || handle.join());
        match joined {
            Ok(Ok(Ok(finish))) => match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| finish(py))) {
                Ok(r) => r,
                Err(p) => Err(errors::panic_to_py(py, p)),
            },
            Ok(Ok(Err(e))) => Err(errors::to_py(py, e)),
            Ok(Err(p)) | Err(p) => Err(errors::panic_to_py(py, p)),
        }
    }
}
