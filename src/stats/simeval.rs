//! The distributional realism measures of SimEval-IR (Zerhoudi, SIGIR 2026) that apply to
//! SERP sessions, computed as that toolkit defines them:
//!
//! | measure | SimEval-IR name | what is compared | pooled over |
//! |---|---|---|---|
//! | `click_depth_distance` | `jsd_click_depth` | Jensen–Shannon distance between the histograms of click ranks 1..20 (ranks above 20 count as 20) | clicks |
//! | `session_length_ks` | `session_length_distribution` | two-sample Kolmogorov–Smirnov test on the number of events of a session | sessions |
//! | `inter_event_time_ks` | `timing_distribution` | two-sample Kolmogorov–Smirnov test on the positive gaps between successive event timestamps | gaps (events) |
//! | `action_type_distance` | `jsd_action_types` | Jensen–Shannon distance between the shares of event types | events |
//!
//! A session here is one SERP: a `query_issued` event followed by one `click` event per
//! click (as [`crate::logs`] writes SimEval-IR JSONL), so its length is `1 + clicks` and the
//! action types are `query_issued` and `click`.
//!
//! Definitions (so that the values equal SimEval-IR's and SciPy's):
//! - Jensen–Shannon distance: `sqrt(JSD)` with natural logarithms (SciPy's
//!   `scipy.spatial.distance.jensenshannon` with its default base, which SimEval-IR calls),
//!   on histograms to which `1e-10` is added per cell and that are then renormalised, as
//!   SimEval-IR does. Its range is `[0, sqrt(ln 2)] = [0, 0.8326]`.
//! - Kolmogorov–Smirnov: the statistic `D = sup |F_n - G_m|` with ties handled, and the
//!   two-sided p-value of SciPy's `ks_2samp` (default `method='auto'`): exact (the
//!   probability that a random interleaving of the two samples reaches `D`, by a lattice-path
//!   recursion) when both samples have at most 10 000 values; otherwise Kolmogorov's
//!   limiting distribution at `sqrt(nm/(n+m)) D` (SciPy uses the finite-n distribution
//!   `kstwo(round(nm/(n+m)))` there; the two differ by a share of order
//!   1/sqrt(nm/(n+m)): 1.5 % and 0.5 % in the fixture's cases of 12 000 vs 15 000 and 20 000 vs
//!   20 000 values, more when one sample is small, e.g. 20 000 vs 5).
//!   The exact p-value, like SciPy's, is that of continuous data: with many ties (session
//!   lengths) it is conservative.
//!
//! The p-values treat every session (click, gap) as an independent draw; simulated sessions
//! replicated on the same test SERPs are not independent of each other, so read the
//! p-values as a description, not a test over users or queries.
//!
//! ```
//! use serpsim::stats::simeval::{ks_2samp, js_distance};
//! let (d, p) = ks_2samp(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]);
//! assert_eq!(d, 1.0);
//! assert!((p - 0.1).abs() < 1e-12); // 2 / C(6, 3)
//! assert_eq!(js_distance(&[1.0, 0.0], &[1.0, 0.0]), 0.0);
//! ```

use serde::Serialize;

/// Largest sample for the exact Kolmogorov–Smirnov p-value (SciPy's `MAX_AUTO_N`).
pub const MAX_EXACT_N: usize = 10_000;

/// Ranks above this count as this rank in the click-depth histogram (SimEval-IR's default
/// `max_depth`).
pub const MAX_DEPTH: usize = 20;

/// Smoothing added to every histogram cell before a Jensen–Shannon distance (SimEval-IR's).
pub const JS_EPS: f64 = 1e-10;

