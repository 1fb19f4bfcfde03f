//! `serpsim compare-rankers`: BARACO switching decisions from a production click log.

use super::common::with_threads;
use serpsim::baraco::{
    compare, compare_model, compute_posteriors, parse_rankings, parse_weights, point_metric, Config, ModelDraws, ModelPosteriorConfig, PosteriorModel,
    ProductionLog, Ranking, Sampler, SwitchMetric, Unseen,
};
use serpsim::clickmodels::metrics::UserModel;
use serpsim::collection::letor::{linear_score, LetorData};
use serpsim::collection::trec::Qrels;
use serpsim::write::csv_field;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `serpsim compare-rankers`.
#[derive(clap::Args)]
pub struct CompareRankersArgs {
    /// Click log of the production ranker: BARACO's layout (`query<TAB>docs<TAB>clicks`, see
    /// docs/baraco.md) or any log `clicks fit` reads (`-` for standard input; gzip and zstd
    /// are detected).
    #[arg(long)]
    log: PathBuf,
    /// Format of --log: auto (detected from the first lines, or Parquet/Arrow by their magic
    /// bytes), baraco, yandex, yandex-rpc, tsv, jsonl, simeval, ncm, bracketed:..., parquet[:...]
    /// or arrow[:...] (as `clicks fit --format`, docs/clickmodels.md).
    #[arg(long = "format", alias = "log-format", default_value = "auto")]
    log_format: String,
    /// Production ranker: ranking file (`ranker<TAB>query<TAB>docs`), or weights with --features.
    #[arg(long)]
    production: PathBuf,
    /// Candidate rankers, same format as --production.
    #[arg(long)]
    candidates: PathBuf,
    /// LETOR feature file: --production/--candidates are then weights files (`name w1 .. wF`).
    #[arg(long)]
    features: Option<PathBuf>,
    /// How much worse than production a candidate may be.
    #[arg(long, default_value_t = 0.01)]
    epsilon: f64,
    /// Switch when P(M_c + epsilon >= M_p | log) >= 1 - delta.
    #[arg(long, default_value_t = 0.05)]
    delta: f64,
    /// Joint posterior samples K (at most 10,000,000).
    #[arg(long, default_value_t = 1000)]
    samples: usize,
    /// DBN continuation probability gamma.
    #[arg(long, default_value_t = 0.9)]
    gamma: f64,
    /// Results per SERP the metric looks at.
    #[arg(long, default_value_t = 10)]
    depth: usize,
    /// Metric: rrmetric (Eq. 3) or dcg.
    #[arg(long, default_value = "rrmetric")]
    metric: String,
    /// Sampler: inverse-cdf (default), mh (the paper's Metropolis-Hastings, variance 0.1, every
    /// state a draw) or mh-thinned (same proposal, 1,000 burn-in states, every 100th state kept).
    #[arg(long, default_value = "inverse-cdf")]
    sampler: String,
    /// Click model whose joint posterior draws (Gibbs sampler) BARACO uses instead of
    /// Algorithm 1's DBN posteriors: dbn, ubm, pbm or ccm. Its metric: rrMetric for dbn (or
    /// --metric dcg), the expected reciprocal rank of the first click for the others
    /// (docs/baraco.md). --sampler does not apply.
    #[arg(long)]
    posterior_model: Option<String>,
    /// Prior of the click-model posterior: uniform (Beta(1, 1)), global (one empirical-Bayes
    /// Beta per table, fitted to the log) or query (per query for per-pair tables).
    #[arg(long, default_value = "global", requires = "posterior_model")]
    posterior_prior: String,
    /// Seed of the posterior samples.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output format: csv or json.
    #[arg(long = "out-format", default_value = "csv")]
    format: String,
    /// Output file (default: stdout).
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    /// Ground truth: TREC qrels (unjudged = not relevant), mapped through --user-model.
    #[arg(long)]
    truth: Option<PathBuf>,
    /// User model of Table 1 mapping labels to attractiveness/satisfaction (perfect, navigational, informational).
    #[arg(long, default_value = "navigational")]
    user_model: String,
    /// ROC plot written when --truth is given.
    #[arg(long, default_value = "roc.svg")]
    roc: PathBuf,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

fn load_rankers(path: &Path, features: Option<&LetorData>, log: &mut ProductionLog) -> anyhow::Result<Vec<Ranking>> {
    let text = serpsim::input::read_to_string(path)?;
    let source = path.display().to_string();
    match features {
        None => {
            let (r, skipped) = parse_rankings(&text, &source, log)?;
            if skipped > 0 {
                eprintln!("{source}: {skipped} line(s) rank queries absent from the log (weight 0, ignored)");
            }
            Ok(r)
        }
        Some(data) => {
            let weights = parse_weights(&text, &source)?;
            let mut out = Vec::new();
            for (name, w) in weights {
                anyhow::ensure!(w.len() <= data.n_features, "{source}: ranker `{name}` has {} weights but the features have {}", w.len(), data.n_features);
                let mut lists = vec![Vec::new(); log.queries.len()];
                for q in &data.queries {
                    let Some(qi) = log.find_query(&q.qid) else { continue };
                    let scores: Vec<f64> = q.docs.iter().map(|d| linear_score(&w, &d.features)).collect();
                    let mut order: Vec<usize> = (0..q.docs.len()).collect();
                    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
                    lists[qi as usize] = order.into_iter().map(|i| log.pair_id(qi, &q.docs[i].id)).collect();
                }
                out.push(Ranking { name, lists });
            }
            Ok(out)
        }
    }
}

pub fn run(args: CompareRankersArgs) -> anyhow::Result<()> {
    let inputs: Vec<&std::path::Path> =
        [Some(args.log.as_path()), Some(args.production.as_path()), Some(args.candidates.as_path()), args.features.as_deref(), args.truth.as_deref()]
            .into_iter()
            .flatten()
            .collect();
    for o in args.out.iter().chain([&args.roc]) {
        serpsim::output::refuse_input_as_output(o, &inputs)?;
    }
    serpsim::limits::check_usize("compare-rankers", "--samples", args.samples, serpsim::limits::MAX_SAMPLES, "Monte-Carlo samples")?;
    serpsim::limits::check_usize("compare-rankers", "--depth", args.depth, serpsim::baraco::decide::MAX_DEPTH, "ranks")?;
    let metric = SwitchMetric::parse(&args.metric).ok_or_else(|| anyhow::anyhow!("--metric: `{}` is not rrmetric or dcg", args.metric))?;
    let sampler = match args.sampler.as_str() {
        "inverse-cdf" => Sampler::InverseCdf,
        "mh" => Sampler::paper_mh(),
        "mh-thinned" => Sampler::thinned_mh(),
        s => anyhow::bail!("--sampler: `{s}` is not inverse-cdf, mh or mh-thinned"),
    };
    anyhow::ensure!(args.format == "csv" || args.format == "json", "--out-format: `{}` is not csv or json", args.format);
    let user = UserModel::parse(&args.user_model)
        .ok_or_else(|| anyhow::anyhow!("--user-model: `{}` is not perfect, navigational or informational", args.user_model))?;
    let posterior = match &args.posterior_model {
        None => None,
        Some(m) => {
            let model = PosteriorModel::parse(m).ok_or_else(|| anyhow::anyhow!("--posterior-model: `{m}` is not dbn, ubm, pbm or ccm"))?;
            let scope = args.posterior_prior.parse().map_err(|e| anyhow::anyhow!("--posterior-prior: {e}"))?;
            Some(ModelPosteriorConfig { model, scope, gamma: args.gamma, seed: args.seed, ..Default::default() })
        }
    };
    let cfg = Config { epsilon: args.epsilon, delta: args.delta, samples: args.samples, depth: args.depth, metric, sampler, seed: args.seed };
    cfg.validate()?;
    // `--format` named the output format (csv, json) before the one flag vocabulary
    // (docs/cli.md); an old script giving one is told, not read as a log format.
    if args.log_format == "csv" || args.log_format == "json" {
        anyhow::bail!("--format names the log's format; `{}` is an output format: give --out-format {}", args.log_format, args.log_format);
    }
    let log_format: serpsim::logs::Format = args.log_format.parse().map_err(|e| anyhow::anyhow!("--format: {e}"))?;
    let read_opts = serpsim::logs::ReadOptions::new(log_format).format_flag("--format");
    let (mut log, read) = ProductionLog::read(serpsim::input::open(&args.log)?, &read_opts)?;
    for w in read.warnings(&args.log.display().to_string()) {
        eprintln!("warning: {w}");
    }
    let features = args.features.as_deref().map(LetorData::from_file).transpose()?;
    let production = load_rankers(&args.production, features.as_ref(), &mut log)?;
    anyhow::ensure!(production.len() == 1, "{}: expected one production ranker, found {}", args.production.display(), production.len());
    let production = production.into_iter().next().expect("one ranker");
    let candidates = load_rankers(&args.candidates, features.as_ref(), &mut log)?;
    let answers = with_threads(args.threads, || -> anyhow::Result<_> {
        if let Some(mcfg) = &posterior {
            let draws = ModelDraws::sample(&log, mcfg, cfg.samples)?;
            return Ok(compare_model(&log, &draws, &production, &candidates, &cfg)?);
        }
        let post = compute_posteriors(&log, args.gamma)?;
        Ok(compare(&log, &post, &production, &candidates, &cfg)?)
    })??;
    // Ground truth from qrels.
    let truth: Option<Vec<f64>> = match &args.truth {
        None => None,
        Some(path) => {
            let qrels = Qrels::from_file(path)?;
            let mut a = vec![0.0; log.pairs.len()];
            let mut s = vec![0.0; log.pairs.len()];
            let (na, ns) = user.params(0);
            a.fill(na);
            s.fill(ns);
            let index: std::collections::HashMap<(u32, &str), usize> = log.pairs.iter().enumerate().map(|(p, (q, d))| ((*q, d.as_str()), p)).collect();
            for (qid, docs) in &qrels.topics {
                let Some(q) = log.find_query(qid) else { continue };
                for (doc, grade) in docs {
                    if let Some(&p) = index.get(&(q, doc.as_str())) {
                        (a[p], s[p]) = user.params(*grade);
                    }
                }
            }
            let m_p = point_metric(&log, &production, &a, &s, metric, args.depth, Unseen::Prior);
            Some(candidates.iter().map(|c| point_metric(&log, c, &a, &s, metric, args.depth, Unseen::Prior) - m_p).collect())
        }
    };
    let write = |w: &mut dyn Write| -> std::io::Result<()> {
        if args.format == "csv" {
            write!(w, "candidate,p_safe,expected_diff,switch,unseen_share")?;
            if truth.is_some() {
                write!(w, ",true_diff,truly_safe")?;
            }
            writeln!(w)?;
            for (i, a) in answers.iter().enumerate() {
                let f = serpsim::write::fmt_f64;
                write!(w, "{},{},{},{},{}", csv_field(&a.candidate), f(a.p_safe), f(a.expected_diff), a.switch, f(a.unseen_share))?;
                if let Some(t) = &truth {
                    write!(w, ",{},{}", f(t[i]), t[i] + args.epsilon >= 0.0)?;
                }
                writeln!(w)?;
            }
        } else {
            let rows: Vec<serde_json::Value> = answers
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let mut v = serde_json::to_value(a).expect("serialisable");
                    if let Some(t) = &truth {
                        v["true_diff"] = t[i].into();
                        v["truly_safe"] = (t[i] + args.epsilon >= 0.0).into();
                    }
                    v
                })
                .collect();
            let mut doc = serde_json::json!({
                "production": production.name, "epsilon": args.epsilon, "delta": args.delta,
                "samples": args.samples, "gamma": args.gamma, "depth": args.depth, "metric": args.metric,
                "sampler": args.sampler, "seed": args.seed, "sessions": log.len(), "candidates": rows,
            });
            if let Some(m) = &posterior {
                doc["posterior_model"] = m.model.name().to_ascii_lowercase().into();
                doc["posterior_prior"] = m.scope.name().into();
            }
            serde_json::to_writer_pretty(&mut *w, &doc)?;
            writeln!(w)?;
        }
        Ok(())
    };
    let svg = match &truth {
        Some(t) => {
            let safe: Vec<bool> = t.iter().map(|d| d + args.epsilon >= 0.0).collect();
            let p: Vec<f64> = answers.iter().map(|a| a.p_safe).collect();
            Some(serpsim::baraco::plot::roc_svg("BARACO switching decision: ROC over delta", &p, &[], &safe)?)
        }
        None => None,
    };
    // --out and the ROC plot are one set, written all or nothing (output::write_files).
    let mut table = Vec::new();
    if args.out.is_some() {
        write(&mut table)?;
    }
    let mut files: Vec<(&std::path::Path, &[u8])> = Vec::new();
    if let Some(path) = &args.out {
        files.push((path, &table));
    }
    if let Some(svg) = &svg {
        files.push((&args.roc, svg.as_bytes()));
    }
    if !files.is_empty() {
        serpsim::output::write_files(&files)?;
    }
    if args.out.is_none() {
        let mut out = std::io::stdout().lock();
        write(&mut out).and_then(|()| std::io::Write::flush(&mut out)).map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}"))?
    }
    if svg.is_some() {
        eprintln!("ROC plot: {}", args.roc.display());
    }
    Ok(())
}
