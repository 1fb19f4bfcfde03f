//! User-study logs from Python: EyeLink ASC files as tables, fixation detection (I-DT, I-VT)
//! on samples or files, fixations on areas of interest, and the attention tables of a study
//! log. Every computation is the library's (`serpsim study ...`).

use crate::arrow_io::{self, read_batches};
use crate::errors::{guard, invalid, to_py};
use crate::job::{spawn, Finish, Job};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch, StringArray, UInt32Array, UInt64Array};
use arrow_schema::DataType;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObject;
use serpsim::study::aoi::{Aoi, AoiSet};
use serpsim::study::asc::{self, Recording};
use serpsim::study::attention::{length_table, literal_acquisition, query_term_table, word_attention};
use serpsim::study::detect::{self, IdtParams, IvtParams, ScreenGeometry};
use serpsim::study::events::{self, DetectConfig, Method};
use serpsim::study::gaze_csv::CsvOptions;
use serpsim::study::log::StudyLog;
use serpsim::study::pipeline::{self, AttentionSource};
use serpsim::study::{Eye, Fixation, Sample};
use serpsim::Error;
use std::path::PathBuf;
use std::sync::Arc;

fn eye_name(e: Eye) -> &'static str {
    match e {
        Eye::Left => "left",
        Eye::Right => "right",
    }
}

fn f64s(v: impl IntoIterator<Item = f64>) -> ArrayRef {
    Arc::new(Float64Array::from(v.into_iter().collect::<Vec<_>>()))
}

fn strs<S: AsRef<str>>(v: impl IntoIterator<Item = S>) -> ArrayRef {
    Arc::new(StringArray::from(v.into_iter().map(|s| s.as_ref().to_string()).collect::<Vec<_>>()))
}

fn fixations_batch(f: &[Fixation]) -> RecordBatch {
    arrow_io::batch(vec![
        ("eye", strs(f.iter().map(|f| eye_name(f.eye)))),
        ("start", f64s(f.iter().map(|f| f.start))),
        ("end", f64s(f.iter().map(|f| f.end))),
        ("duration", f64s(f.iter().map(|f| f.duration))),
        ("x", f64s(f.iter().map(|f| f.x))),
        ("y", f64s(f.iter().map(|f| f.y))),
        ("pupil", f64s(f.iter().map(|f| f.pupil))),
    ])
}

fn recording_batches(r: &Recording) -> Vec<(&'static str, RecordBatch)> {
    let samples: Vec<(Eye, &Sample)> = r.left.iter().map(|s| (Eye::Left, s)).chain(r.right.iter().map(|s| (Eye::Right, s))).collect();
    let samples = arrow_io::batch(vec![
        ("eye", strs(samples.iter().map(|(e, _)| eye_name(*e)))),
        ("time", f64s(samples.iter().map(|(_, s)| s.time))),
        ("x", f64s(samples.iter().map(|(_, s)| s.x as f64))),
        ("y", f64s(samples.iter().map(|(_, s)| s.y as f64))),
        ("pupil", f64s(samples.iter().map(|(_, s)| s.pupil as f64))),
    ]);
    let s = &r.saccades;
    let saccades = arrow_io::batch(vec![
        ("eye", strs(s.iter().map(|s| eye_name(s.eye)))),
        ("start", f64s(s.iter().map(|s| s.start))),
        ("end", f64s(s.iter().map(|s| s.end))),
        ("duration", f64s(s.iter().map(|s| s.duration))),
        ("start_x", f64s(s.iter().map(|s| s.start_x))),
        ("start_y", f64s(s.iter().map(|s| s.start_y))),
        ("end_x", f64s(s.iter().map(|s| s.end_x))),
        ("end_y", f64s(s.iter().map(|s| s.end_y))),
        ("amplitude", f64s(s.iter().map(|s| s.amplitude))),
        ("peak_velocity", f64s(s.iter().map(|s| s.peak_velocity))),
    ]);
    let b = &r.blinks;
    let blinks = arrow_io::batch(vec![
        ("eye", strs(b.iter().map(|b| eye_name(b.eye)))),
        ("start", f64s(b.iter().map(|b| b.start))),
        ("end", f64s(b.iter().map(|b| b.end))),
        ("duration", f64s(b.iter().map(|b| b.duration))),
    ]);
    let m = &r.messages;
    let messages = arrow_io::batch(vec![
        ("time", f64s(m.iter().map(|m| m.time))),
        ("text", strs(m.iter().map(|m| m.text.as_str()))),
        ("line", Arc::new(UInt64Array::from(m.iter().map(|m| m.line as u64).collect::<Vec<_>>())) as ArrayRef),
    ]);
    vec![("samples", samples), ("fixations", fixations_batch(&r.fixations)), ("saccades", saccades), ("blinks", blinks), ("messages", messages)]
}

