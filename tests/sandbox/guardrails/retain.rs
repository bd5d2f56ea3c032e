//! RetainDeploymentConfig with the Rust SDK: an update without a DeploymentConfig of its own
//! runs the last one again (its canary and bakes) and keeps it; without RetainDeploymentConfig
//! the next update is all at once and clears it.

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::types::{
    BlueGreenUpdatePolicy, CapacitySize, CapacitySizeType, DeploymentConfig, EndpointStatus, TrafficRoutingConfig,
    TrafficRoutingConfigType,
};

use super::{create_config, guardrails_sandbox, pending_status, single_variant_endpoint, wait_for};
use crate::common::sdk_config;

/// A canary of one instance, then 300 s of bake (3 s here) and a 100 s final bake.
fn canary_config() -> DeploymentConfig {
    let routing = TrafficRoutingConfig::builder()
        .r#type(TrafficRoutingConfigType::Canary)
        .wait_interval_in_seconds(300)
        .canary_size(
            CapacitySize::builder()
                .r#type(CapacitySizeType::InstanceCount)
                .value(1)
                .build(),
        )
        .build();
    let policy = BlueGreenUpdatePolicy::builder()
        .traffic_routing_configuration(routing)
        .termination_wait_in_seconds(100)
        .maximum_execution_timeout_in_seconds(1800)
        .build();
    DeploymentConfig::builder().blue_green_update_policy(policy).build()
}

async fn in_service_on(
    sm: &Client,
    config: &str,
) -> aws_sdk_sagemaker::operation::describe_endpoint::DescribeEndpointOutput {
    wait_for(sm, "ret", &format!("InService on {config}"), |d| {
        d.endpoint_status() == Some(&EndpointStatus::InService) && d.endpoint_config_name() == Some(config)
    })
    .await
}

#[tokio::test]
async fn retain_deployment_config_runs_the_last_canary_again() {
    let handle = guardrails_sandbox().await;
    let sm = Client::new(&sdk_config(&handle).await);
    single_variant_endpoint(&sm, "ret", 4).await;
    create_config(&sm, "ret-c3", "ret-v1", 4).await;
    sm.update_endpoint()
        .endpoint_name("ret")
        .endpoint_config_name("ret-c2")
        .deployment_config(canary_config())
        .send()
        .await
        .expect("the first deployment");
    in_service_on(&sm, "ret-c2").await;

    sm.update_endpoint()
        .endpoint_name("ret")
        .endpoint_config_name("ret-c3")
        .retain_deployment_config(true)
        .send()
        .await
        .expect("UpdateEndpoint retaining the last DeploymentConfig");
    let baking = wait_for(&sm, "ret", "the retained canary's bake", |d| {
        pending_status(d).is_some_and(|(s, _)| s == "Baking")
    })
    .await;
    let (_, message) = pending_status(&baking).expect("status");
    assert_eq!(
        message,
        "Baking for 300 seconds (WaitIntervalInSeconds) with traffic enabled on canary capacity of 1 instance(s)."
    );
    let done = in_service_on(&sm, "ret-c3").await;
    assert_eq!(
        done.last_deployment_config(),
        Some(&canary_config()),
        "the retained DeploymentConfig stays the last one"
    );

    sm.update_endpoint()
        .endpoint_name("ret")
        .endpoint_config_name("ret-c2")
        .send()
        .await
        .expect("a plain update");
    let plain = in_service_on(&sm, "ret-c2").await;
    assert!(
        plain.last_deployment_config().is_none(),
        "an update without RetainDeploymentConfig clears it"
    );
}
