//! The demo fleet: endpoints in service, endpoints in transition, the wave endpoint and the
//! demo's autoscaling.

use super::catalog::seed_catalog;
use super::deploy::{
    DAY, DEMO_MME_PREFIX, DEMO_NEXT_CONFIG, DEMO_NEXT_MODEL, HF_IMAGE, IMG_IMAGE, TGI_IMAGE, XGB_IMAGE, add_model,
    deploy, endpoint_config,
};
use crate::sandbox::autoscaling::store::SeedTracking;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::{EndpointStatus, Transition, World};
use crate::sandbox::world::traffic::WAVE_ENDPOINT;

/// The demo fleet: endpoints in service, endpoints in transition, the rising-and-falling load
/// endpoint when traffic runs, and their autoscaling.
pub(super) fn seed_demo(sb: &Sandbox) {
    let now = now_epoch();
    let mut world = sb.world.write();
    seed_in_service(sb, &mut world, now);
    seed_in_transition(sb, &mut world, now);
    if sb.config.demo_components {
        super::components::seed_ic_endpoint(sb, &mut world, now);
    }
    if sb.config.demo_shapes {
        super::shapes::seed_shapes(sb, &mut world);
    }
    if sb.config.traffic_rate.is_some() {
        seed_wave(sb, &mut world);
    }
    drop(world);
    seed_demo_scaling(sb, now);
}

/// The endpoints in service: the A/B classifier, the MME with its catalog, the LLM, the CSV
/// and image models.
fn seed_in_service(sb: &Sandbox, w: &mut World, now: f64) {
    seed_ab_classifier(sb, w);
    seed_multi_model(sb, w, now);
    seed_llm(sb, w);
    seed_csv_and_image(sb, w);
}

/// The intent classifier: a Stable and a slower, less reliable Canary variant at 9:1.
fn seed_ab_classifier(sb: &Sandbox, w: &mut World) {
    add_model(
        sb,
        w,
        "mcp-intent-classifier-v3",
        HF_IMAGE,
        &[("HF_TASK", "text-classification")],
        None,
    );
    add_model(
        sb,
        w,
        "mcp-intent-classifier-v4",
        HF_IMAGE,
        &[
            ("HF_TASK", "text-classification"),
            ("SAGEDECK_LATENCY_MS", "29"),
            ("SAGEDECK_ERROR_RATE", "0.012"),
        ],
        None,
    );
    deploy(
        sb,
        w,
        "mcp-intent-classifier-prod",
        "mcp-classifier-ab-config",
        &[
            ("Stable", "mcp-intent-classifier-v3", "ml.m5.large", 2, 9.0),
            ("Canary", "mcp-intent-classifier-v4", "ml.m5.large", 1, 1.0),
        ],
        12.0 * DAY,
    );
}

/// The multi-model endpoint of tenant models, and its S3 catalog.
fn seed_multi_model(sb: &Sandbox, w: &mut World, now: f64) {
    add_model(
        sb,
        w,
        "mcp-tenant-models",
        HF_IMAGE,
        &[("HF_TASK", "text-classification")],
        Some(DEMO_MME_PREFIX),
    );
    deploy(
        sb,
        w,
        "mcp-multi-model-endpoint",
        "mcp-multi-model-config",
        &[("AllTraffic", "mcp-tenant-models", "ml.m5.xlarge", 2, 1.0)],
        20.0 * DAY,
    );
    seed_catalog(w, now);
}

/// The TGI chat model on one GPU instance.
fn seed_llm(sb: &Sandbox, w: &mut World) {
    add_model(
        sb,
        w,
        "llm-tgi-chat-model",
        TGI_IMAGE,
        &[
            ("HF_MODEL_ID", "mistralai/Mistral-7B-Instruct-v0.3"),
            ("SM_NUM_GPUS", "1"),
        ],
        None,
    );
    deploy(
        sb,
        w,
        "llm-tgi-chat",
        "llm-tgi-chat-config",
        &[("AllTraffic", "llm-tgi-chat-model", "ml.g5.2xlarge", 1, 1.0)],
        6.0 * DAY,
    );
}

/// The XGBoost model answering CSV, and the image classifier.
fn seed_csv_and_image(sb: &Sandbox, w: &mut World) {
    add_model(sb, w, "xgboost-churn-model", XGB_IMAGE, &[], None);
    deploy(
        sb,
        w,
        "xgboost-churn-csv",
        "xgboost-churn-config",
        &[("AllTraffic", "xgboost-churn-model", "ml.m5.large", 1, 1.0)],
        40.0 * DAY,
    );
    seed_churn_next_version(sb, w);
    add_model(sb, w, "resnet-image-model", IMG_IMAGE, &[], None);
    deploy(
        sb,
        w,
        "resnet-image-classifier",
        "resnet-image-config",
        &[("AllTraffic", "resnet-image-model", "ml.g4dn.xlarge", 1, 1.0)],
        25.0 * DAY,
    );
}

/// The churn model's next version, ready to deploy onto `xgboost-churn-csv` with guardrails:
/// its model (a little slower) and an endpoint config of two instances (a canary of one).
fn seed_churn_next_version(sb: &Sandbox, w: &mut World) {
    add_model(sb, w, DEMO_NEXT_MODEL, XGB_IMAGE, &[("SAGEDECK_LATENCY_MS", "9")], None);
    let config = endpoint_config(
        sb,
        DEMO_NEXT_CONFIG,
        &[("AllTraffic", DEMO_NEXT_MODEL, "ml.m5.large", 2, 1.0)],
        DAY / 2.0,
    );
    w.configs.insert(DEMO_NEXT_CONFIG.into(), config);
}

