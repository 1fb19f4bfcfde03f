//! The streaming reader shared by every click-log format: one pass over the lines of an
//! [`Input`] (plain, gzip or zstd, a file or standard input), sessions handed to a callback
//! one at a time, so memory is bounded by the longest line, not by the file.

use super::columnar::{self, ColumnMap};
use super::formats::{self, describe, fitting_formats, Pool, RpcState, RpcStep, SessionBuf};
use super::{Format, ReadReport};
use crate::error::{Error, Result};
use crate::input::Input;

/// Longest line a click-log reader accepts by default (64 MiB). A longer line is refused
/// with `file:line: line longer than ...`: real logs have SERPs of tens of results, and the
/// real Yandex sample's longest line (20,103 impressions) is 1.7 MB.
pub const MAX_LINE: usize = 64 << 20;

/// How many data lines [`Format::Auto`] looks at before deciding.
const SNIFF_LINES: usize = 50;

/// How to read a click log.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOptions {
    /// The format, or [`Format::Auto`] to detect it from the first lines.
    pub format: Format,
    /// Count and skip malformed lines (also lines with invalid UTF-8) instead of failing.
    pub skip_bad_lines: bool,
    /// Longest line accepted, in bytes.
    pub max_line: usize,
    /// The command-line option that names the format, for hints in messages (`--format`).
    pub format_flag: &'static str,
}

impl ReadOptions {
    /// Options for `format`, failing on the first bad line.
    pub fn new(format: Format) -> Self {
        ReadOptions { format, skip_bad_lines: false, max_line: MAX_LINE, format_flag: "--format" }
    }

    /// Sets the option named in hints (`--format` by default; `compare-rankers` has
    /// `--log-format`).
    pub fn format_flag(mut self, flag: &'static str) -> Self {
        self.format_flag = flag;
        self
    }

    /// Sets whether bad lines are skipped.
    pub fn skip_bad_lines(mut self, skip: bool) -> Self {
        self.skip_bad_lines = skip;
        self
    }
}

struct Driver<'a> {
    name: String,
    opts: &'a ReadOptions,
    format: Format,
    pool: Pool,
    one: SessionBuf,
    rpc: RpcState,
    report: ReadReport,
}

impl Driver<'_> {
    fn bad(&mut self, line_no: usize, line: Option<&str>, reason: String) -> Result<()> {
        let mut reason = reason;
        if let Some(line) = line {
            if let [other] = fitting_formats(line, Some(&self.format)).as_slice() {
                reason.push_str(&format!("; the line looks like the `{other}` format ({} {other})", self.opts.format_flag));
            }
        }
        let err = Error::parse(&self.name, line_no, reason);
        if self.opts.skip_bad_lines {
            self.report.skipped_lines += 1;
            if self.report.first_error.is_none() {
                self.report.first_error = Some(err.to_string());
            }
            Ok(())
        } else {
            Err(err)
        }
    }

    fn emit(report: &mut ReadReport, s: &SessionBuf, f: &mut dyn FnMut(&SessionBuf) -> Result<()>) -> Result<()> {
        report.sessions += 1;
        f(s)
    }

    fn line(&mut self, line_no: usize, bytes: &[u8], f: &mut dyn FnMut(&SessionBuf) -> Result<()>) -> Result<()> {
        let line = match std::str::from_utf8(bytes) {
            Ok(l) => l,
            Err(e) => {
                let at = e.valid_up_to();
                return self.bad(line_no, None, format!("invalid UTF-8 (byte 0x{:02x} at column {})", bytes[at], at + 1));
            }
        };
        if line.trim().is_empty() || line.starts_with('#') {
            return Ok(());
        }
        if self.format == Format::YandexRpc {
            let parsed = match formats::split_rpc(line) {
                Ok(p) => p,
                Err(reason) => return self.bad(line_no, Some(line), reason),
            };
            let step = match self.rpc.step(&parsed) {
                Ok(s) => s,
                Err(reason) => return self.bad(line_no, Some(line), reason),
            };
            if step == RpcStep::EmitThenStart {
                Self::emit(&mut self.report, &self.rpc.serp, f)?;
            }
            if step != RpcStep::Done {
                if let Err(reason) = self.rpc.start(parsed) {
                    return self.bad(line_no, Some(line), reason);
                }
            }
            return Ok(());
        }
        if self.format == Format::Yandex {
            // Impressions are handed out one at a time (a line of a million impressions costs
            // its own size). With skipping, the line is checked whole first, so a bad line
            // is skipped whole, as in every other format.
            if self.opts.skip_bad_lines {
                if let Err(reason) = formats::yandex_impressions(line, &mut self.one, &mut |_| Ok(())) {
                    return self.bad(line_no, Some(line), reason);
                }
            }
            let mut failed: Option<Error> = None;
            let report = &mut self.report;
            let result = formats::yandex_impressions(line, &mut self.one, &mut |s| {
                if s.outside_clicks > 0 {
                    report.outside_clicks += s.outside_clicks as usize;
                    report.first_outside_line.get_or_insert(line_no);
                }
                Self::emit(report, s, f).map_err(|e| {
                    failed = Some(e);
                    String::new()
                })
            });
            if let Some(e) = failed {
                return Err(e);
            }
            return match result {
                Ok(()) => Ok(()),
                Err(reason) => self.bad(line_no, Some(line), reason),
            };
        }
        match formats::parse_line(line, &self.format, &mut self.pool) {
            Ok(()) => {
                for s in self.pool.sessions() {
                    Self::emit(&mut self.report, s, f)?;
                }
                Ok(())
            }
            Err(reason) => self.bad(line_no, Some(line), reason),
        }
    }
}

