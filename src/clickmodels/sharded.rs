//! The sharded EM fit (issue 41): memory bounded by a budget whatever the number of distinct
//! (query, document) pairs, the fitted model the same bits as the in-memory fit's.
//!
//! **Partition.** One pass over the log (any format [`read::for_each_session`] reads, also
//! compressed or standard input) writes every session, with its index in the log, to one of
//! `S` shard files in a temporary directory, chosen by a hash of its query id: a query's
//! sessions, and so its pairs, are all in one shard. Nothing but the open shard files' buffers
//! is held.
//!
//! **Build.** Each shard is read back alone: its queries, documents and pairs are numbered in
//! the order the log shows them (so the shard's pair numbers keep the order of the whole
//! log's), identical sessions (same query, results and clicks) are kept once with their count
//! (the *weight*), and the shard's sessions are written in a compact binary form; the pairs'
//! names go to a names file, with each pair's *key* (the index of the session that showed it
//! first, and its rank there), which orders pairs as the in-memory fit numbers them.
//!
//! **Passes.** An EM pass takes the shards one at a time per worker thread (in parallel): the
//! shard's pair parameters are read from its parameter file, its sessions replayed (a weight
//! `w` counts `w` times, exactly: the statistics are fixed-point sums, [`super::estep`]), its
//! pair parameters re-estimated and written back; the statistics of the query-independent
//! parameters (DBN's gamma, examination by rank, CCM's taus) and the log-likelihood are
//! summed over shards and their M-step made once. SQUAREM runs on the same loop as the
//! in-memory fit ([`driver::run_space`]); its step length is computed from order-independent
//! sums ([`driver::FineSum`]), so it does not depend on the shards.
//!
//! **Output.** The model file is written as [`io::full_text`] writes it: pairs in the
//! order of the whole log (a merge of the shards by key), so it is byte-identical to the
//! in-memory fit's, whatever the number of shards or threads (tests `sharded_fit_*`).
//!
//! **Memory.** A worker holds one shard: its sessions in the compact form and its pair tables
//! (parameters and statistics: [`pair_bytes`] per pair). The number of shards is chosen from
//! the log's size so that a shard per worker fits the budget ([`plan`]); a shard that does not
//! is refused with the numbers (raise the budget or the number of shards).

use super::driver::{self, EmOptions, EmReport, EmSpace, FineSum, PassInfo};
use super::ebprior::{EbTerms, PairPrior};
use super::estep::{to_fixed, EStats, Scratch};
use super::registry::pair_tables;
use super::state::EmState;
use super::{io, ModelConfig, ModelKind, PRIOR};
use crate::error::{Error, Result};
use crate::logs::read::{self, ReadOptions};
use crate::logs::{ReadReport, SessionRef, Vocab};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Most shards (each is an open file during the partition pass).
pub const MAX_SHARDS: usize = 4096;
/// Bits of a pair's key given to its rank (results per SERP below 2^25).
const RANK_BITS: u32 = 25;
/// Sessions a log may have in a sharded fit (the key holds the session index in 39 bits).
pub const MAX_SESSIONS: u64 = 1 << (64 - RANK_BITS);
/// A shard this small (pair tables and sessions, bytes) is taken whatever the budget.
const SMALL_SHARD: u64 = 16 << 20;
/// Write buffer of each shard file during the partition pass.
const SHARD_BUFFER: usize = 32 << 10;

/// How a sharded fit may use memory and disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardOptions {
    /// Most bytes of sessions and pair tables in memory, all workers together.
    pub memory_budget: u64,
    /// Directory of the temporary shard files (default: `TMPDIR`).
    pub dir: Option<PathBuf>,
    /// Number of shards (default: from the log's size and the budget, [`plan`]).
    pub shards: Option<usize>,
}

/// Bytes a worker holds per pair of its shard for `kind`: the parameters the pass starts
/// from and the ones it writes (8 bytes per pair parameter each), the statistics (two 16-byte
/// fixed-point sums per pair table), and SQUAREM's three points when the norms are taken.
pub fn pair_bytes(kind: ModelKind) -> u64 {
    let k = pair_tables(kind) as u64;
    k * (8 * 3 + 32)
}

/// The number of shards for a log of `input_bytes` bytes (text; compressed input counts six
/// times its size) fitted with `threads` workers under `budget`: each worker's shard holds
/// about `budget / (8 threads)` bytes of the log's text. Typical logs take 20 to 100 bytes of
/// text per distinct pair, so a shard's pair tables take well under its share of the budget.
pub fn plan(input_bytes: u64, budget: u64, threads: usize) -> usize {
    let share = (budget / (8 * threads.max(1) as u64)).max(1 << 20);
    (input_bytes.div_ceil(share) as usize).clamp(1, MAX_SHARDS)
}

/// Whether a streamed fit of a log of `input_bytes` bytes should be sharded under `budget`:
/// when the log's text is more than a quarter of the budget (its pair tables and names may
/// then not fit), or its size is unknown (standard input). Never with a budget of 0 (parse
/// once with every session in its spill file, as documented for `--memory-budget 0`).
pub fn wanted(input_bytes: Option<u64>, budget: u64) -> bool {
    if budget == 0 {
        return false;
    }
    match input_bytes {
        Some(b) => b.saturating_mul(4) > budget,
        None => true,
    }
}

/// Whether `cfg` can be fitted in shards: the EM models (dbn, ubm, ccm, pbm). SDBN and the
/// other counting models take one pass and are fitted by the parse-once path.
pub fn supports(cfg: &ModelConfig) -> bool {
    cfg.em_config().is_some() && cfg.kind() != ModelKind::Sdbn
}

/// Whether a fit or evaluation of `cfg` on logs of `input_bytes` (all of them; `None`: one is
/// standard input) is sharded: always with `--shards N > 0`, never with `--shards 0`, a model
/// that cannot be ([`supports`]) or a caller that asks for parse once (`fit --stream`), and
/// otherwise when [`wanted`] says so.
pub fn decide(cfg: &ModelConfig, shards: Option<usize>, input_bytes: Option<u64>, budget: u64, parse_once: bool) -> bool {
    match shards {
        Some(0) => false,
        Some(_) => true,
        None => !parse_once && supports(cfg) && wanted(input_bytes, budget),
    }
}

/// The bytes of the logs at `paths` (on disk, as stored), or `None` when one is not a
/// re-readable file (standard input, a pipe) or cannot be read.
pub fn logs_size(paths: &[&Path]) -> Option<u64> {
    paths.iter().try_fold(0u64, |acc, p| {
        if !crate::logs::is_rereadable(p) {
            return None;
        }
        std::fs::metadata(p).ok().map(|m| acc + m.len())
    })
}

/// What a sharded fit did.
#[derive(Debug, Clone)]
pub struct ShardedFit {
    /// How the EM passes ended.
    pub report: EmReport,
    /// The same, as the model file's `fit` key writes it.
    pub fit_summary: driver::FitSummary,
    /// What reading the log found.
    pub read: ReadReport,
    /// Sessions read.
    pub sessions: u64,
    /// Distinct sessions (query, results and clicks) kept.
    pub distinct_sessions: u64,
    /// Distinct (query, document) pairs.
    pub pairs: u64,
    /// Shards.
    pub shards: usize,
    /// Pairs of the largest shard.
    pub largest_shard_pairs: u64,
}

impl ShardedFit {
    /// Sessions per distinct session kept (1: no repeats).
    pub fn dedup_factor(&self) -> f64 {
        self.sessions as f64 / self.distinct_sessions.max(1) as f64
    }

    /// One line for the log of a run.
    pub fn summary(&self) -> String {
        format!(
            "sharded fit: {} shards; {} sessions kept as {} distinct (identical sessions counted once with their weight: factor {:.3}); {} query-document pairs, at most {} in a shard",
            self.shards,
            self.sessions,
            self.distinct_sessions,
            self.dedup_factor(),
            self.pairs,
            self.largest_shard_pairs
        )
    }
}

