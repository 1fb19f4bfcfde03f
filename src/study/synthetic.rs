//! The synthetic study generator: simulated participants on simulated SERPs, producing raw
//! gaze samples, cursor traces, clicks, the study log and AOI files, with the truth that
//! produced them. Public SERP eye-tracking data with token boxes does not exist; this lets
//! the whole pipeline (samples → I-DT → AOI mapping → attention tables → fitted scenario) be
//! tested against known parameters.
//!
//! The model (knobs in [`StudyConfig`], documented in `docs/study.md`):
//! - each participant works on `tasks` tasks; each task has `queries` queries; query 1 has
//!   two topic terms and each reformulation adds one more (literal term acquisition);
//! - a SERP page shows `page_size` results; each result has a URL line (no token boxes) and
//!   `tokens_per_result` word tokens on two lines; a token is one of the session's query
//!   terms with probability `query_term_share`, a stop word with probability
//!   `stop_word_share`, otherwise a task word;
//! - reading is a cascade: rank 1 is examined; after examining rank r the participant goes
//!   on with probability `continuation` (paginating after the last rank of a page) up to
//!   `max_pages` pages, so the planted rank-visit probability is `continuation^(r-1)`;
//! - an examined result gets one fixation on its URL line, then each token is fixated with
//!   probability `fixation_prob` (non-query) or `fixation_prob * query_attention_ratio`
//!   (query terms, capped at 1); durations are `min_fixation_ms + Exp(mean_extra_ms)`, times
//!   `query_duration_factor` for query terms;
//! - gaze samples at `sample_rate_hz` around each fixation point with Gaussian noise
//!   `noise_px`, linear saccades of `saccade_ms`, and a blink (missing samples) after a
//!   fixation with probability `blink_prob`;
//! - the cursor rests on one token of an examined result with probability `hover_prob`;
//! - a result of grade g is clicked with probability `click[g]`; a click opens the document
//!   for `document_ms`, marks it relevant with probability `mark[g]` (taking `mark_ms`), and
//!   returns to the SERP.

use super::aoi::{Aoi, AoiSet};
use super::attention::SNOWBALL_STOP_WORDS;
use super::cursor::{CursorEvent, CursorKind};
use super::detect::ScreenGeometry;
use super::log::{EventKind, LogEvent};
use super::Sample;
use crate::error::{check_probability, Error, Result};
use rand::Rng;
use rand_distr::{Distribution, Exp, Normal};
use serde::{Deserialize, Serialize};

/// Knobs of the generator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StudyConfig {
    /// Participants.
    pub participants: usize,
    /// Tasks per participant (task ids are shared between participants).
    pub tasks: usize,
    /// Queries per task (session).
    pub queries: usize,
    /// Results per SERP page.
    pub page_size: usize,
    /// Pages a participant can reach.
    pub max_pages: usize,
    /// P(continue after examining a rank).
    pub continuation: f64,
    /// Word tokens per result snippet.
    pub tokens_per_result: usize,
    /// Share of snippet tokens that are query terms.
    pub query_term_share: f64,
    /// Share of snippet tokens that are stop words.
    pub stop_word_share: f64,
    /// P(fixate) of a non-query token of an examined result.
    pub fixation_prob: f64,
    /// Planted ratio of the fixation probability of a query token to a non-query token.
    pub query_attention_ratio: f64,
    /// Shortest fixation (ms).
    pub min_fixation_ms: f64,
    /// Mean of the exponential part of a fixation's duration (ms).
    pub mean_extra_ms: f64,
    /// Duration multiplier for fixations on query terms.
    pub query_duration_factor: f64,
    /// Gaze sampling rate (Hz).
    pub sample_rate_hz: f64,
    /// Gaze noise (px, standard deviation per axis).
    pub noise_px: f64,
    /// Saccade duration (ms).
    pub saccade_ms: f64,
    /// P(a blink after a fixation).
    pub blink_prob: f64,
    /// Blink duration (ms).
    pub blink_ms: f64,
    /// P(the cursor rests on a token of an examined result).
    pub hover_prob: f64,
    /// How long the cursor rests (ms).
    pub hover_ms: f64,
    /// Share of relevant (grade 1) documents.
    pub relevant_share: f64,
    /// P(click | grade), index = grade.
    pub click: Vec<f64>,
    /// P(mark relevant | click, grade).
    pub mark: Vec<f64>,
    /// Time to formulate a query (ms).
    pub query_ms: f64,
    /// Time from SERP display to the first result fixation (ms).
    pub serp_look_ms: f64,
    /// Time on a clicked document (ms).
    pub document_ms: f64,
    /// Time to mark a document relevant (ms).
    pub mark_ms: f64,
    /// Screen geometry of the simulated set-up.
    pub screen: ScreenGeometry,
    /// Master seed.
    pub seed: u64,
}

