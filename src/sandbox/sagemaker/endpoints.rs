//! Endpoint operations of the control plane: CreateEndpoint, DescribeEndpoint, ListEndpoints,
//! DeleteEndpoint and UpdateEndpointWeightsAndCapacities with their lifecycles (UpdateEndpoint is
//! in `deploy.rs`).
//!
//! Validation texts the reference marks UNVERIFIED are the sandbox's choice, documented here:
//! - unknown variant: `The variant(s) "X" are not production variants of endpoint "ARN".`
//! - duplicate variant: `Variant "X" appears more than once in DesiredWeightsAndCapacities.`
//! - non-finite weight: `DesiredWeight of variant "X" must be a number >= 0 (got W).` (a negative
//!   one gets the API model's message first, `constraints.rs`)
//! - all weights zero: `The weights of endpoint "ARN" would all be 0: at least one variant must
//!   have a positive DesiredWeight.`
//! - update of a Failed endpoint: `Cannot update endpoint "ARN" in status Failed.`
//! - delete of an endpoint that still hosts inference components: `Cannot delete endpoint "ARN":
//!   it hosts inference component IC. Delete its inference components first.`

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::sagemaker::components::hosts;
use crate::sandbox::sagemaker::listing;
use crate::sandbox::sagemaker::params::{ListParams, at_millis, check_name};
use crate::sandbox::sagemaker::serverless;
use crate::sandbox::sagemaker::shadow;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::{DeployPhase, Endpoint, EndpointStatus, Transition, Variant, World};

/// `Could not find endpoint "ARN".`
pub(crate) fn not_found(sb: &Sandbox, name: &str) -> ApiError {
    ApiError::validation(format!("Could not find endpoint \"{}\".", sb.arn("endpoint", name)))
}

/// CreateEndpoint input.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateEndpointInput {
    endpoint_name: String,
    endpoint_config_name: String,
}

/// CreateEndpoint: Creating now, InService after the configured create time.
pub fn create(sb: &Sandbox, input: CreateEndpointInput) -> Result<Value, ApiError> {
    check_name("EndpointName", &input.endpoint_name)?;
    let now = now_epoch();
    let arn = sb.arn("endpoint", &input.endpoint_name);
    let mut world = sb.world.write();
    if world.endpoints.contains_key(&input.endpoint_name) {
        return Err(ApiError::validation(format!(
            "Cannot create already existing endpoint \"{arn}\"."
        )));
    }
    let config = world.configs.get(&input.endpoint_config_name).cloned().ok_or_else(|| {
        ApiError::validation(format!(
            "Could not find endpoint configuration \"{}\".",
            sb.arn("endpoint-config", &input.endpoint_config_name)
        ))
    })?;
    let variants = world.variants_for((&sb.config, &sb.metrics), &input.endpoint_name, &config, now);
    shadow::register(
        &mut world,
        (&sb.config, &sb.metrics),
        &input.endpoint_name,
        &config,
        now,
    );
    if hosts::hosts_components(&config) {
        let instance_seconds = sb.config.timing.create.as_secs_f64();
        hosts::register(
            &mut world.components,
            &input.endpoint_name,
            &config,
            instance_seconds,
            now,
        );
    }
    world.insert_endpoint(Endpoint {
        name: input.endpoint_name,
        arn: arn.clone(),
        config_name: config.name,
        status: EndpointStatus::Creating,
        failure_reason: None,
        creation_time: now,
        last_modified: now,
        variants,
        transition: Some(Transition::Create {
            until: now + sb.config.timing.create.as_secs_f64(),
            fail: None,
        }),
        last_deployment_config: None,
    });
    Ok(json!({ "EndpointArn": arn }))
}

/// The image URI of a model's container.
pub(crate) fn image_of(world: &World, model: &str) -> String {
    world
        .models
        .get(model)
        .map(|m| m.container.image.clone())
        .unwrap_or_default()
}

