//! Modeled stream utility (Baruah, Smucker and Clarke 2015): the population and the MSU front
//! end over the engine's stream path (`simulate::stream`, which owns the input types).
//!
//! A user has a mean time away A, a mean session duration D and a reading speed V, drawn from
//! log-normal population distributions (A and D given by their arithmetic mean M and sd S:
//! sigma^2 = ln(1 + S^2 / M^2), mu = ln M - sigma^2 / 2; V by mu = 1.29, sigma = 0.558 in words
//! per second, Clarke and Smucker). The user-trace alternates sessions ~ Exp(mean D) and away
//! times ~ Exp(mean A), the first session starting at the start of the query duration; sessions
//! starting after its end are dropped. In each session the user reads the updates emitted up to
//! the session start, newest first (ties: higher confidence first, then input order), until the
//! session time runs out (a partly read update is unread and earns nothing) or an already-read
//! update is reached. A novel nugget read in session j earns L^delta, delta = the number of
//! earlier session starts at or after the nugget's time; repeated nuggets earn nothing.
//! MSU = mean over users of the user's mean over topics. The simulation itself is the engine's
//! ([`crate::simulate::stream`]): [`user_gain`] and [`msu`] are thin wrappers over it.

use crate::error::Result;
use crate::simulate::stream::{
    mean_sd, read_visits, run, MsuSink, StreamList, StreamPlan, StreamProfile, StreamScratch, StreamTopic, StreamWorld, Update, Visit,
};
use crate::user::{Dist, Param};
use serde::{Deserialize, Serialize};

pub use crate::simulate::stream::Msu;

/// Gain of one user on one topic: `updates` in [`crate::simulate::stream::reading_order`], `visits` by increasing start,
/// reading speed `speed` words per second, lateness discount `lateness` (L). The engine's
/// stream walk ([`read_visits`]) on one list.
pub fn user_gain(updates: &[Update], nugget_times: &[f64], visits: &[Visit], speed: f64, lateness: f64) -> f64 {
    read_visits(&StreamList::new(updates), nugget_times, visits, speed, lateness, &mut StreamScratch::default(), &mut ()).gain
}

/// A log-normal given by the arithmetic mean and sd of the data.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeanSd {
    /// Arithmetic mean M (> 0).
    pub mean: f64,
    /// Standard deviation S (>= 0).
    pub sd: f64,
}

impl MeanSd {
    /// `(mu, sigma)` of the log: sigma^2 = ln(1 + S^2/M^2), mu = ln M - sigma^2/2.
    pub fn log_params(&self) -> (f64, f64) {
        let s2 = (1.0 + (self.sd * self.sd) / (self.mean * self.mean)).ln();
        (self.mean.ln() - 0.5 * s2, s2.sqrt())
    }
}

/// The user population and the lateness discount.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Population {
    /// Mean time away A (seconds), population distribution.
    pub away: MeanSd,
    /// Mean session duration D (seconds), population distribution.
    pub duration: MeanSd,
    /// Log-normal `(mu, sigma)` of the reading speed in words per second.
    #[serde(default = "default_speed")]
    pub speed: [f64; 2],
    /// Lateness discount L in [0, 1].
    pub lateness: f64,
}

fn default_speed() -> [f64; 2] {
    [1.29, 0.558]
}

impl Population {
    /// The paper's "reasonable" population: A 3 h (sd 1.5 h), D 2 min (sd 1 min), L = 0.5.
    pub fn reasonable() -> Self {
        Population { away: MeanSd { mean: 3.0 * 3600.0, sd: 1.5 * 3600.0 }, duration: MeanSd { mean: 120.0, sd: 60.0 }, speed: default_speed(), lateness: 0.5 }
    }

    /// The population as a profile of the engine's stream path: A and D log-normal by mean
    /// and sd, V log-normal by mu and sigma, L fixed.
    pub fn profile(&self, name: impl Into<String>) -> StreamProfile {
        StreamProfile {
            name: name.into(),
            away: mean_sd(self.away.mean, self.away.sd),
            duration: mean_sd(self.duration.mean, self.duration.sd),
            speed: Param::Dist(Dist::Lognormal { mu: Some(self.speed[0]), sigma: Some(self.speed[1]), mean: None, sd: None }),
            lateness: Param::Fixed(self.lateness),
        }
    }

    /// Checks the parameters; errors name the key.
    pub fn validate(&self, context: &str) -> Result<()> {
        self.profile("population").validate(context)
    }
}

