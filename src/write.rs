//! File writing below every capability: atomic writes (temporary file in the target directory,
//! then rename), CSV field quoting, the one number format of every CSV and JSON file serpsim
//! writes ([`fmt_f64`]), and tables written from serialisable rows ([`RecordWriter`], columns
//! from the row struct's fields by the rules of [`flat`]), and the SVG plot primitives every
//! plot is drawn with ([`plot`]: palette, fonts, ticks, legends). Nothing here knows about
//! simulations, click models or reports, so every module can write files without importing the
//! modules above it.
//!
//! Number policy: a float is rounded to [`SIGNIFICANT_DIGITS`] (10) significant digits and
//! written in the shortest form that reads back as that rounded value (`0.1 + 0.2` is written
//! `0.3`, `1/3` as `0.3333333333`, `300.0` as `300`, `1.5e-7` as `1.5e-7`). An undefined
//! value (NaN, or infinite) is an empty CSV cell and JSON `null`, never the text `NaN`.
//! Integers are written as integers. The same value gives the same text in CSV and JSON.

pub mod flat;
pub mod plot;

pub use flat::{flatten, FlatError, Scalar};

use crate::error::Result;
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically: a reader sees either the old file or the whole new one.
///
/// ```
/// let dir = std::env::temp_dir().join("serpsim-doc-atomic");
/// std::fs::create_dir_all(&dir).unwrap();
/// serpsim::write::write_atomic(&dir.join("x.txt"), b"hello").unwrap();
/// assert_eq!(std::fs::read(dir.join("x.txt")).unwrap(), b"hello");
/// ```
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Like [`write_atomic`], but the content is produced by `fill` writing into a buffered writer.
/// The one single-file writer of serpsim ([`crate::output::write_file_with`]): the temporary
/// file `.NAME.serpsim-tmp-PID` is removed on failure and on Ctrl-C, and leftovers of killed
/// runs beside `path` are removed before writing.
pub fn write_atomic_with<F>(path: &Path, fill: F) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
{
    crate::output::write_file_with(path, fill)
}

/// Quotes a CSV field when needed (RFC 4180: fields with a comma, quote or line break are
/// quoted, quotes doubled).
///
/// ```
/// assert_eq!(serpsim::write::csv_field("a,b"), "\"a,b\"");
/// assert_eq!(serpsim::write::csv_field("plain"), "plain");
/// ```
pub fn csv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_fill_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        let err = write_atomic_with(&target, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("interrupted"))
        });
        assert!(err.is_err());
        assert!(!target.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "temp file left behind");
    }

    #[test]
    fn replaces_existing_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        write_atomic(&target, b"old").unwrap();
        write_atomic(&target, b"new content").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new content");
    }
}

/// A p-value as people read it: scientific notation with four significant digits
/// (`3.457e-1`, `1.200e-7`); empty when undefined (NaN). pandas and R read it as a number.
pub fn fmt_p(p: f64) -> String {
    if p.is_nan() {
        String::new()
    } else {
        format!("{p:.3e}")
    }
}

#[cfg(test)]
mod p_tests {
    /// Hand-derived: 0.345703125 = 3.45703125e-1 rounds to 3.457e-1; 1.2e-7 keeps its digits.
    #[test]
    fn p_values_have_four_significant_digits() {
        assert_eq!(super::fmt_p(0.345703125), "3.457e-1");
        assert_eq!(super::fmt_p(1.2e-7), "1.200e-7");
        assert_eq!(super::fmt_p(1.0), "1.000e0");
        assert_eq!(super::fmt_p(f64::NAN), "");
        assert_eq!("3.457e-1".parse::<f64>().unwrap(), 0.3457);
    }
}

/// Significant digits kept of every float written (see the module docs).
pub const SIGNIFICANT_DIGITS: usize = 10;

/// `x` rounded to [`SIGNIFICANT_DIGITS`] significant digits (decimal rounding of the exact
/// binary value, half to even, then the nearest double); NaN, infinities and zero as they are.
///
/// ```
/// assert_eq!(serpsim::write::round_sig(0.1 + 0.2), 0.3);
/// assert_eq!(serpsim::write::round_sig(2.0 / 3.0), 0.6666666667);
/// ```
pub fn round_sig(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    format!("{:.*e}", SIGNIFICANT_DIGITS - 1, x).parse().unwrap_or(x)
}

