//! `serpsim study ...`: user-study logs (gaze, cursor, attention, fitting). See docs/study.md.

use serpsim::study::asc::{self, Recording};
use serpsim::study::detect::{self, IdtParams, IvtParams, ScreenGeometry};
use serpsim::study::Eye;
use serpsim::report::{csv_field, write_atomic};
use serpsim::study::attention::{length_table, literal_acquisition, query_term_table, word_attention};
use serpsim::study::fit::{FitOptions, VisitEvidence};
use serpsim::study::log::StudyLog;
use serpsim::study::pipeline::{self, AttentionSource};
use serpsim::study::synthetic::{generate_with, StudyConfig};
use std::path::{Path, PathBuf};

/// Screen and detector options shared by `events` and `agreement`.
#[derive(clap::Args, Clone)]
struct DetectOpts {
    /// Detector: `idt` (dispersion) or `ivt` (velocity).
    #[arg(long, default_value = "idt")]
    method: String,
    /// Physical screen size in cm, `WIDTH,HEIGHT` (pixel size comes from DISPLAY_COORDS).
    #[arg(long, default_value = "38,30.2")]
    screen_cm: String,
    /// Screen size in pixels `WIDTH,HEIGHT`, when the file has no DISPLAY_COORDS.
    #[arg(long)]
    screen_px: Option<String>,
    /// Eye-to-screen distance in cm.
    #[arg(long, default_value_t = 68.0)]
    distance_cm: f64,
    /// I-DT dispersion threshold in degrees.
    #[arg(long, default_value_t = 1.0)]
    dispersion: f64,
    /// I-VT velocity threshold in degrees/s.
    #[arg(long, default_value_t = 20.0)]
    velocity: f64,
    /// Minimum fixation duration in ms (default: 100 for I-DT, 60 for I-VT).
    #[arg(long)]
    min_duration: Option<f64>,
    /// Longest bridged gap between valid samples in ms.
    #[arg(long, default_value_t = 75.0)]
    max_gap: f64,
}

fn pair(s: &str, what: &str) -> anyhow::Result<(f64, f64)> {
    let (a, b) = s.split_once(',').ok_or_else(|| anyhow::anyhow!("{what}: expected `WIDTH,HEIGHT`, got `{s}`"))?;
    Ok((a.trim().parse()?, b.trim().parse()?))
}

fn geometry(rec: &Recording, o: &DetectOpts) -> anyhow::Result<ScreenGeometry> {
    let (wc, hc) = pair(&o.screen_cm, "--screen-cm")?;
    let (wp, hp) = match (&o.screen_px, rec.display) {
        (Some(s), _) => pair(s, "--screen-px")?,
        (None, Some(d)) => (d.width(), d.height()),
        (None, None) => anyhow::bail!("the file has no DISPLAY_COORDS message: give --screen-px WIDTH,HEIGHT"),
    };
    let g = ScreenGeometry { width_px: wp, height_px: hp, width_cm: wc, height_cm: hc, distance_cm: o.distance_cm };
    g.validate()?;
    Ok(g)
}

fn detect_eye(rec: &Recording, eye: Eye, o: &DetectOpts) -> anyhow::Result<Vec<serpsim::study::Fixation>> {
    let g = geometry(rec, o)?;
    let dt = rec.sample_interval();
    let samples = rec.samples(Some(eye));
    Ok(match o.method.as_str() {
        "idt" => {
            let p = IdtParams { dispersion_deg: o.dispersion, min_duration_ms: o.min_duration.unwrap_or(100.0), max_gap_ms: o.max_gap };
            detect::idt(samples, &g, &p, eye, dt)
        }
        "ivt" => {
            let p = IvtParams { velocity_deg_s: o.velocity, min_duration_ms: o.min_duration.unwrap_or(60.0), max_gap_ms: o.max_gap, ..Default::default() };
            detect::ivt(samples, &g, &p, eye, dt)
        }
        m => anyhow::bail!("--method: unknown detector `{m}` (idt or ivt)"),
    })
}

