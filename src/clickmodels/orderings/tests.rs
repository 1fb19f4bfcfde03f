use super::*;
use crate::clickmodels::Dbn;
use crate::logs::{Format, LogData};

/// A log with planted ordering effects: 6 queries of 8 documents; each query is shown in 12
/// orderings (6 of its documents in a seeded random order), 150 sessions each; clicks come
/// from a known DBN (gamma 0.85) with per-document attractiveness and satisfaction, so both
/// the position (cascade) and the documents shape the click rates.
fn planted_log(seed: u64) -> ClickLog {
    let (queries, docs, shown, orderings, sessions) = (6u32, 8u32, 6usize, 12usize, 150usize);
    let mut rng = crate::rng::stream(seed, &[0]);
    let n = (queries * docs) as usize;
    let attractiveness: Vec<f64> = (0..n).map(|_| rng.random_range(0.05..0.9)).collect();
    let satisfaction: Vec<f64> = (0..n).map(|_| rng.random_range(0.1..0.8)).collect();
    let truth = Dbn { attractiveness, satisfaction, gamma: 0.85 };
    let mut log = ClickLog::new();
    let mut clicks = Vec::new();
    for q in 0..queries {
        for o in 0..orderings {
            let mut ds: Vec<u32> = (0..docs).map(|d| q * docs + d).collect();
            let mut r = crate::rng::stream(seed, &[1, u64::from(q), o as u64]);
            for j in (1..ds.len()).rev() {
                let k = r.random_range(0..=j);
                ds.swap(j, k);
            }
            let pairs = &ds[..shown];
            for s in 0..sessions {
                let mut r = crate::rng::stream(seed, &[2, u64::from(q), o as u64, s as u64]);
                truth.simulate(pairs, &mut r, &mut clicks);
                log.push(q, pairs, &clicks);
            }
        }
    }
    log
}

fn row<'a>(v: &'a OrderingsValidation, model: &str, measure: &str) -> &'a ErrorRow {
    v.errors.iter().find(|r| r.model == model && r.measure == measure).expect("row")
}

#[test]
fn the_generating_model_beats_both_baselines_on_held_out_orderings() {
    let log = planted_log(7);
    let cfg =
        OrderingsConfig { models: vec![ModelKind::Dbn, ModelKind::Rctr, ModelKind::Dctr], folds: 4, replicates: 200, bootstrap: 200, ..Default::default() };
    let v = validate_orderings(&log, &cfg).unwrap();
    assert_eq!(v.orderings, 72);
    assert_eq!(v.held_out_orderings, 72);
    let dbn = row(&v, "dbn", "ctr_mae");
    let rank = row(&v, "rctr", "ctr_mae");
    let doc = row(&v, "dctr", "ctr_mae");
    // The planted truth: clicks depend on position and document, so the DBN must be better
    // than either baseline, with the paired intervals of the differences below zero.
    assert!(dbn.error < rank.error && dbn.error < doc.error, "dbn {} rctr {} dctr {}", dbn.error, rank.error, doc.error);
    assert!(dbn.minus_rank_only_upper < 0.0 && dbn.minus_document_only_upper < 0.0, "{dbn:?}");
    // Baselines compare to themselves with zero difference; roles are labelled.
    assert_eq!(rank.minus_rank_only, 0.0);
    assert_eq!(rank.role, "baseline");
    assert_eq!(dbn.role, "model");
    // Sampling noise alone: 150 sessions per ordering give a per-rank standard error of about
    // sqrt(0.2 * 0.8 / 150) = 0.033, so even the true model's mean absolute error is about
    // 0.8 * 0.033 = 0.026; the fitted DBN must be within a factor 2 of that.
    assert!(dbn.error < 0.055, "{}", dbn.error);
    // The answer names the winner.
    // The only model is not called best (no other model to compare with); the baselines are
    // named as such.
    assert!(v.answer.iter().any(|a| a.contains(": model dbn 0.0")), "{:?}", v.answer);
    assert!(!v.answer.iter().any(|a| a.contains("best model")), "{:?}", v.answer);
    // rctr ties every pair and is never ranked.
    assert!(v.answer.iter().any(|a| a.starts_with("rctr predicts the same value")), "{:?}", v.answer);
    assert!(v.pairs.iter().filter(|r| r.model == "rctr").all(|r| r.ties_every_pair && r.sign_accuracy == 0.5 && r.brier == 0.25));
    assert!(v.answer.iter().any(|a| a.contains("below both baselines' (interval of the paired difference below 0): dbn")), "{:?}", v.answer);
}