/// The DescribeEndpoint document of an endpoint.
pub fn endpoint_json(ep: &Endpoint, world: &World) -> Value {
    let config = world.configs.get(&ep.config_name);
    let variants: Vec<Value> = ep
        .variants
        .iter()
        .map(|v| {
            let mut j = variant_json(ep, v, world);
            let cv = config.and_then(|c| c.variants.iter().find(|cv| cv.name == v.name));
            if let Some(host) = world.components.hosts.get(&(ep.name.clone(), v.name.clone())) {
                hosts::overlay_variant(&mut j, host, cv);
            } else if let Some(routing) = cv.and_then(|cv| cv.extra.get("RoutingConfig")) {
                j["RoutingConfig"] = routing.clone();
            }
            j
        })
        .collect();
    let mut out = json!({
        "EndpointName": ep.name,
        "EndpointArn": ep.arn,
        "EndpointConfigName": ep.config_name,
        "EndpointStatus": ep.status.as_str(),
        "CreationTime": at_millis(ep.creation_time),
        "LastModifiedTime": at_millis(ep.last_modified),
    });
    if ep.status != EndpointStatus::Creating || !variants.is_empty() {
        out["ProductionVariants"] = Value::Array(variants);
    }
    if let Some(shadows) = shadow::summaries(world, &ep.name, |v| variant_json(ep, v, world)) {
        out["ShadowProductionVariants"] = shadows;
    }
    if let Some(r) = &ep.failure_reason {
        out["FailureReason"] = r.clone().into();
    }
    if let Some(d) = &ep.last_deployment_config {
        out["LastDeploymentConfig"] = d.clone();
    }
    if let Some(pending) = pending_summary(ep, world) {
        out["PendingDeploymentSummary"] = pending;
    }
    out
}

/// One ProductionVariantSummary of DescribeEndpoint.
pub(crate) fn variant_json(ep: &Endpoint, v: &Variant, world: &World) -> Value {
    let statuses: Vec<Value> = v
        .statuses
        .iter()
        .map(|(s, t)| json!({"Status": s, "StatusMessage": format!("{s} variant {}", v.name), "StartTime": t}))
        .collect();
    let mut j = json!({
        "VariantName": v.name,
        "DeployedImages": [{
            "SpecifiedImage": image_of(world, &v.model_name),
            "ResolvedImage": format!("{}@sha256:{:064x}", image_of(world, &v.model_name).split(':').next().unwrap_or(""), crate::sandbox::world::hash::fxhash(&v.model_name)),
            "ResolutionTime": ep.creation_time,
        }],
        "CurrentWeight": v.current_weight,
        "DesiredWeight": v.desired_weight,
        "CurrentInstanceCount": v.current_instances,
        "DesiredInstanceCount": v.desired_instances,
    });
    if !statuses.is_empty() {
        j["VariantStatus"] = Value::Array(statuses);
    }
    serverless::overlay_summary(&mut j, v);
    // During a deployment the live variant is the blue fleet (pending_summary overrides both
    // for the green one).
    if let Some(d) = ep.deployment() {
        if let Some(c) = d.counts(&v.name) {
            j["CurrentInstanceCount"] = (if d.phase == DeployPhase::RollbackFailed {
                c.blue + c.green
            } else {
                c.blue
            })
            .into();
        }
        if let Some(status) = deployment_status(ep, &v.name) {
            j["VariantStatus"] = status;
        }
    }
    j
}

/// DescribeEndpoint.
pub fn describe(sb: &Sandbox, name: &str) -> Result<Value, ApiError> {
    let world = sb.world.read();
    world
        .endpoints
        .get(name)
        .map(|e| endpoint_json(e, &world))
        .ok_or_else(|| not_found(sb, name))
}

/// ListEndpoints with AWS's defaults (10 per page, CreationTime descending), read from the
/// sorted indexes (`listing.rs`).
pub fn list(sb: &Sandbox, params: ListParams) -> Result<Value, ApiError> {
    if let Some(s) = params.status_equals.as_deref()
        && EndpointStatus::parse(s).is_none()
        && !["SystemUpdating", "RollingBack", "UpdateRollbackFailed"].contains(&s)
    {
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value '{s}' at 'statusEquals' failed to satisfy enum value set: [OutOfService, Creating, Updating, SystemUpdating, RollingBack, InService, Deleting, Failed, UpdateRollbackFailed]"
        )));
    }
    listing::list_endpoints(&sb.world.read(), &params)
}

