//! Planning a change to one inference component's autoscaling, shared by `sagedeck autoscaling
//! ENDPOINT --inference-component IC ...` and the console: bounds, target tracking on invocations
//! per copy, and `--scale-to-zero`, which creates (or rewrites) every piece the doctor finds
//! missing or wrong, the variant's ManagedInstanceScaling first (a new endpoint configuration
//! and an UpdateEndpoint, `instances.rs`). The changes go through the scaling change path
//! (`change.rs`).

use crate::aws::scaling::change::ScalingChange;
use crate::aws::scaling::scope::{INVOCATIONS_PER_COPY, component_resource_id};
use crate::aws::scaling::spec::{PolicySpec, PredefinedMetric, StepAdjustment, StepScaling, TargetTracking};
use crate::aws::scaling::zero::doctor::{Piece, PieceState, doctor, wake_policy};
use crate::aws::scaling::zero::read::ComponentScaling;

/// Most copies a component's scalable target may ask for (a larger number is a typo).
pub const MAX_COPIES: i32 = 1000;
/// The target invocations per copy per minute `--scale-to-zero` uses when none is given.
pub const DEFAULT_INVOCATIONS_PER_COPY: f64 = 10.0;
/// The name of the target-tracking policy sagedeck writes on a component.
pub const TRACKING_POLICY: &str = "sagedeck-invocations-per-copy";
/// The name of the step policy that wakes a component.
pub const WAKE_POLICY: &str = "sagedeck-wake";

/// What the operator asks of one component's autoscaling (the CLI's flags).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ComponentRequest {
    /// MinCapacity (copies).
    pub min: Option<i32>,
    /// MaxCapacity (copies).
    pub max: Option<i32>,
    /// Target tracking on invocations per copy (per minute).
    pub target_invocations_per_copy: Option<f64>,
    /// The target-tracking policy's name.
    pub policy_name: Option<String>,
    /// Create every missing piece of scale to zero.
    pub scale_to_zero: bool,
}

/// The name of the alarm that wakes `component`.
pub fn wake_alarm_name(component: &str) -> String {
    format!("sagedeck-wake-{component}")
}

/// Target tracking on `SageMakerInferenceComponentInvocationsPerCopy`.
pub fn invocations_per_copy_policy(component: &str, name: &str, target: f64) -> PolicySpec {
    PolicySpec {
        policy_name: name.to_string(),
        service_namespace: "sagemaker".into(),
        resource_id: component_resource_id(component),
        scalable_dimension: crate::aws::scaling::scope::COMPONENT_DIMENSION.into(),
        policy_type: Some("TargetTrackingScaling".into()),
        target_tracking_scaling_policy_configuration: Some(TargetTracking {
            target_value: target,
            predefined_metric_specification: Some(PredefinedMetric {
                predefined_metric_type: INVOCATIONS_PER_COPY.into(),
                resource_label: None,
            }),
            scale_in_cooldown: Some(300),
            scale_out_cooldown: Some(60),
            ..Default::default()
        }),
        step_scaling_policy_configuration: None,
    }
}

/// The step policy of AWS's scale-to-zero documentation: ChangeInCapacity +1, cooldown 60 s.
pub fn wake_step_policy(component: &str, name: &str) -> PolicySpec {
    PolicySpec {
        policy_name: name.to_string(),
        service_namespace: "sagemaker".into(),
        resource_id: component_resource_id(component),
        scalable_dimension: crate::aws::scaling::scope::COMPONENT_DIMENSION.into(),
        policy_type: Some("StepScaling".into()),
        target_tracking_scaling_policy_configuration: None,
        step_scaling_policy_configuration: Some(StepScaling {
            adjustment_type: Some("ChangeInCapacity".into()),
            step_adjustments: vec![StepAdjustment {
                metric_interval_lower_bound: Some(0.0),
                metric_interval_upper_bound: None,
                scaling_adjustment: 1,
            }],
            cooldown: Some(60),
            metric_aggregation_type: Some("Maximum".into()),
        }),
    }
}

/// The bounds the request asks for, completed from the current ones.
fn plan_bounds(req: &ComponentRequest, s: &ComponentScaling) -> Result<Option<(i32, i32)>, String> {
    let zero_missing = req.scale_to_zero && s.bounds.is_none_or(|(min, _)| min > 0);
    if req.min.is_none() && req.max.is_none() && !zero_missing {
        return Ok(None);
    }
    if req.scale_to_zero && req.min.is_some_and(|m| m > 0) {
        return Err(format!(
            "--scale-to-zero needs MinCapacity 0, not --min {}",
            req.min.unwrap_or(0)
        ));
    }
    let min = req.min.or(zero_missing.then_some(0)).or(s.bounds.map(|b| b.0));
    let fallback_max = s.desired_copies.unwrap_or(1).max(1);
    let max = req
        .max
        .or(s.bounds.map(|b| b.1))
        .or(zero_missing.then_some(fallback_max));
    let (Some(min), Some(max)) = (min, max) else {
        return Err(format!(
            "{} has no scalable target yet: give both --min and --max",
            s.component
        ));
    };
    if min < 0 || max < 1 || min > max {
        return Err(format!("--min {min} --max {max}: need 0 <= min <= max and max >= 1"));
    }
    if max > MAX_COPIES {
        return Err(format!("--max {max}: at most {MAX_COPIES} copies per component"));
    }
    Ok(Some((min, max)))
}

