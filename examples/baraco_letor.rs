//! The BARACO LETOR study (Grotov et al. §6.1) on a LETOR file: by default the project's own
//! sample (study_logs/letor/letor_sample.txt); the reproduction in analysis/baraco/ ran on the
//! real MQ2008 subset, read in place with `--data ../shared/data/letor/mq2008_subset_a.txt`.
//!
//! ```text
//! cargo run --release --example baraco_letor -- [--runs 30] [--candidates 1000] [--samples 1000]
//!     [--data study_logs/letor/letor_sample.txt] [--out analysis/baraco] [--seed 2015]
//!     [--gen dbn,sdbn,ubm] [--users P,N,I] [--trainer adarank|coordinate-ascent]
//!     [--prior uniform|fitted|mixture] [--posterior-model dbn|ubm|pbm|ccm]
//!     [--posterior-prior uniform|global|query|hierarchical]
//! ```
//! `--posterior-model M` makes BARACO use joint posterior draws of click model M from the
//! Gibbs sampler, with the prior of `--posterior-prior` (default `global`: empirical-Bayes
//! Beta priors fitted to each run's log), and M's own metric (`baraco::model_posterior`).
//! `--prior fitted` gives BARACO empirical-Bayes Beta priors fitted to each run's log
//! (`harness::fitted_prior`) instead of the paper's Beta(1, 1); `--prior mixture` a fitted
//! two-component mixture of product Betas over (a, s) (`harness::fitted_mixture`), whose
//! components per run go to `mixtures.csv`.
//! Writes `runs.csv` (one row per cell and run), `tables.md` (Tables 2/3 style plus AUC) and
//! `roc_dbn_I_run0.svg`-style ROC plots of run 0, atomically, into the output directory.

