//! Parse once (issue 28): the interned sessions of a click log in a compact binary form, kept
//! in memory up to a budget and spilled to a temporary file beyond it, so that the later
//! passes of a multi-pass fit (and the evaluation passes of `clicks eval`) replay ids instead
//! of parsing the text again.
//!
//! **Form.** Sessions are stored in blocks (a block is cut at about 1 MiB, or is one byte range
//! of a parallel first pass). In a block, a session is a LEB128 header `len << 1 | same`,
//! then, unless `same` (the query and result list of the session before it in the block,
//! repeated), the query index and `len` pair indices as little-endian `u32`, then the clicks
//! as `ceil(len / 8)` bytes of bits (rank `r` is bit `r % 8` of byte `r / 8`). Ten results
//! take 47 bytes, or 3 when the SERP repeats the one before.
//!
//! **Memory.** Blocks stay in memory while their total is at most the budget
//! ([`DEFAULT_MEMORY_BUDGET`], at most [`MAX_MEMORY_BUDGET`]); the first block that would
//! exceed it moves every block to a spill file in the temporary directory (or a given one),
//! and every later block is appended there. On Unix the spill file is unlinked as soon as it
//! is created and then used through its open handle (positional reads, safe from several
//! threads), so the operating system frees it when the process ends, however it ends (a
//! SIGKILL included, issue 42); a run that is killed in the microseconds between creating and
//! unlinking it leaves a `.serpsim-sessions-PID-N.bin` that the next run that keeps sessions removes
//! ([`crate::output::remove_stale_temps`]). Elsewhere the file is removed when the store is
//! dropped (success or error) and, being registered with [`crate::output`], on Ctrl-C.
//! Memory is then the budget plus the blocks being read by the worker threads.
//!
//! **Passes.** A pass replays the blocks in order; [`StoredRange`] replays a range of
//! sessions, split into one part per block for the parallel E-step. Replayed sessions are the
//! sessions read, with the same ids, so statistics summed exactly are the same bits.

use super::{SessionPart, SessionRef, SessionSource};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Default memory budget of the stored sessions (1 GiB).
pub const DEFAULT_MEMORY_BUDGET: u64 = 1 << 30;
/// Largest memory budget accepted (1 TiB).
pub const MAX_MEMORY_BUDGET: u64 = 1 << 40;
/// A block is closed at this size (sequential passes).
pub(crate) const BLOCK_BYTES: usize = 1 << 20;

/// Parses a memory budget: bytes, or a number with the suffix K, M, G or T (binary: 1 K =
/// 1024 bytes), at most [`MAX_MEMORY_BUDGET`]. `0` stores every session in the spill file.
///
/// ```
/// use serpsim::logs::stored::parse_budget;
/// assert_eq!(parse_budget("1G").unwrap(), 1 << 30);
/// assert_eq!(parse_budget("64M").unwrap(), 64 << 20);
/// assert_eq!(parse_budget("0").unwrap(), 0);
/// assert!(parse_budget("2T").is_err());
/// ```
pub fn parse_budget(s: &str) -> Result<u64> {
    let t = s.trim();
    let (digits, shift) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 10),
        Some('M') => (&t[..t.len() - 1], 20),
        Some('G') => (&t[..t.len() - 1], 30),
        Some('T') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let bad = || Error::Invalid(format!("--memory-budget `{s}`: expected bytes or a number with K, M, G or T (such as 512M or 1G)"));
    let n: u64 = digits.trim().parse().map_err(|_| bad())?;
    let bytes = n.checked_mul(1u64 << shift).ok_or_else(bad)?;
    crate::limits::check_count("clicks", "--memory-budget", bytes, MAX_MEMORY_BUDGET, "bytes of stored sessions")?;
    Ok(bytes)
}

