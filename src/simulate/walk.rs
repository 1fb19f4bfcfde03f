//! One simulated session: the user walks an action path through the interface (He et al.
//! §3.2-3.3: a policy walks, a cost model charges, a gain model credits). This is the hot loop.
//!
//! A session issues the topic's query variants in order (up to the profile's `queries.max`).
//! For each query the user looks at the result page, then examines results top-down in the
//! current list. Before every result except the first of a list visit a continuation decision
//! is drawn; a failed decision ends the query, or, for a user who switches sublists (He et
//! al.), selects another sublist drawn from the user's choice probabilities (a Dirichlet draw
//! per query), and its first unseen result is examined without a decision. Results already seen
//! in this query are skipped in every list (A2); lists are read top to bottom (A1); selecting a
//! sublist shows its first page and each page turned costs one `paginate`. When no other list
//! can be selected, a failed decision ends the query, or, for a user with
//! `no_alternative = "stay"` (He et al.'s), lets the user go on in the current list.
//!
//! At each result: examination (always, or the click model's examination probability), then
//! the click (cascade tables by grade, or the click model's attractiveness), reading (a
//! document is read at most once per session; a snippet met again under a later query is
//! examined again), marking, gain (on reading or marking), satisfaction (ends the query or the
//! session), then the stopping rules of the query and of the session.
//!
//! Costs: every action is charged effort and seconds; system delays add seconds. A hard budget
//! (`budget.seconds`, `budget.effort`) is checked before every action: an action that does not
//! fit is not taken and the session ends, so time never exceeds the budget. Stopping rules
//! are soft: they are checked after each result (so time may exceed a `time_budget` rule by
//! the last result's actions).
//!
//! **Random numbers.** Every draw is counter-based, keyed by the session key `(seed, topic,
//! user)` that does not depend on the system or profile: the judgements of a document (click,
//! mark, satisfaction) are fixed per user and document, and the k-th continuation decision of
//! query q uses the same number on every system. The same user therefore meets every compared
//! system with common random numbers.

use super::world::{QueryList, Sublists, World, WorldTopic};
use crate::rng::{item_key_fast, mix64, uniform_at, unit, Stream, TaggedDraws};
use crate::user::{
    by_grade, Action, ClickBehaviour, Cont, Continuation, CostModel, CreditOn, Delays, GainModel, ResolvedUser, Rule, SatisfiedEnds, StoppingRule, WalkState,
};
use rand::SeedableRng;
use rand_distr::{Distribution, Gamma};

/// What one simulated session did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Outcome {
    /// Effort spent (weighted actions).
    pub effort: f64,
    /// Time spent in seconds, system delays included.
    pub time: f64,
    /// Time without system delays (Crescenzi et al.'s adjusted time).
    pub adjusted_time: f64,
    /// Gain collected.
    pub gain: f64,
    /// Relevant documents found (credited with gain).
    pub relevant_found: u32,
    /// Results examined, over all queries.
    pub depth: u32,
    /// Documents read (clicked for the first time).
    pub clicks: u32,
    /// Documents marked relevant.
    pub marks: u32,
    /// Queries issued.
    pub queries: u32,
    /// Page turns.
    pub page_turns: u32,
    /// Sublist selections.
    pub switches: u32,
}

/// One step of the path, for traces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Query variant `q` issued.
    Query(u32),
    /// Sublist `list` selected.
    Select {
        /// List index (0 = "All").
        list: u32,
    },
    /// Page `page` (1-based) of `list` shown.
    Paginate {
        /// List index.
        list: u32,
        /// Page now shown.
        page: u32,
    },
    /// A result examined.
    Examine {
        /// List index.
        list: u32,
        /// Displayed rank in the list, 1-based.
        rank: u32,
        /// Position in "All", 1-based.
        position: u32,
        /// Document index.
        doc: u32,
        /// Judged relevant (grade > 0).
        relevant: bool,
        /// Clicked.
        clicked: bool,
    },
    /// A result passed over without examination (click models with an examination probability).
    Skip {
        /// List index.
        list: u32,
        /// Displayed rank.
        rank: u32,
    },
    /// Document read; `marked` says whether it was marked relevant.
    Read {
        /// Document index.
        doc: u32,
        /// Marked.
        marked: bool,
    },
}

/// Receives the steps and gain events of a walk. The default methods do nothing, so `()`
/// traces nothing at no cost.
pub trait Trace {
    /// A step.
    #[inline]
    fn step(&mut self, _s: Step) {}
    /// Gain credited: elapsed `time` and `effort` at that moment, `total` gain so far.
    #[inline]
    fn gain(&mut self, _time: f64, _effort: f64, _total: f64) {}
}

impl Trace for () {}

impl Trace for Vec<Step> {
    fn step(&mut self, s: Step) {
        self.push(s);
    }
}

/// Gain events `(time, effort, total gain)` of a session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GainEvents(pub Vec<(f64, f64, f64)>);

impl Trace for GainEvents {
    #[inline]
    fn gain(&mut self, time: f64, effort: f64, total: f64) {
        self.0.push((time, effort, total));
    }
}

/// Chooses the next sublist when a switching user leaves the current one.
pub trait SublistChooser {
    /// Picks one of the `count` selectable lists (`selectable(k)`: not the current list and not
    /// exhausted) of query `q`; `u` gives uniform numbers in [0, 1) (call it with 0, 1, ...).
    fn pick(&mut self, q: usize, sl: &Sublists, selectable: &dyn Fn(usize) -> bool, count: u32, u: &mut dyn FnMut(u64) -> f64) -> usize;
}

/// He et al.'s chooser: c_u ~ Dirichlet(alpha) drawn once per (user, query) at the first
/// switch, then each switch picks a selectable sublist with probability proportional to c_u
/// (uniformly if they all have weight 0).
#[derive(Debug, Clone, Default)]
pub struct DirichletChooser<'a> {
    samplers: &'a [Vec<Option<Gamma<f64>>>],
    key: u64,
    drawn: Vec<bool>,
    c: Vec<Vec<f64>>,
}

