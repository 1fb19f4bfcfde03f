//! A seeded click log with millions of distinct (query, document) pairs, for benchmarks where
//! cache effects show (`serpsim clicks generate`; issue 28 item 7). The public Yandex sample,
//! however often repeated, has only 1,024 distinct pairs; real logs have millions.
//!
//! Shape (every number is a knob of [`ManyPairs`]):
//!
//! - `queries` queries; each session draws its query from a Zipf law over the query ranks
//!   (P(rank k) proportional to 1 / k^`zipf`), so a few queries are frequent and most are rare.
//!   Query ids are the ranks, `1..=queries`, in decimal.
//! - each query has `candidates` documents drawn (without repeats) from a pool of `docs`
//!   documents by a hash of the seed and the query, so documents are shared across queries;
//!   document ids are decimal numbers below `docs`.
//! - a SERP shows `serp_len` of them: the query's first `serp_len` candidates in order, except
//!   that a share `reorder` of the sessions shows a random selection in random order (so pairs
//!   are seen at several ranks, which makes the rank parameters identifiable).
//! - clicks are drawn from a known model whose parameters are hashes of the world seed, the
//!   query and the candidate (nothing is held per pair, so memory does not grow with the pairs):
//!   attractiveness `a = 0.9 u^2` (u uniform, mean 0.3), and
//!   - `dbn`: satisfaction `s = 0.2 + 0.6 u'`, continuation `gamma = 0.9`: the user examines
//!     rank 1, clicks an examined result with probability `a`, is satisfied after a click with
//!     probability `s` (and stops), otherwise examines the next rank with probability `gamma`;
//!   - `ubm`: a result at 0-based rank `r` is examined with probability `1 / (1 + 0.25 (r - p
//!     - 1))`, `p` the rank of the last click above (-1 when none), and clicked when examined
//!     with probability `a`.
//!
//! With `params_from` (`--params-from MODEL.json`, a DBN model file such as `clicks fit --model
//! dbn` writes), the per-pair parameters are drawn instead from the fitted model's empirical
//! joint distribution of (attractiveness, satisfaction): candidate `k` of query `q` takes the
//! `floor(u n)`-th of the file's `n` fitted pairs (in file order), `u` the same hash uniform of
//! the world seed, the query and the candidate that draws the attractiveness above, and gamma is
//! the model's. Queries, candidates and SERPs are as without it; only `dbn` clicks take it. A
//! model file that is not DBN, or lists no pairs, is refused (`FILE: reason`).
//!
//! The queries' candidates and click parameters depend on the world seed (`world`) only, the
//! sessions on `seed`: two logs with the same world and other seeds are two samples of the same
//! population (a training log and a held-out test log). Session `i` draws its query, SERP and
//! clicks from its own stream `(seed, i)`, and chunks of
//! sessions are generated in parallel and written in order, so the log is byte-identical
//! whatever the thread count. One session per line, in the Yandex sample layout
//! (`query<TAB>doc,doc,... : clicked,clicked`; docs/clickmodels.md).

use super::io::ParamTable;
use super::ModelKind;
use crate::error::{Error, Result};
use crate::limits;
use crate::rng::{derive_key, item_key, stream, uniform_at};
use rand::seq::SliceRandom;
use rand::Rng;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

/// Sessions of a generated log (about 90 bytes of text each).
pub const MAX_SESSIONS: u64 = 1_000_000_000;
/// Queries of a generated log (8 bytes each for the Zipf table).
pub const MAX_QUERIES: u64 = 100_000_000;
/// Candidate documents per query, and results per SERP.
pub const MAX_CANDIDATES: u64 = 100;
/// Distinct pairs a generated log can have (queries times candidates): the pair ids of a fit
/// are 32-bit.
pub const MAX_PAIRS: u64 = 2_000_000_000;
/// The document pool (ids are numbers below it).
pub const MAX_DOCS: u64 = 1_000_000_000_000;

/// The model the clicks are drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrueModel {
    /// Dynamic Bayesian network.
    Dbn,
    /// User browsing model.
    Ubm,
}

