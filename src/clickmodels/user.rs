//! A click model as the user component of a scenario profile:
//! `click_model = { file = "dbn.json" }` (a fitted or hand-set model file).
//!
//! The model's query ids are the scenario's topic ids and its document ids are the
//! collection's document ids; pairs the model does not list get the prior 0.5.
//! With a click model, the model draws the clicks on the SERP; the user is taken to have
//! examined every result down to the last click (at least the first). Effort and time charge
//! the query and SERP look (if `charge_query`), one snippet per examined result, a page turn
//! per page boundary crossed, one read per click (plus a mark with the profile's mark
//! probability), and the gain model credits the clicked documents.

use super::{io, ClickModel};
use crate::collection::{Serp, Topic};
use crate::error::Result;
use crate::logs::Vocab;
use crate::rng::Stream;
use crate::simulate::{bernoulli, Outcome, SerpView};
use crate::user::{Action, ClickBehaviour, CostModel, Costs, GainModel, UserProfile};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `click_model = { file = "..." }` in a profile.
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClickModelUser {
    /// Model file (JSON), relative to the scenario file.
    pub file: PathBuf,
    #[serde(skip)]
    loaded: Option<Arc<(Box<dyn ClickModel>, Vocab)>>,
}

impl std::fmt::Debug for ClickModelUser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClickModelUser").field("file", &self.file).field("loaded", &self.loaded.is_some()).finish()
    }
}

impl PartialEq for ClickModelUser {
    fn eq(&self, other: &Self) -> bool {
        self.file == other.file
    }
}

impl ClickModelUser {
    /// A user component from a model already in memory.
    pub fn from_model(model: Box<dyn ClickModel>, vocab: Vocab) -> Self {
        ClickModelUser { file: PathBuf::new(), loaded: Some(Arc::new((model, vocab))) }
    }

    /// Loads the model file (relative paths resolve against `base`).
    pub fn load(&mut self, base: &Path) -> Result<()> {
        if self.loaded.is_none() {
            let path = if self.file.is_absolute() { self.file.clone() } else { base.join(&self.file) };
            let (m, v) = io::load(&path)?;
            self.loaded = Some(Arc::new((m, v)));
        }
        Ok(())
    }

    /// The loaded model, if any.
    pub fn model(&self) -> Option<&dyn ClickModel> {
        self.loaded.as_ref().map(|l| l.0.as_ref())
    }

    /// Pair indices of the SERP's documents in the model (`u32::MAX` for unknown pairs,
    /// which get the prior).
    pub fn pairs_for(&self, topic: &Topic, serp: &Serp) -> Vec<u32> {
        let vocab = self.loaded.as_ref().map(|l| &l.1);
        serp.docs
            .iter()
            .map(|&d| vocab.and_then(|v| v.pair(&topic.id, &topic.documents[d as usize].id)).unwrap_or(u32::MAX))
            .collect()
    }
}

/// One session of a click-model user on a SERP whose results are the model's `pairs`.
pub fn simulate_click_model_session(
    serp: &SerpView,
    pairs: &[u32],
    model: &dyn ClickModel,
    profile: &UserProfile,
    costs: &Costs,
    rng: &mut Stream,
    clicks: &mut Vec<bool>,
) -> Outcome {
    let mut out = Outcome::default();
    let (mut effort, mut time) = (0.0, 0.0);
    let mut charge = |a: Action| {
        let (e, t) = costs.charge(a);
        effort += e;
        time += t;
    };
    if profile.charge_query {
        charge(Action::IssueQuery);
        charge(Action::SerpLook);
    }
    model.simulate(pairs, rng, clicks);
    let depth = clicks.iter().rposition(|&c| c).map_or(1, |r| r + 1).min(serp.grades.len());
    let mut covered = 0u64;
    for (r, &clicked) in clicks.iter().enumerate().take(depth) {
        if r > 0 && r % serp.page_size == 0 {
            charge(Action::Paginate);
        }
        charge(Action::ExamineSnippet);
        if clicked {
            let grade = serp.grades[r];
            out.clicks += 1;
            charge(Action::ReadDocument);
            out.gain += profile.gain.credit(grade, serp.subtopics[r], &mut covered);
            if grade > 0 {
                out.relevant_found += 1;
            }
            if bernoulli(profile.clicks.mark_prob(grade.max(0) as usize), rng) {
                charge(Action::MarkRelevant);
            }
        }
    }
    out.depth = depth as u32;
    out.effort = effort;
    out.time = time;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clickmodels::Cm;

    #[test]
    fn cascade_user_clicks_first_attractive_result() {
        // CM with attractiveness 1 on rank 2: exactly one click, at rank 2, depth 2.
        let model = Cm { attractiveness: vec![0.0, 1.0, 0.3] };
        let serp = SerpView::from_grades(vec![0, 2, 1], 10);
        let profile = UserProfile::named("cm");
        let mut clicks = Vec::new();
        let o = simulate_click_model_session(&serp, &[0, 1, 2], &model, &profile, &profile.costs(), &mut crate::rng::stream(1, &[0]), &mut clicks);
        assert_eq!((o.clicks, o.depth, o.relevant_found), (1, 2, 1));
        assert_eq!(o.gain, 1.0);
    }

    #[test]
    fn scenario_profile_with_hand_set_model_file() {
        let dir = tempfile::tempdir().unwrap();
        // A hand-set GCTR model with CTR 1 clicks every result.
        std::fs::write(dir.path().join("all.json"), r#"{"model":"gctr","scalars":{"ctr":1.0}}"#).unwrap();
        let toml = "name='cm'\nreplicates=50\n[collection]\nsource='trec'\nqrels='embedded'\nruns=['embedded']\n\
                    [[profiles]]\nname='clicker'\nclick_model={file='all.json'}\n";
        let path = dir.path().join("s.toml");
        std::fs::write(&path, toml).unwrap();
        let (mut sc, base) = crate::scenario::Scenario::from_file(&path).unwrap();
        let c = sc.load(&base).unwrap();
        let plan = crate::simulate::Plan { collection: &c, profiles: &sc.profiles, replicates: 50, seed: 1, scenario: "cm" };
        let cells = crate::simulate::run(&plan, &|| {}).unwrap();
        assert!(!cells.is_empty());
        for cell in &cells {
            let n = c.systems[cell.system].serps[cell.topic].as_ref().unwrap().docs.len() as u32;
            assert!(cell.outcomes.iter().all(|o| o.clicks == n && o.depth == n), "every result clicked");
        }
        // A missing model file is an error naming it.
        std::fs::write(&path, toml.replace("all.json", "none.json")).unwrap();
        let (mut sc, base) = crate::scenario::Scenario::from_file(&path).unwrap();
        let err = sc.load(&base).unwrap_err().to_string();
        assert!(err.contains("none.json"), "{err}");
    }

    #[test]
    fn pairs_map_topic_and_document_ids() {
        let mut topic = Topic::new("q1");
        topic.find_or_add("d1");
        topic.find_or_add("d2");
        let (m, v) = io::from_json_str(r#"{"model":"dctr","pair_params":["ctr"],"pairs":[["q1","d2",0.9]]}"#, "m").unwrap();
        let u = ClickModelUser::from_model(m, v);
        let pairs = u.pairs_for(&topic, &Serp { docs: vec![1, 0] });
        assert_eq!(pairs, vec![0, u32::MAX]);
        assert_eq!(u.model().unwrap().relevance(pairs[0]), 0.9);
        assert_eq!(u.model().unwrap().relevance(pairs[1]), 0.5);
    }
}
