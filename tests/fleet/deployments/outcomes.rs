//! Deployments to their end as SageMaker reports it: a canary to success, one rolled back
//! (exit 7), `--watch` attached from a second process reaching the same outcome, and kill -9 of
//! `deploy` leaving the deployment running.

use std::process::Stdio;
use std::time::Duration;

use sagedeck::aws::change::audit::AuditPhase;

use super::*;
use crate::common::{cli_command, poll_until};

/// `deploy EP --model AllTraffic=MODEL --canary-instances 1 --bake 0s --yes --json`.
fn canary(model_swap: &str) -> Vec<String> {
    [
        "deploy",
        EP,
        "--model",
        model_swap,
        "--canary-instances",
        "1",
        "--bake",
        "0s",
        "--yes",
        "--json",
        "--poll-ms",
        "100",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The model of the endpoint's variant now, by its configuration.
async fn live_model(sb: &SandboxHandle) -> String {
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    let (_, config) = status(sb, EP).await;
    let c = sm
        .describe_endpoint_config()
        .endpoint_config_name(config)
        .send()
        .await
        .unwrap();
    c.production_variants()[0].model_name().unwrap_or_default().to_string()
}

#[tokio::test]
async fn a_canary_deployment_runs_to_success_audited() {
    let sb = deploy_sandbox(Duration::from_millis(300)).await;
    let state = State::new();
    let args = canary("AllTraffic=model-v2");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = state.cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = r.json();
    assert_eq!(out["outcome"]["outcome"], "succeeded", "{out}");
    let (st, config) = status(&sb, EP).await;
    assert_eq!(st, "InService");
    assert_eq!(out["outcome"]["config"], config.as_str());
    assert!(config.starts_with(&format!("{EP}-config-")), "{config}");
    assert_eq!(live_model(&sb).await, MODEL_V2);
    let audit = state.audit();
    let seen: Vec<(String, AuditPhase, Option<String>)> = audit
        .iter()
        .map(|r| (r.action.clone(), r.phase, r.result.clone()))
        .collect();
    let ok = Some("ok".to_string());
    assert_eq!(
        seen,
        vec![
            ("deploy.config".into(), AuditPhase::Intent, None),
            ("deploy.config".into(), AuditPhase::Result, ok.clone()),
            ("deploy.start".into(), AuditPhase::Intent, None),
            ("deploy.start".into(), AuditPhase::Result, ok.clone()),
            ("deploy.outcome".into(), AuditPhase::Intent, None),
            ("deploy.outcome".into(), AuditPhase::Result, ok),
        ]
    );
    assert_eq!(audit[5].after["endpoint_config"], config.as_str());
    assert_eq!(
        audit[5].after["policy"],
        "blue/green, canary 1 instance(s), bake 0s, final bake 0s"
    );
    assert_eq!(audit[2].after["endpoint_config"], config.as_str());
    assert_eq!(audit[2].before["endpoint_config"], format!("{EP}-config"));
    let idle = state.cli(&sb, &["deploy", EP, "--watch"]).await;
    assert_eq!(idle.code, 0, "{}", idle.stderr);
    assert!(
        idle.stdout
            .contains(&format!("{EP} has no deployment in flight; it is on {config}")),
        "{}",
        idle.stdout
    );
    assert!(
        idle.stdout
            .contains("last deployment: blue/green, canary 1 instance(s), bake 0s, final bake 0s; no rollback alarms"),
        "{}",
        idle.stdout
    );
}

#[tokio::test]
async fn a_deployment_that_fails_rolls_back_with_exit_7_and_its_reason() {
    let sb = deploy_sandbox(Duration::from_millis(300)).await;
    let state = State::new();
    let args = canary("AllTraffic=model-broken");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = state.cli(&sb, &args).await;
    assert_eq!(r.code, 7, "{}", r.stderr);
    assert!(r.stderr.contains("rolled back"), "{}", r.stderr);
    assert!(r.stderr.contains("did not pass the ping health check"), "{}", r.stderr);
    assert_eq!(r.json()["outcome"]["outcome"], "rolled_back");
    assert_eq!(status(&sb, EP).await, ("InService".to_string(), format!("{EP}-config")));
    assert_eq!(live_model(&sb).await, MODEL_V1);
}

/// Starts `deploy` as a process of its own (stdout piped), and waits until the endpoint is
/// Updating.
async fn start_deploy(sb: &SandboxHandle, state: &State, home: &std::path::Path) -> tokio::process::Child {
    let args = canary("AllTraffic=model-v2");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let dir = state.dir();
    let mut cmd = cli_command(sb, home, &args, &[("XDG_STATE_HOME", &dir)]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let child = cmd.spawn().expect("deploy starts");
    wait_status(sb, EP, "Updating").await;
    child
}

#[tokio::test]
async fn watch_from_a_second_process_reaches_the_same_outcome() {
    let sb = deploy_sandbox(Duration::from_secs(3)).await;
    let state = State::new();
    let home = tempfile::tempdir().unwrap();
    let deploy = start_deploy(&sb, &state, home.path()).await;
    let watch = state
        .cli(&sb, &["deploy", EP, "--watch", "--json", "--poll-ms", "100"])
        .await;
    let first = tokio::time::timeout(Duration::from_secs(60), deploy.wait_with_output())
        .await
        .expect("deploy ends")
        .unwrap();
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(watch.code, 0, "{}", watch.stderr);
    let first: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let second = watch.json();
    assert_eq!(first["outcome"], second["outcome"]);
    assert_eq!(
        first["target"], second["target"],
        "both followed the same configuration"
    );
    assert_eq!(second["outcome"]["outcome"], "succeeded");
    assert!(second["describe_calls"].as_u64().unwrap() >= 2, "{second}");
}

#[tokio::test]
async fn kill_9_of_deploy_leaves_the_deployment_running_to_its_end() {
    let sb = deploy_sandbox(Duration::from_secs(2)).await;
    let state = State::new();
    let home = tempfile::tempdir().unwrap();
    let mut deploy = start_deploy(&sb, &state, home.path()).await;
    deploy.start_kill().expect("SIGKILL sent");
    let killed = deploy.wait().await.unwrap();
    assert_eq!(killed.code(), None, "killed by a signal");
    assert_eq!(status(&sb, EP).await.0, "Updating", "the deployment goes on without it");
    wait_status(&sb, EP, "InService").await;
    assert_eq!(live_model(&sb).await, MODEL_V2);
}

/// Spawns `deploy EP --model AllTraffic=model-v2 --canary-instances 1 --bake 10m` (6 s in the
/// sandbox's scaled time) and `extra`, and waits until the canary bakes.
async fn deploy_until_baking(
    sb: &SandboxHandle,
    state: &State,
    home: &std::path::Path,
    extra: &[&str],
) -> tokio::process::Child {
    let mut args = vec![
        "deploy",
        EP,
        "--model",
        "AllTraffic=model-v2",
        "--canary-instances",
        "1",
    ];
    args.extend_from_slice(&["--bake", "10m", "--yes", "--poll-ms", "100"]);
    args.extend_from_slice(extra);
    let dir = state.dir();
    let mut cmd = cli_command(sb, home, &args, &[("XDG_STATE_HOME", &dir)]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let child = cmd.spawn().expect("deploy starts");
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    poll_until("the canary bake", Duration::from_secs(30), || async {
        let d = sm.describe_endpoint().endpoint_name(EP).send().await.ok()?;
        let pending = d.pending_deployment_summary()?;
        let baking = pending
            .production_variants()
            .iter()
            .flat_map(|v| v.variant_status())
            .any(|s| s.status().map(|s| s.as_str()) == Some("Baking"));
        baking.then_some(())
    })
    .await;
    child
}

/// Waits for a spawned `deploy` and returns its exit code and standard error.
async fn ended(child: tokio::process::Child) -> (Option<i32>, String) {
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("deploy ends")
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[tokio::test]
async fn a_rollback_alarm_firing_during_the_bake_ends_in_exit_7_naming_it() {
    use aws_sdk_cloudwatch::types::{ComparisonOperator, Dimension, StateValue, Statistic};
    let sb = deploy_sandbox(Duration::from_millis(300)).await;
    let cw = aws_sdk_cloudwatch::Client::new(&sdk_config(&sb).await);
    cw.put_metric_alarm()
        .alarm_name("deploy-ep-5xx")
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
    let state = State::new();
    let home = tempfile::tempdir().unwrap();
    let deploy = deploy_until_baking(&sb, &state, home.path(), &["--alarm", "deploy-ep-5xx"]).await;
    cw.set_alarm_state()
        .alarm_name("deploy-ep-5xx")
        .state_value(StateValue::Alarm)
        .state_reason("the canary errs")
        .send()
        .await
        .unwrap();
    let (code, stderr) = ended(deploy).await;
    assert_eq!(code, Some(7), "{stderr}");
    assert!(
        stderr.contains("rolled back") && stderr.contains("deploy-ep-5xx"),
        "{stderr}"
    );
    assert_eq!(status(&sb, EP).await, ("InService".to_string(), format!("{EP}-config")));
}

#[tokio::test]
async fn update_rollback_failed_is_an_emergency_with_what_to_do() {
    use sagedeck::sandbox::faults::FaultSpec;
    let sb = deploy_sandbox(Duration::from_millis(300)).await;
    let spec = FaultSpec::parse_short(&format!("kind=rollback_failure,endpoint={EP},count=1")).unwrap();
    sb.sandbox.faults.add(spec);
    let state = State::new();
    let args = canary("AllTraffic=model-v2");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = state.cli(&sb, &args).await;
    let (code, stderr) = (r.code, r.stderr);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("EMERGENCY") && stderr.contains("UpdateRollbackFailed"),
        "{stderr}"
    );
    assert!(stderr.contains("deploy a known-good configuration again"), "{stderr}");
    assert_eq!(status(&sb, EP).await.0, "UpdateRollbackFailed");
}

/// The gate alarms of `deploy-ep` by name (the rate alarms: no 24 h history, so no latency one).
async fn gate_alarms_of(sb: &SandboxHandle) -> Vec<aws_sdk_cloudwatch::types::MetricAlarm> {
    let cw = aws_sdk_cloudwatch::Client::new(&sdk_config(sb).await);
    let out = cw
        .describe_alarms()
        .alarm_name_prefix(format!("sagedeck-{EP}-"))
        .send()
        .await
        .unwrap();
    out.metric_alarms().to_vec()
}

#[tokio::test]
async fn gate_alarms_are_metric_math_rollback_alarms_kept_with_keep_alarms() {
    let sb = deploy_sandbox(Duration::from_millis(300)).await;
    let state = State::new();
    let mut args = canary("AllTraffic=model-v2");
    args.extend(["--gate-alarms".to_string(), "--keep-alarms".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = state.cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["outcome"]["outcome"], "succeeded", "{}", r.stdout);
    let alarms = gate_alarms_of(&sb).await;
    let mut names: Vec<&str> = alarms.iter().filter_map(|a| a.alarm_name()).collect();
    names.sort();
    let rate_5xx = format!("sagedeck-{EP}-{VARIANT}-5xx-rate");
    let rate_4xx = format!("sagedeck-{EP}-{VARIANT}-4xx-rate");
    assert_eq!(names, vec![rate_4xx.as_str(), rate_5xx.as_str()]);
    for a in &alarms {
        assert!(!a.metrics().is_empty(), "a rate alarm is metric math: {a:?}");
        assert_eq!(
            a.metrics().iter().filter(|q| q.return_data().unwrap_or(true)).count(),
            1,
            "{a:?}"
        );
    }
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    let d = sm.describe_endpoint().endpoint_name(EP).send().await.unwrap();
    let rollback: Vec<String> = d
        .last_deployment_config()
        .and_then(|c| c.auto_rollback_configuration())
        .map(|r| {
            r.alarms()
                .iter()
                .filter_map(|a| a.alarm_name())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    assert!(
        rollback.contains(&rate_5xx) && rollback.contains(&rate_4xx),
        "{rollback:?}"
    );
    assert!(
        state.audit().iter().any(|r| r.action.contains("alarm")),
        "creating the gate alarms is audited"
    );
}

#[tokio::test]
async fn gate_alarms_are_deleted_after_the_deployment_without_keep_alarms() {
    let sb = deploy_sandbox(Duration::from_millis(300)).await;
    let state = State::new();
    let mut args = canary("AllTraffic=model-v2");
    args.push("--gate-alarms".to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = state.cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(live_model(&sb).await, MODEL_V2);
    assert!(
        gate_alarms_of(&sb).await.is_empty(),
        "gate alarms deleted after the deployment"
    );
}