impl std::str::FromStr for TrueModel {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "dbn" => Ok(TrueModel::Dbn),
            "ubm" => Ok(TrueModel::Ubm),
            other => Err(Error::Invalid(format!("unknown model `{other}` for a generated log (use dbn or ubm)"))),
        }
    }
}

/// Pair parameters taken from a fitted DBN (`--params-from`; see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct FittedParams {
    /// (attractiveness, satisfaction) of each fitted pair, in the model file's order.
    pub pairs: Vec<(f64, f64)>,
    /// The model's continuation probability.
    pub gamma: f64,
}

impl FittedParams {
    /// Reads a DBN model file (plain, gzip or zstd; the format of `docs/clickmodels.md`).
    /// Errors name the file: `FILE: reason`.
    pub fn from_model_file(path: &Path) -> Result<Self> {
        let text = crate::input::read_to_string(path)?;
        Self::from_json_str(&text, &path.display().to_string())
    }

    /// Parses a model file's text; `ctx` (the file name) starts every error.
    pub fn from_json_str(text: &str, ctx: &str) -> Result<Self> {
        let (model, vocab) = super::io::from_json_str(text, ctx)?;
        if model.kind() != ModelKind::Dbn {
            return Err(Error::Invalid(format!(
                "{ctx}: a `{}` model, not a DBN one: --params-from takes a DBN model file (`clicks fit --model dbn`)",
                model.kind().name()
            )));
        }
        let t: ParamTable = model.to_table();
        let column = |name: &str| t.pairs.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap_or_default();
        let (a, s) = (column("attractiveness"), column("satisfaction"));
        let n = vocab.pair_count().min(a.len()).min(s.len());
        let gamma = t.scalars.iter().find(|(n, _)| n == "gamma").map(|x| x.1);
        let gamma = gamma.ok_or_else(|| Error::Invalid(format!("{ctx}: the DBN model has no `scalars.gamma`")))?;
        let f = FittedParams { pairs: a[..n].iter().copied().zip(s[..n].iter().copied()).collect(), gamma };
        f.check(ctx)?;
        Ok(f)
    }

    /// Refuses an empty list and values that are not probabilities; `ctx` starts the message.
    fn check(&self, ctx: &str) -> Result<()> {
        if self.pairs.is_empty() {
            return Err(Error::Invalid(format!(
                "{ctx}: the model lists no (query, document) pairs: --params-from draws each pair's attractiveness and satisfaction from the fitted ones"
            )));
        }
        let prob = |x: f64| x.is_finite() && (0.0..=1.0).contains(&x);
        if !prob(self.gamma) || !self.pairs.iter().all(|&(a, s)| prob(a) && prob(s)) {
            return Err(Error::Invalid(format!("{ctx}: every fitted value and gamma must be a probability in [0, 1]")));
        }
        Ok(())
    }
}

/// The knobs of a generated many-pairs log (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct ManyPairs {
    /// Sessions (lines).
    pub sessions: u64,
    /// Queries.
    pub queries: u64,
    /// Exponent of the Zipf law of query frequencies (0: uniform).
    pub zipf: f64,
    /// Document pool.
    pub docs: u64,
    /// Candidate documents per query.
    pub candidates: usize,
    /// Results per SERP (at most `candidates`).
    pub serp_len: usize,
    /// Share of sessions with a random selection and order of the candidates.
    pub reorder: f64,
    /// The model the clicks are drawn from.
    pub model: TrueModel,
    /// Seed of the queries' candidates and click parameters (the population).
    pub world: u64,
    /// Seed of the sessions (the sample).
    pub seed: u64,
    /// Pair parameters and gamma from a fitted DBN instead of the hashed formulas (`dbn` only).
    pub params_from: Option<FittedParams>,
}

impl Default for ManyPairs {
    /// 1,000,000 sessions over 300,000 queries (Zipf 1.0), 15 candidates per query from 10^7
    /// documents, 10 results per SERP, 30 % reordered, DBN clicks, world 1, seed 1.
    fn default() -> Self {
        ManyPairs {
            sessions: 1_000_000,
            queries: 300_000,
            zipf: 1.0,
            docs: 10_000_000,
            candidates: 15,
            serp_len: 10,
            reorder: 0.3,
            model: TrueModel::Dbn,
            world: 1,
            seed: 1,
            params_from: None,
        }
    }
}

