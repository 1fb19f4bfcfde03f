//! One input layer for every reader: plain, gzip or zstd files (detected by their magic bytes,
//! not by their names), `-` for standard input, a UTF-8 byte-order mark and CRLF line ends
//! removed, and every error reported as `file:line: reason`, also inside compressed files.
//!
//! Readers either stream lines with [`LineReader`] (memory bounded by the longest line) or take
//! the whole text with [`read_to_string`] when their format needs it (TOML, JSON).
//!
//! ```
//! use std::io::Write;
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("qrels.gz");
//! let mut gz = flate2::write::GzEncoder::new(std::fs::File::create(&path).unwrap(), Default::default());
//! gz.write_all("\u{feff}301 0 d1 1\r\n301 0 d2 0\r\n".as_bytes()).unwrap();
//! gz.finish().unwrap();
//! let mut lines = serpsim::input::open(&path).unwrap().lines();
//! assert_eq!(lines.next_line().unwrap(), Some("301 0 d1 1"));
//! assert_eq!(lines.line_no(), 1);
//! assert_eq!(lines.next_line().unwrap(), Some("301 0 d2 0"));
//! assert_eq!(lines.next_line().unwrap(), None);
//! ```

use crate::error::{Error, Result};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Buffer size of file readers: large enough that a system call moves a useful amount.
const BUFFER: usize = 256 * 1024;

/// Longest line a [`LineReader`] accepts by default (256 MiB): a longer "line" is almost always
/// a binary or wrongly split file, and reading it whole would cost its size in memory.
pub const DEFAULT_MAX_LINE: usize = 256 << 20;

/// Largest input a whole-text reader ([`read_to_string`]: scenarios, model files, study logs,
/// BARACO rankings, stream and WordNet files) accepts: 1 GiB. The largest such files the
/// project meets are model files, about 58 bytes per (query, document) pair (230 MB for the
/// 4 M pairs of a 4 M-session log), so this leaves room for 18 M pairs; the text is held in
/// memory together with what is parsed from it, so a larger one would cost several times its
/// size, and an endless input (a FIFO fed by `yes`) is refused after 1 GiB instead of growing
/// until memory runs out.
pub const MAX_TEXT: usize = 1 << 30;

#[cfg(test)]
thread_local! {
    /// [`MAX_TEXT`] for the whole-text reads of this thread (tests lower it, so that an endless
    /// input is refused after a few MiB).
    static TEXT_LIMIT: std::cell::Cell<usize> = const { std::cell::Cell::new(MAX_TEXT) };
}

/// Sets the whole-text limit of this thread's reads (tests only).
#[cfg(test)]
pub(crate) fn set_text_limit(bytes: usize) {
    TEXT_LIMIT.with(|c| c.set(bytes));
}

fn text_limit() -> usize {
    #[cfg(test)]
    return TEXT_LIMIT.with(|c| c.get());
    #[cfg(not(test))]
    MAX_TEXT
}

/// How an input is compressed, detected from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (RFC 1952), including concatenated members as written by `cat a.gz b.gz`.
    Gzip,
    /// Zstandard.
    Zstd,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// An opened input: its name for messages and a decompressing buffered reader.
pub struct Input {
    name: String,
    path: Option<PathBuf>,
    compression: Compression,
    reader: Box<dyn BufRead + Send>,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input").field("name", &self.name).field("compression", &self.compression).finish()
    }
}

/// Whether `path` means standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Opens `path` for reading (`-` is standard input), detecting gzip and zstd by magic bytes.
pub fn open(path: &Path) -> Result<Input> {
    if is_stdin(path) {
        let reader = BufReader::with_capacity(BUFFER, std::io::stdin());
        return Input::from_reader("<stdin>", None, reader);
    }
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(Error::Invalid(format!("{}: is a directory, expected a file", path.display())));
    }
    Input::from_reader(&path.display().to_string(), Some(path.to_path_buf()), BufReader::with_capacity(BUFFER, file))
}

