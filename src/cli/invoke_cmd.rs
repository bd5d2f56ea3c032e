//! `sagedeck invoke`.
use super::GlobalArgs;
use clap::Args;
/// `sagedeck invoke`.
#[derive(Debug, Args)]
pub struct InvokeArgs {
    /// Endpoint.
    pub endpoint: String,
}
/// Runs `invoke`.
pub async fn run(_g: &GlobalArgs, _a: InvokeArgs) -> i32 {
    2
}