/// Reads an EyeLink ASC file. The job's result is `(tables dict, summary JSON, rate or None,
/// (width_px, height_px) or None, warnings)`.
#[pyfunction]
fn read_asc(path: PathBuf) -> PyResult<Job> {
    spawn(&format!("reading {}", path.display()), None, move |p| {
        p.phase(&format!("reading {}", path.display()), "", None);
        let r = Recording::from_file(&path)?;
        let tables = recording_batches(&r);
        let summary = serde_json::to_string(&r.summary).map_err(|e| Error::Invalid(e.to_string()))?;
        let display = r.display.map(|d| (d.width(), d.height()));
        let (rate, warnings) = (r.rate, r.warnings.clone());
        Ok(Box::new(move |py: Python<'_>| {
            let d = PyDict::new(py);
            for (name, b) in tables {
                d.set_item(name, arrow_io::to_python(py, b)?)?;
            }
            Ok((d, summary, rate, display, warnings).into_pyobject(py)?.into_any().unbind())
        }) as Finish)
    })
}

/// The counts `serpsim study summary` prints, as its JSON text.
#[pyfunction]
fn asc_summary(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    let s = py.detach(|| asc::summarize_file(&path)).map_err(|e| to_py(py, e))?;
    serde_json::to_string(&s).map_err(|e| invalid(py, e.to_string()))
}

/// Detector options, validated as the CLI validates its flags.
#[allow(clippy::too_many_arguments)]
fn method(
    py: Python<'_>,
    name: &str,
    dispersion: Option<f64>,
    velocity: Option<f64>,
    window_ms: Option<f64>,
    min_duration: Option<f64>,
    max_gap: f64,
    merge_gap: Option<f64>,
    merge_angle: Option<f64>,
    merge: bool,
) -> PyResult<Method> {
    let m = match name {
        "idt" => {
            for (set, n) in [
                (velocity.is_some(), "velocity"),
                (window_ms.is_some(), "window_ms"),
                (merge_gap.is_some(), "merge_gap"),
                (merge_angle.is_some(), "merge_angle"),
                (!merge, "merge"),
            ] {
                if set {
                    return Err(invalid(py, format!("{n} is an I-VT option; it has no effect with method=\"idt\"")));
                }
            }
            let d = IdtParams::default();
            let p = IdtParams {
                dispersion_deg: dispersion.unwrap_or(d.dispersion_deg),
                min_duration_ms: min_duration.unwrap_or(d.min_duration_ms),
                max_gap_ms: max_gap,
            };
            p.validate().map_err(|e| to_py(py, e))?;
            Method::Idt(p)
        }
        "ivt" => {
            if dispersion.is_some() {
                return Err(invalid(py, "dispersion is an I-DT option; it has no effect with method=\"ivt\""));
            }
            if !merge && (merge_gap.is_some() || merge_angle.is_some()) {
                return Err(invalid(py, "merge=False contradicts merge_gap/merge_angle"));
            }
            let d = IvtParams::default();
            let p = IvtParams {
                velocity_deg_s: velocity.unwrap_or(d.velocity_deg_s),
                window_ms: window_ms.unwrap_or(d.window_ms),
                min_duration_ms: min_duration.unwrap_or(d.min_duration_ms),
                max_gap_ms: max_gap,
                merge_gap_ms: if merge { merge_gap.unwrap_or(d.merge_gap_ms) } else { -1.0 },
                merge_angle_deg: if merge { merge_angle.unwrap_or(d.merge_angle_deg) } else { -1.0 },
            };
            p.validate().map_err(|e| to_py(py, e))?;
            Method::Ivt(p)
        }
        m => return Err(invalid(py, format!("method: unknown detector `{m}` (idt or ivt)"))),
    };
    Ok(m)
}

fn column<'a>(b: &'a RecordBatch, name: &str) -> serpsim::Result<Option<&'a ArrayRef>> {
    Ok(b.column_by_name(name))
}

