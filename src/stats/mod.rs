//! Statistics shared by every capability: summaries, tests, correlations.

pub mod beta_binomial;
pub mod beta_quantile;
pub mod bootstrap;
pub mod cluster_bootstrap;
pub mod correlation;
pub mod counts;
pub mod discriminative;
pub mod distance;
pub mod extreme;
pub mod glm;
pub mod ks;
pub mod mcmc;
pub mod model_error;
pub(crate) mod multitest;
pub(crate) mod paired;
pub mod power;
pub(crate) mod randomisation;
pub mod roc;
pub mod simeval;
pub mod sketch;
pub mod summary;
pub mod topics;
pub mod wilcoxon;

pub use correlation::{kendall_tau_a, kendall_tau_b, pearson, pearson_test, spearman, tau_ap, tau_gap, PearsonTest};
pub use counts::quantile_of_counts;
pub use ks::{ks_p_value, ks_statistic};
pub use paired::{bootstrap_ci, paired_t_test, BootstrapCi, PairedT};
pub use roc::{rmse, roc_auc, roc_points};
pub use sketch::{Moments, Sketch, StreamSummary};
pub use summary::{mean, median, quantile_sorted, sd, Histogram, Summary};
pub use topics::{mean_interval, over_topics, t_quantile, TopicDiff, TopicInference};
pub use wilcoxon::{average_ranks, wilcoxon_signed_rank, SignedRank};
