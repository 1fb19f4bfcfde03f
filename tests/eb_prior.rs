//! `--prior eb` (issue 41, item 3): the per-pair tables of DBN, PBM, CCM and UBM under Beta
//! priors fitted within the EM fit (src/clickmodels/ebprior.rs). The sharded, the parse-once and the in-memory fits give
//! the same model file; the fitted prior is written with the model and its mean is what pairs
//! never seen take; on a generated log whose pair parameters have a known distribution, the
//! fitted prior's mean recovers it and the held-out log-likelihood beats Beta(1, 1).
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_serpsim"))
}

fn ok(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    err
}

fn yandex() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/clicks/synthetic_yandex_layout.txt")
}

fn fit(tmp: &Path, out: &Path, extra: &[&str]) -> Vec<u8> {
    fit_model("dbn", tmp, out, extra)
}

fn fit_model(model: &str, tmp: &Path, out: &Path, extra: &[&str]) -> Vec<u8> {
    let o = bin()
        .env("TMPDIR", tmp)
        .args(["clicks", "fit", "--model", model, "--prior", "eb", "--train"])
        .arg(yandex())
        .args(extra)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    ok(&o);
    std::fs::read(out).unwrap()
}

// Checked to fail: with the sharded pass's prior step taken from the first shard's terms only
// (the merge of `EbTerms` over shards left out), the sharded model files differ.
#[test]
fn sharded_streamed_and_in_memory_fits_write_the_same_model() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let reference = fit(tmp.path(), &dir.path().join("mem.json"), &["--in-memory"]);
    for extra in [
        vec!["--shards", "0"],
        vec!["--shards", "1"],
        vec!["--shards", "4", "--threads", "1"],
        vec!["--shards", "4", "--threads", "2"],
        vec!["--shards", "0", "--threads", "1"],
    ] {
        let got = fit(tmp.path(), &dir.path().join("x.json"), &extra);
        assert!(got == reference, "{extra:?}: the model file differs from the in-memory fit's");
    }
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "temporary files were left behind");
    // The fitted priors are written, and the values of unseen pairs are their means
    // (hand derivation: the M-step value of a pair without data, a / (a + b)).
    let m: serde_json::Value = serde_json::from_slice(&reference).unwrap();
    let prior = m["fit"]["prior"].as_array().expect("fit.prior");
    assert_eq!(prior.len(), 2);
    for (p, name) in prior.iter().zip(["attractiveness", "satisfaction"]) {
        assert_eq!(p["parameter"], name);
        let (a, b) = (p["alpha"].as_f64().unwrap(), p["beta"].as_f64().unwrap());
        assert!(a > 0.0 && b > 0.0 && a + b >= 1e-2 && a + b <= 1e4, "{p}");
        assert_eq!(m["unseen"][name].as_f64().unwrap(), a / (a + b), "{name}");
    }
    // A uniform fit writes neither; a fit without --prior is the eb fit (the default of the
    // EM models, EmPrior::default_for), the same bytes.
    for (prior, name) in [(Some("uniform"), "u.json"), (None, "d.json")] {
        let o = bin()
            .env("TMPDIR", tmp.path())
            .args(["clicks", "fit", "--model", "dbn", "--train"])
            .arg(yandex())
            .args(prior.map(|p| ["--prior", p]).iter().flatten())
            .arg("--out")
            .arg(dir.path().join(name))
            .output()
            .unwrap();
        ok(&o);
    }
    let u: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.path().join("u.json")).unwrap()).unwrap();
    assert!(u["fit"].get("prior").is_none() && u.get("unseen").is_none(), "{}", u["fit"]);
    assert!(std::fs::read(dir.path().join("d.json")).unwrap() == reference, "the default fit is not --prior eb's");
}