impl Input {
    /// Wraps an already opened reader named `name` (for messages), detecting compression.
    pub fn from_reader<R: BufRead + Send + 'static>(name: &str, path: Option<PathBuf>, mut reader: R) -> Result<Input> {
        let head = peek(&mut reader, 4).map_err(|e| Error::io(name, e))?;
        let compression = if head.starts_with(&GZIP_MAGIC) {
            Compression::Gzip
        } else if head.starts_with(&ZSTD_MAGIC) {
            Compression::Zstd
        } else {
            Compression::None
        };
        let reader: Box<dyn BufRead + Send> = match compression {
            Compression::None => Box::new(reader),
            Compression::Gzip => Box::new(BufReader::with_capacity(BUFFER, flate2::bufread::MultiGzDecoder::new(reader))),
            Compression::Zstd => {
                let dec = ruzstd::decoding::StreamingDecoder::new(reader).map_err(|e| Error::Invalid(format!("{name}: not a valid zstd stream: {e}")))?;
                Box::new(BufReader::with_capacity(BUFFER, dec))
            }
        };
        Ok(Input { name: name.to_string(), path, compression, reader })
    }

    /// Reads `bytes` held in memory (tests, embedded data, Python buffers).
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<Input> {
        Input::from_reader(name, None, std::io::Cursor::new(bytes))
    }

    /// The name used in messages: the path as given, or `<stdin>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file's path, when it is a file (not standard input or memory).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// How the input is compressed.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// The first bytes of the decompressed data (up to `n`, fewer when the first read of a
    /// pipe delivers fewer), without consuming them: for magic-byte detection.
    pub fn peek(&mut self, n: usize) -> Result<Vec<u8>> {
        peek(&mut self.reader, n).map_err(|e| stream_error(&self.name, self.compression, 1, &e))
    }

    /// A line reader over the decompressed text.
    pub fn lines(self) -> LineReader {
        LineReader::new(self)
    }

    /// The raw decompressed bytes as a reader (the BOM is not removed).
    pub fn into_reader(self) -> Box<dyn BufRead + Send> {
        self.reader
    }

    /// The whole decompressed text: BOM removed, CRLF kept (text parsers split lines themselves).
    /// The bytes are checked as they arrive, so invalid UTF-8 stops the read at once (a binary
    /// file or `/dev/urandom` fails on its first bad byte instead of being read whole), and is
    /// reported with the line it is on. An input larger than [`MAX_TEXT`] bytes (after
    /// decompression) is refused once that many bytes were read.
    pub fn read_to_string(self) -> Result<String> {
        let limit = text_limit();
        self.read_to_string_max(limit)
    }

    /// [`Input::read_to_string`] with a limit of `limit` bytes (`NAME: larger than N bytes ...`
    /// beyond it; at most `limit` bytes are kept).
    pub fn read_to_string_max(mut self, limit: usize) -> Result<String> {
        let mut bytes = Vec::new();
        // Bytes before `checked` are valid UTF-8 (a character cut by a read boundary waits for
        // the next read).
        let mut checked = 0usize;
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let line = 1 + bytes.iter().filter(|&&b| b == b'\n').count();
                    return Err(stream_error(&self.name, self.compression, line, &e));
                }
            };
            if chunk.is_empty() {
                break;
            }
            let n = chunk.len();
            if n > limit - bytes.len() {
                return Err(Error::Invalid(format!(
                    "{}: larger than {limit} bytes (the limit of a file read whole, such as a scenario, a model file or a study log); is this the right file?",
                    self.name
                )));
            }
            bytes.extend_from_slice(chunk);
            self.reader.consume(n);
            match std::str::from_utf8(&bytes[checked..]) {
                Ok(_) => checked = bytes.len(),
                Err(e) if e.error_len().is_none() => checked += e.valid_up_to(),
                Err(e) => return Err(utf8_error(&self.name, &bytes, checked + e.valid_up_to())),
            }
        }
        if checked < bytes.len() {
            return Err(utf8_error(&self.name, &bytes, checked));
        }
        let start = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
        let mut s = String::from_utf8(bytes).expect("checked above");
        s.drain(..start);
        Ok(s)
    }
}

/// The error for invalid UTF-8 at byte `at` of `bytes`: `name:line: invalid UTF-8 (byte 0x.. at column c)`.
fn utf8_error(name: &str, bytes: &[u8], at: usize) -> Error {
    let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
    let col = at - bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    Error::parse(name, line, format!("invalid UTF-8 (byte 0x{:02x} at column {})", bytes[at], col + 1))
}

/// Reads `path` whole (see [`Input::read_to_string`]).
pub fn read_to_string(path: &Path) -> Result<String> {
    open(path)?.read_to_string()
}

