//! Streaming, mergeable summaries whose result does not depend on the order values arrive or
//! partial summaries merge in (so a parallel run is byte-identical for any thread count), and
//! whose memory does not grow with the number of values.
//!
//! - [`Moments`]: count, exact sum and sum of squares in 2^-32 fixed point (integer addition is
//!   associative, so merge order cannot change a bit), minimum and maximum.
//! - [`Sketch`]: the distribution. Exact while the values are small non-negative integers (a
//!   count per value: depth, clicks, queries) or while there are at most [`EXACT_CAP`] distinct
//!   values; beyond that, logarithmic buckets with relative accuracy [`RELATIVE_ACCURACY`]
//!   (DDSketch, Masson et al. 2019): every quantile is then within 0.2 % (relative) of the value
//!   of the sample at the same rank, and the bucket counts still merge exactly.

use serde::Serialize;
use std::collections::HashMap;

/// Largest number of distinct values a [`Sketch`] keeps exactly.
pub const EXACT_CAP: usize = 2048;
/// Relative accuracy alpha of the bucketed [`Sketch`]: a bucketed quantile q~ of a true
/// order statistic x satisfies |q~ - x| <= alpha |x|.
pub const RELATIVE_ACCURACY: f64 = 0.002;
/// Largest value kept in the dense integer form.
const DENSE_MAX: f64 = 65_535.0;
const SCALE: f64 = 4_294_967_296.0; // 2^32

/// Fixed-point value of `x` (2^-32 units).
#[inline]
fn fixed(x: f64) -> i128 {
    round_i128(x * SCALE)
}

/// `v.round() as i128` (half away from zero; saturating, NaN to 0) without the calls to
/// `round` and the 128-bit conversion for |v| < 2^62: truncate to i64, then round on the
/// exact fraction `v - trunc(v)` (exact for |v| < 2^52; from 2^52 on every value is an
/// integer and the fraction is 0). The report's gain curves take two per gain event.
#[inline]
pub fn round_i128(v: f64) -> i128 {
    if v.abs() < 4.611_686_018_427_388e18 {
        let t = v as i64;
        let f = v - t as f64;
        let r = if f >= 0.5 {
            t + 1
        } else if f <= -0.5 {
            t - 1
        } else {
            t
        };
        r as i128
    } else {
        v.round() as i128
    }
}

/// Count, exact sum and sum of squares, minimum and maximum of a stream of values. Values add
/// into f64 partial sums in arrival order (deterministic within one accumulator); merging
/// moves partial sums into 2^-32 fixed point, whose addition is associative.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments {
    /// Values seen.
    pub n: u64,
    sum_f: f64,
    sumsq_f: f64,
    sum: i128,
    sumsq: i128,
    /// Smallest value (+inf when empty).
    pub min: f64,
    /// Largest value (-inf when empty).
    pub max: f64,
}

impl Default for Moments {
    fn default() -> Self {
        Moments { n: 0, sum_f: 0.0, sumsq_f: 0.0, sum: 0, sumsq: 0, min: f64::INFINITY, max: f64::NEG_INFINITY }
    }
}

impl Moments {
    /// Adds a value.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum_f += x;
        self.sumsq_f += x * x;
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    fn fixed_sums(&self) -> (i128, i128) {
        (self.sum + fixed(self.sum_f), self.sumsq + fixed(self.sumsq_f))
    }

    /// Merges another summary in.
    pub fn merge(&mut self, o: &Moments) {
        let (a, a2) = self.fixed_sums();
        let (b, b2) = o.fixed_sums();
        self.n += o.n;
        self.sum = a + b;
        self.sumsq = a2 + b2;
        self.sum_f = 0.0;
        self.sumsq_f = 0.0;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }

    /// Sum of the values.
    pub fn sum(&self) -> f64 {
        self.fixed_sums().0 as f64 / SCALE
    }

