//! E-step sufficient statistics that sum exactly, so that a fit does not depend on how the
//! log is split or in which order the parts are added (one file, threads, Spark partitions).
//!
//! Every expected count is added in fixed point: the value times 2^60, truncated towards zero
//! to an integer, summed in an `i128`. Integer addition is associative, so any partition of
//! the sessions and any order of merging gives the same bits; the only rounding is the
//! truncation of each term (below 2^-60, about 8.7e-19) and the one conversion of the sum to
//! `f64` (correctly rounded). That is more accurate than summing in `f64`, whose error grows
//! with the number of terms. Sums stay exact up to 2^67 in magnitude (about 1.5e20 sessions
//! times ranks).
//!
//! The library functions for distributed fitting are: [`EmState::new_stats`] and
//! [`EmState::accumulate`] (a batch of sessions to statistics), [`EStats::merge`] (statistics
//! of two parts), [`EStats::to_bytes`] / [`EStats::from_bytes`] (to ship them), and
//! [`EmState::m_step`] (summed statistics to the next model).
//!
//! ```
//! use serpsim::clickmodels::{EmState, ModelConfig, ModelKind, EmConfig};
//! use serpsim::logs::{Format, LogData};
//! let data = LogData::parse("q\ta,b : a; q\tb,a :; q\ta,b : b\n", Format::Yandex, "x", false).unwrap();
//! let cfg = ModelConfig::new(ModelKind::Dbn, EmConfig { iterations: 3, tolerance: 0.0 });
//! let mut state = EmState::new(&cfg).unwrap();
//! for _ in 0..EmState::passes_of(&cfg) {
//!     // Two parts, merged in either order: the same statistics, bit for bit.
//!     let (mut a, mut b) = (state.new_stats(), state.new_stats());
//!     for (i, s) in data.log.iter().enumerate() {
//!         state.accumulate(s, if i == 1 { &mut a } else { &mut b });
//!     }
//!     let mut ab = a.clone();
//!     ab.merge(&b).unwrap();
//!     b.merge(&a).unwrap();
//!     assert_eq!(ab, b);
//!     state.m_step(&ab).unwrap();
//! }
//! let whole = cfg.fit(&mut &data.log).unwrap();
//! assert_eq!(state.model().to_table(), whole.to_table());
//! ```

use super::em::{Ccm, Dbn, Gamma, Pbm, Ubm};
use super::mle::Sdbn;
use super::{ClickModel, EmConfig, ModelConfig, ModelKind};
use crate::error::{Error, Result};
use crate::logs::SessionRef;

/// Fixed-point scale: 2^60.
const SCALE: f64 = (1u64 << 60) as f64;

/// `x` in fixed point (times 2^60, truncated towards zero).
#[inline]
pub fn to_fixed(x: f64) -> i128 {
    let y = x * SCALE;
    // Fast path: |x| < 8 fits an i64 (a hardware conversion); larger terms take the i128 one.
    if y.abs() < 9.2e18 {
        y as i64 as i128
    } else {
        y as i128
    }
}

/// A fixed-point sum as `f64` (correctly rounded).
#[inline]
pub fn from_fixed(v: i128) -> f64 {
    v as f64 / SCALE
}

/// A sum of `f64` terms that does not depend on their order or grouping (see the module).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExactSum(pub i128);

impl ExactSum {
    /// Adds a term.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.0 += to_fixed(x);
    }
    /// Adds another sum.
    pub fn merge(&mut self, other: ExactSum) {
        self.0 += other.0;
    }
    /// The sum.
    pub fn value(self) -> f64 {
        from_fixed(self.0)
    }
}

/// Expected-count accumulators (numerator, denominator) for probabilities indexed by pair or
/// rank, in exact fixed point.
///
/// A table has a weight (1 unless set, [`EStats::set_weight`]): each addition counts that many
/// times, as the same session repeated would (exactly: the fixed-point term times the weight).
#[derive(Debug, Clone, Eq)]
pub struct Counts {
    num: Vec<i128>,
    den: Vec<i128>,
    w: i128,
}

impl Default for Counts {
    fn default() -> Self {
        Counts { num: Vec::new(), den: Vec::new(), w: 1 }
    }
}

impl PartialEq for Counts {
    /// The counts (not the weight the next additions take).
    fn eq(&self, other: &Self) -> bool {
        self.num == other.num && self.den == other.den
    }
}

impl Counts {
    /// Zero counts for indices `0..n` (the table grows on demand).
    pub fn with_len(n: usize) -> Self {
        Counts { num: vec![0; n], den: vec![0; n], w: 1 }
    }

