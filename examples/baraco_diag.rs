//! Diagnostic: where do BARACO's and EM's difference errors come from? (one run, DBN, N and I users)
//! `cargo run --release --example baraco_diag > analysis/baraco/diagnostic.txt` (300 candidates, runs 0-2)
use serpsim::baraco::harness::{dbn_em, GenModel, Study, StudyConfig, UserModel};
use serpsim::baraco::{compare, compute_posteriors, point_metric, Config, Density, Metric, Unseen};
use serpsim::collection::letor::LetorData;
use serpsim::stats::rmse;

fn main() -> anyhow::Result<()> {
    let st = Study::new(LetorData::from_file("study_logs/letor/mq2008_subset_a.txt".as_ref())?, 10);
    let cfg = StudyConfig { candidates: 300, ..Default::default() };
    for user in [UserModel::Navigational, UserModel::Informational] {
        for run in 0..3 {
            let (prod, cands) = st.rankers(&cfg, run);
            let log = st.generate_log(&cfg, &prod, GenModel::Dbn, user, run);
            let (ta, ts) = st.truth(user);
            let post = compute_posteriors(&log, 0.9)?;
            let (ea, es) = dbn_em(&log, 0.9, 50)?;
            // Parameter error on seen pairs.
            let (mut eb, mut ee, mut n) = (0.0, 0.0, 0);
            for p in 0..log.pairs.len() {
                if !log.seen[p] { continue; }
                let ma = Density::new(&post.a[p]).mean;
                let ms = Density::new(&post.s[p]).mean;
                eb += (ma * ms - ta[p] * ts[p]).powi(2);
                ee += (ea[p] * es[p] - ta[p] * ts[p]).powi(2);
                n += 1;
            }
            let m = Metric::RrMetric;
            let mp = point_metric(&log, &prod, &ta, &ts, m, 10, Unseen::Prior);
            let truth: Vec<f64> = cands.iter().map(|c| point_metric(&log, c, &ta, &ts, m, 10, Unseen::Prior) - mp).collect();
            let ans = compare(&log, &post, &prod, &cands, &Config { samples: 1000, ..Default::default() })?;
            let b: Vec<f64> = ans.iter().map(|a| a.expected_diff).collect();
            let mpe = point_metric(&log, &prod, &ea, &es, m, 10, Unseen::Condense);
            let e: Vec<f64> = cands.iter().map(|c| point_metric(&log, c, &ea, &es, m, 10, Unseen::Condense) - mpe).collect();
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
        }
    }
    Ok(())
}
