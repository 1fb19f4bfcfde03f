//! `serpsim study ...`: user-study logs (gaze, cursor, attention, fitting). See docs/study.md.

use serpsim::study::asc;
use serpsim::study::attention::{length_table, literal_acquisition, query_term_table, word_attention};
use serpsim::study::cursor::{CursorColumns, CursorOptions};
use serpsim::study::detect::{self, IdtParams, IvtParams};
use serpsim::study::events::{self, DetectConfig, Detected, Method};
use serpsim::study::fit::{FitOptions, VisitEvidence};
use serpsim::study::gaze_csv::{ColumnSpec, CsvOptions, GazeFormat, TimeUnit};
use serpsim::study::log::StudyLog;
use serpsim::study::pipeline::{self, AttentionSource};
use serpsim::study::synthetic::{generate_with, StudyConfig};
use serpsim::study::Eye;
use serpsim::write::{csv_field, write_atomic};
use std::path::{Path, PathBuf};

/// Detector, screen and input options shared by `events`, `agreement` and `annotate`.
#[derive(clap::Args, Clone)]
struct DetectOpts {
    /// Detector: `idt` (dispersion, Salvucci and Goldberg 2000) or `ivt` (velocity, the
    /// Tobii I-VT filter's defaults).
    #[arg(long, default_value = "idt")]
    method: String,
    /// Physical screen size in cm, `WIDTH,HEIGHT` (default: the pymovements example
    /// set-up; the pixel size comes from DISPLAY_COORDS or --screen-px).
    #[arg(long, default_value = "38,30.2")]
    screen_cm: String,
    /// Screen size in pixels `WIDTH,HEIGHT`, when the file does not say it.
    #[arg(long)]
    screen_px: Option<String>,
    /// Eye-to-screen distance in cm.
    #[arg(long, default_value_t = 68.0)]
    distance_cm: f64,
    /// I-DT dispersion threshold in degrees [default: 1.0] (I-DT only).
    #[arg(long)]
    dispersion: Option<f64>,
    /// I-VT velocity threshold in degrees/s [default: 30] (I-VT only).
    #[arg(long)]
    velocity: Option<f64>,
    /// I-VT velocity window in ms [default: 20] (I-VT only).
    #[arg(long)]
    window_ms: Option<f64>,
    /// I-VT: merge fixations at most this many ms apart [default: 75]; with --merge-angle.
    #[arg(long)]
    merge_gap: Option<f64>,
    /// I-VT: ... and at most this many degrees apart [default: 0.5].
    #[arg(long)]
    merge_angle: Option<f64>,
    /// I-VT: do not merge adjacent fixations.
    #[arg(long)]
    no_merge: bool,
    /// Minimum fixation duration in ms [default: 100 for I-DT, 60 for I-VT].
    #[arg(long)]
    min_duration: Option<f64>,
    /// Longest bridged gap between valid samples in ms.
    #[arg(long, default_value_t = 75.0)]
    max_gap: f64,
    /// Sampling rate in Hz [default: the file's RATE, else inferred from the time stamps].
    #[arg(long)]
    rate: Option<f64>,
    /// Input layout: auto, asc, tobii-pro-lab, tobii-studio, pymovements, dataviewer, csv.
    #[arg(long, default_value = "auto")]
    format: String,
    /// Columns of a generic gaze CSV: `time=COL,x=COL,y=COL[,pupil=COL][,x_right=COL,y_right=COL]`.
    #[arg(long)]
    columns: Option<String>,
    /// Unit of the gaze time column: s, ms, us, ns [default: from the layout or inferred].
    #[arg(long)]
    time_unit: Option<String>,
}

fn pair(s: &str, what: &str) -> anyhow::Result<(f64, f64)> {
    let (a, b) = s.split_once(',').ok_or_else(|| anyhow::anyhow!("{what}: expected `WIDTH,HEIGHT`, got `{s}`"))?;
    let num = |v: &str| v.trim().parse::<f64>().map_err(|_| anyhow::anyhow!("{what}: `{}` is not a number", v.trim()));
    Ok((num(a)?, num(b)?))
}

