//! `serpsim study ...`: user-study logs (gaze, cursor, attention, fitting). See docs/study.md.

use serpsim::study::asc::{self, Recording};
use serpsim::study::detect::{self, IdtParams, IvtParams, ScreenGeometry};
use serpsim::study::Eye;
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
