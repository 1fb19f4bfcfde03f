//! Statistics shared by every capability: summaries, tests, correlations.

pub mod correlation;
pub mod ks;
pub mod summary;
pub mod wilcoxon;

pub use correlation::{pearson, rmse, roc_auc, roc_points};
pub use ks::{ks_p_value, ks_statistic};
pub use summary::{mean, median, quantile_sorted, sd, Histogram, Summary};
pub use wilcoxon::{average_ranks, wilcoxon_signed_rank, SignedRank};
