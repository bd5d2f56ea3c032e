//! UpdateEndpoint: a deployment onto a new endpoint configuration with deployment guardrails,
//! as AWS runs them.
//!
//! A green fleet (the new configuration's variants, with its model's latency and errors) is
//! launched beside the blue one, which keeps serving; traffic moves to it by the policy
//! (`policy.rs`: blue/green ALL_AT_ONCE, CANARY or LINEAR, or a rolling update by batches; no
//! DeploymentConfig is blue/green all at once without a bake); during every bake the
//! AutoRollbackConfiguration alarms are read from the sandbox's alarm store and any in ALARM rolls
//! everything back; after the final bake the blue fleet is terminated and EndpointConfigName
//! switches. `progress.rs` walks the steps (`world/deployment.rs`) on every tick and request.
//! DescribeEndpoint shows the PendingDeploymentSummary and each variant's VariantStatus meanwhile,
//! LastDeploymentConfig after. `RetainDeploymentConfig` without a DeploymentConfig deploys by
//! the LastDeploymentConfig (policy and alarms) and keeps it; without a last one, all at once.
//!
//! With `RetainAllVariantProperties`, a new variant named like a current one keeps its current
//! weight and instance count, unless `ExcludeRetainedVariantProperties` names `DesiredWeight` or
//! `DesiredInstanceCount`. `SAGEDECK_LAUNCH_SECS` in the new model's environment makes its fleet
//! that slow to launch (scaled like the waits), so MaximumExecutionTimeoutInSeconds can pass: a
//! rollback. A `deployment_failure` fault (or `SAGEDECK_DEPLOY_FAILS` in the new
//! model's environment) makes the green fleet fail its launch: RollingBack, then InService on the
//! OLD configuration with FailureReason set (cleared by the next update). A `rollback_failure`
//! fault fails the deployment at its first bake and its rollback part-way: UpdateRollbackFailed,
//! both fleets serving, until the next UpdateEndpoint.

pub mod policy;
pub mod progress;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::sandbox::faults::FaultKind;
use crate::sandbox::http::wire::ApiError;
use crate::sandbox::sagemaker::components::hosts;
use crate::sandbox::sagemaker::endpoints::{ensure_updatable, not_found};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::deployment::{self as schedule, Pace, Step, StepStatus};
use crate::sandbox::world::resources::EndpointConfig;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::{DeployPhase, Deployment, Endpoint, EndpointStatus, Transition, Variant, World};
use policy::{Kind, Policy};

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

/// The ExcludeRetainedVariantProperties types, checked.
fn excluded_properties(input: &UpdateEndpointInput) -> Result<Vec<String>, ApiError> {
    let mut excluded = Vec::new();
    for p in &input.exclude_retained_variant_properties {
        let t = p.variant_property_type.as_str();
        if !PROPERTY_TYPES.contains(&t) {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{t}' at 'excludeRetainedVariantProperties.member.variantPropertyType' failed to satisfy constraint: Member must satisfy enum value set: [{}]",
                PROPERTY_TYPES.join(", ")
            )));
        }
        excluded.push(t.to_string());
    }
    if !excluded.is_empty() && !input.retain_all_variant_properties {
        return Err(ApiError::validation(
            "ExcludeRetainedVariantProperties can only be given with RetainAllVariantProperties set to true.",
        ));
    }
    Ok(excluded)
}

/// The mechanical pace of deployments in this sandbox.
pub(crate) fn pace(sb: &Sandbox) -> Pace {
    let update = sb.config.timing.update.as_secs_f64();
    Pace {
        launch: update,
        shift: update / 4.0,
        terminate: update / 4.0,
        wait_scale: sb.config.timing.deploy_wait_scale.max(0.0),
    }
}

