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

use super::table::{ModelKind, ParamTable};
use super::ClickModel;
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

/// A sum of squares that does not depend on the order of its terms: each term is truncated
/// to a multiple of 2^-80 and the multiples are added as integers (terms up to 16, up to
/// 2^40 of them). SQUAREM's step length is computed from such sums, so a fit whose
/// parameters are visited in another order (shard by shard) takes the same step, bit for bit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FineSum(i128);

impl FineSum {
    const SCALE: f64 = (1u128 << 80) as f64;
    /// Adds a term (finite, |x| <= 16).
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.0 += (x * Self::SCALE) as i128;
    }
    /// Adds another sum.
    pub fn merge(&mut self, other: FineSum) {
        self.0 += other.0;
    }
    /// The sum.
    pub fn value(self) -> f64 {
        self.0 as f64 / Self::SCALE
    }
    /// The sum as its integer multiple of 2^-80 (for sending it elsewhere exactly).
    pub fn to_bits(self) -> i128 {
        self.0
    }
    /// The sum of [`FineSum::to_bits`].
    pub fn from_bits(bits: i128) -> Self {
        FineSum(bits)
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
    /// The layout of the tables.
    shape: StatsShape,
}

/// The layout of a model's statistics tables (each model's `SPEC` gives its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatsShape {
    /// The model's own tables of new statistics: `None` sized for the pairs, `Some(n)` with
    /// `n` entries (ranks, scalars). More may be added by `accumulate` (UBM's rows).
    pub tables: &'static [Option<usize>],
    /// Pair-indexed tables: the first ones (the rest are indexed by rank or hold
    /// query-independent values).
    pub pair_tables: usize,
    /// The number of the model's own tables when it is fixed (0: UBM, whose rank tables grow
    /// with the lists, and the counting models).
    pub base_tables: usize,
    /// Where the tables of a fitted prior's informative trials go ([`EStats::add_eb_tables`]):
    /// after the model's own tables when their number is fixed (DBN, CCM, PBM), right after
    /// the attractiveness table for UBM (its examination rows, which grow with the lists,
    /// move one place on); `None` for the models without a fitted prior.
    pub eb_at: Option<usize>,
}

impl StatsShape {
    /// No tables (the models fitted by a single count).
    pub const NONE: StatsShape = StatsShape { tables: &[], pair_tables: 0, base_tables: 0, eb_at: None };
}

const MAGIC: &[u8; 8] = b"SSESTAT2";

impl EStats {
    /// Empty statistics of `kind` laid out as `shape`, with pair tables sized for `pairs`
    /// pairs (`EStats::new` takes the shape from the registry).
    pub fn with_shape(kind: ModelKind, shape: StatsShape, pairs: usize) -> Self {
        let tables = shape.tables.iter().map(|n| Counts::with_len(n.unwrap_or(pairs))).collect();
        EStats { kind, sessions: 0, tables, log_likelihood: ExactSum::default(), eb: false, shape }
    }