/// What a generation wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Written {
    /// Sessions (lines).
    pub sessions: u64,
    /// Clicks.
    pub clicks: u64,
    /// Bytes.
    pub bytes: u64,
}

/// Sessions per chunk generated by one task.
const CHUNK: u64 = 8192;
/// Stream tags.
const TAG_DOC: u64 = 1;
const TAG_ATTR: u64 = 2;
const TAG_SAT: u64 = 3;
/// DBN continuation probability.
const GAMMA: f64 = 0.9;

impl ManyPairs {
    /// Refuses knobs out of range, naming the option (`--sessions` ...) and the bound.
    pub fn validate(&self) -> Result<()> {
        let ctx = "clicks generate";
        limits::check_count(ctx, "--sessions", self.sessions, MAX_SESSIONS, "sessions of a generated log")?;
        limits::check_count(ctx, "--queries", self.queries, MAX_QUERIES, "queries of a generated log")?;
        limits::check_usize(ctx, "--candidates", self.candidates, MAX_CANDIDATES, "candidate documents per query")?;
        limits::check_count(ctx, "--docs", self.docs, MAX_DOCS, "document pool of a generated log")?;
        limits::check_product(ctx, "--queries * --candidates", &[self.queries, self.candidates as u64], MAX_PAIRS, "distinct pairs of a generated log")?;
        let bad = |key: &str, why: String| Err(Error::config(ctx, key, why));
        if self.queries == 0 {
            return bad("--queries", "must be at least 1".into());
        }
        if self.serp_len == 0 || self.serp_len > self.candidates {
            return bad("--serp-len", format!("{} must be between 1 and --candidates ({})", self.serp_len, self.candidates));
        }
        // The log's size: a line per session, its query and `serp_len` document ids (decimal,
        // below --queries and --docs) with separators, and a few clicks.
        let digits = |n: u64| n.max(2).ilog10() as f64 + 1.0;
        let line = digits(self.queries) + 4.0 + self.serp_len as f64 * (digits(self.docs) + 1.0);
        limits::check_estimate(
            ctx,
            "--sessions * --serp-len",
            self.sessions as f64 * self.serp_len as f64,
            limits::MAX_GENERATED_RESULTS,
            "results in the log",
            line / self.serp_len as f64,
        )?;
        if self.docs < self.candidates as u64 {
            return bad("--docs", format!("{} is fewer than --candidates ({}): a query's candidates are distinct documents", self.docs, self.candidates));
        }
        if !(self.zipf.is_finite() && (0.0..=5.0).contains(&self.zipf)) {
            return bad("--zipf", format!("{} must be a number in [0, 5]", self.zipf));
        }
        if !(0.0..=1.0).contains(&self.reorder) {
            return bad("--reorder", format!("{} must be a probability in [0, 1]", self.reorder));
        }
        if let Some(f) = &self.params_from {
            if self.model != TrueModel::Dbn {
                return bad("--params-from", "draws DBN parameters: use it with --model dbn".into());
            }
            f.check("--params-from")?;
        }
        Ok(())
    }

    /// The cumulative Zipf weights of the query ranks.
    fn zipf_cdf(&self) -> Vec<f64> {
        let mut acc = 0.0;
        (1..=self.queries)
            .map(|k| {
                acc += (k as f64).powf(-self.zipf);
                acc
            })
            .collect()
    }

    /// The candidate documents of query `q` (0-based rank), distinct, into `out`.
    fn candidates_of(&self, q: u64, out: &mut Vec<u64>) {
        let key = derive_key(self.world, &[TAG_DOC, q]);
        out.clear();
        let mut draw = 0u64;
        while out.len() < self.candidates {
            let d = item_key(key, draw) % self.docs;
            draw += 1;
            if !out.contains(&d) {
                out.push(d);
            }
        }
    }