/// The validated detector configuration and input options (refuses options of the other
/// detector instead of ignoring them).
fn detect_config(o: &DetectOpts) -> anyhow::Result<(DetectConfig, Option<bool>, CsvOptions)> {
    let method = match o.method.as_str() {
        "idt" => {
            for (set, name) in [
                (o.velocity.is_some(), "--velocity"),
                (o.window_ms.is_some(), "--window-ms"),
                (o.merge_gap.is_some(), "--merge-gap"),
                (o.merge_angle.is_some(), "--merge-angle"),
                (o.no_merge, "--no-merge"),
            ] {
                anyhow::ensure!(!set, "{name} is an I-VT option; it has no effect with --method idt");
            }
            let d = IdtParams::default();
            Method::Idt(IdtParams {
                dispersion_deg: o.dispersion.unwrap_or(d.dispersion_deg),
                min_duration_ms: o.min_duration.unwrap_or(d.min_duration_ms),
                max_gap_ms: o.max_gap,
            })
        }
        "ivt" => {
            anyhow::ensure!(o.dispersion.is_none(), "--dispersion is an I-DT option; it has no effect with --method ivt");
            anyhow::ensure!(!(o.no_merge && (o.merge_gap.is_some() || o.merge_angle.is_some())), "--no-merge contradicts --merge-gap/--merge-angle");
            let d = IvtParams::default();
            Method::Ivt(IvtParams {
                velocity_deg_s: o.velocity.unwrap_or(d.velocity_deg_s),
                window_ms: o.window_ms.unwrap_or(d.window_ms),
                min_duration_ms: o.min_duration.unwrap_or(d.min_duration_ms),
                max_gap_ms: o.max_gap,
                merge_gap_ms: if o.no_merge { -1.0 } else { o.merge_gap.unwrap_or(d.merge_gap_ms) },
                merge_angle_deg: if o.no_merge { -1.0 } else { o.merge_angle.unwrap_or(d.merge_angle_deg) },
            })
        }
        m => anyhow::bail!("--method: unknown detector `{m}` (idt or ivt)"),
    };
    let cfg = DetectConfig {
        method,
        screen_cm: pair(&o.screen_cm, "--screen-cm")?,
        distance_cm: o.distance_cm,
        screen_px: o.screen_px.as_deref().map(|s| pair(s, "--screen-px")).transpose()?,
        rate_hz: o.rate,
    };
    cfg.validate()?;
    let (asc, format) = match o.format.as_str() {
        "asc" => (Some(true), GazeFormat::Auto),
        "auto" => (None, GazeFormat::Auto),
        f => (Some(false), GazeFormat::parse(f)?),
    };
    let csv = CsvOptions {
        format,
        columns: o.columns.as_deref().map(ColumnSpec::parse).transpose()?,
        time_unit: o.time_unit.as_deref().map(TimeUnit::parse).transpose()?,
    };
    anyhow::ensure!(
        !(asc == Some(true) && (csv.columns.is_some() || csv.time_unit.is_some())),
        "--columns and --time-unit are for CSV input, not --format asc"
    );
    Ok((cfg, asc, csv))
}

/// Checks an output file path before the work starts: not a directory, in a directory.
fn check_out_file(p: &Path) -> anyhow::Result<()> {
    anyhow::ensure!(!p.is_dir(), "{}: is a directory, expected a file name", p.display());
    if let Some(parent) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
        anyhow::ensure!(!parent.exists() || parent.is_dir(), "{}: not a directory", parent.display());
    }
    Ok(())
}

