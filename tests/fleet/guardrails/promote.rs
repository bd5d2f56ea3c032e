//! Promotion plans on the sandbox with generated traffic: a canary whose latency or 5XX rate
//! regresses is rolled back and the audit shows each step; too few invocations give "no verdict"
//! (held, not passed); a kill -9 mid-bake leaves the audit record and a state that `--resume`
//! completes.

use std::process::Stdio;
use std::time::Duration;

use sagedeck::sandbox::faults::FaultSpec;

use super::support::{EP, State, actions, canary_config, two_step_plan, weights};
use crate::common::{cli_command, poll_until, sandbox_with};

fn start_weights() -> Vec<(String, f64)> {
    vec![("Stable".into(), 9.0), ("Canary".into(), 1.0)]
}

async fn regressing_canary_rolls_back(fault: &str, reason_needle: &str) {
    let sb = sandbox_with(canary_config(Some(150.0))).await;
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short(&format!("{fault},endpoint={EP},variant=Canary")).unwrap());
    let st = State::new();
    let r = st
        .cli(
            &sb,
            &[
                "promote",
                EP,
                "--canary",
                "Canary",
                "--steps",
                "20,50,100",
                "--bake",
                "3s",
                "--min-invocations",
                "10",
                "--auto",
                "--poll-ms",
                "100",
                "--reason",
                "roll v4",
                "--json",
            ],
        )
        .await;
    assert_eq!(r.code, 7, "{}\n{}", r.stdout, r.stderr);
    let plan = r.json();
    assert_eq!(plan["phase"], "rolled_back", "{plan:#}");
    let timeline = plan["timeline"].as_array().unwrap();
    assert_eq!(timeline.len(), 1, "the plan stopped at its first step: {plan:#}");
    let gate = &timeline[0]["gate"];
    assert_eq!(gate["verdict"], "fail", "{gate:#}");
    assert!(
        gate["reasons"].to_string().contains(reason_needle),
        "{reason_needle}: {gate:#}"
    );
    assert!(gate["canary"]["invocations"].as_f64().unwrap() >= 10.0);
    assert_eq!(timeline[0]["weights"][1][1], 2.0, "20% of a total of 10");
    assert_eq!(weights(&sb, EP), start_weights(), "back at the starting weights");
    let acts = actions(&st.audit());
    let expected: Vec<(String, String, Option<String>)> = vec![
        ("promote.step".into(), "intent".into(), None),
        ("promote.step".into(), "result".into(), Some("ok".into())),
        ("promote.rollback".into(), "intent".into(), None),
        ("promote.rollback".into(), "result".into(), Some("ok".into())),
    ];
    assert_eq!(acts, expected);
    let recs = st.audit();
    assert!(
        recs[0].reason.as_deref().unwrap().contains("step 1/3")
            && recs[0].reason.as_deref().unwrap().contains("roll v4")
    );
    assert!(
        recs[2].reason.as_deref().unwrap().contains("failed its gate"),
        "{:?}",
        recs[2].reason
    );
    assert_eq!(sb.sandbox.request_count("UpdateEndpointWeightsAndCapacities"), 2);
    let status = st.cli(&sb, &["promote", EP, "--status"]).await;
    assert!(
        status.stdout.contains("rolled back") && status.stdout.contains("fail"),
        "{}",
        status.stdout
    );
}

#[tokio::test]
async fn a_canary_whose_latency_regresses_is_rolled_back() {
    regressing_canary_rolls_back("kind=slow,ms=400", "p99 ratio").await;
}

#[tokio::test]
async fn a_canary_whose_5xx_rate_regresses_is_rolled_back() {
    regressing_canary_rolls_back("kind=internal,probability=0.5", "5XX rate").await;
}

#[tokio::test]
async fn too_few_invocations_give_no_verdict_not_a_pass() {
    let sb = sandbox_with(canary_config(None)).await;
    let st = State::new();
    let r = st
        .cli(&sb, &two_step_plan("2s", &["--min-invocations", "50", "--json"]))
        .await;
    assert_eq!(r.code, 7, "{}", r.stderr);
    let plan = r.json();
    assert_eq!(plan["phase"], "held", "{plan:#}");
    assert_eq!(plan["timeline"].as_array().unwrap().len(), 1, "it did not advance");
    assert_eq!(plan["timeline"][0]["gate"]["verdict"], "no_verdict");
    assert!(plan["message"].as_str().unwrap().contains("--resume"));
    assert_eq!(weights(&sb, EP), vec![("Stable".into(), 5.0), ("Canary".into(), 5.0)]);
    // A new plan is refused while this one is held; --rollback restores the start.
    let busy = st.cli(&sb, &["promote", EP, "--canary", "Canary", "--auto"]).await;
    assert_eq!(busy.code, 2);
    assert!(busy.stderr.contains("already under way"), "{}", busy.stderr);
    let rb = st
        .cli(&sb, &["promote", EP, "--rollback", "--poll-ms", "100", "--json"])
        .await;
    assert_eq!(rb.code, 0, "{}", rb.stderr);
    assert_eq!(rb.json()["phase"], "rolled_back");
    assert_eq!(weights(&sb, EP), start_weights());
}

