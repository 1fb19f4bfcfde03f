//! The answer to "which ranker serves our users better, by how much, and how sure are we?":
//! per profile and system pair, every measure's difference with an interval that generalises
//! over topics and users ([`crate::stats::topics`]), sorted into what users get (outcomes), what
//! it costs them (costs) and what they get per unit spent (efficiency); a verdict sentence that
//! reads a consequence as a consequence; across-topic tests with multiplicity adjustment; and
//! the short answer that the command line prints and Python shows.
//!
//! A system is called cheaper only where it is cheaper at equal outcome. Where it costs less but
//! also finds less, the verdict says it "costs less because it finds less": a user who gives up
//! sooner spends less time, and that is a consequence, not a virtue.

use crate::simulate::summary::{DiffSummary, PairSummary};
use crate::simulate::{Better, RunSummary, MEASURES};
use crate::stats::{over_topics, t_quantile, wilcoxon_signed_rank, TopicInference};
use serde::Serialize;
use std::fmt::Write as _;

/// What a measure says about a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// What the user gets (gain, relevant documents found).
    Outcome,
    /// What it costs the user (time, effort, clicks, depth, ...).
    Cost,
    /// What the user gets per unit spent (gain per second, gain at a fixed budget).
    Efficiency,
    /// Neither better nor worse (marks, depth per query).
    Descriptive,
}

/// The role of a measure or budget by name.
pub fn role(measure: &str) -> Role {
    match measure {
        "gain" | "relevant_found" => Role::Outcome,
        "rate_of_gain" => Role::Efficiency,
        m if m.starts_with("gain_by_") => Role::Efficiency,
        m => match MEASURES.iter().find(|i| i.name == m).map(|i| i.better) {
            Some(Better::Lower) => Role::Cost,
            _ => Role::Descriptive,
        },
    }
}

/// The measure that states the answer: the outcome users care about.
pub const MAIN_OUTCOME: &str = "gain";
/// The cost shown next to it.
pub const MAIN_COST: &str = "time";

/// An across-topic test of one measure for one pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicTest {
    /// Profile.
    pub profile: String,
    /// System A.
    pub system_a: String,
    /// System B.
    pub system_b: String,
    /// Measure.
    pub measure: String,
    /// Test name.
    pub test: String,
    /// Statistic (Wilcoxon's V: the sum of ranks of positive differences A - B).
    pub statistic: f64,
    /// Topics with a non-zero difference of means.
    pub n: usize,
    /// Two-sided p-value of the Wilcoxon signed-rank test over topics.
    pub p_value: f64,
    /// Two-sided p-value of the paired t test over topics (topics and users).
    #[serde(rename = "p_value_t_topics")]
    pub p_value_t: f64,
    /// `p_value_t` adjusted by Holm's step-down method over every (profile, pair) of this
    /// measure in the run (the family of comparisons a reader scans for this measure).
    #[serde(rename = "p_holm_t_topics")]
    pub p_holm: f64,
    /// Topics compared.
    pub topics: usize,
    /// Why the test should not be trusted, empty when there is no reason.
    pub warning: String,
}

/// One measure in a verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerdictMeasure {
    /// Measure.
    pub measure: String,
    /// Better direction.
    pub better: Better,
    /// Outcome, cost, efficiency or descriptive.
    pub role: Role,
    /// Mean difference A - B: the mean over topics of each topic's mean over users.
    pub diff: f64,
    /// 95 % interval of the mean difference over topics and users (t over topics); NaN with
    /// fewer than two topics.
    #[serde(rename = "ci_topics_users")]
    pub ci: [f64; 2],
    /// P(the population mean difference favours A), over topics and users (t posterior).
    #[serde(rename = "p_a_better_topics_users")]
    pub p_a_better: f64,
    /// Paired t test over topics: two-sided p-value.
    #[serde(rename = "p_value_topics")]
    pub p_value: f64,
    /// Effect size d_z over topics (mean / sd of per-topic differences), signed A - B.
    #[serde(rename = "effect_size_dz")]
    pub effect_size: f64,
    /// Monte-Carlo standard error of `diff` (simulated users only).
    #[serde(rename = "mc_se_users")]
    pub mc_se: f64,
    /// 95 % interval with users only (topics held fixed): shown to contrast, not to conclude.
    pub ci_users_only: [f64; 2],
    /// Share of paired sessions in which A is better (users and topics pooled).
    pub p_a_better_sessions: f64,
    /// `a`, `b` or empty: which system the measure favours (the interval excludes 0).
    pub favours: String,
}

