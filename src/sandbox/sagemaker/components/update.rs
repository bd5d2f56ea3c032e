//! UpdateInferenceComponentRuntimeConfig (copies now) and UpdateInferenceComponent (copies, and
//! a new specification rolled out in batches by its `DeploymentConfig`, `world/components/rolling.rs`).
//!
//! The durations a DeploymentConfig gives (WaitIntervalInSeconds, MaximumExecutionTimeoutInSeconds)
//! run scaled as the sandbox's other timings are: by its update time over the default update time
//! (1 with the default timings, shorter with `--fast` and in tests).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::sagemaker::components::not_found;
use crate::sandbox::sagemaker::components::spec::{read_spec_member, sim_of};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::components::rolling::batch_copies;
use crate::sandbox::world::components::{ComponentSpec, ComponentStatus, InferenceComponent, Phase, Rollout};
use crate::sandbox::world::config::Timing;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::variant::VariantSim;

/// UpdateInferenceComponentRuntimeConfig: the component's desired copies now.
pub fn update_runtime_config(sb: &Sandbox, doc: &Value) -> Result<Value, ApiError> {
    let name = doc
        .get("InferenceComponentName")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let copies = doc
        .pointer("/DesiredRuntimeConfig/CopyCount")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let now = now_epoch();
    let mut world = sb.world.write();
    let arn = match world.components.items.get(name) {
        Some(ic) => ic.arn.clone(),
        None => return Err(not_found(sb, name)),
    };
    world
        .set_component_desired_copies(name, copies.clamp(-1, i32::MAX as i64) as i32, now)
        .map_err(ApiError::validation)?;
    world.components.advance(now);
    Ok(json!({ "InferenceComponentArn": arn }))
}

/// UpdateInferenceComponent: new copies and/or a new specification, rolled out by the
/// DeploymentConfig's RollingUpdatePolicy (all copies in one batch without one).
pub fn update(sb: &Sandbox, doc: &Value) -> Result<Value, ApiError> {
    let name = doc
        .get("InferenceComponentName")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let now = now_epoch();
    let mut world = sb.world.write();
    world.components.advance(now);
    let ic = world.components.items.get(name).ok_or_else(|| not_found(sb, name))?;
    if ic.status != ComponentStatus::InService {
        return Err(ApiError::validation(format!(
            "Cannot update inference component \"{}\" while it is {}.",
            ic.arn,
            ic.status.as_str()
        )));
    }
    let arn = ic.arn.clone();
    let (endpoint, base) = (ic.endpoint.clone(), ic.spec.base.clone());
    let instance_type = world
        .components
        .host_of(ic)
        .map(|h| h.instance_type.clone())
        .unwrap_or_default();
    let new_spec = read_spec_member(sb, &world, doc, &instance_type)?;
    if let Some(copies) = doc.pointer("/RuntimeConfig/CopyCount").and_then(Value::as_i64) {
        world
            .set_component_desired_copies(name, copies.clamp(-1, i32::MAX as i64) as i32, now)
            .map_err(ApiError::validation)?;
    }
    let deployment = doc.get("DeploymentConfig").cloned();
    if let Some(spec) = new_spec {
        if spec.base != base {
            return Err(ApiError::validation(format!(
                "UpdateInferenceComponent cannot change the BaseInferenceComponentName of {name}."
            )));
        }
        let ic = world
            .components
            .items
            .get_mut(name)
            .ok_or_else(|| not_found(sb, name))?;
        let sim = sim_of(sb, &endpoint, name, &spec, ic.desired_copies);
        start_rollout(ic, (spec, sim), deployment, &sb.config.timing, now);
    } else if let Some(d) = deployment
        && let Some(ic) = world.components.items.get_mut(name)
    {
        ic.last_deployment_config = Some(d);
    }
    world.components.advance(now);
    Ok(json!({ "InferenceComponentArn": arn }))
}

/// Starts rolling `spec` out over the component's copies (at once when it has none).
fn start_rollout(
    ic: &mut InferenceComponent,
    (spec, sim): (ComponentSpec, Arc<VariantSim>),
    deployment: Option<Value>,
    timing: &Timing,
    now: f64,
) {
    ic.status = ComponentStatus::Updating;
    ic.last_modified = now;
    let copies = ic.desired_copies;
    if copies <= 0 {
        ic.spec = spec;
        ic.sim = sim;
        ic.last_deployment_config = deployment;
        return;
    }
    let scale = timing.update.as_secs_f64() / Timing::default().update.as_secs_f64();
    let policy = deployment.as_ref().and_then(|d| d.get("RollingUpdatePolicy"));
    let size = |key: &str| {
        policy.and_then(|p| p.get(key)).map(|b| {
            let kind = b.get("Type").and_then(Value::as_str).unwrap_or("COPY_COUNT");
            batch_copies(kind, b.get("Value").and_then(Value::as_i64).unwrap_or(1), copies)
        })
    };
    let secs = |key: &str, default: f64| {
        policy
            .and_then(|p| p.get(key))
            .and_then(Value::as_f64)
            .unwrap_or(default)
            * scale
    };
    let batch = size("MaximumBatchSize").unwrap_or(copies);
    let alarms = deployment
        .as_ref()
        .and_then(|d| d.pointer("/AutoRollbackConfiguration/Alarms"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|a| a.get("AlarmName").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    ic.rollout = Some(Rollout {
        new_spec: spec,
        new_sim: sim,
        batch,
        rollback_batch: size("RollbackMaximumBatchSize").unwrap_or(copies),
        wait: secs("WaitIntervalInSeconds", 0.0),
        timeout_at: now + secs("MaximumExecutionTimeoutInSeconds", 28_800.0),
        alarms,
        config: deployment,
        new_copies: 0,
        in_flight: batch.min(copies),
        phase: Phase::Provisioning,
        phase_until: now + ic.copy_seconds,
    });
}