    /// Mean (NaN when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.fixed_sums().0 as f64 / SCALE / self.n as f64
        }
    }

    /// Sample standard deviation (n - 1); 0 for fewer than two values.
    pub fn sd(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        // Sum of squared deviations = sumsq - sum^2 / n, in fixed point as far as possible.
        let n = self.n as f64;
        let (s, ss) = self.fixed_sums();
        let (s, ss) = (s as f64 / SCALE, ss as f64 / SCALE);
        ((ss - s * s / n) / (n - 1.0)).max(0.0).sqrt()
    }

    /// Standard error of the mean.
    pub fn se(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.sd() / (self.n as f64).sqrt()
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Repr {
    /// Counts of the values 0, 1, 2, ... (all values so far are such integers).
    Dense(Vec<u64>),
    /// Exact counts per distinct value (keyed by the value's bits).
    Exact(HashMap<u64, u64, BuildMix>),
    /// Logarithmic buckets: counts of positive and of negative values by the bucket of |v|.
    Buckets { zero: u64, pos: Side, neg: Side },
}

/// Buckets per page of a [`Side`].
const PAGE: i32 = 64;

/// The bucket counts of one sign, in pages of [`PAGE`] buckets allocated where a value fell: a
/// few values far from the others (differences of 1e-13 s from rounding next to differences of
/// minutes) cost a page each, not every bucket in between (a dense vector of the span cost
/// 74 kB per sketch and 165 MB in a sweep of 78 profiles).
#[derive(Debug, Clone, PartialEq, Default)]
struct Side {
    /// Bucket index of the first slot of `pages[0]` (a multiple of [`PAGE`]).
    first: i32,
    pages: Vec<Option<Box<[u64; PAGE as usize]>>>,
}

impl Side {
    #[inline]
    fn bump(&mut self, i: i32, c: u64) {
        let page = i.div_euclid(PAGE) * PAGE;
        if self.pages.is_empty() {
            self.first = page;
        }
        if page < self.first {
            let extra = ((self.first - page) / PAGE) as usize;
            self.pages.splice(0..0, std::iter::repeat_with(|| None).take(extra));
            self.first = page;
        }
        let k = ((page - self.first) / PAGE) as usize;
        if k >= self.pages.len() {
            self.pages.resize_with(k + 1, || None);
        }
        let slots = self.pages[k].get_or_insert_with(|| Box::new([0; PAGE as usize]));
        slots[(i - page) as usize] += c;
    }

    /// `(bucket index, count)` of every non-empty bucket, in index order.
    fn entries(&self) -> impl Iterator<Item = (i32, u64)> + '_ {
        self.pages.iter().enumerate().filter_map(|(k, p)| p.as_ref().map(|p| (k, p))).flat_map(move |(k, p)| {
            let base = self.first + k as i32 * PAGE;
            p.iter().enumerate().filter(|(_, &c)| c > 0).map(move |(j, &c)| (base + j as i32, c))
        })
    }

    /// The dense form: the first non-empty bucket's index and the counts from it to the last.
    fn dense(&self) -> (i32, Vec<u64>) {
        let e: Vec<(i32, u64)> = self.entries().collect();
        let (Some(&(lo, _)), Some(&(hi, _))) = (e.first(), e.last()) else { return (0, Vec::new()) };
        let mut v = vec![0; (hi - lo + 1) as usize];
        for (i, c) in e {
            v[(i - lo) as usize] = c;
        }
        (lo, v)
    }

    /// From the dense form (zeros skipped).
    fn from_dense(offset: i32, v: &[u64]) -> Side {
        let mut s = Side::default();
        for (j, &c) in v.iter().enumerate() {
            if c > 0 {
                s.bump(offset + j as i32, c);
            }
        }
        s
    }
}

/// A hasher for f64 bit patterns (SplitMix64 finaliser).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BuildMix;

/// The hasher of [`BuildMix`].
#[derive(Debug, Clone, Copy, Default)]
pub struct MixHasher(u64);

impl std::hash::Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = crate::rng::mix64(self.0 ^ b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = crate::rng::mix64(self.0 ^ x);
    }
}

impl std::hash::BuildHasher for BuildMix {
    type Hasher = MixHasher;
    fn build_hasher(&self) -> MixHasher {
        MixHasher(0)
    }
}

/// A mergeable distribution sketch (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Sketch {
    repr: Repr,
    n: u64,
}

impl Default for Sketch {
    fn default() -> Self {
        Sketch { repr: Repr::Dense(Vec::new()), n: 0 }
    }
}

#[inline]
fn gamma() -> f64 {
    (1.0 + RELATIVE_ACCURACY) / (1.0 - RELATIVE_ACCURACY)
}

#[inline]
fn bucket_of(x: f64) -> i32 {
    ceil_i32(x.ln() / gamma().ln())
}

