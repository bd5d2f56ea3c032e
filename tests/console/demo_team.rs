//! The demo's teammate in the team's trail: bob (the sandbox's second person) writes his audit
//! records to the demo's `/sagedeck/audit` group as his sagedeck would, so the Activity pane on
//! the demo shows his changes with his reason; and his plan, announced step by step, is read
//! back as `promote --status` reads it.

use std::time::Duration;

use sagedeck::sandbox::SandboxConfig;
use sagedeck::sandbox::world::teammate::trail::{AUDIT_GROUP, NUDGE_REASON, PLAN_STEPS};
use sagedeck::sandbox::world::teammate::{CYCLE, TEAMMATE_ENDPOINT, take_turn};

use crate::activity_team::activity_until;
use crate::common::{demo_config, fleet, sandbox_with};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_activity_pane_on_the_demo_shows_bobs_change_with_his_reason() {
    let sb = sandbox_with(SandboxConfig {
        teammate_every: Some(Duration::from_millis(200)),
        ..demo_config()
    })
    .await;
    let f = fleet(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let bobs = |a: &sagedeck::tui::app::App| {
        (a.panes.activity.rows.iter()).any(|r| {
            r.record.action == "weights.set" && r.cells[1].ends_with("bob") && r.record.result.as_deref() == Some("ok")
        })
    };
    let deadline = ("bob's weight change in the Activity pane", Duration::from_secs(60));
    let audit = dir.path().join("audit.jsonl");
    let app = activity_until(f, (audit, dir.path(), AUDIT_GROUP), deadline, bobs).await;

    let rows = &app.panes.activity.rows;
    let row = (rows.iter())
        .find(|r| r.record.action == "weights.set" && r.record.result.is_some())
        .unwrap();
    assert_eq!(row.record.target, TEAMMATE_ENDPOINT);
    assert_eq!(row.cells[6], NUDGE_REASON, "his reason: {:?}", row.cells);
    assert_eq!(
        row.record.principal.as_deref(),
        Some("arn:aws:iam::123456789012:user/bob")
    );
    // He moves the demo's Canary between 1 and 2.
    let moves = [
        "Stable=9 Canary=1 → Stable=9 Canary=2",
        "Stable=9 Canary=2 → Stable=9 Canary=1",
    ];
    assert!(moves.contains(&row.cells[4].as_str()), "{:?}", row.cells);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bobs_announced_plan_is_read_at_its_step_and_gone_once_it_ends() {
    let sb = sandbox_with(demo_config()).await;
    let f = fleet(&sb).await;
    let now = || sagedeck::sandbox::now_epoch();
    assert_eq!(
        f.announced_plan(AUDIT_GROUP, TEAMMATE_ENDPOINT, now()).await.unwrap(),
        None
    );
    // The plan starts on the cycle's fourth turn and takes a turn a step.
    let beat = Duration::from_secs(60);
    take_turn(&sb.sandbox, 4, beat);
    take_turn(&sb.sandbox, 5, beat);
    let a = f
        .announced_plan(AUDIT_GROUP, TEAMMATE_ENDPOINT, now())
        .await
        .unwrap()
        .unwrap();
    assert!(a.blocks(), "{a:?}");
    let line = a.line(now());
    assert!(
        line.starts_with(&format!(
            "a plan by bob on bobs-laptop is at step 2/{PLAN_STEPS}, baking"
        )),
        "{line}"
    );
    for turn in 6..=7 {
        take_turn(&sb.sandbox, turn, beat);
    }
    assert_eq!(CYCLE, 12);
    assert_eq!(
        f.announced_plan(AUDIT_GROUP, TEAMMATE_ENDPOINT, now()).await.unwrap(),
        None,
        "ended"
    );
}