/// The temporary directory of a sharded fit: removed when dropped and on Ctrl-C.
struct WorkDir {
    path: PathBuf,
}

impl WorkDir {
    fn new(parent: Option<&Path>) -> Result<Self> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let parent = parent.map(Path::to_path_buf).unwrap_or_else(std::env::temp_dir);
        // The shard directories of processes that no longer run (killed fits: a fit that
        // ends, fails or is interrupted removes its own).
        crate::output::remove_stale_temps(&parent, ".serpsim-shards-");
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = parent.join(format!(".serpsim-shards-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).map_err(|e| Error::io(&path, e))?;
        crate::output::register_temp(&path);
        Ok(WorkDir { path })
    }
    fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        crate::output::forget_temp(&self.path);
    }
}

/// Appends `v` as LEB128 (the shard files' and the Spark shards' integers).
pub fn put_uleb(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn corrupt(path: &Path) -> Error {
    Error::Invalid(format!("{}: a temporary shard file is corrupt (changed during the run?)", path.display()))
}

/// Reads a LEB128 number at `*at`.
fn get_uleb(b: &[u8], at: &mut usize, path: &Path) -> Result<u64> {
    let (v, used) = crate::logs::read_uleb128(&b[(*at).min(b.len())..]).map_err(|_| corrupt(path))?;
    *at += used;
    Ok(v)
}

fn get_u32(b: &[u8], at: &mut usize, path: &Path) -> Result<u32> {
    let s = b.get(*at..*at + 4).ok_or_else(|| corrupt(path))?;
    *at += 4;
    Ok(u32::from_le_bytes(s.try_into().expect("4 bytes")))
}

fn get_bytes<'a>(b: &'a [u8], at: &mut usize, n: usize, path: &Path) -> Result<&'a [u8]> {
    let s = b.get(*at..at.checked_add(n).ok_or_else(|| corrupt(path))?).ok_or_else(|| corrupt(path))?;
    *at += n;
    Ok(s)
}

/// The shard of a query id: FNV-1a, mixed (SplitMix64's finaliser).
fn shard_of(query: &str, shards: usize) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in query.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    (h % shards as u64) as usize
}

/// One shard after its build.
#[derive(Debug, Clone)]
struct Shard {
    /// Distinct pairs.
    pairs: usize,
    /// Bytes of its sessions file.
    session_bytes: u64,
}

/// A point of the sharded fit: the version of every shard's parameter file, the
/// query-independent parameters, and the length of each shard's pair vectors with the key of
/// the pair that ends each (the shape of the whole table, as the in-memory fit sees it).
#[derive(Debug, Clone)]
struct Point {
    version: u64,
    /// The query-independent parameters (pair vectors empty).
    global: EmState,
    /// Per pair vector: the largest key + 1 over the shards' last entries (0: empty), which
    /// orders like the in-memory vector's length.
    shape: Vec<u64>,
    /// With a fitted prior: the priors ([`super::ebprior`]).
    prior: Option<PairPrior>,
}

impl Point {
    /// The value of an entry missing from a shard's vector `t` (a pair without data in that
    /// table): 0.5 with Beta(1, 1), the prior mean with a fitted prior.
    fn fill(&self, t: usize) -> f64 {
        self.prior.as_ref().map_or(PRIOR, |p| p.mean(t))
    }
}

struct Sharded<'a> {
    dir: &'a WorkDir,
    shards: &'a [Shard],
    next_version: u64,
    top: Option<f64>,
}

impl Sharded<'_> {
    fn params_path(&self, shard: usize, version: u64) -> PathBuf {
        self.dir.file(&format!("s{shard}.v{version}"))
    }

    fn save(&self, shard: usize, version: u64, vecs: &[Vec<f64>]) -> Result<()> {
        let path = self.params_path(shard, version);
        let mut out = Vec::with_capacity(vecs.iter().map(|v| 4 + 8 * v.len()).sum());
        for v in vecs {
            out.extend_from_slice(&(v.len() as u32).to_le_bytes());
            for x in v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        std::fs::write(&path, out).map_err(|e| Error::io(&path, e))
    }

    /// The pair vectors of `shard` at `p` (empty vectors for the starting point).
    fn load(&self, shard: usize, p: &Point) -> Result<Vec<Vec<f64>>> {
        let n = p.shape.len();
        if p.version == 0 {
            return Ok(vec![Vec::new(); n]);
        }
        let path = self.params_path(shard, p.version);
        let b = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let mut at = 0;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let len = get_u32(&b, &mut at, &path)? as usize;
            let raw = get_bytes(&b, &mut at, len * 8, &path)?;
            out.push(raw.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect());
        }
        Ok(out)
    }

    /// The key of pair `i` of `shard`.
    fn key(&self, shard: usize, i: usize) -> Result<u64> {
        use std::io::{Seek, SeekFrom};
        let path = self.dir.file(&format!("s{shard}.keys"));
        let mut f = File::open(&path).map_err(|e| Error::io(&path, e))?;
        f.seek(SeekFrom::Start(i as u64 * 8)).map_err(|e| Error::io(&path, e))?;
        let mut b = [0u8; 8];
        f.read_exact(&mut b).map_err(|e| Error::io(&path, e))?;
        Ok(u64::from_le_bytes(b))
    }

    /// The shape of a point from its shards' vector lengths.
    fn shape(&self, lens: &[Vec<u32>], vectors: usize) -> Result<Vec<u64>> {
        let mut shape = vec![0u64; vectors];
        for (s, l) in lens.iter().enumerate() {
            for (k, &n) in l.iter().enumerate() {
                if n > 0 {
                    shape[k] = shape[k].max(self.key(s, n as usize - 1)? + 1);
                }
            }
        }
        Ok(shape)
    }

    fn new_version(&mut self) -> u64 {
        self.next_version += 1;
        self.next_version
    }
}

/// Largest absolute change between two lists of pair vectors (a missing entry is the prior).
fn vec_change(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let mut m = 0.0f64;
    for (x, y) in a.iter().zip(b) {
        for j in 0..x.len().max(y.len()) {
            m = m.max((x.get(j).copied().unwrap_or(PRIOR) - y.get(j).copied().unwrap_or(PRIOR)).abs());
        }
    }
    m
}

