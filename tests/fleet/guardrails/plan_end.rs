//! A promotion plan to its end on the sandbox: after the canary holds 100 % and bakes clean, the
//! plan consolidates by itself (one variant left, the old config kept, audited); a failed
//! deployment holds the plan with SageMaker's reason and the endpoint on its old config; a kill -9
//! during consolidation resumes (`--resume`) or rolls back (`--rollback`: back to the kept config,
//! then the starting weights). And the operator's roll back is carried out whatever the plan is
//! doing: waiting for InService, baking, or judging.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use sagedeck::aws::change::guard::Audited;
use sagedeck::aws::promote::events::{Control, PromotionEvent, RunnerOptions};
use sagedeck::aws::promote::plan::{Mode, Phase, PlanState, PromotionSpec, plan_path};
use sagedeck::aws::promote::report::Gates;
use sagedeck::aws::promote::run::PromotionRunner;
use sagedeck::sandbox::SandboxHandle;
use sagedeck::sandbox::faults::FaultSpec;
use tokio::sync::mpsc::unbounded_channel;

use super::support::{EP, State, actions, canary_config, two_step_plan, weights};
use crate::common::{cli_command, fleet, poll_until, sandbox_with};

/// `promote EP` in two steps (50, 100) with gates the generated traffic passes.
fn plan() -> Vec<&'static str> {
    two_step_plan("4s", &["--min-invocations", "10", "--max-p99-ratio", "3"])
}

fn start_weights() -> Vec<(String, f64)> {
    vec![("Stable".into(), 9.0), ("Canary".into(), 1.0)]
}

