use super::*;
use crate::clickmodels::synthetic::SyntheticSerps;
use crate::clickmodels::user::FittedClicks;
use crate::clickmodels::{Dbn, DbnConfig, Gamma};
use crate::simulate::walk::FixedChoice;
use crate::simulate::{walk, PreparedProfile, QueryList, Scratch, SystemOnTopic, Step, World, WorldSystem, WorldTopic};
use crate::user::{ClickModelSpec, ClickSource, Unseen, UnseenPolicy, UserProfile};
use rand::Rng;
use std::sync::Arc;

#[test]
fn quantile_matching_by_hand() {
    // Values 0.1, 0.2, 0.3, 0.4 (n = 4) onto target grades [0, 1, 1]: grade 0 takes the share
    // u in (0, 1/3], grade 1 (1/3, 1]. Q(u) = 0.1 on (0, 1/4], 0.2 on (1/4, 1/2], ...
    // grade 0: (0.1 x 1/4 + 0.2 x (1/3 - 1/4)) / (1/3) = (0.025 + 0.016667) x 3 = 0.125;
    // grade 1: (0.2 x (1/2 - 1/3) + 0.3 / 4 + 0.4 / 4) / (2/3) = 0.208333 x 1.5 = 0.3125.
    // Check: (0.125 + 2 x 0.3125) / 3 = 0.25, the mean of the values (by hand).
    let q = quantile_by_grade(&[0.4, 0.1, 0.3, 0.2], &[1, 0, 1]).unwrap();
    assert_eq!(q.len(), 2);
    assert_eq!(q[0].0, 0);
    assert!((q[0].1 - 0.125).abs() < 1e-12, "{q:?}");
    assert_eq!(q[1].0, 1);
    assert!((q[1].1 - 0.3125).abs() < 1e-12, "{q:?}");
    // One target grade takes the mean of every value.
    let q = quantile_by_grade(&[0.4, 0.1, 0.3, 0.2], &[2, 2]).unwrap();
    assert!((q[0].1 - 0.25).abs() < 1e-12);
    assert!(quantile_by_grade(&[], &[1]).is_none());
    assert!(quantile_by_grade(&[0.5], &[]).is_none());
}

#[test]
fn grades_round_trip_and_bad_rows_are_errors() {
    let names = vec!["attractiveness".to_string(), "satisfaction".to_string()];
    let g = ByGrade {
        rows: vec![
            GradeRow { grade: 0, impressions: 7, values: vec![("attractiveness".into(), 0.1), ("satisfaction".into(), 0.2)] },
            GradeRow { grade: 2, impressions: 3, values: vec![("attractiveness".into(), 0.6), ("satisfaction".into(), 0.5)] },
        ],
    };
    assert_eq!(ByGrade::from_json(&g.to_json(), &names, "m.json").unwrap(), g);
    let bad = serde_json::json!([{"grade": 1, "attractiveness": 0.2}]);
    let e = ByGrade::from_json(&bad, &names, "m.json").unwrap_err().to_string();
    assert!(e.contains("m.json") && e.contains("grades[0].satisfaction") && e.contains("missing"), "{e}");
    let bad = serde_json::json!([{"grade": 1, "attractiveness": 1.2, "satisfaction": 0.1}]);
    assert!(ByGrade::from_json(&bad, &names, "m.json").unwrap_err().to_string().contains("grades[0].attractiveness"));
}

/// The known grade-level DBN: attractiveness and satisfaction of grades 0, 1, 2, and gamma.
const A: [f64; 3] = [0.15, 0.45, 0.8];
const S: [f64; 3] = [0.1, 0.35, 0.7];
const GAMMA: f64 = 0.85;

/// A grade per pair from the cumulative mix `cum` (seeded).
fn draw_grade(seed: u64, id: u64, cum: &[f64; 3]) -> i32 {
    let u: f64 = crate::rng::stream(seed, &[id]).random();
    cum.iter().position(|&c| u < c).unwrap_or(2) as i32
}

