//! The seed article's autoscaling snippet from boto3 (`tests/compat/seed_autoscaling.py`, unmodified
//! but for endpoint_url): the invocations policy is accepted, the "p99" latency policy refused as
//! AWS refuses it. Then the AWS CLI: the policies and the target-tracking alarms as stored, the
//! metric-math form of the latency policy accepted, and the `sagedeck autoscaling --check` of it.

use std::path::Path;

use crate::common::{demo_config, peer_setup::show, run_cli, sandbox_with};
use crate::compat_boto3::{ClientEnv, venv_async};

const EP: &str = "xgboost-churn-csv";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seed_snippet_first_policy_accepted_second_refused() {
    let venv = venv_async().await;
    let sb = sandbox_with(demo_config()).await;
    let env = ClientEnv::new(sb.endpoint_url());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/seed_autoscaling.py");
    let url = sb.endpoint_url();
    let out = env
        .run(
            venv,
            "seed_autoscaling.py",
            &[script.to_str().expect("utf-8 path"), &url, EP],
        )
        .await;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(!out.status.success(), "the p99 policy must be refused\n{}", show(&out));
    assert!(
        stdout.contains("first policy accepted") && !stdout.contains("second policy accepted"),
        "{}",
        show(&out)
    );
    assert!(
        stderr.contains("An error occurred (ValidationException) when calling the PutScalingPolicy operation: 1 validation error detected: Value 'p99' at 'targetTrackingScalingPolicyConfiguration.customizedMetricSpecification.statistic' failed to satisfy constraint"),
        "{}",
        show(&out)
    );

    let policies = env
        .aws(
            venv,
            &[
                "application-autoscaling",
                "describe-scaling-policies",
                "--service-namespace",
                "sagemaker",
                "--resource-id",
                &format!("endpoint/{EP}/variant/AllTraffic"),
            ],
        )
        .await;
    let names: Vec<&str> = policies["ScalingPolicies"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["PolicyName"].as_str())
        .collect();
    assert_eq!(names, ["mcp-endpoint-invocations-policy"], "{policies}");
    let alarms = env
        .aws(
            venv,
            &[
                "cloudwatch",
                "describe-alarms",
                "--alarm-name-prefix",
                &format!("TargetTracking-endpoint/{EP}/variant/AllTraffic-"),
            ],
        )
        .await;
    let alarms = alarms["MetricAlarms"].as_array().unwrap();
    assert_eq!(alarms.len(), 2, "{alarms:?}");
    assert!(
        alarms
            .iter()
            .all(|a| a["MetricName"] == "InvocationsPerInstance" && a["Namespace"] == "AWS/SageMaker"),
        "{alarms:?}"
    );

    // The latency policy done right, from the AWS CLI.
    let config = format!(
        r#"{{"TargetValue": 500000.0, "ScaleInCooldown": 300, "ScaleOutCooldown": 60,
            "CustomizedMetricSpecification": {{"Metrics": [{{"Id": "m1", "ReturnData": true, "MetricStat": {{"Stat": "p99",
            "Metric": {{"Namespace": "AWS/SageMaker", "MetricName": "ModelLatency", "Dimensions": [
            {{"Name": "EndpointName", "Value": "{EP}"}}, {{"Name": "VariantName", "Value": "AllTraffic"}}]}}}}}}]}}}}"#
    );
    let put = env
        .aws(
            venv,
            &[
                "application-autoscaling",
                "put-scaling-policy",
                "--policy-name",
                "mcp-endpoint-latency-policy",
                "--service-namespace",
                "sagemaker",
                "--resource-id",
                &format!("endpoint/{EP}/variant/AllTraffic"),
                "--scalable-dimension",
                "sagemaker:variant:DesiredInstanceCount",
                "--policy-type",
                "TargetTrackingScaling",
                "--target-tracking-scaling-policy-configuration",
                &config,
            ],
        )
        .await;
    assert_eq!(put["Alarms"].as_array().map(Vec::len), Some(2), "{put}");
    let check = run_cli(&sb, &["autoscaling", EP, "--check"]).await;
    assert_eq!(check.code, 0, "both stored policies pass the lint:\n{}", check.stdout);
    assert!(
        check
            .stdout
            .contains("2 policies, 1 scalable target checked: no findings"),
        "{}",
        check.stdout
    );
}