/// DeleteEndpoint: Deleting now, gone after the configured delete time.
pub fn delete(sb: &Sandbox, name: &str) -> Result<Value, ApiError> {
    let now = now_epoch();
    let mut world = sb.world.write();
    if let Some(ic) = world.components.on_endpoint(name).next() {
        return Err(ApiError::validation(format!(
            "Cannot delete endpoint \"{}\": it hosts inference component {}. Delete its inference components first.",
            sb.arn("endpoint", name),
            ic.name
        )));
    }
    let ep = world.endpoints.get_mut(name).ok_or_else(|| not_found(sb, name))?;
    if ep.status == EndpointStatus::Deleting {
        return Err(ApiError::validation(format!(
            "Cannot delete endpoint \"{}\" while it is Deleting.",
            ep.arn
        )));
    }
    ep.status = EndpointStatus::Deleting;
    ep.last_modified = now;
    ep.transition = Some(Transition::Delete {
        until: now + sb.config.timing.delete.as_secs_f64(),
    });
    world.track(name);
    Ok(json!({}))
}

/// Refuses an update unless the endpoint is InService.
pub(crate) fn ensure_updatable(ep: &Endpoint) -> Result<(), ApiError> {
    match ep.status {
        EndpointStatus::InService => Ok(()),
        EndpointStatus::Creating
        | EndpointStatus::Updating
        | EndpointStatus::Deleting
        | EndpointStatus::RollingBack => Err(ApiError::validation(format!(
            "Cannot update in-progress endpoint \"{}\".",
            ep.arn
        ))),
        other => Err(ApiError::validation(format!(
            "Cannot update endpoint \"{}\" in status {}.",
            ep.arn,
            other.as_str()
        ))),
    }
}

/// One entry of DesiredWeightsAndCapacities.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DesiredInput {
    variant_name: String,
    desired_weight: Option<f64>,
    desired_instance_count: Option<i64>,
    serverless_update_config: Option<Value>,
}

/// UpdateEndpointWeightsAndCapacities input.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateWeightsInput {
    endpoint_name: String,
    desired_weights_and_capacities: Vec<DesiredInput>,
}

/// UpdateEndpointWeightsAndCapacities: validated in full, then Updating (desired set, current
/// unchanged) until the configured update time, then InService with current = desired.
pub fn update_weights(sb: &Sandbox, input: UpdateWeightsInput) -> Result<Value, ApiError> {
    let now = now_epoch();
    let mut world = sb.world.write();
    let ep = world
        .endpoints
        .get_mut(&input.endpoint_name)
        .ok_or_else(|| not_found(sb, &input.endpoint_name))?;
    ensure_updatable(ep)?;
    let desired = &input.desired_weights_and_capacities;
    check_desired(ep, desired)?;
    check_weights_total(ep, desired)?;
    let serverless = serverless_updates(ep, desired)?;
    for d in desired {
        if let Some(v) = ep.variants.iter_mut().find(|v| v.name == d.variant_name) {
            if let (Some((_, s)), Some(sim)) = (serverless.iter().find(|(n, _)| *n == v.name), v.sim.serverless.get()) {
                sim.set_desired(*s);
            }
            if let Some(w) = d.desired_weight {
                v.desired_weight = w;
            }
            if let Some(c) = d.desired_instance_count {
                v.desired_instances = c as i32;
            }
            v.statuses = vec![("Updating".into(), now)];
        }
    }
    ep.status = EndpointStatus::Updating;
    ep.last_modified = now;
    ep.transition = Some(Transition::Update {
        until: now + sb.config.timing.update.as_secs_f64(),
    });
    let arn = ep.arn.clone();
    world.track(&input.endpoint_name);
    Ok(json!({ "EndpointArn": arn }))
}

/// The serverless settings the update asks of each variant that has a ServerlessUpdateConfig
/// (and no DesiredInstanceCount on a serverless variant).
fn serverless_updates(
    ep: &Endpoint,
    desired: &[DesiredInput],
) -> Result<Vec<(String, crate::sandbox::world::serverless::ServerlessSettings)>, ApiError> {
    let mut out = Vec::new();
    for d in desired {
        let Some(v) = ep.variant(&d.variant_name) else {
            continue;
        };
        match &d.serverless_update_config {
            Some(u) => out.push((
                v.name.clone(),
                serverless::desired_update(v, u, d.desired_instance_count)?,
            )),
            None => serverless::refuse_instance_count(v, d.desired_instance_count)?,
        }
    }
    Ok(out)
}

