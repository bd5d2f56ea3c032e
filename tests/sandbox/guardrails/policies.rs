//! Linear, all-at-once and rolling deployments to success with the Rust SDK, and the green fleet
//! serving with the new model: its latency shows in its own EndpointConfigName series and in the
//! variant's.

use aws_sdk_cloudwatch::types::{Dimension, Metric, MetricDataQuery, MetricStat};
use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::types::{
    BlueGreenUpdatePolicy, CapacitySize, CapacitySizeType, DeploymentConfig, EndpointStatus, RollingUpdatePolicy,
    TrafficRoutingConfig, TrafficRoutingConfigType,
};
use aws_smithy_types::DateTime;
use sagedeck::sandbox::now_epoch;

use super::{guardrails_sandbox, pending_status, single_variant_endpoint, wait_for};
use crate::common::{invoke_times, sdk_config};

fn capacity(kind: CapacitySizeType, value: i32) -> CapacitySize {
    CapacitySize::builder().r#type(kind).value(value).build()
}

fn routed(kind: TrafficRoutingConfigType, wait: i32, linear: Option<CapacitySize>) -> DeploymentConfig {
    let routing = TrafficRoutingConfig::builder()
        .r#type(kind)
        .wait_interval_in_seconds(wait)
        .set_linear_step_size(linear)
        .build();
    DeploymentConfig::builder()
        .blue_green_update_policy(
            BlueGreenUpdatePolicy::builder()
                .traffic_routing_configuration(routing)
                .termination_wait_in_seconds(50)
                .build(),
        )
        .build()
}

/// Every distinct (status, message) the pending variant shows until the endpoint is InService.
async fn watch_to_the_end(sm: &Client, name: &str) -> Vec<(String, String)> {
    let mut seen: Vec<(String, String)> = Vec::new();
    wait_for_each(sm, name, &mut seen).await;
    seen
}

async fn wait_for_each(sm: &Client, name: &str, seen: &mut Vec<(String, String)>) {
    let deadline = std::time::Instant::now() + super::DEPLOY_DEADLINE;
    while std::time::Instant::now() < deadline {
        let d = sm
            .describe_endpoint()
            .endpoint_name(name)
            .send()
            .await
            .expect("describe");
        if let Some(s) = pending_status(&d)
            && seen.last() != Some(&s)
        {
            seen.push(s);
        }
        if d.endpoint_status() == Some(&EndpointStatus::InService) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("{name} did not come back InService; saw {seen:?}");
}

#[tokio::test]
async fn linear_steps_of_half_the_fleet_bake_between_them() {
    let handle = guardrails_sandbox().await;
    let sm = Client::new(&sdk_config(&handle).await);
    single_variant_endpoint(&sm, "lin", 4).await;
    let step = capacity(CapacitySizeType::CapacityPercent, 50);
    sm.update_endpoint()
        .endpoint_name("lin")
        .endpoint_config_name("lin-c2")
        .deployment_config(routed(TrafficRoutingConfigType::Linear, 100, Some(step)))
        .send()
        .await
        .expect("UpdateEndpoint");
    let seen = watch_to_the_end(&sm, "lin").await;
    let messages: Vec<&str> = seen.iter().map(|(_, m)| m.as_str()).collect();
    assert!(
        messages
            .contains(&"Baking for 100 seconds (WaitIntervalInSeconds) with traffic enabled on 2 instance(s) of 4."),
        "{messages:?}"
    );
    assert!(
        messages.contains(
            &"Baking for 50 seconds (TerminationWaitInSeconds) with traffic enabled on full capacity of 4 instance(s)."
        ),
        "{messages:?}"
    );
    let done = sm
        .describe_endpoint()
        .endpoint_name("lin")
        .send()
        .await
        .expect("describe");
    assert_eq!(done.endpoint_config_name(), Some("lin-c2"));
}

#[tokio::test]
async fn all_at_once_shifts_everything_then_bakes_before_terminating_blue() {
    let handle = guardrails_sandbox().await;
    let sm = Client::new(&sdk_config(&handle).await);
    single_variant_endpoint(&sm, "aao", 2).await;
    sm.update_endpoint()
        .endpoint_name("aao")
        .endpoint_config_name("aao-c2")
        .deployment_config(routed(TrafficRoutingConfigType::AllAtOnce, 0, None))
        .send()
        .await
        .expect("UpdateEndpoint");
    let seen = watch_to_the_end(&sm, "aao").await;
    let statuses: Vec<&str> = seen.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == "Baking").count(),
        1,
        "one bake, the final one: {seen:?}"
    );
    assert_eq!(statuses.first(), Some(&"Creating"), "{seen:?}");
    assert!(statuses.contains(&"Baking"), "{seen:?}");
    let done = sm
        .describe_endpoint()
        .endpoint_name("aao")
        .send()
        .await
        .expect("describe");
    assert_eq!(done.endpoint_config_name(), Some("aao-c2"));
    assert_eq!(done.production_variants()[0].current_instance_count(), Some(2));
}

