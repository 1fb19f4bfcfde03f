//! All-or-nothing outputs.
//!
//! A run that writes several files ([`RunDir`]) writes them into a staging directory beside the
//! output directory, adds `manifest.json` (serpsim version, command, seed, scenario hash, one
//! SHA-256 per file, warnings), and only then puts the whole set in place with one atomic
//! rename (Linux: `renameat2(RENAME_EXCHANGE)`). At every moment the output directory holds
//! either the previous complete set or the new one. A run that fails, is interrupted or is
//! killed leaves a staging directory at most, which the next run into the same place removes.
//!
//! A single output file ([`write_file`]) is written to a temporary file beside it and renamed.
//!
//! The output directory must be absent, empty, or a previous serpsim output set (it holds a
//! `manifest.json`): it is replaced as a whole, so a directory with other files is refused
//! before any work starts.
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! let out = dir.path().join("results");
//! let mut run = serpsim::output::RunDir::begin(&out, serpsim::output::RunInfo::new("simulate")).unwrap();
//! run.write("summary.csv", b"measure,mean\ngain,1.5\n").unwrap();
//! let written = run.commit().unwrap();
//! assert_eq!(written, vec![out.join("summary.csv"), out.join("manifest.json")]);
//! assert!(out.join("manifest.json").exists());
//! ```

use crate::error::{Error, Result};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Name of the manifest written into every output set.
pub const MANIFEST: &str = "manifest.json";

/// Marker in the names of staging and retired directories and temporary files.
const MARK: &str = ".serpsim-";

/// What produced a run, recorded in its manifest.
#[derive(Debug, Clone, Serialize, Default)]
pub struct RunInfo {
    /// The subcommand, e.g. `simulate` or `sessions sweep`.
    pub command: String,
    /// The command-line arguments that affect results ([`recorded_args`]: the CLI leaves out
    /// `--threads` and `--out`, which do not), so that equal runs have equal manifests.
    pub args: Vec<String>,
    /// The master seed, when the run is random.
    pub seed: Option<u64>,
    /// SHA-256 of the scenario text, when there is one.
    pub scenario_sha256: Option<String>,
}

impl RunInfo {
    /// A run of `command` with nothing else recorded yet.
    pub fn new(command: &str) -> Self {
        RunInfo { command: command.to_string(), ..Default::default() }
    }

    /// Records the scenario text's hash.
    pub fn scenario(mut self, text: &str) -> Self {
        self.scenario_sha256 = Some(sha256_hex(text.as_bytes()));
        self
    }
}

#[derive(Serialize)]
struct Manifest<'a> {
    serpsim_version: &'static str,
    #[serde(flatten)]
    info: &'a RunInfo,
    files: Vec<ManifestFile>,
    warnings: &'a [String],
}

#[derive(Serialize)]
struct ManifestFile {
    name: String,
    bytes: u64,
    sha256: String,
}

/// The command-line arguments a manifest records: all but the program name, `--threads`
/// and `--out`/`-o` (with their values, as `--threads 2`, `--threads=2`, `-o DIR`, `-oDIR`).
/// Neither changes what a run writes, so two runs that differ only in them have
/// byte-identical manifests (docs/reliability.md).
pub fn recorded_args(args: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut kept = Vec::new();
    let mut skip_value = false;
    for a in args.into_iter().skip(1) {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if a == "--" {
            kept.push(a);
            continue;
        }
        if a == "--threads" || a == "--out" || a == "-o" {
            skip_value = true;
        } else if !(a.starts_with("--threads=") || a.starts_with("--out=") || (a.starts_with("-o") && !a.starts_with("--"))) {
            kept.push(a);
        }
    }
    kept
}

