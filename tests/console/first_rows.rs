//! The Endpoints table's first frame comes from ListEndpoints: the rows show as soon as the
//! first page answers, with a loading mark in every column the describes bring, and fill in as
//! they land; a row whose describe fails stays with the error marked; sorting and filtering work
//! on the rows there are; the selected endpoint's panes say "loading" while it is described.
//! A refresh with nothing changing changes no row (the view is not sorted again for it).

use sagedeck::aws::endpoints::inventory::{EndpointInfo, Inventory, InventoryFailure, VariantInfo};
use sagedeck::aws::endpoints::progressive::InventoryProgress;
use sagedeck::sandbox::faults::FaultSpec;
use sagedeck::tui::app::App;
use sagedeck::tui::described::RowState;
use sagedeck::tui::event::{AppEvent, FleetJob, Job};
use std::sync::Arc;

use crate::common;
use crate::common::tui::{self, feed_until, new_app, press, render, submit_all};

/// The row of `name` on the screen.
fn line_of<'a>(screen: &'a str, name: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(name))
        .unwrap_or_else(|| panic!("no row of {name} in\n{screen}"))
}

#[tokio::test]
async fn rows_show_from_the_list_before_the_describes_answer_then_fill_in() {
    let sb = common::sandbox_with(common::demo_config()).await;
    let broken = "xgboost-churn-csv";
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short(&format!("kind=internal,operation=DescribeEndpoint,endpoint={broken}")).unwrap());
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short("kind=slow,ms=1500,operation=DescribeEndpoint").unwrap());
    let (jobs, mut rx) = tui::worker_on(&sb).await;
    let mut app = new_app();
    app.submit(Job::Fleet(FleetJob::Inventory { selected: None }));
    submit_all(&jobs, &mut app);

    // The first page: every row at once, each describe still in flight.
    feed_until(&mut rx, &mut app, |ev| {
        matches!(
            ev,
            AppEvent::InventoryProgress {
                progress: InventoryProgress::Listed(_),
                ..
            }
        )
        .then_some(())
    })
    .await;
    assert_eq!(app.data.inventory.len(), 8);
    assert!((0..8).all(|i| app.data.row_state(i) == RowState::Loading));
    let first = render(&mut app, 140, 40);
    assert!(first.contains("8 describing…"), "{first}");
    let row = line_of(&first, broken);
    assert!(row.contains("InService") && row.contains('…'), "{row}");
    assert!(!first.contains("loading endpoints"), "{first}");
    press(&mut app, "2");
    let variants = render(&mut app, 140, 40);
    assert!(variants.contains("loading the variants of"), "{variants}");
    assert!(!variants.contains("no production variants"), "{variants}");
    press(&mut app, "1");

    // The end: every row described but the broken one, which keeps its row with the error.
    feed_until(&mut rx, &mut app, |ev| {
        matches!(ev, AppEvent::Inventory(_)).then_some(())
    })
    .await;
    assert_eq!(app.data.inventory.len(), 8, "the failed row stays");
    let done = render(&mut app, 140, 40);
    assert!(!done.contains('…'), "{done}");
    let row = line_of(&done, broken);
    assert!(row.contains("✗") && row.contains("✗ describe:"), "{row}");
    let index = app.data.inventory.iter().position(|e| e.name == broken).unwrap();
    assert!(matches!(app.data.row_state(index), RowState::Failed(_)));
}

fn listed(name: &str, modified: f64) -> EndpointInfo {
    EndpointInfo {
        name: name.into(),
        arn: format!("arn:aws:sagemaker:us-east-1:123456789012:endpoint/{name}"),
        status: "InService".into(),
        failure_reason: None,
        created: 1_790_000_000.0,
        modified,
        config_name: None,
        variants: vec![],
        multi_model: false,
        kind: Default::default(),
        shape: Default::default(),
        autoscaling: vec![],
        deploying: false,
    }
}

fn described(name: &str, modified: f64, variants: usize) -> Arc<EndpointInfo> {
    let variant = |i: usize| VariantInfo {
        name: format!("v{i}"),
        model_name: Some(format!("{name}-model")),
        instance_type: Some("ml.m5.large".into()),
        routing: None,
        current_weight: 1.0,
        desired_weight: 1.0,
        traffic_share: 1.0 / variants as f64,
        current_instances: 1,
        desired_instances: 1,
        statuses: vec![],
        image: None,
        multi_model: false,
        model_data_url: None,
        serverless: None,
    };
    Arc::new(EndpointInfo {
        config_name: Some(format!("{name}-config")),
        variants: (0..variants).map(variant).collect(),
        ..listed(name, modified)
    })
}

fn progress(app: &mut App, progress: InventoryProgress) {
    app.on_event(AppEvent::InventoryProgress { origin: None, progress });
}

