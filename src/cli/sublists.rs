//! `serpsim sublists`: sweep, when, gen-log, fit, glm.

use super::common::{progress_bar, with_threads, RunOverrides};
use anyhow::Context;
use serpsim::presets::sublists::analysis::{accuracy_kl, fit_models, help_rows, models_markdown, rows_csv};
use serpsim::presets::sublists::log::{fit_log, parse_log, predict, validate, write_log, LogGenerator};
use serpsim::presets::sublists::measures::{sublist_entropy, sublist_relevance};
use serpsim::presets::sublists::model::CutOff;
use serpsim::presets::sublists::scenario::SublistStudy;
use serpsim::presets::sublists::sweep::{basic_effort, fig6_svg, pooled_csv, run_sweep_world, sweep_csv};
use serpsim::report::StagedOutput;
use serpsim::scenario::{Overrides, Scenario};
use serpsim::stats::glm::{design, full_factorial, hosmer_lemeshow, logistic, select_bic, term_name, Column, Frame};
use serpsim::write::{fmt_f64, write_atomic};
use std::path::PathBuf;

/// Arguments of `serpsim sublists`.
#[derive(clap::Args)]
pub struct SublistsArgs {
    #[command(subcommand)]
    command: SublistsCommand,
}

/// Options shared by the scenario-driven subcommands.
#[derive(clap::Args)]
struct Common {
    /// Scenario (TOML, docs/scenarios.md) with one system with sublists, its basic twin and a
    /// task x prior x lambda sweep; without it, the embedded simulations/sublists/default.toml.
    scenario: Option<PathBuf>,
    #[command(flatten)]
    run: RunOverrides,
}

#[derive(clap::Subcommand)]
enum SublistsCommand {
    /// What-if sweep (lambda x prior x task) with Fig. 6: sweep.csv, fig6.csv, fig6.svg, topics.csv, accuracy.csv.
    Sweep(Common),
    /// When does RLR help: per-topic Dq, Rq, Hq, Ulevel and a BIC-selected GLM per task.
    When(Common),
    /// Write a synthetic usage log from known parameters (see docs/sublists.md).
    GenLog {
        /// Scenario (as for `sweep`); without it, the embedded simulations/sublists/default.toml.
        scenario: Option<PathBuf>,
        /// Master seed, overriding the scenario's (the log, --out, is the only output: no
        /// --replicates or --threads).
        #[arg(long)]
        seed: Option<u64>,
        /// Output log file.
        #[arg(long = "out", short = 'o', alias = "log", value_name = "FILE")]
        log: PathBuf,
        /// True lambda.
        #[arg(long, default_value_t = 0.05)]
        lambda: f64,
        /// Per-user lognormal spread of lambda.
        #[arg(long, default_value_t = 0.3)]
        lambda_sigma: f64,
        /// Probability that a switch picks a sublist uniformly.
        #[arg(long, default_value_t = 0.1)]
        random_switch: f64,
        /// Probability that a hover is not logged.
        #[arg(long, default_value_t = 0.1)]
        hover_dropout: f64,
        /// Probability of clicking an examined non-relevant result.
        #[arg(long, default_value_t = 0.05)]
        false_click: f64,
        /// RLR instances per topic.
        #[arg(long, default_value_t = 5)]
        rlr_instances: usize,
        /// Basic instances per topic.
        #[arg(long, default_value_t = 3)]
        basic_instances: usize,
        /// Task (find-N, find-all, effort-B).
        #[arg(long, default_value = "find-10")]
        task: String,
    },
    /// Fit the model to a usage log and validate its predictions (§4): fitted.json, predictions.csv, validation.json.
    Fit {
        #[command(flatten)]
        common: Common,
        /// Usage log (CSV, docs/sublists.md).
        #[arg(long)]
        log: PathBuf,
        /// Task of the logged instances.
        #[arg(long, default_value = "find-10")]
        task: String,
    },
    /// Binomial GLM on a CSV file, optionally with BIC selection over the full factorial.
    Glm {
        /// CSV with a header.
        data: PathBuf,
        /// Column of successes (0/1 for Bernoulli rows).
        #[arg(long)]
        response: String,
        /// Column of trials (default: 1 per row).
        #[arg(long)]
        trials: Option<String>,
        /// Numeric covariates, comma-separated.
        #[arg(long, value_delimiter = ',')]
        numeric: Vec<String>,
        /// Factor covariates, comma-separated (first level seen is the reference).
        #[arg(long, value_delimiter = ',')]
        factor: Vec<String>,
        /// Select terms by BIC (forward and backward) over all interactions.
        #[arg(long)]
        select: bool,
    },
}

