//! Click models as the click behaviour of simulated users.
//!
//! A fitted or hand-set model file (`click_model = { file = "dbn.json" }` in a profile)
//! becomes a [`FittedClicks`], which implements the user-side [`ClickSource`] trait: per topic,
//! flat per-document attractiveness and satisfaction, plus the model's own examination and
//! continuation ([`Dynamics`]). The engine only knows the trait; this module depends on the
//! user components, never the other way round.
//!
//! The model's query ids are the scenario's topic ids and its document ids the collection's
//! document ids. Each model says how it maps onto the walk in its registry entry
//! ([`UserSpec`](super::registry::UserSpec): its attractiveness and satisfaction tables, and a
//! `walk` hook giving the dynamics and the satisfaction rule from its query-independent
//! parameters); this module names no model. The built-in mappings (exactly each model's own
//! generative process when the profile keeps the model's continuation):
//!
//! | model | click | satisfied after a click | go on after no click / unsatisfying click | examination |
//! |---|---|---|---|---|
//! | CM | a | 1 | 1 / - | every result |
//! | DCM | a | 1 - lambda_r | 1 / 1 | every result |
//! | CCM | a | 1 - (a tau3 + (1 - a) tau2) | tau1 / 1 | every result |
//! | DBN | a | s | gamma / gamma | every result |
//! | SDBN | a | s | 1 / 1 | every result |
//! | UBM | a | 0 | 1 | gamma(r, last click) |
//! | PBM | a | 0 | 1 | gamma(r) |
//! | GCTR, DCTR | ctr | 0 | 1 | every result |
//! | RCTR | 1 | 0 | 1 | ctr(r) |
//!
//! CCM's second draw (is the clicked document relevant?) only decides whether the user goes on,
//! so folding it into the probability of going on gives the same click distribution.

use super::portable::{quantile_by_grade, ByGrade};
use super::registry::Satisfaction;
use super::{io, param, ClickModel, ModelKind, PRIOR};
use crate::error::{Error, Result};
use crate::logs::Vocab;
use crate::user::{ClickSource, ClickTables, Coverage, Dynamics, GradeMap, GradeMapping};
use std::path::Path;
use std::sync::Arc;

/// A click model's parameters by (query id, document id), ready to give per-topic tables.
#[derive(Debug, Clone)]
pub struct FittedClicks {
    label: String,
    kind: ModelKind,
    vocab: Vocab,
    /// Attractiveness (or CTR) per pair index.
    attractiveness: Vec<f64>,
    /// Satisfaction per pair index (NaN: from the model's rank tables or none).
    satisfaction: Vec<f64>,
    /// The value every pair has when the model has no per-pair parameter (GCTR, RCTR).
    global: Option<(f64, f64)>,
    dynamics: Arc<Dynamics>,
    /// Satisfaction after a click from attractiveness (CCM: from its tau2 and tau3).
    satisfaction_rule: Satisfaction,
    /// Per-grade values fitted on the log's labels (the file's `grades`).
    by_grade: Option<ByGrade>,
    /// The dynamics and satisfaction rule of the tied fit that produced `by_grade` (the file's
    /// `grade_fit`), for the topics that take every value from the grades.
    grade_dynamics: Option<(Arc<Dynamics>, Satisfaction)>,
}

fn pair(t: &io::ParamTable, name: &str, n: usize) -> Vec<f64> {
    let v = t.pairs.iter().find(|(p, _)| p == name).map(|x| x.1.as_slice()).unwrap_or(&[]);
    (0..n).map(|i| param(v, i)).collect()
}

impl FittedClicks {
    /// Loads a model file; `label` names it in reports (e.g. the path as the scenario gives it).
    pub fn load(path: &Path, label: &str) -> Result<Self> {
        let (model, vocab, grades) = io::load_with_grades(path)?;
        let f = Self::from_model(model.as_ref(), vocab, label);
        Ok(match grades {
            Some(g) => f.with_grades(g),
            None => f,
        })
    }

    /// With per-grade values fitted on the log's labels; with their fit's query-independent
    /// parameters ([`ByGrade::fit`]), the topics that take every value from the grades run
    /// with those.
    pub fn with_grades(mut self, grades: ByGrade) -> Self {
        self.grade_dynamics = grades.fit.as_ref().map(|f| {
            let walk = (self.kind.spec().user.walk)(&f.table);
            (Arc::new(walk.dynamics), walk.satisfaction)
        });
        self.by_grade = Some(grades);
        self
    }