    /// Attractiveness and satisfaction of candidate `k` of query `q`: hashed, or with
    /// `params_from` the `floor(u n)`-th fitted pair for the same uniform `u`.
    fn params(&self, q: u64, k: usize) -> (f64, f64) {
        let key = derive_key(self.world, &[TAG_ATTR, q]);
        let u = uniform_at(key, TAG_ATTR, k as u64);
        if let Some(f) = &self.params_from {
            let n = f.pairs.len();
            return f.pairs[((u * n as f64) as usize).min(n - 1)];
        }
        let v = uniform_at(key, TAG_SAT, k as u64);
        (0.9 * u * u, 0.2 + 0.6 * v)
    }

    /// DBN continuation probability: 0.9, or the fitted model's.
    fn gamma(&self) -> f64 {
        self.params_from.as_ref().map_or(GAMMA, |f| f.gamma)
    }

    /// Appends session `i` as one line to `line`; returns its clicks.
    fn session(&self, i: u64, cdf: &[f64], cands: &mut Vec<u64>, order: &mut Vec<usize>, line: &mut String) -> u64 {
        let mut rng = stream(self.seed, &[i]);
        let total = *cdf.last().expect("at least one query");
        let u: f64 = rng.random::<f64>() * total;
        let q = (cdf.partition_point(|&c| c <= u) as u64).min(self.queries - 1);
        self.candidates_of(q, cands);
        order.clear();
        order.extend(0..self.candidates);
        if self.reorder > 0.0 && rng.random::<f64>() < self.reorder {
            order.shuffle(&mut rng);
        }
        order.truncate(self.serp_len);
        let _ = write!(line, "{}\t", q + 1);
        for (r, &k) in order.iter().enumerate() {
            let _ = write!(line, "{}{}", if r == 0 { "" } else { "," }, cands[k]);
        }
        line.push_str(" :");
        let mut clicks = 0u64;
        let mut last: i64 = -1;
        let gamma = self.gamma();
        for (r, &k) in order.iter().enumerate() {
            let (a, s) = self.params(q, k);
            let examined = match self.model {
                TrueModel::Dbn => true,
                TrueModel::Ubm => rng.random::<f64>() < 1.0 / (1.0 + 0.25 * (r as i64 - last - 1) as f64),
            };
            let click = examined && rng.random::<f64>() < a;
            if click {
                let _ = write!(line, "{}{}", if clicks == 0 { " " } else { "," }, cands[k]);
                clicks += 1;
                last = r as i64;
            }
            if self.model == TrueModel::Dbn {
                let satisfied = click && rng.random::<f64>() < s;
                if satisfied || rng.random::<f64>() >= gamma {
                    break;
                }
            }
        }
        line.push('\n');
        clicks
    }

    /// Writes the log to `w`: chunks of sessions are generated in parallel on the current
    /// rayon pool and written in session order (byte-identical whatever the thread count).
    /// `tick` is called with the sessions written so far.
    pub fn write(&self, w: &mut dyn Write, tick: &mut dyn FnMut(u64)) -> Result<Written> {
        self.validate()?;
        let cdf = self.zipf_cdf();
        let n_chunks = self.sessions.div_ceil(CHUNK);
        let batch = (rayon::current_num_threads().max(1) * 4) as u64;
        let mut out = Written::default();
        let mut first = 0;
        while first < n_chunks {
            crate::interrupt::check()?;
            let parts: Vec<(String, u64)> = (first..(first + batch).min(n_chunks))
                .into_par_iter()
                .map(|c| {
                    let (mut cands, mut order, mut text) = (Vec::new(), Vec::new(), String::new());
                    let mut clicks = 0;
                    for i in c * CHUNK..((c + 1) * CHUNK).min(self.sessions) {
                        clicks += self.session(i, &cdf, &mut cands, &mut order, &mut text);
                    }
                    (text, clicks)
                })
                .collect();
            for (text, clicks) in parts {
                w.write_all(text.as_bytes()).map_err(|e| Error::Invalid(format!("writing the generated log: {e}")))?;
                out.bytes += text.len() as u64;
                out.clicks += clicks;
            }
            first += batch;
            out.sessions = (first * CHUNK).min(self.sessions);
            tick(out.sessions);
        }
        Ok(out)
    }

