//! What `deploy` refuses before sending anything: each check's rule by name (exit 2), the
//! endpoint changed since it was read or not InService (exit 6), read-only (exit 5), a rollback
//! alarm missing or already in ALARM (exit 6); and `--dry-run`'s schedule.

use std::time::Duration;

use aws_sdk_cloudwatch::types::{ComparisonOperator, Dimension, StateValue, Statistic};

use super::*;

const MODEL_SWAP: &str = "AllTraffic=model-v2";

/// `deploy EP --model AllTraffic=model-v2 --yes` and `extra`.
fn deploy_args<'a>(endpoint: &'a str, model: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["deploy", endpoint, "--model", model, "--yes", "--poll-ms", "100"];
    args.extend_from_slice(extra);
    args
}

/// Asserts a refusal naming `rule` with `code`, and that nothing was sent: the endpoint on its
/// configuration, no configuration written, no deployment audited.
async fn assert_refused(sb: &SandboxHandle, state: &State, args: &[&str], code: i32, rule: &str) {
    let before = status(sb, args[1]).await;
    let r = state.cli(sb, args).await;
    assert_eq!(r.code, code, "{args:?}: {}", r.stderr);
    assert!(r.stderr.contains(rule), "{args:?} should name {rule}:\n{}", r.stderr);
    assert!(r.stderr.contains("nothing was sent"), "{}", r.stderr);
    assert_eq!(status(sb, args[1]).await, before, "{args:?} changed the endpoint");
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    let configs = sm.list_endpoint_configs().send().await.unwrap();
    assert!(
        configs
            .endpoint_configs()
            .iter()
            .all(|c| !c.endpoint_config_name().unwrap_or_default().contains("-2")),
        "{args:?} wrote a configuration"
    );
    let sent = state
        .audit()
        .iter()
        .any(|r| r.phase == sagedeck::aws::change::audit::AuditPhase::Intent);
    assert!(!sent, "{args:?} audited an intent");
}

#[tokio::test]
async fn each_check_refuses_naming_its_rule_and_sends_nothing() {
    let sb = deploy_sandbox(Duration::from_millis(300)).await;
    endpoint(
        &sb,
        "ab-ep",
        vec![instance_variant("A", MODEL_V1, 2), instance_variant("B", MODEL_V1, 2)],
    )
    .await;
    endpoint(&sb, "sl-ep", vec![serverless_variant(VARIANT, MODEL_V1)]).await;
    create_config(&sb, "renamed-config", vec![instance_variant("Other", MODEL_V2, 2)]).await;
    let state = State::new();
    let alarms: Vec<String> = (0..11).map(|i| format!("a{i}")).collect();
    let mut eleven = Vec::new();
    for a in &alarms {
        eleven.extend(["--alarm", a.as_str()]);
    }
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            deploy_args(EP, MODEL_SWAP, &["--canary-instances", "2"]),
            "canary-size:",
        ),
        (deploy_args(EP, MODEL_SWAP, &["--canary", "60%"]), "canary-size:"),
        (deploy_args(EP, MODEL_SWAP, &["--linear", "60%"]), "linear-step:"),
        (deploy_args(EP, MODEL_SWAP, &["--linear", "5%"]), "linear-step:"),
        (deploy_args(EP, MODEL_SWAP, &["--rolling", "60%"]), "rolling-batch:"),
        (deploy_args(EP, MODEL_SWAP, &["--rolling", "4%"]), "rolling-batch:"),
        (deploy_args(EP, MODEL_SWAP, &["--bake", "2h"]), "wait-range:"),
        (
            deploy_args(EP, MODEL_SWAP, &["--termination-wait", "90m"]),
            "wait-range:",
        ),
        (deploy_args(EP, MODEL_SWAP, &["--max-time", "5m"]), "timeout-range:"),
        (deploy_args(EP, MODEL_SWAP, &["--max-time", "9h"]), "timeout-range:"),
        (
            deploy_args(
                EP,
                MODEL_SWAP,
                &["--canary-instances", "1", "--bake", "30m", "--max-time", "1h"],
            ),
            "timeout-exceeds-waits:",
        ),
        (deploy_args(EP, MODEL_SWAP, &eleven), "alarm-count:"),
        (
            deploy_args("ab-ep", "A=model-v2", &["--rolling", "25%"]),
            "rolling-multi-variant:",
        ),
        (
            deploy_args("sl-ep", MODEL_SWAP, &["--rolling", "25%"]),
            "rolling-serverless:",
        ),
    ];
    for (args, rule) in &cases {
        assert_refused(&sb, &state, args, 2, rule).await;
    }
    let renamed = ["deploy", EP, "--config", "renamed-config", "--yes"];
    assert_refused(&sb, &state, &renamed, 2, "same-variant-names:").await;
}