const DIRICHLET_TAG: u64 = 0x4449_5249_4348_4c54; // "DIRICHLT"

impl<'a> DirichletChooser<'a> {
    /// A chooser over Gamma(alpha_k, 1) samplers per query variant (`None` for alpha_k = 0).
    pub fn new(samplers: &'a [Vec<Option<Gamma<f64>>>]) -> Self {
        DirichletChooser { samplers, key: 0, drawn: Vec::new(), c: Vec::new() }
    }

    /// Starts a new session keyed by `key`.
    pub fn begin(&mut self, key: u64) {
        self.key = key;
        self.drawn.clear();
        self.drawn.resize(self.samplers.len(), false);
        if self.c.len() < self.samplers.len() {
            self.c.resize(self.samplers.len(), Vec::new());
        }
    }
}

/// Draws c ~ Dirichlet(alpha) into `out` from Gamma(alpha_k, 1) samplers (`None` for
/// alpha_k = 0, giving c_k = 0). All-zero draws give the uniform vector.
pub fn draw_dirichlet<R: rand::Rng + ?Sized>(gammas: &[Option<Gamma<f64>>], rng: &mut R, out: &mut Vec<f64>) {
    out.clear();
    let mut total = 0.0;
    for g in gammas {
        let x = g.as_ref().map_or(0.0, |g| g.sample(rng));
        total += x;
        out.push(x);
    }
    if total > 0.0 && total.is_finite() {
        out.iter_mut().for_each(|x| *x /= total);
    } else {
        let u = 1.0 / out.len().max(1) as f64;
        out.iter_mut().for_each(|x| *x = u);
    }
}

/// Gamma(alpha_k, 1) samplers for [`draw_dirichlet`]; alpha must be finite and >= 0.
pub fn dirichlet_samplers(alpha: &[f64]) -> crate::Result<Vec<Option<Gamma<f64>>>> {
    alpha
        .iter()
        .enumerate()
        .map(|(k, &a)| {
            if !a.is_finite() || a < 0.0 {
                return Err(crate::Error::Invalid(format!("Dirichlet alpha[{k}] = {a} must be finite and >= 0")));
            }
            if a == 0.0 {
                Ok(None)
            } else {
                Gamma::new(a, 1.0).map(Some).map_err(|e| crate::Error::Invalid(format!("Dirichlet alpha[{k}] = {a}: {e}")))
            }
        })
        .collect()
}

/// Picks among the `count` selectable lists with probability proportional to `choice`
/// (uniformly when they all weigh 0), as He et al.
pub fn pick_weighted(choice: &[f64], k_lists: usize, selectable: &dyn Fn(usize) -> bool, count: u32, u: &mut dyn FnMut(u64) -> f64) -> usize {
    if count == 1 {
        return (0..k_lists).find(|&k| selectable(k)).unwrap_or(0);
    }
    // Summed afresh: a sparse Dirichlet draw puts almost all mass on one sublist, and
    // subtracting it from a running sum would cancel the others' tiny weights.
    let total: f64 = (0..k_lists).filter(|&k| selectable(k)).map(|k| choice.get(k).copied().unwrap_or(0.0)).sum();
    if total > 0.0 {
        let mut x = u(0) * total;
        let mut last_positive = None;
        for k in 0..k_lists {
            let c = choice.get(k).copied().unwrap_or(0.0);
            if selectable(k) && c > 0.0 {
                if x < c {
                    return k;
                }
                x -= c;
                last_positive = Some(k);
            }
        }
        if let Some(k) = last_positive {
            return k;
        }
    }
    let mut j = ((u(1) * count as f64) as u32).min(count - 1);
    for k in 0..k_lists {
        if selectable(k) {
            if j == 0 {
                return k;
            }
            j -= 1;
        }
    }
    0
}

impl SublistChooser for DirichletChooser<'_> {
    fn pick(&mut self, q: usize, sl: &Sublists, selectable: &dyn Fn(usize) -> bool, count: u32, u: &mut dyn FnMut(u64) -> f64) -> usize {
        if count > 1 && !self.drawn[q] {
            let mut rng = Stream::seed_from_u64(mix64(self.key ^ DIRICHLET_TAG ^ mix64(q as u64)));
            draw_dirichlet(&self.samplers[q], &mut rng, &mut self.c[q]);
            self.drawn[q] = true;
        }
        pick_weighted(&self.c[q], sl.k(), selectable, count, u)
    }
}

/// A chooser with fixed choice weights over the lists (e.g. a generator's known probabilities).
#[derive(Debug, Clone, PartialEq)]
pub struct FixedChoice(pub Vec<f64>);

impl SublistChooser for FixedChoice {
    fn pick(&mut self, _q: usize, sl: &Sublists, selectable: &dyn Fn(usize) -> bool, count: u32, u: &mut dyn FnMut(u64) -> f64) -> usize {
        pick_weighted(&self.0, sl.k(), selectable, count, u)
    }
}

/// Everything about one (topic, system) the walk needs besides the user.
#[derive(Debug, Clone, Copy)]
pub struct SystemOnTopic<'a> {
    /// The topic.
    pub topic: &'a WorldTopic,
    /// Lists of the query variants, in issue order.
    pub queries: &'a [QueryList],
    /// System delays.
    pub delays: &'a Delays,
    /// Results per page.
    pub page_size: usize,
    /// Results above the fold (`usize::MAX`: all).
    pub fold: usize,
    /// Seconds to reach a result below the fold.
    pub below_fold: f64,
    /// Index of the first query list with sublists (`queries.len()` when none):
    /// [`first_sublist`]`(queries)`, computed once per topic and system rather than per session.
    pub sublists_from: usize,
}

/// Index of the first list of `queries` with sublists, `queries.len()` when none (see
/// [`SystemOnTopic::sublists_from`]).
pub fn first_sublist(queries: &[QueryList]) -> usize {
    queries.iter().position(|l| l.sublists.is_some()).unwrap_or(queries.len())
}