/// The verdict on a pair: every measure side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// Profile.
    pub profile: String,
    /// System A.
    pub system_a: String,
    /// System B.
    pub system_b: String,
    /// Topics behind the comparison.
    pub topics: usize,
    /// Topics the two-sided paired t test over topics (alpha 0.05) needs to detect the observed
    /// gain difference with 80 % power, from the per-topic differences' effect size d_z
    /// ([`crate::stats::power`], statsmodels' `TTestPower`): the ceiling of the continuous
    /// solution; empty when the difference is 0 or undefined, or needs more than 10 million.
    #[serde(rename = "gain_topics_needed_80_power")]
    pub topics_needed: f64,
    /// The smallest gain difference (either direction) this many topics detect with 80 %
    /// power: the detectable d_z times the sd of the per-topic differences (topics and users).
    #[serde(rename = "gain_min_detectable_diff_topics")]
    pub min_detectable: f64,
    /// One sentence: which system finds more, what that costs, and what is cheaper at equal
    /// outcome.
    pub verdict: String,
    /// The same without figures, for one screen line.
    pub headline: String,
    /// Measures favouring A.
    pub favours_a: Vec<String>,
    /// Measures favouring B.
    pub favours_b: Vec<String>,
    /// Every measure, then every budget.
    pub measures: Vec<VerdictMeasure>,
}

impl Verdict {
    /// The measure `name`.
    pub fn measure(&self, name: &str) -> Option<&VerdictMeasure> {
        self.measures.iter().find(|m| m.measure == name)
    }
}

/// A number for a sentence: three significant digits, no exponent below 1e6.
pub fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return "undefined".into();
    }
    if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

fn signed(x: f64) -> String {
    if x > 0.0 {
        format!("+{}", fmt_num(x))
    } else {
        fmt_num(x)
    }
}

fn unit_of(measure: &str) -> &'static str {
    match MEASURES.iter().find(|i| i.name == measure) {
        Some(i) => i.unit,
        None if measure.starts_with("gain_by_") => "gain",
        None => "",
    }
}

fn verdict_measure(d: &DiffSummary) -> VerdictMeasure {
    let users_half = 1.96 * d.diff_se;
    let ci_users_only = [d.diff_mean - users_half, d.diff_mean + users_half];
    let nan = f64::NAN;
    // Without topic inference: no topics, every across-topic statistic undefined.
    let inf = d.topics.unwrap_or(TopicInference { mean: d.diff_mean, mc_se: d.diff_se, ..over_topics(&[], 0.95) });
    let sign = match d.better {
        Better::Higher => 1.0,
        Better::Lower => -1.0,
        Better::Neither => 0.0,
    };
    // With fewer than two topics there is no interval over topics: the users-only interval
    // decides, and the verdict says that it speaks for this topic only.
    let (lo, hi) = if inf.lo.is_finite() { (inf.lo, inf.hi) } else { (ci_users_only[0], ci_users_only[1]) };
    let favours = if sign == 0.0 || !(lo.is_finite() && hi.is_finite()) || (inf.topics < 2 && d.n < 2) {
        ""
    } else {
        let (lo, hi) = (lo * sign, hi * sign);
        let (lo, hi) = (lo.min(hi), lo.max(hi));
        if lo > 0.0 {
            "a"
        } else if hi < 0.0 {
            "b"
        } else {
            ""
        }
    };
    let p_a_better = match d.better {
        Better::Higher => inf.p_positive,
        Better::Lower if inf.p_positive.is_finite() => 1.0 - inf.p_positive,
        _ => nan,
    };
    VerdictMeasure {
        measure: d.measure.clone(),
        better: d.better,
        role: role(&d.measure),
        diff: inf.mean,
        ci: [inf.lo, inf.hi],
        p_a_better,
        p_value: inf.p_value,
        effect_size: inf.effect_size,
        mc_se: inf.mc_se,
        ci_users_only,
        p_a_better_sessions: d.p_a_better,
        favours: favours.into(),
    }
}

fn describe(m: &VerdictMeasure) -> String {
    let unit = unit_of(&m.measure);
    if unit.is_empty() || unit == m.measure {
        format!("{} {}", m.measure, signed(m.diff))
    } else {
        format!("{} {} {unit}", m.measure, signed(m.diff))
    }
}

