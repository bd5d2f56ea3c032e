//! A plan has one driver at a time: while one process bakes a plan, `--resume`, `--rollback`,
//! `--abandon`, `--consolidate` and a new plan from another are refused (exit 6, naming the
//! driver's pid, host and since) and send nothing; once the driver is gone (kill -9 included)
//! the plan can be taken over.

use std::process::Stdio;
use std::time::Duration;

use sagedeck::aws::promote::lock::PlanLock;

use super::support::{EP, State, canary_config, two_step_plan, weights};
use crate::common::{cli_command, poll_until, sandbox_with};

const UPDATE: &str = "UpdateEndpointWeightsAndCapacities";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_driver_is_refused_while_a_plan_bakes_and_kill_9_frees_it() {
    let sb = sandbox_with(canary_config(Some(50.0))).await;
    let st = State::new();
    let home = tempfile::tempdir().unwrap();
    let mut driver = cli_command(&sb, home.path(), &two_step_plan("1h", &[]), &[])
        .env("XDG_STATE_HOME", st.dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = driver.id().unwrap();
    let baking = poll_until("the plan to bake its first step", Duration::from_secs(60), || async {
        st.plan(EP).filter(|p| p["phase"] == "baking")
    })
    .await;
    let sent = sb.sandbox.request_count(UPDATE);
    let at_step_1 = weights(&sb, EP);
    for args in [
        vec!["promote", EP, "--resume", "--yes"],
        vec!["promote", EP, "--rollback", "--yes"],
        vec!["promote", EP, "--abandon"],
        vec!["promote", EP, "--consolidate", "--canary", "Canary", "--yes"],
        two_step_plan("10s", &[]),
    ] {
        let r = st.cli(&sb, &args).await;
        assert_eq!(r.code, 6, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!("driven by pid {pid} on ")) && r.stderr.contains(" since "),
            "{args:?}: {}",
            r.stderr
        );
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    }
    assert_eq!(sb.sandbox.request_count(UPDATE), sent, "nothing was sent");
    assert_eq!(weights(&sb, EP), at_step_1);
    assert_eq!(st.plan(EP).unwrap(), baking, "the plan file is the driver's alone");
    let status = st.cli(&sb, &["promote", EP, "--status"]).await;
    assert_eq!(status.code, 0, "{}", status.stderr);
    assert!(
        status.stderr.contains(&format!("driven by pid {pid}")),
        "{}",
        status.stderr
    );

    driver.kill().await.unwrap(); // SIGKILL: the OS releases the lock
    let back = st
        .cli(&sb, &["promote", EP, "--rollback", "--poll-ms", "100", "--json"])
        .await;
    assert_eq!(back.code, 0, "{}\n{}", back.stdout, back.stderr);
    assert_eq!(back.json()["phase"], "rolled_back");
    assert_eq!(
        weights(&sb, EP),
        vec![("Stable".to_string(), 9.0), ("Canary".to_string(), 1.0)]
    );
}

#[tokio::test]
async fn a_lock_held_in_another_process_refuses_the_cli_and_its_release_lets_it_in() {
    let sb = sandbox_with(canary_config(None)).await;
    let st = State::new();
    // This test process plays the driver (as the console does for the plans it runs).
    let lock = PlanLock::acquire(&st.plan_path(EP)).unwrap();
    let r = st.cli(&sb, &two_step_plan("10s", &[])).await;
    assert_eq!(r.code, 6, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("driven by pid {} on ", std::process::id())),
        "{}",
        r.stderr
    );
    assert_eq!(sb.sandbox.request_count(UPDATE), 0);
    assert!(st.plan(EP).is_none(), "no plan was begun");
    drop(lock);
    let r = st.cli(&sb, &["promote", EP, "--abandon"]).await;
    assert_eq!(r.code, 2, "no plan to abandon, but not refused: {}", r.stderr);
}
