//! Generic CSV/TSV gaze reader with a column mapping, for Tobii, Pupil Labs or any export
//! with one sample per row.
//!
//! A [`ColumnMap`] names the time column, the x/y columns of the left and/or right eye (or
//! of a combined gaze point), an optional pupil column per eye, the time unit, and whether
//! positions are normalised (0–1, as Pupil Labs' `norm_pos_x`) and must be scaled to pixels.
//! Empty cells, `NaN`, `.` and `-` are missing values (blinks, track loss). Time stamps must
//! increase; errors name the file, line and column.
//!
//! Example mappings:
//!
//! ```
//! use serpsim::study::gaze_csv::ColumnMap;
//! // Tobii Pro Lab export (tab-separated), milliseconds.
//! let tobii = ColumnMap { time: "Recording timestamp".into(), left_x: Some("Gaze point left X".into()),
//!     left_y: Some("Gaze point left Y".into()), right_x: Some("Gaze point right X".into()),
//!     right_y: Some("Gaze point right Y".into()), ..ColumnMap::default() };
//! // Pupil Labs gaze_positions.csv: seconds, normalised positions with origin bottom left.
//! let pupil = ColumnMap { time: "gaze_timestamp".into(), left_x: Some("norm_pos_x".into()),
//!     left_y: Some("norm_pos_y".into()), time_unit_ms: 1000.0, normalized: Some((1920.0, 1080.0)),
//!     flip_y: true, ..ColumnMap::default() };
//! # let _ = (tobii, pupil);
//! ```

use super::Sample;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Which columns hold what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ColumnMap {
    /// Time column.
    pub time: String,
    /// Milliseconds per time unit (1 for ms, 1000 for seconds, 0.001 for microseconds).
    pub time_unit_ms: f64,
    /// Left eye (or combined gaze) x.
    pub left_x: Option<String>,
    /// Left eye (or combined gaze) y.
    pub left_y: Option<String>,
    /// Left pupil.
    pub left_pupil: Option<String>,
    /// Right eye x.
    pub right_x: Option<String>,
    /// Right eye y.
    pub right_y: Option<String>,
    /// Right pupil.
    pub right_pupil: Option<String>,
    /// Field delimiter; `None` guesses tab when the header has a tab, else comma.
    pub delimiter: Option<char>,
    /// Positions are normalised to [0, 1]: scale by `(width px, height px)`.
    pub normalized: Option<(f64, f64)>,
    /// Normalised y grows upwards (Pupil Labs): use `1 - y` before scaling.
    pub flip_y: bool,
}

impl Default for ColumnMap {
    fn default() -> Self {
        ColumnMap {
            time: "t".into(),
            time_unit_ms: 1.0,
            left_x: Some("x".into()),
            left_y: Some("y".into()),
            left_pupil: None,
            right_x: None,
            right_y: None,
            right_pupil: None,
            delimiter: None,
            normalized: None,
            flip_y: false,
        }
    }
}

/// Samples per eye (an eye without mapped columns stays empty).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GazeTable {
    /// Left eye (or combined gaze).
    pub left: Vec<Sample>,
    /// Right eye.
    pub right: Vec<Sample>,
}

/// Reads a gaze CSV/TSV file.
pub fn read_gaze_csv(path: &Path, map: &ColumnMap) -> Result<GazeTable> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_gaze_csv(&text, &path.display().to_string(), map)
}

