//! Application Auto Scaling (awsJson1_1, `x-amz-target: AnyScaleFrontendService.<Op>`) for
//! SageMaker variants, with target-tracking policies that act: when the tracked metric stays past
//! its target for the cooldown, the variant's instance count changes through Updating and an
//! activity is recorded.
//!
//! Sandbox choices (documented): a resource id that names no existing endpoint variant is refused
//! with `ValidationException` `The target resource endpoint/X/variant/Y does not exist.`; scale-in
//! happens when the metric stays below 90% of the target.

use std::collections::BTreeMap;

use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Value, json};

use super::metrics::SeriesKey;
use super::state::scale_variant;
use super::wire::{ApiError, Protocol, decode_json, json_ok, parse_input};
use super::{Sandbox, now_epoch};

/// The only scalable dimension of a SageMaker variant.
pub const VARIANT_DIMENSION: &str = "sagemaker:variant:DesiredInstanceCount";

type TargetKey = (String, String, String);

/// A registered scalable target.
#[derive(Debug, Clone)]
pub struct ScalableTarget {
    /// Min capacity.
    pub min: i64,
    /// Max capacity.
    pub max: i64,
    /// Role.
    pub role_arn: String,
    /// Registration time.
    pub creation_time: f64,
    /// ARN.
    pub arn: String,
    /// SuspendedState as sent.
    pub suspended: Value,
}

/// A scaling policy and its evaluation state.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Name.
    pub name: String,
    /// ARN.
    pub arn: String,
    /// Target it scales.
    pub target: TargetKey,
    /// TargetTrackingScaling | StepScaling.
    pub policy_type: String,
    /// Configuration as sent.
    pub config: Value,
    /// Creation time.
    pub creation_time: f64,
    breach_since: Option<f64>,
    under_since: Option<f64>,
}

/// A scaling activity.
#[derive(Debug, Clone)]
pub struct Activity {
    id: String,
    target: TargetKey,
    description: String,
    cause: String,
    start: f64,
    end: f64,
    status: String,
}

/// Targets, policies, activities.
#[derive(Debug, Default)]
pub struct AutoScaling {
    targets: BTreeMap<TargetKey, ScalableTarget>,
    policies: Vec<Policy>,
    activities: Vec<Activity>,
    last_scaling: BTreeMap<TargetKey, f64>,
    last_evaluation: f64,
}

impl AutoScaling {
    /// Registers a SageMaker variant target with a target-tracking policy on
    /// InvocationsPerInstance (the demo fleet's autoscaling), bypassing the wire.
    pub fn seed_target_tracking(
        &mut self,
        sb: &Sandbox,
        resource_id: &str,
        min: i64,
        max: i64,
        target_value: f64,
        created: f64,
    ) {
        let key: TargetKey = ("sagemaker".into(), resource_id.into(), VARIANT_DIMENSION.into());
        self.targets.insert(
            key.clone(),
            ScalableTarget {
                min,
                max,
                role_arn: format!("arn:aws:iam::{}:role/SageMakerAutoScaling", sb.config.account),
                creation_time: created,
                arn: format!("arn:aws:application-autoscaling:{}:{}:scalable-target/demo", sb.config.region, sb.config.account),
                suspended: json!({"DynamicScalingInSuspended": false, "DynamicScalingOutSuspended": false, "ScheduledScalingSuspended": false}),
            },
        );
        let name = "mcp-endpoint-invocations-policy".to_string();
        self.policies.push(Policy {
            arn: format!(
                "arn:aws:autoscaling:{}:{}:scalingPolicy:demo:resource/sagemaker/{resource_id}:policyName/{name}",
                sb.config.region, sb.config.account
            ),
            name,
            target: key,
            policy_type: "TargetTrackingScaling".into(),
            config: json!({
                "TargetValue": target_value,
                "PredefinedMetricSpecification": {"PredefinedMetricType": "SageMakerVariantInvocationsPerInstance"},
                "ScaleInCooldown": 300, "ScaleOutCooldown": 60,
            }),
            creation_time: created,
            breach_since: None,
            under_since: None,
        });
    }
}

fn aas_error(code: &str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, code, message).in_namespace("com.amazonaws.applicationautoscaling")
}

fn no_target(key: &TargetKey) -> ApiError {
    aas_error(
        "ObjectNotFoundException",
        format!(
            "No scalable target registered for service namespace: {}, resource ID: {}, scalable dimension: {}",
            key.0, key.1, key.2
        ),
    )
}