#[tokio::test]
async fn rolling_batches_trade_old_instances_for_new_ones() {
    let handle = guardrails_sandbox().await;
    let sm = Client::new(&sdk_config(&handle).await);
    single_variant_endpoint(&sm, "roll", 4).await;
    let policy = RollingUpdatePolicy::builder()
        .maximum_batch_size(capacity(CapacitySizeType::InstanceCount, 2))
        .wait_interval_in_seconds(100)
        .rollback_maximum_batch_size(capacity(CapacitySizeType::InstanceCount, 1))
        .build();
    sm.update_endpoint()
        .endpoint_name("roll")
        .endpoint_config_name("roll-c2")
        .deployment_config(DeploymentConfig::builder().rolling_update_policy(policy).build())
        .send()
        .await
        .expect("UpdateEndpoint");
    let mid = wait_for(&sm, "roll", "the first batch terminated", |d| {
        pending_status(d).is_some_and(|(s, m)| s == "Creating" && m.contains("batch 2 of 2"))
    })
    .await;
    assert_eq!(
        mid.production_variants()[0].current_instance_count(),
        Some(2),
        "the first batch's old instances are gone"
    );
    let pending = &mid.pending_deployment_summary().expect("pending").production_variants()[0];
    assert_eq!(
        pending.current_instance_count(),
        Some(2),
        "the second batch still launching"
    );
    assert_eq!(pending.desired_instance_count(), Some(4));
    let done = wait_for(&sm, "roll", "InService", |d| {
        d.endpoint_status() == Some(&EndpointStatus::InService)
    })
    .await;
    assert_eq!(done.endpoint_config_name(), Some("roll-c2"));
    assert!(
        done.last_deployment_config()
            .and_then(|c| c.rolling_update_policy())
            .is_some()
    );
}

fn latency_query(id: &str, endpoint: &str, config: Option<&str>) -> MetricDataQuery {
    let dim = |n: &str, v: &str| Dimension::builder().name(n).value(v).build();
    let mut metric = Metric::builder()
        .namespace("AWS/SageMaker")
        .metric_name("ModelLatency")
        .dimensions(dim("EndpointName", endpoint))
        .dimensions(dim("VariantName", "AllTraffic"));
    if let Some(c) = config {
        metric = metric.dimensions(dim("EndpointConfigName", c));
    }
    let stat = MetricStat::builder()
        .metric(metric.build())
        .period(600)
        .stat("Average")
        .build();
    MetricDataQuery::builder().id(id).metric_stat(stat).build()
}

