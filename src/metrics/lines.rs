//! Line scanning for the evaluator's readers, on top of [`crate::input`].
//!
//! The same contract as [`crate::input::LineReader`] (a leading UTF-8 byte-order mark and `\n`
//! / `\r\n` line ends removed, 1-based line numbers, read and decompression errors reported as
//! `file:line: reason`), but lines that lie inside the reader's buffer are handed out in place
//! instead of being copied: qrels and runs are tens of millions of short lines, and the copy
//! was a tenth of the run reader's time. Lines are bytes; the readers decide what must be UTF-8.

use crate::error::{Error, Result};
use crate::input::{Compression, Input, DEFAULT_MAX_LINE};
use std::io::BufRead;

const BOM: &[u8] = b"\xef\xbb\xbf";

fn read_error(name: &str, compression: Compression, line: usize, e: &std::io::Error) -> Error {
    let what = match compression {
        Compression::None => "read error",
        Compression::Gzip => "corrupt or truncated gzip data",
        Compression::Zstd => "corrupt or truncated zstd data",
    };
    Error::parse(name, line, format!("{what}: {e}"))
}

#[inline]
fn trim_end(mut line: &[u8]) -> &[u8] {
    if let [rest @ .., b'\n'] = line {
        line = rest;
    }
    if let [rest @ .., b'\r'] = line {
        line = rest;
    }
    line
}

/// Calls `f(line_number, line)` for every line of `input`, stopping at the first error (of the
/// input or of `f`).
pub fn for_each_line(input: Input, mut f: impl FnMut(usize, &[u8]) -> Result<()>) -> Result<()> {
    let name = input.name().to_string();
    let compression = input.compression();
    let mut reader = input.into_reader();
    let mut carry: Vec<u8> = Vec::new();
    let mut line_no = 0usize;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(read_error(&name, compression, line_no + 1, &e)),
        };
        if buf.is_empty() {
            break;
        }
        let len = buf.len();
        let mut start = 0;
        while let Some(pos) = memchr(b'\n', &buf[start..]) {
            let end = start + pos + 1;
            line_no += 1;
            let line: &[u8] = if carry.is_empty() {
                &buf[start..end]
            } else {
                carry.extend_from_slice(&buf[start..end]);
                &carry
            };
            let mut line = trim_end(line);
            if line_no == 1 && line.starts_with(BOM) {
                line = &line[BOM.len()..];
            }
            f(line_no, line)?;
            carry.clear();
            start = end;
        }
        carry.extend_from_slice(&buf[start..]);
        if carry.len() > DEFAULT_MAX_LINE {
            return Err(Error::parse(&name, line_no + 1, format!("line longer than {DEFAULT_MAX_LINE} bytes; is this the right file and format?")));
        }
        reader.consume(len);
    }
    if !carry.is_empty() {
        line_no += 1;
        let mut line = trim_end(&carry);
        if line_no == 1 && line.starts_with(BOM) {
            line = &line[BOM.len()..];
        }
        f(line_no, line)?;
    }
    Ok(())
}

/// Position of the first `needle` in `hay` (the standard library's memchr is private; this
/// is the classic word-at-a-time scan, 8 bytes per step).
#[inline]
pub fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let rep = LO.wrapping_mul(needle as u64);
    let mut i = 0;
    while i + 8 <= hay.len() {
        let w = u64::from_le_bytes(hay[i..i + 8].try_into().expect("8 bytes")) ^ rep;
        let found = w.wrapping_sub(LO) & !w & HI;
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    hay[i..].iter().position(|&b| b == needle).map(|p| i + p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn lines(bytes: &[u8]) -> Result<Vec<(usize, Vec<u8>)>> {
        let mut out = Vec::new();
        for_each_line(Input::from_bytes("t", bytes.to_vec())?, |n, l| {
            out.push((n, l.to_vec()));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn same_lines_as_the_line_reader() {
        for text in [&b"\xef\xbb\xbfa b\r\nc d\n\ne f"[..], b"", b"\n", b"x", b"one\r\ntwo\r\n", b"\xef\xbb\xbf"] {
            let mut expected = Vec::new();
            Input::from_bytes("t", text.to_vec())
                .unwrap()
                .lines()
                .for_each(|n, l| {
                    expected.push((n, l.as_bytes().to_vec()));
                    Ok(())
                })
                .unwrap();
            assert_eq!(lines(text).unwrap(), expected, "{text:?}");
        }
    }

    #[test]
    fn lines_across_buffer_boundaries_and_gzip_errors() {
        // 300,000 lines of varying length cross the 256 KiB buffer many times.
        let text: String = (0..300_000).map(|i| format!("{i} {}\n", "x".repeat(i % 37))).collect();
        let got = lines(text.as_bytes()).unwrap();
        assert_eq!(got.len(), 300_000);
        for (i, (n, l)) in got.iter().enumerate().step_by(997) {
            assert_eq!(*n, i + 1);
            assert_eq!(l, format!("{i} {}", "x".repeat(i % 37)).as_bytes());
        }
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(text.as_bytes()).unwrap();
        let mut gz = e.finish().unwrap();
        gz.truncate(gz.len() / 2);
        let err = lines(&gz).unwrap_err().to_string();
        assert!(err.starts_with("t:") && err.contains("corrupt or truncated gzip"), "{err}");
    }

    #[test]
    fn memchr_finds_every_position() {
        let hay: Vec<u8> = (0..40u8).collect();
        for i in 0..40u8 {
            assert_eq!(memchr(i, &hay), Some(i as usize));
        }
        assert_eq!(memchr(200, &hay), None);
        assert_eq!(memchr(b'\n', b""), None);
    }
}
