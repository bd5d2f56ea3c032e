//! Fleet inventory, weights and invocation through the fleet layer, over the wire.

use std::time::Duration;

use sagedeck::aws::change::weights::{parse_weight_args, plan_weights};
use sagedeck::aws::endpoints::inventory::InventoryOptions;
use sagedeck::aws::invoke::call::InvokeSpec;
use sagedeck::aws::{AwsError, RetryPolicy};
use sagedeck::sandbox::SandboxConfig;
use sagedeck::sandbox::faults::FaultSpec;

use crate::common::{demo_config, fleet, sandbox_with};

fn quick() -> RetryPolicy {
    RetryPolicy {
        base: Duration::from_millis(5),
        cap: Duration::from_millis(20),
        ..Default::default()
    }
}

#[tokio::test]
async fn inventory_of_the_demo_fleet() {
    let sb = sandbox_with(demo_config()).await;
    let f = fleet(&sb).await;
    let inv = f.inventory(InventoryOptions::default()).await.unwrap();
    assert_eq!(inv.endpoints.len(), 8);
    assert!(inv.failures.is_empty());
    let by = |n: &str| inv.endpoints.iter().find(|e| e.name == n).unwrap();
    let clf = by("mcp-intent-classifier-prod");
    assert_eq!(clf.variants.len(), 2);
    assert_eq!(clf.variants[0].traffic_share, 0.9);
    assert_eq!(clf.variants[0].instance_type.as_deref(), Some("ml.m5.large"));
    assert_eq!(clf.autoscaling.len(), 1);
    assert_eq!((clf.autoscaling[0].min, clf.autoscaling[0].max), (2, 6));
    assert_eq!(
        clf.autoscaling[0].policies[0].metric.as_deref(),
        Some("SageMakerVariantInvocationsPerInstance")
    );
    let mme = by("mcp-multi-model-endpoint");
    assert!(mme.multi_model);
    assert_eq!(mme.mme_prefix(), Some("s3://sagedeck-demo-models/tenants/"));
    assert!(by("mcp-embeddings-failed").failure_reason.is_some());
    assert_eq!(by("mcp-summarizer-staging").status, "Updating");
    assert_eq!(by("mcp-reranker-dev").status, "Creating");
    // One ListEndpoints page, then endpoint + config + models per endpoint, then autoscaling.
    assert!(inv.api_calls > 8 * 3, "{}", inv.api_calls);
}

#[tokio::test]
async fn partial_failures_keep_the_rest() {
    let sb = sandbox_with(demo_config()).await;
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short("kind=internal,operation=DescribeEndpoint,endpoint=llm-tgi-chat").unwrap());
    let f = fleet(&sb).await;
    let inv = f.inventory(InventoryOptions::default()).await.unwrap();
    assert_eq!(inv.endpoints.len(), 7);
    assert_eq!(inv.failures.len(), 1);
    assert_eq!(inv.failures[0].endpoint, "llm-tgi-chat");
    assert!(matches!(inv.failures[0].error, AwsError::InternalFailure(_)));
}

