//! The autoscaling lint: whether the scaling an operator relies on can ever fire. Every policy
//! of an endpoint (or a PutScalingPolicy request before anyone sends it) is checked against the
//! endpoint's variants, its scalable targets and what CloudWatch publishes (ListMetrics,
//! gathered by the caller into [`MetricCheck`]s). Each [`Finding`] says what is wrong, what
//! will happen, and the sagedeck command that fixes it. `shape.rs` holds the lints of an
//! asynchronous endpoint's queue, scale to zero and long requests.

mod finding;
mod pairs;
mod policy;
mod shape;
#[cfg(test)]
mod tests;
mod tracked;

use crate::aws::scaling::spec::PolicySpec;
use pairs::lint_pairs;
use policy::lint_target;
use shape::lint_shape;

pub use finding::{API_STATISTICS, Finding, FindingKind, LintInput, MetricCheck, SAGEMAKER_METRICS, TargetBounds};
pub use policy::lint_policy;
pub use shape::{ASYNC_BACKLOG_METRICS, ASYNC_INVOCATION_TIMEOUT_S};
pub use tracked::{Tracked, is_cloudwatch_stat, metrics_of, sagemaker_metric};

/// Lints everything of an endpoint: each target, each policy, and each pair of policies.
pub fn lint(input: &LintInput) -> Vec<Finding> {
    let mut out = Vec::new();
    for t in &input.targets {
        out.extend(lint_target(input, t));
    }
    for p in &input.policies {
        out.extend(lint_policy(input, p));
    }
    out.extend(lint_pairs(input, &input.policies, None));
    out.extend(lint_shape(input, &input.policies));
    out
}

/// Lints a PutScalingPolicy request before it is sent: the request itself, its variant's target,
/// and whether it fights the policies in place (one of the same name is replaced by it).
pub fn lint_request(input: &LintInput, request: &PolicySpec) -> Vec<Finding> {
    let mut out = lint_policy(input, request);
    let variant = request.variant().unwrap_or_default();
    for t in input.targets.iter().filter(|t| t.variant == variant) {
        out.extend(lint_target(input, t));
    }
    let mut policies: Vec<PolicySpec> = input
        .policies
        .iter()
        .filter(|p| !(p.policy_name == request.policy_name && p.resource_id == request.resource_id))
        .cloned()
        .collect();
    policies.push(request.clone());
    out.extend(lint_pairs(input, &policies, Some(&request.policy_name)));
    out.extend(lint_shape(input, std::slice::from_ref(request)));
    out
}