    /// Adds `num` expected successes in `den` expected trials at index `i` (times the weight).
    #[inline]
    pub fn add(&mut self, i: usize, num: f64, den: f64) {
        if i >= self.num.len() {
            self.grow(i + 1);
        }
        self.num[i] += to_fixed(num) * self.w;
        self.den[i] += to_fixed(den) * self.w;
    }

    /// Adds one trial at index `i`, a success or not: the same as `add(i, 0 or 1, 1)` (1.0 is
    /// exactly 2^60 in fixed point) without the float conversions.
    #[inline]
    pub fn add_trial(&mut self, i: usize, success: bool) {
        if i >= self.num.len() {
            self.grow(i + 1);
        }
        let one: i128 = (1 << 60) * self.w;
        self.num[i] += one * i128::from(success);
        self.den[i] += one;
    }

    #[cold]
    fn grow(&mut self, at_least: usize) {
        let n = at_least.max(self.num.len() * 2);
        self.num.resize(n, 0);
        self.den.resize(n, 0);
    }

    /// Moves entry `i` to `map[i]` (pair indices of one part of a log to those of the whole;
    /// `map` is one-to-one). Entries beyond `map` must be zero.
    pub fn remap(&mut self, map: &[u32]) {
        let n = map.iter().max().map_or(0, |&m| m as usize + 1);
        let (mut num, mut den) = (vec![0i128; n], vec![0i128; n]);
        for (i, (&a, &b)) in self.num.iter().zip(&self.den).enumerate() {
            if a != 0 || b != 0 {
                let j = map[i] as usize;
                num[j] = a;
                den[j] = b;
            }
        }
        self.num = num;
        self.den = den;
    }

    /// Adds another table entry by entry.
    pub fn merge(&mut self, other: &Counts) {
        if other.num.len() > self.num.len() {
            self.grow(other.num.len());
        }
        for (a, b) in self.num.iter_mut().zip(&other.num) {
            *a += b;
        }
        for (a, b) in self.den.iter_mut().zip(&other.den) {
            *a += b;
        }
    }

    /// (1 + num) / (2 + den) for the first `len` entries; clamped to [PROB_MIN, 1 - PROB_MIN]
    /// when `clamp` (EM), as is (MLE) otherwise.
    pub fn values(&self, len: usize, clamp: bool) -> Vec<f64> {
        (0..len)
            .map(|i| {
                let (n, d) = self.sums(i);
                let v = (1.0 + n) / (2.0 + d);
                if clamp {
                    v.clamp(super::PROB_MIN, 1.0 - super::PROB_MIN)
                } else {
                    v
                }
            })
            .collect()
    }

    /// (numerator, denominator) at index `i` (zeros beyond the table).
    pub fn sums(&self, i: usize) -> (f64, f64) {
        (self.num.get(i).map_or(0.0, |&v| from_fixed(v)), self.den.get(i).map_or(0.0, |&v| from_fixed(v)))
    }

    /// Entries held: at least the size given to [`Counts::with_len`] and the highest index
    /// added plus one.
    pub fn len(&self) -> usize {
        self.num.len()
    }

    /// Whether the table holds no entries.
    pub fn is_empty(&self) -> bool {
        self.num.is_empty()
    }

    /// Highest index with a non-zero denominator, plus one.
    pub fn used_len(&self) -> usize {
        self.den.iter().rposition(|&d| d != 0).map_or(0, |i| i + 1)
    }

    /// (index, numerator, denominator) of the entries with a non-zero denominator or numerator.
    pub fn entries(&self) -> impl Iterator<Item = (usize, i128, i128)> + '_ {
        self.num.iter().zip(&self.den).enumerate().filter(|(_, (&n, &d))| n != 0 || d != 0).map(|(i, (&n, &d))| (i, n, d))
    }

    /// Bytes held by the table.
    pub fn heap_bytes(&self) -> usize {
        (self.num.capacity() + self.den.capacity()) * 16
    }
}

/// Reusable per-session buffers of the E-steps.
#[derive(Debug, Default)]
pub struct Scratch {
    pub(crate) a: Vec<f64>,
    pub(crate) s: Vec<f64>,
    pub(crate) car: Vec<f64>,
}

