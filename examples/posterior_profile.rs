//! The conjugate-posterior benchmarks of `benches/clickmodels.rs` (`sdbn_fit`,
//! `sdbn_fit_posterior_uniform`, ...) as a plain program for instruction counts, which a shared
//! machine does not disturb:
//!
//! `cargo build --release --example posterior_profile &&
//!  valgrind --tool=callgrind --toggle-collect='posterior_profile::run' \
//!    target/release/examples/posterior_profile sdbn posterior uniform 20`
//!
//! Arguments: model (`sdbn` or `cm`), what (`fit`: the fit without the posterior, under
//! Beta(1, 1) the plain fit, under the fitted global prior counts, prior and posterior means as
//! `*_fit_global` in the benchmark; `posterior`: fit and posterior from one pass,
//! `fit_with_posterior`), prior (`uniform` or `global`), repetitions. Instructions per fit = collected total / repetitions. Reads the
//! bundled click log in the Yandex sample layout (30,000 sessions, 2,338 pairs, project-made). Prints a checksum of the results so
//! nothing can be optimised away.

use serpsim::clickmodels::posterior::{fit_with_posterior, PosteriorConfig};
use serpsim::clickmodels::prior::{Axis, PriorScope, TablePrior};
use serpsim::clickmodels::{count_tables, Cm, ModelKind, Sdbn};
use serpsim::logs::{ClickLog, Format, LogData};
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: posterior_profile sdbn|cm fit|posterior uniform|global REPETITIONS";
    let (Some(model), Some(what), Some(prior), Some(reps)) = (args.first(), args.get(1), args.get(2), args.get(3)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let kind = choose("model", model, &[("sdbn", ModelKind::Sdbn), ("cm", ModelKind::Cm)], usage);
    let posterior = choose("what", what, &[("fit", false), ("posterior", true)], usage);
    let prior = choose("prior", prior, &[("uniform", PriorScope::Uniform), ("global", PriorScope::Global)], usage);
    let Ok(reps) = reps.parse::<usize>() else {
        eprintln!("posterior_profile: `{reps}` is not a number of repetitions\n{usage}");
        std::process::exit(2);
    };
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("study_logs/clicks/synthetic_yandex_layout.txt");
    let data = LogData::read(&p, Format::Yandex, false).unwrap_or_else(|e| {
        eprintln!("posterior_profile: {e}");
        std::process::exit(1);
    });
    let cfg = PosteriorConfig { prior, ..Default::default() };
    let mut sum = 0.0;
    for _ in 0..reps {
        sum += run(kind, posterior, &data.log, data.vocab.pair_count(), &cfg);
    }
    println!("{sum}");
}

/// The value named `arg` among `options`, or exit with the usage.
fn choose<T: Copy>(what: &str, arg: &str, options: &[(&str, T)], usage: &str) -> T {
    options.iter().find(|o| o.0 == arg).map(|o| o.1).unwrap_or_else(|| {
        eprintln!("posterior_profile: {what} `{arg}` is not one of {:?}\n{usage}", options.iter().map(|o| o.0).collect::<Vec<_>>());
        std::process::exit(2);
    })
}

/// One fit (with the posterior when asked); returns a checksum.
#[inline(never)]
fn run(kind: ModelKind, posterior: bool, log: &ClickLog, pairs: usize, cfg: &PosteriorConfig) -> f64 {
    if posterior {
        let (_, post) = fit_with_posterior(kind, log, pairs, cfg).expect("posterior");
        post.params.iter().map(|t| t.lower.iter().sum::<f64>() + t.upper.iter().sum::<f64>()).sum()
    } else if cfg.prior != PriorScope::Uniform {
        let tables = count_tables(kind, &mut &*log).expect("counts");
        let mut sum = 0.0;
        for t in &tables {
            let sf: Vec<(f64, f64)> = (0..pairs).map(|i| t.sums(i)).map(|(s, n)| (s, n - s)).collect();
            let g = TablePrior::fit(cfg.prior, Axis::Pair, &sf, &[]).expect("prior").global;
            sum += sf.iter().map(|&(s, f)| (g.alpha + s) / (g.alpha + g.beta + s + f)).sum::<f64>();
        }
        sum
    } else if kind == ModelKind::Sdbn {
        Sdbn::fit(&mut &*log).expect("fit").attractiveness.iter().sum()
    } else {
        Cm::fit(&mut &*log).expect("fit").attractiveness.iter().sum()
    }
}
