use super::*;
use crate::clickmodels::eval::evaluate;
use crate::clickmodels::{Dbn, ModelKind};

/// A generated log of `queries` queries of `docs` documents each; every query is shown in
/// `orderings` orderings (all its documents, in a seeded random order), `sessions` sessions
/// each, clicks from a DBN (gamma 0.8). `shift = false`: each document keeps one
/// attractiveness whatever the ordering (the users do not change when the ranking does);
/// `shift = true`: each (document, ordering) draws its own attractiveness, so users behave
/// differently on every ordering and a model fitted on other orderings cannot know how.
fn generated_log(seed: u64, queries: u32, docs: u32, orderings: usize, sessions: usize, shift: bool) -> ClickLog {
    let mut rng = crate::rng::stream(seed, &[0]);
    let n = (queries * docs) as usize;
    let attractiveness: Vec<f64> = (0..n).map(|_| rng.random_range(0.05..0.9)).collect();
    let satisfaction: Vec<f64> = (0..n).map(|_| rng.random_range(0.1..0.8)).collect();
    let stable = Dbn { attractiveness, satisfaction, gamma: 0.8 };
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
            let mut truth = stable.clone();
            if shift {
                for &p in &ds {
                    truth.attractiveness[p as usize] = r.random_range(0.05..0.9);
                }
            }
            for s in 0..sessions {
                let mut r = crate::rng::stream(seed, &[2, u64::from(q), o as u64, s as u64]);
                truth.simulate(&ds, &mut r, &mut clicks);
                log.push(q, &ds, &clicks);
            }
        }
    }
    log
}

fn cfg(models: Vec<ModelKind>, folds: usize, bootstrap: usize) -> OrderingsConfig {
    OrderingsConfig { models, folds, bootstrap, ..Default::default() }
}

#[test]
fn sums_reproduce_evaluate_on_the_same_sessions() {
    // Independent source: eval::evaluate, which `clicks eval` reports; the sums added over a
    // log's sessions, split arbitrarily by query and merged, must give its numbers.
    let log = generated_log(5, 6, 4, 3, 30, false);
    // Lists of different lengths, so the "longest list" cut of the perplexity is exercised.
    let mut mixed = ClickLog::new();
    for i in 0..log.len() {
        let s = log.session(i);
        let l = 1 + i % s.pairs.len();
        mixed.push(s.query, &s.pairs[..l], &s.clicks[..l]);
    }
    let model = ModelConfig::new(ModelKind::Dbn, Default::default()).fit(&mut &mixed).unwrap();
    let want = evaluate(model.as_ref(), &mixed).unwrap();
    let mut per_query = vec![Sums::default(); 6];
    let mut probs = Vec::new();
    for i in 0..mixed.len() {
        per_query[mixed.queries[i] as usize].add(model.as_ref(), mixed.session(i), &mut probs);
    }
    let got = statistics(&per_query, &per_query, &mut (0..6));
    assert!((got[0] - want.log_likelihood).abs() < 1e-12, "{} {}", got[0], want.log_likelihood);
    assert!((got[2] - want.perplexity).abs() < 1e-12, "{} {}", got[2], want.perplexity);
}