#[tokio::test]
async fn the_green_fleet_serves_with_the_new_models_latency() {
    let handle = guardrails_sandbox().await;
    let config = sdk_config(&handle).await;
    let (sm, cw) = (Client::new(&config), aws_sdk_cloudwatch::Client::new(&config));
    single_variant_endpoint(&sm, "lat", 2).await;
    let one = capacity(CapacitySizeType::InstanceCount, 1);
    let canary = TrafficRoutingConfig::builder()
        .r#type(TrafficRoutingConfigType::Canary)
        .wait_interval_in_seconds(3000)
        .canary_size(one)
        .build();
    let policy = BlueGreenUpdatePolicy::builder()
        .traffic_routing_configuration(canary)
        .build();
    sm.update_endpoint()
        .endpoint_name("lat")
        .endpoint_config_name("lat-c2")
        .deployment_config(DeploymentConfig::builder().blue_green_update_policy(policy).build())
        .send()
        .await
        .expect("UpdateEndpoint");
    wait_for(&sm, "lat", "the canary bake", |d| {
        pending_status(d).is_some_and(|(s, _)| s == "Baking")
    })
    .await;
    assert_eq!(invoke_times(&handle, "lat", 300).await, 0);
    let now = now_epoch() as i64;
    let out = cw
        .get_metric_data()
        .metric_data_queries(latency_query("blue", "lat", Some("lat-c1")))
        .metric_data_queries(latency_query("green", "lat", Some("lat-c2")))
        .metric_data_queries(latency_query("both", "lat", None))
        .start_time(DateTime::from_secs(now - 600))
        .end_time(DateTime::from_secs(now + 60))
        .send()
        .await
        .expect("GetMetricData");
    let avg = |id: &str| -> f64 {
        let r = out
            .metric_data_results()
            .iter()
            .find(|r| r.id() == Some(id))
            .expect("result");
        r.values().iter().copied().fold(0.0, f64::max)
    };
    let (blue, green, both) = (avg("blue"), avg("green"), avg("both"));
    assert!(
        blue > 0.0 && green > 0.0,
        "both fleets served: blue {blue}, green {green}"
    );
    assert!(
        green > 2.5 * blue,
        "the new model (80 ms) is slower than the old (20 ms): {green} vs {blue}"
    );
    assert!(
        both > blue && both < green,
        "the variant's series mixes both fleets: {both}"
    );
}

#[tokio::test]
async fn a_rolling_rollback_relaunches_the_old_fleet_in_its_rollback_batches() {
    let handle = guardrails_sandbox().await;
    let config = sdk_config(&handle).await;
    let (sm, cw) = (Client::new(&config), aws_sdk_cloudwatch::Client::new(&config));
    single_variant_endpoint(&sm, "rrb", 4).await;
    cw.put_metric_alarm()
        .alarm_name("rrb-latency")
        .namespace("AWS/SageMaker")
        .metric_name("ModelLatency")
        .dimensions(Dimension::builder().name("EndpointName").value("rrb").build())
        .extended_statistic("p99")
        .period(60)
        .evaluation_periods(1)
        .threshold(1e9)
        .comparison_operator(aws_sdk_cloudwatch::types::ComparisonOperator::GreaterThanThreshold)
        .send()
        .await
        .expect("PutMetricAlarm");
    let policy = RollingUpdatePolicy::builder()
        .maximum_batch_size(capacity(CapacitySizeType::CapacityPercent, 50))
        .wait_interval_in_seconds(600)
        .rollback_maximum_batch_size(capacity(CapacitySizeType::InstanceCount, 1))
        .build();
    let rollback = aws_sdk_sagemaker::types::AutoRollbackConfig::builder()
        .alarms(
            aws_sdk_sagemaker::types::Alarm::builder()
                .alarm_name("rrb-latency")
                .build(),
        )
        .build();
    sm.update_endpoint()
        .endpoint_name("rrb")
        .endpoint_config_name("rrb-c2")
        .deployment_config(
            DeploymentConfig::builder()
                .rolling_update_policy(policy)
                .auto_rollback_configuration(rollback)
                .build(),
        )
        .send()
        .await
        .expect("UpdateEndpoint");
    let baking = wait_for(&sm, "rrb", "the first batch's bake", |d| {
        pending_status(d).is_some_and(|(s, _)| s == "Baking")
    })
    .await;
    assert_eq!(baking.production_variants()[0].current_instance_count(), Some(4));
    cw.set_alarm_state()
        .alarm_name("rrb-latency")
        .state_value(aws_sdk_cloudwatch::types::StateValue::Alarm)
        .state_reason("the new batch is slow")
        .send()
        .await
        .expect("SetAlarmState");
    let mut seen = Vec::new();
    wait_for_each(&sm, "rrb", &mut seen).await;
    let messages: Vec<&str> = seen.iter().map(|(_, m)| m.as_str()).collect();
    let relaunches = messages
        .iter()
        .filter(|m| **m == "Launching 1 instance(s) of the old fleet.")
        .count();
    assert_eq!(relaunches, 2, "two batches of one: {messages:?}");
    let done = sm
        .describe_endpoint()
        .endpoint_name("rrb")
        .send()
        .await
        .expect("describe");
    assert_eq!(done.endpoint_config_name(), Some("rrb-c1"));
    assert!(done.failure_reason().is_some_and(|r| r.contains("rrb-latency")));
    assert_eq!(done.production_variants()[0].current_instance_count(), Some(4));
}