/// The E-step's sufficient statistics of one model over some sessions: exact expected counts
/// in model-specific tables (see each model's `accumulate`), and the number of sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EStats {
    /// Which model the statistics belong to.
    pub kind: ModelKind,
    /// Sessions added.
    pub sessions: u64,
    /// The count tables.
    pub tables: Vec<Counts>,
    /// Log-likelihood of the sessions added under the model that computed the statistics
    /// (natural log, summed exactly), when the E-step was asked for it; 0 otherwise.
    pub log_likelihood: ExactSum,
    /// Whether the tables of a fitted prior's informative trials are in (see
    /// [`EStats::add_eb_tables`]).
    eb: bool,
}

/// Pair-indexed tables of `kind`'s statistics: the first ones (the rest are indexed by rank
/// or hold query-independent values).
pub fn pair_tables(kind: ModelKind) -> usize {
    match kind {
        ModelKind::Dbn | ModelKind::Sdbn => 2,
        ModelKind::Ccm | ModelKind::Pbm | ModelKind::Ubm => 1,
        _ => 0,
    }
}

/// The number of a model's own statistics tables when it is fixed (0: UBM, whose rank tables
/// grow with the lists, and the counting models).
pub fn base_tables(kind: ModelKind) -> usize {
    match kind {
        ModelKind::Dbn => 3,
        ModelKind::Ccm | ModelKind::Pbm => 2,
        _ => 0,
    }
}

/// Where the tables of a fitted prior's informative trials go ([`EStats::add_eb_tables`]):
/// after the model's own tables when their number is fixed (DBN, CCM, PBM), right after the
/// attractiveness table for UBM (its examination rows, which grow with the lists, move one
/// place on); None for the counting models.
pub fn eb_tables_at(kind: ModelKind) -> Option<usize> {
    match kind {
        ModelKind::Dbn | ModelKind::Ccm | ModelKind::Pbm => Some(base_tables(kind)),
        ModelKind::Ubm => Some(pair_tables(kind)),
        _ => None,
    }
}

const MAGIC: &[u8; 8] = b"SSESTAT2";

impl EStats {
    /// Empty statistics of `kind`, with pair tables sized for `pairs` pairs.
    pub fn new(kind: ModelKind, pairs: usize) -> Self {
        let tables = match kind {
            ModelKind::Dbn => vec![Counts::with_len(pairs), Counts::with_len(pairs), Counts::with_len(1)],
            ModelKind::Sdbn => vec![Counts::with_len(pairs), Counts::with_len(pairs)],
            ModelKind::Ccm => vec![Counts::with_len(pairs), Counts::with_len(3)],
            ModelKind::Pbm => vec![Counts::with_len(pairs), Counts::with_len(10)],
            ModelKind::Ubm => vec![Counts::with_len(pairs)],
            _ => Vec::new(),
        };
        EStats { kind, sessions: 0, tables, log_likelihood: ExactSum::default(), eb: false }
    }

    /// Makes every later addition count `w` times (a session kept once for `w` identical
    /// ones): the tables' weight, and the weight of tables added later ([`EStats::weight`]).
    pub fn set_weight(&mut self, w: u64) {
        for t in &mut self.tables {
            t.w = i128::from(w);
        }
    }

    /// The weight of the next additions (see [`EStats::set_weight`]).
    #[inline]
    pub fn weight(&self) -> u64 {
        self.tables.first().map_or(1, |t| t.w as u64)
    }

    /// A new table of `len` entries with the statistics' current weight.
    pub(crate) fn new_table(&self, len: usize) -> Counts {
        let mut c = Counts::with_len(len);
        c.w = self.weight() as i128;
        c
    }

    /// Adds the statistics of other sessions (exact: the order of merges does not matter).
    pub fn merge(&mut self, other: &EStats) -> Result<()> {
        if self.kind != other.kind {
            return Err(Error::Invalid(format!("cannot merge {} statistics into {} statistics", other.kind, self.kind)));
        }
        if self.eb != other.eb {
            // Tables appended after a fixed set line up; UBM's do not (they sit before its
            // examination rows).
            if base_tables(self.kind) == 0 {
                return Err(Error::Invalid(format!("cannot merge {} statistics with and without a fitted prior's tables", self.kind)));
            }
            self.eb = true;
        }
        if other.tables.len() > self.tables.len() {
            self.tables.resize_with(other.tables.len(), Counts::default);
        }
        for (a, b) in self.tables.iter_mut().zip(&other.tables) {
            a.merge(b);
        }
        self.sessions += other.sessions;
        self.log_likelihood.merge(other.log_likelihood);
        Ok(())
    }

    /// Moves the pair-indexed tables' entry `i` to `map[i]` (see [`Counts::remap`]); tables
    /// indexed by rank or holding scalars are left as they are.
    pub fn remap_pairs(&mut self, map: &[u32]) {
        let k = pair_tables(self.kind);
        let eb = self.eb_range();
        for (i, t) in self.tables.iter_mut().enumerate() {
            if i < k || eb.contains(&i) {
                t.remap(map);
            }
        }
    }