#[tokio::test]
async fn kill_9_mid_plan_leaves_a_resumable_state() {
    let sb = sandbox_with(canary_config(Some(150.0))).await;
    let st = State::new();
    let home = tempfile::tempdir().unwrap();
    let mut child = spawn_promote(
        &sb,
        &st,
        home.path(),
        &two_step_plan(
            "4s",
            &["--min-invocations", "10", "--max-p99-ratio", "3", "--no-consolidate"],
        ),
        Stdio::null,
    );
    poll_until("the plan to bake its first step", Duration::from_secs(60), || async {
        st.plan(EP).filter(|p| p["phase"] == "baking")
    })
    .await;
    child.kill().await.unwrap(); // SIGKILL
    let killed = st.plan(EP).unwrap();
    assert_eq!(killed["phase"], "baking");
    assert_eq!(killed["step"], 0);
    let acts = actions(&st.audit());
    assert_eq!(acts.len(), 2, "{acts:?}");
    assert_eq!(acts[1], ("promote.step".into(), "result".into(), Some("ok".into())));

    let resumed = st
        .cli(&sb, &["promote", EP, "--resume", "--poll-ms", "100", "--json"])
        .await;
    assert_eq!(resumed.code, 0, "{}\n{}", resumed.stdout, resumed.stderr);
    let plan = resumed.json();
    assert_eq!(plan["phase"], "completed", "{plan:#}");
    assert_eq!(plan["id"], killed["id"], "the same plan went on");
    let timeline = plan["timeline"].as_array().unwrap();
    assert_eq!(timeline.len(), 2);
    assert!(timeline.iter().all(|s| s["gate"]["verdict"] == "pass"), "{plan:#}");
    assert!(
        timeline[1]["gate"]["reference"]["p99_ms"].as_f64().is_some(),
        "the last step (no baseline traffic) still has a baseline to compare with: {plan:#}"
    );
    assert_eq!(weights(&sb, EP), vec![("Stable".into(), 0.0), ("Canary".into(), 10.0)]);
    let acts = actions(&st.audit());
    assert_eq!(acts.len(), 4, "one more step, intent and result: {acts:?}");
    let done = st.cli(&sb, &["promote", EP, "--resume"]).await;
    assert_eq!(done.code, 2, "a completed plan has nothing to resume");
}

/// `sagedeck ARGS` as a child (killed on drop) with XDG_STATE_HOME pointing at `st`, stdout and
/// stderr from `output`.
fn spawn_promote(
    sb: &sagedeck::sandbox::SandboxHandle,
    st: &State,
    home: &std::path::Path,
    args: &[&str],
    output: fn() -> Stdio,
) -> tokio::process::Child {
    cli_command(sb, home, args, &[])
        .env("XDG_STATE_HOME", st.dir.path())
        .stdout(output())
        .stderr(output())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

#[tokio::test]
async fn sigint_headless_holds_and_says_how_to_go_on() {
    let sb = sandbox_with(canary_config(Some(150.0))).await;
    let st = State::new();
    let home = tempfile::tempdir().unwrap();
    let child = spawn_promote(&sb, &st, home.path(), &two_step_plan("60s", &[]), Stdio::piped);
    poll_until("the plan to bake", Duration::from_secs(60), || async {
        st.plan(EP).filter(|p| p["phase"] == "baking")
    })
    .await;
    let pid = child.id().unwrap().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("exits after SIGINT")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    assert!(stderr.contains("--resume") && stderr.contains("--rollback"), "{stderr}");
    let plan = st.plan(EP).unwrap();
    assert_eq!(plan["phase"], "held", "{plan:#}");
    assert_eq!(
        weights(&sb, EP),
        vec![("Stable".into(), 5.0), ("Canary".into(), 5.0)],
        "held where it was"
    );
}

#[tokio::test]
async fn manual_mode_asks_before_each_step() {
    let sb = sandbox_with(canary_config(None)).await;
    let st = State::new();
    // No answer (stdin is empty): nothing is sent, the plan holds before its first step.
    let r = st
        .cli(
            &sb,
            &[
                "promote", EP, "--canary", "Canary", "--steps", "50,100", "--bake", "1s", "--manual", "--json",
            ],
        )
        .await;
    assert_eq!(r.code, 7, "{}", r.stderr);
    assert_eq!(r.json()["phase"], "held");
    assert!(r.json()["message"].as_str().unwrap().contains("held before step 1"));
    assert_eq!(sb.sandbox.request_count("UpdateEndpointWeightsAndCapacities"), 0);
    assert_eq!(weights(&sb, EP), start_weights());
    // --yes answers "next step": the step is applied (then no traffic: no verdict, held).
    let r = st
        .cli(&sb, &["promote", EP, "--resume", "--yes", "--poll-ms", "100", "--json"])
        .await;
    assert_eq!(r.code, 7, "{}", r.stderr);
    assert_eq!(r.json()["timeline"][0]["gate"]["verdict"], "no_verdict");
    assert_eq!(sb.sandbox.request_count("UpdateEndpointWeightsAndCapacities"), 1);
    // Abandoning forgets the plan and leaves the weights alone.
    let a = st.cli(&sb, &["promote", EP, "--abandon"]).await;
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert!(st.plan(EP).is_none());
    assert_eq!(weights(&sb, EP), vec![("Stable".into(), 5.0), ("Canary".into(), 5.0)]);
    assert_eq!(st.cli(&sb, &["promote", EP, "--abandon"]).await.code, 2);
}
