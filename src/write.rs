//! File writing below every capability: atomic writes (temporary file in the target directory,
//! then rename) and CSV field quoting. Nothing here knows about simulations, click models or
//! reports, so every module can write files without importing the modules above it.

use crate::error::{Error, Result};
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
pub fn write_atomic_with<F>(path: &Path, fill: F) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
{
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let result = (|| {
        let file = std::fs::File::create(&tmp)?;
        let mut w = std::io::BufWriter::new(file);
        fill(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
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