fn note_all(file: &Path, d: &Detected) {
    for n in &d.notes {
        eprintln!("note: {}: {n}", file.display());
    }
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
        /// EyeLink ASC file (gzip/zstd and `-` accepted).
        file: PathBuf,
    },
    /// Detect fixations from raw gaze samples (I-DT or I-VT), streamed: EyeLink ASC, Tobii
    /// Pro Lab / Studio exports, pymovements CSV, Data Viewer sample reports, or any CSV with
    /// --columns (gzip/zstd and `-` accepted). Writes CSV `eye,start,end,duration,x,y,pupil`
    /// to --out or stdout; what was inferred is printed on stderr.
    Events {
        /// Gaze file (`-` for standard input).
        file: PathBuf,
        #[command(flatten)]
        opts: DetectOpts,
        /// Output CSV (default: stdout).
        #[arg(long, short = 'o')]
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
        #[arg(long, short = 'o')]
        out: PathBuf,
    },
    /// Add fixation and hover events to a study log: detects fixations in
    /// GAZE_DIR/<participant>-<task>.{asc,csv,tsv}[.gz], hovers in
    /// CURSOR_DIR/<participant>-<task>.{csv,tsv,txt}[.gz], maps them onto the AOIs (tokens
    /// and result boxes) of the page on screen. Existing fixation (hover) events of a
    /// session are replaced when its gaze (cursor) file is found: annotating twice gives
    /// the same log.
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
        /// Columns of a cursor CSV: `t=COL,x=COL,y=COL[,event=COL]` (default: by header:
        /// `t,x,y,event`, Balabit, EvTrack).
        #[arg(long)]
        cursor_columns: Option<String>,
        /// Cursor event names: `NAME=KIND,...`, KIND one of move, click, down, up, scroll.
        #[arg(long)]
        cursor_events: Option<String>,
        /// Unit of the cursor time column: s, ms, us, ns.
        #[arg(long)]
        cursor_time_unit: Option<String>,
        /// Output log (JSONL).
        #[arg(long, short = 'o')]
        out: PathBuf,
    },
    /// Fit rank visits, P(click | grade), action times and sublist counts; writes
    /// fitted.toml (runs in `serpsim simulate`), fit.json and, with --qrels, run.txt.
    Fit {
        /// Study log (JSONL) with fixation/hover events.
        log: PathBuf,
        /// TREC qrels (topic = task id): per-grade tables, and the study's own rankings as
        /// the fitted scenario's collection. Without it, give --synthetic-collection.
        #[arg(long)]
        qrels: Option<PathBuf>,
        /// Without qrels: let the fitted scenario run on the synthetic collection generator
        /// (the study's documents have no relevance grades then).
        #[arg(long)]
        synthetic_collection: bool,
        /// Evidence of visits on the last page: clicks, fixations or hovers.
        #[arg(long, default_value = "fixations")]
        evidence: String,
        /// Results per page.
        #[arg(long, default_value_t = 10)]
        page_size: usize,
        /// Output directory.
        #[arg(long, short = 'o')]
        out: PathBuf,
    },
    /// Validate a user fitted from a study log against held-out searches: fit on the
    /// training sessions (as `study fit`), run the fitted user on every test search's own
    /// result list, and compare the deepest rank visited, the rank-visit profile and the
    /// click measures (TV and KS distances with bootstrap intervals); writes
    /// distances.csv, validation.json and validation.svg.
    Validate {
        /// Study log (JSONL): the training sessions, and the test sessions unless --test.
        log: PathBuf,
        /// TREC qrels (topic = task id): the grades of the P(click | grade) table.
        #[arg(long)]
        qrels: PathBuf,
        /// A separate test log (otherwise the log's sessions are split, see --test-share).
        #[arg(long)]
        test: Option<PathBuf>,
        /// Share of the log's sessions held out for testing (split by a hash of the session
        /// id and --seed).
        #[arg(long, default_value_t = 0.5)]
        test_share: f64,
        /// Evidence of visits on the last page: clicks, fixations or hovers.
        #[arg(long, default_value = "fixations")]
        evidence: String,
        /// Results per page.
        #[arg(long, default_value_t = 10)]
        page_size: usize,
        /// Simulated searches per test search (at most 1,000,000).
        #[arg(long, default_value_t = 1000)]
        replicates: usize,
        /// Bootstrap resamples of the distance intervals (at most 1,000,000).
        #[arg(long, default_value_t = 200)]
        bootstrap: usize,
        /// Level of the bootstrap intervals.
        #[arg(long, default_value_t = 0.95)]
        ci_level: f64,
        /// Seed of the split, the simulation and the bootstrap.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads (default: all cores). Results do not depend on it.
        #[arg(long)]
        threads: Option<usize>,
        /// Output directory (otherwise the JSON summary goes to stdout only).
        #[arg(long, short = 'o')]
        out: Option<PathBuf>,
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
        #[arg(long, short = 'o')]
        out: PathBuf,
    },
    /// Per-word attention F(w), D(w) from an EyeLink Data Viewer fixation report (word
    /// interest areas); CSV `session,word,fixations,duration_ms` to --out or stdout.
    Words {
        /// Fixation report CSV.
        file: PathBuf,
        /// Output CSV.
        #[arg(long, short = 'o')]
        out: Option<PathBuf>,
    },
    /// Compare detected fixations with the tracker's own (EyeLink EFIX, Tobii `Eye movement
    /// type`): per file and eye, the share of tracker fixations whose onset a detected
    /// fixation matches within --onset-tolerance, and the share covered at least
    /// --min-overlap of their duration (JSON on stdout).
    Agreement {
        /// Gaze files with tracker fixations.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        opts: DetectOpts,
        /// Share of a tracker fixation's duration that detected fixations must cover.
        #[arg(long, default_value_t = 0.5)]
        min_overlap: f64,
        /// Onset tolerance in ms [default: 20 plus one sample interval].
        #[arg(long)]
        onset_tolerance: Option<f64>,
    },
}