/// Replays a shard's sessions file (`weight`, the session).
fn replay(path: &Path, f: &mut dyn FnMut(u64, SessionRef<'_>)) -> Result<()> {
    let b = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let (mut pairs, mut clicks) = (Vec::new(), Vec::new());
    let mut at = 0;
    while at < b.len() {
        let w = get_uleb(&b, &mut at, path)?;
        let n = get_uleb(&b, &mut at, path)? as usize;
        if n > b.len() {
            return Err(corrupt(path));
        }
        let q = get_u32(&b, &mut at, path)?;
        pairs.clear();
        for _ in 0..n {
            pairs.push(get_u32(&b, &mut at, path)?);
        }
        let bits = get_bytes(&b, &mut at, n.div_ceil(8), path)?;
        clicks.clear();
        clicks.extend((0..n).map(|r| bits[r / 8] >> (r % 8) & 1 == 1));
        f(w, SessionRef { query: q, pairs: &pairs, clicks: &clicks });
    }
    Ok(())
}

/// What one shard's pass returns.
struct ShardPass {
    global: EStats,
    terms: Option<EbTerms>,
    change: f64,
    lens: Vec<u32>,
}

impl EmSpace for Sharded<'_> {
    type Point = Point;

    fn step(&mut self, from: &Point, want_ll: bool) -> Result<(Point, f64, f64)> {
        let version = self.new_version();
        let this = &*self;
        let kind = from.global.kind();
        let k = pair_tables(kind);
        let results: Vec<ShardPass> = (0..this.shards.len())
            .into_par_iter()
            .with_max_len(1)
            .map(|s| -> Result<ShardPass> {
                crate::interrupt::check()?;
                let mut state = from.global.clone();
                let vecs = this.load(s, from)?;
                state.put_pair_vecs(vecs);
                let mut stats = EStats::new(kind, this.shards[s].pairs);
                if from.prior.is_some() {
                    stats.add_eb_tables(this.shards[s].pairs);
                }
                let (mut buf, mut probs) = (Scratch::default(), Vec::new());
                let mut ll = 0i128;
                let mut weight = 1;
                replay(&this.dir.file(&format!("s{s}.sessions")), &mut |w, sess| {
                    if w != weight {
                        stats.set_weight(w);
                        weight = w;
                    }
                    state.accumulate_with(sess, &mut stats, &mut buf);
                    if want_ll {
                        ll += to_fixed(driver::session_log_likelihood(&state, sess, &mut probs)) * i128::from(w);
                    }
                })?;
                stats.log_likelihood.0 = ll;
                let (mut next, terms) = driver::m_step_with(&state, from.prior.as_ref(), &stats)?;
                let new = next.take_pair_vecs();
                let old = state.take_pair_vecs();
                let change = vec_change(&old, &new);
                this.save(s, version, &new)?;
                let lens = new.iter().map(|v| v.len() as u32).collect();
                // Keep the query-independent tables and the log-likelihood.
                stats.drop_eb_tables();
                for t in stats.tables.iter_mut().take(k) {
                    *t = Default::default();
                }
                Ok(ShardPass { global: stats, terms, change, lens })
            })
            .collect::<Result<_>>()?;
        let mut total = EStats::new(kind, 0);
        let mut change = 0.0f64;
        let mut lens = Vec::with_capacity(results.len());
        let mut terms = EbTerms::default();
        for r in results {
            total.merge(&r.global)?;
            if let Some(t) = r.terms {
                terms.merge(t);
            }
            change = change.max(r.change);
            lens.push(r.lens);
        }
        let mut global = from.global.clone();
        global.m_step(&total)?;
        global.take_pair_vecs();
        driver::pin(&mut global, self.top);
        change = change.max(driver::max_change(&from.global, &global));
        let ll = if want_ll { total.log_likelihood.value() } else { f64::NAN };
        let shape = self.shape(&lens, from.shape.len())?;
        let prior = from.prior.as_ref().map(|p| driver::next_prior(p, &terms));
        Ok((Point { version, global, shape, prior }, ll, change))
    }

    fn norms(&mut self, x0: &Point, x1: &Point, x2: &Point) -> Result<Option<(f64, f64)>> {
        let (g0, gs0) = driver::flatten(&x0.global);
        let (g1, gs1) = driver::flatten(&x1.global);
        let (g2, gs2) = driver::flatten(&x2.global);
        if x0.shape != x1.shape || x1.shape != x2.shape || gs0 != gs1 || gs1 != gs2 {
            return Ok(None);
        }
        let this = &*self;
        let parts: Vec<(FineSum, FineSum)> = (0..this.shards.len())
            .into_par_iter()
            .with_max_len(1)
            .map(|s| -> Result<(FineSum, FineSum)> {
                let (a, b, c) = (this.load(s, x0)?, this.load(s, x1)?, this.load(s, x2)?);
                let (mut rr, mut vv) = (FineSum::default(), FineSum::default());
                for k in 0..a.len() {
                    let n = a[k].len().max(b[k].len()).max(c[k].len());
                    let fill = [x0.fill(k), x1.fill(k), x2.fill(k)];
                    for i in 0..n {
                        let at = |v: &Vec<f64>, f: f64| v.get(i).copied().unwrap_or(f);
                        let (r, v) = driver::squarem_terms(at(&a[k], fill[0]), at(&b[k], fill[1]), at(&c[k], fill[2]));
                        rr.add(r);
                        vv.add(v);
                    }
                }
                Ok((rr, vv))
            })
            .collect::<Result<_>>()?;
        let (mut rr, mut vv) = (FineSum::default(), FineSum::default());
        for (r, v) in parts {
            rr.merge(r);
            vv.merge(v);
        }
        for i in 0..g0.len() {
            let (r, v) = driver::squarem_terms(g0[i], g1[i], g2[i]);
            rr.add(r);
            vv.add(v);
        }
        Ok(Some((rr.value(), vv.value())))
    }

    fn extrapolate(&mut self, x0: &Point, x1: &Point, x2: &Point, alpha: f64) -> Result<Point> {
        let version = self.new_version();
        let this = &*self;
        (0..this.shards.len()).into_par_iter().with_max_len(1).try_for_each(|s| -> Result<()> {
            let (a, b, c) = (this.load(s, x0)?, this.load(s, x1)?, this.load(s, x2)?);
            let mut out = Vec::with_capacity(a.len());
            for k in 0..a.len() {
                let n = a[k].len().max(b[k].len()).max(c[k].len());
                let at = |v: &Vec<f64>, i: usize, f: f64| v.get(i).copied().unwrap_or(f);
                let fill = [x0.fill(k), x1.fill(k), x2.fill(k)];
                out.push(
                    (0..n).map(|i| driver::squarem_point(at(&a[k], i, fill[0]), at(&b[k], i, fill[1]), at(&c[k], i, fill[2]), alpha)).collect::<Vec<f64>>(),
                );
            }
            this.save(s, version, &out)
        })?;
        let (f1, _) = driver::flatten(&x1.global);
        let (f2, _) = driver::flatten(&x2.global);
        let mut global = x0.global.clone();
        let mut i = 0;
        for s in driver::slices_mut(&mut global) {
            for x in s.iter_mut() {
                *x = driver::squarem_point(*x, f1[i], f2[i], alpha);
                i += 1;
            }
        }
        driver::pin(&mut global, self.top);
        Ok(Point { version, global, shape: x0.shape.clone(), prior: x2.prior.clone() })
    }

    fn settled(&self, p: &Point) -> bool {
        p.prior.as_ref().is_none_or(PairPrior::settled)
    }

    fn keep_only(&mut self, live: &[&Point]) -> Result<()> {
        let keep: Vec<u64> = live.iter().map(|p| p.version).collect();
        let entries = std::fs::read_dir(&self.dir.path).map_err(|e| Error::io(&self.dir.path, e))?;
        for e in entries {
            let e = e.map_err(|e| Error::io(&self.dir.path, e))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(v) = name.rsplit_once(".v").and_then(|(_, v)| v.parse::<u64>().ok()) {
                if !keep.contains(&v) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        Ok(())
    }
}

/// Writes one session to a shard file: its index, query, documents and clicks.
fn write_raw(w: &mut BufWriter<File>, index: u64, s: &crate::logs::formats::SessionBuf, scratch: &mut Vec<u8>) -> std::io::Result<()> {
    scratch.clear();
    put_uleb(scratch, index);
    let q = s.query().as_bytes();
    put_uleb(scratch, q.len() as u64);
    scratch.extend_from_slice(q);
    put_uleb(scratch, s.clicks.len() as u64);
    for d in s.docs() {
        put_uleb(scratch, d.len() as u64);
        scratch.extend_from_slice(d.as_bytes());
    }
    for chunk in s.clicks.chunks(8) {
        scratch.push(chunk.iter().enumerate().fold(0u8, |b, (i, &c)| b | u8::from(c) << i));
    }
    w.write_all(scratch)
}

/// Identical sessions of one part of a shard, in the order first seen, with their counts.
/// Identical sessions of one part of a shard, in the order first seen, with their counts (the
/// sharded fit's and the Spark fit's shards).
#[derive(Default)]
pub struct Distinct {
    /// Each distinct session (held once): the order it was first seen in, and its count.
    index: rustc_hash::FxHashMap<Vec<u8>, (usize, u64)>,
    sessions: u64,
}

impl Distinct {
    /// A session's encoding (what identical sessions share): its result count, query number,
    /// pair numbers and click bits.
    pub fn encode(enc: &mut Vec<u8>, query: u32, pairs: &[u32], click_bits: &[u8]) {
        enc.clear();
        put_uleb(enc, pairs.len() as u64);
        enc.extend_from_slice(&query.to_le_bytes());
        for p in pairs {
            enc.extend_from_slice(&p.to_le_bytes());
        }
        enc.extend_from_slice(click_bits);
    }

    /// Adds one session (its [`Distinct::encode`]ing).
    pub fn add(&mut self, enc: &[u8]) {
        self.sessions += 1;
        let next = self.index.len();
        match self.index.get_mut(enc) {
            Some(e) => e.1 += 1,
            None => {
                self.index.insert(enc.to_vec(), (next, 1));
            }
        }
    }

    /// Distinct sessions so far.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether no session was added.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Appends, per distinct session in the order first seen, its count then the session;
    /// returns (sessions added, distinct sessions).
    pub fn write_to(self, out: &mut Vec<u8>) -> (u64, u64) {
        let mut order: Vec<(Vec<u8>, (usize, u64))> = self.index.into_iter().collect();
        order.sort_unstable_by_key(|e| e.1 .0);
        out.reserve(order.iter().map(|e| e.0.len() + 2).sum());
        for (e, (_, w)) in &order {
            put_uleb(out, *w);
            out.extend_from_slice(e);
        }
        (self.sessions, order.len() as u64)
    }

    /// The sessions file: [`Distinct::write_to`] alone, with the sessions and distinct counts.
    fn bytes(self) -> (Vec<u8>, u64, u64) {
        let mut out = Vec::new();
        let (sessions, distinct) = self.write_to(&mut out);
        (out, sessions, distinct)
    }
}

/// What building a shard found.
struct Built {
    shard: Shard,
    sessions: u64,
    distinct: u64,
    test_sessions: u64,
}

/// How [`build`] tells training from held-out sessions, and what it keeps of the held-out ones.
#[derive(Debug, Clone, Copy)]
struct Split {
    /// Training-file sessions with an index below this train (all of them with `interleaved`
    /// false and no held-out quarter: the file's length).
    n_train: u64,
    /// Every fourth session of the training file (index % 4 == 3) is held out instead.
    interleaved: bool,
    /// Indices of the test file's sessions start here (the training file's length).
    test_offset: u64,
    /// What the held-out sessions are for.
    keep: Keep,
}

/// What [`build`] keeps of the held-out sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// `clicks eval`: identical sessions once with their count (`s{i}.test`); sessions of
    /// queries without training sessions left out.
    Eval,
    /// `clicks validate`: every session in log order with its index among the held-out
    /// sessions (`s{i}.vtest`), the indices of those left out (`s{i}.vdrop`: sessions of queries
    /// without training sessions, when `restrict`), and each query's first index in the logs
    /// (`s{i}.qfirst`), which numbers the queries as the in-memory vocabulary does.
    Validate { restrict: bool },
}

impl Split {
    /// Whether session `index` of file `file` trains, and otherwise its index among the
    /// held-out sessions.
    fn held_index(&self, file: &str, index: u64) -> Option<u64> {
        if file == "testraw" {
            Some(index - self.test_offset)
        } else if self.interleaved {
            (index % 4 == 3).then_some(index / 4)
        } else {
            (index >= self.n_train).then(|| index - self.n_train)
        }
    }
}

fn u64s(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|k| k.to_le_bytes()).collect()
}