impl Default for StudyConfig {
    fn default() -> Self {
        StudyConfig {
            participants: 20,
            tasks: 3,
            queries: 3,
            page_size: 10,
            max_pages: 2,
            continuation: 0.85,
            tokens_per_result: 12,
            query_term_share: 0.2,
            stop_word_share: 0.25,
            fixation_prob: 0.25,
            query_attention_ratio: 2.0,
            min_fixation_ms: 150.0,
            mean_extra_ms: 100.0,
            query_duration_factor: 1.5,
            sample_rate_hz: 250.0,
            noise_px: 2.0,
            saccade_ms: 30.0,
            blink_prob: 0.05,
            blink_ms: 120.0,
            hover_prob: 0.5,
            hover_ms: 600.0,
            relevant_share: 0.3,
            click: vec![0.2, 0.7],
            mark: vec![0.1, 0.8],
            query_ms: 8000.0,
            serp_look_ms: 1100.0,
            document_ms: 20000.0,
            mark_ms: 2500.0,
            screen: ScreenGeometry { width_px: 1280.0, height_px: 1024.0, width_cm: 38.0, height_cm: 30.2, distance_cm: 68.0 },
            seed: 1,
        }
    }
}

impl StudyConfig {
    /// Checks the knobs; errors name the key.
    pub fn validate(&self) -> Result<()> {
        let c = "synthetic study";
        for (k, v) in [
            ("participants", self.participants),
            ("tasks", self.tasks),
            ("queries", self.queries),
            ("page_size", self.page_size),
            ("max_pages", self.max_pages),
            ("tokens_per_result", self.tokens_per_result),
        ] {
            if v == 0 {
                return Err(Error::config(c, k, "must be at least 1"));
            }
        }
        for (k, v) in [("participants", self.participants), ("tasks", self.tasks), ("queries", self.queries), ("tokens_per_result", self.tokens_per_result)] {
            crate::limits::check_usize(c, k, v, crate::limits::MAX_STUDY_COUNT, "synthetic study size")?;
        }
        crate::limits::check_usize(c, "max_pages", self.max_pages, crate::limits::MAX_PAGES, "result pages per query")?;
        crate::limits::check_product(
            c,
            "participants * tasks * queries",
            &[self.participants as u64, self.tasks as u64, self.queries as u64],
            crate::limits::MAX_STUDY_COUNT * 100,
            "queries of the whole synthetic study",
        )?;
        if self.page_size > 10 {
            return Err(Error::config(c, "page_size", "at most 10 results fit the simulated screen"));
        }
        for (k, v) in [
            ("continuation", self.continuation),
            ("query_term_share", self.query_term_share),
            ("stop_word_share", self.stop_word_share),
            ("fixation_prob", self.fixation_prob),
            ("blink_prob", self.blink_prob),
            ("hover_prob", self.hover_prob),
            ("relevant_share", self.relevant_share),
        ] {
            check_probability(c, k, v)?;
        }
        if self.query_term_share + self.stop_word_share > 1.0 {
            return Err(Error::config(c, "stop_word_share", "query_term_share + stop_word_share must be <= 1"));
        }
        for (name, t) in [("click", &self.click), ("mark", &self.mark)] {
            if t.is_empty() {
                return Err(Error::config(c, name, "must list at least one probability"));
            }
            for (i, &p) in t.iter().enumerate() {
                check_probability(c, &format!("{name}[{i}]"), p)?;
            }
        }
        for (k, v) in [
            ("query_attention_ratio", self.query_attention_ratio),
            ("query_duration_factor", self.query_duration_factor),
            ("sample_rate_hz", self.sample_rate_hz),
            ("min_fixation_ms", self.min_fixation_ms),
            ("saccade_ms", self.saccade_ms),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::config(c, k, "must be a positive number"));
            }
        }
        for (k, v) in [
            ("mean_extra_ms", self.mean_extra_ms),
            ("noise_px", self.noise_px),
            ("blink_ms", self.blink_ms),
            ("hover_ms", self.hover_ms),
            ("query_ms", self.query_ms),
            ("serp_look_ms", self.serp_look_ms),
            ("document_ms", self.document_ms),
            ("mark_ms", self.mark_ms),
            ("min_fixation_ms", self.min_fixation_ms),
            ("saccade_ms", self.saccade_ms),
        ] {
            crate::limits::check_non_negative(c, k, v)?;
        }
        use crate::limits::{check_estimate, MAX_SAMPLE_RATE_HZ, MAX_SESSION_MS, MAX_SESSION_SAMPLES, MAX_STUDY_AOIS, MAX_STUDY_SAMPLES};
        if self.sample_rate_hz > MAX_SAMPLE_RATE_HZ {
            return Err(Error::config(
                c,
                "sample_rate_hz",
                format!("{} is above the upper bound of {MAX_SAMPLE_RATE_HZ} (Hz; the fastest eye trackers record at 2000 Hz)", self.sample_rate_hz),
            ));
        }
        for (k, v) in [("query_duration_factor", self.query_duration_factor), ("query_attention_ratio", self.query_attention_ratio)] {
            crate::limits::check_non_negative(c, k, v)?;
        }
        let size = self.size_estimates();
        check_estimate(
            c,
            "participants * tasks * queries * max_pages * page_size * (tokens_per_result + 1)",
            size.aois,
            MAX_STUDY_AOIS,
            "AOI boxes of the whole study (every page reached), held in memory",
            150.0,
        )?;
        let durations = "queries * max_pages * page_size * tokens_per_result and the durations";
        check_estimate(c, durations, size.session_ms, MAX_SESSION_MS as u64, "ms of a session's clock", 0.0)?;
        check_estimate(
            c,
            &format!("sample_rate_hz * session length ({durations})"),
            size.session_samples,
            MAX_SESSION_SAMPLES,
            "gaze samples per session (every page reached), held in memory with their ASC text",
            64.0,
        )?;
        check_estimate(
            c,
            "sample_rate_hz * session length * participants * tasks",
            size.session_samples * (self.participants * self.tasks) as f64,
            MAX_STUDY_SAMPLES,
            "gaze samples of the whole study (every page reached), written as ASC files",
            40.0,
        )?;
        self.screen.validate()
    }

    /// Upper estimates of what the knobs make the generator produce, each assuming that every
    /// page is reached and every rank examined (the most a session can hold) and durations at
    /// their means: see [`StudySize`]. All in `f64`, so no product overflows.
    pub fn size_estimates(&self) -> StudySize {
        let f = |n: usize| n as f64;
        let pages = f(self.queries) * f(self.max_pages);
        // Fixations per page: the SERP look, a URL line and the fixated tokens per result.
        let p_token = (self.fixation_prob * self.query_attention_ratio.max(1.0)).min(1.0);
        let tokens = f(self.tokens_per_result) * p_token;
        let fixations = 1.0 + f(self.page_size) * (1.0 + tokens);
        let fixation_ms = self.min_fixation_ms + self.mean_extra_ms;
        let looking_ms = self.serp_look_ms.max(self.min_fixation_ms) + f(self.page_size) * fixation_ms * (1.0 + tokens * self.query_duration_factor.max(1.0));
        let recorded_ms = looking_ms + fixations * (self.saccade_ms + self.blink_prob * self.blink_ms);
        // Each fixation adds at most two samples to its duration's (the rounding of a hold
        // and a saccade of at least one sample).
        let page_samples = recorded_ms * self.sample_rate_hz / 1000.0 + 2.0 * fixations;
        let click = self.click.iter().copied().fold(0.0, f64::max);
        let page_ms = recorded_ms + 800.0 + f(self.page_size) * click * (400.0 + self.document_ms + self.mark_ms);
        StudySize {
            session_samples: pages * page_samples,
            session_ms: pages * page_ms + f(self.queries) * self.query_ms + 1000.0,
            aois: f(self.participants) * f(self.tasks) * pages * f(self.page_size) * (f(self.tokens_per_result) + 1.0),
        }
    }

    /// Planted rank-visit probabilities `v_r = continuation^(r-1)`, r = 1..page_size*max_pages.
    pub fn rank_visits(&self) -> Vec<f64> {
        (0..self.page_size * self.max_pages).map(|r| self.continuation.powi(r as i32)).collect()
    }
}