    /// The indices of the tables of [`EStats::add_eb_tables`] (empty without them).
    fn eb_range(&self) -> std::ops::Range<usize> {
        match eb_tables_at(self.kind) {
            Some(at) if self.eb => at..at + pair_tables(self.kind),
            _ => 0..0,
        }
    }

    /// Adds the per-pair tables of a fitted prior's informative trials, one per per-pair table
    /// ([`eb_tables_at`]: after the model's own tables; UBM's right after its attractiveness
    /// table). DBN: attractiveness as clicks of expected examinations, satisfaction as
    /// satisfied of informative last clicks; CCM, PBM and UBM: attractiveness as clicks of
    /// expected examinations (see each model's `accumulate` and [`super::ebprior`]). Call it
    /// on new statistics, before any session is added.
    pub fn add_eb_tables(&mut self, pairs: usize) {
        let Some(at) = eb_tables_at(self.kind) else { return };
        if self.eb {
            return;
        }
        if self.tables.len() < at {
            self.tables.resize_with(at, Counts::default);
        }
        let fresh: Vec<Counts> = (0..pair_tables(self.kind)).map(|_| self.new_table(pairs)).collect();
        self.tables.splice(at..at, fresh);
        self.eb = true;
    }

    /// Whether [`EStats::add_eb_tables`] has added its tables.
    #[inline]
    pub fn has_eb_tables(&self) -> bool {
        self.eb
    }

    /// The counts a fitted prior is fitted to for per-pair table `t`: the informative trials
    /// when the statistics have them, else the table itself.
    pub fn eb_counts(&self, t: usize) -> &Counts {
        let eb = self.eb_range();
        if eb.is_empty() {
            &self.tables[t]
        } else {
            &self.tables[eb.start + t]
        }
    }

    /// Drops the tables of [`EStats::add_eb_tables`] (the model's own tables stay, in their
    /// usual places).
    pub fn drop_eb_tables(&mut self) {
        let eb = self.eb_range();
        if !eb.is_empty() {
            self.tables.drain(eb);
        }
        self.eb = false;
    }

    /// A compact little-endian encoding: only the non-zero entries of each table.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        let name = self.kind.name().as_bytes();
        out.push(name.len() as u8);
        out.extend_from_slice(name);
        out.extend_from_slice(&self.sessions.to_le_bytes());
        out.extend_from_slice(&self.log_likelihood.0.to_le_bytes());
        out.extend_from_slice(&(self.tables.len() as u64).to_le_bytes());
        for t in &self.tables {
            out.extend_from_slice(&(t.num.len() as u64).to_le_bytes());
            let nz: Vec<_> = t.entries().collect();
            out.extend_from_slice(&(nz.len() as u64).to_le_bytes());
            for (i, n, d) in nz {
                out.extend_from_slice(&(i as u64).to_le_bytes());
                out.extend_from_slice(&n.to_le_bytes());
                out.extend_from_slice(&d.to_le_bytes());
            }
        }
        out
    }

    /// Decodes [`EStats::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = |why: &str| Error::Invalid(format!("E-step statistics: {why}"));
        let mut r = Reader { b: bytes, at: 0 };
        if r.take(8).ok_or_else(|| bad("truncated"))? != MAGIC {
            return Err(bad("not serpsim E-step statistics (bad magic)"));
        }
        let n = r.take(1).ok_or_else(|| bad("truncated"))?[0] as usize;
        let name = std::str::from_utf8(r.take(n).ok_or_else(|| bad("truncated"))?).map_err(|_| bad("bad model name"))?;
        let kind: ModelKind = name.parse()?;
        let sessions = r.u64().ok_or_else(|| bad("truncated"))?;
        let log_likelihood = ExactSum(r.i128().ok_or_else(|| bad("truncated"))?);
        let ntables = r.u64().ok_or_else(|| bad("truncated"))? as usize;
        let mut tables = Vec::with_capacity(ntables.min(1 << 16));
        for _ in 0..ntables {
            let len = r.u64().ok_or_else(|| bad("truncated"))? as usize;
            let nz = r.u64().ok_or_else(|| bad("truncated"))? as usize;
            if len > bytes.len() * 64 || nz > len {
                return Err(bad("corrupt table size"));
            }
            let mut t = Counts::with_len(len);
            for _ in 0..nz {
                let i = r.u64().ok_or_else(|| bad("truncated"))? as usize;
                let num = r.i128().ok_or_else(|| bad("truncated"))?;
                let den = r.i128().ok_or_else(|| bad("truncated"))?;
                if i >= len {
                    return Err(bad("entry out of range"));
                }
                t.num[i] = num;
                t.den[i] = den;
            }
            tables.push(t);
        }
        if r.at != bytes.len() {
            return Err(bad("trailing bytes"));
        }
        // The tables of a fitted prior are recognised by their number where the model's own
        // are fixed; UBM's are not shipped with it (a fitted prior runs in one process).
        let eb = base_tables(kind) > 0 && tables.len() == base_tables(kind) + pair_tables(kind);
        Ok(EStats { kind, sessions, tables, log_likelihood, eb })
    }

    /// Bytes held by the tables (the memory of a streamed fit besides the parameters and the
    /// vocabulary).
    pub fn heap_bytes(&self) -> usize {
        self.tables.iter().map(Counts::heap_bytes).sum()
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn i128(&mut self) -> Option<i128> {
        Some(i128::from_le_bytes(self.take(16)?.try_into().ok()?))
    }
}

