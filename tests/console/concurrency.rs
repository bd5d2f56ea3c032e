//! The Variants pane's `c` on a serverless endpoint: the editor of max and provisioned
//! concurrency and its before → after confirmation (snapshots at 80x24), refused at once in
//! read-only mode, a plan the fleet layer refuses said under the input; and over the wire, the
//! change confirmed is applied in place, audited, and shown back.

use std::time::Duration;

use crossterm::event::KeyCode;
use sagedeck::sandbox::world::config::SandboxConfig;
use sagedeck::tui::app::App;
use sagedeck::tui::event::{GuardJob, Job};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::widgets::Overlay;

use crate::common;
use crate::common::tui::{key, press, render as screen, tap};

/// Clears the editor's input and types `text`.
fn retype(app: &mut App, text: &str) {
    for _ in 0..12 {
        tap(app, KeyCode::Backspace);
    }
    press(app, text);
}

#[test]
fn c_edits_a_serverless_variants_concurrency_before_and_after() {
    let mut app = super::shapes::serverless();
    let footer = screen(&mut app, 140, 40);
    assert!(footer.contains("c concurrency"), "{footer}");
    press(&mut app, "c");
    let editor = screen(&mut app, 80, 24);
    assert!(editor.contains("max [provisioned]: 20 5"), "{editor}");
    insta::assert_snapshot!("variants_concurrency_edit_80x24", editor);
    // Provisioned above max: said under the input, nothing queued.
    retype(&mut app, "4 5");
    tap(&mut app, KeyCode::Enter);
    let refused = screen(&mut app, 80, 24);
    assert!(
        refused.contains("provisioned concurrency 5 is above max concurrency 4"),
        "{refused}"
    );
    assert!(app.overlay.is_none());
    retype(&mut app, "30 10");
    tap(&mut app, KeyCode::Enter);
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation: {:?}", app.panes.variants.concurrency)
    };
    assert_eq!(c.lines[0], "intent-sls/AllTraffic: max 20 → 30, provisioned 5 → 10");
    insta::assert_snapshot!("variants_concurrency_confirm_80x24", screen(&mut app, 80, 24));
    app.take_jobs();
    app.on_key(key(KeyCode::Char('y')));
    let jobs = app.take_jobs();
    assert!(
        jobs.iter()
            .any(|(_, j)| matches!(j, Job::Guard(GuardJob::SetServerless { plan, .. })
            if plan.max_concurrency == 30 && plan.provisioned == Some(10))),
        "{jobs:?}"
    );
}

#[test]
fn c_is_refused_in_read_only_mode_and_on_an_instance_backed_variant() {
    let mut app = super::shapes::serverless();
    app.data.read_only = true;
    press(&mut app, "c");
    assert!(app.panes.variants.concurrency.is_none());
    assert!(app.take_jobs().is_empty());
    app.data.read_only = false;
    // The same endpoint with its variant made instance-backed.
    let e = std::sync::Arc::make_mut(&mut app.data.inventory[0]);
    e.variants[0].serverless = None;
    press(&mut app, "c");
    assert!(app.panes.variants.concurrency.is_none());
    let toasts: Vec<_> = app.toasts.log.iter().map(|t| t.text.clone()).collect();
    assert!(toasts.iter().any(|t| t.contains("w edits its weights")), "{toasts:?}");
}

const SLS: &str = "mcp-serverless-embedder";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_change_confirmed_is_applied_audited_and_shown() {
    let config = SandboxConfig {
        demo_fleet: true,
        demo_shapes: true,
        ..SandboxConfig::for_tests()
    };
    let sb = common::sandbox_with(config).await;
    let dir = tempfile::tempdir().unwrap();
    let (jobs, mut rx) = common::tui::guarded_worker_on(&sb, dir.path(), None).await;
    let mut app = common::tui::loaded_app(&jobs, &mut rx).await;
    let deadline = Duration::from_secs(120);
    app.data.selected = Some(SLS.into());
    app.switch(Tab::Variants);
    let described = |a: &App| {
        a.data
            .endpoint(SLS)
            .is_some_and(|e| e.status == "InService" && e.variants.first().is_some_and(|v| v.serverless.is_some()))
    };
    common::tui::pump_until(
        &mut app,
        &jobs,
        &mut rx,
        ("the serverless endpoint", deadline),
        described,
        |_| {},
    )
    .await;
    press(&mut app, "c");
    retype(&mut app, "12 3");
    tap(&mut app, KeyCode::Enter);
    let toasts: Vec<_> = app.toasts.log.iter().map(|t| t.text.clone()).collect();
    assert!(
        matches!(app.overlay, Some(Overlay::Confirm(_))),
        "{:?} {toasts:?}",
        app.panes.variants.concurrency
    );
    app.on_key(key(KeyCode::Char('y')));
    let done = |a: &App| a.toasts.log.iter().any(|t| t.text.contains("concurrency of"));
    common::tui::pump_until(&mut app, &jobs, &mut rx, ("the change", deadline), done, |_| {}).await;
    let toasts: Vec<_> = app.toasts.log.iter().map(|t| t.text.clone()).collect();
    assert!(
        toasts.iter().any(|t| t.contains("InService with the new settings")),
        "{toasts:?}"
    );
    let shown = app.data.endpoint(SLS).unwrap().variants[0].serverless.clone().unwrap();
    assert_eq!((shown.max_concurrency, shown.provisioned), (12, Some(3)), "{shown:?}");
    let sm = aws_sdk_sagemaker::Client::new(&common::sdk_config(&sb).await);
    let d = sm.describe_endpoint().endpoint_name(SLS).send().await.unwrap();
    let now = d.production_variants()[0].current_serverless_config().unwrap();
    assert_eq!(
        (now.max_concurrency(), now.provisioned_concurrency()),
        (Some(12), Some(3))
    );
    let audit = std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap();
    assert!(audit.contains("serverless.set"), "not audited: {audit}");
}
