//! The demo's inference-component endpoint, `llm-ic-endpoint`: one `ml.g5.12xlarge` variant with
//! ManagedInstanceScaling (0 to 2 instances) hosting the tool-calling LLM as the component
//! `llm-ic-chat` and the adapter `llm-ic-tools-adapter` on it, scaled to zero (no copies, no
//! instances), so that a newcomer sees a component AT ZERO, wakes it and asks through it.

use serde_json::{Value, json};

use super::deploy::{DAY, DEMO_BUCKET, TGI_IMAGE, add_model, deploy};
use crate::sandbox::sagemaker::components::hosts;
use crate::sandbox::sagemaker::components::spec::{read_spec, sim_of};
use crate::sandbox::world::components::{ComponentStatus, InferenceComponent};
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::World;

/// The demo's IC endpoint.
pub const IC_ENDPOINT: &str = "llm-ic-endpoint";
/// Its base component (the tool-calling LLM).
pub const IC_BASE: &str = "llm-ic-chat";
/// The adapter riding on the base.
pub const IC_ADAPTER: &str = "llm-ic-tools-adapter";

/// Seeds the IC endpoint, its model and its two components, at zero copies.
pub(super) fn seed_ic_endpoint(sb: &Sandbox, w: &mut World, now: f64) {
    add_model(
        sb,
        w,
        "llm-ic-chat-model",
        TGI_IMAGE,
        &[
            ("HF_MODEL_ID", "meta-llama/Llama-3.1-8B-Instruct"),
            ("SM_NUM_GPUS", "1"),
        ],
        None,
    );
    let config = "llm-ic-endpoint-config";
    deploy(
        sb,
        w,
        IC_ENDPOINT,
        config,
        &[("AllTraffic", "", "ml.g5.12xlarge", 1, 1.0)],
        3.0 * DAY,
    );
    let Some(cfg) = w.configs.get_mut(config) else {
        return;
    };
    cfg.extra.insert(
        "ExecutionRoleArn".into(),
        format!("arn:aws:iam::{}:role/SageMakerExecutionRole", sb.config.account).into(),
    );
    let variant = &mut cfg.variants[0];
    variant.extra.insert(
        "ManagedInstanceScaling".into(),
        json!({"Status": "ENABLED", "MinInstanceCount": 0, "MaxInstanceCount": 2}),
    );
    variant.extra.insert(
        "RoutingConfig".into(),
        json!({"RoutingStrategy": "LEAST_OUTSTANDING_REQUESTS"}),
    );
    let cfg = cfg.clone();
    hosts::register(
        &mut w.components,
        IC_ENDPOINT,
        &cfg,
        sb.config.timing.create.as_secs_f64(),
        now,
    );
    if let Some(host) = w.components.hosts.get_mut(&(IC_ENDPOINT.into(), "AllTraffic".into())) {
        (host.current_instances, host.desired_instances, host.instances_ready_at) = (0, 0, None);
    }
    let base = json!({
        "ModelName": "llm-ic-chat-model",
        "ComputeResourceRequirements": {
            "NumberOfCpuCoresRequired": 8, "NumberOfAcceleratorDevicesRequired": 1,
            "MinMemoryRequiredInMb": 32768
        }
    });
    let adapter = json!({
        "BaseInferenceComponentName": IC_BASE,
        "Container": {"ArtifactUrl": format!("s3://{DEMO_BUCKET}/adapters/tool-calling/")}
    });
    add_component(sb, w, IC_BASE, &base, now - 2.0 * DAY);
    add_component(sb, w, IC_ADAPTER, &adapter, now - 1.5 * DAY);
}

/// Inserts one component InService at zero copies, created at `created`.
fn add_component(sb: &Sandbox, w: &mut World, name: &str, raw: &Value, created: f64) {
    let Ok(spec) = read_spec(sb, w, raw) else {
        return;
    };
    let runs = match spec.base.as_deref().and_then(|b| w.components.items.get(b)) {
        Some(base) => base.spec.clone(),
        None => spec.clone(),
    };
    let timing = &sb.config.timing;
    let component = InferenceComponent {
        name: name.into(),
        arn: sb.arn("inference-component", name),
        endpoint: IC_ENDPOINT.into(),
        endpoint_arn: sb.arn("endpoint", IC_ENDPOINT),
        variant: "AllTraffic".into(),
        sim: sim_of(sb, IC_ENDPOINT, name, &runs, 1),
        spec,
        status: ComponentStatus::InService,
        failure_reason: None,
        creation_time: created,
        last_modified: created + 0.5 * DAY,
        desired_copies: 0,
        current_copies: 0,
        copies_ready_at: None,
        copy_seconds: timing.update.as_secs_f64(),
        deadline: None,
        fail_reason: None,
        rollout: None,
        last_deployment_config: None,
    };
    w.components.items.insert(name.into(), component);
}