fn need<'a>(b: &'a RecordBatch, name: &str, what: &str) -> serpsim::Result<&'a ArrayRef> {
    column(b, name)?.ok_or_else(|| {
        let present: Vec<&str> = b.schema_ref().fields().iter().map(|f| f.name().as_str()).collect();
        Error::Invalid(format!("{what}: missing column `{name}` (columns present: {})", present.join(", ")))
    })
}

/// A numeric column as f64 (nulls become NaN: missing gaze).
fn nums(a: &ArrayRef, name: &str, what: &str) -> serpsim::Result<Vec<f64>> {
    macro_rules! prim {
        ($t:ty) => {{
            let arr = a.as_primitive::<$t>();
            (0..arr.len()).map(|i| if arr.is_null(i) { f64::NAN } else { arr.value(i) as f64 }).collect()
        }};
    }
    Ok(match a.data_type() {
        DataType::Float64 => prim!(Float64Type),
        DataType::Float32 => prim!(Float32Type),
        DataType::Int64 => prim!(Int64Type),
        DataType::Int32 => prim!(Int32Type),
        DataType::Int16 => prim!(Int16Type),
        DataType::UInt64 => prim!(UInt64Type),
        DataType::UInt32 => prim!(UInt32Type),
        other => return Err(Error::Invalid(format!("{what}: column `{name}`: expected numbers, found Arrow type {other}"))),
    })
}

fn text_column(a: &ArrayRef, name: &str, what: &str) -> serpsim::Result<Vec<Option<String>>> {
    match a.data_type() {
        DataType::Utf8 => Ok(a.as_string::<i32>().iter().map(|s| s.map(str::to_string)).collect()),
        DataType::LargeUtf8 => Ok(a.as_string::<i64>().iter().map(|s| s.map(str::to_string)).collect()),
        DataType::Utf8View => Ok(a.as_string_view().iter().map(|s| s.map(str::to_string)).collect()),
        other => Err(Error::Invalid(format!("{what}: column `{name}`: expected text, found Arrow type {other}"))),
    }
}

/// Samples per eye from a table `time, x, y[, pupil][, eye]` (eye `left`/`right`; all left
/// when absent).
fn samples_from_table(batches: &[RecordBatch]) -> serpsim::Result<[Vec<Sample>; 2]> {
    let what = "samples";
    let mut out: [Vec<Sample>; 2] = [Vec::new(), Vec::new()];
    let mut base = 0;
    for b in batches {
        let t = nums(need(b, "time", what)?, "time", what)?;
        let x = nums(need(b, "x", what)?, "x", what)?;
        let y = nums(need(b, "y", what)?, "y", what)?;
        let pupil = match column(b, "pupil")? {
            Some(a) => nums(a, "pupil", what)?,
            None => vec![f64::NAN; b.num_rows()],
        };
        let eyes = match column(b, "eye")? {
            Some(a) => Some(text_column(a, "eye", what)?),
            None => None,
        };
        for i in 0..b.num_rows() {
            if !t[i].is_finite() {
                return Err(Error::Invalid(format!("{what}: row {}: `time` is missing or not finite", base + i)));
            }
            let k = match eyes.as_ref().map(|e| e[i].as_deref()) {
                None | Some(Some("left")) | Some(Some("L")) => 0,
                Some(Some("right")) | Some(Some("R")) => 1,
                Some(other) => return Err(Error::Invalid(format!("{what}: row {}: `eye` is {other:?}, expected \"left\" or \"right\"", base + i))),
            };
            let s = Sample { time: t[i], x: x[i] as f32, y: y[i] as f32, pupil: pupil[i] as f32 };
            if let Some(prev) = out[k].last() {
                if s.time < prev.time {
                    return Err(Error::Invalid(format!(
                        "{what}: row {}: time {} is before the previous sample's {} (sort by time)",
                        base + i,
                        s.time,
                        prev.time
                    )));
                }
            }
            out[k].push(s);
        }
        base += b.num_rows();
    }
    Ok(out)
}

fn median_step(s: &[Sample]) -> Option<f64> {
    let mut d: Vec<f64> = s.windows(2).map(|w| w[1].time - w[0].time).collect();
    d.sort_by(f64::total_cmp);
    d.get(d.len() / 2).copied()
}

