//! The novelty-based utility of Fujii and Ishikawa (2000).
//!
//! `U(x) = sum_d log(P(d|x) / P(d))` over the relevant documents d of a topic, with
//! `P(d|x) = (N - r_{x,d} + 1) / N` for a document at rank `r_{x,d} <= N` and
//! `P(d) = mean over the other systems y of P(d|y)`.
//!
//! The paper leaves two cases undefined, and each has an explicit [`InfinitePolicy`]:
//! - `x` misses d (`P(d|x) = 0`): the term is `-inf`;
//! - no other system finds d (`P(d) = 0`): the term is `+inf`.
//!
//! When both are zero the term is 0/0 and always skipped.

/// What to do with a term whose probability is 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InfinitePolicy {
    /// Replace the zero probability by `eps` (default `1 / (2N)`, half the last rank's).
    Floor,
    /// Leave the term out (it contributes 0).
    Skip,
    /// Keep the infinite value.
    Infinite,
}

/// Parameters of the utility.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoveltyParams {
    /// Depth N of each ranking the user may read (documents below it count as missed).
    pub depth: usize,
    /// Policy when the evaluated system misses a relevant document.
    pub missed: InfinitePolicy,
    /// Policy when no other system finds a relevant document.
    pub unfound: InfinitePolicy,
    /// Floor probability; `None` means `1 / (2N)`.
    pub eps: Option<f64>,
}

impl Default for NoveltyParams {
    fn default() -> Self {
        NoveltyParams { depth: 1000, missed: InfinitePolicy::Floor, unfound: InfinitePolicy::Floor, eps: None }
    }
}

/// `P(d|x)` for a 1-based rank (or `None` when not retrieved in the top N).
pub fn read_probability(rank: Option<usize>, depth: usize) -> f64 {
    match rank {
        Some(r) if r >= 1 && r <= depth => (depth - r + 1) as f64 / depth as f64,
        _ => 0.0,
    }
}

/// Utility of every system. `ranks[s][d]` is the rank of relevant document d in system s.
/// With a single system, `P(d)` has no other system to average over and every term is
/// treated as "unfound".
pub fn novelty_utilities(ranks: &[Vec<Option<usize>>], p: &NoveltyParams) -> Vec<f64> {
    let s_count = ranks.len();
    let n_docs = ranks.first().map_or(0, |r| r.len());
    let eps = p.eps.unwrap_or(0.5 / p.depth.max(1) as f64);
    let probs: Vec<Vec<f64>> = ranks.iter().map(|rs| rs.iter().map(|&r| read_probability(r, p.depth)).collect()).collect();
    let totals: Vec<f64> = (0..n_docs).map(|d| probs.iter().map(|ps| ps[d]).sum()).collect();
    (0..s_count)
        .map(|x| {
            let mut u = 0.0;
            for d in 0..n_docs {
                let px = probs[x][d];
                let others = s_count.saturating_sub(1);
                let pd = if others == 0 { 0.0 } else { (totals[d] - px) / others as f64 };
                let px = if px > 0.0 {
                    px
                } else {
                    match p.missed {
                        InfinitePolicy::Floor => eps,
                        InfinitePolicy::Skip => continue,
                        InfinitePolicy::Infinite => 0.0,
                    }
                };
                let pd = if pd > 0.0 {
                    pd
                } else {
                    match p.unfound {
                        InfinitePolicy::Floor => eps,
                        InfinitePolicy::Skip => continue,
                        InfinitePolicy::Infinite => 0.0,
                    }
                };
                if px == 0.0 && pd == 0.0 {
                    continue;
                }
                u += (px / pd).ln();
            }
            u
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_utilities() {
        // N = 4, two relevant documents, three systems:
        //   x: d0 at 1, d1 at 3   -> P = 1, 0.5
        //   y: d0 at 2, d1 missed -> P = 0.75, 0
        //   z: d0 at 4, d1 at 2   -> P = 0.25, 0.75
        // U(x) = ln(1 / ((0.75 + 0.25)/2)) + ln(0.5 / ((0 + 0.75)/2)) = ln 2 + ln(4/3)
        let ranks = vec![vec![Some(1), Some(3)], vec![Some(2), None], vec![Some(4), Some(2)]];
        let p = NoveltyParams { depth: 4, missed: InfinitePolicy::Infinite, unfound: InfinitePolicy::Infinite, eps: None };
        let u = novelty_utilities(&ranks, &p);
        assert!((u[0] - (2f64.ln() + (4.0f64 / 3.0).ln())).abs() < 1e-12);
        assert_eq!(u[1], f64::NEG_INFINITY, "y misses d1");
        // Floor: y's P(d1|y) = eps = 1/8; P(d1) for y = (0.5 + 0.75)/2 = 0.625.
        let floor = NoveltyParams { depth: 4, ..Default::default() };
        let u = novelty_utilities(&ranks, &floor);
        let expect_y = (0.75f64 / 0.625).ln() + (0.125f64 / 0.625).ln();
        assert!((u[1] - expect_y).abs() < 1e-12);
        // Skip drops the term.
        let skip = NoveltyParams { depth: 4, missed: InfinitePolicy::Skip, ..Default::default() };
        assert!((novelty_utilities(&ranks, &skip)[1] - (0.75f64 / 0.625).ln()).abs() < 1e-12);
    }

    #[test]
    fn unique_find_is_infinite_or_floored() {
        let ranks = vec![vec![Some(1)], vec![None]];
        let inf = NoveltyParams { depth: 2, missed: InfinitePolicy::Skip, unfound: InfinitePolicy::Infinite, eps: None };
        assert_eq!(novelty_utilities(&ranks, &inf)[0], f64::INFINITY);
        let floor = NoveltyParams { depth: 2, ..Default::default() };
        // P(d|x) = 1, P(d) floored to 1/4.
        assert!((novelty_utilities(&ranks, &floor)[0] - 4f64.ln()).abs() < 1e-12);
    }
}