/// `y.ceil() as i32` without the call to `ceil` for |y| < 2^30 (the truncation toward zero,
/// then one up when it lies below `y`).
#[inline]
pub fn ceil_i32(y: f64) -> i32 {
    if y.abs() < 1_073_741_824.0 {
        let t = y as i32;
        if (t as f64) < y {
            t + 1
        } else {
            t
        }
    } else {
        y.ceil() as i32
    }
}

/// Representative value of bucket `i`: 2 gamma^i / (gamma + 1), within relative error alpha of
/// every value in (gamma^(i-1), gamma^i].
#[inline]
fn bucket_value(i: i32) -> f64 {
    let g = gamma();
    2.0 * g.powi(i) / (g + 1.0)
}

impl Sketch {
    /// Values seen.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// An empty sketch that buckets from its first value (as a sketch does once it has seen more
    /// than [`EXACT_CAP`] distinct values). Merged into a bucketed sketch, it gives what an exact
    /// sketch of the same values gives.
    pub fn bucketed() -> Self {
        Sketch { repr: Repr::Buckets { zero: 0, pos: Side::default(), neg: Side::default() }, n: 0 }
    }

    /// True while every quantile is exact (no bucketing happened).
    pub fn is_exact(&self) -> bool {
        !matches!(self.repr, Repr::Buckets { .. })
    }

    /// Adds a value (NaN is ignored).
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.add_count(x, 1);
    }

    /// Adds `c` copies of a value.
    #[inline]
    pub fn add_count(&mut self, x: f64, c: u64) {
        if x.is_nan() || c == 0 {
            return;
        }
        self.n += c;
        match &mut self.repr {
            Repr::Dense(v) if (0.0..=DENSE_MAX).contains(&x) && x.fract() == 0.0 => {
                let i = x as usize;
                if i >= v.len() {
                    v.resize(i + 1, 0);
                }
                v[i] += c;
                return;
            }
            Repr::Dense(_) => {
                self.switch_to_exact();
            }
            _ => {}
        }
        match &mut self.repr {
            Repr::Exact(m) => {
                *m.entry(normalise(x).to_bits()).or_insert(0) += c;
                if m.len() > EXACT_CAP {
                    self.switch_to_buckets();
                }
            }
            Repr::Buckets { .. } => self.bucket_add(x, c),
            Repr::Dense(_) => unreachable!("converted above"),
        }
    }

    fn bucket_add(&mut self, x: f64, c: u64) {
        if let Repr::Buckets { zero, pos, neg } = &mut self.repr {
            if x == 0.0 {
                *zero += c;
            } else if x > 0.0 {
                pos.bump(bucket_of(x), c);
            } else {
                neg.bump(bucket_of(-x), c);
            }
        }
    }

    fn switch_to_exact(&mut self) {
        if let Repr::Dense(v) = &self.repr {
            let mut m: HashMap<u64, u64, BuildMix> = HashMap::with_hasher(BuildMix);
            for (i, &c) in v.iter().enumerate() {
                if c > 0 {
                    m.insert((i as f64).to_bits(), c);
                }
            }
            self.repr = Repr::Exact(m);
            if let Repr::Exact(m) = &self.repr {
                if m.len() > EXACT_CAP {
                    self.switch_to_buckets();
                }
            }
        }
    }

    fn switch_to_buckets(&mut self) {
        // Unsorted: a bucket's count does not depend on the order its values arrive in.
        let entries = self.raw_entries();
        self.repr = Repr::Buckets { zero: 0, pos: Side::default(), neg: Side::default() };
        for (v, c) in entries {
            self.bucket_add(v, c);
        }
    }

    /// Merges another sketch in (the result depends only on the union of the values).
    pub fn merge(&mut self, o: &Sketch) {
        if o.n == 0 {
            return;
        }
        match (&mut self.repr, &o.repr) {
            (Repr::Dense(a), Repr::Dense(b)) => {
                if a.len() < b.len() {
                    a.resize(b.len(), 0);
                }
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                self.n += o.n;
            }
            _ => {
                if matches!(o.repr, Repr::Buckets { .. }) && !matches!(self.repr, Repr::Buckets { .. }) {
                    // The union has more than EXACT_CAP distinct values too.
                    self.switch_to_exact();
                    self.switch_to_buckets();
                }
                if let (Repr::Buckets { zero, pos, neg }, Repr::Buckets { zero: oz, pos: op, neg: on }) = (&mut self.repr, &o.repr) {
                    // Bucket by bucket. Adding the other's representative values instead lands
                    // each in its own bucket again wherever the representative is a normal
                    // number (the test `bucket_representatives_fall_back_into_their_bucket`), but
                    // costs a logarithm and a power per bucket, sends the subnormal buckets to
                    // zero and overflowed to a panic above 1.1e308.
                    *zero += oz;
                    for (side, other) in [(pos, op), (neg, on)] {
                        for (i, c) in other.entries() {
                            side.bump(i, c);
                        }
                    }
                    self.n += o.n;
                } else {
                    for (v, c) in o.raw_entries() {
                        self.add_count(v, c);
                    }
                }
            }
        }
    }

    /// Raw entries: exact values, or bucket representatives, with counts (unsorted).
    fn raw_entries(&self) -> Vec<(f64, u64)> {
        match &self.repr {
            Repr::Dense(v) => v.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, &c)| (i as f64, c)).collect(),
            Repr::Exact(m) => m.iter().map(|(&b, &c)| (f64::from_bits(b), c)).collect(),
            Repr::Buckets { zero, pos, neg } => {
                let mut out: Vec<(f64, u64)> = neg.entries().map(|(i, c)| (-bucket_value(i), c)).collect();
                if *zero > 0 {
                    out.push((0.0, *zero));
                }
                out.extend(pos.entries().map(|(i, c)| (bucket_value(i), c)));
                out
            }
        }
    }

    /// `(value, count)` pairs sorted by value.
    pub fn entries(&self) -> Vec<(f64, u64)> {
        let mut e = self.raw_entries();
        e.sort_by(|a, b| a.0.total_cmp(&b.0));
        e
    }

    /// Type-7 quantile (Hyndman-Fan, as R and NumPy) of the values: exact when
    /// [`Sketch::is_exact`], else within the relative accuracy. NaN when empty.
    pub fn quantile(&self, q: f64) -> f64 {
        quantiles_of(&self.entries(), self.n, &[q])[0]
    }

    /// Several quantiles at once.
    pub fn quantiles(&self, qs: &[f64]) -> Vec<f64> {
        quantiles_of(&self.entries(), self.n, qs)
    }

    /// Fraction of values `< x`, `== x` (by the sketch's values).
    pub fn cdf_parts(&self, x: f64) -> (f64, f64) {
        if self.n == 0 {
            return (f64::NAN, f64::NAN);
        }
        let (mut below, mut at) = (0u64, 0u64);
        for (v, c) in self.raw_entries() {
            if v < x {
                below += c;
            } else if v == x {
                at += c;
            }
        }
        (below as f64 / self.n as f64, at as f64 / self.n as f64)
    }
}