/// Detects the format from the first data lines: the one detectable format whose syntax
/// every one of them fits. Anything else (none, or several) is an error that shows the line.
fn detect(name: &str, sample: &[(usize, Vec<u8>)], opts: &ReadOptions) -> Result<Format> {
    let flag = opts.format_flag;
    let lines: Vec<(usize, &str)> =
        sample.iter().filter_map(|(n, b)| std::str::from_utf8(b).ok().map(|l| (*n, l))).filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#')).collect();
    // Without skipping, a line of invalid UTF-8 before the first line of text fails the read
    // at that line, as it would once the format is known (a binary file, random bytes).
    if !opts.skip_bad_lines {
        if let Some((n, b, e)) = sample.iter().find_map(|(n, b)| std::str::from_utf8(b).err().map(|e| (*n, b, e))) {
            if lines.first().is_none_or(|&(first, _)| n < first) {
                let at = e.valid_up_to();
                return Err(Error::parse(name, n, format!("invalid UTF-8 (byte 0x{:02x} at column {})", b[at], at + 1)));
            }
        }
    }
    let Some(&(first_no, first)) = lines.first() else {
        return Err(Error::Invalid(format!("{name}: no sessions (the log is empty or holds only blank and comment lines)")));
    };
    let mut pool = Pool::default();
    let fits: Vec<Format> = formats::detectable().into_iter().filter(|f| lines.iter().all(|(_, l)| formats::line_fits(l, f, &mut pool))).collect();
    match fits.as_slice() {
        [one] => Ok(one.clone()),
        [] => {
            let per_line = fitting_formats(first, None);
            // The first line fits one format and a later line does not: that line's error in
            // the format, where it is (as a read in that format would report it).
            if let [only] = per_line.as_slice() {
                let mut pool = Pool::default();
                for &(n, l) in &lines[1..] {
                    if let Err(reason) = formats::line_error(l, only, &mut pool) {
                        return Err(Error::parse(
                            name,
                            n,
                            format!("{reason} (line {first_no} is in the `{only}` format; if the log is in another, give {flag})"),
                        ));
                    }
                }
            }
            let hint = if per_line.is_empty() {
                format!(
                    "it fits none of yandex, tsv, jsonl, simeval, ncm, yandex-rpc, baraco (see docs/clickmodels.md); for other bracketed \
                     layouts give {flag} bracketed:query=N,documents=N,clicks=N"
                )
            } else {
                format!("its first line fits {} but a later line does not; give {flag}", names(&per_line))
            };
            Err(Error::parse(name, first_no, format!("cannot detect the log format: the line has {}; {hint}", describe(first))))
        }
        several => Err(Error::parse(name, first_no, format!("cannot detect the log format: the lines fit {}; give {flag}", names(several)))),
    }
}

fn names(fs: &[Format]) -> String {
    fs.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(" and ")
}