/// Where the stored sessions may live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreConfig {
    /// Most bytes kept in memory; beyond, every block goes to the spill file.
    pub memory_budget: u64,
    /// Directory of the spill file (default: the system's temporary directory, `TMPDIR`).
    pub spill_dir: Option<PathBuf>,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig { memory_budget: DEFAULT_MEMORY_BUDGET, spill_dir: None }
    }
}

/// Appends sessions to a block in the stored form.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    pub(crate) buf: Vec<u8>,
    pub(crate) sessions: u64,
    pub(crate) max_len: usize,
    prev_query: u32,
    prev_pairs: Vec<u32>,
    primed: bool,
}

impl Encoder {
    /// Appends one session.
    pub(crate) fn push(&mut self, s: SessionRef<'_>) {
        let n = s.pairs.len();
        let same = self.primed && s.query == self.prev_query && s.pairs == self.prev_pairs.as_slice();
        let mut h = (n as u64) << 1 | u64::from(same);
        while h >= 0x80 {
            self.buf.push((h as u8) | 0x80);
            h >>= 7;
        }
        self.buf.push(h as u8);
        if !same {
            self.buf.extend_from_slice(&s.query.to_le_bytes());
            for p in s.pairs {
                self.buf.extend_from_slice(&p.to_le_bytes());
            }
            self.prev_query = s.query;
            self.prev_pairs.clear();
            self.prev_pairs.extend_from_slice(s.pairs);
            self.primed = true;
        }
        for chunk in s.clicks.chunks(8) {
            let mut b = 0u8;
            for (i, &c) in chunk.iter().enumerate() {
                b |= u8::from(c) << i;
            }
            self.buf.push(b);
        }
        self.sessions += 1;
        self.max_len = self.max_len.max(n);
    }

    /// Renumbers the block's query and pair indices in place (`queries[q]`, `pairs[p]`).
    pub(crate) fn remap(&mut self, queries: &[u32], pairs: &[u32]) {
        let buf = &mut self.buf;
        let mut at = 0;
        while at < buf.len() {
            let (h, used) = super::read_uleb128(&buf[at..]).expect("a block written by the encoder");
            at += used;
            let n = (h >> 1) as usize;
            if h & 1 == 0 {
                let q = u32::from_le_bytes(buf[at..at + 4].try_into().expect("4 bytes"));
                buf[at..at + 4].copy_from_slice(&queries[q as usize].to_le_bytes());
                at += 4;
                for _ in 0..n {
                    let p = u32::from_le_bytes(buf[at..at + 4].try_into().expect("4 bytes"));
                    buf[at..at + 4].copy_from_slice(&pairs[p as usize].to_le_bytes());
                    at += 4;
                }
            }
            at += n.div_ceil(8);
        }
        if self.primed {
            self.prev_query = queries[self.prev_query as usize];
            for p in &mut self.prev_pairs {
                *p = pairs[*p as usize];
            }
        }
    }
}

/// Replays the first `skip + take` sessions of a block, calling `f` on the last `take`.
fn decode(bytes: &[u8], skip: u64, take: u64, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()> {
    let corrupt = || Error::Invalid("stored sessions: a block is corrupt (the spill file was changed during the run?)".into());
    let (mut query, mut pairs, mut clicks) = (0u32, Vec::<u32>::new(), Vec::<bool>::new());
    let mut at = 0;
    for i in 0..skip + take {
        let (h, used) = super::read_uleb128(bytes.get(at..).ok_or_else(corrupt)?).map_err(|_| corrupt())?;
        at += used;
        let n = (h >> 1) as usize;
        if h & 1 == 0 {
            let need = 4 * (n + 1);
            let b = bytes.get(at..at + need).ok_or_else(corrupt)?;
            query = u32::from_le_bytes(b[..4].try_into().expect("4 bytes"));
            pairs.clear();
            pairs.extend(b[4..].chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))));
            at += need;
        } else if pairs.len() != n {
            return Err(corrupt());
        }
        let nb = n.div_ceil(8);
        let bits = bytes.get(at..at + nb).ok_or_else(corrupt)?;
        at += nb;
        if i >= skip {
            clicks.clear();
            clicks.extend((0..n).map(|r| bits[r / 8] >> (r % 8) & 1 == 1));
            f(SessionRef { query, pairs: &pairs, clicks: &clicks });
        }
    }
    Ok(())
}