/// Jensen–Shannon distance `sqrt((KL(p||m) + KL(q||m)) / 2)`, `m = (p + q) / 2`, natural
/// logarithms, after normalising `p` and `q` (missing trailing cells count as 0). NaN when
/// either histogram is empty.
pub fn js_distance(p: &[f64], q: &[f64]) -> f64 {
    let (sp, sq): (f64, f64) = (p.iter().sum(), q.iter().sum());
    if sp <= 0.0 || sq <= 0.0 {
        return f64::NAN;
    }
    let n = p.len().max(q.len());
    let mut js = 0.0;
    for k in 0..n {
        let a = p.get(k).copied().unwrap_or(0.0) / sp;
        let b = q.get(k).copied().unwrap_or(0.0) / sq;
        let m = 0.5 * (a + b);
        if a > 0.0 {
            js += 0.5 * a * (a / m).ln();
        }
        if b > 0.0 {
            js += 0.5 * b * (b / m).ln();
        }
    }
    js.max(0.0).sqrt()
}

/// [`js_distance`] after adding [`JS_EPS`] to every cell of both normalised histograms, as
/// SimEval-IR does (cells are the union of both supports, `len = max(p.len(), q.len())`).
pub fn smoothed_js_distance(p: &[f64], q: &[f64]) -> f64 {
    let (sp, sq): (f64, f64) = (p.iter().sum(), q.iter().sum());
    if sp <= 0.0 || sq <= 0.0 {
        return f64::NAN;
    }
    let n = p.len().max(q.len());
    let smooth = |h: &[f64], s: f64| -> Vec<f64> { (0..n).map(|k| h.get(k).copied().unwrap_or(0.0) / s + JS_EPS).collect() };
    js_distance(&smooth(p, sp), &smooth(q, sq))
}

