//! Bound on what any prior for unseen documents can do for BARACO's RMSE of E[M_c - M_p]
//! (issue 16, DBN generation, AdaRank, the LETOR protocol of `baraco_letor`).
//!
//! For DBN's rrMetric a ranking's expected metric is the plug-in of the posterior means of
//! u = a s (the parameters of different documents are independent and each appears once), so
//! a prior enters BARACO's E[M_c - M_p] only through (i) the posterior means of the seen
//! pairs and (ii) the prior mean of u that an unseen document gets. This example fixes (i) at
//! Algorithm 1's Beta(1, 1) posterior means and gives the unseen documents values that no
//! prior fitted to the log can know, chosen with the true parameters:
//!
//! - `const*`: the one value of u, the same for every unseen document, that minimises this
//!   run's RMSE (searched on a grid of step 0.0025 in [0, 0.6]);
//! - `query`: per query, the mean true u of that query's unseen documents;
//! - `truth`: every unseen document at its true (a, s) (the floor: only the seen pairs' error);
//! - `all`: the mean true u over all of the run's unseen documents (a prior with the right mean);
//! - `fitted` (with a second argument, a `baraco_letor` runs.csv): the prior mean of u that
//!   that study's fitted prior gave the unseen documents of each run, the seen pairs kept at
//!   Beta(1, 1) posterior means.
//!
//! and compares each with the EM baseline (condensing), paired two-sided Wilcoxon over runs.
//! An exchangeable prior (global, hierarchical, per-query) gives every unseen document of a
//! query the same prior mean of u, so it cannot beat `query` in expectation, nor a single
//! global value `const*`.
//!
//! `cargo run --release --example baraco_oracle -- [runs (30)] [runs.csv] > analysis/baraco/oracle.md`

use serpsim::baraco::harness::{dbn_em, GenModel, Study, StudyConfig, Trainer};
use serpsim::baraco::{compute_posteriors, point_metric, Density, SwitchMetric, Unseen};
use serpsim::clickmodels::metrics::UserModel;
use serpsim::collection::letor::LetorData;
use serpsim::stats::rmse;
use serpsim::stats::wilcoxon::wilcoxon_signed_rank;

