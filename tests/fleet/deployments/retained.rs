//! `deploy --retain-deployment-config`: refused in one line when the endpoint has no
//! LastDeploymentConfig; after a canary deployment, the dry run's schedule is the last policy's
//! and the deployment sends RetainDeploymentConfig (the sandbox runs the last policy again).

use std::time::Duration;

use sagedeck::aws::change::audit::AuditPhase;

use super::*;

/// `deploy EP --model AllTraffic=MODEL --retain-deployment-config` with `extra`.
fn retained<'a>(swap: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["deploy", EP, "--model", swap, "--retain-deployment-config"];
    args.extend_from_slice(extra);
    args
}

#[tokio::test]
async fn retaining_without_a_last_deployment_config_is_refused_in_one_line() {
    let sb = deploy_sandbox(Duration::from_millis(300)).await;
    let state = State::new();
    let before = status(&sb, EP).await;
    let r = state.cli(&sb, &retained("AllTraffic=model-v2", &["--yes"])).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    let refusals: Vec<&str> = r.stderr.lines().filter(|l| l.contains("refused:")).collect();
    assert_eq!(
        refusals,
        vec![format!(
            "sagedeck: refused: retain-deployment-config: {EP} has no LastDeploymentConfig to retain (give the policy instead)"
        )],
        "{}",
        r.stderr
    );
    assert_eq!(status(&sb, EP).await, before);
    assert!(state.audit().is_empty(), "nothing was started");
    let clash = state
        .cli(&sb, &retained("AllTraffic=model-v2", &["--canary", "10%", "--dry-run"]))
        .await;
    assert_eq!(clash.code, 2, "a policy cannot be given with the retained one");
}

#[tokio::test]
async fn the_last_canary_is_scheduled_and_sent_again() {
    let sb = deploy_sandbox(Duration::from_millis(300)).await;
    let state = State::new();
    let first = [
        "deploy",
        EP,
        "--model",
        "AllTraffic=model-v2",
        "--canary-instances",
        "1",
        "--bake",
        "0s",
        "--max-time",
        "20m",
        "--yes",
        "--poll-ms",
        "100",
    ];
    let r = state.cli(&sb, &first).await;
    assert_eq!(r.code, 0, "{}", r.stderr);

    let dry = state
        .cli(&sb, &retained("AllTraffic=model-v1", &["--dry-run", "--json"]))
        .await;
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    let plan = dry.json();
    assert_eq!(plan["spec"]["retain_deployment"], true, "{plan}");
    assert_eq!(plan["spec"]["max_time_secs"], 1200, "the last timeout: {plan}");
    let text = plan["schedule_text"].as_str().unwrap_or_default();
    assert!(
        text.contains("canary 1 instance; bake 0s; shift the rest"),
        "the schedule is the last policy's: {text}"
    );
    assert!(plan["notes"].to_string().contains("RetainDeploymentConfig"), "{plan}");

    let run = state
        .cli(
            &sb,
            &retained("AllTraffic=model-v1", &["--yes", "--json", "--poll-ms", "100"]),
        )
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["outcome"]["outcome"], "succeeded");
    let start = state
        .audit()
        .into_iter()
        .rfind(|r| r.action == "deploy.start" && r.phase == AuditPhase::Intent)
        .expect("the second start audited");
    assert_eq!(
        start.after["deployment"]["retain_deployment"], true,
        "{:?}",
        start.after
    );
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    let d = sm.describe_endpoint().endpoint_name(EP).send().await.unwrap();
    let routing = d
        .last_deployment_config()
        .and_then(|c| c.blue_green_update_policy())
        .and_then(|p| p.traffic_routing_configuration())
        .expect("the last DeploymentConfig is kept");
    assert_eq!(routing.r#type().map(|t| t.as_str()), Some("CANARY"));
}