fn eyes(rec: &Recording) -> Vec<Eye> {
    let mut v = Vec::new();
    if !rec.left.is_empty() {
        v.push(Eye::Left);
    }
    if !rec.right.is_empty() {
        v.push(Eye::Right);
    }
    v
}

fn eye_name(e: Eye) -> &'static str {
    match e {
        Eye::Left => "left",
        Eye::Right => "right",
    }
}

/// Arguments of `serpsim study`.
#[derive(clap::Args)]
pub struct StudyArgs {
    #[command(subcommand)]
    command: StudyCommand,
}

#[derive(clap::Subcommand)]
enum StudyCommand {
    /// Print the counts of an EyeLink ASC file as one JSON object: samples, fixations,
    /// saccades, blinks, messages (per eye under `left` and `right` for a binocular file).
    Summary {
        /// EyeLink ASC file.
        file: PathBuf,
    },
    /// Detect fixations from the raw samples of an ASC file (I-DT or I-VT); writes CSV
    /// `eye,start,end,duration,x,y,pupil` to --out or stdout.
    Events {
        /// EyeLink ASC file.
        file: PathBuf,
        #[command(flatten)]
        opts: DetectOpts,
        /// Output CSV (default: stdout).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Generate a synthetic study (docs/study.md): gaze ASC files, cursor traces, AOI files,
    /// the JSONL log (without fixation/hover events), qrels and the planted truth.
    Synth {
        /// Generator knobs (TOML, keys of the `StudyConfig` table in docs/study.md).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Participants (overrides the config).
        #[arg(long)]
        participants: Option<usize>,
        /// Seed (overrides the config).
        #[arg(long)]
        seed: Option<u64>,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Add fixation and hover events to a study log: detects fixations in
    /// GAZE_DIR/<participant>-<task>.asc, hovers in CURSOR_DIR/<participant>-<task>.csv (or
    /// .txt, EvTrack), maps them onto the AOIs of the page on screen.
    Annotate {
        /// Study log (JSONL).
        log: PathBuf,
        /// Folder of ASC files named <participant>-<task>.asc.
        #[arg(long)]
        gaze_dir: Option<PathBuf>,
        /// Folder of cursor files named <participant>-<task>.csv or .txt.
        #[arg(long)]
        cursor_dir: Option<PathBuf>,
        #[command(flatten)]
        opts: DetectOpts,
        /// Shortest hover in ms.
        #[arg(long, default_value_t = 100.0)]
        min_hover: f64,
        /// Output log (JSONL).
        #[arg(long)]
        out: PathBuf,
    },
    /// Fit rank visits, P(click | grade), action times and sublist counts; writes
    /// fitted.toml (runs in `serpsim simulate`), fit.json and, with --qrels, run.txt.
    Fit {
        /// Study log (JSONL) with fixation/hover events.
        log: PathBuf,
        /// TREC qrels (topic = task id) for the per-grade tables.
        #[arg(long)]
        qrels: Option<PathBuf>,
        /// Evidence of visits on the last page: clicks, fixations or hovers.
        #[arg(long, default_value = "fixations")]
        evidence: String,
        /// Results per page.
        #[arg(long, default_value_t = 10)]
        page_size: usize,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Term-level attention (Eickhoff et al. 2015 §4–5): query vs non-query terms
    /// (Tables 2/7), term-length bins with and without stop words, literal term acquisition,
    /// and per-word F(w), D(w).
    Attention {
        /// Study log (JSONL) with fixation/hover events and AOI references.
        log: PathBuf,
        /// fixations or hovers.
        #[arg(long, default_value = "fixations")]
        source: String,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Per-word attention F(w), D(w) from an EyeLink Data Viewer fixation report (word
    /// interest areas); CSV `session,word,fixations,duration_ms` to --out or stdout.
    Words {
        /// Fixation report CSV.
        file: PathBuf,
        /// Output CSV.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Compare detected fixations with the tracker's EFIX events: per eye, the share of EFIX
    /// events covered at least --min-overlap of their duration (JSON on stdout).
    Agreement {
        /// EyeLink ASC files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        opts: DetectOpts,
        /// Share of an EFIX event's duration that detected fixations must cover.
        #[arg(long, default_value_t = 0.5)]
        min_overlap: f64,
    },
}

pub fn run(args: StudyArgs) -> anyhow::Result<()> {
    match args.command {
        StudyCommand::Summary { file } => {
            let s = asc::summarize_file(&file)?;
            println!("{}", serde_json::to_string(&s)?);
        }
        StudyCommand::Events { file, opts, out } => {
            let rec = Recording::from_file(&file)?;
            let mut text = String::from("eye,start,end,duration,x,y,pupil\n");
            for eye in eyes(&rec) {
                for f in detect_eye(&rec, eye, &opts)? {
                    text.push_str(&format!("{},{},{},{},{:.2},{:.2},{:.1}\n", eye_name(eye), f.start, f.end, f.duration, f.x, f.y, f.pupil));
                }
            }
            write_or_print(out.as_deref(), &text)?;
        }
        StudyCommand::Agreement { files, opts, min_overlap } => {
            anyhow::ensure!((0.0..=1.0).contains(&min_overlap), "--min-overlap must be in [0, 1]");
            let mut rows = Vec::new();
            for file in &files {
                let rec = Recording::from_file(file)?;
                for eye in eyes(&rec) {
                    let reference: Vec<_> = rec.fixations.iter().filter(|f| f.eye == eye).copied().collect();
                    let detected = detect_eye(&rec, eye, &opts)?;
                    let a = detect::agreement(&reference, &detected, min_overlap);
                    rows.push(serde_json::json!({
                        "file": file.file_name().map(|n| n.to_string_lossy().into_owned()),
                        "eye": eye_name(eye),
                        "method": opts.method,
                        "samples": rec.samples(Some(eye)).len(),
                        "efix": a.reference,
                        "detected": a.detected,
                        "matched": a.matched,
                        "share": if a.share.is_nan() { serde_json::Value::Null } else { serde_json::json!(a.share) },
                        "coverage": a.coverage.iter().map(|c| serde_json::json!({"start": c.0, "end": c.1, "covered": c.2})).collect::<Vec<_>>(),
                    }));
                }
            }
            println!("{}", serde_json::to_string_pretty(&rows)?);
        }
        StudyCommand::Synth { config, participants, seed, out } => synth(config, participants, seed, &out)?,
        StudyCommand::Annotate { log, gaze_dir, cursor_dir, opts, min_hover, out } => annotate(&log, gaze_dir, cursor_dir, &opts, min_hover, &out)?,
        StudyCommand::Fit { log, qrels, evidence, page_size, out } => fit(&log, qrels, &evidence, page_size, &out)?,
        StudyCommand::Attention { log, source, out } => attention(&log, &source, &out)?,
        StudyCommand::Words { file, out } => {
            let rows = serpsim::study::fixreport::read_fixation_report(&file)?;
            let ids: Vec<String> = rows.iter().map(|r| format!("{}/{}", r.session, r.trial)).collect();
            let words = serpsim::study::attention::word_attention(
                rows.iter().zip(&ids).filter_map(|(r, id)| r.ia_label.as_deref().map(|w| (id.as_str(), w, r.duration))),
            );
            let mut text = String::from("session,word,fixations,duration_ms\n");
            for s in &words {
                for w in &s.words {
                    text.push_str(&format!("{},{},{},{}\n", csv_field(&s.session), csv_field(&w.word), w.frequency, w.duration_ms));
                }
            }
            write_or_print(out.as_deref(), &text)?;
        }
    }
    Ok(())
}

fn write_or_print(out: Option<&Path>, text: &str) -> anyhow::Result<()> {
    match out {
        Some(p) => serpsim::report::write_atomic(p, text.as_bytes())?,
        None => print!("{text}"),
    }
    Ok(())
}

fn synth(config: Option<PathBuf>, participants: Option<usize>, seed: Option<u64>, out: &Path) -> anyhow::Result<()> {
    let mut c: StudyConfig = match &config {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| serpsim::Error::io(p, e))?;
            toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {}", p.display(), e.message()))?
        }
        None => StudyConfig::default(),
    };
    if let Some(n) = participants {
        c.participants = n;
    }
    if let Some(s) = seed {
        c.seed = s;
    }
    c.validate()?;
    let mut log = String::new();
    let mut err: Option<serpsim::Error> = None;
    let bar = super::common::progress_bar("generating sessions");
    bar.set_length((c.participants * c.tasks) as u64);
    let (_, qrels) = generate_with(&c, &mut |s| {
        bar.inc(1);
        let name = format!("{}-{}", s.participant, s.task);
        log.push_str(&StudyLog::to_jsonl(&s.events));
        let mut cursor = String::from("t,x,y,event\n");
        for e in &s.cursor {
            let kind = match e.kind {
                serpsim::study::cursor::CursorKind::Click => "click",
                _ => "move",
            };
            cursor.push_str(&format!("{},{},{},{kind}\n", e.t, e.x, e.y));
        }
        let results = [
            write_atomic(&out.join("gaze").join(format!("{name}.asc")), s.to_asc(&c).as_bytes()),
            write_atomic(&out.join("cursor").join(format!("{name}.csv")), cursor.as_bytes()),
            write_atomic(&out.join("aoi").join(format!("{name}.csv")), s.aois.to_csv().as_bytes()),
        ];
        for r in results {
            if let Err(e) = r {
                err.get_or_insert(e);
            }
        }
    })?;
    bar.finish_and_clear();
    if let Some(e) = err {
        return Err(e.into());
    }
    write_atomic(&out.join("log.jsonl"), log.as_bytes())?;
    let q: String = qrels.iter().map(|(t, d, g)| format!("{t} 0 {d} {g}\n")).collect();
    write_atomic(&out.join("qrels.txt"), q.as_bytes())?;
    let truth = serde_json::json!({"config": c, "rank_visits": c.rank_visits(), "query_attention_ratio": c.query_attention_ratio, "click": c.click});
    write_atomic(&out.join("truth.json"), serde_json::to_string_pretty(&truth)?.as_bytes())?;
    println!("{}", out.display());
    Ok(())
}

fn annotate(log_path: &Path, gaze_dir: Option<PathBuf>, cursor_dir: Option<PathBuf>, opts: &DetectOpts, min_hover: f64, out: &Path) -> anyhow::Result<()> {
    let log = StudyLog::from_file(log_path)?;
    let aois = pipeline::load_log_aois(&log)?;
    let mut text = String::new();
    let bar = super::common::progress_bar("annotating sessions");
    bar.set_length(log.sessions.len() as u64);
    for s in &log.sessions {
        bar.inc(1);
        let name = format!("{}-{}", s.participant, s.task);
        let mut fixations = Vec::new();
        if let Some(dir) = &gaze_dir {
            let path = dir.join(format!("{name}.asc"));
            if path.exists() {
                let rec = Recording::from_file(&path)?;
                let eye = rec.default_eye();
                fixations = detect_eye(&rec, eye, opts)?;
            }
        }
        let mut cursor = Vec::new();
        if let Some(dir) = &cursor_dir {
            for ext in ["csv", "txt"] {
                let path = dir.join(format!("{name}.{ext}"));
                if path.exists() {
                    cursor = serpsim::study::cursor::read_cursor(&path)?;
                    break;
                }
            }
        }
        text.push_str(&StudyLog::to_jsonl(&pipeline::annotate(&s.events, &fixations, &cursor, &aois, min_hover)));
    }
    bar.finish_and_clear();
    // AOI paths in the log are relative to its folder: write next to it or keep them valid.
    write_atomic(out, text.as_bytes())?;
    println!("{}", out.display());
    Ok(())
}

fn fit(log_path: &Path, qrels: Option<PathBuf>, evidence: &str, page_size: usize, out: &Path) -> anyhow::Result<()> {
    let evidence = match evidence {
        "clicks" => VisitEvidence::Clicks,
        "fixations" => VisitEvidence::Fixations,
        "hovers" => VisitEvidence::Hovers,
        e => anyhow::bail!("--evidence: `{e}` is not clicks, fixations or hovers"),
    };
    anyhow::ensure!(page_size >= 1, "--page-size must be at least 1");
    let log = StudyLog::from_file(log_path)?;
    let q = qrels.as_deref().map(serpsim::collection::trec::Qrels::from_file).transpose()?;
    let f = serpsim::study::fit::fit(&log, q.as_ref(), &FitOptions { evidence, page_size })?;
    let trec = match &qrels {
        Some(qp) => {
            let qtext = std::fs::read(qp).map_err(|e| serpsim::Error::io(qp, e))?;
            write_atomic(&out.join("qrels.txt"), &qtext)?;
            write_atomic(&out.join("run.txt"), serpsim::study::fit::study_run(&log).as_bytes())?;
            Some((PathBuf::from("qrels.txt"), PathBuf::from("run.txt")))
        }
        None => None,
    };
    let name = log_path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "study".into());
    let mut sc = f.scenario(&format!("fitted-{name}"), trec, page_size);
    sc.output.dir = out.join("simulation");
    write_atomic(&out.join("fitted.toml"), f.scenario_toml(&sc)?.as_bytes())?;
    write_atomic(&out.join("fit.json"), serde_json::to_string_pretty(&f)?.as_bytes())?;
    println!("{}", out.join("fitted.toml").display());
    Ok(())
}

fn attention(log_path: &Path, source: &str, out: &Path) -> anyhow::Result<()> {
    let (src, noun, table) = match source {
        "fixations" => (AttentionSource::Fixations, "fixation", "table2_fixations.csv"),
        "hovers" => (AttentionSource::Hovers, "hover", "table7_hovers.csv"),
        s => anyhow::bail!("--source: `{s}` is not fixations or hovers"),
    };
    let log = StudyLog::from_file(log_path)?;
    let aois = pipeline::load_log_aois(&log)?;
    let inputs: Vec<_> = log.sessions.iter().map(|s| pipeline::session_input(s, &aois, src)).collect();
    let t = query_term_table(&inputs, &|_| true);
    write_atomic(&out.join(table), t.to_csv(noun).as_bytes())?;
    let mut lt = String::from("length,query_all,non_query_all,query_no_stop,non_query_no_stop\n");
    for r in length_table(&inputs) {
        lt.push_str(&format!("{},{:.1},{:.1},{:.1},{:.1}\n", r.bin, r.all.0, r.all.1, r.no_stop.0, r.no_stop.1));
    }
    write_atomic(&out.join(format!("lengths_{source}.csv")), lt.as_bytes())?;
    let a = literal_acquisition(&inputs);
    let (d, f) = a.shares();
    let acq = serde_json::json!({"added_terms": a.added_terms, "displayed_before": a.displayed_before, "attended_before": a.attended_before, "share_displayed": d, "share_attended": f, "source": source});
    write_atomic(&out.join(format!("acquisition_{source}.json")), serde_json::to_string_pretty(&acq)?.as_bytes())?;
    let words = word_attention(inputs.iter().flat_map(|s| s.attended.iter().map(move |(_, w, dur)| (s.session.as_str(), w.as_str(), *dur))));
    let mut wt = String::from("session,word,count,duration_ms\n");
    for s in &words {
        for w in &s.words {
            wt.push_str(&format!("{},{},{},{}\n", csv_field(&s.session), csv_field(&w.word), w.frequency, w.duration_ms));
        }
    }
    write_atomic(&out.join(format!("words_{source}.csv")), wt.as_bytes())?;
    let mut rt = String::from("rank,searches,events,duration_ms\n");
    for r in pipeline::rank_attention(&log, src) {
        rt.push_str(&format!("{},{},{},{}\n", r.rank, r.searches, r.events, r.duration_ms));
    }
    write_atomic(&out.join(format!("ranks_{source}.csv")), rt.as_bytes())?;
    print!("{}", t.to_csv(noun));
    Ok(())
}
