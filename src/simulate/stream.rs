//! The stream path of the engine: modeled stream utility (Baruah, Smucker and Clarke 2015) as
//! one configuration of the one user model.
//!
//! A stream user's "queries" are visits at points in time. For each (topic, user) the engine
//! draws a user-trace from the session key `(seed, topic id, user)` (shared by every system:
//! common random numbers): sessions ~ Exp(mean D) alternating with away times ~ Exp(mean A), the
//! first at the start of the topic's query duration, none starting after its end. At a visit the
//! list is the system's updates emitted up to the visit, in reading order (newest first); the
//! visit's time budget is its duration; reading an update costs words / V seconds (a partly read
//! update earns nothing); the user stops at an already-read update; a novel nugget read at visit
//! j earns L^delta, delta = the number of earlier visits starting at or after the nugget's time.
//! A, D, V and L are [`Param`]s of a [`StreamProfile`], drawn per user id from the population
//! streams `(seed, "population", key path, user)`, so every system meets the same users.
//!
//! The replicate loop is the engine's ([`RunPlan::units`], [`super::engine::drive`]):
//! units of users, rayon, any [`Sink`]. [`MsuSink`] gives MSU (mean over users of the user's
//! mean gain over topics); the report's [`super::ReportSink`] gives every measure, the paired
//! comparisons and the verdicts over [`StreamWorld::report_world`].

use super::engine::{drive, session_key, Record, RunPlan, Sink, Unit};
use super::walk::{GainEvents, Outcome, Trace};
use super::world::{World, WorldSystem, WorldTopic};
use crate::error::{Error, Result};
use crate::rng::{hash_str, Stream};
use crate::user::param::path_id;
use crate::user::{Dist, Param, Support, UserProfile};
use rand::SeedableRng;
use rand_distr::{Distribution, Exp};
use serde::{Deserialize, Serialize};
use std::sync::Mutex;

/// One update emitted by a system.
#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    /// Update id.
    pub id: String,
    /// Emission time (seconds).
    pub time: f64,
    /// System confidence (orders updates with equal times).
    pub confidence: f64,
    /// Length in words.
    pub words: f64,
    /// Nuggets the update contains (indices into the topic's nuggets).
    pub nuggets: Vec<u32>,
}

/// A topic: query duration and nuggets with their first-occurrence times.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamTopic {
    /// Topic id.
    pub id: String,
    /// Start of the query duration (first session).
    pub start: f64,
    /// End of the query duration (no session starts later).
    pub end: f64,
    /// Nugget ids.
    pub nugget_ids: Vec<String>,
    /// Nugget times (first occurrence), parallel to `nugget_ids`.
    pub nugget_times: Vec<f64>,
}

/// Sorts updates into reading order: newest first, ties by confidence (higher first), then
/// input order (the sort is stable).
pub fn reading_order(updates: &mut [Update]) {
    updates.sort_by(|a, b| b.time.total_cmp(&a.time).then(b.confidence.total_cmp(&a.confidence)));
}

/// One session of a user-trace: start time and duration (seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Visit {
    /// Start.
    pub start: f64,
    /// Duration.
    pub duration: f64,
}

/// The updates of one system on one topic in reading order, as flat columns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamList {
    /// Emission times, non-increasing.
    pub times: Vec<f64>,
    /// Lengths in words.
    pub words: Vec<f64>,
    /// Update `i` holds `nuggets[offsets[i]..offsets[i + 1]]` (`len() + 1` entries).
    pub offsets: Vec<u32>,
    /// Nugget indices into the topic's nuggets.
    pub nuggets: Vec<u32>,
}

impl StreamList {
    /// The list of `updates`, which must be in reading order ([`reading_order`]).
    pub fn new(updates: &[Update]) -> Self {
        let mut l = StreamList { offsets: vec![0], ..Default::default() };
        for u in updates {
            l.times.push(u.time);
            l.words.push(u.words);
            l.nuggets.extend_from_slice(&u.nuggets);
            l.offsets.push(l.nuggets.len() as u32);
        }
        l
    }