/// -0.0 and 0.0 are one value.
#[inline]
fn normalise(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x
    }
}

/// Type-7 quantiles of the sample given as sorted `(value, count)` pairs with `n` values.
pub fn quantiles_of(entries: &[(f64, u64)], n: u64, qs: &[f64]) -> Vec<f64> {
    if n == 0 {
        return vec![f64::NAN; qs.len()];
    }
    let at = |i: u64| -> f64 {
        let mut seen = 0;
        for &(v, c) in entries {
            seen += c;
            if i < seen {
                return v;
            }
        }
        entries.last().map_or(f64::NAN, |e| e.0)
    };
    qs.iter()
        .map(|&q| {
            let h = (n - 1) as f64 * q.clamp(0.0, 1.0);
            let lo = h.floor() as u64;
            let a = at(lo);
            let b = at((lo + 1).min(n - 1));
            a + (h - lo as f64) * (b - a)
        })
        .collect()
}

/// Summary statistics of a sketch plus moments, in the shape of [`super::Summary`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamSummary {
    /// Values.
    pub n: u64,
    /// Mean.
    pub mean: f64,
    /// Sd (n - 1).
    pub sd: f64,
    /// Standard error of the mean.
    pub se: f64,
    /// Minimum (exact).
    pub min: f64,
    /// Quantiles 5, 25, 50, 75, 95 %.
    pub q05: f64,
    /// First quartile.
    pub q25: f64,
    /// Median.
    pub q50: f64,
    /// Third quartile.
    pub q75: f64,
    /// 95th percentile.
    pub q95: f64,
    /// Maximum (exact).
    pub max: f64,
    /// Whether the quantiles are exact (else within [`RELATIVE_ACCURACY`]).
    pub exact: bool,
}

