//! Every control-plane call the sandbox serves is recorded with the principal of its access key:
//! a teammate's change under his name, a refused call with its error code, a pipeline's session
//! as an assumed role; invocations (data events) are not recorded.

use aws_sdk_applicationautoscaling::types::{ScalableDimension, ServiceNamespace};
use aws_sdk_cloudtrail::Client as Trail;
use aws_sdk_sagemaker::types::DesiredWeightAndCapacity;
use aws_sdk_sagemakerruntime::primitives::Blob;
use sagedeck::sandbox::cloudtrail::identity::{ALICE_KEY, BOB_KEY, CI_SESSION_KEY};
use serde_json::json;

use super::{attr, lookup_all, record, signed_by, unthrottled};
use sagedeck::sandbox::SandboxConfig;

use crate::common::{demo_config, poll_until, sandbox_with, sdk_config};

const EP: &str = "mcp-intent-classifier-prod";

fn canary(weight: f32) -> DesiredWeightAndCapacity {
    DesiredWeightAndCapacity::builder()
        .variant_name("Canary")
        .desired_weight(weight)
        .build()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teammates_change_is_recorded_under_his_name() {
    let sb = sandbox_with(unthrottled(demo_config())).await;
    let bob = signed_by(&sb, BOB_KEY).await;
    aws_sdk_sagemaker::Client::new(&bob)
        .update_endpoint_weights_and_capacities()
        .endpoint_name(EP)
        .desired_weights_and_capacities(canary(2.0))
        .send()
        .await
        .expect("bob's change is accepted");
    let who = aws_sdk_sts::Client::new(&bob)
        .get_caller_identity()
        .send()
        .await
        .unwrap();
    assert_eq!(
        who.arn(),
        Some("arn:aws:iam::123456789012:user/bob"),
        "STS names him too"
    );

    // Alice reads the trail of the endpoint.
    let trail = Trail::new(&sdk_config(&sb).await);
    let events = lookup_all(&trail, Some(attr("ResourceName", EP))).await;
    let change = events
        .iter()
        .find(|e| e.event_name() == Some("UpdateEndpointWeightsAndCapacities"))
        .expect("the change is in the trail");
    assert_eq!(change.username(), Some("bob"));
    assert_eq!(change.access_key_id(), Some(BOB_KEY));
    assert_eq!(change.read_only(), Some("false"));
    assert_eq!(change.event_source(), Some("sagemaker.amazonaws.com"));
    assert_eq!(change.resources()[0].resource_type(), Some("AWS::SageMaker::Endpoint"));
    assert_eq!(change.resources()[0].resource_name(), Some(EP));
    let r = record(change);
    assert_eq!(r["userIdentity"]["type"], "IAMUser");
    assert_eq!(r["userIdentity"]["arn"], "arn:aws:iam::123456789012:user/bob");
    assert_eq!(r["userIdentity"]["accessKeyId"], BOB_KEY);
    assert_eq!(r["awsRegion"], "us-east-1");
    assert_eq!(r["sourceIPAddress"], "127.0.0.1");
    assert!(r["userAgent"].as_str().unwrap().contains("aws-sdk-rust"), "{r}");
    assert_eq!(
        r["requestParameters"],
        json!({"endpointName": EP, "desiredWeightsAndCapacities": [{"variantName": "Canary", "desiredWeight": 2.0}]})
    );
    assert_eq!(
        r["responseElements"]["endpointArn"],
        "arn:aws:sagemaker:us-east-1:123456789012:endpoint/mcp-intent-classifier-prod"
    );
    assert_eq!(r["eventID"].as_str(), change.event_id());
    assert!(r.get("errorCode").is_none(), "{r}");
    let t = change.event_time().unwrap().secs() as f64;
    assert!(
        (t - sagedeck::sandbox::now_epoch()).abs() < 60.0,
        "eventTime is now: {t}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_call_is_recorded_with_its_error_code() {
    let sb = sandbox_with(unthrottled(demo_config())).await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    let refused = sm
        .update_endpoint_weights_and_capacities()
        .endpoint_name(EP)
        .desired_weights_and_capacities(
            DesiredWeightAndCapacity::builder()
                .variant_name("Nope")
                .desired_weight(1.0)
                .build(),
        )
        .send()
        .await
        .expect_err("an unknown variant is refused");
    let message = refused
        .as_service_error()
        .and_then(|e| e.meta().message())
        .unwrap()
        .to_string();
    let trail = Trail::new(&sdk_config(&sb).await);
    let events = lookup_all(&trail, Some(attr("EventName", "UpdateEndpointWeightsAndCapacities"))).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].username(), Some("alice"), "the default key is alice's");
    let r = record(&events[0]);
    assert_eq!(r["errorCode"], "ValidationException");
    assert_eq!(r["errorMessage"], message.as_str());
    assert_eq!(r["responseElements"], serde_json::Value::Null);
    assert_eq!(r["userIdentity"]["arn"], "arn:aws:iam::123456789012:user/alice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipelines_session_is_an_assumed_role_and_invocations_are_not_recorded() {
    let sb = sandbox_with(unthrottled(demo_config())).await;
    let ci = signed_by(&sb, CI_SESSION_KEY).await;
    aws_sdk_applicationautoscaling::Client::new(&ci)
        .register_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(format!("endpoint/{EP}/variant/Canary"))
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .min_capacity(1)
        .max_capacity(2)
        .send()
        .await
        .expect("the target is registered");
    aws_sdk_sagemakerruntime::Client::new(&ci)
        .invoke_endpoint()
        .endpoint_name(EP)
        .content_type("application/json")
        .body(Blob::new(r#"{"inputs": "hi"}"#))
        .send()
        .await
        .expect("the invocation answers");

    let trail = Trail::new(&signed_by(&sb, ALICE_KEY).await);
    let events = lookup_all(&trail, Some(attr("Username", "ci-build"))).await;
    let names: Vec<&str> = events.iter().filter_map(|e| e.event_name()).collect();
    assert_eq!(
        names,
        ["RegisterScalableTarget"],
        "the invocation is a data event, not recorded"
    );
    let e = &events[0];
    assert_eq!(e.event_source(), Some("application-autoscaling.amazonaws.com"));
    let kinds: Vec<(&str, &str)> = e
        .resources()
        .iter()
        .map(|r| (r.resource_type().unwrap(), r.resource_name().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            (
                "AWS::ApplicationAutoScaling::ScalableTarget",
                "endpoint/mcp-intent-classifier-prod/variant/Canary"
            ),
            ("AWS::SageMaker::Endpoint", EP),
        ]
    );
    let r = record(e);
    assert_eq!(r["userIdentity"]["type"], "AssumedRole");
    assert_eq!(
        r["userIdentity"]["arn"],
        "arn:aws:sts::123456789012:assumed-role/deploy-pipeline/ci-build"
    );
    assert_eq!(
        r["userIdentity"]["sessionContext"]["sessionIssuer"]["arn"],
        "arn:aws:iam::123456789012:role/deploy-pipeline"
    );
    assert_eq!(
        r["requestParameters"]["resourceId"],
        "endpoint/mcp-intent-classifier-prod/variant/Canary"
    );
    assert_eq!(r["requestParameters"]["minCapacity"], 1);
    let invocations = lookup_all(&trail, Some(attr("EventName", "InvokeEndpoint"))).await;
    assert!(invocations.is_empty(), "{invocations:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_group_management_is_recorded_and_log_events_are_not() {
    let sb = sandbox_with(unthrottled(crate::common::demo_config())).await;
    let logs = aws_sdk_cloudwatchlogs::Client::new(&signed_by(&sb, BOB_KEY).await);
    logs.create_log_group()
        .log_group_name("/sagedeck/audit")
        .send()
        .await
        .unwrap();
    logs.create_log_stream()
        .log_group_name("/sagedeck/audit")
        .log_stream_name("bob/host-b")
        .send()
        .await
        .unwrap();
    let event = aws_sdk_cloudwatchlogs::types::InputLogEvent::builder()
        .timestamp((sagedeck::sandbox::now_epoch() * 1000.0) as i64)
        .message("{\"kind\": \"weights.set\"}")
        .build()
        .unwrap();
    logs.put_log_events()
        .log_group_name("/sagedeck/audit")
        .log_stream_name("bob/host-b")
        .log_events(event)
        .send()
        .await
        .unwrap();
    let trail = Trail::new(&sdk_config(&sb).await);
    let events = lookup_all(&trail, Some(attr("EventSource", "logs.amazonaws.com"))).await;
    let names: Vec<&str> = events.iter().filter_map(|e| e.event_name()).collect();
    assert_eq!(
        names,
        ["CreateLogStream", "CreateLogGroup"],
        "newest first, no PutLogEvents"
    );
    assert_eq!(events[0].resources()[0].resource_name(), Some("/sagedeck/audit"));
    assert_eq!(events[0].username(), Some("bob"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demos_teammate_changes_weights_as_bob_and_leaves_a_rollout_alone() {
    use sagedeck::sandbox::world::teammate::{TEAMMATE_ENDPOINT, next_canary_weight, nudge};
    let sb = sandbox_with(SandboxConfig {
        teammate_every: Some(std::time::Duration::from_millis(200)),
        ..unthrottled(demo_config())
    })
    .await;
    assert_eq!(TEAMMATE_ENDPOINT, EP);
    let trail = Trail::new(&sdk_config(&sb).await);
    let bobs = poll_until("bob's first change", std::time::Duration::from_secs(20), || async {
        let events = lookup_all(&trail, Some(attr("Username", "bob"))).await;
        (!events.is_empty()).then_some(events)
    })
    .await;
    let r = record(&bobs[0]);
    assert_eq!(r["eventName"], "UpdateEndpointWeightsAndCapacities");
    assert!(r["userAgent"].as_str().unwrap().starts_with("aws-cli/"), "{r}");
    assert_eq!(
        r["requestParameters"]["desiredWeightsAndCapacities"][0]["desiredWeight"],
        2.0
    );

    // An operator's rollout (Canary at 5, accepted once bob's update is done): bob leaves it alone.
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    poll_until("the rollout accepted", std::time::Duration::from_secs(20), || async {
        let send = sm.update_endpoint_weights_and_capacities().endpoint_name(EP);
        send.desired_weights_and_capacities(canary(5.0)).send().await.ok()
    })
    .await;
    poll_until("the rollout applied", std::time::Duration::from_secs(20), || async {
        let world = sb.sandbox.world.read();
        let ep = world.endpoints.get(EP)?;
        (ep.variant("Canary")?.current_weight == 5.0).then_some(())
    })
    .await;
    assert_eq!(next_canary_weight(&sb.sandbox), None);
    assert!(!nudge(&sb.sandbox, 1), "no change sent");
}