/// A float as every CSV and JSON file of serpsim writes it: rounded to 10 significant digits,
/// the shortest text that reads back as the rounded value, plain notation for magnitudes in
/// [1e-5, 1e16) and scientific (`1.5e-7`) outside; empty when undefined (NaN or infinite).
///
/// ```
/// use serpsim::write::fmt_f64;
/// assert_eq!(fmt_f64(0.1 + 0.2), "0.3");
/// assert_eq!(fmt_f64(300.0), "300");
/// assert_eq!(fmt_f64(f64::NAN), "");
/// ```
pub fn fmt_f64(x: f64) -> String {
    if !x.is_finite() {
        return String::new();
    }
    let y = round_sig(x);
    if y == 0.0 {
        return "0".into();
    }
    let a = y.abs();
    if (1e-5..1e16).contains(&a) {
        format!("{y}")
    } else {
        format!("{y:e}")
    }
}

/// A cell as CSV text (quoted when needed; undefined is empty).
pub fn csv_scalar(s: &Scalar) -> String {
    match s {
        Scalar::Null => String::new(),
        Scalar::Bool(b) => b.to_string(),
        Scalar::Int(i) => i.to_string(),
        Scalar::UInt(u) => u.to_string(),
        Scalar::Float(f) => fmt_f64(*f),
        Scalar::Str(t) => csv_field(t).into_owned(),
    }
}

/// A cell as JSON text (undefined is `null`; numbers as in CSV).
pub fn json_scalar(s: &Scalar) -> String {
    match s {
        Scalar::Null => "null".into(),
        Scalar::Bool(b) => b.to_string(),
        Scalar::Int(i) => i.to_string(),
        Scalar::UInt(u) => u.to_string(),
        Scalar::Float(f) if f.is_finite() => fmt_f64(*f),
        Scalar::Float(_) => "null".into(),
        Scalar::Str(t) => serde_json::to_string(t).unwrap_or_else(|_| "null".into()),
    }
}

/// The file format of a [`RecordWriter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// CSV: a header line from the first row's columns, then one line per row.
    Csv,
    /// A JSON array of flat records, one record per line (no spaces inside a record).
    Json,
}

/// Writes rows of one table, each a serialisable struct flattened into columns (see
/// [`flat`]). The columns are the first row's, or those given to [`RecordWriter::with_columns`]
/// (e.g. found by a first pass with [`RecordWriter::schema`]); a row may leave out the columns
/// of an undefined (`None`) part (`x` undefined stands for every `x_...` column), any other
/// difference is an error. A table without rows writes only its enclosing brackets (JSON) or
/// its header (CSV, when the columns are given) or nothing.
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Row { topic: &'static str, mean: f64, ci: [f64; 2] }
/// let mut buf = Vec::new();
/// let mut t = serpsim::write::RecordWriter::new(&mut buf, serpsim::write::TableFormat::Csv);
/// t.row(&Row { topic: "a,b", mean: 0.1 + 0.2, ci: [f64::NAN, 1.0] }).unwrap();
/// t.finish().unwrap();
/// assert_eq!(String::from_utf8(buf).unwrap(), "topic,mean,ci_low,ci_high\n\"a,b\",0.3,,1\n");
/// ```
pub struct RecordWriter<'w> {
    w: Option<&'w mut dyn Write>,
    format: TableFormat,
    columns: Option<Vec<String>>,
    started: bool,
    rows: usize,
}

impl<'w> RecordWriter<'w> {
    /// A table writing into `w`, its columns those of the first row.
    pub fn new(w: &'w mut dyn Write, format: TableFormat) -> Self {
        RecordWriter { w: Some(w), format, columns: None, started: false, rows: 0 }
    }

    /// A table writing into `w` with the given columns.
    pub fn with_columns(w: &'w mut dyn Write, format: TableFormat, columns: Vec<String>) -> Self {
        RecordWriter { w: Some(w), format, columns: Some(columns), started: false, rows: 0 }
    }

    /// A first pass that writes nothing and keeps the widest row's columns ([`Self::columns`]).
    pub fn schema() -> Self {
        RecordWriter { w: None, format: TableFormat::Csv, columns: None, started: false, rows: 0 }
    }

    /// The columns: of the widest row seen by a [`Self::schema`] pass, else the table's.
    pub fn columns(&self) -> Option<&[String]> {
        self.columns.as_deref()
    }

