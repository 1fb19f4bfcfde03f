//! When does RLR help? (He et al. §5.2-5.3): per-topic factors Dq, Rq, Hq and user accuracy,
//! and a binomial GLM of P(effort_basic - effort_RLR > 0) selected by BIC.

use super::measures::{kl_from_oracle, sublist_entropy, sublist_relevance, Prior, ACCURACY_SMOOTHING};
use super::model::{ActionWeights, ContinuationKind, CutOff, TopicSublists};
use super::sweep::{basic_effort, simulate_users};
use crate::error::Result;
use crate::stats::glm::{full_factorial, hosmer_lemeshow, select_bic, Column, Frame, GlmFit, Selection, Wald};
use rayon::prelude::*;

/// Settings of the analysis.
#[derive(Debug, Clone, PartialEq)]
pub struct HelpSettings {
    /// Fixed decay rate (the paper: 0.01).
    pub lambda: f64,
    /// Tasks to model, one GLM each.
    pub tasks: Vec<CutOff>,
    /// Smoothing per accuracy level (levels 1..).
    pub smoothing: Vec<f64>,
    /// Simulated users per (topic, task, level).
    pub replicates: usize,
    /// Master seed.
    pub seed: u64,
    /// Results per page.
    pub page_size: u32,
    /// Effort weights.
    pub weights: ActionWeights,
    /// Hosmer–Lemeshow groups.
    pub hl_groups: usize,
    /// Response of the GLM rows.
    pub response: HelpResponse,
}

/// What one GLM row's outcome is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HelpResponse {
    /// Binomial: simulated users helped out of users simulated (every user is an observation).
    Users,
    /// Bernoulli: 1 if the median RLR effort is below Dq (one observation per topic and level).
    Median,
}

impl Default for HelpSettings {
    fn default() -> Self {
        HelpSettings {
            lambda: 0.01,
            tasks: vec![CutOff::Find(1), CutOff::Find(10), CutOff::FindAll],
            smoothing: ACCURACY_SMOOTHING.to_vec(),
            replicates: 1000,
            seed: 2015,
            page_size: 10,
            weights: ActionWeights::default(),
            hl_groups: 10,
            response: HelpResponse::Users,
        }
    }
}

/// One (topic, task, level) row of the analysis data.
#[derive(Debug, Clone, PartialEq)]
pub struct HelpRow {
    /// Topic id.
    pub topic: String,
    /// Task name.
    pub task: String,
    /// Query difficulty Dq: effort on the basic interface (gain, for an effort budget).
    pub dq: f64,
    /// Sublist relevance Rq.
    pub rq: f64,
    /// Sublist entropy Hq.
    pub hq: f64,
    /// User accuracy level, 1-based.
    pub ulevel: usize,
    /// Simulated users for whom the RLR interface needed less effort than the basic one.
    pub helped: usize,
    /// Simulated users.
    pub users: usize,
    /// Median RLR effort (gain, for an effort budget).
    pub median_rlr: f64,
}

/// The GLM of one task.
#[derive(Debug, Clone)]
pub struct TaskModel {
    /// Task name.
    pub task: String,
    /// Selected model (lower BIC of the forward and backward searches).
    pub selected: Selection,
    /// The other search's result.
    pub other: Selection,
    /// Joint Wald test of Ulevel's main-effect columns (the paper's "overall effect"), if in.
    pub ulevel_wald: Option<Wald>,
    /// Hosmer–Lemeshow test of the selected model.
    pub hosmer_lemeshow: Wald,
    /// Share of positive outcomes (0 or 1: no variation, the MLE does not exist).
    pub outcome_share: f64,
}

/// Simulates the rows: per topic, task and accuracy level, `replicates` users at `lambda`.
pub fn help_rows(topics: &[TopicSublists], s: &HelpSettings) -> Result<Vec<HelpRow>> {
    let max_n = topics.iter().map(|t| t.grades.len()).max().unwrap_or(0);
    let cont = ContinuationKind::Exponential { lambda: s.lambda }.table(max_n);
    let (nk, nl) = (s.tasks.len(), s.smoothing.len());
    (0..topics.len() * nk * nl)
        .into_par_iter()
        .map(|i| {
            let (t, task, level) = (i / (nk * nl), (i / nl) % nk, i % nl);
            let topic = &topics[t];
            let cutoff = s.tasks[task];
            let dq = basic_effort(topic, cutoff, s.page_size, &s.weights);
            let alpha = Prior::Smoothed(s.smoothing[level]).alpha(topic);
            let mut eff = simulate_users(topic, &cont, &alpha, cutoff, s.page_size, &s.weights, s.replicates, s.seed)?;
            // RLR helps when it needs less effort (gain targets) or finds more (effort budgets).
            let gain = matches!(cutoff, CutOff::Effort(_));
            let helped = eff.iter().filter(|&&e| if gain { e > dq } else { e < dq }).count();
            let median_rlr = super::sweep::Quartiles::of(&mut eff).median;
            Ok(HelpRow {
                topic: topic.id.clone(),
                task: cutoff.name(),
                dq,
                rq: sublist_relevance(topic),
                hq: sublist_entropy(topic),
                ulevel: level + 1,
                helped,
                users: s.replicates,
                median_rlr,
            })
        })
        .collect()
}