pub fn run(args: StudyArgs) -> anyhow::Result<()> {
    match args.command {
        StudyCommand::Summary { file } => {
            let s = asc::summarize_file(&file)?;
            outln!("{}", serde_json::to_string(&s)?)?;
        }
        StudyCommand::Events { file, opts, out } => {
            let (cfg, asc, csv) = detect_config(&opts)?;
            if let Some(o) = &out {
                check_out_file(o)?;
                serpsim::output::refuse_input_as_output(o, &[&file])?;
            }
            let d = events::detect_file(&file, asc, &csv, &cfg, None)?;
            note_all(&file, &d);
            write_or_print(out.as_deref(), &d.fixations_csv())?;
        }
        StudyCommand::Agreement { files, opts, min_overlap, onset_tolerance } => {
            anyhow::ensure!((0.0..=1.0).contains(&min_overlap), "--min-overlap must be in [0, 1]");
            if let Some(t) = onset_tolerance {
                anyhow::ensure!(t.is_finite() && t >= 0.0, "--onset-tolerance must be a number of ms >= 0");
            }
            let (cfg, asc, csv) = detect_config(&opts)?;
            let mut rows = Vec::new();
            for file in &files {
                let d = events::detect_file(file, asc, &csv, &cfg, None)?;
                note_all(file, &d);
                anyhow::ensure!(d.has_reference, "{}: the file carries no fixations of the tracker's own to compare with", file.display());
                let tol = onset_tolerance.unwrap_or(20.0 + d.dt);
                for eye in d.eyes() {
                    let reference: Vec<_> = d.reference.iter().filter(|f| f.eye == eye).copied().collect();
                    let detected = &d.fixations[eye as usize];
                    let a = detect::agreement(&reference, detected, min_overlap);
                    let o = detect::onset_agreement(&reference, detected, tol);
                    let num = |v: f64| if v.is_nan() { serde_json::Value::Null } else { serde_json::json!(v) };
                    rows.push(serde_json::json!({
                        "file": file.file_name().map(|n| n.to_string_lossy().into_owned()),
                        "eye": eye_name(eye),
                        "method": cfg.method.name(),
                        "samples": d.samples[eye as usize],
                        "sample_interval_ms": d.dt,
                        "reference": a.reference,
                        "detected": a.detected,
                        "onset_tolerance_ms": tol,
                        "onset_matched": o.matched,
                        "onset_share": num(o.share),
                        "min_overlap": min_overlap,
                        "overlap_matched": a.matched,
                        "overlap_share": num(a.share),
                        "pairs": o.pairs.iter().zip(&a.coverage).map(|(p, c)| serde_json::json!({"start": p.0, "end": c.1, "detected_start": p.1, "covered": c.2})).collect::<Vec<_>>(),
                    }));
                }
            }
            outln!("{}", serde_json::to_string_pretty(&rows)?)?;
        }
        StudyCommand::Synth { config, participants, seed, out } => synth(config, participants, seed, &out)?,
        StudyCommand::Annotate { log, gaze_dir, cursor_dir, opts, min_hover, cursor_columns, cursor_events, cursor_time_unit, out } => {
            let cursor = CursorOptions {
                columns: cursor_columns.as_deref().map(CursorColumns::parse).transpose()?,
                events: cursor_events.as_deref().map(CursorOptions::parse_events).transpose()?.unwrap_or_default(),
                time_unit: cursor_time_unit.as_deref().map(TimeUnit::parse).transpose()?,
            };
            serpsim::output::refuse_input_as_output(&out, &[&log])?;
            annotate(&log, gaze_dir, cursor_dir, &opts, min_hover, &cursor, &out)?
        }
        StudyCommand::Fit { log, qrels, synthetic_collection, evidence, page_size, out } => {
            let inputs: Vec<&Path> = [Some(log.as_path()), qrels.as_deref()].into_iter().flatten().collect();
            serpsim::output::refuse_input_as_output(&out, &inputs)?;
            fit(&log, qrels, synthetic_collection, &evidence, page_size, &out)?
        }
        StudyCommand::Validate { log, qrels, test, test_share, evidence, page_size, replicates, bootstrap, ci_level, seed, threads, out } => {
            if let Some(o) = &out {
                let inputs: Vec<&Path> = [Some(log.as_path()), Some(qrels.as_path()), test.as_deref()].into_iter().flatten().collect();
                serpsim::output::refuse_input_as_output(o, &inputs)?;
            }
            serpsim::limits::check_usize(
                "study validate",
                "--replicates",
                replicates,
                serpsim::limits::MAX_CLICK_REPLICATES,
                "simulated searches per test search",
            )?;
            serpsim::limits::check_usize("study validate", "--bootstrap", bootstrap, serpsim::limits::MAX_BOOTSTRAP, "bootstrap resamples")?;
            let cfg = serpsim::clickmodels::validate::ValidateConfig { replicates, bootstrap, level: ci_level, seed, ..Default::default() };
            validate(&log, &qrels, test.as_deref(), test_share, &evidence, page_size, &cfg, threads, out.as_deref())?
        }
        StudyCommand::Attention { log, source, out } => {
            serpsim::output::refuse_input_as_output(&out, &[&log])?;
            attention(&log, &source, &out)?
        }
        StudyCommand::Words { file, out } => {
            if let Some(o) = &out {
                check_out_file(o)?;
                serpsim::output::refuse_input_as_output(o, &[&file])?;
            }
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
        Some(p) => serpsim::write::write_atomic(p, text.as_bytes())?,
        None => out!("{text}")?,
    }
    Ok(())
}

fn synth(config: Option<PathBuf>, participants: Option<usize>, seed: Option<u64>, out: &Path) -> anyhow::Result<()> {
    let mut c: StudyConfig = match &config {
        Some(p) => {
            let text = serpsim::input::read_to_string(p)?;
            serpsim::scenario::from_toml(&text, &p.display().to_string())?
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
    let mut run = serpsim::output::RunDir::begin(out, serpsim::output::RunInfo { seed: Some(c.seed), ..serpsim::output::RunInfo::new("study synth") })?;
    let mut log = String::new();
    let mut err: Option<serpsim::Error> = None;
    let bar = super::common::progress_bar("generating", "sessions");
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
            run.write(&format!("gaze/{name}.asc"), s.to_asc(&c).as_bytes()),
            run.write(&format!("cursor/{name}.csv"), cursor.as_bytes()),
            run.write(&format!("aoi/{name}.csv"), s.aois.to_csv().as_bytes()),
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
    run.write("log.jsonl", log.as_bytes())?;
    let q: String = qrels.iter().map(|(t, d, g)| format!("{t} 0 {d} {g}\n")).collect();
    run.write("qrels.txt", q.as_bytes())?;
    let truth = serde_json::json!({"config": c, "rank_visits": c.rank_visits(), "query_attention_ratio": c.query_attention_ratio, "click": c.click});
    run.write("truth.json", serde_json::to_string_pretty(&truth)?.as_bytes())?;
    run.commit()?;
    outln!("{}", out.display())?;
    Ok(())
}

/// The first existing `dir/name.EXT` (also gzip/zstd-compressed, `.gz`/`.zst`).
fn find_file(dir: &Path, name: &str, exts: &[&str]) -> Option<PathBuf> {
    for ext in exts {
        for z in ["", ".gz", ".zst"] {
            let p = dir.join(format!("{name}.{ext}{z}"));
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

fn annotate(
    log_path: &Path,
    gaze_dir: Option<PathBuf>,
    cursor_dir: Option<PathBuf>,
    opts: &DetectOpts,
    min_hover: f64,
    cursor_opts: &CursorOptions,
    out: &Path,
) -> anyhow::Result<()> {
    anyhow::ensure!(gaze_dir.is_some() || cursor_dir.is_some(), "give --gaze-dir, --cursor-dir or both: there is nothing to annotate with");
    anyhow::ensure!(min_hover.is_finite() && min_hover >= 0.0, "--min-hover must be a number of ms >= 0");
    let (cfg, asc, csv) = detect_config(opts)?;
    for d in [&gaze_dir, &cursor_dir].into_iter().flatten() {
        anyhow::ensure!(d.is_dir(), "{}: not a directory", d.display());
    }
    check_out_file(out)?;
    let log = StudyLog::from_file(log_path)?;
    let aois = pipeline::load_log_aois(&log)?;
    let mut text = String::new();
    let bar = super::common::progress_bar("annotating", "sessions");
    bar.set_length(log.sessions.len() as u64);
    let mut total = pipeline::AnnotateCounts::default();
    let (mut no_gaze, mut no_cursor) = (Vec::new(), Vec::new());
    let mut notes = std::collections::BTreeSet::new();
    for s in &log.sessions {
        bar.inc(1);
        let name = format!("{}-{}", s.participant, s.task);
        let mut fixations = None;
        if let Some(dir) = &gaze_dir {
            match find_file(dir, &name, &["asc", "csv", "tsv"]) {
                Some(path) => {
                    let d = events::detect_file(&path, asc, &csv, &cfg, None)?;
                    for n in &d.notes {
                        notes.insert(n.clone());
                    }
                    let eye = if d.samples[0] > 0 { Eye::Left } else { Eye::Right };
                    fixations = Some(d.fixations[eye as usize].clone());
                }
                None => no_gaze.push(name.clone()),
            }
        }
        let mut cursor = None;
        if let Some(dir) = &cursor_dir {
            match find_file(dir, &name, &["csv", "tsv", "txt"]) {
                Some(path) => {
                    let t = serpsim::study::cursor::read_cursor_with(&path, cursor_opts)?;
                    for n in t.notes {
                        notes.insert(format!("{}: {n}", path.display()));
                    }
                    cursor = Some(t.events);
                }
                None => no_cursor.push(name.clone()),
            }
        }
        let (events, c) = pipeline::annotate_with(&s.events, fixations.as_deref(), cursor.as_deref(), &aois, min_hover);
        total.fixations += c.fixations;
        total.token_hovers += c.token_hovers;
        total.result_hovers += c.result_hovers;
        total.replaced_fixations += c.replaced_fixations;
        total.replaced_hovers += c.replaced_hovers;
        text.push_str(&StudyLog::to_jsonl(&events));
    }
    bar.finish_and_clear();
    for n in &notes {
        eprintln!("note: {n}");
    }
    for (missing, what, dir) in [(&no_gaze, "gaze", &gaze_dir), (&no_cursor, "cursor", &cursor_dir)] {
        if !missing.is_empty() {
            eprintln!(
                "warning: no {what} file in {} for {} of {} sessions (e.g. {}); their {what} events are left as they were",
                dir.as_deref().map(|d| d.display().to_string()).unwrap_or_default(),
                missing.len(),
                log.sessions.len(),
                missing[0]
            );
        }
    }
    if total.replaced_fixations + total.replaced_hovers > 0 {
        eprintln!(
            "note: replaced {} fixation and {} hover events already in the log (annotation is idempotent)",
            total.replaced_fixations, total.replaced_hovers
        );
    }
    eprintln!(
        "annotated {} sessions: {} fixations, {} token hovers, {} result hovers",
        log.sessions.len(),
        total.fixations,
        total.token_hovers,
        total.result_hovers
    );
    if cursor_dir.is_some() && total.token_hovers + total.result_hovers == 0 {
        eprintln!("warning: no hover found: do the cursor positions fall on the AOI boxes (screen vs page coordinates, --min-hover)?");
    }
    // AOI paths in the log are relative to its folder: write next to it or keep them valid.
    write_atomic(out, text.as_bytes())?;
    outln!("{}", out.display())?;
    Ok(())
}

fn fit(log_path: &Path, qrels: Option<PathBuf>, synthetic_collection: bool, evidence: &str, page_size: usize, out: &Path) -> anyhow::Result<()> {
    match (&qrels, synthetic_collection) {
        (None, false) => anyhow::bail!(
            "give --qrels QRELS (the fitted scenario then simulates the study's own rankings), or --synthetic-collection to simulate on the synthetic collection generator"
        ),
        (Some(_), true) => anyhow::bail!("--qrels and --synthetic-collection exclude each other"),
        _ => {}
    }
    let evidence = visit_evidence(evidence)?;
    anyhow::ensure!(page_size >= 1, "--page-size must be at least 1");
    serpsim::output::check_output_dir(out)?;
    let log = StudyLog::from_file(log_path)?;
    let q = qrels.as_deref().map(serpsim::collection::trec::Qrels::from_file).transpose()?;
    let f = serpsim::study::fit::fit(&log, q.as_ref(), &FitOptions { evidence, page_size })?;
    let mut run = serpsim::output::RunDir::begin(out, serpsim::output::RunInfo::new("study fit"))?;
    let trec = match &qrels {
        Some(qp) => {
            let qtext = serpsim::input::read_to_string(qp)?;
            run.write("qrels.txt", qtext.as_bytes())?;
            run.write("run.txt", serpsim::study::fit::study_run(&log).as_bytes())?;
            Some((PathBuf::from("qrels.txt"), PathBuf::from("run.txt")))
        }
        None => None,
    };
    let name = log_path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "study".into());
    let mut sc = f.scenario(&format!("fitted-{name}"), trec, page_size);
    // Beside the fit's output set (which a later fit replaces as a whole), not inside it.
    let out_name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "fit".into());
    sc.output.dir = out.with_file_name(format!("{out_name}-simulation"));
    run.write("fitted.toml", f.scenario_toml(&sc)?.as_bytes())?;
    run.write("fit.json", serde_json::to_string_pretty(&f)?.as_bytes())?;
    run.commit()?;
    outln!("{}", out.join("fitted.toml").display())?;
    Ok(())
}

fn visit_evidence(evidence: &str) -> anyhow::Result<VisitEvidence> {
    Ok(match evidence {
        "clicks" => VisitEvidence::Clicks,
        "fixations" => VisitEvidence::Fixations,
        "hovers" => VisitEvidence::Hovers,
        e => anyhow::bail!("--evidence: `{e}` is not clicks, fixations or hovers"),
    })
}

#[allow(clippy::too_many_arguments)]
fn validate(
    log_path: &Path,
    qrels: &Path,
    test_path: Option<&Path>,
    test_share: f64,
    evidence: &str,
    page_size: usize,
    cfg: &serpsim::clickmodels::validate::ValidateConfig,
    threads: Option<usize>,
    out: Option<&Path>,
) -> anyhow::Result<()> {
    use serpsim::study::validate::{split, validate_study};
    let evidence = visit_evidence(evidence)?;
    anyhow::ensure!(page_size >= 1, "--page-size must be at least 1");
    if let Some(o) = out {
        serpsim::output::check_output_dir(o)?;
    }
    let log = StudyLog::from_file(log_path)?;
    let q = serpsim::collection::trec::Qrels::from_file(qrels)?;
    let (train, test) = match test_path {
        Some(p) => (log, StudyLog::from_file(p)?),
        None => split(&log, test_share, cfg.seed)?,
    };
    let opts = FitOptions { evidence, page_size };
    let sv = super::common::with_threads(threads, || validate_study(&train, &test, &q, &opts, cfg))??;
    let v = &sv.validation;
    let mut json = serde_json::to_value(v)?;
    json["train_sessions"] = train.sessions.len().into();
    json["train_searches"] = sv.train_searches.into();
    json["test_study_sessions"] = test.sessions.len().into();
    json["visits"] = serde_json::to_value(&sv.visits)?;
    if let Some(o) = out {
        let mut info = serpsim::output::RunInfo::new("study validate");
        info.seed = Some(cfg.seed);
        info.args = serpsim::output::recorded_args(std::env::args());
        let mut run = serpsim::output::RunDir::begin(o, info)?;
        run.write_with("distances.csv", |w| super::clicks::write_distances(w, "study-fitted", v.measures.iter().chain(&v.ctr).chain(&sv.visits)))?;
        run.write("simeval.csv", serpsim::stats::simeval::to_csv(&v.simeval).as_bytes())?;
        let title = format!("user fitted on {} searches: {} real test searches against {} simulated", sv.train_searches, v.test_sessions, v.simulated_sessions);
        run.write("validation.svg", serpsim::clickmodels::validate::plot_svg(v, &title)?.as_bytes())?;
        run.write("validation.json", format!("{}\n", serde_json::to_string_pretty(&json)?).as_bytes())?;
        run.commit()?;
    }
    outln!("{json}")?;
    Ok(())
}

fn attention(log_path: &Path, source: &str, out: &Path) -> anyhow::Result<()> {
    let (src, noun, table) = match source {
        "fixations" => (AttentionSource::Fixations, "fixation", "table2_fixations.csv"),
        "hovers" => (AttentionSource::Hovers, "hover", "table7_hovers.csv"),
        s => anyhow::bail!("--source: `{s}` is not fixations or hovers"),
    };
    serpsim::output::check_output_dir(out)?;
    let log = StudyLog::from_file(log_path)?;
    let mut run = serpsim::output::RunDir::begin(out, serpsim::output::RunInfo::new("study attention"))?;
    let aois = pipeline::load_log_aois(&log)?;
    let inputs: Vec<_> = log.sessions.iter().map(|s| pipeline::session_input(s, &aois, src)).collect();
    let t = query_term_table(&inputs, &|_| true);
    run.write(table, t.to_csv(noun).as_bytes())?;
    let mut lt = String::from("length,query_all,non_query_all,query_no_stop,non_query_no_stop\n");
    for r in length_table(&inputs) {
        lt.push_str(&format!("{},{:.1},{:.1},{:.1},{:.1}\n", r.bin, r.all.0, r.all.1, r.no_stop.0, r.no_stop.1));
    }
    run.write(&format!("lengths_{source}.csv"), lt.as_bytes())?;
    let a = literal_acquisition(&inputs);
    let (d, f) = a.shares();
    let acq = serde_json::json!({"added_terms": a.added_terms, "displayed_before": a.displayed_before, "attended_before": a.attended_before, "share_displayed": d, "share_attended": f, "source": source});
    run.write(&format!("acquisition_{source}.json"), serde_json::to_string_pretty(&acq)?.as_bytes())?;
    let words = word_attention(inputs.iter().flat_map(|s| s.attended.iter().map(move |(_, w, dur)| (s.session.as_str(), w.as_str(), *dur))));
    let mut wt = String::from("session,word,count,duration_ms\n");
    for s in &words {
        for w in &s.words {
            wt.push_str(&format!("{},{},{},{}\n", csv_field(&s.session), csv_field(&w.word), w.frequency, w.duration_ms));
        }
    }
    run.write(&format!("words_{source}.csv"), wt.as_bytes())?;
    let mut rt = String::from("rank,searches,events,duration_ms\n");
    for r in pipeline::rank_attention(&log, src) {
        rt.push_str(&format!("{},{},{},{}\n", r.rank, r.searches, r.events, r.duration_ms));
    }
    run.write(&format!("ranks_{source}.csv"), rt.as_bytes())?;
    run.commit()?;
    out!("{}", t.to_csv(noun))?;
    Ok(())
}