#[test]
fn folds_are_deterministic_balanced_and_thread_independent() {
    let log = planted_log(3);
    let mut a = group_orderings(&log);
    let mut b = a.clone();
    assign_folds(&mut a, 5, 11);
    assign_folds(&mut b, 5, 11);
    assert_eq!(a, b);
    let mut c = group_orderings(&log);
    assign_folds(&mut c, 5, 12);
    assert_ne!(a.iter().map(|o| o.fold).collect::<Vec<_>>(), c.iter().map(|o| o.fold).collect::<Vec<_>>());
    // 12 orderings per query over 5 folds: 3, 3, 2, 2, 2.
    for q in 0..6 {
        let mut sizes = [0usize; 5];
        for o in a.iter().filter(|o| o.query == q) {
            sizes[o.fold.unwrap()] += 1;
        }
        sizes.sort_unstable();
        assert_eq!(sizes, [2, 2, 2, 3, 3]);
    }
    // A query with a single ordering is never held out.
    let data = LogData::parse("q\ta,b : a; q\ta,b :; r\tc,d : d\n", Format::Yandex, "x", false).unwrap();
    let mut o = group_orderings(&data.log);
    assign_folds(&mut o, 2, 1);
    assert_eq!(o.len(), 2);
    assert_eq!(o[0].sessions, vec![0, 1]);
    assert!(o.iter().all(|o| o.fold.is_none()));
    assert!(validate_orderings(&data.log, &OrderingsConfig::default()).is_err());
    // Same seed, same numbers whatever the thread count.
    let cfg = OrderingsConfig { models: vec![ModelKind::Sdbn, ModelKind::Rctr], replicates: 50, bootstrap: 50, ..Default::default() };
    let run = |t: usize| rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap().install(|| validate_orderings(&log, &cfg).unwrap());
    // (NaN != NaN: compare the serialised reports, which print NaN as null.)
    let json = |v: OrderingsValidation| serde_json::to_string(&v).unwrap();
    assert_eq!(json(run(1)), json(run(3)));
}