/// Builds shard `s` from its raw files: numbers its pairs, keeps identical sessions once, and
/// writes its sessions, keys and names files. Which sessions train and what is kept of the
/// held-out ones: `split`.
fn build(dir: &WorkDir, s: usize, split: Split) -> Result<Built> {
    let test_offset = split.test_offset;
    let mut vocab = Vocab::default();
    let mut keys: Vec<u64> = Vec::new();
    let mut names = Vec::new();
    let (mut train, mut test) = (Distinct::default(), Distinct::default());
    let mut seen: Vec<bool> = Vec::new();
    let mut pairs: Vec<u32> = Vec::new();
    let mut enc = Vec::new();
    // Keep::Validate: the held-out sessions, streamed to `s{s}.vtall` (index among them,
    // query, encoding), and each query's first index.
    let vtall_path = dir.file(&format!("s{s}.vtall"));
    let mut vtall = match split.keep {
        Keep::Validate { .. } => Some(BufWriter::with_capacity(64 << 10, File::create(&vtall_path).map_err(|e| Error::io(&vtall_path, e))?)),
        Keep::Eval => None,
    };
    let mut qfirst: Vec<u64> = Vec::new();
    let (mut qbuf, mut dbuf, mut bits) = (Vec::new(), Vec::new(), Vec::new());
    for (file, offset) in [("raw", 0u64), ("testraw", test_offset)] {
        let raw_path = dir.file(&format!("s{s}.{file}"));
        if !raw_path.exists() {
            continue;
        }
        // Streamed (a popular query's raw sessions can be more than a worker's share of the
        // budget); unlinked once open.
        let f = File::open(&raw_path).map_err(|e| Error::io(&raw_path, e))?;
        let _ = std::fs::remove_file(&raw_path);
        let mut rd = BufReader::with_capacity(64 << 10, f);
        let path = raw_path.as_path();
        while let Some(index) = read_uleb(&mut rd, path)? {
            let index = index + offset;
            read_field(&mut rd, path, &mut qbuf)?;
            let query = std::str::from_utf8(&qbuf).map_err(|_| corrupt(path))?;
            let q = vocab.intern_query(query);
            if q as usize == qfirst.len() {
                qfirst.push(index);
            }
            let n = read_uleb(&mut rd, path)?.ok_or_else(|| corrupt(path))? as usize;
            if n >= 1 << RANK_BITS {
                return Err(corrupt(path));
            }
            pairs.clear();
            for r in 0..n {
                read_field(&mut rd, path, &mut dbuf)?;
                let doc = std::str::from_utf8(&dbuf).map_err(|_| corrupt(path))?;
                let d = vocab.intern_doc(doc);
                let before = vocab.pair_count();
                let p = vocab.intern_pair(q, d);
                if vocab.pair_count() > before {
                    keys.push(index << RANK_BITS | r as u64);
                    put_uleb(&mut names, query.len() as u64);
                    names.extend_from_slice(query.as_bytes());
                    put_uleb(&mut names, doc.len() as u64);
                    names.extend_from_slice(doc.as_bytes());
                }
                pairs.push(p);
            }
            bits.resize(n.div_ceil(8), 0);
            rd.read_exact(&mut bits).map_err(|_| corrupt(path))?;
            Distinct::encode(&mut enc, q, &pairs, &bits);
            if seen.len() <= q as usize {
                seen.resize(q as usize + 1, false);
            }
            match split.held_index(file, index) {
                None => {
                    seen[q as usize] = true;
                    train.add(&enc);
                }
                Some(h) => match split.keep {
                    Keep::Eval if seen[q as usize] => test.add(&enc),
                    Keep::Eval => {}
                    Keep::Validate { .. } => {
                        let w = vtall.as_mut().expect("open under Keep::Validate");
                        let mut head = Vec::with_capacity(24);
                        put_uleb(&mut head, h);
                        put_uleb(&mut head, u64::from(q));
                        put_uleb(&mut head, enc.len() as u64);
                        w.write_all(&head).and_then(|()| w.write_all(&enc)).map_err(|e| Error::io(&vtall_path, e))?;
                    }
                },
            }
        }
    }
    let write = |name: String, bytes: &[u8]| -> Result<()> {
        let p = dir.file(&name);
        std::fs::write(&p, bytes).map_err(|e| Error::io(&p, e))
    };
    let (out, sessions, distinct) = train.bytes();
    write(format!("s{s}.sessions"), &out)?;
    let (mut held, mut test_sessions, _) = test.bytes();
    if !held.is_empty() {
        write(format!("s{s}.test"), &held)?;
    }
    if let Keep::Validate { restrict } = split.keep {
        // Held-out sessions of queries without training sessions are left out (when
        // restricted): the test sessions are known only now, since with `interleaved` a
        // query's first training session may come after a held-out one.
        let f = vtall.take().expect("open under Keep::Validate").into_inner().map_err(|e| Error::io(&vtall_path, e.into_error()))?;
        drop(f);
        let mut rd = BufReader::with_capacity(64 << 10, File::open(&vtall_path).map_err(|e| Error::io(&vtall_path, e))?);
        let _ = std::fs::remove_file(&vtall_path);
        let kept_path = dir.file(&format!("s{s}.vtest"));
        let mut kept = BufWriter::with_capacity(64 << 10, File::create(&kept_path).map_err(|e| Error::io(&kept_path, e))?);
        let mut dropped = Vec::new();
        let mut head = Vec::new();
        while let Some(h) = read_uleb(&mut rd, &vtall_path)? {
            let q = read_uleb(&mut rd, &vtall_path)?.ok_or_else(|| corrupt(&vtall_path))?;
            read_field(&mut rd, &vtall_path, &mut enc)?;
            if restrict && !seen.get(q as usize).copied().unwrap_or(false) {
                dropped.extend_from_slice(&h.to_le_bytes());
            } else {
                head.clear();
                put_uleb(&mut head, h);
                put_uleb(&mut head, enc.len() as u64);
                kept.write_all(&head).and_then(|()| kept.write_all(&enc)).map_err(|e| Error::io(&kept_path, e))?;
                test_sessions += 1;
            }
        }
        kept.into_inner().map_err(|e| Error::io(&kept_path, e.into_error()))?;
        write(format!("s{s}.vdrop"), &dropped)?;
        write(format!("s{s}.qfirst"), &u64s(&qfirst))?;
        // Not counted in the shard's memory: the validation streams them.
        held = Vec::new();
    }
    write(format!("s{s}.keys"), &u64s(&keys))?;
    write(format!("s{s}.names"), &names)?;
    Ok(Built { shard: Shard { pairs: vocab.pair_count(), session_bytes: out.len() as u64 + held.len() as u64 }, sessions, distinct, test_sessions })
}