fn main() -> anyhow::Result<()> {
    let runs: usize = std::env::args().nth(1).map(|s| s.parse()).transpose()?.unwrap_or(30);
    // Per (user, run): the prior mean of u = a s for unseen documents that the fitted prior of
    // a `baraco_letor` study gave (mean a times mean s of its `prior_*` columns).
    let fitted: std::collections::HashMap<(String, usize), f64> = match std::env::args().nth(2) {
        Some(path) => {
            let mut rdr = csv::Reader::from_path(&path)?;
            let mut m = std::collections::HashMap::new();
            for rec in rdr.deserialize::<std::collections::HashMap<String, String>>() {
                let r = rec?;
                let f = |k: &str| -> anyhow::Result<f64> { Ok(r.get(k).ok_or_else(|| anyhow::anyhow!("{path}: no column {k}"))?.parse()?) };
                let mean = |a: f64, b: f64| a / (a + b);
                m.insert(
                    (r["user"].clone(), f("run")? as usize),
                    mean(f("prior_a_alpha")?, f("prior_a_beta")?) * mean(f("prior_s_alpha")?, f("prior_s_beta")?),
                );
            }
            m
        }
        None => Default::default(),
    };
    let trainer = Trainer::AdaRank;
    let st = Study::new(LetorData::from_file(letor_file().as_ref())?, 10, trainer);
    let cfg = StudyConfig { trainer, ..Default::default() };
    println!("# Bound on BARACO's RMSE of E[M_c - M_p] from any prior for unseen documents\n");
    let args: Vec<String> = std::env::args().skip(1).collect();
    println!("Command: `cargo run --release --example baraco_oracle -- {}` (AdaRank, DBN generation, {} candidates per run, {} sessions, runs 0..{runs}; same seeds, logs and candidates as `baraco_letor`).", args.join(" "), cfg.candidates, cfg.sessions);
    println!("Seen pairs: Algorithm 1's Beta(1, 1) posterior means. Unseen documents: see the example's doc comment. p: paired two-sided Wilcoxon signed-rank test against EM over the runs.\n");
    for user in [UserModel::Navigational, UserModel::Informational] {
        let mut cols: Vec<Vec<f64>> = vec![Vec::new(); 7];
        let mut best_u = Vec::new();
        for run in 0..runs {
            let (prod, cands) = st.rankers(&cfg, run);
            let log = st.generate_log(&cfg, &prod, GenModel::Dbn, user, run);
            let (ta, ts) = st.truth(user);
            let post = compute_posteriors(&log, cfg.gamma)?;
            let (ea, es) = dbn_em(&log, cfg.gamma, cfg.em_iterations)?;
            let mean_a: Vec<f64> = post.a.iter().map(|d| Density::new(d).mean).collect();
            let mean_s: Vec<f64> = post.s.iter().map(|d| Density::new(d).mean).collect();
            let diffs = |a: &[f64], s: &[f64], unseen: Unseen| {
                let mp = point_metric(&log, &prod, a, s, SwitchMetric::RrMetric, cfg.depth, unseen);
                cands.iter().map(|c| point_metric(&log, c, a, s, SwitchMetric::RrMetric, cfg.depth, unseen) - mp).collect::<Vec<f64>>()
            };
            let truth = diffs(&ta, &ts, Unseen::Prior);
            let em = rmse(&diffs(&ea, &es, Unseen::Condense), &truth);
            // Seen pairs at the posterior means; unseen pairs at u (as a = u, s = 1).
            let with_unseen = |u: &dyn Fn(usize) -> f64| {
                let a: Vec<f64> = (0..log.pairs.len()).map(|p| if log.seen[p] { mean_a[p] } else { u(p) }).collect();
                let s: Vec<f64> = (0..log.pairs.len()).map(|p| if log.seen[p] { mean_s[p] } else { 1.0 }).collect();
                rmse(&diffs(&a, &s, Unseen::Prior), &truth)
            };
            let prior_11 = with_unseen(&|_| 0.25);
            let (mut best, mut arg) = (f64::INFINITY, 0.0);
            for k in 0..=240 {
                let u = k as f64 * 0.0025;
                let r = with_unseen(&|_| u);
                if r < best {
                    (best, arg) = (r, u);
                }
            }
            let nq = log.queries.len();
            let (mut sum, mut n) = (vec![0.0; nq], vec![0.0; nq]);
            for p in 0..log.pairs.len() {
                if !log.seen[p] {
                    let q = log.pairs[p].0 as usize;
                    sum[q] += ta[p] * ts[p];
                    n[q] += 1.0;
                }
            }
            let per_query = with_unseen(&|p| {
                let q = log.pairs[p].0 as usize;
                sum[q] / n[q]
            });
            let floor = with_unseen(&|p| ta[p] * ts[p]);
            // The mean true u over all unseen documents of the collection (one value for every
            // run: what a prior with the right mean would give).
            let (su, nu) = (0..log.pairs.len()).filter(|&p| !log.seen[p]).fold((0.0, 0.0), |(s, n), p| (s + ta[p] * ts[p], n + 1.0));
            let all_mean = with_unseen(&|_| su / nu);
            let key = (if user == UserModel::Navigational { "N" } else { "I" }.to_string(), run);
            let fitted_u = fitted.get(&key).copied();
            let from_prior = fitted_u.map_or(f64::NAN, |u| with_unseen(&|_| u));
            for (c, v) in cols.iter_mut().zip([em, prior_11, best, per_query, floor, all_mean, from_prior]) {
                c.push(v);
            }
            best_u.push(arg);
            eprintln!(
                "{user:?} run {run}: EM {em:.3e} | Beta(1,1) 0.25 {prior_11:.3e} | const* {best:.3e} (u = {arg}) | query {per_query:.3e} | truth {floor:.3e}"
            );
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        println!("## {user:?} user\n");
        println!("| unseen documents get | mean RMSE | vs EM {:.3e}: lower in | p |", mean(&cols[0]));
        println!("|---|---|---|---|");
        let names = [
            "u = 0.25 (Beta(1, 1), BARACO's plug-in)",
            "const*: best single u in hindsight",
            "query: mean true u of the query's unseen documents",
            "truth: their true (a, s) (floor)",
            "all: mean true u of the run's unseen documents",
            "fitted: the run's fitted prior mean of a times that of s (second argument's runs.csv)",
        ];
        for (name, c) in names.iter().zip(&cols[1..7]) {
            if c.iter().any(|v| v.is_nan()) {
                continue;
            }
            let lower = c.iter().zip(&cols[0]).filter(|(b, e)| b < e).count();
            let w = wilcoxon_signed_rank(c, &cols[0]);
            println!("| {name} | {:.3e} | {lower} of {} runs | {:.3} |", mean(c), c.len(), w.p_value);
        }
        println!(
            "\nconst* per run: mean u = {:.4}, range {:.4}-{:.4}\n",
            mean(&best_u),
            best_u.iter().cloned().fold(f64::INFINITY, f64::min),
            best_u.iter().cloned().fold(0.0, f64::max)
        );
    }
    Ok(())
}

/// The LETOR file: `$SERPSIM_LETOR`, else the project's own sample. The reproduction in
/// analysis/baraco/ ran on the real MQ2008 subset:
/// `SERPSIM_LETOR=../shared/data/letor/mq2008_subset_a.txt`.
fn letor_file() -> String {
    std::env::var("SERPSIM_LETOR").unwrap_or_else(|_| "study_logs/letor/letor_sample.txt".to_string())
}