impl<'a> SystemOnTopic<'a> {
    /// The stage of `topic` on `system` of `world` (`None` when the system has no list for it).
    pub fn of(world: &'a World, topic: usize, system: usize) -> Option<Self> {
        let s = &world.systems[system];
        let queries = s.serps[topic].as_deref()?;
        Some(SystemOnTopic {
            topic: &world.topics[topic],
            queries,
            delays: &s.delays,
            page_size: world.page_size,
            fold: world.fold,
            below_fold: world.below_fold,
            sublists_from: first_sublist(queries),
        })
    }
}

/// Reusable per-thread state (no allocation per session once warmed up).
#[derive(Debug, Default, Clone)]
pub struct Scratch {
    read: Vec<u32>,
    stamp: u32,
    seen: Vec<u64>,
    pos: Vec<u32>,
    page: Vec<u32>,
    live: u32,
}

impl Scratch {
    #[inline]
    fn begin(&mut self, docs: usize) {
        if self.read.len() < docs {
            self.read.resize(docs, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.read.iter_mut().for_each(|x| *x = 0);
            self.stamp = 1;
        }
    }

    fn reset_lists(&mut self, n: usize, k: usize, sublists: bool) {
        self.pos.clear();
        self.pos.resize(k, 0);
        self.page.clear();
        self.page.resize(k, 0);
        self.live = k as u32;
        if sublists {
            self.seen.clear();
            self.seen.resize(n.div_ceil(64), 0);
        }
    }

    #[inline]
    fn is_seen(&self, r: u32) -> bool {
        self.seen[(r >> 6) as usize] >> (r & 63) & 1 == 1
    }

    /// Moves list `k`'s pointer from `from` to its next unseen result.
    #[inline]
    fn advance(&mut self, sl: &Sublists, k: usize, from: usize) {
        let list = &sl.lists[k];
        let mut q = from + 1;
        while q < list.len() && self.is_seen(list[q]) {
            q += 1;
        }
        self.pos[k] = q as u32;
        if q == list.len() {
            self.live -= 1;
        }
    }

    /// Marks position `r` seen and moves every pointer resting on it.
    #[inline]
    fn see(&mut self, sl: &Sublists, r: u32) {
        self.seen[(r >> 6) as usize] |= 1u64 << (r & 63);
        for &(k, p) in sl.members(r) {
            if self.pos[k as usize] == p {
                self.advance(sl, k as usize, p as usize);
            }
        }
    }
}

const CONT_TAG: u64 = 0x434f_4e54_494e_5545; // "CONTINUE"
/// Tag of the page-continuation draws (the sessions module's "PAGE").
pub const PAGE_TAG: u64 = 0x5041_4745;
const EXAM_TAG: u64 = 0x4558_414d_494e_4521; // "EXAMINE!"
const PICK_TAG: u64 = 0x5049_434b_4c49_5354; // "PICKLIST"
const STOP_TAG: u64 = 0x5354_4f50_5255_4c45; // "STOPRULE"
const SESSION_STOP_TAG: u64 = 0x5345_5353_5354_4f50; // "SESSSTOP"
/// The continuation and examination draws of the first query's first 256 decisions and steps,
/// precomputed (identical to `uniform_at` with the tag; see `rng::TaggedDraws`).
static CONT_DRAWS: TaggedDraws<256> = TaggedDraws::new(CONT_TAG);
static EXAM_DRAWS: TaggedDraws<256> = TaggedDraws::new(EXAM_TAG);

/// The session clock: elapsed time, effort, delays and the hard budget.
struct Clock {
    t: f64,
    effort: f64,
    delay: f64,
    limit_t: f64,
    limit_e: f64,
}

impl Clock {
    /// Takes an action of `effort` and `secs` (+ `lag` system delay) if it fits the budget.
    #[inline]
    fn fits(&mut self, effort: f64, secs: f64, lag: f64) -> bool {
        let c = secs + lag;
        if self.t + c > self.limit_t || self.effort + effort > self.limit_e {
            return false;
        }
        self.t += c;
        self.delay += lag;
        self.effort += effort;
        true
    }
}

/// True when any of `rules` stops the walk; random rules draw from `(key, tag ^ id, counter)`.
/// Leaf rules are evaluated inline (a compare for the common SS1-SS3), combinators by a call.
#[inline(always)]
fn rules_stop(rules: &[Rule], s: &WalkState, key: u64, tag: u64, counter: u64) -> bool {
    let mut u = |id: usize| uniform_at(key, tag ^ mix64(id as u64), counter);
    for r in rules {
        let stop = match r.leaf_stop(s, &mut u) {
            Some(stop) => stop,
            None => r.should_stop(s, &mut u),
        };
        if stop {
            return true;
        }
    }
    false
}

/// Simulates one session of `user` on `stage`. `key` is the session key (see the module docs);
/// `clicks` answers the click questions (the user's grade tables, or a click model's tables for
/// this topic); `chooser` picks sublists; `trace` receives steps and gain events.
#[allow(clippy::too_many_arguments)]
pub fn walk<C: ClickBehaviour, S: SublistChooser, T: Trace>(
    stage: &SystemOnTopic,
    user: &ResolvedUser,
    clicks: &C,
    chooser: &mut S,
    key: u64,
    scratch: &mut Scratch,
    trace: &mut T,
) -> Outcome {
    walk_decided(stage, user, clicks, chooser, key, scratch, trace, None)
}

/// [`walk`] with the session's click and mark decisions looked up in `decided` (the session
/// key's row of [`Decisions`](super::decisions::Decisions), made for `clicks`' and the user's
/// tables) instead of drawn, where the walk is flat; the same outcome and trace.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn walk_decided<C: ClickBehaviour, S: SublistChooser, T: Trace>(
    stage: &SystemOnTopic,
    user: &ResolvedUser,
    clicks: &C,
    chooser: &mut S,
    key: u64,
    scratch: &mut Scratch,
    trace: &mut T,
    decided: Option<Decided>,
) -> Outcome {
    if is_flat(stage, user, clicks) {
        if let Some(mut d) = decided {
            return walk_flat(stage, user, clicks, key, scratch, trace, &mut d);
        }
        return walk_flat(stage, user, clicks, key, scratch, trace, &mut Ahead::default());
    }
    walk_general(stage, user, clicks, chooser, key, scratch, trace)
}

