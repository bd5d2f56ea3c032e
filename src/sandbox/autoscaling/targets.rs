//! RegisterScalableTarget, DeregisterScalableTarget, DescribeScalableTargets.

use serde_json::{Value, json};

use super::activities::apply_scaling;
use super::request::{TargetInput, aas_error, current_count, no_target, paged};
use super::store::{COMPONENT_DIMENSION, PROVISIONED_DIMENSION, ScalableTarget, VARIANT_DIMENSION};
use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

pub(super) fn register(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    if input.service_namespace == "sagemaker" {
        let wanted = if input.resource_id.starts_with("inference-component/") {
            COMPONENT_DIMENSION
        } else if input.scalable_dimension == PROVISIONED_DIMENSION {
            PROVISIONED_DIMENSION
        } else {
            VARIANT_DIMENSION
        };
        if input.scalable_dimension != wanted {
            return Err(aas_error(
                "ValidationException",
                format!(
                    "Unsupported scalable dimension '{}' for resource {}; use {wanted}.",
                    input.scalable_dimension, input.resource_id
                ),
            ));
        }
        if current_count(sb, &input.resource_id, &input.scalable_dimension).is_none() {
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
        crate::sandbox::world::hash::fxhash(&input.resource_id)
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
    if let Some(count) = current_count(sb, &input.resource_id, &input.scalable_dimension) {
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

pub(super) fn deregister(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    let key = input.key();
    let mut aas = sb.autoscaling.lock();
    if aas.targets.remove(&key).is_none() {
        return Err(no_target(&key));
    }
    let alarms: Vec<String> = aas
        .policies
        .iter()
        .filter(|p| p.target == key)
        .flat_map(|p| p.alarms.clone())
        .collect();
    super::tt_alarms::delete(sb, &alarms, now_epoch());
    aas.policies.retain(|p| p.target != key);
    Ok(json!({}))
}

pub(super) fn describe_targets(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
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