/// What a sharded fit holds out for evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeldOut {
    /// Nothing: every session trains.
    None,
    /// The last quarter of the sessions (`clicks eval` without `--test`: the first
    /// `n * 3 / 4` train).
    LastQuarter,
    /// Every fourth session (index % 4 == 3; `clicks validate --split interleaved`), so that
    /// every query of a log sorted by query is in both parts.
    Interleaved,
    /// A test log (read with the same options).
    File(PathBuf),
}

/// A sharded evaluation's result.
#[derive(Debug, Clone)]
pub struct ShardedEval {
    /// The fit (its `sessions` are the training sessions).
    pub fit: ShardedFit,
    /// The scores on the held-out sessions whose query has training sessions.
    pub scores: super::eval::Scores,
    /// Held-out sessions evaluated.
    pub test_sessions: u64,
    /// What reading the test log found (a test file only).
    pub test_read: Option<ReadReport>,
}

/// Fits `cfg` (an EM model: dbn, ubm, ccm, pbm) on the log at `path` in shards and writes the
/// model file to `out` (see the module). `on_pass` is called after every EM pass.
pub fn fit_to_file(
    path: &Path,
    read_opts: &ReadOptions,
    cfg: &ModelConfig,
    opts: &EmOptions,
    shard_opts: &ShardOptions,
    out: &Path,
    on_pass: &mut dyn FnMut(&PassInfo),
) -> Result<ShardedFit> {
    let (fit, ()) = run(path, &HeldOut::None, Keep::Eval, read_opts, cfg, opts, shard_opts, Some((out, true)), on_pass, |_| Ok(()))?;
    Ok(fit)
}

/// `clicks eval` in shards: fits `cfg` on the training sessions, evaluates it on the held-out
/// ones ([`super::eval::EvalSums`], merged over shards: the numbers of the in-memory
/// evaluation, bit for bit), and writes the model to `save` when given (as `clicks eval
/// --save` writes it: without the fit summary).
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    path: &Path,
    held: &HeldOut,
    read_opts: &ReadOptions,
    cfg: &ModelConfig,
    opts: &EmOptions,
    shard_opts: &ShardOptions,
    save: Option<&Path>,
    on_pass: &mut dyn FnMut(&PassInfo),
) -> Result<ShardedEval> {
    if matches!(held, HeldOut::None | HeldOut::Interleaved) {
        return Err(Error::Invalid("a sharded evaluation holds out the last quarter or a test log".into()));
    }
    let (fit, (scores, test_sessions, test_read)) =
        run(path, held, Keep::Eval, read_opts, cfg, opts, shard_opts, save.map(|p| (p, false)), on_pass, eval_stage)?;
    Ok(ShardedEval { fit, scores, test_sessions, test_read })
}

/// A sharded validation's result.
#[derive(Debug, Clone)]
pub struct ShardedValidation {
    /// The fit (its `sessions` are the training sessions).
    pub fit: ShardedFit,
    /// The validation: the numbers of [`super::validate::validate`] on the same split, bit
    /// for bit (dwell is not compared: the shards do not keep dwell times).
    pub validation: super::validate::Validation,
    /// Log-likelihood and perplexity of the same held-out sessions.
    pub scores: super::eval::Scores,
    /// What reading the test log found (a test file only).
    pub test_read: Option<ReadReport>,
    /// Whether a session of the logs had dwell times (not compared here).
    pub dwell_in_logs: bool,
}

/// `clicks validate` in shards: fits `cfg` on the training sessions of `held` (the last
/// quarter, every fourth session, or a test log; with `restrict`, held-out sessions of
/// queries without training sessions are left out, as the in-memory split does), then
/// simulates the held-out sessions shard by shard with each shard's fitted parameters and
/// compares them with the real ones. `replicates`: simulated sessions per test session
/// (`None`: [`super::validate::ValidateConfig::auto_replicates`] of the held-out sessions kept).
///
/// The result is the in-memory validation's, bit for bit: a test session's simulation stream
/// is keyed by its index among the kept held-out sessions (counted across shards through the
/// merged file of left-out indices), the system check numbers the queries in the order the
/// logs first show them (as the in-memory vocabulary does, counted across shards from each
/// shard's first indices), and every tally is a sum of whole numbers or is summed in
/// test-session order within one query. Memory: one shard's sessions and pair tables per
/// worker, the pattern tallies (distinct click patterns), and the list sums of the queries
/// that enter the system check.
#[allow(clippy::too_many_arguments)]
pub fn validate(
    path: &Path,
    held: &HeldOut,
    restrict: bool,
    read_opts: &ReadOptions,
    cfg: &ModelConfig,
    opts: &EmOptions,
    shard_opts: &ShardOptions,
    vcfg: &super::validate::ValidateConfig,
    replicates: Option<usize>,
    on_pass: &mut dyn FnMut(&PassInfo),
) -> Result<ShardedValidation> {
    if *held == HeldOut::None {
        return Err(Error::Invalid("a sharded validation needs held-out sessions".into()));
    }
    let (fit, (validation, scores, test_read, dwell_in_logs)) =
        run(path, held, Keep::Validate { restrict }, read_opts, cfg, opts, shard_opts, None, on_pass, |a| validate_stage(a, vcfg, replicates))?;
    Ok(ShardedValidation { fit, validation, scores, test_read, dwell_in_logs })
}

/// Reads a file of little-endian u64s.
fn read_u64s(path: &Path) -> Result<Vec<u64>> {
    let b = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    if b.len() % 8 != 0 {
        return Err(corrupt(path));
    }
    Ok(b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect())
}