/// Parses gaze CSV/TSV text; `file` names it in errors.
pub fn parse_gaze_csv(text: &str, file: &str, map: &ColumnMap) -> Result<GazeTable> {
    if map.left_x.is_some() != map.left_y.is_some() || map.right_x.is_some() != map.right_y.is_some() {
        return Err(Error::config(file, "column map", "x and y columns come in pairs"));
    }
    if map.left_x.is_none() && map.right_x.is_none() {
        return Err(Error::config(file, "column map", "map the x/y columns of at least one eye"));
    }
    if !(map.time_unit_ms.is_finite() && map.time_unit_ms > 0.0) {
        return Err(Error::config(file, "time_unit_ms", "must be a positive number"));
    }
    let delim = map.delimiter.unwrap_or(if text.lines().next().unwrap_or("").contains('\t') { '\t' } else { ',' });
    let mut rdr = csv::ReaderBuilder::new().delimiter(delim as u8).trim(csv::Trim::All).flexible(true).from_reader(text.as_bytes());
    let headers = rdr.headers().map_err(|e| Error::parse(file, 1, e.to_string()))?.clone();
    let col = |name: &Option<String>| -> Result<Option<usize>> {
        match name {
            None => Ok(None),
            Some(n) => headers.iter().position(|h| h == n).map(Some).ok_or_else(|| Error::parse(file, 1, format!("missing column `{n}`"))),
        }
    };
    let ti = col(&Some(map.time.clone()))?.unwrap_or(0);
    let eyes = [(col(&map.left_x)?, col(&map.left_y)?, col(&map.left_pupil)?), (col(&map.right_x)?, col(&map.right_y)?, col(&map.right_pupil)?)];
    let mut out = GazeTable::default();
    let mut last = f64::NEG_INFINITY;
    for (k, rec) in rdr.records().enumerate() {
        let line = k + 2;
        let rec = rec.map_err(|e| Error::parse(file, line, e.to_string()))?;
        if rec.len() < headers.len() {
            return Err(Error::parse(file, line, format!("{} columns, the header has {} (missing columns)", rec.len(), headers.len())));
        }
        let value = |i: usize| -> Result<f64> {
            let s = &rec[i];
            if s.is_empty() || s == "." || s == "-" || s.eq_ignore_ascii_case("nan") {
                return Ok(f64::NAN);
            }
            // Tobii writes decimal commas in some locales.
            let v: std::result::Result<f64, _> = if delim != ',' && s.contains(',') { s.replace(',', ".").parse() } else { s.parse() };
            v.map_err(|_| Error::parse(file, line, format!("column `{}`: `{s}` is not a number", &headers[i])))
        };
        let t = value(ti)? * map.time_unit_ms;
        if !t.is_finite() {
            return Err(Error::parse(file, line, "the time stamp is missing"));
        }
        if t <= last {
            return Err(Error::parse(file, line, format!("time {t} ms does not increase (previous {last} ms): timestamps go backwards or repeat")));
        }
        last = t;
        for (e, (xi, yi, pi)) in eyes.iter().enumerate() {
            let (Some(xi), Some(yi)) = (xi, yi) else { continue };
            let (mut x, mut y) = (value(*xi)?, value(*yi)?);
            if let Some((w, h)) = map.normalized {
                if map.flip_y {
                    y = 1.0 - y;
                }
                x *= w;
                y *= h;
            }
            let pupil = match pi {
                Some(i) => value(*i)?,
                None => f64::NAN,
            };
            let s = Sample { time: t, x: x as f32, y: y as f32, pupil: pupil as f32 };
            if e == 0 { &mut out.left } else { &mut out.right }.push(s);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_columns_and_units() {
        let map = ColumnMap { time: "ts".into(), time_unit_ms: 1000.0, left_x: Some("nx".into()), left_y: Some("ny".into()), normalized: Some((1000.0, 500.0)), flip_y: true, ..Default::default() };
        let g = parse_gaze_csv("ts,nx,ny,conf\n0.5,0.25,0.2,1\n0.504,,,0\n", "p.csv", &map).unwrap();
        let s = g.left[0];
        assert_eq!((s.time, s.x, s.y), (500.0, 250.0, 400.0));
        assert!(s.pupil.is_nan());
        assert!(!g.left[1].is_valid());
        assert!(g.right.is_empty());
    }

    #[test]
    fn tobii_tsv_binocular_and_errors() {
        let map = ColumnMap { time: "T".into(), left_x: Some("LX".into()), left_y: Some("LY".into()), right_x: Some("RX".into()), right_y: Some("RY".into()), ..Default::default() };
        let g = parse_gaze_csv("T\tLX\tLY\tRX\tRY\n10\t1,5\t2\t3\t4\n20\t\t\t3\t4\n", "t.tsv", &map).unwrap();
        assert_eq!((g.left[0].x, g.right[1].y), (1.5, 4.0));
        let err = parse_gaze_csv("T\tLX\tLY\tRX\tRY\n10\t1\t2\t3\t4\n5\t1\t2\t3\t4\n", "t.tsv", &map).unwrap_err().to_string();
        assert!(err.contains("t.tsv:3") && err.contains("backwards"), "{err}");
        let err = parse_gaze_csv("T\tLX\tLY\tRX\n10\t1\t2\t3\n", "t.tsv", &map).unwrap_err().to_string();
        assert!(err.contains("t.tsv:1") && err.contains("`RY`"), "{err}");
        let err = parse_gaze_csv("T\tLX\tLY\tRX\tRY\n10\t1\t2\n", "t.tsv", &map).unwrap_err().to_string();
        assert!(err.contains("t.tsv:2") && err.contains("missing columns"), "{err}");
    }
}