use serpsim::baraco::harness::{GenModel, PriorChoice, RunResult, Study, StudyConfig, Trainer};
use serpsim::baraco::PosteriorModel;
use serpsim::clickmodels::metrics::UserModel;
use serpsim::clickmodels::prior::PriorScope;
use serpsim::collection::letor::LetorData;
use serpsim::stats::{mean, wilcoxon_signed_rank};
use serpsim::write::{write_atomic, write_atomic_with};
use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let mut cfg = StudyConfig::default();
    let mut data = PathBuf::from("study_logs/letor/letor_sample.txt");
    let mut out = PathBuf::from("analysis/baraco");
    let mut gens = GenModel::ALL.to_vec();
    let mut users = UserModel::ALL.to_vec();
    let mut from_csv: Option<PathBuf> = None;
    let (mut post_model, mut post_scope) = (None, PriorScope::Global);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--runs" => cfg.runs = v.parse()?,
            "--candidates" => cfg.candidates = v.parse()?,
            "--samples" => cfg.samples = v.parse()?,
            "--sessions" => cfg.sessions = v.parse()?,
            "--seed" => cfg.seed = v.parse()?,
            "--trainer" => cfg.trainer = Trainer::parse(&v).ok_or_else(|| anyhow::anyhow!("--trainer: unknown `{v}` (adarank, coordinate-ascent)"))?,
            "--prior" => cfg.prior = PriorChoice::parse(&v).ok_or_else(|| anyhow::anyhow!("--prior: unknown `{v}` (uniform, fitted, mixture)"))?,
            "--posterior-model" => {
                post_model = Some(PosteriorModel::parse(&v).ok_or_else(|| anyhow::anyhow!("--posterior-model: unknown `{v}` (dbn, ubm, pbm, ccm)"))?)
            }
            "--posterior-prior" => post_scope = v.parse()?,
            "--data" => data = v.into(),
            "--from-csv" => from_csv = Some(PathBuf::from(v)),
            "--out" => out = v.into(),
            "--gen" => {
                gens = v
                    .split(',')
                    .map(|g| match g {
                        "dbn" => Ok(GenModel::Dbn),
                        "sdbn" => Ok(GenModel::Sdbn),
                        "ubm" => Ok(GenModel::Ubm),
                        _ => Err(anyhow::anyhow!("--gen: unknown model `{g}`")),
                    })
                    .collect::<anyhow::Result<_>>()?
            }
            "--users" => {
                users = v.split(',').map(|u| UserModel::parse(u).ok_or_else(|| anyhow::anyhow!("--users: unknown `{u}`"))).collect::<anyhow::Result<_>>()?
            }
            other => anyhow::bail!("unknown argument `{other}`"),
        }
        i += 2;
    }
    anyhow::ensure!(post_model.is_some() || !args.iter().any(|a| a == "--posterior-prior"), "--posterior-prior needs --posterior-model");
    anyhow::ensure!(
        post_model.is_none() || cfg.prior == PriorChoice::Uniform,
        "--prior and --posterior-model exclude each other (the posterior's prior is --posterior-prior)"
    );
    cfg.posterior = post_model.map(|m| (m, post_scope));
    std::fs::create_dir_all(&out)?;
    if let Some(csv) = from_csv {
        // Rebuild the tables from a finished runs.csv (same settings as the run that wrote it).
        let results = read_runs(&csv, cfg.mt_margins.len())?;
        let cmd = std::fs::read_to_string(out.join("command.txt")).unwrap_or_default();
        let tables = tables(&cfg, &results, &gens, &users, cmd.trim());
        write_atomic(&out.join("tables.md"), tables.as_bytes())?;
        println!("{tables}");
        return Ok(());
    }
    let letor = LetorData::from_file(&data)?;
    let study = Study::new(letor, cfg.depth, cfg.trainer);
    eprintln!("trained ranker: mean nDCG@10 = {:.4}", study.ndcg(study.trained(), 10));
    let mut results: Vec<RunResult> = Vec::new();
    let started = std::time::Instant::now();
    for &gen in &gens {
        for &user in &users {
            for run in 0..cfg.runs {
                let (r, detail) = study.run(&cfg, gen, user, run)?;
                if run == 0 {
                    let svg = serpsim::baraco::plot::roc_svg(
                        &format!("{} / {}: ROC, run 0", gen.name(), user.code()),
                        &detail.p_safe,
                        &detail.diff_em,
                        &detail.diff_true.iter().map(|d| d + cfg.epsilon >= 0.0).collect::<Vec<_>>(),
                    )?;
                    write_atomic(&out.join(format!("roc_{}_{}_run0.svg", gen.name(), user.code())), svg.as_bytes())?;
                }
                if let Some(m) = &r.mixture {
                    eprintln!("{} {} run {run}: mixture prior {} (unseen E[a s] {:.3})", gen.name(), user.code(), m.describe(), m.mean_as());
                }
                eprintln!(
                    "{} {} run {run}: AUC baraco {:.3} mt {:?} | RMSE {:.2e} vs {:.2e} | r {:.3} vs {:.3} ({:.0}s)",
                    gen.name(),
                    user.code(),
                    r.auc_baraco,
                    r.auc_mt.iter().map(|x| (x * 1000.0).round() / 1000.0).collect::<Vec<_>>(),
                    r.rmse_baraco,
                    r.rmse_em,
                    r.pearson_baraco,
                    r.pearson_em,
                    started.elapsed().as_secs_f64()
                );
                results.push(r);
            }
        }
    }
    write_atomic_with(&out.join("runs.csv"), |w| {
        let m: Vec<String> = cfg.mt_margins.iter().map(|m| format!("auc_mt_{m}")).collect();
        writeln!(w, "gen,user,run,auc_baraco,{},auc_mt_sweep,rmse_baraco,rmse_em,pearson_baraco,pearson_em,truly_safe,unseen_share,prior_a_alpha,prior_a_beta,prior_s_alpha,prior_s_beta", m.join(","))?;
        for r in &results {
            let m: Vec<String> = r.auc_mt.iter().map(|x| x.to_string()).collect();
            writeln!(
                w,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                r.gen.name(),
                r.user.code(),
                r.run,
                r.auc_baraco,
                m.join(","),
                r.auc_mt_sweep,
                r.rmse_baraco,
                r.rmse_em,
                r.pearson_baraco,
                r.pearson_em,
                r.truly_safe,
                r.unseen_share,
                r.prior_a.0,
                r.prior_a.1,
                r.prior_s.0,
                r.prior_s.1
            )?;
        }
        Ok(())
    })?;
    if cfg.prior == PriorChoice::Mixture {
        write_atomic_with(&out.join("mixtures.csv"), |w| {
            writeln!(w, "gen,user,run,component,weight,a_alpha,a_beta,s_alpha,s_beta")?;
            for r in &results {
                if let Some(m) = &r.mixture {
                    for k in 0..m.weights.len() {
                        writeln!(w, "{},{},{},{k},{},{},{},{},{}", r.gen.name(), r.user.code(), r.run, m.weights[k], m.a[k].0, m.a[k].1, m.s[k].0, m.s[k].1)?;
                    }
                }
            }
            Ok(())
        })?;
    }
    let cmd = format!("cargo run --release --example baraco_letor -- {}", args.join(" "));
    write_atomic(&out.join("command.txt"), cmd.as_bytes())?;
    let tables = tables(&cfg, &results, &gens, &users, &cmd);
    write_atomic(&out.join("tables.md"), tables.as_bytes())?;
    println!("{tables}");
    Ok(())
}