/// [`walk`] for any session (the definition; [`walk_flat`] is its fast path).
#[allow(clippy::too_many_arguments)]
fn walk_general<C: ClickBehaviour, S: SublistChooser, T: Trace>(
    stage: &SystemOnTopic,
    user: &ResolvedUser,
    clicks: &C,
    chooser: &mut S,
    key: u64,
    scratch: &mut Scratch,
    trace: &mut T,
) -> Outcome {
    let topic = stage.topic;
    let costs = &user.costs;
    let delays = stage.delays;
    let page_size = stage.page_size.max(1);
    let mut out = Outcome::default();
    let mut clock = Clock { t: 0.0, effort: 0.0, delay: 0.0, limit_t: user.budget_seconds, limit_e: user.budget_effort };
    scratch.begin(topic.grades.len());
    let stamp = scratch.stamp;
    let mut covered = 0u64;
    let mut session = WalkState { relevant_available: topic.relevant, ..Default::default() };
    let n_queries = stage.queries.len().min(user.max_queries);
    let model_continuation = matches!(user.continuation, Cont::ClickModel);
    let charge = |a: Action| costs.charge(a);
    'session: for (q, list) in stage.queries.iter().enumerate().take(n_queries) {
        if rules_stop(&user.session_stopping, &session, key, SESSION_STOP_TAG, (q as u64) << 32) {
            break;
        }
        let (t0, e0, g0) = (clock.t, clock.effort, out.gain);
        let mut query = WalkState { relevant_available: list.relevant, last_found_time: 0.0, last_click_time: 0.0, ..Default::default() };
        if user.charge_query {
            let (e, s) = charge(Action::IssueQuery);
            if !clock.fits(e, s, delays.query_latency) {
                break 'session;
            }
            out.queries += 1;
            trace.step(Step::Query(q as u32));
            let (e, s) = charge(Action::SerpLook);
            if !clock.fits(e, s, 0.0) {
                break 'session;
            }
        } else {
            if !clock.fits(0.0, 0.0, delays.query_latency) {
                break 'session;
            }
            out.queries += 1;
            trace.step(Step::Query(q as u32));
        }
        query.time = clock.t - t0;
        query.effort = clock.effort - e0;
        if rules_stop(&user.stopping, &query, key, STOP_TAG, (q as u64) << 32) {
            continue;
        }
        let n = list.docs.len();
        let sl = if user.switch { list.sublists.as_ref() } else { None };
        let k_lists = sl.map_or(1, |s| s.k());
        scratch.reset_lists(n, k_lists, sl.is_some());
        let list_len = |k: usize| sl.map_or(n, |s| s.lists[k].len());
        let mut cur = 0usize;
        scratch.page[0] = 1;
        let mut forced = true;
        let mut last_clicked = false;
        let mut last_click_rank = 0usize;
        let mut decisions = 0u64;
        let mut steps = 0u64;
        let mut switches = 0u64;
        loop {
            let cur_exhausted = scratch.pos[cur] as usize >= list_len(cur);
            let mut leave = cur_exhausted;
            if !leave && !forced {
                let next_rank = scratch.pos[cur] as usize + 1;
                let p = if model_continuation { clicks.own_continuation(next_rank - 1, last_clicked) } else { user.continuation.continue_prob(next_rank - 1) };
                let go = p >= 1.0 || (p > 0.0 && CONT_DRAWS.at(key, ((q as u64) << 32) | decisions) < p);
                decisions += 1;
                leave = !go;
            }
            let mut next = cur;
            if leave {
                match sl {
                    None if cur_exhausted || !user.stay => break,
                    None => {}
                    Some(s) => {
                        let count = scratch.live - u32::from(!cur_exhausted);
                        if count == 0 {
                            if cur_exhausted || !user.stay {
                                break;
                            }
                        } else {
                            let sc = &*scratch;
                            let selectable = |k: usize| k != cur && (sc.pos[k] as usize) < s.lists[k].len();
                            let mut u = |i: u64| uniform_at(key, PICK_TAG ^ mix64(i), ((q as u64) << 32) | switches);
                            next = chooser.pick(q, s, &selectable, count, &mut u);
                            switches += 1;
                        }
                    }
                }
            }
            let selecting = next != cur;
            let idx = scratch.pos[next] as usize;
            let needed_page = (idx / page_size + 1) as u32;
            let shown = if selecting { 1 } else { scratch.page[next] };
            let turns = needed_page.saturating_sub(shown);
            if turns > 0 && !selecting && user.page_continuation < 1.0 {
                let i = ((q as u64) << 32) ^ ((next as u64) << 20) ^ u64::from(needed_page - 1);
                if uniform_at(key, PAGE_TAG, i) >= user.page_continuation {
                    break;
                }
            }
            if selecting {
                let (e, s) = charge(Action::SelectSublist);
                if !clock.fits(e, s, 0.0) {
                    break 'session;
                }
                out.switches += 1;
                trace.step(Step::Select { list: next as u32 });
                last_click_rank = 0;
            }
            for p in shown + 1..=needed_page {
                let (e, s) = charge(Action::Paginate);
                if !clock.fits(e, s, delays.page_latency) {
                    break 'session;
                }
                out.page_turns += 1;
                trace.step(Step::Paginate { list: next as u32, page: p });
            }
            scratch.page[next] = shown.max(needed_page);
            cur = next;
            forced = false;
            let position = sl.map_or(idx as u32, |s| s.lists[cur][idx]);
            let doc = list.docs[position as usize] as usize;
            let rank = idx + 1;
            let pe = clicks.examine_prob(rank, last_click_rank);
            steps += 1;
            if pe < 1.0 && !(pe > 0.0 && EXAM_DRAWS.at(key, ((q as u64) << 32) | steps) < pe) {
                match sl {
                    None => scratch.pos[0] += 1,
                    Some(s) => scratch.advance(s, cur, idx),
                }
                trace.step(Step::Skip { list: cur as u32, rank: rank as u32 });
                last_clicked = false;
                continue;
            }
            let scroll = if idx % page_size >= stage.fold { stage.below_fold } else { 0.0 };
            let (e, s) = charge(Action::ExamineSnippet);
            if !clock.fits(e, s + scroll, 0.0) {
                break 'session;
            }
            match sl {
                None => scratch.pos[0] += 1,
                Some(s) => scratch.see(s, position),
            }
            out.depth += 1;
            query.depth += 1;
            session.depth += 1;
            let grade = topic.grades[doc];
            let dk = item_key_fast(key, doc as u64);
            let pc = clicks.click_prob(doc, grade);
            let clicked = click_decision(pc, dk);
            trace.step(Step::Examine { list: cur as u32, rank: rank as u32, position: position + 1, doc: doc as u32, relevant: grade > 0, clicked });
            observe(&mut query, grade > 0, clicked);
            observe(&mut session, grade > 0, clicked);
            let mut satisfied = false;
            if clicked {
                last_click_rank = rank;
                query.last_click_time = clock.t - t0;
                session.last_click_time = clock.t;
                let slot = &mut scratch.read[doc];
                if *slot != stamp {
                    *slot = stamp;
                    let read = Read { doc, grade, rank, key, dk: Some(dk), marked: None };
                    match read_document(user, topic, clicks, &read, delays, &mut clock, &mut covered, &mut out, trace) {
                        Some(s) => satisfied = s,
                        None => break 'session,
                    }
                }
            }
            last_clicked = clicked;
            let found = out.relevant_found as usize;
            if found > session.relevant_found {
                query.relevant_found += found - session.relevant_found;
                query.last_found_time = clock.t - t0;
                session.last_found_time = clock.t;
                session.relevant_found = found;
            }
            query.gain = out.gain - g0;
            query.time = clock.t - t0;
            query.effort = clock.effort - e0;
            session.gain = out.gain;
            session.time = clock.t;
            session.effort = clock.effort;
            if satisfied {
                match user.satisfied {
                    SatisfiedEnds::Session => break 'session,
                    SatisfiedEnds::Query => break,
                }
            }
            let counter = ((q as u64) << 32) | query.depth as u64;
            if rules_stop(&user.stopping, &query, key, STOP_TAG, counter) {
                break;
            }
            if rules_stop(&user.session_stopping, &session, key, SESSION_STOP_TAG, counter) {
                break 'session;
            }
        }
    }
    out.effort = clock.effort;
    out.time = clock.t;
    out.adjusted_time = clock.t - clock.delay;
    out
}