    /// Whether the model has a per-pair satisfaction (DBN, SDBN).
    fn has_satisfaction(&self) -> bool {
        self.kind.spec().user.satisfaction.is_some()
    }

    /// From a model in memory, mapped as its registry entry says
    /// ([`UserSpec`](super::registry::UserSpec)).
    pub fn from_model(model: &dyn ClickModel, vocab: Vocab, label: &str) -> Self {
        let t = model.to_table();
        let n = vocab.pair_count();
        let kind = model.kind();
        let user = &kind.spec().user;
        let walk = (user.walk)(&t);
        // A model with one global value (GCTR, RCTR) has no per-pair values.
        let (attractiveness, satisfaction) = match (walk.global, user.satisfaction) {
            (Some(_), _) => (Vec::new(), vec![0.0; n]),
            (None, Some(name)) => (pair(&t, user.attractiveness, n), pair(&t, name, n)),
            (None, None) => {
                let a = pair(&t, user.attractiveness, n);
                let s = a.iter().map(|&a| walk.satisfaction.of(a, f64::NAN)).collect();
                (a, s)
            }
        };
        FittedClicks {
            label: label.to_string(),
            kind,
            vocab,
            attractiveness,
            satisfaction,
            global: walk.global,
            dynamics: Arc::new(walk.dynamics),
            satisfaction_rule: walk.satisfaction,
            by_grade: None,
            grade_dynamics: None,
        }
    }
}

/// The labels' grade scale: the grades of the label file after any `--grade-map` (the file's
/// `labels`), or, in files written before it existed, the grades with fitted values.
fn log_scale(g: &ByGrade) -> Vec<i32> {
    g.labels.as_ref().map_or_else(|| g.rows.iter().map(|r| r.grade).collect(), |l| l.grades.clone())
}

/// The warning when the labels' grade scale differs from the collection's grades
/// (`collection`, sorted, distinct; its lowest or highest grade differs from the labels'):
/// grades are matched by number, and the text says so.
pub fn scale_warning(g: &ByGrade, collection: &[i32]) -> Option<String> {
    use super::labels::describe_scale;
    let log = log_scale(g);
    // Grades shown in the collection are a sample of its scale: warn when the ends differ.
    if log.first() == collection.first() && log.last() == collection.last() {
        return None;
    }
    let mapped = g.labels.as_ref().and_then(|l| l.grade_map.as_ref()).map_or(String::new(), |m| {
        let pairs: Vec<String> = m.iter().map(|[a, b]| format!("{a}:{b}")).collect();
        format!(" (after --grade-map {})", pairs.join(","))
    });
    Some(format!(
        "log grades {}{mapped}, collection grades {}: collection grade g uses log grade g (by number), whatever the two scales mean; to map them otherwise, refit with `clicks fit --grade-map` (e.g. {})",
        describe_scale(&log),
        describe_scale(collection),
        example_map(&log, collection)
    ))
}

/// A `--grade-map` example taking the log's scale onto the collection's by rank: log grade at
/// position i of n goes to collection grade at position floor(i m / n).
fn example_map(log: &[i32], collection: &[i32]) -> String {
    if log.is_empty() || collection.is_empty() {
        return "`--grade-map 0:0,1:1`".into();
    }
    let (n, m) = (log.len(), collection.len());
    let pairs: Vec<String> = log.iter().enumerate().map(|(i, g)| format!("{g}:{}", collection[(i * m / n).min(m - 1)])).collect();
    format!("`--grade-map {}`", pairs.join(","))
}

/// The scalars of a query-independent table in words (`gamma 0.8712`), and the rank and
/// matrix parameters by name (`examination by rank`).
fn describe_query_independent(t: &io::ParamTable) -> String {
    let mut parts: Vec<String> = t.scalars.iter().map(|(n, v)| format!("{n} {v:.4}")).collect();
    parts.extend(t.ranks.iter().map(|(n, _)| format!("{n} by rank")));
    parts.extend(t.matrices.iter().map(|(n, _)| format!("{n} by rank and last click")));
    parts.join(", ")
}

impl ClickSource for FittedClicks {
    fn describe(&self) -> String {
        format!("{} ({})", self.kind, self.label)
    }

