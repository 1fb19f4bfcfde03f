//! End-to-end tests of `serpsim study ...`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_serpsim"))
}

fn gaze(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/gaze").join(name)
}

#[test]
fn summary_prints_the_documented_json() {
    let out = bin().args(["study", "summary"]).arg(gaze("mono_1000hz.asc")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Counts by grep (analysis/study/asc_counts.sh, study_logs/gaze/expected_counts.csv):
    // 1401 sample lines, 5 EFIX, 4 ESACC (the last SSACC is never ended), 0 EBLINK, 33 MSG.
    assert_eq!(v, serde_json::json!({"samples": 1401, "fixations": 5, "saccades": 4, "blinks": 0, "messages": 33}));
    let out = bin().args(["study", "summary"]).arg(gaze("bino_1000hz.asc")).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["left"], serde_json::json!({"samples": 1683, "fixations": 5, "saccades": 4, "blinks": 1}));
    assert_eq!(v["right"], serde_json::json!({"samples": 1683, "fixations": 5, "saccades": 4, "blinks": 1}));
    assert_eq!(v["messages"], 52);
    // 2 kHz in whole milliseconds (each time written twice) is read, not refused: grep
    // counts 2245 sample lines, 4 EFIX, 3 ESACC.
    let out = bin().args(["study", "summary"]).arg(gaze("mono_2000hz_whole_ms.asc")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v, serde_json::json!({"samples": 2245, "fixations": 4, "saccades": 3, "blinks": 0, "messages": 33}));
}

#[test]
fn summary_of_a_truncated_file_fails_with_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(gaze("mono_500hz_no_end.asc")).unwrap();
    let cut = text.len() - 10;
    let path = dir.path().join("cut.asc");
    std::fs::write(&path, &text[..cut]).unwrap();
    let lines = text[..cut].lines().count();
    let out = bin().args(["study", "summary"]).arg(&path).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("cut.asc:{lines}:")) && err.contains("truncated"), "{err}");
}