    /// Number of updates.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
}

/// One system: its update list per topic.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamSystem {
    /// System name.
    pub name: String,
    /// Per topic, in the world's topic order.
    pub lists: Vec<StreamList>,
}

/// Topics and systems of a stream evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamWorld {
    /// Topics (query durations and nugget times).
    pub topics: Vec<StreamTopic>,
    /// Systems.
    pub systems: Vec<StreamSystem>,
}

impl StreamWorld {
    /// The world of `systems[s] = (name, updates per topic in reading order)`.
    pub fn new(topics: Vec<StreamTopic>, systems: &[(String, Vec<Vec<Update>>)]) -> Result<Self> {
        let systems = systems
            .iter()
            .map(|(name, per_topic)| StreamSystem { name: name.clone(), lists: per_topic.iter().map(|u| StreamList::new(u)).collect() })
            .collect();
        let w = StreamWorld { topics, systems };
        w.validate()?;
        Ok(w)
    }

    /// Checks there are topics and every system has one list per topic whose nuggets exist.
    pub fn validate(&self) -> Result<()> {
        if self.topics.is_empty() {
            return Err(Error::Invalid("no topics".into()));
        }
        for s in &self.systems {
            if s.lists.len() != self.topics.len() {
                return Err(Error::Invalid(format!("system `{}` has update lists for {} topics, expected {}", s.name, s.lists.len(), self.topics.len())));
            }
            for (t, l) in self.topics.iter().zip(&s.lists) {
                if let Some(&n) = l.nuggets.iter().find(|&&n| n as usize >= t.nugget_times.len()) {
                    return Err(Error::Invalid(format!("system `{}`, topic `{}`: nugget index {n} out of range", s.name, t.id)));
                }
            }
        }
        Ok(())
    }

    /// The topics and systems as the report names them (no result lists: the report's sink
    /// only needs the ids and names).
    pub fn report_world(&self) -> World {
        World {
            topics: self
                .topics
                .iter()
                .map(|t| WorldTopic {
                    id: t.id.clone(),
                    doc_ids: Vec::new(),
                    grades: Vec::new(),
                    subtopics: Vec::new(),
                    categories: Vec::new(),
                    relevant: t.nugget_times.len(),
                })
                .collect(),
            systems: self
                .systems
                .iter()
                .map(|s| WorldSystem { name: s.name.clone(), delays: Default::default(), serps: vec![None; self.topics.len()] })
                .collect(),
            categories: Vec::new(),
            page_size: 1,
            fold: usize::MAX,
            below_fold: 0.0,
        }
    }
}

/// A population of stream users: the MSU configuration of a profile. Every field may be a
/// number or a distribution over users (`user::Param`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamProfile {
    /// Profile name.
    pub name: String,
    /// Mean time away A in seconds (default: log-normal, mean 3 h, sd 1.5 h).
    #[serde(default = "default_away")]
    pub away: Param,
    /// Mean session duration D in seconds (default: log-normal, mean 2 min, sd 1 min).
    #[serde(default = "default_duration")]
    pub duration: Param,
    /// Reading speed V in words per second (default: log-normal, mu 1.29, sigma 0.558).
    #[serde(default = "default_speed")]
    pub speed: Param,
    /// Lateness discount L in [0, 1] (default 0.5).
    #[serde(default = "default_lateness")]
    pub lateness: Param,
}

