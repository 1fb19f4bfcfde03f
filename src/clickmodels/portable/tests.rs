use super::*;
use crate::clickmodels::io::ParamTable;
use crate::clickmodels::synthetic::SyntheticSerps;
use crate::clickmodels::user::FittedClicks;
use crate::clickmodels::{Dbn, DbnConfig, Gamma};
use crate::simulate::walk::FixedChoice;
use crate::simulate::{walk, PreparedProfile, QueryList, Scratch, Step, SystemOnTopic, World, WorldSystem, WorldTopic};
use crate::user::{ClickModelSpec, ClickSource, Unseen, UnseenPolicy, UserProfile};
use rand::Rng;
use serde_json::json;
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
            GradeRow {
                grade: 0,
                impressions: 7,
                values: vec![("attractiveness".into(), 0.1), ("satisfaction".into(), 0.2)],
                intervals: Vec::new(),
                interval_resamples: 0,
            },
            GradeRow {
                grade: 2,
                impressions: 3,
                values: vec![("attractiveness".into(), 0.6), ("satisfaction".into(), 0.5)],
                intervals: Vec::new(),
                interval_resamples: 0,
            },
        ],
        fit: None,
        labels: None,
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
    let truth =
        Dbn { attractiveness: grade.iter().map(|&g| A[g as usize]).collect(), satisfaction: grade.iter().map(|&g| S[g as usize]).collect(), gamma: GAMMA };
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
    // The users on the target run with the tied fit's gamma (the grade values' own), which
    // the same bound holds for.
    let gamma_tied = gamma_of(&by_grade.fit.as_ref().unwrap().table);
    assert!((gamma_tied - GAMMA).abs() <= tol_gamma, "tied gamma {gamma_tied}");
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
    assert!(
        prepared.warnings.iter().any(|w| w.contains("fitted on the log's own relevance labels") && w.contains("100.0 % unseen")),
        "{:?}",
        prepared.warnings
    );
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
            gamma_tied,
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
            assert!(
                (rate - fitted[r]).abs() <= mc,
                "topic {t} rank {}: simulated {rate} vs closed form {} with the fitted values (4 sd {mc})",
                r + 1,
                fitted[r]
            );
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