#[derive(Debug)]
enum Data {
    Memory(Vec<u8>),
    Disk { offset: u64, len: usize },
}

#[derive(Debug)]
struct Block {
    data: Data,
    /// Index of the block's first session in the store.
    first: u64,
    sessions: u64,
}

/// The spill file: on Unix already unlinked (the handle is all there is); elsewhere removed
/// when dropped, and on Ctrl-C (registered with [`crate::output`]).
#[derive(Debug)]
struct Spill {
    /// Where it was created (for messages).
    path: PathBuf,
    file: std::fs::File,
    len: u64,
}

impl Drop for Spill {
    fn drop(&mut self) {
        if cfg!(not(unix)) {
            let _ = std::fs::remove_file(&self.path);
            crate::output::forget_temp(&self.path);
        }
    }
}

/// The prefix of spill file names, `.serpsim-sessions-PID-N.bin`.
const SPILL_PREFIX: &str = ".serpsim-sessions-";

/// Interned sessions of a log, in memory up to a budget and in a spill file beyond it (see
/// the module).
#[derive(Debug)]
pub struct StoredSessions {
    cfg: StoreConfig,
    blocks: Vec<Block>,
    sessions: u64,
    max_len: usize,
    bytes: u64,
    memory: u64,
    spill: Option<Spill>,
}

impl StoredSessions {
    /// An empty store. Spill files of killed runs left in its spill directory are removed
    /// first ([`crate::output::remove_stale_temps`]).
    pub fn new(cfg: StoreConfig) -> Self {
        crate::output::remove_stale_temps(&cfg.spill_dir.clone().unwrap_or_else(std::env::temp_dir), SPILL_PREFIX);
        StoredSessions { cfg, blocks: Vec::new(), sessions: 0, max_len: 0, bytes: 0, memory: 0, spill: None }
    }

    /// Sessions stored.
    pub fn len(&self) -> u64 {
        self.sessions
    }

    /// True without sessions.
    pub fn is_empty(&self) -> bool {
        self.sessions == 0
    }

    /// Longest result list stored.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// Bytes of the stored form (in memory and spilled).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Bytes held in memory.
    pub fn memory_bytes(&self) -> u64 {
        self.memory
    }

    /// The spill file, when the budget was exceeded.
    pub fn spill_path(&self) -> Option<&Path> {
        self.spill.as_ref().map(|s| s.path.as_path())
    }

    /// Adds the sessions encoded in `enc` (a whole block) after those stored.
    pub(crate) fn push_block(&mut self, enc: Encoder) -> Result<()> {
        if enc.sessions == 0 {
            return Ok(());
        }
        let len = enc.buf.len() as u64;
        let block = Block { data: Data::Memory(enc.buf), first: self.sessions, sessions: enc.sessions };
        self.sessions += enc.sessions;
        self.max_len = self.max_len.max(enc.max_len);
        self.bytes += len;
        self.blocks.push(block);
        if self.spill.is_none() && self.memory + len <= self.cfg.memory_budget {
            self.memory += len;
            return Ok(());
        }
        if self.spill.is_none() {
            self.open_spill()?;
        }
        // Every block still in memory goes to the spill file.
        let spill = self.spill.as_mut().expect("opened");
        for b in &mut self.blocks {
            if let Data::Memory(bytes) = &b.data {
                use std::io::Write;
                spill.file.write_all(bytes).map_err(|e| Error::io(&spill.path, e))?;
                let offset = spill.len;
                spill.len += bytes.len() as u64;
                b.data = Data::Disk { offset, len: bytes.len() };
            }
        }
        self.memory = 0;
        Ok(())
    }

