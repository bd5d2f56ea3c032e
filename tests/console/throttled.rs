//! Throttling respected, over the wire: when AWS throttles a refresh (the sandbox answers
//! ThrottlingException to every DescribeEndpoint, past the SDK's adaptive retries), the rows keep
//! what they had (none is marked failed), the refresh interval doubles and the header says
//! `throttled: refresh slowed to 20s`; a clean refresh brings it back and the badge goes. And
//! `:goto` finds one endpoint among the rows and selects it.

use std::time::Duration;

use sagedeck::sandbox::faults::FaultSpec;
use sagedeck::tui::app::App;
use sagedeck::tui::described::RowState;
use sagedeck::tui::event::AppEvent;
use sagedeck::tui::widgets::command_line::Command;
use sagedeck::tui::worker::Jobs;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::common;
use crate::common::tui::{self, feed_until, render, submit_all};

/// Asks for a refresh and applies every event until it ends; the throttled calls it reports.
async fn refresh(app: &mut App, jobs: &Jobs, rx: &mut UnboundedReceiver<AppEvent>) -> usize {
    app.refresh_inventory();
    submit_all(jobs, app);
    feed_until(rx, app, |ev| match ev {
        AppEvent::Inventory(Ok(inv)) => Some(inv.throttled),
        AppEvent::Inventory(Err(e)) => panic!("the refresh failed: {e}"),
        _ => None,
    })
    .await
}

#[tokio::test]
async fn a_throttled_refresh_slows_down_says_so_and_keeps_its_rows() {
    let sb = common::sandbox_with(common::demo_config()).await;
    let (jobs, mut rx) = tui::worker_on(&sb).await;
    let mut app = tui::new_app();
    assert_eq!(refresh(&mut app, &jobs, &mut rx).await, 0);
    let rows = app.data.inventory.len();
    assert!(rows >= 8, "{rows}");

    let selected = "mcp-intent-classifier-prod";
    app.run_command(Command::Pane {
        name: "goto".into(),
        arg: Some(selected.into()),
    });
    assert_eq!(app.data.selected.as_deref(), Some(selected), ":goto selects it");
    let spec = FaultSpec::parse_short("kind=throttle,operation=DescribeEndpoint").unwrap();
    let fault = sb.sandbox.faults.add(spec);
    let throttled = refresh(&mut app, &jobs, &mut rx).await;
    assert!(throttled >= 1, "the selected endpoint's describe was throttled");
    assert_eq!(app.data.throttled_interval, Some(Duration::from_secs(20)));
    assert_eq!(app.data.inventory.len(), rows, "every row stays");
    assert!((0..rows).all(|i| app.data.row_state(i) == RowState::Described));
    assert!(!app.toasts.log.iter().any(|t| t.text.contains("could not describe")));
    let screen = render(&mut app, 160, 30);
    assert!(screen.contains("throttled: refresh slowed to 20s"), "{screen}");
    assert!(!screen.contains("✗"), "{screen}");

    sb.sandbox.faults.remove(fault);
    assert_eq!(refresh(&mut app, &jobs, &mut rx).await, 0);
    assert_eq!(
        app.data.throttled_interval, None,
        "a clean refresh brings 20 s back to 10 s"
    );
    let screen = render(&mut app, 160, 30);
    assert!(!screen.contains("refresh slowed"), "{screen}");
}