/// The endpoint's config and its variants' names.
fn config_of(sb: &SandboxHandle) -> (String, Vec<String>) {
    let world = sb.sandbox.world.read();
    let ep = &world.endpoints[EP];
    (
        ep.config_name.clone(),
        ep.variants.iter().map(|v| v.name.clone()).collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_that_passes_consolidates_as_its_last_step() {
    let sb = sandbox_with(canary_config(Some(150.0))).await;
    let (old_config, _) = config_of(&sb);
    let st = State::new();
    let mut args = plan();
    args.push("--json");
    let r = st.cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let plan = r.json();
    assert_eq!(plan["phase"], "completed", "{plan:#}");
    let msg = plan["message"].as_str().unwrap();
    assert!(msg.contains("consolidated") && msg.contains(&old_config), "{msg}");
    let (config, variants) = config_of(&sb);
    assert_ne!(config, old_config);
    assert_eq!(variants, ["Canary"]);
    assert!(
        sb.sandbox.world.read().configs.contains_key(&old_config),
        "the old config is kept"
    );
    let acts = actions(&st.audit());
    assert!(
        acts.contains(&("promote.consolidate".into(), "result".into(), Some("ok".into()))),
        "{acts:?}"
    );
    let intent = st
        .audit()
        .into_iter()
        .find(|r| r.action == "promote.consolidate")
        .unwrap();
    assert!(
        intent.reason.as_deref().unwrap_or("").contains("last step"),
        "{intent:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_consolidation_holds_the_plan_on_the_old_config_with_the_reason() {
    let sb = sandbox_with(canary_config(Some(150.0))).await;
    sb.sandbox.faults.add(
        FaultSpec::parse_short(&format!(
            "kind=deployment_failure,endpoint={EP},operation=UpdateEndpoint"
        ))
        .unwrap(),
    );
    let (old_config, _) = config_of(&sb);
    let st = State::new();
    let mut args = plan();
    args.push("--json");
    let r = st.cli(&sb, &args).await;
    assert_eq!(r.code, 7, "{}\n{}", r.stdout, r.stderr);
    let plan = r.json();
    assert_eq!(plan["phase"], "held", "{plan:#}");
    let msg = plan["message"].as_str().unwrap();
    assert!(
        msg.contains("consolidation failed") && msg.contains("did not pass the ping health check"),
        "{msg}"
    );
    assert_eq!(
        config_of(&sb),
        (old_config.clone(), vec!["Stable".into(), "Canary".into()])
    );

    // Rolling back: the endpoint never left its config; the starting weights come back.
    let back = st
        .cli(&sb, &["promote", EP, "--rollback", "--poll-ms", "100", "--json"])
        .await;
    assert_eq!(back.code, 0, "{}\n{}", back.stdout, back.stderr);
    assert_eq!(back.json()["phase"], "rolled_back");
    assert_eq!(weights(&sb, EP), start_weights());
    assert_eq!(config_of(&sb).0, old_config);
}

/// Starts the plan in a child, kills it (SIGKILL) once UpdateEndpoint is sent and the endpoint
/// is deploying the consolidated config; returns the old config.
async fn killed_mid_consolidation(sb: &SandboxHandle, st: &State) -> String {
    let (old_config, _) = config_of(sb);
    let home = tempfile::tempdir().unwrap();
    let mut child = cli_command(sb, home.path(), &plan(), &[])
        .env("XDG_STATE_HOME", st.dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let file = st.plan_path(EP).with_extension("consolidation");
    poll_until(
        "the consolidation to be deploying",
        Duration::from_secs(120),
        || async {
            let text = std::fs::read_to_string(&file).ok()?;
            (text.contains("\"updating\"") && sb.sandbox.request_count("UpdateEndpoint") == 1).then_some(())
        },
    )
    .await;
    child.kill().await.unwrap(); // SIGKILL
    assert_eq!(st.plan(EP).unwrap()["phase"], "consolidating");
    old_config
}

fn slow_updates() -> sagedeck::sandbox::SandboxConfig {
    let mut cfg = canary_config(Some(150.0));
    cfg.timing.update = Duration::from_secs(3);
    cfg
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_the_plans_consolidation_is_resumed() {
    let sb = sandbox_with(slow_updates()).await;
    let st = State::new();
    let old_config = killed_mid_consolidation(&sb, &st).await;
    let r = st
        .cli(&sb, &["promote", EP, "--resume", "--poll-ms", "100", "--json"])
        .await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.json()["phase"], "completed");
    assert_eq!(
        sb.sandbox.request_count("UpdateEndpoint"),
        1,
        "followed, not sent again"
    );
    let (config, variants) = config_of(&sb);
    assert_ne!(config, old_config);
    assert_eq!(variants, ["Canary"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_the_plans_consolidation_rolls_back_to_the_kept_config() {
    let sb = sandbox_with(slow_updates()).await;
    let st = State::new();
    let old_config = killed_mid_consolidation(&sb, &st).await;
    let r = st
        .cli(&sb, &["promote", EP, "--rollback", "--poll-ms", "100", "--json"])
        .await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.json()["phase"], "rolled_back");
    assert_eq!(sb.sandbox.request_count("UpdateEndpoint"), 2, "there and back");
    assert_eq!(config_of(&sb), (old_config, vec!["Stable".into(), "Canary".into()]));
    assert_eq!(weights(&sb, EP), start_weights());
    let acts = actions(&st.audit());
    assert!(
        acts.contains(&("promote.unconsolidate".into(), "result".into(), Some("ok".into()))),
        "{acts:?}"
    );
}

/// Which event the operator answers with "roll back".
#[derive(Clone, Copy)]
enum At {
    /// The step's weights were sent: waiting for InService.
    Updating,
    /// Baking.
    Baking,
    /// The bake is over and its gate is being read.
    Judging,
}

/// Runs a plan in this process and sends Rollback at `at`; the plan's end.
async fn roll_back_at(sb: &SandboxHandle, at: At, dir: &Path) -> PlanState {
    let f = fleet(sb).await;
    let audited = Audited::open(dir.join("audit.jsonl"), &f).await.unwrap();
    let spec = PromotionSpec {
        endpoint: EP.into(),
        canary: "Canary".into(),
        baseline: None,
        steps: vec![50.0, 100.0],
        bake: Duration::from_secs(2),
        gates: Gates::default(),
        mode: Mode::Auto,
        consolidate: true,
    };
    let opts = RunnerOptions {
        poll_interval: Duration::from_millis(100),
        // Judging waits for CloudWatch to publish (a minute or two on AWS) before reading.
        metrics_delay: Duration::from_secs(3),
        ..Default::default()
    };
    let path = plan_path(dir, EP);
    let (runner, control) = PromotionRunner::begin(f, audited, spec, None, path, opts)
        .await
        .unwrap();
    let (etx, mut events) = unbounded_channel();
    let task = tokio::spawn(runner.with_events(etx).run());
    while let Some(e) = events.recv().await {
        let now = matches!(
            (at, &e),
            (At::Updating, PromotionEvent::Applied { .. })
                | (At::Baking, PromotionEvent::Baking { .. })
                | (At::Judging, PromotionEvent::Judging { .. })
        );
        if now {
            control.send(Control::Rollback).unwrap();
            break;
        }
    }
    task.await.unwrap().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roll_back_is_carried_out_while_waiting_for_in_service() {
    let mut cfg = canary_config(None);
    cfg.timing.update = Duration::from_secs(2);
    let sb = sandbox_with(cfg).await;
    let dir = tempfile::tempdir().unwrap();
    let end = roll_back_at(&sb, At::Updating, dir.path()).await;
    assert_eq!(end.phase, Phase::RolledBack, "{end:#?}");
    assert!(end.message.unwrap().contains("during the update"));
    assert_eq!(weights(&sb, EP), start_weights());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roll_back_is_carried_out_while_baking() {
    let sb = sandbox_with(canary_config(None)).await;
    let dir = tempfile::tempdir().unwrap();
    let end = roll_back_at(&sb, At::Baking, dir.path()).await;
    assert_eq!(end.phase, Phase::RolledBack, "{end:#?}");
    assert!(end.message.unwrap().contains("during the bake of step 1"));
    assert_eq!(weights(&sb, EP), start_weights());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roll_back_is_carried_out_while_judging_even_without_a_verdict() {
    // No traffic: the gate would give no verdict, which an auto plan holds on; the operator's
    // roll back, asked while the gate waits for the metrics, wins.
    let sb = sandbox_with(canary_config(None)).await;
    let dir = tempfile::tempdir().unwrap();
    let end = roll_back_at(&sb, At::Judging, dir.path()).await;
    assert_eq!(end.phase, Phase::RolledBack, "not held: {end:#?}");
    assert!(end.message.unwrap().contains("during the judging of step 1"));
    assert_eq!(weights(&sb, EP), start_weights());
}