    fn open_spill(&mut self) -> Result<()> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = self.cfg.spill_dir.clone().unwrap_or_else(std::env::temp_dir);
        let path = dir.join(format!("{SPILL_PREFIX}{}-{}.bin", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
        crate::output::register_temp(&path);
        let file = std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path);
        match file {
            Ok(file) => {
                // Unlinked at once: the open handle keeps the data, and the operating system
                // frees it when the process ends, however it ends.
                #[cfg(unix)]
                {
                    let removed = std::fs::remove_file(&path);
                    crate::output::forget_temp(&path);
                    removed.map_err(|e| Error::io(&path, e))?;
                }
                self.spill = Some(Spill { path, file, len: 0 });
                Ok(())
            }
            Err(e) => {
                crate::output::forget_temp(&path);
                Err(Error::Invalid(format!(
                    "{}: cannot create the spill file of the stored sessions ({e}); give a larger --memory-budget or set TMPDIR",
                    path.display()
                )))
            }
        }
    }

    /// The bytes of block `i` (read from the spill file when spilled).
    fn block_bytes(&self, i: usize) -> Result<std::borrow::Cow<'_, [u8]>> {
        match &self.blocks[i].data {
            Data::Memory(b) => Ok(std::borrow::Cow::Borrowed(b)),
            Data::Disk { offset, len } => {
                let spill = self.spill.as_ref().expect("spilled blocks have a spill file");
                let mut bytes = vec![0u8; *len];
                // Positional reads on the one handle (the file has no name any more), so parts
                // can be read on several threads at once.
                #[cfg(unix)]
                std::os::unix::fs::FileExt::read_exact_at(&spill.file, &mut bytes, *offset).map_err(|e| Error::io(&spill.path, e))?;
                #[cfg(not(unix))]
                {
                    use std::io::{Read, Seek, SeekFrom};
                    let mut file = std::fs::File::open(&spill.path).map_err(|e| Error::io(&spill.path, e))?;
                    file.seek(SeekFrom::Start(*offset)).map_err(|e| Error::io(&spill.path, e))?;
                    file.read_exact(&mut bytes).map_err(|e| Error::io(&spill.path, e))?;
                }
                Ok(std::borrow::Cow::Owned(bytes))
            }
        }
    }

    /// Calls `f` on sessions `range` in order.
    pub fn replay(&self, range: std::ops::Range<u64>, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()> {
        for (i, skip, take) in self.pieces(range.clone()) {
            crate::interrupt::check()?;
            decode(&self.block_bytes(i)?, skip, take, f)?;
        }
        Ok(())
    }

    /// (block, sessions skipped at its start, sessions taken) covering `range`.
    fn pieces(&self, range: std::ops::Range<u64>) -> Vec<(usize, u64, u64)> {
        let end = range.end.min(self.sessions);
        let first = self.blocks.partition_point(|b| b.first + b.sessions <= range.start);
        let mut out = Vec::new();
        for (i, b) in self.blocks.iter().enumerate().skip(first) {
            if b.first >= end {
                break;
            }
            let skip = range.start.saturating_sub(b.first);
            let take = (end.min(b.first + b.sessions)) - (b.first + skip);
            out.push((i, skip, take));
        }
        out
    }

    /// Sessions `range` as a [`SessionSource`] (every pass replays them; parts by block).
    pub fn range(&self, range: std::ops::Range<u64>) -> StoredRange<'_> {
        StoredRange { store: self, range, hint: std::cell::Cell::new(None) }
    }

    /// The parts of a pass over sessions `range`, one per block.
    pub(crate) fn parts(&self, range: std::ops::Range<u64>) -> Vec<Box<dyn SessionPart + '_>> {
        self.pieces(range).into_iter().map(|(block, skip, take)| Box::new(StoredPart { store: self, block, skip, take }) as Box<dyn SessionPart>).collect()
    }
}

