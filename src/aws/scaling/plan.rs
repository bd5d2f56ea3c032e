//! Planning a change to the autoscaling of one variant, shared by `sagedeck autoscaling
//! ENDPOINT --variant V ...` and the console's Scaling pane: a [`ChangeRequest`] (what the
//! operator asked) is checked against what was read ([`EndpointScaling`]) and becomes the
//! [`ScalingChange`]s to send, or a message saying why not (nothing is sent then); each change
//! reads as one line before → after ([`change_lines`]).

use crate::aws::scaling::change::{
    ScalingChange, ScalingSnapshot, alarm_text, invocations_policy, p99_policy, policy_text, provisioned_policy,
};
use crate::aws::scaling::check::EndpointScaling;
use crate::aws::scaling::scope::{NO_CAPACITY_METRIC, PROVISIONED_DIMENSION};
use crate::aws::scaling::zero::read::InstanceScaling;

/// What the operator asks of one variant's autoscaling (each field optional; the CLI's flags).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangeRequest {
    /// MinCapacity.
    pub min: Option<i32>,
    /// MaxCapacity.
    pub max: Option<i32>,
    /// Target tracking on invocations per instance (per minute).
    pub target_invocations: Option<f64>,
    /// Target tracking on ModelLatency p99, in milliseconds.
    pub target_p99_ms: Option<f64>,
    /// Target tracking on a serverless variant's provisioned concurrency utilization (0 to 1).
    pub target_provisioned_utilization: Option<f64>,
    /// Scale-in cooldown (s).
    pub scale_in_cooldown: Option<i32>,
    /// Scale-out cooldown (s).
    pub scale_out_cooldown: Option<i32>,
    /// The policy written (or whose cooldowns change).
    pub policy_name: Option<String>,
    /// A policy to delete.
    pub remove_policy: Option<String>,
    /// The desired instance count now.
    pub instances: Option<i32>,
}

/// The scalable target's bounds the `--min`/`--max` flags ask for, completed from the current
/// ones (None when neither flag is given).
fn plan_bounds(args: &ChangeRequest, seen: &ScalingSnapshot, variant: &str) -> Result<Option<(i32, i32)>, String> {
    if args.min.is_none() && args.max.is_none() {
        return Ok(None);
    }
    let (min, max) = match (
        args.min.or(seen.bounds.map(|b| b.0)),
        args.max.or(seen.bounds.map(|b| b.1)),
    ) {
        (Some(a), Some(b)) => (a, b),
        _ => {
            return Err(format!(
                "{variant} has no scalable target yet: give both --min and --max"
            ));
        }
    };
    if min < 0 || max < 1 || min > max {
        return Err(format!("--min {min} --max {max}: need 0 <= min <= max and max >= 1"));
    }
    Ok(Some((min, max)))
}

