//! Diagnostic: where do BARACO's and EM's difference errors come from? (one run, DBN, N and I users)
//! `cargo run --release --example baraco_diag [-- coordinate-ascent] > analysis/baraco/diagnostic.txt`
//! (300 candidates, runs 0-2; AdaRank unless a trainer is named)
use serpsim::baraco::harness::{dbn_em, GenModel, Study, StudyConfig, Trainer};
use serpsim::baraco::{compare, compute_posteriors, point_metric, Config, Density, SwitchMetric, Unseen};
use serpsim::clickmodels::metrics::UserModel;
use serpsim::collection::letor::LetorData;
use serpsim::stats::rmse;

fn main() -> anyhow::Result<()> {
    let trainer = match std::env::args().nth(1) {
        Some(t) => Trainer::parse(&t).ok_or_else(|| anyhow::anyhow!("unknown trainer `{t}`"))?,
        None => Trainer::AdaRank,
    };
    let st = Study::new(LetorData::from_file(letor_file().as_ref())?, 10, trainer);
    let cfg = StudyConfig { candidates: 300, trainer, ..Default::default() };
    println!("# trainer {trainer:?}: trained mean nDCG@10 {:.4}", st.ndcg(st.trained(), 10));
    let nonzero: Vec<String> = st.trained().iter().enumerate().filter(|(_, w)| **w != 0.0).map(|(j, w)| format!("{}:{w:.3}", j + 1)).collect();
    println!("# trained weights (feature:weight, non-zero only): {}", nonzero.join(" "));
    for user in [UserModel::Navigational, UserModel::Informational] {
        for run in 0..3 {
            let (prod, cands) = st.rankers(&cfg, run);
            let log = st.generate_log(&cfg, &prod, GenModel::Dbn, user, run);
            let (ta, ts) = st.truth(user);
            let post = compute_posteriors(&log, 0.9)?;
            let (ea, es) = dbn_em(&log, 0.9, 50)?;
            let mean_a: Vec<f64> = post.a.iter().map(|d| Density::new(d).mean).collect();
            let mean_s: Vec<f64> = post.s.iter().map(|d| Density::new(d).mean).collect();
            // Parameter error on seen pairs.
            let (mut eb, mut ee, mut n) = (0.0, 0.0, 0);
            for p in 0..log.pairs.len() {
                if !log.seen[p] {
                    continue;
                }
                eb += (mean_a[p] * mean_s[p] - ta[p] * ts[p]).powi(2);
                ee += (ea[p] * es[p] - ta[p] * ts[p]).powi(2);
                n += 1;
            }
            // M_c - M_p per candidate from point values per pair.
            let diffs = |a: &[f64], s: &[f64], unseen: Unseen| {
                let mp = point_metric(&log, &prod, a, s, SwitchMetric::RrMetric, 10, unseen);
                cands.iter().map(|c| point_metric(&log, c, a, s, SwitchMetric::RrMetric, 10, unseen) - mp).collect::<Vec<f64>>()
            };
            let truth = diffs(&ta, &ts, Unseen::Prior);
            let ans = compare(&log, &post, &prod, &cands, &Config { samples: 1000, ..Default::default() })?;
            let b: Vec<f64> = ans.iter().map(|a| a.expected_diff).collect();
            let e = diffs(&ea, &es, Unseen::Condense);
            // Decomposition: plug-in values (for rrMetric, BARACO's E[M] is the plug-in of the
            // posterior means, as a and s are independent and a document appears once), with
            // unseen pairs given (i) their treatment (prior 0.5 / condensing) or (ii) their true
            // values, so only the error on seen pairs remains.
            let with_truth_unseen = |xa: &[f64], xs: &[f64]| {
                let fa: Vec<f64> = (0..xa.len()).map(|p| if log.seen[p] { xa[p] } else { ta[p] }).collect();
                let fs: Vec<f64> = (0..xs.len()).map(|p| if log.seen[p] { xs[p] } else { ts[p] }).collect();
                diffs(&fa, &fs, Unseen::Prior)
            };
            let plug_b = diffs(&mean_a, &mean_s, Unseen::Prior);
            let em_excl = diffs(&ea, &es, Unseen::Exclude);
            let unseen_truth_share: f64 = {
                let (mut rel, mut n) = (0.0, 0.0);
                for p in 0..log.pairs.len() {
                    if !log.seen[p] {
                        n += 1.0;
                        rel += f64::from(u8::from(ta[p] * ts[p] > 0.2));
                    }
                }
                rel / n
            };
            // Split by unseen share.
            let zero: Vec<usize> = (0..cands.len()).filter(|&i| ans[i].unseen_share == 0.0).collect();
            let pick = |v: &[f64], idx: &[usize]| idx.iter().map(|&i| v[i]).collect::<Vec<_>>();
            println!(
                "{user:?} run {run}: seen pairs {n}, RMSE(a*s) baraco {:.4} em {:.4} | diff RMSE all: baraco {:.2e} em {:.2e} | no-unseen cands ({}): baraco {:.2e} em {:.2e} | mean unseen share {:.3} | mean true diff {:.2e} baraco {:.2e} em {:.2e}",
                (eb / n as f64).sqrt(), (ee / n as f64).sqrt(), rmse(&b, &truth), rmse(&e, &truth), zero.len(),
                rmse(&pick(&b, &zero), &pick(&truth, &zero)), rmse(&pick(&e, &zero), &pick(&truth, &zero)),
                ans.iter().map(|a| a.unseen_share).sum::<f64>() / ans.len() as f64,
                truth.iter().sum::<f64>() / truth.len() as f64, b.iter().sum::<f64>() / b.len() as f64, e.iter().sum::<f64>() / e.len() as f64,
            );
            println!(
                "  decomposition: EM with unseen excluded after the cut (no refill) {:.2e} (mean {:.2e}); BARACO plug-in {:.2e} (sampled {:.2e}); unseen at true values: BARACO means {:.2e}, EM {:.2e}; unseen pairs relevant {:.3}, mean true a*s of unseen pairs {:.3} (prior mean 0.25)",
                rmse(&em_excl, &truth), em_excl.iter().sum::<f64>() / em_excl.len() as f64,
                rmse(&plug_b, &truth), rmse(&b, &truth),
                rmse(&with_truth_unseen(&mean_a, &mean_s), &truth), rmse(&with_truth_unseen(&ea, &es), &truth),
                unseen_truth_share,
                (0..log.pairs.len()).filter(|&p| !log.seen[p]).map(|p| ta[p] * ts[p]).sum::<f64>() / (0..log.pairs.len()).filter(|&p| !log.seen[p]).count() as f64,
            );
        }
    }
    Ok(())
}

/// The LETOR file: `$SERPSIM_LETOR`, else the project's own sample. The reproduction in
/// analysis/baraco/ ran on the real MQ2008 subset:
/// `SERPSIM_LETOR=../shared/data/letor/mq2008_subset_a.txt`.
fn letor_file() -> String {
    std::env::var("SERPSIM_LETOR").unwrap_or_else(|_| "study_logs/letor/letor_sample.txt".to_string())
}