    fn tables(&self, topic_id: &str, doc_ids: &[String]) -> (ClickTables, Coverage) {
        let n = doc_ids.len();
        let mut attractiveness = vec![f64::NAN; n];
        let mut satisfaction = vec![f64::NAN; n];
        let mut known = 0;
        for (d, id) in doc_ids.iter().enumerate() {
            if let Some((a, s)) = self.global {
                attractiveness[d] = a;
                satisfaction[d] = s;
                known += 1;
            } else if let Some(p) = self.vocab.pair(topic_id, id) {
                attractiveness[d] = self.attractiveness[p as usize];
                satisfaction[d] = self.satisfaction[p as usize];
                known += 1;
            }
        }
        (ClickTables { attractiveness, satisfaction, dynamics: self.dynamics.clone() }, Coverage { known, total: n })
    }

    fn example_queries(&self) -> Vec<String> {
        self.vocab.queries.iter().take(3).cloned().collect()
    }

    fn has_labels(&self) -> bool {
        self.by_grade.is_some()
    }

    fn grade_map(&self, how: GradeMapping, target: &[i32]) -> Result<GradeMap> {
        let mut grades = target.to_vec();
        grades.sort_unstable();
        grades.dedup();
        let user = &self.kind.spec().user;
        let name = user.attractiveness;
        match how {
            GradeMapping::Labels => {
                let g = self.by_grade.as_ref().ok_or_else(|| {
                    Error::Invalid(format!(
                        "{}: `unseen = \"labels\"` needs per-grade values in the model file: fit it with `serpsim clicks fit --qrels FILE` (the log's own labels), or choose `unseen = \"quantile\"`",
                        self.describe()
                    ))
                })?;
                // The grade values run with the query-independent parameters they were
                // fitted with (the file's `grade_fit`); files without it fall back to the
                // per-pair fit's, and the assumption says so.
                let rule = self.grade_dynamics.as_ref().map_or(&self.satisfaction_rule, |d| &d.1);
                let warning = scale_warning(g, &grades);
                let mut rows = Vec::new();
                for &grade in &grades {
                    let row = g.row(grade).ok_or_else(|| {
                        Error::Invalid(format!(
                            "{}: the collection has grade {grade}, but the model's labels have grades {} only{}: refit with `clicks fit --grade-map` onto the collection's grades, or choose `unseen = \"quantile\"`, `\"grade\"` (the profile's `clicks` tables) or `\"prior\"`",
                            self.describe(),
                            g.rows.iter().map(|r| r.grade.to_string()).collect::<Vec<_>>().join(", "),
                            if g.rows.len() < log_scale(g).len() { " (with impressions in the log)" } else { "" }
                        ))
                    })?;
                    let a = row.get(name).unwrap_or(PRIOR);
                    let s = user.satisfaction.and_then(|n| row.get(n)).unwrap_or(f64::NAN);
                    rows.push((grade, a, rule.of(a, s)));
                }
                let imp: u64 = g.rows.iter().map(|r| r.impressions).sum();
                let with = match (&self.grade_dynamics, g.fit.as_ref()) {
                    (Some(_), Some(f)) => {
                        let what = describe_query_independent(&f.table);
                        if what.is_empty() {
                            String::new()
                        } else {
                            format!("; topics the model does not know run with the query-independent parameters of that fit ({what})")
                        }
                    }
                    _ => "; the file has no `grade_fit` (written before it existed), so the topics run with the per-pair fit's query-independent parameters, not those the grade values were fitted with: refit with `clicks fit --qrels` to pair them".to_string(),
                };
                Ok(GradeMap {
                    rows,
                    assumption: format!("the per-grade values fitted on the log's own relevance labels (`clicks fit --qrels`, {imp} judged impressions){with}"),
                    dynamics: self.grade_dynamics.as_ref().map(|d| d.0.clone()),
                    warning,
                })
            }
            GradeMapping::Quantile => {
                if let Some((a, s)) = self.global {
                    return Ok(GradeMap {
                        rows: grades.iter().map(|&g| (g, a, s)).collect(),
                        assumption: "the model's global value".into(),
                        dynamics: None,
                        warning: None,
                    });
                }
                let none = || {
                    Error::Invalid(format!(
                        "{}: `unseen = \"quantile\"` needs per-pair values in the model file and results in the collection, and one of them is empty: choose `unseen = \"grade\"` (the profile's `clicks` tables) or fixed values",
                        self.describe()
                    ))
                };
                let qa = quantile_by_grade(&self.attractiveness, target).ok_or_else(none)?;
                let qs = if self.has_satisfaction() { Some(quantile_by_grade(&self.satisfaction, target).ok_or_else(none)?) } else { None };
                let rows = qa.iter().enumerate().map(|(i, &(g, a))| (g, a, self.satisfaction_rule.of(a, qs.as_ref().map_or(f64::NAN, |q| q[i].1)))).collect();
                let what = if self.has_satisfaction() { "attractiveness and satisfaction rise" } else { "attractiveness rises" };
                Ok(GradeMap {
                    rows,
                    assumption: format!(
                        "quantile matching (assumed: {what} with the relevance grade; the model's {} per-pair values, sorted, are cut at the collection's grade shares and each grade gets the mean of its slice)",
                        self.attractiveness.len()
                    ),
                    dynamics: None,
                    warning: None,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clickmodels::{Cm, Dbn};
    use crate::simulate::{one_list_world, outcomes, PreparedProfile};
    use crate::user::{ClickModelSpec, Unseen, UserProfile};

    fn vocab(pairs: &[(&str, &str)]) -> Vocab {
        let mut v = Vocab::default();
        for (q, d) in pairs {
            let (qi, di) = (v.intern_query(q), v.intern_doc(d));
            v.intern_pair(qi, di);
        }
        v
    }

    fn profile_with(src: FittedClicks) -> (UserProfile, Arc<dyn ClickSource>) {
        let mut p = UserProfile::named("cm");
        p.click_model = Some(ClickModelSpec { file: "in-memory".into(), unseen: Unseen::default() });
        (p, Arc::new(src))
    }

    #[test]
    fn the_prior_constant_agrees() {
        assert_eq!(crate::user::UNFITTED, PRIOR);
    }

    #[test]
    fn cascade_model_clicks_the_first_attractive_result() {
        // CM with attractiveness 0, 1, 0.3 on d0, d1, d2 of topic `t`: exactly one click, at
        // rank 2, depth 2, every session (CM stops at the first click).
        let model = Cm { attractiveness: vec![0.0, 1.0, 0.3] };
        let src = FittedClicks::from_model(&model, vocab(&[("t", "d0"), ("t", "d1"), ("t", "d2")]), "cm");
        let world = one_list_world(vec![0, 2, 1], 10);
        let (p, src) = profile_with(src);
        let prepared = PreparedProfile::new(&world, &p, 1, Some(&src)).unwrap();
        for o in outcomes(&world, &prepared, 200, 1).unwrap() {
            assert_eq!((o.clicks, o.depth, o.relevant_found, o.gain), (1, 2, 1, 1.0));
        }
    }

    #[test]
    fn dbn_click_rates_match_the_model() {
        // DBN with a = (0.5, 0.5), s = (0, 0), gamma 0.5 on two results: P(click rank 1) = 0.5,
        // P(click rank 2) = P(examined 2) a = 0.5 x 0.5 = 0.25 (the DBN chain, by hand); mean
        // clicks 0.75, sd of the mean over 40,000 sessions about 0.0035.
        let model = Dbn { attractiveness: vec![0.5, 0.5], satisfaction: vec![0.0, 0.0], gamma: 0.5 };
        let src = FittedClicks::from_model(&model, vocab(&[("t", "d0"), ("t", "d1")]), "dbn");
        let world = one_list_world(vec![1, 1], 10);
        let (p, src) = profile_with(src);
        let prepared = PreparedProfile::new(&world, &p, 3, Some(&src)).unwrap();
        let out = outcomes(&world, &prepared, 40_000, 3).unwrap();
        let mean = out.iter().map(|o| o.clicks as f64).sum::<f64>() / out.len() as f64;
        let depth = out.iter().map(|o| o.depth as f64).sum::<f64>() / out.len() as f64;
        assert!((mean - 0.75).abs() < 4.0 * 0.0035, "clicks {mean} depth {depth}");
        // Depth: 1 + P(go on after rank 1) = 1 + gamma = 1.5.
        assert!((depth - 1.5).abs() < 0.01, "{depth}");
    }

    #[test]
    fn label_scale_differing_from_the_collection_is_a_warning_naming_the_mapping() {
        use crate::clickmodels::labels::{read_from, LabelFormat, LabelOptions};
        use crate::clickmodels::portable::GradeRow;
        let row = |grade: i32| GradeRow {
            grade,
            impressions: 10,
            values: vec![("attractiveness".into(), 0.1 * (grade + 1) as f64), ("satisfaction".into(), 0.5)],
            intervals: Vec::new(),
            interval_resamples: 0,
        };
        // Labels 0-4 in the file (TREC), every grade with fitted values.
        let text = "t 0 a 0\nt 0 b 1\nt 0 c 2\nt 0 d 3\nt 0 e 4\n";
        let (_, summary) = read_from(crate::input::Input::from_bytes("l", text.as_bytes().to_vec()).unwrap(), &LabelOptions::new(LabelFormat::Trec)).unwrap();
        let g = ByGrade { rows: (0..5).map(row).collect(), fit: None, labels: Some(summary) };
        let model = Dbn { attractiveness: vec![0.5], satisfaction: vec![0.5], gamma: 0.9 };
        let src = FittedClicks::from_model(&model, vocab(&[("t", "d0")]), "m.json").with_grades(g.clone());
        // A 0-2 collection: the expected text is the rule itself (grades matched by number) and
        // the by-rank example 0:0,1:0,2:1,3:1,4:2 (position i of 5 -> floor(3 i / 5), by hand).
        let map = src.grade_map(GradeMapping::Labels, &[0, 2, 1, 1]).unwrap();
        assert_eq!(
            map.warning.as_deref(),
            Some("log grades 0-4, collection grades 0-2: collection grade g uses log grade g (by number), whatever the two scales mean; to map them otherwise, refit with `clicks fit --grade-map` (e.g. `--grade-map 0:0,1:0,2:1,3:1,4:2`)")
        );
        // Collection grade 1 takes log grade 1's values (attractiveness 0.2, by construction).
        assert_eq!(map.get(1).unwrap().0, 0.1 * 2.0);
        // A collection showing grades 0 and 4 only: same ends, no warning.
        assert_eq!(src.grade_map(GradeMapping::Labels, &[0, 4]).unwrap().warning, None);
        // Labels 0-2 (after a --grade-map) on a 0-3 collection: grade 3 has no value, an error
        // that names the way out.
        let mut g2 = g.clone();
        g2.rows.truncate(3);
        let l = g2.labels.as_mut().unwrap();
        l.grades = vec![0, 1, 2];
        l.grade_map = Some(vec![[0, 0], [1, 1], [2, 1], [3, 2], [4, 2]]);
        let src2 = FittedClicks::from_model(&model, vocab(&[("t", "d0")]), "m.json").with_grades(g2.clone());
        let e = src2.grade_map(GradeMapping::Labels, &[0, 3]).unwrap_err().to_string();
        assert!(e.contains("the collection has grade 3, but the model's labels have grades 0, 1, 2 only") && e.contains("--grade-map"), "{e}");
        let w = scale_warning(&g2, &[0, 1]).unwrap();
        assert!(w.starts_with("log grades 0-2 (after --grade-map 0:0,1:1,2:1,3:2,4:2), collection grades 0-1:"), "{w}");
    }

    #[test]
    fn ids_matching_nothing_are_an_error_and_partial_coverage_warns() {
        let model = Cm { attractiveness: vec![0.5] };
        let world = one_list_world(vec![1, 0], 10);
        let (p, src) = profile_with(FittedClicks::from_model(&model, vocab(&[("17514_0", "93689758")]), "yandex.json"));
        let err = PreparedProfile::new(&world, &p, 1, Some(&src)).unwrap_err().to_string();
        assert!(err.contains("knows none") && err.contains("17514_0") && err.contains("`t`"), "{err}");
        let (p, src) = profile_with(FittedClicks::from_model(&model, vocab(&[("t", "d0")]), "m.json"));
        let prepared = PreparedProfile::new(&world, &p, 1, Some(&src)).unwrap();
        assert_eq!(prepared.warnings.len(), 1);
        assert!(prepared.warnings[0].contains("1 of the 2 results") && prepared.warnings[0].contains("grade tables"), "{:?}", prepared.warnings);
        let mut strict = p.clone();
        strict.click_model.as_mut().unwrap().unseen = Unseen::Policy(crate::user::UnseenPolicy::Error);
        assert!(PreparedProfile::new(&world, &strict, 1, Some(&src)).unwrap_err().to_string().contains("unseen = \"error\""));
    }
}