/// Refuses an output path that is one of the inputs, or (for an output directory, which is
/// replaced as a whole) that contains one: paths are compared after resolving links and `..`.
/// Call it before anything is read or written. `-` (standard input) and inputs that do not
/// exist are not compared (reading them fails on its own).
pub fn refuse_input_as_output(out: &Path, inputs: &[&Path]) -> Result<()> {
    let Ok(out_c) = std::fs::canonicalize(out) else { return Ok(()) };
    for input in inputs {
        if input.as_os_str() == "-" {
            continue;
        }
        let Ok(in_c) = std::fs::canonicalize(input) else { continue };
        if in_c == out_c || in_c.starts_with(&out_c) {
            return Err(Error::Invalid(format!(
                "{}: the output path is also an input ({}); writing would replace it, so nothing was written; choose another output path",
                out.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Staging directories and temporary files of this process that an interrupt must remove.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers a temporary file of this process (such as the spill file of
/// [`crate::logs::stored`]) for removal on Ctrl-C ([`abandon_pending`]).
pub(crate) fn register_temp(path: &Path) {
    pending().push(path.to_path_buf());
}

/// Forgets a temporary file registered with [`register_temp`] (its owner removed it).
pub(crate) fn forget_temp(path: &Path) {
    pending().retain(|p| p != path);
}

/// Removes every staging directory and temporary file this process has not committed yet.
/// The CLI's interrupt handler calls it before exiting; commits and this cleanup are
/// serialised, so an interrupt during a commit leaves the old or the new set, never a mix.
pub fn abandon_pending() {
    // Workers see the request at their next check and stop writing.
    crate::interrupt::request();
    let mut list = pending();
    for p in list.drain(..) {
        // A worker may still create a file in a staging directory while it is being removed
        // (then removing the directory fails: not empty). Nothing re-creates the directory
        // itself (see RunDir::write_with), so a few retries remove it for good.
        for attempt in 0..50 {
            let gone = if p.is_dir() { std::fs::remove_dir_all(&p).is_ok() || !p.exists() } else { std::fs::remove_file(&p).is_ok() || !p.exists() };
            if gone {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(2 + attempt));
        }
    }
    // Keep the lock held until the process exits, so no commit starts after the cleanup.
    std::mem::forget(list);
}

/// Takes an exclusive, non-blocking advisory lock on `file`; false when another process has it.
fn try_lock(file: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a valid open descriptor; no memory is passed.
        unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        true
    }
}

/// Splits `path` into its parent directory (`.` when none) and file name.
fn split(path: &Path) -> Result<(PathBuf, String)> {
    let name =
        path.file_name().ok_or_else(|| Error::Invalid(format!("{}: not a usable output path (no file name)", path.display())))?.to_string_lossy().into_owned();
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, name))
}

/// Removes leftovers `.{name}.serpsim-*` in `parent` of runs that are no longer alive (their
/// lock is free). Returns an error if a live run holds one.
fn clean_leftovers(parent: &Path, name: &str) -> Result<()> {
    let prefix = format!(".{name}{MARK}");
    let entries = match std::fs::read_dir(parent) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(parent, e)),
    };
    // Temporary files of earlier serpsim versions: `.NAME.tmpPID` (issue 29: `clicks simulate`
    // left them after a kill and nothing removed them).
    let legacy = format!(".{name}.tmp");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let file_name = file_name.to_string_lossy();
        let is_legacy = file_name.strip_prefix(&legacy).is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()) && !process_alive(pid));
        if !file_name.starts_with(&prefix) && !is_legacy {
            continue;
        }
        let path = entry.path();
        let Ok(handle) = File::open(&path) else { continue };
        if !try_lock(&handle) {
            return Err(Error::Invalid(format!(
                "{}: another serpsim run is writing here (its staging area {} is in use)",
                parent.join(name).display(),
                path.display()
            )));
        }
        let removed = if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        removed.map_err(|e| Error::io(&path, e))?;
    }
    Ok(())
}