/// Upper estimates of a synthetic study's size ([`StudyConfig::size_estimates`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StudySize {
    /// Gaze samples of one session.
    pub session_samples: f64,
    /// Length of one session's clock (ms), time on documents included.
    pub session_ms: f64,
    /// AOI boxes of the whole study.
    pub aois: f64,
}

/// One simulated session (participant × task) with its raw signals.
#[derive(Debug, Clone)]
pub struct SyntheticSession {
    /// Participant id.
    pub participant: String,
    /// Task id.
    pub task: String,
    /// The log without fixation and hover events (those come from the signals).
    pub events: Vec<LogEvent>,
    /// Gaze samples of the recorded eye at `sample_rate_hz` (NaN while blinking).
    pub samples: Vec<Sample>,
    /// Cursor trace.
    pub cursor: Vec<CursorEvent>,
    /// Ground-truth fixations `(page, x, y, start, duration)`.
    pub true_fixations: Vec<(String, f64, f64, f64, f64)>,
    /// AOIs of this session's SERP pages.
    pub aois: AoiSet,
}

/// A generated study.
#[derive(Debug, Clone)]
pub struct SyntheticStudy {
    /// The configuration.
    pub config: StudyConfig,
    /// Sessions, participant-major.
    pub sessions: Vec<SyntheticSession>,
    /// AOIs of every SERP page.
    pub aois: AoiSet,
    /// Qrels lines `task 0 doc grade`.
    pub qrels: Vec<(String, String, i32)>,
}

