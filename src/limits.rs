//! Upper bounds of every size, count and magnitude knob (issue 29): options, scenario keys and
//! counts read from data files. A value above its bound is refused before anything is
//! allocated or simulated, with an error that names the key, the value and the bound
//! (``CONTEXT: key `KEY`: VALUE is above the upper bound of MAX (what)``), so no input can make serpsim allocate
//! without bound, overflow or run for years. The bounds are generous: each is far above any
//! study the project knows of, and they are listed in docs/reliability.md ("Bounds").

use crate::error::{Error, Result};

/// Resamples of a bootstrap or randomisation test (`eval --resamples`).
pub const MAX_RESAMPLES: u64 = 1_000_000;
/// Bootstrap resamples of a validation (`clicks validate --bootstrap`, `study validate --bootstrap`)
/// and of the per-grade intervals (`clicks fit --grade-bootstrap`).
pub const MAX_BOOTSTRAP: u64 = 1_000_000;
/// Monte-Carlo or MCMC samples (`compare-rankers --samples`, `clicks validate-switches
/// --samples`, `clicks fit --samples`).
pub const MAX_SAMPLES: u64 = 10_000_000;
/// EM passes and other iteration counts (`--iterations`).
pub const MAX_ITERATIONS: u64 = 1_000_000;
/// Simulated users per profile and topic of a scenario (`replicates`, `--replicates`).
pub const MAX_REPLICATES: u64 = 1_000_000_000;
/// Simulated sessions per SERP (`clicks simulate --replicates`).
pub const MAX_CLICK_REPLICATES: u64 = 1_000_000;
/// Sessions `clicks simulate` may hold in memory (SERPs times replicates).
pub const MAX_SIMULATED_SESSIONS: u64 = 100_000_000;
/// Topics of a generated collection.
pub const MAX_TOPICS: u64 = 100_000;
/// Documents per topic of a generated collection.
pub const MAX_DOCS_PER_TOPIC: u64 = 1_000_000;
/// Documents of a generated collection (topics times documents per topic).
pub const MAX_DOCUMENTS: u64 = 100_000_000;
/// Queries per strategy and topic of the session generator.
pub const MAX_QUERIES_PER_STRATEGY: u64 = 10_000;
/// Ranked lists of the session generator (topics times strategies times queries per strategy).
pub const MAX_GENERATED_QUERIES: u64 = 10_000_000;
/// Categories of a synthetic collection.
pub const MAX_CATEGORIES: u64 = 10_000;
/// Histogram bins of a plot.
pub const MAX_HISTOGRAM_BINS: u64 = 10_000;
/// Hosmer-Lemeshow groups.
pub const MAX_HL_GROUPS: u64 = 10_000;
/// Participants, tasks and queries per task of a synthetic study; segments per session of a
/// synthetic suggestion log.
pub const MAX_STUDY_COUNT: u64 = 100_000;
/// Result pages per query of a synthetic study.
pub const MAX_PAGES: u64 = 1_000;
/// Sessions of a synthetic suggestion log.
pub const MAX_SESSIONS: u64 = 10_000_000;
/// Segments (text passages) per synthetic suggestion session.
pub const MAX_SEGMENTS: u64 = 10_000;
/// Displayed segments of a whole synthetic suggestion log (sessions * queries * segments).
pub const MAX_LOG_SEGMENTS: u64 = 10_000_000;
/// Gaze sampling rate of a synthetic study (Hz): the fastest trackers record at 2,000 Hz.
pub const MAX_SAMPLE_RATE_HZ: f64 = 10_000.0;
/// Gaze samples of one synthetic study session (held in memory with its ASC text: about 64
/// bytes each), estimated by [`crate::study::synthetic::StudyConfig::size_estimates`].
pub const MAX_SESSION_SAMPLES: u64 = 10_000_000;
/// Gaze samples of a whole synthetic study (its ASC files: about 40 bytes each).
pub const MAX_STUDY_SAMPLES: u64 = 1_000_000_000;
/// Clock of one synthetic study session in milliseconds (10^11 ms is 3 years): keeps the
/// sample clock far from where adding a sample interval no longer changes it.
pub const MAX_SESSION_MS: f64 = 1e11;
/// AOI boxes of a whole synthetic study (held in memory until the end), worst case.
pub const MAX_STUDY_AOIS: u64 = 10_000_000;
/// Suggestions of a whole synthetic suggestion log (sessions * queries * candidates).
pub const MAX_LOG_SUGGESTIONS: u64 = 10_000_000;
/// Result entries of a generated click log (`clicks generate`: sessions * SERP length).
pub const MAX_GENERATED_RESULTS: u64 = 20_000_000_000;
/// Instances per topic and interface of a synthetic sublist log (`sublists gen-log`).
pub const MAX_LOG_INSTANCES: u64 = 1_000_000;
/// Events of a synthetic sublist log, worst case (held in memory, then written).
pub const MAX_LOG_EVENTS: u64 = 50_000_000;
/// Largest cost, gain, time, budget or other non-negative magnitude of a scenario
/// (seconds, effort units or gain units): 10^9 seconds is 31 years, so a larger value is a
/// typing error, and sums of many such values stay far from overflow.
pub const MAX_MAGNITUDE: f64 = 1e9;

/// Checks that `value` is finite, non-negative and at most [`MAX_MAGNITUDE`]
/// (costs, gains, times and budgets: a larger value is a typing error and would make sums
/// overflow to infinity).
pub fn check_non_negative(context: &str, key: &str, value: f64) -> Result<()> {
    if !value.is_finite() || value < 0.0 {
        return Err(Error::config(context, key, format!("{value} must be a finite number >= 0")));
    }
    if value > MAX_MAGNITUDE {
        return Err(Error::config(context, key, format!("{value} is above the upper bound of {:e}", MAX_MAGNITUDE)));
    }
    Ok(())
}

