use super::*;
use crate::logs::{Format, LogData};
use rand_distr::{Distribution, Normal};

#[test]
fn paper_decisions_against_hand_made_outcomes() {
    // Query q: ordering A [good, bad] and B [bad, good], 60 sessions each. `good` is
    // clicked in every session (and nothing else): A's first-click RR is 1, B's is 1/2.
    // From A's sessions, good is attractive and satisfying, bad never clicked, so every
    // method must keep A (B is really worse: -1/2) and switch from B to A (+1/2).
    let mut text = String::new();
    for _ in 0..60 {
        text.push_str("q\tgood,bad : good\n");
    }
    for _ in 0..60 {
        text.push_str("q\tbad,good : good\n");
    }
    let data = LogData::parse(&text, Format::Yandex, "hand", false).unwrap();
    let v = validate_real(&data.log, &data.vocab, &RealConfig { samples: 200, bootstrap: 50, ..RealConfig::paper() }).unwrap();
    assert_eq!(v.decisions.len(), 2);
    let (a_to_b, b_to_a) = (&v.decisions[0], &v.decisions[1]);
    assert_eq!((a_to_b.production, a_to_b.candidate), (0, 1));
    assert_eq!(a_to_b.real_diff, -0.5);
    assert_eq!(b_to_a.real_diff, 0.5);
    // Every session of an ordering has the same RR: no sampling spread.
    assert_eq!(a_to_b.real_se, 0.0);
    assert_eq!(a_to_b.real_class, RealClass::ClearlyWorse);
    assert_eq!(b_to_a.real_class, RealClass::ClearlyNotWorse);
    assert!(a_to_b.verdict == Verdict::Keep && !a_to_b.em_switch && !a_to_b.mt_switch, "{a_to_b:?}");
    assert!(b_to_a.verdict == Verdict::Switch && b_to_a.em_switch && b_to_a.mt_switch, "{b_to_a:?}");
    assert_eq!(v.really_worse, 1);
    for s in v.summary.iter().filter(|s| ["baraco", "em_plugin", "mt"].contains(&s.method)) {
        assert_eq!((s.pairs, s.switches, s.unsafe_switches, s.missed_safe_switches, s.agreement.value), (2, 1, 0, 0, 1.0), "{s:?}");
        assert_eq!((s.clearly_safe_switches, s.clearly_safe_switch_share.value), (1, 1.0));
    }
    let always = v.summary.iter().find(|s| s.method == "always_switch").unwrap();
    assert_eq!((always.switches, always.unsafe_switches, always.clearly_unsafe_switches, always.unsafe_share.value), (2, 1, 1, 0.5));
    let never = v.summary.iter().find(|s| s.method == "never_switch").unwrap();
    assert_eq!((never.switches, never.missed_safe_switches), (0, 1));
    assert!(never.unsafe_share.value.is_nan());
    // Too few sessions: a clear error.
    let e = validate_real(&data.log, &data.vocab, &RealConfig { min_sessions: 61, ..RealConfig::paper() }).unwrap_err().to_string();
    assert!(e.contains("at least 61 sessions"), "{e}");
    // The cross-fitted default needs other queries, and says so.
    let e = validate_real(&data.log, &data.vocab, &RealConfig { samples: 50, ..RealConfig::default() }).unwrap_err().to_string();
    assert!(e.contains("only query") && e.contains("paper"), "{e}");
}