/// True when no query of the session uses sublists, every snippet is examined, and there are
/// no page draws, click-model continuation or fold: then [`walk_flat`] gives exactly
/// [`walk_general`]'s outcome and trace.
#[inline]
fn is_flat<C: ClickBehaviour>(stage: &SystemOnTopic, user: &ResolvedUser, clicks: &C) -> bool {
    let n_queries = stage.queries.len().min(user.max_queries);
    !(user.switch && stage.sublists_from < n_queries) && flat_user(user, stage.fold) && clicks.examines_all()
}

/// The conditions of [`is_flat`] on the user and the interface alone.
#[inline]
fn flat_user(user: &ResolvedUser, fold: usize) -> bool {
    !matches!(user.continuation, Cont::ClickModel) && user.page_continuation >= 1.0 && fold == usize::MAX
}

/// Whether `user`'s sessions in `world` can be flat ([`is_flat`]): the walks that may use
/// decisions made in advance ([`walk_decided`]).
pub fn may_walk_flat(user: &ResolvedUser, world: &World) -> bool {
    let sublists = || world.systems.iter().any(|s| s.serps.iter().flatten().flatten().any(|l| l.sublists.is_some()));
    flat_user(user, world.fold) && !(user.switch && sublists())
}

/// [`walk`] for a flat session (see [`is_flat`]): the same actions, charges, draws and trace
/// as [`walk_general`], query after query down one list each, without the sublist,
/// examination and page-draw machinery (and no division per result). The test
/// `flat_walk_equals_general_walk` compares the two on random users and lists.
fn walk_flat<C: ClickBehaviour, T: Trace, D: ClickDraws>(
    stage: &SystemOnTopic,
    user: &ResolvedUser,
    clicks: &C,
    key: u64,
    scratch: &mut Scratch,
    trace: &mut T,
    draws: &mut D,
) -> Outcome {
    let topic = stage.topic;
    let costs = &user.costs;
    let delays = stage.delays;
    let page_size = stage.page_size.max(1);
    let mut out = Outcome::default();
    let mut clock = Clock { t: 0.0, effort: 0.0, delay: 0.0, limit_t: user.budget_seconds, limit_e: user.budget_effort };
    scratch.begin(topic.grades.len());
    let stamp = scratch.stamp;
    let mut covered = 0u64;
    let mut session = WalkState { relevant_available: topic.relevant, ..Default::default() };
    let n_queries = stage.queries.len().min(user.max_queries);
    let (e_snippet, s_snippet) = costs.charge(Action::ExamineSnippet);
    let (e_page, s_page) = costs.charge(Action::Paginate);
    let session_rules = !user.session_stopping.is_empty();
    'session: for (q, list) in stage.queries.iter().enumerate().take(n_queries) {
        let qk = (q as u64) << 32;
        if session_rules && rules_stop(&user.session_stopping, &session, key, SESSION_STOP_TAG, qk) {
            break;
        }
        let (t0, e0, g0) = (clock.t, clock.effort, out.gain);
        let mut query = WalkState { relevant_available: list.relevant, ..Default::default() };
        if user.charge_query {
            let (e, s) = costs.charge(Action::IssueQuery);
            if !clock.fits(e, s, delays.query_latency) {
                break 'session;
            }
            out.queries += 1;
            trace.step(Step::Query(q as u32));
            let (e, s) = costs.charge(Action::SerpLook);
            if !clock.fits(e, s, 0.0) {
                break 'session;
            }
        } else {
            if !clock.fits(0.0, 0.0, delays.query_latency) {
                break 'session;
            }
            out.queries += 1;
            trace.step(Step::Query(q as u32));
        }
        query.time = clock.t - t0;
        query.effort = clock.effort - e0;
        if rules_stop(&user.stopping, &query, key, STOP_TAG, qk) {
            continue;
        }
        let mut shown = 1u32;
        let mut next_page = page_size;
        let mut decisions = 0u64;
        draws.new_query();
        for (idx, &doc) in list.docs.iter().enumerate() {
            if idx > 0 {
                let p = user.continuation.continue_prob(idx);
                let go = p >= 1.0 || (p > 0.0 && CONT_DRAWS.at(key, qk | decisions) < p);
                decisions += 1;
                if !go && !user.stay {
                    break;
                }
            }
            // `idx` grows by one, so a new page is due exactly when it reaches the next
            // page's first index.
            if idx == next_page {
                if !clock.fits(e_page, s_page, delays.page_latency) {
                    break 'session;
                }
                shown += 1;
                next_page += page_size;
                out.page_turns += 1;
                trace.step(Step::Paginate { list: 0, page: shown });
            }
            if !clock.fits(e_snippet, s_snippet, 0.0) {
                break 'session;
            }
            out.depth += 1;
            query.depth += 1;
            session.depth += 1;
            let doc = doc as usize;
            let grade = topic.grades[doc];
            let rank = idx + 1;
            let clicked = draws.clicked(idx, &list.docs, &topic.grades, clicks, key);
            trace.step(Step::Examine { list: 0, rank: rank as u32, position: idx as u32 + 1, doc: doc as u32, relevant: grade > 0, clicked });
            observe(&mut query, grade > 0, clicked);
            observe(&mut session, grade > 0, clicked);
            let mut satisfied = false;
            if clicked {
                query.last_click_time = clock.t - t0;
                session.last_click_time = clock.t;
                let slot = &mut scratch.read[doc];
                if *slot != stamp {
                    *slot = stamp;
                    let (dk, marked) = draws.read(idx, doc);
                    let read = Read { doc, grade, rank, key, dk, marked };
                    match read_document(user, topic, clicks, &read, delays, &mut clock, &mut covered, &mut out, trace) {
                        Some(s) => satisfied = s,
                        None => break 'session,
                    }
                }
            }
            let found = out.relevant_found as usize;
            if found > session.relevant_found {
                query.relevant_found += found - session.relevant_found;
                query.last_found_time = clock.t - t0;
                session.last_found_time = clock.t;
                session.relevant_found = found;
            }
            query.gain = out.gain - g0;
            query.time = clock.t - t0;
            query.effort = clock.effort - e0;
            session.gain = out.gain;
            session.time = clock.t;
            session.effort = clock.effort;
            if satisfied {
                match user.satisfied {
                    SatisfiedEnds::Session => break 'session,
                    SatisfiedEnds::Query => break,
                }
            }
            let counter = qk | query.depth as u64;
            if rules_stop(&user.stopping, &query, key, STOP_TAG, counter) {
                break;
            }
            if session_rules && rules_stop(&user.session_stopping, &session, key, SESSION_STOP_TAG, counter) {
                break 'session;
            }
        }
    }
    out.effort = clock.effort;
    out.time = clock.t;
    out.adjusted_time = clock.t - clock.delay;
    out
}