    /// Writes the log to the file `path`, atomically (see [`crate::output::write_file_with_buf`]).
    pub fn write_file(&self, path: &std::path::Path, tick: &mut dyn FnMut(u64)) -> Result<Written> {
        self.validate()?;
        let mut res = None;
        crate::output::write_file_with_buf(path, |w| {
            let r = self.write(w, tick);
            let failed = r.as_ref().err().map(|e| e.to_string());
            res = Some(r);
            match failed {
                Some(m) => Err(std::io::Error::other(m)),
                None => Ok(()),
            }
        })
        .map_err(|e| match res.take() {
            Some(Err(inner)) => inner,
            _ => e,
        })?;
        res.expect("written")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::{Format, LogData};
    use std::collections::HashSet;

    fn text(g: &ManyPairs, threads: usize) -> Vec<u8> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut out = Vec::new();
        pool.install(|| g.write(&mut out, &mut |_| {})).unwrap();
        out
    }

    fn small() -> ManyPairs {
        ManyPairs { sessions: 30_000, queries: 5_000, docs: 100_000, seed: 7, ..Default::default() }
    }

    // Same seed: byte-identical at 1 and 3 threads; another seed: another log.
    #[test]
    fn same_seed_same_bytes_whatever_the_threads() {
        let g = small();
        let a = text(&g, 1);
        assert_eq!(a, text(&g, 3));
        assert_ne!(a, text(&ManyPairs { seed: 8, ..small() }, 2));
        let u = ManyPairs { model: TrueModel::Ubm, ..small() };
        assert_eq!(text(&u, 1), text(&u, 2));
        let f = ManyPairs { params_from: Some(FittedParams::from_json_str(TINY, "tiny.json").unwrap()), ..small() };
        let b = text(&f, 1);
        assert_eq!(b, text(&f, 3));
        assert_ne!(a, b, "the fitted parameters change the clicks");
    }

