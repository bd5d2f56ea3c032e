//! LastModifiedTime moves on every change of an endpoint — a weight or capacity update and its
//! end, autoscaling's capacity change, each step of a deployment — to the moment of the change,
//! ListEndpoints and DescribeEndpoint agreeing; invocations and reads move nothing.

use std::time::{Duration, Instant};

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::operation::describe_endpoint::DescribeEndpointOutput;
use aws_sdk_sagemaker::types::{
    BlueGreenUpdatePolicy, CapacitySize, CapacitySizeType, DeploymentConfig, DesiredWeightAndCapacity,
    TrafficRoutingConfig, TrafficRoutingConfigType,
};
use aws_sdk_sagemakerruntime::primitives::Blob;
use sagedeck::sandbox::SandboxConfig;
use sagedeck::sandbox::autoscaling::activities::scale_variant;

use crate::common::{demo_config, poll_until, sandbox_with, sdk_config};

const AB: &str = "mcp-intent-classifier-prod";
const CSV: &str = "xgboost-churn-csv";

/// `(status, LastModifiedTime)` of an endpoint, DescribeEndpoint's, checked against the one
/// ListEndpoints gives.
async fn modified(sm: &Client, name: &str) -> (String, f64) {
    let d = describe(sm, name).await;
    let listed = sm.list_endpoints().name_contains(name).send().await.expect("list");
    let item = listed
        .endpoints()
        .iter()
        .find(|e| e.endpoint_name() == Some(name))
        .expect("listed");
    let described = d.last_modified_time().expect("LastModifiedTime").as_secs_f64();
    let status = d.endpoint_status().map(|s| s.as_str().to_string()).unwrap_or_default();
    let in_list = item
        .last_modified_time()
        .expect("listed LastModifiedTime")
        .as_secs_f64();
    // Both read the same record unless a change landed between the two calls.
    let relisted = modified_again(sm, name).await;
    assert!(
        (described - in_list).abs() < 1e-6 || (relisted - in_list).abs() < 1e-6,
        "{name}: DescribeEndpoint {described} vs ListEndpoints {in_list}"
    );
    (status, described)
}

/// DescribeEndpoint's answer for `name`.
async fn describe(sm: &Client, name: &str) -> DescribeEndpointOutput {
    let d = sm.describe_endpoint().endpoint_name(name).send().await;
    d.expect("describe")
}

/// DescribeEndpoint's LastModifiedTime of `name`.
async fn modified_again(sm: &Client, name: &str) -> f64 {
    let d = describe(sm, name).await;
    d.last_modified_time().expect("LastModifiedTime").as_secs_f64()
}

/// Waits for InService and answers its LastModifiedTime.
async fn in_service(sm: &Client, name: &str) -> f64 {
    poll_until("InService", Duration::from_secs(20), || async {
        let (status, at) = modified(sm, name).await;
        (status == "InService").then_some(at)
    })
    .await
}

#[tokio::test]
async fn weights_and_autoscaling_move_it_when_they_start_and_when_they_end() {
    let sb = sandbox_with(demo_config()).await;
    let sm = Client::new(&sdk_config(&sb).await);
    let rt = aws_sdk_sagemakerruntime::Client::new(&sdk_config(&sb).await);
    let update_secs = SandboxConfig::for_tests().timing.update.as_secs_f64();
    let (_, idle) = modified(&sm, AB).await;
    for _ in 0..5 {
        let call = rt.invoke_endpoint().endpoint_name(AB).content_type("application/json");
        call.body(Blob::new(r#"{"inputs":"hi"}"#)).send().await.expect("invoke");
    }
    assert_eq!(
        modified(&sm, AB).await,
        ("InService".to_string(), idle),
        "calls change nothing"
    );

    let weight = DesiredWeightAndCapacity::builder()
        .variant_name("Canary")
        .desired_weight(3.0)
        .build();
    let sent = sm
        .update_endpoint_weights_and_capacities()
        .endpoint_name(AB)
        .desired_weights_and_capacities(weight);
    sent.send().await.expect("update weights");
    let (status, updating) = modified(&sm, AB).await;
    assert_eq!(status, "Updating");
    assert!(updating > idle, "the update moved it: {idle} → {updating}");
    let done = in_service(&sm, AB).await;
    assert!(
        (done - (updating + update_secs)).abs() < 1e-3,
        "the end is the update's own moment ({updating} + {update_secs}), not when it was seen: {done}"
    );
    assert_eq!(modified(&sm, AB).await.1, done, "InService, unchanged: nothing moves");

    assert!(scale_variant(&sb.sandbox, AB, "Stable", 3), "autoscaling scales out");
    let (status, scaling) = modified(&sm, AB).await;
    assert_eq!(status, "Updating");
    assert!(scaling > done);
    let scaled = in_service(&sm, AB).await;
    assert!((scaled - (scaling + update_secs)).abs() < 1e-3);
}

/// What DescribeEndpoint shows of a deployment: status, the variants' and the pending
/// summary's statuses, messages and counts.
async fn shown(sm: &Client, name: &str) -> (String, f64) {
    let d = describe(sm, name).await;
    let at = d.last_modified_time().expect("LastModifiedTime").as_secs_f64();
    let text = format!(
        "{:?} {:?} {:?} {:?}",
        d.endpoint_status(),
        d.endpoint_config_name(),
        d.production_variants(),
        d.pending_deployment_summary()
    );
    (text, at)
}

#[tokio::test]
async fn every_step_of_a_deployment_moves_it() {
    let sb = sandbox_with(demo_config()).await;
    let sm = Client::new(&sdk_config(&sb).await);
    let (_, before) = modified(&sm, CSV).await;
    let canary = CapacitySize::builder()
        .r#type(CapacitySizeType::InstanceCount)
        .value(1)
        .build();
    let routing = TrafficRoutingConfig::builder()
        .r#type(TrafficRoutingConfigType::Canary)
        .wait_interval_in_seconds(60)
        .canary_size(canary)
        .build();
    let policy = BlueGreenUpdatePolicy::builder()
        .traffic_routing_configuration(routing)
        .termination_wait_in_seconds(60)
        .build();
    sm.update_endpoint()
        .endpoint_name(CSV)
        .endpoint_config_name("xgboost-churn-config-v2")
        .deployment_config(DeploymentConfig::builder().blue_green_update_policy(policy).build())
        .send()
        .await
        .expect("deploy");
    let (mut last, mut at) = shown(&sm, CSV).await;
    assert!(at > before, "the update moved it");
    let mut changes = 0;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (now, now_at) = shown(&sm, CSV).await;
        if now != last {
            assert!(now_at > at, "a change without a new LastModifiedTime:\n{last}\n→ {now}");
            changes += 1;
        } else {
            assert_eq!(now_at, at, "LastModifiedTime moved with nothing changed: {now}");
        }
        let done = now.starts_with("Some(InService)") && now.contains("xgboost-churn-config-v2");
        (last, at) = (now, now_at);
        if done {
            break;
        }
        assert!(Instant::now() < deadline, "the deployment did not end: {last}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        changes >= 3,
        "launch, canary, bake, shift, final bake, termination: {changes} seen"
    );
}