/// The click draws of the next few results of a list, computed together: they depend only on
/// the session key and the document, so computing them before the walk reaches them lets the
/// processor overlap their hash chains instead of starting each one after the (unpredictable)
/// click branch of the result before. Each draw is the one [`walk_general`] makes:
/// `unit(mix64(item_key(key, doc) ^ 1)) < P(click)`, which is true when P(click) >= 1 and
/// false when it is <= 0 (a uniform number is in [0, 1)), so no draw is skipped or added in
/// effect.
#[derive(Default)]
struct Ahead {
    /// First list index held.
    base: usize,
    /// One past the last list index held.
    end: usize,
    dk: [u64; AHEAD],
    /// Bit `j`: result `base + j` is clicked when examined.
    clicked: u32,
}

/// Results drawn ahead at a time.
const AHEAD: usize = 4;

/// Where [`walk_flat`] gets a result's click decision (`unit(mix64(item_key(key, doc) ^ 1)) <
/// P(click)`) and, for a clicked document read for the first time, its key `item_key(key, doc)`
/// or its mark decision.
trait ClickDraws {
    /// A new query starts (list indices start again at 0).
    fn new_query(&mut self);
    /// Whether list index `idx` of `docs` is clicked when examined.
    fn clicked<C: ClickBehaviour>(&mut self, idx: usize, docs: &[u32], grades: &[i32], clicks: &C, key: u64) -> bool;
    /// How document `doc` at list index `idx` is read: its key when drawn (asked after
    /// [`ClickDraws::clicked`] for the same index), its mark decision when decided.
    fn read(&self, idx: usize, doc: usize) -> (Option<u64>, Option<bool>);
}

/// A session's click and mark decisions, two bits per document of the topic: bit `2 doc` the
/// click, bit `2 doc + 1` the mark when read (see [`Decisions`](super::decisions::Decisions)).
#[derive(Debug, Clone, Copy)]
pub struct Decided<'a>(pub &'a [u64]);

impl Decided<'_> {
    #[inline(always)]
    fn bits(&self, doc: usize) -> u64 {
        self.0[doc >> 5] >> ((doc & 31) << 1)
    }
}