impl StreamProfile {
    /// The stream user of profile `p` (`key`, e.g. `profiles[0]`, of a stream scenario): its
    /// stream keys, the defaults for those not given. A key of result-page users is an error,
    /// as are values out of range; errors name the key.
    pub fn from_user(p: &UserProfile, context: &str, key: &str) -> Result<Self> {
        let stream_keys = UserProfile {
            away: p.away.clone(),
            duration: p.duration.clone(),
            speed: p.speed.clone(),
            lateness: p.lateness.clone(),
            ..UserProfile::named(p.name.clone())
        };
        if *p != stream_keys {
            return Err(Error::config(context, key, "a stream user takes only `name`, `away`, `duration`, `speed` and `lateness` (docs/streams.md)"));
        }
        let s = StreamProfile {
            name: p.name.clone(),
            away: p.away.clone().unwrap_or_else(default_away),
            duration: p.duration.clone().unwrap_or_else(default_duration),
            speed: p.speed.clone().unwrap_or_else(default_speed),
            lateness: p.lateness.clone().unwrap_or_else(default_lateness),
        };
        s.validate(&format!("{context}: {key}"))?;
        Ok(s)
    }
}

/// A log-normal parameter given by its arithmetic mean and sd.
pub fn mean_sd(mean: f64, sd: f64) -> Param {
    Param::Dist(Dist::Lognormal { mu: None, sigma: None, mean: Some(mean), sd: Some(sd) })
}
fn default_away() -> Param {
    mean_sd(3.0 * 3600.0, 1.5 * 3600.0)
}
fn default_duration() -> Param {
    mean_sd(120.0, 60.0)
}
fn default_speed() -> Param {
    Param::Dist(Dist::Lognormal { mu: Some(1.29), sigma: Some(0.558), mean: None, sd: None })
}
fn default_lateness() -> Param {
    Param::Fixed(0.5)
}

/// Key paths of the profile's parameters (in [`StreamProfile::params`] order): their
/// population streams.
const PATHS: [&str; 4] = ["stream.away", "stream.duration", "stream.speed", "stream.lateness"];

/// One stream user's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamUser {
    /// Mean time away (s).
    pub away: f64,
    /// Mean session duration (s).
    pub duration: f64,
    /// Reading speed (words per second).
    pub speed: f64,
    /// Lateness discount.
    pub lateness: f64,
}

impl StreamProfile {
    /// Baruah et al.'s "reasonable" population (A 3 h, sd 1.5 h; D 2 min, sd 1 min; V from
    /// Clarke and Smucker; L = 0.5).
    pub fn reasonable(name: impl Into<String>) -> Self {
        StreamProfile { name: name.into(), away: default_away(), duration: default_duration(), speed: default_speed(), lateness: default_lateness() }
    }

    /// Each parameter with its support, its key, and the bound a fixed value (or a
    /// log-normal's mean) must meet: means of at least 1 second, a speed above 0.
    fn params(&self) -> [(&Param, Support, &'static str, Option<(f64, &'static str)>); 4] {
        [
            (&self.away, Support::NonNegative, "away", Some((1.0, "at least 1 second"))),
            (&self.duration, Support::NonNegative, "duration", Some((1.0, "at least 1 second"))),
            (&self.speed, Support::NonNegative, "speed", Some((f64::MIN_POSITIVE, "above 0"))),
            (&self.lateness, Support::Probability, "lateness", None),
        ]
    }

    /// Checks the parameters; errors name the key (`away`, `duration.mean`, ...).
    pub fn validate(&self, context: &str) -> Result<()> {
        for (p, support, key, bound) in self.params() {
            p.validate(context, key, support)?;
            let low = match p {
                Param::Fixed(v) => Some((*v, key.to_string())),
                Param::Dist(Dist::Lognormal { mean: Some(m), .. }) => Some((*m, format!("{key}.mean"))),
                _ => None,
            };
            if let (Some((v, k)), Some((min, what))) = (low, bound) {
                if v < min {
                    return Err(Error::config(context, k, format!("{v} must be {what}")));
                }
            }
        }
        Ok(())
    }

    /// User `user`'s parameters (each from its own population stream).
    pub fn resolve(&self, seed: u64, user: u64) -> StreamUser {
        let mut x = [0.0; 4];
        for (((p, support, _, _), path), x) in self.params().into_iter().zip(PATHS).zip(&mut x) {
            *x = p.value(seed, path_id(path), user, support);
        }
        StreamUser { away: x[0], duration: x[1], speed: x[2], lateness: x[3] }
    }
}