#[test]
fn log_likelihood_and_perplexity_by_hand() {
    // One query, documents a = 0 and b = 1. Ordering O1 [a, b]: 5 sessions clicking a only;
    // O2 [b, a]: 2 sessions without clicks. Two folds: O1 and O2 in different folds.
    // O1 gives floor(5 / 5) = 1 seen test session (all 5 are alike), O2 none.
    let mut log = ClickLog::new();
    for _ in 0..5 {
        log.push(0, &[0, 1], &[true, false]);
    }
    for _ in 0..2 {
        log.push(0, &[1, 0], &[false, false]);
    }
    let v = shift_robustness(&log, &cfg(vec![ModelKind::Dctr], 2, 20)).unwrap();
    assert_eq!((v.queries, v.seen_sessions, v.unseen_sessions), (1, 1, 7));
    let r = &v.rows[0];
    // By hand, with DCTR's counting (1 + clicks) / (2 + impressions) (Counts::values' doc):
    // O2's fold trains on O1's 4 other sessions: a 5/6, b 1/6. It scores the seen session
    // (a clicked, b not): ln(5/6) at both ranks; and O2's 2 sessions (b, a unclicked):
    // ln(5/6) and ln(1/6). O1's fold trains on O2: a = b = 1/4; it scores O1's 5 sessions
    // (a clicked, b not): ln(1/4) and ln(3/4). Had the seen session trained, a would be 6/7.
    let ln = f64::ln;
    let ll_seen = ln(5.0 / 6.0);
    let ll_unseen = (2.0 * (ln(5.0 / 6.0) + ln(1.0 / 6.0)) / 2.0 + 5.0 * (ln(0.25) + ln(0.75)) / 2.0) / 7.0;
    // Perplexity at rank r: 2^(-mean log2 P(observed at r)), then the mean over 2 ranks.
    let l2 = f64::log2;
    let ppl_seen = 6.0 / 5.0;
    let p1 = 2f64.powf(-(2.0 * l2(5.0 / 6.0) + 5.0 * l2(0.25)) / 7.0);
    let p2 = 2f64.powf(-(2.0 * l2(1.0 / 6.0) + 5.0 * l2(0.75)) / 7.0);
    let ppl_unseen = (p1 + p2) / 2.0;
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(close(r.ll_seen, ll_seen), "{} {}", r.ll_seen, ll_seen);
    assert!(close(r.ll_unseen, ll_unseen), "{} {}", r.ll_unseen, ll_unseen);
    assert!(close(r.ll_unseen_minus_seen, ll_unseen - ll_seen));
    assert!(close(r.perplexity_seen, ppl_seen), "{} {}", r.perplexity_seen, ppl_seen);
    assert!(close(r.perplexity_unseen, ppl_unseen), "{} {}", r.perplexity_unseen, ppl_unseen);
    // One query: every resample is the log itself, so each interval is the point.
    assert!(close(r.ll_seen_lower_over_queries, ll_seen) && close(r.ll_unseen_upper_over_queries, ll_unseen));
    assert!(close(r.perplexity_unseen_minus_seen_lower_over_queries, ppl_unseen - ppl_seen));
    let mut csv = Vec::new();
    v.write_csv(&mut csv).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    assert!(csv.starts_with("model,ll_seen,ll_seen_lower_over_queries,"), "{csv}");
    assert!(csv.lines().nth(1).unwrap().starts_with(&format!("dctr,{}", crate::write::fmt_f64(ll_seen))), "{csv}");
}

#[test]
fn query_bootstrap_matches_the_exact_distribution_over_27_resamples() {
    // Three queries with lists of 3, 2 and 1 results and a known DBN. Independent source: the
    // exact bootstrap distribution, by enumerating the 3^3 = 27 equally likely draws of three
    // queries with replacement and calling eval::evaluate on a log built from the drawn
    // queries' sessions (a query drawn twice contributes its sessions twice).
    let model = Dbn { attractiveness: vec![0.6, 0.3, 0.2, 0.5, 0.7, 0.4], satisfaction: vec![0.5, 0.4, 0.3, 0.6, 0.2, 0.5], gamma: 0.7 };
    let serps: [&[u32]; 3] = [&[0, 1, 2], &[3, 4], &[5]];
    let mut seen_logs = Vec::new();
    let mut unseen_logs = Vec::new();
    let mut clicks = Vec::new();
    for (q, pairs) in serps.iter().enumerate() {
        let (mut s, mut u) = (ClickLog::new(), ClickLog::new());
        for k in 0..(4 + 3 * q) {
            let mut r = crate::rng::stream(9, &[q as u64, k as u64]);
            model.simulate(pairs, &mut r, &mut clicks);
            if k % 3 == 0 {
                s.push(q as u32, pairs, &clicks);
            } else {
                u.push(q as u32, pairs, &clicks);
            }
        }
        seen_logs.push(s);
        unseen_logs.push(u);
    }
    let mut probs = Vec::new();
    let sums = |logs: &[ClickLog], probs: &mut Vec<f64>| -> Vec<Sums> {
        logs.iter()
            .map(|l| {
                let mut s = Sums::default();
                for i in 0..l.len() {
                    s.add(&model, l.session(i), probs);
                }
                s
            })
            .collect()
    };
    let per_model = vec![(sums(&seen_logs, &mut probs), sums(&unseen_logs, &mut probs))];
    let b = 20_000;
    let boots = bootstrap_over_queries(&per_model, 3, b, 17);
    // Exact distribution of [ll_seen, ll_unseen, ppl_seen, ppl_unseen, ll difference].
    let concat = |logs: &[ClickLog], draw: [usize; 3]| -> ClickLog {
        let mut out = ClickLog::new();
        for q in draw {
            for i in 0..logs[q].len() {
                let s = logs[q].session(i);
                out.push(s.query, s.pairs, s.clicks);
            }
        }
        out
    };
    let mut exact: Vec<[f64; 5]> = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                let s = evaluate(&model, &concat(&seen_logs, [i, j, k])).unwrap();
                let u = evaluate(&model, &concat(&unseen_logs, [i, j, k])).unwrap();
                exact.push([s.log_likelihood, u.log_likelihood, s.perplexity, u.perplexity, u.log_likelihood - s.log_likelihood]);
            }
        }
    }
    for c in 0..5 {
        let get = |x: &[f64; 4]| if c < 4 { x[c] } else { x[1] - x[0] };
        let mean = exact.iter().map(|x| x[c]).sum::<f64>() / 27.0;
        let sd = (exact.iter().map(|x| (x[c] - mean).powi(2)).sum::<f64>() / 27.0).sqrt();
        let got: Vec<f64> = boots.iter().map(|r| get(&r[0])).collect();
        let gm = got.iter().sum::<f64>() / b as f64;
        let gsd = (got.iter().map(|x| (x - gm).powi(2)).sum::<f64>() / b as f64).sqrt();
        // Monte-Carlo error: the mean within 4 standard errors (sd / sqrt(b)); the sd within
        // 4 of its standard errors, about sd / sqrt(2 b) for a roughly normal statistic, so 4 %.
        assert!(sd > 0.0, "statistic {c} does not vary over resamples");
        assert!((gm - mean).abs() < 4.0 * sd / (b as f64).sqrt(), "statistic {c}: mean {gm} against exact {mean} (sd {sd})");
        assert!((gsd / sd - 1.0).abs() < 0.04, "statistic {c}: sd {gsd} against exact {sd}");
    }
}

