//! `sagedeck models` and `sagedeck prewarm`.

use clap::Args;

use super::GlobalArgs;

/// `sagedeck models ENDPOINT`.
#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// Endpoint name.
    pub endpoint: String,
}

/// `sagedeck prewarm ENDPOINT [MODEL ...]`.
#[derive(Debug, Args)]
pub struct PrewarmArgs {
    /// Endpoint name.
    pub endpoint: String,
    /// Model keys to prewarm.
    pub models: Vec<String>,
}

/// Runs `models`.
pub async fn run_models(_g: &GlobalArgs, _args: ModelsArgs) -> i32 {
    super::usage("not implemented yet")
}

/// Runs `prewarm`.
pub async fn run_prewarm(_g: &GlobalArgs, _args: PrewarmArgs) -> i32 {
    super::usage("not implemented yet")
}
