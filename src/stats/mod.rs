//! Statistics shared by every capability: summaries, tests, correlations.

pub mod glm;
pub mod pearson;
pub mod summary;
pub mod wilcoxon;

pub use summary::{mean, median, quantile_sorted, sd, Histogram, Summary};
pub use wilcoxon::{average_ranks, wilcoxon_signed_rank, SignedRank};
