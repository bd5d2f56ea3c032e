//! Deployments over the wire: waiting for InService, and an UpdateEndpoint the sandbox fails.
#![allow(dead_code)]

use std::time::Duration;

use aws_sdk_sagemaker::types::{ContainerDefinition, ProductionVariant, ProductionVariantInstanceType};
use sagedeck::sandbox::SandboxHandle;

use super::{poll_until, sdk_config};

/// Waits until `endpoint` is InService, with a FailureReason when `failed_deploy` (the endpoint
/// back on its old configuration after a failed update) and without one otherwise.
pub async fn wait_in_service(sb: &SandboxHandle, endpoint: &str, failed_deploy: bool) {
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    poll_until("InService", Duration::from_secs(20), || async {
        let d = sm.describe_endpoint().endpoint_name(endpoint).send().await.ok()?;
        let done = d.endpoint_status().map(|s| s.as_str()) == Some("InService");
        (done && d.failure_reason().is_some() == failed_deploy).then_some(())
    })
    .await;
}

/// Updates `endpoint` to a configuration whose model the sandbox fails to deploy with `reason`
/// (`SAGEDECK_DEPLOY_FAILS`): the endpoint stays on its configuration.
pub async fn failing_deployment(sb: &SandboxHandle, endpoint: &str, reason: &str) {
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    let container = ContainerDefinition::builder()
        .image("huggingface-pytorch-inference")
        .environment("SAGEDECK_DEPLOY_FAILS", reason)
        .build();
    sm.create_model()
        .model_name("broken-v5")
        .primary_container(container)
        .execution_role_arn("arn:aws:iam::123456789012:role/x")
        .send()
        .await
        .unwrap();
    let variant = ProductionVariant::builder()
        .variant_name("Stable")
        .model_name("broken-v5")
        .instance_type(ProductionVariantInstanceType::MlM5Large)
        .initial_instance_count(1)
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name("broken-config")
        .production_variants(variant)
        .send()
        .await
        .unwrap();
    sm.update_endpoint()
        .endpoint_name(endpoint)
        .endpoint_config_name("broken-config")
        .send()
        .await
        .unwrap();
}

/// Three changes to `endpoint`, in this order, as the timeline tests read them: weights set to
/// Stable=8 Canary=2 by the CLI (audited in `audit`), Stable registered as a scalable target
/// (3–6), and a deployment the sandbox fails with `reason`.
pub async fn weights_scaling_and_a_failed_deployment(sb: &SandboxHandle, endpoint: &str, audit: &str, reason: &str) {
    use aws_sdk_applicationautoscaling::types::{ScalableDimension, ServiceNamespace};
    let set = [
        "weights",
        endpoint,
        "--set",
        "Stable=8",
        "--set",
        "Canary=2",
        "--yes",
        "--wait",
        "--audit-file",
        audit,
    ];
    let r = super::run_cli(sb, &set).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let aas = aws_sdk_applicationautoscaling::Client::new(&sdk_config(sb).await);
    aas.register_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(format!("endpoint/{endpoint}/variant/Stable"))
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .min_capacity(3)
        .max_capacity(6)
        .send()
        .await
        .unwrap();
    wait_in_service(sb, endpoint, false).await;
    failing_deployment(sb, endpoint, reason).await;
    wait_in_service(sb, endpoint, true).await;
}

/// The endpoint the session tests open sessions on: the tool-calling LLM on three instances.
pub const SESSIONS_ENDPOINT: &str = "chat-sessions";

/// Creates [`SESSIONS_ENDPOINT`] and waits until it is InService.
pub async fn three_instance_llm(sb: &SandboxHandle) {
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    sm.create_model()
        .model_name("chat-sessions-llm")
        .primary_container(ContainerDefinition::builder().image("tgi-llm-inference:2.4").build())
        .execution_role_arn("arn:aws:iam::123456789012:role/sagemaker")
        .send()
        .await
        .expect("create model");
    let variant = ProductionVariant::builder()
        .variant_name("AllTraffic")
        .model_name("chat-sessions-llm")
        .instance_type(ProductionVariantInstanceType::MlG5Xlarge)
        .initial_instance_count(3)
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name("chat-sessions-config")
        .production_variants(variant)
        .send()
        .await
        .expect("create endpoint config");
    sm.create_endpoint()
        .endpoint_name(SESSIONS_ENDPOINT)
        .endpoint_config_name("chat-sessions-config")
        .send()
        .await
        .expect("create endpoint");
    wait_in_service(sb, SESSIONS_ENDPOINT, false).await;
}