/// At most three measure names, then how many more (for one screen line).
fn few(ms: &[&VerdictMeasure]) -> String {
    let mut s = ms.iter().take(3).map(|m| m.measure.as_str()).collect::<Vec<_>>().join(", ");
    if ms.len() > 3 {
        s += &format!(" and {} more", ms.len() - 3);
    }
    s
}

/// The verdict of a pooled pair comparison (one whose differences carry
/// [`DiffSummary::topics`]).
pub fn verdict(p: &PairSummary) -> Verdict {
    let measures: Vec<VerdictMeasure> = p.measures.iter().chain(&p.time_budgets).chain(&p.effort_budgets).map(verdict_measure).collect();
    let topics = p.measures.first().and_then(|d| d.topics).map_or(0, |t| t.topics);
    let (a, b) = (&p.system_a, &p.system_b);
    let favouring = |who: &str, role: Role| -> Vec<&VerdictMeasure> { measures.iter().filter(|m| m.favours == who && m.role == role).collect() };
    let join = |ms: &[&VerdictMeasure]| ms.iter().map(|m| describe(m)).collect::<Vec<_>>().join(", ");
    let main = measures.iter().find(|m| m.measure == MAIN_OUTCOME);
    // Each part of the sentence in a long form (with figures) and a short one (for the screen).
    let mut parts: Vec<(String, String)> = Vec::new();
    // The outcome: who finds more, decided by the main outcome's interval over topics and users.
    let winner = main.map(|m| m.favours.as_str()).unwrap_or("");
    let has_interval = main.is_some_and(|m| m.ci[0].is_finite());
    match (winner, main) {
        ("a" | "b", Some(m)) if has_interval => {
            let w = if winner == "a" { a } else { b };
            parts.push((
                format!("{w} finds more: gain A - B {} [{}, {}] (95 %, topics and users)", signed(m.diff), signed(m.ci[0]), signed(m.ci[1])),
                format!("{w} finds more"),
            ));
        }
        (_, Some(m)) if has_interval => parts.push((
            format!("no clear difference in gain: A - B {} [{}, {}] (95 %, topics and users)", signed(m.diff), signed(m.ci[0]), signed(m.ci[1])),
            "no clear difference in gain".into(),
        )),
        _ => {
            let users = main.map(|m| {
                let w = match m.favours.as_str() {
                    "a" => format!("{a} finds more"),
                    "b" => format!("{b} finds more"),
                    _ => "no clear difference in gain".to_string(),
                };
                (w, m)
            });
            match users {
                Some((w, m)) => parts.push((
                    format!(
                        "{w} on this one topic: gain A - B {} [{}, {}] (95 %, users only: does not generalise to other topics)",
                        signed(m.diff),
                        signed(m.ci_users_only[0]),
                        signed(m.ci_users_only[1])
                    ),
                    format!("{w} on this one topic (users only)"),
                )),
                None => parts.push(("no gain measure".into(), "no gain measure".into())),
            }
        }
    }
    // Costs: cheaper at equal outcome, or cheaper because it finds less. Every clause names
    // its system; the one that finds more comes first, so that "also" follows "finds more".
    let order = if winner == "b" { [("b", b, "a"), ("a", a, "b")] } else { [("a", a, "b"), ("b", b, "a")] };
    for (who, name, other) in order {
        let cheaper = favouring(who, Role::Cost);
        if cheaper.is_empty() {
            continue;
        }
        let (list, names) = (join(&cheaper), few(&cheaper));
        if winner == other {
            parts.push((format!("{name} costs less because it finds less ({list})"), format!("{name} costs less ({names}) because it finds less")));
        } else if winner == who {
            parts.push((format!("{name} also costs less ({list})"), format!("{name} also costs less ({names})")));
        } else if winner.is_empty() && has_interval {
            parts.push((format!("{name} is cheaper at equal gain ({list})"), format!("{name} is cheaper at equal gain ({names})")));
        }
    }
    // Efficiency: more gain per second or at a fixed budget.
    for (who, name) in [("a", a), ("b", b)] {
        let eff = favouring(who, Role::Efficiency);
        if !eff.is_empty() {
            let names = few(&eff);
            parts.push((format!("{name} gains more per unit spent ({})", join(&eff)), format!("{name} gains more per unit spent ({names})")));
        }
    }
    if (2..crate::stats::topics::FEW_TOPICS).contains(&topics) {
        parts.push((
            format!("only {topics} topics: the interval speaks for a population of topics like these few, and is wide or unreliable"),
            format!("only {topics} topics"),
        ));
    }
    let verdict = parts.iter().map(|p| p.0.as_str()).collect::<Vec<_>>().join("; ");
    let headline = parts.iter().map(|p| p.1.as_str()).collect::<Vec<_>>().join("; ");
    let favours_a = measures.iter().filter(|m| m.favours == "a").map(|m| m.measure.clone()).collect();
    let favours_b = measures.iter().filter(|m| m.favours == "b").map(|m| m.measure.clone()).collect();
    let (topics_needed, min_detectable) = power_of(p);
    Verdict {
        profile: p.profile.clone(),
        system_a: a.clone(),
        system_b: b.clone(),
        topics,
        topics_needed,
        min_detectable,
        verdict,
        headline,
        favours_a,
        favours_b,
        measures,
    }
}