fn load(common: &Common) -> anyhow::Result<(Scenario, SublistStudy)> {
    let (mut s, base, ctx) = match &common.scenario {
        Some(p) => {
            let (s, b) = Scenario::from_file(p)?;
            (s, b, p.display().to_string())
        }
        None => (
            Scenario::parse(include_str!("../../simulations/sublists/default.toml"), "sublists/default.toml")?,
            PathBuf::from("simulations/sublists"),
            "sublists/default.toml".into(),
        ),
    };
    let overrides: Overrides = common.run.overrides();
    overrides.apply(&mut s)?;
    if let Some(r) = common.run.replicates {
        s.when.get_or_insert_with(Default::default).replicates = Some(r as usize);
    }
    let study = SublistStudy::from_scenario(&s, &base, &ctx)?;
    Ok((s, study))
}

/// Files written by one command, committed together at the end.
struct Out(StagedOutput);

impl Out {
    fn new(s: &Scenario, command: &str) -> anyhow::Result<Self> {
        Ok(Out(serpsim::run::stage(s, command)?))
    }
    fn write(&mut self, name: &str, text: &str) -> anyhow::Result<()> {
        self.0.write(name, text.as_bytes())?;
        Ok(())
    }
    fn commit(self) -> anyhow::Result<()> {
        for p in self.0.commit()? {
            outln!("{}", p.display())?;
        }
        Ok(())
    }
}

pub fn run(args: SublistsArgs) -> anyhow::Result<()> {
    match args.command {
        SublistsCommand::Sweep(c) => sweep(c),
        SublistsCommand::When(c) => when(c),
        SublistsCommand::GenLog {
            scenario,
            seed,
            log,
            lambda,
            lambda_sigma,
            random_switch,
            hover_dropout,
            false_click,
            rlr_instances,
            basic_instances,
            task,
        } => {
            let common = Common { scenario, run: RunOverrides { seed, ..Default::default() } };
            let (_, study) = load(&common)?;
            let topics = &study.topics;
            for (name, v) in [("--random-switch", random_switch), ("--hover-dropout", hover_dropout), ("--false-click", false_click)] {
                anyhow::ensure!((0.0..=1.0).contains(&v), "{name} must be in [0, 1], got {v}");
            }
            anyhow::ensure!(lambda.is_finite() && lambda >= 0.0 && lambda_sigma.is_finite() && lambda_sigma >= 0.0, "--lambda and --lambda-sigma must be >= 0");
            let cutoff = CutOff::parse(&task).with_context(|| format!("--task `{task}` is not find-N, find-all or effort-B"))?;
            let gen = LogGenerator {
                lambda,
                lambda_sigma,
                random_switch,
                hover_dropout,
                false_click,
                rlr_instances,
                basic_instances,
                cutoff,
                page_size: study.grid.page_size,
                seed: study.grid.seed,
                ..Default::default()
            };
            let inst = gen.generate(topics)?;
            if let Some(d) = log.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(d)?;
            }
            write_atomic(&log, write_log(&inst, topics).as_bytes())?;
            outln!("{}", log.display())?;
            Ok(())
        }
        SublistsCommand::Fit { common, log, task } => fit(common, log, task),
        SublistsCommand::Glm { data, response, trials, numeric, factor, select } => glm(data, response, trials, numeric, factor, select),
    }
}