/// A seeded log of `queries` queries x 10 documents (grades 0/1/2 with shares 0.6/0.25/0.15),
/// `per_query` sessions per query on average, clicks from a DBN whose attractiveness is
/// `a(grade, pair)`, satisfaction `S[grade]`, gamma `GAMMA`; with its vocabulary (query `q{i}`,
/// document `d{i}_{j}`) and qrels.
fn seeded_log(queries: usize, per_query: usize, seed: u64, a: impl Fn(usize, usize) -> f64) -> (ClickLog, Vocab, Qrels) {
    let docs = 10usize;
    let shape = SyntheticSerps { queries, rare_queries: 0, rare_share: 0.0, docs_per_query: docs, serp_len: 10, sessions: queries * per_query, seed };
    let grade: Vec<i32> = (0..shape.pairs()).map(|p| draw_grade(seed + 100, p as u64, &[0.6, 0.85, 1.0])).collect();
    let truth = Dbn {
        attractiveness: grade.iter().enumerate().map(|(p, &g)| a(g as usize, p)).collect(),
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
    (log, vocab, qrels)
}

fn gamma_of(t: &ParamTable) -> f64 {
    t.scalars.iter().find(|(n, _)| n == "gamma").expect("a dbn has gamma").1
}

/// A world of `topics` (id, documents, grades), one system showing every list in order.
fn world_of(topics: &[(&str, Vec<String>, Vec<i32>)]) -> World {
    let topics: Vec<WorldTopic> = topics
        .iter()
        .map(|(id, docs, grades)| WorldTopic {
            id: id.to_string(),
            doc_ids: docs.clone(),
            relevant: grades.iter().filter(|&&g| g > 0).count(),
            subtopics: vec![0; docs.len()],
            categories: vec![Vec::new(); docs.len()],
            grades: grades.clone(),
        })
        .collect();
    let serps = topics.iter().map(|t| Some(vec![QueryList::new(t, (0..t.doc_ids.len() as u32).collect())])).collect();
    World {
        topics,
        systems: vec![WorldSystem { name: "s".into(), delays: Default::default(), serps }],
        categories: Vec::new(),
        page_size: 10,
        fold: usize::MAX,
        below_fold: 0.0,
    }
}

#[test]
fn portable_users_run_with_the_gamma_their_grades_were_fitted_with() {
    // Per-pair attractiveness varies within a grade (0.05 or 0.85 for grade 0 and 1 pairs, by
    // pair parity), so the grade-level model is misspecified and its gamma differs from the
    // per-pair fit's: the model file must pair the grade values with the gamma they were
    // fitted with.
    let (log, vocab, qrels) = seeded_log(30, 400, 7, |g, p| {
        if g == 2 {
            A[2]
        } else if p % 2 == 0 {
            0.05
        } else {
            0.85
        }
    });
    let cfg = ModelConfig::Dbn(DbnConfig { gamma: Gamma::Fitted, iterations: 200, tolerance: 1e-9 });
    let per_pair = cfg.fit(&mut &log).unwrap();
    let gamma_pair = gamma_of(&per_pair.to_table());
    let (by_grade, _) = fit_by_grade(&cfg, &log, &vocab, &qrels).unwrap();
    // Independent source: the tied log built here, by hand (every document replaced by the
    // index of its grade among 0, 1, 2; one query), fitted directly by the DBN's own EM.
    let grade_of: HashMap<(String, String), i32> =
        qrels.topics.iter().flat_map(|(t, docs)| docs.iter().map(move |(d, g)| ((t.clone(), d.clone()), *g))).collect();
    let mut tied = ClickLog::new();
    for s in log.iter() {
        let pairs: Vec<u32> = s
            .pairs
            .iter()
            .map(|&p| {
                let (q, d) = vocab.pairs[p as usize];
                grade_of[&(vocab.queries[q as usize].clone(), vocab.docs[d as usize].clone())] as u32
            })
            .collect();
        tied.push(0, &pairs, s.clicks);
    }
    let direct = DbnConfig { gamma: Gamma::Fitted, iterations: 200, tolerance: 1e-9 }.fit(&mut &tied).unwrap();
    eprintln!("gamma: per-pair {gamma_pair:.5}, tied (direct) {:.5}", direct.gamma);
    // They differ by about 0.005 here (0.8654 and 0.8605), 10^9 times the 1e-12 at which the
    // user's gamma is compared below, so a user running with the per-pair gamma fails.
    assert!((gamma_pair - direct.gamma).abs() > 0.003, "the log must tell the two gammas apart: {gamma_pair} vs {}", direct.gamma);
    assert!((gamma_of(&by_grade.fit.as_ref().unwrap().table) - direct.gamma).abs() < 1e-12);
    for (g, row) in by_grade.rows.iter().enumerate() {
        assert!((row.get("attractiveness").unwrap() - direct.attractiveness[g]).abs() < 1e-12);
    }

    // Through the model file, as a scenario loads it.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.json");
    crate::clickmodels::io::save_with_grades(&path, per_pair.as_ref(), &vocab, Some(&by_grade)).unwrap();
    let src: Arc<dyn ClickSource> = Arc::new(FittedClicks::load(&path, "m.json").unwrap());
    // Topic `target` is unknown to the model (every value from the grades); topic `q0` is the
    // log's, with one known document and one unknown (a mix).
    let world = world_of(&[("target", vec!["u0".into(), "u1".into(), "u2".into()], vec![2, 0, 1]), ("q0", vec!["d0_0".into(), "u9".into()], vec![0, 1])]);
    let mut profile = UserProfile::named("portable");
    profile.click_model = Some(ClickModelSpec { file: "m.json".into(), unseen: Unseen::Policy(UnseenPolicy::Auto) });
    let prepared = PreparedProfile::new(&world, &profile, 3, Some(&src)).unwrap();
    let tables = prepared.clicks.as_ref().unwrap();
    // JSON keeps a float to its shortest round-trip text; 1e-12 allows one ulp of parsing.
    let d = &tables[0].dynamics;
    assert!(
        (d.after_skip - direct.gamma).abs() < 1e-12 && (d.after_click - direct.gamma).abs() < 1e-12,
        "portable user runs with {d:?}, the tied fit's gamma is {}",
        direct.gamma
    );
    // The mixed topic keeps the per-pair fit's gamma, and a warning says so.
    assert!((tables[1].dynamics.after_skip - gamma_pair).abs() < 1e-12, "{:?}", tables[1].dynamics);
    assert!(prepared.warnings.iter().any(|w| w.contains("1 topic(s) mix")), "{:?}", prepared.warnings);
    assert!(prepared.warnings.iter().any(|w| w.contains(&format!("gamma {:.4}", direct.gamma))), "{:?}", prepared.warnings);

    // A file written before `grade_fit` existed still loads; its users run with the per-pair
    // gamma, and the warning says that this is not the gamma of the grade values.
    let old = ByGrade { fit: None, ..by_grade.clone() };
    crate::clickmodels::io::save_with_grades(&path, per_pair.as_ref(), &vocab, Some(&old)).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("grade_fit"));
    let src: Arc<dyn ClickSource> = Arc::new(FittedClicks::load(&path, "old.json").unwrap());
    let prepared = PreparedProfile::new(&world, &profile, 3, Some(&src)).unwrap();
    assert!((prepared.clicks.as_ref().unwrap()[0].dynamics.after_skip - gamma_pair).abs() < 1e-12);
    assert!(prepared.warnings.iter().any(|w| w.contains("no `grade_fit`")), "{:?}", prepared.warnings);
}