/// A console whose refresh listed five endpoints, described two, and failed one.
fn partial_app() -> App {
    let mut app = new_app();
    let names = ["churn-a", "churn-b", "fraud-c", "fraud-d", "ranker-e"];
    let rows = names
        .iter()
        .enumerate()
        .map(|(i, n)| listed(n, 1_790_000_000.0 + i as f64 * 60.0));
    progress(&mut app, InventoryProgress::Listed(rows.collect()));
    progress(
        &mut app,
        InventoryProgress::Described(vec![
            described("churn-b", 1_790_000_060.0, 3),
            described("fraud-c", 1_790_000_120.0, 1),
        ]),
    );
    progress(
        &mut app,
        InventoryProgress::Failed(vec![InventoryFailure {
            endpoint: "ranker-e".into(),
            error: sagedeck::aws::AwsError::Throttling("rate exceeded".into()),
        }]),
    );
    app.data.last_ok = None;
    app.toasts = Default::default();
    app.take_jobs();
    app
}

fn shown_names(app: &App) -> Vec<String> {
    app.panes
        .endpoints
        .view
        .iter()
        .map(|i| app.data.inventory[*i].name.clone())
        .collect()
}

#[test]
fn sorting_and_filtering_work_on_partial_rows() {
    let mut app = partial_app();
    // Modified is known from the list: every row sorts on it (newest first).
    assert_eq!(
        shown_names(&app),
        ["ranker-e", "fraud-d", "fraud-c", "churn-b", "churn-a"]
    );
    // Variants is not known for three rows: they go last, whichever the direction.
    press(&mut app, ":sort variants");
    tui::tap(&mut app, crossterm::event::KeyCode::Enter);
    assert_eq!(
        shown_names(&app),
        ["churn-b", "fraud-c", "churn-a", "fraud-d", "ranker-e"]
    );
    press(&mut app, ":sort variants");
    tui::tap(&mut app, crossterm::event::KeyCode::Enter);
    assert_eq!(
        shown_names(&app),
        ["fraud-c", "churn-b", "churn-a", "fraud-d", "ranker-e"]
    );
    // The filter matches names, described or not.
    press(&mut app, "/fraud");
    tui::tap(&mut app, crossterm::event::KeyCode::Enter);
    let mut names = shown_names(&app);
    names.sort();
    assert_eq!(names, ["fraud-c", "fraud-d"]);
}

#[test]
fn the_loading_state_at_80x24_and_140x40() {
    let mut app = partial_app();
    insta::assert_snapshot!("first_rows_loading_80x24", render(&mut app, 80, 24));
    insta::assert_snapshot!("first_rows_loading_140x40", render(&mut app, 140, 40));
}

fn listed_page(names: &[String]) -> InventoryProgress {
    InventoryProgress::Listed(names.iter().map(|n| listed(n, 1_790_000_000.0)).collect())
}

#[test]
fn a_refresh_with_nothing_changing_changes_no_row_and_finds_each_by_name() {
    let mut app = new_app();
    let names: Vec<String> = (0..300).map(|i| format!("ep-{i:03}")).collect();
    progress(&mut app, listed_page(&names));
    assert_eq!(app.data.inventory.len(), 300);
    let after_first = app.data.rows_version;
    assert!(after_first > 0, "new rows are a change");
    // The same pages again: no row added, none changed, the view not sorted again.
    for page in names.chunks(100) {
        progress(&mut app, listed_page(page));
    }
    assert_eq!(app.data.inventory.len(), 300, "rows already shown are not added again");
    assert_eq!(app.data.rows_version, after_first, "nothing changed");
    // A describe lands: its row is found by name, filled in, no longer loading.
    let fresh = described("ep-150", 1_790_000_000.0, 2);
    progress(&mut app, InventoryProgress::Described(vec![fresh.clone()]));
    assert_eq!(app.data.inventory[150], fresh);
    assert_eq!(app.data.row_state(150), RowState::Described);
    let after_describe = app.data.rows_version;
    assert!(after_describe > after_first);
    // The same description again (the sweep's): nothing to change.
    progress(&mut app, InventoryProgress::Described(vec![fresh]));
    assert_eq!(app.data.rows_version, after_describe);
}

#[test]
fn rows_are_found_after_the_inventory_comes_back_in_another_order() {
    let mut app = new_app();
    progress(&mut app, listed_page(&["a".into(), "b".into(), "c".into()]));
    let rows = ["c", "b", "a"].map(|n| Arc::new(listed(n, 1_790_000_000.0))).to_vec();
    app.on_event(AppEvent::Inventory(Ok(Inventory {
        endpoints: rows,
        ..Default::default()
    })));
    progress(
        &mut app,
        InventoryProgress::Described(vec![described("a", 1_790_000_060.0, 1)]),
    );
    assert_eq!(app.data.inventory[2].variants.len(), 1, "the row of a, now last");
    assert!(app.data.inventory[0].variants.is_empty());
    // A row a later page adds is found by the next report.
    progress(&mut app, listed_page(&["d".into()]));
    progress(
        &mut app,
        InventoryProgress::Described(vec![described("d", 1_790_000_120.0, 3)]),
    );
    assert_eq!(app.data.inventory.len(), 4);
    assert_eq!(app.data.inventory[3].variants.len(), 3);
}