#[tokio::test]
async fn a_changed_endpoint_one_not_in_service_and_read_only_are_refused() {
    let sb = deploy_sandbox(Duration::from_secs(3)).await;
    let state = State::new();
    let stale = deploy_args(EP, MODEL_SWAP, &["--expect-config", "what-i-saw"]);
    assert_refused(&sb, &state, &stale, 6, "changed since it was read").await;
    let read_only = deploy_args(EP, MODEL_SWAP, &["--read-only"]);
    assert_refused(&sb, &state, &read_only, 5, "read-only").await;
    // Updating on another configuration: nothing starts until it is InService again.
    create_config(&sb, "other-config", vec![instance_variant(VARIANT, MODEL_V2, 2)]).await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    sm.update_endpoint()
        .endpoint_name(EP)
        .endpoint_config_name("other-config")
        .send()
        .await
        .unwrap();
    let busy = deploy_args(EP, MODEL_SWAP, &[]);
    let r = state.cli(&sb, &busy).await;
    assert_eq!(r.code, 6, "{}", r.stderr);
    assert!(r.stderr.contains("is Updating"), "{}", r.stderr);
    assert!(
        r.stderr.contains("--watch"),
        "it says how to follow the one in flight: {}",
        r.stderr
    );
}

#[tokio::test]
async fn a_rollback_alarm_missing_or_in_alarm_is_refused() {
    let sb = deploy_sandbox(Duration::from_millis(300)).await;
    let cw = aws_sdk_cloudwatch::Client::new(&sdk_config(&sb).await);
    cw.put_metric_alarm()
        .alarm_name("ep-errors")
        .namespace("AWS/SageMaker")
        .metric_name("Invocation5XXErrors")
        .dimensions(Dimension::builder().name("EndpointName").value(EP).build())
        .statistic(Statistic::Sum)
        .period(60)
        .evaluation_periods(1)
        .threshold(1.0)
        .comparison_operator(ComparisonOperator::GreaterThanThreshold)
        .send()
        .await
        .unwrap();
    cw.set_alarm_state()
        .alarm_name("ep-errors")
        .state_value(StateValue::Alarm)
        .state_reason("errors seen")
        .send()
        .await
        .unwrap();
    let state = State::new();
    let firing = deploy_args(EP, MODEL_SWAP, &["--alarm", "ep-errors"]);
    assert_refused(&sb, &state, &firing, 6, "alarm-state: ep-errors is in ALARM").await;
    let missing = deploy_args(EP, MODEL_SWAP, &["--alarm", "no-such-alarm"]);
    assert_refused(
        &sb,
        &state,
        &missing,
        6,
        "alarm-exists: no CloudWatch alarm named no-such-alarm",
    )
    .await;
}

#[tokio::test]
async fn dry_run_prints_the_schedule_from_the_live_counts_and_sends_nothing() {
    let sb = deploy_sandbox(Duration::from_millis(300)).await;
    let state = State::new();
    let args = [
        "deploy",
        EP,
        "--model",
        MODEL_SWAP,
        "--canary-instances",
        "1",
        "--bake",
        "10m",
        "--dry-run",
    ];
    let before = status(&sb, EP).await;
    let r = state.cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "schedule: t+0 launch 2 × ml.m5.large (new fleet); canary 1 instance; bake 10m; shift the rest; final bake 10m; old fleet terminated at ≈ t+30m; no rollback alarms"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(&format!("{EP}: {EP}-config → {EP}-config-")),
        "{}",
        r.stdout
    );
    assert_eq!(status(&sb, EP).await, before);
    assert!(state.audit().is_empty(), "a dry run audits nothing");
}

#[tokio::test]
async fn dry_run_with_gate_alarms_plans_them_from_the_last_24_hours_and_creates_none() {
    let config = SandboxConfig {
        demo_fleet: true,
        backfill_hours: 24,
        ..SandboxConfig::for_tests()
    };
    let sb = sandbox_with(config).await;
    let ep = "mcp-multi-model-endpoint";
    let args = [
        "deploy",
        ep,
        "--model",
        "AllTraffic=llm-tgi-chat-model",
        "--canary-instances",
        "1",
        "--gate-alarms",
        "--dry-run",
    ];
    let state = State::new();
    let r = state.cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let prefix = format!("sagedeck-{ep}-AllTraffic");
    for gate in [
        "p99-latency: p99 ModelLatency > ",
        "5xx-rate: 5XX rate > 1 %",
        "4xx-rate: 4XX rate > 5 %",
    ] {
        assert!(
            r.stdout.contains(&format!("gate alarm: {prefix}-{gate}")),
            "{gate}:\n{}",
            r.stdout
        );
    }
    assert!(
        r.stdout.contains(&format!(
            "rolls back if any of: {prefix}-p99-latency, {prefix}-5xx-rate, {prefix}-4xx-rate"
        )),
        "{}",
        r.stdout
    );
    let cw = aws_sdk_cloudwatch::Client::new(&sdk_config(&sb).await);
    let made = cw
        .describe_alarms()
        .alarm_name_prefix("sagedeck-")
        .send()
        .await
        .unwrap();
    assert!(made.metric_alarms().is_empty(), "a dry run creates no alarm");
    assert!(state.audit().is_empty());
}