#[test]
fn unchanged_users_score_alike_on_seen_and_unseen_orderings() {
    // Documents keep their parameters whatever the ordering, and the fitted DBN is the
    // generating family: an unseen ordering is only a new arrangement of known documents,
    // so log-likelihood and perplexity must not differ beyond the interval over queries.
    let log = generated_log(21, 40, 4, 4, 60, false);
    let v = shift_robustness(&log, &cfg(vec![ModelKind::Dbn], 4, 400)).unwrap();
    let r = &v.rows[0];
    assert_eq!(v.queries, 40);
    assert!(r.ll_unseen_minus_seen_lower_over_queries < 0.0 && r.ll_unseen_minus_seen_upper_over_queries > 0.0, "{r:?}");
    assert!(r.perplexity_unseen_minus_seen_lower_over_queries < 0.0 && r.perplexity_unseen_minus_seen_upper_over_queries > 0.0, "{r:?}");
    // And the difference is small against the level: within 2 % of the log-likelihood.
    assert!(r.ll_unseen_minus_seen.abs() < 0.02 * r.ll_seen.abs(), "{r:?}");
}

#[test]
fn users_who_change_with_the_ordering_show_a_drop_on_unseen_orderings() {
    // Each (document, ordering) has its own attractiveness: the seen test sessions share
    // their ordering with a quarter of the training data of their documents, the unseen ones
    // with none, so the fitted DBN must do worse on unseen orderings: log-likelihood lower
    // and perplexity higher, with intervals over queries that exclude 0.
    let log = generated_log(21, 40, 4, 4, 60, true);
    let v = shift_robustness(&log, &cfg(vec![ModelKind::Dbn, ModelKind::Dctr], 4, 400)).unwrap();
    for r in &v.rows {
        assert!(r.ll_unseen_minus_seen_upper_over_queries < 0.0, "{r:?}");
        assert!(r.perplexity_unseen_minus_seen_lower_over_queries > 0.0, "{r:?}");
    }
    assert!(v.answer.iter().any(|a| a.contains("(interval of unseen - seen below 0): dbn, dctr;")), "{:?}", v.answer);
    assert!(
        v.answer.iter().any(|a| a.starts_with("On orderings never seen in training, ") && a.contains("log-likelihood per session falls from")),
        "{:?}",
        v.answer
    );
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let log = generated_log(4, 12, 4, 3, 40, true);
    let c = cfg(vec![ModelKind::Dbn, ModelKind::Pbm, ModelKind::Rctr], 3, 300);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| shift_robustness(&log, &c)).unwrap()
    };
    let (a, b) = (run(1), run(2));
    assert_eq!(a, b);
    let (mut ca, mut cb) = (Vec::new(), Vec::new());
    a.write_csv(&mut ca).unwrap();
    b.write_csv(&mut cb).unwrap();
    assert_eq!(ca, cb);
}

#[test]
fn queries_without_a_seen_test_session_give_an_empty_comparison() {
    // Orderings of fewer than five sessions have no seen test share: nothing to compare, and
    // the answer says so instead of failing the whole validation.
    let mut log = ClickLog::new();
    for k in 0..4 {
        log.push(0, &[0, 1], &[k == 0, false]);
        log.push(0, &[1, 0], &[false, k == 1]);
    }
    let v = shift_robustness(&log, &cfg(vec![ModelKind::Dctr], 2, 10)).unwrap();
    assert_eq!((v.queries, v.rows.len()), (0, 0));
    assert!(v.answer[0].contains("no query has a seen test session"), "{:?}", v.answer);
}
