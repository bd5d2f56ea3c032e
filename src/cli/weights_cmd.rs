//! `sagedeck weights`.
use super::GlobalArgs;
use clap::Args;
/// `sagedeck weights`.
#[derive(Debug, Args)]
pub struct WeightsArgs {
    /// Endpoint.
    pub endpoint: String,
}
/// Runs `weights`.
pub async fn run(_g: &GlobalArgs, _a: WeightsArgs) -> i32 {
    2
}