/// Topics needed for 80 % power at the observed gain difference, and the smallest gain
/// difference the run's topics detect with 80 % power (NaN where undefined).
fn power_of(p: &PairSummary) -> (f64, f64) {
    use crate::stats::power::{detectable_effect, topics_needed, ALPHA, POWER};
    let Some(inf) = p.measures.iter().find(|d| d.measure == MAIN_OUTCOME).and_then(|d| d.topics) else { return (f64::NAN, f64::NAN) };
    if inf.topics < 2 {
        return (f64::NAN, f64::NAN);
    }
    let needed = topics_needed(inf.effect_size, ALPHA, POWER).map_or(f64::NAN, f64::ceil);
    let sd = inf.se * (inf.topics as f64).sqrt();
    let detectable = detectable_effect(inf.topics as f64, ALPHA, POWER).map_or(f64::NAN, |d| d * sd);
    (needed, detectable)
}

/// Across-topic tests of every measure for every (profile, pair): Wilcoxon's signed-rank test
/// and the paired t test of per-topic means, with Holm's adjustment of the t test's p-values
/// over the run's (profile, pair) comparisons of each measure.
pub fn topic_tests(s: &RunSummary) -> Vec<TopicTest> {
    let mut out = Vec::new();
    for pooled in &s.pooled_pairs {
        let per_topic: Vec<&PairSummary> =
            s.pairs.iter().filter(|p| p.profile == pooled.profile && p.system_a == pooled.system_a && p.system_b == pooled.system_b).collect();
        for (m, info) in MEASURES.iter().enumerate() {
            let a: Vec<f64> = per_topic.iter().map(|p| p.measures[m].mean_a).collect();
            let b: Vec<f64> = per_topic.iter().map(|p| p.measures[m].mean_b).collect();
            let w = wilcoxon_signed_rank(&a, &b);
            let mut warnings = Vec::new();
            if per_topic.len() < 5 {
                warnings.push(format!("only {} topics: a test over fewer than 5 topics cannot reach p < 0.05", per_topic.len()));
            }
            if w.n == 0 {
                warnings.push("no topic differs: the test is undefined".to_string());
            } else if w.n < 5 && per_topic.len() >= 5 {
                warnings.push(format!("only {} topics differ: the test has almost no power", w.n));
            }
            if !w.exact {
                warnings.push("ties or n >= 50: normal approximation".to_string());
            }
            let p_t = pooled.measures[m].topics.map_or(f64::NAN, |t| t.p_value);
            out.push(TopicTest {
                profile: pooled.profile.clone(),
                system_a: pooled.system_a.clone(),
                system_b: pooled.system_b.clone(),
                measure: info.name.to_string(),
                test: "wilcoxon_signed_rank".into(),
                statistic: w.statistic,
                n: w.n,
                p_value: w.p_value,
                p_value_t: p_t,
                p_holm: f64::NAN,
                topics: per_topic.len(),
                warning: warnings.join("; "),
            });
        }
    }
    for info in MEASURES.iter() {
        let rows: Vec<usize> = (0..out.len()).filter(|&i| out[i].measure == info.name).collect();
        let p: Vec<f64> = rows.iter().map(|&i| out[i].p_value_t).collect();
        let adjusted = crate::stats::multitest::adjust_finite(&p, crate::stats::multitest::Method::Holm).expect("t test p-values lie in [0, 1] or are NaN");
        for (&i, adj) in rows.iter().zip(adjusted) {
            out[i].p_holm = adj;
        }
    }
    out
}