/// Removes the temporary files and directories `PREFIX{PID}-...` in `parent` whose process
/// PID no longer runs (left by a killed run; a run that ends, fails or is interrupted removes
/// its own). Only on Linux, where a process's liveness is known (`/proc/PID`). Used for the
/// parse-once spill files (`.serpsim-sessions-PID-N.bin`); the shard directories of a sharded
/// fit have their own copy of this rule (`clickmodels::sharded`).
pub fn remove_stale_temps(parent: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(prefix) else { continue };
        let pid = rest.split(['-', '.']).next().unwrap_or("");
        if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) || pid == std::process::id().to_string() {
            continue;
        }
        if cfg!(target_os = "linux") && !process_alive(pid) {
            let path = e.path();
            let _ = if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        }
    }
}

/// Whether process `pid` (decimal) is running (Linux: `/proc/PID` exists; elsewhere assumed).
fn process_alive(pid: &str) -> bool {
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid).exists()
    } else {
        true
    }
}

/// Atomically exchanges two directories (both must exist). Returns false where the platform
/// or file system cannot exchange.
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let ca = CString::new(a.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
        let cb = CString::new(b.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
        // SAFETY: both paths are valid NUL-terminated strings that outlive the call.
        let rc = unsafe { libc::syscall(libc::SYS_renameat2, libc::AT_FDCWD, ca.as_ptr(), libc::AT_FDCWD, cb.as_ptr(), libc::RENAME_EXCHANGE) };
        if rc == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) => Ok(false),
            _ => Err(e),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        Ok(false)
    }
}

fn sync_dir(dir: &Path) {
    // Persisting the rename needs the directory synced; failure to open a directory for sync
    // (some platforms) is not an error of the run.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Checks that `out` can be replaced by a run's output set: absent, an empty directory, or a
/// previous serpsim output set. Called before any long work starts.
pub fn check_output_dir(out: &Path) -> Result<()> {
    match std::fs::metadata(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let (parent, _) = split(out)?;
            match std::fs::metadata(&parent) {
                Ok(m) if m.is_dir() => Ok(()),
                Ok(_) => Err(Error::Invalid(format!("{}: not a directory", parent.display()))),
                // A missing parent is created, like `mkdir -p`.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(Error::io(&parent, e)),
            }
        }
        Err(e) => Err(Error::io(out, e)),
        Ok(m) if !m.is_dir() => Err(Error::Invalid(format!("{}: exists and is not a directory; the output must be a directory", out.display()))),
        Ok(_) => {
            let mut entries = std::fs::read_dir(out).map_err(|e| Error::io(out, e))?;
            if entries.next().is_none() || out.join(MANIFEST).is_file() {
                Ok(())
            } else {
                Err(Error::Invalid(format!(
                    "{}: holds files serpsim did not write (no {MANIFEST}); a run replaces its output \
                     directory as a whole, so choose a new or empty directory",
                    out.display()
                )))
            }
        }
    }
}

/// An output set being written. Files go to a staging directory; [`RunDir::commit`] puts the
/// whole set in place at once. Dropping a `RunDir` without committing removes the staging.
#[derive(Debug)]
pub struct RunDir {
    out: PathBuf,
    staging: PathBuf,
    _lock: File,
    info: RunInfo,
    files: Vec<String>,
    warnings: Vec<String>,
    committed: bool,
}