/// Refuses `value` above `max`: ``CONTEXT: key `KEY`: VALUE is above the upper bound of MAX (WHAT)``.
///
/// ```
/// let err = serpsim::limits::check_count("eval", "--resamples", 1 << 40, serpsim::limits::MAX_RESAMPLES, "resamples").unwrap_err();
/// assert_eq!(err.to_string(), "eval: key `--resamples`: 1099511627776 is above the upper bound of 1000000 (resamples)");
/// ```
pub fn check_count(context: &str, key: &str, value: u64, max: u64, what: &str) -> Result<()> {
    if value > max {
        return Err(Error::config(context, key, format!("{value} is above the upper bound of {max} ({what})")));
    }
    Ok(())
}

/// [`check_count`] for a `usize`.
pub fn check_usize(context: &str, key: &str, value: usize, max: u64, what: &str) -> Result<()> {
    check_count(context, key, value as u64, max, what)
}

/// Refuses a product of counts above `max` (computed without overflow); `keys` names the factors.
pub fn check_product(context: &str, keys: &str, factors: &[u64], max: u64, what: &str) -> Result<()> {
    let product = factors.iter().try_fold(1u64, |acc, &f| acc.checked_mul(f));
    match product {
        Some(p) if p <= max => Ok(()),
        Some(p) => Err(Error::config(context, keys, format!("the product {p} is above the upper bound of {max} ({what})"))),
        None => Err(Error::config(context, keys, format!("the product overflows; the upper bound is {max} ({what})"))),
    }
}

/// Refuses an estimated size above `max`: ``CONTEXT: key `KEYS`: an estimated N WHAT (about
/// SIZE) is above the upper bound of MAX``, where SIZE is `estimate * bytes_each` in readable
/// units (left out when `bytes_each` is 0). `keys` names the knobs the estimate comes from.
///
/// ```
/// let err = serpsim::limits::check_estimate("study synth", "sample_rate_hz * session length", 2.5e7, 10_000_000, "gaze samples per session", 64.0).unwrap_err();
/// assert_eq!(err.to_string(), "study synth: key `sample_rate_hz * session length`: an estimated 25000000 gaze samples per session (about 1.6 GB) is above the upper bound of 10000000");
/// ```
pub fn check_estimate(context: &str, keys: &str, estimate: f64, max: u64, what: &str, bytes_each: f64) -> Result<()> {
    if estimate.is_finite() && estimate <= max as f64 {
        return Ok(());
    }
    let n = if estimate.is_finite() && estimate < 1e19 { format!("{}", estimate.ceil() as u64) } else { format!("{estimate:e}") };
    let size = if bytes_each > 0.0 { format!(" (about {})", human_bytes(estimate * bytes_each)) } else { String::new() };
    Err(Error::config(context, keys, format!("an estimated {n} {what}{size} is above the upper bound of {max}")))
}

/// `bytes` as `1.6 GB` (powers of 1000, two significant digits).
pub fn human_bytes(bytes: f64) -> String {
    if !bytes.is_finite() {
        return "more than any disk".into();
    }
    let units = ["bytes", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut v = bytes;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < units.len() {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{} bytes", v.round())
    } else if v < 10.0 {
        format!("{v:.1} {}", units[u])
    } else {
        format!("{v:.0} {}", units[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_name_key_value_and_bound() {
        // Hand-written expectations: the message format stated in the module docs.
        let e = check_count("s.toml", "collection.topics", 9223372036854775807, MAX_TOPICS, "topics").unwrap_err().to_string();
        assert!(e.contains("collection.topics") && e.contains("9223372036854775807 is above the upper bound of 100000"), "{e}");
        assert!(check_count("s", "k", MAX_TOPICS, MAX_TOPICS, "x").is_ok());
        // 2^32 * 2^32 overflows u64.
        let e = check_product("s", "a * b", &[1 << 32, 1 << 32], 10, "x").unwrap_err().to_string();
        assert!(e.contains("overflows"), "{e}");
        let e = check_product("s", "a * b", &[1000, 1001], 1_000_000, "x").unwrap_err().to_string();
        assert!(e.contains("1001000 is above the upper bound of 1000000"), "{e}");
        assert!(check_product("s", "a * b", &[1000, 1000], 1_000_000, "x").is_ok());
    }

    #[test]
    fn estimates_name_the_estimate_its_size_and_the_bound() {
        // Hand-computed: 3e9 samples * 40 bytes = 1.2e11 bytes = 120 GB.
        let e = check_estimate("c", "k", 3e9, 1_000_000_000, "gaze samples", 40.0).unwrap_err().to_string();
        assert_eq!(e, "c: key `k`: an estimated 3000000000 gaze samples (about 120 GB) is above the upper bound of 1000000000");
        assert!(check_estimate("c", "k", 1e9, 1_000_000_000, "x", 1.0).is_ok());
        let e = check_estimate("c", "k", f64::INFINITY, 10, "x", 0.0).unwrap_err().to_string();
        assert!(e.contains("an estimated inf x is above the upper bound of 10"), "{e}");
        let e = check_estimate("c", "k", f64::NAN, 10, "x", 0.0).unwrap_err().to_string();
        assert!(e.contains("NaN"), "{e}");
        assert_eq!(human_bytes(999.0), "999 bytes");
        assert_eq!(human_bytes(1.6e9), "1.6 GB");
    }
}
