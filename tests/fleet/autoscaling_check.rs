//! `sagedeck autoscaling --check` and `--check-request` over the wire: the seed article's latency
//! policy gives exactly its three findings, its invocations policy none, correct policies none,
//! a custom metric is checked with ListMetrics, and a target with MinCapacity 0 is found (exit 8).

use aws_sdk_applicationautoscaling::types::{PolicyType, ScalableDimension, ServiceNamespace};
use aws_sdk_cloudwatch::types::{Dimension, MetricDatum};
use sagedeck::aws::scaling::spec::{PolicySpec, tt_to_sdk};
use serde_json::{Value, json};

use sagedeck::sandbox::SandboxHandle;

use crate::common::{demo_config, run_cli, sandbox_with, sdk_config};

const EP: &str = "xgboost-churn-csv";
const RESOURCE: &str = "endpoint/xgboost-churn-csv/variant/AllTraffic";

fn request(name: &str, tt: Value) -> Value {
    json!({
        "PolicyName": name, "ServiceNamespace": "sagemaker", "ResourceId": RESOURCE,
        "ScalableDimension": "sagemaker:variant:DesiredInstanceCount",
        "PolicyType": "TargetTrackingScaling", "TargetTrackingScalingPolicyConfiguration": tt,
    })
}

fn dims() -> Value {
    json!([{"Name": "EndpointName", "Value": EP}, {"Name": "VariantName", "Value": "AllTraffic"}])
}

/// The seed's invocations policy (its ENDPOINT_NAME is this endpoint).
fn seed_invocations() -> Value {
    request(
        "mcp-endpoint-invocations-policy",
        json!({"TargetValue": 70.0,
            "PredefinedMetricSpecification": {"PredefinedMetricType": "SageMakerVariantInvocationsPerInstance"},
            "ScaleInCooldown": 300, "ScaleOutCooldown": 60}),
    )
}

/// The seed's latency policy, as the article writes it.
fn seed_latency() -> Value {
    request(
        "mcp-endpoint-latency-policy",
        json!({"TargetValue": 500.0,
            "CustomizedMetricSpecification": {"MetricName": "ModelLatency", "Namespace": "/aws/sagemaker/Endpoints",
                "Dimensions": dims(), "Statistic": "p99", "Unit": "Microseconds"},
            "ScaleInCooldown": 300, "ScaleOutCooldown": 60}),
    )
}

async fn put(sb: &SandboxHandle, policy: &Value) {
    let spec = PolicySpec::from_json(&policy.to_string()).unwrap();
    let aas = aws_sdk_applicationautoscaling::Client::new(&sdk_config(sb).await);
    aas.put_scaling_policy()
        .policy_name(&spec.policy_name)
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(&spec.resource_id)
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .policy_type(PolicyType::TargetTrackingScaling)
        .target_tracking_scaling_policy_configuration(
            tt_to_sdk(spec.target_tracking_scaling_policy_configuration.as_ref().unwrap()).unwrap(),
        )
        .send()
        .await
        .unwrap();
}

async fn register(sb: &SandboxHandle, min: i32, max: i32) {
    let aas = aws_sdk_applicationautoscaling::Client::new(&sdk_config(sb).await);
    aas.register_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(RESOURCE)
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .min_capacity(min)
        .max_capacity(max)
        .send()
        .await
        .unwrap();
}

/// `--check-request` on `policy`: exit code and the kinds of the findings.
async fn check_request(sb: &SandboxHandle, policy: &Value) -> (i32, Vec<String>, Value) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("request.json");
    std::fs::write(&file, policy.to_string()).unwrap();
    let r = run_cli(
        sb,
        &["autoscaling", EP, "--check-request", file.to_str().unwrap(), "--json"],
    )
    .await;
    let j = r.json();
    let kinds = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect();
    (r.code, kinds, j)
}

