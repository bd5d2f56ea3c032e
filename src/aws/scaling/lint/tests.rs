//! Unit tests of the autoscaling lint on the seed article's two policies and on correct ones.

use crate::aws::scaling::lint::*;
use crate::aws::scaling::spec::{MetricRef, PolicySpec};

const EP: &str = "mcp-endpoint";

/// The seed's target-tracking policy on invocations per instance.
pub const SEED_INVOCATIONS: &str = r#"{"PolicyName": "mcp-endpoint-invocations-policy", "ServiceNamespace": "sagemaker",
  "ResourceId": "endpoint/mcp-endpoint/variant/AllTraffic", "ScalableDimension": "sagemaker:variant:DesiredInstanceCount",
  "PolicyType": "TargetTrackingScaling",
  "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 70.0,
    "PredefinedMetricSpecification": {"PredefinedMetricType": "SageMakerVariantInvocationsPerInstance"},
    "ScaleInCooldown": 300, "ScaleOutCooldown": 60}}"#;

/// The seed's "ModelLatency P99" policy, as written.
pub const SEED_LATENCY: &str = r#"{"PolicyName": "mcp-endpoint-latency-policy", "ServiceNamespace": "sagemaker",
  "ResourceId": "endpoint/mcp-endpoint/variant/AllTraffic", "ScalableDimension": "sagemaker:variant:DesiredInstanceCount",
  "PolicyType": "TargetTrackingScaling",
  "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 500.0,
    "CustomizedMetricSpecification": {"MetricName": "ModelLatency", "Namespace": "/aws/sagemaker/Endpoints",
      "Dimensions": [{"Name": "EndpointName", "Value": "mcp-endpoint"}, {"Name": "VariantName", "Value": "AllTraffic"}],
      "Statistic": "p99", "Unit": "Microseconds"},
    "ScaleInCooldown": 300, "ScaleOutCooldown": 60}}"#;

/// The latency policy done right: metric math, AWS/SageMaker, 500 ms in microseconds.
const GOOD_LATENCY: &str = r#"{"PolicyName": "mcp-endpoint-latency-policy", "ServiceNamespace": "sagemaker",
  "ResourceId": "endpoint/mcp-endpoint/variant/AllTraffic", "ScalableDimension": "sagemaker:variant:DesiredInstanceCount",
  "PolicyType": "TargetTrackingScaling",
  "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 500000.0,
    "CustomizedMetricSpecification": {"Metrics": [{"Id": "m1", "ReturnData": true, "MetricStat": {"Stat": "p99",
      "Metric": {"Namespace": "AWS/SageMaker", "MetricName": "ModelLatency",
        "Dimensions": [{"Name": "EndpointName", "Value": "mcp-endpoint"}, {"Name": "VariantName", "Value": "AllTraffic"}]}}}]},
    "ScaleInCooldown": 300, "ScaleOutCooldown": 60}}"#;

/// CPU on the instance namespace, Average: the developer guide's example.
const GOOD_CPU: &str = r#"{"PolicyName": "cpu", "ServiceNamespace": "sagemaker",
  "ResourceId": "endpoint/mcp-endpoint/variant/AllTraffic", "ScalableDimension": "sagemaker:variant:DesiredInstanceCount",
  "PolicyType": "TargetTrackingScaling",
  "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 60.0,
    "CustomizedMetricSpecification": {"MetricName": "CPUUtilization", "Namespace": "/aws/sagemaker/Endpoints",
      "Dimensions": [{"Name": "EndpointName", "Value": "mcp-endpoint"}, {"Name": "VariantName", "Value": "AllTraffic"}],
      "Statistic": "Average"},
    "ScaleInCooldown": 600, "ScaleOutCooldown": 120}}"#;

fn input(policies: &[&str]) -> LintInput {
    LintInput {
        endpoint: EP.into(),
        variants: vec![("AllTraffic".into(), 2)],
        targets: vec![TargetBounds {
            variant: "AllTraffic".into(),
            min: 1,
            max: 8,
        }],
        policies: policies.iter().map(|p| PolicySpec::from_json(p).unwrap()).collect(),
        metrics: vec![MetricCheck {
            metric: MetricRef {
                namespace: "/aws/sagemaker/Endpoints".into(),
                metric_name: "CPUUtilization".into(),
                dimensions: PolicySpec::from_json(GOOD_CPU)
                    .unwrap()
                    .target_tracking_scaling_policy_configuration
                    .unwrap()
                    .customized_metric_specification
                    .unwrap()
                    .dimensions,
            },
            listed: true,
            elsewhere: vec![],
        }],
        asynchronous: false,
    }
}