/// A fit in progress of a model whose parameters come from E-step statistics (SDBN, DBN,
/// UBM, CCM, PBM): the current model, the E-step and the M-step. SDBN takes one pass (its
/// counts are final), the EM models one pass per iteration.
#[derive(Debug, Clone)]
pub enum EmState {
    /// SDBN (counting; one pass).
    Sdbn(Sdbn),
    /// DBN, and whether gamma is fitted.
    Dbn(Dbn, bool),
    /// UBM.
    Ubm(Ubm),
    /// CCM.
    Ccm(Ccm),
    /// PBM.
    Pbm(Pbm),
}

/// The state and the number of passes it needs.

impl EmState {
    /// The starting state of `cfg` (parameters at 0.5; DBN's gamma at its fixed value).
    /// Models fitted otherwise (CM, DCM, the CTR baselines) are refused.
    pub fn new(cfg: &ModelConfig) -> Result<Self> {
        let check = |c: &EmConfig| {
            if c.iterations == 0 {
                Err(Error::config("em", "iterations", "must be at least 1"))
            } else {
                Ok(())
            }
        };
        Ok(match cfg {
            ModelConfig::Sdbn => EmState::Sdbn(Sdbn::default()),
            ModelConfig::Dbn(c) => {
                check(&EmConfig { iterations: c.iterations, tolerance: c.tolerance })?;
                let mut m = Dbn::default();
                if let Gamma::Fixed(g) = c.gamma {
                    crate::error::check_probability("dbn", "gamma", g)?;
                    m.gamma = g;
                }
                EmState::Dbn(m, matches!(c.gamma, Gamma::Fitted))
            }
            ModelConfig::Ubm(c) => {
                check(c)?;
                EmState::Ubm(Ubm::default())
            }
            ModelConfig::Ccm(c) => {
                check(c)?;
                EmState::Ccm(Ccm::default())
            }
            ModelConfig::Pbm(c) => {
                check(c)?;
                EmState::Pbm(Pbm::default())
            }
            other => {
                return Err(Error::Invalid(format!(
                    "{} is fitted by a single count, not from E-step statistics (supported: sdbn, dbn, ubm, ccm, pbm)",
                    match other {
                        ModelConfig::Cm => "cm",
                        ModelConfig::Dcm => "dcm",
                        _ => "a CTR baseline",
                    }
                )))
            }
        })
    }

    /// Passes over the log a full fit of `cfg` takes.
    pub fn passes_of(cfg: &ModelConfig) -> usize {
        cfg.em_config().map_or(1, |em| em.iterations)
    }

    /// The model's kind.
    pub fn kind(&self) -> ModelKind {
        match self {
            EmState::Sdbn(_) => ModelKind::Sdbn,
            EmState::Dbn(..) => ModelKind::Dbn,
            EmState::Ubm(_) => ModelKind::Ubm,
            EmState::Ccm(_) => ModelKind::Ccm,
            EmState::Pbm(_) => ModelKind::Pbm,
        }
    }

    /// Whether every pair has the same parameters (none fitted yet: the starting state), so
    /// that an E-step does not depend on how pairs are numbered.
    pub fn pair_free(&self) -> bool {
        match self {
            EmState::Sdbn(_) => true,
            EmState::Dbn(m, _) => m.attractiveness.is_empty() && m.satisfaction.is_empty(),
            EmState::Ubm(m) => m.attractiveness.is_empty(),
            EmState::Ccm(m) => m.attractiveness.is_empty(),
            EmState::Pbm(m) => m.attractiveness.is_empty(),
        }
    }