impl RunDir {
    /// Validates `out` (see [`check_output_dir`]), removes leftovers of dead runs, and creates
    /// the staging directory.
    pub fn begin(out: &Path, info: RunInfo) -> Result<RunDir> {
        check_output_dir(out)?;
        let (parent, name) = split(out)?;
        std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        clean_leftovers(&parent, &name)?;
        let staging = parent.join(format!(".{name}{MARK}staging-{}", std::process::id()));
        {
            // Created and registered under the lock of the pending list, so an interrupt
            // handler either runs before the directory exists or finds it registered.
            let mut list = pending();
            std::fs::create_dir(&staging).map_err(|e| Error::io(&staging, e))?;
            list.push(staging.clone());
        }
        let lock = match File::open(&staging) {
            Ok(f) => f,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&staging);
                pending().retain(|p| p != &staging);
                return Err(Error::io(&staging, e));
            }
        };
        try_lock(&lock);
        Ok(RunDir { out: out.to_path_buf(), staging, _lock: lock, info, files: Vec::new(), warnings: Vec::new(), committed: false })
    }

    /// The final output directory.
    pub fn out_dir(&self) -> &Path {
        &self.out
    }

    /// Where file `name` is staged, for writers that stream into it (then call [`RunDir::add`]).
    pub fn staged_path(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// Records a file written directly to [`RunDir::staged_path`].
    pub fn add(&mut self, name: &str) -> Result<()> {
        check_name(name)?;
        let path = self.staging.join(name);
        if !path.is_file() {
            return Err(Error::Invalid(format!("{}: staged output missing", path.display())));
        }
        if !self.files.iter().any(|f| f == name) {
            self.files.push(name.to_string());
        }
        Ok(())
    }

    /// Writes file `name` of the set.
    pub fn write(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        self.write_with(name, |w| w.write_all(bytes))
    }

    /// Writes file `name` of the set through a buffered writer.
    pub fn write_with<F>(&mut self, name: &str, fill: F) -> Result<()>
    where
        F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
    {
        check_name(name)?;
        let path = self.staging.join(name);
        // Subdirectories are created below the staging directory, never the staging directory
        // itself: after an interrupt removed it, a late write fails instead of re-creating it.
        if let Some(sub) = Path::new(name).parent() {
            let mut dir = self.staging.clone();
            for part in sub.components() {
                dir.push(part);
                match std::fs::create_dir(&dir) {
                    Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(Error::io(&dir, e)),
                    _ => {}
                }
            }
        }
        let result = (|| {
            let mut w = std::io::BufWriter::with_capacity(1 << 16, File::create(&path)?);
            fill(&mut w)?;
            w.into_inner().map_err(|e| e.into_error())?.sync_all()
        })();
        result.map_err(|e| Error::io(self.out.join(name), e))?;
        if !self.files.iter().any(|f| f == name) {
            self.files.push(name.to_string());
        }
        Ok(())
    }

    /// Records a warning in the manifest (the caller also prints it).
    pub fn warn(&mut self, message: impl Into<String>) {
        self.warnings.push(message.into());
    }

    /// Writes the manifest and puts the set in place. Returns the final paths, manifest last.
    pub fn commit(mut self) -> Result<Vec<PathBuf>> {
        let mut files = Vec::with_capacity(self.files.len());
        for name in &self.files {
            let path = self.staging.join(name);
            let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
            files.push(ManifestFile { name: name.clone(), bytes: bytes.len() as u64, sha256: sha256_hex(&bytes) });
        }
        let manifest = Manifest { serpsim_version: env!("CARGO_PKG_VERSION"), info: &self.info, files, warnings: &self.warnings };
        let mut json = serde_json::to_vec_pretty(&manifest).map_err(|e| Error::Invalid(e.to_string()))?;
        json.push(b'\n');
        self.write(MANIFEST, &json)?;
        sync_dir(&self.staging);

        let mut list = pending();
        let out = &self.out;
        let swapped = if out.exists() {
            if !exchange(&self.staging, out).map_err(|e| Error::io(out, e))? {
                // No atomic exchange here: retire the old set under a marked name first. A kill
                // between the two renames leaves the old set retired and the new one staged;
                // the next run removes both leftovers.
                let (parent, name) = split(out)?;
                let retired = parent.join(format!(".{name}{MARK}retired-{}", std::process::id()));
                std::fs::rename(out, &retired).map_err(|e| Error::io(out, e))?;
                std::fs::rename(&self.staging, out).map_err(|e| Error::io(out, e))?;
                std::fs::rename(&retired, &self.staging).map_err(|e| Error::io(&retired, e))?;
            }
            true
        } else {
            std::fs::rename(&self.staging, out).map_err(|e| Error::io(out, e))?;
            false
        };
        self.committed = true;
        if swapped {
            // The staging path now holds the previous set. Remove it while the interrupt
            // handler is held off (it waits for `list`), so a Ctrl-C just after the swap cannot
            // leave it behind (issue 29: "exits 130 and leaves a staging folder").
            let _ = std::fs::remove_dir_all(&self.staging);
        }
        list.retain(|p| p != &self.staging);
        drop(list);
        if let Ok((parent, _)) = split(out) {
            sync_dir(&parent);
        }
        Ok(self.files.iter().map(|f| out.join(f)).collect())
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
            pending().retain(|p| p != &self.staging);
        }
    }
}

