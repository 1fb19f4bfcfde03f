//! A user profile: continuation, stopping, clicks, costs and gain combined.

use super::costs::PartialActionTable;
use super::{ActionTable, Cascade, ContinuationModel, Costs, GainKind, StoppingRuleKind};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A simulated user population: one value of every behaviour component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserProfile {
    /// Profile name, used in outputs and to derive random streams.
    pub name: String,
    /// Continuation model (default: RBP persistence 0.8).
    #[serde(default = "default_continuation")]
    pub continuation: ContinuationModel,
    /// Stopping rules, combined with "or" (default: none).
    #[serde(default)]
    pub stopping: Vec<StoppingRuleKind>,
    /// Cascade click behaviour.
    #[serde(default)]
    pub clicks: Cascade,
    /// Gain model (default: binary).
    #[serde(default = "default_gain")]
    pub gain: GainKind,
    /// Effort weights per action; entries not given keep their defaults.
    #[serde(default = "default_effort", deserialize_with = "effort_over_defaults")]
    pub effort: ActionTable,
    /// Seconds per action; entries not given keep their defaults.
    #[serde(default = "default_time", deserialize_with = "time_over_defaults")]
    pub time: ActionTable,
    /// Charge the query and the first SERP look at the start of each session (default true).
    #[serde(default = "default_true")]
    pub charge_query: bool,
    /// A fitted or hand-set click model that draws the clicks instead of the cascade
    /// (`click_model = { file = "model.json" }`, see docs/clickmodels.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub click_model: Option<crate::clickmodels::user::ClickModelUser>,
}

fn default_continuation() -> ContinuationModel {
    ContinuationModel::Rbp { p: 0.8 }
}
fn default_gain() -> GainKind {
    GainKind::Binary
}
fn default_effort() -> ActionTable {
    ActionTable::DEFAULT_EFFORT
}
fn default_time() -> ActionTable {
    ActionTable::DEFAULT_TIME
}
fn effort_over_defaults<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<ActionTable, D::Error> {
    Ok(PartialActionTable::deserialize(d)?.over(ActionTable::DEFAULT_EFFORT))
}
fn time_over_defaults<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<ActionTable, D::Error> {
    Ok(PartialActionTable::deserialize(d)?.over(ActionTable::DEFAULT_TIME))
}
fn default_true() -> bool {
    true
}

impl UserProfile {
    /// A profile with every default and the given name.
    pub fn named(name: impl Into<String>) -> Self {
        UserProfile {
            name: name.into(),
            continuation: default_continuation(),
            stopping: Vec::new(),
            clicks: Cascade::default(),
            gain: default_gain(),
            effort: default_effort(),
            time: default_time(),
            charge_query: true,
            click_model: None,
        }
    }

    /// The cost model of this profile.
    pub fn costs(&self) -> Costs {
        Costs { effort: self.effort, time: self.time }
    }

    /// Checks every component; errors name the key under `key` (e.g. `profiles[0]`).
    pub fn validate(&self, context: &str, key: &str) -> Result<()> {
        if self.name.trim().is_empty() {
            return Err(Error::config(context, format!("{key}.name"), "must not be empty"));
        }
        self.continuation.validate(context, &format!("{key}.continuation"))?;
        for (i, r) in self.stopping.iter().enumerate() {
            r.validate(context, &format!("{key}.stopping[{i}]"))?;
        }
        self.clicks.validate(context, &format!("{key}.clicks"))?;
        self.gain.validate(context, &format!("{key}.gain"))?;
        if let Some(cm) = &self.click_model {
            if cm.file.as_os_str().is_empty() && cm.model().is_none() {
                return Err(Error::config(context, format!("{key}.click_model.file"), "must not be empty"));
            }
        }
        self.effort.validate(context, &format!("{key}.effort"))?;
        self.time.validate(context, &format!("{key}.time"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_cost_tables_keep_defaults() {
        let p: UserProfile = toml::from_str("name = 'u'\n[time]\nread_document = 30.0\n[effort]\nread_document = 2.0\n").unwrap();
        assert_eq!(p.time.read_document, 30.0);
        assert_eq!(p.time.issue_query, 15.1);
        assert_eq!((p.effort.read_document, p.effort.examine_snippet), (2.0, 1.0));
        assert!(toml::from_str::<UserProfile>("name = 'u'\n[time]\nread_doc = 3.0\n").unwrap_err().to_string().contains("read_doc"));
    }
}
