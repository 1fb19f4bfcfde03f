//! Statistics shared by every capability: summaries, tests, correlations.

pub mod summary;
pub mod wilcoxon;

pub use summary::{mean, median, quantile_sorted, sd, Histogram, Summary};
pub use wilcoxon::{average_ranks, wilcoxon_signed_rank, SignedRank};
pub mod counts;
pub mod ttest;
pub use counts::quantile_of_counts;
pub use ttest::{paired_t_test, PairedT};