impl StreamSummary {
    /// From moments and a sketch of the same values (the sketch may be empty: quantiles NaN).
    pub fn of(m: &Moments, s: &Sketch) -> Self {
        let q = s.quantiles(&[0.05, 0.25, 0.5, 0.75, 0.95]);
        StreamSummary {
            n: m.n,
            mean: m.mean(),
            sd: m.sd(),
            se: m.se(),
            min: if m.n == 0 { f64::NAN } else { m.min },
            q05: q[0],
            q25: q[1],
            q50: q[2],
            q75: q[3],
            q95: q[4],
            max: if m.n == 0 { f64::NAN } else { m.max },
            exact: s.is_exact(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{quantile_sorted, Summary};

    #[test]
    fn bucket_representatives_fall_back_into_their_bucket() {
        // Every bucket whose representative is a normal number maps back to itself, so merging
        // bucket by bucket gives what adding the representatives gave (the merge before
        // 2026-11-27) for every such bucket. The normal range, found by scanning: buckets
        // -177,098 to 177,272 at relative accuracy 0.002; just outside, not normal.
        let (lo, hi) = (-177_098, 177_272);
        for i in lo..=hi {
            let v = bucket_value(i);
            assert!(v.is_normal(), "bucket {i}: {v:e}");
            assert_eq!(bucket_of(v), i, "bucket {i}: {v:e}");
        }
        assert!(!bucket_value(lo - 1).is_normal() && !bucket_value(hi + 1).is_normal());
    }

    #[test]
    fn bucketed_merge_is_the_sketch_of_the_union() {
        // Two bucketed sketches over 30 orders of magnitude, both signs, zeros, the subnormal
        // end and values near f64::MAX: merging them equals one sketch fed every value (the
        // module's promise: the result depends only on the union of the values).
        let mut z = 7u64;
        let mut draw = |scale: f64| {
            z = crate::rng::mix64(z);
            let u = crate::rng::unit(z);
            let sign = if z & 1 == 1 { -1.0 } else { 1.0 };
            sign * scale * 10f64.powf(u * 30.0 - 15.0)
        };
        // `b_early` buckets from its first value (`Sketch::bucketed`, as the report's units do
        // once an earlier unit bucketed the run's sketch): merged, it gives the same.
        let (mut a, mut b, mut b_early, mut all) = (Sketch::default(), Sketch::default(), Sketch::bucketed(), Sketch::default());
        for _ in 0..20_000 {
            let (x, y) = (draw(1.0), draw(3.0));
            a.add(x);
            b.add(y);
            b_early.add(y);
            all.add(x);
            all.add(y);
        }
        for x in [0.0, -0.0, 5e-324, -5e-324, 1e-310, 1.5e308, -1.7e308, 3.0, 7.0] {
            b.add(x);
            b_early.add(x);
            all.add(x);
        }
        assert!(!a.is_exact() && !b.is_exact());
        for other in [&b, &b_early] {
            let mut merged = a.clone();
            merged.merge(other);
            assert_eq!(merged, all);
            assert_eq!(merged.n(), 40_009);
        }
    }

    #[test]
    fn ceil_i32_equals_std_ceil() {
        // Reference: `f64::ceil` and the saturating `as i32` cast.
        let mut v = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.5,
            -2.5,
            1e-300,
            -1e-300,
            1_073_741_823.5,
            -1_073_741_823.5,
            3e9,
            -3e9,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(f64::from_bits(x));
            v.push(((x % 2_000_001) as f64 - 1_000_000.0) / 8.0);
            v.push(((x >> 20) as f64).ln() / 0.004);
        }
        for &y in &v {
            assert_eq!(ceil_i32(y), y.ceil() as i32, "{y:e}");
        }
    }

    #[test]
    fn round_i128_equals_std_round() {
        // Reference: the standard library's `f64::round` (half away from zero) and the
        // saturating `as i128` cast, which `round_i128` must reproduce bit for bit.
        let mut v = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            0.49999999999999994,
            -0.49999999999999994,
            4503599627370495.5,
            -4503599627370495.5,
            4503599627370497.0,
            9.3e18,
            -9.3e18,
            4.6e18,
            4.7e18,
            1e30,
            -1e30,
            1e40,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
            f64::MIN_POSITIVE,
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = f64::from_bits(x);
            v.push(f);
            v.push((x % 10_000_000) as f64 / 4.0 - 1_250_000.0);
            v.push(((x >> 11) as f64) * 2f64.powi(-20) * if x & 1 == 1 { -1.0 } else { 1.0 });
        }
        for &f in &v {
            assert_eq!(round_i128(f), f.round() as i128, "{f:e}");
        }
    }

    #[test]
    fn exact_quantiles_match_sorted_samples() {
        // numpy.percentile([1, 2, 3, 4, 10], [5, 25, 50, 75, 95]) = 1.2, 2, 3, 4, 8.8
        let mut s = Sketch::default();
        for x in [4.0, 1.0, 10.0, 3.0, 2.0] {
            s.add(x);
        }
        let q = s.quantiles(&[0.05, 0.25, 0.5, 0.75, 0.95]);
        for (g, e) in q.iter().zip([1.2, 2.0, 3.0, 4.0, 8.8]) {
            assert!((g - e).abs() < 1e-12, "{q:?}");
        }
        // Non-integer values switch to the exact map and stay exact.
        let xs: Vec<f64> = (0..500).map(|i| (i as f64 * 0.37).sin() * 10.0).collect();
        let mut s = Sketch::default();
        let mut m = Moments::default();
        xs.iter().for_each(|&x| {
            s.add(x);
            m.add(x)
        });
        let mut sorted = xs.clone();
        sorted.sort_by(f64::total_cmp);
        assert!(s.is_exact());
        for q in [0.0, 0.1, 0.5, 0.9, 1.0] {
            assert_eq!(s.quantile(q), quantile_sorted(&sorted, q));
        }
        let reference = Summary::of(&xs, 3);
        assert!((m.mean() - reference.mean).abs() < 1e-9 && (m.sd() - reference.sd).abs() < 1e-9);
    }

    #[test]
    fn paged_buckets_count_like_a_map_and_allocate_only_where_values_fell() {
        // Independent reference: a BTreeMap from bucket index to count, filled in the same order.
        let idx: Vec<i32> = (0..5000).map(|i: i32| ((i.wrapping_mul(7919)) % 9001) - 7500).chain([-7480, 1770, 0, -1, 63, 64, -64, -65]).collect();
        let mut side = Side::default();
        let mut want = std::collections::BTreeMap::new();
        for (k, &i) in idx.iter().enumerate() {
            let c = 1 + (k % 3) as u64;
            side.bump(i, c);
            *want.entry(i).or_insert(0u64) += c;
        }
        assert_eq!(side.entries().collect::<Vec<_>>(), want.into_iter().collect::<Vec<_>>());
        let (lo, dense) = side.dense();
        assert_eq!(Side::from_dense(lo, &dense), side);
        // Two values 9,250 buckets apart (1e-13 and 1000 at alpha 0.2 %): two pages, not 9,250 slots.
        let mut far = Side::default();
        far.bump(bucket_of(1e-13), 1);
        far.bump(bucket_of(1000.0), 1);
        assert_eq!(far.pages.iter().filter(|p| p.is_some()).count(), 2);
        assert_eq!(far.entries().count(), 2);
    }

    #[test]
    fn merge_order_does_not_matter_and_buckets_keep_the_stated_accuracy() {
        // 20,000 distinct values: beyond EXACT_CAP, so bucketed.
        let xs: Vec<f64> = (0..20_000).map(|i| 0.5 + (i as f64 * 0.618).fract() * 300.0 - if i % 7 == 0 { 400.0 } else { 0.0 }).collect();
        let mut whole = Sketch::default();
        xs.iter().for_each(|&x| whole.add(x));
        let mut parts: Vec<Sketch> = (0..7).map(|_| Sketch::default()).collect();
        let mut mparts: Vec<Moments> = (0..7).map(|_| Moments::default()).collect();
        for (i, &x) in xs.iter().enumerate() {
            parts[i % 7].add(x);
            mparts[i % 7].add(x);
        }
        let mut a = Sketch::default();
        let mut ma = Moments::default();
        for (p, m) in parts.iter().zip(&mparts) {
            a.merge(p);
            ma.merge(m);
        }
        let mut b = Sketch::default();
        let mut mb = Moments::default();
        for (p, m) in parts.iter().zip(&mparts).rev() {
            b.merge(p);
            mb.merge(m);
        }
        assert!(!whole.is_exact());
        assert_eq!(a.entries(), whole.entries());
        assert_eq!(b.entries(), whole.entries());
        assert_eq!((ma.n, ma.mean(), ma.sd()), (mb.n, mb.mean(), mb.sd()), "fixed-point sums are order independent");
        let mut sorted = xs.clone();
        sorted.sort_by(f64::total_cmp);
        for q in [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99] {
            // Compare with the order statistic at the same (lower) rank and its neighbour.
            let h = (sorted.len() - 1) as f64 * q;
            let (lo, hi) = (sorted[h.floor() as usize], sorted[h.ceil() as usize]);
            let got = whole.quantile(q);
            let bound = RELATIVE_ACCURACY * lo.abs().max(hi.abs()) + 1e-12;
            assert!(got >= lo.min(hi) - bound && got <= lo.max(hi) + bound, "q {q}: {got} vs [{lo}, {hi}]");
        }
    }

    #[test]
    fn dense_integers_and_mixed_representations() {
        let mut a = Sketch::default();
        for x in [0.0, 1.0, 1.0, 3.0] {
            a.add(x);
        }
        let mut b = Sketch::default();
        b.add(2.5);
        let mut ab = a.clone();
        ab.merge(&b);
        let mut ba = b.clone();
        ba.merge(&a);
        assert_eq!(ab.entries(), ba.entries());
        assert_eq!(ab.entries(), vec![(0.0, 1), (1.0, 2), (2.5, 1), (3.0, 1)]);
        assert_eq!(ab.n(), 5);
        assert_eq!(ab.cdf_parts(1.0), (0.2, 0.4));
    }
}

/// A little-endian byte codec for shipping mergeable summaries between processes (the Spark
/// simulation's per-task state): fixed-width fields, no floats through text, so a summary read
/// back is bit-for-bit the one written.
pub mod codec {
    use crate::error::{Error, Result};

