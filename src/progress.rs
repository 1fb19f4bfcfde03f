//! Progress of long work, shown while it runs.
//!
//! Library code counts work on a [`Progress`] handle: a few atomics, cheap enough to bump from
//! every rayon task. A [`Reporter`] (started by the CLI or the Python binding, never by the
//! library itself) reads the handle on its own thread and shows it: a bar on a terminal, and a
//! log line every few seconds when stderr is not a terminal (CI, `nohup`, notebooks that
//! capture stderr). Work that has no total yet (streaming a file of unknown length) shows a
//! count and a rate instead of a bar.
//!
//! ```
//! let p = serpsim::progress::Progress::new("fitting");
//! p.set_total(10);
//! p.inc(4);
//! p.set_message("iteration 4/10, log-likelihood -0.2853");
//! let s = p.snapshot();
//! assert_eq!((s.done, s.total), (4, Some(10)));
//! ```

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug)]
struct Inner {
    label: Mutex<String>,
    unit: Mutex<String>,
    message: Mutex<String>,
    done: AtomicU64,
    /// `u64::MAX` while unknown.
    total: AtomicU64,
    started: Mutex<Instant>,
}

/// A shared counter of work done, with an optional total and a free-text status message.
#[derive(Debug, Clone)]
pub struct Progress {
    inner: Arc<Inner>,
}

/// What a [`Progress`] holds at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// What is being done, e.g. `simulating`.
    pub label: String,
    /// The unit counted, e.g. `cells` or `sessions`.
    pub unit: String,
    /// Units done.
    pub done: u64,
    /// Units in all, when known.
    pub total: Option<u64>,
    /// Free text such as the current EM iteration and log-likelihood.
    pub message: String,
    /// Seconds since the work (re)started.
    pub elapsed: f64,
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new("")
    }
}

impl Progress {
    /// A handle for work called `label`, total unknown.
    pub fn new(label: &str) -> Progress {
        Progress {
            inner: Arc::new(Inner {
                label: Mutex::new(label.to_string()),
                unit: Mutex::new(String::new()),
                message: Mutex::new(String::new()),
                done: AtomicU64::new(0),
                total: AtomicU64::new(u64::MAX),
                started: Mutex::new(Instant::now()),
            }),
        }
    }

    /// Starts a new phase: label, unit and total; the count and clock restart.
    pub fn phase(&self, label: &str, unit: &str, total: Option<u64>) {
        *lock(&self.inner.label) = label.to_string();
        *lock(&self.inner.unit) = unit.to_string();
        lock(&self.inner.message).clear();
        self.inner.done.store(0, Ordering::Relaxed);
        self.inner.total.store(total.unwrap_or(u64::MAX), Ordering::Relaxed);
        *lock(&self.inner.started) = Instant::now();
    }

    /// Sets the total.
    pub fn set_total(&self, total: u64) {
        self.inner.total.store(total, Ordering::Relaxed);
    }

    /// Adds `n` units done.
    #[inline]
    pub fn inc(&self, n: u64) {
        self.inner.done.fetch_add(n, Ordering::Relaxed);
    }

    /// Sets the units done.
    pub fn set_done(&self, n: u64) {
        self.inner.done.store(n, Ordering::Relaxed);
    }

    /// Sets the status message.
    pub fn set_message(&self, message: impl Into<String>) {
        *lock(&self.inner.message) = message.into();
    }