/// The target-tracking policy the request writes.
fn plan_tracking(
    req: &ComponentRequest,
    s: &ComponentScaling,
    tracking_ok: bool,
) -> Result<Option<ScalingChange>, String> {
    if let Some(n) = req.target_invocations_per_copy
        && !(n.is_finite() && n > 0.0)
    {
        return Err(format!(
            "--target-invocations-per-copy must be a positive number (got {n})"
        ));
    }
    let wanted = match (req.target_invocations_per_copy, req.scale_to_zero && !tracking_ok) {
        (Some(n), _) => n,
        (None, true) => DEFAULT_INVOCATIONS_PER_COPY,
        (None, false) => return Ok(None),
    };
    let existing = s.policies.iter().find(|p| p.spec.is_target_tracking());
    let name = req
        .policy_name
        .clone()
        .or_else(|| existing.map(|p| p.spec.policy_name.clone()))
        .unwrap_or_else(|| TRACKING_POLICY.into());
    let spec = invocations_per_copy_policy(&s.component, &name, wanted);
    Ok(Some(ScalingChange::Policy { spec: Box::new(spec) }))
}

/// The change that puts the variant's ManagedInstanceScaling at MinInstanceCount 0, its
/// MaxInstanceCount kept.
fn zero_instances(s: &ComponentScaling) -> Result<ScalingChange, String> {
    let Some(from_config) = s.endpoint_config.clone() else {
        return Err(format!(
            "{}: the endpoint's configuration was not read; its ManagedInstanceScaling cannot be changed",
            s.endpoint
        ));
    };
    Ok(ScalingChange::ZeroInstances {
        variant: s.variant.clone(),
        from_config,
        was: s.instance_scaling.clone(),
        max: s.instance_scaling.as_ref().and_then(|m| m.max),
    })
}

/// Every change the request asks for, checked against what was read. With `--scale-to-zero`,
/// the pieces the doctor finds missing or wrong (see the module docs).
pub fn plan_component(req: &ComponentRequest, s: &ComponentScaling) -> Result<Vec<ScalingChange>, String> {
    let reports = doctor(s);
    let ok = |piece: Piece| reports.iter().any(|r| r.piece == piece && r.state == PieceState::Ok);
    let mut out = Vec::new();
    if req.scale_to_zero && !ok(Piece::InstanceScaling) {
        out.push(zero_instances(s)?);
    }
    let bounds = plan_bounds(req, s)?;
    if let Some((min, max)) = bounds {
        out.push(ScalingChange::Bounds { min, max });
    }
    let tracking = plan_tracking(req, s, ok(Piece::TargetTracking))?;
    if (tracking.is_some() || req.scale_to_zero) && bounds.or(s.bounds).is_none() {
        return Err(format!(
            "{} has no scalable target: register one with --min N --max M",
            s.component
        ));
    }
    out.extend(tracking);
    if req.scale_to_zero {
        let step = wake_policy(s);
        let step_name = match step {
            Some(p) if ok(Piece::StepPolicy) => p.spec.policy_name.clone(),
            Some(p) => {
                let spec = wake_step_policy(&s.component, &p.spec.policy_name);
                out.push(ScalingChange::Policy { spec: Box::new(spec) });
                p.spec.policy_name.clone()
            }
            None => {
                out.push(ScalingChange::Policy {
                    spec: Box::new(wake_step_policy(&s.component, WAKE_POLICY)),
                });
                WAKE_POLICY.to_string()
            }
        };
        if !ok(Piece::WakeAlarm) || !ok(Piece::StepPolicy) {
            let name = s
                .alarms
                .first()
                .map(|a| a.name.clone())
                .unwrap_or_else(|| wake_alarm_name(&s.component));
            out.push(ScalingChange::WakeAlarm {
                name,
                policy_name: step_name,
            });
        }
    }
    if out.is_empty() {
        return Err(format!(
            "nothing to change for {}: give --min/--max, --target-invocations-per-copy or --scale-to-zero",
            s.component
        ));
    }
    Ok(out)
}