#[tokio::test]
async fn a_thousand_endpoints_with_bounded_concurrency() {
    let sb = sandbox_with(SandboxConfig {
        extra_endpoints: 1000,
        ..SandboxConfig::for_tests()
    })
    .await;
    let f = fleet(&sb).await;
    let inv = f
        .inventory(InventoryOptions {
            concurrency: 8,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(inv.endpoints.len(), 1000);
    assert!(inv.failures.is_empty());
    assert_eq!(sb.sandbox.request_count("ListEndpoints"), 10);
    assert_eq!(sb.sandbox.request_count("DescribeEndpoint"), 1000);
    assert_eq!(sb.sandbox.request_count("DescribeEndpointConfig"), 1000);
}

#[tokio::test]
async fn weights_plan_apply_and_wait() {
    let sb = sandbox_with(demo_config()).await;
    let f = fleet(&sb).await;
    let info = f.endpoint("mcp-intent-classifier-prod").await.unwrap();
    let plan = plan_weights(
        &info,
        &parse_weight_args(&["Stable=1".into(), "Canary=1".into()]).unwrap(),
    )
    .unwrap();
    f.apply_weights(&plan).await.unwrap();
    let mut seen_updating = false;
    let done = f
        .wait_in_service(
            "mcp-intent-classifier-prod",
            Duration::from_secs(10),
            Duration::from_millis(50),
            |i| {
                seen_updating |= i.status == "Updating";
            },
        )
        .await
        .unwrap();
    assert!(seen_updating);
    assert_eq!(done.variants[0].current_weight, 1.0);
    assert_eq!(done.variants[0].traffic_share, 0.5);
    // The sandbox refuses what the local validation would have caught, too.
    let err = f
        .apply_weights(&plan_weights(&done, &parse_weight_args(&["Stable=0".into()]).unwrap()).unwrap())
        .await;
    assert!(err.is_ok(), "Canary keeps weight 1");
}

#[tokio::test]
async fn invoke_retries_only_the_retryable() {
    let sb = sandbox_with(demo_config()).await;
    let f = fleet(&sb).await;
    let spec = InvokeSpec {
        endpoint: "xgboost-churn-csv".into(),
        body: b"1,2,3".to_vec(),
        content_type: "text/csv".into(),
        ..Default::default()
    };
    let ok = f.invoke(&spec, &quick()).await.unwrap();
    assert_eq!((ok.attempts, ok.invoked_variant.as_deref()), (1, Some("AllTraffic")));
    assert!(ok.latency > Duration::ZERO && ok.total >= ok.latency);
    for (fault, class) in [
        ("throttle", "throttling"),
        ("internal", "internal_failure"),
        ("unavailable", "service_unavailable"),
        ("not_ready", "model_not_ready"),
    ] {
        sb.sandbox.faults.clear();
        sb.sandbox
            .faults
            .add(FaultSpec::parse_short(&format!("kind={fault},count=2")).unwrap());
        let r = f.invoke(&spec, &quick()).await.unwrap();
        assert_eq!(r.attempts, 3, "{fault}");
        assert_eq!(r.retried, vec![class, class]);
    }
    sb.sandbox.faults.clear();
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short("kind=model_error,status=400,count=3").unwrap());
    let e = f.invoke(&spec, &quick()).await.unwrap_err();
    assert_eq!(e.attempts, 1, "a ModelError is never retried");
    assert!(matches!(
        e.error,
        AwsError::ModelError {
            original_status: Some(400),
            ..
        }
    ));
    sb.sandbox.faults.clear();
    sb.sandbox.faults.add(FaultSpec::parse_short("kind=throttle").unwrap());
    let e = f
        .invoke(
            &spec,
            &RetryPolicy {
                max_attempts: 3,
                ..quick()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.attempts, 3, "bounded attempts");
    sb.sandbox.faults.clear();
    let bad = InvokeSpec {
        target_model: Some("x.tar.gz".into()),
        ..spec.clone()
    };
    let e = f.invoke(&bad, &quick()).await.unwrap_err();
    assert_eq!((e.attempts, e.error.class()), (1, "validation"));
}

#[tokio::test]
async fn response_stream_parts_arrive_in_order() {
    let sb = sandbox_with(demo_config()).await;
    let f = fleet(&sb).await;
    let spec = InvokeSpec {
        endpoint: "llm-tgi-chat".into(),
        body: br#"{"inputs": "hi", "parameters": {"max_new_tokens": 6}}"#.to_vec(),
        content_type: "application/json".into(),
        ..Default::default()
    };
    let mut parts = Vec::new();
    let s = f.invoke_stream(&spec, |p| parts.push(p.to_vec())).await.unwrap();
    assert_eq!((s.parts, parts.len()), (6, 6));
    assert!(s.first_part.unwrap() <= s.total);
}
