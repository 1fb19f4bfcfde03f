//! Populations: any numeric parameter of a profile may be a distribution, drawn once per
//! simulated user.
//!
//! In a scenario file a parameter is either a number (`p = 0.8`) or a table naming a
//! distribution (`p = { dist = "beta", a = 8, b = 2 }`). The draw of user `u` for the parameter
//! at key path `k` (e.g. `continuation.p`) comes from the stream `(seed, "population", k, u)`:
//! it does not depend on the topic, the system or the profile, so the same user meets every
//! compared system with the same parameters (common random numbers), and two profiles that
//! give a parameter the same distribution draw the same value for the same user.

use crate::error::{Error, Result};
use crate::rng::{derive_key, hash_str, Stream};
use rand::{Rng, SeedableRng};
use rand_distr::Distribution;
use serde::{Deserialize, Serialize};

/// A distribution of a parameter over simulated users.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum Dist {
    /// Every user gets `value` (a point mass; the same as writing the number).
    Point {
        /// The value.
        value: f64,
    },
    /// Beta(a, b) on [0, 1]: mean a / (a + b).
    Beta {
        /// First shape a > 0.
        a: f64,
        /// Second shape b > 0.
        b: f64,
    },
    /// Log-normal: either `mu` and `sigma` of the log, or the arithmetic `mean` and `sd`
    /// (sigma^2 = ln(1 + sd^2 / mean^2), mu = ln(mean) - sigma^2 / 2).
    Lognormal {
        /// Mean of the log.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mu: Option<f64>,
        /// Sd of the log.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sigma: Option<f64>,
        /// Arithmetic mean.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mean: Option<f64>,
        /// Arithmetic sd.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sd: Option<f64>,
    },
    /// Gamma with `shape` k > 0 and `scale` theta > 0: mean k theta.
    Gamma {
        /// Shape.
        shape: f64,
        /// Scale.
        scale: f64,
    },
    /// Uniform on [low, high].
    Uniform {
        /// Lower end.
        low: f64,
        /// Upper end.
        high: f64,
    },
    /// An empirical list (e.g. values fitted per logged user): each simulated user gets one
    /// value, drawn uniformly (`pick = "random"`, default) or user `u` gets `values[u % n]`
    /// (`pick = "cycle"`).
    Empirical {
        /// The values.
        values: Vec<f64>,
        /// How a user picks a value.
        #[serde(default)]
        pick: Pick,
    },
}

/// How a user picks one of an empirical list's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pick {
    /// Uniformly at random (keyed by the user).
    #[default]
    Random,
    /// User `u` takes value `u mod n`.
    Cycle,
}

/// The range a parameter's values must lie in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Support {
    /// A probability, [0, 1].
    Probability,
    /// Any number in [0, [`crate::limits::MAX_MAGNITUDE`]] (10^9).
    NonNegative,
    /// A count >= 1 (drawn values are rounded to the nearest integer, at least 1).
    Count,
}

impl Support {
    fn name(self) -> &'static str {
        match self {
            Support::Probability => "a probability in [0, 1]",
            Support::NonNegative => "a number in [0, 1e9] (the upper bound of costs, gains, times and budgets)",
            Support::Count => "a count >= 1",
        }
    }
    fn contains(self, v: f64) -> bool {
        match self {
            Support::Probability => (0.0..=1.0).contains(&v),
            Support::NonNegative => v.is_finite() && (0.0..=crate::limits::MAX_MAGNITUDE).contains(&v),
            Support::Count => v.is_finite() && v >= 0.5,
        }
    }
}

/// A numeric parameter: a fixed number or a distribution over users.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// The same value for every user.
    Fixed(f64),
    /// One draw per user.
    Dist(Dist),
}

impl From<f64> for Param {
    fn from(v: f64) -> Self {
        Param::Fixed(v)
    }
}