impl ClickDraws for Decided<'_> {
    #[inline(always)]
    fn new_query(&mut self) {}
    #[inline(always)]
    fn clicked<C: ClickBehaviour>(&mut self, idx: usize, docs: &[u32], _grades: &[i32], _clicks: &C, _key: u64) -> bool {
        self.bits(docs[idx] as usize) & 1 != 0
    }
    #[inline(always)]
    fn read(&self, _idx: usize, doc: usize) -> (Option<u64>, Option<bool>) {
        (None, Some(self.bits(doc) & 2 != 0))
    }
}

impl ClickDraws for Ahead {
    #[inline(always)]
    fn new_query(&mut self) {
        self.end = 0;
    }
    /// Draws the next [`AHEAD`] results when `idx` is beyond those held.
    #[inline(always)]
    fn clicked<C: ClickBehaviour>(&mut self, idx: usize, docs: &[u32], grades: &[i32], clicks: &C, key: u64) -> bool {
        if idx >= self.end {
            self.base = idx;
            self.end = (idx + AHEAD).min(docs.len());
            let mut bits = 0u32;
            for (j, &doc) in docs[idx..self.end].iter().enumerate() {
                let doc = doc as usize;
                let dk = item_key_fast(key, doc as u64);
                self.dk[j] = dk;
                bits |= u32::from(click_decision(clicks.click_prob(doc, grades[doc]), dk)) << j;
            }
            self.clicked = bits;
        }
        (self.clicked >> (idx - self.base)) & 1 != 0
    }
    #[inline(always)]
    fn read(&self, idx: usize, _doc: usize) -> (Option<u64>, Option<bool>) {
        (Some(self.dk[idx - self.base]), None)
    }
}

/// Counts one examined result into a stopping rule's state (without branches: relevance and
/// clicks are random, so branches on them are mispredicted half the time).
#[inline]
fn observe(st: &mut WalkState, relevant: bool, clicked: bool) {
    let nr = usize::from(!relevant);
    st.nonrelevant_seen += nr;
    st.contiguous_nonrelevant = (st.contiguous_nonrelevant + 1) * nr;
    let nc = usize::from(!clicked);
    st.unclicked_seen += nc;
    st.contiguous_unclicked = (st.contiguous_unclicked + 1) * nc;
}

/// A clicked document read for the first time in the session.
struct Read {
    doc: usize,
    grade: i32,
    rank: usize,
    /// The session key.
    key: u64,
    /// The document's key (`item_key(key, doc)`, whose draws decide the mark and satisfaction)
    /// when already computed.
    dk: Option<u64>,
    /// The mark decision when already made ([`Decided`]).
    marked: Option<bool>,
}

impl Read {
    #[inline]
    fn dk(&self) -> u64 {
        self.dk.unwrap_or_else(|| item_key_fast(self.key, self.doc as u64))
    }
}

/// Reads a clicked document: charges the read, credits gain, marks it (maybe), and draws
/// satisfaction. `None` when an action does not fit the hard budget (the session ends);
/// otherwise whether the user is satisfied. Shared by [`walk_general`] and [`walk_flat`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn read_document<C: ClickBehaviour, T: Trace>(
    user: &ResolvedUser,
    topic: &WorldTopic,
    clicks: &C,
    r: &Read,
    delays: &Delays,
    clock: &mut Clock,
    covered: &mut u64,
    out: &mut Outcome,
    trace: &mut T,
) -> Option<bool> {
    let (e, s) = user.costs.charge(Action::ReadDocument);
    if !clock.fits(e, s, delays.document_latency) {
        return None;
    }
    out.clicks += 1;
    if user.credit_on == CreditOn::Read {
        credit(user, topic, r.doc, r.grade, covered, out, clock, trace);
    }
    let marked = match r.marked {
        Some(m) => m,
        None => mark_decision(by_grade(&user.grades.mark, r.grade), r.dk()),
    };
    if marked {
        let (e, s) = user.costs.charge(Action::MarkRelevant);
        if !clock.fits(e, s, 0.0) {
            return None;
        }
        out.marks += 1;
        if user.credit_on == CreditOn::Mark {
            credit(user, topic, r.doc, r.grade, covered, out, clock, trace);
        }
    }
    trace.step(Step::Read { doc: r.doc as u32, marked });
    let ps = clicks.satisfied_prob(r.doc, r.grade, r.rank);
    Some(ps >= 1.0 || (ps > 0.0 && unit(mix64(r.dk() ^ 3)) < ps))
}

/// Whether a read document with P(mark) `pm` and key `dk` is marked (no draw when `pm` is 0 or 1).
#[inline]
pub fn mark_decision(pm: f64, dk: u64) -> bool {
    pm >= 1.0 || (pm > 0.0 && unit(mix64(dk ^ 2)) < pm)
}

/// Whether a document with P(click) `pc` and key `dk` is clicked when examined (true when `pc`
/// is 1 or more, false when it is 0 or less: a uniform number is in [0, 1)).
#[inline]
pub fn click_decision(pc: f64, dk: u64) -> bool {
    unit(mix64(dk ^ 1)) < pc
}