    /// Empty statistics for this model.
    pub fn new_stats(&self) -> EStats {
        EStats::new(self.kind(), 0)
    }

    /// E-step: adds one session under the current model.
    pub fn accumulate(&self, s: SessionRef<'_>, stats: &mut EStats) {
        self.accumulate_with(s, stats, &mut Scratch::default())
    }

    /// E-step with reusable buffers.
    pub fn accumulate_with(&self, s: SessionRef<'_>, stats: &mut EStats, buf: &mut Scratch) {
        match self {
            EmState::Sdbn(_) => Sdbn::accumulate(s, stats),
            EmState::Dbn(m, fit_gamma) => m.accumulate(*fit_gamma, s, stats, buf),
            EmState::Ubm(m) => m.accumulate(s, stats),
            EmState::Ccm(m) => m.accumulate(s, stats, buf),
            EmState::Pbm(m) => m.accumulate(s, stats),
        }
    }

    /// M-step: replaces the model by the one re-estimated from `stats` (the sum over every
    /// session of the log).
    pub fn m_step(&mut self, stats: &EStats) -> Result<()> {
        if stats.kind != self.kind() {
            return Err(Error::Invalid(format!("{} statistics given to a {} fit", stats.kind, self.kind())));
        }
        *self = match self {
            EmState::Sdbn(_) => EmState::Sdbn(Sdbn::m_step(stats)),
            EmState::Dbn(m, fit_gamma) => EmState::Dbn(m.m_step(*fit_gamma, stats), *fit_gamma),
            EmState::Ubm(_) => EmState::Ubm(Ubm::m_step(stats)),
            EmState::Ccm(_) => EmState::Ccm(Ccm::m_step(stats)),
            EmState::Pbm(_) => EmState::Pbm(Pbm::m_step(stats)),
        };
        Ok(())
    }

    /// M-step with the per-pair tables re-estimated under Beta priors (`prior[t]` for the
    /// state's `t`-th pair vector, [`EmState::pair_vecs`]) instead of Beta(1, 1): `(a + num) /
    /// (a + b + den)` ([`super::ebprior::value`]); the other parameters as [`EmState::m_step`].
    pub fn m_step_prior(&mut self, stats: &EStats, prior: &[(f64, f64)]) -> Result<()> {
        self.m_step(stats)?;
        for (t, v) in self.pair_vecs().into_iter().enumerate() {
            let (a, b) = prior[t];
            let table = &stats.tables[t];
            for (i, x) in v.iter_mut().enumerate() {
                let (num, den) = table.sums(i);
                *x = super::ebprior::value(a, b, num, den);
            }
        }
        Ok(())
    }

    /// The per-pair parameter vectors, in the order of the statistics' pair tables
    /// ([`pair_tables`]).
    pub fn pair_vecs(&mut self) -> Vec<&mut Vec<f64>> {
        match self {
            EmState::Sdbn(m) => vec![&mut m.attractiveness, &mut m.satisfaction],
            EmState::Dbn(m, _) => vec![&mut m.attractiveness, &mut m.satisfaction],
            EmState::Ubm(m) => vec![&mut m.attractiveness],
            EmState::Ccm(m) => vec![&mut m.attractiveness],
            EmState::Pbm(m) => vec![&mut m.attractiveness],
        }
    }

    /// Moves the per-pair vectors out (leaving them empty): the query-independent state.
    pub fn take_pair_vecs(&mut self) -> Vec<Vec<f64>> {
        self.pair_vecs().into_iter().map(std::mem::take).collect()
    }

    /// Puts per-pair vectors in, in the order of [`EmState::pair_vecs`].
    pub fn put_pair_vecs(&mut self, vecs: Vec<Vec<f64>>) {
        for (slot, v) in self.pair_vecs().into_iter().zip(vecs) {
            *slot = v;
        }
    }

    /// The current model.
    pub fn model(&self) -> Box<dyn ClickModel> {
        match self {
            EmState::Sdbn(m) => Box::new(m.clone()),
            EmState::Dbn(m, _) => Box::new(m.clone()),
            EmState::Ubm(m) => Box::new(m.clone()),
            EmState::Ccm(m) => Box::new(m.clone()),
            EmState::Pbm(m) => Box::new(m.clone()),
        }
    }
}

const STATE_MAGIC: &[u8; 8] = b"SSEMST01";