/// Closed-form P(click at rank r) of a DBN on a list with attractiveness `a` and satisfaction
/// `s` by rank, derived by hand: the user examines rank 1; after rank i the user goes on with
/// probability gamma unless they clicked and were satisfied, so
///   P(E_{i+1} = 1 | E_i = 1) = (1 - a_i) gamma + a_i (1 - s_i) gamma = gamma (1 - a_i s_i),
///   P(C_r = 1) = a_r P(E_r = 1) = a_r prod_{i<r} gamma (1 - a_i s_i).
fn dbn_click_rates(a: &[f64], s: &[f64], gamma: f64) -> Vec<f64> {
    let mut e = 1.0;
    let mut out = Vec::new();
    for (ai, si) in a.iter().zip(s) {
        out.push(ai * e);
        e *= gamma * (1.0 - ai * si);
    }
    out
}

#[test]
fn planted_grade_level_dbn_is_recovered_and_transfers() {
    // Training log: 50 queries x 20 documents, grades 0/1/2 with shares 0.6/0.25/0.15, 200,000
    // sessions of 10 results in random order, clicks from the grade-level DBN above.
    let (queries, docs) = (50usize, 20usize);
    let shape = SyntheticSerps { queries, rare_queries: 0, rare_share: 0.0, docs_per_query: docs, serp_len: 10, sessions: 200_000, seed: 11 };
    let grade: Vec<i32> = (0..shape.pairs()).map(|p| draw_grade(5, p as u64, &[0.6, 0.85, 1.0])).collect();
    let truth = Dbn {
        attractiveness: grade.iter().map(|&g| A[g as usize]).collect(),
        satisfaction: grade.iter().map(|&g| S[g as usize]).collect(),
        gamma: GAMMA,
    };
    let log = shape.simulate(&truth);
    let mut vocab = Vocab::default();
    let mut qrels = Qrels::default();
    for q in 0..queries {
        let qi = vocab.intern_query(&format!("q{q}"));
        let mut judged = Vec::new();
        for d in 0..docs {
            let id = format!("d{q}_{d}");
            let di = vocab.intern_doc(&id);
            assert_eq!(vocab.intern_pair(qi, di) as usize, q * docs + d);
            judged.push((id, grade[q * docs + d]));
        }
        qrels.topics.push((format!("q{q}"), judged));
    }
    let cfg = ModelConfig::Dbn(DbnConfig { gamma: Gamma::Fitted, iterations: 200, tolerance: 1e-9 });
    let (by_grade, rep) = fit_by_grade(&cfg, &log, &vocab, &qrels).unwrap();
    assert_eq!(rep.unjudged, 0);
    assert_eq!(rep.judged, 200_000 * 10);
    assert_eq!(by_grade.rows.iter().map(|r| r.grade).collect::<Vec<_>>(), vec![0, 1, 2]);
    // Tolerances from the number of sessions. Attractiveness: the rank-1 impressions of grade g
    // alone estimate a_g as a binomial share (rank 1 is always examined), with standard error
    // sqrt(a (1 - a) / n1_g); the MLE on all impressions has at least that statistic's Fisher
    // information, so 4 such standard errors bound it. Satisfaction is latent (only a
    // session's last click leaves it unobserved); we bound its error by 4 binomial standard
    // errors over the grade's clicks that end a session, n_last_g (an approximation: the
    // clicks followed by another click are observed "not satisfied" and add information).
    let mut n1 = [0u64; 3];
    let mut n_last = [0u64; 3];
    for s in log.iter() {
        n1[grade[s.pairs[0] as usize] as usize] += 1;
        if let Some(l) = s.last_click() {
            n_last[grade[s.pairs[l] as usize] as usize] += 1;
        }
    }
    let mut tol = [(0.0, 0.0); 3];
    for g in 0..3 {
        let row = by_grade.row(g as i32).unwrap();
        let (a, s) = (row.get("attractiveness").unwrap(), row.get("satisfaction").unwrap());
        let ta = 4.0 * (A[g] * (1.0 - A[g]) / n1[g] as f64).sqrt();
        let ts = 4.0 * (S[g] * (1.0 - S[g]) / n_last[g] as f64).sqrt();
        tol[g] = (ta, ts);
        eprintln!("grade {g}: a {a:.4} (true {}, tol {ta:.4}), s {s:.4} (true {}, tol {ts:.4})", A[g], S[g]);
        assert!((a - A[g]).abs() <= ta, "grade {g}: attractiveness {a} vs {} (tolerance {ta})", A[g]);
        assert!((s - S[g]).abs() <= ts, "grade {g}: satisfaction {s} vs {} (tolerance {ts})", S[g]);
    }
    // The per-pair model file (documents of the training collection only) with its grades.
    let per_pair = cfg.fit(&mut &log).unwrap();
    let gamma_hat = per_pair.to_table().scalars.iter().find(|(n, _)| n == "gamma").unwrap().1;
    // Gamma is one parameter fitted from all 2,000,000 impressions; its error is of order
    // 1 / sqrt(2e6) ~ 0.001, and 0.01 leaves a wide margin while still catching a wrong gamma.
    let tol_gamma = 0.01;
    assert!((gamma_hat - GAMMA).abs() <= tol_gamma, "gamma {gamma_hat}");
    let src: Arc<dyn ClickSource> = Arc::new(FittedClicks::from_model(per_pair.as_ref(), vocab, "planted.json").with_grades(by_grade.clone()));

    // Target: 6 other topics with other documents, grade shares 0.3/0.3/0.4, 10 results each.
    let topics: Vec<WorldTopic> = (0..6)
        .map(|t| {
            let grades: Vec<i32> = (0..10).map(|d| draw_grade(9, t * 10 + d, &[0.3, 0.6, 1.0])).collect();
            WorldTopic {
                id: format!("target{t}"),
                doc_ids: (0..10).map(|d| format!("u{t}_{d}")).collect(),
                relevant: grades.iter().filter(|&&g| g > 0).count(),
                subtopics: vec![0; 10],
                categories: vec![Vec::new(); 10],
                grades,
            }
        })
        .collect();
    let serps = topics.iter().map(|t| Some(vec![QueryList::new(t, (0..10).collect())])).collect();
    let world = World {
        topics,
        systems: vec![WorldSystem { name: "s".into(), delays: Default::default(), serps }],
        categories: Vec::new(),
        page_size: 10,
        fold: usize::MAX,
        below_fold: 0.0,
    };
    let mut profile = UserProfile::named("portable");
    profile.click_model = Some(ClickModelSpec { file: "planted.json".into(), unseen: Unseen::Policy(UnseenPolicy::Auto) });
    let prepared = PreparedProfile::new(&world, &profile, 3, Some(&src)).unwrap();
    assert!(prepared.warnings.iter().any(|w| w.contains("fitted on the log's own relevance labels") && w.contains("100.0 % unseen")), "{:?}", prepared.warnings);
    let user = prepared.fixed.clone().unwrap();
    let tables = prepared.clicks.as_ref().unwrap();
    let m = 50_000u64;
    for (t, topic) in world.topics.iter().enumerate() {
        let stage = SystemOnTopic {
            topic,
            queries: world.systems[0].serps[t].as_deref().unwrap(),
            delays: &world.systems[0].delays,
            page_size: 10,
            fold: usize::MAX,
            below_fold: 0.0,
            sublists_from: crate::simulate::walk::first_sublist(world.systems[0].serps[t].as_deref().unwrap()),
        };
        let clicks = crate::user::ModelClicks { tables: &tables[t], grades: &user.grades };
        let mut count = [0u64; 10];
        let mut scratch = Scratch::default();
        let mut trace: Vec<Step> = Vec::new();
        for u in 0..m {
            trace.clear();
            walk(&stage, &user, &clicks, &mut FixedChoice(Vec::new()), crate::rng::derive_key(21, &[t as u64, u]), &mut scratch, &mut trace);
            for s in &trace {
                if let Step::Examine { rank, clicked: true, .. } = s {
                    count[*rank as usize - 1] += 1;
                }
            }
        }
        // Closed form with the known model, and with the fitted grade values and gamma.
        let g: Vec<usize> = topic.grades.iter().map(|&g| g as usize).collect();
        let truth = dbn_click_rates(&g.iter().map(|&g| A[g]).collect::<Vec<_>>(), &g.iter().map(|&g| S[g]).collect::<Vec<_>>(), GAMMA);
        let row = |g: usize, n: &str| by_grade.row(g as i32).unwrap().get(n).unwrap();
        let fitted = dbn_click_rates(
            &g.iter().map(|&g| row(g, "attractiveness")).collect::<Vec<_>>(),
            &g.iter().map(|&g| row(g, "satisfaction")).collect::<Vec<_>>(),
            gamma_hat,
        );
        // The fitted values are within the tolerances above, and P(C_r) is a product of factors
        // in [0, 1] (a_r, and gamma (1 - a_i s_i) for i < r), so it moves by at most the sum of
        // the factors' moves: ta_r + sum_{i<r} (tol_gamma + ta_i + ts_i).
        let mut fit_bound = 0.0;
        for r in 0..10 {
            let (ta, ts) = tol[g[r]];
            let bound = fit_bound + ta;
            fit_bound += tol_gamma + ta + ts;
            let rate = count[r] as f64 / m as f64;
            // Monte-Carlo error of the simulation: binomial over m walks.
            let mc = 4.0 * (fitted[r] * (1.0 - fitted[r]) / m as f64).sqrt();
            assert!((rate - fitted[r]).abs() <= mc, "topic {t} rank {}: simulated {rate} vs closed form {} with the fitted values (4 sd {mc})", r + 1, fitted[r]);
            assert!((fitted[r] - truth[r]).abs() <= bound, "topic {t} rank {}: fitted closed form {} vs known {} (bound {bound})", r + 1, fitted[r], truth[r]);
            assert!((rate - truth[r]).abs() <= mc + bound, "topic {t} rank {}: simulated {rate} vs known {}", r + 1, truth[r]);
        }
    }
}