/// Detects fixations in a samples table. Returns a job whose result is a record batch
/// `eye, start, end, duration, x, y, pupil`.
#[pyfunction]
#[pyo3(signature = (samples, screen_px, method="idt", screen_cm=(38.0, 30.2), distance_cm=68.0, rate=None, dispersion=None, velocity=None, window_ms=None, min_duration=None, max_gap=75.0, merge_gap=None, merge_angle=None, merge=true))]
#[allow(clippy::too_many_arguments)]
fn detect_fixations(
    py: Python<'_>,
    samples: &Bound<'_, PyAny>,
    screen_px: (f64, f64),
    method: &str,
    screen_cm: (f64, f64),
    distance_cm: f64,
    rate: Option<f64>,
    dispersion: Option<f64>,
    velocity: Option<f64>,
    window_ms: Option<f64>,
    min_duration: Option<f64>,
    max_gap: f64,
    merge_gap: Option<f64>,
    merge_angle: Option<f64>,
    merge: bool,
) -> PyResult<Job> {
    let m = self::method(py, method, dispersion, velocity, window_ms, min_duration, max_gap, merge_gap, merge_angle, merge)?;
    let geom = ScreenGeometry { width_px: screen_px.0, height_px: screen_px.1, width_cm: screen_cm.0, height_cm: screen_cm.1, distance_cm };
    geom.validate().map_err(|e| to_py(py, e))?;
    if let Some(r) = rate {
        if !(r.is_finite() && r > 0.0) {
            return Err(invalid(py, format!("rate: {r} must be a positive number of Hz")));
        }
    }
    let batches = read_batches(samples, "samples")?;
    spawn("detecting fixations", None, move |p| {
        p.phase("detecting fixations", "", None);
        let per_eye = samples_from_table(&batches)?;
        let mut all = Vec::new();
        for (k, s) in per_eye.iter().enumerate() {
            if s.is_empty() {
                continue;
            }
            let eye = if k == 0 { Eye::Left } else { Eye::Right };
            let dt = match rate {
                Some(r) => 1000.0 / r,
                None => median_step(s).unwrap_or(1.0),
            };
            all.extend(match m {
                Method::Idt(p) => detect::idt(s, &geom, &p, eye, dt),
                Method::Ivt(p) => detect::ivt(s, &geom, &p, eye, dt),
            });
        }
        let batch = fixations_batch(&all);
        Ok(Box::new(move |py: Python<'_>| arrow_io::to_python(py, batch)) as Finish)
    })
}

/// Detects fixations in a gaze file, streamed, as `serpsim study events` does. The job's result
/// is `(record batch, notes)`.
#[pyfunction]
#[pyo3(signature = (path, method="idt", screen_cm=(38.0, 30.2), distance_cm=68.0, screen_px=None, rate=None, dispersion=None, velocity=None, window_ms=None, min_duration=None, max_gap=75.0, merge_gap=None, merge_angle=None, merge=true))]
#[allow(clippy::too_many_arguments)]
fn detect_file(
    py: Python<'_>,
    path: PathBuf,
    method: &str,
    screen_cm: (f64, f64),
    distance_cm: f64,
    screen_px: Option<(f64, f64)>,
    rate: Option<f64>,
    dispersion: Option<f64>,
    velocity: Option<f64>,
    window_ms: Option<f64>,
    min_duration: Option<f64>,
    max_gap: f64,
    merge_gap: Option<f64>,
    merge_angle: Option<f64>,
    merge: bool,
) -> PyResult<Job> {
    let m = self::method(py, method, dispersion, velocity, window_ms, min_duration, max_gap, merge_gap, merge_angle, merge)?;
    let cfg = DetectConfig { method: m, screen_cm, distance_cm, screen_px, rate_hz: rate };
    cfg.validate().map_err(|e| to_py(py, e))?;
    spawn(&format!("detecting fixations in {}", path.display()), None, move |p| {
        p.phase(&format!("detecting fixations in {}", path.display()), "", None);
        let d = events::detect_file(&path, None, &CsvOptions::default(), &cfg, None)?;
        let mut all = Vec::new();
        for eye in d.eyes() {
            all.extend(d.fixations[eye as usize].iter().copied());
        }
        let batch = fixations_batch(&all);
        let notes = d.notes.clone();
        Ok(Box::new(move |py: Python<'_>| Ok((arrow_io::to_python(py, batch)?, notes).into_pyobject(py)?.into_any().unbind())) as Finish)
    })
}

/// AOIs from a file (the formats of docs/study.md) or a table `page, token, x, y, w, h[,
/// rank][, kind]`.
fn aois(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<AoiSet> {
    if let Ok(p) = obj.extract::<PathBuf>() {
        return guard(py, || AoiSet::from_file(&p));
    }
    let batches = read_batches(obj, "aois")?;
    let what = "aois";
    let mut rows = Vec::new();
    let mut base = 0;
    for b in &batches {
        let r = (|| -> serpsim::Result<()> {
            let page = text_column(need(b, "page", what)?, "page", what)?;
            let token = text_column(need(b, "token", what)?, "token", what)?;
            let [x, y, w, h] = ["x", "y", "w", "h"].map(|n| need(b, n, what).and_then(|a| nums(a, n, what)));
            let (x, y, w, h) = (x?, y?, w?, h?);
            let rank = match column(b, "rank")? {
                Some(a) => nums(a, "rank", what)?,
                None => vec![f64::NAN; b.num_rows()],
            };
            let kind = match column(b, "kind")? {
                Some(a) => Some(text_column(a, "kind", what)?),
                None => None,
            };
            for i in 0..b.num_rows() {
                let row = base + i;
                for (n, v) in [("x", x[i]), ("y", y[i]), ("w", w[i]), ("h", h[i])] {
                    if !v.is_finite() {
                        return Err(Error::Invalid(format!("{what}: row {row}: `{n}` must be a finite number")));
                    }
                }
                if w[i] < 0.0 || h[i] < 0.0 {
                    return Err(Error::Invalid(format!("{what}: row {row}: box width and height must be >= 0")));
                }
                let rank = if rank[i].is_nan() {
                    None
                } else if rank[i] >= 1.0 && rank[i].fract() == 0.0 && rank[i] <= u32::MAX as f64 {
                    Some(rank[i] as u32)
                } else {
                    return Err(Error::Invalid(format!("{what}: row {row}: rank {} is not a whole number >= 1", rank[i])));
                };
                let is_result = match kind.as_ref().and_then(|k| k[i].as_deref()).unwrap_or("") {
                    "" | "token" => false,
                    "result" => true,
                    other => return Err(Error::Invalid(format!("{what}: row {row}: kind `{other}` is neither token nor result"))),
                };
                if is_result && rank.is_none() {
                    return Err(Error::Invalid(format!("{what}: row {row}: a result box needs a rank")));
                }
                let page = page[i].clone().ok_or_else(|| Error::Invalid(format!("{what}: row {row}: `page` is null")))?;
                let text = token[i].clone().unwrap_or_default();
                rows.push((page, Aoi { text, x: x[i], y: y[i], w: w[i], h: h[i], rank }, is_result));
            }
            Ok(())
        })();
        r.map_err(|e| to_py(py, e))?;
        base += b.num_rows();
    }
    Ok(AoiSet::from_rows(rows))
}

/// Maps points `(x, y)` on page `page` to AOIs: per point, the token and the result box
/// (with rank) it falls on (within the library's 5 px tolerance), as a record batch
/// `token, token_index, result, rank`.
#[pyfunction]
fn map_aois(py: Python<'_>, aoi_source: &Bound<'_, PyAny>, page: &str, x: Vec<f64>, y: Vec<f64>) -> PyResult<Py<PyAny>> {
    let set = aois(py, aoi_source)?;
    if x.len() != y.len() {
        return Err(invalid(py, format!("x has {} values and y {}", x.len(), y.len())));
    }
    let pg = set.page(page).ok_or_else(|| {
        invalid(py, format!("page `{page}` is not in the AOIs (pages: {})", set.pages.iter().map(|p| p.id.as_str()).collect::<Vec<_>>().join(", ")))
    })?;
    let (mut tok, mut ti, mut res, mut rank) = (vec![], vec![], vec![], vec![]);
    for (&px, &py_) in x.iter().zip(&y) {
        let t = pg.tokens.locate(px, py_);
        tok.push(t.map(|i| pg.tokens.boxes[i].text.clone()));
        ti.push(t.map(|i| i as u32));
        let r = pg.results.locate(px, py_);
        res.push(r.map(|i| pg.results.boxes[i].text.clone()));
        rank.push(r.and_then(|i| pg.results.boxes[i].rank));
    }
    arrow_io::to_python(
        py,
        arrow_io::batch(vec![
            ("token", Arc::new(StringArray::from(tok)) as ArrayRef),
            ("token_index", Arc::new(UInt32Array::from(ti))),
            ("result", Arc::new(StringArray::from(res))),
            ("rank", Arc::new(UInt32Array::from(rank))),
        ]),
    )
}

/// The attention tables of an annotated study log (`serpsim study attention`): a dict of
/// `query_terms` (CSV text of the CLI's table), `lengths`, `words`, `ranks` record batches and
/// `acquisition` (dict).
#[pyfunction]
#[pyo3(signature = (log, source="fixations"))]
fn attention(py: Python<'_>, log: PathBuf, source: &str) -> PyResult<Job> {
    let (src, noun) = match source {
        "fixations" => (AttentionSource::Fixations, "fixation"),
        "hovers" => (AttentionSource::Hovers, "hover"),
        s => return Err(invalid(py, format!("source: `{s}` is not fixations or hovers"))),
    };
    let source = source.to_string();
    spawn(&format!("reading {}", log.display()), None, move |p| {
        p.phase(&format!("reading {}", log.display()), "", None);
        let log = StudyLog::from_file(&log)?;
        let aois = pipeline::load_log_aois(&log)?;
        let inputs: Vec<_> = log.sessions.iter().map(|s| pipeline::session_input(s, &aois, src)).collect();
        let query_terms = query_term_table(&inputs, &|_| true).to_csv(noun);
        let lt = length_table(&inputs);
        let lengths = arrow_io::batch(vec![
            ("length", strs(lt.iter().map(|r| r.bin.to_string()))),
            ("query_all", f64s(lt.iter().map(|r| r.all.0))),
            ("non_query_all", f64s(lt.iter().map(|r| r.all.1))),
            ("query_no_stop", f64s(lt.iter().map(|r| r.no_stop.0))),
            ("non_query_no_stop", f64s(lt.iter().map(|r| r.no_stop.1))),
        ]);
        let a = literal_acquisition(&inputs);
        let (d, f) = a.shares();
        let acq = serde_json::json!({"added_terms": a.added_terms, "displayed_before": a.displayed_before, "attended_before": a.attended_before, "share_displayed": d, "share_attended": f, "source": source}).to_string();
        let words = word_attention(inputs.iter().flat_map(|s| s.attended.iter().map(move |(_, w, dur)| (s.session.as_str(), w.as_str(), *dur))));
        let flat: Vec<(&str, &str, u64, f64)> =
            words.iter().flat_map(|s| s.words.iter().map(move |w| (s.session.as_str(), w.word.as_str(), w.frequency as u64, w.duration_ms))).collect();
        let words = arrow_io::batch(vec![
            ("session", strs(flat.iter().map(|r| r.0))),
            ("word", strs(flat.iter().map(|r| r.1))),
            ("count", Arc::new(UInt64Array::from(flat.iter().map(|r| r.2).collect::<Vec<_>>())) as ArrayRef),
            ("duration_ms", f64s(flat.iter().map(|r| r.3))),
        ]);
        let ra = pipeline::rank_attention(&log, src);
        let ranks = arrow_io::batch(vec![
            ("rank", Arc::new(UInt64Array::from(ra.iter().map(|r| r.rank as u64).collect::<Vec<_>>())) as ArrayRef),
            ("searches", Arc::new(UInt64Array::from(ra.iter().map(|r| r.searches).collect::<Vec<_>>()))),
            ("events", Arc::new(UInt64Array::from(ra.iter().map(|r| r.events).collect::<Vec<_>>()))),
            ("duration_ms", f64s(ra.iter().map(|r| r.duration_ms))),
        ]);
        Ok(Box::new(move |py: Python<'_>| {
            let d = PyDict::new(py);
            d.set_item("query_terms", query_terms)?;
            d.set_item("lengths", arrow_io::to_python(py, lengths)?)?;
            d.set_item("words", arrow_io::to_python(py, words)?)?;
            d.set_item("ranks", arrow_io::to_python(py, ranks)?)?;
            d.set_item("acquisition", acq)?;
            Ok(d.into_any().unbind())
        }) as Finish)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read_asc, m)?)?;
    m.add_function(wrap_pyfunction!(asc_summary, m)?)?;
    m.add_function(wrap_pyfunction!(detect_fixations, m)?)?;
    m.add_function(wrap_pyfunction!(detect_file, m)?)?;
    m.add_function(wrap_pyfunction!(map_aois, m)?)?;
    m.add_function(wrap_pyfunction!(attention, m)?)?;
    Ok(())
}
