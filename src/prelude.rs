//! The library's front door: what a program needs for the common jobs, in one `use`.
//!
//! `use serpsim::prelude::*;` brings the types and functions of four jobs; everything else is
//! reached through its module (the layer table in the crate root says which module does what).
//!
//! **Run a scenario** (a `simulate` TOML file; the outputs go where its `[output]` says, the
//! short answer is what the command line prints):
//!
//! ```no_run
//! use serpsim::prelude::*;
//! # fn main() -> serpsim::Result<()> {
//! let text = std::fs::read_to_string("simulations/synthetic.toml").map_err(|e| Error::io("simulations/synthetic.toml", e))?;
//! let run = run_text(&text, "simulations/synthetic.toml", std::path::Path::new("simulations"), &Overrides::default(), &|_, _| {})?;
//! println!("{}", run.answer);
//! # Ok(())
//! # }
//! ```
//!
//! **Fit a click model and score it on held-out sessions** (the `clicks eval` protocol: the
//! first 75 % of sessions train):
//!
//! ```
//! use serpsim::prelude::*;
//! # fn main() -> serpsim::Result<()> {
//! let text = "q1\td1,d2 : d1\nq1\td1,d2 :\nq1\td2,d1 : d1\nq1\td1,d2 : d1\n";
//! let data = LogData::parse(text, LogFormat::Yandex, "example", false)?;
//! let split = split_75_25(&data.log);
//! let model = ModelConfig::new("dbn".parse::<ModelKind>()?, EmConfig::default()).fit(&mut &split.train)?;
//! let scores = evaluate_click_model(model.as_ref(), &split.test)?;
//! assert!(scores.log_likelihood < 0.0);
//! # Ok(())
//! # }
//! ```
//!
//! **Evaluate a TREC run against qrels** (`serpsim eval`'s measures and names):
//!
//! ```
//! use serpsim::prelude::*;
//! # fn main() -> serpsim::Result<()> {
//! let qrels = Judgements::parse("1 0 a 1\n1 0 b 0\n", "qrels")?;
//! let run = RankedRun::parse(&qrels, "1 Q0 b 1 2 r\n1 Q0 a 2 1 r\n", "run", &RunOptions::default())?;
//! let plan = MeasurePlan::parse(&["P@1", "recip_rank"])?;
//! let e = evaluate_run(&qrels, &[run], &plan, &EvalOptions::default())?;
//! // Columns in trec_eval's order. Topic 1: b (not relevant) above a (relevant): reciprocal
//! // rank 1/2, P@1 = 0.
//! let names: Vec<&str> = e.columns.iter().map(|c| c.name.as_str()).collect();
//! assert_eq!(names, ["recip_rank", "P@1"]);
//! assert_eq!((e.values[0][0][0], e.values[0][1][0]), (Some(0.5), Some(0.0)));
//! # Ok(())
//! # }
//! ```
//!
//! **Decide a ranker switch** (BARACO): [`compare_rankers`] with a [`ProductionLog`] and the
//! candidate rankings (`serpsim compare-rankers`, docs/baraco.md).

pub use crate::baraco::{compare as compare_rankers, Config as SwitchConfig, ProductionLog, SwitchMetric};
pub use crate::clickmodels::eval::{evaluate as evaluate_click_model, split_75_25, Scores};
pub use crate::clickmodels::{ClickModel, EmConfig, ModelConfig, ModelKind};
pub use crate::error::{Error, Result};
pub use crate::logs::{ClickLog, Format as LogFormat, LogData};
pub use crate::metrics::{evaluate as evaluate_run, EvalOptions, Evaluation, Judgements, MeasurePlan, RankedRun, RunOptions};
pub use crate::run::{run_scenario, run_text, ScenarioRun};
pub use crate::scenario::{Overrides, Scenario};