fn check_name(name: &str) -> Result<()> {
    let p = Path::new(name);
    if name.is_empty() || p.is_absolute() || p.components().any(|c| !matches!(c, std::path::Component::Normal(_))) {
        return Err(Error::Invalid(format!("output file name `{name}` must be a relative path inside the output directory")));
    }
    Ok(())
}

/// Writes one output file atomically: a reader sees the old file or the whole new one, and a
/// failed or interrupted write leaves the old file. Leftover temporary files of dead runs
/// beside `path` are removed first.
pub fn write_file_with<F>(path: &Path, fill: F) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> std::io::Result<()>,
{
    write_file_with_buf(path, |w| fill(w))
}

/// As [`write_file_with`], with the concrete buffered file writer (`Send`, as some encoders
/// such as Parquet's require).
pub fn write_file_with_buf<F>(path: &Path, fill: F) -> Result<()>
where
    F: FnOnce(&mut std::io::BufWriter<File>) -> std::io::Result<()>,
{
    if path.is_dir() {
        return Err(Error::Invalid(format!("{}: is a directory, expected a file name", path.display())));
    }
    let tmp = stage_file(path, fill)?;
    let list = pending();
    let result = std::fs::rename(&tmp, path);
    drop(list);
    pending().retain(|p| p != &tmp);
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
}