fn read_runs(path: &std::path::Path, margins: usize) -> anyhow::Result<Vec<RunResult>> {
    let text = std::fs::read_to_string(path)?;
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let num = |i: usize| -> f64 { f[i].parse().unwrap_or(f64::NAN) };
        let gen = match f[0] {
            "DBN" => GenModel::Dbn,
            "sDBN" => GenModel::Sdbn,
            _ => GenModel::Ubm,
        };
        let user = UserModel::parse(f[1]).ok_or_else(|| anyhow::anyhow!("bad user `{}`", f[1]))?;
        let k = 4 + margins;
        out.push(RunResult {
            gen,
            user,
            run: f[2].parse()?,
            auc_baraco: num(3),
            auc_mt: (4..k).map(num).collect(),
            auc_mt_sweep: num(k),
            rmse_baraco: num(k + 1),
            rmse_em: num(k + 2),
            pearson_baraco: num(k + 3),
            pearson_em: num(k + 4),
            truly_safe: num(k + 5),
            unseen_share: num(k + 6),
            // Older files have no prior columns: Beta(1, 1).
            prior_a: (f.get(k + 7).map_or(1.0, |_| num(k + 7)), f.get(k + 8).map_or(1.0, |_| num(k + 8))),
            mixture: None,
            prior_s: (f.get(k + 9).map_or(1.0, |_| num(k + 9)), f.get(k + 10).map_or(1.0, |_| num(k + 10))),
        });
    }
    Ok(out)
}

/// Mean over the finite values (runs where the measure is defined).
fn fmean(xs: &[f64]) -> f64 {
    let v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        f64::NAN
    } else {
        mean(&v)
    }
}

/// Wilcoxon p over the runs where both are finite.
fn wp(a: &[f64], b: &[f64]) -> (f64, usize) {
    let (x, y): (Vec<f64>, Vec<f64>) = a.iter().zip(b).filter(|(x, y)| x.is_finite() && y.is_finite()).map(|(x, y)| (*x, *y)).unzip();
    if x.len() < 2 {
        (f64::NAN, x.len())
    } else {
        (wilcoxon_signed_rank(&x, &y).p_value, x.len())
    }
}

fn fmt(x: f64) -> String {
    if x.is_nan() {
        "n/a".into()
    } else {
        format!("{x:.3}")
    }
}

fn sig(p: f64) -> &'static str {
    if p.is_nan() {
        ""
    } else if p < 0.01 {
        " ▲▼"
    } else if p < 0.05 {
        " △▽"
    } else {
        ""
    }
}