/// The user-trace of `user` over `[start, end]` from the stream `key` (the engine's session
/// key of the topic and user), into `out`.
pub fn trace(user: &StreamUser, start: f64, end: f64, key: u64, out: &mut Vec<Visit>) {
    out.clear();
    let mut rng = Stream::seed_from_u64(key);
    // Means are positive draws; the floor only guards against underflow to 0.
    let session = Exp::new(1.0 / user.duration.max(1e-9)).expect("finite positive rate");
    let away = Exp::new(1.0 / user.away.max(1e-9)).expect("finite positive rate");
    let mut t = start;
    while t <= end {
        let d = session.sample(&mut rng);
        out.push(Visit { start: t, duration: d });
        let next = t + d + away.sample(&mut rng);
        if next <= t {
            break; // no progress in floating point: the rest of the trace is empty
        }
        t = next;
    }
}

/// Reusable buffers of [`read_visits`].
#[derive(Debug, Default)]
pub struct StreamScratch {
    read: Vec<bool>,
    seen: Vec<bool>,
}

/// One user's visits to one list (the stream walk). `visits` by increasing start. The outcome:
/// `gain` (lateness-discounted nuggets), `relevant_found` (novel nuggets), `queries` (visits),
/// `clicks` and `effort` (updates read), `depth` (updates reached, the one cut off included),
/// `time` and `adjusted_time` (seconds spent reading). Gain events go to `events` at the
/// reading time and updates read so far.
pub fn read_visits(
    list: &StreamList,
    nugget_times: &[f64],
    visits: &[Visit],
    speed: f64,
    lateness: f64,
    scratch: &mut StreamScratch,
    events: &mut impl Trace,
) -> Outcome {
    let read = &mut scratch.read;
    read.clear();
    read.resize(list.len(), false);
    let seen = &mut scratch.seen;
    seen.clear();
    seen.resize(nugget_times.len(), false);
    let mut o = Outcome { queries: visits.len() as u32, ..Default::default() };
    for (j, v) in visits.iter().enumerate() {
        // First update emitted at or before the visit.
        let first = list.times.partition_point(|&t| t > v.start);
        let mut elapsed = 0.0;
        for i in first..list.len() {
            if read[i] {
                break;
            }
            o.depth += 1;
            let need = list.words[i] / speed;
            if elapsed + need > v.duration {
                o.time += v.duration - elapsed;
                break;
            }
            elapsed += need;
            o.time += need;
            o.clicks += 1;
            read[i] = true;
            for &n in &list.nuggets[list.offsets[i] as usize..list.offsets[i + 1] as usize] {
                let n = n as usize;
                if !seen[n] {
                    seen[n] = true;
                    let earlier = &visits[..j];
                    let delta = earlier.len() - earlier.partition_point(|w| w.start < nugget_times[n]);
                    o.gain += lateness.powi(delta as i32);
                    o.relevant_found += 1;
                    events.gain(o.time, f64::from(o.clicks), o.gain);
                }
            }
        }
    }
    o.effort = f64::from(o.clicks);
    o.adjusted_time = o.time;
    o
}

/// What to simulate: the engine's plan over a stream world and stream profiles.
pub type StreamPlan<'a> = RunPlan<'a, StreamWorld, StreamProfile>;

