//! Gate alarms left by a `deploy` that was stopped (kill -9) mid-bake: a later `deploy --watch`,
//! from another process, deletes them once the deployment has ended, since their AlarmDescription
//! says so; with `--keep-alarms` the mark says to keep them, and the watch leaves them.

use std::process::Stdio;
use std::time::Duration;

use super::*;
use crate::common::cli_command;

/// Spawns `deploy EP --model AllTraffic=MODEL --canary-instances 1 --bake 10m --gate-alarms` and
/// `extra`, waits until the canary bakes, then kills it with SIGKILL.
async fn deploy_killed_mid_bake(sb: &SandboxHandle, state: &State, model: &str, extra: &[&str]) {
    let swap = format!("{VARIANT}={model}");
    let mut args = vec!["deploy", EP, "--model", &swap, "--canary-instances", "1"];
    args.extend_from_slice(&["--bake", "10m", "--gate-alarms", "--yes", "--poll-ms", "100"]);
    args.extend_from_slice(extra);
    let home = tempfile::tempdir().unwrap();
    let dir = state.dir();
    let mut cmd = cli_command(sb, home.path(), &args, &[("XDG_STATE_HOME", &dir)]);
    cmd.stdout(Stdio::null()).stderr(Stdio::null()).kill_on_drop(true);
    let mut child = cmd.spawn().expect("deploy starts");
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    poll_until("the canary bake", Duration::from_secs(30), || async {
        let d = sm.describe_endpoint().endpoint_name(EP).send().await.ok()?;
        let statuses = d.pending_deployment_summary()?.production_variants().to_vec();
        let baking = statuses
            .iter()
            .flat_map(|v| v.variant_status())
            .any(|s| s.status().map(|s| s.as_str()) == Some("Baking"));
        baking.then_some(())
    })
    .await;
    child.start_kill().expect("SIGKILL sent");
    child.wait().await.unwrap();
}

/// The gate alarms of EP: (name, description).
async fn gates(sb: &SandboxHandle) -> Vec<(String, String)> {
    let cw = aws_sdk_cloudwatch::Client::new(&sdk_config(sb).await);
    let out = cw
        .describe_alarms()
        .alarm_name_prefix(format!("sagedeck-{EP}-"))
        .send()
        .await
        .unwrap();
    let mut found: Vec<(String, String)> = out
        .metric_alarms()
        .iter()
        .map(|a| {
            let name = a.alarm_name().unwrap_or_default().to_string();
            (name, a.alarm_description().unwrap_or_default().to_string())
        })
        .collect();
    found.sort();
    found
}

#[tokio::test]
async fn a_later_watch_deletes_the_gate_alarms_a_killed_deploy_left_unless_kept() {
    let sb = deploy_sandbox(Duration::from_millis(300)).await;
    let state = State::new();
    deploy_killed_mid_bake(&sb, &state, MODEL_V2, &[]).await;
    let left = gates(&sb).await;
    assert_eq!(left.len(), 2, "the killed deploy left its rate alarms: {left:?}");
    assert!(
        left.iter()
            .all(|(_, d)| d.ends_with(&format!("[sagedeck gate of {EP}; after the deployment: delete]"))),
        "{left:?}"
    );
    let watch = state.cli(&sb, &["deploy", EP, "--watch", "--poll-ms", "100"]).await;
    assert_eq!(watch.code, 0, "{}", watch.stderr);
    assert!(
        watch
            .stderr
            .contains("deleted the gate alarms a stopped deployment left"),
        "{}",
        watch.stderr
    );
    assert_eq!(status(&sb, EP).await.0, "InService");
    assert!(gates(&sb).await.is_empty(), "deleted once the deployment ended");
    assert!(
        state.audit().iter().any(|r| r.action == "deploy.alarm.delete"),
        "the deletion is audited"
    );

    deploy_killed_mid_bake(&sb, &state, MODEL_V1, &["--keep-alarms"]).await;
    let watch = state.cli(&sb, &["deploy", EP, "--watch", "--poll-ms", "100"]).await;
    assert_eq!(watch.code, 0, "{}", watch.stderr);
    let kept = gates(&sb).await;
    assert_eq!(kept.len(), 2, "--keep-alarms: the watch leaves them: {kept:?}");
    assert!(
        kept.iter().all(|(_, d)| d.ends_with("after the deployment: keep]")),
        "{kept:?}"
    );
}