/// How many topics would settle the pair, for one screen line: with a clear difference, the
/// topics 80 % power needs at it; without, the smallest difference this run's topics detect
/// with 80 % power and the topics the observed one would need (two-sided paired t test over
/// topics, alpha 0.05). `None` below two topics.
pub fn power_line(v: &Verdict) -> Option<String> {
    let g = v.measure(MAIN_OUTCOME)?;
    if v.topics < 2 {
        return None;
    }
    let need = if v.topics_needed.is_finite() {
        format!("{:.0} topics", v.topics_needed)
    } else if g.diff == 0.0 || !g.effect_size.is_finite() {
        return Some(format!(
            "power: these {} topics detect a gain difference of +-{} with 80 % power (paired t over topics, alpha 0.05)",
            v.topics,
            fmt_num(v.min_detectable)
        ));
    } else {
        "more than 10 million topics".to_string()
    };
    Some(if g.favours == "a" || g.favours == "b" {
        format!("power: 80 % power at this gain difference needs {need} (paired t over topics, alpha 0.05); this run has {}", v.topics)
    } else {
        format!(
            "power: these {} topics detect a gain difference of +-{} with 80 % power; the observed {} would need {need} (paired t over topics, alpha 0.05)",
            v.topics,
            fmt_num(v.min_detectable),
            signed(g.diff)
        )
    })
}

/// One line per system pair that several profiles (user models) judge: "A better for k of n
/// user models", naming the models that disagree with the most common answer (gain, by its
/// 95 % interval over topics and users). Pairs judged by one profile get no line.
pub fn users_lines(verdicts: &[Verdict]) -> Vec<String> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for v in verdicts {
        if !pairs.contains(&(v.system_a.as_str(), v.system_b.as_str())) {
            pairs.push((&v.system_a, &v.system_b));
        }
    }
    let mut out = Vec::new();
    for (a, b) in pairs {
        let judged: Vec<(&str, &str)> = verdicts
            .iter()
            .filter(|v| v.system_a == a && v.system_b == b)
            .map(|v| (v.profile.as_str(), v.measure(MAIN_OUTCOME).map_or("", |m| m.favours.as_str())))
            .collect();
        let n = judged.len();
        if n < 2 {
            continue;
        }
        let count = |who: &str| judged.iter().filter(|j| j.1 == who).count();
        let (ka, kb) = (count("a"), count("b"));
        let describe = |who: &str| match who {
            "a" => format!("{a} better"),
            "b" => format!("{b} better"),
            _ => "no clear difference".to_string(),
        };
        let (lead, head) = if ka == 0 && kb == 0 {
            ("", format!("no clear difference in gain between {a} and {b} for any of {n} user models"))
        } else if kb > ka {
            ("b", format!("{b} better than {a} for {kb} of {n} user models"))
        } else {
            ("a", format!("{a} better than {b} for {ka} of {n} user models"))
        };
        let others: Vec<String> = judged.iter().filter(|j| j.1 != lead).map(|j| format!("{}: {}", j.0, describe(j.1))).collect();
        let tail = if others.is_empty() { "every model agrees".to_string() } else { format!("disagreeing: {}", others.join(", ")) };
        out.push(format!("users: {head} (gain, 95 % over topics and users); {tail}"));
    }
    out
}

/// Warnings that the summary itself raises: deterministic users (every user on a topic does
/// the same thing, so `n` counts copies of one session).
pub fn summary_warnings(s: &RunSummary) -> Vec<String> {
    let mut out = Vec::new();
    let cells = s.cells.len();
    let deterministic = s.cells.iter().filter(|c| c.measures.iter().all(|m| m.n < 2 || m.sd == 0.0)).count();
    if cells > 0 && deterministic == cells {
        let n = s.cells.first().map_or(0, |c| c.measures[0].n);
        out.push(format!(
            "simulated users are deterministic: every user on a topic does the same thing, so the run has {cells} distinct sessions (one per topic, system and profile), not {} ({n} identical copies each); users-only standard errors are 0 and mean nothing, the interval over topics is the one to read",
            cells as u64 * n
        ));
    } else if deterministic > 0 {
        out.push(format!(
            "{deterministic} of {cells} (topic, system, profile) cells are deterministic: every simulated user there does the same thing (one distinct session each)"
        ));
    }
    out
}