const LEFT: f64 = 80.0;
const TOP: f64 = 100.0;
const RESULT_H: f64 = 90.0;
const CHAR_W: f64 = 10.0;
const GAP: f64 = 12.0;
const LINE_H: f64 = 18.0;
const MAX_X: f64 = 1180.0;

fn word<R: Rng>(rng: &mut R) -> String {
    let len = rng.random_range(4..=14usize);
    (0..len).map(|_| char::from(b'a' + rng.random_range(0..26u8))).collect()
}

struct Gen<'a, R: Rng> {
    c: &'a StudyConfig,
    rng: R,
    t: f64,
    samples: Vec<Sample>,
    gaze: (f64, f64),
    noise: Normal<f64>,
}

impl<R: Rng> Gen<'_, R> {
    fn dt(&self) -> f64 {
        1000.0 / self.c.sample_rate_hz
    }
    /// Samples from `self.t` for `ms` at a fixed point.
    fn hold(&mut self, x: f64, y: f64, ms: f64) {
        let end = self.t + ms;
        while self.t < end {
            let (nx, ny) = (self.noise.sample(&mut self.rng), self.noise.sample(&mut self.rng));
            self.samples.push(Sample { time: self.t.round(), x: (x + nx) as f32, y: (y + ny) as f32, pupil: 800.0 });
            self.t += self.dt();
        }
        self.gaze = (x, y);
    }
    fn saccade(&mut self, x: f64, y: f64) {
        let (x0, y0) = self.gaze;
        let n = (self.c.saccade_ms / self.dt()).ceil().max(1.0) as usize;
        for k in 1..=n {
            let f = k as f64 / (n + 1) as f64;
            self.samples.push(Sample { time: self.t.round(), x: (x0 + f * (x - x0)) as f32, y: (y0 + f * (y - y0)) as f32, pupil: 800.0 });
            self.t += self.dt();
        }
        if self.rng.random::<f64>() < self.c.blink_prob {
            let end = self.t + self.c.blink_ms;
            while self.t < end {
                self.samples.push(Sample { time: self.t.round(), x: f32::NAN, y: f32::NAN, pupil: 0.0 });
                self.t += self.dt();
            }
        }
    }
    fn fixate(&mut self, x: f64, y: f64, ms: f64) {
        self.saccade(x, y);
        self.hold(x, y, ms);
    }
    /// Jumps the clock (no recording, e.g. on a document page), aligned to the sample grid.
    fn skip(&mut self, ms: f64) {
        let dt = self.dt();
        self.t += (ms / dt).ceil() * dt;
    }
}

/// Generates a study, keeping every session in memory.
pub fn generate(c: &StudyConfig) -> Result<SyntheticStudy> {
    let mut sessions = Vec::new();
    let (aois, qrels) = generate_with(c, &mut |s| sessions.push(s))?;
    Ok(SyntheticStudy { config: c.clone(), sessions, aois, qrels })
}

/// Qrels rows `(task, document, grade)`.
pub type QrelRows = Vec<(String, String, i32)>;