/// Fits the GLM of each task: successes `helped` out of `users`, covariates Dq, Rq, Hq and the
/// factor Ulevel, scope = the full factorial (main effects to the 4-way interaction).
pub fn fit_models(rows: &[HelpRow], s: &HelpSettings) -> Result<Vec<TaskModel>> {
    let mut out = Vec::new();
    for task in &s.tasks {
        let name = task.name();
        let r: Vec<&HelpRow> = rows.iter().filter(|r| r.task == name).collect();
        let levels: Vec<String> = (1..=s.smoothing.len()).map(|l| l.to_string()).collect();
        let labels: Vec<String> = r.iter().map(|x| x.ulevel.to_string()).collect();
        let frame = Frame::new(vec![
            ("Dq".into(), Column::Numeric(r.iter().map(|x| x.dq).collect())),
            ("Rq".into(), Column::Numeric(r.iter().map(|x| x.rq).collect())),
            ("Hq".into(), Column::Numeric(r.iter().map(|x| x.hq).collect())),
            ("Ulevel".into(), Column::factor(&labels, Some(levels))?),
        ])?;
        let (y, n): (Vec<f64>, Vec<f64>) = match s.response {
            HelpResponse::Users => (r.iter().map(|x| x.helped as f64).collect(), r.iter().map(|x| x.users as f64).collect()),
            HelpResponse::Median => {
                let gain = matches!(task, CutOff::Effort(_));
                (r.iter().map(|x| if gain { x.median_rlr > x.dq } else { x.median_rlr < x.dq } as u8 as f64).collect(), vec![1.0; r.len()])
            }
        };
        let scope = full_factorial(&[0, 1, 2, 3]);
        let (selected, other) = select_bic(&frame, &y, &n, &scope)?;
        let cols: Vec<usize> = (0..selected.fit.names.len()).filter(|&j| selected.fit.names[j].starts_with("Ulevel[")).collect();
        let ulevel_wald = if cols.is_empty() { None } else { Some(selected.fit.wald_joint(&cols)) };
        let hosmer_lemeshow = hosmer_lemeshow(&selected.fit.fitted, &y, &n, s.hl_groups);
        let outcome_share = y.iter().sum::<f64>() / n.iter().sum::<f64>();
        out.push(TaskModel { task: name, selected, other, ulevel_wald, hosmer_lemeshow, outcome_share });
    }
    Ok(out)
}

/// Median KL(oracle || level) over topics, per accuracy level, and the same for the random
/// prior (the reference for "percent less accurate").
pub fn accuracy_kl(topics: &[TopicSublists], smoothing: &[f64]) -> (Vec<f64>, f64) {
    let med = |prior: Prior| {
        let v: Vec<f64> = topics.iter().filter_map(|t| kl_from_oracle(t, prior)).collect();
        if v.is_empty() {
            f64::NAN
        } else {
            crate::stats::median(&v)
        }
    };
    (smoothing.iter().map(|&s| med(Prior::Smoothed(s))).collect(), med(Prior::Random))
}

/// CSV of the rows.
pub fn rows_csv(rows: &[HelpRow]) -> String {
    let mut s = String::from("topic,task,Dq,Rq,Hq,Ulevel,helped,users,median_rlr\n");
    for r in rows {
        let f = crate::write::fmt_f64;
        s += &format!(
            "{},{},{},{},{},{},{},{},{}\n",
            crate::write::csv_field(&r.topic),
            r.task,
            f(r.dq),
            f(r.rq),
            f(r.hq),
            r.ulevel,
            r.helped,
            r.users,
            f(r.median_rlr)
        );
    }
    s
}

fn fmt_p(p: f64) -> String {
    if p < 0.001 {
        "<0.001".into()
    } else {
        format!("{p:.3}")
    }
}

/// A Markdown report: coefficient tables with Wald tests, Ulevel's joint Wald test and
/// Hosmer–Lemeshow, per task; selection paths.
pub fn models_markdown(models: &[TaskModel]) -> String {
    let mut s = String::new();
    for m in models {
        let f: &GlmFit = &m.selected.fit;
        s += &format!("### Task {}\n\n", m.task);
        s += &format!("Share of outcomes where RLR helps: {:.4}.", m.outcome_share);
        if m.outcome_share == 0.0 || m.outcome_share == 1.0 {
            s += " The outcome does not vary: the estimates below are meaningless (no MLE exists).";
        }
        s += "\n\n";
        s += &format!("Selected by BIC = {:.3} (other search: BIC = {:.3}); rows = {}, converged = {}.\n\n", f.bic, m.other.fit.bic, f.rows, f.converged);
        if f.separated_rows > 0 {
            s += &format!("**Separation:** {} of {} rows are fitted with probability 0 or 1; the maximum-likelihood estimate does not exist and the standard errors above are not meaningful.\n\n", f.separated_rows, f.rows);
        }
        s += "| term | estimate | std. error | z | p |\n|---|---:|---:|---:|---:|\n";
        for j in 0..f.coef.len() {
            let w = f.wald(j);
            s += &format!("| {} | {:.4} | {:.4} | {:.2} | {} |\n", f.names[j], f.coef[j], f.se[j], w.statistic, fmt_p(w.p));
        }
        match &m.ulevel_wald {
            Some(w) => s += &format!("\nOverall effect of Ulevel (joint Wald): chi2 = {:.1} (df = {}), p = {}.\n", w.statistic, w.df, fmt_p(w.p)),
            None => s += "\nUlevel is not in the selected model.\n",
        }
        let hl = &m.hosmer_lemeshow;
        s += &format!("Hosmer–Lemeshow: chi2 = {:.2} (df = {}), p = {}.\n\n", hl.statistic, hl.df, fmt_p(hl.p));
        s += "Selection path: ";
        s += &m.selected.path.iter().map(|(l, b)| format!("`{l}` ({b:.1})")).collect::<Vec<_>>().join(", ");
        s += "\n\n";
    }
    s
}