    /// The current state.
    pub fn snapshot(&self) -> Snapshot {
        let total = self.inner.total.load(Ordering::Relaxed);
        Snapshot {
            label: lock(&self.inner.label).clone(),
            unit: lock(&self.inner.unit).clone(),
            done: self.inner.done.load(Ordering::Relaxed),
            total: (total != u64::MAX).then_some(total),
            message: lock(&self.inner.message).clone(),
            elapsed: lock(&self.inner.started).elapsed().as_secs_f64(),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How a [`Reporter`] shows progress.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Display {
    /// Nothing (`--quiet`).
    Off,
    /// A redrawn bar: for terminals.
    Bar,
    /// A plain line every so many seconds: for logs.
    Lines(Duration),
}

impl Display {
    /// The default for this process: a bar when stderr is a terminal, otherwise a line every
    /// `SERPSIM_PROGRESS_SECS` seconds (default 5).
    pub fn auto() -> Display {
        if std::io::stderr().is_terminal() {
            Display::Bar
        } else {
            let secs = std::env::var("SERPSIM_PROGRESS_SECS").ok().and_then(|s| s.parse::<f64>().ok()).filter(|s| *s > 0.0 && s.is_finite());
            Display::Lines(Duration::from_secs_f64(secs.unwrap_or(5.0)))
        }
    }
}

/// Shows a [`Progress`] on stderr from a background thread until dropped.
pub struct Reporter {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Reporter {
    /// Starts showing `progress` as `display` says.
    pub fn start(progress: &Progress, display: Display) -> Reporter {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = match display {
            Display::Off => None,
            Display::Bar => {
                let (p, s) = (progress.clone(), stop.clone());
                Some(std::thread::spawn(move || run_bar(&p, &s)))
            }
            Display::Lines(every) => {
                let (p, s) = (progress.clone(), stop.clone());
                Some(std::thread::spawn(move || run_lines(&p, &s, every)))
            }
        };
        Reporter { stop, thread }
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Sleeps up to `d` in short steps, returning early (true) when `stop` is set.
fn wait(stop: &AtomicBool, d: Duration) -> bool {
    let end = Instant::now() + d;
    while Instant::now() < end {
        if stop.load(Ordering::Relaxed) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50).min(end.saturating_duration_since(Instant::now())));
    }
    stop.load(Ordering::Relaxed)
}

fn run_bar(p: &Progress, stop: &AtomicBool) {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let with_total = ProgressStyle::with_template("{prefix}: [{bar:30}] {human_pos}/{human_len} {msg} ({elapsed}, eta {eta})")
        .expect("valid template")
        .progress_chars("=> ");
    let without_total = ProgressStyle::with_template("{prefix}: {human_pos} {msg} ({elapsed})").expect("valid template");
    let mut had_total = None;
    loop {
        let stopping = wait(stop, Duration::from_millis(100));
        let s = p.snapshot();
        if had_total != Some(s.total.is_some()) {
            bar.set_style(if s.total.is_some() { with_total.clone() } else { without_total.clone() });
            had_total = Some(s.total.is_some());
        }
        bar.set_prefix(s.label.clone());
        bar.set_length(s.total.unwrap_or(0));
        // A display never counts past its total (the counts are right at their source; this
        // keeps a late tick from drawing "101/100").
        bar.set_position(s.total.map_or(s.done, |t| s.done.min(t)));
        bar.set_message(if s.message.is_empty() { s.unit.clone() } else { format!("{} {}", s.unit, s.message) });
        if stopping {
            bar.finish_and_clear();
            return;
        }
    }
}

fn run_lines(p: &Progress, stop: &AtomicBool, every: Duration) {
    while !wait(stop, every) {
        let line = format_line(&p.snapshot());
        if !line.is_empty() {
            eprintln_quietly(&line);
        }
    }
}

/// A count with thousands separated by commas: `12,000`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One log line for a snapshot, e.g.
/// `serpsim: simulating users: 1,200/5,000 user blocks (24.0 %), 3.1 s elapsed, about 9.8 s left`:
/// the label, the count out of the total (never past it) and the unit counted.
pub fn format_line(s: &Snapshot) -> String {
    if s.label.is_empty() {
        return String::new();
    }
    let unit = if s.unit.is_empty() { String::new() } else { format!(" {}", s.unit) };
    let mut line = match s.total {
        Some(t) if t > 0 => {
            let done = s.done.min(t);
            let frac = done as f64 / t as f64;
            let mut l = format!("serpsim: {}: {}/{}{} ({:.1} %), {:.1} s elapsed", s.label, grouped(done), grouped(t), unit, 100.0 * frac, s.elapsed);
            if done > 0 && done < t {
                l += &format!(", about {:.0} s left", s.elapsed * (1.0 / frac - 1.0));
            }
            l
        }
        _ => {
            let rate = if s.elapsed > 0.0 { s.done as f64 / s.elapsed } else { 0.0 };
            format!("serpsim: {}: {}{} ({:.0}/s), {:.1} s elapsed", s.label, grouped(s.done), unit, rate, s.elapsed)
        }
    };
    if !s.message.is_empty() {
        line += &format!("; {}", s.message);
    }
    line
}

/// Writes a line to stderr, ignoring failures (a closed stderr must not stop the work).
fn eprintln_quietly(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_counts_across_threads() {
        let p = Progress::new("x");
        p.phase("simulating", "cells", Some(400));
        std::thread::scope(|s| {
            for _ in 0..4 {
                let p = p.clone();
                s.spawn(move || (0..100).for_each(|_| p.inc(1)));
            }
        });
        let s = p.snapshot();
        assert_eq!((s.done, s.total, s.unit.as_str()), (400, Some(400), "cells"));
    }

    #[test]
    fn lines_state_fraction_and_message() {
        let s = Snapshot {
            label: "fitting dbn".into(),
            unit: "iterations".into(),
            done: 5,
            total: Some(20),
            message: "log-likelihood -0.28535".into(),
            elapsed: 2.0,
        };
        // 5/20 = 25 %; 2 s for a quarter leaves 6 s.
        assert_eq!(format_line(&s), "serpsim: fitting dbn: 5/20 iterations (25.0 %), 2.0 s elapsed, about 6 s left; log-likelihood -0.28535");
        let open = Snapshot { total: None, done: 300, message: String::new(), unit: "sessions".into(), ..s };
        assert_eq!(format_line(&open), "serpsim: fitting dbn: 300 sessions (150/s), 2.0 s elapsed");
        // Thousands grouped, the count held at the total (hand-written expectations).
        let big =
            Snapshot { done: 12_000, total: Some(40_000), unit: "sessions".into(), message: String::new(), label: "simulating users".into(), elapsed: 3.0 };
        assert_eq!(format_line(&big), "serpsim: simulating users: 12,000/40,000 sessions (30.0 %), 3.0 s elapsed, about 7 s left");
        let over = Snapshot { done: 900, total: Some(800), ..big };
        assert!(format_line(&over).starts_with("serpsim: simulating users: 800/800 sessions (100.0 %)"), "{}", format_line(&over));
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }

    #[test]
    fn reporter_stops_when_dropped() {
        let p = Progress::new("t");
        let r = Reporter::start(&p, Display::Lines(Duration::from_secs(3600)));
        let t0 = Instant::now();
        drop(r);
        assert!(t0.elapsed() < Duration::from_secs(5));
    }
}