#[test]
fn pair_sign_accuracy_by_hand() {
    // Query q in four orderings (ranks left to right, 1 = clicked):
    //   O1 [a,b]: 10, 10, 00, 01    O2 [b,c]: 00, 01, 00
    //   O3 [a,c]: 11, 01            O4 [c,b]: 10, 10, 01, 11
    // Two folds with O1, O2 in one and O3, O4 in the other (a seed that does so is picked
    // below): O1 and O2 are predicted from O3+O4, O3 and O4 from O1+O2.
    // The document-only baseline (`DocumentOrRank`): each pair's plain click rate, clicks /
    // impressions (every pair here was shown in training, so no rank fallback):
    //   from O3+O4: a 1/2, b 2/4 = 1/2, c (2 + 3)/(2 + 4) = 5/6
    //   from O1+O2: a 2/4 = 1/2, b (1 + 0)/(4 + 3) = 1/7, c 1/3
    // Clicks in the top 3 (= all clicks), abandonment, first-click RR:
    //   O1 obs 3/4, 1/4, 5/8     pred 1/2+1/2 = 1, (1/2)(1/2) = 1/4, 1/2+(1/2)(1/2)/2 = 5/8
    //   O2 obs 1/3, 2/3, 1/6     pred 1/2+5/6 = 4/3, (1/2)(1/6) = 1/12, 1/2+(1/2)(5/6)/2 = 17/24
    //   O3 obs 3/2, 0, 3/4       pred 1/2+1/3 = 5/6, (1/2)(2/3) = 1/3, 1/2+(1/2)(1/3)/2 = 7/12
    //   O4 obs 5/4, 0, 7/8       pred 1/3+1/7 = 10/21, (2/3)(6/7) = 4/7, 1/3+(2/3)(1/7)/2 = 8/21
    // Signs of the pairs O1-O2 and O3-O4, observed / predicted:
    //   top clicks:   + / -, + / +   -> 1 of 2 right
    //   abandonment:  - / +, tie     -> 0 of 1 (the observed tie is left out)
    //   first-click RR: + / -, - / + -> 0 of 2
    let text = "q\ta,b : a; q\ta,b : a; q\ta,b :; q\ta,b : b; q\tb,c :; q\tb,c : c; q\tb,c :; \
                q\ta,c : a , c; q\ta,c : c; q\tc,b : c; q\tc,b : c; q\tc,b : b; q\tc,b : c , b\n";
    let data = LogData::parse(text, Format::Yandex, "hand", false).unwrap();
    let seed = (1..100)
        .find(|&s| {
            let mut o = group_orderings(&data.log);
            assign_folds(&mut o, 2, s);
            o[0].fold == o[1].fold
        })
        .unwrap();
    let cfg = OrderingsConfig { models: vec![ModelKind::Dctr], folds: 2, seed, min_pair_sessions: 1, replicates: 10, bootstrap: 10, ..Default::default() };
    let v = validate_orderings(&data.log, &cfg).unwrap();
    assert_eq!((v.orderings, v.held_out_orderings, v.ordering_pairs), (4, 4, 2));
    let acc: Vec<(&str, usize, f64)> = v.pairs.iter().map(|r| (r.metric, r.pairs, r.sign_accuracy)).collect();
    assert_eq!(acc, vec![("top_clicks", 2, 0.5), ("abandonment", 1, 0.0), ("first_click_rr", 2, 0.0)]);
    // Per-rank CTR error, session-weighted (4, 3, 2, 4 sessions):
    //   O1 (|1/2-2/4| + |1/2-1/4|)/2, O2 (|1/2-0| + |5/6-1/3|)/2,
    //   O3 (|1/2-1/2| + |1/3-1|)/2,   O4 (|1/3-3/4| + |1/7-2/4|)/2
    let e = [1.0 / 8.0, 0.5, 1.0 / 3.0, (5.0 / 12.0 + 5.0 / 14.0) / 2.0];
    let want = (4.0 * e[0] + 3.0 * e[1] + 2.0 * e[2] + 4.0 * e[3]) / 13.0;
    let got = row(&v, "dctr", "ctr_mae").error;
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    // Abandonment error: (4 |1/4-1/4| + 3 |1/12-2/3| + 2 |1/3-0| + 4 |4/7-0|) / 13.
    let want = (3.0 * (2.0 / 3.0 - 1.0 / 12.0) + 2.0 / 3.0 + 4.0 * 4.0 / 7.0) / 13.0;
    let got = row(&v, "dctr", "abandonment").error;
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    assert_eq!(v.unseen_impression_share, 0.0);
}

#[test]
fn unseen_pairs_are_counted() {
    // O3 [a,c] is predicted from O1 [a,b] and O2 [b,a] (three orderings, three folds): c is
    // unseen in its 2 sessions; impressions 4*2 + 3*2 + 2*2 = 18.
    let text = "q\ta,b : a; q\ta,b : a; q\ta,b :; q\ta,b : b; q\tb,a :; q\tb,a :; q\tb,a : a; q\ta,c : a , c; q\ta,c : a\n";
    let data = LogData::parse(text, Format::Yandex, "hand", false).unwrap();
    let cfg = OrderingsConfig { models: vec![ModelKind::Dctr], folds: 3, min_pair_sessions: 1, replicates: 10, bootstrap: 10, ..Default::default() };
    let v = validate_orderings(&data.log, &cfg).unwrap();
    assert!((v.unseen_impression_share - 2.0 / 18.0).abs() < 1e-12);
    // One ordering per fold: no pair shares a fold.
    assert_eq!(v.ordering_pairs, 0);
}
