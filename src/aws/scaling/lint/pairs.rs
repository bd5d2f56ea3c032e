//! Lints of pairs of policies on one variant that fight each other.

use crate::aws::scaling::spec::PolicySpec;

use super::finding::{Ctx, Finding, FindingKind, LintInput};
use super::tracked::metrics_of;

/// The metric a target-tracking policy tracks, as one comparable text.
fn tracked_key(p: &PolicySpec) -> Option<String> {
    let tt = p.target_tracking_scaling_policy_configuration.as_ref()?;
    if let Some(pre) = &tt.predefined_metric_specification {
        return Some(pre.predefined_metric_type.clone());
    }
    let ms = metrics_of(tt);
    (!ms.is_empty()).then(|| {
        ms.iter()
            .map(|m| format!("{:?} {:?}", m.metric, m.stat))
            .collect::<Vec<_>>()
            .join("+")
    })
}

/// Pairs of policies on one variant that fight: two target-tracking policies on the same metric
/// with different targets, or a target-tracking policy beside a step policy that scales in.
/// With `only`, just the pairs involving that policy.
pub(super) fn lint_pairs(input: &LintInput, policies: &[PolicySpec], only: Option<&str>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, a) in policies.iter().enumerate() {
        for b in &policies[i + 1..] {
            if a.resource_id != b.resource_id || only.is_some_and(|n| n != a.policy_name && n != b.policy_name) {
                continue;
            }
            let ctx = Ctx {
                input,
                variant: a.variant().unwrap_or_default().to_string(),
                policy: format!("{} + {}", a.policy_name, b.policy_name),
            };
            out.extend(competing_targets(&ctx, a, b));
            out.extend(step_scaling_in(&ctx, a, b));
        }
    }
    out
}

/// A target-tracking policy's TargetValue.
fn target(p: &PolicySpec) -> Option<f64> {
    p.target_tracking_scaling_policy_configuration
        .as_ref()
        .map(|t| t.target_value)
}

/// Two policies tracking the same metric with different targets.
fn competing_targets(ctx: &Ctx<'_>, a: &PolicySpec, b: &PolicySpec) -> Option<Finding> {
    let same_metric = tracked_key(a).is_some() && tracked_key(a) == tracked_key(b);
    (same_metric && target(a) != target(b)).then(|| {
        ctx.finding(
            FindingKind::PoliciesFight,
            format!(
                "{} and {} track the same metric with targets {} and {}",
                a.policy_name,
                b.policy_name,
                target(a).unwrap_or_default(),
                target(b).unwrap_or_default()
            ),
            "they fight: the lower target scales out, the higher one keeps asking to scale in, and the count follows whichever alarm fired last",
            ctx.cmd(&format!("--remove-policy {}", b.policy_name)),
        )
    })
}

/// Whether a policy is a step policy with a step that removes instances.
fn scales_in(p: &PolicySpec) -> bool {
    p.step_scaling_policy_configuration
        .as_ref()
        .is_some_and(|s| s.step_adjustments.iter().any(|a| a.scaling_adjustment < 0))
}

/// A step policy that scales in beside a target-tracking policy.
fn step_scaling_in(ctx: &Ctx<'_>, a: &PolicySpec, b: &PolicySpec) -> Option<Finding> {
    let step = if a.is_target_tracking() && scales_in(b) {
        b
    } else if b.is_target_tracking() && scales_in(a) {
        a
    } else {
        return None;
    };
    Some(ctx.finding(
        FindingKind::PoliciesFight,
        format!(
            "step policy {} scales in while a target-tracking policy holds the same variant",
            step.policy_name
        ),
        "they fight: the step policy removes instances the target-tracking policy adds back, a cycle of cold starts",
        ctx.cmd(&format!("--remove-policy {}", step.policy_name)),
    ))
}
