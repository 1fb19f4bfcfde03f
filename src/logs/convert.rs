//! `serpsim clicks convert`: any readable click log to TSV, JSONL, SimEval-IR JSONL, the Yandex sample layout,
//! Parquet or Arrow IPC, streaming (one record batch or one line in memory), written
//! atomically (a failed conversion leaves no output file).
//!
//! Parquet and Arrow keep every field of a session (session id, query, documents, clicks,
//! timestamp, dwell, click times). The text formats keep what their syntax holds; whatever a
//! target cannot hold is counted and reported, never dropped silently.

use super::columnar::Container;
use super::read::{for_each_session, ReadOptions};
use super::{Format, ReadReport, SessionBuf};
use crate::error::{Error, Result};
use crate::input::Input;
use crate::progress::Progress;
use arrow_array::builder::{BooleanBuilder, Float64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// Rows per record batch written.
const BATCH_ROWS: usize = 8192;

/// What a conversion read, wrote and could not keep.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConvertReport {
    /// The read (sessions, skipped lines, detected format).
    pub read: ReadReport,
    /// Sessions whose session id the target cannot hold.
    pub dropped_ids: usize,
    /// Sessions whose timestamp the target cannot hold.
    pub dropped_timestamps: usize,
    /// Sessions whose dwell the target cannot hold (also dwell with unknown (NaN) entries in
    /// text targets, which have no notation for them).
    pub dropped_dwell: usize,
    /// Sessions whose click times the target cannot hold.
    pub dropped_click_times: usize,
}

impl ConvertReport {
    /// Messages a user must see: fields the target format could not keep.
    pub fn warnings(&self, to: &Format) -> Vec<String> {
        let mut w = Vec::new();
        for (n, what) in [
            (self.dropped_ids, "session ids"),
            (self.dropped_timestamps, "timestamps"),
            (self.dropped_dwell, "dwell times"),
            (self.dropped_click_times, "click times"),
        ] {
            if n > 0 {
                w.push(format!("the {to} format cannot hold the {what} of {n} session(s): they were left out (parquet and arrow keep every field)"));
            }
        }
        w
    }
}

/// One output format being written.
trait SessionWriter {
    fn write(&mut self, n: usize, s: &SessionBuf, report: &mut ConvertReport) -> Result<()>;
    fn finish(self: Box<Self>) -> Result<()>;
}

/// The text targets.
struct TextWriter<W: Write> {
    w: W,
    format: Format,
    line: String,
}

fn io(e: std::io::Error) -> Error {
    Error::Invalid(format!("writing the output: {e}"))
}

/// Refuses an id the target's syntax cannot carry (it would be read back as something else).
fn check_id(n: usize, id: &str, forbidden: &[char], what: &str, format: &Format) -> Result<()> {
    if let Some(c) = id.chars().find(|c| forbidden.contains(c) || c.is_control() || (format == &Format::Yandex && c.is_whitespace())) {
        return Err(Error::Invalid(format!(
            "session {n}: {what} `{}` contains {c:?}, which the {format} format cannot hold; convert to parquet, arrow or jsonl",
            crate::input::snippet(id, 60)
        )));
    }
    Ok(())
}