impl Serialize for Param {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Param::Fixed(v) => s.serialize_f64(*v),
            Param::Dist(d) => d.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Param {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Param;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or a distribution table such as { dist = \"beta\", a = 8, b = 2 }")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Param, E> {
                Ok(Param::Fixed(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Param, E> {
                Ok(Param::Fixed(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Param, E> {
                Ok(Param::Fixed(v as f64))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> std::result::Result<Param, A::Error> {
                Dist::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Param::Dist)
            }
        }
        d.deserialize_any(V)
    }
}

impl Param {
    /// The value every user shares, if the parameter is not a (non-point) distribution.
    pub fn fixed(&self) -> Option<f64> {
        match self {
            Param::Fixed(v) | Param::Dist(Dist::Point { value: v }) => Some(*v),
            Param::Dist(_) => None,
        }
    }

    /// The mean over users (the value itself when fixed).
    pub fn mean(&self) -> f64 {
        match self {
            Param::Fixed(v) => *v,
            Param::Dist(d) => d.mean(),
        }
    }

    /// Checks the parameter (or every value its distribution can take) lies in `support`;
    /// errors name `key`.
    pub fn validate(&self, context: &str, key: &str, support: Support) -> Result<()> {
        match self {
            Param::Fixed(v) => {
                if v.is_nan() {
                    return Err(Error::config(context, key, format!("is NaN; expected {}", support.name())));
                }
                if !support.contains(*v) {
                    return Err(Error::config(context, key, format!("{v} is outside the range of {}", support.name())));
                }
                Ok(())
            }
            Param::Dist(d) => d.validate(context, key, support),
        }
    }

    /// The value of user `user`: the fixed value, or the user's draw (see the module docs).
    pub fn value(&self, seed: u64, path: u64, user: u64, support: Support) -> f64 {
        match self {
            Param::Fixed(v) => *v,
            Param::Dist(d) => d.draw(seed, path, user, support),
        }
    }
}

/// Tag of population streams.
const POPULATION: u64 = 0x504f_5055_4c41_5449; // "POPULATI"

/// Stable id of a parameter's key path (`continuation.p`), part of its draws' stream key.
pub fn path_id(path: &str) -> u64 {
    hash_str(path)
}

impl Dist {
    /// Mean of the distribution (for reports).
    pub fn mean(&self) -> f64 {
        match self {
            Dist::Point { value } => *value,
            Dist::Beta { a, b } => a / (a + b),
            Dist::Lognormal { .. } => {
                let (mu, sigma) = self.log_params().unwrap_or((f64::NAN, f64::NAN));
                (mu + 0.5 * sigma * sigma).exp()
            }
            Dist::Gamma { shape, scale } => shape * scale,
            Dist::Uniform { low, high } => 0.5 * (low + high),
            Dist::Empirical { values, .. } => values.iter().sum::<f64>() / values.len().max(1) as f64,
        }
    }

    fn log_params(&self) -> Option<(f64, f64)> {
        match *self {
            Dist::Lognormal { mu: Some(mu), sigma: Some(sigma), mean: None, sd: None } => Some((mu, sigma)),
            Dist::Lognormal { mu: None, sigma: None, mean: Some(m), sd: Some(s) } => {
                let s2 = (1.0 + (s * s) / (m * m)).ln();
                Some((m.ln() - 0.5 * s2, s2.sqrt()))
            }
            _ => None,
        }
    }

    /// Checks the distribution's own parameters and that its support fits `support`.
    pub fn validate(&self, context: &str, key: &str, support: Support) -> Result<()> {
        let bad = |k: &str, why: String| Err(Error::config(context, format!("{key}.{k}"), why));
        let finite = |k: &str, v: f64| if v.is_finite() { Ok(()) } else { bad(k, format!("{v} must be a finite number")) };
        match self {
            Dist::Point { value } => {
                finite("value", *value)?;
                if !support.contains(*value) {
                    return bad("value", format!("{value} is outside the range of {}", support.name()));
                }
            }
            Dist::Beta { a, b } => {
                for (k, v) in [("a", *a), ("b", *b)] {
                    finite(k, v)?;
                    if v <= 0.0 {
                        return bad(k, format!("{v} must be > 0"));
                    }
                }
                if support == Support::Count {
                    return Err(Error::config(context, key, "a beta distribution lies in [0, 1]; a count needs values >= 1"));
                }
            }
            Dist::Lognormal { mu, sigma, mean, sd } => {
                let Some((m, s)) = self.log_params() else {
                    return Err(Error::config(context, key, "a lognormal needs either `mu` and `sigma`, or `mean` and `sd`"));
                };
                for (k, v) in [("mu", *mu), ("sigma", *sigma), ("mean", *mean), ("sd", *sd)] {
                    if let Some(v) = v {
                        finite(k, v)?;
                    }
                }
                if mean.is_some_and(|m| m <= 0.0) {
                    return bad("mean", "must be > 0".into());
                }
                if sigma.is_some_and(|s| s < 0.0) || sd.is_some_and(|s| s < 0.0) {
                    return Err(Error::config(context, key, "sigma and sd must be >= 0"));
                }
                if !(m.is_finite() && s.is_finite()) {
                    return Err(Error::config(context, key, "the log-scale parameters are not finite"));
                }
                if support == Support::Probability {
                    return Err(Error::config(context, key, "a lognormal is not bounded by 1; a probability needs beta, uniform within [0, 1], or empirical"));
                }
            }
            Dist::Gamma { shape, scale } => {
                for (k, v) in [("shape", *shape), ("scale", *scale)] {
                    finite(k, v)?;
                    if v <= 0.0 {
                        return bad(k, format!("{v} must be > 0"));
                    }
                }
                if support == Support::Probability {
                    return Err(Error::config(context, key, "a gamma is not bounded by 1; a probability needs beta, uniform within [0, 1], or empirical"));
                }
            }
            Dist::Uniform { low, high } => {
                finite("low", *low)?;
                finite("high", *high)?;
                if low > high {
                    return bad("low", format!("{low} exceeds high = {high}"));
                }
                for (k, v) in [("low", *low), ("high", *high)] {
                    if !support.contains(v) {
                        return bad(k, format!("{v} is outside the range of {}", support.name()));
                    }
                }
            }
            Dist::Empirical { values, .. } => {
                if values.is_empty() {
                    return bad("values", "must list at least one value".into());
                }
                for (i, &v) in values.iter().enumerate() {
                    if !v.is_finite() || !support.contains(v) {
                        return bad(&format!("values[{i}]"), format!("{v} is outside the range of {}", support.name()));
                    }
                }
            }
        }
        let mean = self.mean();
        if support == Support::NonNegative && !(mean <= crate::limits::MAX_MAGNITUDE) {
            return Err(Error::config(context, key, format!("the distribution's mean {mean} is above the upper bound of {:e}", crate::limits::MAX_MAGNITUDE)));
        }
        Ok(())
    }

    /// The draw of `user` for the parameter with path id `path` (see [`path_id`]). Counts are
    /// rounded to the nearest integer (at least 1).
    pub fn draw(&self, seed: u64, path: u64, user: u64, support: Support) -> f64 {
        let mut rng = Stream::seed_from_u64(derive_key(seed, &[POPULATION, path, user]));
        let v = match self {
            Dist::Point { value } => *value,
            Dist::Beta { a, b } => rand_distr::Beta::new(*a, *b).map_or(f64::NAN, |d| d.sample(&mut rng)),
            Dist::Lognormal { .. } => {
                let (mu, sigma) = self.log_params().unwrap_or((f64::NAN, f64::NAN));
                rand_distr::LogNormal::new(mu, sigma).map_or(f64::NAN, |d| d.sample(&mut rng))
            }
            Dist::Gamma { shape, scale } => rand_distr::Gamma::new(*shape, *scale).map_or(f64::NAN, |d| d.sample(&mut rng)),
            Dist::Uniform { low, high } => {
                if low == high {
                    *low
                } else {
                    low + (high - low) * rng.random::<f64>()
                }
            }
            Dist::Empirical { values, pick } => match pick {
                Pick::Random => values[rng.random_range(0..values.len())],
                Pick::Cycle => values[(user % values.len() as u64) as usize],
            },
        };
        match support {
            Support::Count => v.round().max(1.0),
            Support::Probability => v.clamp(0.0, 1.0),
            // A lognormal or gamma draw can exceed any bound; clamp it like the support.
            Support::NonNegative => v.clamp(0.0, crate::limits::MAX_MAGNITUDE),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Doc {
        p: Param,
    }

    #[test]
    fn numbers_and_tables_parse_and_unknown_keys_are_named() {
        let d: Doc = toml::from_str("p = 0.8").unwrap();
        assert_eq!(d.p, Param::Fixed(0.8));
        let d: Doc = toml::from_str("p = 3").unwrap();
        assert_eq!(d.p, Param::Fixed(3.0));
        let d: Doc = toml::from_str("p = { dist = \"beta\", a = 8, b = 2 }").unwrap();
        assert_eq!(d.p, Param::Dist(Dist::Beta { a: 8.0, b: 2.0 }));
        let e = toml::from_str::<Doc>("p = { dist = \"beta\", a = 8, bb = 2 }").unwrap_err().to_string();
        assert!(e.contains("bb"), "{e}");
        let e = toml::from_str::<Doc>("p = { dist = \"weibull\" }").unwrap_err().to_string();
        assert!(e.contains("weibull"), "{e}");
    }

    #[test]
    fn validation_checks_support() {
        let beta = Param::Dist(Dist::Beta { a: 8.0, b: 2.0 });
        assert!(beta.validate("s", "p", Support::Probability).is_ok());
        let ln = Param::Dist(Dist::Lognormal { mu: Some(0.0), sigma: Some(1.0), mean: None, sd: None });
        let e = ln.validate("s", "continuation.p", Support::Probability).unwrap_err().to_string();
        assert!(e.contains("continuation.p") && e.contains("not bounded"), "{e}");
        let u = Param::Dist(Dist::Uniform { low: 0.5, high: 1.2 });
        assert!(u.validate("s", "p", Support::Probability).unwrap_err().to_string().contains("p.high"));
        let both = Param::Dist(Dist::Lognormal { mu: Some(0.0), sigma: None, mean: Some(1.0), sd: None });
        assert!(both.validate("s", "x", Support::NonNegative).is_err());
        assert!(Param::Fixed(f64::NAN).validate("s", "x", Support::NonNegative).unwrap_err().to_string().contains("NaN"));
    }

    #[test]
    fn draws_are_keyed_by_user_and_path_and_match_moments() {
        let d = Dist::Beta { a: 8.0, b: 2.0 };
        let path = path_id("continuation.p");
        assert_eq!(d.draw(1, path, 5, Support::Probability), d.draw(1, path, 5, Support::Probability));
        assert_ne!(d.draw(1, path, 5, Support::Probability), d.draw(1, path, 6, Support::Probability));
        assert_ne!(d.draw(1, path, 5, Support::Probability), d.draw(1, path_id("x"), 5, Support::Probability));
        // Beta(8, 2): mean 0.8, variance ab / ((a+b)^2 (a+b+1)) = 16 / 1100 = 0.014545 (closed
        // form). With n = 40,000 draws the se of the mean is sqrt(0.014545 / n) = 0.0006.
        let n = 40_000u64;
        let xs: Vec<f64> = (0..n).map(|u| d.draw(9, path, u, Support::Probability)).collect();
        let m = crate::stats::mean(&xs);
        let v = crate::stats::sd(&xs).powi(2);
        assert!((m - 0.8).abs() < 4.0 * 0.0006, "{m}");
        assert!((v - 16.0 / 1100.0).abs() < 0.001, "{v}");
        // Lognormal by mean and sd: the arithmetic mean is recovered (mean 10, sd 5: se 0.025).
        let ln = Dist::Lognormal { mu: None, sigma: None, mean: Some(10.0), sd: Some(5.0) };
        let xs: Vec<f64> = (0..n).map(|u| ln.draw(9, path, u, Support::NonNegative)).collect();
        assert!((crate::stats::mean(&xs) - 10.0).abs() < 4.0 * 0.025);
        // Empirical cycling assigns values in user order; counts round.
        let e = Dist::Empirical { values: vec![1.4, 2.6], pick: Pick::Cycle };
        assert_eq!((e.draw(0, 0, 0, Support::Count), e.draw(0, 0, 1, Support::Count)), (1.0, 3.0));
    }
}