/// Synthetic study → annotate (ASC files through the parser, I-DT, AOIs) → fit → the fitted
/// scenario runs in `serpsim simulate`.
#[test]
fn synthetic_study_fits_a_scenario_that_simulates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |args: &[&str]| {
        let out = bin().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out
    };
    let s = |p: &Path| p.to_str().unwrap().to_string();
    run(&["study", "synth", "--participants", "4", "--seed", "3", "--out", &s(d)]);
    let annotated = d.join("annotated.jsonl");
    run(&["study", "annotate", &s(&d.join("log.jsonl")), "--gaze-dir", &s(&d.join("gaze")), "--cursor-dir", &s(&d.join("cursor")), "--out", &s(&annotated)]);
    let text = std::fs::read_to_string(&annotated).unwrap();
    assert!(text.contains("\"event\":\"fixation\"") && text.contains("\"event\":\"hover\""));
    let fit = d.join("fit");
    // Without qrels the command refuses rather than switching to a synthetic collection.
    let out = bin().args(["study", "fit", &s(&annotated), "--out", &s(&fit)]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--synthetic-collection"));
    run(&["study", "fit", &s(&annotated), "--qrels", &s(&d.join("qrels.txt")), "--out", &s(&fit)]);
    let out = run(&["simulate", &s(&fit.join("fitted.toml")), "--replicates", "50", "--out", &s(&d.join("sim"))]);
    // The answer, then where the files are.
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(screen.starts_with("serpsim: ") && screen.contains("wrote ") && screen.contains("sim"), "{screen}");
    let summary = std::fs::read_to_string(d.join("sim/pooled.csv")).unwrap();
    assert!(summary.lines().count() > 1);
    let out = run(&["study", "attention", &s(&annotated), "--out", &s(&d.join("att"))]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("row,non_query,query\n"));
    // Validation on held-out sessions writes the distance table, JSON and plot as one set, the
    // same for any thread count; a bad share is refused with the flag's name.
    let qrels = s(&d.join("qrels.txt"));
    for t in ["1", "2"] {
        run(&[
            "study",
            "validate",
            &s(&annotated),
            "--qrels",
            &qrels,
            "--replicates",
            "50",
            "--bootstrap",
            "50",
            "--threads",
            t,
            "--out",
            &s(&d.join(format!("val{t}"))),
        ]);
    }
    let table = std::fs::read_to_string(d.join("val1/distances.csv")).unwrap();
    assert!(
        table.starts_with("model,measure,real,simulated,") && table.contains("\nstudy-fitted,visited_depth,") && table.contains("\nstudy-fitted,visit@1,"),
        "{table}"
    );
    assert_eq!(table, std::fs::read_to_string(d.join("val2/distances.csv")).unwrap());
    assert!(std::fs::read_to_string(d.join("val1/validation.svg")).unwrap().contains("deepest rank visited"));
    // SimEval-IR's measures of the same searches, identical for any thread count.
    let simeval = std::fs::read_to_string(d.join("val1/simeval.csv")).unwrap();
    assert!(simeval.starts_with("measure,simeval_name,pooled_over,") && simeval.lines().count() == 5, "{simeval}");
    assert!(simeval.contains("\nclick_depth_distance,jsd_click_depth,clicks,"), "{simeval}");
    assert_eq!(simeval, std::fs::read_to_string(d.join("val2/simeval.csv")).unwrap());
    let out = bin().args(["study", "validate", &s(&annotated), "--qrels", &qrels, "--test-share", "1.5"]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("not in (0, 1)"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Per-word D(w) on the Data Viewer report (project-made, Data Viewer's layout) equals the sum of Data Viewer's own dwell
/// times (CURRENT_FIX_INTEREST_AREA_DWELL_TIME) over the word's interest areas.
#[test]
fn words_on_a_fixation_report_match_data_viewer_dwell_times() {
    let out = bin().args(["study", "words"]).arg(gaze("fixation_report_reading.csv")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut got = std::collections::BTreeMap::new();
    for line in text.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        got.insert(c[1].to_string(), (c[2].parse::<u32>().unwrap(), c[3].parse::<f64>().unwrap()));
    }
    // Independent reading of the raw CSV.
    let mut rdr = csv::Reader::from_path(gaze("fixation_report_reading.csv")).unwrap();
    let h = rdr.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (id, label, dwell) = (col("CURRENT_FIX_INTEREST_AREA_ID"), col("CURRENT_FIX_INTEREST_AREA_LABEL"), col("CURRENT_FIX_INTEREST_AREA_DWELL_TIME"));
    let mut per_ia = std::collections::BTreeMap::new();
    let mut count = std::collections::BTreeMap::<String, u32>::new();
    for r in rdr.records() {
        let r = r.unwrap();
        if r[id].trim().is_empty() || r[id].trim() == "." {
            continue;
        }
        let w = r[label].trim().trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        per_ia.insert(r[id].to_string(), (w.clone(), r[dwell].parse::<f64>().unwrap()));
        *count.entry(w).or_default() += 1;
    }
    let mut expected = std::collections::BTreeMap::<String, f64>::new();
    for (w, d) in per_ia.values() {
        *expected.entry(w.clone()).or_default() += d;
    }
    assert_eq!(got.len(), expected.len());
    for (w, d) in &expected {
        assert_eq!(got[w], (count[w], *d), "{w}");
    }
}

fn run_ok(args: &[&str]) -> (String, String) {
    let out = bin().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn run_err(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?} should fail: {}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn p(path: &Path) -> String {
    path.to_str().unwrap().to_string()
}

/// The same recording (project-made binocular 1000 Hz) as ASC, gzipped ASC, and
/// pymovements' own CSV (written by pymovements 0.28.0, analysis/study/make_fixtures.py)
/// gives the same fixations: the readers agree sample for sample. The CSV has no display
/// size; 1921 x 1081 is the ASC's GAZE_COORDS 0.00 0.00 1920.00 1080.00.
#[test]
fn events_read_asc_gzip_and_pymovements_csv_alike() {
    let dir = tempfile::tempdir().unwrap();
    let asc = gaze("bino_1000hz.asc");
    let gz = dir.path().join("b.asc.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, &std::fs::read(&asc).unwrap()).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    for method in ["idt", "ivt"] {
        let (a, _) = run_ok(&["study", "events", &p(&asc), "--method", method]);
        let (b, _) = run_ok(&["study", "events", &p(&gz), "--method", method]);
        let (c, notes) = run_ok(&["study", "events", &p(&gaze("pymovements/bino_1000hz.csv")), "--method", method, "--screen-px", "1921,1081"]);
        assert!(a.lines().count() > 1, "{a}");
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert!(notes.contains("layout: pymovements CSV") && notes.contains("inferred from the median time step"), "{notes}");
    }
}

/// A gaze CSV in a layout serpsim does not know (hand-made rows in the column layout of the
/// Potsdam Binge PVT data set's EyeLink 1000 Hz export), read with --columns; the time unit is
/// inferred from the steps and said so. The 29 samples lie within 3 x 2.4 px, so with a
/// 20 ms minimum I-DT makes them one fixation; its start, end and mean position are
/// computed here independently from the CSV.
#[test]
fn events_read_a_generic_csv_with_a_column_mapping() {
    let file = gaze("csv/pvt_layout_handmade.csv");
    let (out, notes) = run_ok(&[
        "study",
        "events",
        &p(&file),
        "--columns",
        "time=eyelink_timestamp,x=x_pix_eyelink,y=y_pix_eyelink,pupil=pupil_size_eyelink",
        "--screen-px",
        "1920,1080",
        "--min-duration",
        "20",
    ]);
    assert!(notes.contains("time unit: ms (inferred") && notes.contains("1000.0 Hz"), "{notes}");
    let mut rdr = csv::Reader::from_path(&file).unwrap();
    let (mut n, mut sx, mut sy, mut sp, mut t0, mut t1) = (0.0, 0.0, 0.0, 0.0, f64::MAX, f64::MIN);
    for r in rdr.records() {
        let r = r.unwrap();
        let t: f64 = r[4].parse().unwrap();
        t0 = t0.min(t);
        t1 = t1.max(t);
        sx += r[2].parse::<f64>().unwrap();
        sy += r[3].parse::<f64>().unwrap();
        sp += r[7].parse::<f64>().unwrap();
        n += 1.0;
    }
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(rows.len(), 2, "{out}");
    // Times exact; means printed in full (10 significant digits, not 2 decimals). Samples are
    // held as f32 (study::Sample), so a mean agrees with the f64 mean of the text to f32's
    // relative precision (6e-8 per value): 1e-7 relative, far finer than the 0.01 px the
    // old two decimals kept (a value printed to 2 decimals fails this by about 1e-5).
    let f: Vec<&str> = rows[1].split(',').collect();
    assert_eq!(&f[..4], ["left", &t0.to_string(), &t1.to_string(), &(t1 - t0 + 1.0).to_string()]);
    for (got, want) in f[4..].iter().zip([sx / n, sy / n, sp / n]) {
        let got: f64 = got.parse().unwrap();
        assert!((got - want).abs() <= 1e-7 * want.abs(), "{got} vs {want}: {}", rows[1]);
    }
    // Without the mapping the layout is unknown: refused with the way out.
    let err = run_err(&["study", "events", &p(&file), "--screen-px", "1920,1080"]);
    assert!(err.contains("pvt_layout_handmade.csv:1: cannot tell the layout") && err.contains("--columns"), "{err}");
}

/// Malformed gaze input: `file:line: reason`, exit 1, no panic and no output file.
#[test]
fn malformed_gaze_files_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fix.csv");
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "time,pixel_x,pixel_y\n1,2,3\n2,zz,3\n").unwrap();
    let err = run_err(&["study", "events", &p(&bad), "--screen-px", "100,100", "--out", &p(&out)]);
    assert!(err.contains("bad.csv:3: column `pixel_x`: `zz` is not a number"), "{err}");
    assert!(!out.exists());
    // A garbage file is refused by `events` as by `summary` (issue 17).
    let garbage = dir.path().join("garbage.asc");
    std::fs::write(&garbage, "** not really\nhello world\n").unwrap();
    assert!(run_err(&["study", "events", &p(&garbage)]).contains("no EyeLink ASC records"));
    assert!(run_err(&["study", "summary", &p(&garbage)]).contains("no EyeLink ASC records"));
    // A bad DISPLAY_COORDS names its file and line.
    let text = std::fs::read_to_string(gaze("mono_500hz_no_end.asc")).unwrap();
    let bad_dc = dir.path().join("dc.asc");
    std::fs::write(&bad_dc, text.replace("DISPLAY_COORDS 0 0 1919 1079", "DISPLAY_COORDS 0 0 1919")).unwrap();
    let err = run_err(&["study", "events", &p(&bad_dc)]);
    assert!(err.contains("dc.asc:13: DISPLAY_COORDS: expected four numbers"), "{err}");
    // An option of the other detector is refused, not ignored.
    let err = String::from_utf8(bin().args(["study", "events", &p(&gaze("bino_1000hz.asc")), "--velocity", "40"]).output().unwrap().stderr).unwrap();
    assert!(err.contains("--velocity is an I-VT option"), "{err}");
}

/// The Tobii Pro Lab layout (the project-made binocular recording written in Tobii's
/// columns, see study_logs/README.md): the screen comes from `Recording resolution`, the
/// reference fixations from `Eye movement type`; they are the five EFIX L events of the ASC
/// file (starts read off its `EFIX L` lines: `grep '^EFIX L' bino_1000hz.asc`).
#[test]
fn tobii_layout_reads_screen_and_tracker_fixations() {
    let (out, notes) = run_ok(&["study", "agreement", &p(&gaze("tobii/bino_1000hz_as_tobii_pro_lab.tsv"))]);
    assert!(
        notes.contains("layout: Tobii Pro Lab export") && notes.contains("1920 x 1080 px from") && notes.contains("time unit: us (from the column name"),
        "{notes}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    let starts: Vec<f64> = v[0]["pairs"].as_array().unwrap().iter().map(|x| x["start"].as_f64().unwrap()).collect();
    assert_eq!(starts, vec![1408660.0, 1408974.0, 1409397.0, 1409724.0, 1410071.0]);
    // 1683 sample lines (expected_counts.csv).
    assert_eq!(v[0]["samples"], 1683);
}

/// Cursor in the Balabit mouse-dynamics layout (seconds, `state` events), on the bundled
/// example log whose result-2 box holds the token `prostaglandin`: by hand, the cursor rests
/// on that token (and in the result-2 box) from 10.95 s to 11.35 s, when it leaves both; the
/// later press and release at 11.9-12.0 s fall in result 2 but the screen changes at the
/// click (12000 ms), and a 100 ms stay is too short anyway with the screen ending at 12000.
/// So: one token hover (400 ms) and one rank-2 hover (400 ms); the log's own hover event is
/// replaced, and annotating the annotated log changes nothing.
#[test]
fn annotate_reads_balabit_cursor_counts_result_hovers_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/examples");
    std::fs::create_dir_all(dir.path().join("aoi")).unwrap();
    std::fs::copy(ex.join("log.jsonl"), dir.path().join("log.jsonl")).unwrap();
    std::fs::copy(ex.join("aoi/p01-t42.csv"), dir.path().join("aoi/p01-t42.csv")).unwrap();
    let cursor = Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/cursor");
    let once = dir.path().join("once.jsonl");
    let (_, notes) = run_ok(&["study", "annotate", &p(&dir.path().join("log.jsonl")), "--cursor-dir", &p(&cursor), "--out", &p(&once)]);
    assert!(notes.contains("Balabit") && notes.contains("1 token hovers, 1 result hovers") && notes.contains("replaced 0 fixation and 1 hover"), "{notes}");
    let text = std::fs::read_to_string(&once).unwrap();
    let hovers: Vec<serde_json::Value> =
        text.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()).filter(|v| v["event"] == "hover").collect();
    assert_eq!(hovers.len(), 2);
    for h in &hovers {
        assert!((h["t"].as_f64().unwrap() - 10950.0).abs() < 1e-6 && (h["duration"].as_f64().unwrap() - 400.0).abs() < 1e-6, "{h}");
    }
    assert_eq!(hovers.iter().filter(|h| h["rank"] == 2 && h.get("token").is_none()).count(), 1);
    assert_eq!(hovers.iter().filter(|h| h["token"] == "prostaglandin").count(), 1);
    let twice = dir.path().join("twice.jsonl");
    run_ok(&["study", "annotate", &p(&once), "--cursor-dir", &p(&cursor), "--out", &p(&twice)]);
    assert_eq!(std::fs::read_to_string(&twice).unwrap(), text);
}

/// `study synth --config` names the offending key and its line.
#[test]
fn synth_config_errors_name_key_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("knobs.toml");
    std::fs::write(&cfg, "participants = 2\ncontinuation = \"high\"\n").unwrap();
    let err = run_err(&["study", "synth", "--config", &p(&cfg), "--out", &p(&dir.path().join("o"))]);
    assert!(err.contains("knobs.toml: key `continuation`") && err.contains("line 2"), "{err}");
}

/// I-DT and I-VT at their defaults against the fixations planted by the generator
/// (study_logs/tools/make_gaze.py writes them as EFIX events: first and last sample of each
/// planted fixation, independent of serpsim's detectors) on the project-made binocular
/// recordings at 1000, 250, 60 and 30 Hz (the low rates generated natively).
///
/// Measure: the share of EFIX fixations whose onset a detected fixation matches (one to
/// one) within 20 ms plus one sample interval: 20 ms is the I-VT velocity window, within
/// which no velocity detector can place an onset, and one sample interval is the
/// quantisation of any onset at that rate (21 ms at 1000 Hz, 36.7 ms at 60 Hz, 53.3 ms at
/// 30 Hz). The EFIX events (5 per eye, 200-320 ms, one after a blink; `grep -c '^EFIX L'`)
/// must every one be matched, by as many detected fixations (nothing spurious).
#[test]
fn both_detectors_agree_with_efix_at_1000_250_60_and_30_hz() {
    for file in ["bino_1000hz.asc", "bino_250hz.asc", "lowrate/bino_60hz.asc", "lowrate/bino_30hz.asc"] {
        for method in ["idt", "ivt"] {
            let (out, notes) = run_ok(&["study", "agreement", &p(&gaze(file)), "--method", method]);
            let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
            let rows = rows.as_array().unwrap();
            assert_eq!(rows.len(), 2, "{file}: both eyes");
            for r in rows {
                let dt = r["sample_interval_ms"].as_f64().unwrap();
                assert!((r["onset_tolerance_ms"].as_f64().unwrap() - (20.0 + dt)).abs() < 1e-9);
                assert_eq!((r["reference"].as_u64(), r["onset_matched"].as_u64(), r["detected"].as_u64()), (Some(5), Some(5), Some(5)), "{file} {method}: {r}");
            }
            let hz = if file.contains("30hz") {
                "30 Hz"
            } else if file.contains("60hz") {
                "60 Hz"
            } else if file.contains("250hz") {
                "250 Hz"
            } else {
                "1000 Hz"
            };
            assert!(notes.contains(&format!("sampling: {hz} from the file's RATE")), "{notes}");
        }
    }
}