/// The next little-endian u64 of `r`; `None` at the end.
fn read_u64_from(r: &mut BufReader<File>, path: &Path) -> Result<Option<u64>> {
    let mut b = [0u8; 8];
    match r.read_exact(&mut b) {
        Ok(()) => Ok(Some(u64::from_le_bytes(b))),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Merges sorted files of little-endian u64s into one sorted file (streamed).
fn merge_u64_files(inputs: &[PathBuf], out: &Path) -> Result<()> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut readers =
        inputs.iter().map(|p| File::open(p).map(|f| BufReader::with_capacity(8 << 10, f)).map_err(|e| Error::io(p, e))).collect::<Result<Vec<_>>>()?;
    let next = read_u64_from;
    let mut heap = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some(v) = next(r, &inputs[i])? {
            heap.push(Reverse((v, i)));
        }
    }
    let mut w = BufWriter::new(File::create(out).map_err(|e| Error::io(out, e))?);
    while let Some(Reverse((v, i))) = heap.pop() {
        w.write_all(&v.to_le_bytes()).map_err(|e| Error::io(out, e))?;
        if let Some(v) = next(&mut readers[i], &inputs[i])? {
            heap.push(Reverse((v, i)));
        }
    }
    w.into_inner().map_err(|e| Error::io(out, e.into_error()))?;
    Ok(())
}

/// Reads a LEB128 number from `r`; `None` at the end of the file (before its first byte).
fn read_uleb(r: &mut BufReader<File>, path: &Path) -> Result<Option<u64>> {
    let mut v = 0u64;
    for i in 0..10 {
        let mut b = [0u8; 1];
        match r.read_exact(&mut b) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && i == 0 => return Ok(None),
            Err(_) => return Err(corrupt(path)),
        }
        v |= u64::from(b[0] & 0x7f) << (7 * i);
        if b[0] & 0x80 == 0 {
            return Ok(Some(v));
        }
    }
    Err(corrupt(path))
}

/// Reads a LEB128 length and that many bytes into `buf` (a field of a temporary file).
fn read_field(r: &mut BufReader<File>, path: &Path, buf: &mut Vec<u8>) -> Result<()> {
    let n = read_uleb(r, path)?.ok_or_else(|| corrupt(path))?;
    if n > 1 << 30 {
        return Err(corrupt(path));
    }
    buf.resize(n as usize, 0);
    r.read_exact(buf).map_err(|_| corrupt(path))
}

/// Counts the values of a sorted u64 file below increasing bounds, reading it once.
struct Below {
    r: BufReader<File>,
    path: PathBuf,
    next: Option<u64>,
    count: u64,
}

impl Below {
    fn open(path: PathBuf) -> Result<Self> {
        let r = BufReader::with_capacity(8 << 10, File::open(&path).map_err(|e| Error::io(&path, e))?);
        let mut b = Below { r, path, next: None, count: 0 };
        b.advance()?;
        Ok(b)
    }
    fn advance(&mut self) -> Result<()> {
        self.next = read_u64_from(&mut self.r, &self.path)?;
        Ok(())
    }
    /// Values below `x` (`x` not smaller than at the last call).
    fn below(&mut self, x: u64) -> Result<u64> {
        while self.next.is_some_and(|v| v < x) {
            self.count += 1;
            self.advance()?;
        }
        Ok(self.count)
    }
}

type ValidateOut = (super::validate::Validation, super::eval::Scores, Option<ReadReport>, bool);

/// One shard's part of a validation: the tally, the evaluation sums, and the list sums of
/// its queries that enter the system check, by the query's first index in the logs.
type ShardPart = (super::validate::Tally, super::eval::EvalSums, Vec<(u64, Vec<super::validate::ListSums>)>);

/// `clicks validate`'s stage (see [`validate`]).
fn validate_stage(a: After<'_>, vcfg: &super::validate::ValidateConfig, replicates: Option<usize>) -> Result<ValidateOut> {
    use super::validate::{finish, real_stats, system_from_lists, ListSums, Tally, ValidateConfig};
    let dir = a.space.dir;
    let kept = usize::try_from(a.test_sessions).map_err(|_| Error::Invalid("too many held-out sessions".into()))?;
    if kept == 0 {
        return Err(Error::Invalid("no test sessions: no held-out session has a query seen in training".into()));
    }
    let cfg = ValidateConfig { replicates: replicates.unwrap_or_else(|| ValidateConfig::auto_replicates(kept)), ..*vcfg };
    let drops: Vec<PathBuf> = (0..a.n_shards).map(|s| dir.file(&format!("s{s}.vdrop"))).collect();
    let all_drops = dir.file("vdrop.all");
    merge_u64_files(&drops, &all_drops)?;
    let min_list = cfg.min_list_sessions.max(1);
    // Parts merged as they come (every merge is exact, so the order does not matter): the
    // shards' tallies are not all held at once.
    let (tally, sums, mut system): ShardPart = (0..a.n_shards)
        .into_par_iter()
        .with_max_len(1)
        .map(|s| -> Result<ShardPart> {
            let mut tally = Tally::default();
            let mut sums = super::eval::EvalSums::default();
            let p = dir.file(&format!("s{s}.vtest"));
            let file = File::open(&p).map_err(|e| Error::io(&p, e))?;
            if file.metadata().map_err(|e| Error::io(&p, e))?.len() == 0 {
                return Ok((tally, sums, Vec::new()));
            }
            // Streamed: a shard's held-out sessions are not held (a popular query's can be
            // more than a worker's share of the budget).
            let mut r = BufReader::with_capacity(64 << 10, file);
            let mut enc = Vec::new();
            let qfirst = read_u64s(&dir.file(&format!("s{s}.qfirst")))?;
            let model = a.model(s)?;
            let mut dropped = Below::open(all_drops.clone())?;
            let mut lists: rustc_hash::FxHashMap<u32, Vec<(Vec<u32>, ListSums)>> = Default::default();
            let (mut probs, mut pairs, mut clicks, mut sim) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            while let Some(h) = read_uleb(&mut r, &p)? {
                read_field(&mut r, &p, &mut enc)?;
                let enc = enc.as_slice();
                let mut e = 0;
                let n = get_uleb(enc, &mut e, &p)? as usize;
                if n > enc.len() {
                    return Err(corrupt(&p));
                }
                let q = get_u32(enc, &mut e, &p)?;
                pairs.clear();
                for _ in 0..n {
                    pairs.push(get_u32(enc, &mut e, &p)?);
                }
                let bits = get_bytes(enc, &mut e, n.div_ceil(8), &p)?;
                clicks.clear();
                clicks.extend((0..n).map(|r| bits[r / 8] >> (r % 8) & 1 == 1));
                // The session's index among the kept held-out sessions (the in-memory test log's).
                let i = h - dropped.below(h)?;
                tally.n += 1;
                tally.depth = tally.depth.max(n);
                tally.add_real(&clicks);
                let mut acc = [0.0; 3];
                for k in 0..cfg.replicates {
                    let mut rng = crate::rng::stream(cfg.seed, &[i, k as u64]);
                    model.simulate(&pairs, &mut rng, &mut sim);
                    let st = tally.add_sim(&sim);
                    for j in 0..3 {
                        acc[j] += st[j];
                    }
                }
                let acc = acc.map(|x| x / cfg.replicates as f64);
                let v = lists.entry(q).or_default();
                let at_list = match v.iter().position(|(l, _)| *l == pairs) {
                    Some(x) => x,
                    None => {
                        v.push((pairs.clone(), ListSums::default()));
                        v.len() - 1
                    }
                };
                v[at_list].1.add(real_stats(&clicks), acc);
                let first = (s as u64) << 32 | u64::from(pairs.first().copied().unwrap_or(0));
                sums.add(model.as_ref(), SessionRef { query: q, pairs: &pairs, clicks: &clicks }, 1, first, &mut probs);
            }
            let mut system = Vec::new();
            for (q, v) in lists {
                let v: Vec<ListSums> = v.into_iter().map(|(_, l)| l).filter(|l| l.sessions >= min_list).collect();
                if v.len() >= 2 {
                    system.push((*qfirst.get(q as usize).ok_or_else(|| corrupt(&p))?, v));
                }
            }
            Ok((tally, sums, system))
        })
        .try_reduce(
            || (Tally::default(), super::eval::EvalSums::default(), Vec::new()),
            |(mut t, mut e, mut q), (t2, e2, q2)| {
                t.merge(t2);
                e.merge(e2);
                q.extend(q2);
                Ok((t, e, q))
            },
        )?;
    // The system-check queries numbered as the in-memory vocabulary numbers them: by the
    // number of queries (of every shard) first seen before them.
    system.sort_unstable_by_key(|(f, _)| *f);
    let mut number = vec![0u64; system.len()];
    for s in 0..a.n_shards {
        let firsts = read_u64s(&dir.file(&format!("s{s}.qfirst")))?;
        for (k, (f, _)) in system.iter().enumerate() {
            number[k] += firsts.partition_point(|&x| x < *f) as u64;
        }
    }
    let queries: Vec<(u64, Vec<ListSums>)> = system.into_iter().zip(number).map(|((_, v), q)| (q, v)).collect();
    let system = system_from_lists(queries, &cfg);
    let validation = finish(tally, None, system, &cfg)?;
    Ok((validation, sums.scores()?, a.test_read, a.dwell))
}

