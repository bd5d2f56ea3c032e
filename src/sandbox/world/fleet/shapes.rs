//! The demo's endpoint of each shape (`SandboxConfig::demo_shapes`): a serverless embedder with
//! provisioned concurrency (busy enough to spill over in bursts), an asynchronous summarizer with
//! its bucket, output and failure paths, and a real-time intent router whose shadow is slower
//! and fails more, on half of its traffic.

use serde_json::json;

use super::deploy::{DAY, HF_IMAGE, add_model, deploy_config, endpoint_config};
use crate::sandbox::sagemaker::shadow;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::World;

/// The demo's serverless endpoint.
pub const SERVERLESS_ENDPOINT: &str = "mcp-serverless-embedder";
/// The demo's asynchronous endpoint.
pub const ASYNC_ENDPOINT: &str = "mcp-async-summarizer";
/// The bucket its outputs and failures go to.
pub const ASYNC_BUCKET: &str = "sagedeck-demo-async";
/// The demo's endpoint with a shadow variant.
pub const SHADOW_ENDPOINT: &str = "mcp-intent-router";

/// Seeds the three endpoints.
pub(super) fn seed_shapes(sb: &Sandbox, w: &mut World) {
    seed_serverless(sb, w);
    seed_async(sb, w);
    seed_shadow(sb, w);
}

fn seed_serverless(sb: &Sandbox, w: &mut World) {
    let model = "mcp-embedder-small";
    let env = [("HF_TASK", "text-classification"), ("SAGEDECK_LATENCY_MS", "900")];
    add_model(sb, w, model, HF_IMAGE, &env, None);
    let mut cfg = endpoint_config(
        sb,
        "mcp-serverless-embedder-config",
        &[("AllTraffic", model, "ml.m5.large", 1, 1.0)],
        4.0 * DAY,
    );
    let v = &mut cfg.variants[0];
    v.instance_type = None;
    v.serverless = Some(json!({"MemorySizeInMB": 3072, "MaxConcurrency": 10, "ProvisionedConcurrency": 2}));
    deploy_config(sb, w, SERVERLESS_ENDPOINT, cfg, 4.0 * DAY);
}

fn seed_async(sb: &Sandbox, w: &mut World) {
    let model = "mcp-summarizer-long";
    let env = [("HF_TASK", "text-classification"), ("SAGEDECK_LATENCY_MS", "4000")];
    add_model(sb, w, model, HF_IMAGE, &env, None);
    let mut cfg = endpoint_config(
        sb,
        "mcp-async-summarizer-config",
        &[("AllTraffic", model, "ml.m5.xlarge", 1, 1.0)],
        9.0 * DAY,
    );
    let topic = |t: &str| format!("arn:aws:sns:{}:{}:{t}", sb.config.region, sb.config.account);
    cfg.extra.insert(
        "AsyncInferenceConfig".into(),
        json!({
            "ClientConfig": {"MaxConcurrentInvocationsPerInstance": 2},
            "OutputConfig": {
                "S3OutputPath": format!("s3://{ASYNC_BUCKET}/summaries/output"),
                "S3FailurePath": format!("s3://{ASYNC_BUCKET}/summaries/failure"),
                "NotificationConfig": {
                    "SuccessTopic": topic("mcp-summarizer-success"),
                    "ErrorTopic": topic("mcp-summarizer-error"),
                }
            }
        }),
    );
    w.buckets.entry(ASYNC_BUCKET.into()).or_default();
    deploy_config(sb, w, ASYNC_ENDPOINT, cfg, 9.0 * DAY);
}

fn seed_shadow(sb: &Sandbox, w: &mut World) {
    let (prod, candidate) = ("mcp-intent-router-v1", "mcp-intent-router-v2");
    add_model(sb, w, prod, HF_IMAGE, &[("HF_TASK", "text-classification")], None);
    let worse = [
        ("HF_TASK", "text-classification"),
        ("SAGEDECK_LATENCY_MS", "48"),
        ("SAGEDECK_ERROR_RATE", "0.03"),
    ];
    add_model(sb, w, candidate, HF_IMAGE, &worse, None);
    let mut cfg = endpoint_config(
        sb,
        "mcp-intent-router-shadow-config",
        &[("Production", prod, "ml.m5.large", 1, 1.0)],
        2.0 * DAY,
    );
    let shadow_cfg = endpoint_config(sb, "shadow", &[("Shadow", candidate, "ml.m5.large", 1, 0.5)], 0.0);
    cfg.shadow_variants = shadow_cfg.variants;
    let list: Vec<_> = cfg
        .shadow_variants
        .iter()
        .map(|v| {
            json!({"VariantName": v.name, "ModelName": v.model_name, "InstanceType": v.instance_type,
                   "InitialInstanceCount": v.initial_instance_count, "InitialVariantWeight": v.initial_weight})
        })
        .collect();
    cfg.extra.insert("ShadowProductionVariants".into(), list.into());
    let live = cfg.clone();
    deploy_config(sb, w, SHADOW_ENDPOINT, cfg, 2.0 * DAY);
    shadow::register(
        w,
        (&sb.config, &sb.metrics),
        SHADOW_ENDPOINT,
        &live,
        now_epoch() - 2.0 * DAY,
    );
}