/// Sessions of one block (see [`StoredSessions::parts`]).
struct StoredPart<'a> {
    store: &'a StoredSessions,
    block: usize,
    skip: u64,
    take: u64,
}

impl SessionPart for StoredPart<'_> {
    fn replay(&self, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()> {
        crate::interrupt::check()?;
        decode(&self.store.block_bytes(self.block)?, self.skip, self.take, f)
    }
}

/// A range of stored sessions as a [`SessionSource`] (see [`StoredSessions::range`]).
pub struct StoredRange<'a> {
    store: &'a StoredSessions,
    range: std::ops::Range<u64>,
    hint: std::cell::Cell<Option<usize>>,
}

impl StoredRange<'_> {
    /// Sessions in the range.
    pub fn len(&self) -> u64 {
        self.range.end.min(self.store.sessions).saturating_sub(self.range.start)
    }

    /// True without sessions.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl SessionSource for StoredRange<'_> {
    fn pass(&mut self, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()> {
        self.store.replay(self.range.clone(), f)
    }
    /// The highest pair index in the range plus one, as for an in-memory log of the same
    /// sessions (one replay, the first time it is asked).
    fn pair_count_hint(&self) -> usize {
        if let Some(h) = self.hint.get() {
            return h;
        }
        let mut max: Option<u32> = None;
        // A failed replay (an unreadable spill file) leaves the hint short; the pass that follows
        // reads the same blocks and returns the error, so nothing is fitted from it.
        let _ = self.store.replay(self.range.clone(), &mut |s| {
            if let Some(&m) = s.pairs.iter().max() {
                max = Some(max.map_or(m, |x| x.max(m)));
            }
        });
        let h = max.map_or(0, |m| m as usize + 1);
        self.hint.set(Some(h));
        h
    }
    fn parts(&mut self) -> Result<Option<Vec<Box<dyn SessionPart + '_>>>> {
        Ok(Some(self.store.parts(self.range.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::ClickLog;

    /// A log with repeated and new SERPs, lengths 0 to 19 (more than 8 and 16 ranks).
    fn log() -> ClickLog {
        let mut log = ClickLog::new();
        for i in 0..500u32 {
            let n = (i % 20) as usize;
            let pairs: Vec<u32> = (0..n as u32).map(|r| (i / 3) * 7 + r).collect();
            let clicks: Vec<bool> = (0..n).map(|r| (i as usize * 31 + r * 7).is_multiple_of(5)).collect();
            log.push(i / 3, &pairs, &clicks);
            if i % 4 == 0 {
                log.push(i / 3, &pairs, &clicks.iter().map(|c| !c).collect::<Vec<_>>());
            }
        }
        log
    }

    fn store(log: &ClickLog, block: usize, budget: u64, dir: Option<&Path>) -> StoredSessions {
        let mut st = StoredSessions::new(StoreConfig { memory_budget: budget, spill_dir: dir.map(Path::to_path_buf) });
        let mut enc = Encoder::default();
        for s in log.iter() {
            enc.push(s);
            if enc.sessions as usize == block {
                st.push_block(std::mem::take(&mut enc)).unwrap();
            }
        }
        st.push_block(enc).unwrap();
        st
    }

    fn replayed(st: &StoredSessions, range: std::ops::Range<u64>) -> ClickLog {
        let mut out = ClickLog::new();
        st.replay(range, &mut |s| out.push(s.query, s.pairs, s.clicks)).unwrap();
        out
    }

    #[test]
    fn replays_the_sessions_stored_in_memory_and_spilled() {
        let log = log();
        let dir = tempfile::tempdir().unwrap();
        for (block, budget) in [(1000, u64::MAX), (37, u64::MAX), (37, 2000), (37, 0)] {
            let st = store(&log, block, budget, Some(dir.path()));
            assert_eq!(st.len(), log.len() as u64);
            assert_eq!(st.max_len(), 19);
            assert_eq!(replayed(&st, 0..st.len()), log, "block {block} budget {budget}");
            // Ranges that cut blocks.
            for (a, b) in [(0, 1), (36, 38), (100, 400), (500, 10_000)] {
                let want = log.subset(a.min(log.len())..b.min(log.len()));
                assert_eq!(replayed(&st, a as u64..b as u64), want, "{a}..{b}");
                let mut parts = ClickLog::new();
                for p in st.parts(a as u64..b as u64) {
                    p.replay(&mut |s| parts.push(s.query, s.pairs, s.clicks)).unwrap();
                }
                assert_eq!(parts, want, "parts {a}..{b}");
            }
            assert_eq!(st.spill_path().is_some(), budget < u64::MAX, "block {block} budget {budget}");
            assert!(st.memory_bytes() <= budget);
            // The spill file has no name while the store is alive (unlinked after opening, so
            // that a SIGKILL cannot leave it behind; issue 42), and the replays above read it.
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "block {block} budget {budget}");
        }
        // Every spill file was removed with its store.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn spill_files_of_dead_processes_are_removed_by_the_next_store() {
        // A dead PID: a child that has exited and been waited for (its /proc entry is gone).
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(format!(".serpsim-sessions-{dead}-0.bin"));
        // Kept: a live process's file (PID 1 always runs), this process's own, and files
        // that only look alike.
        let kept = [
            dir.path().join(".serpsim-sessions-1-0.bin"),
            dir.path().join(format!(".serpsim-sessions-{}-7.bin", std::process::id())),
            dir.path().join(".serpsim-sessions-x-0.bin"),
            dir.path().join("serpsim-sessions-99999999-0.bin"),
        ];
        for p in kept.iter().chain([&stale]) {
            std::fs::write(p, b"left by a killed run").unwrap();
        }
        let _st = StoredSessions::new(StoreConfig { memory_budget: 0, spill_dir: Some(dir.path().to_path_buf()) });
        assert!(!stale.exists(), "the dead process's spill file is removed");
        for p in &kept {
            assert!(p.exists(), "{} is kept", p.display());
        }
    }

    #[test]
    fn a_repeated_serp_costs_its_header_and_clicks() {
        // Hand count: 10 results take 1 + 4 + 40 + 2 = 47 bytes; the same SERP again 1 + 2.
        let mut enc = Encoder::default();
        let pairs: Vec<u32> = (0..10).collect();
        let clicks = [true, false, false, false, false, false, false, false, false, true];
        enc.push(SessionRef { query: 3, pairs: &pairs, clicks: &clicks });
        assert_eq!(enc.buf.len(), 47);
        enc.push(SessionRef { query: 3, pairs: &pairs, clicks: &clicks });
        assert_eq!(enc.buf.len(), 50);
        assert_eq!(&enc.buf[48..], &[0b0000_0001, 0b0000_0010]);
    }

    #[test]
    fn remap_renumbers_queries_and_pairs() {
        let log = log();
        let mut enc = Encoder::default();
        for s in log.iter() {
            enc.push(s);
        }
        let queries: Vec<u32> = (0..200).map(|q| 1000 - q).collect();
        let pairs: Vec<u32> = (0..2000).map(|p| p * 3 + 1).collect();
        enc.remap(&queries, &pairs);
        let mut st = StoredSessions::new(StoreConfig::default());
        st.push_block(enc).unwrap();
        let got = replayed(&st, 0..st.len());
        for (a, b) in got.iter().zip(log.iter()) {
            assert_eq!(a.query, queries[b.query as usize]);
            assert_eq!(a.pairs, b.pairs.iter().map(|&p| pairs[p as usize]).collect::<Vec<_>>());
            assert_eq!(a.clicks, b.clicks);
        }
        assert_eq!(got.len(), log.len());
    }

    #[test]
    fn budgets_are_parsed_and_bounded() {
        assert_eq!(parse_budget("1024").unwrap(), 1024);
        assert_eq!(parse_budget("3k").unwrap(), 3072);
        assert_eq!(parse_budget("1T").unwrap(), 1 << 40);
        for bad in ["", "G", "-1", "1.5G", "1X", "99999999999999999999"] {
            assert!(parse_budget(bad).is_err(), "{bad}");
        }
        assert!(parse_budget("1025G").unwrap_err().to_string().contains("upper bound"));
    }

    /// [`FileSource`] without parse-once: every pass parses the text again (the fit before
    /// parse-once), as the reference the stored replays must equal.
    struct Reparse(crate::logs::FileSource);

    impl SessionSource for Reparse {
        fn pass(&mut self, f: &mut dyn FnMut(SessionRef<'_>)) -> Result<()> {
            self.0.pass(f)
        }
        fn pair_count_hint(&self) -> usize {
            self.0.pair_count_hint()
        }
        fn parts(&mut self) -> Result<Option<Vec<Box<dyn SessionPart + '_>>>> {
            self.0.parts()
        }
        fn as_file_source(&mut self) -> Option<&mut crate::logs::FileSource> {
            Some(&mut self.0)
        }
    }

    #[test]
    fn fits_from_stored_sessions_are_the_bits_of_the_reparsing_fit() {
        // The project's synthetic log (3.5 MB, 30,000 sessions): the first pass is cut into
        // byte ranges of 64 KiB and more, so blocks come from many parts. For every EM model,
        // with fixed passes and with the default tolerance (SQUAREM), at 1, 2 and 3 threads:
        // kept in memory, spilled (budget 0 and a budget that is exceeded midway) and the
        // in-memory log must give the model of the re-parsing fit, bit for bit.
        use crate::clickmodels::{driver, EmConfig, EmState, ModelConfig, ModelKind};
        use crate::logs::{FileSource, Format, LogData};
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("study_logs/clicks/synthetic_yandex_layout.txt");
        let dir = tempfile::tempdir().unwrap();
        let data = LogData::read(&path, Format::Yandex, false).unwrap();
        for kind in [ModelKind::Dbn, ModelKind::Ubm, ModelKind::Ccm, ModelKind::Pbm] {
            for tolerance in [0.0, driver::DEFAULT_TOLERANCE] {
                let cfg = ModelConfig::new(kind, EmConfig { iterations: 6, tolerance });
                let fit = |src: &mut dyn SessionSource| {
                    let mut state = EmState::new(&cfg).unwrap();
                    let em = EmConfig { iterations: 6, tolerance };
                    driver::run(&mut state, &em, &driver::EmOptions::default(), src, &mut |_| {}).unwrap();
                    state.to_bytes()
                };
                let pool = |n: usize| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                let reference = pool(1).install(|| fit(&mut Reparse(FileSource::new(&path, Format::Yandex, false))));
                for threads in [1, 2, 3] {
                    for budget in [DEFAULT_MEMORY_BUDGET, 0, 200_000] {
                        let mut src = FileSource::new(&path, Format::Yandex, false);
                        src.store = StoreConfig { memory_budget: budget, spill_dir: Some(dir.path().to_path_buf()) };
                        let got = pool(threads).install(|| fit(&mut src));
                        let st = src.stored().expect("a multi-pass fit keeps the sessions");
                        assert_eq!(st.len(), 30_000);
                        assert_eq!(st.spill_path().is_some(), budget < DEFAULT_MEMORY_BUDGET, "{kind} budget {budget}");
                        assert!(got == reference, "{kind} tol {tolerance} threads {threads} budget {budget}");
                    }
                    let got = pool(threads).install(|| fit(&mut &data.log));
                    assert!(got == reference, "{kind} tol {tolerance} threads {threads} in memory");
                }
            }
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "spill files left behind");
    }
}