impl<W: Write> SessionWriter for TextWriter<W> {
    fn write(&mut self, n: usize, s: &SessionBuf, r: &mut ConvertReport) -> Result<()> {
        use std::fmt::Write as _;
        let l = &mut self.line;
        l.clear();
        let known_dwell = !s.dwell.is_empty() && s.dwell.iter().all(|x| x.is_finite());
        r.dropped_click_times += usize::from(!s.click_times.is_empty());
        match &self.format {
            Format::Yandex => {
                r.dropped_ids += usize::from(s.id().is_some());
                r.dropped_timestamps += usize::from(s.timestamp.is_some());
                r.dropped_dwell += usize::from(!s.dwell.is_empty());
                check_id(n, s.query(), &['\t', ';'], "query id", &self.format)?;
                l.push_str(s.query());
                l.push('\t');
                for (i, d) in s.docs().enumerate() {
                    check_id(n, d, &[',', ':', ';'], "document id", &self.format)?;
                    l.push_str(if i == 0 { "" } else { "," });
                    l.push_str(d);
                }
                l.push_str(" :");
                let mut first = true;
                for (i, d) in s.docs().enumerate() {
                    // A clicked id is marked at every rank it holds: a repeated document is
                    // clicked at all its ranks or at none, as the Yandex layout reads it.
                    if s.clicks[i] && s.docs().position(|x| x == d) == Some(i) {
                        l.push_str(if first { " " } else { "," });
                        l.push_str(d);
                        first = false;
                    }
                }
                let repeated_mismatch = s.docs().enumerate().any(|(i, d)| s.docs().zip(&s.clicks).any(|(x, &c)| x == d && c != s.clicks[i]));
                if repeated_mismatch {
                    return Err(Error::Invalid(format!(
                        "session {n}: a document appears twice with different clicks, which the yandex format cannot hold; convert to tsv, jsonl, parquet or arrow"
                    )));
                }
            }
            Format::Tsv => {
                if n == 1 {
                    self.w.write_all(b"session_id\tquery\tdocuments\tclicks\ttimestamp\tdwell\n").map_err(io)?;
                }
                for (x, what) in [(s.id().unwrap_or(""), "session id"), (s.query(), "query id")] {
                    check_id(n, x, &['\t'], what, &self.format)?;
                }
                l.push_str(s.id().unwrap_or(""));
                l.push('\t');
                l.push_str(s.query());
                l.push('\t');
                for (i, d) in s.docs().enumerate() {
                    check_id(n, d, &['\t', ','], "document id", &self.format)?;
                    l.push_str(if i == 0 { "" } else { "," });
                    l.push_str(d);
                }
                l.push('\t');
                for (i, &c) in s.clicks.iter().enumerate() {
                    l.push_str(if i == 0 { "" } else { "," });
                    l.push(if c { '1' } else { '0' });
                }
                l.push('\t');
                if let Some(t) = s.timestamp {
                    let _ = write!(l, "{t}");
                }
                l.push('\t');
                if known_dwell {
                    for (i, x) in s.dwell.iter().enumerate() {
                        let _ = write!(l, "{}{x}", if i == 0 { "" } else { "," });
                    }
                } else {
                    r.dropped_dwell += usize::from(!s.dwell.is_empty());
                }
            }
            Format::Jsonl => {
                let mut o = serde_json::Map::new();
                if let Some(id) = s.id() {
                    o.insert("session".into(), id.into());
                }
                o.insert("query".into(), s.query().into());
                o.insert("documents".into(), s.docs().collect::<Vec<_>>().into());
                o.insert("clicks".into(), s.clicks.clone().into());
                if let Some(t) = s.timestamp {
                    o.insert("timestamp".into(), t.into());
                }
                if known_dwell {
                    o.insert("dwell".into(), s.dwell.clone().into());
                } else {
                    r.dropped_dwell += usize::from(!s.dwell.is_empty());
                }
                l.push_str(&serde_json::Value::Object(o).to_string());
            }
            Format::SimEval => {
                r.dropped_dwell += usize::from(super::simeval::write_simeval_line(n, s, l));
                r.dropped_click_times -= usize::from(!s.click_times.is_empty());
            }
            other => return Err(Error::Invalid(format!("cannot write the {other} format"))),
        }
        l.push('\n');
        self.w.write_all(l.as_bytes()).map_err(io)
    }
    fn finish(mut self: Box<Self>) -> Result<()> {
        self.w.flush().map_err(io)
    }
}

/// Parquet and Arrow IPC targets: columns `session_id`, `query_id`, `docs`, `clicks`,
/// `timestamp`, `dwell`, `click_times` (the layout the readers find without a mapping).
struct ColumnarWriter<W: Write + Send> {
    sink: Sink<W>,
    rows: usize,
    session: StringBuilder,
    query: StringBuilder,
    docs: ListBuilder<StringBuilder>,
    clicks: ListBuilder<BooleanBuilder>,
    timestamp: Float64Builder,
    dwell: ListBuilder<Float64Builder>,
    click_times: ListBuilder<Float64Builder>,
}

