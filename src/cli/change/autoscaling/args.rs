//! The arguments of `sagedeck autoscaling ENDPOINT`: the lint (`--check`, `--check-request`)
//! and the changes of `--variant V` or of `--inference-component IC`.

use std::path::PathBuf;

use clap::Args;

/// `sagedeck autoscaling ENDPOINT`.
#[derive(Debug, Args, Default)]
pub struct AutoscalingArgs {
    /// Endpoint name.
    pub endpoint: String,
    /// Lint every policy and scalable target of the endpoint (exit 8 when something is wrong).
    #[arg(long)]
    pub check: bool,
    /// Lint a PutScalingPolicy request (boto3's keyword arguments as JSON) against the endpoint
    /// before sending it; nothing is sent (exit 8 when something is wrong).
    #[arg(long, value_name = "FILE.json")]
    pub check_request: Option<PathBuf>,
    /// The variant to change.
    #[arg(long)]
    pub variant: Option<String>,
    /// MinCapacity (registers or updates the scalable target; with --max).
    #[arg(long)]
    pub min: Option<i32>,
    /// MaxCapacity (registers or updates the scalable target; with --min).
    #[arg(long)]
    pub max: Option<i32>,
    /// Target tracking on SageMakerVariantInvocationsPerInstance (invocations per instance per minute).
    #[arg(long, value_name = "N")]
    pub target_invocations: Option<f64>,
    /// Target tracking on the variant's ModelLatency p99, in milliseconds (metric math, AWS/SageMaker).
    #[arg(long, value_name = "MS")]
    pub target_p99_ms: Option<f64>,
    /// Target tracking on a serverless variant's SageMakerVariantProvisionedConcurrencyUtilization
    /// (0 to 1; scales sagemaker:variant:DesiredProvisionedConcurrency between --min and --max).
    #[arg(long, value_name = "FRACTION")]
    pub target_provisioned_utilization: Option<f64>,
    /// Scale-in cooldown in seconds (of the policy written, or of --policy-name).
    #[arg(long, value_name = "SECONDS")]
    pub scale_in_cooldown: Option<i32>,
    /// Scale-out cooldown in seconds (of the policy written, or of --policy-name).
    #[arg(long, value_name = "SECONDS")]
    pub scale_out_cooldown: Option<i32>,
    /// Name of the policy to write (default: sagedeck-invocations / sagedeck-p99-latency).
    #[arg(long, value_name = "NAME")]
    pub policy_name: Option<String>,
    /// Delete this scaling policy of the variant.
    #[arg(long, value_name = "NAME")]
    pub remove_policy: Option<String>,
    /// Set the variant's desired instance count now (within the target's min/max).
    #[arg(long, value_name = "N")]
    pub instances: Option<i32>,
    /// The inference component whose autoscaling is shown, checked (`--check`: the
    /// scale-to-zero doctor) or changed (`--min`, `--max`, `--target-invocations-per-copy`,
    /// `--scale-to-zero`).
    #[arg(long, value_name = "IC", conflicts_with_all = ["variant", "check_request"])]
    pub inference_component: Option<String>,
    /// Target tracking on SageMakerInferenceComponentInvocationsPerCopy (invocations per copy per
    /// minute; with --inference-component).
    #[arg(long, value_name = "N", requires = "inference_component")]
    pub target_invocations_per_copy: Option<f64>,
    /// Create what scale to zero still needs (MinCapacity 0, target tracking, the wake step policy
    /// and its NoCapacityInvocationFailures alarm; with --inference-component).
    #[arg(long, requires = "inference_component")]
    pub scale_to_zero: bool,
    /// Apply without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
}

impl AutoscalingArgs {
    /// Whether the arguments ask for a change (read-only refuses those).
    pub fn is_change(&self) -> bool {
        self.min.is_some()
            || self.max.is_some()
            || self.target_invocations.is_some()
            || self.target_p99_ms.is_some()
            || self.target_provisioned_utilization.is_some()
            || self.scale_in_cooldown.is_some()
            || self.scale_out_cooldown.is_some()
            || self.remove_policy.is_some()
            || self.instances.is_some()
            || self.target_invocations_per_copy.is_some()
            || self.scale_to_zero
    }
}