/// The prior used, with the mean fitted Beta parameters per cell when fitted.
fn prior_line(cfg: &StudyConfig, rs: &[RunResult], gens: &[GenModel], users: &[UserModel]) -> String {
    if let Some((model, scope)) = cfg.posterior {
        let (metric, second) = match model {
            PosteriorModel::Dbn => ("rrMetric (Eq. 3)", "satisfaction"),
            PosteriorModel::Ubm => ("expected reciprocal rank of the first click", "examination (UBM cells)"),
            PosteriorModel::Pbm => ("expected reciprocal rank of the first click", "examination per rank"),
            PosteriorModel::Ccm => ("expected reciprocal rank of the first click", "tau1 (not fitted)"),
        };
        let mut s = format!(
            "joint posterior draws of the {} click model from the Gibbs sampler (`baraco::model_posterior`; 4 chains, warm-up 500, \
             K draws in all), prior scope `{}`, BARACO metric: {metric}. Mean over runs of the global prior of attractiveness \
             Beta(alpha, beta) [its mean] and of {second}, per cell:",
            model.name(),
            scope.name()
        );
        s.push_str(&prior_means(rs, gens, users, "a", "2nd"));
        return s;
    }
    match cfg.prior {
        PriorChoice::Uniform => "Beta(1, 1) on every attractiveness and satisfaction (the paper's)".into(),
        PriorChoice::Fitted | PriorChoice::Mixture => {
            let mut s = String::from(if cfg.prior == PriorChoice::Mixture {
                "empirical-Bayes two-component mixture of product Betas over (a, s) fitted to each run's log \
                 (`harness::fitted_mixture`; components per run in `mixtures.csv`); below, Betas matched to the moments of \
                 its marginals, mean over runs, per cell:"
            } else {
                "empirical-Bayes Beta priors fitted to each run's log (`harness::fitted_prior`); mean over runs of the fitted \
                 attractiveness prior Beta(alpha, beta) [its mean] and satisfaction prior, per cell:"
            });
            s.push_str(&prior_means(rs, gens, users, "a", "s"));
            s
        }
    }
}

/// Per cell, the mean over runs of the two recorded priors (`prior_a`, `prior_s`), labelled.
fn prior_means(rs: &[RunResult], gens: &[GenModel], users: &[UserModel], la: &str, ls: &str) -> String {
    let mut s = String::new();
    for &g in gens {
        for &u in users {
            let rows: Vec<&RunResult> = rs.iter().filter(|r| r.gen == g && r.user == u).collect();
            let m = |f: &dyn Fn(&RunResult) -> f64| mean(&rows.iter().map(|r| f(r)).collect::<Vec<_>>());
            s.push_str(&format!(
                "\n- {} {}: {la} ~ Beta({:.2}, {:.2}) [{:.3}], {ls} ~ Beta({:.2}, {:.2}) [{:.3}]",
                g.name(),
                u.code(),
                m(&|r| r.prior_a.0),
                m(&|r| r.prior_a.1),
                m(&|r| r.prior_a.0 / (r.prior_a.0 + r.prior_a.1)),
                m(&|r| r.prior_s.0),
                m(&|r| r.prior_s.1),
                m(&|r| r.prior_s.0 / (r.prior_s.0 + r.prior_s.1)),
            ));
        }
    }
    s
}

