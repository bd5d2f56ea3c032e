//! `sagedeck deploy` over the wire: each check's refusal before anything is sent, the guards
//! (changed since, not InService, read-only, rollback alarms), the schedule of `--dry-run`, a
//! canary deployment to success and one rolled back, `--watch` from a second process, and
//! kill -9 of `deploy` leaving the deployment running.

mod leftover_gates;
mod outcomes;
mod refusals;
mod retained;

use std::path::PathBuf;
use std::time::Duration;

use aws_sdk_sagemaker::types::{
    ContainerDefinition, ProductionVariant, ProductionVariantInstanceType, ProductionVariantServerlessConfig,
};
use sagedeck::aws::change::audit::{Audit, AuditRecord};
use sagedeck::sandbox::{SandboxConfig, SandboxHandle};

use crate::common::{CliRun, poll_until, run_cli_env, sandbox_with, sdk_config};

/// The single-variant endpoint of two instances most tests deploy to.
pub const EP: &str = "deploy-ep";
/// Its variant.
pub const VARIANT: &str = "AllTraffic";
/// The model it runs.
pub const MODEL_V1: &str = "model-v1";
/// The model deployed to it.
pub const MODEL_V2: &str = "model-v2";
/// A model the sandbox fails to deploy (its health check never passes).
pub const MODEL_BROKEN: &str = "model-broken";

/// A sandbox whose updates take `update`, with [`EP`] InService on MODEL_V1 (two ml.m5.large),
/// and the models MODEL_V2 and MODEL_BROKEN.
pub async fn deploy_sandbox(update: Duration) -> SandboxHandle {
    let mut config = SandboxConfig::for_tests();
    config.timing.update = update;
    let sb = sandbox_with(config).await;
    model(&sb, MODEL_V1, None).await;
    model(&sb, MODEL_V2, None).await;
    model(
        &sb,
        MODEL_BROKEN,
        Some("The primary container did not pass the ping health check."),
    )
    .await;
    let variant = instance_variant(VARIANT, MODEL_V1, 2);
    endpoint(&sb, EP, vec![variant]).await;
    sb
}

/// Creates a model (failing its deployments with `fails` when given).
pub async fn model(sb: &SandboxHandle, name: &str, fails: Option<&str>) {
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    let mut container = ContainerDefinition::builder().image("huggingface-pytorch-inference");
    if let Some(reason) = fails {
        container = container.environment("SAGEDECK_DEPLOY_FAILS", reason);
    }
    sm.create_model()
        .model_name(name)
        .primary_container(container.build())
        .execution_role_arn("arn:aws:iam::123456789012:role/x")
        .send()
        .await
        .unwrap();
}

/// A variant of `instances` ml.m5.large running `model`.
pub fn instance_variant(name: &str, model: &str, instances: i32) -> ProductionVariant {
    ProductionVariant::builder()
        .variant_name(name)
        .model_name(model)
        .instance_type(ProductionVariantInstanceType::MlM5Large)
        .initial_instance_count(instances)
        .initial_variant_weight(1.0)
        .build()
}

/// A serverless variant running `model`.
pub fn serverless_variant(name: &str, model: &str) -> ProductionVariant {
    let serverless = ProductionVariantServerlessConfig::builder()
        .memory_size_in_mb(2048)
        .max_concurrency(5)
        .build();
    ProductionVariant::builder()
        .variant_name(name)
        .model_name(model)
        .serverless_config(serverless)
        .build()
}

/// Creates the configuration `NAME-config` of `variants` and the endpoint `name` on it, and
/// waits until it is InService.
pub async fn endpoint(sb: &SandboxHandle, name: &str, variants: Vec<ProductionVariant>) {
    let config = format!("{name}-config");
    create_config(sb, &config, variants).await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    sm.create_endpoint()
        .endpoint_name(name)
        .endpoint_config_name(&config)
        .send()
        .await
        .unwrap();
    wait_status(sb, name, "InService").await;
}

/// Creates an endpoint configuration.
pub async fn create_config(sb: &SandboxHandle, name: &str, variants: Vec<ProductionVariant>) {
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    sm.create_endpoint_config()
        .endpoint_config_name(name)
        .set_production_variants(Some(variants))
        .send()
        .await
        .unwrap();
}

/// The endpoint's status and configuration.
pub async fn status(sb: &SandboxHandle, name: &str) -> (String, String) {
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    let d = sm.describe_endpoint().endpoint_name(name).send().await.unwrap();
    (
        d.endpoint_status().map(|s| s.as_str().to_string()).unwrap_or_default(),
        d.endpoint_config_name().unwrap_or_default().to_string(),
    )
}

/// Waits until the endpoint's status is `want`.
pub async fn wait_status(sb: &SandboxHandle, name: &str, want: &str) {
    poll_until(want, Duration::from_secs(30), || async {
        (status(sb, name).await.0 == want).then_some(())
    })
    .await;
}

/// A state directory of its own: the audit log.
pub struct State {
    dir: tempfile::TempDir,
}

impl State {
    /// A new one.
    pub fn new() -> State {
        State {
            dir: tempfile::tempdir().expect("temp state dir"),
        }
    }

    /// The directory (XDG_STATE_HOME).
    pub fn dir(&self) -> String {
        self.dir.path().to_string_lossy().into_owned()
    }

    /// The audit log's records.
    pub fn audit(&self) -> Vec<AuditRecord> {
        let path: PathBuf = self.dir.path().join("sagedeck/audit.jsonl");
        Audit::read(path, None).expect("audit readable")
    }

    /// `sagedeck ARGS` with this state directory.
    pub async fn cli(&self, sb: &SandboxHandle, args: &[&str]) -> CliRun {
        let dir = self.dir();
        run_cli_env(sb, args, &[("XDG_STATE_HOME", &dir)]).await
    }
}