fn sweep(c: Common) -> anyhow::Result<()> {
    let (s, study) = load(&c)?;
    let (grid, topics) = (&study.grid, &study.topics);
    let bar = progress_bar("sublist sweep", "user blocks");
    let cells = with_threads(c.run.threads, || {
        run_sweep_world(&study.loaded.world, &study.loaded.prepared, &study.labels, grid, &|d, t| {
            bar.set_length(t);
            bar.set_position(d);
        })
    })??;
    bar.finish_and_clear();
    let mut out = Out::new(&s, "sublists sweep")?;
    out.write("sweep.csv", &sweep_csv(topics, grid, &cells))?;
    out.write("fig6.csv", &pooled_csv(grid, &cells))?;
    out.write("fig6.svg", &fig6_svg(grid, &cells)?)?;
    let mut t = String::from("topic,results,relevant,sublists,Rq,Hq");
    for task in &grid.tasks {
        t += &format!(",Dq_{}", task.name());
    }
    t += "\n";
    for topic in topics {
        t += &format!(
            "{},{},{},{},{},{}",
            serpsim::write::csv_field(&topic.id),
            topic.grades.len(),
            topic.relevant(),
            topic.k(),
            fmt_f64(sublist_relevance(topic)),
            fmt_f64(sublist_entropy(topic))
        );
        for &task in &grid.tasks {
            t += &format!(",{}", fmt_f64(basic_effort(topic, task, grid.page_size, &grid.weights)));
        }
        t += "\n";
    }
    out.write("topics.csv", &t)?;
    let help = &study.help;
    let (levels, random) = accuracy_kl(topics, &help.smoothing);
    let mut a = String::from("level,smoothing,median_kl,share_of_random_kl\n");
    for (i, (&sm, &kl)) in help.smoothing.iter().zip(&levels).enumerate() {
        a += &format!("{},{},{},{}\n", i + 1, fmt_f64(sm), fmt_f64(kl), fmt_f64(kl / random));
    }
    a += &format!("random,,{},1\n", fmt_f64(random));
    out.write("accuracy.csv", &a)?;
    let answer = serpsim::presets::sublists::sweep::answer(grid, topics.len(), &cells, study.help.lambda);
    out.write("answer.txt", &answer)?;
    let files = out.0.commit()?;
    super::common::print_answer(&answer, &files)
}

fn when(c: Common) -> anyhow::Result<()> {
    let (s, study) = load(&c)?;
    let settings = study.help.clone();
    let topics = study.topics.clone();
    let bar = progress_bar("simulating levels", "runs");
    bar.set_length(1);
    let rows = with_threads(c.run.threads, || help_rows(&topics, &settings))??;
    bar.finish_and_clear();
    let mut out = Out::new(&s, "sublists when")?;
    out.write("when_rows.csv", &rows_csv(&rows))?;
    let models = fit_models(&rows, &settings)?;
    let mut md = format!(
        "# When does RLR help?\n\nBinomial GLM of P(effort_basic - effort_RLR > 0) per task; rows = topics x accuracy levels; response = {:?} ({} simulated users per row), lambda = {}, accuracy levels = smoothing {:?}.\n\n",
        settings.response, settings.replicates, settings.lambda, settings.smoothing
    );
    md += &models_markdown(&models);
    out.write("when_glm.md", &md)?;
    for m in &models {
        out.write(&format!("when_glm_{}.csv", m.task), &m.selected.fit.table_csv())?;
    }
    out.commit()
}

fn fit(c: Common, log: PathBuf, task: String) -> anyhow::Result<()> {
    let (s, study) = load(&c)?;
    let topics = study.topics.clone();
    let (page_size, weights, replicates, seed) = (study.grid.page_size, study.grid.weights, study.grid.replicates, study.grid.seed);
    let cutoff = CutOff::parse(&task).with_context(|| format!("--task `{task}` is not find-N, find-all or effort-B"))?;
    let text = serpsim::input::read_to_string(&log)?;
    let instances = parse_log(&text, &log.display().to_string(), &topics)?;
    let fitted = fit_log(&instances, &topics, page_size, &weights);
    let preds = with_threads(c.run.threads, || predict(&instances, &topics, &fitted, cutoff, page_size, &weights, replicates, seed))??;
    let v = validate(&preds)?;
    let fitted_json = serde_json::json!({
        "instances": instances.len(),
        "lambda_mle": fitted.lambda,
        "rlr_rank_visits": fitted.rlr_rank_visits,
        "basic_rank_visits": fitted.basic_rank_visits,
        "topics": topics.iter().enumerate().map(|(t, topic)| serde_json::json!({
            "topic": topic.id,
            "sublists": topic.names,
            "choice_counts": fitted.choice_counts[t],
            "choice_probs_mle": fitted.choice_probs[t],
        })).collect::<Vec<_>>(),
    });
    let mut out = Out::new(&s, "sublists fit")?;
    out.write("fitted.json", &serde_json::to_string_pretty(&fitted_json)?)?;
    let mut p = String::from("topic,user_basic,user_rlr,predicted_rlr,predicted_q25,predicted_q75,model_basic,effort_u,effort_p\n");
    for x in &preds {
        p += &format!(
            "{},{},{},{},{},{},{},{},{}\n",
            serpsim::write::csv_field(&x.topic),
            fmt_f64(x.user_basic),
            fmt_f64(x.user_rlr),
            fmt_f64(x.predicted_rlr),
            fmt_f64(x.predicted_q25),
            fmt_f64(x.predicted_q75),
            fmt_f64(x.model_basic),
            fmt_f64(x.user_basic - x.user_rlr),
            fmt_f64(x.user_basic - x.predicted_rlr)
        );
    }
    out.write("predictions.csv", &p)?;
    let class = |a: &serpsim::presets::sublists::log::ClassAgreement| serde_json::json!({"precision": a.precision, "recall": a.recall, "f1": a.f1});
    let vj = serde_json::json!({
        "topics": v.topics,
        "pearson_r": v.pearson.r,
        "pearson_p": v.pearson.p,
        "agree": v.agree,
        "compared": v.compared,
        "rlr_better": class(&v.rlr_better),
        "basic_better": class(&v.basic_better),
    });
    out.write("validation.json", &serde_json::to_string_pretty(&vj)?)?;
    out.commit()
}