#[test]
fn real_outcome_standard_error_with_unequal_counts_and_spread() {
    // Production P = [x, y], 3 sessions: click x (RR 1), click y (RR 1/2), none (RR 0):
    // mean 0.5, sample variance ((0.5)^2 + 0 + (0.5)^2) / 2 = 0.25.
    // Candidate C = [y, x], 5 sessions: three click y (RR 1), two none (RR 0): mean 0.6,
    // sample variance (3 (0.4)^2 + 2 (0.6)^2) / 4 = 0.3.
    // Advantage +0.1, se = sqrt(0.25 / 3 + 0.3 / 5) = sqrt(0.1433333) = 0.3785939 (swapping the
    // counts would give sqrt(0.25 / 5 + 0.3 / 3) = 0.3872983).
    let text = "q\tx,y : x\nq\tx,y : y\nq\tx,y : \nq\ty,x : y\nq\ty,x : y\nq\ty,x : y\nq\ty,x : \nq\ty,x : \n";
    let data = LogData::parse(text, Format::Yandex, "hand", false).unwrap();
    let v = validate_real(&data.log, &data.vocab, &RealConfig { min_sessions: 3, samples: 50, bootstrap: 20, ..RealConfig::paper() }).unwrap();
    let d = v.decisions.iter().find(|d| d.production_sessions == 3).unwrap();
    assert_eq!(d.candidate_sessions, 5);
    assert!((d.real_diff - 0.1).abs() < 1e-12, "{d:?}");
    assert!((d.real_se - 0.1433333333333333f64.sqrt()).abs() < 1e-12, "{}", d.real_se);
    // The other direction has the same standard error and the opposite sign.
    let e = v.decisions.iter().find(|d| d.production_sessions == 5).unwrap();
    assert!((e.real_diff + 0.1).abs() < 1e-12 && (e.real_se - d.real_se).abs() < 1e-15);
    // Abandonment, lower is better: P abandons 1/3 (variance 1/3), C 2/5 (variance 0.3):
    // advantage -(0.4 - 1/3) = -1/15, se = sqrt((1/3) / 3 + 0.3 / 5) = sqrt(0.1711111).
    let ab = |o: &Ordering| -> (f64, f64, usize) {
        let (m, v) = observed(&data.log, o, OutcomeMetric::Abandonment);
        (m, v, o.sessions.len())
    };
    let ords = group_orderings(&data.log);
    let (adv, se) = real_advantage(OutcomeMetric::Abandonment, ab(&ords[0]), ab(&ords[1]));
    assert!((adv + 1.0 / 15.0).abs() < 1e-12 && (se - 0.1711111111111111f64.sqrt()).abs() < 1e-12, "{adv} {se}");
    // The class reads the outcome against epsilon with its own standard error.
    assert_eq!(RealClass::of(-0.1, 0.04, 0.01), RealClass::ClearlyWorse);
    assert_eq!(RealClass::of(-0.05, 0.04, 0.01), RealClass::Unclear);
    assert_eq!(RealClass::of(0.08, 0.04, 0.01), RealClass::ClearlyNotWorse);
}

/// A generated log with known truth (the documented generator of the model-error tests).
///
/// `queries` queries; query q has two top documents, A and B, with click probabilities drawn
/// uniformly in (0, 1), and four filler documents nobody clicks. It is shown in four orderings:
/// A then the fillers in order 1, A then order 2, B then order 3, B then order 4 (with
/// `same_top`, all four show A). Every ordering o has its own planted error `e_o ~ N(0,
/// sigma^2)`: its users click the top document with probability `p_o = clamp(p_top + e_o, 0, 1)`,
/// are then satisfied (no more clicks), and otherwise read every filler without clicking. The
/// true first-click RR of ordering o is `p_o` (returned per ordering, in first-appearance order).
fn planted(seed: u64, queries: usize, sessions: usize, sigma: f64, same_top: bool) -> (LogData, Vec<f64>) {
    let mut rng = crate::rng::stream(seed, &[0]);
    let mut text = String::new();
    let mut truth = Vec::new();
    for q in 0..queries {
        let tops = [rng.random::<f64>(), rng.random::<f64>()];
        let fillers = [["f1", "f2", "f3", "f4"], ["f3", "f1", "f4", "f2"], ["f2", "f4", "f1", "f3"], ["f4", "f3", "f2", "f1"]];
        for o in 0..4 {
            let top = if same_top { 0 } else { o / 2 };
            let e = if sigma > 0.0 { Normal::new(0.0, sigma).unwrap().sample(&mut rng) } else { 0.0 };
            let p = (tops[top] + e).clamp(0.0, 1.0);
            truth.push(p);
            let list = format!("{},{}", ["A", "B"][top], fillers[o].join(","));
            for _ in 0..sessions {
                let click = rng.random::<f64>() < p;
                text.push_str(&format!("q{q}\t{list} : {}\n", if click { ["A", "B"][top] } else { "" }));
            }
        }
    }
    (LogData::parse(&text, Format::Yandex, "generated", false).unwrap(), truth)
}