enum Sink<W: Write + Send> {
    Parquet(Option<parquet::arrow::ArrowWriter<W>>),
    Arrow(Option<arrow_ipc::writer::FileWriter<W>>),
}

fn arrow_err(e: impl std::fmt::Display) -> Error {
    Error::Invalid(format!("writing the output: {e}"))
}

impl<W: Write + Send> ColumnarWriter<W> {
    fn flush_batch(&mut self) -> Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        self.rows = 0;
        let cols: Vec<(&str, ArrayRef)> = vec![
            ("session_id", Arc::new(self.session.finish())),
            ("query_id", Arc::new(self.query.finish())),
            ("docs", Arc::new(self.docs.finish())),
            ("clicks", Arc::new(self.clicks.finish())),
            ("timestamp", Arc::new(self.timestamp.finish())),
            ("dwell", Arc::new(self.dwell.finish())),
            ("click_times", Arc::new(self.click_times.finish())),
        ];
        let batch = nullable_batch(cols).map_err(arrow_err)?;
        match &mut self.sink {
            Sink::Parquet(w) => w.as_mut().expect("open until finish").write(&batch).map_err(arrow_err),
            Sink::Arrow(w) => w.as_mut().expect("open until finish").write(&batch).map_err(arrow_err),
        }
    }
}

fn schema() -> arrow_schema::SchemaRef {
    let mut b = ColumnarParts::default();
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("session_id", Arc::new(b.0.finish())),
        ("query_id", Arc::new(b.1.finish())),
        ("docs", Arc::new(b.2.finish())),
        ("clicks", Arc::new(b.3.finish())),
        ("timestamp", Arc::new(b.4.finish())),
        ("dwell", Arc::new(b.5.finish())),
        ("click_times", Arc::new(b.6.finish())),
    ];
    nullable_batch(cols).expect("consistent empty arrays").schema()
}

/// A batch whose fields are all nullable (optional fields hold nulls in some batches only).
fn nullable_batch(cols: Vec<(&str, ArrayRef)>) -> std::result::Result<RecordBatch, arrow_schema::ArrowError> {
    let fields: Vec<arrow_schema::Field> = cols.iter().map(|(n, a)| arrow_schema::Field::new(*n, a.data_type().clone(), true)).collect();
    RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), cols.into_iter().map(|(_, a)| a).collect())
}

#[derive(Default)]
struct ColumnarParts(
    StringBuilder,
    StringBuilder,
    ListBuilder<StringBuilder>,
    ListBuilder<BooleanBuilder>,
    Float64Builder,
    ListBuilder<Float64Builder>,
    ListBuilder<Float64Builder>,
);

impl<W: Write + Send> ColumnarWriter<W> {
    fn new(container: Container, w: W) -> Result<Self> {
        let schema = schema();
        let sink = match container {
            Container::Parquet => {
                let props = parquet::file::properties::WriterProperties::builder()
                    .set_compression(parquet::basic::Compression::SNAPPY)
                    .set_created_by(format!("serpsim {}", env!("CARGO_PKG_VERSION")))
                    .build();
                Sink::Parquet(Some(parquet::arrow::ArrowWriter::try_new(w, schema, Some(props)).map_err(arrow_err)?))
            }
            Container::Arrow => Sink::Arrow(Some(arrow_ipc::writer::FileWriter::try_new(w, &schema).map_err(arrow_err)?)),
        };
        let p = ColumnarParts::default();
        Ok(ColumnarWriter { sink, rows: 0, session: p.0, query: p.1, docs: p.2, clicks: p.3, timestamp: p.4, dwell: p.5, click_times: p.6 })
    }
}