    /// The layout of the tables.
    pub fn shape(&self) -> StatsShape {
        self.shape
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
            if self.shape.base_tables == 0 {
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
        let k = self.shape.pair_tables;
        let eb = self.eb_range();
        for (i, t) in self.tables.iter_mut().enumerate() {
            if i < k || eb.contains(&i) {
                t.remap(map);
            }
        }
    }

    /// The indices of the tables of [`EStats::add_eb_tables`] (empty without them).
    fn eb_range(&self) -> std::ops::Range<usize> {
        match self.shape.eb_at {
            Some(at) if self.eb => at..at + self.shape.pair_tables,
            _ => 0..0,
        }
    }

    /// Adds the per-pair tables of a fitted prior's informative trials, one per per-pair table
    /// ([`StatsShape::eb_at`]: after the model's own tables; UBM's right after its attractiveness
    /// table). DBN: attractiveness as clicks of expected examinations, satisfaction as
    /// satisfied of informative last clicks; CCM, PBM and UBM: attractiveness as clicks of
    /// expected examinations (see each model's `accumulate` and [`super::ebprior`]). Call it
    /// on new statistics, before any session is added.
    pub fn add_eb_tables(&mut self, pairs: usize) {
        let Some(at) = self.shape.eb_at else { return };
        if self.eb {
            return;
        }
        if self.tables.len() < at {
            self.tables.resize_with(at, Counts::default);
        }
        let fresh: Vec<Counts> = (0..self.shape.pair_tables).map(|_| self.new_table(pairs)).collect();
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

    /// Decodes [`EStats::to_bytes`], the model named in the bytes resolved by `model` to its
    /// kind and layout (`EStats::from_bytes` resolves it in the registry).
    pub fn from_bytes_with(bytes: &[u8], model: &dyn Fn(&str) -> Result<(ModelKind, StatsShape)>) -> Result<Self> {
        let bad = |why: &str| Error::Invalid(format!("E-step statistics: {why}"));
        let mut r = Reader { b: bytes, at: 0 };
        if r.take(8).ok_or_else(|| bad("truncated"))? != MAGIC {
            return Err(bad("not serpsim E-step statistics (bad magic)"));
        }
        let n = r.take(1).ok_or_else(|| bad("truncated"))?[0] as usize;
        let name = std::str::from_utf8(r.take(n).ok_or_else(|| bad("truncated"))?).map_err(|_| bad("bad model name"))?;
        let (kind, shape) = model(name)?;
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
        let eb = shape.base_tables > 0 && tables.len() == shape.base_tables + shape.pair_tables;
        Ok(EStats { kind, sessions, tables, log_likelihood, eb, shape })
    }

    /// Bytes held by the tables (the memory of a streamed fit besides the parameters and the
    /// vocabulary).
    pub fn heap_bytes(&self) -> usize {
        self.tables.iter().map(Counts::heap_bytes).sum()
    }
}

pub(crate) struct Reader<'a> {
    pub(crate) b: &'a [u8],
    pub(crate) at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    pub(crate) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn i128(&mut self) -> Option<i128> {
        Some(i128::from_le_bytes(self.take(16)?.try_into().ok()?))
    }
}

/// A model fitted from E-step statistics (DBN, UBM, CCM, PBM by EM; SDBN in one pass), as the
/// driver sees it: the current parameters, the E-step that adds a session's expected counts
/// and the M-step that re-estimates the parameters from their sum. One file per model
/// implements it (`dbn.rs`, ...) and lists itself in the registry (`clickmodels::MODELS`).
pub trait EmModel: EmModelCopy + Send + Sync + std::fmt::Debug {
    /// Which model this is.
    fn kind(&self) -> ModelKind;

    /// E-step: adds one session's expected counts under the current parameters to `stats`
    /// (laid out as the model's `StatsShape`; with a fitted prior's informative trials
    /// when [`EStats::has_eb_tables`]).
    fn accumulate(&self, s: SessionRef<'_>, stats: &mut EStats, buf: &mut Scratch);

    /// M-step: the parameters re-estimated from `stats` (summed over every session).
    fn m_step(&self, stats: &EStats) -> Box<dyn EmModel>;

    /// The current parameters as a click model (the log-likelihood of a pass).
    fn model(&self) -> &dyn ClickModel;

    /// The current parameters as a fitted model.
    fn fitted(&self) -> Box<dyn ClickModel>;

    /// The parameters as named tables (the model file's parameter part).
    fn to_table(&self) -> ParamTable {
        self.model().to_table()
    }

    /// Whether every pair has the same parameters (none fitted yet: the starting state), so
    /// that an E-step does not depend on how pairs are numbered.
    fn pair_free(&self) -> bool;

    /// The per-pair parameter vectors, in the order of the statistics' pair tables.
    fn pair_vecs(&mut self) -> Vec<&mut Vec<f64>>;

    /// Every probability as slices in a fixed order (SQUAREM works on them).
    fn params_mut(&mut self) -> Vec<&mut [f64]>;

    /// Holds the examination of rank 1 at `t` (models with `top_examination`; others ignore it).
    fn pin_top(&mut self, t: f64) {
        let _ = t;
    }

    /// The parameters for [`super::state::EmState::to_bytes`]: a flag byte, the scalars and
    /// the vectors (the model's `decode` in its spec reverses it).
    fn encode(&self) -> (u8, Vec<f64>, Vec<&[f64]>);
}

/// What every [`EmModel`] has without writing it: a boxed copy and the concrete model back
/// (implemented for every `Clone` model).
pub trait EmModelCopy {
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn EmModel>;

    /// The state as `Any` (to get the concrete model back: [`super::state::EmState::get`]).
    fn as_any(&self) -> &dyn std::any::Any;
}

impl<T: EmModel + Clone + 'static> EmModelCopy for T {
    fn clone_box(&self) -> Box<dyn EmModel> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
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
}