/// Writes `path`'s content into a temporary file beside it (leftovers of dead runs removed
/// first), synced and registered for removal on Ctrl-C; returns the temporary file. On failure
/// the temporary file is removed and the error names `path`. Shared by [`write_file_with_buf`]
/// and [`write_files`].
fn stage_file<F>(path: &Path, fill: F) -> Result<PathBuf>
where
    F: FnOnce(&mut std::io::BufWriter<File>) -> std::io::Result<()>,
{
    let (dir, name) = split(path)?;
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    clean_leftovers(&dir, &name)?;
    let tmp = dir.join(format!(".{name}{MARK}tmp-{}", std::process::id()));
    pending().push(tmp.clone());
    let result = (|| {
        let file = File::create(&tmp)?;
        try_lock(&file);
        let mut w = std::io::BufWriter::with_capacity(1 << 16, file);
        fill(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        pending().retain(|p| p != &tmp);
        return Err(Error::io(path, e));
    }
    Ok(tmp)
}

/// Writes several separate output files as one set (`eval -o OUT --compare C --agreement A`):
/// every file is first written to its temporary file beside its path (leftovers of killed runs
/// are removed first); only when all are complete are they renamed into place, one after
/// another with the interrupt handler held off, so a failure, a full disk or Ctrl-C before
/// that leaves every previous file as it was, and Ctrl-C never stops the renames halfway.
/// The renames take microseconds; a SIGKILL inside that window is the one case that can
/// leave some files new and some old (docs/reliability.md).
pub fn write_files(files: &[(&Path, &[u8])]) -> Result<()> {
    for (i, (p, _)) in files.iter().enumerate() {
        if files[..i].iter().any(|(q, _)| q == p) {
            return Err(Error::Invalid(format!("{}: given as two outputs of one command", p.display())));
        }
        if p.is_dir() {
            return Err(Error::Invalid(format!("{}: is a directory, expected a file name", p.display())));
        }
    }
    let mut staged: Vec<PathBuf> = Vec::with_capacity(files.len());
    let discard = |staged: &[PathBuf]| {
        let mut list = pending();
        for t in staged {
            let _ = std::fs::remove_file(t);
            list.retain(|p| p != t);
        }
    };
    for (path, bytes) in files {
        let written = stage_file(path, |w| w.write_all(bytes));
        match written {
            Ok(tmp) => staged.push(tmp),
            Err(e) => {
                discard(&staged);
                return Err(e);
            }
        }
    }
    // Every file is complete: put them in place under the lock of the pending list, so an
    // interrupt handler waits until all are renamed (then it has nothing left to remove).
    let mut list = pending();
    for (i, ((path, _), tmp)) in files.iter().zip(&staged).enumerate() {
        if let Err(e) = std::fs::rename(tmp, path) {
            // Renaming within a directory fails only on odd file systems; what is not yet in
            // place is removed and the error names the file.
            for t in &staged[i..] {
                let _ = std::fs::remove_file(t);
            }
            list.retain(|p| !staged.contains(p));
            return Err(Error::io(path, e));
        }
    }
    list.retain(|p| !staged.contains(p));
    drop(list);
    for (path, _) in files {
        if let Ok((dir, _)) = split(path) {
            sync_dir(&dir);
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically (see [`write_file_with`]).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    write_file_with(path, |w| w.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn commit_replaces_the_whole_set() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let mut a = RunDir::begin(&out, RunInfo::new("t")).unwrap();
        a.write("a.csv", b"1").unwrap();
        a.write("b.csv", b"2").unwrap();
        a.commit().unwrap();
        let mut b = RunDir::begin(&out, RunInfo::new("t")).unwrap();
        b.write("a.csv", b"new").unwrap();
        b.commit().unwrap();
        // b.csv belonged to the previous set only: it must be gone, not mixed with the new set.
        assert_eq!(listing(&out), vec!["a.csv", "manifest.json"]);
        assert_eq!(std::fs::read(out.join("a.csv")).unwrap(), b"new");
        assert_eq!(listing(dir.path()), vec!["out"], "no staging left");
    }

    #[test]
    fn manifest_lists_files_with_checksums() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let mut info = RunInfo::new("simulate").scenario("x = 1\n");
        info.seed = Some(7);
        let mut r = RunDir::begin(&out, info).unwrap();
        r.write("s.csv", b"abc").unwrap();
        r.warn("something odd");
        r.commit().unwrap();
        let m: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join(MANIFEST)).unwrap()).unwrap();
        assert_eq!(m["command"], "simulate");
        assert_eq!(m["seed"], 7);
        // SHA-256("abc") from FIPS 180-2, Appendix B.1.
        assert_eq!(m["files"][0]["sha256"], "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(m["files"][0]["bytes"], 3);
        assert_eq!(m["warnings"][0], "something odd");
        // `printf 'x = 1\n' | sha256sum` (GNU coreutils 9.1).
        assert_eq!(m["scenario_sha256"], "9e26bf369911c45c243c684147b23fc9e1dcfcf257d299a1c632016a6fcd33f4");
    }

    #[test]
    fn dropped_run_leaves_previous_set() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let mut a = RunDir::begin(&out, RunInfo::new("t")).unwrap();
        a.write("a.csv", b"old").unwrap();
        a.commit().unwrap();
        {
            let mut b = RunDir::begin(&out, RunInfo::new("t")).unwrap();
            b.write("a.csv", b"half").unwrap();
            // dropped: an error happened
        }
        assert_eq!(std::fs::read(out.join("a.csv")).unwrap(), b"old");
        assert_eq!(listing(dir.path()), vec!["out"]);
    }

    #[test]
    fn leftovers_of_dead_runs_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        // What a killed run leaves: an unlocked staging directory and a temporary file.
        std::fs::create_dir(dir.path().join(".out.serpsim-staging-999999")).unwrap();
        std::fs::write(dir.path().join(".out.serpsim-staging-999999/x.csv"), "x").unwrap();
        let r = RunDir::begin(&out, RunInfo::new("t")).unwrap();
        r.commit().unwrap();
        assert_eq!(listing(dir.path()), vec!["out"]);
        let f = dir.path().join("model.json");
        std::fs::write(dir.path().join(".model.json.serpsim-tmp-999999"), "x").unwrap();
        write_file(&f, b"{}").unwrap();
        assert_eq!(listing(dir.path()), vec!["model.json", "out"]);
    }

    #[test]
    fn separate_files_are_written_as_one_set() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
        write_files(&[(&a, b"a1"), (&b, b"b1")]).unwrap();
        assert_eq!((std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap()), (b"a1".to_vec(), b"b1".to_vec()));
        // The second file cannot be written (its folder is a file): the first keeps its old
        // bytes and no temporary file stays.
        std::fs::write(dir.path().join("plain"), "x").unwrap();
        let bad = dir.path().join("plain/c.csv");
        assert!(write_files(&[(&a, b"a2"), (&bad, b"c2")]).is_err());
        assert_eq!(std::fs::read(&a).unwrap(), b"a1");
        assert_eq!(listing(dir.path()), vec!["a.csv", "b.csv", "plain"]);
        // The same path twice is refused before anything is written.
        assert!(write_files(&[(&a, b"a3"), (&a, b"a4")]).unwrap_err().to_string().contains("two outputs"));
        assert_eq!(std::fs::read(&a).unwrap(), b"a1");
        // A temporary file of an earlier version whose process is gone is removed.
        std::fs::write(dir.path().join(".b.csv.tmp999999999"), "old").unwrap();
        write_files(&[(&a, b"a5"), (&b, b"b5")]).unwrap();
        assert_eq!(listing(dir.path()), vec!["a.csv", "b.csv", "plain"]);
        assert_eq!(std::fs::read(&b).unwrap(), b"b5");
    }

    #[test]
    fn refuses_a_directory_with_foreign_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let err = RunDir::begin(dir.path(), RunInfo::new("t")).unwrap_err().to_string();
        assert!(err.contains("did not write"), "{err}");
        let file = dir.path().join("notes.txt");
        assert!(RunDir::begin(&file, RunInfo::new("t")).unwrap_err().to_string().contains("not a directory"));
        // An empty directory is fine.
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        RunDir::begin(&empty, RunInfo::new("t")).unwrap().commit().unwrap();
    }

    #[test]
    fn bad_names_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = RunDir::begin(&dir.path().join("o"), RunInfo::new("t")).unwrap();
        assert!(r.write("../x", b"").is_err());
        assert!(r.write("/tmp/x", b"").is_err());
        r.write("sub/x.csv", b"ok").unwrap();
    }

    #[test]
    fn recorded_args_leave_out_threads_and_out() {
        // Hand-written: every spelling of --threads and --out goes with its value; the rest stays in order.
        let a = |v: &[&str]| recorded_args(v.iter().map(|x| x.to_string()));
        let kept = ["clicks", "validate", "--seed", "3", "--train", "t.tsv"];
        assert_eq!(a(&["serpsim", "clicks", "validate", "--threads", "2", "--seed", "3", "--out", "x", "--train", "t.tsv"]), kept);
        assert_eq!(a(&["serpsim", "clicks", "validate", "--threads=1", "--seed", "3", "--out=y/z", "--train", "t.tsv"]), kept);
        assert_eq!(a(&["serpsim", "clicks", "validate", "--seed", "3", "-o", "x", "--train", "t.tsv", "-oq"]), kept);
    }

    #[test]
    fn an_input_is_not_an_output() {
        let dir = tempfile::tempdir().unwrap();
        let q = dir.path().join("qrels");
        std::fs::write(&q, "x").unwrap();
        let other = dir.path().join("other");
        // The same file by another spelling (`sub/../qrels`) and an input inside an output directory.
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let err = refuse_input_as_output(&dir.path().join("sub/../qrels"), &[&other, &q]).unwrap_err().to_string();
        assert!(err.contains("also an input") && err.contains("qrels"), "{err}");
        assert!(refuse_input_as_output(dir.path(), &[&q]).is_err());
        refuse_input_as_output(&other, &[&q, Path::new("-")]).unwrap();
        refuse_input_as_output(&dir.path().join("sub"), &[&q]).unwrap();
    }
}
