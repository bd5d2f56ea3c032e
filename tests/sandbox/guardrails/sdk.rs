//! Deployment guardrails with the Rust SDK: each policy to success with its steps seen on the
//! way, a rollback by an alarm in ALARM during a bake, and UpdateRollbackFailed.

use aws_sdk_cloudwatch::types::{ComparisonOperator, Dimension, StateValue, Statistic};
use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::types::{
    Alarm, AutoRollbackConfig, BlueGreenUpdatePolicy, CapacitySize, CapacitySizeType, DeploymentConfig, EndpointStatus,
    TrafficRoutingConfig, TrafficRoutingConfigType,
};
use sagedeck::sandbox::SandboxHandle;
use sagedeck::sandbox::faults::FaultSpec;
use sagedeck::sandbox::world::fleet::{DEMO_NEXT_CONFIG, DEMO_NEXT_MODEL};

use super::{guardrails_sandbox, pending_status, single_variant_endpoint, wait_for};
use crate::common::sdk_config;

fn capacity(kind: CapacitySizeType, value: i32) -> CapacitySize {
    CapacitySize::builder().r#type(kind).value(value).build()
}

/// A blue/green DeploymentConfig: `routing` with `wait` seconds between steps, `final_bake`
/// seconds of TerminationWait, and the rollback alarms.
fn blue_green(routing: TrafficRoutingConfig, final_bake: i32, alarms: &[&str]) -> DeploymentConfig {
    let policy = BlueGreenUpdatePolicy::builder()
        .traffic_routing_configuration(routing)
        .termination_wait_in_seconds(final_bake)
        .maximum_execution_timeout_in_seconds(1800)
        .build();
    let mut config = DeploymentConfig::builder().blue_green_update_policy(policy);
    if !alarms.is_empty() {
        let mut rollback = AutoRollbackConfig::builder();
        for a in alarms {
            rollback = rollback.alarms(Alarm::builder().alarm_name(*a).build());
        }
        config = config.auto_rollback_configuration(rollback.build());
    }
    config.build()
}

fn canary(instances: i32, wait: i32) -> TrafficRoutingConfig {
    TrafficRoutingConfig::builder()
        .r#type(TrafficRoutingConfigType::Canary)
        .wait_interval_in_seconds(wait)
        .canary_size(capacity(CapacitySizeType::InstanceCount, instances))
        .build()
}

async fn clients(handle: &SandboxHandle) -> (Client, aws_sdk_cloudwatch::Client) {
    let config = sdk_config(handle).await;
    (Client::new(&config), aws_sdk_cloudwatch::Client::new(&config))
}