/// The desired weights and capacities checked one by one: at least one, each variant once, no
/// negative weight or count, and (after the others) every variant one of the endpoint's.
fn check_desired(ep: &Endpoint, desired: &[DesiredInput]) -> Result<(), ApiError> {
    if desired.is_empty() {
        return Err(ApiError::validation(
            "1 validation error detected: Value '[]' at 'desiredWeightsAndCapacities' failed to satisfy constraint: Member must have length greater than or equal to 1",
        ));
    }
    let mut seen = BTreeSet::new();
    let mut unknown = Vec::new();
    for d in desired {
        if !seen.insert(d.variant_name.as_str()) {
            return Err(ApiError::validation(format!(
                "Variant \"{}\" appears more than once in DesiredWeightsAndCapacities.",
                d.variant_name
            )));
        }
        if ep.variant(&d.variant_name).is_none() {
            unknown.push(d.variant_name.clone());
        }
        check_desired_numbers(d)?;
    }
    if !unknown.is_empty() {
        return Err(ApiError::validation(format!(
            "The variant(s) \"{}\" are not production variants of endpoint \"{}\".",
            unknown.join("\", \""),
            ep.arn
        )));
    }
    Ok(())
}

/// A variant's desired weight is a finite number >= 0, its desired instance count >= 0.
fn check_desired_numbers(d: &DesiredInput) -> Result<(), ApiError> {
    if let Some(w) = d.desired_weight
        && (!w.is_finite() || w < 0.0)
    {
        return Err(ApiError::validation(format!(
            "DesiredWeight of variant \"{}\" must be a number >= 0 (got {w}).",
            d.variant_name
        )));
    }
    if let Some(c) = d.desired_instance_count
        && c < 0
    {
        return Err(ApiError::validation(format!(
            "DesiredInstanceCount of variant \"{}\" must be >= 0 (got {c}).",
            d.variant_name
        )));
    }
    Ok(())
}

/// The weights after the update (desired where given, the variant's own otherwise) do not all
/// come to 0.
fn check_weights_total(ep: &Endpoint, desired: &[DesiredInput]) -> Result<(), ApiError> {
    let total: f64 = ep
        .variants
        .iter()
        .map(|v| {
            desired
                .iter()
                .find(|d| d.variant_name == v.name)
                .and_then(|d| d.desired_weight)
                .unwrap_or(v.desired_weight)
        })
        .sum();
    if total <= 0.0 {
        return Err(ApiError::validation(format!(
            "The weights of endpoint \"{}\" would all be 0: at least one variant must have a positive DesiredWeight.",
            ep.arn
        )));
    }
    Ok(())
}

/// A variant's VariantStatus during a deployment: the step in progress, its message and start.
fn deployment_status(ep: &Endpoint, variant: &str) -> Option<Value> {
    let d = ep.deployment().filter(|d| d.phase != DeployPhase::RollbackFailed)?;
    let step = d.step()?;
    let counts = d.counts(variant)?;
    Some(json!([{
        "Status": step.status.as_str(),
        "StatusMessage": step.status_message(&counts),
        "StartTime": d.step_started,
    }]))
}

/// PendingDeploymentSummary while a deployment (or its rollback) is in progress: the new
/// configuration's variants with their green fleet's counts and the step in progress.
pub(crate) fn pending_summary(ep: &Endpoint, world: &World) -> Option<Value> {
    let d = ep.deployment().filter(|d| d.phase != DeployPhase::RollbackFailed)?;
    let list: Vec<Value> = d
        .green
        .iter()
        .map(|v| {
            let mut j = variant_json(ep, v, world);
            if let Some(c) = d.counts(&v.name) {
                j["CurrentInstanceCount"] = c.green.into();
            }
            j["VariantStatus"] = deployment_status(ep, &v.name).unwrap_or_else(|| json!([]));
            if let Some(t) = &v.instance_type {
                j["InstanceType"] = t.clone().into();
            }
            j
        })
        .collect();
    Some(json!({
        "EndpointConfigName": d.config_name,
        "ProductionVariants": list,
        "StartTime": d.started,
    }))
}