/// Serves one Application Auto Scaling operation.
pub fn handle(sb: &Sandbox, op: &str, body: &[u8]) -> Response {
    let result = decode_json(body).and_then(|doc| match op {
        "RegisterScalableTarget" => register(sb, parse_input(doc)?),
        "DeregisterScalableTarget" => deregister(sb, parse_input(doc)?),
        "DescribeScalableTargets" => describe_targets(sb, parse_input(doc)?),
        "PutScalingPolicy" => put_policy(sb, parse_input(doc)?),
        "DescribeScalingPolicies" => describe_policies(sb, parse_input(doc)?),
        "DeleteScalingPolicy" => delete_policy(sb, parse_input(doc)?),
        "DescribeScalingActivities" => describe_activities(sb, parse_input(doc)?),
        other => Err(aas_error(
            "UnknownOperationException",
            format!("The sandbox does not implement Application Auto Scaling operation {other}."),
        )),
    });
    match result {
        Ok(v) => json_ok(Protocol::AwsJson11, &v),
        Err(e) => e.into_response(Protocol::AwsJson11),
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct TargetInput {
    service_namespace: String,
    resource_id: String,
    scalable_dimension: String,
    min_capacity: Option<i64>,
    max_capacity: Option<i64>,
    #[serde(rename = "RoleARN")]
    role_arn: Option<String>,
    suspended_state: Option<Value>,
    resource_ids: Option<Vec<String>>,
    max_results: Option<usize>,
    next_token: Option<String>,
    policy_name: Option<String>,
    policy_names: Option<Vec<String>>,
    policy_type: Option<String>,
    target_tracking_scaling_policy_configuration: Option<Value>,
    step_scaling_policy_configuration: Option<Value>,
}

impl TargetInput {
    fn key(&self) -> TargetKey {
        (
            self.service_namespace.clone(),
            self.resource_id.clone(),
            self.scalable_dimension.clone(),
        )
    }
}

/// Splits `endpoint/NAME/variant/VARIANT`.
pub fn parse_variant_resource(resource_id: &str) -> Option<(&str, &str)> {
    let rest = resource_id.strip_prefix("endpoint/")?;
    let (endpoint, variant) = rest.split_once("/variant/")?;
    Some((endpoint, variant))
}

fn current_count(sb: &Sandbox, resource_id: &str) -> Option<i64> {
    let (endpoint, variant) = parse_variant_resource(resource_id)?;
    let world = sb.world.read();
    world
        .endpoints
        .get(endpoint)?
        .variant(variant)
        .map(|v| v.desired_instances as i64)
}

fn register(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    if input.service_namespace == "sagemaker" {
        if input.scalable_dimension != VARIANT_DIMENSION {
            return Err(aas_error(
                "ValidationException",
                format!(
                    "Unsupported scalable dimension '{}' for service namespace sagemaker; use {VARIANT_DIMENSION}.",
                    input.scalable_dimension
                ),
            ));
        }
        if current_count(sb, &input.resource_id).is_none() {
            return Err(aas_error(
                "ValidationException",
                format!("The target resource {} does not exist.", input.resource_id),
            ));
        }
    }
    let key = input.key();
    let now = now_epoch();
    let mut aas = sb.autoscaling.lock();
    let arn = format!(
        "arn:aws:application-autoscaling:{}:{}:scalable-target/{:016x}",
        sb.config.region,
        sb.config.account,
        super::variant::fxhash(&input.resource_id)
    );
    let existing = aas.targets.get(&key).cloned();
    let min = input.min_capacity.or(existing.as_ref().map(|t| t.min));
    let max = input.max_capacity.or(existing.as_ref().map(|t| t.max));
    let (Some(min), Some(max)) = (min, max) else {
        return Err(aas_error(
            "ValidationException",
            "MinCapacity and MaxCapacity are required when registering a new scalable target.",
        ));
    };
    if min < 0 || max < min {
        return Err(aas_error(
            "ValidationException",
            format!("Minimum capacity ({min}) cannot be greater than maximum capacity ({max}) or negative."),
        ));
    }
    aas.targets.insert(
        key.clone(),
        ScalableTarget {
            min,
            max,
            role_arn: input.role_arn.unwrap_or_else(|| {
                format!("arn:aws:iam::{}:role/aws-service-role/sagemaker.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint", sb.config.account)
            }),
            creation_time: existing.map(|t| t.creation_time).unwrap_or(now),
            arn: arn.clone(),
            suspended: input.suspended_state.unwrap_or_else(|| json!({"DynamicScalingInSuspended": false, "DynamicScalingOutSuspended": false, "ScheduledScalingSuspended": false})),
        },
    );
    // Bring the variant inside the new bounds, as Application Auto Scaling does.
    if let Some(count) = current_count(sb, &input.resource_id) {
        let wanted = count.clamp(min, max);
        if wanted != count {
            apply_scaling(
                sb,
                &mut aas,
                &key,
                count,
                wanted,
                "a scalable target registration set bounds outside the current capacity".into(),
                now,
            );
        }
    }
    Ok(json!({ "ScalableTargetARN": arn }))
}

fn deregister(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    let key = input.key();
    let mut aas = sb.autoscaling.lock();
    if aas.targets.remove(&key).is_none() {
        return Err(no_target(&key));
    }
    aas.policies.retain(|p| p.target != key);
    Ok(json!({}))
}

fn paged(
    items: Vec<Value>,
    member: &str,
    max: Option<usize>,
    token: Option<&str>,
    default: usize,
) -> Result<Value, ApiError> {
    let start = match token {
        Some(t) => t
            .parse::<usize>()
            .map_err(|_| aas_error("InvalidNextTokenException", "The NextToken is invalid."))?,
        None => 0,
    };
    let max = max.unwrap_or(default).clamp(1, 50.max(default));
    let end = (start + max).min(items.len());
    let mut out = json!({ member: items.get(start..end).unwrap_or(&[]) });
    if end < items.len() {
        out["NextToken"] = end.to_string().into();
    }
    Ok(out)
}

fn describe_targets(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    let aas = sb.autoscaling.lock();
    let items: Vec<Value> = aas
        .targets
        .iter()
        .filter(|(k, _)| k.0 == input.service_namespace)
        .filter(|(k, _)| input.resource_ids.as_ref().is_none_or(|ids| ids.contains(&k.1)))
        .filter(|(k, _)| input.scalable_dimension.is_empty() || k.2 == input.scalable_dimension)
        .map(|(k, t)| {
            json!({
                "ServiceNamespace": k.0, "ResourceId": k.1, "ScalableDimension": k.2,
                "MinCapacity": t.min, "MaxCapacity": t.max, "RoleARN": t.role_arn,
                "CreationTime": t.creation_time, "SuspendedState": t.suspended, "ScalableTargetARN": t.arn,
            })
        })
        .collect();
    paged(
        items,
        "ScalableTargets",
        input.max_results,
        input.next_token.as_deref(),
        50,
    )
}

fn put_policy(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    let key = input.key();
    let name = input
        .policy_name
        .clone()
        .ok_or_else(|| aas_error("ValidationException", "PolicyName is required."))?;
    let policy_type = input.policy_type.clone().unwrap_or_else(|| "StepScaling".into());
    let config = match policy_type.as_str() {
        "TargetTrackingScaling" => {
            let c = input
                .target_tracking_scaling_policy_configuration
                .clone()
                .ok_or_else(|| {
                    aas_error(
                        "ValidationException",
                        "TargetTrackingScalingPolicyConfiguration is required for policy type TargetTrackingScaling.",
                    )
                })?;
            if !c
                .get("TargetValue")
                .and_then(Value::as_f64)
                .is_some_and(|v| v.is_finite() && v > 0.0)
            {
                return Err(aas_error(
                    "ValidationException",
                    "TargetValue must be a positive number.",
                ));
            }
            let predefined = c.get("PredefinedMetricSpecification").is_some();
            let customized = c.get("CustomizedMetricSpecification").is_some();
            if predefined == customized {
                return Err(aas_error(
                    "ValidationException",
                    "Exactly one of PredefinedMetricSpecification and CustomizedMetricSpecification must be given.",
                ));
            }
            c
        }
        "StepScaling" => input
            .step_scaling_policy_configuration
            .clone()
            .unwrap_or_else(|| json!({})),
        other => {
            return Err(aas_error(
                "ValidationException",
                format!("Unsupported policy type {other}."),
            ));
        }
    };
    let mut aas = sb.autoscaling.lock();
    if !aas.targets.contains_key(&key) {
        return Err(no_target(&key));
    }
    let arn = format!(
        "arn:aws:autoscaling:{}:{}:scalingPolicy:{:08x}-sandbox:resource/{}/{}:policyName/{}",
        sb.config.region,
        sb.config.account,
        super::variant::fxhash(&name) as u32,
        key.0,
        key.1,
        name
    );
    let now = now_epoch();
    aas.policies.retain(|p| !(p.target == key && p.name == name));
    aas.policies.push(Policy {
        name,
        arn: arn.clone(),
        target: key,
        policy_type,
        config,
        creation_time: now,
        breach_since: None,
        under_since: None,
    });
    Ok(json!({ "PolicyARN": arn, "Alarms": alarms_of(&aas.policies[aas.policies.len() - 1], sb) }))
}

fn alarms_of(p: &Policy, sb: &Sandbox) -> Value {
    if p.policy_type != "TargetTrackingScaling" {
        return json!([]);
    }
    let alarm = |suffix: &str| {
        let name = format!(
            "TargetTracking-{}-{suffix}-{:08x}",
            p.target.1,
            super::variant::fxhash(&p.arn) as u32
        );
        json!({"AlarmName": name, "AlarmARN": format!("arn:aws:cloudwatch:{}:{}:alarm:{name}", sb.config.region, sb.config.account)})
    };
    json!([alarm("AlarmHigh"), alarm("AlarmLow")])
}

fn describe_policies(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    let aas = sb.autoscaling.lock();
    let items: Vec<Value> = aas
        .policies
        .iter()
        .filter(|p| p.target.0 == input.service_namespace)
        .filter(|p| input.resource_id.is_empty() || p.target.1 == input.resource_id)
        .filter(|p| input.scalable_dimension.is_empty() || p.target.2 == input.scalable_dimension)
        .filter(|p| input.policy_names.as_ref().is_none_or(|n| n.contains(&p.name)))
        .map(|p| {
            let member = if p.policy_type == "TargetTrackingScaling" {
                "TargetTrackingScalingPolicyConfiguration"
            } else {
                "StepScalingPolicyConfiguration"
            };
            json!({
                "PolicyARN": p.arn, "PolicyName": p.name, "ServiceNamespace": p.target.0,
                "ResourceId": p.target.1, "ScalableDimension": p.target.2, "PolicyType": p.policy_type,
                member: p.config, "Alarms": alarms_of(p, sb), "CreationTime": p.creation_time,
            })
        })
        .collect();
    paged(
        items,
        "ScalingPolicies",
        input.max_results,
        input.next_token.as_deref(),
        50,
    )
}

fn delete_policy(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    let key = input.key();
    let name = input.policy_name.clone().unwrap_or_default();
    let mut aas = sb.autoscaling.lock();
    let before = aas.policies.len();
    aas.policies.retain(|p| !(p.target == key && p.name == name));
    if aas.policies.len() == before {
        return Err(aas_error(
            "ObjectNotFoundException",
            format!(
                "No scaling policy found for service namespace: {}, resource ID: {}, scalable dimension: {}, policy name: {name}",
                key.0, key.1, key.2
            ),
        ));
    }
    Ok(json!({}))
}

fn describe_activities(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    let aas = sb.autoscaling.lock();
    let items: Vec<Value> = aas
        .activities
        .iter()
        .rev()
        .filter(|a| a.target.0 == input.service_namespace)
        .filter(|a| input.resource_id.is_empty() || a.target.1 == input.resource_id)
        .filter(|a| input.scalable_dimension.is_empty() || a.target.2 == input.scalable_dimension)
        .map(|a| {
            json!({
                "ActivityId": a.id, "ServiceNamespace": a.target.0, "ResourceId": a.target.1,
                "ScalableDimension": a.target.2, "Description": a.description, "Cause": a.cause,
                "StartTime": a.start, "EndTime": a.end, "StatusCode": a.status,
                "StatusMessage": format!("Successfully set desired instance count. Change successfully fulfilled by sagemaker."),
            })
        })
        .collect();
    paged(
        items,
        "ScalingActivities",
        input.max_results,
        input.next_token.as_deref(),
        50,
    )
}

fn apply_scaling(sb: &Sandbox, aas: &mut AutoScaling, key: &TargetKey, from: i64, to: i64, cause: String, now: f64) {
    let Some((endpoint, variant)) = parse_variant_resource(&key.1) else {
        return;
    };
    if !scale_variant(sb, endpoint, variant, to as i32) {
        return;
    }
    let n = aas.activities.len() + 1;
    aas.activities.push(Activity {
        id: format!(
            "{:08x}-{n:04x}-4000-8000-{:012x}",
            super::variant::fxhash(&key.1) as u32,
            now as u64
        ),
        target: key.clone(),
        description: format!("Setting desired instance count to {to}."),
        cause: format!("{cause} (changing the desired capacity from {from} to {to})"),
        start: now,
        end: now + sb.config.timing.update.as_secs_f64(),
        status: "Successful".into(),
    });
    aas.last_scaling.insert(key.clone(), now);
}

/// The tracked metric of a target-tracking policy over the last minute.
fn tracked_value(sb: &Sandbox, p: &Policy, now: f64) -> Option<f64> {
    let (endpoint, variant) = parse_variant_resource(&p.target.1)?;
    if let Some(pre) = p.config.get("PredefinedMetricSpecification") {
        if pre.get("PredefinedMetricType").and_then(Value::as_str) != Some("SageMakerVariantInvocationsPerInstance") {
            return None;
        }
        let key = SeriesKey::new(
            "AWS/SageMaker",
            "InvocationsPerInstance",
            &[("EndpointName", endpoint), ("VariantName", variant)],
        );
        return sb.metrics.window_stat(&key, now - 60.0, now, "Sum");
    }
    let c = p.config.get("CustomizedMetricSpecification")?;
    let dims: Vec<(String, String)> = c
        .get("Dimensions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|d| {
                    Some((
                        d.get("Name")?.as_str()?.to_string(),
                        d.get("Value")?.as_str()?.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let key = SeriesKey::from_owned(
        c.get("Namespace")?.as_str()?.to_string(),
        c.get("MetricName")?.as_str()?.to_string(),
        dims,
    );
    let stat = c.get("Statistic").and_then(Value::as_str).unwrap_or("Average");
    sb.metrics.window_stat(&key, now - 60.0, now, stat)
}

/// Evaluates every target-tracking policy (at most once a second).
pub fn evaluate(sb: &Sandbox, now: f64) {
    let mut aas = sb.autoscaling.lock();
    if now - aas.last_evaluation < 1.0 || aas.policies.is_empty() {
        return;
    }
    aas.last_evaluation = now;
    for i in 0..aas.policies.len() {
        let p = aas.policies[i].clone();
        if p.policy_type != "TargetTrackingScaling" || p.target.0 != "sagemaker" {
            continue;
        }
        let Some(target) = aas.targets.get(&p.target).cloned() else {
            continue;
        };
        let (Some(value), Some(goal)) = (
            tracked_value(sb, &p, now),
            p.config.get("TargetValue").and_then(Value::as_f64),
        ) else {
            continue;
        };
        let cooldown = |k: &str, d: f64| p.config.get(k).and_then(Value::as_f64).unwrap_or(d);
        let (out_cd, in_cd) = (cooldown("ScaleOutCooldown", 300.0), cooldown("ScaleInCooldown", 300.0));
        let Some(count) = current_count(sb, &p.target.1) else {
            continue;
        };
        let since_last = now - aas.last_scaling.get(&p.target).copied().unwrap_or(f64::MIN);
        let pol = &mut aas.policies[i];
        if value > goal {
            pol.under_since = None;
            let since = *pol.breach_since.get_or_insert(now);
            if now - since >= out_cd && since_last >= out_cd {
                let wanted = ((count.max(1) as f64) * value / goal).ceil() as i64;
                let wanted = wanted.clamp(target.min, target.max);
                pol.breach_since = None;
                if wanted > count {
                    let cause = format!(
                        "monitor alarm TargetTracking-{}-AlarmHigh in state ALARM triggered policy {}",
                        p.target.1, p.name
                    );
                    apply_scaling(sb, &mut aas, &p.target, count, wanted, cause, now);
                }
            }
        } else if value < goal * 0.9 && !p.config.get("DisableScaleIn").and_then(Value::as_bool).unwrap_or(false) {
            pol.breach_since = None;
            let since = *pol.under_since.get_or_insert(now);
            if now - since >= in_cd && since_last >= in_cd {
                let wanted = ((count as f64) * value / goal).ceil().max(1.0) as i64;
                let wanted = wanted.clamp(target.min, target.max);
                pol.under_since = None;
                if wanted < count {
                    let cause = format!(
                        "monitor alarm TargetTracking-{}-AlarmLow in state ALARM triggered policy {}",
                        p.target.1, p.name
                    );
                    apply_scaling(sb, &mut aas, &p.target, count, wanted, cause, now);
                }
            }
        } else {
            pol.breach_since = None;
            pol.under_since = None;
        }
    }
}
