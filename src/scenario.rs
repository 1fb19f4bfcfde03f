//! Scenario files: one TOML schema for every command (`simulate`, `sessions`, `sublists`).
//! The schema is documented in `docs/scenarios.md`; unknown keys are errors naming the key and
//! its line. Paths inside a scenario are relative to the scenario file; the output directory is
//! relative to the working directory (the command line's `--out` overrides it).
//!
//! A file of an older dialect (the old `sessions` or `sublists` scenarios) or of the wrong kind
//! (a click-model JSON file, a TREC run) is recognised and refused with an error that says what
//! it looks like and how to migrate it.
//!
//! | file | job |
//! |---|---|
//! | `schema.rs` | the TOML tables as types, with their defaults |
//! | `validate.rs` | text to a checked scenario: errors naming key and line, wrong kinds, value checks |
//! | `load.rs` | files read (each once) and the world built and the profiles prepared |
//! | `sweep.rs` | `[[sweep]]` expanded into profiles, and their labels |
//! | `overrides.rs` | command-line overrides |
//! | `from_files.rs`, `users.rs` | a scenario written from qrels and runs; built-in users |

pub mod from_files;
mod load;
mod overrides;
mod schema;
mod sweep;
pub mod users;
mod validate;

pub(crate) use load::resolve;
pub use load::{world_from_query_sets, Loaded, SourceData, DEFAULT_QRELS, DEFAULT_RUN, DEFAULT_SCENARIO};
pub use overrides::Overrides;
pub use schema::{
    Categories, CollectionSource, CompareSpec, Detail, FeatureWeights, GridSpec, InterfaceSpec, LetorSource, LinearRanker, OutputSpec, ReportSpec, Scenario,
    StreamFiles, SublistSystems, SweepSpec, SyntheticQueriesSource, TrecSource, Variants, WhenSpec, GRID_POINTS_MAX, VARIANTS_MAX,
};
pub use sweep::{sweep_labels, SweepAssignment};
pub use validate::{from_toml, recognise_wrong_kind};