impl<W: Write + Send> SessionWriter for ColumnarWriter<W> {
    fn write(&mut self, _n: usize, s: &SessionBuf, _r: &mut ConvertReport) -> Result<()> {
        self.session.append_option(s.id());
        self.query.append_value(s.query());
        for d in s.docs() {
            self.docs.values().append_value(d);
        }
        self.docs.append(true);
        self.clicks.values().append_slice(&s.clicks);
        self.clicks.append(true);
        self.timestamp.append_option(s.timestamp);
        for (col, v) in [(&mut self.dwell, &s.dwell), (&mut self.click_times, &s.click_times)] {
            if v.is_empty() {
                col.append(false);
            } else {
                col.values().append_slice(v);
                col.append(true);
            }
        }
        self.rows += 1;
        if self.rows == BATCH_ROWS {
            self.flush_batch()?;
        }
        Ok(())
    }
    fn finish(mut self: Box<Self>) -> Result<()> {
        self.flush_batch()?;
        match &mut self.sink {
            Sink::Parquet(w) => {
                w.take().expect("open").close().map_err(arrow_err)?;
            }
            Sink::Arrow(w) => {
                let mut w = w.take().expect("open");
                w.finish().map_err(arrow_err)?;
                w.get_mut().flush().map_err(io)?;
            }
        }
        Ok(())
    }
}

/// The output formats `convert` writes.
pub fn parse_target(s: &str) -> Result<Format> {
    match s {
        "parquet" | "arrow" | "tsv" | "jsonl" | "simeval" | "yandex" => s.parse(),
        other => Err(Error::Invalid(format!("--out-format `{other}`: expected parquet, arrow, tsv, jsonl, simeval or yandex"))),
    }
}

/// The target format named by an output file's extension, if it names one.
pub fn target_from_extension(out: &Path) -> Option<Format> {
    let name = out.file_name()?.to_str()?.to_ascii_lowercase();
    let ext = name.rsplit('.').next()?;
    match ext {
        "parquet" | "pq" => parse_target("parquet").ok(),
        "arrow" | "feather" | "ipc" => parse_target("arrow").ok(),
        "tsv" => parse_target("tsv").ok(),
        "jsonl" | "ndjson" => parse_target("jsonl").ok(),
        _ => None,
    }
}

/// Converts the log `input` (read with `opts`) to `to`, written atomically to `out`.
/// `progress` counts sessions.
pub fn convert(input: Input, opts: &ReadOptions, to: &Format, out: &Path, progress: Option<&Progress>) -> Result<ConvertReport> {
    let mut input = Some(input);
    convert_with(to, out, progress, &mut |f| for_each_session(input.take().expect("read once"), opts, f))
}

/// [`convert`] of the file `path`. On more than one thread of the current rayon pool, an
/// uncompressed text log whose sessions never span lines (yandex, tsv, jsonl, ncm,
/// bracketed; given or detected by `auto` from the first lines) is parsed in byte ranges at line starts, in parallel,
/// and its sessions are written in file order, so the output is the same bytes whatever the
/// number of threads; errors and skipped lines are reported as the sequential read reports
/// them (the first in file order, `file:line`). Other input is read as [`convert`] reads it.
pub fn convert_path(path: &Path, opts: &ReadOptions, to: &Format, out: &Path, progress: Option<&Progress>) -> Result<ConvertReport> {
    let threads = rayon::current_num_threads();
    if threads > 1 && opts.format == Format::Auto && super::is_rereadable(path) {
        if let Some(format) = super::read::detect_text_format(path) {
            let opts = ReadOptions { format, ..opts.clone() };
            if super::read::line_separable(&opts.format) {
                return convert_path(path, &opts, to, out, progress);
            }
        }
    }
    if threads > 1 && super::read::line_separable(&opts.format) && super::is_rereadable(path) {
        let len = std::fs::metadata(path).map_err(|e| Error::io(path, e))?.len();
        // Parts of at most 1 MiB: a part's sessions are held parsed until written.
        let size = (len / (4 * threads as u64)).clamp(64 << 10, 1 << 20);
        if let Some(ranges) = super::text_ranges(path, size)? {
            return convert_with(to, out, progress, &mut |f| parallel_sessions(path, opts, &ranges, f));
        }
    }
    convert(crate::input::open(path)?, opts, to, out, progress)
}