#[test]
fn counting_models_and_posteriors_refuse_it() {
    for (args, want) in [
        (vec!["--model", "sdbn"], "for the EM models (dbn, ubm, ccm, pbm), not sdbn"),
        (vec!["--model", "cm"], "for the EM models (dbn, ubm, ccm, pbm), not cm"),
        (vec!["--model", "dcm", "--in-memory"], "for the EM models (dbn, ubm, ccm, pbm), not dcm"),
        (vec!["--model", "dbn", "--posterior", "post.csv"], "--prior eb is a prior of the EM fit; a posterior takes global, query or hierarchical"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = bin()
            .current_dir(dir.path())
            .args(["clicks", "fit", "--prior", "eb", "--train"])
            .arg(yandex())
            .args(&args)
            .args(["--out", "m.json"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(want), "{args:?}: {err}");
        assert!(!dir.path().join("m.json").exists());
    }
}

fn eval_ll(tmp: &Path, train: &Path, test: &Path, prior: &str) -> f64 {
    eval_model_ll("dbn", tmp, train, test, prior)
}

fn eval_model_ll(model: &str, tmp: &Path, train: &Path, test: &Path, prior: &str) -> f64 {
    let o =
        bin().env("TMPDIR", tmp).args(["clicks", "eval", "--model", model, "--prior", prior, "--train"]).arg(train).arg("--test").arg(test).output().unwrap();
    ok(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["log_likelihood"].as_f64().unwrap()
}

// Checked to fail: with the prior fitted to the expected counts themselves instead of the
// informative trials (`EStats::eb_counts` returning the pair table), the fitted prior
// collapses (attractiveness concentration 22 on this log, 235 on a 200,000-session log of
// the race) and this test fails.
#[test]
fn on_a_generated_log_the_prior_recovers_the_pair_distribution_and_predicts_better() {
    // `clicks generate` draws each pair's attractiveness as 0.9 u^2 and its satisfaction as
    // 0.2 + 0.6 u' (u, u' uniform; its --help): population means 0.9 / 3 = 0.3 and 0.5
    // (hand derivation: E[u^2] = 1/3). 60,000 training sessions over 20,000 queries see most
    // pairs a few times, which is where a prior matters.
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (train, test) = (dir.path().join("train.txt"), dir.path().join("test.txt"));
    for (path, sessions, seed) in [(&train, "60000", "1"), (&test, "20000", "2")] {
        let o = bin()
            .args(["--quiet", "clicks", "generate", "--sessions", sessions, "--queries", "20000", "--world", "7", "--seed", seed, "--out"])
            .arg(path)
            .output()
            .unwrap();
        ok(&o);
    }
    let model = dir.path().join("m.json");
    let o = bin()
        .env("TMPDIR", tmp.path())
        .args(["clicks", "fit", "--model", "dbn", "--prior", "eb", "--train"])
        .arg(&train)
        .arg("--out")
        .arg(&model)
        .output()
        .unwrap();
    ok(&o);
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(&model).unwrap()).unwrap();
    let mean = |i: usize| {
        let p = &m["fit"]["prior"][i];
        let (a, b) = (p["alpha"].as_f64().unwrap(), p["beta"].as_f64().unwrap());
        (a / (a + b), a + b)
    };
    let (attr, attr_k) = mean(0);
    let (sat, _) = mean(1);
    // Beta(1, 1)'s mean is 0.5 for both: the attractiveness tolerance (0.05) is well inside
    // that 0.2 effect, and allows for the log showing 10 of each query's 15 candidates (in a
    // fixed order in 70 % of sessions), a selection whose mean need not be exactly 0.3 (this
    // log's fit: 0.272).
    assert!((attr - 0.3).abs() < 0.05, "attractiveness prior mean {attr} (concentration {attr_k}), population mean 0.3");
    // 0.9 u^2 has variance 0.81 (1/5 - 1/9) = 0.072: a Beta of that mean and variance has
    // concentration 0.3 * 0.7 / 0.072 - 1 = 1.92; a collapsed prior is far above it.
    assert!(attr_k < 10.0, "attractiveness concentration {attr_k}, population's about 1.9");
    assert!((sat - 0.5).abs() < 0.1, "satisfaction prior mean {sat}, population mean 0.5");
    let (eb, uniform) = (eval_ll(tmp.path(), &train, &test, "eb"), eval_ll(tmp.path(), &train, &test, "uniform"));
    assert!(eb > uniform, "held-out log-likelihood with the fitted prior {eb}, with Beta(1, 1) {uniform}");
}

// Checked to fail: with UBM's examination rows read from table 1 on (its informative-trial
// table taken for the first row, `Ubm::m_step` not skipping it), the UBM files differ between
// the sharded and the in-memory fits (the sharded M-step drops the table first).
#[test]
fn pbm_ccm_and_ubm_fits_write_the_same_model_sharded_streamed_and_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for model in ["pbm", "ccm", "ubm"] {
        let reference = fit_model(model, tmp.path(), &dir.path().join("mem.json"), &["--in-memory"]);
        for extra in [vec!["--shards", "0"], vec!["--shards", "1"], vec!["--shards", "4", "--threads", "2"]] {
            let got = fit_model(model, tmp.path(), &dir.path().join("x.json"), &extra);
            assert!(got == reference, "{model} {extra:?}: the model file differs from the in-memory fit's");
        }
        let m: serde_json::Value = serde_json::from_slice(&reference).unwrap();
        let prior = m["fit"]["prior"].as_array().expect("fit.prior");
        assert_eq!(prior.len(), 1, "{model}");
        let p = &prior[0];
        assert_eq!(p["parameter"], "attractiveness");
        let (a, b) = (p["alpha"].as_f64().unwrap(), p["beta"].as_f64().unwrap());
        // Measured on this log: (a, b) = (0.63, 2.00) pbm, (0.66, 1.93) ccm, (0.64, 1.95) ubm.
        assert!(a > 0.0 && b > 0.0 && a + b >= 1e-2 && a + b <= 1e4, "{model}: {p}");
        assert_eq!(m["unseen"]["attractiveness"].as_f64().unwrap(), a / (a + b), "{model}");
    }
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "temporary files were left behind");
}

