//! Scaling activities: DescribeScalingActivities and the activity every scaling records.

use serde_json::{Value, json};

use super::component::{parse_component_resource, scale_component};
use super::request::{TargetInput, paged, parse_variant_resource};
use super::store::{Activity, AutoScaling, COMPONENT_DIMENSION, PROVISIONED_DIMENSION, TargetKey};
use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::{EndpointStatus, Transition};

pub(super) fn describe_activities(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    let aas = sb.autoscaling.lock();
    let now = crate::sandbox::world::clock::now_epoch();
    let items: Vec<Value> = aas
        .activities
        .iter()
        .rev()
        .filter(|a| a.target.0 == input.service_namespace)
        .filter(|a| input.resource_id.is_empty() || a.target.1 == input.resource_id)
        .filter(|a| input.scalable_dimension.is_empty() || a.target.2 == input.scalable_dimension)
        .map(|a| {
            let mut item = json!({
                "ActivityId": a.id, "ServiceNamespace": a.target.0, "ResourceId": a.target.1,
                "ScalableDimension": a.target.2, "Description": a.description, "Cause": a.cause,
                "StartTime": a.start,
            });
            if now < a.end {
                item["StatusCode"] = "InProgress".into();
            } else {
                item["EndTime"] = a.end.into();
                item["StatusCode"] = a.status.clone().into();
                item["StatusMessage"] = format!(
                    "Successfully set desired {} count. Change successfully fulfilled by sagemaker.",
                    count_noun(&a.target)
                )
                .into();
            }
            item
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

/// What the target counts: `instance` or `copy`.
fn count_noun(key: &TargetKey) -> &'static str {
    if key.2 == COMPONENT_DIMENSION {
        "copy"
    } else if key.2 == PROVISIONED_DIMENSION {
        "provisioned concurrency"
    } else {
        "instance"
    }
}

/// Sets the count of a variant or a component; false when it cannot change now.
fn scale_resource(sb: &Sandbox, (resource_id, dimension): (&str, &str), to: i64) -> bool {
    if let Some(component) = parse_component_resource(resource_id) {
        return scale_component(sb, component, to);
    }
    if dimension == PROVISIONED_DIMENSION {
        return super::provisioned::scale_provisioned(sb, resource_id, to);
    }
    match parse_variant_resource(resource_id) {
        Some((endpoint, variant)) => scale_variant(sb, endpoint, variant, to as i32),
        None => false,
    }
}

pub(super) fn apply_scaling(
    sb: &Sandbox,
    aas: &mut AutoScaling,
    key: &TargetKey,
    from: i64,
    to: i64,
    cause: String,
    now: f64,
) {
    if !scale_resource(sb, (&key.1, &key.2), to) {
        return;
    }
    let n = aas.activities.len() + 1;
    aas.activities.push(Activity {
        id: format!(
            "{:08x}-{n:04x}-4000-8000-{:012x}",
            crate::sandbox::world::hash::fxhash(&key.1) as u32,
            now as u64
        ),
        target: key.clone(),
        description: format!("Setting desired {} count to {to}.", count_noun(key)),
        cause: format!("{cause} changing the desired capacity from {from} to {to}."),
        start: now,
        end: now + sb.config.timing.update.as_secs_f64(),
        status: "Successful".into(),
    });
    aas.last_scaling.insert(key.clone(), now);
    if to > from {
        aas.last_scale_out.insert(key.clone(), now);
    }
}

/// Sets a variant's desired instance count and starts an update (autoscaling's path into the
/// world). Returns false when the endpoint cannot be updated now.
pub fn scale_variant(sb: &Sandbox, endpoint: &str, variant: &str, desired: i32) -> bool {
    let now = now_epoch();
    let mut world = sb.world.write();
    world.advance(now);
    let Some(ep) = world.endpoints.get_mut(endpoint) else {
        return false;
    };
    if ep.status != EndpointStatus::InService {
        return false;
    }
    let Some(v) = ep.variants.iter_mut().find(|v| v.name == variant) else {
        return false;
    };
    v.desired_instances = desired;
    v.statuses = vec![("Updating".to_string(), now)];
    ep.status = EndpointStatus::Updating;
    ep.last_modified = now;
    ep.transition = Some(Transition::Update {
        until: now + sb.config.timing.update.as_secs_f64(),
    });
    world.track(endpoint);
    true
}
