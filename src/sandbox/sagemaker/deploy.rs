//! UpdateEndpoint: a deployment onto a new endpoint configuration, with its lifecycle.
//!
//! The endpoint goes Updating while the old variants keep serving; DescribeEndpoint shows a
//! PendingDeploymentSummary (the new configuration's variants, each with a VariantStatus that
//! moves Creating → ActivatingTraffic → Baking over the update time) until the deployment ends.
//! Then the new variants replace the old ones and EndpointConfigName switches. With
//! `RetainAllVariantProperties`, a new variant named like a current one keeps its current weight
//! and instance count, unless `ExcludeRetainedVariantProperties` names `DesiredWeight` or
//! `DesiredInstanceCount` (those then come from the new configuration). A `deployment_failure`
//! fault makes the deployment fail at its end: RollingBack for as long again, then InService on
//! the OLD configuration with FailureReason set (cleared by the next successful update).

use serde::Deserialize;
use serde_json::{Value, json};

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::sagemaker::endpoints::{ensure_updatable, not_found};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::{Endpoint, Transition, Variant};

/// Property types ExcludeRetainedVariantProperties accepts.
const PROPERTY_TYPES: [&str; 3] = ["DesiredInstanceCount", "DesiredWeight", "DataCaptureConfig"];

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct VariantProperty {
    variant_property_type: String,
}

/// UpdateEndpoint input.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateEndpointInput {
    endpoint_name: String,
    endpoint_config_name: String,
    #[serde(default)]
    retain_all_variant_properties: bool,
    #[serde(default)]
    exclude_retained_variant_properties: Vec<VariantProperty>,
    deployment_config: Option<Value>,
    #[serde(default)]
    retain_deployment_config: bool,
}

/// The FailureReason of an injected deployment failure without a message of its own.
fn default_failure(variants: &[Variant]) -> String {
    let name = variants.first().map_or("AllTraffic", |v| v.name.as_str());
    format!(
        "The primary container for production variant {name} did not pass the ping health check. Please check CloudWatch logs for this endpoint."
    )
}

/// UpdateEndpoint: Updating onto a new configuration, then InService with its variants (or, with
/// `fail` from an injected fault, RollingBack and InService on the old one).
pub fn update(sb: &Sandbox, input: UpdateEndpointInput, fail: Option<Option<String>>) -> Result<Value, ApiError> {
    let now = now_epoch();
    let mut excluded = Vec::new();
    for p in &input.exclude_retained_variant_properties {
        let t = p.variant_property_type.as_str();
        if !PROPERTY_TYPES.contains(&t) {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{t}' at 'excludeRetainedVariantProperties.member.variantPropertyType' failed to satisfy constraint: Member must satisfy enum value set: [{}]",
                PROPERTY_TYPES.join(", ")
            )));
        }
        excluded.push(t);
    }
    if !excluded.is_empty() && !input.retain_all_variant_properties {
        return Err(ApiError::validation(
            "ExcludeRetainedVariantProperties can only be given with RetainAllVariantProperties set to true.",
        ));
    }
    let mut world = sb.world.write();
    let config = world.configs.get(&input.endpoint_config_name).cloned().ok_or_else(|| {
        ApiError::validation(format!(
            "Could not find endpoint configuration \"{}\".",
            sb.arn("endpoint-config", &input.endpoint_config_name)
        ))
    })?;
    let mut variants = world.variants_for((&sb.config, &sb.metrics), &input.endpoint_name, &config, now);
    // A model whose environment sets SAGEDECK_DEPLOY_FAILS fails its deployment with that reason
    // (as a container that never passes its health check would).
    let fail = fail.or_else(|| {
        config.variants.iter().find_map(|cv| {
            let model = world.models.get(&cv.model_name)?;
            model
                .container
                .environment
                .get("SAGEDECK_DEPLOY_FAILS")
                .cloned()
                .map(Some)
        })
    });
    let ep = world
        .endpoints
        .get_mut(&input.endpoint_name)
        .ok_or_else(|| not_found(sb, &input.endpoint_name))?;
    ensure_updatable(ep)?;
    if input.retain_all_variant_properties {
        retain(ep, &mut variants, &excluded);
    }
    if let Some(d) = input.deployment_config {
        ep.last_deployment_config = Some(d);
    } else if !input.retain_deployment_config {
        ep.last_deployment_config = None;
    }
    ep.status = crate::sandbox::world::state::EndpointStatus::Updating;
    ep.failure_reason = None;
    ep.last_modified = now;
    for v in &mut ep.variants {
        v.statuses = vec![("Updating".into(), now)];
    }
    let fail = fail.map(|m| m.unwrap_or_else(|| default_failure(&variants)));
    ep.transition = Some(Transition::Reconfigure {
        started: now,
        until: now + sb.config.timing.update.as_secs_f64(),
        fail,
        config_name: config.name,
        variants,
    });
    Ok(json!({ "EndpointArn": ep.arn }))
}

/// Carries current weights and counts of same-named variants into the new ones.
fn retain(ep: &Endpoint, variants: &mut [Variant], excluded: &[&str]) {
    for v in variants {
        let Some(old) = ep.variant(&v.name) else {
            continue;
        };
        if !excluded.contains(&"DesiredWeight") {
            v.current_weight = old.current_weight;
            v.desired_weight = old.current_weight;
        }
        if !excluded.contains(&"DesiredInstanceCount") {
            v.current_instances = old.current_instances;
            v.desired_instances = old.current_instances;
        }
    }
}
