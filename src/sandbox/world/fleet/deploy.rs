//! What the fleet's seeding shares: the container images, the demo bucket, and models and
//! endpoints put straight into the world.

use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::resources::{ConfigVariant, Container, EndpointConfig, Model};
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::{Endpoint, EndpointStatus, World};

pub(super) const HF_IMAGE: &str = "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-inference:2.1.0-transformers4.37.0-cpu-py310-ubuntu22.04";
pub(super) const TGI_IMAGE: &str = "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.4.0-tgi2.4.0-gpu-py311-cu124-ubuntu22.04";
pub(super) const XGB_IMAGE: &str = "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1";
pub(super) const IMG_IMAGE: &str = "811284229777.dkr.ecr.us-east-1.amazonaws.com/image-classification:1";
/// Bucket holding the demo MME's tenant models.
pub const DEMO_BUCKET: &str = "sagedeck-demo-models";
/// The demo's next model version, ready to deploy onto `xgboost-churn-csv`.
pub const DEMO_NEXT_MODEL: &str = "xgboost-churn-model-v2";
/// The demo's endpoint config of that version (AllTraffic, 2 × ml.m5.large), not yet deployed.
pub const DEMO_NEXT_CONFIG: &str = "xgboost-churn-config-v2";
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

/// An endpoint configuration of these variants, created `age` seconds ago.
pub fn endpoint_config(sb: &Sandbox, config: &str, variants: &[VariantSpec<'_>], age: f64) -> EndpointConfig {
    let now = now_epoch();
    EndpointConfig {
        name: config.into(),
        arn: sb.arn("endpoint-config", config),
        creation_time: now - age,
        shadow_variants: Vec::new(),
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
    }
}

/// Inserts a config and an endpoint directly into the world, InService since `age` seconds ago.
pub fn deploy(sb: &Sandbox, world: &mut World, endpoint: &str, config: &str, variants: &[VariantSpec<'_>], age: f64) {
    let cfg = endpoint_config(sb, config, variants, age);
    deploy_config(sb, world, endpoint, cfg, age);
}

/// Inserts a config as given and an endpoint on it directly into the world, InService since
/// `age` seconds ago.
pub fn deploy_config(sb: &Sandbox, world: &mut World, endpoint: &str, cfg: EndpointConfig, age: f64) {
    let now = now_epoch();
    let config = cfg.name.clone();
    let mut live = world.variants_for((&sb.config, &sb.metrics), endpoint, &cfg, now - age);
    for v in &mut live {
        v.statuses.clear();
    }
    world.configs.insert(config.clone(), cfg);
    world.insert_endpoint(Endpoint {
        name: endpoint.into(),
        arn: sb.arn("endpoint", endpoint),
        config_name: config,
        status: EndpointStatus::InService,
        failure_reason: None,
        creation_time: now - age,
        last_modified: now - age / 3.0,
        variants: live,
        transition: None,
        last_deployment_config: None,
    });
}

/// Days, in seconds.
pub(super) const DAY: f64 = 86_400.0;