#[test]
fn quantile_mapping_reaches_the_walk_and_the_warning_names_it() {
    // DBN with four pairs: attractiveness 0.1, 0.2, 0.3, 0.4, satisfaction 0.4, 0.3, 0.2, 0.1
    // (sorted independently), on a target of one topic with grades [1, 0, 1]: by the hand
    // derivation in `quantile_matching_by_hand`, grade 0 gets a 0.125 and s 0.125, grade 1 gets
    // a 0.3125 and s 0.3125.
    let mut vocab = Vocab::default();
    let q = vocab.intern_query("log-q");
    for d in 0..4 {
        let di = vocab.intern_doc(&format!("x{d}"));
        vocab.intern_pair(q, di);
    }
    let model = Dbn { attractiveness: vec![0.1, 0.2, 0.3, 0.4], satisfaction: vec![0.4, 0.3, 0.2, 0.1], gamma: 0.9 };
    let src: Arc<dyn ClickSource> = Arc::new(FittedClicks::from_model(&model, vocab, "log.json"));
    let world = crate::simulate::one_list_world(vec![1, 0, 1], 10);
    let mut profile = UserProfile::named("q");
    profile.click_model = Some(ClickModelSpec { file: "log.json".into(), unseen: Unseen::Policy(UnseenPolicy::Auto) });
    // Without a stated choice the run is refused, and the error lists the choices.
    let e = PreparedProfile::new(&world, &profile, 1, Some(&src)).unwrap_err().to_string();
    for choice in ["knows none", "\"quantile\"", "\"labels\"", "--qrels", "\"grade\"", "\"prior\""] {
        assert!(e.contains(choice), "{choice}: {e}");
    }
    // Labels are asked for but the file has none: a clear error.
    profile.click_model.as_mut().unwrap().unseen = Unseen::Policy(UnseenPolicy::Labels);
    let e = PreparedProfile::new(&world, &profile, 1, Some(&src)).unwrap_err().to_string();
    assert!(e.contains("--qrels") && e.contains("quantile"), "{e}");
    profile.click_model.as_mut().unwrap().unseen = Unseen::Policy(UnseenPolicy::Quantile);
    let p = PreparedProfile::new(&world, &profile, 1, Some(&src)).unwrap();
    let t = &p.clicks.as_ref().unwrap()[0];
    for (x, want) in t.attractiveness.iter().zip([0.3125, 0.125, 0.3125]) {
        assert!((x - want).abs() < 1e-12, "{:?}", t.attractiveness);
    }
    for (x, want) in t.satisfaction.iter().zip([0.3125, 0.125, 0.3125]) {
        assert!((x - want).abs() < 1e-12, "{:?}", t.satisfaction);
    }
    assert!(p.warnings.iter().any(|w| w.contains("quantile matching") && w.contains("100.0 % unseen")), "{:?}", p.warnings);
}

