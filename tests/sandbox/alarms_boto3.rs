//! CloudWatch alarms from the Python clients (awsJson1_0): boto3 (`tests/compat/alarm_calls.py`)
//! and the AWS CLI, in the venv `compat_boto3.rs` builds (the tests fail when it cannot be built).

use std::path::Path;

use sagedeck::sandbox::cloudwatch::alarms::StateValue;

use crate::common::{self, peer_setup::show, poll_until};
use crate::compat_boto3::{ClientEnv, venv_async};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_drives_alarms_over_aws_json() {
    let venv = venv_async().await;
    let sb = common::sandbox().await;
    let env = ClientEnv::new(sb.endpoint_url());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/alarm_calls.py");
    let out = env
        .run(
            venv,
            "alarm_calls.py",
            &[script.to_str().expect("utf-8 path"), &sb.endpoint_url()],
        )
        .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "boto3 alarm calls failed\n{}", show(&out));
    assert!(stdout.contains("alarm checks passed"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
    // What boto3 did is what the store holds.
    let composite = sb.sandbox.alarms.state("endpoint-unhealthy").expect("composite kept");
    assert_eq!(composite.value, StateValue::Alarm);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aws_cli_puts_describes_sets_and_deletes_alarms() {
    let venv = venv_async().await;
    let sb = common::sandbox().await;
    let env = ClientEnv::new(sb.endpoint_url());
    let put = [
        "cloudwatch",
        "put-metric-alarm",
        "--alarm-name",
        "cli-latency",
        "--namespace",
        "AWS/SageMaker",
        "--metric-name",
        "ModelLatency",
        "--dimensions",
        "Name=EndpointName,Value=ep-cli",
        "Name=VariantName,Value=Canary",
        "--extended-statistic",
        "p99",
        "--period",
        "60",
        "--evaluation-periods",
        "3",
        "--datapoints-to-alarm",
        "2",
        "--threshold",
        "250000",
        "--comparison-operator",
        "GreaterThanThreshold",
        "--treat-missing-data",
        "notBreaching",
    ];
    let out = env.aws_output(venv, &put).await;
    assert!(out.status.success(), "put-metric-alarm\n{}", show(&out));

    let described = env
        .aws(venv, &["cloudwatch", "describe-alarms", "--alarm-names", "cli-latency"])
        .await;
    let alarm = &described["MetricAlarms"][0];
    assert_eq!(alarm["ExtendedStatistic"], "p99");
    assert_eq!(alarm["DatapointsToAlarm"], 2);
    assert_eq!(alarm["Dimensions"].as_array().map(Vec::len), Some(2));

    // notBreaching with no data: the sandbox's evaluation settles it OK.
    poll_until("cli-latency OK", std::time::Duration::from_secs(20), || async {
        sb.sandbox
            .alarms
            .state("cli-latency")
            .filter(|s| s.value == StateValue::Ok)
    })
    .await;

    let out = env
        .aws_output(
            venv,
            &[
                "cloudwatch",
                "set-alarm-state",
                "--alarm-name",
                "cli-latency",
                "--state-value",
                "ALARM",
                "--state-reason",
                "from the CLI",
            ],
        )
        .await;
    assert!(out.status.success(), "set-alarm-state\n{}", show(&out));
    let alarming = env
        .aws(venv, &["cloudwatch", "describe-alarms", "--state-value", "ALARM"])
        .await;
    assert_eq!(alarming["MetricAlarms"][0]["StateReason"], "from the CLI");

    let history = env
        .aws(
            venv,
            &[
                "cloudwatch",
                "describe-alarm-history",
                "--alarm-name",
                "cli-latency",
                "--history-item-type",
                "StateUpdate",
            ],
        )
        .await;
    assert_eq!(
        history["AlarmHistoryItems"][0]["HistorySummary"],
        "Alarm updated from OK to ALARM"
    );

    let out = env
        .aws_output(
            venv,
            &[
                "cloudwatch",
                "set-alarm-state",
                "--alarm-name",
                "nope",
                "--state-value",
                "OK",
                "--state-reason",
                "x",
            ],
        )
        .await;
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("ResourceNotFound"),
        "{}",
        show(&out)
    );

    let out = env
        .aws_output(venv, &["cloudwatch", "delete-alarms", "--alarm-names", "cli-latency"])
        .await;
    assert!(out.status.success(), "delete-alarms\n{}", show(&out));
    assert!(sb.sandbox.alarms.state("cli-latency").is_none());
}
