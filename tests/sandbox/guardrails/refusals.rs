//! Every DeploymentConfig AWS refuses, refused with the rule named and nothing started; and the
//! silent fallback of an Inf1 endpoint to all at once without a final bake.

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::error::ProvideErrorMetadata;
use aws_sdk_sagemaker::types::{
    Alarm, AutoRollbackConfig, BlueGreenUpdatePolicy, CapacitySize, CapacitySizeType, ContainerDefinition,
    DeploymentConfig, EndpointStatus, ProductionVariant, ProductionVariantInstanceType,
    ProductionVariantServerlessConfig, RollingUpdatePolicy, TrafficRoutingConfig, TrafficRoutingConfigType,
};

use super::{guardrails_sandbox, pending_status, single_variant_endpoint, wait_for};
use crate::common::sdk_config;

fn size(kind: CapacitySizeType, value: i32) -> CapacitySize {
    CapacitySize::builder().r#type(kind).value(value).build()
}

fn count(n: i32) -> CapacitySize {
    size(CapacitySizeType::InstanceCount, n)
}

fn percent(p: i32) -> CapacitySize {
    size(CapacitySizeType::CapacityPercent, p)
}

/// A blue/green policy: routing type, wait, canary and linear sizes, final bake, timeout.
fn bg(
    kind: TrafficRoutingConfigType,
    wait: i32,
    (canary, linear): (Option<CapacitySize>, Option<CapacitySize>),
    (final_bake, timeout): (i32, Option<i32>),
) -> BlueGreenUpdatePolicy {
    let routing = TrafficRoutingConfig::builder()
        .r#type(kind)
        .wait_interval_in_seconds(wait)
        .set_canary_size(canary)
        .set_linear_step_size(linear)
        .build();
    BlueGreenUpdatePolicy::builder()
        .traffic_routing_configuration(routing)
        .termination_wait_in_seconds(final_bake)
        .set_maximum_execution_timeout_in_seconds(timeout)
        .build()
}

fn blue_green(policy: BlueGreenUpdatePolicy) -> DeploymentConfig {
    DeploymentConfig::builder().blue_green_update_policy(policy).build()
}

fn rolling(batch: CapacitySize) -> RollingUpdatePolicy {
    RollingUpdatePolicy::builder()
        .maximum_batch_size(batch)
        .wait_interval_in_seconds(60)
        .build()
}

/// UpdateEndpoint of `endpoint` onto `config` with `dc`: the ValidationException's message.
async fn refused(sm: &Client, endpoint: &str, config: &str, dc: DeploymentConfig) -> String {
    let e = sm
        .update_endpoint()
        .endpoint_name(endpoint)
        .endpoint_config_name(config)
        .deployment_config(dc)
        .send()
        .await
        .expect_err("refused");
    assert_eq!(e.code(), Some("ValidationException"), "{e:?}");
    e.message().unwrap_or_default().to_string()
}

/// Endpoint `multi` with variants A and B (2 instances each) and config `multi-c2` like it.
async fn multi_variant_endpoint(sm: &Client) {
    let variant = |name: &str| {
        ProductionVariant::builder()
            .variant_name(name)
            .model_name("ref-v1")
            .instance_type(ProductionVariantInstanceType::MlM5Large)
            .initial_instance_count(2)
            .build()
    };
    for c in ["multi-c1", "multi-c2"] {
        sm.create_endpoint_config()
            .endpoint_config_name(c)
            .production_variants(variant("A"))
            .production_variants(variant("B"))
            .send()
            .await
            .expect("CreateEndpointConfig");
    }
    sm.create_endpoint()
        .endpoint_name("multi")
        .endpoint_config_name("multi-c1")
        .send()
        .await
        .expect("create");
}

/// Endpoint `sls` with one serverless variant, and config `sls-c2` like it.
async fn serverless_endpoint(sm: &Client) {
    for c in ["sls-c1", "sls-c2"] {
        let serverless = ProductionVariantServerlessConfig::builder()
            .memory_size_in_mb(2048)
            .max_concurrency(5)
            .build();
        sm.create_endpoint_config()
            .endpoint_config_name(c)
            .production_variants(
                ProductionVariant::builder()
                    .variant_name("AllTraffic")
                    .model_name("ref-v1")
                    .serverless_config(serverless)
                    .build(),
            )
            .send()
            .await
            .expect("CreateEndpointConfig");
    }
    sm.create_endpoint()
        .endpoint_name("sls")
        .endpoint_config_name("sls-c1")
        .send()
        .await
        .expect("create");
}

