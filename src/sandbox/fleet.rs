//! The demo fleet (deterministic for a seed), generated endpoints for scale tests, and the metric
//! history backfilled at start so charts are not empty.

use std::collections::BTreeMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Binomial, Distribution, Poisson};

use super::autoscaling::SeedTracking;
use super::state::{
    ConfigVariant, Container, Endpoint, EndpointConfig, EndpointStatus, Model, S3Object, Transition, World,
};
use super::traffic::WAVE_ENDPOINT;
use super::traffic::{endpoint_share, endpoint_share_at, rate_factor};
use super::{Sandbox, now_epoch};

const HF_IMAGE: &str = "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-inference:2.1.0-transformers4.37.0-cpu-py310-ubuntu22.04";
const TGI_IMAGE: &str = "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.4.0-tgi2.4.0-gpu-py311-cu124-ubuntu22.04";
const XGB_IMAGE: &str = "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1";
const IMG_IMAGE: &str = "811284229777.dkr.ecr.us-east-1.amazonaws.com/image-classification:1";
/// Bucket holding the demo MME's tenant models.
pub const DEMO_BUCKET: &str = "sagedeck-demo-models";
/// Prefix (ModelDataUrl) of the demo MME.
pub const DEMO_MME_PREFIX: &str = "s3://sagedeck-demo-models/tenants/";

/// A variant to deploy: (name, model, instance type, count, weight).
pub type VariantSpec<'a> = (&'a str, &'a str, &'a str, i32, f64);

/// Inserts a model directly into the world.
pub fn add_model(
    sb: &Sandbox,
    world: &mut World,
    name: &str,
    image: &str,
    env: &[(&str, &str)],
    mme_url: Option<&str>,
) {
    let container = Container {
        image: image.into(),
        model_data_url: Some(
            mme_url
                .map(str::to_string)
                .unwrap_or_else(|| format!("s3://{DEMO_BUCKET}/models/{name}/model.tar.gz")),
        ),
        mode: if mme_url.is_some() {
            "MultiModel".into()
        } else {
            "SingleModel".into()
        },
        environment: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        hostname: None,
    };
    let created = now_epoch() - 86_400.0 * 30.0;
    world.models.insert(
        name.into(),
        Model {
            name: name.into(),
            arn: sb.arn("model", name),
            creation_time: created,
            execution_role_arn: format!("arn:aws:iam::{}:role/SageMakerExecutionRole", sb.config.account),
            container,
            uses_container_list: false,
        },
    );
}

/// Inserts a config and an endpoint directly into the world, InService since `age` seconds ago.
pub fn deploy(sb: &Sandbox, world: &mut World, endpoint: &str, config: &str, variants: &[VariantSpec<'_>], age: f64) {
    let now = now_epoch();
    let cfg = EndpointConfig {
        name: config.into(),
        arn: sb.arn("endpoint-config", config),
        creation_time: now - age,
        variants: variants
            .iter()
            .map(|(name, model, itype, count, weight)| ConfigVariant {
                name: name.to_string(),
                model_name: model.to_string(),
                instance_type: Some(itype.to_string()),
                initial_instance_count: *count,
                initial_weight: *weight,
                serverless: None,
                extra: Default::default(),
            })
            .collect(),
        extra: Default::default(),
    };
    let mut live = world.variants_for(sb, endpoint, &cfg, now - age);
    for v in &mut live {
        v.statuses.clear();
    }
    world.configs.insert(config.into(), cfg);
    world.endpoints.insert(
        endpoint.into(),
        Endpoint {
            name: endpoint.into(),
            arn: sb.arn("endpoint", endpoint),
            config_name: config.into(),
            status: EndpointStatus::InService,
            failure_reason: None,
            creation_time: now - age,
            last_modified: now - age / 3.0,
            variants: live,
            transition: None,
            last_deployment_config: None,
        },
    );
}

/// Seeds the demo fleet and `extra_endpoints` generated ones, then backfills history.
pub fn seed(sb: &Sandbox) {
    if sb.config.demo_fleet {
        seed_demo(sb);
    }
    if sb.config.extra_endpoints > 0 {
        seed_generated(sb, sb.config.extra_endpoints);
    }
    if sb.config.backfill_hours > 0 {
        backfill(sb, sb.config.backfill_hours);
    }
}

/// Days, in seconds.
const DAY: f64 = 86_400.0;

/// The demo fleet: endpoints in service, endpoints in transition, the rising-and-falling load
/// endpoint when traffic runs, and their autoscaling.
fn seed_demo(sb: &Sandbox) {
    let now = now_epoch();
    let mut world = sb.world.write();
    seed_in_service(sb, &mut world, now);
    seed_in_transition(sb, &mut world, now);
    if sb.config.traffic_rate.is_some() {
        seed_wave(sb, &mut world);
    }
    drop(world);
    seed_demo_scaling(sb, now);
}

/// The endpoints in service: the A/B classifier, the MME with its catalog, the LLM, the CSV
/// and image models.
fn seed_in_service(sb: &Sandbox, w: &mut World, now: f64) {
    let day = DAY;
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
        12.0 * day,
    );
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
        20.0 * day,
    );
    seed_catalog(w, now);
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
        6.0 * day,
    );
    add_model(sb, w, "xgboost-churn-model", XGB_IMAGE, &[], None);
    deploy(
        sb,
        w,
        "xgboost-churn-csv",
        "xgboost-churn-config",
        &[("AllTraffic", "xgboost-churn-model", "ml.m5.large", 1, 1.0)],
        40.0 * day,
    );
    add_model(sb, w, "resnet-image-model", IMG_IMAGE, &[], None);
    deploy(
        sb,
        w,
        "resnet-image-classifier",
        "resnet-image-config",
        &[("AllTraffic", "resnet-image-model", "ml.g4dn.xlarge", 1, 1.0)],
        25.0 * day,
    );
}

