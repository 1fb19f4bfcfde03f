//! `serpsim suggest`: rerank query suggestions by attention and evaluate (Table 9);
//! `serpsim suggest generate`: write a synthetic study.

use super::common::progress_bar;
use serpsim::output::{check_output_dir, RunDir, RunInfo};
use serpsim::suggest::eval::{prepare, reciprocal_ranks, sweep_tam, sweep_tam_r, table9, table9_markdown, AcceptedSessions};
use serpsim::suggest::read_sessions;
use serpsim::suggest::score::Model;
use serpsim::suggest::synthetic::{generate, SyntheticSuggestConfig};
use serpsim::wordnet::{default_dir, Similarity, WordNet};
use std::path::{Path, PathBuf};

/// Arguments of `serpsim suggest`.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SuggestArgs {
    #[command(subcommand)]
    command: Option<SuggestCommand>,
    #[command(flatten)]
    eval: EvalArgs,
}

#[derive(clap::Subcommand)]
enum SuggestCommand {
    /// Write a synthetic study: OUT/log.jsonl and OUT/suggestions.jsonl (see docs/suggest.md).
    Generate {
        /// Output directory.
        #[arg(long, short = 'o')]
        out: PathBuf,
        /// Generator parameters (TOML, keys of SyntheticSuggestConfig); defaults otherwise.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Seed, overriding the config.
        #[arg(long)]
        seed: Option<u64>,
        /// Users, overriding the config (at most 10,000,000).
        #[arg(long)]
        sessions: Option<usize>,
        /// WordNet directory (default: $WNHOME, else /usr/share/wordnet).
        #[arg(long)]
        wordnet: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
struct EvalArgs {
    /// Attention log (JSONL, one session per line).
    #[arg(long)]
    log: Option<PathBuf>,
    /// Suggestions (JSONL: id, suggestions in the engine's order, accepted).
    #[arg(long)]
    suggestions: Option<PathBuf>,
    /// Model to compare with the engine's order: glf, tam, tam-r or all.
    #[arg(long, default_value = "all")]
    model: String,
    /// TAM-R weights l,f,d (sum 1); swept in steps of 0.1 when absent.
    #[arg(long)]
    weights: Option<String>,
    /// TAM alpha; swept in steps of 0.1 when absent.
    #[arg(long)]
    alpha: Option<f64>,
    /// Tune swept parameters on this log instead of the evaluated one (needs --tune-suggestions).
    #[arg(long, requires = "tune_suggestions")]
    tune_log: Option<PathBuf>,
    /// Suggestions of the tuning log.
    #[arg(long, requires = "tune_log")]
    tune_suggestions: Option<PathBuf>,
    /// Significance level for the Table 9 markers.
    #[arg(long, default_value_t = 0.05)]
    level: f64,
    /// WordNet directory for TAM-R (default: $WNHOME, else /usr/share/wordnet).
    #[arg(long)]
    wordnet: Option<PathBuf>,
    /// Directory for table9.md, table9.json, rr.csv and sweep.csv.
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
}

pub fn run(args: SuggestArgs) -> anyhow::Result<()> {
    match args.command {
        Some(SuggestCommand::Generate { out, config, seed, sessions, wordnet }) => {
            let mut cfg = match config {
                Some(p) => {
                    let text = serpsim::input::read_to_string(&p)?;
                    toml::from_str::<SyntheticSuggestConfig>(&text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?
                }
                None => SyntheticSuggestConfig::default(),
            };
            if let Some(s) = seed {
                cfg.seed = s;
            }
            if let Some(n) = sessions {
                cfg.sessions = n;
            }
            cfg.validate()?;
            check_output_dir(&out)?;
            let wn = WordNet::open(&wordnet.unwrap_or_else(default_dir))?;
            let (logs, lists) = generate(&cfg, &wn)?;
            let jsonl = |rows: Vec<String>| rows.join("\n") + "\n";
            let mut info = RunInfo::new("suggest generate");
            info.seed = Some(cfg.seed);
            let mut run = RunDir::begin(&out, info)?;
            run.write("log.jsonl", jsonl(logs.iter().map(|l| serde_json::to_string(l).expect("json")).collect()).as_bytes())?;
            run.write("suggestions.jsonl", jsonl(lists.iter().map(|l| serde_json::to_string(l).expect("json")).collect()).as_bytes())?;
            run.write("config.toml", toml::to_string(&cfg)?.as_bytes())?;
            run.commit()?;
            outln!("{}\n{}", out.join("log.jsonl").display(), out.join("suggestions.jsonl").display())?;
            Ok(())
        }
        None => evaluate(args.eval),
    }
}

fn load(log: &Path, sug: &Path, wn: Option<&WordNet>) -> anyhow::Result<AcceptedSessions> {
    let sessions = read_sessions(log, sug)?;
    anyhow::ensure!(!sessions.is_empty(), "{}: no sessions", log.display());
    let bar = progress_bar("computing features", "sessions");
    let mut sim = wn.map(Similarity::new);
    let p = prepare(&sessions, sim.as_mut(), &|done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
    bar.finish_and_clear();
    anyhow::ensure!(!p.accepted.is_empty(), "{}: no session has an accepted suggestion", sug.display());
    Ok(p)
}

fn evaluate(a: EvalArgs) -> anyhow::Result<()> {
    let log = a.log.ok_or_else(|| anyhow::anyhow!("--log is required (or use `serpsim suggest generate`)"))?;
    let sug = a.suggestions.ok_or_else(|| anyhow::anyhow!("--suggestions is required"))?;
    let (glf, tam, tam_r) = match a.model.as_str() {
        "glf" => (true, false, false),
        "tam" => (false, true, false),
        "tam-r" => (false, false, true),
        "all" => (true, true, true),
        other => anyhow::bail!("--model `{other}`: use glf, tam, tam-r or all"),
    };
    // Every option must take effect: refuse the ones this combination would ignore.
    anyhow::ensure!(a.alpha.is_none() || tam, "--alpha applies to TAM only; add it to --model (tam or all) or leave --alpha out");
    anyhow::ensure!(a.weights.is_none() || tam_r, "--weights applies to TAM-R only; add it to --model (tam-r or all) or leave --weights out");
    anyhow::ensure!(a.wordnet.is_none() || tam_r, "--wordnet is used by TAM-R only; add it to --model (tam-r or all) or leave --wordnet out");
    let sweeps = (tam && a.alpha.is_none()) || (tam_r && a.weights.is_none());
    anyhow::ensure!(
        a.tune_log.is_none() || sweeps,
        "--tune-log has no effect: nothing is swept (GLF has no parameter; --alpha and --weights fix TAM and TAM-R)"
    );
    anyhow::ensure!((0.0..1.0).contains(&a.level) && a.level > 0.0, "--level {} must be in (0, 1)", a.level);
    if let Some(out) = &a.out {
        check_output_dir(out)?;
    }
    let fixed_tam = a.alpha.map(Model::tam).transpose()?;
    let fixed_tam_r = match &a.weights {
        Some(w) => {
            let v: Vec<f64> =
                w.split(',').map(|x| x.trim().parse::<f64>().map_err(|e| anyhow::anyhow!("--weights `{w}`: {e}"))).collect::<anyhow::Result<_>>()?;
            anyhow::ensure!(v.len() == 3, "--weights `{w}`: give three numbers l,f,d");
            Some(Model::tam_r(v[0], v[1], v[2])?)
        }
        None => None,
    };
    let wn = if tam_r { Some(WordNet::open(&a.wordnet.clone().unwrap_or_else(default_dir))?) } else { None };
    let p = load(&log, &sug, wn.as_ref())?;
    let tune = match (&a.tune_log, &a.tune_suggestions) {
        (Some(l), Some(s)) => Some(load(l, s, wn.as_ref())?),
        _ => None,
    };
    let tuning = tune.as_ref().unwrap_or(&p);
    let mut models = Vec::new();
    if glf {
        models.push(Model::Glf);
    }
    if tam {
        models.push(fixed_tam.unwrap_or_else(|| sweep_tam(tuning).0));
    }
    let mut sweep = None;
    if tam_r {
        models.push(match fixed_tam_r {
            Some(m) => m,
            None => {
                let (m, _, all) = sweep_tam_r(tuning);
                sweep = Some(all);
                m
            }
        });
    }
    let rows = table9(&p, &models);
    let md = table9_markdown(&rows, a.level);
    out!("{md}")?;
    eprintln!(
        "{} sessions with an accepted suggestion, {} without; parameters tuned on {}",
        p.accepted.len(),
        p.skipped,
        if tune.is_some() { "the tuning log" } else { "the evaluated log itself (optimistic)" }
    );
    if let Some(out) = a.out {
        let mut run = RunDir::begin(&out, RunInfo::new("suggest"))?;
        run.write("table9.md", md.as_bytes())?;
        run.write("table9.json", serde_json::to_string_pretty(&rows)?.as_bytes())?;
        let all: Vec<Model> = rows.iter().map(|r| r.model).collect();
        let rrs: Vec<Vec<f64>> = all.iter().map(|m| reciprocal_ranks(&p, m)).collect();
        let mut csv = String::from("session");
        for m in &all {
            csv.push(',');
            csv.push_str(m.name());
        }
        csv.push('\n');
        for (i, id) in p.ids.iter().enumerate() {
            csv.push_str(&serpsim::write::csv_field(id));
            for rr in &rrs {
                csv.push_str(&format!(",{}", serpsim::write::fmt_f64(rr[i])));
            }
            csv.push('\n');
        }
        run.write("rr.csv", csv.as_bytes())?;
        if let Some(all) = sweep {
            let mut s = String::from("l,f,d,mrr\n");
            for (m, v) in all {
                if let Model::TamR { l, f, d } = m {
                    s.push_str(&format!("{l:.1},{f:.1},{d:.1},{}\n", serpsim::write::fmt_f64(v)));
                }
            }
            run.write("sweep.csv", s.as_bytes())?;
        }
        run.commit()?;
    }
    Ok(())
}