#[tokio::test]
async fn the_seed_latency_policy_gives_its_three_findings_and_correct_policies_none() {
    let sb = sandbox_with(demo_config()).await;
    register(&sb, 1, 8).await;
    put(&sb, &seed_invocations()).await;
    let r = run_cli(&sb, &["autoscaling", EP, "--check"]).await;
    assert_eq!(
        r.code, 0,
        "the seed's invocations policy is fine:\n{}{}",
        r.stdout, r.stderr
    );
    assert!(
        r.stdout.contains("1 policy, 1 scalable target checked: no findings"),
        "{}",
        r.stdout
    );

    let (code, kinds, j) = check_request(&sb, &seed_latency()).await;
    assert_eq!(code, 8, "{j}");
    assert_eq!(kinds, ["statistic", "metric_not_published", "units"], "{j}");
    let fix = format!(
        "sagedeck autoscaling {EP} --variant AllTraffic --target-p99-ms 500 --policy-name mcp-endpoint-latency-policy"
    );
    assert!(
        j["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["fix"] == fix.as_str()),
        "{j}"
    );

    // The same three, said for a human.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("seed.json");
    std::fs::write(&file, seed_latency().to_string()).unwrap();
    let r = run_cli(&sb, &["autoscaling", EP, "--check-request", file.to_str().unwrap()]).await;
    assert_eq!(r.code, 8);
    assert!(r.stdout.contains("the request checked: 3 findings"), "{}", r.stdout);
    assert!(r.stdout.contains("Statistic \"p99\""), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("SageMaker publishes ModelLatency under AWS/SageMaker"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("0.5 ms"), "{}", r.stdout);
    assert_eq!(r.stdout.matches("what happens:").count(), 3, "{}", r.stdout);

    let p99 = request(
        "mcp-endpoint-latency-policy",
        json!({"TargetValue": 500000.0, "CustomizedMetricSpecification": {"Metrics": [{"Id": "m1", "ReturnData": true,
            "MetricStat": {"Stat": "p99", "Metric": {"Namespace": "AWS/SageMaker", "MetricName": "ModelLatency", "Dimensions": dims()}}}]},
            "ScaleInCooldown": 300, "ScaleOutCooldown": 60}),
    );
    let cpu = request(
        "cpu",
        json!({"TargetValue": 70.0, "CustomizedMetricSpecification": {"MetricName": "CPUUtilization",
            "Namespace": "/aws/sagemaker/Endpoints", "Dimensions": dims(), "Statistic": "Average"},
            "ScaleInCooldown": 600, "ScaleOutCooldown": 120}),
    );
    for good in [&seed_invocations(), &p99, &cpu] {
        let (code, kinds, j) = check_request(&sb, good).await;
        assert_eq!((code, kinds.len()), (0, 0), "a correct policy has no findings: {j}");
    }
    // Stored, the correct policies still have none.
    put(&sb, &p99).await;
    put(&sb, &cpu).await;
    let r = run_cli(&sb, &["autoscaling", EP, "--check", "--json"]).await;
    assert_eq!(
        (r.code, r.json()["policies_checked"].as_u64()),
        (0, Some(3)),
        "{}",
        r.stdout
    );
    let demo = run_cli(&sb, &["autoscaling", "mcp-intent-classifier-prod", "--check"]).await;
    assert_eq!(demo.code, 0, "{}", demo.stdout);
}

#[tokio::test]
async fn custom_metrics_are_checked_with_list_metrics_and_targets_are_checked() {
    let sb = sandbox_with(demo_config()).await;
    register(&sb, 1, 4).await;
    let queue = request(
        "queue",
        json!({"TargetValue": 10.0, "CustomizedMetricSpecification": {"MetricName": "QueueDepth",
            "Namespace": "MCP/Gateway", "Dimensions": [{"Name": "Tool", "Value": "classify_intent"}], "Statistic": "Average"},
            "ScaleInCooldown": 300, "ScaleOutCooldown": 60}),
    );
    let (code, kinds, j) = check_request(&sb, &queue).await;
    assert_eq!((code, kinds), (8, vec!["metric_not_published".to_string()]), "{j}");
    let cw = aws_sdk_cloudwatch::Client::new(&sdk_config(&sb).await);
    cw.put_metric_data()
        .namespace("MCP/Gateway")
        .metric_data(
            MetricDatum::builder()
                .metric_name("QueueDepth")
                .dimensions(Dimension::builder().name("Tool").value("classify_intent").build())
                .value(3.0)
                .build(),
        )
        .send()
        .await
        .unwrap();
    let (code, kinds, j) = check_request(&sb, &queue).await;
    assert_eq!((code, kinds.len()), (0, 0), "published now: {j}");

    register(&sb, 0, 4).await;
    let shown = run_cli(&sb, &["autoscaling", EP]).await;
    assert_eq!(shown.code, 0, "showing is not checking: {}", shown.stderr);
    assert!(
        shown.stdout.contains(&format!(
            "check: 1 finding — details: sagedeck autoscaling {EP} --check"
        )),
        "{}",
        shown.stdout
    );
    let r = run_cli(&sb, &["autoscaling", EP, "--check"]).await;
    assert_eq!(r.code, 8, "{}", r.stdout);
    assert!(
        r.stdout.contains("AllTraffic (scalable target): MinCapacity is 0"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("cold start"), "{}", r.stdout);
    assert!(
        r.stdout.contains(&format!(
            "fix: sagedeck autoscaling {EP} --variant AllTraffic --min 1 --max 4"
        )),
        "{}",
        r.stdout
    );
    let missing = run_cli(&sb, &["autoscaling", EP, "--check-request", "/nonexistent.json"]).await;
    assert_eq!(missing.code, 2, "{}", missing.stderr);
}