/// Runs `plan` on the current rayon pool with the engine's replicate loop.
pub fn run<S: Sink>(plan: &StreamPlan, sink: &S, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<()> {
    plan.world.validate()?;
    if plan.profiles.is_empty() {
        return Err(Error::Invalid("no user profiles to simulate".into()));
    }
    for p in plan.profiles {
        p.validate(&format!("profile `{}`", p.name))?;
    }
    if plan.users == 0 {
        return Err(Error::Invalid("users must be at least 1".into()));
    }
    crate::limits::check_count("stream simulation", "users", plan.users, crate::limits::MAX_REPLICATES, "simulated users")?;
    drive(&plan.units(), sink, progress, |unit| run_unit(plan, sink, unit))
}

fn run_unit<S: Sink>(plan: &StreamPlan, sink: &S, unit: &Unit) -> S::Acc {
    let world = plan.world;
    let profile = &plan.profiles[unit.profile];
    let users: Vec<StreamUser> = (unit.first..unit.end).map(|u| profile.resolve(plan.seed, u)).collect();
    let mut acc = sink.start(unit);
    let mut scratch = StreamScratch::default();
    let mut visits = Vec::new();
    let n_sys = world.systems.len();
    let mut outcomes: Vec<Option<Outcome>> = vec![None; n_sys];
    let mut events: Vec<GainEvents> = vec![GainEvents::default(); n_sys];
    for (t, topic) in world.topics.iter().enumerate() {
        let th = hash_str(&topic.id);
        for (u, user) in (unit.first..unit.end).zip(&users) {
            trace(user, topic.start, topic.end, session_key(plan.seed, th, u), &mut visits);
            for (s, system) in world.systems.iter().enumerate() {
                events[s].0.clear();
                outcomes[s] = Some(read_visits(&system.lists[t], &topic.nugget_times, &visits, user.speed, user.lateness, &mut scratch, &mut events[s]));
            }
            sink.record(&mut acc, &Record { unit, topic: t, user: u, outcomes: &outcomes, events: &events });
        }
        sink.topic_done(&mut acc, unit, t);
    }
    acc
}

/// MSU of one system for one profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Msu {
    /// Profile name.
    pub profile: String,
    /// System name.
    pub system: String,
    /// Users simulated.
    pub users: usize,
    /// MSU: mean over users of the user's mean gain over topics.
    pub msu: f64,
    /// Sd over users of the per-user mean.
    pub sd: f64,
    /// Standard error of MSU.
    pub se: f64,
}

/// The MSU sink: every user's mean gain over topics per system, kept by unit and combined in
/// unit order, so the result does not depend on the thread count.
#[derive(Debug)]
pub struct MsuSink {
    topics: usize,
    systems: usize,
    units: Mutex<Vec<(usize, usize, Vec<f64>)>>,
}

impl MsuSink {
    /// A sink for `world`.
    pub fn new(world: &StreamWorld) -> Self {
        MsuSink { topics: world.topics.len(), systems: world.systems.len(), units: Mutex::new(Vec::new()) }
    }

    /// MSU per profile and system (profile-major), after the run.
    pub fn finish_msu(self, world: &StreamWorld, profiles: &[StreamProfile]) -> Vec<Msu> {
        let mut units = self.units.into_inner().expect("no panics while locked");
        units.sort_by_key(|u| u.0);
        let ns = self.systems;
        let mut out = Vec::new();
        for (p, prof) in profiles.iter().enumerate() {
            let mine: Vec<&Vec<f64>> = units.iter().filter(|u| u.1 == p).map(|u| &u.2).collect();
            for (s, sys) in world.systems.iter().enumerate() {
                let xs: Vec<f64> = mine.iter().flat_map(|v| v.iter().skip(s).step_by(ns).copied()).collect();
                let sd = crate::stats::sd(&xs);
                out.push(Msu {
                    profile: prof.name.clone(),
                    system: sys.name.clone(),
                    users: xs.len(),
                    msu: crate::stats::mean(&xs),
                    sd,
                    se: sd / (xs.len() as f64).sqrt(),
                });
            }
        }
        out
    }
}

impl Sink for MsuSink {
    /// Per user and system (user-major): the sum of gains over topics, then the mean.
    type Acc = Vec<f64>;

    fn start(&self, unit: &Unit) -> Vec<f64> {
        vec![0.0; (unit.end - unit.first) as usize * self.systems]
    }

    fn record(&self, acc: &mut Vec<f64>, r: &Record) {
        let row = (r.user - r.unit.first) as usize * self.systems;
        for (s, o) in r.outcomes.iter().enumerate() {
            acc[row + s] += o.map_or(0.0, |o| o.gain);
        }
    }