/// One endpoint mid-update, one failed, one being created.
fn seed_in_transition(sb: &Sandbox, w: &mut World, now: f64) {
    let day = DAY;
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
        3.0 * day,
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
        1.0 * day,
    );
    if let Some(ep) = w.endpoints.get_mut("mcp-embeddings-failed") {
        ep.status = EndpointStatus::Failed;
        ep.failure_reason = Some(
            "The primary container for production variant AllTraffic did not pass the ping health check. Please check CloudWatch logs for this endpoint."
                .into(),
        );
    }
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
    let day = DAY;
    let mut aas = sb.autoscaling.lock();
    aas.seed_target_tracking(
        sb,
        &SeedTracking {
            resource_id: "endpoint/mcp-intent-classifier-prod/variant/Stable",
            policy_name: "mcp-endpoint-invocations-policy",
            bounds: (2, 6),
            target_value: 400.0,
            cooldowns: (300, 60),
            created: now - 10.0 * day,
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
                created: now - 2.0 * day,
            },
        );
    }
}

/// The demo MME's catalog: tenant models of varied sizes, one too large to load within 60 s.
fn seed_catalog(world: &mut World, now: f64) {
    let tenants = [
        "acme",
        "globex",
        "initech",
        "umbrella",
        "hooli",
        "stark",
        "wayne",
        "wonka",
        "tyrell",
        "cyberdyne",
        "soylent",
        "aperture",
        "blackmesa",
        "vandelay",
        "dunder",
        "pied-piper",
    ];
    let mut rng = StdRng::seed_from_u64(7);
    let mut objects = BTreeMap::new();
    for (i, t) in tenants.iter().enumerate() {
        for (j, suffix) in ["finetuned-v1", "finetuned-v2"].iter().enumerate() {
            let size = rng.random_range(80_000_000..900_000_000u64);
            let key = format!("tenants/tenant-{t}-{suffix}.tar.gz");
            objects.insert(
                key,
                S3Object {
                    size,
                    last_modified: now - 86_400.0 * (i * 2 + j + 1) as f64,
                    etag: etag(&format!("{t}{suffix}")),
                },
            );
        }
    }
    for lang in ["de", "fr", "ja", "pt"] {
        objects.insert(
            format!("tenants/lang-{lang}-intent.tar.gz"),
            S3Object {
                size: 240_000_000,
                last_modified: now - 86_400.0 * 9.0,
                etag: etag(lang),
            },
        );
    }
    objects.insert(
        "tenants/tenant-globex-llm-70b.tar.gz".into(),
        S3Object {
            size: 40_000_000_000,
            last_modified: now - 86_400.0 * 2.0,
            etag: etag("70b"),
        },
    );
    objects.insert(
        "models/README.txt".into(),
        S3Object {
            size: 512,
            last_modified: now,
            etag: etag("readme"),
        },
    );
    world.buckets.insert(DEMO_BUCKET.into(), objects);
}

fn etag(seed: &str) -> String {
    format!(
        "\"{:016x}{:016x}\"",
        super::variant::fxhash(seed),
        super::variant::fxhash(&seed.repeat(2))
    )
}

fn seed_generated(sb: &Sandbox, n: usize) {
    let mut world = sb.world.write();
    let w = &mut *world;
    let images = [HF_IMAGE, TGI_IMAGE, XGB_IMAGE, IMG_IMAGE];
    for (k, image) in images.iter().enumerate() {
        add_model(sb, w, &format!("fleet-model-{k}"), image, &[], None);
    }
    for i in 0..n {
        let name = format!("fleet-ep-{i:04}");
        let model = format!("fleet-model-{}", i % images.len());
        let age = 3600.0 * (1 + i) as f64;
        if i % 3 == 0 {
            deploy(
                sb,
                w,
                &name,
                &format!("{name}-config"),
                &[
                    ("Stable", &model, "ml.m5.large", 2, 9.0),
                    ("Canary", &model, "ml.m5.large", 1, 1.0),
                ],
                age,
            );
        } else {
            deploy(
                sb,
                w,
                &name,
                &format!("{name}-config"),
                &[("AllTraffic", &model, "ml.c5.large", 1, 1.0)],
                age,
            );
        }
        if i % 97 == 13
            && let Some(ep) = w.endpoints.get_mut(&name)
        {
            ep.status = EndpointStatus::Failed;
            ep.failure_reason = Some("Image size exceeds the limit for the instance type.".into());
        }
    }
}