/// Settings for the generated logs: the generator's users read every result until satisfied,
/// so gamma is 1; the tops are uniform, so is the prior.
fn generated_cfg() -> RealConfig {
    RealConfig {
        gamma: GammaChoice::Fixed(1.0),
        prior: PriorChoice::Uniform,
        samples: 200,
        bootstrap: 100,
        min_sessions: 50,
        error_min_sessions: 20,
        ..RealConfig::default()
    }
}

#[test]
fn model_error_recovers_a_planted_misspecification_variance() {
    // Every ordering of a query shows the same top document, so a model fitted on one ordering
    // predicts no difference to another (the fillers only move), while the real difference is
    // e_C - e_P: the planted misspecification variance is Var(e_C - e_P) = 2 sigma^2 = 0.0098
    // for sigma = 0.07 (hand derivation). The estimator sees 40 other queries (480 ordered
    // pairs, 160 independent planted errors); its standard error is about
    // 2 sigma^2 sqrt(2 / 120) = 0.0013, so 0.0098 +- 0.004 is about three of them, and well
    // apart from 0.
    let (data, _) = planted(11, 41, 300, 0.07, true);
    let info = cross_fitted(&data.log, &data.vocab, "q0", &generated_cfg()).unwrap();
    // Every pair has the same unexamined share (fillers never examined before a click) and
    // one of two displacements: read tau^2 at a pair's features.
    let ords = group_orderings(&data.log);
    let x = switch::features(&ords[1].pairs, &ords[0].pairs, |p| if p == ords[0].pairs[0] { 300 } else { 0 }, 10);
    let tau2 = info.model_error.variance(&x);
    assert!((tau2 - 0.0098).abs() < 0.004, "tau^2 {tau2} (planted 0.0098), {info:?}");
    assert_eq!(info.model_error.samples, 40 * 12);
    // The same log without the planted error: the estimate falls to (about) zero. The sampling
    // variance of a pair's observed difference is 2 p (1 - p) / 300, 0.0011-0.0017 here, so an
    // estimator that did not subtract it would read above 0.001; with it subtracted the
    // estimate's own standard error at zero is about sqrt(2) 0.0015 / sqrt(120) = 0.0002.
    let (data, _) = planted(11, 41, 300, 0.0, true);
    let info = cross_fitted(&data.log, &data.vocab, "q0", &generated_cfg()).unwrap();
    assert!(info.model_error.variance(&x) < 0.0008, "{info:?}");
}

#[test]
fn cross_fitting_keeps_the_decided_query_out() {
    // Changing the decided query's clicks changes nothing it is decided with; changing another
    // query's does.
    let (data, _) = planted(5, 8, 60, 0.05, false);
    let cfg = RealConfig { gamma: GammaChoice::Fitted, prior: PriorChoice::Fitted, samples: 50, ..generated_cfg() };
    let base = cross_fitted(&data.log, &data.vocab, "q0", &cfg).unwrap();
    let flip = |query: u32| -> LogData {
        let mut d = data.clone();
        let mut log = ClickLog::new();
        for i in 0..d.log.len() {
            let s = d.log.session(i);
            let clicks: Vec<bool> = if s.query == query { s.clicks.iter().map(|c| !c).collect() } else { s.clicks.to_vec() };
            log.push(s.query, s.pairs, &clicks);
        }
        d.log = log;
        d
    };
    let q0 = data.vocab.queries.iter().position(|q| q == "q0").unwrap() as u32;
    let same = flip(q0);
    assert_eq!(cross_fitted(&same.log, &same.vocab, "q0", &cfg).unwrap(), base);
    let other = flip((q0 + 1) % 8);
    assert_ne!(cross_fitted(&other.log, &other.vocab, "q0", &cfg).unwrap(), base);
}