/// The sessions of the text log `path`, parsed in `ranges` (whole lines) in parallel batches
/// and handed to `f` in file order.
fn parallel_sessions(path: &Path, opts: &ReadOptions, ranges: &[std::ops::Range<u64>], f: &mut dyn FnMut(&SessionBuf) -> Result<()>) -> Result<ReadReport> {
    use rayon::prelude::*;
    let name = path.display().to_string();
    let vocab = super::Vocab::default();
    let mut report = ReadReport { format: Some(opts.format.clone()), ..Default::default() };
    for batch in ranges.chunks(2 * rayon::current_num_threads()) {
        let parts: Vec<(Vec<SessionBuf>, Result<ReadReport>)> = batch
            .par_iter()
            .map(|range| {
                let part = super::FilePart { path, name: name.clone(), range: range.clone(), opts: opts.clone(), vocab: &vocab };
                let bytes = match part.read() {
                    Ok(b) => b,
                    Err(e) => return (Vec::new(), Err(e)),
                };
                let mut sessions = Vec::new();
                let first = if range.start == 0 { 1 } else { 2 };
                let run = super::read::for_each_session_in_lines(&name, &bytes, first, opts, &opts.format, &mut |s| {
                    sessions.push(s.clone());
                    Ok(())
                });
                let needs_lines = run.as_ref().map_or(true, |r| r.skipped_lines > 0 || r.outside_clicks > 0);
                let run = if needs_lines && range.start > 0 {
                    // Parsed again from its true first line, for the messages.
                    part.first_line().and_then(|first| super::read::for_each_session_in_lines(&name, &bytes, first, opts, &opts.format, &mut |_| Ok(())))
                } else {
                    run
                };
                (sessions, run)
            })
            .collect();
        for (sessions, run) in parts {
            // The sessions before a bad line are written first, as in a sequential read.
            for s in &sessions {
                report.sessions += 1;
                if report.sessions.is_multiple_of(8192) {
                    crate::interrupt::check()?;
                }
                f(s)?;
            }
            let r = run?;
            report.skipped_lines += r.skipped_lines;
            if report.first_error.is_none() {
                report.first_error = r.first_error;
            }
            report.outside_clicks += r.outside_clicks;
            if report.first_outside_line.is_none() {
                report.first_outside_line = r.first_outside_line;
            }
        }
    }
    super::read::finish(&name, report)
}

/// Writes the sessions `feed` hands out to `out` in the format `to`.
fn convert_with(
    to: &Format,
    out: &Path,
    progress: Option<&Progress>,
    feed: &mut dyn FnMut(&mut dyn FnMut(&SessionBuf) -> Result<()>) -> Result<ReadReport>,
) -> Result<ConvertReport> {
    let mut report = ConvertReport::default();
    let mut failure: Option<Error> = None;
    let out_name = out.display().to_string();
    let written = crate::output::write_file_with_buf(out, |w| {
        let result = (|| -> Result<ReadReport> {
            let mut writer: Box<dyn SessionWriter + '_> = match to {
                Format::Columnar(c, _) => Box::new(ColumnarWriter::new(*c, &mut *w)?),
                Format::Tsv | Format::Jsonl | Format::Yandex | Format::SimEval => Box::new(TextWriter { w: &mut *w, format: to.clone(), line: String::new() }),
                other => return Err(Error::Invalid(format!("cannot write the {other} format (use parquet, arrow, tsv, jsonl, simeval or yandex)"))),
            };
            let mut n = 0usize;
            let r = &mut report;
            let read = feed(&mut |s| {
                n += 1;
                if let Some(p) = progress {
                    p.inc(1);
                }
                writer.write(n, s, r).map_err(|e| Error::Invalid(format!("{out_name}: {e}")))
            })?;
            writer.finish().map_err(|e| Error::Invalid(format!("{out_name}: {e}")))?;
            Ok(read)
        })();
        match result {
            Ok(read) => {
                report.read = read;
                Ok(())
            }
            Err(e) => {
                failure = Some(e);
                Err(std::io::Error::other("conversion failed"))
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    written?;
    Ok(report)
}