    fn start(&mut self) -> std::io::Result<()> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        let (Some(w), Some(cols)) = (self.w.as_mut(), self.columns.as_ref()) else { return Ok(()) };
        match self.format {
            TableFormat::Csv if cols.is_empty() => Ok(()),
            TableFormat::Csv => {
                let header: Vec<String> = cols.iter().map(|n| csv_field(n).into_owned()).collect();
                writeln!(w, "{}", header.join(","))
            }
            TableFormat::Json => w.write_all(b"[\n"),
        }
    }

    /// Writes one row.
    pub fn row<T: serde::Serialize + ?Sized>(&mut self, row: &T) -> std::io::Result<()> {
        let cells = flatten(row).map_err(std::io::Error::other)?;
        if self.w.is_none() {
            if self.columns.as_ref().is_none_or(|c| c.len() < cells.len()) {
                self.columns = Some(cells.into_iter().map(|(k, _)| k).collect());
            }
            self.rows += 1;
            return Ok(());
        }
        if self.columns.is_none() {
            self.columns = Some(cells.iter().map(|(k, _)| k.clone()).collect());
        }
        self.start()?;
        let cols = self.columns.as_ref().expect("set above");
        let aligned = align(cols, cells).map_err(|why| std::io::Error::other(format!("table row {}: {why}", self.rows + 1)))?;
        let w = self.w.as_mut().expect("a writing table");
        match self.format {
            TableFormat::Csv => {
                let line: Vec<String> = aligned.iter().map(csv_scalar).collect();
                writeln!(w, "{}", line.join(","))?;
            }
            TableFormat::Json => {
                if self.rows > 0 {
                    w.write_all(b",\n")?;
                }
                w.write_all(b"{")?;
                for (i, (k, v)) in cols.iter().zip(&aligned).enumerate() {
                    if i > 0 {
                        w.write_all(b",")?;
                    }
                    write!(w, "{}:{}", serde_json::to_string(k).unwrap_or_default(), json_scalar(v))?;
                }
                w.write_all(b"}")?;
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// Ends the table; returns the number of rows.
    pub fn finish(mut self) -> std::io::Result<usize> {
        if self.w.is_none() {
            return Ok(self.rows);
        }
        self.start()?;
        if self.format == TableFormat::Json {
            let w = self.w.as_mut().expect("a writing table");
            if self.rows == 0 {
                if self.columns.is_none() {
                    w.write_all(b"[")?;
                }
            } else {
                w.write_all(b"\n")?;
            }
            w.write_all(b"]")?;
        }
        Ok(self.rows)
    }
}

/// The cells of a row in the order of `cols`; an undefined cell `x` fills every `x_...`
/// column the row lacks.
fn align(cols: &[String], cells: Vec<(String, Scalar)>) -> std::result::Result<Vec<Scalar>, String> {
    if cells.len() == cols.len() && cells.iter().zip(cols).all(|((k, _), c)| k == c) {
        return Ok(cells.into_iter().map(|(_, v)| v).collect());
    }
    let mut out = Vec::with_capacity(cols.len());
    let mut used = vec![false; cells.len()];
    for c in cols {
        if let Some(i) = cells.iter().position(|(k, _)| k == c) {
            used[i] = true;
            out.push(cells[i].1.clone());
        } else if let Some(i) = cells.iter().position(|(k, v)| *v == Scalar::Null && c.strip_prefix(k.as_str()).is_some_and(|r| r.starts_with('_'))) {
            used[i] = true;
            out.push(Scalar::Null);
        } else {
            return Err(format!("no value for column `{c}`"));
        }
    }
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(format!("column `{}` is not among the table's columns `{}`", cells[i].0, cols.join(",")));
    }
    Ok(out)
}

#[cfg(test)]
mod number_tests {
    use super::*;

    /// Hand-derived: 0.1 + 0.2 = 0.30000000000000004 rounds to 0.3000000000 (10 digits), whose
    /// shortest form is 0.3; 2/3 = 0.666666666666... rounds to 0.6666666667; 1234567890123 has
    /// 13 digits and rounds to 1234567890000; 1.5e-7 is below 1e-5 and written in scientific
    /// form; -0.0 is 0; NaN and infinities are empty.
    #[test]
    fn floats_have_ten_significant_digits_in_shortest_form() {
        assert_eq!(fmt_f64(0.1 + 0.2), "0.3");
        assert_eq!(fmt_f64(2.0 / 3.0), "0.6666666667");
        assert_eq!(fmt_f64(-2.0 / 3.0), "-0.6666666667");
        assert_eq!(fmt_f64(1234567890123.0), "1234567890000");
        assert_eq!(fmt_f64(1.5e-7), "1.5e-7");
        assert_eq!(fmt_f64(0.00012345678901234), "0.000123456789");
        assert_eq!(fmt_f64(300.0), "300");
        assert_eq!(fmt_f64(-0.0), "0");
        assert_eq!(fmt_f64(2.5e20), "2.5e20");
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(fmt_f64(x), "");
        }
        // Reading the text back gives the rounded value exactly.
        for x in [0.1 + 0.2, 2.0 / 3.0, 1.0e-300 / 3.0, 123456.7890123] {
            assert_eq!(fmt_f64(x).parse::<f64>().unwrap(), round_sig(x));
        }
    }

    #[derive(serde::Serialize)]
    struct Inner {
        measure: String,
        diff: f64,
        ci: [f64; 2],
    }

    #[derive(serde::Serialize)]
    struct Row {
        name: String,
        n: u64,
        better: Option<f64>,
        favours: Vec<String>,
        diff_quantiles: [f64; 5],
        measures: Vec<Inner>,
    }

    fn row(favours: &[&str], better: Option<f64>) -> Row {
        Row {
            name: "x,\"y\"".into(),
            n: 3,
            better,
            favours: favours.iter().map(|s| s.to_string()).collect(),
            diff_quantiles: [1.0, 2.0, 3.0, 4.0, 0.1 + 0.2],
            measures: vec![Inner { measure: "gain".into(), diff: 1.5, ci: [1.0, f64::NAN] }, Inner { measure: "time".into(), diff: -2.0, ci: [-3.0, -1.0] }],
        }
    }

    /// Columns follow the struct's fields by the rules of `flat` (hand-written expected text).
    #[test]
    fn rows_flatten_into_csv_and_json_records() {
        let mut buf = Vec::new();
        let mut t = RecordWriter::new(&mut buf, TableFormat::Csv);
        t.row(&row(&["gain", "time"], Some(0.5))).unwrap();
        t.row(&row(&[], None)).unwrap();
        assert_eq!(t.finish().unwrap(), 2);
        let text = String::from_utf8(buf).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "name,n,better,favours,diff_q05,diff_q25,diff_q50,diff_q75,diff_q95,gain_diff,gain_ci_low,gain_ci_high,time_diff,time_ci_low,time_ci_high"
        );
        assert_eq!(lines[1], "\"x,\"\"y\"\"\",3,0.5,gain time,1,2,3,4,0.3,1.5,1,,-2,-3,-1");
        assert_eq!(lines[2], "\"x,\"\"y\"\"\",3,,,1,2,3,4,0.3,1.5,1,,-2,-3,-1");
        let mut buf = Vec::new();
        let mut t = RecordWriter::new(&mut buf, TableFormat::Json);
        t.row(&row(&["gain"], None)).unwrap();
        t.finish().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(v[0]["name"], "x,\"y\"");
        assert_eq!(v[0]["better"], serde_json::Value::Null);
        assert_eq!(v[0]["gain_ci_high"], serde_json::Value::Null);
        assert_eq!(v[0]["diff_q95"], 0.3);
        assert_eq!(v[0]["favours"], "gain");
    }

    /// A row whose columns differ from the table's is an error, not a shifted line; an
    /// undefined part stands for all its columns (the widest row's, found by a schema pass).
    #[test]
    fn undefined_parts_fill_their_columns() {
        #[derive(serde::Serialize)]
        struct Part {
            lo: f64,
            hi: f64,
        }
        #[derive(serde::Serialize)]
        struct R {
            name: &'static str,
            part: Option<Part>,
        }
        let rows = [R { name: "a", part: None }, R { name: "b", part: Some(Part { lo: 1.0, hi: 2.0 }) }];
        let mut schema = RecordWriter::schema();
        for r in &rows {
            schema.row(r).unwrap();
        }
        let cols = schema.columns().unwrap().to_vec();
        assert_eq!(cols, ["name", "part_lo", "part_hi"]);
        let mut buf = Vec::new();
        let mut t = RecordWriter::with_columns(&mut buf, TableFormat::Csv, cols);
        for r in &rows {
            t.row(r).unwrap();
        }
        t.finish().unwrap();
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "name,part_lo,part_hi
a,,
b,1,2
"
        );
    }

    /// A row whose columns differ from the first row's is an error, not a shifted line.
    #[test]
    fn rows_with_other_columns_are_refused() {
        let mut buf = Vec::new();
        let mut t = RecordWriter::new(&mut buf, TableFormat::Csv);
        t.row(&row(&[], None)).unwrap();
        let mut other = row(&[], None);
        other.measures.pop();
        let err = t.row(&other).unwrap_err().to_string();
        assert!(err.contains("row 2") && err.contains("time_diff"), "{err}");
    }
}