/// Two-sample Kolmogorov–Smirnov statistic and two-sided p-value, as SciPy's
/// `ks_2samp(x, y)` computes them (see the module documentation). (NaN, NaN) when either
/// sample is empty. The samples need not be sorted.
pub fn ks_2samp(x: &[f64], y: &[f64]) -> (f64, f64) {
    if x.is_empty() || y.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mut a = x.to_vec();
    let mut b = y.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let d = super::distance::ks_two_sample(&a, &b);
    (d, ks_2samp_p(d, a.len(), b.len()))
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Two-sided p-value of the two-sample statistic `d` for sample sizes `n1`, `n2`.
pub fn ks_2samp_p(d: f64, n1: usize, n2: usize) -> f64 {
    if n1 == 0 || n2 == 0 || !d.is_finite() {
        return f64::NAN;
    }
    if n1.max(n2) <= MAX_EXACT_N {
        exact_p(d, n1, n2)
    } else {
        let en = (n1 as f64 * n2 as f64) / (n1 + n2) as f64;
        kolmogorov_sf(en.sqrt() * d)
    }
}

/// P(D >= d) for two samples of continuous data: the share of the `C(n1 + n2, n1)`
/// interleavings whose path from (0, 0) to (n1, n2) leaves the band
/// `|i / n1 - j / n2| < d`. The path is walked as a random interleaving (from (i, j) the next
/// value is from the first sample with probability `(n1 - i) / (n1 + n2 - i - j)`); the
/// probability of leaving is summed as it flows out of the band, so small p-values keep
/// their relative precision. Like SciPy, `d` is first rounded to the lattice:
/// `h = round(d * lcm(n1, n2))`.
fn exact_p(d: f64, n1: usize, n2: usize) -> f64 {
    let (m, n) = (n1 as u64, n2 as u64);
    let g = gcd(m, n);
    let lcm = (m / g) * n;
    let h = (d * lcm as f64).round() as u64;
    if h == 0 {
        return 1.0;
    }
    // Inside the band: |i * n - j * m| < h * g (integers; the lattice distance times lcm is
    // |i * n - j * m| / g).
    let bound = h as i128 * g as i128;
    let inside = |i: usize, j: usize| ((i as i128) * (n as i128) - (j as i128) * (m as i128)).abs() < bound;
    // prob[j] = P(path at (i, j) having stayed inside), row by row over i.
    let mut prob = vec![0.0f64; n2 + 1];
    let mut out = 0.0f64;
    prob[0] = 1.0;
    for i in 0..=n1 {
        // Moves along j within row i (from (i, j) to (i, j + 1)), then down to row i + 1.
        let mut next = vec![0.0f64; n2 + 1];
        for j in 0..=n2 {
            let p = prob[j];
            if p == 0.0 {
                continue;
            }
            let left = (n1 - i + n2 - j) as f64;
            if left == 0.0 {
                continue;
            }
            let px = (n1 - i) as f64 / left;
            if i < n1 {
                let q = p * px;
                if inside(i + 1, j) {
                    next[j] += q;
                } else {
                    out += q;
                }
            }
            if j < n2 {
                let q = p * (1.0 - px);
                if inside(i, j + 1) {
                    prob[j + 1] += q;
                } else {
                    out += q;
                }
            }
        }
        prob = next;
    }
    out.clamp(0.0, 1.0)
}

/// Survival function of Kolmogorov's limiting distribution,
/// `Q(t) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 t^2)` (1 for t near 0).
pub fn kolmogorov_sf(t: f64) -> f64 {
    if !t.is_finite() {
        return f64::NAN;
    }
    if t < 0.2 {
        // The series converges slowly there and Q(t) = 1 to double precision below 0.2
        // (1 - Q(0.2) = sqrt(2 pi) / 0.2 * exp(-pi^2 / 0.32) < 1e-12).
        return 1.0;
    }
    let mut sum = 0.0;
    for k in 1..=200 {
        let k = k as f64;
        let term = (-2.0 * k * k * t * t).exp();
        sum += if k as i64 % 2 == 1 { term } else { -term };
        if term < 1e-300 {
            break;
        }
    }
    (2.0 * sum).clamp(0.0, 1.0)
}

/// One SimEval-IR measure of simulated against real sessions, with the sample sizes it
/// pooled (`pooled_over` names what one observation is).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SimEvalMeasure {
    /// `click_depth_distance`, `session_length_ks`, `inter_event_time_ks` or
    /// `action_type_distance`.
    pub measure: &'static str,
    /// The SimEval-IR metric it reproduces.
    pub simeval_name: &'static str,
    /// What one pooled observation is: `clicks`, `sessions`, `gaps` or `events`.
    pub pooled_over: &'static str,
    /// Observations on the real side.
    pub n_real: u64,
    /// Observations on the simulated side.
    pub n_simulated: u64,
    /// The distance or the KS statistic (lower is more alike); NaN when a side has no
    /// observations.
    pub statistic: f64,
    /// KS p-value (NaN for the distances).
    pub p_value: f64,
    /// Mean of the real observations (click rank, events, seconds; the click share of the
    /// events for `action_type_distance`).
    pub real_mean: f64,
    /// Mean of the simulated observations.
    pub simulated_mean: f64,
    /// Why the statistic is NaN, when it is.
    pub note: String,
}

/// The events of SERP sessions, as the measures see them: per session the click ranks
/// (1-based, in rank order) and, when known, the event times (seconds from the query, the
/// query at 0, then each click).
#[derive(Debug, Clone, Default)]
pub struct SessionSample {
    /// Sessions and how many times each was seen: (click ranks, event times or empty, weight).
    sessions: Vec<(Vec<u32>, Vec<f64>, u64)>,
    /// Whether every session (with a click) has event times.
    timed: bool,
}

impl SessionSample {
    /// An empty sample.
    pub fn new() -> Self {
        SessionSample { sessions: Vec::new(), timed: true }
    }

