//! The statistical judge: canary against baseline, metric by metric (`compare.rs`), on the rank
//! statistics of `stats.rs` (Mann-Whitney U, Hodges-Lehmann), and the variants report that
//! judges the variant log's figures.

pub mod compare;
pub mod stats;
pub mod variants_report;
