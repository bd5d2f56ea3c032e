//! `sagedeck metrics`.

use clap::Args;

use super::GlobalArgs;

/// `sagedeck metrics ENDPOINT [--since 1h]`.
#[derive(Debug, Args)]
pub struct MetricsArgs {
    /// Endpoint name.
    pub endpoint: String,
}

/// Runs `metrics`.
pub async fn run(_g: &GlobalArgs, _args: MetricsArgs) -> i32 {
    super::usage("not implemented yet")
}