    fn finish(&self, unit: &Unit, mut acc: Vec<f64>) -> Result<()> {
        for x in acc.iter_mut() {
            *x /= self.topics as f64;
        }
        self.units.lock().expect("no panics while locked").push((unit.index, unit.profile, acc));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::summary::{Grid, SinkConfig};
    use crate::simulate::ReportSink;

    /// A world of one topic and the given systems' updates `(time, words, nuggets)`.
    fn world(start: f64, end: f64, nugget_times: Vec<f64>, systems: Vec<Vec<(f64, f64, Vec<u32>)>>) -> StreamWorld {
        let topic = StreamTopic { id: "t".into(), start, end, nugget_ids: (0..nugget_times.len()).map(|i| format!("n{i}")).collect(), nugget_times };
        let systems: Vec<(String, Vec<Vec<Update>>)> = systems
            .into_iter()
            .enumerate()
            .map(|(s, ups)| {
                let ups = ups
                    .into_iter()
                    .enumerate()
                    .map(|(i, (time, words, nuggets))| Update { id: format!("u{i}"), time, confidence: 1.0, words, nuggets })
                    .collect();
                (format!("s{s}"), vec![ups])
            })
            .collect();
        StreamWorld::new(vec![topic], &systems).unwrap()
    }

    /// By hand: a query duration of one instant gives one visit; reading a 10-word update at
    /// 1 word/s in a long session (D = 1e6 s) takes 10 s and earns 1 (the nugget, at 50, is
    /// on time: no earlier visit, L^0).
    #[test]
    fn one_visit_reads_what_fits() {
        let w = world(100.0, 100.0, vec![50.0], vec![vec![(90.0, 10.0, vec![0])]]);
        let user = StreamUser { away: 3600.0, duration: 1e6, speed: 1.0, lateness: 0.5 };
        let mut visits = Vec::new();
        trace(&user, 100.0, 100.0, 9, &mut visits);
        assert_eq!(visits.len(), 1);
        let mut events = GainEvents::default();
        let o = read_visits(&w.systems[0].lists[0], &w.topics[0].nugget_times, &visits, 1.0, 0.5, &mut StreamScratch::default(), &mut events);
        // The one session is ~Exp(mean 1e6 s): longer than 10 s unless the draw is below 1e-5.
        assert_eq!((o.gain, o.clicks, o.relevant_found, o.queries, o.depth), (1.0, 1, 1, 1, 1));
        assert_eq!(o.time, 10.0);
        assert_eq!(events.0, vec![(10.0, 1.0, 1.0)]);
        // A 5 s visit reaches the update but cannot finish it: 5 s spent, nothing earned.
        let o = read_visits(
            &w.systems[0].lists[0],
            &w.topics[0].nugget_times,
            &[Visit { start: 100.0, duration: 5.0 }],
            1.0,
            0.5,
            &mut StreamScratch::default(),
            &mut (),
        );
        assert_eq!((o.gain, o.clicks, o.depth, o.time), (0.0, 0, 1, 5.0));
    }

    /// Renewal process (by hand): over T = 100,000 s with A = 900 s and D = 100 s, about
    /// T / (A + D) + 1 = 101 sessions of mean duration 100 s.
    #[test]
    fn traces_alternate_exponential_sessions_and_away_times() {
        let user = StreamUser { away: 900.0, duration: 100.0, speed: 4.0, lateness: 0.5 };
        let (mut n, mut dur) = (0usize, 0.0);
        let mut tr = Vec::new();
        for u in 0..400 {
            trace(&user, 0.0, 100_000.0, session_key(1, hash_str("t"), u), &mut tr);
            assert_eq!(tr[0].start, 0.0);
            assert!(tr.windows(2).all(|w| w[1].start >= w[0].start + w[0].duration));
            assert!(tr.last().unwrap().start <= 100_000.0);
            n += tr.len();
            dur += tr.iter().map(|v| v.duration).sum::<f64>();
        }
        let per = n as f64 / 400.0;
        // Sd of the count is about sqrt(101 x (A^2 + D^2) / (A + D)^2) = 9.1 per user; /sqrt(400).
        assert!((per - 101.0).abs() < 4.0 * 9.1 / 20.0, "{per}");
        // Sd of one duration is 100 s; over ~40,000 sessions the se is 0.5 s.
        assert!((dur / n as f64 - 100.0).abs() < 2.0);
    }

    /// The population's draws: mean duration 120 s (the arithmetic mean given), mean speed
    /// exp(1.29 + 0.558^2 / 2) = 4.2457 w/s (log-normal mean, by hand).
    #[test]
    fn population_draws_match_their_means() {
        let p = StreamProfile::reasonable("r");
        let users: Vec<StreamUser> = (0..40_000).map(|u| p.resolve(3, u)).collect();
        let n = users.len() as f64;
        let md = users.iter().map(|u| u.duration).sum::<f64>() / n;
        let mv = users.iter().map(|u| u.speed).sum::<f64>() / n;
        // Sd of D is 60 s: se 0.3 s; sd of V is 4.2457 x sqrt(exp(0.558^2) - 1) = 2.57: se 0.013.
        assert!((md - 120.0).abs() < 4.0 * 0.3, "{md}");
        assert!((mv - 4.2457).abs() < 4.0 * 0.013, "{mv}");
        assert!(users.iter().all(|u| u.lateness == 0.5));
    }

    #[test]
    fn validation_names_keys() {
        let mut p = StreamProfile::reasonable("r");
        p.lateness = Param::Fixed(1.5);
        assert!(p.validate("cli").unwrap_err().to_string().contains("lateness"));
        let mut p = StreamProfile::reasonable("r");
        p.duration = mean_sd(0.5, 1.0);
        assert!(p.validate("cli").unwrap_err().to_string().contains("duration.mean"));
        let mut p = StreamProfile::reasonable("r");
        p.away = mean_sd(3600.0, f64::NAN);
        assert!(p.validate("cli").unwrap_err().to_string().contains("away.sd"));
        let mut p = StreamProfile::reasonable("r");
        p.speed = Param::Fixed(0.0);
        assert!(p.validate("cli").unwrap_err().to_string().contains("speed"));
    }

    /// Every user has the worked example's fixed parameters except the trace, so the engine's
    /// paired comparison of two identical systems is exactly 0 on every user (common random
    /// numbers), and the report sees both systems.
    #[test]
    fn identical_systems_pair_to_zero_through_the_report() {
        let ups = vec![(90.0, 40.0, vec![0]), (60.0, 20.0, vec![1])];
        let w = world(0.0, 3600.0, vec![10.0, 70.0], vec![ups.clone(), ups]);
        let profiles = [StreamProfile { away: mean_sd(600.0, 300.0), duration: mean_sd(20.0, 10.0), ..StreamProfile::reasonable("p") }];
        let rw = w.report_world();
        let cfg = SinkConfig {
            per_topic_sketches: true,
            time_grid: Grid::to(60.0, 7),
            effort_grid: Grid::to(2.0, 3),
            time_budgets: vec![30.0],
            effort_budgets: vec![1.0],
            pairs: vec![(0, 1)],
            samples: None,
        };
        let sink = ReportSink::new(&rw, vec!["p".into()], cfg).unwrap();
        let plan = StreamPlan { world: &w, profiles: &profiles, users: 3000, seed: 5, block: None };
        run(&plan, &sink, &|_, _| {}).unwrap();
        let s = sink.finish_summary();
        let pair = &s.pooled_pairs[0];
        assert!(pair.measures.iter().all(|d| d.diff_mean == 0.0 && d.diff_se == 0.0));
        assert!(s.pooled[0].summary.measures[0].mean > 0.0, "users do read");
    }
}