/// The short answer (at most 25 lines): per profile and pair, the main outcome difference with
/// its interval over topics and users, P(A better), the main cost difference, the verdict and
/// its power line ([`power_line`]); per pair judged by several user models, whether they agree
/// ([`users_line`]); the simulation error apart; where the details are.
pub fn answer(scenario: &str, users: u64, verdicts: &[Verdict], warnings: &[String]) -> String {
    const MAX_ROWS: usize = 4;
    let mut s = String::new();
    let topics = verdicts.iter().map(|v| v.topics).max().unwrap_or(0);
    let _ = writeln!(s, "serpsim: {scenario}: {topics} topics x {users} simulated users per topic, system and profile");
    if verdicts.is_empty() {
        let _ = writeln!(s, "one system only: nothing to compare (summary.csv has every measure)");
    } else {
        let _ = writeln!(s, "gain A - B with 95 % interval and P(A better) over topics and users; time A - B in seconds");
        let rows: Vec<[String; 6]> = verdicts
            .iter()
            .take(MAX_ROWS)
            .map(|v| {
                let g = v.measure(MAIN_OUTCOME);
                let t = v.measure(MAIN_COST);
                let ci =
                    g.map_or(String::new(), |g| if g.ci[0].is_finite() { format!("[{}, {}]", signed(g.ci[0]), signed(g.ci[1])) } else { "(1 topic)".into() });
                let pb = g.map_or(String::new(), |g| if g.p_a_better.is_finite() { format!("{:.2}", g.p_a_better) } else { String::new() });
                [
                    v.profile.clone(),
                    format!("{} vs {}", v.system_a, v.system_b),
                    g.map_or(String::new(), |g| signed(g.diff)),
                    ci,
                    pb,
                    t.map_or(String::new(), |t| signed(t.diff)),
                ]
            })
            .collect();
        let head = ["profile", "A vs B", "gain A-B", "95 % interval", "P(A better)", "time A-B"];
        let mut width = head.map(str::len);
        for r in &rows {
            for (w, c) in width.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |cells: [&str; 6]| {
            let mut l = String::new();
            for (k, (c, w)) in cells.iter().zip(width).enumerate() {
                if k > 0 {
                    l.push_str("  ");
                }
                let pad = w.saturating_sub(c.chars().count());
                if k >= 2 {
                    l.push_str(&" ".repeat(pad));
                    l.push_str(c);
                } else {
                    l.push_str(c);
                    l.push_str(&" ".repeat(pad));
                }
            }
            l.trim_end().to_string()
        };
        let _ = writeln!(s, "{}", line(head));
        for (r, v) in rows.iter().zip(verdicts) {
            let _ = writeln!(s, "{}", line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]]));
            let _ = writeln!(s, "  -> {}", v.headline);
            if let Some(p) = power_line(v) {
                let _ = writeln!(s, "     {p}");
            }
        }
        if verdicts.len() > MAX_ROWS {
            let _ = writeln!(s, "... and {} more comparisons in verdict.csv", verdicts.len() - MAX_ROWS);
        }
        let robust = users_lines(verdicts);
        for l in robust.iter().take(2) {
            let _ = writeln!(s, "{l}");
        }
        if robust.len() > 2 {
            let _ = writeln!(s, "... and {} more pairs judged by several user models in verdict.csv", robust.len() - 2);
        }
        // The simulation error, apart from the sampling of topics and users.
        let mains: Vec<&VerdictMeasure> = verdicts.iter().filter_map(|v| v.measure(MAIN_OUTCOME)).collect();
        let worst = mains.iter().map(|m| m.mc_se).fold(0.0f64, f64::max);
        let enough = mains.iter().all(|m| {
            let se = (m.ci[1] - m.ci[0]) / 2.0 / t_quantile(0.975, (topics.max(2) - 1) as f64);
            !(m.mc_se > 0.2 * se) || m.mc_se == 0.0
        });
        let _ = writeln!(
            s,
            "simulation error (users only): gain +-{} (1.96 se): {}",
            fmt_num(1.96 * worst),
            if enough { "enough, more replicates would not narrow the interval" } else { "raise --replicates, it widens the interval" }
        );
        if topics < crate::stats::topics::FEW_TOPICS {
            let _ = writeln!(s, "only {topics} topics: the result does not generalise to other topics; use 10 or more (25-50 for a paper)");
        }
    }
    for w in warnings.iter().take(3) {
        let short: String = w.chars().take(160).collect();
        let _ = writeln!(s, "warning: {short}{}", if w.chars().count() > 160 { "..." } else { "" });
    }
    if warnings.len() > 3 {
        let _ = writeln!(s, "... and {} more warnings in manifest.json", warnings.len() - 3);
    }
    let _ = writeln!(s, "details: verdict.csv (every measure), comparison.csv, tests.csv and the plots; --quiet hides this");
    s
}