    /// Adds `weight` sessions with clicks at `click_ranks` (1-based) and, when `times` is
    /// `Some`, the time of each click after the query (NaN where unknown: the session then
    /// counts as untimed).
    pub fn push(&mut self, click_ranks: &[u32], times: Option<&[f64]>, weight: u64) {
        let t = match times {
            Some(t) if t.len() == click_ranks.len() && t.iter().all(|x| x.is_finite()) => {
                let mut v = Vec::with_capacity(t.len() + 1);
                v.push(0.0);
                v.extend_from_slice(t);
                v
            }
            _ => {
                self.timed = false;
                Vec::new()
            }
        };
        self.sessions.push((click_ranks.to_vec(), t, weight));
    }

    fn sessions(&self) -> u64 {
        self.sessions.iter().map(|s| s.2).sum()
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn expand(s: &SessionSample, f: impl Fn(&(Vec<u32>, Vec<f64>, u64), &mut Vec<f64>)) -> Vec<f64> {
    let mut out = Vec::new();
    let mut one = Vec::new();
    for x in &s.sessions {
        one.clear();
        f(x, &mut one);
        for _ in 0..x.2 {
            out.extend_from_slice(&one);
        }
    }
    out
}

fn ks_measure(measure: &'static str, simeval_name: &'static str, unit: &'static str, r: Vec<f64>, s: Vec<f64>, note: String) -> SimEvalMeasure {
    let (d, p) = if note.is_empty() { ks_2samp(&r, &s) } else { (f64::NAN, f64::NAN) };
    let note = if note.is_empty() && d.is_nan() { format!("no {unit} on one side") } else { note };
    SimEvalMeasure {
        measure,
        simeval_name,
        pooled_over: unit,
        n_real: r.len() as u64,
        n_simulated: s.len() as u64,
        statistic: d,
        p_value: p,
        real_mean: mean(&r),
        simulated_mean: mean(&s),
        note,
    }
}

/// The four measures of `simulated` against `real` sessions, in the order of the module
/// table.
pub fn compare(real: &SessionSample, simulated: &SessionSample) -> Vec<SimEvalMeasure> {
    // Click depth.
    let depth_hist = |s: &SessionSample| {
        let mut h = vec![0.0; MAX_DEPTH];
        let (mut sum, mut n) = (0.0, 0u64);
        for (ranks, _, w) in &s.sessions {
            for &r in ranks {
                let r = r.max(1) as usize;
                h[r.min(MAX_DEPTH) - 1] += *w as f64;
                sum += r as f64 * *w as f64;
                n += w;
            }
        }
        (h, n, if n == 0 { f64::NAN } else { sum / n as f64 })
    };
    let (hr, nr, mr) = depth_hist(real);
    let (hs, ns, ms) = depth_hist(simulated);
    let depth = smoothed_js_distance(&hr, &hs);
    let depth = SimEvalMeasure {
        measure: "click_depth_distance",
        simeval_name: "jsd_click_depth",
        pooled_over: "clicks",
        n_real: nr,
        n_simulated: ns,
        statistic: depth,
        p_value: f64::NAN,
        real_mean: mr,
        simulated_mean: ms,
        note: if depth.is_nan() { "no clicks on one side".into() } else { String::new() },
    };
    // Session length: events = the query and one event per click.
    let len = |s: &SessionSample| expand(s, |(ranks, _, _), out| out.push(1.0 + ranks.len() as f64));
    let length = ks_measure("session_length_ks", "session_length_distribution", "sessions", len(real), len(simulated), String::new());
    // Inter-event times: positive gaps between successive (sorted) event times.
    let gaps = |s: &SessionSample| {
        expand(s, |(_, t, _), out| {
            let mut t = t.clone();
            t.sort_by(f64::total_cmp);
            out.extend(t.windows(2).map(|w| w[1] - w[0]).filter(|&g| g > 0.0));
        })
    };
    let untimed: Vec<&str> = [(real, "real"), (simulated, "simulated")].iter().filter(|(s, _)| !s.timed || s.sessions.is_empty()).map(|(_, n)| *n).collect();
    let note = if untimed.is_empty() { String::new() } else { format!("the {} sessions have no event times", untimed.join(" and ")) };
    let timing = ks_measure("inter_event_time_ks", "timing_distribution", "gaps", gaps(real), gaps(simulated), note);
    // Action types: query_issued (one per session) and click.
    let types = |s: &SessionSample| {
        let q = s.sessions() as f64;
        let c: f64 = s.sessions.iter().map(|(r, _, w)| (r.len() as u64 * w) as f64).sum();
        [q, c]
    };
    let (tr, ts) = (types(real), types(simulated));
    let share = |t: [f64; 2]| if t[0] + t[1] > 0.0 { t[1] / (t[0] + t[1]) } else { f64::NAN };
    let action = smoothed_js_distance(&tr, &ts);
    let action = SimEvalMeasure {
        measure: "action_type_distance",
        simeval_name: "jsd_action_types",
        pooled_over: "events",
        n_real: (tr[0] + tr[1]) as u64,
        n_simulated: (ts[0] + ts[1]) as u64,
        statistic: action,
        p_value: f64::NAN,
        real_mean: share(tr),
        simulated_mean: share(ts),
        note: if action.is_nan() { "no events on one side".into() } else { String::new() },
    };
    vec![depth, length, timing, action]
}

/// The measures as CSV (header and one row per measure; numbers in the house format of
/// [`crate::write::fmt_f64`]: 10 significant digits, exponent notation for tiny p-values, an
/// empty cell where a value is undefined).
pub fn to_csv(rows: &[SimEvalMeasure]) -> String {
    use std::fmt::Write as _;
    let f = crate::write::fmt_f64;
    let mut s = String::from("measure,simeval_name,pooled_over,n_real,n_simulated,statistic,p_value,real_mean,simulated_mean,note\n");
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},\"{}\"",
            r.measure,
            r.simeval_name,
            r.pooled_over,
            r.n_real,
            r.n_simulated,
            f(r.statistic),
            f(r.p_value),
            f(r.real_mean),
            f(r.simulated_mean),
            r.note.replace('"', "'")
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_p_by_hand() {
        // Disjoint samples of 3 and 3: only the 2 extreme interleavings of C(6, 3) = 20 reach
        // D = 1, so p = 0.1.
        let (d, p) = ks_2samp(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]);
        assert_eq!(d, 1.0);
        assert!((p - 0.1).abs() < 1e-15, "{p}");
        // Identical samples: D = 0, p = 1.
        assert_eq!(ks_2samp(&[1.0, 2.0], &[1.0, 2.0]), (0.0, 1.0));
    }

