//! PutScalingPolicy, DescribeScalingPolicies, DeleteScalingPolicy.

use serde_json::{Value, json};

use super::{Policy, TargetInput, aas_error, no_target, paged};
use crate::sandbox::wire::ApiError;
use crate::sandbox::{Sandbox, now_epoch};

pub(super) fn put_policy(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
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
        crate::sandbox::variant::fxhash(&name) as u32,
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

pub(super) fn alarms_of(p: &Policy, sb: &Sandbox) -> Value {
    if p.policy_type != "TargetTrackingScaling" {
        return json!([]);
    }
    let alarm = |suffix: &str| {
        let name = format!(
            "TargetTracking-{}-{suffix}-{:08x}",
            p.target.1,
            crate::sandbox::variant::fxhash(&p.arn) as u32
        );
        json!({"AlarmName": name, "AlarmARN": format!("arn:aws:cloudwatch:{}:{}:alarm:{name}", sb.config.region, sb.config.account)})
    };
    json!([alarm("AlarmHigh"), alarm("AlarmLow")])
}

pub(super) fn describe_policies(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
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

pub(super) fn delete_policy(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
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