impl EmState {
    /// The current parameters as little-endian bytes (what a distributed fit broadcasts to
    /// its workers each iteration); [`EmState::from_bytes`] restores the state bit for bit.
    pub fn to_bytes(&self) -> Vec<u8> {
        let (flag, scalars, vecs): (u8, Vec<f64>, Vec<&[f64]>) = match self {
            EmState::Sdbn(m) => (0, vec![], vec![&m.attractiveness, &m.satisfaction]),
            EmState::Dbn(m, fit) => (u8::from(*fit), vec![m.gamma], vec![&m.attractiveness, &m.satisfaction]),
            EmState::Ccm(m) => (0, vec![m.tau1, m.tau2, m.tau3], vec![&m.attractiveness]),
            EmState::Pbm(m) => (0, vec![], vec![&m.attractiveness, &m.examination]),
            EmState::Ubm(m) => {
                let mut v: Vec<&[f64]> = vec![&m.attractiveness];
                v.extend(m.examination.iter().map(Vec::as_slice));
                (0, vec![], v)
            }
        };
        let mut out = Vec::new();
        out.extend_from_slice(STATE_MAGIC);
        let name = self.kind().name().as_bytes();
        out.push(name.len() as u8);
        out.extend_from_slice(name);
        out.push(flag);
        for list in std::iter::once(scalars.as_slice()).chain(vecs.iter().copied()) {
            out.extend_from_slice(&(list.len() as u64).to_le_bytes());
            for x in list {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out
    }

    /// Decodes [`EmState::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = |why: &str| Error::Invalid(format!("click-model state: {why}"));
        let mut r = Reader { b: bytes, at: 0 };
        if r.take(8).ok_or_else(|| bad("truncated"))? != STATE_MAGIC {
            return Err(bad("not a serpsim click-model state (bad magic)"));
        }
        let n = r.take(1).ok_or_else(|| bad("truncated"))?[0] as usize;
        let name = std::str::from_utf8(r.take(n).ok_or_else(|| bad("truncated"))?).map_err(|_| bad("bad model name"))?;
        let kind: ModelKind = name.parse()?;
        let flag = r.take(1).ok_or_else(|| bad("truncated"))?[0] != 0;
        let mut lists = Vec::new();
        while r.at < bytes.len() {
            let len = r.u64().ok_or_else(|| bad("truncated"))? as usize;
            let raw = r.take(len.checked_mul(8).ok_or_else(|| bad("corrupt length"))?).ok_or_else(|| bad("truncated"))?;
            lists.push(raw.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect::<Vec<f64>>());
        }
        let mut it = lists.into_iter();
        let mut next = || it.next().ok_or_else(|| bad("missing parameters"));
        let scalars = next()?;
        let scalar = |i: usize| scalars.get(i).copied().ok_or_else(|| bad("missing scalar parameter"));
        Ok(match kind {
            ModelKind::Sdbn => EmState::Sdbn(Sdbn { attractiveness: next()?, satisfaction: next()? }),
            ModelKind::Dbn => EmState::Dbn(Dbn { gamma: scalar(0)?, attractiveness: next()?, satisfaction: next()? }, flag),
            ModelKind::Ccm => EmState::Ccm(Ccm { tau1: scalar(0)?, tau2: scalar(1)?, tau3: scalar(2)?, attractiveness: next()? }),
            ModelKind::Pbm => EmState::Pbm(Pbm { attractiveness: next()?, examination: next()? }),
            ModelKind::Ubm => {
                let attractiveness = next()?;
                EmState::Ubm(Ubm { attractiveness, examination: it.collect() })
            }
            other => return Err(bad(&format!("{other} has no EM state"))),
        })
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_trial_counts_as_adding_zero_or_one_in_one() {
        // Hand derivation: 1.0 is exactly 2^60 in the fixed point, so add_trial must give the
        // very same table as add(i, 0 or 1, 1.0), entry by entry.
        let (mut a, mut b) = (Counts::default(), Counts::default());
        for (i, c) in [(0usize, true), (3, false), (0, false), (7, true), (3, true), (3, true)] {
            a.add_trial(i, c);
            b.add(i, f64::from(u8::from(c)), 1.0);
        }
        assert_eq!(a, b);
        assert_eq!(a.num[3], 2 << 60);
        assert_eq!(a.den[3], 3 << 60);
    }

    use super::*;

    #[test]
    fn fixed_point_sums_do_not_depend_on_order() {
        // In f64, (1e16 + 1) - 1e16 loses the 1; the fixed-point sum does not (hand derivation).
        let terms = [0.1, 0.2, 0.3, 1.0 / 3.0, 2.0 / 3.0, 1e-17, 7.5];
        let mut fwd = ExactSum::default();
        terms.iter().for_each(|&x| fwd.add(x));
        let mut rev = ExactSum::default();
        terms.iter().rev().for_each(|&x| rev.add(x));
        assert_eq!(fwd, rev);
        // Truncation error per term is below 2^-60: the sum is within 7 * 2^-60 of the exact
        // real sum of the f64 terms, 9.1 (to 1e-15).
        assert!((fwd.value() - 9.1).abs() < 1e-15);
        let mut big = ExactSum::default();
        big.add(-13.8);
        big.add(13.8);
        assert_eq!(big.value(), 0.0);
    }

    #[test]
    fn merging_is_associative_where_f64_is_not() {
        // In f64, (0.1 + 0.2) + 0.3 = 0.6000000000000001 but 0.1 + (0.2 + 0.3) = 0.6 (Python
        // prints both): an f64 accumulator depends on how the parts are grouped; these do not.
        let part = |x: f64| {
            let mut c = Counts::with_len(1);
            c.add(0, x, 1.0);
            c
        };
        let (a, b, c) = (part(0.1), part(0.2), part(0.3));
        let mut left = a.clone();
        left.merge(&b);
        left.merge(&c);
        let mut bc = b.clone();
        bc.merge(&c);
        let mut right = a.clone();
        right.merge(&bc);
        assert_eq!(left, right);
        assert_eq!(left.values(1, false), right.values(1, false));
    }

    #[test]
    fn a_fitted_priors_tables_leave_the_models_own_statistics_as_they_are() {
        // The informative-trial tables sit after the model's own (UBM: between attractiveness
        // and the examination rows); with them dropped the statistics, and with them in the
        // M-step's model, are those of a fit without them. Two passes, so that the second
        // E-step runs at fitted (not all-equal) parameters.
        use crate::logs::{Format, LogData};
        let data = LogData::parse("q\ta,b,c,d : b; q\tb,a,d :; q\ta,b,c : a,c\nr\tc,d,e,f,g : d,g\n", Format::Yandex, "x", false).unwrap();
        for kind in [ModelKind::Dbn, ModelKind::Ubm, ModelKind::Ccm, ModelKind::Pbm] {
            let mut state = EmState::new(&ModelConfig::new(kind, EmConfig::default())).unwrap();
            for _ in 0..2 {
                let (mut plain, mut eb) = (state.new_stats(), state.new_stats());
                eb.add_eb_tables(0);
                assert!(eb.has_eb_tables() && eb.tables.len() == plain.tables.len() + pair_tables(kind), "{kind}");
                for s in data.log.iter() {
                    state.accumulate(s, &mut plain);
                    state.accumulate(s, &mut eb);
                }
                let (mut a, mut b) = (state.clone(), state.clone());
                a.m_step(&plain).unwrap();
                b.m_step(&eb).unwrap();
                assert_eq!(a.to_bytes(), b.to_bytes(), "{kind}");
                // A click is a success of one trial: 5 clicks in all.
                assert_eq!(eb.eb_counts(0).entries().map(|(_, n, _)| n).sum::<i128>(), 5 << 60, "{kind}");
                eb.drop_eb_tables();
                assert_eq!(eb, plain, "{kind}");
                state = a;
            }
        }
    }

    #[test]
    fn statistics_round_trip_through_bytes() {
        let mut st = EStats::new(ModelKind::Dbn, 4);
        st.tables[0].add(2, 0.25, 1.0);
        st.tables[2].add(0, 1.0 / 3.0, 0.5);
        st.sessions = 3;
        let back = EStats::from_bytes(&st.to_bytes()).unwrap();
        assert_eq!(back, st);
        let mut bytes = st.to_bytes();
        bytes.pop();
        assert!(EStats::from_bytes(&bytes).is_err());
        assert!(EStats::from_bytes(b"nonsense").is_err());
        let state = EmState::Dbn(Dbn { attractiveness: vec![0.25, 1.0 / 3.0], satisfaction: vec![0.5], gamma: 0.7 }, true);
        let back = EmState::from_bytes(&state.to_bytes()).unwrap();
        assert_eq!(back.to_bytes(), state.to_bytes());
        let ubm = EmState::Ubm(Ubm { attractiveness: vec![0.1], examination: vec![vec![0.9], vec![0.8, 0.7]] });
        assert_eq!(EmState::from_bytes(&ubm.to_bytes()).unwrap().model().to_table(), ubm.model().to_table());
    }
}