#[tokio::test]
async fn a_canary_launches_green_bakes_on_its_canary_then_serves_the_new_config() {
    let handle = guardrails_sandbox().await;
    let (sm, _) = clients(&handle).await;
    single_variant_endpoint(&sm, "can", 4).await;
    sm.update_endpoint()
        .endpoint_name("can")
        .endpoint_config_name("can-c2")
        .deployment_config(blue_green(canary(1, 300), 100, &[]))
        .send()
        .await
        .expect("UpdateEndpoint");
    let started = sm
        .describe_endpoint()
        .endpoint_name("can")
        .send()
        .await
        .expect("describe");
    assert_eq!(started.endpoint_status(), Some(&EndpointStatus::Updating));
    assert_eq!(
        started.endpoint_config_name(),
        Some("can-c1"),
        "blue serves until the end"
    );
    let pending = started.pending_deployment_summary().expect("PendingDeploymentSummary");
    assert_eq!(pending.endpoint_config_name(), Some("can-c2"));
    assert_eq!(
        pending_status(&started),
        Some(("Creating".into(), "Launching 4 instance(s).".into()))
    );

    let baking = wait_for(&sm, "can", "the canary bake", |d| {
        pending_status(d).is_some_and(|(s, m)| s == "Baking" && m.contains("canary capacity of 1 instance(s)"))
    })
    .await;
    let (_, message) = pending_status(&baking).expect("status");
    assert_eq!(
        message,
        "Baking for 300 seconds (WaitIntervalInSeconds) with traffic enabled on canary capacity of 1 instance(s)."
    );
    let blue = &baking.production_variants()[0];
    assert_eq!(blue.current_instance_count(), Some(4), "the blue fleet stays whole");
    assert_eq!(
        blue.variant_status()
            .first()
            .and_then(|s| s.status())
            .map(|s| s.as_str()),
        Some("Baking")
    );

    wait_for(&sm, "can", "the final bake", |d| {
        pending_status(d).is_some_and(|(_, m)| m.contains("(TerminationWaitInSeconds)"))
    })
    .await;
    let done = wait_for(&sm, "can", "InService", |d| {
        d.endpoint_status() == Some(&EndpointStatus::InService)
    })
    .await;
    assert_eq!(done.endpoint_config_name(), Some("can-c2"));
    assert!(done.pending_deployment_summary().is_none());
    assert!(done.failure_reason().is_none());
    let last = done.last_deployment_config().expect("LastDeploymentConfig");
    let routing = last
        .blue_green_update_policy()
        .and_then(|p| p.traffic_routing_configuration())
        .expect("routing");
    assert_eq!(routing.r#type(), Some(&TrafficRoutingConfigType::Canary));
    assert_eq!(routing.wait_interval_in_seconds(), Some(300));
}

/// An alarm on the endpoint's 5XX errors, set to ALARM by hand.
async fn put_error_alarm(cw: &aws_sdk_cloudwatch::Client, name: &str, endpoint: &str) {
    cw.put_metric_alarm()
        .alarm_name(name)
        .namespace("AWS/SageMaker")
        .metric_name("Invocation5XXErrors")
        .dimensions(Dimension::builder().name("EndpointName").value(endpoint).build())
        .dimensions(Dimension::builder().name("VariantName").value("AllTraffic").build())
        .statistic(Statistic::Sum)
        .period(60)
        .evaluation_periods(1)
        .threshold(5.0)
        .comparison_operator(ComparisonOperator::GreaterThanThreshold)
        .send()
        .await
        .expect("PutMetricAlarm");
}

#[tokio::test]
async fn an_alarm_in_alarm_during_the_canary_bake_rolls_everything_back() {
    let handle = guardrails_sandbox().await;
    let (sm, cw) = clients(&handle).await;
    single_variant_endpoint(&sm, "rb", 2).await;
    put_error_alarm(&cw, "rb-5xx", "rb").await;
    sm.update_endpoint()
        .endpoint_name("rb")
        .endpoint_config_name("rb-c2")
        .deployment_config(blue_green(canary(1, 600), 0, &["rb-5xx"]))
        .send()
        .await
        .expect("UpdateEndpoint");
    wait_for(&sm, "rb", "the canary bake", |d| {
        pending_status(d).is_some_and(|(s, _)| s == "Baking")
    })
    .await;
    cw.set_alarm_state()
        .alarm_name("rb-5xx")
        .state_value(StateValue::Alarm)
        .state_reason("the canary errs")
        .send()
        .await
        .expect("SetAlarmState");
    wait_for(&sm, "rb", "RollingBack", |d| {
        d.endpoint_status() == Some(&EndpointStatus::RollingBack)
    })
    .await;
    let after = wait_for(&sm, "rb", "InService", |d| {
        d.endpoint_status() == Some(&EndpointStatus::InService)
    })
    .await;
    assert_eq!(after.endpoint_config_name(), Some("rb-c1"), "back on the old config");
    let reason = after.failure_reason().unwrap_or_default();
    assert!(reason.contains("rb-5xx") && reason.contains("ALARM"), "{reason}");
    assert_eq!(after.production_variants()[0].current_instance_count(), Some(2));
    assert!(after.pending_deployment_summary().is_none());
}

#[tokio::test]
async fn a_failed_rollback_leaves_both_fleets_serving_in_update_rollback_failed() {
    let handle = guardrails_sandbox().await;
    let (sm, _) = clients(&handle).await;
    single_variant_endpoint(&sm, "urf", 2).await;
    handle
        .sandbox
        .faults
        .add(FaultSpec::parse_short("kind=rollback_failure,endpoint=urf,count=1").expect("fault spec"));
    sm.update_endpoint()
        .endpoint_name("urf")
        .endpoint_config_name("urf-c2")
        .deployment_config(blue_green(canary(1, 600), 0, &[]))
        .send()
        .await
        .expect("UpdateEndpoint is accepted");
    wait_for(&sm, "urf", "RollingBack", |d| {
        d.endpoint_status() == Some(&EndpointStatus::RollingBack)
    })
    .await;
    let stuck = wait_for(&sm, "urf", "UpdateRollbackFailed", |d| {
        d.endpoint_status() == Some(&EndpointStatus::UpdateRollbackFailed)
    })
    .await;
    assert!(
        stuck
            .failure_reason()
            .is_some_and(|r| r.starts_with("Both the deployment and auto-rollback failed")),
        "{:?}",
        stuck.failure_reason()
    );
    assert_eq!(
        stuck.production_variants()[0].current_instance_count(),
        Some(4),
        "instances of both configurations"
    );
    assert!(stuck.pending_deployment_summary().is_none());
    assert_eq!(
        crate::common::invoke_times(&handle, "urf", 20).await,
        0,
        "it still serves"
    );

    // Another UpdateEndpoint recovers it.
    sm.update_endpoint()
        .endpoint_name("urf")
        .endpoint_config_name("urf-c1")
        .send()
        .await
        .expect("UpdateEndpoint from UpdateRollbackFailed");
    let back = wait_for(&sm, "urf", "InService", |d| {
        d.endpoint_status() == Some(&EndpointStatus::InService)
    })
    .await;
    assert_eq!(back.endpoint_config_name(), Some("urf-c1"));
    assert!(back.failure_reason().is_none());
    assert_eq!(back.production_variants()[0].current_instance_count(), Some(2));
}

#[tokio::test]
async fn the_demo_has_a_new_model_version_ready_to_deploy_with_a_canary() {
    let handle = crate::common::sandbox_with(crate::common::demo_config()).await;
    let (sm, _) = clients(&handle).await;
    let ready = sm
        .describe_endpoint_config()
        .endpoint_config_name(DEMO_NEXT_CONFIG)
        .send()
        .await
        .expect("the next version's config");
    let variant = &ready.production_variants()[0];
    assert_eq!(variant.model_name(), Some(DEMO_NEXT_MODEL));
    assert_eq!(variant.initial_instance_count(), Some(2));
    let before = sm
        .describe_endpoint()
        .endpoint_name("xgboost-churn-csv")
        .send()
        .await
        .expect("describe");
    assert_eq!(
        before.endpoint_config_name(),
        Some("xgboost-churn-config"),
        "not deployed yet"
    );
    sm.update_endpoint()
        .endpoint_name("xgboost-churn-csv")
        .endpoint_config_name(DEMO_NEXT_CONFIG)
        .deployment_config(blue_green(canary(1, 600), 600, &[]))
        .send()
        .await
        .expect("UpdateEndpoint");
    let done = wait_for(&sm, "xgboost-churn-csv", "InService", |d| {
        d.endpoint_status() == Some(&EndpointStatus::InService)
    })
    .await;
    assert_eq!(done.endpoint_config_name(), Some(DEMO_NEXT_CONFIG));
    assert_eq!(done.production_variants()[0].current_instance_count(), Some(2));
}

/// A model whose container fails `error_rate` of its requests.
async fn create_model_erring(sm: &Client, model: &str, error_rate: &str) {
    sm.create_model()
        .model_name(model)
        .primary_container(
            aws_sdk_sagemaker::types::ContainerDefinition::builder()
                .image("huggingface-pytorch-inference")
                .environment("SAGEDECK_ERROR_RATE", error_rate)
                .build(),
        )
        .execution_role_arn("arn:aws:iam::123456789012:role/x")
        .send()
        .await
        .expect("CreateModel");
}

#[tokio::test]
async fn a_worse_model_trips_a_new_fleet_alarm_and_the_deployment_rolls_back() {
    let mut config = sagedeck::sandbox::SandboxConfig::for_tests();
    config.timing.deploy_wait_scale = 0.01;
    config.random_errors = true;
    let handle = crate::common::sandbox_with(config).await;
    let (sm, cw) = clients(&handle).await;
    for (model, error_rate) in [("bad-v1", "0"), ("bad-v2", "0.5")] {
        create_model_erring(&sm, model, error_rate).await;
    }
    super::create_config(&sm, "bad-c1", "bad-v1", 2).await;
    super::create_config(&sm, "bad-c2", "bad-v2", 2).await;
    sm.create_endpoint()
        .endpoint_name("bad")
        .endpoint_config_name("bad-c1")
        .send()
        .await
        .expect("create");
    wait_for(&sm, "bad", "InService", |d| {
        d.endpoint_status() == Some(&EndpointStatus::InService)
    })
    .await;
    // The new fleet only: its EndpointConfigName, as AWS's guardrails documentation scopes it.
    cw.put_metric_alarm()
        .alarm_name("bad-new-fleet-5xx")
        .namespace("AWS/SageMaker")
        .metric_name("Invocation5XXErrors")
        .dimensions(Dimension::builder().name("EndpointName").value("bad").build())
        .dimensions(Dimension::builder().name("VariantName").value("AllTraffic").build())
        .dimensions(Dimension::builder().name("EndpointConfigName").value("bad-c2").build())
        .statistic(Statistic::Sum)
        .period(60)
        .evaluation_periods(1)
        .threshold(3.0)
        .comparison_operator(ComparisonOperator::GreaterThanThreshold)
        .send()
        .await
        .expect("PutMetricAlarm");
    sm.update_endpoint()
        .endpoint_name("bad")
        .endpoint_config_name("bad-c2")
        .deployment_config(blue_green(canary(1, 1500), 0, &["bad-new-fleet-5xx"]))
        .send()
        .await
        .expect("UpdateEndpoint");
    wait_for(&sm, "bad", "the canary bake", |d| {
        pending_status(d).is_some_and(|(s, _)| s == "Baking")
    })
    .await;
    // The alarm (Sum > 3) can trip mid-loop on the fourth error and roll traffic back to the
    // old model, so four errors is all this loop is sure to see.
    let failed = crate::common::invoke_times(&handle, "bad", 80).await;
    assert!(failed >= 4, "the canary's model errs: {failed} of 80 failed");
    let after = wait_for(&sm, "bad", "InService", |d| {
        d.endpoint_status() == Some(&EndpointStatus::InService)
    })
    .await;
    assert_eq!(after.endpoint_config_name(), Some("bad-c1"), "rolled back");
    assert!(
        after.failure_reason().is_some_and(|r| r.contains("bad-new-fleet-5xx")),
        "{:?}",
        after.failure_reason()
    );
    let state = cw
        .describe_alarms()
        .alarm_names("bad-new-fleet-5xx")
        .send()
        .await
        .expect("DescribeAlarms");
    assert_eq!(state.metric_alarms()[0].state_value(), Some(&StateValue::Alarm));
    assert_eq!(
        crate::common::invoke_times(&handle, "bad", 40).await,
        0,
        "the old model serves again"
    );
}

#[tokio::test]
async fn a_fleet_too_slow_to_launch_passes_the_timeout_and_rolls_back() {
    let handle = guardrails_sandbox().await;
    let (sm, _) = clients(&handle).await;
    single_variant_endpoint(&sm, "slow", 2).await;
    sm.create_model()
        .model_name("slow-v3")
        .primary_container(
            aws_sdk_sagemaker::types::ContainerDefinition::builder()
                .image("huggingface-pytorch-inference")
                .environment("SAGEDECK_LAUNCH_SECS", "1000")
                .build(),
        )
        .execution_role_arn("arn:aws:iam::123456789012:role/x")
        .send()
        .await
        .expect("CreateModel");
    super::create_config(&sm, "slow-c3", "slow-v3", 2).await;
    let policy = BlueGreenUpdatePolicy::builder()
        .traffic_routing_configuration(canary(1, 0))
        .maximum_execution_timeout_in_seconds(600)
        .build();
    sm.update_endpoint()
        .endpoint_name("slow")
        .endpoint_config_name("slow-c3")
        .deployment_config(DeploymentConfig::builder().blue_green_update_policy(policy).build())
        .send()
        .await
        .expect("UpdateEndpoint");
    let launching = sm
        .describe_endpoint()
        .endpoint_name("slow")
        .send()
        .await
        .expect("describe");
    assert_eq!(pending_status(&launching).map(|(s, _)| s), Some("Creating".to_string()));
    wait_for(&sm, "slow", "RollingBack", |d| {
        d.endpoint_status() == Some(&EndpointStatus::RollingBack)
    })
    .await;
    let after = wait_for(&sm, "slow", "InService", |d| {
        d.endpoint_status() == Some(&EndpointStatus::InService)
    })
    .await;
    assert_eq!(after.endpoint_config_name(), Some("slow-c1"));
    assert!(
        after
            .failure_reason()
            .is_some_and(|r| r.contains("MaximumExecutionTimeoutInSeconds")),
        "{:?}",
        after.failure_reason()
    );
}