    /// Appends fields to a byte buffer.
    #[derive(Debug, Default)]
    pub struct Writer(pub Vec<u8>);

    impl Writer {
        /// A `u64`.
        pub fn u64(&mut self, x: u64) {
            self.0.extend_from_slice(&x.to_le_bytes());
        }
        /// An `i128`.
        pub fn i128(&mut self, x: i128) {
            self.0.extend_from_slice(&x.to_le_bytes());
        }
        /// An `f64`, by its bits.
        pub fn f64(&mut self, x: f64) {
            self.u64(x.to_bits());
        }
        /// A length-prefixed list of `u64`.
        pub fn u64s(&mut self, xs: &[u64]) {
            self.u64(xs.len() as u64);
            xs.iter().for_each(|&x| self.u64(x));
        }
        /// A length-prefixed list of `i128`.
        pub fn i128s(&mut self, xs: &[i128]) {
            self.u64(xs.len() as u64);
            xs.iter().for_each(|&x| self.i128(x));
        }
    }

    /// Reads fields written by [`Writer`]; a short or malformed buffer is an error, not a panic.
    #[derive(Debug)]
    pub struct Reader<'a>(pub &'a [u8]);

    impl Reader<'_> {
        fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
            if self.0.len() < N {
                return Err(Error::Invalid("summary state: truncated".into()));
            }
            let (a, b) = self.0.split_at(N);
            self.0 = b;
            Ok(a.try_into().expect("length checked"))
        }
        /// A `u64`.
        pub fn u64(&mut self) -> Result<u64> {
            Ok(u64::from_le_bytes(self.take()?))
        }
        /// An `i128`.
        pub fn i128(&mut self) -> Result<i128> {
            Ok(i128::from_le_bytes(self.take()?))
        }
        /// An `f64`.
        pub fn f64(&mut self) -> Result<f64> {
            Ok(f64::from_bits(self.u64()?))
        }
        /// A length, checked against the bytes left (`width` bytes per item).
        pub fn len(&mut self, width: usize) -> Result<usize> {
            let n = self.u64()? as usize;
            if n.saturating_mul(width) > self.0.len() {
                return Err(Error::Invalid("summary state: a length exceeds the data".into()));
            }
            Ok(n)
        }
        /// A list of `u64`.
        pub fn u64s(&mut self) -> Result<Vec<u64>> {
            let n = self.len(8)?;
            (0..n).map(|_| self.u64()).collect()
        }
        /// A list of `i128`.
        pub fn i128s(&mut self) -> Result<Vec<i128>> {
            let n = self.len(16)?;
            (0..n).map(|_| self.i128()).collect()
        }
        /// Whether every byte was read.
        pub fn is_empty(&self) -> bool {
            self.0.is_empty()
        }
    }
}