/// Generates a study session by session, handing each to `sink` (samples are not kept);
/// returns the AOIs and the qrels.
pub fn generate_with(c: &StudyConfig, sink: &mut dyn FnMut(SyntheticSession)) -> Result<(AoiSet, QrelRows)> {
    c.validate()?;
    let mut aoi_rows: Vec<(String, Aoi, bool)> = Vec::new();
    let mut qrels = Vec::new();
    // Task material: topic terms, task words, documents with grades.
    struct Task {
        id: String,
        topic: Vec<String>,
        words: Vec<String>,
        docs: Vec<(String, i32)>,
    }
    let mut tasks = Vec::new();
    for ti in 0..c.tasks {
        let mut rng = crate::rng::stream(c.seed, &[1, ti as u64]);
        let id = format!("t{}", ti + 1);
        let topic: Vec<String> = (0..c.queries + 1).map(|_| word(&mut rng)).collect();
        let words: Vec<String> = (0..150).map(|_| word(&mut rng)).collect();
        let n_docs = c.page_size * c.max_pages * 2;
        let docs: Vec<(String, i32)> = (0..n_docs).map(|d| (format!("{id}-d{}", d + 1), i32::from(rng.random::<f64>() < c.relevant_share))).collect();
        for (d, g) in &docs {
            qrels.push((id.clone(), d.clone(), *g));
        }
        tasks.push(Task { id, topic, words, docs });
    }
    let exp = Exp::new(1.0 / c.mean_extra_ms.max(1e-9)).map_err(|e| Error::Invalid(e.to_string()))?;
    for p in 0..c.participants {
        for task in &tasks {
            let ti = tasks.iter().position(|t| t.id == task.id).unwrap_or(0);
            let rng = crate::rng::stream(c.seed, &[2, p as u64, ti as u64]);
            let noise = Normal::new(0.0, c.noise_px.max(1e-9)).map_err(|e| Error::Invalid(e.to_string()))?;
            let mut g = Gen { c, rng, t: 0.0, samples: Vec::new(), gaze: (640.0, 40.0), noise };
            let participant = format!("p{:02}", p + 1);
            let mut events = Vec::new();
            let mut cursor = Vec::new();
            let mut truth = Vec::new();
            let rows_before = aoi_rows.len();
            let ev =
                |t: f64, kind: EventKind| LogEvent { t, participant: participant.clone(), task: task.id.clone(), condition: Some("synthetic".into()), kind };
            events.push(ev(0.0, EventKind::SessionStart {}));
            let queries: Vec<String> = (0..c.queries).map(|q| task.topic[..q + 2].join(" ")).collect();
            let union: Vec<String> = task.topic[..c.queries + 1].to_vec();
            for (qi, q) in queries.iter().enumerate() {
                g.skip(c.query_ms);
                events.push(ev(g.t, EventKind::Query { query: q.clone() }));
                // This query's ranking: a seeded shuffle of the task's documents.
                let mut order: Vec<usize> = (0..task.docs.len()).collect();
                for i in (1..order.len()).rev() {
                    let j = g.rng.random_range(0..=i);
                    order.swap(i, j);
                }
                let mut rank = 0usize; // ranks examined so far
                'pages: for sp in 0..c.max_pages {
                    let page = format!("{participant}-{}-q{}-s{}", task.id, qi + 1, sp + 1);
                    let first = sp * c.page_size;
                    let results: Vec<String> = order[first..first + c.page_size].iter().map(|&d| task.docs[d].0.clone()).collect();
                    // Layout: token boxes per result.
                    let mut layout: Vec<Vec<(String, f64, f64, f64)>> = Vec::new(); // (token, x, y, w)
                    for r in 0..c.page_size {
                        let y0 = TOP + r as f64 * RESULT_H;
                        aoi_rows.push((
                            page.clone(),
                            Aoi {
                                text: format!("result {}", first + r + 1),
                                x: LEFT - 10.0,
                                y: y0 - 5.0,
                                w: MAX_X - LEFT + 20.0,
                                h: RESULT_H - 10.0,
                                rank: Some((first + r + 1) as u32),
                            },
                            true,
                        ));
                        let mut toks = Vec::new();
                        let (mut x, mut line) = (LEFT, 0);
                        for _ in 0..c.tokens_per_result {
                            let u = g.rng.random::<f64>();
                            let text = if u < c.query_term_share {
                                union[g.rng.random_range(0..union.len())].clone()
                            } else if u < c.query_term_share + c.stop_word_share {
                                SNOWBALL_STOP_WORDS[g.rng.random_range(0..SNOWBALL_STOP_WORDS.len())].to_string()
                            } else {
                                task.words[g.rng.random_range(0..task.words.len())].clone()
                            };
                            let w = CHAR_W * text.chars().count() as f64;
                            if x + w > MAX_X && line == 0 {
                                x = LEFT;
                                line = 1;
                            }
                            let y = y0 + 30.0 + line as f64 * (LINE_H + 12.0);
                            aoi_rows.push((page.clone(), Aoi { text: text.clone(), x, y, w, h: LINE_H, rank: Some((first + r + 1) as u32) }, false));
                            toks.push((text, x, y, w));
                            x += w + GAP;
                        }
                        layout.push(toks);
                    }
                    g.skip(300.0);
                    let view = || EventKind::SerpView {
                        page: page.clone(),
                        serp_page: (sp + 1) as u32,
                        results: results.clone(),
                        first_rank: Some((first + 1) as u32),
                        aoi: Some(format!("aoi/{participant}-{}.csv", task.id).into()),
                        sublist: None,
                    };
                    events.push(ev(g.t, view()));
                    // Look at the page (search box area, no AOI) before reading results.
                    g.fixate(640.0, 40.0, c.serp_look_ms.max(c.min_fixation_ms));
                    for r in 0..c.page_size {
                        rank += 1;
                        let y0 = TOP + r as f64 * RESULT_H;
                        // URL line: result evidence without token boxes.
                        let dur = c.min_fixation_ms + exp.sample(&mut g.rng);
                        let (ux, uy) = (LEFT + 60.0, y0 + 8.0);
                        g.fixate(ux, uy, dur);
                        truth.push((page.clone(), ux, uy, g.t - dur, dur));
                        let hover_at = if g.rng.random::<f64>() < c.hover_prob { Some(g.rng.random_range(0..layout[r].len())) } else { None };
                        for (k, (text, x, y, w)) in layout[r].iter().enumerate() {
                            let is_q = union.contains(text);
                            let p = if is_q { (c.fixation_prob * c.query_attention_ratio).min(1.0) } else { c.fixation_prob };
                            if Some(k) == hover_at {
                                cursor.push(CursorEvent { t: g.t, x: x + w / 2.0, y: y + LINE_H / 2.0, kind: CursorKind::Move, xpath: None });
                                cursor.push(CursorEvent { t: g.t + c.hover_ms, x: MAX_X + 50.0, y: y + LINE_H / 2.0, kind: CursorKind::Move, xpath: None });
                            }
                            if g.rng.random::<f64>() < p {
                                let dur = (c.min_fixation_ms + exp.sample(&mut g.rng)) * if is_q { c.query_duration_factor } else { 1.0 };
                                let (fx, fy) = (x + w / 2.0, y + LINE_H / 2.0);
                                g.fixate(fx, fy, dur);
                                truth.push((page.clone(), fx, fy, g.t - dur, dur));
                            }
                        }
                        // Click?
                        let doc = order[first + r];
                        let grade = task.docs[doc].1;
                        let gi = (grade.max(0) as usize).min(c.click.len() - 1);
                        if g.rng.random::<f64>() < c.click[gi] {
                            g.skip(200.0);
                            let (cx, cy) = (LEFT + 30.0, y0 + 8.0);
                            cursor.push(CursorEvent { t: g.t, x: cx, y: cy, kind: CursorKind::Click, xpath: None });
                            events.push(ev(g.t, EventKind::Click { rank: rank as u32, document: task.docs[doc].0.clone() }));
                            g.skip(200.0);
                            events.push(ev(
                                g.t,
                                EventKind::PageVisit { page: format!("doc-{}", task.docs[doc].0), document: task.docs[doc].0.clone(), aoi: None },
                            ));
                            g.skip(c.document_ms - 200.0);
                            let mi = (grade.max(0) as usize).min(c.mark.len() - 1);
                            if g.rng.random::<f64>() < c.mark[mi] {
                                events.push(ev(g.t, EventKind::MarkRelevant { document: task.docs[doc].0.clone() }));
                                g.skip(c.mark_ms);
                            }
                            events.push(ev(g.t, view()));
                            g.gaze = (640.0, 40.0);
                        }
                        if rank >= c.page_size * c.max_pages || g.rng.random::<f64>() >= c.continuation {
                            break 'pages;
                        }
                    }
                    g.skip(500.0); // paginate
                }
            }
            g.skip(1000.0);
            events.push(ev(g.t, EventKind::SessionEnd {}));
            cursor.sort_by(|a, b| a.t.total_cmp(&b.t));
            let aois = AoiSet::from_rows(aoi_rows[rows_before..].to_vec());
            sink(SyntheticSession {
                participant: participant.clone(),
                task: task.id.clone(),
                events,
                samples: std::mem::take(&mut g.samples),
                cursor,
                true_fixations: truth,
                aois,
            });
        }
    }
    Ok((AoiSet::from_rows(aoi_rows), qrels))
}