/// Share of pairs truly safe against the mean P(safe), per fifth of P(safe): (mean P(safe),
/// share safe, pairs, standard error of the difference with pairs clustered by query).
fn calibration(v: &RealValidation, truth: &[f64]) -> Vec<(f64, f64, usize, f64)> {
    let mut out = Vec::new();
    for b in 0..5 {
        let lo = b as f64 / 5.0;
        let hi = if b == 4 { 1.0 + 1e-9 } else { (b + 1) as f64 / 5.0 };
        let rows: Vec<&PairDecision> = v.decisions.iter().filter(|d| d.p_safe >= lo && d.p_safe < hi).collect();
        if rows.len() < 30 {
            continue;
        }
        let n = rows.len() as f64;
        let mut by_query: HashMap<&str, f64> = HashMap::new();
        let (mut p, mut y) = (0.0, 0.0);
        for d in &rows {
            let safe = f64::from(u8::from(truth[d.candidate] - truth[d.production] >= -v.epsilon));
            p += d.p_safe;
            y += safe;
            *by_query.entry(d.query.as_str()).or_insert(0.0) += safe - d.p_safe;
        }
        // Sandwich variance of the mean of (safe - P(safe)) with pairs clustered by query.
        let se = (by_query.values().map(|r| r * r).sum::<f64>()).sqrt() / n;
        out.push((p / n, y / n, rows.len(), se));
    }
    out
}

#[test]
fn p_safe_is_calibrated_on_generated_logs_with_a_known_truth() {
    // Half of the ordered pairs change the top document (the candidate's is unseen: its
    // uniform prior is the generator's distribution), half only move the fillers (the model
    // predicts no difference, the truth differs by e_C - e_P with sigma 0.06). The true
    // advantage of every pair is known (`planted`): P(safe) must match the share of truly safe
    // pairs in every fifth of its range with at least 30 pairs, within 3.5 standard errors
    // (clustered by query).
    let (data, truth) = planted(21, 40, 200, 0.06, false);
    let v = validate_real(&data.log, &data.vocab, &generated_cfg()).unwrap();
    assert_eq!(v.decisions.len(), 40 * 12);
    let bins = calibration(&v, &truth);
    assert!(bins.len() >= 3, "{bins:?}");
    for &(p, y, n, se) in &bins {
        assert!((p - y).abs() <= 3.5 * se.max(0.02), "bin with {n} pairs: mean P(safe) {p:.3} against {y:.3} truly safe (se {se:.3}); {bins:?}");
    }
    // The model taken as true (no model error) is over-confident on the filler-only pairs: a
    // bin misses by far more (this is what the model error is for).
    let v0 = validate_real(&data.log, &data.vocab, &RealConfig { model_error: false, ..generated_cfg() }).unwrap();
    let bins0 = calibration(&v0, &truth);
    assert!(bins0.iter().any(|&(p, y, _, se)| (p - y).abs() > 3.5 * se.max(0.02)), "{bins0:?}");
}

#[test]
fn deterministic_whatever_the_threads() {
    let (data, _) = planted(3, 6, 60, 0.05, false);
    let cfg = RealConfig { samples: 50, bootstrap: 50, ..generated_cfg() };
    let a = validate_real(&data.log, &data.vocab, &cfg).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let b = pool.install(|| validate_real(&data.log, &data.vocab, &cfg).unwrap());
    // (NaN != NaN: compare the serialised reports.)
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    // Every answer in words names its verdict.
    for d in &a.decisions {
        let head = match d.verdict {
            Verdict::Switch => "switch:",
            Verdict::Keep => "keep production:",
            Verdict::CannotTell => "cannot tell from this log:",
        };
        assert!(d.why.starts_with(head), "{d:?}");
    }
}
