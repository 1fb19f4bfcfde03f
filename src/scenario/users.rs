//! Built-in users: named profiles that `serpsim simulate --profile NAME` and `--users robust`
//! put into a scenario (docs/scenarios.md, "Built-in users").
//!
//! `patient` and `impatient` are the two profiles of the embedded default scenario
//! (`simulations/default.toml`). `dbn` and `pbm` are the two classic click models as simulated
//! users with published parameters, so that a verdict can be checked against users who behave
//! differently, not just more or less patiently:
//!
//! - `dbn`: Chapelle and Zhang's dynamic Bayesian network user with the continuation
//!   gamma = 0.9 and the "informational" user of Grotov et al. (2015, Table 1, from Hofmann et
//!   al.): P(click | relevant) 0.9, P(click | non-relevant) 0.4, P(satisfied | relevant click)
//!   0.5, P(satisfied | non-relevant click) 0.1.
//! - `pbm`: the position-based model: rank r is examined with probability 1/r (the propensity
//!   of Joachims, Swaminathan and Schnabel 2017 with eta = 1), written as the continuation
//!   P(go on after rank r) = r / (r + 1) up to rank 50; clicks never end the session; P(click |
//!   examined) is the "navigational" user's of Grotov et al. Table 1 (0.95 relevant, 0.05 not).
//!
//! `patient`, `dbn` and `pbm` count graded gain (0, 1, 3 for grades 0, 1, 2 and above);
//! `impatient` counts relevant documents found, as in the default scenario.

use crate::error::{Error, Result};

/// A built-in user: its name, one line on who it is, and its `[[profiles]]` keys (TOML).
#[derive(Debug, Clone)]
pub struct BuiltIn {
    /// Profile name.
    pub name: &'static str,
    /// Who the user is, in one line (written as a comment above the profile).
    pub about: &'static str,
    /// The profile's keys after `name`, TOML.
    pub keys: String,
}

/// Names of the built-in users, in the order `--users robust` lists them.
pub const NAMES: [&str; 4] = ["patient", "impatient", "dbn", "pbm"];

/// The users of the default scenario (`--users default`, and the default of a scenario made
/// from files).
pub const DEFAULT: [&str; 2] = ["patient", "impatient"];

/// Ranks the `pbm` user's continuation table covers (examination 1/r up to rank 50, 0 after).
pub const PBM_DEPTH: usize = 50;

/// The built-in user `name`, or an error listing the names.
pub fn built_in(name: &str) -> Result<BuiltIn> {
    let name: &'static str = NAMES.iter().copied().find(|n| *n == name).ok_or_else(|| {
        Error::Invalid(format!(
            "no built-in user `{name}`: built-in users are {} (docs/scenarios.md, \"Built-in users\"); a click-model file ends in .json",
            NAMES.join(", ")
        ))
    })?;
    let graded = "gain = { model = \"graded\", gains = [0.0, 1.0, 3.0] }";
    let (about, keys) = match name {
        "patient" => (
            "RBP persistence 0.8, clicks relevant snippets 90 % of the time and non-relevant ones 20 %, stops after 5 non-relevant results in a row (the default scenario's)",
            format!(
                "continuation = {{ model = \"rbp\", p = 0.8 }}\nstopping = [{{ rule = \"contiguous_nonrelevant\", n = 5 }}]\nclicks = {{ click = [0.2, 0.9], stop = [0.0, 0.1], mark = [0.05, 0.9] }}\n{graded}\n"
            ),
        ),
        "impatient" => (
            "rank-dependent continuation exp(-0.3 r), stops at the first relevant find (the default scenario's)",
            "continuation = { model = \"exponential\", lambda = 0.3 }\nstopping = [{ rule = \"satisfaction\", k = 1 }]\nclicks = { click = [0.3, 0.95], stop = [0.0, 0.5], mark = [0.0, 1.0] }\n".to_string(),
        ),
        "dbn" => (
            "DBN user: continuation gamma 0.9, clicks and satisfaction of the informational user of Grotov et al. (2015) Table 1",
            format!("continuation = {{ model = \"rbp\", p = 0.9 }}\nclicks = {{ click = [0.4, 0.9], stop = [0.1, 0.5] }}\n{graded}\n"),
        ),
        "pbm" => {
            let p: Vec<String> = (1..PBM_DEPTH).map(|r| crate::write::fmt_f64(r as f64 / (r + 1) as f64)).collect();
            (
                "PBM user: rank r examined with probability 1/r (to rank 50), clicks of the navigational user of Grotov et al. (2015) Table 1, never satisfied",
                format!("continuation = {{ model = \"empirical\", p = [{}] }}\nclicks = {{ click = [0.05, 0.95], stop = [0.0] }}\n{graded}\n", p.join(", ")),
            )
        }
        _ => unreachable!("NAMES lists the users above"),
    };
    Ok(BuiltIn { name, about, keys })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every built-in user parses as a profile and validates; the `pbm` table gives examination
    /// 1/r (hand: the product of r' / (r' + 1) for r' < r telescopes to 1 / r).
    #[test]
    fn built_in_users_parse_and_pbm_examines_one_over_rank() {
        for name in NAMES {
            let b = built_in(name).unwrap();
            let text = format!("name = \"{name}\"\n{}", b.keys);
            let p: crate::user::UserProfile = crate::scenario::from_toml(&text, name).unwrap();
            p.validate(name, "profile").unwrap();
        }
        let b = built_in("pbm").unwrap();
        let table: toml::Value = toml::from_str(&b.keys).unwrap();
        let p: Vec<f64> = table["continuation"]["p"].as_array().unwrap().iter().map(|v| v.as_float().unwrap()).collect();
        assert_eq!(p.len(), PBM_DEPTH - 1);
        let mut examined = 1.0;
        for (r, q) in p.iter().enumerate() {
            examined *= q;
            let rank = r + 2;
            assert!((examined - 1.0 / rank as f64).abs() < 1e-9, "rank {rank}: {examined}");
        }
        assert!(built_in("nobody").unwrap_err().to_string().contains("patient, impatient, dbn, pbm"));
    }
}
