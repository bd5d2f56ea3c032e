//! `sagedeck endpoints`, `describe`, `autoscaling`.
use super::GlobalArgs;
use clap::Args;
/// `sagedeck endpoints`.
#[derive(Debug, Args)]
pub struct EndpointsArgs {}
/// `sagedeck describe`.
#[derive(Debug, Args)]
pub struct DescribeArgs {
    /// Endpoint.
    pub endpoint: String,
}
/// `sagedeck autoscaling`.
#[derive(Debug, Args)]
pub struct AutoscalingArgs {
    /// Endpoint.
    pub endpoint: String,
}
/// Runs `endpoints`.
pub async fn run_endpoints(_g: &GlobalArgs, _a: EndpointsArgs) -> i32 {
    2
}
/// Runs `describe`.
pub async fn run_describe(_g: &GlobalArgs, _a: DescribeArgs) -> i32 {
    2
}
/// Runs `autoscaling`.
pub async fn run_autoscaling(_g: &GlobalArgs, _a: AutoscalingArgs) -> i32 {
    2
}