fn kinds(f: &[Finding]) -> Vec<FindingKind> {
    f.iter().map(|f| f.kind).collect()
}

#[test]
fn the_seed_latency_policy_has_exactly_its_three_findings() {
    let all = input(&[SEED_INVOCATIONS, SEED_LATENCY]);
    let f = lint(&all);
    assert_eq!(
        kinds(&f),
        [
            FindingKind::Statistic,
            FindingKind::MetricNotPublished,
            FindingKind::Units
        ],
        "{f:#?}"
    );
    assert!(f.iter().all(|f| f.policy == "mcp-endpoint-latency-policy"));
    assert!(
        f[1].problem
            .contains("SageMaker publishes ModelLatency under AWS/SageMaker"),
        "{}",
        f[1].problem
    );
    assert!(f[2].problem.contains("0.5 ms"), "{}", f[2].problem);
    let fix = "sagedeck autoscaling mcp-endpoint --variant AllTraffic --target-p99-ms 500 --policy-name mcp-endpoint-latency-policy";
    assert!(f.iter().all(|f| f.fix == fix), "{f:#?}");
    // Checked as a request before sending, beside the invocations policy: the same three.
    let request = PolicySpec::from_json(SEED_LATENCY).unwrap();
    assert_eq!(kinds(&lint_request(&input(&[SEED_INVOCATIONS]), &request)).len(), 3);
}

#[test]
fn correct_policies_have_no_findings() {
    assert_eq!(lint(&input(&[SEED_INVOCATIONS])), vec![]);
    assert_eq!(lint(&input(&[SEED_INVOCATIONS, GOOD_LATENCY, GOOD_CPU])), vec![]);
}

#[test]
fn targets_cooldowns_and_variants_are_checked() {
    let mut i = input(&[]);
    i.targets[0].min = 0;
    i.targets[0].max = 1;
    let f = lint(&i);
    assert_eq!(
        kinds(&f),
        [FindingKind::MinZero, FindingKind::MaxBelowCurrent],
        "{f:#?}"
    );
    assert!(f[1].fix.ends_with("--min 1 --max 2"), "{}", f[1].fix);

    let fast_in = SEED_INVOCATIONS.replace("\"ScaleInCooldown\": 300", "\"ScaleInCooldown\": 30");
    let f = lint(&input(&[&fast_in]));
    assert_eq!(kinds(&f), [FindingKind::Cooldowns], "{f:#?}");
    assert!(
        f[0].fix.contains("--scale-in-cooldown 300 --scale-out-cooldown 60"),
        "{}",
        f[0].fix
    );

    let canary = GOOD_LATENCY.replace("\"Value\": \"AllTraffic\"", "\"Value\": \"Canary\"");
    let f = lint(&input(&[&canary]));
    assert_eq!(kinds(&f), [FindingKind::Dimensions], "{f:#?}");
    assert!(f[0].problem.contains("its variants: AllTraffic"), "{}", f[0].problem);
}

#[test]
fn policies_that_fight_are_found() {
    let other = SEED_INVOCATIONS
        .replace("mcp-endpoint-invocations-policy", "second")
        .replace("70.0", "200.0");
    let f = lint(&input(&[SEED_INVOCATIONS, &other]));
    assert_eq!(kinds(&f), [FindingKind::PoliciesFight], "{f:#?}");
    assert!(f[0].fix.ends_with("--remove-policy second"), "{}", f[0].fix);
    let step = r#"{"PolicyName": "step-in", "ServiceNamespace": "sagemaker",
      "ResourceId": "endpoint/mcp-endpoint/variant/AllTraffic", "ScalableDimension": "sagemaker:variant:DesiredInstanceCount",
      "PolicyType": "StepScaling", "StepScalingPolicyConfiguration": {"AdjustmentType": "ChangeInCapacity",
      "StepAdjustments": [{"MetricIntervalUpperBound": 0.0, "ScalingAdjustment": -1}]}}"#;
    let f = lint(&input(&[SEED_INVOCATIONS, step]));
    assert_eq!(kinds(&f), [FindingKind::PoliciesFight], "{f:#?}");
}