/// One endpoint mid-update, one failed, one being created.
fn seed_in_transition(sb: &Sandbox, w: &mut World, now: f64) {
    seed_updating_summarizer(sb, w, now);
    seed_failed_embeddings(sb, w);
    seed_creating_reranker(sb, w, now);
}

/// The summarizer, Updating towards Blue:Green weights of 1:3.
fn seed_updating_summarizer(sb: &Sandbox, w: &mut World, now: f64) {
    add_model(sb, w, "mcp-summarizer-v1", TGI_IMAGE, &[], None);
    add_model(
        sb,
        w,
        "mcp-summarizer-v2",
        TGI_IMAGE,
        &[("SAGEDECK_LATENCY_MS", "42")],
        None,
    );
    deploy(
        sb,
        w,
        "mcp-summarizer-staging",
        "mcp-summarizer-config",
        &[
            ("Blue", "mcp-summarizer-v1", "ml.g5.xlarge", 1, 1.0),
            ("Green", "mcp-summarizer-v2", "ml.g5.xlarge", 1, 1.0),
        ],
        3.0 * DAY,
    );
    if let Some(ep) = w.endpoints.get_mut("mcp-summarizer-staging") {
        ep.status = EndpointStatus::Updating;
        ep.last_modified = now;
        for v in &mut ep.variants {
            v.desired_weight = if v.name == "Blue" { 1.0 } else { 3.0 };
            v.statuses = vec![("Updating".into(), now)];
        }
        ep.transition = Some(Transition::Update { until: now + 90.0 });
    }
    w.track("mcp-summarizer-staging");
}

/// The embeddings endpoint, Failed its health check.
fn seed_failed_embeddings(sb: &Sandbox, w: &mut World) {
    add_model(
        sb,
        w,
        "mcp-embeddings-v1",
        HF_IMAGE,
        &[("HF_TASK", "feature-extraction")],
        None,
    );
    deploy(
        sb,
        w,
        "mcp-embeddings-failed",
        "mcp-embeddings-config",
        &[("AllTraffic", "mcp-embeddings-v1", "ml.c5.xlarge", 1, 1.0)],
        1.0 * DAY,
    );
    if let Some(ep) = w.endpoints.get_mut("mcp-embeddings-failed") {
        ep.status = EndpointStatus::Failed;
        ep.failure_reason = Some(
            "The primary container for production variant AllTraffic did not pass the ping health check. Please check CloudWatch logs for this endpoint."
                .into(),
        );
    }
}

/// The reranker, Creating for another four minutes.
fn seed_creating_reranker(sb: &Sandbox, w: &mut World, now: f64) {
    add_model(sb, w, "mcp-reranker-v1", HF_IMAGE, &[], None);
    deploy(
        sb,
        w,
        "mcp-reranker-dev",
        "mcp-reranker-config",
        &[("AllTraffic", "mcp-reranker-v1", "ml.m5.large", 1, 1.0)],
        60.0,
    );
    if let Some(ep) = w.endpoints.get_mut("mcp-reranker-dev") {
        ep.status = EndpointStatus::Creating;
        ep.creation_time = now - 60.0;
        for v in &mut ep.variants {
            v.statuses = vec![("Creating".into(), now - 60.0)];
        }
        ep.transition = Some(Transition::Create {
            until: now + 240.0,
            fail: None,
        });
    }
    w.track("mcp-reranker-dev");
}

/// Load that rises and falls (see traffic::endpoint_share_at) on one small instance.
fn seed_wave(sb: &Sandbox, w: &mut World) {
    add_model(
        sb,
        w,
        "mcp-autoscaling-demo-model",
        HF_IMAGE,
        &[("HF_TASK", "text-classification"), ("SAGEDECK_INSTANCE_RPS", "3")],
        None,
    );
    deploy(
        sb,
        w,
        WAVE_ENDPOINT,
        "mcp-autoscaling-demo-config",
        &[("AllTraffic", "mcp-autoscaling-demo-model", "ml.m5.large", 1, 1.0)],
        2.0 * DAY,
    );
}

/// Target tracking on the classifier's Stable variant, and on the wave endpoint.
fn seed_demo_scaling(sb: &Sandbox, now: f64) {
    let mut aas = sb.autoscaling.lock();
    aas.seed_target_tracking(
        sb,
        &SeedTracking {
            resource_id: "endpoint/mcp-intent-classifier-prod/variant/Stable",
            policy_name: "mcp-endpoint-invocations-policy",
            bounds: (2, 6),
            target_value: 400.0,
            cooldowns: (300, 60),
            created: now - 10.0 * DAY,
        },
    );
    if sb.config.traffic_rate.is_some() {
        aas.seed_target_tracking(
            sb,
            &SeedTracking {
                resource_id: "endpoint/mcp-autoscaling-demo/variant/AllTraffic",
                policy_name: "mcp-autoscaling-demo-invocations",
                bounds: (1, 4),
                target_value: 120.0,
                cooldowns: (60, 30),
                created: now - 2.0 * DAY,
            },
        );
    }
}