/// UpdateEndpoint: checked, then Updating with a green fleet launching beside the blue one.
/// `fault` is an injected `deployment_failure` or `rollback_failure`.
pub fn update(sb: &Sandbox, input: UpdateEndpointInput, fault: Option<FaultKind>) -> Result<Value, ApiError> {
    let now = now_epoch();
    let excluded = excluded_properties(&input)?;
    let mut world = sb.world.write();
    let config = world.configs.get(&input.endpoint_config_name).cloned().ok_or_else(|| {
        ApiError::validation(format!(
            "Could not find endpoint configuration \"{}\".",
            sb.arn("endpoint-config", &input.endpoint_config_name)
        ))
    })?;
    let current = world
        .endpoints
        .get(&input.endpoint_name)
        .ok_or_else(|| not_found(sb, &input.endpoint_name))?;
    if current.status != EndpointStatus::UpdateRollbackFailed {
        ensure_updatable(current)?;
    }
    hosts::check_update(&world.components, (&current.name, &current.arn), &config)?;
    let mut green = world.variants_for((&sb.config, &sb.metrics), &input.endpoint_name, &config, now);
    if input.retain_all_variant_properties {
        retain(current, &mut green, &excluded);
    }
    // RetainDeploymentConfig without a DeploymentConfig runs the last one again, as AWS does.
    let retained = input
        .retain_deployment_config
        .then_some(current.last_deployment_config.as_ref());
    let asked = input.deployment_config.as_ref().or(retained.flatten());
    let policy = policy::read(asked, current, (&config, &green), &world)?;
    // A model whose environment sets SAGEDECK_DEPLOY_FAILS fails its launch with that reason
    // (as a container that never passes its health check would).
    let launch_secs = slow_launch(&world, &config);
    let env_failure = config.variants.iter().find_map(|cv| {
        let model = world.models.get(&cv.model_name)?;
        model.container.environment.get("SAGEDECK_DEPLOY_FAILS").cloned()
    });
    let (launch_failure, rollback_fails) = match fault {
        Some(FaultKind::DeploymentFailure { message }) => {
            (Some(message.unwrap_or_else(|| default_failure(&green))), false)
        }
        Some(FaultKind::RollbackFailure { .. }) => (env_failure, true),
        _ => (env_failure, false),
    };
    let ep = world
        .endpoints
        .get_mut(&input.endpoint_name)
        .ok_or_else(|| not_found(sb, &input.endpoint_name))?;
    if let Some(d) = input.deployment_config {
        ep.last_deployment_config = Some(d);
    } else if !input.retain_deployment_config {
        ep.last_deployment_config = None;
    }
    // Both fleets also publish under their EndpointConfigName, so an alarm can watch one.
    for v in &ep.variants {
        v.sim
            .feed_config_series(&sb.metrics, (&ep.name, &v.name, &ep.config_name));
    }
    for v in &green {
        v.sim.feed_config_series(&sb.metrics, (&ep.name, &v.name, &config.name));
    }
    ep.status = EndpointStatus::Updating;
    ep.failure_reason = None;
    ep.last_modified = now;
    for v in &mut ep.variants {
        v.statuses.clear();
    }
    let mut deployment = deployment(&pace(sb), policy, (config.name, green), now);
    if let Some(secs) = launch_secs {
        let scaled = secs * pace(sb).wait_scale;
        for step in deployment.steps.iter_mut().filter(|s| s.status == StepStatus::Creating) {
            step.secs = scaled;
        }
    }
    deployment.launch_failure = launch_failure;
    deployment.rollback_fails = rollback_fails;
    ep.transition = Some(Transition::Deploy(Box::new(deployment)));
    let arn = ep.arn.clone();
    world.track(&input.endpoint_name);
    Ok(json!({ "EndpointArn": arn }))
}

/// A deployment of `green` (the fleet of config `config_name`) by `policy`, starting `now`.
fn deployment(pace: &Pace, policy: Policy, (config_name, green): (String, Vec<Variant>), now: f64) -> Deployment {
    let steps = steps_of(&policy, &green, pace);
    // The timeout counts the policy's waits, scaled, and the launches and shifts as they take.
    let mechanical: f64 = steps.iter().filter(|s| !s.bake).map(|s| s.secs).sum();
    Deployment {
        config_name,
        started: now,
        rolling: matches!(policy.kind, Kind::Rolling(_)),
        green,
        steps,
        at: 0,
        step_started: now,
        phase: DeployPhase::Deploying,
        alarms: policy.alarms,
        deadline: policy
            .timeout
            .map_or(f64::INFINITY, |t| now + t as f64 * pace.wait_scale + mechanical),
        launch_failure: None,
        rollback_fails: false,
        failure: None,
        rollback_batch: policy.rollback_batch,
    }
}

/// How long the new fleet takes to launch when one of its models sets `SAGEDECK_LAUNCH_SECS`
/// (scaled like the policy's waits), as instances that are slow to come up would.
fn slow_launch(world: &World, config: &EndpointConfig) -> Option<f64> {
    config
        .variants
        .iter()
        .filter_map(|cv| {
            world
                .models
                .get(&cv.model_name)?
                .container
                .environment
                .get("SAGEDECK_LAUNCH_SECS")
        })
        .filter_map(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
        .reduce(f64::max)
}

/// The steps a policy takes with this green fleet.
fn steps_of(policy: &Policy, green: &[Variant], pace: &Pace) -> Vec<Step> {
    let largest = green.iter().map(|v| v.desired_instances).max().unwrap_or(1);
    match policy.kind {
        Kind::BlueGreen(routing) => {
            schedule::blue_green(routing, (policy.wait, policy.termination_wait), largest, pace)
        }
        Kind::Rolling(batch) => schedule::rolling(largest, batch.of(largest).max(1), policy.wait, pace),
    }
}

/// Carries current weights and counts of same-named variants into the new ones.
fn retain(ep: &Endpoint, variants: &mut [Variant], excluded: &[String]) {
    let kept = |p: &str| !excluded.iter().any(|e| e == p);
    for v in variants {
        let Some(old) = ep.variant(&v.name) else {
            continue;
        };
        if kept("DesiredWeight") {
            v.current_weight = old.current_weight;
            v.desired_weight = old.current_weight;
        }
        if kept("DesiredInstanceCount") {
            v.current_instances = old.current_instances;
            v.desired_instances = old.current_instances;
            v.sim.set_instances(old.current_instances.max(0) as usize);
        }
    }
}