impl Moments {
    /// Writes the summary (every field, bit for bit).
    pub fn encode(&self, w: &mut codec::Writer) {
        w.u64(self.n);
        w.f64(self.sum_f);
        w.f64(self.sumsq_f);
        w.i128(self.sum);
        w.i128(self.sumsq);
        w.f64(self.min);
        w.f64(self.max);
    }

    /// Reads a summary written by [`Moments::encode`].
    pub fn decode(r: &mut codec::Reader) -> crate::error::Result<Self> {
        Ok(Moments { n: r.u64()?, sum_f: r.f64()?, sumsq_f: r.f64()?, sum: r.i128()?, sumsq: r.i128()?, min: r.f64()?, max: r.f64()? })
    }
}

impl Sketch {
    /// Writes the sketch (its representation and counts; exact entries sorted by value bits,
    /// so equal sketches give equal bytes).
    pub fn encode(&self, w: &mut codec::Writer) {
        w.u64(self.n);
        match &self.repr {
            Repr::Dense(v) => {
                w.u64(0);
                w.u64s(v);
            }
            Repr::Exact(m) => {
                w.u64(1);
                let mut e: Vec<(u64, u64)> = m.iter().map(|(&k, &c)| (k, c)).collect();
                e.sort_unstable();
                w.u64(e.len() as u64);
                for (k, c) in e {
                    w.u64(k);
                    w.u64(c);
                }
            }
            Repr::Buckets { zero, pos, neg } => {
                // The dense form, as before pages: the state's bytes did not change.
                w.u64(2);
                w.u64(*zero);
                let (pos_offset, pos) = pos.dense();
                w.u64(pos_offset as i64 as u64);
                w.u64s(&pos);
                let (neg_offset, neg) = neg.dense();
                w.u64(neg_offset as i64 as u64);
                w.u64s(&neg);
            }
        }
    }