const BOM: &[u8] = b"\xef\xbb\xbf";

/// Fills the reader's buffer until it holds `n` bytes or the input ends, and returns a copy.
fn peek<R: BufRead>(reader: &mut R, n: usize) -> std::io::Result<Vec<u8>> {
    // `fill_buf` returns what one read produced; a pipe may deliver fewer than `n` bytes at
    // first, but a `BufReader` cannot be asked for more without consuming. One fill is what
    // every reader here gets from a file or a pipe's first write, and magic bytes are 2-4 long.
    let buf = loop {
        match reader.fill_buf() {
            Ok(b) => break b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    Ok(buf[..buf.len().min(n)].to_vec())
}

fn stream_error(name: &str, compression: Compression, line: usize, e: &std::io::Error) -> Error {
    let what = match compression {
        Compression::None => "read error",
        Compression::Gzip => "corrupt or truncated gzip data",
        Compression::Zstd => "corrupt or truncated zstd data",
    };
    Error::parse(name, line, format!("{what}: {e}"))
}

/// Streams the lines of an [`Input`]: line ends (`\n`, `\r\n`) and a leading BOM removed,
/// 1-based line numbers, invalid UTF-8 and over-long lines reported as `file:line` errors.
pub struct LineReader {
    input: Input,
    buf: Vec<u8>,
    line_no: usize,
    max_line: usize,
}

impl LineReader {
    /// A reader over `input` with the default line limit.
    pub fn new(input: Input) -> Self {
        LineReader { input, buf: Vec::with_capacity(256), line_no: 0, max_line: DEFAULT_MAX_LINE }
    }

    /// Sets the longest line accepted, in bytes.
    pub fn max_line(mut self, bytes: usize) -> Self {
        self.max_line = bytes;
        self
    }

    /// The input's name, for messages.
    pub fn name(&self) -> &str {
        &self.input.name
    }

    /// The number of the line returned last (1-based; 0 before the first).
    pub fn line_no(&self) -> usize {
        self.line_no
    }

    /// A parse error at the current line.
    pub fn error(&self, reason: impl Into<String>) -> Error {
        Error::parse(&self.input.name, self.line_no, reason)
    }

    /// The next line's raw bytes (line end removed, BOM removed on line 1), or `None` at the end.
    pub fn next_bytes(&mut self) -> Result<Option<&[u8]>> {
        self.buf.clear();
        let limit = self.max_line as u64 + 2;
        let read = (&mut self.input.reader).take(limit).read_until(b'\n', &mut self.buf);
        self.line_no += 1;
        match read {
            Ok(0) => {
                self.line_no -= 1;
                return Ok(None);
            }
            Ok(_) => {}
            Err(e) => return Err(stream_error(&self.input.name, self.input.compression, self.line_no, &e)),
        }
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        } else if self.buf.len() as u64 >= limit {
            return Err(self.error(format!("line longer than {} bytes; is this the right file and format?", self.max_line)));
        } else if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        let start = if self.line_no == 1 && self.buf.starts_with(BOM) { BOM.len() } else { 0 };
        Ok(Some(&self.buf[start..]))
    }

    /// The next line as text, or `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<&str>> {
        let name = self.input.name.clone();
        let line_no = self.line_no + 1;
        match self.next_bytes()? {
            None => Ok(None),
            Some(bytes) => match std::str::from_utf8(bytes) {
                Ok(s) => Ok(Some(s)),
                Err(e) => {
                    let at = e.valid_up_to();
                    Err(Error::parse(name, line_no, format!("invalid UTF-8 (byte 0x{:02x} at column {})", bytes[at], at + 1)))
                }
            },
        }
    }

    /// Calls `f(line_no, line)` for every line, stopping at the first error (of the input or of `f`).
    pub fn for_each(mut self, mut f: impl FnMut(usize, &str) -> Result<()>) -> Result<()> {
        loop {
            let n = self.line_no + 1;
            match self.next_line()? {
                Some(line) => f(n, line)?,
                None => return Ok(()),
            }
        }
    }
}

/// Longest echo of an input token in an error message, in bytes (see [`snippet`]).
pub const ECHO: usize = 80;