fn tables(cfg: &StudyConfig, rs: &[RunResult], gens: &[GenModel], users: &[UserModel], cmd: &str) -> String {
    let cell = |g: GenModel, u: UserModel| rs.iter().filter(move |r| r.gen == g && r.user == u);
    let mut s = String::new();
    s.push_str(&format!(
        "# BARACO: LETOR protocol of Grotov et al. §6.1\n\nCommand: `{cmd}`\n\n\
         Settings: ranker trained by {}, {} runs, {} candidates, {} sessions, K = {}, epsilon = {}, gamma = {}, depth {}, weight noise N(0, {}), seed {}.\n\
         Values are means over runs; p-values are two-sided Wilcoxon signed-rank tests over the paired runs\n\
         (BARACO vs EM, or BARACO vs the best MT margin); ▲▼ p < 0.01, △▽ p < 0.05 (exact when n < 50 without ties).\n\n\
         BARACO prior: {}.\n\n",
        match cfg.trainer {
            Trainer::AdaRank => "AdaRank (nDCG@10)",
            Trainer::CoordinateAscent => "coordinate ascent (nDCG@10, RMS weight 1)",
        },
        cfg.runs,
        cfg.candidates,
        cfg.sessions,
        cfg.samples,
        cfg.epsilon,
        cfg.gamma,
        cfg.depth,
        cfg.noise_sd,
        cfg.seed,
        prior_line(cfg, rs, gens, users)
    ));
    for (title, pick_b, pick_e, sci) in [
        ("Table 2 style: RMSE of the estimated E[M_c - M_p] (lower is better)", 0usize, 1usize, true),
        ("Table 3 style: Pearson correlation of the estimate with the true M_c - M_p (higher is better)", 2, 3, false),
    ] {
        s.push_str(&format!("## {title}\n\n| UM |"));
        for g in gens {
            s.push_str(&format!(" {} BARACO | {} EM | p |", g.name(), g.name()));
        }
        s.push_str("\n|---|");
        for _ in gens {
            s.push_str("---|---|---|");
        }
        s.push('\n');
        for &u in users {
            s.push_str(&format!("| {} |", u.code()));
            for &g in gens {
                let val = |r: &RunResult, k: usize| [r.rmse_baraco, r.rmse_em, r.pearson_baraco, r.pearson_em][k];
                let b: Vec<f64> = cell(g, u).map(|r| val(r, pick_b)).collect();
                let e: Vec<f64> = cell(g, u).map(|r| val(r, pick_e)).collect();
                let f = |x: f64| {
                    if x.is_nan() {
                        "n/a".to_string()
                    } else if sci {
                        format!("{x:.2e}")
                    } else {
                        format!("{x:.3}")
                    }
                };
                let (p, _) = wp(&b, &e);
                s.push_str(&format!(" {} | {} | {}{} |", f(fmean(&b)), f(fmean(&e)), fmt(p), sig(p)));
            }
            s.push('\n');
        }
        s.push('\n');
    }
    s.push_str(
        "## AUC of the switching decision (BARACO: P(safe) swept over delta in [0, 1]; MT at fixed m: one operating point, AUC = (1 + TPR - FPR) / 2)\n\n",
    );
    s.push_str("| gen | UM | runs with AUC defined | BARACO |");
    for m in &cfg.mt_margins {
        s.push_str(&format!(" MT m={m} |"));
    }
    s.push_str(" best MT | BARACO >= best MT? | p (BARACO vs best MT) | MT swept over all m | p (BARACO vs swept) | truly safe | unseen share |\n|");
    for _ in 0..(cfg.mt_margins.len() + 11) {
        s.push_str("---|");
    }
    s.push('\n');
    for &g in gens {
        for &u in users {
            let rows: Vec<&RunResult> = cell(g, u).collect();
            let b: Vec<f64> = rows.iter().map(|r| r.auc_baraco).collect();
            let mt: Vec<f64> = (0..cfg.mt_margins.len()).map(|k| fmean(&rows.iter().map(|r| r.auc_mt[k]).collect::<Vec<_>>())).collect();
            let defined = b.iter().filter(|x| x.is_finite()).count();
            let best = (0..mt.len()).filter(|&k| mt[k].is_finite()).max_by(|&a, &c| mt[a].total_cmp(&mt[c]));
            s.push_str(&format!("| {} | {} | {} | {} |", g.name(), u.code(), defined, fmt(fmean(&b))));
            for v in &mt {
                s.push_str(&format!(" {} |", fmt(*v)));
            }
            match best {
                Some(k) => {
                    let e: Vec<f64> = rows.iter().map(|r| r.auc_mt[k]).collect();
                    let (p, _) = wp(&b, &e);
                    s.push_str(&format!(
                        " {} (m={}) | {} | {}{} |",
                        fmt(mt[k]),
                        cfg.mt_margins[k],
                        if fmean(&b) >= mt[k] { "yes" } else { "**no**" },
                        fmt(p),
                        sig(p)
                    ));
                }
                None => s.push_str(" n/a | n/a | n/a |"),
            }
            let sweep: Vec<f64> = rows.iter().map(|r| r.auc_mt_sweep).collect();
            let safe: Vec<f64> = rows.iter().map(|r| r.truly_safe).collect();
            let un: Vec<f64> = rows.iter().map(|r| r.unseen_share).collect();
            let (ps, _) = wp(&b, &sweep);
            s.push_str(&format!(" {} | {}{} | {:.3} | {:.3} |\n", fmt(fmean(&sweep)), fmt(ps), sig(ps), mean(&safe), mean(&un)));
        }
    }
    s.push_str("\nAUC means are over the runs where it is defined (both safe and unsafe candidates present); Wilcoxon tests pair those runs. n/a: undefined. Under the Perfect user model P(s|R) = P(s|NR) = 0, so rrMetric is 0 for every ranker: every candidate is truly safe (AUC undefined) and the true difference is constant (Pearson undefined); RMSE is still reported. In some Informational runs every candidate is within epsilon of production (AUC undefined for that run).\n");
    s
}
