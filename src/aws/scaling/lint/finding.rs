//! What the lint speaks of: the statistics and metrics it knows, its input, and its
//! [`Finding`]s (the files of the lint import this one; `mod.rs` runs them).

use serde::Serialize;

use crate::aws::scaling::spec::{MetricRef, PolicySpec};

/// The statistics `CustomizedMetricSpecification.Statistic` accepts.
pub const API_STATISTICS: [&str; 5] = ["Average", "Minimum", "Maximum", "SampleCount", "Sum"];
/// Metrics SageMaker publishes for endpoint variants: name, namespace, unit.
pub const SAGEMAKER_METRICS: [(&str, &str, &str); 18] = [
    ("Invocations", "AWS/SageMaker", "None"),
    ("InvocationsPerInstance", "AWS/SageMaker", "None"),
    ("Invocation4XXErrors", "AWS/SageMaker", "None"),
    ("Invocation5XXErrors", "AWS/SageMaker", "None"),
    ("InvocationModelErrors", "AWS/SageMaker", "None"),
    ("ModelLatency", "AWS/SageMaker", "Microseconds"),
    ("OverheadLatency", "AWS/SageMaker", "Microseconds"),
    ("ModelLoadingWaitTime", "AWS/SageMaker", "Microseconds"),
    ("ModelDownloadingTime", "AWS/SageMaker", "Microseconds"),
    ("ModelLoadingTime", "AWS/SageMaker", "Microseconds"),
    ("ModelUnloadingTime", "AWS/SageMaker", "Microseconds"),
    ("ModelCacheHit", "AWS/SageMaker", "None"),
    ("CPUUtilization", "/aws/sagemaker/Endpoints", "Percent"),
    ("MemoryUtilization", "/aws/sagemaker/Endpoints", "Percent"),
    ("DiskUtilization", "/aws/sagemaker/Endpoints", "Percent"),
    ("GPUUtilization", "/aws/sagemaker/Endpoints", "Percent"),
    ("GPUMemoryUtilization", "/aws/sagemaker/Endpoints", "Percent"),
    ("LoadedModelCount", "/aws/sagemaker/Endpoints", "None"),
];

/// What is wrong, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A statistic the API refuses.
    Statistic,
    /// A metric CloudWatch does not publish under that namespace, name and dimensions.
    MetricNotPublished,
    /// Units that make the target absurd (or match no data).
    Units,
    /// Dimensions (or the resource id) naming another endpoint or a variant it does not have.
    Dimensions,
    /// MinCapacity 0.
    MinZero,
    /// Scale-in cooldown shorter than scale-out.
    Cooldowns,
    /// MaxCapacity below the current instance count.
    MaxBelowCurrent,
    /// Two policies that fight.
    PoliciesFight,
    /// A policy for a variant with no scalable target.
    NoTarget,
    /// An asynchronous endpoint's backlog metric named with a VariantName dimension.
    BacklogVariantDimension,
    /// Scale to zero on an asynchronous endpoint without the step policy that wakes it.
    AsyncScaleToZero,
    /// A scale-in cooldown shorter than the invocation timeout (asynchronous endpoints).
    CooldownBelowTimeout,
}

/// One problem with the autoscaling of an endpoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Kind.
    pub kind: FindingKind,
    /// Variant.
    pub variant: String,
    /// Policy (empty for the scalable target).
    pub policy: String,
    /// What is wrong.
    pub problem: String,
    /// What will happen.
    pub consequence: String,
    /// The command that fixes it.
    pub fix: String,
}

/// What ListMetrics says of a metric a policy names.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricCheck {
    /// The metric as named.
    pub metric: MetricRef,
    /// Whether a metric with exactly these namespace, name and dimensions is listed.
    pub listed: bool,
    /// Other namespaces where the name with these dimensions is listed.
    pub elsewhere: Vec<String>,
}

/// A scalable target of a variant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetBounds {
    /// Variant.
    pub variant: String,
    /// MinCapacity.
    pub min: i32,
    /// MaxCapacity.
    pub max: i32,
}

/// Everything the lint looks at.
#[derive(Debug, Clone, Default)]
pub struct LintInput {
    /// Endpoint name.
    pub endpoint: String,
    /// Variants and their desired instance counts.
    pub variants: Vec<(String, i32)>,
    /// Scalable targets.
    pub targets: Vec<TargetBounds>,
    /// Policies in place.
    pub policies: Vec<PolicySpec>,
    /// ListMetrics answers for every metric the policies name.
    pub metrics: Vec<MetricCheck>,
    /// Whether the endpoint is asynchronous (its queue, scale to zero and long requests).
    pub asynchronous: bool,
}

/// Who a finding is about: the endpoint linted, a variant and a policy (or a pair of them).
pub(super) struct Ctx<'a> {
    pub(super) input: &'a LintInput,
    pub(super) variant: String,
    pub(super) policy: String,
}

impl Ctx<'_> {
    /// A finding about this variant and policy.
    pub(super) fn finding(&self, kind: FindingKind, problem: String, consequence: &str, fix: String) -> Finding {
        Finding {
            kind,
            variant: self.variant.clone(),
            policy: self.policy.clone(),
            problem,
            consequence: consequence.to_string(),
            fix,
        }
    }

    /// The `sagedeck autoscaling` command for this variant, with `args`.
    pub(super) fn cmd(&self, args: &str) -> String {
        format!(
            "sagedeck autoscaling {} --variant {} {args}",
            self.input.endpoint, self.variant
        )
    }

    /// The command that writes this policy again as a correct p99 latency policy.
    pub(super) fn p99_fix(&self, target_value: f64) -> String {
        let ms = if target_value < 1000.0 {
            target_value
        } else {
            target_value / 1000.0
        };
        self.cmd(&format!("--target-p99-ms {ms} --policy-name {}", self.policy))
    }
}