/// Hand-written log of three queries for the exact bootstrap: per query, sessions of two
/// documents (grade 1 then grade 0) and, for `qc`, a third of grade 2, with the clicks below.
/// Grade-1 (impressions, clicks) per query: qa (4, 3), qb (2, 0), qc (6, 4); grade 0: qa
/// (4, 1), qb (2, 0), qc (6, 2); grade 2: qc (6, 5) only.
fn three_query_log() -> (ClickLog, Vocab, Qrels) {
    let mut vocab = Vocab::default();
    let mut log = ClickLog::new();
    let mut qrels = Qrels::default();
    // (query, [(doc, grade)], clicks per session)
    let spec: [(&str, Vec<(&str, i32)>, Vec<Vec<bool>>); 3] = [
        ("qa", vec![("a1", 1), ("b1", 0)], vec![vec![true, false], vec![true, true], vec![true, false], vec![false, false]]),
        ("qb", vec![("a2", 1), ("b2", 0)], vec![vec![false, false], vec![false, false]]),
        (
            "qc",
            vec![("a3", 1), ("b3", 0), ("c3", 2)],
            vec![
                vec![true, true, true],
                vec![true, false, true],
                vec![true, false, true],
                vec![true, true, true],
                vec![false, false, true],
                vec![false, false, false],
            ],
        ),
    ];
    for (q, docs, sessions) in &spec {
        let qi = vocab.intern_query(q);
        let pairs: Vec<u32> = docs
            .iter()
            .map(|(d, _)| {
                let di = vocab.intern_doc(d);
                vocab.intern_pair(qi, di)
            })
            .collect();
        for c in sessions {
            log.push(qi, &pairs, c);
        }
        qrels.topics.push((q.to_string(), docs.iter().map(|(d, g)| (d.to_string(), *g)).collect()));
    }
    (log, vocab, qrels)
}