/// `text` without a leading UTF-8 byte-order mark: for parsers that take text from memory
/// (Python, tests) as well as from [`read_to_string`], which already removes it.
///
/// ```
/// assert_eq!(serpsim::input::strip_bom("\u{feff}prod\tq1"), "prod\tq1");
/// assert_eq!(serpsim::input::strip_bom("prod"), "prod");
/// ```
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Shortens `text` for an error message: at most `max` characters, with the total length
/// stated when cut, so a 10 MB token does not fill the terminal.
///
/// ```
/// assert_eq!(serpsim::input::snippet("abc", 10), "abc");
/// assert_eq!(serpsim::input::snippet("abcdefghijkl", 4), "abcd… (12 bytes)");
/// ```
pub fn snippet(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// Parses JSON text into a [`serde_json::Value`] like `serde_json::from_str`, but refuses an
/// object with a key given twice (`{"model":"dbn","model":"sdbn"}`), which `serde_json` would
/// resolve to the last value without a word. The error names the key, with serde_json's line
/// and column.
///
/// ```
/// let v = serpsim::input::parse_json(r#"{"a": [1, {"b": 2}]}"#).unwrap();
/// assert_eq!(v["a"][1]["b"], 2);
/// let e = serpsim::input::parse_json(r#"{"model":"dbn","model":"sdbn"}"#).unwrap_err();
/// assert!(e.to_string().starts_with("duplicate key `model` at line 1 column "), "{e}");
/// ```
pub fn parse_json(text: &str) -> std::result::Result<serde_json::Value, serde_json::Error> {
    serde_json::from_str::<StrictJson>(text).map(|v| v.0)
}

/// A JSON value whose objects have no repeated key (see [`parse_json`]).
struct StrictJson(serde_json::Value);

impl<'de> serde::Deserialize<'de> for StrictJson {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = StrictJson;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson(v.into()))
    }
    fn visit_i64<E>(self, v: i64) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number)))
    }
    fn visit_str<E>(self, v: &str) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson(v.into()))
    }
    fn visit_string<E>(self, v: String) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson(v.into()))
    }
    fn visit_unit<E>(self) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson(serde_json::Value::Null))
    }
    fn visit_none<E>(self) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson(serde_json::Value::Null))
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<StrictJson, D::Error> {
        serde::Deserialize::deserialize(d)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<StrictJson, A::Error> {
        let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(StrictJson(x)) = seq.next_element()? {
            v.push(x);
        }
        Ok(StrictJson(serde_json::Value::Array(v)))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<StrictJson, A::Error> {
        let mut m = serde_json::Map::new();
        while let Some(k) = map.next_key::<String>()? {
            if m.contains_key(&k) {
                return Err(serde::de::Error::custom(format_args!("duplicate key `{}`", snippet(&k, ECHO))));
            }
            let StrictJson(v) = map.next_value()?;
            m.insert(k, v);
        }
        Ok(StrictJson(serde_json::Value::Object(m)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn lines_of(input: Input) -> Result<Vec<(usize, String)>> {
        let mut out = Vec::new();
        input.lines().for_each(|n, l| {
            out.push((n, l.to_string()));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn plain_gzip_and_concatenated_gzip_give_the_same_lines() {
        let text = b"a b\nc d\n\ne f";
        // Expected by hand: three newline-terminated lines and a last one without a newline.
        let expected = vec![(1, "a b".to_string()), (2, "c d".into()), (3, "".into()), (4, "e f".into())];
        assert_eq!(lines_of(Input::from_bytes("p", text.to_vec()).unwrap()).unwrap(), expected);
        let g = Input::from_bytes("g", gz(text)).unwrap();
        assert_eq!(g.compression(), Compression::Gzip);
        assert_eq!(lines_of(g).unwrap(), expected);
        // `cat x.gz y.gz` is a valid gzip file holding both texts.
        let mut two = gz(b"a b\nc d\n");
        two.extend(gz(b"\ne f"));
        assert_eq!(lines_of(Input::from_bytes("g2", two).unwrap()).unwrap(), expected);
    }

    #[test]
    fn zstd_is_detected_and_decoded() {
        // A zstd frame of "x 1\ny 2\n" written by `printf 'x 1\ny 2\n' | zstd -c | xxd -i` (zstd v1.5.4).
        let frame: Vec<u8> = vec![0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x41, 0x00, 0x00, 0x78, 0x20, 0x31, 0x0a, 0x79, 0x20, 0x32, 0x0a, 0x68, 0x1e, 0xd3, 0x77];
        let input = Input::from_bytes("z", frame).unwrap();
        assert_eq!(input.compression(), Compression::Zstd);
        assert_eq!(lines_of(input).unwrap(), vec![(1, "x 1".to_string()), (2, "y 2".into())]);
    }

    #[test]
    fn bom_and_crlf_are_removed() {
        let input = Input::from_bytes("b", b"\xef\xbb\xbfq1 d1\r\nq2 d2\r\n".to_vec()).unwrap();
        assert_eq!(lines_of(input).unwrap(), vec![(1, "q1 d1".to_string()), (2, "q2 d2".into())]);
        let text = Input::from_bytes("b", b"\xef\xbb\xbfk = 1\r\n".to_vec()).unwrap().read_to_string().unwrap();
        assert_eq!(text, "k = 1\r\n");
    }

    #[test]
    fn invalid_utf8_names_file_line_and_column() {
        let input = Input::from_bytes("runs/x.gz", gz(b"ok\nbad \xff here\n")).unwrap();
        let err = lines_of(input).unwrap_err().to_string();
        assert_eq!(err, "runs/x.gz:2: invalid UTF-8 (byte 0xff at column 5)");
        let err = Input::from_bytes("f", b"ok\nok\nb\xc3(\n".to_vec()).unwrap().read_to_string().unwrap_err().to_string();
        assert_eq!(err, "f:3: invalid UTF-8 (byte 0xc3 at column 2)");
    }

    #[test]
    fn truncated_gzip_is_a_line_error_not_garbage() {
        let mut data = gz(&b"line one\n".repeat(2000));
        data.truncate(data.len() / 2);
        let err = lines_of(Input::from_bytes("t.gz", data).unwrap()).unwrap_err().to_string();
        assert!(err.starts_with("t.gz:") && err.contains("corrupt or truncated gzip"), "{err}");
    }

    #[test]
    fn over_long_line_is_refused() {
        let input = Input::from_bytes("l", b"short\nxxxxxxxxxxxx\n".to_vec()).unwrap();
        let mut lines = input.lines().max_line(8);
        assert_eq!(lines.next_line().unwrap(), Some("short"));
        let err = lines.next_line().unwrap_err().to_string();
        assert!(err.starts_with("l:2: line longer than 8 bytes"), "{err}");
        // Exactly at the limit (plus CRLF) is accepted.
        let input = Input::from_bytes("l", b"12345678\r\n".to_vec()).unwrap();
        assert_eq!(input.lines().max_line(8).next_line().unwrap(), Some("12345678"));
    }

    #[test]
    fn a_text_larger_than_the_limit_is_refused() {
        // 8 bytes with a limit of 8 are read; 9 are refused, naming the input and the limit
        // (the message of `read_to_string_max`), also inside a compressed input.
        assert_eq!(Input::from_bytes("t", b"1234567\n".to_vec()).unwrap().read_to_string_max(8).unwrap(), "1234567\n");
        for bytes in [b"12345678\n".to_vec(), gz(b"12345678\n")] {
            let e = Input::from_bytes("big.json", bytes).unwrap().read_to_string_max(8).unwrap_err().to_string();
            assert!(e.starts_with("big.json: larger than 8 bytes (the limit of a file read whole"), "{e}");
        }
        // The default limit of `read_to_string`.
        assert_eq!(MAX_TEXT, 1 << 30);
        assert_eq!(text_limit(), MAX_TEXT);
    }

    #[test]
    fn files_and_errors_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.txt");
        std::fs::write(&p, "a\n").unwrap();
        assert_eq!(read_to_string(&p).unwrap(), "a\n");
        let missing = dir.path().join("missing.txt");
        assert!(open(&missing).unwrap_err().to_string().contains("missing.txt"));
        assert!(open(dir.path()).unwrap_err().to_string().contains("is a directory"));
        assert!(is_stdin(Path::new("-")) && !is_stdin(Path::new("-x")));
    }

    #[test]
    fn empty_input_has_no_lines() {
        assert_eq!(lines_of(Input::from_bytes("e", Vec::new()).unwrap()).unwrap(), vec![]);
        assert_eq!(lines_of(Input::from_bytes("e", gz(b"")).unwrap()).unwrap(), vec![]);
    }
}