/// One refusal: endpoint, new config, DeploymentConfig, a part of the message.
type Case = (&'static str, &'static str, DeploymentConfig, &'static str);

/// The refusals of the routing and its sizes, waits and timeout.
fn routing_cases() -> Vec<Case> {
    use TrafficRoutingConfigType::{AllAtOnce, Canary, Linear};
    let both = DeploymentConfig::builder()
        .blue_green_update_policy(bg(AllAtOnce, 0, (None, None), (0, None)))
        .rolling_update_policy(rolling(count(1)))
        .build();
    vec![
        (
            "ref",
            "ref-c2",
            both,
            "only one of BlueGreenUpdatePolicy and RollingUpdatePolicy",
        ),
        (
            "ref",
            "ref-c2",
            blue_green(bg(Canary, 60, (None, None), (0, None))),
            "CanarySize is required",
        ),
        (
            "ref",
            "ref-c2",
            blue_green(bg(Linear, 60, (None, None), (0, None))),
            "LinearStepSize is required",
        ),
        (
            "ref",
            "ref-c2",
            blue_green(bg(AllAtOnce, 0, (Some(count(1)), None), (0, None))),
            "CanarySize is only valid",
        ),
        (
            "ref",
            "ref-c2",
            blue_green(bg(Canary, 60, (Some(count(3)), None), (0, None))),
            "comes to 3 of the 4 instance(s)",
        ),
        (
            "ref",
            "ref-c2",
            blue_green(bg(Canary, 60, (Some(percent(60)), None), (0, None))),
            "at most 50%",
        ),
        (
            "ref",
            "ref-c2",
            blue_green(bg(Linear, 60, (None, Some(percent(5))), (0, None))),
            "between 10% and 50%",
        ),
        (
            "ref",
            "ref-c2",
            blue_green(bg(Linear, 60, (None, Some(count(3))), (0, None))),
            "between 10% and 50%",
        ),
    ]
}

/// The refusals of the rest: the alarms, rolling batches, variant names, excluded endpoints.
fn shape_cases() -> Vec<Case> {
    use TrafficRoutingConfigType::{AllAtOnce, Canary};
    let eleven_alarms = {
        let mut a = AutoRollbackConfig::builder();
        for i in 0..11 {
            a = a.alarms(Alarm::builder().alarm_name(format!("a{i}")).build());
        }
        DeploymentConfig::builder()
            .blue_green_update_policy(bg(AllAtOnce, 0, (None, None), (0, None)))
            .auto_rollback_configuration(a.build())
            .build()
    };
    vec![
        (
            "ref",
            "ref-c2",
            blue_green(bg(Canary, 500, (Some(count(1)), None), (200, Some(600)))),
            "MaximumExecutionTimeoutInSeconds (600) must be greater than the sum",
        ),
        (
            "ref",
            "ref-c2",
            blue_green(bg(Canary, 4000, (Some(count(1)), None), (0, None))),
            "Value '4000' at 'deploymentConfig.blueGreenUpdatePolicy.trafficRoutingConfiguration.waitIntervalInSeconds' failed to satisfy constraint: Member must have value less than or equal to 3600",
        ),
        (
            "ref",
            "ref-c2",
            blue_green(bg(AllAtOnce, 0, (None, None), (0, Some(500)))),
            "Member must have value greater than or equal to 600",
        ),
        (
            "ref",
            "ref-c2",
            eleven_alarms,
            "Member must have length less than or equal to 10",
        ),
        (
            "ref",
            "ref-c2",
            DeploymentConfig::builder()
                .rolling_update_policy(rolling(percent(60)))
                .build(),
            "MaximumBatchSize of 60%",
        ),
        (
            "ref",
            "multi-c2",
            blue_green(bg(AllAtOnce, 0, (None, None), (0, None))),
            "same production variant names",
        ),
        (
            "multi",
            "multi-c2",
            DeploymentConfig::builder()
                .rolling_update_policy(rolling(percent(50)))
                .build(),
            "not supported for endpoints with more than one production variant",
        ),
        (
            "sls",
            "sls-c2",
            DeploymentConfig::builder()
                .rolling_update_policy(rolling(percent(50)))
                .build(),
            "not supported for serverless endpoints",
        ),
    ]
}

#[tokio::test]
async fn each_rule_refuses_its_deployment_config() {
    let handle = guardrails_sandbox().await;
    let sm = Client::new(&sdk_config(&handle).await);
    single_variant_endpoint(&sm, "ref", 4).await;
    multi_variant_endpoint(&sm).await;
    serverless_endpoint(&sm).await;
    for name in ["multi", "sls"] {
        wait_for(&sm, name, "InService", |d| {
            d.endpoint_status() == Some(&EndpointStatus::InService)
        })
        .await;
    }
    for (endpoint, config, dc, expected) in routing_cases().into_iter().chain(shape_cases()) {
        let message = refused(&sm, endpoint, config, dc).await;
        assert!(
            message.contains(expected),
            "{endpoint} → {config}: {expected:?} not in {message:?}"
        );
    }
    let d = sm
        .describe_endpoint()
        .endpoint_name("ref")
        .send()
        .await
        .expect("describe");
    assert_eq!(d.endpoint_status(), Some(&EndpointStatus::InService), "nothing started");
    assert!(d.last_deployment_config().is_none());
}

#[tokio::test]
async fn an_inf1_endpoint_falls_back_to_all_at_once_without_a_final_bake() {
    let handle = guardrails_sandbox().await;
    let sm = Client::new(&sdk_config(&handle).await);
    sm.create_model()
        .model_name("inf-v1")
        .primary_container(ContainerDefinition::builder().image("neuron-inference").build())
        .execution_role_arn("arn:aws:iam::123456789012:role/x")
        .send()
        .await
        .expect("CreateModel");
    for c in ["inf-c1", "inf-c2"] {
        sm.create_endpoint_config()
            .endpoint_config_name(c)
            .production_variants(
                ProductionVariant::builder()
                    .variant_name("AllTraffic")
                    .model_name("inf-v1")
                    .instance_type(ProductionVariantInstanceType::MlInf1Xlarge)
                    .initial_instance_count(4)
                    .build(),
            )
            .send()
            .await
            .expect("CreateEndpointConfig");
    }
    sm.create_endpoint()
        .endpoint_name("inf")
        .endpoint_config_name("inf-c1")
        .send()
        .await
        .expect("create");
    wait_for(&sm, "inf", "InService", |d| {
        d.endpoint_status() == Some(&EndpointStatus::InService)
    })
    .await;
    let canary = blue_green(bg(
        TrafficRoutingConfigType::Canary,
        300,
        (Some(count(1)), None),
        (300, None),
    ));
    sm.update_endpoint()
        .endpoint_name("inf")
        .endpoint_config_name("inf-c2")
        .deployment_config(canary)
        .send()
        .await
        .expect("accepted: the fallback is silent");
    let seen = std::cell::RefCell::new(Vec::new());
    let done = wait_for(&sm, "inf", "InService", |d| {
        if let Some(s) = pending_status(d) {
            seen.borrow_mut().push(s);
        }
        d.endpoint_status() == Some(&EndpointStatus::InService)
    })
    .await;
    assert_eq!(done.endpoint_config_name(), Some("inf-c2"));
    let seen = seen.into_inner();
    assert!(!seen.is_empty());
    assert!(
        seen.iter()
            .all(|(_, m)| !m.contains("canary") && !m.contains("Baking for 300")),
        "{seen:?}"
    );
    assert!(
        done.last_deployment_config().is_some(),
        "the config asked for is still recorded"
    );
}

#[tokio::test]
async fn the_sizes_are_checked_against_the_retained_instance_counts() {
    let handle = guardrails_sandbox().await;
    let sm = Client::new(&sdk_config(&handle).await);
    single_variant_endpoint(&sm, "ret", 4).await;
    super::create_config(&sm, "ret-one", "ret-v2", 1).await;
    let canary = || {
        blue_green(bg(
            TrafficRoutingConfigType::Canary,
            60,
            (Some(count(1)), None),
            (0, None),
        ))
    };
    let message = refused(&sm, "ret", "ret-one", canary()).await;
    assert!(message.contains("comes to 1 of the 1 instance(s)"), "{message}");
    sm.update_endpoint()
        .endpoint_name("ret")
        .endpoint_config_name("ret-one")
        .retain_all_variant_properties(true)
        .deployment_config(canary())
        .send()
        .await
        .expect("a canary of 1 of the 4 live instances the update retains");
    let done = wait_for(&sm, "ret", "InService", |d| {
        d.endpoint_status() == Some(&EndpointStatus::InService)
    })
    .await;
    assert_eq!(done.endpoint_config_name(), Some("ret-one"));
    assert_eq!(done.production_variants()[0].current_instance_count(), Some(4));
}