#[inline]
#[allow(clippy::too_many_arguments)]
fn credit<T: Trace>(user: &ResolvedUser, topic: &WorldTopic, doc: usize, grade: i32, covered: &mut u64, out: &mut Outcome, clock: &Clock, trace: &mut T) {
    let g = user.gain.credit(grade, topic.subtopics[doc], covered);
    if grade > 0 {
        out.relevant_found += 1;
    }
    if g != 0.0 {
        out.gain += g;
        trace.gain(clock.t, clock.effort, out.gain);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::world::QueryList;
    use crate::user::{Basis, RelevantEvent, UserProfile};
    use proptest::prelude::*;

    /// Steps and gain events together.
    #[derive(Debug, Default, PartialEq)]
    struct Both(Vec<Step>, Vec<(f64, f64, f64)>);
    impl Trace for Both {
        fn step(&mut self, s: Step) {
            self.0.push(s);
        }
        fn gain(&mut self, t: f64, e: f64, g: f64) {
            self.1.push((t, e, g));
        }
    }

    fn rule(kind: u8, x: f64, n: usize) -> Rule {
        match kind % 9 {
            0 => Rule::FixedDepth(n),
            1 => Rule::TotalNonrelevant(n, Basis::Grade),
            2 => Rule::ContiguousNonrelevant(n, Basis::Snippet),
            3 => Rule::Satisfaction(n.max(1)),
            4 => Rule::FindAll,
            5 => Rule::TimeBudget(x * 200.0),
            6 => Rule::TimeSinceRelevant(x * 60.0, RelevantEvent::Click),
            7 => Rule::Random(x * 0.3, 1),
            _ => Rule::Rbp(0.5 + x * 0.5, 2),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The fast path is an optimisation only: on flat sessions (one or more queries, one
        /// list each, every snippet examined) it must give the general walk's outcome and trace
        /// bit for bit. Independent source: `walk_general`, the definition the rest of the suite
        /// checks against closed forms and the reproductions in `analysis/`.
        #[test]
        fn flat_walk_equals_general_walk(
            grades in prop::collection::vec(-1i32..4, 1..40),
            cont in 0u8..4, p in 0.0f64..1.0, depth in 0usize..12,
            click in prop::collection::vec(0.0f64..1.0, 1..4),
            stop in prop::collection::vec(prop_oneof![Just(0.0), Just(1.0), 0.0f64..1.0], 1..4),
            mark in prop::collection::vec(prop_oneof![Just(0.0), Just(1.0), 0.0f64..1.0], 1..4),
            rules in prop::collection::vec((0u8..9, 0.0f64..1.0, 0usize..8), 0..3),
            budget in prop_oneof![Just(f64::INFINITY), 5.0f64..300.0],
            effort_budget in prop_oneof![Just(f64::INFINITY), 1.0f64..40.0],
            stay: bool, charge_query: bool, graded: bool, on_mark: bool,
            page_size in 1usize..12, latency in 0.0f64..3.0, key: u64,
            dup in 0usize..3,
            n_queries in 1usize..4, max_queries in 1usize..4, rotate in 1usize..7,
            session_rules in prop::collection::vec((0u8..9, 0.0f64..1.0, 0usize..20), 0..2),
            ends_session: bool,
        ) {
            let mut world = crate::simulate::one_list_world(grades.clone(), page_size);
            // Repeated documents in the list exercise the read-once rule.
            let mut docs: Vec<u32> = (0..grades.len() as u32).collect();
            for d in 0..dup.min(grades.len()) {
                docs.push(d as u32);
            }
            // Later query variants rank the same documents rotated (documents read under an
            // earlier query are not read again).
            let lists = (0..n_queries)
                .map(|q| {
                    let mut d = docs.clone();
                    let r = (q * rotate) % d.len();
                    d.rotate_left(r);
                    QueryList::new(&world.topics[0], d)
                })
                .collect();
            world.systems[0].serps[0] = Some(lists);
            world.systems[0].delays.document_latency = latency;
            world.systems[0].delays.page_latency = latency / 2.0;
            world.systems[0].delays.query_latency = latency / 3.0;
            let mut user = UserProfile::named("u").resolve(1, 0);
            user.continuation = match cont {
                0 => Cont::Rbp(p),
                1 => Cont::Fixed(depth),
                2 => Cont::Exponential(p, depth % 3),
                _ => Cont::Table(vec![p, 1.0 - p, p / 2.0, 1.0].into(), depth % 2),
            };
            user.grades.click = click;
            user.grades.stop = stop;
            user.grades.mark = mark;
            user.stopping = rules.iter().map(|&(k, x, n)| rule(k, x, n)).collect();
            user.session_stopping = session_rules.iter().map(|&(k, x, n)| rule(k, x, n)).collect();
            user.max_queries = max_queries;
            user.satisfied = if ends_session { SatisfiedEnds::Session } else { SatisfiedEnds::Query };
            user.budget_seconds = budget;
            user.budget_effort = effort_budget;
            user.stay = stay;
            user.charge_query = charge_query;
            if graded {
                user.gain = crate::user::Gain::Graded(vec![0.0, 1.0, 3.0, 7.0]);
            }
            user.credit_on = if on_mark { CreditOn::Mark } else { CreditOn::Read };
            let sys = &world.systems[0];
            let stage = SystemOnTopic {
                topic: &world.topics[0],
                queries: sys.serps[0].as_deref().unwrap(),
                delays: &sys.delays,
                page_size,
                fold: usize::MAX,
                below_fold: 0.0,
                sublists_from: first_sublist(sys.serps[0].as_deref().unwrap()),
            };
            prop_assert!(is_flat(&stage, &user, &user.grades));
            let (mut a, mut b) = (Both::default(), Both::default());
            let mut scratch = Scratch::default();
            let fast = walk_flat(&stage, &user, &user.grades, key, &mut scratch, &mut a, &mut Ahead::default());
            let general = walk_general(&stage, &user, &user.grades, &mut FixedChoice(Vec::new()), key, &mut scratch, &mut b);
            prop_assert_eq!(fast, general);
            prop_assert_eq!(&a, &b);
            // The same walk on decisions made in advance (`Decisions`' two bits per document),
            // here made with the documented formulas and the reference `item_key`.
            let mut row = vec![0u64; grades.len().div_ceil(32)];
            for (d, &g) in grades.iter().enumerate() {
                let dk = crate::rng::item_key(key, d as u64);
                let pm = by_grade(&user.grades.mark, g);
                let clicked = unit(mix64(dk ^ 1)) < by_grade(&user.grades.click, g);
                let marked = pm >= 1.0 || (pm > 0.0 && unit(mix64(dk ^ 2)) < pm);
                row[d / 32] |= (u64::from(clicked) + 2 * u64::from(marked)) << (2 * (d % 32));
            }
            let mut c = Both::default();
            let decided = walk_flat(&stage, &user, &user.grades, key, &mut scratch, &mut c, &mut Decided(&row));
            prop_assert_eq!(decided, general);
            prop_assert_eq!(c, b);
        }
    }
}
