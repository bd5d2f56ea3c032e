//! Lints that depend on the endpoint's shape: an asynchronous endpoint's backlog metrics named
//! with a VariantName dimension (SageMaker publishes them per endpoint only), scale to zero on
//! an asynchronous endpoint without the step policy that wakes it, and a scale-in cooldown
//! shorter than the invocation timeout.

use crate::aws::scaling::spec::PolicySpec;

use super::finding::{Ctx, Finding, FindingKind, LintInput};
use super::tracked::metrics_of;

/// The queue metrics of an asynchronous endpoint: published with the EndpointName dimension
/// only.
pub const ASYNC_BACKLOG_METRICS: [&str; 4] = [
    "ApproximateBacklogSize",
    "ApproximateBacklogSizePerInstance",
    "ApproximateAgeOfOldestRequest",
    "HasBacklogWithoutCapacity",
];

/// How long an asynchronous request may run by default (InvocationTimeoutSeconds, 15 minutes).
pub const ASYNC_INVOCATION_TIMEOUT_S: i32 = 900;

/// The lints of the endpoint's shape over every target and policy.
pub(super) fn lint_shape(input: &LintInput, policies: &[PolicySpec]) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in policies {
        out.extend(backlog_dimensions(input, p));
    }
    if input.asynchronous {
        for p in policies {
            out.extend(cooldown_below_timeout(input, p));
        }
        out.extend(scale_to_zero_without_wake(input, policies));
    }
    out
}

/// The context of a finding about policy `p`.
fn ctx_of<'a>(input: &'a LintInput, p: &PolicySpec) -> Ctx<'a> {
    Ctx {
        input,
        variant: p.variant().unwrap_or_default().to_string(),
        policy: p.policy_name.clone(),
    }
}

/// A backlog metric a target-tracking policy names with a VariantName dimension.
fn backlog_dimensions(input: &LintInput, p: &PolicySpec) -> Vec<Finding> {
    let Some(tt) = &p.target_tracking_scaling_policy_configuration else {
        return Vec::new();
    };
    let ctx = ctx_of(input, p);
    metrics_of(tt)
        .into_iter()
        .filter(|m| ASYNC_BACKLOG_METRICS.contains(&m.metric.metric_name.as_str()))
        .filter(|m| m.metric.dimensions.iter().any(|d| d.name == "VariantName"))
        .map(|m| {
            ctx.finding(
                FindingKind::BacklogVariantDimension,
                format!(
                    "{} is given a VariantName dimension: SageMaker publishes it with EndpointName only",
                    m.metric.metric_name
                ),
                "no data ever matches: the policy's alarms stay INSUFFICIENT_DATA and the queue never scales the variant",
                format!(
                    "write the policy's CustomizedMetricSpecification with Dimensions [{{\"Name\": \"EndpointName\", \"Value\": \"{}\"}}] only",
                    input.endpoint
                ),
            )
        })
        .collect()
}

/// A scale-in cooldown shorter than the longest an asynchronous invocation may run
/// ([`ASYNC_INVOCATION_TIMEOUT_S`] unless the request says otherwise): instances are removed
/// while requests they took are still running.
fn cooldown_below_timeout(input: &LintInput, p: &PolicySpec) -> Vec<Finding> {
    let timeout = ASYNC_INVOCATION_TIMEOUT_S;
    let scale_in = match (
        &p.target_tracking_scaling_policy_configuration,
        &p.step_scaling_policy_configuration,
    ) {
        (Some(tt), _) if tt.disable_scale_in != Some(true) => tt.scale_in_cooldown.unwrap_or(300),
        (None, Some(step)) if step.step_adjustments.iter().any(|a| a.scaling_adjustment < 0) => {
            step.cooldown.unwrap_or(300)
        }
        _ => return Vec::new(),
    };
    if scale_in >= timeout {
        return Vec::new();
    }
    let ctx = ctx_of(input, p);
    vec![ctx.finding(
        FindingKind::CooldownBelowTimeout,
        format!("scale-in cooldown {scale_in}s is shorter than the invocation timeout {timeout}s"),
        "the variant scales in again before requests taken during the last scale-in can finish: long requests are cut off or retried",
        ctx.cmd(&format!("--policy-name {} --scale-in-cooldown {timeout}", p.policy_name)),
    )]
}

/// An asynchronous variant whose scalable target allows zero instances but that has no step
/// policy (driven by an alarm on HasBacklogWithoutCapacity) to scale it out of zero.
fn scale_to_zero_without_wake(input: &LintInput, policies: &[PolicySpec]) -> Vec<Finding> {
    input
        .targets
        .iter()
        .filter(|t| t.min == 0)
        .filter(|t| {
            !policies
                .iter()
                .any(|p| p.variant() == Some(t.variant.as_str()) && p.step_scaling_policy_configuration.is_some())
        })
        .map(|t| {
            let ctx = Ctx {
                input,
                variant: t.variant.clone(),
                policy: String::new(),
            };
            ctx.finding(
                FindingKind::AsyncScaleToZero,
                "MinCapacity is 0 on an asynchronous endpoint with no step scaling policy to wake it".into(),
                "once at zero instances target tracking cannot scale out (no instance publishes a backlog per instance): requests wait in the queue until they expire",
                format!(
                    "add a StepScaling policy on the variant and a CloudWatch alarm on HasBacklogWithoutCapacity (EndpointName={}) >= 1 whose action is that policy, or {}",
                    input.endpoint,
                    ctx.cmd(&format!("--min 1 --max {}", t.max.max(1)))
                ),
            )
        })
        .collect()
}