/// MSU of each system (`systems[s][t]` = updates of system s for topic t, in reading order)
/// with `users` simulated users: the engine's stream path with one profile and [`MsuSink`].
/// Users and traces do not depend on the system (common random numbers); results do not
/// depend on the thread count.
pub fn msu(topics: &[StreamTopic], systems: &[(String, Vec<Vec<Update>>)], population: &Population, users: usize, seed: u64) -> Result<Vec<Msu>> {
    let world = StreamWorld::new(topics.to_vec(), systems)?;
    let profiles = [population.profile("population")];
    let sink = MsuSink::new(&world);
    run(&StreamPlan { world: &world, profiles: &profiles, users: users as u64, seed, block: None }, &sink, &|_, _| {})?;
    Ok(sink.finish_msu(&world, &profiles))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::stream::reading_order;
    use crate::simulate::stream_io::parse_time;

    fn up(id: &str, time: &str, conf: f64, words: f64, nuggets: &[u32]) -> Update {
        Update { id: id.into(), time: parse_time(time).unwrap(), confidence: conf, words, nuggets: nuggets.to_vec() }
    }

    /// Baruah et al. Tables 1-2. Nuggets n9..n14 are indices 0..5. Word counts are those of the
    /// printed update sentences (whitespace tokens; "percentof" in the extraction is "percent of"),
    /// which reproduce the printed times to read at 225 words per minute.
    #[test]
    fn worked_example_gives_2_875() {
        let nugget_times: Vec<f64> =
            ["2012-12-05T15:13:56", "2012-12-06T17:45:12", "2012-12-04T18:31:18", "2012-12-04T03:17:18", "2012-12-05T10:31:21", "2012-12-05T13:55:42"]
                .iter()
                .map(|t| parse_time(t).unwrap())
                .collect();
        let mut updates = vec![
            up("u8", "2012-12-07T07:31:00", 0.87, 49.0, &[]),
            up("u1", "2012-12-07T09:52:00", 0.95, 38.0, &[]),
            up("u2", "2012-12-07T09:52:00", 0.95, 33.0, &[2, 3, 4, 5]),
            up("u3", "2012-12-07T09:52:00", 0.95, 29.0, &[]),
            up("u4", "2012-12-07T09:52:00", 0.91, 32.0, &[0, 1]),
            up("u5", "2012-12-07T09:50:00", 0.87, 28.0, &[]),
            up("u6", "2012-12-07T09:15:00", 0.91, 9.0, &[5]),
            up("u7", "2012-12-07T07:45:00", 0.87, 29.0, &[]),
        ];
        reading_order(&mut updates);
        let order: Vec<&str> = updates.iter().map(|u| u.id.as_str()).collect();
        assert_eq!(order, ["u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8"]);
        // Printed cumulative times to read: 10.1 18.9 26.7 35.2 42.7 45.1 52.8 65.9 s.
        let speed = 225.0 / 60.0;
        let mut c = 0.0;
        for (u, printed) in updates.iter().zip([10.1, 18.9, 26.7, 35.2, 42.7, 45.1, 52.8, 65.9]) {
            c += u.words / speed;
            assert!((c - printed).abs() < 0.05, "{} {c} {printed}", u.id);
        }
        let visits: Vec<Visit> = ["2012-12-04T10:02:00", "2012-12-05T10:11:00", "2012-12-06T09:50:00", "2012-12-07T09:55:00"]
            .iter()
            .map(|t| Visit { start: parse_time(t).unwrap(), duration: 60.0 })
            .collect();
        assert_eq!(user_gain(&updates, &nugget_times, &visits, speed, 0.5), 2.875);
        // L = 1: the six nuggets count fully; L = 0: only the on-time nugget n10.
        assert_eq!(user_gain(&updates, &nugget_times, &visits, speed, 1.0), 6.0);
        assert_eq!(user_gain(&updates, &nugget_times, &visits, speed, 0.0), 1.0);
        // With 66 s the last update is read too (no nuggets): unchanged. With 52 s, u7 is cut.
        let long: Vec<Visit> = visits.iter().map(|v| Visit { duration: 66.0, ..*v }).collect();
        assert_eq!(user_gain(&updates, &nugget_times, &long, speed, 0.5), 2.875);
        // With 35 s, u4 (n9, n10) is not finished: 0.25 + 0.125 + 0.5 + 0.5.
        let short: Vec<Visit> = visits.iter().map(|v| Visit { duration: 35.0, ..*v }).collect();
        assert_eq!(user_gain(&updates, &nugget_times, &short, speed, 0.5), 1.375);
    }

    #[test]
    fn reading_stops_at_an_already_read_update() {
        let updates = vec![
            Update { id: "b".into(), time: 20.0, confidence: 1.0, words: 10.0, nuggets: vec![1] },
            Update { id: "a".into(), time: 10.0, confidence: 1.0, words: 10.0, nuggets: vec![0] },
        ];
        let times = [0.0, 0.0];
        // Session 1 at 15 reads `a`; session 2 at 25 reads `b`, then meets `a` (read) and stops,
        // which costs nothing; session 3 at 30 meets `b` at once. Speed 1 word/s, 100 s sessions.
        let visits = [Visit { start: 15.0, duration: 100.0 }, Visit { start: 25.0, duration: 100.0 }, Visit { start: 30.0, duration: 100.0 }];
        // n0 read in session 1: delta 0; n1 (time 0) read in session 2: session 1 started at 15 >= 0: delta 1.
        assert_eq!(user_gain(&updates, &times, &visits, 1.0, 0.5), 1.5);
        // A session too short to finish `b` reads nothing, and `a` behind it stays unread.
        let visits = [Visit { start: 25.0, duration: 9.0 }];
        assert_eq!(user_gain(&updates, &times, &visits, 1.0, 1.0), 0.0);
    }

    #[test]
    fn lognormal_from_arithmetic_mean_and_sd() {
        let m = MeanSd { mean: 120.0, sd: 60.0 };
        let (mu, s) = m.log_params();
        // Closed form: E = exp(mu + s^2/2) = M, Var = (exp(s^2) - 1) E^2 = S^2.
        assert!(((mu + s * s / 2.0).exp() - 120.0).abs() < 1e-9);
        assert!((((s * s).exp() - 1.0).sqrt() * 120.0 - 60.0).abs() < 1e-9);
        // Sampled users: `simulate::stream::tests::population_draws_match_their_means`.
    }

    #[test]
    fn population_validation_names_keys() {
        let mut p = Population::reasonable();
        p.lateness = 1.5;
        assert!(p.validate("cli").unwrap_err().to_string().contains("lateness"));
        let mut p = Population::reasonable();
        p.duration.mean = 0.0;
        assert!(p.validate("cli").unwrap_err().to_string().contains("duration.mean"));
        let mut p = Population::reasonable();
        p.away.sd = f64::NAN;
        assert!(p.validate("cli").unwrap_err().to_string().contains("away.sd"));
    }

    #[test]
    fn msu_matches_a_closed_form() {
        // One topic whose duration is a single instant: one session at the start. One update of
        // w = 240 words holding one on-time nugget. Duration D constant 60 s (sd 0) per user,
        // session ~ Exp(mean 60), speed V ~ LogNormal(1.29, 0.558): P(read) = E[exp(-240 / (60 V))].
        let topic = StreamTopic { id: "t".into(), start: 100.0, end: 100.0, nugget_ids: vec!["n".into()], nugget_times: vec![50.0] };
        let ups = vec![Update { id: "u".into(), time: 90.0, confidence: 1.0, words: 240.0, nuggets: vec![0] }];
        let pop = Population { away: MeanSd { mean: 3600.0, sd: 0.0 }, duration: MeanSd { mean: 60.0, sd: 0.0 }, speed: [1.29, 0.558], lateness: 0.3 };
        let systems = vec![("s".to_string(), vec![ups])];
        let r = msu(&[topic], &systems, &pop, 100_000, 11).unwrap();
        // Numerical expectation over the log-normal (midpoint rule on z in [-8, 8]).
        let steps = 20_000;
        let mut e = 0.0;
        for i in 0..steps {
            let z = -8.0 + 16.0 * (i as f64 + 0.5) / steps as f64;
            let v = (1.29 + 0.558 * z).exp();
            e += (-4.0 / v).exp() * (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt() * 16.0 / steps as f64;
        }
        assert!((r[0].msu - e).abs() < 4.0 * r[0].se, "{} vs {e} (se {})", r[0].msu, r[0].se);
        // Thread count does not matter.
        let on = |threads: usize| {
            let topic = StreamTopic { id: "t".into(), start: 100.0, end: 100.0, nugget_ids: vec!["n".into()], nugget_times: vec![50.0] };
            rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| msu(&[topic], &systems, &pop, 2000, 11).unwrap())
        };
        let (one, two) = (on(1), on(2));
        assert_eq!(one, two);
    }
}