    /// A hand-written DBN model file: 3 pairs, gamma 0.7.
    const TINY: &str = r#"{"format": "serpsim-click-model", "model": "dbn", "scalars": {"gamma": 0.7},
        "pair_params": ["attractiveness", "satisfaction"],
        "pairs": [["q1", "d1", 0.1, 0.2], ["q1", "d2", 0.45, 0.9], ["q2", "d1", 0.8, 0.05]]}"#;

    // --params-from: the file's 3 pairs and gamma are read as written (hand-checked against
    // TINY), every (a, s) drawn for a candidate is one of the 3, each of them is drawn (with u
    // uniform, each has probability 1/3 per candidate: missing one in 3,000 draws has
    // probability below 3 (2/3)^3000), and with the pair's index floor(u * 3).
    #[test]
    fn params_from_draws_the_fitted_pairs_and_gamma() {
        let f = FittedParams::from_json_str(TINY, "tiny.json").unwrap();
        assert_eq!(f, FittedParams { pairs: vec![(0.1, 0.2), (0.45, 0.9), (0.8, 0.05)], gamma: 0.7 });
        let g = ManyPairs { params_from: Some(f.clone()), ..small() };
        assert_eq!(g.gamma(), 0.7);
        let mut seen = [0usize; 3];
        for q in 0..200 {
            for k in 0..15 {
                let drawn = g.params(q, k);
                let i = f.pairs.iter().position(|&p| p == drawn).unwrap_or_else(|| panic!("{drawn:?} is not a fitted pair"));
                let u = uniform_at(derive_key(g.world, &[TAG_ATTR, q]), TAG_ATTR, k as u64);
                assert_eq!(i, (u * 3.0) as usize);
                seen[i] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c > 0), "{seen:?}");
    }

    // Gamma reaches the clicks: with every pair at attractiveness 1 and satisfaction 0 the
    // user clicks every examined result and goes on with probability gamma, so a session has
    // at least 2 clicks with probability gamma (0.7) and its mean clicks are
    // sum_{r=0..9} 0.7^r = (1 - 0.7^10) / 0.3 = 3.2392. 20,000 sessions: the share's standard
    // error is sqrt(0.21 / 20000) = 0.0032, the mean's below 0.02.
    #[test]
    fn params_from_gamma_drives_the_continuation() {
        let text_ = TINY.replace("0.1, 0.2", "1.0, 0.0").replace("0.45, 0.9", "1.0, 0.0").replace("0.8, 0.05", "1.0, 0.0");
        let g = ManyPairs { sessions: 20_000, params_from: Some(FittedParams::from_json_str(&text_, "ones.json").unwrap()), ..small() };
        let log = String::from_utf8(text(&g, 2)).unwrap();
        let clicks: Vec<usize> = log.lines().map(|l| l.split_once(" :").unwrap().1.split(',').filter(|c| !c.trim().is_empty()).count()).collect();
        let share = clicks.iter().filter(|&&c| c >= 2).count() as f64 / clicks.len() as f64;
        let mean = clicks.iter().sum::<usize>() as f64 / clicks.len() as f64;
        assert!((share - 0.7).abs() < 0.015, "share with 2+ clicks {share}");
        assert!((mean - 3.2392).abs() < 0.08, "mean clicks {mean}");
    }

    // Bounded input: a model that is not DBN, a DBN without pairs, a missing file, and
    // --params-from with UBM clicks are refused with the file (or option) and the reason.
    #[test]
    fn params_from_refuses_other_models_and_empty_ones() {
        let ubm = r#"{"model": "ubm", "matrices": {"examination": [[0.5]]}, "pair_params": ["attractiveness"], "pairs": [["q", "d", 0.5]]}"#;
        let e = FittedParams::from_json_str(ubm, "m.json").unwrap_err().to_string();
        assert!(e.starts_with("m.json: a `ubm` model, not a DBN one"), "{e}");
        let empty = r#"{"model": "dbn", "scalars": {"gamma": 0.7}, "pair_params": ["attractiveness", "satisfaction"], "pairs": []}"#;
        let e = FittedParams::from_json_str(empty, "e.json").unwrap_err().to_string();
        assert!(e.starts_with("e.json: the model lists no (query, document) pairs"), "{e}");
        let e = FittedParams::from_model_file(Path::new("/nonexistent/serpsim-model.json")).unwrap_err().to_string();
        assert!(e.starts_with("/nonexistent/serpsim-model.json: "), "{e}");
        let f = FittedParams::from_json_str(TINY, "tiny.json").unwrap();
        let e = ManyPairs { model: TrueModel::Ubm, params_from: Some(f), ..small() }.validate().unwrap_err().to_string();
        assert!(e.contains("--params-from") && e.contains("--model dbn"), "{e}");
        let e = ManyPairs { params_from: Some(FittedParams { pairs: vec![], gamma: 0.5 }), ..small() }.validate().unwrap_err().to_string();
        assert!(e.contains("lists no (query, document) pairs"), "{e}");
    }

    // The world seed fixes the population: a log with another session seed shows the same
    // queries the same candidates (a held-out sample), another world other candidates.
    #[test]
    fn the_world_seed_fixes_the_candidates() {
        let serps = |g: &ManyPairs| -> std::collections::HashMap<String, HashSet<String>> {
            let mut m = std::collections::HashMap::<String, HashSet<String>>::new();
            for line in String::from_utf8(text(g, 2)).unwrap().lines() {
                let (q, rest) = line.split_once('\t').unwrap();
                m.entry(q.to_string()).or_default().extend(rest.split_once(" :").unwrap().0.split(',').map(str::to_string));
            }
            m
        };
        let (a, b, c) = (serps(&small()), serps(&ManyPairs { seed: 9, ..small() }), serps(&ManyPairs { world: 9, ..small() }));
        let common: Vec<&String> = a.keys().filter(|q| b.contains_key(*q)).collect();
        assert!(common.len() > 1000, "{} common queries", common.len());
        for q in &common {
            // Every document shown for q in one log is among q's 15 candidates, so the
            // union over both logs has at most 15 documents.
            assert!(a[*q].union(&b[*q]).count() <= 15, "query {q}");
        }
        let q1 = "1".to_string();
        assert_ne!(a[&q1], c[&q1], "another world, other candidates");
    }

    // The bounds: each knob above its bound, or out of range, is a clear error.
    #[test]
    fn knobs_out_of_range_are_refused() {
        let cases = [
            (ManyPairs { sessions: MAX_SESSIONS + 1, ..small() }, "key `--sessions`: 1000000001 is above the upper bound of 1000000000"),
            (ManyPairs { queries: MAX_QUERIES + 1, ..small() }, "key `--queries`: 100000001 is above the upper bound"),
            (ManyPairs { queries: 50_000_000, candidates: 100, ..small() }, "the product 5000000000 is above the upper bound of 2000000000"),
            (ManyPairs { serp_len: 16, ..small() }, "--serp-len"),
            (ManyPairs { docs: 3, ..small() }, "--docs"),
            (ManyPairs { zipf: f64::NAN, ..small() }, "--zipf"),
            (ManyPairs { reorder: 1.5, ..small() }, "--reorder"),
            (ManyPairs { queries: 0, ..small() }, "--queries"),
            // Issue 42: the log's size. 10^9 sessions * 21 results = 2.1 * 10^10 results; a line
            // of 4 (digits of --queries 5000) + 4 + 21 * (6 + 1) (digits of --docs 100000, and a
            // comma) = 155 bytes, so 1.55 * 10^11 bytes: hand-computed 155 GB.
            (
                ManyPairs { sessions: MAX_SESSIONS, serp_len: 21, candidates: 21, ..small() },
                "key `--sessions * --serp-len`: an estimated 21000000000 results in the log (about 155 GB) is above the upper bound of 20000000000",
            ),
        ];
        for (g, want) in cases {
            let e = g.write(&mut Vec::new(), &mut |_| {}).unwrap_err().to_string();
            assert!(e.contains(want), "{e} does not contain {want}");
        }
    }

    // The log reads back (Yandex layout) with the sessions written, and the distinct pairs the
    // reader interns equal those counted independently from the text (a set of (query,
    // document) strings). Hand derivation for a fixed case: 3 queries with Zipf 1 have
    // probabilities 6/11, 3/11, 2/11; in 20,000 sessions each appears (missing one has
    // probability below (9/11)^20000), and with 10 candidates and 10 results every candidate
    // is shown, so there are exactly 3 * 10 = 30 pairs.
    #[test]
    fn reads_back_with_the_sessions_and_pairs_written() {
        let dir = std::env::temp_dir().join(format!("serpsim-manypairs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.txt");
        let fixed = ManyPairs { sessions: 20_000, queries: 3, candidates: 10, serp_len: 10, ..small() };
        let w = fixed.write_file(&path, &mut |_| {}).unwrap();
        let data = LogData::read(&path, Format::Yandex, false).unwrap();
        assert_eq!((w.sessions, data.log.len(), data.vocab.pair_count()), (20_000, 20_000, 30));
        assert_eq!(data.log.clicks.iter().filter(|&&c| c).count() as u64, w.clicks);

        let g = small();
        let w = g.write_file(&path, &mut |_| {}).unwrap();
        let bytes = std::fs::read_to_string(&path).unwrap();
        let mut pairs = HashSet::new();
        for line in bytes.lines() {
            let (q, rest) = line.split_once('\t').unwrap();
            let docs = rest.split_once(" :").unwrap().0;
            for d in docs.split(',') {
                pairs.insert((q.to_string(), d.to_string()));
            }
        }
        let data = LogData::read(&path, Format::Yandex, false).unwrap();
        assert_eq!((data.log.len() as u64, w.sessions, w.bytes), (30_000, 30_000, bytes.len() as u64));
        assert_eq!(data.vocab.pair_count(), pairs.len());
        // Hand estimate: with Zipf 1 over 5,000 queries (H_5000 = 9.09), query k has
        // 30,000 / (9.09 k) expected sessions, so about 4,000 queries are seen, each with 10 to
        // 15 of its candidates: about 50,000 pairs, at most 5,000 * 15 = 75,000.
        assert!(pairs.len() > 25_000 && pairs.len() <= 75_000, "{} pairs", pairs.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