    /// Reads a sketch written by [`Sketch::encode`].
    pub fn decode(r: &mut codec::Reader) -> crate::error::Result<Self> {
        let n = r.u64()?;
        let repr = match r.u64()? {
            0 => Repr::Dense(r.u64s()?),
            1 => {
                let len = r.len(16)?;
                let mut m: HashMap<u64, u64, BuildMix> = HashMap::with_capacity_and_hasher(len, BuildMix);
                for _ in 0..len {
                    let k = r.u64()?;
                    m.insert(k, r.u64()?);
                }
                Repr::Exact(m)
            }
            2 => {
                let zero = r.u64()?;
                let pos_offset = r.u64()? as i64 as i32;
                let pos = r.u64s()?;
                let neg_offset = r.u64()? as i64 as i32;
                let neg = r.u64s()?;
                Repr::Buckets { zero, pos: Side::from_dense(pos_offset, &pos), neg: Side::from_dense(neg_offset, &neg) }
            }
            t => return Err(crate::error::Error::Invalid(format!("summary state: unknown sketch form {t}"))),
        };
        Ok(Sketch { repr, n })
    }
}

#[cfg(test)]
mod codec_tests {
    use super::*;

    /// Every representation survives encode/decode bit for bit (the decoded value is compared
    /// with the original by `PartialEq`, which compares every field).
    #[test]
    fn moments_and_sketches_round_trip() {
        let mut dense = Sketch::default();
        let mut exact = Sketch::default();
        let mut buckets = Sketch::default();
        let mut m = Moments::default();
        for i in 0..5000 {
            dense.add((i % 7) as f64);
            exact.add(i as f64 * 0.25 % 100.0);
            buckets.add(i as f64 * 1.001 - 100.0);
            m.add(i as f64 / 3.0);
        }
        let mut merged = Moments::default();
        merged.merge(&m);
        assert!(dense.is_exact() && exact.is_exact() && !buckets.is_exact());
        for s in [Sketch::default(), dense, exact, buckets] {
            let mut w = codec::Writer::default();
            s.encode(&mut w);
            let mut r = codec::Reader(&w.0);
            assert_eq!(Sketch::decode(&mut r).unwrap(), s);
            assert!(r.is_empty());
        }
        for x in [Moments::default(), m, merged] {
            let mut w = codec::Writer::default();
            x.encode(&mut w);
            let back = Moments::decode(&mut codec::Reader(&w.0)).unwrap();
            assert_eq!(format!("{back:?}"), format!("{x:?}"));
        }
        assert!(Sketch::decode(&mut codec::Reader(&[1, 2, 3])).is_err());
    }
}