#[test]
fn query_bootstrap_matches_the_exact_enumeration_of_three_queries() {
    // Independent source: with 3 queries a bootstrap resample is one of 27 equally likely
    // ordered triples of queries. DCTR's counting fit gives a grade (1 + clicks) / (2 +
    // impressions) over the sessions drawn (Beta(1, 1) posterior mean, docs/clickmodels.md),
    // so every resample's value is enumerated here from the per-query counts of
    // `three_query_log`, without the library's resampling.
    let (log, vocab, qrels) = three_query_log();
    let cfg = ModelConfig::Ctr(crate::clickmodels::CtrKind::Document);
    let b = 4000usize;
    let opts = ByGradeOptions { resamples: b, seed: 5, ..Default::default() };
    let (grades, reps) = bootstrap_replicates(&cfg, &log, &vocab, &qrels, &opts).unwrap();
    assert_eq!(grades, vec![0, 1, 2]);
    assert_eq!(reps.len(), b);
    // (impressions, clicks) per query qa, qb, qc, by grade 0, 1, 2.
    let counts: [[(f64, f64); 3]; 3] = [[(4.0, 1.0), (2.0, 0.0), (6.0, 2.0)], [(4.0, 3.0), (2.0, 0.0), (6.0, 4.0)], [(0.0, 0.0), (0.0, 0.0), (6.0, 5.0)]];
    for g in 0..3 {
        // The exact distribution over the 27 triples (only those that show the grade).
        let mut exact = Vec::new();
        for i in 0..3 {
            for j in 0..3 {
                for k in 0..3 {
                    let (n, c) = [i, j, k].iter().fold((0.0, 0.0), |acc, &q| (acc.0 + counts[g][q].0, acc.1 + counts[g][q].1));
                    if n > 0.0 {
                        exact.push((1.0 + c) / (2.0 + n));
                    }
                }
            }
        }
        let m = exact.len() as f64;
        let mean = exact.iter().sum::<f64>() / m;
        let var = exact.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / m;
        let mu4 = exact.iter().map(|x| (x - mean).powi(4)).sum::<f64>() / m;
        let boot: Vec<f64> = reps.iter().map(|r| r.values[g][0]).filter(|x| x.is_finite()).collect();
        let n = boot.len() as f64;
        // Share of resamples that show the grade: 27/27 for grades 0 and 1; grade 2 needs qc
        // among the three draws, 1 - (2/3)^3 = 19/27.
        let p = m / 27.0;
        assert!((n / b as f64 - p).abs() <= 4.0 * (p * (1.0 - p) / b as f64).sqrt() + 1e-12, "grade {g}: shown in {n} of {b}, expected share {p}");
        let bmean = boot.iter().sum::<f64>() / n;
        let bvar = boot.iter().map(|x| (x - bmean).powi(2)).sum::<f64>() / n;
        // Monte-Carlo error: 4 standard errors of a mean (sd / sqrt(n)) and of a variance
        // (sqrt((mu4 - var^2) / n)).
        eprintln!("grade {g}: bootstrap mean {bmean:.5} sd {:.5}; exact mean {mean:.5} sd {:.5}", bvar.sqrt(), var.sqrt());
        assert!((bmean - mean).abs() <= 4.0 * (var / n).sqrt(), "grade {g}: mean {bmean} vs exact {mean}");
        assert!((bvar - var).abs() <= 4.0 * ((mu4 - var * var) / n).sqrt(), "grade {g}: variance {bvar} vs exact {var}");
    }
    // The interval: each extreme triple (qb qb qb, qa qa qa, ...) has probability 1/27 > 2.5 %,
    // so the 95 % percentile interval is the smallest and largest of the 27 values. Grade 1:
    // qb x 3 gives (1 + 0) / (2 + 6) = 0.125, qa x 3 gives (1 + 9) / (2 + 12) = 10/14. Grade 2
    // (qc once, twice or thrice): (1 + 5m) / (2 + 6m) for m = 1, 2, 3: 6/8, 11/14, 16/20.
    let (g, _) = fit_by_grade_with(&cfg, &log, &vocab, &qrels, &opts).unwrap();
    let close = |x: (f64, f64), want: (f64, f64)| (x.0 - want.0).abs() < 1e-12 && (x.1 - want.1).abs() < 1e-12;
    let i1 = g.row(1).unwrap().interval("ctr").unwrap();
    assert!(close(i1, (0.125, 10.0 / 14.0)), "{i1:?}");
    let i2 = g.row(2).unwrap().interval("ctr").unwrap();
    assert!(close(i2, (6.0 / 8.0, 16.0 / 20.0)), "{i2:?}");
    // The point values: the whole log once, (1 + 7) / (2 + 12) for grade 1.
    assert!((g.row(1).unwrap().get("ctr").unwrap() - 8.0 / 14.0).abs() < 1e-12);
    let shown = g.row(2).unwrap().interval_resamples as f64 / b as f64;
    assert!((shown - 19.0 / 27.0).abs() < 0.03, "{shown}");
    assert_eq!(g.row(0).unwrap().interval_resamples, b as u64);
    let fit = g.fit.as_ref().unwrap().interval.as_ref().unwrap();
    assert_eq!((fit.level, fit.resamples, fit.seed), (0.95, b as u64, 5));
}

