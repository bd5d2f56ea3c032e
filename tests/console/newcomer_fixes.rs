//! The console from the newcomer pass of issue 26: the Agent conversation wraps between tokens,
//! the Endpoints pane says why it could not load, the Logs pane of an endpoint that has written
//! no logs yet says so (a state, not an error) and a pane's toasts stay on its tab, and on an
//! 80-column terminal the Endpoints table drops a column that says the same on every row first.
//! (The promotion dialogs that wrap and the plan that refreshes its endpoint are in
//! `guardrails/plan_views.rs`.)

use sagedeck::aws::AwsError;
use sagedeck::aws::endpoints::multi::FleetTarget;
use sagedeck::aws::error::NO_REGION;
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::AppEvent;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::regions::RegionRow;
use sagedeck::tui::theme::Theme;

use crate::app::app_with_fleet;
use crate::common::tui::render;

#[test]
fn the_agent_conversation_wraps_between_tokens() {
    let mut app = crate::agent::finished_app();
    let screen = render(&mut app, 80, 24);
    // Before: `"intent":"book_│flight"` and `(confidence 0.│93).` across two rows.
    assert!(screen.contains("\"book_flight\""), "{screen}");
    assert!(screen.contains("0.93)."), "{screen}");
}

#[test]
fn without_a_region_the_endpoints_pane_says_what_to_do() {
    let mut app = App::new(
        Data {
            context: crate::common::tui::context(),
            ..Default::default()
        },
        Theme::default_theme(),
    );
    app.on_event(AppEvent::Inventory(Err(AwsError::Config(NO_REGION.into()))));
    let screen = render(&mut app, 100, 30);
    let pane: String = screen
        .lines()
        .map(|l| l.trim_matches(|c| c == '"' || c == ' ').trim_matches('│').trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        pane.contains("could not load endpoints: no AWS region: pass --region, set AWS_REGION"),
        "{screen}"
    );
}

/// The fixture fleet on the Logs tab with `llm-tgi-chat` selected and Creating.
fn logs_of_a_creating_endpoint() -> App {
    let mut app = app_with_fleet(0);
    let ep = "llm-tgi-chat";
    std::sync::Arc::make_mut(app.data.inventory.iter_mut().find(|e| e.name == ep).unwrap()).status = "Creating".into();
    app.data.selected = Some(ep.into());
    app.switch(Tab::Logs);
    app.take_jobs();
    app
}

fn logs_failed(app: &mut App, error: AwsError) {
    app.on_event(AppEvent::Logs {
        endpoint: "llm-tgi-chat".into(),
        follow: false,
        result: Err(error),
    });
}

#[test]
fn no_log_group_yet_is_a_state_not_an_error() {
    let mut app = logs_of_a_creating_endpoint();
    logs_failed(
        &mut app,
        AwsError::NotFound("The specified log group does not exist.".into()),
    );
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("no logs yet: the endpoint is Creating"), "{screen}");
    assert!(!screen.contains("error"), "{screen}");
    assert!(!screen.contains("does not exist"), "{screen}");
    assert_eq!(app.toasts.visible_on(Tab::Logs.title()).count(), 0);
}

#[test]
fn a_panes_error_toast_stays_on_its_tab() {
    let mut app = logs_of_a_creating_endpoint();
    logs_failed(&mut app, AwsError::Throttling("Rate exceeded".into()));
    let on_logs = render(&mut app, 100, 30);
    assert!(on_logs.contains("Rate exceeded"), "{on_logs}");
    app.switch(Tab::Timeline);
    let on_timeline = render(&mut app, 100, 30);
    assert!(!on_timeline.contains("Rate exceeded"), "{on_timeline}");
    assert_eq!(app.toasts.visible_on(Tab::Timeline.title()).count(), 0);
}

/// A merged view of two regions of one account: ACCOUNT says the same on every row.
fn one_account_two_regions() -> App {
    let mut app = app_with_fleet(4);
    let row = |region: &str| RegionRow {
        target: FleetTarget {
            profile: Some("prod".into()),
            region: region.into(),
        },
        profile: "prod".into(),
        account: Some("111122223333".into()),
        error: None,
        endpoints: 4,
    };
    app.on_event(AppEvent::Regions {
        regions: vec![row("us-east-1"), row("eu-west-1")],
        origins: vec![0, 0, 0, 0, 1, 1, 1, 1],
    });
    app.toasts = Default::default();
    app
}

#[test]
fn at_80x24_a_column_with_one_value_gives_way_first() {
    let mut app = one_account_two_regions();
    let screen = render(&mut app, 80, 24);
    let heading = screen.lines().find(|l| l.contains("NAME")).expect("a heading row");
    assert!(!heading.contains("ACCOUNT"), "{screen}");
    assert!(heading.contains("REGION"), "{screen}");
    // Its room goes to the next column by priority, one that did not fit beside it.
    assert!(heading.contains("5XX"), "{screen}");
    // With room, it shows.
    let wide = render(&mut app, 200, 40);
    assert!(wide.contains("111122223333"), "{wide}");
}
