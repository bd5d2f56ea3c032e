//! A promotion plan's heartbeat in the team's audit trail: a driven plan says it is still
//! running every heartbeat; a plan not heard of for five heartbeats is reported by `promote
//! --status` as likely dead and no longer refuses a new plan (said so); on the same host, a plan
//! whose process is gone is dead at once.

use std::time::Duration;

use sagedeck::aws::Fleet;
use sagedeck::aws::change::guard::Audited;
use sagedeck::aws::change::team::TeamTrail;
use sagedeck::aws::promote::events::RunnerOptions;
use sagedeck::aws::promote::plan::{Mode, PromotionSpec, plan_path};
use sagedeck::aws::promote::report::Gates;
use sagedeck::aws::promote::run::PromotionRunner;
use serde_json::json;
use tokio::io::AsyncBufReadExt;

use crate::common::teammate::plan_args;
use crate::common::{cli_command, demo_config, fleet, poll_until, run_cli_in, sandbox_with};

const EP: &str = "mcp-intent-classifier-prod";
const GROUP: &str = "/sagedeck/audit";

/// Puts, as bob on `host`, the announcement of a plan at step 2/4 baking, heard `ago` seconds
/// ago, driven by `pid`.
async fn bob_announced(f: &Fleet, endpoint: &str, host: &str, pid: u32, ago: f64) {
    let stream = format!("bob@{host}");
    let _ = f.logs.create_log_group().log_group_name(GROUP).send().await;
    let _ = f
        .logs
        .create_log_stream()
        .log_group_name(GROUP)
        .log_stream_name(&stream)
        .send()
        .await;
    let epoch = sagedeck::format::now_epoch() - ago;
    let record = json!({
        "time": "2026-01-01T00:00:00Z", "epoch": epoch, "id": format!("bob-{pid}"), "phase": "result",
        "principal": "arn:aws:iam::123456789012:user/bob", "profile": "default", "region": "us-east-1",
        "endpoint_url": null, "action": "promote.plan", "target": endpoint, "before": null,
        "after": {"plan": format!("{endpoint}-1"), "phase": "baking", "step": 2, "steps": 4,
                  "host": host, "pid": pid, "heartbeat_secs": 60.0},
        "result": "still running", "request_id": null, "reason": "INC-9 canary"
    });
    let event = aws_sdk_cloudwatchlogs::types::InputLogEvent::builder()
        .timestamp((epoch * 1000.0) as i64)
        .message(record.to_string())
        .build()
        .unwrap();
    let put = f
        .logs
        .put_log_events()
        .log_group_name(GROUP)
        .log_stream_name(&stream)
        .log_events(event)
        .send()
        .await
        .expect("the announcement is put");
    assert!(put.rejected_log_events_info().is_none(), "{put:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_plan_is_likely_dead_and_no_longer_refuses_a_new_one() {
    let sb = sandbox_with(demo_config()).await;
    let f = fleet(&sb).await;
    bob_announced(&f, EP, "host-x", 4242, 14.0 * 60.0).await;
    let alice = tempfile::tempdir().unwrap();
    let env = [("SAGEDECK_HOST", "host-a")];

    let status = run_cli_in(
        &sb,
        alice.path(),
        &["promote", EP, "--status", "--audit-log-group", GROUP],
        &env,
    )
    .await;
    assert_eq!(status.code, 0, "{}", status.stderr);
    assert!(
        status.stdout.contains(
            "a plan by bob on host-x last heard 14 min ago — likely dead (it was at step 2/4, baking; no heartbeat for 5 min)"
        ),
        "{}",
        status.stdout
    );
    let json = run_cli_in(
        &sb,
        alice.path(),
        &["promote", EP, "--status", "--audit-log-group", GROUP, "--json"],
        &env,
    )
    .await;
    let a = &json.json()["announced"];
    assert_eq!(
        (&a["liveness"], &a["blocks"], &a["pid"]),
        (&json!("stale"), &json!(false), &json!(4242)),
        "{a:#}"
    );

    // A new plan is not refused: it starts, saying why.
    let plan = plan_args(EP, GROUP);
    let mut cmd = cli_command(&sb, alice.path(), &plan, &env);
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut running = cmd.spawn().expect("alice's plan starts");
    let mut lines = tokio::io::BufReader::new(running.stderr.take().unwrap()).lines();
    let said = tokio::time::timeout(Duration::from_secs(60), async {
        while let Ok(Some(l)) = lines.next_line().await {
            if l.contains("likely dead") {
                return l;
            }
        }
        panic!("alice's plan ended without a word of bob's");
    })
    .await
    .expect("alice's plan says why it starts within a minute");
    assert!(said.contains("starting anyway (the lock is advisory"), "{said}");
    // It runs: its own announcement follows.
    poll_until("alice's plan announces itself", Duration::from_secs(60), || async {
        let records = f.read_team_trail(GROUP, 0.0, 5).await.ok()?;
        records
            .iter()
            .any(|r| r.record.action == "promote.plan" && r.stream.ends_with("@host-a"))
            .then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_the_same_host_a_plan_whose_process_is_gone_is_dead_at_once() {
    let sb = sandbox_with(demo_config()).await;
    let f = fleet(&sb).await;
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let gone = child.id();
    child.wait().unwrap();
    bob_announced(&f, EP, "host-a", gone, 5.0).await;
    let home = tempfile::tempdir().unwrap();
    let status = ["promote", EP, "--status", "--audit-log-group", GROUP];
    let here = run_cli_in(&sb, home.path(), &status, &[("SAGEDECK_HOST", "host-a")]).await;
    assert!(
        here.stdout.contains(&format!(
            "a plan by bob on host-a last heard 5s ago — dead: its process (pid {gone}) is gone"
        )),
        "{}",
        here.stdout
    );
    let elsewhere = run_cli_in(&sb, home.path(), &status, &[("SAGEDECK_HOST", "host-b")]).await;
    assert!(
        elsewhere
            .stdout
            .contains("a plan by bob on host-a is at step 2/4, baking"),
        "another host cannot tell a pid: {}",
        elsewhere.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_driven_plan_beats_in_the_team_trail() {
    let sb = sandbox_with(demo_config()).await;
    let f = fleet(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let audited = Audited::open(dir.path().join("audit.jsonl"), &f).await.unwrap();
    let notify: sagedeck::aws::change::team::Notify = std::sync::Arc::new(|m: String| eprintln!("{m}"));
    let trail = TeamTrail::new(&f, GROUP, audited.ctx.principal.as_deref(), notify);
    audited.audit.attach_team(trail);
    let spec = PromotionSpec {
        endpoint: EP.into(),
        canary: "Canary".into(),
        baseline: None,
        steps: vec![10.0, 100.0],
        bake: Duration::from_secs(600),
        gates: Gates::default(),
        mode: Mode::Auto,
        consolidate: false,
    };
    let opts = RunnerOptions {
        poll_interval: Duration::from_millis(100),
        heartbeat: Duration::from_millis(500),
        ..Default::default()
    };
    let path = plan_path(dir.path(), EP);
    let (runner, _control) = PromotionRunner::begin(f.clone(), audited, spec, None, path, opts)
        .await
        .unwrap();
    let task = tokio::spawn(runner.run());
    let beats = poll_until("three heartbeats while it bakes", Duration::from_secs(60), || async {
        let records = f.read_team_trail(GROUP, 0.0, 5).await.ok()?;
        let beats: Vec<_> = records
            .into_iter()
            .filter(|r| r.record.result.as_deref() == Some("still running"))
            .collect();
        (beats.len() >= 3).then_some(beats)
    })
    .await;
    assert!(
        beats
            .iter()
            .all(|b| b.record.action == "promote.plan" && b.record.after["heartbeat_secs"] == 0.5)
    );
    assert!(beats.iter().any(|b| b.record.after["phase"] == "baking"), "{beats:#?}");
    let now = sagedeck::format::now_epoch();
    let heard = f
        .announced_plan(GROUP, EP, now)
        .await
        .unwrap()
        .expect("the plan is announced");
    assert!(heard.blocks(), "{heard:?}");
    // Five half-second beats missed: likely dead.
    let later = f.announced_plan(GROUP, EP, now + 3.0).await.unwrap().unwrap();
    assert!(!later.blocks(), "{later:?}");
    assert!(
        later.line(now + 3.0).contains("likely dead"),
        "{}",
        later.line(now + 3.0)
    );
    task.abort();
}