#[test]
fn statistics_are_told_apart() {
    assert!(is_cloudwatch_stat("p99") && is_cloudwatch_stat("p99.9") && is_cloudwatch_stat("Average"));
    assert!(!is_cloudwatch_stat("P99") && !is_cloudwatch_stat("p") && !is_cloudwatch_stat("p101"));
}

/// Target tracking on the backlog per instance, as AWS's async guide writes it, with
/// `{DIMS}` for the dimensions.
const BACKLOG: &str = r#"{"PolicyName": "backlog", "ServiceNamespace": "sagemaker",
  "ResourceId": "endpoint/mcp-endpoint/variant/AllTraffic", "ScalableDimension": "sagemaker:variant:DesiredInstanceCount",
  "PolicyType": "TargetTrackingScaling",
  "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 5.0,
    "CustomizedMetricSpecification": {"MetricName": "ApproximateBacklogSizePerInstance", "Namespace": "AWS/SageMaker",
      "Dimensions": {DIMS}, "Statistic": "Average"},
    "ScaleInCooldown": 600, "ScaleOutCooldown": 300}}"#;

/// The step policy that wakes an asynchronous endpoint from zero.
const WAKE: &str = r#"{"PolicyName": "wake", "ServiceNamespace": "sagemaker",
  "ResourceId": "endpoint/mcp-endpoint/variant/AllTraffic", "ScalableDimension": "sagemaker:variant:DesiredInstanceCount",
  "PolicyType": "StepScaling", "StepScalingPolicyConfiguration": {"AdjustmentType": "ChangeInCapacity",
  "Cooldown": 300, "StepAdjustments": [{"MetricIntervalLowerBound": 0.0, "ScalingAdjustment": 1}]}}"#;

fn async_input(policies: &[&str], min: i32) -> LintInput {
    let mut i = input(policies);
    i.asynchronous = true;
    i.targets[0].min = min;
    i.metrics.clear();
    i
}

#[test]
fn async_backlog_metrics_take_the_endpoint_dimension_only() {
    let endpoint_only = BACKLOG
        .replace("600", "900")
        .replace("{DIMS}", r#"[{"Name": "EndpointName", "Value": "mcp-endpoint"}]"#);
    let with_variant = BACKLOG.replace(
        "{DIMS}",
        r#"[{"Name": "EndpointName", "Value": "mcp-endpoint"}, {"Name": "VariantName", "Value": "AllTraffic"}]"#,
    );
    let f = lint(&async_input(&[&with_variant], 1));
    assert!(kinds(&f).contains(&FindingKind::BacklogVariantDimension), "{f:#?}");
    // 600 s is shorter than the 900 s an async request may run.
    assert!(kinds(&f).contains(&FindingKind::CooldownBelowTimeout), "{f:#?}");
    let cooldown = f.iter().find(|f| f.kind == FindingKind::CooldownBelowTimeout).unwrap();
    assert!(cooldown.fix.ends_with("--scale-in-cooldown 900"), "{}", cooldown.fix);
    let f = lint(&async_input(&[&endpoint_only], 1));
    assert!(!kinds(&f).contains(&FindingKind::BacklogVariantDimension), "{f:#?}");
    assert!(!kinds(&f).contains(&FindingKind::CooldownBelowTimeout), "{f:#?}");
}

#[test]
fn async_scale_to_zero_needs_the_wake_step_policy() {
    let backlog = BACKLOG
        .replace("600", "900")
        .replace("{DIMS}", r#"[{"Name": "EndpointName", "Value": "mcp-endpoint"}]"#);
    let f = lint(&async_input(&[&backlog], 0));
    assert!(kinds(&f).contains(&FindingKind::AsyncScaleToZero), "{f:#?}");
    // Zero instances is an async endpoint's idle state, not the real-time MinZero finding.
    assert!(!kinds(&f).contains(&FindingKind::MinZero), "{f:#?}");
    let f = lint(&async_input(&[&backlog, WAKE], 0));
    assert!(!kinds(&f).contains(&FindingKind::AsyncScaleToZero), "{f:#?}");
    // The same target on a real-time endpoint is the MinZero finding, no async one.
    let mut realtime = async_input(&[&backlog], 0);
    realtime.asynchronous = false;
    let f = lint(&realtime);
    assert!(kinds(&f).contains(&FindingKind::MinZero) && !kinds(&f).contains(&FindingKind::AsyncScaleToZero));
}