/// What a sharded fit hands to the stage after its passes.
struct After<'a> {
    space: &'a Sharded<'a>,
    end: &'a Point,
    n_shards: usize,
    /// Held-out sessions kept.
    test_sessions: u64,
    test_read: Option<ReadReport>,
    /// Whether a session of the logs had dwell times.
    dwell: bool,
}

impl After<'_> {
    /// The fitted model of shard `s` (its pair numbers).
    fn model(&self, s: usize) -> Result<Box<dyn super::ClickModel>> {
        let mut state = self.end.global.clone();
        state.put_pair_vecs(self.space.load(s, self.end)?);
        match &self.end.prior {
            Some(p) => state.model_with_prior(&p.used),
            None => Ok(state.model()),
        }
    }
}

/// `clicks eval`'s stage: the held-out sessions evaluated shard by shard.
fn eval_stage(a: After<'_>) -> Result<EvalOut> {
    let dir = a.space.dir;
    // Merged as they come (exact sums: the order does not matter).
    let total = (0..a.n_shards)
        .into_par_iter()
        .with_max_len(1)
        .map(|s| -> Result<super::eval::EvalSums> {
            let mut sums = super::eval::EvalSums::default();
            let p = dir.file(&format!("s{s}.test"));
            if !p.exists() {
                return Ok(sums);
            }
            let model = a.model(s)?;
            let mut probs = Vec::new();
            replay(&p, &mut |w, sess| {
                let first = (s as u64) << 32 | u64::from(sess.pairs.first().copied().unwrap_or(0));
                sums.add(model.as_ref(), sess, w, first, &mut probs);
            })?;
            Ok(sums)
        })
        .try_reduce(super::eval::EvalSums::default, |mut a, b| {
            a.merge(b);
            Ok(a)
        })?;
    Ok((total.scores()?, a.test_sessions, a.test_read))
}

/// The size that sizes the shards of an input: its bytes (compressed: six times), `None` for
/// standard input.
fn input_size(path: &Path, input: &crate::input::Input) -> Result<Option<u64>> {
    if !crate::logs::is_rereadable(path) {
        return Ok(None);
    }
    let len = std::fs::metadata(path).map_err(|e| Error::io(path, e))?.len();
    Ok(Some(if input.compression() == crate::input::Compression::None { len } else { len.saturating_mul(6) }))
}

