//! Deployment guardrails over the wire: UpdateEndpoint with a DeploymentConfig run as AWS runs
//! it — canary, linear, all at once and rolling to success, a rollback by an alarm in ALARM, the
//! refusals, UpdateRollbackFailed — with the Rust SDK (`sdk.rs`, `refusals.rs`) and boto3
//! (`boto3.rs`). Shared here: a quiet sandbox whose waits are a hundredth of the policy's, and a
//! single-variant endpoint with a new model version ready.

mod boto3;
mod policies;
mod refusals;
mod retain;
mod sdk;

use std::time::Duration;

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::operation::describe_endpoint::DescribeEndpointOutput;
use aws_sdk_sagemaker::types::{ContainerDefinition, EndpointStatus, ProductionVariant, ProductionVariantInstanceType};
use sagedeck::sandbox::{SandboxConfig, SandboxHandle};

use crate::common::{poll_until, sandbox_with};

/// How long a whole deployment may take in these tests.
pub const DEPLOY_DEADLINE: Duration = Duration::from_secs(30);

/// A quiet sandbox: launches in 300 ms, the policy's waits at a hundredth (a 100 s bake lasts 1 s).
pub async fn guardrails_sandbox() -> SandboxHandle {
    let mut config = SandboxConfig::for_tests();
    config.timing.deploy_wait_scale = 0.01;
    sandbox_with(config).await
}

/// Models `NAME-v1` and `NAME-v2` (the new version, slower: 80 ms), configs `NAME-c1` and
/// `NAME-c2` with one variant `AllTraffic` of `instances` × ml.m5.large, and endpoint `NAME` on
/// `NAME-c1`, InService.
pub async fn single_variant_endpoint(sm: &Client, name: &str, instances: i32) {
    for (version, latency) in [("v1", "20"), ("v2", "80")] {
        let container = ContainerDefinition::builder()
            .image("huggingface-pytorch-inference")
            .environment("SAGEDECK_LATENCY_MS", latency)
            .build();
        sm.create_model()
            .model_name(format!("{name}-{version}"))
            .primary_container(container)
            .execution_role_arn("arn:aws:iam::123456789012:role/x")
            .send()
            .await
            .expect("CreateModel");
    }
    for (config, version) in [("c1", "v1"), ("c2", "v2")] {
        create_config(sm, &format!("{name}-{config}"), &format!("{name}-{version}"), instances).await;
    }
    sm.create_endpoint()
        .endpoint_name(name)
        .endpoint_config_name(format!("{name}-c1"))
        .send()
        .await
        .expect("CreateEndpoint");
    wait_for(sm, name, "InService", |d| {
        d.endpoint_status() == Some(&EndpointStatus::InService)
    })
    .await;
}

/// A config with one variant `AllTraffic` of `instances` × ml.m5.large serving `model`.
pub async fn create_config(sm: &Client, config: &str, model: &str, instances: i32) {
    sm.create_endpoint_config()
        .endpoint_config_name(config)
        .production_variants(
            ProductionVariant::builder()
                .variant_name("AllTraffic")
                .model_name(model)
                .instance_type(ProductionVariantInstanceType::MlM5Large)
                .initial_instance_count(instances)
                .initial_variant_weight(1.0)
                .build(),
        )
        .send()
        .await
        .expect("CreateEndpointConfig");
}

/// Polls DescribeEndpoint until `check` holds.
pub async fn wait_for(
    sm: &Client,
    name: &str,
    what: &str,
    check: impl Fn(&DescribeEndpointOutput) -> bool,
) -> DescribeEndpointOutput {
    poll_until(&format!("{name}: {what}"), DEPLOY_DEADLINE, || async {
        let d = sm.describe_endpoint().endpoint_name(name).send().await.ok()?;
        check(&d).then_some(d)
    })
    .await
}

/// The pending variant's first VariantStatus (status, message), if a deployment is in flight.
pub fn pending_status(d: &DescribeEndpointOutput) -> Option<(String, String)> {
    let v = d.pending_deployment_summary()?.production_variants().first()?;
    let s = v.variant_status().first()?;
    Some((s.status()?.as_str().to_string(), s.status_message()?.to_string()))
}
