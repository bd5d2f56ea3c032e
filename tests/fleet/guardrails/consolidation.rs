//! Consolidation on the sandbox: after the canary holds 100 %, `promote --consolidate` leaves one
//! variant with the canary's model on a new config (the old config kept, audited), and
//! `--unconsolidate` goes back to it; a failing deployment is reported with SageMaker's reason
//! and the endpoint is left on its old config; a kill -9 mid-deployment is resumed by the same
//! command.

use std::time::Duration;

use sagedeck::sandbox::SandboxHandle;
use sagedeck::sandbox::faults::FaultSpec;

use super::support::{DEMO_EP, State, actions};
use crate::common::{cli_command, demo_config, poll_until, sandbox_with};

/// The demo fleet with deployments slow enough to be caught mid-way, the canary at 100 %.
async fn canary_at_100(update: Duration) -> SandboxHandle {
    let mut cfg = demo_config();
    cfg.timing.update = update;
    let sb = sandbox_with(cfg).await;
    {
        let mut world = sb.sandbox.world.write();
        let ep = world.endpoints.get_mut(DEMO_EP).expect("demo endpoint");
        for v in &mut ep.variants {
            let w = if v.name == "Canary" { 1.0 } else { 0.0 };
            v.current_weight = w;
            v.desired_weight = w;
        }
    }
    sb
}

fn config_of(sb: &SandboxHandle) -> (String, Vec<(String, String)>) {
    let world = sb.sandbox.world.read();
    let ep = &world.endpoints[DEMO_EP];
    let variants = ep
        .variants
        .iter()
        .map(|v| (v.name.clone(), v.model_name.clone()))
        .collect();
    (ep.config_name.clone(), variants)
}

const CONSOLIDATE: [&str; 8] = [
    "promote",
    DEMO_EP,
    "--consolidate",
    "--canary",
    "Canary",
    "--yes",
    "--poll-ms",
    "100",
];

#[tokio::test]
async fn consolidation_keeps_only_the_canary_and_the_old_config_for_rollback() {
    let sb = canary_at_100(Duration::from_millis(500)).await;
    let (old_config, _) = config_of(&sb);
    let st = State::new();
    let mut args = CONSOLIDATE.to_vec();
    args.push("--json");
    let r = st.cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let state = r.json();
    assert_eq!(state["phase"], "done", "{state:#}");
    let (config, variants) = config_of(&sb);
    assert_eq!(config, state["to_config"].as_str().unwrap());
    assert_ne!(config, old_config);
    assert_eq!(
        variants,
        vec![("Canary".to_string(), "mcp-intent-classifier-v4".to_string())]
    );
    assert!(
        sb.sandbox.world.read().configs.contains_key(&old_config),
        "the old config is kept"
    );
    let acts = actions(&st.audit());
    assert!(
        acts.contains(&("promote.consolidate".into(), "intent".into(), None)),
        "{acts:?}"
    );
    assert!(
        acts.contains(&("promote.consolidate".into(), "result".into(), Some("ok".into()))),
        "{acts:?}"
    );

    let back = st
        .cli(
            &sb,
            &[
                "promote",
                DEMO_EP,
                "--unconsolidate",
                "--yes",
                "--poll-ms",
                "100",
                "--json",
            ],
        )
        .await;
    assert_eq!(back.code, 0, "{}", back.stderr);
    assert_eq!(back.json()["phase"], "rolled_back");
    let (config, variants) = config_of(&sb);
    assert_eq!(config, old_config);
    assert_eq!(variants.len(), 2);
}

#[tokio::test]
async fn a_failed_consolidation_is_reported_and_the_old_config_stays() {
    let sb = canary_at_100(Duration::from_millis(300)).await;
    let (old_config, _) = config_of(&sb);
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short(&format!("kind=deployment_failure,endpoint={DEMO_EP}")).unwrap());
    let st = State::new();
    let r = st.cli(&sb, &CONSOLIDATE).await;
    assert_eq!(r.code, 7, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("consolidation failed") && r.stderr.contains("did not pass the ping health check"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stdout.contains("now serves only"),
        "never shown as success: {}",
        r.stdout
    );
    assert_eq!(config_of(&sb).0, old_config);
}

#[tokio::test]
async fn kill_9_during_consolidation_is_resumed_by_the_same_command() {
    let sb = canary_at_100(Duration::from_secs(4)).await;
    let st = State::new();
    let home = tempfile::tempdir().unwrap();
    let mut child = cli_command(&sb, home.path(), &CONSOLIDATE, &[])
        .env("XDG_STATE_HOME", st.dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let path = st.plan_path(DEMO_EP).with_extension("consolidation");
    poll_until("the deployment to be under way", Duration::from_secs(30), || async {
        let text = std::fs::read_to_string(&path).ok()?;
        (text.contains("\"updating\"") && sb.sandbox.request_count("UpdateEndpoint") == 1).then_some(())
    })
    .await;
    child.kill().await.unwrap(); // SIGKILL
    let mut args = CONSOLIDATE.to_vec();
    args.push("--json");
    let r = st.cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("resuming"), "{}", r.stderr);
    assert_eq!(r.json()["phase"], "done");
    assert_eq!(sb.sandbox.request_count("UpdateEndpoint"), 1, "resumed, not sent again");
    assert_eq!(config_of(&sb).1.len(), 1);
}