/// Writes every session of `input` to the shard files `s{i}.{ext}`; returns the sessions read,
/// the read report, and whether a session had dwell times (the shards keep none).
fn partition(dir: &WorkDir, path: &Path, input: crate::input::Input, read_opts: &ReadOptions, n_shards: usize, ext: &str) -> Result<(u64, ReadReport, bool)> {
    let mut writers = (0..n_shards)
        .map(|s| {
            let p = dir.file(&format!("s{s}.{ext}"));
            File::create(&p).map(|f| BufWriter::with_capacity(SHARD_BUFFER, f)).map_err(|e| Error::io(&p, e))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut index = 0u64;
    let mut scratch = Vec::new();
    let mut dwell = false;
    let read = read::for_each_session(input, read_opts, &mut |s| {
        dwell |= !s.dwell.is_empty();
        if index >= MAX_SESSIONS / 2 {
            return Err(Error::Invalid(format!("{}: more than {} sessions (the most a sharded fit numbers)", path.display(), MAX_SESSIONS / 2)));
        }
        if s.clicks.len() >= 1 << RANK_BITS {
            return Err(Error::Invalid(format!(
                "{}: a SERP of {} results (a sharded fit takes fewer than {})",
                path.display(),
                s.clicks.len(),
                1u64 << RANK_BITS
            )));
        }
        let shard = shard_of(s.query(), n_shards);
        write_raw(&mut writers[shard], index, s, &mut scratch).map_err(|e| Error::io(dir.file(&format!("s{shard}.{ext}")), e))?;
        index += 1;
        Ok(())
    })?;
    for (s, w) in writers.into_iter().enumerate() {
        w.into_inner().map_err(|e| Error::io(dir.file(&format!("s{s}.{ext}")), e.into_error()))?;
    }
    Ok((index, read, dwell))
}

type EvalOut = (super::eval::Scores, u64, Option<ReadReport>);

/// The sharded fit: partition, build, passes, then `stage` (evaluation, validation) on the
/// fitted shards, then the model file when `out` is given.
#[allow(clippy::too_many_arguments)]
fn run<T>(
    path: &Path,
    held: &HeldOut,
    keep: Keep,
    read_opts: &ReadOptions,
    cfg: &ModelConfig,
    opts: &EmOptions,
    shard_opts: &ShardOptions,
    out: Option<(&Path, bool)>,
    on_pass: &mut dyn FnMut(&PassInfo),
    stage: impl FnOnce(After<'_>) -> Result<T>,
) -> Result<(ShardedFit, T)> {
    let em = cfg
        .em_config()
        .filter(|_| supports(cfg))
        .ok_or_else(|| Error::Invalid(format!("a sharded fit is an EM fit (dbn, ubm, ccm, pbm), not {}", cfg.kind())))?;
    let mut start = EmState::new(cfg)?;
    driver::check_settings(&mut start, &em, opts)?;
    let threads = rayon::current_num_threads().max(1);
    let input = crate::input::open(path)?;
    let size = input_size(path, &input)?;
    let test_input = match held {
        HeldOut::File(t) => Some(crate::input::open(t)?),
        _ => None,
    };
    let test_size = match (held, &test_input) {
        (HeldOut::File(t), Some(i)) => input_size(t, i)?,
        _ => Some(0),
    };
    let n_shards = match shard_opts.shards {
        Some(0) => return Err(Error::Invalid("--shards must be at least 1".into())),
        Some(n) if n > MAX_SHARDS => return Err(Error::Invalid(format!("--shards {n}: at most {MAX_SHARDS}"))),
        Some(n) => n,
        None => match (size, test_size) {
            (Some(a), Some(b)) => plan(a + b, shard_opts.memory_budget, threads),
            _ => 64,
        },
    };
    let dir = WorkDir::new(shard_opts.dir.as_deref())?;
    // Partition.
    let (n, read, mut dwell) = partition(&dir, path, input, read_opts, n_shards, "raw")?;
    let test_read = match (held, test_input) {
        (HeldOut::File(t), Some(i)) => {
            let (_, r, d) = partition(&dir, t, i, read_opts, n_shards, "testraw")?;
            dwell |= d;
            Some(r)
        }
        _ => None,
    };
    let n_train = if *held == HeldOut::LastQuarter { n * 3 / 4 } else { n };
    if n_train == 0 {
        return Err(Error::Invalid(format!("{}: no training sessions", path.display())));
    }
    // Build.
    let split = Split { n_train, interleaved: *held == HeldOut::Interleaved, test_offset: n, keep };
    let built: Vec<Built> = (0..n_shards).into_par_iter().with_max_len(1).map(|s| build(&dir, s, split)).collect::<Result<_>>()?;
    let kind = start.kind();
    let per_worker = shard_opts.memory_budget / threads as u64;
    for (s, b) in built.iter().enumerate() {
        let sh = &b.shard;
        // A fitted prior adds its informative-trial tables (EStats::add_eb_tables): 32 bytes
        // per pair table.
        let per_pair = pair_bytes(kind) + if opts.prior == driver::EmPrior::Fitted { 32 * pair_tables(kind) as u64 } else { 0 };
        let need = sh.pairs as u64 * per_pair + sh.session_bytes;
        // Shards of up to SMALL_SHARD bytes are always taken (within the 128 MB a process
        // holds besides its budget): a budget of a few megabytes still shards.
        if need > per_worker.max(SMALL_SHARD) && shard_opts.shards.is_none() {
            return Err(Error::Invalid(format!(
                "shard {s} of {n_shards} holds {} pairs and {} bytes of sessions ({:.1} MiB in memory), more than the memory budget per worker thread ({:.1} MiB); raise --memory-budget, or give more --shards",
                sh.pairs,
                sh.session_bytes,
                need as f64 / (1u64 << 20) as f64,
                per_worker as f64 / (1u64 << 20) as f64
            )));
        }
    }
    let shards: Vec<Shard> = built.iter().map(|b| b.shard.clone()).collect();
    let sessions: u64 = built.iter().map(|b| b.sessions).sum();
    let distinct: u64 = built.iter().map(|b| b.distinct).sum();
    let test_sessions: u64 = built.iter().map(|b| b.test_sessions).sum();
    let pairs: u64 = shards.iter().map(|s| s.pairs as u64).sum();
    let largest = shards.iter().map(|s| s.pairs as u64).max().unwrap_or(0);
    // Passes.
    let max = driver::max_passes(kind, &em);
    let squarem = em.tolerance > 0.0 && opts.accel.squarem_for(kind);
    let vectors = start.clone().pair_vecs().len();
    let mut global = start;
    global.take_pair_vecs();
    let origin = Point { version: 0, global, shape: vec![0; vectors], prior: driver::start_prior(kind, opts)? };
    let mut space = Sharded { dir: &dir, shards: &shards, next_version: 0, top: opts.top_examination };
    let (end, mut report) = driver::run_space(&mut space, origin, max, em.tolerance, squarem, on_pass)?;
    report.prior = end.prior.as_ref().map(|p| p.used.clone());
    let this = &space;
    let staged = stage(After { space: this, end: &end, n_shards, test_sessions, test_read, dwell })?;
    // Output: rows per shard, merged by key.
    let fit_summary = driver::FitSummary::new(kind, &report, em.tolerance, opts);
    if let Some((out, with_fit)) = out {
        write_model(this, &end, n_shards, vectors, with_fit.then_some(&fit_summary), out)?;
    }
    Ok((ShardedFit { report, fit_summary, read, sessions, distinct_sessions: distinct, pairs, shards: n_shards, largest_shard_pairs: largest }, staged))
}

/// Writes the model file of point `end`: rows per shard, merged by key.
fn write_model(this: &Sharded<'_>, end: &Point, n_shards: usize, vectors: usize, summary: Option<&driver::FitSummary>, out: &Path) -> Result<()> {
    let dir = this.dir;
    let end_cut = end.shape.iter().copied().max().unwrap_or(0);
    (0..n_shards).into_par_iter().with_max_len(1).try_for_each(|s| -> Result<()> {
        let vecs = this.load(s, end)?;
        let names_path = dir.file(&format!("s{s}.names"));
        let names = std::fs::read(&names_path).map_err(|e| Error::io(&names_path, e))?;
        let keys_path = dir.file(&format!("s{s}.keys"));
        let keys = std::fs::read(&keys_path).map_err(|e| Error::io(&keys_path, e))?;
        let mut rows = Vec::new();
        let mut at = 0;
        let mut row = Vec::new();
        for (i, k) in keys.chunks_exact(8).enumerate() {
            let key = u64::from_le_bytes(k.try_into().expect("8 bytes"));
            let qn = get_uleb(&names, &mut at, &names_path)? as usize;
            let q = std::str::from_utf8(get_bytes(&names, &mut at, qn, &names_path)?).map_err(|_| corrupt(&names_path))?;
            let dn = get_uleb(&names, &mut at, &names_path)? as usize;
            let d = std::str::from_utf8(get_bytes(&names, &mut at, dn, &names_path)?).map_err(|_| corrupt(&names_path))?;
            if key >= end_cut {
                break;
            }
            row.clear();
            io::write_pair_row(&mut row, q, d, vecs.iter().enumerate().map(|(t, v)| v.get(i).copied().unwrap_or_else(|| end.fill(t))))
                .map_err(|e| Error::io(&names_path, e))?;
            rows.extend_from_slice(&key.to_le_bytes());
            put_uleb(&mut rows, row.len() as u64);
            rows.extend_from_slice(&row);
        }
        let p = dir.file(&format!("s{s}.rows"));
        std::fs::write(&p, rows).map_err(|e| Error::io(&p, e))
    })?;
    let mut model = end.global.clone();
    model.put_pair_vecs(vec![Vec::new(); vectors]);
    let model = match &end.prior {
        Some(p) => model.model_with_prior(&p.used)?,
        None => model.model(),
    };
    let (head, tail) = io::head_and_tail(model.as_ref(), summary)?;
    let mut readers = (0..n_shards)
        .map(|s| {
            let p = dir.file(&format!("s{s}.rows"));
            File::open(&p).map(|f| BufReader::with_capacity(16 << 10, f)).map_err(|e| Error::io(&p, e))
        })
        .collect::<Result<Vec<_>>>()?;
    crate::write::write_atomic_with(out, |w| {
        w.write_all(head.as_bytes())?;
        merge_rows(&mut readers, w)?;
        w.write_all(tail.as_bytes())
    })
}

/// Reads the next row (key, text) of a rows file.
fn next_row(r: &mut BufReader<File>) -> std::io::Result<Option<(u64, Vec<u8>)>> {
    let mut k = [0u8; 8];
    match r.read_exact(&mut k) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let mut len = 0u64;
    for i in 0..10 {
        let mut b = [0u8; 1];
        r.read_exact(&mut b)?;
        len |= u64::from(b[0] & 0x7f) << (7 * i);
        if b[0] & 0x80 == 0 {
            break;
        }
    }
    if len > 1 << 30 {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "a temporary rows file is corrupt (row longer than 1 GiB)"));
    }
    let mut row = vec![0u8; len as usize];
    r.read_exact(&mut row)?;
    Ok(Some((u64::from_le_bytes(k), row)))
}

/// Writes the rows of every shard in the order of their keys, comma-separated.
fn merge_rows(readers: &mut [BufReader<File>], w: &mut dyn Write) -> std::io::Result<()> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut heads: Vec<Option<Vec<u8>>> = vec![None; readers.len()];
    let mut heap = BinaryHeap::new();
    for (s, r) in readers.iter_mut().enumerate() {
        if let Some((k, row)) = next_row(r)? {
            heads[s] = Some(row);
            heap.push(Reverse((k, s)));
        }
    }
    let mut first = true;
    while let Some(Reverse((_, s))) = heap.pop() {
        if !first {
            w.write_all(b",")?;
        }
        first = false;
        w.write_all(heads[s].as_deref().unwrap_or_default())?;
        if let Some((k, row)) = next_row(&mut readers[s])? {
            heads[s] = Some(row);
            heap.push(Reverse((k, s)));
        }
    }
    Ok(())
}