/// Reads every session of `input`, calling `f` on each in file order, and returns what was
/// read and skipped. A log without any session is an error (a model fitted on nothing is no
/// model). Errors name `file:line`; with `skip_bad_lines`, malformed lines (also invalid
/// UTF-8) are counted and skipped, but an over-long line still stops the read.
pub fn for_each_session(mut input: Input, opts: &ReadOptions, f: &mut dyn FnMut(&SessionBuf) -> Result<()>) -> Result<ReadReport> {
    let name = input.name().to_string();
    let columnar = match &opts.format {
        Format::Columnar(c, m) => Some((*c, m.clone())),
        Format::Auto => columnar::sniff(&input.peek(8)?).map(|c| (c, ColumnMap::default())),
        _ => None,
    };
    if let Some((container, map)) = columnar {
        let mut report = ReadReport { format: Some(Format::Columnar(container, map.clone())), ..Default::default() };
        columnar::for_each_row(input, container, &map, opts.skip_bad_lines, &mut report, f)?;
        return finish(&name, report);
    }
    let mut lines = input.lines().max_line(opts.max_line);
    let mut sample: Vec<(usize, Vec<u8>)> = Vec::new();
    let format = if opts.format == Format::Auto {
        let mut data = 0;
        while data < SNIFF_LINES {
            let n = lines.line_no() + 1;
            let Some(b) = lines.next_bytes()? else { break };
            let blank = b.iter().all(u8::is_ascii_whitespace) || b.first() == Some(&b'#');
            data += usize::from(!blank);
            sample.push((n, b.to_vec()));
        }
        detect(&name, &sample, opts)?
    } else {
        opts.format.clone()
    };
    let mut d = Driver {
        name,
        opts,
        format: format.clone(),
        pool: Pool::default(),
        one: SessionBuf::default(),
        rpc: RpcState::default(),
        report: ReadReport::default(),
    };
    d.report.format = Some(format);
    for (n, b) in &sample {
        d.line(*n, b, f)?;
    }
    loop {
        let n = lines.line_no() + 1;
        if n.is_multiple_of(8192) {
            crate::interrupt::check()?;
        }
        let Some(b) = lines.next_bytes()? else { break };
        d.line(n, b, f)?;
    }
    if d.format == Format::YandexRpc && d.rpc.finish() {
        Driver::emit(&mut d.report, &d.rpc.serp, f)?;
    }
    d.report.unmatched_clicks = d.rpc.unmatched_clicks;
    finish(&d.name, d.report)
}

/// The text format [`Format::Auto`] detects for the file `path` (as [`for_each_session`]
/// detects it from the first lines), or `None` when the file is Parquet or Arrow, or when
/// detection fails (the sequential read then reports why).
pub(crate) fn detect_text_format(path: &std::path::Path) -> Option<Format> {
    let mut input = crate::input::open(path).ok()?;
    let name = input.name().to_string();
    if columnar::sniff(&input.peek(8).ok()?).is_some() {
        return None;
    }
    let mut lines = input.lines().max_line(MAX_LINE);
    let mut sample: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut data = 0;
    while data < SNIFF_LINES {
        let n = lines.line_no() + 1;
        let b = lines.next_bytes().ok()??;
        let blank = b.iter().all(u8::is_ascii_whitespace) || b.first() == Some(&b'#');
        data += usize::from(!blank);
        sample.push((n, b.to_vec()));
    }
    detect(&name, &sample, &ReadOptions::new(Format::Auto)).ok()
}

/// A read without any session is an error.
pub(crate) fn finish(name: &str, report: ReadReport) -> Result<ReadReport> {
    if report.sessions == 0 {
        let why = match &report.first_error {
            Some(first) => format!("all {} data line(s) were bad; first: {first}", report.skipped_lines),
            None if matches!(report.format, Some(Format::Columnar(..))) => "the file has no rows".to_string(),
            None => "the log is empty or holds only blank and comment lines".to_string(),
        };
        return Err(Error::Invalid(format!("{name}: no sessions ({why})")));
    }
    Ok(report)
}

/// Whether sessions of `format` never span lines, so that a text log of it can be split at any
/// line boundary and the parts parsed independently (every text format but `yandex-rpc`).
pub(crate) fn line_separable(format: &Format) -> bool {
    matches!(format, Format::Yandex | Format::Tsv | Format::Jsonl | Format::Bracketed(_) | Format::Baraco)
}

/// Parses the lines of `bytes`, a run of whole lines of an uncompressed text log in a
/// [`line_separable`] format whose first line is line `first_line` (1-based) of the file
/// `name`, calling `f` on every session in order. Lines are cut and checked as
/// [`crate::input::LineReader`] does (CRLF, the BOM of line 1, `max_line`), and parsed as
/// [`for_each_session`] does, so a part reports the same sessions and the same errors
/// (`file:line: reason`) as the whole read.
pub(crate) fn for_each_session_in_lines(
    name: &str,
    bytes: &[u8],
    first_line: usize,
    opts: &ReadOptions,
    format: &Format,
    f: &mut dyn FnMut(&SessionBuf) -> Result<()>,
) -> Result<ReadReport> {
    debug_assert!(line_separable(format));
    let mut d = Driver {
        name: name.to_string(),
        opts,
        format: format.clone(),
        pool: Pool::default(),
        one: SessionBuf::default(),
        rpc: RpcState::default(),
        report: ReadReport::default(),
    };
    let mut at = 0;
    let mut n = first_line;
    while at < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        let mut line = &bytes[at..end];
        if line.len() > opts.max_line + 1 {
            return Err(Error::parse(name, n, format!("line longer than {} bytes; is this the right file and format?", opts.max_line)));
        }
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        if n == 1 && line.starts_with(b"\xEF\xBB\xBF") {
            line = &line[3..];
        }
        if n.is_multiple_of(8192) {
            crate::interrupt::check()?;
        }
        d.line(n, line, f)?;
        at = end + 1;
        n += 1;
    }
    Ok(d.report)
}
