//! The Activity pane with the team's audit trail configured: a teammate's records (another
//! sagedeck, its own HOME, host and access key, writing to the CloudWatch Logs group) are shown
//! with his principal and reason, merged with the operator's own, each once (hers are in her
//! file and in the group); snapshot at 140×20 (below the header).

use std::time::Duration;

use sagedeck::aws::change::audit::Mutation;
use sagedeck::aws::change::guard::Audited;
use sagedeck::aws::change::team::TeamTrail;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::worker::{GuardOptions, JobLimits, spawn_guarded};
use serde_json::json;

use crate::common::teammate::bob_shifts_weights;
use crate::common::tui::{new_app, pump_until, render};
use crate::common::{demo_config, fleet, sandbox_with};

const EP: &str = "mcp-intent-classifier-prod";
const GROUP: &str = "/sagedeck/audit";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_activity_pane_merges_a_teammates_records_each_once() {
    let sb = sandbox_with(demo_config()).await;
    // Bob, on another machine: his own sagedeck, HOME, host and access key.
    bob_shifts_weights(&sb, EP, GROUP, "bob's load test").await;

    // Alice's own change: in her file and in the group.
    let f = fleet(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let alice = Audited::open(&audit, &f).await.unwrap();
    let notify: sagedeck::aws::change::team::Notify = std::sync::Arc::new(|m: String| eprintln!("{m}"));
    alice
        .audit
        .attach_team(TeamTrail::new(&f, GROUP, alice.ctx.principal.as_deref(), notify));
    let prewarm = Mutation {
        action: "prewarm".into(),
        target: EP.into(),
        before: serde_json::Value::Null,
        after: json!({ "models": ["m-1.tar.gz"] }),
        reason: Some("warm before the demo".into()),
    };
    let pending = alice.intent(prewarm).await.unwrap();
    alice.finish(&pending, Ok(None)).unwrap();
    alice.audit.team().unwrap().flush(Duration::from_secs(10)).await;

    let merged = |a: &sagedeck::tui::app::App| {
        let rows = &a.panes.activity.rows;
        rows.iter().any(|r| r.record.action == "weights.set") && rows.iter().any(|r| r.record.action == "prewarm")
    };
    let deadline = ("bob's and alice's records", Duration::from_secs(60));
    let mut app = activity_until(f, (audit, dir.path(), GROUP), deadline, merged).await;

    let rows = &app.panes.activity.rows;
    let actions: Vec<&str> = rows.iter().map(|r| r.record.action.as_str()).collect();
    assert_eq!(actions, ["prewarm", "weights.set"], "newest first, each once");
    let bobs = &rows[1].cells;
    assert!(bobs[1].ends_with("bob"), "his principal: {bobs:?}");
    assert_eq!(bobs[6], "bob's load test");
    assert!(!rows[0].cells[1].ends_with("bob"), "hers: {:?}", rows[0].cells);
    assert_eq!(rows[0].cells[6], "warm before the demo");

    // The times change with every run: fixed for the snapshot.
    for (i, r) in app.panes.activity.rows.iter_mut().enumerate() {
        r.cells[0] = format!("2026-12-05 03:2{}:00", 9 - i);
    }
    app.panes.activity.path = Some("/home/alice/.local/state/sagedeck/audit.jsonl".into());
    // The header names whichever read is in flight (the refresh ticks): the tabs and the pane.
    let screen = render(&mut app, 140, 20);
    let below_header: Vec<&str> = screen.lines().skip(1).collect();
    insta::assert_snapshot!("activity_team_trail", below_header.join("\n"));
}

/// The Activity pane of a console whose guard writes `audit` (plans under `dir`) and reads the
/// team's trail `group`, asked again on every pump until `done` (or the deadline fails).
pub async fn activity_until(
    f: sagedeck::aws::Fleet,
    (audit, dir, group): (std::path::PathBuf, &std::path::Path, &str),
    deadline: (&str, Duration),
    done: impl Fn(&sagedeck::tui::app::App) -> bool,
) -> sagedeck::tui::app::App {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let guard = GuardOptions {
        audit_path: Some(audit),
        plan_dir: Some(dir.join("plans")),
        audit_log_group: Some(group.into()),
        ..GuardOptions::default()
    };
    let jobs = spawn_guarded(Default::default(), Some(f), JobLimits::default(), tx, None, guard);
    let mut app = new_app();
    app.switch(Tab::Activity);
    let ask_again = |a: &mut sagedeck::tui::app::App| {
        a.panes.activity.last_read = None;
        a.on_tick();
    };
    pump_until(&mut app, &jobs, &mut rx, deadline, done, ask_again).await;
    app
}