#[test]
fn grade_intervals_contain_the_point_and_narrow_with_more_queries() {
    // Two logs of the planted grade-level DBN with 60 sessions per query: 10 and 80 queries.
    // The interval over queries shrinks about as 1 / sqrt(queries) (by sqrt(8) = 2.8 here); we
    // ask for a factor of 1.5 at least, far inside that and far outside Monte-Carlo noise.
    let cfg = ModelConfig::Dbn(DbnConfig { gamma: Gamma::Fitted, iterations: 100, tolerance: 1e-7 });
    let opts = ByGradeOptions { resamples: DEFAULT_GRADE_BOOTSTRAP, seed: 1, ..Default::default() };
    let width = |queries: usize| {
        let (log, vocab, qrels) = seeded_log(queries, 60, 3, |g, _| A[g]);
        let (g, _) = fit_by_grade_with(&cfg, &log, &vocab, &qrels, &opts).unwrap();
        let mut w = Vec::new();
        for r in &g.rows {
            assert_eq!(r.intervals.len(), 2);
            for (n, x) in &r.values {
                let (lo, hi) = r.interval(n).unwrap();
                assert!(lo <= *x && *x <= hi, "{queries} queries, grade {} {n}: {x} outside [{lo}, {hi}]", r.grade);
                w.push(hi - lo);
            }
        }
        let f = g.fit.as_ref().unwrap();
        let i = f.interval.as_ref().unwrap();
        let (lo, hi) = (gamma_of(i.lower.as_ref().unwrap()), gamma_of(i.upper.as_ref().unwrap()));
        let gamma = gamma_of(&f.table);
        assert!(lo <= gamma && gamma <= hi, "{queries} queries: gamma {gamma} outside [{lo}, {hi}]");
        w.push(hi - lo);
        w
    };
    let (few, many) = (width(10), width(80));
    for (a, b) in few.iter().zip(&many) {
        assert!(*b * 1.5 < *a, "widths with 10 queries {few:?}, with 80 {many:?}");
    }
}

#[test]
fn grade_bootstrap_is_the_same_whatever_the_thread_count() {
    // 5,000 sessions: every refit's E-step splits into parts too (4,096 sessions at least).
    let (log, vocab, qrels) = seeded_log(10, 500, 4, |g, _| A[g]);
    let cfg = ModelConfig::Dbn(DbnConfig { gamma: Gamma::Fitted, iterations: 50, tolerance: 1e-6 });
    let per_pair = cfg.fit(&mut &log).unwrap();
    let opts = ByGradeOptions { resamples: 40, seed: 9, ..Default::default() };
    let text = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let (g, _) = pool.install(|| fit_by_grade_with(&cfg, &log, &vocab, &qrels, &opts)).unwrap();
        crate::clickmodels::io::full_text(per_pair.as_ref(), &vocab, None, Some(&g)).unwrap()
    };
    let one = text(1);
    assert!(one.contains("attractiveness_lower") && one.contains("\"interval_over\":\"queries\""), "{one}");
    assert_eq!(one, text(2));
    assert_eq!(one, text(3));
}