/// Backfills `hours` of per-minute history for every serving demo variant from the same
/// rate curve and latency profiles the live simulation uses.
fn backfill(sb: &Sandbox, hours: u32) {
    let now = now_epoch();
    let start = ((now - hours as f64 * 3600.0) / 60.0).floor() * 60.0;
    let world = sb.world.read();
    let rate = sb.config.traffic_rate.unwrap_or(25.0);
    let total_share: f64 = world.endpoints.keys().map(|n| endpoint_share(n)).sum::<f64>().max(1.0);
    let mut rng = StdRng::seed_from_u64(sb.config.seed ^ 0xbac4_f111);
    for ep in world
        .endpoints
        .values()
        .filter(|e| e.status != EndpointStatus::Creating && !e.name.starts_with("fleet-"))
    {
        let weight_total: f64 = ep.variants.iter().map(|v| v.current_weight).sum::<f64>().max(1e-9);
        for v in &ep.variants {
            let share = v.current_weight / weight_total;
            let s = &v.sim.series;
            let instances = v.current_instances.max(1) as f64;
            let mut t = start.max(ep.creation_time);
            while t < now - 60.0 {
                let lambda =
                    rate * 60.0 * rate_factor(t, sb.config.seed) * share * endpoint_share_at(&ep.name, t) / total_share;
                let n = Poisson::new(lambda.max(1e-9))
                    .map(|p| p.sample(&mut rng))
                    .unwrap_or(0.0);
                if n >= 1.0 {
                    let e5 = Binomial::new(n as u64, v.sim.profile.error_rate)
                        .map(|b| b.sample(&mut rng))
                        .unwrap_or(0) as f64;
                    let e4 = Binomial::new(n as u64, 0.004).map(|b| b.sample(&mut rng)).unwrap_or(0) as f64;
                    s.invocations.lock().record_stats(t, n, n, 1.0, 1.0);
                    s.per_instance
                        .lock()
                        .record_stats(t, n, n / instances, 1.0 / instances, 1.0 / instances);
                    s.errors_5xx
                        .lock()
                        .record_stats(t, n, e5, 0.0, if e5 > 0.0 { 1.0 } else { 0.0 });
                    s.errors_4xx
                        .lock()
                        .record_stats(t, n, e4, 0.0, if e4 > 0.0 { 1.0 } else { 0.0 });
                    let k = (n as usize).min(16);
                    let latencies: Vec<f64> = (0..k).map(|_| v.sim.draw_model_latency_us(1.0)).collect();
                    let overheads: Vec<f64> = (0..k).map(|_| v.sim.draw_overhead_us()).collect();
                    let counts = vec![n / k as f64; k];
                    s.model_latency.lock().record_values(t, &latencies, &counts);
                    s.overhead_latency.lock().record_values(t, &overheads, &counts);
                    if v.sim.multi_model {
                        let hits = Binomial::new(n as u64, 0.86).map(|b| b.sample(&mut rng)).unwrap_or(0) as f64;
                        s.cache_hit.lock().record_stats(t, n, hits, 0.0, 1.0);
                        let misses = n - hits;
                        if misses >= 1.0 {
                            let loads: Vec<f64> = (0..(misses as usize).min(8))
                                .map(|_| rng.random_range(2.0e6..9.0e6))
                                .collect();
                            let c = vec![misses / loads.len() as f64; loads.len()];
                            s.loading_wait.lock().record_values(t, &loads, &c);
                            let dl: Vec<f64> = loads.iter().map(|l| l * 0.62).collect();
                            s.downloading.lock().record_values(t, &dl, &c);
                            let ld: Vec<f64> = loads.iter().map(|l| l * 0.38).collect();
                            s.loading.lock().record_values(t, &ld, &c);
                        }
                    }
                }
                if (t as i64) % 600 == 0 {
                    if v.sim.multi_model {
                        let counts: Vec<usize> = (0..v.current_instances.max(1))
                            .map(|_| rng.random_range(3..=6))
                            .collect();
                        v.sim.record_gauges_of(t, lambda, &counts);
                    } else {
                        v.sim.record_gauges(t, lambda);
                    }
                }
                t += 60.0;
            }
        }
    }
}