/// Writes `clicks generate` logs of `model` (60,000 training, 20,000 test sessions over 20,000
/// queries, as in the DBN test above) under `dir`.
fn generated(dir: &Path, model: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let (train, test) = (dir.join(format!("{model}-train.txt")), dir.join(format!("{model}-test.txt")));
    for (path, sessions, seed) in [(&train, "60000", "1"), (&test, "20000", "2")] {
        let o = bin()
            .args(["--quiet", "clicks", "generate", "--model", model, "--sessions", sessions, "--queries", "20000", "--world", "7", "--seed", seed, "--out"])
            .arg(path)
            .output()
            .unwrap();
        ok(&o);
    }
    (train, test)
}

/// The attractiveness prior's (mean, concentration) of `model` fitted with `--prior eb`.
fn attractiveness_prior(model: &str, tmp: &Path, train: &Path, out: &Path) -> (f64, f64) {
    let o = bin().env("TMPDIR", tmp).args(["clicks", "fit", "--model", model, "--prior", "eb", "--train"]).arg(train).arg("--out").arg(out).output().unwrap();
    ok(&o);
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap();
    let p = &m["fit"]["prior"][0];
    let (a, b) = (p["alpha"].as_f64().unwrap(), p["beta"].as_f64().unwrap());
    (a / (a + b), a + b)
}

// PBM and CCM have no generator of their own: they are fitted to the DBN generator's log
// (attractiveness 0.9 u^2 per pair, population concentration about 1.9, see the DBN test),
// where a fitted prior has to earn its place against Beta(1, 1) on held-out sessions of the
// same population. Measured: PBM prior (a, b) = (0.84, 2.81), concentration 3.6, held-out
// log-likelihood -0.27932 with the prior against -0.28107 with Beta(1, 1); CCM (0.77, 2.06),
// concentration 2.8, -0.26564 against -0.27025.
//
// Checked to fail: with the prior fitted to the expected counts themselves (`EStats::eb_counts`
// returning the pair table), the attractiveness concentration collapses (PBM 24.7, CCM 25.8;
// CCM's held-out log-likelihood drops to -0.27618, below Beta(1, 1)'s) and this test fails.
#[test]
fn pbm_and_ccm_on_a_dbn_generated_log_predict_better_with_a_spread_prior() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (train, test) = generated(dir.path(), "dbn");
    for model in ["pbm", "ccm"] {
        let (mean, k) = attractiveness_prior(model, tmp.path(), &train, &dir.path().join("m.json"));
        // A collapsed prior has a concentration far above the population's 1.9; the
        // attractiveness of a model other than the generator's need not match 0.3 exactly,
        // but a mean near Beta(1, 1)'s 0.5 would mean the prior never moved.
        assert!(k < 10.0, "{model}: attractiveness concentration {k} (mean {mean}), population's about 1.9");
        assert!(mean > 0.15 && mean < 0.4, "{model}: attractiveness prior mean {mean}, population mean 0.3");
        let (eb, uniform) = (eval_model_ll(model, tmp.path(), &train, &test, "eb"), eval_model_ll(model, tmp.path(), &train, &test, "uniform"));
        assert!(eb > uniform, "{model}: held-out log-likelihood with the fitted prior {eb}, with Beta(1, 1) {uniform}");
    }
}

// `clicks generate --model ubm` draws attractiveness as the DBN generator does (0.9 u^2).
// Measured: prior (a, b) = (0.74, 2.03), concentration 2.8, mean 0.268; held-out
// log-likelihood -0.41338 with the prior against -0.41606 with Beta(1, 1).
//
// Checked to fail: with `eb_counts` returning the pair table, the concentration rises to 6.25
// and the held-out log-likelihood falls to -0.41733, below Beta(1, 1)'s: this test fails on
// either (run with a concentration bound of 10 it failed on the log-likelihood).
#[test]
fn ubm_on_a_ubm_generated_log_predicts_better_with_a_spread_prior() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (train, test) = generated(dir.path(), "ubm");
    let (mean, k) = attractiveness_prior("ubm", tmp.path(), &train, &dir.path().join("m.json"));
    assert!(k < 5.0, "attractiveness concentration {k} (mean {mean}), population's about 1.9");
    assert!((mean - 0.3).abs() < 0.1, "attractiveness prior mean {mean}, population mean 0.3");
    let (eb, uniform) = (eval_model_ll("ubm", tmp.path(), &train, &test, "eb"), eval_model_ll("ubm", tmp.path(), &train, &test, "uniform"));
    assert!(eb > uniform, "held-out log-likelihood with the fitted prior {eb}, with Beta(1, 1) {uniform}");
}