#[test]
fn a_partly_covered_collection_keeps_known_pairs_and_maps_the_rest() {
    // The model knows d0 of topic `t` (a = s = 0.5) and four pairs of another query (a 0.1-0.4,
    // s 0.4-0.1). Quantile matching of the five values 0.1, ..., 0.5 onto the target grades
    // [1, 0, 1] (by hand, as in `quantile_matching_by_hand`): grade 0 takes u in (0, 1/3]:
    // (0.1 x 0.2 + 0.2 x (1/3 - 0.2)) x 3 = 0.14; grade 1: (0.3 - 0.14 / 3) x 1.5 = 0.38 (the
    // mean 0.3 is kept). d0 keeps its own 0.5; d1 (grade 0) gets 0.14, d2 (grade 1) 0.38.
    let mut vocab = Vocab::default();
    let q = vocab.intern_query("log-q");
    for d in 0..4 {
        let di = vocab.intern_doc(&format!("x{d}"));
        vocab.intern_pair(q, di);
    }
    let (t, d0) = (vocab.intern_query("t"), vocab.intern_doc("d0"));
    vocab.intern_pair(t, d0);
    let model = Dbn { attractiveness: vec![0.1, 0.2, 0.3, 0.4, 0.5], satisfaction: vec![0.4, 0.3, 0.2, 0.1, 0.5], gamma: 0.9 };
    let src: Arc<dyn ClickSource> = Arc::new(FittedClicks::from_model(&model, vocab, "log.json"));
    let world = crate::simulate::one_list_world(vec![1, 0, 1], 10);
    let mut profile = UserProfile::named("q");
    profile.click_model = Some(ClickModelSpec { file: "log.json".into(), unseen: Unseen::Policy(UnseenPolicy::Quantile) });
    let p = PreparedProfile::new(&world, &profile, 1, Some(&src)).unwrap();
    let t = &p.clicks.as_ref().unwrap()[0];
    for (x, want) in t.attractiveness.iter().zip([0.5, 0.14, 0.38]) {
        assert!((x - want).abs() < 1e-12, "{:?}", t.attractiveness);
    }
    for (x, want) in t.satisfaction.iter().zip([0.5, 0.14, 0.38]) {
        assert!((x - want).abs() < 1e-12, "{:?}", t.satisfaction);
    }
    assert!(p.warnings.iter().any(|w| w.contains("knows 1 of the 3 results (66.7 % unseen)") && w.contains("quantile matching")), "{:?}", p.warnings);
    assert!(p.warnings.iter().any(|w| w.contains("2 of the 3 results of system `s` (66.7 %)")), "{:?}", p.warnings);
    // The default (`auto`) with a partly covering model and no labels keeps today's behaviour:
    // the profile's grade tables (NaN in the tables) for the unknown documents.
    profile.click_model.as_mut().unwrap().unseen = Unseen::default();
    let p = PreparedProfile::new(&world, &profile, 1, Some(&src)).unwrap();
    let t = &p.clicks.as_ref().unwrap()[0];
    assert_eq!(t.attractiveness[0], 0.5);
    assert!(t.attractiveness[1].is_nan() && t.attractiveness[2].is_nan());
}