impl SyntheticSession {
    /// The gaze samples as an EyeLink ASC text (monocular, left eye) with a `PAGE <id>`
    /// message at each SERP view, so the file goes through [`crate::study::asc`].
    pub fn to_asc(&self, config: &StudyConfig) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "** CONVERTED FROM serpsim synthetic study\n** SESSION {} {}", self.participant, self.task);
        let _ = writeln!(s, "MSG\t0 DISPLAY_COORDS 0 0 {} {}", config.screen.width_px - 1.0, config.screen.height_px - 1.0);
        let t0 = self.samples.first().map(|x| x.time).unwrap_or(0.0);
        let _ = writeln!(s, "START\t{t0} \tLEFT\tSAMPLES\tEVENTS\nSAMPLES\tGAZE\tLEFT\tRATE\t{:.2}\tTRACKING\tCR\tFILTER\t2", config.sample_rate_hz);
        let mut views = self
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::SerpView { page, .. } => Some((e.t, page.as_str())),
                _ => None,
            })
            .peekable();
        for x in &self.samples {
            while let Some((t, page)) = views.peek() {
                if *t <= x.time {
                    let _ = writeln!(s, "MSG\t{t} PAGE {page}");
                    views.next();
                } else {
                    break;
                }
            }
            if x.is_valid() {
                let _ = writeln!(s, "{}\t{:7.1}\t{:7.1}\t{:7.1}\t...", x.time, x.x, x.y, x.pupil);
            } else {
                let _ = writeln!(s, "{}\t   .\t   .\t    0.0\t...", x.time);
            }
        }
        let t1 = self.samples.last().map(|x| x.time).unwrap_or(0.0);
        let _ = writeln!(s, "END\t{t1} \tSAMPLES\tEVENTS\tRES\t  37.00\t  37.00");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::trec::Qrels;
    use crate::study::attention::query_term_table;
    use crate::study::detect::{idt, IdtParams};
    use crate::study::fit::{fit, FitOptions};
    use crate::study::log::StudyLog;
    use crate::study::pipeline::{annotate, session_input, AttentionSource};
    use crate::study::Eye;

    #[test]
    fn knobs_that_size_the_study_are_bounded() {
        // Issue 42: bounds from src/limits.rs (docs/reliability.md's table); the estimates are
        // recomputed by hand for the defaults below.
        let err = |c: StudyConfig| c.validate().unwrap_err().to_string();
        let e = err(StudyConfig { sample_rate_hz: 1e6, ..Default::default() });
        assert!(e.contains("key `sample_rate_hz`: 1000000 is above the upper bound of 10000"), "{e}");
        let e = err(StudyConfig { sample_rate_hz: 10_000.0, serp_look_ms: 1e6, ..Default::default() });
        assert!(e.contains("gaze samples per session") && e.contains("upper bound of 10000000"), "{e}");
        let c = StudyConfig {
            participants: 2000,
            tasks: 1,
            queries: 1,
            max_pages: 1,
            page_size: 1,
            tokens_per_result: 1,
            sample_rate_hz: 10_000.0,
            serp_look_ms: 1e5,
            ..Default::default()
        };
        let e = err(c);
        assert!(e.contains("gaze samples of the whole study") && e.contains("upper bound of 1000000000"), "{e}");
        let e = err(StudyConfig { participants: 1, tasks: 1, queries: 100, max_pages: 100, document_ms: 1e9, click: vec![1.0, 1.0], ..Default::default() });
        assert!(e.contains("ms of a session's clock") && e.contains("upper bound of 100000000000"), "{e}");
        let e = err(StudyConfig { participants: 1000, tasks: 100, queries: 10, max_pages: 10, ..Default::default() });
        // 1000 * 100 * 10 * 10 pages * 10 results * 13 boxes = 1.3 * 10^9.
        assert!(e.contains("an estimated 1300000000 AOI boxes"), "{e}");
        let e = err(StudyConfig { mean_extra_ms: 1e10, ..Default::default() });
        assert!(e.contains("key `mean_extra_ms`: 10000000000 is above the upper bound of 1e9"), "{e}");
        // The defaults, by hand: 6 pages of 71 fixations (1 + 10 * (1 + 12 * 0.5)), 28,656 ms
        // recorded each (1100 + 10 * 250 * (1 + 6 * 1.5) + 71 * 36) -> 6 * (28656 * 0.25 + 142)
        // = 43,836 samples per session.
        let size = StudyConfig::default().size_estimates();
        assert!((size.session_samples - 43_836.0).abs() < 1e-6, "{size:?}");
        StudyConfig::default().validate().unwrap();
    }

    /// The whole pipeline against the generator's truth: raw samples → I-DT → AOI mapping →
    /// JSONL log → fitted rank visits, P(click | grade), and the query-term attention ratio.
    #[test]
    fn end_to_end_recovers_planted_parameters() {
        let c = StudyConfig { participants: 100, tasks: 5, queries: 6, seed: 11, ..Default::default() };
        let dt = 1000.0 / c.sample_rate_hz;
        let mut jsonl = String::new();
        let mut truth_jsonl = String::new();
        let (mut detected, mut planted) = (0usize, 0usize);
        let (aois, qrels) = generate_with(&c, &mut |s| {
            let truth: Vec<crate::study::Fixation> = s
                .true_fixations
                .iter()
                .map(|&(_, x, y, start, d)| crate::study::Fixation { eye: Eye::Left, start, end: start + d, duration: d, x, y, pupil: f64::NAN })
                .collect();
            truth_jsonl.push_str(&StudyLog::to_jsonl(&annotate(&s.events, &truth, &[], &s.aois, 100.0)));
            let fix = idt(&s.samples, &c.screen, &IdtParams::default(), Eye::Left, dt);
            detected += fix.len();
            planted += s.true_fixations.len() + s.events.iter().filter(|e| matches!(e.kind, EventKind::SerpView { .. })).count();
            jsonl.push_str(&StudyLog::to_jsonl(&annotate(&s.events, &fix, &s.cursor, &s.aois, 100.0)));
        })
        .unwrap();
        // Every planted fixation (plus one SERP look per view) is found, give or take merges.
        let recall = detected as f64 / planted as f64;
        assert!((0.97..=1.01).contains(&recall), "detected {detected} of {planted}");
        let log = StudyLog::parse(&jsonl, "synthetic.jsonl").unwrap();
        let qtext: String = qrels.iter().map(|(t, d, g)| format!("{t} 0 {d} {g}\n")).collect();
        let q = Qrels::parse(&qtext, "qrels").unwrap();
        let f = fit(&log, Some(&q), &FitOptions::default()).unwrap();
        assert_eq!(f.searches, 100 * 5 * 6);
        let truth = c.rank_visits();
        assert_eq!(f.rank_visits.len(), truth.len());
        let worst = f.rank_visits.iter().zip(&truth).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(worst <= 0.03, "rank visits {:?} vs {:?}", f.rank_visits, truth);
        // P(click | grade) over visited results: planted 0.2 and 0.7.
        let click: Vec<f64> = f.by_grade.iter().map(|g| g.1 as f64 / g.0 as f64).collect();
        assert!((click[0] - 0.2).abs() < 0.03 && (click[1] - 0.7).abs() < 0.03, "{click:?}");
        // Query-term attention: fixations per query token over fixations per non-query token.
        let inputs: Vec<_> = log.sessions.iter().map(|s| session_input(s, &aois, AttentionSource::Fixations)).collect();
        let t = query_term_table(&inputs, &|_| true);
        let ratio = t.attention_ratio();
        // The same from the planted fixations (no detection): separates sampling from detection.
        let tlog = StudyLog::parse(&truth_jsonl, "truth.jsonl").unwrap();
        let tin: Vec<_> = tlog.sessions.iter().map(|s| session_input(s, &aois, AttentionSource::Fixations)).collect();
        let true_ratio = query_term_table(&tin, &|_| true).attention_ratio();
        assert!((ratio / c.query_attention_ratio - 1.0).abs() <= 0.10, "ratio {ratio}");
        eprintln!("e2e: recall {recall:.4}, worst rank-visit error {worst:.4}, click {click:?}, attention ratio {ratio:.4} (from planted fixations {true_ratio:.4}; planted {})", c.query_attention_ratio);
        // The fitted scenario parses.
        let sc = f.scenario("fitted", None, c.page_size);
        crate::scenario::Scenario::parse(&f.scenario_toml(&sc).unwrap(), "fitted.toml").unwrap();
    }
}