#[test]
fn model_files_with_intervals_round_trip_and_bad_intervals_are_errors() {
    let (log, vocab, qrels) = three_query_log();
    let cfg = ModelConfig::Dbn(DbnConfig { gamma: Gamma::Fitted, iterations: 20, tolerance: 0.0 });
    let model = cfg.fit(&mut &log).unwrap();
    let (g, _) = fit_by_grade_with(&cfg, &log, &vocab, &qrels, &ByGradeOptions { resamples: 30, seed: 2, ..Default::default() }).unwrap();
    let text = crate::clickmodels::io::full_text(model.as_ref(), &vocab, None, Some(&g)).unwrap();
    let (_, _, back) = crate::clickmodels::io::from_json_str_with_grades(&text, "m.json").unwrap();
    let back = back.unwrap();
    assert_eq!(back.rows.len(), 3);
    for (a, b) in back.rows.iter().zip(&g.rows) {
        assert_eq!((a.grade, a.impressions, a.interval_resamples), (b.grade, b.impressions, b.interval_resamples));
        for ((n, x), (m, y)) in a.values.iter().zip(&b.values) {
            assert!(n == m && (x - y).abs() < 1e-12);
            let (p, q) = (a.interval(n).unwrap(), b.interval(n).unwrap());
            assert!((p.0 - q.0).abs() < 1e-12 && (p.1 - q.1).abs() < 1e-12);
        }
    }
    let (fa, fb) = (back.fit.as_ref().unwrap(), g.fit.as_ref().unwrap());
    assert!((gamma_of(&fa.table) - gamma_of(&fb.table)).abs() < 1e-12);
    assert_eq!(fa.interval.as_ref().unwrap().resamples, 30);
    // Edits that must be refused, each with the key named.
    let v: Value = serde_json::from_str(&text).unwrap();
    let refused = |edit: &dyn Fn(&mut Value), key: &str| {
        let mut w = v.clone();
        edit(&mut w);
        let e = crate::clickmodels::io::from_json_str_with_grades(&w.to_string(), "m.json").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("m.json") && e.contains(key), "{key}: {e}");
    };
    refused(&|w| w["grades"][1]["attractiveness_lower"] = json!(0.99), "grades[1].attractiveness_lower");
    refused(&|w| w["grades"][1]["attractiveness_upper"] = json!(1.5), "grades[1].attractiveness_upper");
    refused(&|w| drop(w["grades"][1].as_object_mut().unwrap().remove("satisfaction_upper")), "grades[1].satisfaction_upper");
    refused(&|w| w["grades"][1]["relevance_lower"] = json!(0.1), "grades[1].relevance_lower");
    refused(&|w| w["grade_fit"]["scalars_lower"]["gamma"] = json!(1.0), "grade_fit.scalars_lower.gamma");
    refused(&|w| w["grade_fit"]["interval_over"] = json!("sessions"), "grade_fit.interval_over");
    refused(&|w| w["grade_fit"]["bootstrap_resamples"] = json!(1_000_001), "grade_fit.bootstrap_resamples");
    refused(&|w| w["grade_fit"]["extra"] = json!(1), "grade_fit.extra");
    refused(&|w| drop(w["grade_fit"]["scalars"].as_object_mut().unwrap().remove("gamma")), "scalars.gamma");
    refused(&|w| drop(w.as_object_mut().unwrap().remove("grade_fit")), "grades[0]");
    refused(&|w| drop(w.as_object_mut().unwrap().remove("grades")), "grade_fit");
    // Rows without intervals and no `grade_fit`: a file written before either existed.
    let mut w = v.clone();
    w.as_object_mut().unwrap().remove("grade_fit");
    for r in w["grades"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().retain(|k, _| !k.ends_with("_lower") && !k.ends_with("_upper") && k != "interval_resamples");
    }
    let (_, _, old) = crate::clickmodels::io::from_json_str_with_grades(&w.to_string(), "old.json").unwrap();
    let old = old.unwrap();
    assert!(old.fit.is_none() && old.rows.iter().all(|r| r.intervals.is_empty()));
}