/// The policy the cooldown flags edit when no target flag is given.
fn cooldown_policy(
    args: &ChangeRequest,
    seen: &ScalingSnapshot,
    variant: &str,
) -> Result<Option<ScalingChange>, String> {
    if args.scale_in_cooldown.is_none() && args.scale_out_cooldown.is_none() {
        return Ok(None);
    }
    let tracking: Vec<_> = seen.policies.iter().filter(|p| p.is_target_tracking()).collect();
    let policy = match (&args.policy_name, tracking.as_slice()) {
        (Some(n), _) => tracking.iter().find(|p| &p.policy_name == n).copied(),
        (None, [only]) => Some(*only),
        _ => None,
    }
    .ok_or_else(|| {
        format!(
            "which policy of {variant}? give --policy-name (target-tracking policies: {})",
            tracking
                .iter()
                .map(|p| p.policy_name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    let mut spec = policy.clone();
    if let Some(tt) = spec.target_tracking_scaling_policy_configuration.as_mut() {
        tt.scale_in_cooldown = args.scale_in_cooldown.or(tt.scale_in_cooldown);
        tt.scale_out_cooldown = args.scale_out_cooldown.or(tt.scale_out_cooldown);
    }
    Ok(Some(ScalingChange::Policy { spec: Box::new(spec) }))
}

/// Most instances a variant's scalable target or count may ask for: sagedeck's bound, far
/// above SageMaker's default instance quotas (a larger number is a typo, not a plan).
pub const MAX_INSTANCES: i32 = 1000;
/// Largest p99 target in ms: SageMaker ends a real-time invocation after 60 s, so a p99 above
/// it is never measured and the policy never scales out.
pub const MAX_P99_TARGET_MS: f64 = 60_000.0;
/// Application Auto Scaling's TargetValue range.
const TARGET_VALUE_RANGE: std::ops::RangeInclusive<f64> = 8.515920e-109..=1.174271e108;
/// Longest cooldown: one day.
const MAX_COOLDOWN_S: i32 = 86_400;

/// The request within Application Auto Scaling's limits (PolicyName 1 to 256 printable
/// characters, TargetValue's range) and SageMaker's (see the constants); the message names
/// the rule broken. Checked before anything is read or sent.
pub fn check_limits(args: &ChangeRequest) -> Result<(), String> {
    for (flag, name) in [
        ("--policy-name", &args.policy_name),
        ("--remove-policy", &args.remove_policy),
    ] {
        let Some(name) = name else { continue };
        let chars = name.chars().count();
        if chars == 0 || chars > 256 || name.chars().any(char::is_control) {
            return Err(format!(
                "{flag}: a policy name is 1 to 256 printable characters (Application Auto Scaling's PolicyName; this one has {chars})"
            ));
        }
    }
    for (flag, value) in [
        ("--min", args.min),
        ("--max", args.max),
        ("--instances", args.instances),
    ] {
        if let Some(v) = value.filter(|v| *v > MAX_INSTANCES) {
            return Err(format!("{flag} {v}: at most {MAX_INSTANCES} instances per variant"));
        }
    }
    if let Some(ms) = args.target_p99_ms.filter(|ms| *ms > MAX_P99_TARGET_MS) {
        return Err(format!(
            "--target-p99-ms {ms}: at most {MAX_P99_TARGET_MS} ms (a real-time invocation ends after 60 s, so a higher p99 never happens)"
        ));
    }
    if let Some(n) = args
        .target_invocations
        .filter(|n| n.is_finite() && *n > 0.0 && !TARGET_VALUE_RANGE.contains(n))
    {
        return Err(format!(
            "--target-invocations {n}: Application Auto Scaling takes a TargetValue from 8.515920e-109 to 1.174271e108"
        ));
    }
    for (flag, value) in [
        ("--scale-in-cooldown", args.scale_in_cooldown),
        ("--scale-out-cooldown", args.scale_out_cooldown),
    ] {
        if let Some(v) = value.filter(|v| !(0..=MAX_COOLDOWN_S).contains(v)) {
            return Err(format!("{flag} {v}: a cooldown is 0 to {MAX_COOLDOWN_S} seconds"));
        }
    }
    Ok(())
}

/// Every change the arguments ask for, checked against what was read.
pub fn plan(args: &ChangeRequest, state: &EndpointScaling, variant: &str) -> Result<Vec<ScalingChange>, String> {
    check_limits(args)?;
    let seen = ScalingSnapshot::of(state, variant);
    let endpoint = state.info.name.as_str();
    let mut out = Vec::new();
    let bounds = plan_bounds(args, &seen, variant)?;
    if let Some((min, max)) = bounds {
        out.push(ScalingChange::Bounds { min, max });
    }
    let bounds = bounds.or(seen.bounds);
    let serverless = state.info.variant(variant).is_some_and(|v| v.serverless.is_some());
    check_kind(args, variant, serverless)?;
    let mut policies = plan_policies(args, &seen, endpoint, variant, bounds)?;
    if serverless {
        for change in &mut policies {
            if let ScalingChange::Policy { spec } = change {
                spec.scalable_dimension = PROVISIONED_DIMENSION.into();
            }
        }
    }
    out.extend(policies);
    if let Some(name) = &args.remove_policy {
        if !seen.policies.iter().any(|p| &p.policy_name == name) {
            return Err(format!("{variant} has no policy {name}"));
        }
        out.push(ScalingChange::RemovePolicy { name: name.clone() });
    }
    if let Some(count) = args.instances {
        check_instances(count, state, variant, bounds)?;
        out.push(ScalingChange::Instances { count });
    }
    Ok(out)
}

/// The flags that fit the variant: a serverless variant scales its provisioned concurrency
/// (no instances, no invocations per instance), an instance-backed one has none.
fn check_kind(args: &ChangeRequest, variant: &str, serverless: bool) -> Result<(), String> {
    if serverless {
        if args.target_invocations.is_some() {
            return Err(format!(
                "{variant} is serverless: it has no instances to count invocations per; track --target-provisioned-utilization (0 to 1) instead"
            ));
        }
        if args.instances.is_some() {
            return Err(format!(
                "{variant} is serverless: it has no instance count; set its provisioned concurrency with `sagedeck serverless ENDPOINT --provisioned N`"
            ));
        }
    } else if args.target_provisioned_utilization.is_some() {
        return Err(format!(
            "{variant} is not serverless: --target-provisioned-utilization tracks a serverless variant's provisioned concurrency"
        ));
    }
    match args.target_provisioned_utilization {
        Some(u) if !(u > 0.0 && u <= 1.0) => Err(format!(
            "--target-provisioned-utilization {u}: a utilization is above 0 and at most 1"
        )),
        _ => Ok(()),
    }
}

/// The policies the target flags write (or, without them, the one the cooldown flags edit),
/// with `bounds` the scalable target's after the change.
fn plan_policies(
    args: &ChangeRequest,
    seen: &ScalingSnapshot,
    endpoint: &str,
    variant: &str,
    bounds: Option<(i32, i32)>,
) -> Result<Vec<ScalingChange>, String> {
    if args.target_invocations.is_some() && args.target_p99_ms.is_some() && args.policy_name.is_some() {
        return Err("--policy-name names one policy: give --target-invocations and --target-p99-ms separately".into());
    }
    for (value, what) in [
        (args.target_invocations, "--target-invocations"),
        (args.target_p99_ms, "--target-p99-ms"),
        (args.target_provisioned_utilization, "--target-provisioned-utilization"),
    ] {
        let Some(v) = value else { continue };
        if !(v.is_finite() && v > 0.0) {
            return Err(format!("{what} must be a positive number (got {v})"));
        }
        if bounds.is_none() {
            return Err(format!(
                "{variant} has no scalable target: register one with --min N --max M"
            ));
        }
    }
    let mut out = Vec::new();
    if let Some(n) = args.target_invocations {
        let name = args
            .policy_name
            .clone()
            .unwrap_or_else(|| "sagedeck-invocations".into());
        let spec = invocations_policy(endpoint, variant, &name, n, policy_cooldowns(args, seen, &name));
        out.push(ScalingChange::Policy { spec: Box::new(spec) });
    }
    if let Some(ms) = args.target_p99_ms {
        let name = args
            .policy_name
            .clone()
            .unwrap_or_else(|| "sagedeck-p99-latency".into());
        let spec = p99_policy(endpoint, variant, &name, ms, policy_cooldowns(args, seen, &name));
        out.push(ScalingChange::Policy { spec: Box::new(spec) });
    }
    if let Some(u) = args.target_provisioned_utilization {
        let name = args
            .policy_name
            .clone()
            .unwrap_or_else(|| "sagedeck-provisioned-utilization".into());
        let spec = provisioned_policy(endpoint, variant, &name, u, policy_cooldowns(args, seen, &name));
        out.push(ScalingChange::Policy { spec: Box::new(spec) });
    }
    if args.target_invocations.is_none()
        && args.target_p99_ms.is_none()
        && args.target_provisioned_utilization.is_none()
    {
        out.extend(cooldown_policy(args, seen, variant)?);
    }
    Ok(out)
}

/// The cooldowns of a policy written under `name`: the flags', else those of the policy it
/// replaces, else 300 s in and 60 s out.
fn policy_cooldowns(args: &ChangeRequest, seen: &ScalingSnapshot, name: &str) -> (Option<i32>, Option<i32>) {
    let old = seen.policies.iter().find(|p| p.policy_name == name);
    let tt = old.and_then(|p| p.target_tracking_scaling_policy_configuration.as_ref());
    (
        args.scale_in_cooldown
            .or(tt.and_then(|t| t.scale_in_cooldown))
            .or(Some(300)),
        args.scale_out_cooldown
            .or(tt.and_then(|t| t.scale_out_cooldown))
            .or(Some(60)),
    )
}

/// Whether the variant's instance count can be set to `count` now: within the bounds, not
/// negative, and the endpoint InService.
fn check_instances(
    count: i32,
    state: &EndpointScaling,
    variant: &str,
    bounds: Option<(i32, i32)>,
) -> Result<(), String> {
    if let Some((min, max)) = bounds.filter(|(min, max)| count < *min || count > *max) {
        return Err(format!(
            "--instances {count} is outside {variant}'s MinCapacity {min} - MaxCapacity {max}: autoscaling would undo it; change the bounds with --min/--max first"
        ));
    }
    if count < 0 {
        return Err(format!("--instances must be >= 0 (got {count})"));
    }
    if state.info.status != "InService" {
        return Err(format!(
            "{} is {}; its instance count can change only when it is InService",
            state.info.name, state.info.status
        ));
    }
    Ok(())
}

/// The line of a ZeroInstances change: the variant's ManagedInstanceScaling before → after, and
/// what is sent for it.
fn zero_instances_line(variant: &str, from_config: &str, was: Option<&InstanceScaling>, max: Option<i32>) -> String {
    let n = |c: Option<i32>| c.map(|c| c.to_string()).unwrap_or_else(|| "?".into());
    let before = match was {
        None => "(none)".to_string(),
        Some(m) => format!(
            "{} {}-{}",
            if m.enabled { "ENABLED" } else { "DISABLED" },
            n(m.min),
            n(m.max)
        ),
    };
    let max = max.map_or_else(|| "its instance count".to_string(), |m| m.to_string());
    format!(
        "variant {variant} ManagedInstanceScaling: {before} → ENABLED 0-{max} (a copy of endpoint config {from_config}, then UpdateEndpoint onto it)"
    )
}

/// One line per change: before → after.
pub fn change_lines(variant: &str, changes: &[ScalingChange], seen: &ScalingSnapshot) -> Vec<String> {
    let policy = |name: &str| {
        seen.policies
            .iter()
            .find(|p| p.policy_name == name)
            .map(policy_text)
            .unwrap_or_else(|| "(none)".into())
    };
    changes
        .iter()
        .map(|c| match c {
            ScalingChange::Bounds { min, max } => format!(
                "{variant} scalable target: {} → min {min}, max {max}",
                seen.bounds
                    .map(|(a, b)| format!("min {a}, max {b}"))
                    .unwrap_or_else(|| "(not registered)".into())
            ),
            ScalingChange::Policy { spec } => format!(
                "{variant} policy {}: {} → {}",
                spec.policy_name,
                policy(&spec.policy_name),
                policy_text(spec)
            ),
            ScalingChange::RemovePolicy { name } => format!("{variant} policy {name}: {} → (removed)", policy(name)),
            ScalingChange::Instances { count } => format!(
                "{variant} desired instances: {} → {count}",
                seen.desired_instances
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| "-".into())
            ),
            ScalingChange::WakeAlarm { name, policy_name } => format!(
                "{variant} wake alarm {name}: {} → {NO_CAPACITY_METRIC} Sum 60s >= 1 (1 of 1) firing {policy_name}",
                seen.alarms
                    .iter()
                    .find(|a| &a.name == name)
                    .map(alarm_text)
                    .unwrap_or_else(|| "(none)".into())
            ),
            ScalingChange::ZeroInstances {
                variant: hosting,
                from_config,
                was,
                max,
            } => zero_instances_line(hosting, from_config, was.as_ref(), *max),
        })
        .collect()
}
