//! Click-model fitting throughput on the bundled project-made log in the Yandex sample layout (30,000 sessions, single thread).
//! `cargo bench --bench clickmodels`; figures in docs/performance.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serpsim::clickmodels::dbn::DbnSampler;
use serpsim::clickmodels::gibbs::bench_sweeps;
use serpsim::clickmodels::posterior::{fit_with_posterior, PosteriorConfig};
use serpsim::clickmodels::prior::PriorScope;
use serpsim::clickmodels::prior::{Axis, TablePrior};
use serpsim::clickmodels::{count_tables, Cm, Dbn, DbnConfig, Gamma, ModelKind, Sdbn};
use serpsim::logs::{Format, LogData};
use std::hint::black_box;
use std::path::PathBuf;

fn bench(c: &mut Criterion) {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("study_logs/clicks/synthetic_yandex_layout.txt");
    let data = LogData::read(&p, Format::Yandex, false).unwrap();
    let log = &data.log;
    let mut g = c.benchmark_group("clickmodels_yandex");
    g.throughput(Throughput::Elements(log.len() as u64));
    g.bench_function("sdbn_fit", |b| b.iter(|| black_box(Sdbn::fit(&mut &*log).unwrap())));
    g.bench_function("cm_fit", |b| b.iter(|| black_box(Cm::fit(&mut &*log).unwrap())));
    let cfg = DbnConfig { gamma: Gamma::Fitted, iterations: 1, tolerance: 0.0 };
    let start = cfg.fit(&mut &*log).unwrap();
    g.bench_function("dbn_em_iteration", |b| b.iter(|| black_box(cfg.em_step(&mut &*log, &start).unwrap())));
    let fixed = DbnConfig { gamma: Gamma::Fixed(0.9), ..cfg };
    g.bench_function("dbn_em_iteration_gamma_fixed", |b| b.iter(|| black_box(fixed.em_step(&mut &*log, &Dbn::default()).unwrap())));
    // Conjugate posteriors (issue 16: < 10 % added to a fit): the fit alone against the fit
    // with the posterior of every entry (mean, sd, 90 % interval) from the same counting pass,
    // same prior. Beta(1, 1): the fit is `sdbn_fit` / `cm_fit` above. Fitted global prior: the
    // fit is the posterior-mean model, which needs the prior fitted to the counts
    // (`*_fit_global`: counts, prior, means; the CLI's `--prior global` without --posterior).
    let pairs = data.vocab.pair_count();
    for (name, kind) in [("sdbn", ModelKind::Sdbn), ("cm", ModelKind::Cm)] {
        for (pname, prior) in [("uniform", PriorScope::Uniform), ("global", PriorScope::Global)] {
            let pc = PosteriorConfig { prior, ..Default::default() };
            g.bench_function(format!("{name}_fit_posterior_{pname}"), |b| b.iter(|| black_box(fit_with_posterior(kind, log, pairs, &pc).unwrap())));
        }
        g.bench_function(format!("{name}_fit_global"), |b| b.iter(|| black_box(fit_prior_means(kind, log, pairs).unwrap())));
    }
    g.finish();
    // Gibbs sampler (issue 16: >= 0.5 M session-sweeps/s on one core): 10 sweeps of the DBN
    // sampler over the whole log (set-up included); throughput in session-sweeps.
    let mut g = c.benchmark_group("clickmodels_gibbs_yandex");
    g.throughput(Throughput::Elements(10 * log.len() as u64));
    g.bench_function("dbn_10_sweeps_gamma_fixed", |b| b.iter(|| black_box(bench_sweeps(&DbnSampler::new(Some(0.9)), log, 10, 1))));
    g.bench_function("dbn_10_sweeps_gamma_sampled", |b| b.iter(|| black_box(bench_sweeps(&DbnSampler::new(None), log, 10, 1))));
    g.finish();
}

/// The fit under the fitted global prior without the posterior: counts, the prior of each
/// table, posterior means (the part of `fit_with_posterior` that every fit needs).
fn fit_prior_means(kind: ModelKind, log: &serpsim::logs::ClickLog, pairs: usize) -> serpsim::Result<Vec<Vec<f64>>> {
    let tables = count_tables(kind, &mut &*log)?;
    tables
        .iter()
        .map(|t| {
            let sf: Vec<(f64, f64)> = (0..pairs).map(|i| t.sums(i)).map(|(s, n)| (s, n - s)).collect();
            let prior = TablePrior::fit(PriorScope::Global, Axis::Pair, &sf, &[])?;
            let (a, b) = (prior.global.alpha, prior.global.beta);
            Ok(sf.iter().map(|&(s, f)| (a + s) / (a + b + s + f)).collect())
        })
        .collect()
}

criterion_group!(benches, bench);
criterion_main!(benches);