    #[test]
    fn js_by_hand() {
        // p = (1, 0), q = (0, 1): m = (1/2, 1/2), JSD = ln 2, distance sqrt(ln 2).
        assert!((js_distance(&[1.0, 0.0], &[0.0, 1.0]) - std::f64::consts::LN_2.sqrt()).abs() < 1e-15);
    }
}

#[cfg(test)]
mod fixture_tests {
    //! Against `tests/fixtures/stats/simeval.json`, written by `analysis/simeval/fixture.py`
    //! (SciPy 1.17.1, NumPy 2.4.6: `scipy.stats.ks_2samp`, `scipy.stats.kstwobign`,
    //! `scipy.spatial.distance.jensenshannon`, a hand-written Python JSD, and SimEval-IR's
    //! measure definitions re-implemented in that script).
    use super::*;
    use serde_json::Value;

    fn fixture() -> Value {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/stats/simeval.json");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e} (run python3 analysis/simeval/fixture.py)"));
        serde_json::from_str(&text).expect("fixture JSON")
    }

    fn floats(v: &Value) -> Vec<f64> {
        v.as_array().expect("list").iter().map(|x| x.as_f64().expect("number")).collect()
    }

    fn sample(c: &Value, key: &str) -> Vec<f64> {
        if let Some(v) = c.get(key) {
            return floats(v);
        }
        let mut out = Vec::new();
        for pair in c[format!("{key}_counts")].as_array().expect("counts") {
            let (x, k) = (pair[0].as_f64().unwrap(), pair[1].as_u64().unwrap());
            out.extend(std::iter::repeat_n(x, k as usize));
        }
        out
    }

    /// |a - b| <= rel * |b| (rel 1e-9: the exact p-value sums up to 9e6 lattice terms in
    /// another order than SciPy).
    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn ks_equals_scipy_ks_2samp() {
        let f = fixture();
        let cases = f["ks"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for c in cases {
            let name = c["name"].as_str().unwrap();
            let (x, y) = (sample(c, "x"), sample(c, "y"));
            let (d, p) = ks_2samp(&x, &y);
            let (sd, sp) = (c["statistic"].as_f64().unwrap(), c["pvalue"].as_f64().unwrap());
            assert!((d - sd).abs() < 1e-12, "{name}: D {d} vs SciPy {sd}");
            if let Some(big) = c.get("kstwobign_pvalue") {
                // Above 10 000 values: Kolmogorov's limiting distribution (SciPy's kstwobign);
                // SciPy's ks_2samp itself uses kstwo(round(nm/(n+m))) there, within 2 %.
                let b = big.as_f64().unwrap();
                assert!(close(p, b, 1e-9), "{name}: p {p} vs kstwobign {b}");
                assert!(close(p, sp, 0.02), "{name}: p {p} vs ks_2samp {sp}");
            } else {
                assert!(close(p, sp, 1e-9), "{name}: p {p} vs SciPy {sp}");
            }
        }
    }

    #[test]
    fn js_distance_equals_scipy_and_hand_jsd() {
        let f = fixture();
        for c in f["jsd"].as_array().unwrap() {
            let name = c["name"].as_str().unwrap();
            let (p, q) = (floats(&c["p"]), floats(&c["q"]));
            let j = js_distance(&p, &q);
            for key in ["scipy", "hand"] {
                let want = c[key].as_f64().unwrap();
                assert!((j - want).abs() < 1e-12, "{name}: {j} vs {key} {want}");
            }
            let s = smoothed_js_distance(&p, &q);
            for key in ["scipy_smoothed", "hand_smoothed"] {
                let want = c[key].as_f64().unwrap();
                assert!((s - want).abs() < 1e-12, "{name}: smoothed {s} vs {key} {want}");
            }
        }
    }

    fn sessions(v: &Value) -> SessionSample {
        let mut s = SessionSample::new();
        for x in v.as_array().unwrap() {
            let ranks: Vec<u32> = x["ranks"].as_array().unwrap().iter().map(|r| r.as_u64().unwrap() as u32).collect();
            let times = floats(&x["times"]);
            s.push(&ranks, Some(&times), 1);
        }
        s
    }

    #[test]
    fn measures_equal_the_simeval_definitions() {
        let f = fixture();
        for c in f["sessions"].as_array().unwrap() {
            let name = c["name"].as_str().unwrap();
            let m = compare(&sessions(&c["real"]), &sessions(&c["simulated"]));
            let want = &c["measures"];
            let by = |k: &str| m.iter().find(|x| x.measure == k).unwrap_or_else(|| panic!("{k}"));
            for k in ["click_depth_distance", "action_type_distance"] {
                let (got, w) = (by(k).statistic, want[k].as_f64().unwrap());
                assert!((got - w).abs() < 1e-12, "{name} {k}: {got} vs {w}");
            }
            for k in ["session_length_ks", "inter_event_time_ks"] {
                let (d, p) = (want[k][0].as_f64().unwrap(), want[k][1].as_f64().unwrap());
                assert!((by(k).statistic - d).abs() < 1e-12, "{name} {k}: D {} vs {d}", by(k).statistic);
                assert!(close(by(k).p_value, p, 1e-9), "{name} {k}: p {} vs {p}", by(k).p_value);
            }
        }
    }
}