fn glm(data: PathBuf, response: String, trials: Option<String>, numeric: Vec<String>, factor: Vec<String>, select: bool) -> anyhow::Result<()> {
    let src = data.display().to_string();
    let text = serpsim::input::read_to_string(&data)?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().context("empty data file")?.split(',').map(str::trim).collect();
    let col = |name: &str| header.iter().position(|h| *h == name).ok_or_else(|| anyhow::anyhow!("{src}: no column `{name}`"));
    let rows: Vec<Vec<&str>> = lines.filter(|l| !l.trim().is_empty()).map(|l| l.split(',').map(str::trim).collect()).collect();
    let num = |name: &str| -> anyhow::Result<Vec<f64>> {
        let j = col(name)?;
        rows.iter()
            .enumerate()
            .map(|(i, r)| {
                r.get(j)
                    .and_then(|v| v.parse::<f64>().ok())
                    .ok_or_else(|| serpsim::Error::parse(&src, i + 2, format!("column `{name}` is not a number")).into())
            })
            .collect()
    };
    let y = num(&response)?;
    let n = match &trials {
        Some(t) => num(t)?,
        None => vec![1.0; y.len()],
    };
    let mut cols = Vec::new();
    for v in &numeric {
        cols.push((v.clone(), Column::Numeric(num(v)?)));
    }
    for f in &factor {
        let j = col(f)?;
        let labels: Vec<String> = rows.iter().map(|r| r.get(j).copied().unwrap_or("").to_string()).collect();
        cols.push((f.clone(), Column::factor(&labels, None)?));
    }
    anyhow::ensure!(!cols.is_empty(), "give at least one --numeric or --factor covariate");
    let frame = Frame::new(cols)?;
    let vars: Vec<usize> = (0..frame.names.len()).collect();
    let (fit, terms) = if select {
        let (best, _) = select_bic(&frame, &y, &n, &full_factorial(&vars))?;
        (best.fit, best.terms)
    } else {
        let terms: Vec<Vec<usize>> = vars.iter().map(|&v| vec![v]).collect();
        (logistic(&design(&frame, &terms), &y, &n)?, terms)
    };
    eprintln!("terms: {}", terms.iter().map(|t| term_name(&frame, t)).collect::<Vec<_>>().join(" + "));
    if fit.separated_rows > 0 {
        eprintln!(
            "warning: {src}: (quasi-)complete separation: {} of {} rows are fitted with probability 0 or 1; the maximum-likelihood estimate does not exist, so the estimates and standard errors below are not meaningful (drop or merge the separating covariates, or use a penalised fit)",
            fit.separated_rows, fit.rows
        );
    }
    let hl = hosmer_lemeshow(&fit.fitted, &y, &n, 10);
    eprintln!(
        "loglik {:.6}  deviance {:.6}  BIC {:.6}  Hosmer-Lemeshow chi2 {:.4} df {} p {:.4}",
        fit.loglik, fit.deviance, fit.bic, hl.statistic, hl.df, hl.p
    );
    out!("{}", fit.table_csv())?;
    Ok(())
}
